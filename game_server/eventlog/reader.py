"""Reading an event log without ever writing to it: streaming, recall queries, verification.

Entry point: :meth:`EventLogReader.open`. The connection is opened with a read-only URI
(``file:///...?mode=ro``), so neither the reader nor anything that holds it can change the
log; it may run while the server appends (WAL readers do not block the writer). SQLite
may still create the ``-wal``/``-shm`` companion files beside a WAL database to coordinate
with a writer; to open a copy kept as evidence without even that, pass ``immutable=True``. It
implements :class:`~game_server.eventlog.store.EventSource`, which is what
:func:`~game_server.eventlog.verify.verify_chain` and recall use.

Example::

    with EventLogReader.open("data/table-1.db") as reader:
        for span in reader.recent_rounds(terminal="T-03", limit=10):
            events = reader.events_for_round(span.table_id, span.round_id)
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

from game_server.eventlog.errors import EventLogError, LogDamaged, LogNotFound, NotAnEventLog
from game_server.eventlog.locks import check_live
from game_server.eventlog.records import (
    Checkpoint,
    EventRow,
    RoundSpan,
    StoredEvent,
    format_time,
)
from game_server.eventlog.schema import (
    CHECKPOINT_COLUMNS,
    CHECKPOINT_COLUMNS_V1,
    EVENT_COLUMNS,
    TRIGGERS,
    Found,
    LogState,
    has_wal_content,
    inspect_connection,
    normalized_sql,
    read_only_uri,
    refuse_directory,
)
from game_server.eventlog.store import SQLITE, Dialect

if TYPE_CHECKING:
    from game_server.eventlog.store import EventSource

#: Rows fetched from SQLite at a time when streaming.
DEFAULT_BATCH: Final = 10_000

_SELECT_EVENTS: Final = f"SELECT {EVENT_COLUMNS} FROM events"


def recent_rounds_sql(
    terminal: str | None,
    table: str | None,
    since: datetime | None,
    until: datetime | None,
    dialect: Dialect = SQLITE,
) -> tuple[str, list[object]]:
    """The query that walks events newest first for :meth:`EventLogReader.recent_rounds`
    (and the floor store's :class:`~game_server.floor.source.StoreLogSource`).

    Ordered by ``time DESC, seq DESC``, which is the order of the ``(terminal, time)``,
    ``(table_id, time)`` and ``(time)`` indexes (each ends with the rowid ``seq``), so SQLite
    walks an index backwards and sorts nothing.
    """
    p = dialect.param
    where = ["round_id IS NOT NULL"]
    params: list[object] = []
    if terminal is not None:
        where.append(f"terminal = {p}")
        params.append(terminal)
    if table is not None:
        where.append(f"table_id = {p}")
        params.append(table)
    if since is not None:
        where.append(f"time >= {p}")
        params.append(format_time(since))
    if until is not None:
        where.append(f"time < {p}")
        params.append(format_time(until))
    sql = (
        f"SELECT table_id, round_id FROM {dialect.events} WHERE {' AND '.join(where)} "
        "ORDER BY time DESC, seq DESC"
    )
    return sql, params


class EventLogReader:
    """A read-only view of one event log (see :class:`~game_server.eventlog.store.EventSource`).

    Not thread-safe; open one reader per thread. Use as a context manager or call
    :meth:`close`.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, state: LogState) -> None:
        """Wrap an open read-only connection; use :meth:`open`."""
        self._conn = conn
        self.path = path
        self.schema_version = state.schema_version
        self._log_id = state.log_id
        self._has_checkpoints = "0002-checkpoints" in state.applied
        # The columns the table has (not what ``migrations`` claims: that table may have been
        # edited, and verification must still read every signed field).
        columns = {str(row[1]) for row in conn.execute("PRAGMA table_info(checkpoints)")}
        self._checkpoint_columns = (
            CHECKPOINT_COLUMNS if "meta" in columns else CHECKPOINT_COLUMNS_V1
        )
        self.state = state
        self._snapshot_depth = 0

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, immutable: bool = False) -> EventLogReader:
        """Open the log at ``path`` read-only.

        Args:
            path: The database file.
            immutable: For a copy that no process writes to (evidence): SQLite then takes
                no locks and creates no ``-wal``/``-shm`` files beside it. Never for a live
                log. Refused if the file has un-checkpointed WAL content (which an immutable
                connection would not see).

        Raises:
            LogNotFound: there is no file at ``path``.
            NotAnEventLog: the file is not an event log.
            SchemaTooNew: the log is newer than this code.
            LogDamaged: SQLite cannot read it.
        """
        file = Path(path)
        if not file.exists():
            raise LogNotFound(f"there is no event log at {file}; check the path")
        refuse_directory(file)
        if immutable and has_wal_content(file):
            raise EventLogError(
                f"{file} has transactions in its -wal file that are not yet in the database "
                "file; open it without immutable=True (or let its writer close it first)"
            )
        try:
            conn = sqlite3.connect(
                read_only_uri(file, immutable=immutable), uri=True, isolation_level=None
            )
        except sqlite3.Error as exc:
            raise LogDamaged(f"cannot open {file} read-only: {exc}") from None
        # Had anything in this process closed a descriptor of a log it writes (dropping
        # SQLite's lock), its writer hears of it now (game_server.eventlog.locks).
        check_live()
        try:
            state = inspect_connection(conn, file)
            if state.found is not Found.LOG:
                what = "file" if file.stat().st_size == 0 else "database"
                raise NotAnEventLog(f"{file} is an empty {what}, not an ETG event log")
        except BaseException:
            conn.close()
            raise
        return cls(conn, file, state)

    def __enter__(self) -> EventLogReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection; idempotent."""
        self._conn.close()

    @property
    def log_id(self) -> str:
        """The log's random id from ``meta``."""
        return self._log_id

    def _damaged(self, exc: sqlite3.Error) -> LogDamaged:
        return LogDamaged(
            f"{self.path} cannot be read ({exc}); the database file is damaged. Keep it as "
            "evidence, and verify a copy taken before the damage."
        )

    def _all(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the log (a single read transaction)."""
        if self._snapshot_depth == 0:
            self._conn.execute("BEGIN")
        self._snapshot_depth += 1
        try:
            yield
        finally:
            self._snapshot_depth -= 1
            if self._snapshot_depth == 0 and self._conn.in_transaction:
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error:  # a read transaction: nothing to lose
                    with suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")

    def max_seq(self) -> int:
        """The highest sequence number stored (0 when empty)."""
        value = self._all("SELECT max(seq) FROM events")[0][0]
        return value if isinstance(value, int) else 0

    def row_batches(
        self, start_seq: int = 1, batch: int = DEFAULT_BATCH
    ) -> Iterator[list[EventRow]]:
        """Raw rows from ``start_seq`` on, in sequence order, ``batch`` rows per list.

        Raises:
            LogDamaged: SQLite hit a damaged page; every row before it was yielded first.
        """
        next_seq = start_seq
        try:
            cursor = self._conn.execute(
                f"{_SELECT_EVENTS} WHERE seq >= ? ORDER BY seq", (next_seq,)
            )
            while rows := cursor.fetchmany(batch):
                yield rows
                next_seq = rows[-1][0] + 1
        except sqlite3.DatabaseError as exc:
            # fetchmany drops the rows of a batch that hit the damage: read them one by one.
            salvaged = self._rows_before_damage(next_seq)
            if salvaged:
                yield salvaged
            raise self._damaged(exc) from None

    def _rows_before_damage(self, start_seq: int) -> list[EventRow]:
        rows: list[EventRow] = []
        try:
            for row in self._conn.execute(
                f"{_SELECT_EVENTS} WHERE seq >= ? ORDER BY seq", (start_seq,)
            ):
                rows.append(row)
        except sqlite3.DatabaseError:
            pass
        return rows

    def iter_rows(self, start_seq: int = 1, batch: int = DEFAULT_BATCH) -> Iterator[EventRow]:
        """Raw rows from ``start_seq`` on, in sequence order."""
        for rows in self.row_batches(start_seq, batch):
            yield from rows

    def iter_events(self, start_seq: int = 1, batch: int = DEFAULT_BATCH) -> Iterator[StoredEvent]:
        """Events from ``start_seq`` on, in sequence order; bodies are parsed on first use."""
        for rows in self.row_batches(start_seq, batch):
            yield from map(StoredEvent.from_row, rows)

    def events_for_round(self, table_id: str, round_id: int) -> list[StoredEvent]:
        """Every event of round ``round_id`` at ``table_id``, in sequence order (an index
        lookup)."""
        rows = self._all(
            f"{_SELECT_EVENTS} WHERE table_id = ? AND round_id = ? ORDER BY seq",
            (table_id, round_id),
        )
        return [StoredEvent.from_row(row) for row in rows]  # type: ignore[arg-type]

    def events_of_kind(self, *kinds: str) -> list[StoredEvent]:
        """Every event of the given kinds, in sequence order (through the ``events_kind``
        index: e.g. every ``table_opened``)."""
        marks = ", ".join("?" * len(kinds))
        rows = self._all(f"{_SELECT_EVENTS} WHERE kind IN ({marks}) ORDER BY seq", kinds)
        return [StoredEvent.from_row(row) for row in rows]  # type: ignore[arg-type]

    def iter_events_of_kind(self, *kinds: str, batch: int = DEFAULT_BATCH) -> Iterator[StoredEvent]:
        """:meth:`events_of_kind` read ``batch`` rows at a time, for kinds a long log holds
        many of (e.g. every ``request_applied``: one per command a client sent).

        Raises:
            LogDamaged: SQLite cannot read the log.
        """
        marks = ", ".join("?" * len(kinds))
        cursor = self._conn.cursor()
        try:
            cursor.execute(f"{_SELECT_EVENTS} WHERE kind IN ({marks}) ORDER BY seq", kinds)
            while rows := cursor.fetchmany(batch):
                yield from map(StoredEvent.from_row, rows)
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        finally:
            cursor.close()

    def event(self, seq: int) -> StoredEvent | None:
        """The event with sequence number ``seq``, or None."""
        rows = self._all(f"{_SELECT_EVENTS} WHERE seq = ?", (seq,))
        return StoredEvent.from_row(rows[0]) if rows else None  # type: ignore[arg-type]

    def iter_checkpoints(self) -> Iterator[Checkpoint]:
        """Checkpoints in number order.

        Raises:
            LogDamaged: SQLite hit a damaged page; the checkpoints before it were yielded.
        """
        if not self._has_checkpoints:
            return
        try:
            cursor = self._conn.execute(
                f"SELECT {self._checkpoint_columns} FROM checkpoints ORDER BY number"
            )
            for row in cursor:
                try:
                    checkpoint = Checkpoint.from_row(row, self._log_id)
                except ValueError as exc:
                    raise LogDamaged(f"{self.path}: a checkpoint row is malformed: {exc}") from None
                yield checkpoint
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def checkpoints(self) -> list[Checkpoint]:
        """Every checkpoint, in number order."""
        return list(self.iter_checkpoints())

    def checkpoints_after(self, number: int, limit: int = DEFAULT_BATCH) -> list[Checkpoint]:
        """At most ``limit`` checkpoints numbered after ``number``, in number order (what a
        shipper sends next)."""
        if not self._has_checkpoints:
            return []
        rows = self._all(
            f"SELECT {self._checkpoint_columns} FROM checkpoints WHERE number > ? "
            "ORDER BY number LIMIT ?",
            (number, limit),
        )
        try:
            return [Checkpoint.from_row(row, self._log_id) for row in rows]
        except ValueError as exc:
            raise LogDamaged(f"{self.path}: a checkpoint row is malformed: {exc}") from None

    def recent_rounds(
        self,
        terminal: str | None = None,
        table: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 10,
    ) -> list[RoundSpan]:
        """The most recent rounds, newest first, for recall ("the last 10 games").

        A round qualifies if at least one of its events matches every filter given: that
        event concerns ``terminal``, is at ``table``, and its time is in
        ``[since, until)``. Rounds are ordered by the time of their latest matching event.
        Each :class:`RoundSpan` then covers the whole round (all its events, every
        terminal). Uses the ``(terminal, time)``, ``(table_id, time)`` or ``(time)`` index
        walked backwards, stopping after ``limit`` distinct rounds, then one
        ``(table_id, round_id)`` index lookup per round: milliseconds on any log size.

        Args:
            terminal: Only rounds this terminal took part in.
            table: Only rounds at this table.
            since: Only events at or after this aware datetime.
            until: Only events before this aware datetime.
            limit: At most this many rounds.

        Raises:
            ValueError: a naive ``since``/``until``, or ``limit`` below 1.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        sql, params = recent_rounds_sql(terminal, table, since, until)
        found: list[tuple[str, int]] = []
        seen: set[tuple[str, int]] = set()
        with self.snapshot():
            try:
                for table_id, round_id in self._conn.execute(sql, params):
                    key = (table_id, round_id)
                    if key not in seen:
                        seen.add(key)
                        found.append(key)
                        if len(found) == limit:
                            break
            except sqlite3.DatabaseError as exc:
                raise self._damaged(exc) from None
            spans = []
            for table_id, round_id in found:
                first_seq, last_seq, first_time, last_time, count = self._all(
                    "SELECT min(seq), max(seq), min(time), max(time), count(*) FROM events "
                    "WHERE table_id = ? AND round_id = ?",
                    (table_id, round_id),
                )[0]
                spans.append(
                    RoundSpan(
                        table_id,
                        round_id,
                        first_seq,  # type: ignore[arg-type]
                        last_seq,  # type: ignore[arg-type]
                        first_time,  # type: ignore[arg-type]
                        last_time,  # type: ignore[arg-type]
                        count,  # type: ignore[arg-type]
                    )
                )
        return spans

    @property
    def dialect(self) -> Dialect:
        """SQLite's (:data:`~game_server.eventlog.store.SQLITE`)."""
        return SQLITE

    def select(self, sql: str, params: Sequence[object]) -> list[Any]:
        """The rows of a read-only recall query (:mod:`game_server.recall.query`).

        Raises:
            LogDamaged: SQLite cannot read the log.
        """
        return self._all(sql, tuple(params))

    def select_iter(self, sql: str, params: Sequence[object]) -> Generator[Any, None, None]:
        """The rows of a recall query one by one; the cursor is closed when the caller
        stops early (``close()``).

        Raises:
            LogDamaged: SQLite cannot read the log.
        """
        cursor = self._conn.cursor()
        try:
            yield from cursor.execute(sql, tuple(params))
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        finally:
            cursor.close()

    def triggers_present(self) -> dict[str, bool]:
        """Each trigger of the schema by name: True if present with exactly the SQL it was
        created with; False if missing or altered. A trigger the schema does not define
        (someone added it) is listed as False too."""
        stored = {
            str(name): normalized_sql(str(sql))
            for name, sql in self._all("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        }
        result = {name: stored.get(name) == normalized_sql(sql) for name, sql in TRIGGERS.items()}
        for name in stored:
            if name not in TRIGGERS:
                result[name] = False
        return result

    def integrity_check(self, quick: bool = False) -> list[str]:
        """SQLite's own check of the file: ``["ok"]``, or the problems found.

        :func:`~game_server.eventlog.verify.verify_chain` proves the rows of ``events`` and
        ``checkpoints``; recall queries also read the indexes, which only this check
        compares with the table (``quick=True`` checks pages but not index contents, in
        about a third of the time).
        """
        pragma = "quick_check" if quick else "integrity_check"
        return [str(row[0]) for row in self._all(f"PRAGMA {pragma}")]

    def meta(self) -> dict[str, str]:
        """The log's ``meta`` table (product, log_id, schema_version, chain_format, ...)."""
        return {str(k): str(v) for k, v in self._all("SELECT key, value FROM meta")}

    def applied_migrations(self) -> list[tuple[str, str]]:
        """``(name, applied_at)`` of every applied migration, in order."""
        return [
            (str(n), str(a))
            for n, a in self._all("SELECT name, applied_at FROM migrations ORDER BY rowid")
        ]


if TYPE_CHECKING:

    def _is_an_event_source(reader: EventLogReader) -> EventSource:
        return reader  # mypy checks that EventLogReader implements the Protocol
