"""Where the console reads the floor's history: :class:`FloorSource`.

The console acts on tables through each server's AMP connection (:mod:`.links`); what
happened, it reads from event logs: the round in play, recall, pictures, verification and
the meter reports. Without the floor store every server's own SQLite log is read, read-only,
where the console runs (:class:`ServersOnlySource`, the servers file's ``log``). With the
store (``etg console --store URL``, to come with the floor store) a second implementation
reads the same things from PostgreSQL, every table at once; the pages only know this
protocol.

Threads: SQLite connections belong to the thread that opened them, so each thread gets its
own reader per log (the reactor thread for the quick indexed reads: last round, recall
lists, one round; the worker threads for verification and reports).

Entry points: :class:`FloorSource`, :class:`ServersOnlySource`, :class:`TableInfo`,
:class:`RoundQuery`, :class:`FoundRound`.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from game_server.console.reports import MeterHistory, ReportRow, Shift, ShiftClock, shift_rows
from game_server.console.settings import ServerEntry
from game_server.eventlog import AnchorFile, EventLogReader
from game_server.recall.query import (
    RoundNotFound,
    RoundSummary,
    ShoeListing,
    fetch_round,
    list_rounds,
    shoe_reveal,
    table_shoes,
)
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline, build_timeline
from game_server.recall.verify import VerifyReport, verify_log
from shared.errors import ETGError

#: Seconds a table's description (from its log's ``table_opened``) is kept before it is
#: read again.
INFO_SECONDS = 10.0


class SourceError(ETGError):
    """A log the source cannot read (missing, not a log, not this console's server)."""


@dataclass(frozen=True)
class TableInfo:
    """What a table's log says of it (its last ``table_opened``): never a game's name in
    code, only as data.

    Attributes:
        server: The server it is hosted by.
        table: The table id.
        game: The game dealt (the Rules Submission's ``[table] game``).
        table_type: The kind of table (``fully-automated``, ``hybrid``...).
        limits: The Rules Submission's ``[limits]`` as logged (cents).
        config_hash: The hash of the Rules Submission in force.
    """

    server: str
    table: str
    game: str
    table_type: str
    limits: dict[str, Any]
    config_hash: str


@dataclass(frozen=True)
class RoundQuery:
    """A recall search (every field optional but ``last``)."""

    server: str | None = None
    table: str | None = None
    terminal: str | None = None
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    wager: str | None = None
    min_payout: int | None = None
    last: int = 25


@dataclass(frozen=True)
class FoundRound:
    """One round a search found, and the server whose log holds it."""

    server: str
    summary: RoundSummary


class FloorSource(Protocol):
    """What the console reads of the floor's logs (see the module docstring)."""

    def describe(self) -> str:
        """A line for the pages: where the logs are read."""
        ...

    def servers(self) -> list[str]:
        """The servers whose logs can be read (the verify page lists them)."""
        ...

    def table_info(self, server: str, table: str) -> TableInfo | None:
        """The table as its log describes it, or None if its log does not (yet), or the
        console reads no log of that server."""
        ...

    def last_round(self, server: str, table: str) -> RoundSummary | None:
        """The table's latest round (in play or over), or None (none yet, or no log read)."""
        ...

    def rounds(self, query: RoundQuery) -> list[FoundRound]:
        """The rounds a recall search finds, newest first."""
        ...

    def shoes(self, server: str, table: str) -> list[ShoeListing]:
        """The table's last shoes, newest first, with their commitments and (once retired)
        reveals; empty if the console reads no log of that server."""
        ...

    def round(self, server: str, table: str, round_id: int) -> tuple[LoggedRound, Timeline]:
        """One round and its timeline.

        Raises:
            RoundNotFound: no such round.
        """
        ...

    def verify(self, server: str) -> VerifyReport:
        """Verify the server's whole log (slow: run it in a worker thread)."""
        ...

    def shift_report(self, server: str, shift: Shift, now: dt.datetime) -> list[ReportRow]:
        """Each of the server's tables' meters over ``shift`` (a worker thread)."""
        ...


class ServersOnlySource:
    """A :class:`FloorSource` over each server's own SQLite log (no floor store).

    Args:
        servers: The servers file's entries (each with its ``log``).
        public_key: The log-signing public key (verification).
        shifts: The floor's shifts (reports).
        clock: Seconds (for the table descriptions' cache).
    """

    def __init__(
        self,
        servers: Sequence[ServerEntry],
        public_key: Ed25519PublicKey,
        shifts: ShiftClock,
        clock: Any = time.monotonic,
    ) -> None:
        self._servers = {s.name: s for s in servers if s.log is not None}
        self._key = public_key
        self._shifts = shifts
        self._clock = clock
        self._local = threading.local()
        self._info: dict[str, tuple[float, dict[str, TableInfo]]] = {}
        self._histories: dict[str, MeterHistory] = {}
        self._history_lock = threading.Lock()

    def describe(self) -> str:
        return "each server's own event log (no floor store)"

    def servers(self) -> list[str]:
        return list(self._servers)

    def _entry(self, server: str) -> ServerEntry:
        entry = self._servers.get(server)
        if entry is None:
            raise SourceError(f"the console reads no log of a server {server!r}")
        return entry

    def _reader(self, server: str) -> EventLogReader:
        """This thread's reader of the server's log (opened on first use)."""
        readers: dict[str, EventLogReader] = self._local.__dict__.setdefault("readers", {})
        reader = readers.get(server)
        if reader is None:
            path = self._entry(server).log
            assert path is not None
            if not path.exists():
                raise SourceError(f"the log of {server} is not at {path}")
            reader = readers[server] = EventLogReader.open(path)
        return reader

    def table_info(self, server: str, table: str) -> TableInfo | None:
        if server not in self._servers:
            return None  # a server whose log this console does not read (no ``log``)
        now = self._clock()
        kept = self._info.get(server)
        if kept is None or now - kept[0] > INFO_SECONDS:
            found: dict[str, TableInfo] = {}
            for stored in self._reader(server).events_of_kind("table_opened"):
                config = stored.body.get("config", {})
                about = config.get("table", {}) if isinstance(config, dict) else {}
                limits = config.get("limits", {}) if isinstance(config, dict) else {}
                found[stored.table_id] = TableInfo(
                    server,
                    stored.table_id,
                    str(about.get("game", "")),
                    str(about.get("type", "")),
                    dict(limits) if isinstance(limits, dict) else {},
                    str(stored.body.get("config_hash", "")),
                )
            kept = self._info[server] = (now, found)
        return kept[1].get(table)

    def last_round(self, server: str, table: str) -> RoundSummary | None:
        if server not in self._servers:
            return None
        found = list_rounds(self._reader(server), last=1, table=table)
        return found[0] if found else None

    def rounds(self, query: RoundQuery) -> list[FoundRound]:
        names = [query.server] if query.server else list(self._servers)
        found: list[FoundRound] = []
        for name in names:
            for summary in list_rounds(
                self._reader(name),
                last=query.last,
                terminal=query.terminal,
                table=query.table,
                since=query.since,
                until=query.until,
                wager=query.wager,
                min_payout=query.min_payout,
            ):
                found.append(FoundRound(name, summary))
        found.sort(key=lambda f: f.summary.end, reverse=True)
        return found[: query.last]

    def shoes(self, server: str, table: str) -> list[ShoeListing]:
        if server not in self._servers:
            return []
        return table_shoes(self._reader(server), table)

    def round(self, server: str, table: str, round_id: int) -> tuple[LoggedRound, Timeline]:
        reader = self._reader(server)
        with reader.snapshot():
            logged = fetch_round(reader, table, round_id)
            if logged is None:
                raise RoundNotFound(f"there is no round {round_id} of table {table} in {server}")
            return logged, build_timeline(logged, revealed=shoe_reveal(reader, logged))

    def verify(self, server: str) -> VerifyReport:
        entry = self._entry(server)
        anchors = None if entry.anchors is None else AnchorFile(entry.anchors)
        return verify_log(self._reader(server), self._key, anchors=anchors)

    def shift_report(self, server: str, shift: Shift, now: dt.datetime) -> list[ReportRow]:
        with self._history_lock:
            history = self._histories.get(server)
            if history is None:
                history = self._histories[server] = MeterHistory(self._shifts)
            history.update(self._reader(server))
            return shift_rows(server, history, shift, now)

    def close(self) -> None:
        """Close this thread's readers."""
        readers: dict[str, EventLogReader] = self._local.__dict__.get("readers", {})
        for reader in readers.values():
            reader.close()
        readers.clear()
