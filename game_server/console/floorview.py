"""The floor as the console shows it: each server, its tables, their terminals and alarms.

Built from what each server's AMP link last read (``ReadMeters``: meters, wallets, state,
and the ``floor`` part: seats, tables, revoked and online terminals, who last set each
table's state) and from what the table's log says (its game, type and limits, its latest
round: :class:`~game_server.console.source.FloorSource`). Nothing here knows a game: a
table's game is the name its log gives, and its wagers are the names in its meters.

:func:`live_values` flattens the floor into ``key -> text`` for the pages' live cells (the
server-sent events), and :func:`shape` says which tables and terminals there are (a page
whose shape changed reloads).

Entry points: :func:`build_floor`, :class:`ServerView`, :class:`TableView`,
:class:`TerminalView`, :func:`live_values`, :func:`shape`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from game_server.console.links import LinkState
from game_server.console.source import FloorSource, TableInfo
from game_server.recall.query import RoundSummary
from shared.errors import ETGError
from shared.money import format_money


class _Link(Protocol):
    @property
    def name(self) -> str: ...

    state: LinkState


@dataclass(frozen=True)
class TerminalView:
    """One terminal: where it sits, its credits, whether it is connected or revoked."""

    server: str
    id: str
    table: str
    seat: int | None
    credits: int
    online: bool
    revoked: bool


@dataclass(frozen=True)
class TableView:
    """One table as the console shows it (money in cents)."""

    server: str
    id: str
    info: TableInfo | None
    state: str
    reason: str
    set_by: Mapping[str, str] | None
    last_round: RoundSummary | None
    meters: Mapping[str, Any]
    terminals: tuple[TerminalView, ...]
    alarms: tuple[str, ...]

    @property
    def game(self) -> str:
        return self.info.game if self.info is not None else ""

    def _sum(self, name: str) -> int:
        wagers = self.meters.get("wagers", {})
        return sum(int(w.get(name, 0)) for w in wagers.values() if isinstance(w, Mapping))

    @property
    def coin_in(self) -> int:
        return self._sum("wagered")

    @property
    def coin_out(self) -> int:
        return self._sum("paid")

    def meter(self, name: str) -> int:
        value = self.meters.get(name, 0)
        return value if type(value) is int else 0

    @property
    def faulted(self) -> bool:
        """Out of service by a fault (the log, a countdown, the RNG), not by a person: the
        last state change an operator made since the server started, if any, was ``open``.
        An attendant may reopen such a table (issue 21)."""
        if self.state != "out-of-service":
            return False
        return self.set_by is None or self.set_by.get("action") == "open"

    @property
    def round_text(self) -> str:
        found = self.last_round
        if found is None:
            return "none yet"
        return f"{found.round_id} ({'in play' if not found.complete else 'over'})"


@dataclass(frozen=True)
class ServerView:
    """One table server."""

    name: str
    connected: bool
    problem: str | None
    tables: tuple[TableView, ...] = field(default=())


def _tables_of(meters: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The per-table meters of a ``ReadMeters`` answer (one table, or ``tables``)."""
    tables = meters.get("tables")
    if isinstance(tables, Mapping):
        return {str(k): v for k, v in tables.items() if isinstance(v, Mapping)}
    table = meters.get("table")
    return {table: meters} if isinstance(table, str) else {}


def _alarms(server_meters: Mapping[str, Any]) -> list[str]:
    """Alarms any part of the server's meters raises (``{"alarm": "..."}``, e.g. the floor
    store's shipping)."""
    found = []
    for name, value in sorted(server_meters.items()):
        if isinstance(value, Mapping) and isinstance(value.get("alarm"), str) and value["alarm"]:
            found.append(f"{name.replace('_', ' ')}: {value['alarm']}")
    return found


def build_floor(links: Sequence[_Link], source: FloorSource) -> list[ServerView]:
    """The floor now: every server of ``links`` with what it last read and its log says."""
    out = []
    for link in links:
        state = link.state
        meters = state.meters or {}
        floor = meters.get("floor", {}) if isinstance(meters.get("floor"), Mapping) else {}
        seats = floor.get("terminals", {})
        placed = floor.get("tables", {})
        revoked = set(floor.get("revoked", []))
        online = set(floor.get("online", []))
        set_by = floor.get("set_by", {})
        server_alarms = _alarms(meters)
        tables = []
        for table_id, table_meters in sorted(_tables_of(meters).items()):
            alarms = list(server_alarms)
            if not state.connected:
                alarms.append(f"server unreachable: {state.problem}")
            info = last = None
            try:
                info = source.table_info(link.name, table_id)
                last = source.last_round(link.name, table_id)
            except ETGError as exc:
                alarms.append(f"log: {exc}")
            table_state = str(table_meters.get("state", ""))
            reason = str(table_meters.get("reason") or "")
            if table_state == "out-of-service":
                alarms.append(f"out of service: {reason}")
            wallets = table_meters.get("wallets", {})
            names = {t for t, at in placed.items() if at == table_id} if placed else set(seats)
            names |= set(wallets) if isinstance(wallets, Mapping) else set()
            terminals = tuple(
                TerminalView(
                    link.name,
                    name,
                    table_id,
                    seats.get(name),
                    int(wallets.get(name, 0)) if isinstance(wallets, Mapping) else 0,
                    name in online,
                    name in revoked,
                )
                for name in sorted(names)
            )
            tables.append(
                TableView(
                    link.name,
                    table_id,
                    info,
                    table_state,
                    reason,
                    set_by.get(table_id) if isinstance(set_by, Mapping) else None,
                    last,
                    table_meters,
                    terminals,
                    tuple(alarms),
                )
            )
        out.append(ServerView(link.name, state.connected, state.problem, tuple(tables)))
    return out


def find_table(floor: Sequence[ServerView], server: str, table: str) -> TableView | None:
    for view in floor:
        if view.name == server:
            return next((t for t in view.tables if t.id == table), None)
    return None


def find_terminal(floor: Sequence[ServerView], server: str, terminal: str) -> TerminalView | None:
    for view in floor:
        if view.name == server:
            for table in view.tables:
                for each in table.terminals:
                    if each.id == terminal:
                        return each
    return None


def state_text(table: TableView) -> str:
    if table.state == "out-of-service":
        return f"out of service: {table.reason}"
    return table.state or "unknown"


def terminal_text(terminal: TerminalView) -> str:
    marks = [] if terminal.online else ["offline"]
    if terminal.revoked:
        marks.append("revoked")
    return format_money(terminal.credits) + (f" ({', '.join(marks)})" if marks else "")


def live_values(floor: Sequence[ServerView]) -> dict[str, str]:
    """Every live cell's text, by key (``server|...``)."""
    values: dict[str, str] = {}
    for server in floor:
        values[f"{server.name}|server"] = (
            "connected" if server.connected else f"unreachable: {server.problem}"
        )
        for table in server.tables:
            key = f"{server.name}|{table.id}"
            values[f"{key}|state"] = state_text(table)
            values[f"{key}|round"] = table.round_text
            values[f"{key}|games"] = str(table.meter("games_played"))
            values[f"{key}|coin_in"] = format_money(table.coin_in)
            values[f"{key}|coin_out"] = format_money(table.coin_out)
            values[f"{key}|cash_in"] = format_money(table.meter("credits_in"))
            values[f"{key}|cash_out"] = format_money(table.meter("credits_out"))
            values[f"{key}|alarms"] = "; ".join(table.alarms) or "none"
            last = table.last_round
            values[f"{key}|round_key"] = (
                "" if last is None else f"{last.round_id}:{last.last_seq}:{last.complete}"
            )
            for terminal in table.terminals:
                values[f"{server.name}|{terminal.id}|credits"] = terminal_text(terminal)
    return values


def shape(floor: Sequence[ServerView]) -> str:
    """A digest of which servers, tables and terminals there are."""
    parts = [
        f"{s.name}:{t.id}:{','.join(x.id for x in t.terminals)}" for s in floor for t in s.tables
    ]
    parts += [f"{s.name}:{s.connected}" for s in floor if not s.tables]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
