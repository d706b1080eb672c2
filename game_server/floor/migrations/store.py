"""``0001-store``: the store's tables (``keys``, ``logs``, ``log_states``, ``events``,
``checkpoints``) and their indexes; ``meta`` and ``migrations`` are the bootstrap's
(:mod:`game_server.floor.schema`). Never edit: the store records a migration by name.
"""

from __future__ import annotations

from typing import Final

from game_server.eventlog.schema import EVENT_INDEXES

#: The SQL of ``0001-store``.
STATEMENTS: Final = f"""
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
