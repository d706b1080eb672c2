"""The SQLite backend of the writer: one read-write connection, WAL, ``synchronous=FULL``.

Entry point: :meth:`SqliteEventStore.open`, called by
:meth:`~game_server.eventlog.log.EventLog.create_or_open`. It implements
:class:`~game_server.eventlog.store.EventStore`: each :meth:`~SqliteEventStore.write` is one
``BEGIN IMMEDIATE ... COMMIT`` transaction, so a step is on disk whole or not at all, also
across a power cut or ``kill -9`` (the WAL is synced at every commit).
"""

from __future__ import annotations

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
    NotAnEventLog,
    WriterConflict,
)
from game_server.eventlog.records import ChainHead, Checkpoint, EventRow
from game_server.eventlog.schema import (
    CHECKPOINT_COLUMNS,
    EVENT_COLUMNS,
    INSERT_CHECKPOINT,
    INSERT_EVENT,
    SCHEMA_VERSION,
    Found,
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

    Not thread-safe: the one writer uses it from one thread (the reactor's).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, log_id: str) -> None:
        """Wrap an open, migrated connection; use :meth:`open`."""
        self._conn = conn
        self.path = path
        self._log_id = log_id
        self._closed = False

    @classmethod
    def open(cls, path: str | os.PathLike[str], now: Callable[[], str]) -> SqliteEventStore:
        """Open the log at ``path`` for writing, creating it if there is none.

        Checks, before writing anything, that an existing file is an event log of a schema
        this code knows; then sets WAL and ``synchronous=FULL`` and applies the pending
        migrations.

        Args:
            path: The database file.
            now: Returns the current time text (for ``created_at`` and ``applied_at``).

        Raises:
            NotAnEventLog: the file is not an event log (it is left unchanged).
            SchemaTooNew: the log is newer than this code (it is left unchanged).
            LogDamaged: SQLite cannot read it.
            EventLogError: WAL cannot be enabled, or a migration failed.
        """
        file = Path(path)
        state = inspect(file)
        try:
            conn = sqlite3.connect(file, isolation_level=None)
        except sqlite3.Error as exc:
            raise EventLogError(f"cannot open {file} for writing: {exc}") from None
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
                migrate(conn, now, os.urandom(LOG_ID_BYTES).hex())
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
        return cls(conn, file, state.log_id)

    @property
    def log_id(self) -> str:
        """The log's random id from ``meta``."""
        return self._log_id

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

    def write(
        self, expected: ChainHead, rows: Sequence[EventRow], checkpoint: Checkpoint | None
    ) -> None:
        """Store ``rows`` then ``checkpoint`` in one ``BEGIN IMMEDIATE`` transaction.

        Raises:
            WriterConflict: the stored head is not ``expected``.
            AppendRefused: SQLite refused or failed; the transaction was rolled back.
        """
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
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
                        ),
                    )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as exc:
            if "must have seq" in str(exc) or "must have number" in str(exc):
                raise WriterConflict(self._conflict(expected)) from exc
            raise AppendRefused(self._refused(exc)) from exc
        except sqlite3.Error as exc:
            raise AppendRefused(self._refused(exc)) from exc

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
            self._conn.close()


if TYPE_CHECKING:

    def _is_an_event_store(store: SqliteEventStore) -> EventStore:
        return store  # mypy checks that SqliteEventStore implements the Protocol
