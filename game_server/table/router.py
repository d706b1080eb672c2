"""Several tables behind one server: each terminal's operations go to its own table.

docs/design.md: a server runs one table "or a group of tables". :class:`TableRouter` implements
:class:`~game_server.table.api.TableMachine` over one machine per table (each built by its
game, :meth:`~game_server.games.api.Game.machine`), routing
every terminal operation by the terminal's table (the floor file says which), and scoping the
listener so that a step of one table pushes views only to that table's terminals.

Entry point: :class:`TableRouter`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from game_server.table.api import TableListener, TableMachine, TableState
from game_server.table.session import UnknownTerminal


class _Scoped:
    """Passes one table's steps on, naming that table's terminals."""

    def __init__(self, listener: TableListener, terminals: Collection[str]) -> None:
        self.listener = listener
        self.terminals = frozenset(terminals)

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        self.listener.step_logged(events, self.terminals)


class TableRouter:
    """The tables of one server as one :class:`TableMachine`.

    Args:
        machines: table id -> its round machine.
        table_of: terminal id -> table id.
    """

    def __init__(self, machines: Mapping[str, TableMachine], table_of: Mapping[str, str]) -> None:
        unknown = set(table_of.values()) - set(machines)
        if unknown:
            raise UnknownTerminal(f"terminals are placed at tables this server lacks: {unknown}")
        self.machines = dict(machines)
        self.table_of = dict(table_of)

    def _machine(self, terminal: str) -> TableMachine:
        table = self.table_of.get(terminal)
        if table is None:
            raise UnknownTerminal(f"terminal {terminal!r} holds no seat at this server's tables")
        return self.machines[table]

    @property
    def state(self) -> TableState:
        states = {m.state for m in self.machines.values()}
        if TableState.OPEN in states:
            return TableState.OPEN
        return TableState.CLOSED if states == {TableState.CLOSED} else TableState.OUT_OF_SERVICE

    def open(self) -> None:
        for machine in self.machines.values():
            machine.open()

    def close(self) -> None:
        for machine in self.machines.values():
            machine.close()

    def out_of_service(self, reason: str) -> None:
        for machine in self.machines.values():
            machine.out_of_service(reason)

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        self._machine(terminal).place_wagers(terminal, wagers, position)

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None:
        self._machine(terminal).answer_insurance(terminal, choice, amount)

    def parse_action(self, terminal: str, action: str) -> Any:
        return self._machine(terminal).parse_action(terminal, action)

    def act(self, terminal: str, action: Any, hand: int, amount: int | None) -> None:
        self._machine(terminal).act(terminal, action, hand, amount)

    def cash_in(self, terminal: str, amount: int, reference: str) -> int:
        return self._machine(terminal).cash_in(terminal, amount, reference)

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> int:
        return self._machine(terminal).cash_out(terminal, amount, reference)

    def view(self, terminal: str) -> dict[str, Any]:
        return self._machine(terminal).view(terminal)

    def views(self, terminals: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The views of ``terminals`` (those of one table, after its step), each table's built
        together by its machine when it can (``views``), else one at a time."""
        by_table: dict[str, list[str]] = {}
        for terminal in terminals:
            table = self.table_of.get(terminal)
            if table is None:
                raise UnknownTerminal(
                    f"terminal {terminal!r} holds no seat at this server's tables"
                )
            by_table.setdefault(table, []).append(terminal)
        views: dict[str, dict[str, Any]] = {}
        for table, members in by_table.items():
            machine = self.machines[table]
            batch = getattr(machine, "views", None)
            if batch is not None:
                views.update(batch(members))
            else:
                views.update((terminal, machine.view(terminal)) for terminal in members)
        return views

    def rules(self, terminal: str) -> dict[str, Any]:
        return self._machine(terminal).rules(terminal)

    def meters(self) -> dict[str, Any]:
        """Each table's meters, and the server's totals (games, credits, wallets)."""
        tables = {table: m.meters() for table, m in sorted(self.machines.items())}
        wallets: dict[str, int] = {}
        for meters in tables.values():
            wallets.update(meters["wallets"])
        return {
            "games_played": sum(m["games_played"] for m in tables.values()),
            "credits_in": sum(m["credits_in"] for m in tables.values()),
            "credits_out": sum(m["credits_out"] for m in tables.values()),
            "in_play": sum(m["in_play"] for m in tables.values()),
            "house_result": sum(m["house_result"] for m in tables.values()),
            "wallets": dict(sorted(wallets.items())),
            "tables": tables,
        }

    def add_listener(self, listener: TableListener) -> None:
        for table, machine in self.machines.items():
            members = [t for t, at in self.table_of.items() if at == table]
            machine.add_listener(_Scoped(listener, members))
