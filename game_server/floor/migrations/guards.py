"""``0002-guards``: the ingest triggers (a key registered once, a log claimed once, every
event chained on the one before, every checkpoint in order and on the chain) and the
append-only triggers of every table (:mod:`game_server.floor.schema` says what each checks).
Never edit: the store records a migration by name; ``0005-trust`` redefines four of these
functions from this text.
"""

from __future__ import annotations

from typing import Final

from game_server.floor.migrations.plpgsql import GENESIS, refuse
from game_server.floor.names import REFUSED_CHANGE, TABLES

#: The SQL of ``0002-guards``.
STATEMENTS: Final = f"""
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
        {refuse("key % is already registered, to the server %", "NEW.key_id", "held.server")}
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
    refuse(
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
    refuse(
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
        {refuse("a meta state of log %: the log is not claimed", "NEW.log_id")}
    END IF;
    IF (NEW.document::jsonb -> 'meta' ->> 'log_id') IS DISTINCT FROM NEW.log_id THEN
        {refuse("a meta state shipped for log % names another log id", "NEW.log_id")}
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
    refuse(
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
            {refuse("event 1 of log %: the log is not claimed", "NEW.log_id")}
        END IF;
        prev := {GENESIS};
    ELSE
        SELECT hash INTO prev FROM floor.events WHERE log_id = NEW.log_id AND seq = NEW.seq - 1;
        IF NOT FOUND THEN
            {
    refuse(
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
    refuse(
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
    refuse(
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
        {refuse("checkpoint % of log %: the log is not claimed", "NEW.number", "NEW.log_id")}
    END IF;
    IF NEW.key_id <> log_key THEN
        {
    refuse(
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
    refuse(
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
    refuse(
        "checkpoint % of log % arrives after checkpoint %: a gap; refused",
        "NEW.number",
        "NEW.log_id",
        "coalesce(last_number, 0)",
    )
}
    END IF;
    IF NEW.seq < coalesce(last_seq, 0) THEN
        {
    refuse(
        "checkpoint % of log % covers seq %, before the seq % of the checkpoint before it; refused",
        "NEW.number",
        "NEW.log_id",
        "NEW.seq",
        "last_seq",
    )
}
    END IF;
    IF NEW.seq = 0 THEN
        at_hash := {GENESIS};
    ELSE
        SELECT hash INTO at_hash FROM floor.events WHERE log_id = NEW.log_id AND seq = NEW.seq;
    END IF;
    IF at_hash IS NOT NULL AND at_hash <> NEW.hash THEN
        {
    refuse(
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
