"""The floor store's schema: named, versioned migrations; the three roles and what each may
do; append-only tables (no UPDATE or DELETE grant, and a trigger refusing both)."""

from __future__ import annotations

import hashlib
import uuid

import psycopg
import pytest
from floor_helpers import StoreUrls

from game_server.floor import schema
from game_server.floor.cluster import LocalFloor, connect
from game_server.floor.errors import StoreSchemaError
from game_server.floor.names import (
    ADMIN,
    INVESTIGATOR,
    OWNER,
    REFUSED_CHANGE,
    SHIPPER,
    TABLES,
    TRUST_TABLES,
)
from game_server.floor.schema import MIGRATIONS
from game_server.floor.store import FloorStore

#: Each released migration's SQL (statements, then what it runs as the superuser), by its
#: SHA-256: a store records a migration by name and never applies it again.
RELEASED: dict[str, tuple[str, str]] = {
    "0001-store": (
        "91b756f6ffe37a7aeb5462eb10dca69ecd6178c431915cf045a82adf11a46bb9",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    "0002-guards": (
        "28c9f77a633958e9a90bff8deff500e38c948946d77574d48e922b996cbb6a3d",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    "0003-roles": (
        "d4c0be22ca8045dc4200c481faa8a1317d051d585fbe66262efd345b4b439393",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    "0004-meters": (
        "2b3db6655470ab67c91dc5cc97e8b8997c6102d689e50857e9db4aa480ee0442",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    "0005-trust": (
        "e5ffdf9b0c66d915d4d51969cf7e99bfe9b4bda93aea07a9cc4692bcdf284e8f",
        "e286c92a7d78dc9b3616de51208e2af48a3461a0c3f7bef510fa3ae735e2f64b",
    ),
}


def test_a_released_migrations_text_never_changes() -> None:
    """The SQL of every released migration is the text it was released with, wherever its
    module moves: a store that applied it never runs it again, so a change of the schema is
    a new migration (no PostgreSQL needed)."""
    digests = {
        m.name: (
            hashlib.sha256(m.statements.encode()).hexdigest(),
            hashlib.sha256(m.as_superuser.encode()).hexdigest(),
        )
        for m in MIGRATIONS
    }
    assert {name: digests.get(name) for name in RELEASED} == RELEASED


def test_migrations_are_named_recorded_in_order_and_never_reapplied(store: StoreUrls) -> None:
    """A new store records every migration by name, in order; migrating again applies none
    (the database's superuser migrates)."""
    with psycopg.connect(store.superuser, autocommit=True) as conn:
        rows = conn.execute("SELECT name, position FROM floor.migrations ORDER BY position")
        assert [tuple(r) for r in rows] == [(m.name, i) for i, m in enumerate(MIGRATIONS, start=1)]
        assert schema.migrate(conn) == []
        state = schema.inspect(conn)
    assert state.schema_version == schema.SCHEMA_VERSION == len(MIGRATIONS) == 5
    assert [m.name for m in MIGRATIONS] == [
        "0001-store",
        "0002-guards",
        "0003-roles",
        "0004-meters",
        "0005-trust",
    ]
    assert len(state.store_id) == 32


def _new_database(pg_floor: LocalFloor) -> str:
    name = f"t_{uuid.uuid4().hex[:16]}"
    with connect(pg_floor, "superuser", "postgres") as conn:
        schema.create_database(conn, name)
    return name


def test_a_store_behind_is_refused_until_migrated_then_only_the_pending_one_runs(
    pg_floor: LocalFloor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store of schema version 2 is refused by the clients with the command that fixes
    it; migrating then applies only the pending 0003-roles to 0005-trust."""
    name = _new_database(pg_floor)
    with connect(pg_floor, "superuser", name) as conn:
        monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS[:2])
        assert schema.migrate(conn) == ["0001-store", "0002-guards"]
        monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS)
        # The old store has no store_info() yet: the clients cannot read it at all.
        with pytest.raises(StoreSchemaError, match="no floor store"):
            FloorStore.connect(pg_floor.url("admin", name))
        assert schema.migrate(conn) == ["0003-roles", "0004-meters", "0005-trust"]
    store = FloorStore.connect(pg_floor.url("admin", name))
    store.close()


def test_only_the_superuser_migrates(pg_floor: LocalFloor) -> None:
    """The migrations run as the role that owns the store, which no day-to-day role may act
    as: the floor admin's migrate is refused with a sentence saying whose act it is."""
    name = _new_database(pg_floor)
    with (
        connect(pg_floor, "admin", name) as conn,
        pytest.raises(StoreSchemaError, match="applied by the database's superuser"),
    ):
        schema.migrate(conn)


def test_a_store_of_a_newer_schema_is_refused(pg_floor: LocalFloor) -> None:
    """A migration this code does not know makes the store unusable here, and migrate
    refuses to touch it."""
    name = _new_database(pg_floor)
    with connect(pg_floor, "superuser", name) as conn:
        schema.migrate(conn)
        conn.execute("INSERT INTO floor.migrations (name, position) VALUES ('0006-future', 6)")
        with pytest.raises(StoreSchemaError, match="0006-future unknown here"):
            schema.migrate(conn)
    with pytest.raises(StoreSchemaError, match="schema version 6; this ETG knows versions up"):
        FloorStore.connect(pg_floor.url("investigator", name))


def test_a_database_without_a_store_is_refused_with_the_command_to_make_one(
    pg_floor: LocalFloor,
) -> None:
    name = _new_database(pg_floor)
    with pytest.raises(StoreSchemaError, match=r"holds no floor store.*etg floor up"):
        FloorStore.connect(pg_floor.url("admin", name))


def _privileges(url: str, role: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    with psycopg.connect(url) as conn:
        for table in (*TABLES, *TRUST_TABLES):
            found[table] = {
                privilege
                for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")
                if conn.execute(
                    "SELECT has_table_privilege(%s, %s, %s)", (role, f"floor.{table}", privilege)
                ).fetchone()[0]  # type: ignore[index]
            }
    return found


def test_each_role_holds_exactly_its_privileges(store: StoreUrls) -> None:
    """No day-to-day role owns anything or holds UPDATE, DELETE or TRUNCATE on any table:
    the owner is a role nobody logs in as; the floor admin may only read (it registers
    servers through a function); the shipping group may only INSERT into the four tables it
    ships to; the investigator may only SELECT."""
    admin = _privileges(store.superuser, ADMIN)
    shipper = _privileges(store.superuser, SHIPPER)
    investigator = _privileges(store.superuser, INVESTIGATOR)
    for table in (*TABLES, *TRUST_TABLES):
        assert admin[table] == {"SELECT"}, table
        assert investigator[table] == {"SELECT"}, table
    shipped = {"logs", "log_states", "events", "checkpoints"}
    assert {t for t in (*TABLES, *TRUST_TABLES) if shipper[t]} == shipped
    assert all(shipper[t] == {"INSERT"} for t in shipped)
    with psycopg.connect(store.superuser) as conn:
        owners = conn.execute(
            "SELECT DISTINCT pg_get_userbyid(c.relowner) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'floor'"
        ).fetchall()
        assert owners == [(OWNER,)]
        login = conn.execute(
            "SELECT rolcanlogin FROM pg_roles WHERE rolname = ANY(%s) ORDER BY rolname",
            ([OWNER, SHIPPER],),
        ).fetchall()
        assert login == [(False,), (False,)]


@pytest.mark.parametrize("table", (*TABLES, *TRUST_TABLES))
def test_every_table_refuses_update_delete_and_truncate_even_to_a_superuser(
    store: StoreUrls, table: str
) -> None:
    """The trigger stops what the missing grant does not (a superuser ignores grants)."""
    with psycopg.connect(store.superuser, autocommit=True) as conn:
        for statement in (
            f"UPDATE floor.{table} SET {_a_column(table)} = {_a_column(table)}",
            f"DELETE FROM floor.{table}",
            f"TRUNCATE floor.{table}",
        ):
            if table not in ("meta", "migrations") and statement.startswith(("UPDATE", "DELETE")):
                # Row triggers fire per row: give them one.
                _one_row(conn, table)
            with pytest.raises(psycopg.Error, match=f"floor.{table} is append-only") as caught:
                conn.execute(statement)
            assert caught.value.sqlstate == REFUSED_CHANGE


def _a_column(table: str) -> str:
    columns = {"meta": "value", "migrations": "name", "keys": "server", "shipping_roles": "role"}
    return columns.get(table, "log_id")


def _one_row(conn: psycopg.Connection[object], table: str) -> None:
    """A registered server, a claimed log with one meta state, one event and one checkpoint
    (inserted once per test by the superuser with the triggers off: the rows need not
    chain here, only exist)."""
    if conn.execute("SELECT 1 FROM floor.logs").fetchone():
        return
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from game_server.eventlog.chain import GENESIS_HASH
    from game_server.keys import key_id

    key = Ed25519PrivateKey.generate().public_key()
    raw = key.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    ident = key_id(key)
    conn.execute("SELECT floor.register_server('BJ-01', %s, %s)", (raw, "p" * 24))
    conn.execute("SET session_replication_role = replica")  # no trigger fires meanwhile
    try:
        conn.execute("INSERT INTO floor.logs (log_id, key_id) VALUES ('L1', %s)", (ident,))
        conn.execute(
            "INSERT INTO floor.log_states (log_id, digest, document) VALUES ('L1', "
            "encode(sha256(convert_to(E'etg-eventlog/meta/v1\\n' || %s, 'UTF8')), 'hex'), %s)",
            ['{"meta":{"log_id":"L1"},"migrations":[]}'] * 2,
        )
        conn.execute(
            "INSERT INTO floor.events (log_id, seq, time, table_id, round_id, terminal, kind, "
            "body, hash) VALUES ('L1', 1, 't', 'BJ-01', NULL, NULL, 'x', '{}', %s)",
            (GENESIS_HASH,),
        )
        conn.execute(
            "INSERT INTO floor.checkpoints (log_id, number, seq, hash, time, reason, key_id, "
            "signature) VALUES ('L1', 1, 0, %s, 't', 'test', %s, %s)",
            (GENESIS_HASH, ident, "0" * 128),
        )
    finally:
        conn.execute("SET session_replication_role = origin")


def test_the_shipping_role_cannot_read_register_or_change(store: StoreUrls) -> None:
    """Insert only: reading a table, registering a key or deleting is refused by the
    database itself; the read functions it needs answer."""
    with psycopg.connect(store.shipper, autocommit=True) as conn:
        for statement in (
            "SELECT * FROM floor.events",
            "SELECT * FROM floor.keys",
            "INSERT INTO floor.keys (key_id, public_key, server) VALUES "
            "('0000000000000000', repeat('0', 64), 'x')",
            "DELETE FROM floor.events",
            "UPDATE floor.checkpoints SET reason = 'x'",
            "CREATE TABLE floor.mine (x int)",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        assert conn.execute("SELECT product FROM floor.store_info()").fetchone() == ("etg-floor",)


def test_the_investigator_can_read_but_not_write(store: StoreUrls) -> None:
    with psycopg.connect(store.investigator, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM floor.events").fetchone() == (0,)
        for statement in (
            "INSERT INTO floor.logs (log_id, key_id) VALUES ('x', 'y')",
            "DELETE FROM floor.events",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
