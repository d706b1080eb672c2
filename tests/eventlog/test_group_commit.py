"""Group commit (:meth:`EventLog.group_commit`): the steps staged within a window share one
transaction and one sync; each step stays atomic and nothing waiting on it is told before the
commit; a failed step or commit drops the group, stops the log and tells every waiter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventlog_helpers import round_step

from game_server.eventlog import (
    AnchorFile,
    AppendRefused,
    EventLog,
    EventLogError,
    EventLogReader,
    LogOutOfService,
    NewEvent,
    verify_chain,
)


def _rows(path: Path) -> int:
    with EventLogReader.open(path) as reader:
        return len(list(reader.iter_rows()))


def test_staged_steps_are_invisible_until_one_commit_makes_them_all_durable(
    open_log: Callable[..., EventLog], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    log = open_log()
    scheduled: list[int] = []
    log.group_commit(lambda: scheduled.append(1))
    told: list[EventLogError | None] = []
    first = log.append(round_step(1, 4))
    log.when_durable(told.append)
    second = log.append(round_step(2, 3), checkpoint="round-close")
    log.when_durable(told.append)
    assert scheduled == [1]  # one commit scheduled for the group, at its first step
    assert [e.seq for e in first + second] == list(range(1, 8))
    assert log.pending and told == []
    assert _rows(db_path) == 0  # another connection sees nothing before the commit
    log.commit()
    assert told == [None, None] and not log.pending
    assert _rows(db_path) == 7
    told.clear()
    log.when_durable(told.append)  # nothing staged: told at once
    assert told == [None]
    log.append(round_step(3, 2))
    assert scheduled == [1, 1]  # a new group schedules its own commit
    log.close()  # commits what is staged, then the shutdown checkpoint
    assert _rows(db_path) == 9
    with EventLogReader.open(db_path) as reader:
        assert verify_chain(reader, public_key).ok


def test_a_refused_step_drops_the_whole_group_and_stops_the_log(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    log = open_log()
    log.append(round_step(1, 2))
    head = log.head
    conn = log.store._conn  # type: ignore[attr-defined]  # the writer's own connection
    conn.execute(
        "CREATE TEMP TRIGGER boom BEFORE INSERT ON main.events "
        "WHEN NEW.kind = 'boom' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )
    log.group_commit(lambda: None)
    told: list[EventLogError | None] = []
    log.append(round_step(2, 3))
    log.when_durable(told.append)
    step = round_step(3, 5)
    step[2] = NewEvent("T1", 3, "term-1", {"kind": "boom", "v": 1})
    with pytest.raises(AppendRefused, match="disk on fire"):
        log.append(step)
    assert len(told) == 1 and isinstance(told[0], AppendRefused)  # never told "durable"
    assert log.head == head and not log.pending
    assert log.failed is not None
    with pytest.raises(LogOutOfService):
        log.append(round_step(4, 1))
    assert _rows(db_path) == 2
    conn.execute("DROP TRIGGER temp.boom")
    assert log.resume() == 0
    log.commit()  # the "resumed" checkpoint, staged
    assert log.append(round_step(4, 1))[0].seq == head.seq + 1


def test_a_failed_commit_drops_the_group_and_tells_every_waiter(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    log = open_log()
    failures: list[EventLogError] = []
    log.on_failure(failures.append)
    log.group_commit(lambda: None)
    head = log.head
    told: list[EventLogError | None] = []
    log.append(round_step(1, 3))
    log.when_durable(told.append)

    def broken_sync() -> None:
        log.store.discard()
        raise AppendRefused("sync failed: disk gone")

    log.store.sync = broken_sync  # type: ignore[method-assign]
    with pytest.raises(AppendRefused, match="disk gone"):
        log.commit()
    assert len(told) == 1 and isinstance(told[0], AppendRefused)
    assert failures and log.head == head and not log.pending
    assert _rows(db_path) == 0


def test_checkpoints_reach_the_anchor_stream_only_after_their_commit(
    open_log: Callable[..., EventLog], tmp_path: Path
) -> None:
    anchors = tmp_path / "anchors.jsonl"
    log = open_log(anchors=AnchorFile(anchors))
    before = anchors.read_text() if anchors.exists() else ""
    log.group_commit(lambda: None)
    log.append(round_step(1, 2), checkpoint="round-close")
    assert (anchors.read_text() if anchors.exists() else "") == before
    log.commit()
    assert anchors.read_text().count("\n") == before.count("\n") + 1
