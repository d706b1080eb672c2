"""Writing behind: the log plans each write on its own thread and a commit thread commits
every write planned meanwhile in one transaction (:mod:`game_server.eventlog.writer`).

The commit thread is real and so is the SQLite file; only the store's ``write_many`` is
wrapped, to hold a commit until the test lets it go, to count transactions, or to fail one.
The test plays the reactor: ``wake`` only records that the log asked to be settled, and the
test calls :meth:`EventLog.settle` itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventlog_helpers import round_step

from game_server.eventlog import (
    AnchorFile,
    AnchorWriteFailed,
    AppendRefused,
    ChainHead,
    Checkpoint,
    EventLog,
    EventLogError,
    EventLogReader,
    LogOutOfService,
    verify_chain,
)

WAIT = 10.0  # seconds: a generous bound on a thread's hand-over, never a timing assertion


class HeldStore:
    """Wraps a log's ``write_many``: counts the writes of each transaction, can hold the
    next transaction until released, and can fail one (before or after the data is stored).
    """

    def __init__(self, log: EventLog) -> None:
        self._real = log.store.write_many
        self.batches: list[int] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.fail_next: str | None = None  # "before" or "after" the data is stored
        log.store.write_many = self  # type: ignore[method-assign]  # the test's wrapper

    def hold(self) -> None:
        self.gate.clear()
        self.entered.clear()

    def __call__(self, writes: Sequence[Any]) -> None:
        self.entered.set()
        assert self.gate.wait(WAIT), "the test never released the commit"
        self.batches.append(len(writes))
        failing, self.fail_next = self.fail_next, None
        if failing == "before":
            raise AppendRefused("disk full (the test's); nothing of the transaction written")
        self._real(writes)
        if failing == "after":
            raise AppendRefused("the sync's error came after the data reached the disk")


class Reactor:
    """What the log's ``wake`` reaches: the settle calls it asked for, made when the test
    says (as the reactor runs them when it comes round)."""

    def __init__(self) -> None:
        self.asked: list[Callable[[], None]] = []
        self._cond = threading.Condition()

    def wake(self, call: Callable[[], None]) -> None:
        with self._cond:
            self.asked.append(call)
            self._cond.notify_all()

    def run_until(self, count: int) -> None:
        """Wait for the ``count``-th wake-up since the start, then run every one asked."""
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.asked) >= count, WAIT)
            calls, self.asked = self.asked, []
        for call in calls:
            call()


@pytest.fixture
def behind(open_log: Callable[..., EventLog]) -> Iterator[tuple[EventLog, HeldStore, Reactor]]:
    log = open_log()
    store = HeldStore(log)
    reactor = Reactor()
    log.write_behind(reactor.wake)
    yield log, store, reactor
    log.write_through()


def _rows(path: Path) -> int:
    with EventLogReader.open(path) as reader:
        return len(list(reader.iter_rows()))


def _verified(path: Path, public_key: Ed25519PublicKey) -> bool:
    with EventLogReader.open(path) as reader:
        return verify_chain(reader, public_key).ok


def test_writes_planned_while_a_commit_runs_are_committed_together_then_answered(
    behind: tuple[EventLog, HeldStore, Reactor], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """The first append is committed at once (no timer); the three planned while its commit
    runs make up the next transaction. Each waiter is told only once its write is durable,
    and the log chains and verifies as if every step had been written alone."""
    log, store, reactor = behind
    told: list[tuple[str, EventLogError | None]] = []
    store.hold()
    first = log.append(round_step(1, 4))
    assert log.when_written(lambda error: told.append(("first", error)))
    assert store.entered.wait(WAIT)
    for round_id in (2, 3, 4):
        log.append(round_step(round_id, 4), checkpoint="round-close")
    assert log.when_written(lambda error: told.append(("rest", error)))
    assert log.head == ChainHead(16, log.head.hash)  # planned: the next append chains on
    assert _rows(db_path) == 0 and told == []  # nothing durable, nobody told
    store.gate.set()
    reactor.run_until(2)
    assert store.batches == [1, 3]
    assert told == [("first", None), ("rest", None)]
    meters = log.commit_meters()
    assert meters["writing_behind"] and meters["waiting"] == 0
    assert (meters["transactions"], meters["writes"]) == (2, 4)
    assert meters["commit"]["count"] == 2
    assert not log.when_written(lambda error: told.append(("late", error)))
    assert _rows(db_path) == 16 and first[0].seq == 1
    log.write_through()
    log.close()
    assert _verified(db_path, public_key)


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_failed_commit_fails_every_write_after_it_and_the_log_resumes_where_it_is_durable(
    behind: tuple[EventLog, HeldStore, Reactor],
    db_path: Path,
    public_key: Ed25519PublicKey,
    when: str,
) -> None:
    """A transaction that fails (before its data reached the disk, or with the error after
    it) fails its writes and every write planned after it (they chain on them): each waiter
    is told the error, the log goes out of service once, its head goes back to where the
    durable part ends, and resume() proves the log and writes on from what is stored."""
    log, store, reactor = behind
    told: list[EventLogError | None] = []
    failures: list[EventLogError] = []
    log.on_failure(failures.append)
    log.append(round_step(1, 3), checkpoint="round-close")
    log.when_written(told.append)
    reactor.run_until(1)
    durable = log.head
    store.hold()
    store.fail_next = when
    log.append(round_step(2, 3))
    log.when_written(told.append)
    assert store.entered.wait(WAIT)
    log.append(round_step(3, 3), checkpoint="round-close")  # chains on the failing write
    log.when_written(told.append)
    store.gate.set()
    reactor.run_until(2)
    assert told[0] is None and all(isinstance(e, AppendRefused) for e in told[1:])
    assert len(told) == 3 and len(failures) == 1
    assert store.batches == [1, 1]  # the write after the failure never reached the store
    assert log.head == durable
    assert isinstance(log.failed, AppendRefused)
    with pytest.raises(LogOutOfService):
        log.append(round_step(4, 3))
    beyond = log.resume()
    assert beyond == (3 if when == "after" else 0)
    assert not log.writing_behind  # the caller starts it again once the tables are rebuilt
    stored = log.append(round_step(5, 3), checkpoint="round-close")
    assert stored[0].seq == durable.seq + beyond + 1
    log.close()
    assert _verified(db_path, public_key)


def _first_round_close_held(
    open_log: Callable[..., EventLog], anchors: Any
) -> tuple[EventLog, HeldStore, Reactor]:
    """A log with ``anchors``, writing behind, whose first step (a round-close) is being
    committed and held there until the test sets ``store.gate``."""
    log = open_log(anchors=anchors)
    store = HeldStore(log)
    reactor = Reactor()
    log.write_behind(reactor.wake)
    store.hold()
    log.append(round_step(1, 3), checkpoint="round-close")
    assert store.entered.wait(WAIT)
    return log, store, reactor


def test_a_checkpoint_reaches_the_anchor_stream_only_once_committed(
    open_log: Callable[..., EventLog], tmp_path: Path
) -> None:
    """Anchoring a checkpoint the log does not hold yet would make the log look cut back
    after a crash: the stream gets it when its commit is settled, not when it is planned."""
    anchors = AnchorFile(tmp_path / "anchors.jsonl")
    log, store, reactor = _first_round_close_held(open_log, anchors)
    planned = log.last_checkpoint
    assert planned is not None
    assert planned not in anchors.anchors(log.log_id)
    store.gate.set()
    reactor.run_until(1)
    assert anchors.anchors(log.log_id)[-1] == planned
    log.close()


class FailingAnchors:
    """An anchor file that notes which thread published each group of checkpoints, and
    which numbers each group held, and can refuse."""

    def __init__(self, path: Path) -> None:
        self.file = AnchorFile(path)
        self.threads: list[str] = []
        self.groups: list[list[int]] = []
        self.refuse: Exception | None = None

    def publish_all(self, checkpoints: Sequence[Checkpoint]) -> None:
        self.threads.append(threading.current_thread().name)
        self.groups.append([cp.number for cp in checkpoints])
        if self.refuse is not None:
            raise self.refuse
        self.file.publish_all(checkpoints)

    def anchors(self, log_id: str) -> list[Checkpoint]:
        return self.file.anchors(log_id)


@pytest.mark.parametrize(
    "refusal",
    [AnchorWriteFailed("the witness disk is gone (the test's)"), RuntimeError("a sink's bug")],
    ids=["refused", "a-bug"],
)
def test_the_anchor_stream_is_synced_on_the_commit_thread_and_a_failure_is_caught_up(
    open_log: Callable[..., EventLog],
    tmp_path: Path,
    db_path: Path,
    public_key: Ed25519PublicKey,
    refusal: Exception,
) -> None:
    """The commit thread publishes each committed checkpoint, in order, before it hands the
    transaction back (the stream's sync never runs on the log's thread). A checkpoint that
    cannot be published leaves its write durable but unanchored: its waiter is told the
    failure (nothing unanchored is acknowledged), and the log goes out of service; the
    thread publishes no later one, and resume() catches the stream up with
    every checkpoint it lacks, in order. A sink's own bug is such a failure, not the end of
    the thread."""
    anchors = FailingAnchors(tmp_path / "anchors.jsonl")
    log = open_log(anchors=anchors)
    reactor = Reactor()
    log.write_behind(reactor.wake)
    told: list[EventLogError | None] = []
    log.append(round_step(1, 3), checkpoint="round-close")
    reactor.run_until(1)
    assert anchors.threads == ["event-log-commit"]
    anchors.refuse = refusal
    log.append(round_step(2, 3), checkpoint="round-close")
    log.when_written(told.append)
    reactor.run_until(1)
    assert len(told) == 1 and isinstance(told[0], AnchorWriteFailed)
    assert isinstance(log.failed, AnchorWriteFailed)
    with pytest.raises(LogOutOfService):
        log.append(round_step(3, 3))
    assert len(anchors.threads) == 2
    anchors.refuse = None
    log.resume()
    kept = anchors.anchors(log.log_id)
    assert [cp.number for cp in kept] == list(range(1, len(kept) + 1))
    assert kept[-1] == log.last_checkpoint and kept[-1].reason == "resumed"
    log.close()
    assert _verified(db_path, public_key)


def test_the_checkpoints_committed_together_are_anchored_together_in_order(
    open_log: Callable[..., EventLog], tmp_path: Path, db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """The round-close checkpoints of the steps one transaction commits reach the anchor
    stream in one group (one sync of the stream for them all), in number order, and only
    once their transaction is committed."""
    anchors = FailingAnchors(tmp_path / "anchors.jsonl")
    log, store, _ = _first_round_close_held(open_log, anchors)
    for round_id in (2, 3, 4):
        log.append(round_step(round_id, 3), checkpoint="round-close")
    assert anchors.groups == []  # nothing committed yet
    store.gate.set()
    log.write_through()
    assert store.batches[:2] == [1, 3]
    first = anchors.groups[0][0]
    assert anchors.groups[:2] == [[first], [first + 1, first + 2, first + 3]]
    kept = anchors.anchors(log.log_id)
    assert [cp.number for cp in kept] == list(range(1, len(kept) + 1))
    assert kept[-1] == log.last_checkpoint
    log.close()
    assert _verified(db_path, public_key)


def test_close_commits_everything_planned_then_writes_the_shutdown_checkpoint(
    behind: tuple[EventLog, HeldStore, Reactor], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """Closing waits for the commit thread: no planned step is lost at a clean stop, and the
    shutdown checkpoint covers them all."""
    log, store, _ = behind
    for round_id in range(1, 21):
        log.append(round_step(round_id, 2))
    head = log.head
    shutdown = log.close()
    assert shutdown is not None and shutdown.seq == head.seq == 40
    assert _rows(db_path) == 40
    assert sum(store.batches[:-1]) == 20 and store.batches[-1] == 1  # then the checkpoint
    assert _verified(db_path, public_key)


def test_writing_through_is_the_default_and_answers_at_once(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """Without write_behind() an append is durable when it returns: nobody waits."""
    log = open_log()
    log.append(round_step(1, 3))
    assert not log.writing_behind
    assert not log.when_written(lambda error: pytest.fail("nothing was pending"))
    assert _rows(db_path) == 3
