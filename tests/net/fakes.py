"""A recording fake of :class:`game_server.table.api.TableMachine` for the server tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from game_server.config import example_config_path, load_config
from game_server.games.blackjack.machine import parse_action
from game_server.games.blackjack.rules.actions import Action
from game_server.table.api import TableListener, TableState
from game_server.table.info import rules_for


class FakeMachine:
    """Records every call in :attr:`calls` and answers with a view that counts them.

    Set :attr:`error` to an exception to have the next operation raise it (once), after
    recording the call. The view of a terminal is ``{"terminal": id, "calls": n}``.
    """

    def __init__(self, state: TableState = TableState.OPEN) -> None:
        self.state = state
        self.calls: list[tuple[Any, ...]] = []
        self.listeners: list[TableListener] = []
        self.wallets: dict[str, int] = {}
        self.error: Exception | None = None

    def _record(self, *call: Any) -> None:
        self.calls.append(call)
        error, self.error = self.error, None
        if error is not None:
            raise error

    def operations(self) -> list[tuple[Any, ...]]:
        """The recorded calls that change something (every call but ``view``)."""
        return [call for call in self.calls if call[0] != "view"]

    def open(self) -> None:
        self._record("open")
        self.state = TableState.OPEN

    def close(self) -> None:
        self._record("close")
        self.state = TableState.CLOSED

    def out_of_service(self, reason: str) -> None:
        self._record("out_of_service", reason)
        self.state = TableState.OUT_OF_SERVICE

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        if position is None:
            self._record("place_wagers", terminal, dict(wagers))
        else:
            self._record("place_wagers", terminal, dict(wagers), position)

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None:
        self._record("answer_insurance", terminal, choice, amount)

    def parse_action(self, terminal: str, action: str) -> Action:
        """Blackjack's decisions, as the fully automated table reads them."""
        return parse_action(action)

    def act(self, terminal: str, action: Action, hand: int, amount: int | None) -> None:
        self._record("act", terminal, action, hand, amount)

    def cash_in(self, terminal: str, amount: int, reference: str) -> int:
        self._record("cash_in", terminal, amount, reference)
        self.wallets[terminal] = self.wallets.get(terminal, 0) + amount
        return self.wallets[terminal]

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> int:
        self._record("cash_out", terminal, amount, reference)
        held = self.wallets.get(terminal, 0)
        paid = held if amount is None else amount
        self.wallets[terminal] = held - paid
        return paid

    def view(self, terminal: str) -> dict[str, Any]:
        self._record("view", terminal)
        return {"terminal": terminal, "calls": len(self.operations())}

    def rules(self, terminal: str) -> dict[str, Any]:
        """The example config's rules, as the real machine builds them."""
        self._record("rules", terminal)
        return rules_for(load_config(example_config_path()))

    def meters(self) -> dict[str, Any]:
        self._record("meters")
        return {"wallets": dict(self.wallets), "table": {"drop": 0}}

    def add_listener(self, listener: TableListener) -> None:
        self.listeners.append(listener)

    def step(self, events: Sequence[Any] = ()) -> None:
        """Tell the listeners a step was logged, as the real machine does after a write."""
        for listener in self.listeners:
            listener.step_logged(events)
