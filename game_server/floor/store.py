"""A client of the floor store: register keys, claim logs, ingest events and checkpoints,
read a log's head and its checkpoints back.

Entry point: :meth:`FloorStore.connect` (a PostgreSQL URL such as
``postgresql://etg_ship_bj_01@floor-db:5432/etg_floor``; a password left out of the URL is
taken from ``PGPASSWORD`` or ``~/.pgpass`` as libpq does). One connection, used from one
thread; each :meth:`FloorStore.ingest` is one transaction.

What ingest checks, and where (the schema is :mod:`game_server.floor.schema`):

- here, before anything is sent: every event body is canonical JSON whose ``kind`` is the
  kind column, every checkpoint belongs to the log and its Ed25519 signature verifies (v1 or
  v2 message, :func:`game_server.eventlog.chain.message_of`) with the public key the floor
  admin registered for its key id;
- in PostgreSQL, by trigger, whoever inserts: order (no gap), the hash chain, forks and
  rewrites, checkpoint numbers and their agreement with the chain, the log's claimed key.

Errors: :class:`~game_server.floor.errors.StoreUnavailable` (cannot reach the store, or the
connection broke: retry later) and :class:`~game_server.floor.errors.StoreRefused` (the store
will never take these rows: an operator must look).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

import psycopg
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from psycopg.conninfo import conninfo_to_dict

from game_server.eventlog.canonical import body_kind
from game_server.eventlog.chain import message_of, meta_digest
from game_server.eventlog.records import Checkpoint, EventRow
from game_server.floor.errors import StoreRefused, StoreSchemaError, StoreUnavailable
from game_server.floor.names import REFUSED_CHANGE, REFUSED_INGEST
from game_server.floor.schema import inspect
from shared.codec import canonical_json

#: Seconds to wait for the store to answer a connection attempt.
CONNECT_TIMEOUT: Final = 5
#: Milliseconds a statement may run in the store before the store cancels it.
STATEMENT_TIMEOUT_MS: Final = 60_000
#: Milliseconds sent data may stay unacknowledged before the connection is dropped (a store
#: host that vanished is noticed in this time, not after the kernel's 15 minutes).
TCP_USER_TIMEOUT_MS: Final = 30_000

#: Events go in by COPY (the row triggers check each one as an INSERT would, at half the
#: cost of one INSERT statement per event).
_COPY_EVENTS: Final = (
    "COPY floor.events (log_id, seq, time, table_id, round_id, terminal, kind, body, hash)"
    " FROM STDIN"
)
_INSERT_CHECKPOINT: Final = (
    "INSERT INTO floor.checkpoints (log_id, number, seq, hash, time, reason, key_id, signature,"
    " meta) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def check_url(url: str) -> str:
    """``url`` if it is a PostgreSQL URL (or libpq ``key=value`` string) that names a
    database; else a sentence naming what is wrong.

    Raises:
        StoreUnavailable: it cannot be parsed, or names no database.
    """
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        # Not echoed: a mistyped URL may hold a password.
        raise StoreUnavailable(
            "the store URL is not a PostgreSQL URL (libpq cannot read it); e.g. "
            "postgresql://etg_ship_bj_01@floor-db:5432/etg_floor"
        ) from None
    if not parts.get("dbname"):
        raise StoreUnavailable(
            f"the store URL {redacted(url)} names no database; e.g. "
            "postgresql://etg_ship_bj_01@floor-db:5432/etg_floor"
        )
    port = str(parts.get("port", "5432"))
    if not port.isdigit():
        raise StoreUnavailable(f"the store URL {redacted(url)} has the port {port!r}")
    return url


def redacted(url: str) -> str:
    """``url`` without its password, for log lines and meters
    (``postgresql://etg_ship_bj_01@127.0.0.1:5432/etg_floor``)."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<a store URL that libpq cannot read>"
    user = parts.get("user")
    host = parts.get("host", "")
    port = parts.get("port")
    where = f"{host}:{port}" if port else str(host)
    return f"postgresql://{f'{user}@' if user else ''}{where}/{parts.get('dbname', '')}"


def server_url(admin_url: str, role: str, password: str) -> str:
    """The URL a registered server ships with: ``admin_url``'s host, port and database, its
    own shipping ``role`` and ``password``."""
    parts = conninfo_to_dict(check_url(admin_url))
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    secret = quote(password, safe="")
    return f"postgresql://{quote(role, safe='')}:{secret}@{host}{port}/{parts['dbname']}"


def _sentence(exc: psycopg.Error) -> str:
    """The store's own sentence of an error, without the ``etg-floor:`` prefix."""
    diag = getattr(exc, "diag", None)
    text = (diag.message_primary if diag is not None else None) or str(exc)
    return text.removeprefix("etg-floor: ").strip()


@dataclass(frozen=True)
class StoreHead:
    """Where the store's copy of one log ends.

    Attributes:
        key_id: The key the log was claimed with.
        seq: The last event stored (0: none).
        hash: The chain hash at ``seq``.
        checkpoint: The number of the last checkpoint stored (0: none).
    """

    key_id: str
    seq: int
    hash: str
    checkpoint: int


class FloorStore:
    """One connection to the floor store (not thread-safe: one thread uses it).

    Attributes:
        url: The URL without its password.
        store_id: The store's random id.
    """

    def __init__(self, conn: psycopg.Connection[Any], url: str, store_id: str) -> None:
        """Wrap an open connection whose store was inspected; use :meth:`connect`."""
        self._conn = conn
        self.url = url
        self.store_id = store_id
        self._keys: dict[str, Ed25519PublicKey] = {}

    @classmethod
    def connect(cls, url: str, *, timeout: float = CONNECT_TIMEOUT) -> FloorStore:
        """Connect to the store at ``url`` and check it is a floor store of this schema.

        Raises:
            StoreUnavailable: it cannot be reached, or refuses the login.
            StoreSchemaError: it is no floor store, or of another schema version.
        """
        shown = redacted(check_url(url))
        try:
            conn = psycopg.connect(
                url,
                connect_timeout=max(1, round(timeout)),
                autocommit=True,
                application_name="etg",
                keepalives=1,
                keepalives_idle=10,
                keepalives_interval=5,
                keepalives_count=3,
                tcp_user_timeout=TCP_USER_TIMEOUT_MS,
                options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
            )
        except psycopg.ProgrammingError as exc:
            raise StoreUnavailable(f"{shown} is not a usable PostgreSQL URL: {exc}") from None
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreUnavailable(f"cannot connect to the floor store {shown}: {first}") from None
        try:
            state = inspect(conn)
        except StoreSchemaError as exc:
            conn.close()
            raise StoreSchemaError(f"{shown}: {exc}") from None
        except psycopg.Error as exc:
            conn.close()
            raise StoreUnavailable(f"the floor store {shown} failed: {_sentence(exc)}") from None
        return cls(conn, shown, state.store_id)

    def close(self) -> None:
        """Close the connection; idempotent."""
        self._conn.close()

    @property
    def broken(self) -> bool:
        """Whether the connection is closed or broken (connect again)."""
        return self._conn.closed or self._conn.broken

    @contextmanager
    def _transaction(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """One transaction; psycopg's errors become the store's."""
        try:
            with self._conn.transaction():
                yield self._conn
        except psycopg.OperationalError as exc:  # a lost connection, a timeout
            raise StoreUnavailable(
                f"the floor store {self.url} failed while {what}: {_sentence(exc)}"
            ) from None
        except psycopg.Error as exc:
            if self.broken:
                raise StoreUnavailable(
                    f"the floor store {self.url} went away while {what}: {_sentence(exc)}"
                ) from None
            if exc.sqlstate in (REFUSED_INGEST, REFUSED_CHANGE):
                raise StoreRefused(_sentence(exc)) from None
            raise StoreRefused(f"the floor store refused {what}: {_sentence(exc)}") from None

    @contextmanager
    def snapshot(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """One read-only transaction that sees the store as of its first statement
        (``REPEATABLE READ``: every query in it reads the same snapshot, so rows written
        meanwhile by the table servers do not appear half)."""
        with self._transaction(what) as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield conn

    def register_server(self, public_key: Ed25519PublicKey, server: str, password: str) -> str:
        """Register a table server (the floor admin's role): its log-signing public key, and
        its own shipping role, a login role of the shipping group with ``password``, bound to
        that key (``floor.register_server``): the server ships as that role, and the store
        takes from it only rows of logs claimed with that key.

        Idempotent for the same key and server name (the password is set again).

        Returns:
            The shipping role's name (``etg_ship_<server>``).

        Raises:
            StoreRefused: the key is registered to another server name or bound to another
                role, the name makes no role name, or this role may not register servers.
        """
        if not server.strip():
            raise StoreRefused("name the server the key belongs to")
        raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
        with self._transaction(f"registering the server {server.strip()}") as conn:
            row = conn.execute(
                "SELECT floor.register_server(%s, %s, %s)", (server.strip(), raw, password)
            ).fetchone()
        assert row is not None
        return str(row[0])

    def public_key(self, key_id: str) -> Ed25519PublicKey | None:
        """The registered public key of ``key_id``, or None."""
        if key_id not in self._keys:
            with self._transaction("reading a registered key") as conn:
                row = conn.execute("SELECT floor.public_key(%s)", (key_id,)).fetchone()
            if row is None or row[0] is None:
                return None
            self._keys[key_id] = Ed25519PublicKey.from_public_bytes(bytes.fromhex(row[0]))
        return self._keys[key_id]

    def claim(self, log_id: str, key_id: str) -> None:
        """Claim ``log_id`` for the key ``key_id`` (idempotent for the same key).

        Raises:
            StoreRefused: the key is not registered, or the id is claimed with another key.
        """
        with self._transaction(f"claiming log {log_id}") as conn:
            conn.execute(
                "INSERT INTO floor.logs (log_id, key_id) VALUES (%s, %s)", (log_id, key_id)
            )

    def ship_state(
        self, log_id: str, meta: Mapping[str, str], migrations: Sequence[tuple[str, str]]
    ) -> str:
        """Keep the log's ``meta`` and ``migrations`` tables as they are now (what a v2
        checkpoint signs the digest of), idempotently.

        Returns:
            Their digest (:func:`~game_server.eventlog.chain.meta_digest`).

        Raises:
            StoreRefused: ``meta`` names another log.
        """
        if meta.get("log_id") != log_id:
            raise StoreRefused(f"the meta table shipped for log {log_id} names another log id")
        document = {"meta": dict(meta), "migrations": [[name, at] for name, at in migrations]}
        digest = meta_digest(meta, migrations)
        with self._transaction(f"shipping the meta of log {log_id}") as conn:
            conn.execute(
                "INSERT INTO floor.log_states (log_id, digest, document) VALUES (%s, %s, %s)",
                (log_id, digest, canonical_json(document).decode("utf-8")),
            )
        return digest

    def head(self, log_id: str) -> StoreHead | None:
        """Where the store's copy of ``log_id`` ends; None if the log was never claimed."""
        with self._transaction(f"reading the head of log {log_id}") as conn:
            row = conn.execute(
                "SELECT key_id, seq, hash, checkpoint FROM floor.log_head(%s)", (log_id,)
            ).fetchone()
        return None if row is None else StoreHead(str(row[0]), row[1], str(row[2]), row[3])

    def checkpoints(self, log_id: str, after: int = 0) -> list[Checkpoint]:
        """The checkpoints of ``log_id`` the store holds, numbered after ``after``, in order."""
        with self._transaction(f"reading the checkpoints of log {log_id}") as conn:
            rows = conn.execute(
                "SELECT number, seq, hash, time, reason, key_id, signature, meta "
                "FROM floor.log_checkpoints(%s, %s)",
                (log_id, after),
            ).fetchall()
        return [Checkpoint.from_row(tuple(row), log_id) for row in rows]

    def ingest(
        self, log_id: str, rows: Sequence[EventRow], checkpoints: Sequence[Checkpoint]
    ) -> None:
        """Store events and then checkpoints of one log, in ONE transaction.

        Rows and checkpoints the store already holds identically are skipped (shipping is at
        least once); when this returns, all of them are committed; when it raises, none of
        this call is.

        Raises:
            StoreRefused: a body that is not canonical, a checkpoint of another log, of an
                unregistered key or with a bad signature; or the store's refusal (a gap, a
                fork, a rewrite, a row that does not chain).
            StoreUnavailable: the store went away; nothing of this call was committed.
        """
        for row in rows:
            if body_kind(row[6]) != row[5]:
                raise StoreRefused(
                    f"event {row[0]} of log {log_id}: its body is not the canonical JSON of an "
                    f"event of kind {row[5]!r}; refused"
                )
        for cp in checkpoints:
            self._check_signature(log_id, cp)
        with (
            self._transaction(f"storing events of log {log_id}") as conn,
            conn.cursor() as cursor,
        ):
            if rows:
                with cursor.copy(_COPY_EVENTS) as copy:
                    for row in rows:
                        copy.write_row((log_id, *row))
            if checkpoints:
                cursor.executemany(
                    _INSERT_CHECKPOINT,
                    [
                        (
                            log_id,
                            cp.number,
                            cp.seq,
                            cp.hash,
                            cp.time,
                            cp.reason,
                            cp.key_id,
                            cp.signature,
                            cp.meta,
                        )
                        for cp in checkpoints
                    ],
                )

    def _check_signature(self, log_id: str, cp: Checkpoint) -> None:
        where = f"checkpoint #{cp.number} (seq {cp.seq}) of log {log_id}"
        if cp.log_id != log_id:
            raise StoreRefused(f"{where} names the log {cp.log_id}; refused")
        public = self.public_key(cp.key_id)
        if public is None:
            raise StoreRefused(
                f"{where} is signed with key {cp.key_id}, which is not registered with the "
                "store; the floor admin registers it with etg floor register"
            )
        try:
            public.verify(bytes.fromhex(cp.signature), message_of(cp))
        except (InvalidSignature, ValueError):
            raise StoreRefused(
                f"{where}: its signature does not verify with the registered key {cp.key_id}; "
                "refused"
            ) from None

    def logs(self) -> list[dict[str, Any]]:
        """Every log the store holds, with its key, server, head and last checkpoint (an
        investigator's or the admin's view; the shipping role may not read it)."""
        with self._transaction("listing the logs") as conn:
            rows = conn.execute(
                """
                SELECT l.log_id, l.key_id, k.server, l.claimed_at,
                       coalesce(e.seq, 0), e.time, e.shipped_at,
                       coalesce(c.number, 0), coalesce(c.seq, 0),
                       (SELECT document FROM floor.log_states s WHERE s.log_id = l.log_id
                        ORDER BY shipped_at DESC LIMIT 1),
                       l.claimed_by, r.role
                FROM floor.logs l JOIN floor.keys k USING (key_id)
                LEFT JOIN floor.shipping_roles r USING (key_id)
                LEFT JOIN LATERAL (SELECT seq, time, shipped_at FROM floor.events ev
                                   WHERE ev.log_id = l.log_id ORDER BY seq DESC LIMIT 1) e
                       ON true
                LEFT JOIN LATERAL (SELECT number, seq FROM floor.checkpoints ck
                                   WHERE ck.log_id = l.log_id ORDER BY number DESC LIMIT 1) c
                       ON true
                ORDER BY k.server, l.claimed_at
                """
            ).fetchall()
        found = []
        for row in rows:
            meta = json.loads(row[9])["meta"] if row[9] else {}
            found.append(
                {
                    "log_id": row[0],
                    "key_id": row[1],
                    "server": row[2],
                    "claimed_at": row[3].isoformat(),
                    "log_kind": meta.get("log_kind"),
                    "last_seq": row[4],
                    "last_event_time": row[5],
                    "last_shipped_at": None if row[6] is None else row[6].isoformat(),
                    "last_checkpoint": row[7],
                    "last_checkpoint_seq": row[8],
                    "claimed_by": row[10],
                    "shipping_role": row[11],
                }
            )
        return found
