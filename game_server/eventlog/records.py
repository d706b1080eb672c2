"""The values that go into and come out of the event log.

- :class:`NewEvent`: one event of an engine step, as the table hands it to
  :meth:`~game_server.eventlog.log.EventLog.append` (the event's ``to_dict`` form plus where
  it happened).
- :class:`StoredEvent`: an event as the log holds it, with its sequence number, time and
  chain hash; :class:`StoredStep`: the events of one append, made as they are read.
- :class:`Checkpoint`: a signed statement "the chain up to ``seq`` ends in ``hash``".
- :class:`RoundSpan`: one round found by a recall query, with its first and last event.
- :data:`EventRow`: the raw row tuple that stores and readers exchange (the fast path).

Times are text, UTC, ISO 8601 with microseconds and a ``Z``:
``2025-03-01T18:04:05.123456Z`` (:func:`format_time`). Fixed width, so text order is time
order. The clock is always passed in (:data:`Clock`); :func:`system_clock` is the one place
that reads the system time, for the server to pass. Times are stored as the clock gives them:
if it steps back (NTP), a later event can carry an earlier time. The order of the log is
``seq``, never ``time``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Final, NamedTuple, overload

from game_server.rules.events import from_dict, to_dict
from shared.codec import loads

#: A callable that returns the current time as an aware datetime (any zone; stored as UTC).
Clock = Callable[[], datetime]

#: The largest value of an SQLite INTEGER.
MAX_INT64: Final = 2**63 - 1

#: ``(seq, time, table_id, round_id, terminal, kind, body_json, hash)``, the column order of
#: the ``events`` table. Readers stream these; :class:`StoredEvent` wraps one.
EventRow = tuple[int, str, str, int | None, str | None, str, str, str]

_new = object.__new__

_TIME_RE: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z\Z")


def system_clock() -> datetime:
    """The default clock factory: the system's current time in UTC.

    The only place in the event log that reads the system time. The server passes it to
    :meth:`~game_server.eventlog.log.EventLog.create_or_open`; tests pass a fake.
    """
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """The stored text form of an aware datetime: UTC, microseconds, ``Z``.

    Args:
        moment: An aware datetime (any time zone).

    Returns:
        For example ``"2025-03-01T18:04:05.123456Z"``.

    Raises:
        ValueError: ``moment`` is naive (has no time zone), so its instant is unknown.
    """
    if not isinstance(moment, datetime):
        raise ValueError(f"a log time is a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(
            f"a log time must be an aware datetime (with a time zone), got the naive {moment}; "
            "pass a clock that returns datetime.now(UTC)"
        )
    utc = moment.astimezone(UTC).replace(tzinfo=None)
    return utc.isoformat(timespec="microseconds") + "Z"


def parse_time(text: str) -> datetime:
    """The aware UTC datetime of a stored time text (the inverse of :func:`format_time`).

    Raises:
        ValueError: ``text`` is not in the stored form.
    """
    if not _TIME_RE.match(text):
        raise ValueError(f"{text!r} is not a log time such as 2025-03-01T18:04:05.123456Z")
    return datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC)


def _check_text(name: str, value: object, *, optional: bool) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not value:
        kind = "a non-empty string or None" if optional else "a non-empty string"
        raise ValueError(f"{name} must be {kind}, got {value!r}")


def _check_round(value: object) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT64:
        raise ValueError(f"round_id must be None or an integer from 0 to 2**63-1, got {value!r}")


@dataclass(frozen=True)
class NewEvent:
    """One event of an engine step, ready to append.

    Attributes:
        table_id: The table the event happened at.
        round_id: The round it belongs to, or None for events outside a round (a shoe
            commitment, a terminal joining).
        terminal: The player terminal it concerns, or None (dealer cards, table events).
        body: The event's JSON form, :func:`game_server.rules.events.to_dict` output: a
            dict with a non-empty string ``"kind"``, holding only what canonical JSON holds
            (dicts with string keys, lists, strings, integers, booleans, None).

    Raises:
        ValueError: a field of the wrong type or form (checked at construction; whether the
            body has a canonical JSON form is checked by ``append``).
    """

    table_id: str
    round_id: int | None
    terminal: str | None
    body: dict[str, Any]

    def __post_init__(self) -> None:
        _check_text("table_id", self.table_id, optional=False)
        _check_round(self.round_id)
        _check_text("terminal", self.terminal, optional=True)
        if not isinstance(self.body, dict):
            raise ValueError(f"an event body is a dict, got {type(self.body).__name__}")
        kind = self.body.get("kind")
        if not isinstance(kind, str) or not kind:
            raise ValueError(f"an event body needs a non-empty string 'kind', got {kind!r}")

    @property
    def kind(self) -> str:
        """The event's kind, ``body["kind"]``."""
        kind: str = self.body["kind"]
        return kind

    @classmethod
    def from_record(
        cls,
        record: Any,
        *,
        table_id: str,
        round_id: int | None = None,
        terminal: str | None = None,
    ) -> NewEvent:
        """A new event from a registered event record (a ``rules.events`` NamedTuple).

        Args:
            record: The frozen event record.
            table_id: The table it happened at.
            round_id: Its round, if any.
            terminal: The terminal it concerns, if any.
        """
        return cls(table_id, round_id, terminal, to_dict(record))


@dataclass(frozen=True)
class StoredEvent:
    """An event as the log holds it.

    Attributes:
        seq: Its sequence number: 1 for the first event, then consecutive.
        time: When its step was appended (UTC text, see :func:`format_time`).
        table_id: The table it happened at.
        round_id: Its round, or None.
        terminal: The terminal it concerns, or None.
        kind: The event's kind (equal to ``body["kind"]``).
        body_json: The event's canonical JSON text, exactly as stored and hashed.
        hash: The chain hash after this event (64 lowercase hex digits).
    """

    seq: int
    time: str
    table_id: str
    round_id: int | None
    terminal: str | None
    kind: str
    body_json: str
    hash: str

    @classmethod
    def from_row(cls, row: EventRow) -> StoredEvent:
        """Wrap a raw ``events`` row (from the store, so already of the right types).

        Fills the instance's fields directly, about three times faster than the dataclass
        constructor, which matters when streaming millions of rows; the result is equal to
        ``StoredEvent(*row)``.
        """
        event = _new(cls)
        fields = event.__dict__
        (
            fields["seq"],
            fields["time"],
            fields["table_id"],
            fields["round_id"],
            fields["terminal"],
            fields["kind"],
            fields["body_json"],
            fields["hash"],
        ) = row
        return event

    def row(self) -> EventRow:
        """The raw row tuple of this event."""
        return (
            self.seq,
            self.time,
            self.table_id,
            self.round_id,
            self.terminal,
            self.kind,
            self.body_json,
            self.hash,
        )

    @cached_property
    def body(self) -> dict[str, Any]:
        """The event's JSON form as a dict, parsed from ``body_json`` on first use.

        A new dict on first access that is then cached: treat it as read-only.
        """
        value: dict[str, Any] = loads(self.body_json)
        return value

    def record(self) -> Any:
        """The frozen event record (``rules.events.from_dict``); its kind must be registered.

        Raises:
            game_server.rules.events.EventDecodeError: an unknown kind or schema version.
        """
        return from_dict(self.body)


class StoredStep(Sequence[StoredEvent]):
    """The events one append stored, in order: a read-only sequence of :class:`StoredEvent`
    made from the step's rows as they are read (the table ignores what an append returns, so
    the writer builds no event object it does not need).

    Equal to any sequence of the same events (``log.append([]) == []``).

    Attributes:
        rows: The stored rows, in order.
    """

    __slots__ = ("rows",)

    def __init__(self, rows: Sequence[EventRow]) -> None:
        """Wrap the rows of one append."""
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> StoredEvent: ...

    @overload
    def __getitem__(self, index: slice) -> list[StoredEvent]: ...

    def __getitem__(self, index: int | slice) -> StoredEvent | list[StoredEvent]:
        if isinstance(index, slice):
            return [StoredEvent.from_row(row) for row in self.rows[index]]
        return StoredEvent.from_row(self.rows[index])

    def __iter__(self) -> Iterator[StoredEvent]:
        return map(StoredEvent.from_row, self.rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StoredStep):
            return list(self.rows) == list(other.rows)
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-like: compared by content

    def __repr__(self) -> str:
        return f"StoredStep({list(self)!r})"


class ChainHead(NamedTuple):
    """The end of the chain: the last sequence number and the hash after it.

    ``ChainHead(0, GENESIS_HASH)`` for an empty log.
    """

    seq: int
    hash: str


@dataclass(frozen=True)
class Checkpoint:
    """A signed statement that the chain up to event ``seq`` ends in ``hash``.

    The signed bytes are :func:`game_server.eventlog.chain.checkpoint_message` of this
    checkpoint.

    Attributes:
        number: Its number in the log: 1 for the first checkpoint, then consecutive.
        seq: The last event it covers (0 on an empty log).
        hash: The chain hash at ``seq`` (the genesis hash when ``seq`` is 0).
        time: When it was written (UTC text).
        reason: Why it was written, e.g. ``"round-close"`` or ``"shutdown"``.
        key_id: The fingerprint of the public key that verifies it
            (:func:`game_server.keys.key_id`).
        signature: The Ed25519 signature, 128 hex digits.
        log_id: The id of the log it belongs to (from the log's ``meta`` table; not a
            column of ``checkpoints`` but part of the signed message).
        meta: The digest of the log's ``meta`` and ``migrations`` tables when it was signed
            (:func:`game_server.eventlog.chain.meta_digest`), so that an edit of either
            fails verification; None for a checkpoint written before schema version 4
            (signed with the version 1 message, which does not cover them).
    """

    number: int
    seq: int
    hash: str
    time: str
    reason: str
    key_id: str
    signature: str
    log_id: str
    meta: str | None = None

    @classmethod
    def from_row(cls, row: tuple[object, ...], log_id: str) -> Checkpoint:
        """A checkpoint from a ``checkpoints`` row ``(number, seq, hash, time, reason,
        key_id, signature[, meta])``.

        Raises:
            ValueError: the row does not have those columns and types.
        """
        if len(row) not in (7, 8):
            raise ValueError(f"a checkpoint row has 7 or 8 columns, got {len(row)}")
        number, seq, hash_, time, reason, key, signature = row[:7]
        meta = row[7] if len(row) == 8 else None
        if not (isinstance(number, int) and isinstance(seq, int)):
            raise ValueError(f"checkpoint number and seq are integers, got {number!r}, {seq!r}")
        texts = (hash_, time, reason, key, signature)
        if not all(isinstance(text, str) for text in texts):
            raise ValueError(f"checkpoint row {row!r} has a non-text column")
        if meta is not None and not isinstance(meta, str):
            raise ValueError(f"checkpoint row {row!r} has a meta digest that is not text")
        return cls(
            number,
            seq,
            str(hash_),
            str(time),
            str(reason),
            str(key),
            str(signature),
            log_id,
            meta,
        )

    def to_json(self) -> dict[str, object]:
        """Every field, JSON-ready (a line of an anchor stream)."""
        return {
            "log_id": self.log_id,
            "number": self.number,
            "seq": self.seq,
            "hash": self.hash,
            "time": self.time,
            "reason": self.reason,
            "key_id": self.key_id,
            "signature": self.signature,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: object) -> Checkpoint:
        """The inverse of :meth:`to_json`.

        Raises:
            ValueError: ``data`` is not such a dict (a key missing or of the wrong type).
        """
        if not isinstance(data, dict):
            raise ValueError(f"a checkpoint is a JSON object, got {type(data).__name__}")
        fields = ("log_id", "number", "seq", "hash", "time", "reason", "key_id", "signature")
        missing = [name for name in fields if name not in data]
        if missing:
            raise ValueError(f"a checkpoint needs {', '.join(missing)}")
        number, seq = data["number"], data["seq"]
        if type(number) is not int or type(seq) is not int:
            raise ValueError("a checkpoint's number and seq are integers")
        texts = [data[name] for name in ("log_id", "hash", "time", "reason", "key_id")]
        texts.append(data["signature"])
        meta = data.get("meta")
        if not all(isinstance(text, str) for text in texts) or not (
            meta is None or isinstance(meta, str)
        ):
            raise ValueError("a checkpoint's hash, time, reason, key, signature and ids are text")
        return cls(
            number,
            seq,
            data["hash"],
            data["time"],
            data["reason"],
            data["key_id"],
            data["signature"],
            data["log_id"],
            meta,
        )


@dataclass(frozen=True)
class RoundSpan:
    """A round found by a recall query.

    Attributes:
        table_id: Its table.
        round_id: Its round id.
        first_seq: The sequence number of its first event.
        last_seq: The sequence number of its last event.
        first_time: The time of its first event.
        last_time: The time of its last event.
        events: How many events it has.
    """

    table_id: str
    round_id: int
    first_seq: int
    last_seq: int
    first_time: str
    last_time: str
    events: int
