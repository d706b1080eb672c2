"""The read-only reader: streaming, a round's events, recall of recent rounds, checkpoints,
snapshots, and that it cannot write."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from eventlog_helpers import START, FakeClock, fill, round_step

from game_server.eventlog import (
    EventLog,
    EventLogError,
    EventLogReader,
    NewEvent,
    RoundSpan,
    StoredEvent,
    format_time,
    parse_time,
)


@pytest.fixture
def busy_log(db_path: Path, open_log: Callable[..., EventLog], clock: FakeClock) -> EventLog:
    """Two tables taking turns: rounds 1..6 at T1 and T2, one second apart; terminal term-9
    plays only T2's rounds 2 and 5; two events outside any round."""
    clock.step = timedelta(seconds=1)
    log = open_log()
    log.append([NewEvent("T1", None, None, {"kind": "shoe_committed", "v": 1})])
    for round_id in range(1, 7):
        for table in ("T1", "T2"):
            step = round_step(round_id, 4, table)
            if table == "T2" and round_id in (2, 5):
                step.append(NewEvent("T2", round_id, "term-9", {"kind": "decision", "v": 1}))
            log.append(step, checkpoint="round-close")
    log.append([NewEvent("T1", None, "term-9", {"kind": "terminal_joined", "v": 1})])
    return log


def test_iter_events_streams_everything_in_order_across_batches(
    busy_log: EventLog, db_path: Path
) -> None:
    """Events come in seq order, whatever the batch size, from any start."""
    with EventLogReader.open(db_path) as reader:
        whole = list(reader.iter_events())
        assert [e.seq for e in whole] == list(range(1, busy_log.head.seq + 1))
        assert list(reader.iter_events(batch=7)) == whole
        assert list(reader.iter_events(start_seq=10, batch=3)) == whole[9:]
        assert reader.max_seq() == busy_log.head.seq
        assert [StoredEvent(*r) for r in reader.iter_rows()] == whole
        assert reader.event(5) == whole[4]
        assert reader.event(10_000) is None


def test_events_for_round_returns_one_rounds_events(busy_log: EventLog, db_path: Path) -> None:
    """A round is (table, round id): T2's round 5 has its 4 events and term-9's decision."""
    with EventLogReader.open(db_path) as reader:
        events = reader.events_for_round("T2", 5)
    assert [e.kind for e in events] == ["card_dealt"] * 4 + ["decision"]
    assert {(e.table_id, e.round_id) for e in events} == {("T2", 5)}
    assert [e.seq for e in events] == sorted(e.seq for e in events)


def test_recent_rounds_of_a_terminal_newest_first(busy_log: EventLog, db_path: Path) -> None:
    """term-9 took part in T2's rounds 5 and 2 (its terminal_joined event has no round);
    each span covers the whole round."""
    with EventLogReader.open(db_path) as reader:
        spans = reader.recent_rounds(terminal="term-9")
        r5 = reader.events_for_round("T2", 5)
    assert [(s.table_id, s.round_id) for s in spans] == [("T2", 5), ("T2", 2)]
    assert spans[0] == RoundSpan("T2", 5, r5[0].seq, r5[-1].seq, r5[0].time, r5[-1].time, 5)


def test_recent_rounds_filters_by_table_time_and_limit(busy_log: EventLog, db_path: Path) -> None:
    """limit caps the count; table keeps one table; since/until keep rounds with an event in
    [since, until)."""
    with EventLogReader.open(db_path) as reader:
        latest = reader.recent_rounds(limit=3)
        t1 = reader.recent_rounds(table="T1", limit=10)
        t2_5 = reader.events_for_round("T2", 5)
        t1_2 = reader.events_for_round("T1", 2)
        window = reader.recent_rounds(
            since=parse_time(t1_2[0].time), until=parse_time(t2_5[0].time)
        )
    assert [(s.table_id, s.round_id) for s in latest] == [("T2", 6), ("T1", 6), ("T2", 5)]
    assert [s.round_id for s in t1] == [6, 5, 4, 3, 2, 1]
    assert {s.table_id for s in t1} == {"T1"}
    assert [(s.table_id, s.round_id) for s in window] == [
        ("T1", 5), ("T2", 4), ("T1", 4), ("T2", 3), ("T1", 3), ("T2", 2), ("T1", 2),
    ]  # fmt: skip


def test_recent_rounds_refuses_naive_times_and_a_zero_limit(
    busy_log: EventLog, db_path: Path
) -> None:
    """since/until must be aware datetimes; limit at least 1."""
    with EventLogReader.open(db_path) as reader:
        with pytest.raises(ValueError, match="aware"):
            reader.recent_rounds(since=START.replace(tzinfo=None))
        with pytest.raises(ValueError, match="limit"):
            reader.recent_rounds(limit=0)


def test_checkpoints_are_listed_in_order_with_the_log_id(busy_log: EventLog, db_path: Path) -> None:
    """Every round close wrote one checkpoint, numbered 1..12, each carrying the log id."""
    with EventLogReader.open(db_path) as reader:
        checkpoints = reader.checkpoints()
    assert [c.number for c in checkpoints] == list(range(1, 13))
    assert {c.log_id for c in checkpoints} == {busy_log.log_id}
    assert checkpoints[-1] == busy_log.last_checkpoint


def test_the_reader_cannot_write(busy_log: EventLog, db_path: Path) -> None:
    """The reader's connection is read-only: even with the triggers out of the picture, a
    write through it fails."""
    with (
        EventLogReader.open(db_path) as reader,
        pytest.raises(sqlite3.OperationalError, match="readonly"),
    ):
        reader._conn.execute("CREATE TABLE x (y)")


def test_a_snapshot_does_not_see_appends_made_meanwhile(busy_log: EventLog, db_path: Path) -> None:
    """Inside snapshot() the reader sees one state even while the writer appends; after it,
    the new events."""
    with EventLogReader.open(db_path) as reader:
        before = reader.max_seq()
        with reader.snapshot():
            assert reader.max_seq() == before
            busy_log.append(round_step(7, 3), checkpoint="round-close")
            assert reader.max_seq() == before
            assert len(reader.checkpoints()) == 12
        assert reader.max_seq() == before + 3


def test_integrity_check_and_meta(busy_log: EventLog, db_path: Path) -> None:
    """SQLite's own checks pass on a healthy log."""
    with EventLogReader.open(db_path) as reader:
        assert reader.integrity_check() == ["ok"]
        assert reader.integrity_check(quick=True) == ["ok"]
        assert reader.meta()["log_id"] == busy_log.log_id


def test_stored_event_body_is_parsed_once(busy_log: EventLog, db_path: Path) -> None:
    """body is parsed from body_json on first use and then kept."""
    with EventLogReader.open(db_path) as reader:
        event = reader.event(2)
    assert event is not None
    assert event.body is event.body
    assert event.body["kind"] == event.kind


def test_time_text_round_trips(clock: FakeClock) -> None:
    """format_time and parse_time are inverse; parse_time refuses other forms."""
    moment = clock()
    assert parse_time(format_time(moment)) == moment
    with pytest.raises(ValueError, match="not a log time"):
        parse_time("2025-03-01 18:00:00")


def test_fill_helper_makes_whole_rounds(open_log: Callable[..., EventLog], db_path: Path) -> None:
    """(The helper the other tests use.) Each round is one step with one checkpoint."""
    stored = fill(open_log(), 3, 5)
    assert [e.round_id for e in stored] == [1] * 5 + [2] * 5 + [3] * 5


def test_an_immutable_reader_refuses_a_log_with_wal_content(
    busy_log: EventLog, db_path: Path
) -> None:
    """While the writer has transactions in the -wal file, an immutable reader (which would
    not see them) is refused; once the writer closed, it reads everything and leaves no
    companion file behind."""
    with pytest.raises(EventLogError, match="without immutable"):
        EventLogReader.open(db_path, immutable=True)
    seq = busy_log.head.seq
    busy_log.close()
    with EventLogReader.open(db_path, immutable=True) as reader:
        assert reader.max_seq() == seq
    assert not Path(f"{db_path}-wal").exists() and not Path(f"{db_path}-shm").exists()
