"""Reading the floor store as event logs: one :class:`StoreLogSource` per log it holds.

The recall queries (:mod:`game_server.recall.query`) and the shift reports
(:mod:`game_server.console.reports`) read an :class:`~game_server.eventlog.EventSource`;
:class:`StoreLogSource` is one log of the store as such a source, read with the
investigator's role (SELECT only), so ``etg recall --store`` and ``etg report --store`` run
the same code as on one file. :class:`FloorLogs` opens the store once and gives a source for
each log it holds, with the server whose key claimed it.

A source reads in REPEATABLE READ, read-only transactions: everything read inside one
:meth:`StoreLogSource.snapshot` sees one state of the store while the servers keep shipping.

Entry points: :meth:`FloorLogs.connect`, :meth:`FloorLogs.sources`.
"""

from __future__ import annotations

import itertools
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from psycopg import sql

from game_server.eventlog.reader import recent_rounds_sql
from game_server.eventlog.records import Checkpoint, EventRow, RoundSpan, StoredEvent
from game_server.eventlog.schema import EVENT_COLUMNS
from game_server.eventlog.store import Dialect
from game_server.floor.errors import StoreUnavailable
from game_server.floor.names import TABLES
from game_server.floor.store import CONNECT_TIMEOUT, FloorStore, check_url, redacted
from game_server.keys import key_id

#: Rows a walk fetches from the store at a time.
WALK_ROWS: Final = 500
_walks = itertools.count(1)


@dataclass(frozen=True)
class StoredLog:
    """A log the store holds, the server whose registered key claimed it, and that key.

    Attributes:
        log_id: The log's id.
        server: The server the claiming key is registered to.
        log_kind: ``meta.log_kind`` of its last shipped state (None: none shipped).
        key_id: The key the log was claimed with.
        public_key: That key's registered public key (64 hex digits).
    """

    log_id: str
    server: str
    log_kind: str | None
    key_id: str = ""
    public_key: str = ""


@dataclass(frozen=True)
class Refused:
    """A log of the store that does not verify, left out of what is read (and why)."""

    stored: StoredLog
    seq: int | None
    reason: str

    def sentence(self) -> str:
        """``log L of server S does not verify (at seq N): ...; it is left out``."""
        at = "" if self.seq is None else f" at seq {self.seq}"
        return (
            f"log {self.stored.log_id} of server {self.stored.server} does not verify{at}: "
            f"{self.reason}; it is left out"
        )


class StoreLogSource:
    """One log of the floor store as an :class:`~game_server.eventlog.EventSource`
    (read-only; one thread). Made by :meth:`FloorLogs.sources`."""

    def __init__(self, conn: psycopg.Connection[Any], stored: StoredLog) -> None:
        self._conn = conn
        self.stored = stored
        self.server = stored.server
        self.path = f"log {stored.log_id} of the floor store"
        relation = sql.SQL(
            "(SELECT seq, time, table_id, round_id, terminal, kind, body, hash "
            "FROM floor.events WHERE log_id = {}) AS events"
        ).format(sql.Literal(stored.log_id))
        # A literal of the log id, its % doubled: the queries are run with parameters.
        events = relation.as_string(conn).replace("%", "%%")
        self._dialect = Dialect(events, "%s", sqlite=False)
        self._depth = 0

    @property
    def log_id(self) -> str:
        return self.stored.log_id

    @property
    def dialect(self) -> Dialect:
        return self._dialect

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction (REPEATABLE READ) for everything read inside."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._end()

    def _end(self) -> None:
        if not self._conn.closed and not self._conn.broken:
            self._conn.rollback()  # a read-only transaction: nothing to keep

    def _failed(self, exc: psycopg.Error) -> StoreUnavailable:
        return StoreUnavailable(f"reading {self.path} failed: {str(exc).strip()}")

    def select(self, query: str, params: Sequence[object]) -> list[Any]:
        with self.snapshot():
            try:
                return self._conn.execute(query.encode(), tuple(params)).fetchall()
            except psycopg.Error as exc:
                raise self._failed(exc) from None

    def select_iter(self, query: str, params: Sequence[object]) -> Generator[Any, None, None]:
        """Rows one by one through a server-side cursor, :data:`WALK_ROWS` at a time."""
        with self.snapshot():
            cursor = self._conn.cursor(name=f"etg_walk_{next(_walks)}")
            cursor.itersize = WALK_ROWS
            try:
                yield from cursor.execute(query.encode(), tuple(params))
            except psycopg.Error as exc:
                raise self._failed(exc) from None
            finally:
                if not self._conn.closed and not self._conn.broken:
                    cursor.close()

    def max_seq(self) -> int:
        row = self.select(f"SELECT max(seq) FROM {self._dialect.events}", ())[0]
        return int(row[0] or 0)

    def row_batches(self, start_seq: int = 1, batch: int = 10_000) -> Iterator[list[EventRow]]:
        """Rows from ``start_seq`` on in seq order, ``batch`` at a time (each batch its own
        keyset query, so a long fold holds no transaction open between batches)."""
        next_seq = start_seq
        while True:
            rows = self.select(
                f"SELECT {EVENT_COLUMNS} FROM {self._dialect.events} "
                "WHERE seq >= %s ORDER BY seq LIMIT %s",
                (next_seq, batch),
            )
            if not rows:
                return
            yield [tuple(row) for row in rows]
            next_seq = rows[-1][0] + 1

    def iter_events(self, start_seq: int = 1, batch: int = 10_000) -> Iterator[StoredEvent]:
        for rows in self.row_batches(start_seq, batch):
            yield from map(StoredEvent.from_row, rows)

    def events_for_round(self, table_id: str, round_id: int) -> list[StoredEvent]:
        rows = self.select(
            f"SELECT {EVENT_COLUMNS} FROM {self._dialect.events} "
            "WHERE table_id = %s AND round_id = %s ORDER BY seq",
            (table_id, round_id),
        )
        return [StoredEvent.from_row(tuple(row)) for row in rows]

    def iter_checkpoints(self) -> Iterator[Checkpoint]:
        rows = self.select(
            "SELECT number, seq, hash, time, reason, key_id, signature, meta "
            "FROM floor.checkpoints WHERE log_id = %s ORDER BY number",
            (self.log_id,),
        )
        for row in rows:
            yield Checkpoint.from_row(tuple(row), self.log_id)

    def checkpoints(self) -> list[Checkpoint]:
        return list(self.iter_checkpoints())

    def recent_rounds(
        self,
        terminal: str | None = None,
        table: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 10,
    ) -> list[RoundSpan]:
        """As :meth:`game_server.eventlog.EventLogReader.recent_rounds`, on this log."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        query, params = recent_rounds_sql(terminal, table, since, until, self._dialect)
        found: list[tuple[str, int]] = []
        with self.snapshot():
            walk = self.select_iter(query, params)
            try:
                for table_id, round_id in walk:
                    if (table_id, round_id) not in found:
                        found.append((table_id, round_id))
                        if len(found) == limit:
                            break
            finally:
                walk.close()
            spans = []
            for table_id, round_id in found:
                row = self.select(
                    "SELECT min(seq), max(seq), min(time), max(time), count(*) "
                    f"FROM {self._dialect.events} WHERE table_id = %s AND round_id = %s",
                    (table_id, round_id),
                )[0]
                spans.append(RoundSpan(table_id, round_id, *row))
        return spans

    def triggers_present(self) -> dict[str, bool]:
        """The store's append-only triggers on the events and checkpoints tables (the
        SQLite log's triggers are not the store's: each by its store name)."""
        names = [f"{t}_no_change" for t in TABLES] + [f"{t}_no_truncate" for t in TABLES]
        rows = self.select(
            "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND t.tgenabled <> 'D'",
            ("floor",),
        )
        present = {str(row[0]) for row in rows}
        return {name: name in present for name in names}

    def close(self) -> None:
        """Nothing to release: the connection is :class:`FloorLogs`'."""


class FloorLogs:
    """One read-only connection to the floor store, and a source for each log it holds.

    Attributes:
        url: The store's URL without its password.
    """

    def __init__(self, conn: psycopg.Connection[Any], url: str) -> None:
        self._conn = conn
        self.url = url
        #: The logs :meth:`sources` left out since they do not verify.
        self.refused: list[Refused] = []

    @classmethod
    def connect(cls, url: str) -> FloorLogs:
        """Connect as an investigator (or the admin) and check the store's schema.

        Raises:
            StoreUnavailable: it cannot be reached.
            StoreSchemaError: it is no floor store of this schema version.
        """
        FloorStore.connect(check_url(url)).close()  # the checks and their sentences
        try:
            conn = psycopg.connect(
                url, connect_timeout=CONNECT_TIMEOUT, autocommit=False, application_name="etg"
            )
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreUnavailable(
                f"cannot connect to the floor store {redacted(url)}: {first}"
            ) from None
        conn.read_only = True
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        return cls(conn, redacted(url))

    def logs(self) -> list[StoredLog]:
        """Every log the store holds, by server."""
        try:
            rows = self._conn.execute(
                """
                SELECT l.log_id, k.server,
                       (SELECT document::jsonb -> 'meta' ->> 'log_kind'
                        FROM floor.log_states s WHERE s.log_id = l.log_id
                        ORDER BY shipped_at DESC LIMIT 1),
                       l.key_id, k.public_key
                FROM floor.logs l JOIN floor.keys k USING (key_id)
                ORDER BY k.server, l.claimed_at
                """
            ).fetchall()
        except psycopg.errors.InsufficientPrivilege:
            raise StoreUnavailable(
                f"the role of {self.url} may not read the store's logs: use the "
                "investigator's URL (etg floor url DIR --role investigator)"
            ) from None
        except psycopg.Error as exc:
            raise StoreUnavailable(f"reading the floor store {self.url} failed: {exc}") from None
        finally:
            self._conn.rollback()
        return [
            StoredLog(str(log_id), str(server), kind, str(key), str(public))
            for log_id, server, kind, key, public in rows
        ]

    def verify(self, stored: StoredLog) -> Refused | None:
        """Prove one log the store holds, as ``etg verify`` proves a file's chain: every
        event's hash recomputed from the first, every checkpoint signed by the key the log
        was claimed with (its registered public key) and agreeing with the chain. Nothing the
        store holds is believed before that: a row written past the store's checks (by its
        superuser) is found here.

        Returns:
            None when it verifies, else why not.
        """
        from game_server.eventlog.verify import verify_chain

        try:
            public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(stored.public_key))
        except ValueError:
            return Refused(stored, None, f"its key {stored.key_id} has no usable public key")
        if key_id(public) != stored.key_id:
            return Refused(stored, None, f"its key {stored.key_id} is not the registered key")
        report = verify_chain(StoreLogSource(self._conn, stored), public)
        if report.ok:
            return None
        return Refused(stored, report.first_bad_seq, str(report.reason))

    def sources(self, server: str | None = None) -> list[StoreLogSource]:
        """A source for each log of the store that verifies (of ``server`` only, if given);
        each log that does not is left out and named in :attr:`refused`."""
        found = []
        self.refused = []
        for stored in self.logs():
            if server is not None and stored.server != server:
                continue
            refused = self.verify(stored)
            if refused is None:
                found.append(StoreLogSource(self._conn, stored))
            else:
                self.refused.append(refused)
        return found

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> FloorLogs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
