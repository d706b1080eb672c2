"""The SQLite backend of the writer: one read-write connection, WAL, ``synchronous=FULL``.

Entry point: :meth:`SqliteEventStore.open`, called by
:meth:`~game_server.eventlog.log.EventLog.create_or_open`. It implements
:class:`~game_server.eventlog.store.EventStore`: each :meth:`~SqliteEventStore.write` is one
``BEGIN IMMEDIATE ... COMMIT`` transaction, so a step is on disk whole or not at all, also
across a power cut or ``kill -9`` (the WAL is synced at every commit).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from game_server.eventlog.chain import GENESIS_HASH
from game_server.eventlog.errors import (
    AppendRefused,
    EventLogError,
    LogDamaged,
    LogKindMismatch,
    NotAnEventLog,
    WriterConflict,
)
from game_server.eventlog.locks import LockGuard
from game_server.eventlog.records import ChainHead, Checkpoint, EventRow
from game_server.eventlog.schema import (
    CHECKPOINT_COLUMNS,
    EVENT_COLUMNS,
    INSERT_CHECKPOINT,
    INSERT_EVENT,
    LOG_KINDS,
    SCHEMA_VERSION,
    SIMULATION_LOG,
    TABLE_LOG,
    Found,
    LogState,
    inspect,
    inspect_connection,
    migrate,
)

if TYPE_CHECKING:
    from game_server.eventlog.store import EventStore

#: How long a write waits for a lock held by another connection before giving up.
BUSY_TIMEOUT_MS: Final = 5_000
#: Bytes of a new log's random id.
LOG_ID_BYTES: Final = 16


def kind_refusal(file: Path, found: str) -> str:
    """Why a log of kind ``found`` is not opened by a writer of the other kind."""
    if found == SIMULATION_LOG:
        return (
            f"{file} is the log of a simulation (etg sim --log: test seeds, not the certified "
            "entropy source); a table server never writes to it. Give the server a log of its "
            "own (a new file, or the table's existing log)."
        )
    return (
        f"{file} is a table server's log; etg sim --log writes only to a log it created as a "
        "simulation, so that simulated cash-ins and shoes never enter a table's history. "
        "Give --log a new file."
    )


def _create_private(file: Path) -> None:
    """Create the empty database file with mode 0600 (before SQLite creates it 0644)."""
    try:
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        raise EventLogError(f"cannot create {file}: {exc.strerror or exc}") from None
    os.close(fd)


def _sync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. a platform without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class SqliteEventStore:
    """The write side of an SQLite event log (see :class:`~game_server.eventlog.store.EventStore`).

    Not thread-safe: the one writer uses it from one thread at a time (the reactor's, or the
    log's commit thread while :meth:`EventLog.write_behind
    <game_server.eventlog.log.EventLog.write_behind>` is on).
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        state: LogState,
        found: LogState | None = None,
        migrated: Sequence[str] = (),
    ) -> None:
        """Wrap an open, migrated connection; use :meth:`open`."""
        self._conn = conn
        self.path = path
        self._log_id = state.log_id
        self._state = state
        self._found = found
        self._migrated = tuple(migrated)
        self._closed = False
        #: Proves that this process holds SQLite's lock on the file (:mod:`.locks`).
        self.guard = LockGuard(path)

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], now: Callable[[], str], *, kind: str = TABLE_LOG
    ) -> SqliteEventStore:
        """Open the log at ``path`` for writing, creating it if there is none.

        Checks, before writing anything, that an existing file is an event log of a schema
        this code knows and of ``kind``; then sets WAL and ``synchronous=FULL`` and applies
        the pending migrations. A new file is created readable and writable by its owner
        only (mode 0600: the game history is not for every account of the machine; SQLite
        gives its ``-wal`` and ``-shm`` files the same mode).

        Args:
            path: The database file.
            now: Returns the current time text (for ``created_at`` and ``applied_at``).
            kind: What writes the log (``meta.log_kind``): ``"table"`` (a table server) or
                ``"simulation"`` (``etg sim --log``). An existing log of another kind is
                refused: a simulation's rounds never mix with a table's.

        Raises:
            NotAnEventLog: the file is not an event log (it is left unchanged).
            SchemaTooNew: the log is newer than this code (it is left unchanged).
            LogKindMismatch: the log was written by another kind of writer (left unchanged).
            LogDamaged: SQLite cannot read it.
            EventLogError: WAL cannot be enabled, or a migration failed.
        """
        if kind not in LOG_KINDS:
            raise ValueError(f"a log's kind is one of {', '.join(LOG_KINDS)}, not {kind!r}")
        file = Path(path)
        state = inspect(file)
        if state.found is Found.LOG and state.log_kind != kind:
            raise LogKindMismatch(kind_refusal(file, state.log_kind))
        if state.found is Found.ABSENT:
            _create_private(file)
        try:
            # One thread at a time uses it, but not always the same one: the log's commit
            # thread (game_server.eventlog.writer) while it runs, the log's thread otherwise.
            conn = sqlite3.connect(file, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise EventLogError(f"cannot open {file} for writing: {exc}") from None
        found = state if state.found is Found.LOG else None
        migrated: list[str] = []
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if str(mode).lower() != "wal":
                raise EventLogError(
                    f"{file} cannot use write-ahead logging (journal mode stays {mode!r}); "
                    "put the log on a local file system"
                )
            conn.execute("PRAGMA synchronous = FULL")
            if state.found is not Found.LOG or state.schema_version < SCHEMA_VERSION:
                migrated = migrate(conn, now, os.urandom(LOG_ID_BYTES).hex(), kind)
                if state.found is Found.ABSENT:
                    _sync_directory(file.parent)  # the new file's name survives a power cut
            state = inspect_connection(conn, file)
            if state.found is not Found.LOG:  # pragma: no cover - migrate just made it one
                raise NotAnEventLog(f"{file} is not an event log after creating it")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise LogDamaged(f"{file} cannot be opened for writing: {exc}") from None
        except BaseException:
            conn.close()
            raise
        store = cls(conn, file, state, found, migrated)
        lost = store.guard.check()
        if lost is not None:
            store.close()
            raise lost
        return store

    def reconnect(self) -> None:
        """Close the connection and open a new one (after the lock was lost: a new connection
        takes SQLite's lock again); the caller proves the log again after it.

        Raises:
            EventLogError: the file cannot be opened again, or the new connection does not
                hold the lock either.
        """
        self.guard.close()
        with contextlib.suppress(sqlite3.Error):
            self._conn.close()
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.Error as exc:
            raise EventLogError(f"cannot open {self.path} for writing again: {exc}") from None
        self._conn = conn
        listeners = self.guard.listeners
        self.guard = LockGuard(self.path)
        for listener in listeners:
            self.guard.on_lost(listener)
        lost = self.guard.check()
        if lost is not None:
            raise lost

    @property
    def log_id(self) -> str:
        """The log's random id from ``meta``."""
        return self._log_id

    @property
    def state(self) -> LogState:
        """The log's schema, ``meta`` and ``migrations`` as the writer left them at open."""
        return self._state

    @property
    def found(self) -> LogState | None:
        """The log as it was found before any migration ran (None for a new log)."""
        return self._found

    @property
    def migrated(self) -> tuple[str, ...]:
        """The migrations this open applied (empty if the log was up to date)."""
        return self._migrated

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise LogDamaged(f"{self.path} cannot be read: {exc}") from None

    def head(self) -> ChainHead:
        """The last stored sequence number and hash."""
        rows = self._query("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
        if not rows:
            return ChainHead(0, GENESIS_HASH)
        seq, hash_ = rows[0]
        assert isinstance(seq, int) and isinstance(hash_, str)
        return ChainHead(seq, hash_)

    def hash_at(self, seq: int) -> str | None:
        """The stored hash of event ``seq`` (genesis for 0), or None."""
        if seq == 0:
            return GENESIS_HASH
        rows = self._query("SELECT hash FROM events WHERE seq = ?", (seq,))
        return str(rows[0][0]) if rows else None

    def tail(self, count: int) -> list[EventRow]:
        """The last ``count`` events, in sequence order."""
        rows = self._query(
            f"SELECT {EVENT_COLUMNS} FROM events ORDER BY seq DESC LIMIT ?", (count,)
        )
        rows.reverse()
        return rows  # type: ignore[return-value]

    def last_checkpoint(self) -> Checkpoint | None:
        """The newest checkpoint, or None."""
        rows = self._query(
            f"SELECT {CHECKPOINT_COLUMNS} FROM checkpoints ORDER BY number DESC LIMIT 1"
        )
        if not rows:
            return None
        return Checkpoint.from_row(rows[0], self._log_id)

    def checkpoints_after(self, number: int) -> list[Checkpoint]:
        """The checkpoints numbered after ``number``, in number order."""
        rows = self._query(
            f"SELECT {CHECKPOINT_COLUMNS} FROM checkpoints WHERE number > ? ORDER BY number",
            (number,),
        )
        return [Checkpoint.from_row(row, self._log_id) for row in rows]

    def write(
        self, expected: ChainHead, rows: Sequence[EventRow], checkpoint: Checkpoint | None
    ) -> None:
        """Store ``rows`` then ``checkpoint`` in one ``BEGIN IMMEDIATE`` transaction.

        Raises:
            WriterConflict: the stored head is not ``expected``.
            AppendRefused: SQLite refused or failed; the transaction was rolled back.
        """
        self.write_many([(expected, rows, checkpoint)])

    def write_many(
        self, writes: Sequence[tuple[ChainHead, Sequence[EventRow], Checkpoint | None]]
    ) -> None:
        """Store several writes (each as :meth:`write`'s arguments), in order, in ONE
        ``BEGIN IMMEDIATE`` transaction: one commit and one sync for all of them.

        Raises:
            WriterConflict: the stored head is not the first write's ``expected``.
            AppendRefused: SQLite refused or failed; the transaction was rolled back (none of
                the writes is stored).
        """
        if not writes:
            return
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for expected, rows, checkpoint in writes:
                    self._insert(conn, expected, rows, checkpoint)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise self._refusal(exc, writes[0][0]) from exc

    def _insert(
        self,
        conn: sqlite3.Connection,
        expected: ChainHead,
        rows: Sequence[EventRow],
        checkpoint: Checkpoint | None,
    ) -> None:
        if rows:
            # The insert trigger (and the primary key) refuse any seq but last + 1,
            # so a second writer shows up here without a query per step.
            conn.executemany(INSERT_EVENT, rows)
        elif checkpoint is not None:
            found = conn.execute(
                "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            if (found or (0, GENESIS_HASH)) != tuple(expected):
                raise WriterConflict(self._conflict(expected))
        if checkpoint is not None:
            conn.execute(
                INSERT_CHECKPOINT,
                (
                    checkpoint.number,
                    checkpoint.seq,
                    checkpoint.hash,
                    checkpoint.time,
                    checkpoint.reason,
                    checkpoint.key_id,
                    checkpoint.signature,
                    checkpoint.meta,
                ),
            )

    def _refusal(self, exc: sqlite3.Error, expected: ChainHead) -> AppendRefused:
        """What a failed step raises: another writer's seq (the triggers' message), or
        SQLite's refusal."""
        if isinstance(exc, sqlite3.IntegrityError) and (
            "must have seq" in str(exc) or "must have number" in str(exc)
        ):
            return WriterConflict(self._conflict(expected))
        return AppendRefused(self._refused(exc))

    def _conflict(self, expected: ChainHead) -> str:
        return (
            f"{self.path} no longer ends at seq {expected.seq}, where this writer left it: "
            "another process is writing to the same log. Stop the other writer; a log has "
            "exactly one. Nothing of this step was written."
        )

    def _refused(self, exc: sqlite3.Error) -> str:
        return (
            f"{self.path} did not store the step ({exc}); nothing of it was written. The "
            "table must take no further action until the log accepts writes again."
        )

    def pragmas(self) -> dict[str, object]:
        """The writer connection's settings: ``journal_mode`` (``"wal"``), ``synchronous``
        (2 = FULL), ``application_id``, ``user_version``, ``busy_timeout``."""
        names = ("journal_mode", "synchronous", "application_id", "user_version", "busy_timeout")
        return {name: self._query(f"PRAGMA {name}")[0][0] for name in names}

    def close(self) -> None:
        """Close the connection (SQLite then folds the WAL into the database file)."""
        if not self._closed:
            self._closed = True
            self.guard.close()
            self._conn.close()


if TYPE_CHECKING:

    def _is_an_event_store(store: SqliteEventStore) -> EventStore:
        return store  # mypy checks that SqliteEventStore implements the Protocol
