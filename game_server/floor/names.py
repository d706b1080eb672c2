"""The floor store's names that its SQL and its clients share: the roles, the tables, the
SQLSTATEs of a refusal and the functions a role may call.

The schema (:mod:`game_server.floor.schema`) and each migration's SQL
(:mod:`game_server.floor.migrations`) are written with these; the store's clients read them
to grant, to refuse and to name what they found.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

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
#: SQLSTATE of a refused change (UPDATE, DELETE, TRUNCATE) and of a refused ingest.
REFUSED_CHANGE: Final = "EF001"
REFUSED_INGEST: Final = "EF002"
#: SQLSTATE of a refused meter action (an unknown meter, a changed specification, ...).
REFUSED_METER: Final = "EF003"
#: The tables of the linked meters (``0004-meters``; all append-only but ``meters``, whose
#: rows are locked FOR UPDATE by the meter functions and changed by none).
METER_TABLES: Final = ("meters", "meter_steps", "meter_awards", "meter_claims")
#: What :func:`~game_server.floor.schema.inspect` and the store's clients read: product,
#: store id, schema version.
STORE_INFO: Final = "SELECT product, store_id, schema_version FROM floor.store_info()"

#: The functions the shipping role calls instead of reading tables (it has no SELECT), by
#: name with their argument types.
READ_FUNCTIONS: Final = (
    "store_info()",
    "log_head(text)",
    "log_checkpoints(text, bigint)",
    "public_key(text)",
)

#: The meter functions a table server (the shipping role) calls, with their argument types.
METER_FUNCTIONS: Final = (
    "meter_open(text, text, bigint, bigint, integer, integer, integer)",
    "meter_contribute(text, text, bigint, text, text, bigint)",
    "meter_claim(text, text, bigint, text, integer, text[], boolean)",
    "meter_settle(text, text, bigint, text)",
    "meter_state(text)",
)
