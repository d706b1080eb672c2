"""The one writer of an event log: append engine steps, write signed checkpoints.

Entry point: :meth:`EventLog.create_or_open`. The table calls :meth:`EventLog.append` with
the events of one engine step and broadcasts only after it is durable (save, then send: when
it returns, or, once the server called :meth:`EventLog.write_behind`, when
:meth:`EventLog.when_written` says so); it
calls :meth:`EventLog.checkpoint` (or passes ``checkpoint=`` to ``append``) at least at every
round close, and :meth:`EventLog.close` at shutdown, which writes a ``"shutdown"``
checkpoint.

Opening a log proves it first (:meth:`EventLog.create_or_open`): the chain is recomputed from
the last checkpoint kept in the anchor stream (:mod:`game_server.eventlog.anchors`), or from
the first event when there is none, every anchored checkpoint must be in the log unchanged,
and the ``meta`` and ``migrations`` tables must be the ones the newest checkpoint signed. A
log that fails is not written to (:class:`~game_server.eventlog.errors.ChainBroken` names the
first failing sequence number). Every checkpoint is then published to the anchor stream as
it is made, after it is committed; checkpoints the stream missed (a crash between the two)
are published when the log is next opened.

Example::

    log = EventLog.create_or_open(
        "data/table-1.db", load_signing_key("certs"), system_clock,
        anchors=AnchorFile("/mnt/witness/table-1.anchors"),
    )
    stored = log.append([NewEvent.from_record(e, table_id="T1", round_id=7) for e in step])
    log.append(last_step, checkpoint="round-close")
    log.close()

The chain and checkpoint definitions are in :mod:`game_server.eventlog.chain`, the proof of a
log at open in :mod:`game_server.eventlog.proof`; this module is backend-free and runs on any
:class:`~game_server.eventlog.store.EventStore`.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
)

from game_server import keys
from game_server.durations import Durations
from game_server.eventlog.anchors import (
    AnchorError,
    AnchorStream,
    last_anchor,
)
from game_server.eventlog.chain import checkpoint_message, plan_step, row_hash
from game_server.eventlog.errors import (
    AppendRefused,
    ChainBroken,
    EventLogError,
    LogClosed,
    LogKeyError,
    LogOutOfService,
    WriterConflict,
)
from game_server.eventlog.locks import LockLost
from game_server.eventlog.proof import check_key, log_signing_key, prove_log
from game_server.eventlog.records import (
    ChainHead,
    Checkpoint,
    Clock,
    EventRow,
    NewEvent,
    StoredStep,
    format_time,
)
from game_server.eventlog.schema import TABLE_LOG, LogState
from game_server.eventlog.sqlite_store import SqliteEventStore
from game_server.eventlog.store import EventStore
from game_server.eventlog.verify import Progress
from game_server.eventlog.writer import Committed, CommitThread, PlannedWrite

#: Events whose chain the store-seam constructor recomputes (``create_or_open`` proves the
#: whole chain from the last anchored checkpoint instead).
DEFAULT_TAIL: Final = 1_000
#: What a checkpoint reason may look like: lowercase words joined by dashes.
REASON_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
#: The reason of the checkpoint :meth:`EventLog.close` writes.
SHUTDOWN: Final = "shutdown"
#: The reason the table uses at the end of every round.
ROUND_CLOSE: Final = "round-close"
#: The reason of the checkpoint written with every money movement of a wallet (a cash in,
#: an operator's credit, a cash out): it is answered only once this checkpoint is anchored,
#: so that ``etg verify --anchors`` proves every acknowledged money movement is in the log.
MONEY_MOVED: Final = "money-moved"
#: The reason of the checkpoint that proves a log writable again after a failed write.
RESUMED: Final = "resumed"
#: The reason of the checkpoint written when an open applied schema migrations (it signs
#: the new ``meta`` and ``migrations`` tables).
MIGRATED: Final = "schema-migrated"


class EventLog:
    """The append-only, hash-chained, signed event log of one server (the only writer).

    Not thread-safe: use it from the reactor thread. Every method either completes or
    raises with nothing written; after :meth:`write_behind`, an append is planned when it
    returns and durable when :meth:`when_written` says so.

    Attributes:
        store: The backend.
    """

    def __init__(
        self,
        store: EventStore,
        signing_key: Ed25519PrivateKey,
        clock: Clock,
        *,
        tail: int = DEFAULT_TAIL,
        anchors: AnchorStream | None = None,
    ) -> None:
        """Take over an open store: check the key is the log's and verify the chain's tail.

        Use :meth:`create_or_open` for the SQLite log; this constructor is the seam for
        other backends.

        Args:
            store: An open backend.
            signing_key: The log-signing key.
            clock: Returns the current time as an aware datetime.
            tail: How many of the last events to recompute and check.
            anchors: Where each new checkpoint is published as it is made (and, now, every
                checkpoint the stream is missing).

        Raises:
            LogKeyError: the key is not an Ed25519 private key, or the log's checkpoints are
                signed with another key.
            ChainBroken: the last events do not chain to their stored hashes, the newest
                checkpoint does not verify, it covers events that are gone, or the ``meta``
                or ``migrations`` table differs from what it signed.
            AnchorError: the anchor stream cannot be read or caught up.
        """
        if not isinstance(signing_key, Ed25519PrivateKey):
            raise LogKeyError(
                f"the log-signing key must be an Ed25519 private key, got "
                f"{type(signing_key).__name__}"
            )
        self.store = store
        self._key = signing_key
        self._public = signing_key.public_key()
        self._key_id = keys.key_id(self._public)
        self._clock = clock
        self._closed = False
        self._failed: EventLogError | None = None
        #: Rows of the write that failed (a commit whose error came after the data reached
        #: the disk leaves exactly these beyond the known head).
        self._failed_rows = 0
        self._failure_listeners: list[Callable[[EventLogError], None]] = []
        #: The head the next append chains on (planned; durable unless writing behind).
        self._head = store.head()
        self._last_checkpoint = store.last_checkpoint()
        #: Writing behind (:meth:`write_behind`): the commit thread, the writes planned and
        #: settled so far, the head and checkpoint known durable, and who waits on which
        #: write number.
        self._committer: CommitThread | None = None
        self._planned = 0
        self._settled = 0
        self._durable = self._head
        self._durable_checkpoint = self._last_checkpoint
        self._waiters: deque[tuple[int, Callable[[EventLogError | None], None]]] = deque()
        #: The commit thread's transactions and writes over this run, and their durations.
        self._commit_times = Durations()
        self._transactions = 0
        self._writes_committed = 0
        self._anchors = anchors
        #: Calls its argument on the log's thread (given by :meth:`write_behind`).
        self._wake: Callable[[Callable[[], None]], None] | None = None
        self._sqlite = store if isinstance(store, SqliteEventStore) else None
        if self._sqlite is not None:
            self._sqlite.guard.on_lost(self._lock_lost)
        self._meta = store.state.meta_digest()
        self._check_key()
        self._check_meta(store.found)
        self._check_tail(tail)
        self.catch_up_anchors()
        if store.found is not None and store.migrated:
            self.checkpoint(MIGRATED)

    @classmethod
    def create_or_open(
        cls,
        path: str | os.PathLike[str],
        signing_key: Ed25519PrivateKey | str | os.PathLike[str],
        clock: Clock,
        *,
        kind: str = TABLE_LOG,
        anchors: AnchorStream | None = None,
        progress: Progress | None = None,
    ) -> EventLog:
        """Open the SQLite event log at ``path`` for appending, creating it if absent.

        In order: the key is loaded (if a path was given); an existing file is checked to be
        an event log of a known schema and of ``kind`` (nothing is written before that); WAL
        and ``synchronous=FULL`` are set and pending migrations applied; the chain is
        recomputed from the last anchored checkpoint (every checkpoint after it verified,
        every anchored one found in the log unchanged), or from the first event when there
        is no anchor; the key is checked against the newest checkpoint and ``meta`` against
        what it signed; missed checkpoints are published to ``anchors``.

        Args:
            path: The database file (its directory must exist).
            signing_key: The Ed25519 log-signing key, or the key directory / key file to load
                it from (:func:`game_server.keys.load_signing_key`).
            clock: Returns the current time as an aware datetime; the server passes
                :func:`~game_server.eventlog.records.system_clock`, tests a fake.
            kind: ``"table"`` (a table server) or ``"simulation"`` (``etg sim --log``).
            anchors: The anchor stream (:class:`~game_server.eventlog.anchors.AnchorFile`);
                None: nothing outside the file witnesses the log (a cut-back tail cannot be
                detected), and the chain is proven from the first event.
            progress: Called with (events checked, events in the log) while proving.

        Raises:
            LogKeyError: the key is missing, unreadable, exposed, malformed, or not the
                log's.
            NotAnEventLog: the file is not an event log (left unchanged).
            SchemaTooNew: the log is newer than this code (left unchanged).
            LogKindMismatch: the log was created by another kind of writer (left unchanged).
            ChainBroken: the chain, a checkpoint, an anchored checkpoint or the signed
                ``meta`` does not check; ``seq`` is the first failing sequence number.
            AnchorError: the anchor stream cannot be read or written.
            LogDamaged: SQLite cannot read the file.
            ValueError: the clock returns naive datetimes.
        """
        key = log_signing_key(signing_key)
        format_time(clock())  # a clock that gives naive times fails here, before any file

        def now() -> str:
            return format_time(clock())

        store = SqliteEventStore.open(Path(path), now, kind=kind)
        try:
            if store.found is not None:
                check_key(store.last_checkpoint(), key.public_key())
                prove_log(Path(path), key.public_key(), anchors, progress)
            return cls(store, key, clock, tail=0, anchors=anchors)
        except BaseException:
            store.close()
            raise

    def __enter__(self) -> EventLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def head(self) -> ChainHead:
        """The last sequence number and chain hash written."""
        return self._head

    @property
    def log_id(self) -> str:
        """The log's random id."""
        return self.store.log_id

    @property
    def key_id(self) -> str:
        """The fingerprint of the signing key."""
        return self._key_id

    @property
    def last_checkpoint(self) -> Checkpoint | None:
        """The newest checkpoint, or None."""
        return self._last_checkpoint

    @property
    def failed(self) -> EventLogError | None:
        """Why the log stopped taking appends (a write or anchor failure), or None.

        Every append and checkpoint is refused (:class:`LogOutOfService`) until
        :meth:`resume` proves the log again.
        """
        return self._failed

    def on_failure(self, listener: Callable[[EventLogError], None]) -> None:
        """Call ``listener`` with the error when a write fails (every table writing to this
        log stops: the server takes them out of service)."""
        self._failure_listeners.append(listener)

    def _fail(self, error: EventLogError) -> None:
        first = self._failed is None
        self._failed = error
        if first:
            for listener in list(self._failure_listeners):
                listener(error)

    def resume(self) -> int:
        """After a failed write: prove the log ends where this writer left it (or that what a
        write reported as failed but stored chains on from there), catch the anchor stream up,
        prove the log can be written again by writing a signed ``"resumed"`` checkpoint, and
        take appends again.

        Returns:
            How many events were found stored beyond where the writer left the log (a commit
            whose error came after the data reached the disk): 0 normally.

        Raises:
            ChainBroken: the log no longer ends where this writer left it, or what follows
                does not chain on (another process wrote to it).
            EventLogError: the log still cannot be read, or the anchor stream written: the
                log stays out of service.
        """
        self.write_through()
        if self._failed is None:
            return 0
        if isinstance(self._failed, WriterConflict):
            raise WriterConflict(
                f"{self._failed} This writer does not resume: stop the other process, then "
                "restart the server on the log."
            )
        if isinstance(self._failed, LockLost) and self._sqlite is not None:
            # A new connection takes SQLite's lock again; what follows proves that the log
            # still holds everything this writer committed (had another process deleted the
            # -wal file meanwhile, it does not, and the log stays out of service).
            self._sqlite.reconnect()
        head = self.store.head()
        known = self._head
        beyond = head.seq - known.seq
        if beyond not in (0, self._failed_rows) or (beyond == 0 and head.hash != known.hash):
            raise ChainBroken(
                min(head.seq, known.seq),
                f"the log ends at seq {head.seq}, not at seq {known.seq} where this writer left "
                "it: it was changed while it could not be written. Keep it as evidence; run "
                "`etg verify` on a copy.",
            )
        prev = known.hash
        for row in self.store.tail(beyond) if beyond else []:
            if row_hash(prev, row) != row[7]:
                raise ChainBroken(
                    row[0],
                    f"event {row[0]}, stored after seq {known.seq} while the log could not be "
                    "written, does not chain on: another process wrote to the log.",
                )
            prev = row[7]
        self._head = self._durable = head
        newest = self.store.last_checkpoint()
        if newest is not None and newest != self._last_checkpoint:
            check_key(newest, self._public)
            self._last_checkpoint = self._durable_checkpoint = newest
        self.catch_up_anchors()
        failed, self._failed = self._failed, None
        try:
            self.checkpoint(RESUMED)
        except EventLogError:
            if self._failed is None:  # e.g. the clock; the log stays out of service
                self._failed = failed
            raise
        return beyond

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def _check_key(self) -> None:
        check_key(self._last_checkpoint, self._public)

    def _check_meta(self, found: LogState | None) -> None:
        """The ``meta`` and ``migrations`` tables, as found before any migration of this
        open, must be the ones the newest checkpoint signed."""
        cp = self._last_checkpoint
        if cp is None or cp.meta is None or found is None:
            return
        if cp.meta != found.meta_digest():
            raise ChainBroken(
                cp.seq,
                f"the log's meta or migrations table differs from what checkpoint #{cp.number} "
                f"(seq {cp.seq}) signed: it was edited after it was written. Do not write to "
                "this log; run `etg verify` on a copy.",
            )

    def catch_up_anchors(self) -> int:
        """Publish to the anchor stream every checkpoint of the log it does not hold yet.

        Returns:
            How many were published.

        Raises:
            AnchorError: the stream cannot be read or written.
        """
        if self._anchors is None or self._last_checkpoint is None:
            return 0
        held = last_anchor(self._anchors.anchors(self.log_id))
        after = 0 if held is None else held.number
        if after >= self._last_checkpoint.number:
            return 0
        missing = self.store.checkpoints_after(after)
        self._anchors.publish_all(missing)
        return len(missing)

    def _lock_lost(self, error: LockLost) -> None:
        """The lock guard found SQLite's lock gone (on any thread): fail the log on its own
        thread, as a failed write does."""
        wake = self._wake
        if wake is None:
            self._fail(error)
        else:
            wake(lambda: self._fail(error))

    def check_lock(self) -> LockLost | None:
        """Prove now that this process holds SQLite's lock on the log and that no file of
        the log it has open was deleted (the server's periodic check); a loss fails the log.

        Returns:
            Why the lock is gone, or None (also for a backend without file locks).
        """
        if self._sqlite is None:
            return None
        lost = self._sqlite.guard.check()
        if lost is not None and self._failed is None:
            self._fail(lost)
        return lost

    def _check_tail(self, count: int) -> None:
        head = self._head
        cp = self._last_checkpoint
        if cp is not None and cp.seq > head.seq:
            raise ChainBroken(
                head.seq + 1,
                f"the log is truncated: checkpoint #{cp.number} covers events up to seq {cp.seq}, "
                f"but the log ends at seq {head.seq}. Do not write to this log; run `etg verify` "
                "on a copy.",
            )
        rows = self.store.tail(count) if count > 0 else []
        if rows:
            first = rows[0][0]
            prev = self.store.hash_at(first - 1)
            if prev is None:
                raise ChainBroken(first - 1, f"event {first - 1} is missing from the log")
            expect = first
            for row in rows:
                seq = row[0]
                if seq != expect:
                    raise ChainBroken(expect, f"event {expect} is missing from the log (deleted)")
                computed = row_hash(prev, row)
                if computed != row[7]:
                    raise ChainBroken(
                        seq,
                        f"event {seq} does not match its stored hash: the log was changed. Do not "
                        "write to it; run `etg verify` on a copy.",
                    )
                if cp is not None and cp.seq == seq and cp.hash != computed:
                    raise ChainBroken(
                        seq, f"checkpoint #{cp.number} does not match the chain at seq {seq}"
                    )
                prev = computed
                expect = seq + 1
        if cp is not None and (not rows or cp.seq < rows[0][0]):
            stored = self.store.hash_at(cp.seq)
            if stored != cp.hash:
                raise ChainBroken(
                    cp.seq,
                    f"checkpoint #{cp.number} does not match the stored hash at seq {cp.seq}",
                )

    def _check_open(self) -> None:
        if self._closed:
            raise LogClosed("the event log was closed; open it again to append")
        if self._failed is not None:
            raise LogOutOfService(
                f"the event log takes no appends since a write failed ({self._failed}); it "
                "takes them again once it can be written and the operator reopens the table"
            )

    def _write(self, rows: Sequence[EventRow], cp: Checkpoint | None, head: ChainHead) -> None:
        """The store's write, or (writing behind) its hand-over to the commit thread; then
        ``head`` is the log's head. A failure stops the log (every table writing to it)."""
        if self._committer is not None:
            self._planned += 1
            self._committer.submit(PlannedWrite(self._planned, self._head, rows, cp, head))
            self._head = head
            if cp is not None:
                self._last_checkpoint = cp
            return
        try:
            self.store.write(self._head, rows, cp)
        except AppendRefused as exc:
            self._failed_rows = len(rows)
            self._fail(exc)
            raise
        self._head = self._durable = head
        if cp is not None:
            self._last_checkpoint = self._durable_checkpoint = cp
        lost = None if self._sqlite is None else self._sqlite.guard.check(descriptors=False)
        if lost is not None:
            self._fail(lost)
            raise lost
        if cp is not None:
            self._publish(cp)

    # Writing behind (game_server.eventlog.writer)

    def write_behind(self, wake: Callable[[Callable[[], None]], None]) -> None:
        """From now on, commit on a thread of the log's own, every write planned meanwhile
        in one transaction (:mod:`game_server.eventlog.writer`).

        :meth:`append` and :meth:`checkpoint` then return once the write is planned (its
        sequence numbers, hashes and signature made, its order fixed) and handed over; what
        may only follow a durable write (an answer, a view, an anchor) waits for
        :meth:`when_written`. A failed commit fails every write planned after it, puts the
        log out of service (:attr:`failed`, the failure listeners) and leaves the head where
        the log's durable part ends.

        Args:
            wake: Calls its argument soon on the log's thread, from any thread (the server
                passes ``reactor.callFromThread``).
        """
        self._check_open()
        self._wake = wake
        if self._committer is None:
            self._committer = CommitThread(
                self.store,
                lambda: wake(self.settle),
                self._commit_times,
                self._anchors,
                None if self._sqlite is None else self._sqlite.guard,
            )

    def write_through(self) -> None:
        """Stop writing behind: wait for every planned write's commit, settle them, and
        write synchronously again (what :meth:`resume` and :meth:`close` do first)."""
        committer, self._committer = self._committer, None
        if committer is not None:
            committer.stop()
            self._transactions += committer.transactions
            self._writes_committed += committer.writes
            self._settle(committer.take())

    def commit_meters(self) -> dict[str, Any]:
        """What the commit thread did over this run (the server's ``ReadMeters``
        ``"event_log"``): whether it runs, transactions, the writes they held, the writes
        waiting for one, and the transactions' durations
        (:meth:`~game_server.durations.Durations.summary`)."""
        committer = self._committer
        transactions = self._transactions + (committer.transactions if committer else 0)
        writes = self._writes_committed + (committer.writes if committer else 0)
        return {
            "writing_behind": committer is not None,
            "transactions": transactions,
            "writes": writes,
            "commit": self._commit_times.summary(),
            "waiting": self._planned - self._settled,
            **({} if self._sqlite is None else {"lock": self._sqlite.guard.summary()}),
        }

    @property
    def writing_behind(self) -> bool:
        """Whether commits run on the log's commit thread (:meth:`write_behind`)."""
        return self._committer is not None

    def when_written(self, callback: Callable[[EventLogError | None], None]) -> bool:
        """Call ``callback`` once every write planned so far is durable (with None), or once
        one of them failed (with the error).

        Returns:
            False, without calling it, when every write planned so far is already durable
            (always, unless writing behind): the caller goes on at once.
        """
        if self._settled == self._planned:
            return False
        self._waiters.append((self._planned, callback))
        return True

    def settle(self) -> None:
        """Take the commit thread's results (on the log's thread; the thread's wake-up
        calls this): advance the durable head, call who waited on them (the thread has
        published the committed checkpoints to the anchor stream); on a failure, stop the
        log."""
        if self._committer is not None:
            self._settle(self._committer.take())

    def _settle(self, results: Sequence[Committed]) -> None:
        for batch in results:
            last = batch.writes[-1]
            if batch.error is None:
                self._durable = last.head
                for write in batch.writes:
                    if write.checkpoint is not None:
                        self._durable_checkpoint = write.checkpoint
                if batch.lock_lost is not None:
                    self._fail(batch.lock_lost)
                if batch.anchor_error is not None:
                    # As a failed publish of a write made through (_publish): out of
                    # service; the stream is caught up when the log resumes.
                    self._fail(batch.anchor_error)
            else:
                if batch.attempted and self._failed is None:
                    self._failed_rows = sum(len(w.rows) for w in batch.writes)
                # What chains on the failed writes was never stored: the log ends where its
                # durable part ends.
                self._head = self._durable
                self._last_checkpoint = self._durable_checkpoint
                self._fail(batch.error)
            self._settled = last.number
            # A waiter hears of success only when its writes are durable, anchored and were
            # committed under SQLite's lock (Committed.refusal).
            refusal = batch.refusal
            while self._waiters and self._waiters[0][0] <= last.number:
                _, callback = self._waiters.popleft()
                callback(refusal)

    def _now(self) -> str:
        try:
            return format_time(self._clock())
        except ValueError as exc:
            raise AppendRefused(f"the clock gave an unusable time: {exc}") from None

    def _make_checkpoint(self, head: ChainHead, time: str, reason: str) -> Checkpoint:
        if not isinstance(reason, str) or not REASON_PATTERN.match(reason):
            raise ValueError(
                f"a checkpoint reason is lowercase letters, digits and dashes, e.g. "
                f"'round-close'; got {reason!r}"
            )
        number = (self._last_checkpoint.number if self._last_checkpoint else 0) + 1
        message = checkpoint_message(
            log_id=self.log_id,
            number=number,
            seq=head.seq,
            hash=head.hash,
            time=time,
            reason=reason,
            key_id=self._key_id,
            meta=self._meta,
        )
        signature = self._key.sign(message).hex()
        return Checkpoint(
            number,
            head.seq,
            head.hash,
            time,
            reason,
            self._key_id,
            signature,
            self.log_id,
            self._meta,
        )

    def append(self, step: Sequence[NewEvent], *, checkpoint: str | None = None) -> StoredStep:
        """Store the events of one engine step, in order, in ONE transaction.

        Every event of the step gets the same time (one clock reading). When this returns,
        the step is durable (synced to disk); when it raises, nothing of it was written and
        the log is as before.

        Args:
            step: The step's events. An empty step writes nothing (but the checkpoint, if
                asked for).
            checkpoint: If given, also write a checkpoint with this reason covering the step,
                in the same transaction (e.g. ``"round-close"`` with a round's last step).

        Returns:
            The stored events, with their sequence numbers, time and hashes (made as they
            are read).

        Raises:
            AppendRefused: an event cannot be encoded, the clock gave a naive time, or the
                store failed (:class:`WriterConflict` if another process wrote to the log).
            LogClosed: the log was closed.
            ValueError: ``checkpoint`` is not a valid reason.
        """
        self._check_open()
        if not step and checkpoint is None:
            return StoredStep(())
        time = self._now()
        rows = plan_step(self._head, time, step)
        head = ChainHead(rows[-1][0], rows[-1][7]) if rows else self._head
        cp = self._make_checkpoint(head, time, checkpoint) if checkpoint is not None else None
        self._write(rows, cp, head)
        return StoredStep(rows)

    def _publish(self, cp: Checkpoint) -> None:
        """After the commit: keep the checkpoint in the anchor stream too. A failure is
        raised (the step IS in the log; the stream is caught up when it works again)."""
        if self._anchors is not None:
            try:
                self._anchors.publish_all((cp,))
            except AnchorError as exc:
                self._fail(exc)
                raise

    def checkpoint(self, reason: str) -> Checkpoint:
        """Write a signed checkpoint covering every event written so far.

        Args:
            reason: Why, e.g. ``"round-close"``, ``"shutdown"``, ``"hourly"``.

        Returns:
            The checkpoint.

        Raises:
            AppendRefused: the store failed; nothing was written.
            LogClosed: the log was closed.
            ValueError: ``reason`` is not lowercase letters, digits and dashes.
        """
        self._check_open()
        cp = self._make_checkpoint(self._head, self._now(), reason)
        self._write((), cp, self._head)
        return cp

    def close(self, checkpoint: bool = True) -> Checkpoint | None:
        """Close the log; a clean shutdown first writes a ``"shutdown"`` checkpoint.

        Idempotent. The store is closed even if the checkpoint fails (the error is raised).

        Args:
            checkpoint: Write the shutdown checkpoint.

        Returns:
            The shutdown checkpoint, or None.
        """
        if self._closed:
            return None
        try:
            self.write_through()
            # A log whose last write failed is closed without one (it could not be written).
            return self.checkpoint(SHUTDOWN) if checkpoint and self._failed is None else None
        finally:
            self._closed = True
            self.store.close()
