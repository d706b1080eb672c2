"""The SQLite schema of the event log: named migrations, triggers, pragmas and the check that
a file is one of ours.

Entry points: :func:`inspect` (read-only: is this file an event log, at which schema
version?) and :func:`migrate` (apply the pending named migrations, each in its own
transaction together with its record in ``migrations``). Used by
:class:`~game_server.eventlog.sqlite_store.SqliteEventStore` (the writer) and
:class:`~game_server.eventlog.reader.EventLogReader`.

Tables (all ``STRICT``, created through sqlite-utils)::

    events       seq INTEGER PRIMARY KEY, time TEXT, table_id TEXT, round_id INTEGER NULL,
                 terminal TEXT NULL, kind TEXT, body TEXT (canonical JSON), hash TEXT (hex)
    checkpoints  number INTEGER PRIMARY KEY, seq INTEGER, hash TEXT, time TEXT, reason TEXT,
                 key_id TEXT, signature TEXT (hex)
    migrations   name TEXT PRIMARY KEY, applied_at TEXT
    meta         key TEXT PRIMARY KEY, value TEXT   (product, log_id, schema_version, ...)

Indexes on ``events``: ``events_round (table_id, round_id)`` for a round's events,
``events_table (table_id, time)``, ``events_terminal (terminal, time)`` and ``events_time
(time)`` for "the last rounds of a terminal or table, in a time window", and ``events_kind
(kind)`` (e.g. every ``shoe_committed``). Each index implicitly ends with ``seq``.

The file is also marked in its header: ``PRAGMA application_id`` is :data:`APPLICATION_ID`
and ``PRAGMA user_version`` is the schema version, so that a file can be recognised from its
first 100 bytes without SQLite.

Migrations are named, applied in order, recorded by name, and never re-applied:

- ``0001-events``: ``meta`` and ``migrations`` (the bootstrap), the ``events`` table and its
  indexes.
- ``0002-checkpoints``: the ``checkpoints`` table.
- ``0003-triggers``: the triggers that refuse every UPDATE and DELETE on ``events``,
  ``checkpoints`` and ``migrations``, every INSERT that does not extend ``events`` or
  ``checkpoints`` by exactly the next number (which also defeats ``INSERT OR REPLACE``), and
  every change to ``meta`` but raising ``schema_version``.
- ``0004-checkpoint-meta``: the ``meta`` column of ``checkpoints``: each checkpoint from
  then on also signs the digest of the ``meta`` and ``migrations`` tables
  (:func:`game_server.eventlog.chain.meta_digest`), so that editing them fails verification.

``meta`` holds ``product``, ``schema_version``, ``log_id``, ``created_at``, ``chain_format``
and, for logs created from schema version 4 on, ``log_kind``: ``"table"`` for a table
server's log, ``"simulation"`` for one written by ``etg sim --log`` (test seeds, not the
certified entropy source). A log without the key was written by a table server.

The triggers stop mistakes and casual edits; anyone who owns the file can drop them. What
proves the log untouched is the hash chain and the signed checkpoints
(:mod:`game_server.eventlog.chain`); :meth:`EventLogReader.triggers_present` reports whether
the triggers are still exactly as created.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Final

from sqlite_utils import Database

from game_server.eventlog.chain import CHAIN_FORMAT, meta_digest
from game_server.eventlog.errors import (
    EventLogError,
    LogDamaged,
    NotAnEventLog,
    SchemaTooNew,
)

#: ``PRAGMA application_id`` of every event log: ``"ETGL"`` in ASCII.
APPLICATION_ID: Final = 0x4554474C
#: ``meta.product``.
PRODUCT: Final = "etg-eventlog"

EVENT_COLUMNS: Final = "seq, time, table_id, round_id, terminal, kind, body, hash"
INSERT_EVENT: Final = f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
#: The columns of ``checkpoints`` before schema version 4, and from it on (with ``meta``).
CHECKPOINT_COLUMNS_V1: Final = "number, seq, hash, time, reason, key_id, signature"
CHECKPOINT_COLUMNS: Final = f"{CHECKPOINT_COLUMNS_V1}, meta"
INSERT_CHECKPOINT: Final = (
    f"INSERT INTO checkpoints ({CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
#: ``meta.log_kind`` of a table server's log and of a simulation's (``etg sim --log``).
TABLE_LOG: Final = "table"
SIMULATION_LOG: Final = "simulation"
LOG_KINDS: Final = (TABLE_LOG, SIMULATION_LOG)


def _refuse(message: str) -> str:
    return f"SELECT RAISE(ABORT, 'etg-eventlog: {message}');"


#: Every trigger of the schema, by name, with its exact SQL (as stored in sqlite_master).
TRIGGERS: Final[dict[str, str]] = {
    "events_insert_next": (
        "CREATE TRIGGER events_insert_next BEFORE INSERT ON events "
        "WHEN NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM events) BEGIN "
        + _refuse("events are append-only; a new event must have seq = last seq + 1")
        + " END"
    ),
    "events_no_update": (
        "CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN "
        + _refuse("events are append-only; UPDATE is refused")
        + " END"
    ),
    "events_no_delete": (
        "CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN "
        + _refuse("events are append-only; DELETE is refused")
        + " END"
    ),
    "checkpoints_insert_next": (
        "CREATE TRIGGER checkpoints_insert_next BEFORE INSERT ON checkpoints "
        "WHEN NEW.number IS NOT (SELECT coalesce(max(number), 0) + 1 FROM checkpoints) BEGIN "
        + _refuse("checkpoints are append-only; a new one must have number = last + 1")
        + " END"
    ),
    "checkpoints_no_update": (
        "CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints BEGIN "
        + _refuse("checkpoints are append-only; UPDATE is refused")
        + " END"
    ),
    "checkpoints_no_delete": (
        "CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints BEGIN "
        + _refuse("checkpoints are append-only; DELETE is refused")
        + " END"
    ),
    "migrations_insert_new": (
        "CREATE TRIGGER migrations_insert_new BEFORE INSERT ON migrations "
        "WHEN EXISTS (SELECT 1 FROM migrations WHERE name = NEW.name) BEGIN "
        + _refuse("a migration is recorded once; it cannot be replaced")
        + " END"
    ),
    "migrations_no_update": (
        "CREATE TRIGGER migrations_no_update BEFORE UPDATE ON migrations BEGIN "
        + _refuse("migrations are append-only; UPDATE is refused")
        + " END"
    ),
    "migrations_no_delete": (
        "CREATE TRIGGER migrations_no_delete BEFORE DELETE ON migrations BEGIN "
        + _refuse("migrations are append-only; DELETE is refused")
        + " END"
    ),
    "meta_insert_new": (
        "CREATE TRIGGER meta_insert_new BEFORE INSERT ON meta "
        "WHEN EXISTS (SELECT 1 FROM meta WHERE key = NEW.key) BEGIN "
        + _refuse("a meta key is written once; it cannot be replaced")
        + " END"
    ),
    "meta_update_version_only": (
        "CREATE TRIGGER meta_update_version_only BEFORE UPDATE ON meta "
        "WHEN OLD.key <> 'schema_version' OR NEW.key <> OLD.key "
        "OR CAST(NEW.value AS INTEGER) <= CAST(OLD.value AS INTEGER) BEGIN "
        + _refuse("meta is fixed; only a migration may raise schema_version")
        + " END"
    ),
    "meta_no_delete": (
        "CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta BEGIN "
        + _refuse("meta rows cannot be deleted")
        + " END"
    ),
}

#: Secondary indexes of ``events``: name -> columns.
EVENT_INDEXES: Final[dict[str, tuple[str, ...]]] = {
    "events_round": ("table_id", "round_id"),
    "events_table": ("table_id", "time"),
    "events_terminal": ("terminal", "time"),
    "events_time": ("time",),
    "events_kind": ("kind",),
}


def _events(db: Database) -> None:
    db.table("events").create(
        {
            "seq": int,
            "time": str,
            "table_id": str,
            "round_id": int,
            "terminal": str,
            "kind": str,
            "body": str,
            "hash": str,
        },
        pk="seq",
        not_null={"time", "table_id", "kind", "body", "hash"},
        strict=True,
    )
    for name, columns in EVENT_INDEXES.items():
        db.table("events").create_index(list(columns), index_name=name)


def _checkpoints(db: Database) -> None:
    db.table("checkpoints").create(
        {
            "number": int,
            "seq": int,
            "hash": str,
            "time": str,
            "reason": str,
            "key_id": str,
            "signature": str,
        },
        pk="number",
        not_null={"seq", "hash", "time", "reason", "key_id", "signature"},
        strict=True,
    )
    db.table("checkpoints").create_index(["seq"], index_name="checkpoints_seq")


def _triggers(db: Database) -> None:
    for sql in TRIGGERS.values():
        db.execute(sql)


def _checkpoint_meta(db: Database) -> None:
    db.execute("ALTER TABLE checkpoints ADD COLUMN meta TEXT")


@dataclass(frozen=True)
class Migration:
    """One named schema change.

    Attributes:
        name: Its permanent name, recorded in ``migrations`` (``"0001-events"``).
        apply: Makes the change through a sqlite-utils ``Database``, inside the transaction
            that also records it.
    """

    name: str
    apply: Callable[[Database], None]


#: Every migration, in the order they are applied. Append only; never rename or reorder.
MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration("0001-events", _events),
    Migration("0002-checkpoints", _checkpoints),
    Migration("0003-triggers", _triggers),
    Migration("0004-checkpoint-meta", _checkpoint_meta),
)
#: The schema version this code writes and reads: the number of migrations it knows.
SCHEMA_VERSION: Final = len(MIGRATIONS)


class Found(Enum):
    """What :func:`inspect` found at a path."""

    ABSENT = "absent"  #: no file
    EMPTY = "empty"  #: an empty file or an empty SQLite database: a new log may go there
    LOG = "log"  #: an event log


@dataclass(frozen=True)
class LogState:
    """What :func:`inspect` found.

    Attributes:
        found: Absent, empty, or an event log.
        schema_version: The log's schema version (0 unless ``found`` is LOG).
        applied: Names of the migrations applied, in order.
        log_id: The log's id from ``meta`` ("" unless ``found`` is LOG).
        meta: Every row of ``meta``.
        migrations: ``(name, applied_at)`` of every applied migration, in order.
    """

    found: Found
    schema_version: int = 0
    applied: tuple[str, ...] = ()
    log_id: str = ""
    meta: tuple[tuple[str, str], ...] = ()
    migrations: tuple[tuple[str, str], ...] = ()

    @property
    def log_kind(self) -> str:
        """``meta.log_kind``; a log without it was written by a table server."""
        return str(dict(self.meta).get("log_kind", TABLE_LOG))

    def meta_digest(self) -> str:
        """:func:`~game_server.eventlog.chain.meta_digest` of the tables found."""
        return meta_digest(dict(self.meta), self.migrations)


def read_only_uri(path: str | os.PathLike[str], immutable: bool = False) -> str:
    """The SQLite URI that opens ``path`` read-only (``file:///...?mode=ro``).

    With ``immutable``, SQLite also takes no locks and creates no ``-wal``/``-shm`` files,
    and ignores any WAL: only for a file that no process writes to and whose WAL is empty
    (see :func:`has_wal_content`).
    """
    return Path(path).absolute().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")


def has_wal_content(path: str | os.PathLike[str]) -> bool:
    """Whether the database at ``path`` has a non-empty ``-wal`` file beside it (committed
    transactions not yet folded into the database file)."""
    wal = Path(f"{os.fspath(path)}-wal")
    try:
        return wal.stat().st_size > 0
    except OSError:
        return False


def _not_ours(path: Path, why: str) -> NotAnEventLog:
    return NotAnEventLog(
        f"{path} is not an ETG event log: {why}. Nothing was written to it; check the path "
        "(an event log is created by the game server, e.g. data/<table>.db)."
    )


def refuse_directory(path: Path) -> None:
    """Refuse a directory where a log file is expected (a ``stat``, no descriptor opened).

    The header of a log is never read with ``open()``: closing any descriptor of a database
    file drops every POSIX lock this process holds on it, SQLite's among them (SQLite's "How
    To Corrupt An SQLite Database File", section 2.2). Whether a file is SQLite, and whose, is
    asked of SQLite itself (:func:`inspect_connection`).

    Raises:
        NotAnEventLog: ``path`` is a directory.
    """
    if path.is_dir():
        raise _not_ours(path, "it is a directory")


def inspect_connection(conn: sqlite3.Connection, path: Path) -> LogState:
    """Identify the database behind ``conn`` (read-only queries only).

    Raises:
        NotAnEventLog: a database that is not an event log.
        SchemaTooNew: an event log of a newer schema than :data:`SCHEMA_VERSION`.
        LogDamaged: SQLite cannot read it.
    """
    try:
        (app_id,) = conn.execute("PRAGMA application_id").fetchone()
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if app_id == 0 and not names:
            return LogState(Found.EMPTY)
        if app_id != APPLICATION_ID:
            whose = f" (id {app_id:#x})" if app_id else ""
            raise _not_ours(path, f"it is a SQLite database of another application{whose}")
        if "meta" not in names or "migrations" not in names:
            raise _not_ours(path, "it is marked as one but has no meta or migrations table")
        meta_rows = tuple(
            (str(k), str(v)) for k, v in conn.execute("SELECT key, value FROM meta ORDER BY key")
        )
        meta = dict(meta_rows)
        migrations = tuple(
            (str(name), str(at))
            for name, at in conn.execute("SELECT name, applied_at FROM migrations ORDER BY rowid")
        )
        applied = tuple(name for name, _ in migrations)
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise _not_ours(path, "it is not a SQLite database") from None
        raise LogDamaged(
            f"{path} cannot be read by SQLite ({exc}); the file is damaged. Keep it as "
            "evidence and restore the log from a copy."
        ) from None
    if meta.get("product") != PRODUCT:
        raise _not_ours(path, f"its meta names the product {meta.get('product')!r}")
    try:
        version = int(meta.get("schema_version", ""))
    except ValueError:
        raise LogDamaged(
            f"{path} has no valid schema_version in its meta table ({meta.get('schema_version')!r})"
        ) from None
    known = [migration.name for migration in MIGRATIONS]
    unknown = [name for name in applied if name not in known]
    if version > SCHEMA_VERSION or unknown:
        raise SchemaTooNew(
            f"{path} has schema version {version} (migrations {', '.join(unknown) or 'none'} "
            f"unknown here); this ETG knows schema versions up to {SCHEMA_VERSION}. Nothing was "
            "written to it; open it with the newer ETG that wrote it."
        )
    if list(applied) != known[: len(applied)]:
        raise LogDamaged(
            f"{path} records the migrations {list(applied)}, which are not a prefix of "
            f"{known}; the schema was changed by hand"
        )
    return LogState(Found.LOG, version, applied, meta.get("log_id", ""), meta_rows, migrations)


def inspect(path: str | os.PathLike[str]) -> LogState:
    """Identify the file at ``path`` without writing anything to it.

    Asks SQLite only (never a plain ``open()`` of the file, see :func:`refuse_directory`): a
    read-only connection, and unless the file has WAL content an immutable one, so that no
    ``-wal``/``-shm`` files are created beside a file that turns out not to be ours.

    Raises:
        NotAnEventLog: a file that is not an event log (not SQLite, or another
            application's database).
        SchemaTooNew: an event log of a newer schema.
        LogDamaged: the file cannot be read.
    """
    file = Path(path)
    if not file.exists():
        return LogState(Found.ABSENT)
    refuse_directory(file)
    wal_content = has_wal_content(file)
    try:
        # Without WAL content, immutable: not even -wal/-shm files appear beside a file
        # that turns out not to be ours (or to be newer).
        conn = sqlite3.connect(read_only_uri(file, immutable=not wal_content), uri=True)
    except sqlite3.Error as exc:
        raise LogDamaged(f"cannot open {file} read-only: {exc}") from None
    try:
        return inspect_connection(conn, file)
    finally:
        conn.close()


def migrate(
    conn: sqlite3.Connection, now: Callable[[], str], log_id: str, kind: str = TABLE_LOG
) -> list[str]:
    """Apply every pending migration, each in its own ``BEGIN IMMEDIATE`` transaction that
    also records its name in ``migrations`` and raises ``meta.schema_version`` and
    ``PRAGMA user_version``.

    Args:
        conn: A read-write connection in autocommit mode (``isolation_level=None``).
        now: Returns the current time text, for ``applied_at`` (and ``created_at``).
        log_id: The id to give a new log (ignored when the log exists).
        kind: ``meta.log_kind`` of a new log (ignored when the log exists).

    Returns:
        The names applied now (empty if the log was up to date).

    Raises:
        SchemaTooNew: the log turned out to be newer (checked again inside the transaction).
        EventLogError: a migration failed; it was rolled back and stays pending.
    """
    db = Database(conn, recursive_triggers=False, execute_plugins=False)
    applied_now: list[str] = []
    for version, migration in enumerate(MIGRATIONS, start=1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            tables = set(db.table_names())
            done: list[str] = []
            if "migrations" in tables:
                done = [row[0] for row in conn.execute("SELECT name FROM migrations")]
            if len(done) > SCHEMA_VERSION or any(
                name not in {m.name for m in MIGRATIONS} for name in done
            ):
                raise SchemaTooNew(
                    f"the log has migrations {done}; this ETG knows {SCHEMA_VERSION}"
                )
            if migration.name in done:
                conn.execute("ROLLBACK")
                continue
            if "migrations" not in tables:
                _bootstrap(db, now(), log_id, kind)
            migration.apply(db)
            conn.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (migration.name, now())
            )
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise EventLogError(
                    f"migration {migration.name} failed ({exc}); it was rolled back and the log "
                    "is unchanged by it"
                ) from exc
            raise
        applied_now.append(migration.name)
    return applied_now


def _bootstrap(db: Database, created_at: str, log_id: str, kind: str) -> None:
    """The first transaction of a new log: ``meta``, ``migrations`` and the header mark."""
    db.table("migrations").create(
        {"name": str, "applied_at": str}, pk="name", not_null={"name", "applied_at"}, strict=True
    )
    db.table("meta").create(
        {"key": str, "value": str}, pk="key", not_null={"key", "value"}, strict=True
    )
    db.conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [
            ("product", PRODUCT),
            ("schema_version", "0"),
            ("log_id", log_id),
            ("created_at", created_at),
            ("chain_format", CHAIN_FORMAT),
            ("log_kind", kind),
        ],
    )
    db.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def normalized_sql(sql: str | None) -> str:
    """SQL with runs of whitespace collapsed, for comparing stored trigger text."""
    return " ".join((sql or "").split())
