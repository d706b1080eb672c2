"""The PostgreSQL schema of the floor store: named migrations, roles, and the ingest guards.

Entry points: :func:`migrate` (apply the pending named migrations as :data:`OWNER`, each in
its own transaction with its record in ``floor.migrations``), :func:`inspect` (which schema
version a database holds, read through :data:`STORE_INFO`) and :func:`create_roles` (the
store's roles, created by a superuser once per cluster). Each migration's SQL is a module of
:mod:`game_server.floor.migrations`; the names it shares with the store's clients (roles,
tables, SQLSTATEs) are :mod:`game_server.floor.names`.

Everything lives in the schema ``floor`` of one database (``etg_floor`` on a floor made by
``etg floor up``)::

    meta         key text PRIMARY KEY, value text      (product, store_id)
    migrations   name text PRIMARY KEY, position int, applied_at timestamptz
    keys         key_id, public_key (64 hex), server, registered_at, registered_by
    logs         log_id PRIMARY KEY, key_id (a registered key), claimed_at, claimed_by
    log_states   (log_id, digest) PRIMARY KEY, document: the canonical meta/migrations
                 document whose SHA-256 a v2 checkpoint signs (chain.meta_digest)
    events       (log_id, seq) PRIMARY KEY, and the SQLite log's columns verbatim: time,
                 table_id, round_id, terminal, kind, body (the canonical text), hash;
                 shipped_at (the store's clock, not part of the chain)
    checkpoints  (log_id, number) PRIMARY KEY, seq, hash, time, reason, key_id, signature,
                 meta; shipped_at

The events indexes are the SQLite log's (:data:`game_server.eventlog.schema.EVENT_INDEXES`),
each led by nothing but its columns (``log_id`` is not in them: a floor-wide recall asks
across logs). There are no foreign keys: PostgreSQL's checks of them lock the referenced
row, which needs an UPDATE privilege that no role holds here; the ingest triggers check
that a log is claimed and a key registered instead (rows are never deleted).

**The ingest guards** (``0002-guards``): BEFORE INSERT triggers, ``SECURITY DEFINER`` so that
the shipping role needs no SELECT, check every row whoever inserts it:

- an event or checkpoint already stored is skipped if identical (shipping is at least once;
  the store holds each once) and refused if different (a fork or a rewrite of the log);
- an event must follow the stored event ``seq - 1`` of its log (no gap) and its hash must be
  ``SHA-256(previous hash || entry)`` with the entry built exactly as
  :mod:`game_server.eventlog.chain` defines it (``to_json(text)`` escapes exactly as
  ``json.encoder.encode_basestring``; the body is spliced verbatim);
- a checkpoint must be its log's next number, not go back in ``seq``, be signed with the key
  the log was claimed with, and agree with the stored chain at its ``seq`` (and an event
  arriving after a checkpoint that covers it must agree with it);
- a log is claimed once, with a registered key: a second log claiming the id with another
  key is refused (with the same key, its events fork and are refused);
- a meta state's digest is recomputed from its document.

PostgreSQL has no Ed25519, so the checkpoint *signatures* are verified by the ingest code
(:meth:`game_server.floor.store.FloorStore.ingest`) against the registered public key, and
again by every ``etg verify --store``. Every table refuses UPDATE, DELETE and TRUNCATE by
trigger, and no role holds those privileges on them (the admin revokes them from itself).
As with the SQLite triggers, the table owner can drop a trigger; what proves the rows is the
chain and the signatures.

**Roles** (:func:`create_roles`): :data:`OWNER` owns the schema (nobody logs in as it; the
database's superuser migrates as it); :data:`ADMIN` registers the servers' keys and reads;
every table server ships as a role of its own in the group :data:`SHIPPER`, which may only
INSERT into ``logs``, ``log_states``, ``events`` and ``checkpoints`` (rows of its own logs)
and call the four read functions it needs
(:data:`~game_server.floor.names.READ_FUNCTIONS`); :data:`INVESTIGATOR` may only SELECT.

Migrations are named, applied in order, recorded by name and never re-applied, as the SQLite
log's are (:mod:`game_server.eventlog.schema`):

- ``0001-store``: ``meta``, ``migrations`` (the bootstrap) and the five tables.
- ``0002-guards``: the ingest triggers and the append-only triggers.
- ``0003-roles``: the grants, the revocations and the read functions.
- ``0004-meters``: the floor's linked progressive meters (605a.8), see below.
- ``0005-trust``: each server's own shipping role, bound to its key (``shipping_roles``,
  ``register_server``), and the ingest triggers that take from a role only its own logs.

**Linked meters** (``0004-meters``): the store is the floor's local area progressive
controller. ``meters`` holds each meter's specification (written once, by whichever server
opens it first; a server whose Rules Submission gives the same id another specification is
refused); ``meter_steps`` is the meter's own append-only history, one row per change with
the meter's sequence number ``seq`` and its state after the change (amount and reserve in
millicents, and the never-reset totals), so the meter at any moment is its last row. Every
change is made by a ``SECURITY DEFINER`` function, in one transaction that holds the
meter's row lock (``SELECT ... FOR UPDATE`` on ``meters``), so contributions and awards from
every server have one order:

- ``meter_open(meter, name, seed, reseed, increment_bp, secondary_bp, share_window_ms)``;
- ``meter_contribute(meter, table, round, step, place, wager)``: 633b.9(g), 633b.10(i), the
  rules' arithmetic (:meth:`game_server.rules.meters.Meter.contribution`); idempotent by
  ``(table, round, step)``: called again with the same key it returns what it did the first
  time and changes nothing (a server retries after the store failed mid-transaction);
- ``meter_claim(meter, table, round, step, percent, places, shared)`` and
  ``meter_settle(meter, table, round, step)``: an award. A shared claim (a payout the
  wager's section shares among a round's winners: 633b.9(e)(3)'s 100%, every jackpot of
  633b.10(j)) joins the meter's open shared award of that percentage, or opens one that
  closes ``share_window_ms`` later (store clock); a claim that is not shared (a Blazing 7's
  10% payout, paid in full to each winner) is an award of its own, closed at once; at
  settlement (the first claimant to settle after the close pays it, the others read it)
  the store splits
  ``percent`` of the meter equally among every place of every claim of it, floored to cents,
  the leftover staying in the meter (633b.9(e)(3), 633b.10(j)), then reseeds (from the
  reserve first, then the house). Winners of the same meter at nearly the same time on
  different servers so share it, and the store records their order (the claims' order);
  idempotent by ``(table, round, step)`` as a contribution;
- ``meter_state(meter)``: the spec and the last step (what a terminal's meter shows).

The shipping role may only call these; investigators read every table.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import psycopg
from psycopg import sql

from game_server.floor.errors import StoreSchemaError
from game_server.floor.migrations import guards, meters, roles, store, trust
from game_server.floor.names import (
    ADMIN,
    INVESTIGATOR,
    OWNER,
    PRODUCT,
    REGISTRAR,
    SHIPPER,
    STORE_INFO,
)

#: The key of the advisory lock every migration takes (two migrators never interleave).
MIGRATION_LOCK: Final = 0x4554_4746  # "ETGF"


@dataclass(frozen=True)
class Migration:
    """One named schema change.

    Attributes:
        name: Its permanent name, recorded in ``floor.migrations`` (``"0001-store"``).
        statements: The SQL it runs as :data:`OWNER`, inside the transaction that also
            records it.
        as_superuser: SQL it runs after them in that transaction as the database's superuser
            (what the owner may not do: give a function to another role).
    """

    name: str
    statements: str
    as_superuser: str = ""


#: Every migration, in the order they are applied. Append only; never rename or reorder.
MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration("0001-store", store.STATEMENTS),
    Migration("0002-guards", guards.STATEMENTS),
    Migration("0003-roles", roles.STATEMENTS),
    Migration("0004-meters", meters.STATEMENTS),
    Migration("0005-trust", trust.STATEMENTS, trust.AS_SUPERUSER),
)
#: The schema version this code writes and reads: the number of migrations it knows.
SCHEMA_VERSION: Final = len(MIGRATIONS)

_BOOTSTRAP: Final = """
CREATE SCHEMA IF NOT EXISTS floor;
CREATE TABLE IF NOT EXISTS floor.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS floor.migrations (
    name text PRIMARY KEY,
    position integer NOT NULL UNIQUE,
    applied_at timestamptz NOT NULL DEFAULT now()
);
"""


@dataclass(frozen=True)
class StoreState:
    """What :func:`inspect` found.

    Attributes:
        schema_version: How many migrations the store has applied (0: not a store yet).
        store_id: The store's random id (the shippers' cursors are kept per store).
    """

    schema_version: int
    store_id: str


def _check_known(applied: list[str]) -> None:
    known = [m.name for m in MIGRATIONS]
    if applied != known[: len(applied)]:
        newer = [name for name in applied if name not in known]
        if newer:
            raise StoreSchemaError(
                f"the floor store has schema version {len(applied)} (migrations "
                f"{', '.join(newer)} unknown here); this ETG knows versions up to "
                f"{SCHEMA_VERSION}: use the newer ETG that migrated it"
            )
        raise StoreSchemaError(
            f"the floor store records the migrations {applied}, which are not a prefix of "
            f"{known}: its schema was changed by hand"
        )


def migrate(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply every pending migration, each in its own transaction that also records it.

    Run by the database's superuser (the DBA's act; ``etg floor up`` does it on a local
    floor): each migration runs as :data:`OWNER`, which nobody logs in as, so that no
    day-to-day role owns what it creates. A store made by an older ETG, whose tables the
    floor admin owned, is first given to :data:`OWNER`. Holds an advisory lock so that two
    migrators never interleave. The roles must exist (:func:`create_roles`).

    Args:
        conn: A connection in autocommit mode.

    Returns:
        The names applied now (empty if the store was up to date).

    Raises:
        StoreSchemaError: the connection's role may not act as the owner (not the
            database's superuser), the store was migrated by a newer ETG, or its schema was
            changed by hand (nothing is applied).
        psycopg.Error: a migration failed; it was rolled back and stays pending.
    """
    applied_now: list[str] = []
    for position, migration in enumerate(MIGRATIONS, start=1):
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            _adopt(conn)
            conn.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(OWNER)))
            conn.execute(_BOOTSTRAP)
            conn.execute(
                "INSERT INTO floor.meta (key, value) VALUES ('product', %s), ('store_id', %s) "
                "ON CONFLICT (key) DO NOTHING",
                (PRODUCT, secrets.token_hex(16)),
            )
            product = conn.execute("SELECT value FROM floor.meta WHERE key = 'product'").fetchone()
            if product is None or product[0] != PRODUCT:
                raise StoreSchemaError(
                    f"the schema floor of this database belongs to {product and product[0]!r}, "
                    "not to an ETG floor store"
                )
            applied = [
                str(row[0])
                for row in conn.execute("SELECT name FROM floor.migrations ORDER BY position")
            ]
            _check_known(applied)
            if migration.name in applied:
                continue
            conn.execute(migration.statements)
            conn.execute(
                "INSERT INTO floor.migrations (name, position) VALUES (%s, %s)",
                (migration.name, position),
            )
            if migration.as_superuser:
                conn.execute("RESET ROLE")
                conn.execute(migration.as_superuser)
        applied_now.append(migration.name)
    return applied_now


def _adopt(conn: psycopg.Connection[Any]) -> None:
    """Make sure the connection may act as :data:`OWNER`, and give it what the floor admin
    owned in a store made by an older ETG (the database, the schema, its tables and
    functions)."""
    allowed = conn.execute(
        "SELECT rolsuper OR pg_has_role(session_user, %s, 'MEMBER') FROM pg_roles "
        "WHERE rolname = session_user",
        (OWNER,),
    ).fetchone()
    if not allowed or not allowed[0]:
        raise StoreSchemaError(
            "the floor store's migrations are applied by the database's superuser (they run "
            f"as {OWNER}, which no day-to-day role may act as): give etg floor migrate the "
            "superuser's URL (etg floor up does it on a local floor)"
        )
    owner = conn.execute(
        "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'floor'"
    ).fetchone()
    database = conn.execute(
        "SELECT pg_get_userbyid(datdba), current_database() FROM pg_database "
        "WHERE datname = current_database()"
    ).fetchone()
    if owner is not None and owner[0] == ADMIN:
        conn.execute(
            sql.SQL("REASSIGN OWNED BY {} TO {}").format(
                sql.Identifier(ADMIN), sql.Identifier(OWNER)
            )
        )
    if database is not None and database[0] != OWNER:
        conn.execute(
            sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                sql.Identifier(database[1]), sql.Identifier(OWNER)
            )
        )


def inspect(conn: psycopg.Connection[Any]) -> StoreState:
    """The store's schema version and id, as any of the three roles reads them.

    Raises:
        StoreSchemaError: the database holds no floor store (or another product's schema
            ``floor``), or one of a newer schema version.
    """
    try:
        row = conn.execute(STORE_INFO).fetchone()
    except (
        psycopg.errors.UndefinedFunction,
        psycopg.errors.InvalidSchemaName,
        psycopg.errors.InsufficientPrivilege,
    ):
        raise StoreSchemaError(
            "the database holds no floor store this role may read (no floor.store_info() it "
            "may call): the floor's superuser creates it with etg floor up, or brings an older "
            "one up to date with etg floor migrate"
        ) from None
    finally:
        if not conn.autocommit:
            conn.rollback()
    if row is None or row[0] != PRODUCT:
        raise StoreSchemaError("the database's schema floor is not an ETG floor store")
    version = int(row[2])
    if version > SCHEMA_VERSION:
        raise StoreSchemaError(
            f"the floor store has schema version {version}; this ETG knows versions up to "
            f"{SCHEMA_VERSION}: use the newer ETG that migrated it"
        )
    if version < SCHEMA_VERSION:
        raise StoreSchemaError(
            f"the floor store has schema version {version}, this ETG needs {SCHEMA_VERSION}: "
            "the floor admin applies the pending migrations with etg floor migrate"
        )
    return StoreState(version, str(row[1]))


def create_roles(conn: psycopg.Connection[Any], passwords: Mapping[str, str]) -> list[str]:
    """Create the store's roles that do not exist yet (a superuser's connection): the login
    roles :data:`ADMIN` and :data:`INVESTIGATOR` with their passwords, and the roles nobody
    logs in as: :data:`OWNER`, the shipping group :data:`SHIPPER` (a login role of an older
    ETG loses its login: each server now ships as a role of its own) and :data:`REGISTRAR`.

    Args:
        conn: A superuser's connection in autocommit mode.
        passwords: Role name -> password, for :data:`ADMIN` and :data:`INVESTIGATOR`.

    Returns:
        The roles created now.
    """
    created = []
    attributes = {
        ADMIN: "LOGIN NOINHERIT",
        INVESTIGATOR: "LOGIN NOINHERIT",
        OWNER: "NOLOGIN NOINHERIT",
        SHIPPER: "NOLOGIN NOINHERIT",
        REGISTRAR: "NOLOGIN NOINHERIT CREATEROLE",
    }
    for role, given in attributes.items():
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        if exists:
            if role == SHIPPER:
                conn.execute(sql.SQL("ALTER ROLE {} NOLOGIN").format(sql.Identifier(role)))
            continue
        statement = sql.SQL("CREATE ROLE {} NOSUPERUSER NOCREATEDB " + given).format(
            sql.Identifier(role)
        )
        if "NOLOGIN" not in given:
            statement = sql.SQL("{} PASSWORD {}").format(statement, sql.Literal(passwords[role]))
        conn.execute(statement)
        created.append(role)
    conn.execute(
        sql.SQL("GRANT {} TO {} WITH ADMIN OPTION").format(
            sql.Identifier(SHIPPER), sql.Identifier(REGISTRAR)
        )
    )
    return created


def create_database(conn: psycopg.Connection[Any], name: str) -> bool:
    """Create the database ``name`` owned by :data:`OWNER` unless it exists (a superuser's
    connection in autocommit mode). Returns whether it was created."""
    exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
    if exists:
        return False
    conn.execute(
        sql.SQL("CREATE DATABASE {} OWNER {} ENCODING 'UTF8' TEMPLATE template0").format(
            sql.Identifier(name), sql.Identifier(OWNER)
        )
    )
    conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
    conn.execute(
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}, {}, {}").format(
            sql.Identifier(name),
            sql.Identifier(SHIPPER),
            sql.Identifier(INVESTIGATOR),
            sql.Identifier(ADMIN),
        )
    )
    return True
