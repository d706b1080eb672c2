"""The PostgreSQL schema of the floor store: named migrations, roles, and the ingest guards.

Entry points: :func:`migrate` (apply the pending named migrations as the floor admin, each in
its own transaction with its record in ``floor.migrations``), :func:`inspect` (which schema
version a database holds, read through :data:`STORE_INFO`) and :func:`create_roles` (the three
login roles, created by a superuser once per cluster).

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

**Roles** (:func:`create_roles`): :data:`ADMIN` owns the schema and runs the migrations and
registers the servers' keys; :data:`SHIPPER` (every table server) may only INSERT into
``logs``, ``log_states``, ``events`` and ``checkpoints`` and call the four read functions it
needs (:data:`READ_FUNCTIONS`); :data:`INVESTIGATOR` may only SELECT.

Migrations are named, applied in order, recorded by name and never re-applied, as the SQLite
log's are (:mod:`game_server.eventlog.schema`):

- ``0001-store``: ``meta``, ``migrations`` (the bootstrap) and the five tables.
- ``0002-guards``: the ingest triggers and the append-only triggers.
- ``0003-roles``: the grants, the revocations and the read functions.
- ``0004-meters``: the floor's linked progressive meters (605a.8), see below.

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

from game_server.eventlog.schema import EVENT_INDEXES
from game_server.floor.errors import StoreSchemaError

#: ``floor.meta.product`` of every floor store.
PRODUCT: Final = "etg-floor"
#: The schema every table of the store lives in.
SCHEMA: Final = "floor"
#: The role that owns the database, the schema and every table and function: nobody logs in
#: as it (a day-to-day role that owned the tables could disable their triggers and grant
#: itself UPDATE); the database's superuser applies the migrations as it.
OWNER: Final = "etg_floor_owner"
#: The role the floor admin works as: registers the servers (``floor.register_server``) and
#: reads; owns nothing.
ADMIN: Final = "etg_floor_admin"
#: The group of the table servers' shipping roles (nobody logs in as it): insert only, each
#: server only rows of its own logs (``floor.shipping_roles``).
SHIPPER: Final = "etg_shipper"
#: The role that owns ``floor.register_server``, which creates a server's shipping role
#: (CREATEROLE; nobody logs in as it).
REGISTRAR: Final = "etg_floor_registrar"
#: The role of investigators: read only.
INVESTIGATOR: Final = "etg_investigator"
#: Every shipping role is this and the server's name (lowercase letters, digits and ``_``).
SERVER_ROLE_PREFIX: Final = "etg_ship_"
#: The login roles, by the name ``etg floor url --role`` takes.
ROLES: Final[Mapping[str, str]] = {"admin": ADMIN, "investigator": INVESTIGATOR}
#: The tables of the store (all append-only).
TABLES: Final = ("meta", "migrations", "keys", "logs", "log_states", "events", "checkpoints")
#: The table ``0005-trust`` adds (append-only too): each server's key bound to its own
#: shipping role.
TRUST_TABLES: Final = ("shipping_roles",)
#: The key of the advisory lock every migration takes (two migrators never interleave).
MIGRATION_LOCK: Final = 0x4554_4746  # "ETGF"
#: SQLSTATE of a refused change (UPDATE, DELETE, TRUNCATE) and of a refused ingest.
REFUSED_CHANGE: Final = "EF001"
REFUSED_INGEST: Final = "EF002"
#: SQLSTATE of a refused meter action (an unknown meter, a changed specification, ...).
REFUSED_METER: Final = "EF003"
#: The tables of the linked meters (``0004-meters``; all append-only but ``meters``, whose
#: rows are locked FOR UPDATE by the meter functions and changed by none).
METER_TABLES: Final = ("meters", "meter_steps", "meter_awards", "meter_claims")
#: What :func:`inspect` and the store's clients read: product, store id, schema version.
STORE_INFO: Final = "SELECT product, store_id, schema_version FROM floor.store_info()"


def _refuse(message: str, *args: str) -> str:
    """A plpgsql RAISE of an ingest refusal (``%`` placeholders filled by ``args``)."""
    params = "".join(f", {arg}" for arg in args)
    text = message.replace("'", "''")
    return f"RAISE EXCEPTION 'etg-floor: {text}'{params} USING ERRCODE = '{REFUSED_INGEST}';"


_STORE: Final = f"""
CREATE TABLE floor.keys (
    key_id text PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{{16}}$'),
    public_key text NOT NULL UNIQUE CHECK (public_key ~ '^[0-9a-f]{{64}}$'),
    server text NOT NULL CHECK (server <> ''),
    registered_at timestamptz NOT NULL DEFAULT now(),
    registered_by text NOT NULL DEFAULT session_user,
    CHECK (key_id = left(encode(sha256(decode(public_key, 'hex')), 'hex'), 16))
);
CREATE TABLE floor.logs (
    log_id text PRIMARY KEY CHECK (log_id <> ''),
    key_id text NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    claimed_by text NOT NULL DEFAULT session_user
);
CREATE TABLE floor.log_states (
    log_id text NOT NULL,
    digest text NOT NULL,
    document text NOT NULL,
    shipped_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (log_id, digest),
    CHECK (digest = encode(sha256(convert_to(E'etg-eventlog/meta/v1\\n' || document, 'UTF8')),
                           'hex'))
);
CREATE TABLE floor.events (
    log_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 1),
    time text NOT NULL,
    table_id text NOT NULL,
    round_id bigint,
    terminal text,
    kind text NOT NULL,
    body text NOT NULL,
    hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{{64}}$'),
    shipped_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (log_id, seq)
);
{
    "".join(
        f"CREATE INDEX {name} ON floor.events ({', '.join(columns)});"
        for name, columns in EVENT_INDEXES.items()
    )
}
CREATE TABLE floor.checkpoints (
    log_id text NOT NULL,
    number bigint NOT NULL CHECK (number >= 1),
    seq bigint NOT NULL CHECK (seq >= 0),
    hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{{64}}$'),
    time text NOT NULL,
    reason text NOT NULL,
    key_id text NOT NULL,
    signature text NOT NULL CHECK (signature ~ '^[0-9a-f]{{128}}$'),
    meta text CHECK (meta ~ '^[0-9a-f]{{64}}$'),
    shipped_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (log_id, number)
);
CREATE INDEX checkpoints_seq ON floor.checkpoints (log_id, seq);
"""

_GENESIS: Final = "repeat('0', 64)"

_GUARDS: Final = f"""
CREATE FUNCTION floor.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'etg-floor: floor.% is append-only; % is refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = '{REFUSED_CHANGE}';
END $$;

CREATE FUNCTION floor.keys_register() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
DECLARE held floor.keys%ROWTYPE;
BEGIN
    SELECT * INTO held FROM floor.keys WHERE key_id = NEW.key_id;
    IF FOUND THEN
        IF held.public_key = NEW.public_key AND held.server = NEW.server THEN
            RETURN NULL;
        END IF;
        {_refuse("key % is already registered, to the server %", "NEW.key_id", "held.server")}
    END IF;
    NEW.registered_at := now();
    NEW.registered_by := session_user;
    RETURN NEW;
END $$;

CREATE FUNCTION floor.logs_claim() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
DECLARE held_key text;
BEGIN
    SELECT key_id INTO held_key FROM floor.logs WHERE log_id = NEW.log_id;
    IF FOUND THEN
        IF held_key = NEW.key_id THEN
            RETURN NULL;
        END IF;
        {
    _refuse(
        "a second log claims the id % (signed with key %); the store holds that log signed "
        "with key %: refused",
        "NEW.log_id",
        "NEW.key_id",
        "held_key",
    )
}
    END IF;
    IF NOT EXISTS (SELECT 1 FROM floor.keys WHERE key_id = NEW.key_id) THEN
        {
    _refuse(
        "the log-signing key % of log % is not registered with the store; the floor admin "
        "registers it with etg floor register",
        "NEW.key_id",
        "NEW.log_id",
    )
}
    END IF;
    NEW.claimed_at := now();
    NEW.claimed_by := session_user;
    RETURN NEW;
END $$;

CREATE FUNCTION floor.log_states_ingest() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM floor.log_states
               WHERE log_id = NEW.log_id AND digest = NEW.digest) THEN
        RETURN NULL;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM floor.logs WHERE log_id = NEW.log_id) THEN
        {_refuse("a meta state of log %: the log is not claimed", "NEW.log_id")}
    END IF;
    IF (NEW.document::jsonb -> 'meta' ->> 'log_id') IS DISTINCT FROM NEW.log_id THEN
        {_refuse("a meta state shipped for log % names another log id", "NEW.log_id")}
    END IF;
    NEW.shipped_at := now();
    RETURN NEW;
END $$;

CREATE FUNCTION floor.events_ingest() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
DECLARE
    held floor.events%ROWTYPE;
    prev text;
    entry text;
BEGIN
    -- Nothing the client can set (a session variable, a temporary table) is trusted here:
    -- the event before is read from the table every time.
    SELECT * INTO held FROM floor.events WHERE log_id = NEW.log_id AND seq = NEW.seq;
    IF FOUND THEN
        IF (held.time, held.table_id, held.round_id, held.terminal, held.kind, held.body,
            held.hash) IS NOT DISTINCT FROM (NEW.time, NEW.table_id, NEW.round_id,
            NEW.terminal, NEW.kind, NEW.body, NEW.hash) THEN
            RETURN NULL;
        END IF;
        {
    _refuse(
        "log % already holds a different event % (hash %): this one (hash %) is a fork or a "
        "rewrite of the log; refused",
        "NEW.log_id",
        "NEW.seq",
        "held.hash",
        "NEW.hash",
    )
}
    END IF;
    IF NEW.seq = 1 THEN
        IF NOT EXISTS (SELECT 1 FROM floor.logs WHERE log_id = NEW.log_id) THEN
            {_refuse("event 1 of log %: the log is not claimed", "NEW.log_id")}
        END IF;
        prev := {_GENESIS};
    ELSE
        SELECT hash INTO prev FROM floor.events WHERE log_id = NEW.log_id AND seq = NEW.seq - 1;
        IF NOT FOUND THEN
            {
    _refuse(
        "event % of log % arrives before event %: a gap; refused",
        "NEW.seq",
        "NEW.log_id",
        "NEW.seq - 1",
    )
}
        END IF;
    END IF;
    entry := '{{"body":' || NEW.body
        || ',"kind":' || to_json(NEW.kind)::text
        || ',"round":' || coalesce(NEW.round_id::text, 'null')
        || ',"seq":' || NEW.seq::text
        || ',"table":' || to_json(NEW.table_id)::text
        || ',"terminal":' || coalesce(to_json(NEW.terminal)::text, 'null')
        || ',"time":' || to_json(NEW.time)::text || '}}';
    IF encode(sha256(decode(prev, 'hex') || convert_to(entry, 'UTF8')), 'hex') <> NEW.hash THEN
        {
    _refuse(
        "event % of log % does not chain on event %: its content or its hash was altered; refused",
        "NEW.seq",
        "NEW.log_id",
        "NEW.seq - 1",
    )
}
    END IF;
    IF EXISTS (SELECT 1 FROM floor.checkpoints
               WHERE log_id = NEW.log_id AND seq = NEW.seq AND hash <> NEW.hash) THEN
        {
    _refuse(
        "event % of log % contradicts a checkpoint the store holds at that seq: a rewrite "
        "of the log; refused",
        "NEW.seq",
        "NEW.log_id",
    )
}
    END IF;
    NEW.shipped_at := now();
    RETURN NEW;
END $$;

CREATE FUNCTION floor.checkpoints_ingest() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
DECLARE
    held floor.checkpoints%ROWTYPE;
    log_key text;
    last_number bigint;
    last_seq bigint;
    at_hash text;
BEGIN
    SELECT key_id INTO log_key FROM floor.logs WHERE log_id = NEW.log_id;
    IF NOT FOUND THEN
        {_refuse("checkpoint % of log %: the log is not claimed", "NEW.number", "NEW.log_id")}
    END IF;
    IF NEW.key_id <> log_key THEN
        {
    _refuse(
        "checkpoint % of log % is signed with key %, but the log was claimed with key %; refused",
        "NEW.number",
        "NEW.log_id",
        "NEW.key_id",
        "log_key",
    )
}
    END IF;
    SELECT * INTO held FROM floor.checkpoints WHERE log_id = NEW.log_id AND number = NEW.number;
    IF FOUND THEN
        IF (held.seq, held.hash, held.time, held.reason, held.key_id, held.signature, held.meta)
            IS NOT DISTINCT FROM (NEW.seq, NEW.hash, NEW.time, NEW.reason, NEW.key_id,
            NEW.signature, NEW.meta) THEN
            RETURN NULL;
        END IF;
        {
    _refuse(
        "log % already holds a different checkpoint % (seq %): this one (seq %) is a rewrite "
        "of the log; refused",
        "NEW.log_id",
        "NEW.number",
        "held.seq",
        "NEW.seq",
    )
}
    END IF;
    SELECT number, seq INTO last_number, last_seq FROM floor.checkpoints
        WHERE log_id = NEW.log_id ORDER BY number DESC LIMIT 1;
    IF coalesce(last_number, 0) + 1 <> NEW.number THEN
        {
    _refuse(
        "checkpoint % of log % arrives after checkpoint %: a gap; refused",
        "NEW.number",
        "NEW.log_id",
        "coalesce(last_number, 0)",
    )
}
    END IF;
    IF NEW.seq < coalesce(last_seq, 0) THEN
        {
    _refuse(
        "checkpoint % of log % covers seq %, before the seq % of the checkpoint before it; refused",
        "NEW.number",
        "NEW.log_id",
        "NEW.seq",
        "last_seq",
    )
}
    END IF;
    IF NEW.seq = 0 THEN
        at_hash := {_GENESIS};
    ELSE
        SELECT hash INTO at_hash FROM floor.events WHERE log_id = NEW.log_id AND seq = NEW.seq;
    END IF;
    IF at_hash IS NOT NULL AND at_hash <> NEW.hash THEN
        {
    _refuse(
        "checkpoint % of log % does not match the chain the store holds at seq %; refused",
        "NEW.number",
        "NEW.log_id",
        "NEW.seq",
    )
}
    END IF;
    NEW.shipped_at := now();
    RETURN NEW;
END $$;

CREATE TRIGGER keys_register BEFORE INSERT ON floor.keys
    FOR EACH ROW EXECUTE FUNCTION floor.keys_register();
CREATE TRIGGER logs_claim BEFORE INSERT ON floor.logs
    FOR EACH ROW EXECUTE FUNCTION floor.logs_claim();
CREATE TRIGGER log_states_ingest BEFORE INSERT ON floor.log_states
    FOR EACH ROW EXECUTE FUNCTION floor.log_states_ingest();
CREATE TRIGGER events_ingest BEFORE INSERT ON floor.events
    FOR EACH ROW EXECUTE FUNCTION floor.events_ingest();
CREATE TRIGGER checkpoints_ingest BEFORE INSERT ON floor.checkpoints
    FOR EACH ROW EXECUTE FUNCTION floor.checkpoints_ingest();
{
    "".join(
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON floor.{table} "
        f"FOR EACH ROW EXECUTE FUNCTION floor.refuse_change();"
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON floor.{table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION floor.refuse_change();"
        for table in TABLES
    )
}
"""

#: The functions the shipping role calls instead of reading tables (it has no SELECT), by
#: name with their argument types.
READ_FUNCTIONS: Final = (
    "store_info()",
    "log_head(text)",
    "log_checkpoints(text, bigint)",
    "public_key(text)",
)

_ROLES: Final = f"""
CREATE FUNCTION floor.store_info()
RETURNS TABLE (product text, store_id text, schema_version integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT (SELECT value FROM floor.meta WHERE key = 'product'),
           (SELECT value FROM floor.meta WHERE key = 'store_id'),
           (SELECT count(*)::integer FROM floor.migrations)
$$;

CREATE FUNCTION floor.log_head(p_log_id text)
RETURNS TABLE (key_id text, seq bigint, hash text, checkpoint bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT l.key_id,
           coalesce(e.seq, 0),
           coalesce(e.hash, {_GENESIS}),
           coalesce((SELECT max(number) FROM floor.checkpoints c WHERE c.log_id = l.log_id), 0)
    FROM floor.logs l
    LEFT JOIN LATERAL (SELECT seq, hash FROM floor.events ev WHERE ev.log_id = l.log_id
                       ORDER BY seq DESC LIMIT 1) e ON true
    WHERE l.log_id = p_log_id
$$;

CREATE FUNCTION floor.log_checkpoints(p_log_id text, p_after bigint)
RETURNS TABLE (number bigint, seq bigint, hash text, "time" text, reason text, key_id text,
               signature text, meta text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT number, seq, hash, time, reason, key_id, signature, meta FROM floor.checkpoints
    WHERE log_id = p_log_id AND number > p_after ORDER BY number
$$;

CREATE FUNCTION floor.public_key(p_key_id text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT public_key FROM floor.keys WHERE key_id = p_key_id
$$;

REVOKE ALL ON ALL TABLES IN SCHEMA floor FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA floor FROM PUBLIC;
REVOKE UPDATE, DELETE, TRUNCATE ON {", ".join(f"floor.{t}" for t in TABLES)} FROM CURRENT_USER;
GRANT USAGE ON SCHEMA floor TO {SHIPPER}, {INVESTIGATOR};
GRANT INSERT ON floor.logs, floor.log_states, floor.events, floor.checkpoints TO {SHIPPER};
GRANT SELECT ON ALL TABLES IN SCHEMA floor TO {INVESTIGATOR};
GRANT EXECUTE ON FUNCTION {", ".join(f"floor.{f}" for f in READ_FUNCTIONS)}
    TO {SHIPPER}, {INVESTIGATOR};
"""


#: The meter functions a table server (the shipping role) calls, with their argument types.
METER_FUNCTIONS: Final = (
    "meter_open(text, text, bigint, bigint, integer, integer, integer)",
    "meter_contribute(text, text, bigint, text, text, bigint)",
    "meter_claim(text, text, bigint, text, integer, text[], boolean)",
    "meter_settle(text, text, bigint, text)",
    "meter_state(text)",
)


def _meter_refuse(message: str, *args: str) -> str:
    params = "".join(f", {arg}" for arg in args)
    return f"RAISE EXCEPTION 'etg-floor: {message}'{params} USING ERRCODE = '{REFUSED_METER}';"


_STEP_COLUMNS: Final = (
    "seq bigint, amount bigint, reserve bigint, wagered bigint, contributed bigint, "
    "reserved bigint, house_funded bigint, paid bigint, hits bigint"
)

_METERS: Final = f"""
CREATE TABLE floor.meters (
    meter_id text PRIMARY KEY CHECK (meter_id <> ''),
    name text NOT NULL,
    seed bigint NOT NULL,
    reseed bigint NOT NULL,
    increment_bp integer NOT NULL,
    secondary_bp integer NOT NULL,
    share_window_ms integer NOT NULL CHECK (share_window_ms BETWEEN 0 AND 10000),
    opened_at timestamptz NOT NULL DEFAULT now(),
    opened_by text NOT NULL DEFAULT session_user,
    CHECK (reseed >= 0 AND seed >= reseed),
    CHECK (increment_bp >= 0 AND secondary_bp >= 0 AND increment_bp + secondary_bp <= 10000)
);
CREATE TABLE floor.meter_steps (
    meter_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 1),
    kind text NOT NULL CHECK (kind IN ('opened', 'contributed', 'awarded', 'reseeded')),
    table_id text,
    round_id bigint,
    step text,
    place text,
    wager bigint,
    increment bigint,
    secondary bigint,
    kept bigint,
    award bigint,
    percent integer,
    share bigint,
    winners integer,
    from_reserve bigint,
    from_house bigint,
    amount bigint NOT NULL CHECK (amount >= 0),
    reserve bigint NOT NULL CHECK (reserve >= 0),
    wagered bigint NOT NULL,
    contributed bigint NOT NULL,
    reserved bigint NOT NULL,
    house_funded bigint NOT NULL,
    paid bigint NOT NULL,
    hits bigint NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    recorded_by text NOT NULL DEFAULT session_user,
    PRIMARY KEY (meter_id, seq),
    UNIQUE (meter_id, table_id, round_id, step),
    CHECK (contributed + reserved + house_funded = amount + reserve + 1000 * paid)
);
CREATE TABLE floor.meter_awards (
    meter_id text NOT NULL,
    award bigint NOT NULL,
    percent integer NOT NULL CHECK (percent BETWEEN 1 AND 100),
    opened_at timestamptz NOT NULL,
    closes_at timestamptz NOT NULL,
    shared boolean NOT NULL,
    PRIMARY KEY (meter_id, award)
);
CREATE TABLE floor.meter_claims (
    meter_id text NOT NULL,
    award bigint NOT NULL,
    position integer NOT NULL,
    table_id text NOT NULL,
    round_id bigint NOT NULL,
    step text NOT NULL,
    places text[] NOT NULL CHECK (cardinality(places) >= 1),
    claimed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    claimed_by text NOT NULL DEFAULT session_user,
    PRIMARY KEY (meter_id, table_id, round_id, step),
    UNIQUE (meter_id, award, position)
);
{
    "".join(
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON floor.{table} "
        f"FOR EACH ROW EXECUTE FUNCTION floor.refuse_change();"
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON floor.{table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION floor.refuse_change();"
        for table in METER_TABLES
    )
}

CREATE FUNCTION floor.meter_lock(p_meter text) RETURNS floor.meters LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE spec floor.meters%ROWTYPE;
BEGIN
    SELECT * INTO spec FROM floor.meters WHERE meter_id = p_meter FOR UPDATE;
    IF NOT FOUND THEN
        {
    _meter_refuse("the floor has no linked meter %: a table that names it opens it", "p_meter")
}
    END IF;
    RETURN spec;
END $$;

CREATE FUNCTION floor.meter_open(p_meter text, p_name text, p_seed bigint, p_reseed bigint,
                                 p_increment_bp integer, p_secondary_bp integer,
                                 p_share_window_ms integer)
RETURNS TABLE ({_STEP_COLUMNS}) LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
#variable_conflict use_column
DECLARE spec floor.meters%ROWTYPE;
BEGIN
    INSERT INTO floor.meters (meter_id, name, seed, reseed, increment_bp, secondary_bp,
                              share_window_ms)
    VALUES (p_meter, p_name, p_seed, p_reseed, p_increment_bp, p_secondary_bp,
            p_share_window_ms)
    ON CONFLICT (meter_id) DO NOTHING;
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    IF (spec.name, spec.seed, spec.reseed, spec.increment_bp, spec.secondary_bp,
        spec.share_window_ms) IS DISTINCT FROM (p_name, p_seed, p_reseed, p_increment_bp,
        p_secondary_bp, p_share_window_ms) THEN
        {
    _meter_refuse(
        "the linked meter % is open on the floor as %, seed % reseed % cents, increment % bp, "
        "secondary % bp, share window % ms; a table cannot link to it with another "
        "specification: give it another id or the same specification",
        "p_meter",
        "spec.name",
        "spec.seed",
        "spec.reseed",
        "spec.increment_bp",
        "spec.secondary_bp",
        "spec.share_window_ms",
    )
}
    END IF;
    IF NOT EXISTS (SELECT 1 FROM floor.meter_steps s WHERE s.meter_id = p_meter) THEN
        INSERT INTO floor.meter_steps (meter_id, seq, kind, amount, reserve, wagered,
            contributed, reserved, house_funded, paid, hits)
        VALUES (p_meter, 1, 'opened', p_seed * 1000, 0, 0, 0, 0, p_seed * 1000, 0, 0);
    END IF;
    RETURN QUERY SELECT * FROM floor.meter_state_of(p_meter);
END $$;

CREATE FUNCTION floor.meter_state_of(p_meter text) RETURNS TABLE ({_STEP_COLUMNS})
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT seq, amount, reserve, wagered, contributed, reserved, house_funded, paid, hits
    FROM floor.meter_steps WHERE meter_id = p_meter ORDER BY seq DESC LIMIT 1
$$;

CREATE FUNCTION floor.meter_state(p_meter text)
RETURNS TABLE (name text, seed bigint, reseed bigint, increment_bp integer,
               secondary_bp integer, share_window_ms integer, {_STEP_COLUMNS})
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT m.name, m.seed, m.reseed, m.increment_bp, m.secondary_bp, m.share_window_ms,
           s.seq, s.amount, s.reserve, s.wagered, s.contributed, s.reserved, s.house_funded,
           s.paid, s.hits
    FROM floor.meters m, floor.meter_state_of(m.meter_id) s WHERE m.meter_id = p_meter
$$;

CREATE FUNCTION floor.meter_contribute(p_meter text, p_table text, p_round bigint,
                                       p_step text, p_place text, p_wager bigint)
RETURNS TABLE (seq bigint, increment bigint, secondary bigint, kept bigint, amount bigint,
               reserve bigint, again boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE
    spec floor.meters%ROWTYPE;
    held floor.meter_steps%ROWTYPE;
    now_ floor.meter_steps%ROWTYPE;
    inc bigint;
    sec bigint;
BEGIN
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    SELECT * INTO held FROM floor.meter_steps s
        WHERE s.meter_id = p_meter AND s.table_id = p_table AND s.round_id = p_round
          AND s.step = p_step;
    IF FOUND THEN
        IF held.kind <> 'contributed' OR held.place IS DISTINCT FROM p_place
           OR held.wager <> p_wager THEN
            {
    _meter_refuse(
        "meter %: step % of round % of table % was already recorded as another change; refused",
        "p_meter",
        "p_step",
        "p_round",
        "p_table",
    )
}
        END IF;
        RETURN QUERY SELECT held.seq, held.increment, held.secondary, held.kept, held.amount,
                            held.reserve, true;
        RETURN;
    END IF;
    IF p_wager IS NULL OR p_wager <= 0 THEN
        {_meter_refuse("meter %: a contribution needs a wager of at least 1 cent", "p_meter")}
    END IF;
    SELECT * INTO now_ FROM floor.meter_steps s WHERE s.meter_id = p_meter
        ORDER BY s.seq DESC LIMIT 1;
    inc := p_wager * spec.increment_bp / 10;
    sec := p_wager * spec.secondary_bp / 10;
    INSERT INTO floor.meter_steps (meter_id, seq, kind, table_id, round_id, step, place, wager,
        increment, secondary, kept, amount, reserve, wagered, contributed, reserved,
        house_funded, paid, hits)
    VALUES (p_meter, now_.seq + 1, 'contributed', p_table, p_round, p_step, p_place, p_wager,
        inc, sec, p_wager * 1000 - inc - sec, now_.amount + inc, now_.reserve + sec,
        now_.wagered + p_wager, now_.contributed + inc, now_.reserved + sec,
        now_.house_funded, now_.paid, now_.hits);
    RETURN QUERY SELECT now_.seq + 1, inc, sec, p_wager * 1000 - inc - sec, now_.amount + inc,
                        now_.reserve + sec, false;
END $$;

CREATE FUNCTION floor.meter_claim(p_meter text, p_table text, p_round bigint, p_step text,
                                  p_percent integer, p_places text[], p_shared boolean)
RETURNS TABLE (award bigint, wait_ms integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE
    spec floor.meters%ROWTYPE;
    held floor.meter_claims%ROWTYPE;
    open_ floor.meter_awards%ROWTYPE;
    at timestamptz := clock_timestamp();
BEGIN
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    IF p_percent IS NULL OR p_percent NOT BETWEEN 1 AND 100 THEN
        {_meter_refuse("meter %: a share of the meter must be 1..100 percent", "p_meter")}
    END IF;
    SELECT * INTO held FROM floor.meter_claims c
        WHERE c.meter_id = p_meter AND c.table_id = p_table AND c.round_id = p_round
          AND c.step = p_step;
    IF FOUND THEN
        SELECT * INTO open_ FROM floor.meter_awards a
            WHERE a.meter_id = p_meter AND a.award = held.award;
    ELSE
        SELECT * INTO open_ FROM floor.meter_awards a
            WHERE p_shared AND a.shared AND a.meter_id = p_meter AND a.percent = p_percent
              AND a.closes_at > at
              AND NOT EXISTS (SELECT 1 FROM floor.meter_steps s WHERE s.meter_id = p_meter
                              AND s.kind = 'awarded' AND s.award = a.award)
            ORDER BY a.award DESC LIMIT 1;
        IF NOT FOUND THEN
            open_.award := coalesce((SELECT max(a.award) FROM floor.meter_awards a
                                     WHERE a.meter_id = p_meter), 0) + 1;
            open_.closes_at := CASE WHEN p_shared
                THEN at + make_interval(secs => spec.share_window_ms / 1000.0) ELSE at END;
            INSERT INTO floor.meter_awards (meter_id, award, percent, opened_at, closes_at,
                                            shared)
            VALUES (p_meter, open_.award, p_percent, at, open_.closes_at, p_shared IS TRUE);
        END IF;
        INSERT INTO floor.meter_claims (meter_id, award, position, table_id, round_id, step,
                                        places)
        VALUES (p_meter, open_.award,
                coalesce((SELECT max(c.position) FROM floor.meter_claims c
                          WHERE c.meter_id = p_meter AND c.award = open_.award), 0) + 1,
                p_table, p_round, p_step, p_places);
    END IF;
    RETURN QUERY SELECT open_.award,
        greatest(0, ceil(extract(epoch FROM open_.closes_at - at) * 1000))::integer;
END $$;

CREATE FUNCTION floor.meter_settle(p_meter text, p_table text, p_round bigint, p_step text)
RETURNS TABLE (seq bigint, award bigint, percent integer, share bigint, winners integer,
               places text[], amount bigint, reserve bigint, again boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE
    spec floor.meters%ROWTYPE;
    claim floor.meter_claims%ROWTYPE;
    grp floor.meter_awards%ROWTYPE;
    paid_ floor.meter_steps%ROWTYPE;
    now_ floor.meter_steps%ROWTYPE;
    n integer;
    each_ bigint;
    need bigint;
    from_r bigint;
BEGIN
    SELECT * INTO claim FROM floor.meter_claims c
        WHERE c.meter_id = p_meter AND c.table_id = p_table AND c.round_id = p_round
          AND c.step = p_step;
    IF NOT FOUND THEN
        {
    _meter_refuse(
        "meter %: no claim of step % of round % of table % to settle",
        "p_meter",
        "p_step",
        "p_round",
        "p_table",
    )
}
    END IF;
    SELECT * INTO grp FROM floor.meter_awards a
        WHERE a.meter_id = p_meter AND a.award = claim.award;
    IF grp.closes_at > clock_timestamp() THEN
        PERFORM pg_sleep(extract(epoch FROM grp.closes_at - clock_timestamp()));
    END IF;
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    SELECT * INTO paid_ FROM floor.meter_steps s
        WHERE s.meter_id = p_meter AND s.kind = 'awarded' AND s.award = claim.award;
    IF FOUND THEN
        RETURN QUERY SELECT paid_.seq, paid_.award, paid_.percent, paid_.share, paid_.winners,
                            claim.places, paid_.amount, paid_.reserve, true;
        RETURN;
    END IF;
    SELECT sum(cardinality(c.places))::integer INTO n FROM floor.meter_claims c
        WHERE c.meter_id = p_meter AND c.award = claim.award;
    SELECT * INTO now_ FROM floor.meter_steps s WHERE s.meter_id = p_meter
        ORDER BY s.seq DESC LIMIT 1;
    each_ := now_.amount * grp.percent / (100 * 1000 * n);
    INSERT INTO floor.meter_steps (meter_id, seq, kind, award, percent, share, winners, amount,
        reserve, wagered, contributed, reserved, house_funded, paid, hits)
    VALUES (p_meter, now_.seq + 1, 'awarded', claim.award, grp.percent, each_, n,
        now_.amount - each_ * n * 1000, now_.reserve, now_.wagered, now_.contributed,
        now_.reserved, now_.house_funded, now_.paid + each_ * n, now_.hits + 1)
    RETURNING * INTO paid_;
    need := spec.reseed * 1000 - paid_.amount;
    IF need > 0 THEN
        from_r := least(need, paid_.reserve);
        INSERT INTO floor.meter_steps (meter_id, seq, kind, award, from_reserve, from_house,
            amount, reserve, wagered, contributed, reserved, house_funded, paid, hits)
        VALUES (p_meter, paid_.seq + 1, 'reseeded', claim.award, from_r, need - from_r,
            paid_.amount + need, paid_.reserve - from_r, paid_.wagered, paid_.contributed,
            paid_.reserved, paid_.house_funded + need - from_r, paid_.paid, paid_.hits);
    END IF;
    RETURN QUERY SELECT paid_.seq, paid_.award, paid_.percent, paid_.share, paid_.winners,
                        claim.places, paid_.amount, paid_.reserve, false;
END $$;

REVOKE ALL ON {", ".join(f"floor.{t}" for t in METER_TABLES)} FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA floor FROM PUBLIC;
REVOKE UPDATE, DELETE, TRUNCATE ON floor.meter_steps, floor.meter_awards, floor.meter_claims
    FROM CURRENT_USER;
REVOKE DELETE, TRUNCATE ON floor.meters FROM CURRENT_USER;
GRANT SELECT ON {", ".join(f"floor.{t}" for t in METER_TABLES)} TO {INVESTIGATOR};
GRANT EXECUTE ON FUNCTION {", ".join(f"floor.{f}" for f in METER_FUNCTIONS)} TO {SHIPPER};
GRANT EXECUTE ON FUNCTION floor.meter_state(text) TO {INVESTIGATOR};
GRANT EXECUTE ON FUNCTION {", ".join(f"floor.{f}" for f in READ_FUNCTIONS)}
    TO {SHIPPER}, {INVESTIGATOR};
"""


def _bound(function: str, check: str) -> str:
    """``function``'s definition of ``0002-guards`` redefined with ``check`` first (a
    ``CREATE OR REPLACE`` of the same function, for ``0005-trust``)."""
    start = _GUARDS.index(f"CREATE FUNCTION floor.{function}()")
    end = _GUARDS.index("END $$;", start) + len("END $$;")
    text = _GUARDS[start:end].replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
    begin = text.index("\nBEGIN\n") + len("\nBEGIN\n")
    return text[:begin] + check + text[begin:]


def _ships_own(what: str, log: str) -> str:
    """The check that the connection's login role is the shipping role of the key that
    ``log`` was claimed with (a table server ships only its own logs)."""
    return f"""    IF NOT floor.ships(session_user, {log}) THEN
        {
        _refuse(
            f"{what} of log %: that log is not this server's (its key is bound to another "
            "shipping role, or to none); role % ships only the logs of its own key; refused",
            log,
            "session_user",
        )
    }
    END IF;
"""


#: ``logs_claim``'s check in ``0005-trust``: a log is claimed only with the key bound to the
#: connection's own login role.
_CLAIM_CHECK: Final = f"""    IF NOT EXISTS (SELECT 1 FROM floor.keys
                   WHERE key_id = NEW.key_id) THEN
        {
    _refuse(
        "the log-signing key % of log % is not registered with the store; the floor admin "
        "registers the server with etg floor register",
        "NEW.key_id",
        "NEW.log_id",
    )
}
    END IF;
    IF NOT EXISTS (SELECT 1 FROM floor.shipping_roles
                   WHERE key_id = NEW.key_id AND role = session_user) THEN
        {
    _refuse(
        "log % is claimed with key %, which is not bound to this connection's role "
        "%: a server claims logs only with its own key; refused",
        "NEW.log_id",
        "NEW.key_id",
        "session_user",
    )
}
    END IF;
"""

_TRUST: Final = f"""
CREATE TABLE floor.shipping_roles (
    key_id text PRIMARY KEY,
    role text NOT NULL UNIQUE CHECK (role ~ '^{SERVER_ROLE_PREFIX}[a-z0-9_]{{1,54}}$'),
    bound_at timestamptz NOT NULL DEFAULT now(),
    bound_by text NOT NULL DEFAULT session_user
);

CREATE FUNCTION floor.shipping_roles_bind() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
DECLARE held floor.shipping_roles%ROWTYPE;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM floor.keys WHERE key_id = NEW.key_id) THEN
        {_refuse("key % is not registered; it cannot be bound to a shipping role", "NEW.key_id")}
    END IF;
    SELECT * INTO held FROM floor.shipping_roles WHERE key_id = NEW.key_id OR role = NEW.role;
    IF FOUND THEN
        IF held.key_id = NEW.key_id AND held.role = NEW.role THEN
            RETURN NULL;
        END IF;
        {
    _refuse(
        "key % is already bound to the shipping role % (or role % to another key); refused",
        "held.key_id",
        "held.role",
        "NEW.role",
    )
}
    END IF;
    NEW.bound_at := now();
    NEW.bound_by := session_user;
    RETURN NEW;
END $$;
CREATE TRIGGER shipping_roles_bind BEFORE INSERT ON floor.shipping_roles
    FOR EACH ROW EXECUTE FUNCTION floor.shipping_roles_bind();
CREATE TRIGGER shipping_roles_no_change BEFORE UPDATE OR DELETE ON floor.shipping_roles
    FOR EACH ROW EXECUTE FUNCTION floor.refuse_change();
CREATE TRIGGER shipping_roles_no_truncate BEFORE TRUNCATE ON floor.shipping_roles
    FOR EACH STATEMENT EXECUTE FUNCTION floor.refuse_change();

-- Whether the login role p_role is the shipping role bound to the key of log p_log.
CREATE FUNCTION floor.ships(p_role text, p_log text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM floor.logs l JOIN floor.shipping_roles r USING (key_id)
                   WHERE l.log_id = p_log AND r.role = p_role)
$$;

{_bound("logs_claim", _CLAIM_CHECK)}
{_bound("log_states_ingest", _ships_own("a meta state", "NEW.log_id"))}
{_bound("events_ingest", _ships_own("event", "NEW.log_id"))}
{_bound("checkpoints_ingest", _ships_own("checkpoint", "NEW.log_id"))}

-- The floor admin registers a server: its key, and its own shipping role (a login role,
-- member of the shipping group, with the password the admin gives). Owned by the registrar
-- (CREATEROLE, nobody logs in as it); it creates no other kind of role.
CREATE FUNCTION floor.register_server(p_server text, p_public_key text, p_password text)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_temp AS $$
DECLARE
    v_role text := '{SERVER_ROLE_PREFIX}' || trim(both '_' from
        lower(regexp_replace(p_server, '[^A-Za-z0-9]+', '_', 'g')));
    v_key text := left(encode(sha256(decode(p_public_key, 'hex')), 'hex'), 16);
BEGIN
    IF v_role !~ '^{SERVER_ROLE_PREFIX}[a-z0-9_]{{1,54}}$' THEN
        {
    _refuse(
        "the server name % does not make a role name (letters and digits, at most 54)",
        "p_server",
    )
}
    END IF;
    IF p_password IS NULL OR length(p_password) < 16 THEN
        {
    _refuse(
        "a shipping role's password has at least 16 characters",
    )
}
    END IF;
    INSERT INTO floor.keys (key_id, public_key, server) VALUES (v_key, p_public_key, p_server);
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = v_role) THEN
        IF NOT pg_has_role(v_role, '{SHIPPER}', 'MEMBER') THEN
            {_refuse("the role % exists and is no shipping role; refused", "v_role")}
        END IF;
        EXECUTE format('ALTER ROLE %I PASSWORD %L', v_role, p_password);
    ELSE
        EXECUTE format(
            'CREATE ROLE %I LOGIN INHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD %L '
            'IN ROLE {SHIPPER}', v_role, p_password);
    END IF;
    INSERT INTO floor.shipping_roles (key_id, role) VALUES (v_key, v_role);
    RETURN v_role;
END $$;

REVOKE ALL ON FUNCTION floor.register_server(text, text, text), floor.ships(text, text)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION floor.register_server(text, text, text) TO {ADMIN};
GRANT USAGE ON SCHEMA floor TO {ADMIN}, {REGISTRAR};
GRANT SELECT ON ALL TABLES IN SCHEMA floor TO {ADMIN}, {INVESTIGATOR};
GRANT SELECT, INSERT ON floor.keys, floor.shipping_roles TO {REGISTRAR};
GRANT EXECUTE ON FUNCTION floor.meter_state(text) TO {ADMIN};
GRANT EXECUTE ON FUNCTION {", ".join(f"floor.{f}" for f in READ_FUNCTIONS)} TO {ADMIN};
REVOKE INSERT ON floor.keys FROM {ADMIN};
"""

#: What ``0005-trust`` runs as the database's superuser once its statements ran as the owner.
_TRUST_AS_SUPERUSER: Final = f"""
ALTER FUNCTION floor.register_server(text, text, text) OWNER TO {REGISTRAR};
"""


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
    Migration("0001-store", _STORE),
    Migration("0002-guards", _GUARDS),
    Migration("0003-roles", _ROLES),
    Migration("0004-meters", _METERS),
    Migration("0005-trust", _TRUST, _TRUST_AS_SUPERUSER),
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
