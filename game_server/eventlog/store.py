"""The two small interfaces a log backend implements: the writer's store and the reader.

docs/design.md "The floor": a floor outgrows one server and a central copy of every
table's log moves to PostgreSQL. Everything above these interfaces (the chain, the signing,
:class:`~game_server.eventlog.log.EventLog`, :func:`~game_server.eventlog.verify.verify_chain`,
recall) is backend-free, so that step is a new class for each Protocol, not a rewrite.

- :class:`EventStore`: what :class:`~game_server.eventlog.log.EventLog` (the one writer) needs.
  The SQLite implementation is :class:`~game_server.eventlog.sqlite_store.SqliteEventStore`.
- :class:`EventSource`: what readers, recall and verification need. The SQLite
  implementation is :class:`~game_server.eventlog.reader.EventLogReader`.

Rows cross these interfaces as plain tuples (:data:`~game_server.eventlog.records.EventRow`)
because verification streams millions of them.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from game_server.eventlog.records import (
    ChainHead,
    Checkpoint,
    EventRow,
    RoundSpan,
    StoredEvent,
)
from game_server.eventlog.schema import LogState


@dataclass(frozen=True)
class Dialect:
    """How a backend spells the few things recall's indexed queries need that SQL does not
    say one way (:mod:`game_server.recall.query` writes each query once, through this).

    Attributes:
        events: The relation of the log's events (``events`` in a SQLite log; one log's rows
            of ``floor.events`` in the floor store).
        param: The placeholder of a parameter (``?`` or ``%s``).
        sqlite: Whether the backend is SQLite (its JSON functions and its ``+column`` hint
            that keeps a term from choosing an index).
    """

    events: str
    param: str
    sqlite: bool

    def unindexed(self, column: str) -> str:
        """``column``, written so that SQLite does not pick an index by it."""
        return f"+{column}" if self.sqlite else column

    def json_int(self, field: str) -> str:
        """The integer field ``field`` of the event's body."""
        if self.sqlite:
            return f"json_extract(body, '$.{field}')"
        return f"(body::jsonb ->> '{field}')::bigint"

    def json_text(self, field: str) -> str:
        """The text field ``field`` of the event's body."""
        if self.sqlite:
            return f"json_extract(body, '$.{field}')"
        return f"(body::jsonb ->> '{field}')"


#: The dialect of a SQLite event log.
SQLITE: Dialect = Dialect("events", "?", sqlite=True)


class EventStore(Protocol):
    """The write side of a log backend. Exactly one process writes a log."""

    @property
    def log_id(self) -> str:
        """The log's permanent random id (part of every checkpoint's signed message)."""
        ...

    def head(self) -> ChainHead:
        """The last stored sequence number and hash (``(0, GENESIS_HASH)`` when empty)."""
        ...

    def hash_at(self, seq: int) -> str | None:
        """The stored hash of event ``seq``; the genesis hash for 0; None if there is no such
        event."""
        ...

    def tail(self, count: int) -> list[EventRow]:
        """The last ``count`` events (fewer if the log is shorter), in sequence order."""
        ...

    def last_checkpoint(self) -> Checkpoint | None:
        """The checkpoint with the highest number, or None."""
        ...

    def checkpoints_after(self, number: int) -> list[Checkpoint]:
        """The checkpoints numbered after ``number``, in number order (to catch up an anchor
        stream)."""
        ...

    @property
    def state(self) -> LogState:
        """The log's ``meta`` and ``migrations`` as they are now (signed by every new
        checkpoint)."""
        ...

    @property
    def found(self) -> LogState | None:
        """The log as found before this open migrated it; None for a new log."""
        ...

    @property
    def migrated(self) -> tuple[str, ...]:
        """The migrations this open applied."""
        ...

    def write(
        self, expected: ChainHead, rows: Sequence[EventRow], checkpoint: Checkpoint | None
    ) -> None:
        """Store ``rows`` and then ``checkpoint`` (either may be empty) atomically and
        durably: when this returns everything is on disk; when it raises nothing is.

        Raises:
            WriterConflict: the stored head is not ``expected`` (another writer).
            AppendRefused: the backend refused or failed; nothing was written.
        """
        ...

    def write_many(
        self, writes: Sequence[tuple[ChainHead, Sequence[EventRow], Checkpoint | None]]
    ) -> None:
        """Store several writes (each ``(expected, rows, checkpoint)`` as :meth:`write`
        takes them), in order, atomically and durably together: when this returns all are on
        disk; when it raises none is.

        Raises:
            WriterConflict: the stored head is not the first write's ``expected``.
            AppendRefused: the backend refused or failed; nothing was written.
        """
        ...

    def close(self) -> None:
        """Release the backend; idempotent."""
        ...


class EventSource(Protocol):
    """The read side of a log backend: streaming, recall queries, and what verification
    needs. Never writes."""

    @property
    def log_id(self) -> str:
        """The log's permanent random id."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """A context in which every read sees the same state of the log (one read
        transaction), even while the writer appends."""
        ...

    def max_seq(self) -> int:
        """The highest sequence number stored (0 when empty)."""
        ...

    def row_batches(self, start_seq: int = 1, batch: int = 10_000) -> Iterator[list[EventRow]]:
        """Raw rows from ``start_seq`` on in sequence order, ``batch`` at a time (the fast
        path, used by verification)."""
        ...

    def iter_events(self, start_seq: int = 1, batch: int = 10_000) -> Iterator[StoredEvent]:
        """Events from ``start_seq`` on, in sequence order."""
        ...

    def events_for_round(self, table_id: str, round_id: int) -> list[StoredEvent]:
        """Every event of one round, in sequence order."""
        ...

    def iter_checkpoints(self) -> Iterator[Checkpoint]:
        """Checkpoints in number order."""
        ...

    def checkpoints(self) -> list[Checkpoint]:
        """Every checkpoint, in number order."""
        ...

    def recent_rounds(
        self,
        terminal: str | None = None,
        table: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 10,
    ) -> list[RoundSpan]:
        """The most recent rounds matching the filters, newest first."""
        ...

    def triggers_present(self) -> dict[str, bool]:
        """Each guard of the schema by name: True if present exactly as created."""
        ...

    @property
    def dialect(self) -> Dialect:
        """How this backend spells recall's queries."""
        ...

    def select(self, sql: str, params: Sequence[object]) -> list[Any]:
        """The rows of a recall query written in :attr:`dialect`."""
        ...

    def select_iter(self, sql: str, params: Sequence[object]) -> Generator[Any, None, None]:
        """The rows of a recall query one by one (stopping early with ``close()``)."""
        ...

    def close(self) -> None:
        """Release the backend; idempotent."""
        ...
