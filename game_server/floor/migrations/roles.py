"""``0003-roles``: the read functions the shipping role calls instead of reading tables, the
grants and the revocations (no role may UPDATE, DELETE or TRUNCATE). Never edit: the store
records a migration by name.
"""

from __future__ import annotations

from typing import Final

from game_server.floor.migrations.plpgsql import GENESIS
from game_server.floor.names import INVESTIGATOR, READ_FUNCTIONS, SHIPPER, TABLES

#: The SQL of ``0003-roles``.
STATEMENTS: Final = f"""
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
           coalesce(e.hash, {GENESIS}),
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
