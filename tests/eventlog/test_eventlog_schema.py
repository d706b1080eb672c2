"""The SQLite schema of the event log: STRICT tables, indexes, WAL and synchronous=FULL, the
header marks, named migrations, and the triggers that refuse every change."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from eventlog_helpers import START, drop_triggers, fill, raw

from game_server.eventlog import (
    APPLICATION_ID,
    MIGRATIONS,
    PRODUCT,
    SCHEMA_VERSION,
    TRIGGERS,
    EventLog,
    EventLogReader,
    SqliteEventStore,
)
from game_server.eventlog import schema as schema_module
from game_server.eventlog.reader import recent_rounds_sql
from game_server.eventlog.schema import EVENT_INDEXES, migrate


def test_tables_are_strict_with_the_documented_columns(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """events, checkpoints, migrations and meta are STRICT tables; events has the columns of
    the design, seq being the rowid."""
    open_log().close()
    conn = raw(db_path)
    strict = {row[1]: row[5] for row in conn.execute("PRAGMA table_list") if row[0] == "main"}
    for table in ("events", "checkpoints", "migrations", "meta"):
        assert strict[table] == 1, table
    columns = [(r[1], r[2], r[3], r[5]) for r in conn.execute("PRAGMA table_info(events)")]
    assert columns == [
        ("seq", "INTEGER", 0, 1),
        ("time", "TEXT", 1, 0),
        ("table_id", "TEXT", 1, 0),
        ("round_id", "INTEGER", 0, 0),
        ("terminal", "TEXT", 0, 0),
        ("kind", "TEXT", 1, 0),
        ("body", "TEXT", 1, 0),
        ("hash", "TEXT", 1, 0),
    ]
    with pytest.raises(sqlite3.IntegrityError):  # STRICT: an integer column refuses text
        conn.execute("INSERT INTO events VALUES (1, 't', 'T', 'x', NULL, 'k', '{}', 'h')")


def test_events_indexes_cover_round_table_terminal_time_and_kind(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """The recall indexes exist with their columns."""
    open_log().close()
    conn = raw(db_path)
    found = {
        name: tuple(r[2] for r in conn.execute(f"PRAGMA index_info({name})"))
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='events'"
        )
    }
    assert found == dict(EVENT_INDEXES)
    assert EVENT_INDEXES["events_round"] == ("table_id", "round_id")
    assert EVENT_INDEXES["events_terminal"][0] == "terminal"


def test_writer_uses_wal_and_synchronous_full(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """The writer's connection runs in WAL mode with synchronous=FULL (2)."""
    log = open_log()
    assert isinstance(log.store, SqliteEventStore)
    pragmas = log.store.pragmas()
    assert pragmas["journal_mode"] == "wal"
    assert pragmas["synchronous"] == 2
    assert raw(db_path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent


def test_header_and_meta_mark_the_file_as_an_event_log(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """application_id and user_version are in the header; meta names the product, schema
    version, chain format and a random log id."""
    log = open_log()
    log_id = log.log_id
    log.close()
    header = db_path.read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    assert int.from_bytes(header[60:64], "big") == SCHEMA_VERSION
    with EventLogReader.open(db_path) as reader:
        meta = reader.meta()
    assert meta["product"] == PRODUCT
    assert meta["schema_version"] == str(SCHEMA_VERSION)
    assert meta["log_id"] == log_id and len(log_id) == 32
    assert meta["created_at"] == "2025-03-01T18:00:00.001000Z"  # the clock's 2nd reading
    assert meta["chain_format"].startswith("etg-eventlog/chain/v1")


def test_migrations_are_recorded_by_name_in_order_and_not_reapplied(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """A new log records 0001-events, 0002-checkpoints, 0003-triggers,
    0004-checkpoint-meta; opening it again applies nothing (the records and their times are
    unchanged)."""
    open_log().close()
    with EventLogReader.open(db_path) as reader:
        first = reader.applied_migrations()
    assert [name for name, _ in first] == [
        "0001-events",
        "0002-checkpoints",
        "0003-triggers",
        "0004-checkpoint-meta",
    ]
    assert [m.name for m in MIGRATIONS] == [name for name, _ in first]
    open_log().close()
    with EventLogReader.open(db_path) as reader:
        assert reader.applied_migrations() == first


def test_a_pending_migration_is_applied_on_open_and_recorded(
    open_log: Callable[..., EventLog],
    db_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A log made by code that knew only the first two migrations gets the others when the
    writer opens it, recorded after those two, which are left as they were."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    monkeypatch.setattr(schema_module, "MIGRATIONS", MIGRATIONS[:2])
    migrate(conn, lambda: "2025-01-01T00:00:00.000000Z", "ab" * 16)
    monkeypatch.undo()
    conn.close()
    with EventLogReader.open(db_path) as reader:
        assert [n for n, _ in reader.applied_migrations()] == ["0001-events", "0002-checkpoints"]
        assert reader.schema_version == 2
        assert not any(reader.triggers_present().values())
    open_log().close()
    with EventLogReader.open(db_path) as reader:
        applied = reader.applied_migrations()
        assert applied[:2] == [
            ("0001-events", "2025-01-01T00:00:00.000000Z"),
            ("0002-checkpoints", "2025-01-01T00:00:00.000000Z"),
        ]
        assert [name for name, _ in applied[2:]] == ["0003-triggers", "0004-checkpoint-meta"]
        assert applied[2][1] != "2025-01-01T00:00:00.000000Z"
        assert reader.meta()["schema_version"] == "4"
        assert all(reader.triggers_present().values())


def test_triggers_present_reports_missing_altered_and_foreign_triggers(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """Every trigger is reported present as created; one dropped, one replaced by a no-op of
    the same name, and one added by someone else are each reported False."""
    fill(open_log(), 2)
    with EventLogReader.open(db_path) as reader:
        assert reader.triggers_present() == dict.fromkeys(TRIGGERS, True)
    conn = raw(db_path)
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT 1; END")
    conn.execute("CREATE TRIGGER sneaky AFTER INSERT ON events BEGIN SELECT 1; END")
    with EventLogReader.open(db_path) as reader:
        present = reader.triggers_present()
    assert present["events_no_delete"] is False
    assert present["events_no_update"] is False
    assert present["sneaky"] is False
    assert present["checkpoints_no_update"] is True


@pytest.mark.parametrize(
    ("statement", "table"),
    [
        ('UPDATE events SET body = \'{"kind":"x"}\' WHERE seq = 3', "events"),
        ("UPDATE events SET hash = hash", "events"),
        ("DELETE FROM events WHERE seq = 5", "events"),
        ("DELETE FROM events", "events"),
        (
            "INSERT OR REPLACE INTO events SELECT seq, time, table_id, round_id, terminal, "
            "kind, body, hash FROM events WHERE seq = 2",
            "events",
        ),
        (
            "INSERT INTO events SELECT seq + 100, time, table_id, round_id, terminal, "
            "kind, body, hash FROM events WHERE seq = 2",
            "events",
        ),
        ("UPDATE checkpoints SET reason = 'x'", "checkpoints"),
        ("DELETE FROM checkpoints WHERE number = 1", "checkpoints"),
        ("INSERT OR REPLACE INTO checkpoints SELECT * FROM checkpoints LIMIT 1", "checkpoints"),
        ("UPDATE migrations SET applied_at = 'x'", "migrations"),
        ("DELETE FROM migrations", "migrations"),
        ("INSERT OR REPLACE INTO migrations VALUES ('0001-events', 'x')", "migrations"),
        ("UPDATE meta SET value = 'x' WHERE key = 'log_id'", "meta"),
        ("UPDATE meta SET value = '1' WHERE key = 'schema_version'", "meta"),
        ("DELETE FROM meta", "meta"),
        ("INSERT OR REPLACE INTO meta VALUES ('product', 'other')", "meta"),
    ],
)
def test_the_database_itself_refuses_changes(
    open_log: Callable[..., EventLog], db_path: Path, statement: str, table: str
) -> None:
    """On a plain sqlite3 connection (no product code in the way), every UPDATE and DELETE of
    events, checkpoints, migrations and meta, every REPLACE, and every insert out of sequence
    is aborted by a trigger, and the table is unchanged."""
    fill(open_log(), 3)
    conn = raw(db_path)
    before = conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
    with pytest.raises(sqlite3.IntegrityError, match="etg-eventlog"):
        conn.execute(statement)
    assert conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() == before


def test_without_its_triggers_the_database_accepts_changes(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """The triggers are a guard, not the proof: once dropped, an UPDATE goes through (which is
    why the chain and the signed checkpoints exist, see test_eventlog_verify)."""
    fill(open_log(), 1)
    conn = raw(db_path)
    drop_triggers(conn)
    conn.execute("UPDATE events SET terminal = 'x' WHERE seq = 1")
    assert conn.execute("SELECT terminal FROM events WHERE seq = 1").fetchone() == ("x",)


@pytest.mark.parametrize(
    ("terminal", "table", "window", "index"),
    [
        ("term-1", None, False, "events_terminal"),
        ("term-1", None, True, "events_terminal"),
        ("term-1", "T1", False, "events_terminal"),
        (None, "T1", False, "events_table"),
        (None, None, True, "events_time"),
        (None, None, False, "events_time"),
    ],
)
def test_recent_rounds_query_walks_an_index_without_sorting(
    open_log: Callable[..., EventLog],
    db_path: Path,
    terminal: str | None,
    table: str | None,
    window: bool,
    index: str,
) -> None:
    """The recall query is answered by walking one index backwards: SQLite's plan uses the
    index and never builds a temporary B-tree to sort."""
    fill(open_log(), 2)
    since, until = (START, START + timedelta(hours=1)) if window else (None, None)
    sql, params = recent_rounds_sql(terminal, table, since, until)
    plan = " | ".join(row[3] for row in raw(db_path).execute(f"EXPLAIN QUERY PLAN {sql}", params))
    assert index in plan
    assert "TEMP B-TREE" not in plan
