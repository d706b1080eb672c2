"""Commit the event log's writes on a thread of their own, many in one transaction.

A table server appends a step of some table every few milliseconds, and each append used to
run SQLite's insert, commit and ``fsync`` on the reactor's thread: with many tables the
reactor spent most of its time waiting on the disk, and every other table's input waited
behind it. With :meth:`~game_server.eventlog.log.EventLog.write_behind` the log plans each
write on the caller's thread (sequence numbers, chain hashes, checkpoint signatures: the
order of the log is decided there, as before) and hands it to :class:`CommitThread`, which
commits every write handed over so far in one ``BEGIN IMMEDIATE`` transaction, one sync for
all of them. While a commit runs (SQLite releases the GIL), the reactor goes on planning the
next writes; they make up the next transaction. There is no timer: a write handed over while
the thread is idle is committed at once, so a lone step waits no longer than its own commit.

Save, then send, still holds, one level up: nothing of a step may leave the server before the
step is durable. The server holds each answer and view until the log says the writes planned
before it are committed (:meth:`~game_server.eventlog.log.EventLog.when_written`); a failed
commit fails every write after it too (they chain on it), the log goes out of service, and
every table is rebuilt from what the log holds when the operator reopens it.

Entry point: :class:`CommitThread` (used by :class:`~game_server.eventlog.log.EventLog`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from game_server.durations import Durations
from game_server.eventlog.anchors import (
    AnchorError,
    AnchorSink,
    AnchorWriteFailed,
    checkpoints_named,
)
from game_server.eventlog.errors import AppendRefused, EventLogError
from game_server.eventlog.locks import LockGuard, LockLost
from game_server.eventlog.records import ChainHead, Checkpoint, EventRow
from game_server.eventlog.store import EventStore


class PlannedWrite(NamedTuple):
    """One append or checkpoint of the log, planned and waiting for its commit.

    Attributes:
        number: The write's number in this log's run (1, 2, ...): the order of commits.
        expected: The head the write chains on.
        rows: Its event rows (may be empty).
        checkpoint: Its checkpoint, or None.
        head: The head after it.
    """

    number: int
    expected: ChainHead
    rows: Sequence[EventRow]
    checkpoint: Checkpoint | None
    head: ChainHead


class Committed(NamedTuple):
    """What the thread did with one transaction's writes, handed back to the log's thread.

    Attributes:
        writes: The writes, in order.
        error: None: all of them are durable. Else why none of them is (the first failed
            transaction's error, and for every write after it the same error: they chain on
            writes that were never stored).
        attempted: Whether this transaction was tried (False: refused after an earlier
            failure without touching the store).
        anchor_error: Why a checkpoint of the writes, committed, could not be added to the
            anchor stream (the writes are durable all the same); None if every one was, or
            none was tried.
        lock_lost: Why, right after the commit, this process no longer held SQLite's lock
            on the log (the writes went to a file another process may have deleted); None
            while it holds it.
    """

    writes: Sequence[PlannedWrite]
    error: EventLogError | None
    attempted: bool
    anchor_error: AnchorError | None = None
    lock_lost: LockLost | None = None

    @property
    def refusal(self) -> EventLogError | None:
        """What the writes' waiters are told: None only when the writes are durable, their
        checkpoints anchored, and the lock held after their commit (an acknowledged money
        movement is provably in the log)."""
        return self.error or self.lock_lost or self.anchor_error


class CommitThread:
    """The thread that commits a log's planned writes, a batch per transaction.

    The log's own thread calls :meth:`submit`, :meth:`drain`, :meth:`take` and :meth:`stop`;
    the store is used by this thread only while it is started (the log reads it again after
    :meth:`stop`).

    Args:
        store: The log's backend (:meth:`~game_server.eventlog.store.EventStore.write_many`).
        wake: Called from the commit thread after each transaction, with nothing: it must ask
            the log's thread to call :meth:`take` (the server passes the reactor's
            ``callFromThread`` of the log's handler).
        times: Where each transaction's duration is counted (the log's meters).
        anchors: Where each committed checkpoint is published, in order, before the
            transaction's outcome is handed back (so that the disk's sync of the anchor
            stream is off the log's thread too); the checkpoints of one transaction are
            published together, with one sync. After a checkpoint could not be published
            none is tried again on this thread: the log, out of service, catches the stream
            up when it resumes.
        lock: Checked after every commit (:mod:`game_server.eventlog.locks`): a transaction
            committed after the lock was lost is handed back as such, never acknowledged.

    Attributes:
        transactions: Transactions tried.
        writes: Writes they held.
    """

    def __init__(
        self,
        store: EventStore,
        wake: Callable[[], None],
        times: Durations | None = None,
        anchors: AnchorSink | None = None,
        lock: LockGuard | None = None,
    ) -> None:
        self._store = store
        self._anchors = anchors
        self._lock = lock
        #: Set (on this thread) when a checkpoint could not be published.
        self._anchors_failed = False
        self._wake = wake
        self.times = Durations() if times is None else times
        self.transactions = 0
        self.writes = 0
        self._cond = threading.Condition()
        self._queue: list[PlannedWrite] = []
        self._done: list[Committed] = []
        self._busy = False
        self._stopping = False
        #: Set (on this thread) by a failed transaction: every later write is refused.
        self._broken: EventLogError | None = None
        self._thread = threading.Thread(target=self._run, name="event-log-commit", daemon=True)
        self._thread.start()

    def submit(self, write: PlannedWrite) -> None:
        """Queue a planned write for the next transaction."""
        with self._cond:
            if self._stopping:
                raise AppendRefused("the log's commit thread was stopped; nothing was written")
            self._queue.append(write)
            self._cond.notify_all()

    def take(self) -> list[Committed]:
        """What was committed or refused since the last call, in order."""
        with self._cond:
            done, self._done = self._done, []
        return done

    def drain(self) -> None:
        """Wait until every write submitted so far was committed or refused."""
        with self._cond:
            while self._queue or self._busy:
                self._cond.wait()

    def stop(self) -> None:
        """Commit what is queued, then end the thread (idempotent)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if not self._queue:
                    return
                batch, self._queue = self._queue, []
                self._busy = True
            outcome = self._commit(batch)
            with self._cond:
                self._done.append(outcome)
                self._busy = False
                self._cond.notify_all()
            # A reactor that is gone cannot be woken: take() still holds the outcome.
            with contextlib.suppress(Exception):
                self._wake()

    def _commit(self, batch: Sequence[PlannedWrite]) -> Committed:
        if self._broken is not None:
            return Committed(batch, self._broken, False)
        started = time.perf_counter()
        try:
            self._store.write_many([(w.expected, w.rows, w.checkpoint) for w in batch])
        except EventLogError as exc:
            self._broken = exc
        except Exception as exc:  # a backend's bug must not end the thread silently
            self._broken = AppendRefused(f"the log's store failed: {exc!r}; nothing was written")
        finally:
            self.times.add(time.perf_counter() - started)
            self.transactions += 1
            self.writes += len(batch)
        if self._broken is not None:
            return Committed(batch, self._broken, True)
        lost = None if self._lock is None else self._lock.check(descriptors=False)
        return Committed(batch, None, True, self._publish(batch), lost)

    def _publish(self, batch: Sequence[PlannedWrite]) -> AnchorError | None:
        """Publish the committed checkpoints of ``batch`` to the anchor stream, in order, with
        one sync for them all."""
        if self._anchors is None or self._anchors_failed:
            return None
        checkpoints = [w.checkpoint for w in batch if w.checkpoint is not None]
        if not checkpoints:
            return None
        try:
            self._anchors.publish_all(checkpoints)
        except AnchorError as exc:
            self._anchors_failed = True
            return exc
        except Exception as exc:  # a sink's bug must not end the thread silently
            self._anchors_failed = True
            return AnchorWriteFailed(
                f"{checkpoints_named(checkpoints)} in the log but the anchor stream failed: {exc!r}"
            )
        return None
