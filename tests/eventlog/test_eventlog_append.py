"""Appending to the event log: one engine step in one transaction, hash-chained, with the
injected clock; signed checkpoints; and the exact chain definition."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from eventlog_helpers import FakeClock, fill, round_step
from hypothesis import given
from hypothesis import strategies as st

from game_server.eventlog import (
    CHECKPOINT_DOMAIN_V2,
    GENESIS_HASH,
    AppendRefused,
    ChainBroken,
    ChainHead,
    Checkpoint,
    EventLog,
    EventLogReader,
    EventRow,
    LogClosed,
    LogOutOfService,
    NewEvent,
    StoredEvent,
    StoredStep,
    WriterConflict,
    entry_dict,
    entry_text,
    format_time,
    message_of,
    plan_step,
    row_hash,
    verify_chain,
)
from game_server.eventlog.canonical import body_kind, canonical_text
from game_server.eventlog.schema import Found, LogState
from game_server.games.blackjack.rules.events import CardDealt, WagerPlaced
from game_server.keys import key_id
from shared.cards import parse_card
from shared.codec import CodecError, canonical_json


def _reader_rows(path: Path) -> list[EventRow]:
    with EventLogReader.open(path) as reader:
        return list(reader.iter_rows())


def test_append_stores_a_step_with_consecutive_seqs_one_time_and_a_chain(
    open_log: Callable[..., EventLog], db_path: Path, clock: FakeClock
) -> None:
    """A step's events get seq 1..n in order, all the clock's one reading as UTC text, and
    hashes that chain from the genesis hash by the documented definition."""
    log = open_log()
    calls_before = len(clock.calls)
    stored = log.append(round_step(1, 5))
    assert len(clock.calls) == calls_before + 1
    assert [e.seq for e in stored] == [1, 2, 3, 4, 5]
    assert {e.time for e in stored} == {format_time(clock.calls[-1])}
    prev = GENESIS_HASH
    for event in stored:
        entry = canonical_json(
            entry_dict(
                event.seq, event.time, event.table_id, event.round_id, event.terminal, event.body
            )
        )
        prev = hashlib.sha256(bytes.fromhex(prev) + entry).hexdigest()
        assert event.hash == prev
    assert log.head == ChainHead(5, stored[-1].hash)
    assert _reader_rows(db_path) == [e.row() for e in stored]


def test_what_an_append_returns_is_its_stored_events_made_as_read(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """append returns a StoredStep: the stored rows, read as StoredEvents by index, slice
    and iteration, equal to the list of those events (and an empty step to [])."""
    log = open_log()
    stored = log.append(round_step(1, 4))
    rows = _reader_rows(db_path)
    events = [StoredEvent.from_row(row) for row in rows]
    assert isinstance(stored, StoredStep)
    assert stored.rows == rows
    assert len(stored) == 4
    assert list(stored) == events
    assert stored == events and events == stored
    assert stored[-1] == events[-1] and stored[1:3] == events[1:3]
    assert stored != events[:3] and stored != "abcd" and stored != 4
    assert log.append([]) == [] and len(log.append([])) == 0
    with pytest.raises(IndexError):
        stored[4]  # the read is what is tested


def test_stored_event_body_and_record_round_trip_an_engine_event(
    open_log: Callable[..., EventLog],
) -> None:
    """An engine record logged through NewEvent.from_record comes back equal from the stored
    event's body and record()."""
    log = open_log()
    dealt = CardDealt(seat=2, hand=0, card=parse_card("10D"), position=17, face_up=True)
    wager = WagerPlaced(seat=2, hand=0, wager="blackjack", amount=2500)
    stored = log.append(
        [
            NewEvent.from_record(wager, table_id="T1", round_id=9, terminal="term-2"),
            NewEvent.from_record(dealt, table_id="T1", round_id=9, terminal="term-2"),
        ]
    )
    assert stored[1].kind == "card_dealt"
    assert stored[1].body == {
        "kind": "card_dealt",
        "v": 1,
        "seat": 2,
        "hand": 0,
        "card": "TD",
        "position": 17,
        "face_up": True,
    }
    assert stored[1].body_json == canonical_json(stored[1].body).decode()
    assert stored[0].record() == wager
    assert stored[1].record() == dealt


def test_a_step_that_fails_in_the_database_midway_leaves_nothing(
    open_log: Callable[..., EventLog], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """When the 11th insert of a 20-event step fails inside SQLite, the 10 before it are
    rolled back: the log is exactly as before; it takes no append until resume() has proven
    it ends where the writer left it, then the next step appends normally."""
    log = open_log()
    fill(log, 2)
    before = _reader_rows(db_path)
    head = log.head
    conn = log.store._conn  # type: ignore[attr-defined]  # the writer's own connection
    conn.execute(
        "CREATE TEMP TRIGGER boom BEFORE INSERT ON main.events "
        "WHEN NEW.kind = 'boom' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )
    step = round_step(3, 20)
    step[10] = NewEvent("T1", 3, "term-1", {"kind": "boom", "v": 1})
    with pytest.raises(AppendRefused, match="disk on fire") as refused:
        log.append(step, checkpoint="round-close")
    assert "nothing of it was written" in str(refused.value)
    assert _reader_rows(db_path) == before
    assert log.head == head
    assert log.failed is refused.value
    with pytest.raises(LogOutOfService, match="disk on fire"):
        log.append(round_step(3, 20))
    conn.execute("DROP TRIGGER temp.boom")
    assert log.resume() == 0 and log.failed is None
    stored = log.append(round_step(3, 20))
    assert stored[0].seq == head.seq + 1
    log.close()
    with EventLogReader.open(db_path) as reader:
        assert verify_chain(reader, public_key).ok


@pytest.mark.parametrize(
    ("bad_body", "message"),
    [
        ({"kind": "x", "amount": 1.5}, "integers only"),
        ({"kind": "x", 3: "int key"}, "keys are strings"),
        ({"kind": "x", "obj": object()}, "not JSON serializable"),
        ({"kind": "x", "text": "\ud800"}, "surrogate"),
    ],
)
def test_a_step_with_an_unencodable_event_is_refused_whole(
    open_log: Callable[..., EventLog], db_path: Path, bad_body: dict[Any, Any], message: str
) -> None:
    """A float, a non-string key, an unknown type or invalid Unicode in any event refuses
    the whole step before anything is written, naming the event."""
    log = open_log()
    fill(log, 1)
    before = _reader_rows(db_path)
    step = round_step(2, 20)
    step[13] = NewEvent("T1", 2, None, bad_body)
    with pytest.raises(AppendRefused, match=message) as refused:
        log.append(step)
    assert "event 13 of the step" in str(refused.value)
    assert _reader_rows(db_path) == before
    assert log.head.seq == len(before)


def test_append_with_checkpoint_writes_both_in_one_transaction(
    open_log: Callable[..., EventLog], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """append(..., checkpoint="round-close") signs the head after the step, with the same
    time, as checkpoint number 1; the signature verifies over the documented (v2) message,
    which also covers the digest of the meta and migrations tables."""
    log = open_log()
    stored = log.append(round_step(1, 4), checkpoint="round-close")
    cp = log.last_checkpoint
    assert cp is not None
    assert (cp.number, cp.seq, cp.hash, cp.time) == (1, 4, stored[-1].hash, stored[-1].time)
    assert cp.reason == "round-close"
    assert cp.key_id == key_id(public_key) and len(cp.key_id) == 16
    with EventLogReader.open(db_path) as reader:
        meta, migrations = reader.meta(), reader.applied_migrations()
    assert meta["log_kind"] == "table"
    assert [name for name, _ in migrations][-1] == "0004-checkpoint-meta"
    digest = hashlib.sha256(
        b"etg-eventlog/meta/v1\n"
        + canonical_json({"meta": meta, "migrations": [list(m) for m in migrations]})
    ).hexdigest()
    assert cp.meta == digest
    message = message_of(cp)
    assert message.startswith(CHECKPOINT_DOMAIN_V2)
    assert message[len(CHECKPOINT_DOMAIN_V2) :] == canonical_json(
        {
            "hash": cp.hash,
            "key_id": cp.key_id,
            "log_id": log.log_id,
            "meta": digest,
            "number": 1,
            "reason": "round-close",
            "seq": 4,
            "time": cp.time,
        }
    )
    public_key.verify(bytes.fromhex(cp.signature), message)
    with EventLogReader.open(db_path) as reader:
        assert reader.checkpoints() == [cp]


def test_checkpoint_and_close_sign_the_head(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """checkpoint() signs the current head; close() writes a "shutdown" checkpoint and then
    refuses further appends; closing twice does nothing."""
    log = open_log()
    empty = log.checkpoint("hourly")
    assert (empty.number, empty.seq, empty.hash) == (1, 0, GENESIS_HASH)
    fill(log, 2, checkpoint_every=0)
    shutdown = log.close()
    assert shutdown is not None
    assert (shutdown.number, shutdown.seq, shutdown.reason) == (2, 20, "shutdown")
    assert log.close() is None
    with pytest.raises(LogClosed):
        log.append(round_step(3))
    with pytest.raises(LogClosed):
        log.checkpoint("round-close")
    with EventLogReader.open(db_path) as reader:
        assert [c.reason for c in reader.checkpoints()] == ["hourly", "shutdown"]


def test_context_manager_closes_with_a_shutdown_checkpoint(
    db_path: Path, signing_key: Ed25519PrivateKey, clock: FakeClock
) -> None:
    """Leaving a ``with EventLog...`` block closes the log cleanly."""
    with EventLog.create_or_open(db_path, signing_key, clock) as log:
        fill(log, 1, checkpoint_every=0)
    assert log.closed
    with EventLogReader.open(db_path) as reader:
        assert [c.reason for c in reader.checkpoints()] == ["shutdown"]


@pytest.mark.parametrize("reason", ["", "Round Close", "round_close", "x" * 65, "-start"])
def test_a_bad_checkpoint_reason_is_refused(
    open_log: Callable[..., EventLog], db_path: Path, reason: str
) -> None:
    """A reason is lowercase letters, digits and dashes; anything else writes nothing."""
    log = open_log()
    with pytest.raises(ValueError, match="reason"):
        log.append(round_step(1), checkpoint=reason)
    with pytest.raises(ValueError, match="reason"):
        log.checkpoint(reason)
    assert _reader_rows(db_path) == []
    assert log.last_checkpoint is None


def test_an_empty_step_writes_nothing(open_log: Callable[..., EventLog], db_path: Path) -> None:
    """append([]) returns [] and leaves the log as it was."""
    log = open_log()
    assert log.append([]) == []
    assert log.head == ChainHead(0, GENESIS_HASH)


def test_a_naive_clock_reading_is_refused(db_path: Path, signing_key: Ed25519PrivateKey) -> None:
    """A clock that returns a datetime without a time zone cannot date an event: opening
    with it fails before any file is made, and a naive reading later refuses the step."""
    with pytest.raises(ValueError, match="aware"):
        EventLog.create_or_open(db_path, signing_key, lambda: datetime(2025, 1, 1))
    assert not db_path.exists()
    clock = FakeClock()
    log = EventLog.create_or_open(db_path, signing_key, clock)
    clock.now = clock.now.replace(tzinfo=None)
    with pytest.raises(AppendRefused, match="aware"):
        log.append(round_step(1))
    assert log.head.seq == 0
    log.close(checkpoint=False)


def test_times_are_stored_as_utc_text_whatever_the_clock_zone(
    db_path: Path, signing_key: Ed25519PrivateKey
) -> None:
    """A clock in another zone is stored as the same instant in UTC with a Z."""
    moment = datetime.fromisoformat("2025-03-01T13:00:00.000001-05:00")
    log = EventLog.create_or_open(db_path, signing_key, lambda: moment)
    assert log.append(round_step(1, 1))[0].time == "2025-03-01T18:00:00.000001Z"
    log.close()


def test_a_second_writer_is_detected_and_refused(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """Two EventLog writers on one file: after one appends, the other's append is refused as
    a WriterConflict with nothing written, it takes no more (not even a checkpoint), and it
    cannot resume: the log no longer ends where it left it."""
    first = open_log()
    second = open_log()
    fill(first, 1)
    rows = _reader_rows(db_path)
    with pytest.raises(WriterConflict, match="another process"):
        second.append(round_step(2))
    with pytest.raises(LogOutOfService):
        second.checkpoint("round-close")
    with pytest.raises(WriterConflict, match="does not resume"):
        second.resume()
    assert _reader_rows(db_path) == rows


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", 1, None, {"kind": "k"}), "table_id"),
        (("T1", -1, None, {"kind": "k"}), "round_id"),
        (("T1", True, None, {"kind": "k"}), "round_id"),
        (("T1", 1, "", {"kind": "k"}), "terminal"),
        (("T1", 1, None, {"v": 1}), "kind"),
        (("T1", 1, None, {"kind": ""}), "kind"),
        (("T1", 1, None, [("kind", "k")]), "dict"),
    ],
)
def test_new_event_checks_its_fields(args: tuple[Any, ...], message: str) -> None:
    """A NewEvent with a field of the wrong form is refused at construction, naming it."""
    with pytest.raises(ValueError, match=message):
        NewEvent(*args)


def test_a_step_must_hold_new_events(open_log: Callable[..., EventLog]) -> None:
    """Anything but NewEvent in a step is refused, naming its position."""
    log = open_log()
    step: Sequence[Any] = [*round_step(1, 2), {"kind": "raw dict"}]
    with pytest.raises(AppendRefused, match="event 2 of the step is a dict"):
        log.append(step)


class _RecordingStore:
    """An in-memory EventStore (the backend seam): records writes; can be told to fail."""

    def __init__(self) -> None:
        self.rows: list[EventRow] = []
        self.checkpoints: list[Checkpoint] = []
        self.writes: list[tuple[ChainHead, int, Checkpoint | None]] = []
        self.fail = False
        self.fail_after = False
        self.closed = False

    @property
    def log_id(self) -> str:
        return "memory"

    def head(self) -> ChainHead:
        return (
            ChainHead(self.rows[-1][0], self.rows[-1][7])
            if self.rows
            else ChainHead(0, GENESIS_HASH)
        )

    def hash_at(self, seq: int) -> str | None:
        return GENESIS_HASH if seq == 0 else self.rows[seq - 1][7]

    def tail(self, count: int) -> list[EventRow]:
        return self.rows[-count:]

    def last_checkpoint(self) -> Checkpoint | None:
        return self.checkpoints[-1] if self.checkpoints else None

    def checkpoints_after(self, number: int) -> list[Checkpoint]:
        return [cp for cp in self.checkpoints if cp.number > number]

    state = LogState(Found.LOG, 4, (), "memory", (("log_id", "memory"),))
    found = None
    migrated = ()

    def write(
        self, expected: ChainHead, rows: Sequence[EventRow], checkpoint: Checkpoint | None
    ) -> None:
        self.writes.append((expected, len(rows), checkpoint))
        if self.fail:
            raise AppendRefused("memory store told to fail; nothing written")
        self.rows += rows
        if checkpoint:
            self.checkpoints.append(checkpoint)
        if self.fail_after:
            raise AppendRefused("memory store told to fail after storing the step")

    def write_many(
        self, writes: Sequence[tuple[ChainHead, Sequence[EventRow], Checkpoint | None]]
    ) -> None:
        for expected, rows, checkpoint in writes:
            self.write(expected, rows, checkpoint)

    def close(self) -> None:
        self.closed = True


def test_event_log_runs_on_any_event_store(signing_key: Ed25519PrivateKey) -> None:
    """EventLog is backend-free: over an in-memory store it plans, chains and signs the same
    way, hands each step to the store once, and keeps its head when the store refuses."""
    store = _RecordingStore()
    log = EventLog(store, signing_key, FakeClock())
    stored = log.append(round_step(1, 3), checkpoint="round-close")
    assert store.writes == [(ChainHead(0, GENESIS_HASH), 3, log.last_checkpoint)]
    assert [StoredEvent.from_row(r) for r in store.rows] == stored
    store.fail = True
    with pytest.raises(AppendRefused):
        log.append(round_step(2, 3))
    assert log.head == ChainHead(3, stored[-1].hash)
    store.fail = False
    log.resume()
    log.append(round_step(2, 3))
    assert [r[0] for r in store.rows] == [1, 2, 3, 4, 5, 6]
    log.close()
    assert store.closed and store.checkpoints[-1].reason == "shutdown"


def test_resume_accepts_a_step_stored_despite_its_error_and_nothing_else(
    signing_key: Ed25519PrivateKey,
) -> None:
    """A write that reported failure after its data reached the store (an fsync error after
    the commit) leaves exactly that step beyond the writer's head: resume() proves it chains
    on and takes it; rows that are not the failed step (or do not chain) are refused."""
    store = _RecordingStore()
    log = EventLog(store, signing_key, FakeClock())
    log.append(round_step(1, 3))
    store.fail_after = True
    with pytest.raises(AppendRefused, match="after storing"):
        log.append(round_step(2, 4))
    store.fail_after = False
    assert log.head.seq == 3 and len(store.rows) == 7
    assert log.resume() == 4
    assert log.head == ChainHead(7, store.rows[-1][7])
    store.fail = True
    with pytest.raises(AppendRefused):
        log.append(round_step(3, 2))
    store.fail = False
    store.rows += plan_step(
        ChainHead(7, store.rows[-1][7]), "2025-03-01T18:00:00.000000Z", round_step(9, 5)
    )
    with pytest.raises(ChainBroken, match="not at seq 7 where this writer left it"):
        log.resume()


# -- the chain definition, checked against the definitional encoder --------------------------

_text = st.text(st.characters(codec="utf-8"), max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)
_bodies = st.builds(
    lambda kind, rest: {**rest, "kind": kind},
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=8),
    st.dictionaries(_text, _json, max_size=6),
)


@given(_json)
def test_fast_canonical_text_equals_the_codec(value: Any) -> None:
    """canonical_text gives exactly shared.codec.canonical_json's text (wrapped as a body)."""
    body = {"kind": "k", "value": value}
    assert canonical_text(body) == canonical_json(body).decode("utf-8")
    assert body_kind(canonical_text(body)) == "k"


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | _text
    | st.text(st.characters(max_codepoint=0x90), max_size=8)
)
_flat_bodies = st.builds(
    lambda kind, rest: {**rest, "kind": kind},
    _text,
    st.dictionaries(_text, _scalars | st.lists(_scalars, max_size=4), max_size=8),
)


@given(_flat_bodies)
def test_a_flat_body_is_written_and_read_as_the_codec_defines(body: dict[str, Any]) -> None:
    """The compiled path of a flat body (scalars and lists of scalars; control characters,
    DEL, text beyond ASCII, integers beyond 64 bits) gives the codec's text, and reading it
    back gives its kind; the same text with a key written twice is not canonical."""
    text = canonical_text(body)
    assert text == canonical_json(body).decode("utf-8")
    assert body_kind(text) == body["kind"]
    assert body_kind(text[:-1] + ',"kind":"k"}') is None


def test_a_lone_surrogate_in_a_flat_body_is_refused_as_before() -> None:
    """orjson refuses a lone surrogate; the step is refused as the C encoder's path refused
    it (the entry cannot be UTF-8), and nothing is written."""
    head = ChainHead(0, "00" * 32)
    with pytest.raises(AppendRefused, match="cannot be logged"):
        plan_step(head, "2026-01-01T00:00:00.000000Z", [NewEvent("t", 1, None, {"kind": "\ud800"})])


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_canonical_text_refuses_every_float(number: float) -> None:
    """A float anywhere (even 1.0) has no canonical form."""
    with pytest.raises(CodecError):
        canonical_text({"kind": "k", "nested": [{"x": number}]})


@pytest.mark.parametrize(
    "text",
    [
        '{"kind": "k"}',
        '{"v":1,"kind":"k"}',
        '{"kind":"k","kind":"k"}',
        '{"kind":"k","x":1.0}',
        '{"kind":"\\u0041"}',
        '{"kind":1}',
        '["kind"]',
        '{"kind":"k"} ',
        "",
    ],
)
def test_body_kind_refuses_non_canonical_text(text: str) -> None:
    """Spaces, unsorted or duplicate keys, floats, needless escapes, a non-string kind, a
    non-object or trailing text are not a canonical event body."""
    assert body_kind(text) is None


@given(
    st.integers(min_value=1, max_value=2**63 - 1),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=8),
    st.none() | st.integers(min_value=0, max_value=2**63 - 1),
    st.none() | st.text(st.characters(codec="utf-8"), min_size=1, max_size=8),
    _bodies,
)
def test_entry_text_equals_canonical_json_of_the_entry(
    seq: int, table: str, round_id: int | None, terminal: str | None, body: dict[str, Any]
) -> None:
    """The spliced entry text is byte for byte canonical_json of the entry dict, and
    plan_step's inlined hash equals row_hash over it."""
    time = "2025-03-01T18:00:00.000001Z"
    body_json = canonical_json(body).decode("utf-8")
    definition = canonical_json(entry_dict(seq, time, table, round_id, terminal, body))
    spliced = entry_text(seq, time, table, round_id, terminal, body["kind"], body_json)
    assert spliced.encode("utf-8") == definition
    head = ChainHead(seq - 1, hashlib.sha256(str(seq).encode()).hexdigest())
    (row,) = plan_step(head, time, [NewEvent(table, round_id, terminal, body)])
    assert row[:7] == (seq, time, table, round_id, terminal, body["kind"], body_json)
    assert row[7] == row_hash(head.hash, row)
    assert row[7] == hashlib.sha256(bytes.fromhex(head.hash) + definition).hexdigest()
