"""``0005-trust``: each server ships as a role of its own, bound to its log-signing key
(``floor.shipping_roles``, ``floor.register_server``), and the ingest functions of
``0002-guards`` redefined to take from a role only the rows of its own logs. Never edit: the
store records a migration by name.
"""

from __future__ import annotations

from typing import Final

from game_server.floor.migrations import guards
from game_server.floor.migrations.plpgsql import refuse
from game_server.floor.names import (
    ADMIN,
    INVESTIGATOR,
    READ_FUNCTIONS,
    REGISTRAR,
    SERVER_ROLE_PREFIX,
    SHIPPER,
)


def _bound(function: str, check: str) -> str:
    """``function``'s definition of ``0002-guards`` redefined with ``check`` first (a
    ``CREATE OR REPLACE`` of the same function, for ``0005-trust``)."""
    start = guards.STATEMENTS.index(f"CREATE FUNCTION floor.{function}()")
    end = guards.STATEMENTS.index("END $$;", start) + len("END $$;")
    text = guards.STATEMENTS[start:end].replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
    begin = text.index("\nBEGIN\n") + len("\nBEGIN\n")
    return text[:begin] + check + text[begin:]


def _ships_own(what: str, log: str) -> str:
    """The check that the connection's login role is the shipping role of the key that
    ``log`` was claimed with (a table server ships only its own logs)."""
    return f"""    IF NOT floor.ships(session_user, {log}) THEN
        {
        refuse(
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
    refuse(
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
    refuse(
        "log % is claimed with key %, which is not bound to this connection's role "
        "%: a server claims logs only with its own key; refused",
        "NEW.log_id",
        "NEW.key_id",
        "session_user",
    )
}
    END IF;
"""

STATEMENTS: Final = f"""
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
        {refuse("key % is not registered; it cannot be bound to a shipping role", "NEW.key_id")}
    END IF;
    SELECT * INTO held FROM floor.shipping_roles WHERE key_id = NEW.key_id OR role = NEW.role;
    IF FOUND THEN
        IF held.key_id = NEW.key_id AND held.role = NEW.role THEN
            RETURN NULL;
        END IF;
        {
    refuse(
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
    refuse(
        "the server name % does not make a role name (letters and digits, at most 54)",
        "p_server",
    )
}
    END IF;
    IF p_password IS NULL OR length(p_password) < 16 THEN
        {
    refuse(
        "a shipping role's password has at least 16 characters",
    )
}
    END IF;
    INSERT INTO floor.keys (key_id, public_key, server) VALUES (v_key, p_public_key, p_server);
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = v_role) THEN
        IF NOT pg_has_role(v_role, '{SHIPPER}', 'MEMBER') THEN
            {refuse("the role % exists and is no shipping role; refused", "v_role")}
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
AS_SUPERUSER: Final = f"""
ALTER FUNCTION floor.register_server(text, text, text) OWNER TO {REGISTRAR};
"""
