"""Every shipped Rules Submission played by the terminal's own demo bots against its real
round machine (a fake clock, no sockets), and the screens terminal T1 showed on the way:
its betting screen with its bet in, its play screen on a decision of its own, its results
screen, each as the model it was drawn from.

The bots are :class:`terminal_client.app.Autoplay` (they stake every wager the table offers,
so every circle and every settlement line shows); their intents reach the machine through
:class:`MachineClient`, which gives each answer to its terminal's model as the network
client does (the betting screen's REBET remembers the last bet the server took).

Entry points: :data:`CONFIGS`, :func:`screens_of`, :class:`Table`.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from twisted.internet.task import Clock

from game_server.config import TableConfig, example_path, load_config
from game_server.games import game_for
from game_server.rules.meters import MeterBank
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from terminal_client.app import Autoplay
from terminal_client.model import ConnectionState, Intent, IntentKind, TerminalModel
from terminal_client.model.state import Document
from terminal_client.screens import screen_for


def _example_names() -> tuple[str, ...]:
    names = []
    for game_dir in resources.files("game_server.games").iterdir():
        configs = game_dir / "configs"
        if configs.is_dir():
            names += [f.name for f in configs.iterdir() if f.name.endswith(".toml")]
    return tuple(sorted(names))


#: Every Rules Submission the product ships.
CONFIGS: tuple[str, ...] = _example_names()
#: The terminals at each table, and the credits each gets.
TERMINALS = ("T1", "T2", "T3")
CREDITS = 1_000_000


class MachineClient:
    """A terminal's network client straight to the machine: an intent is sent as the real
    client sends it (the model records it), the machine answers at once with the view, or
    refuses with the server's sentence."""

    def __init__(self, table: Table, terminal: str, model: TerminalModel) -> None:
        self.table = table
        self.terminal = terminal
        self.model = model
        self._ids = 0

    def refresh(self) -> None:
        self.model.apply_view(self.table.view(self.terminal))

    def _send(self, kind: IntentKind, call: Any, *args: Any, **arguments: Any) -> Intent | None:
        self._ids += 1
        intent = Intent.make(kind, f"{self.terminal}-{self._ids}", **arguments)
        if not self.model.apply_sent(intent):
            return None
        try:
            call(self.terminal, *args)
        except Exception as exc:  # the server's refusal, as its notice
            self.model.apply_error(type(exc).__name__, str(exc), intent.request_id)
            return intent
        self.model.apply_answer(intent.request_id, self.table.view(self.terminal))
        return intent

    def place_wagers(self, wagers: Any, position: int | None = None) -> Intent | None:
        machine = self.table.machine
        if position is None:
            return self._send(
                IntentKind.PLACE_WAGERS, machine.place_wagers, dict(wagers), wagers=dict(wagers)
            )
        return self._send(
            IntentKind.PLACE_WAGERS,
            machine.place_wagers,
            dict(wagers),
            position,
            wagers=dict(wagers),
            position=position,
        )

    def act(self, action: str, hand: int, amount: int = 0) -> Intent | None:
        machine = self.table.machine
        decision = machine.parse_action(self.terminal, action)
        return self._send(
            IntentKind.ACT,
            machine.act,
            decision,
            hand,
            amount or None,
            action=action,
            hand=hand,
            amount=amount,
        )

    def answer_insurance(self, choice: str, amount: int = 0) -> Intent | None:
        machine = self.table.machine
        return self._send(
            IntentKind.INSURANCE, machine.answer_insurance, choice, amount, choice=choice
        )

    def cash_out(self) -> Intent | None:
        return None

    def request_rules(self) -> bool:
        self.model.apply_document(Document.RULES, self.table.machine.rules(self.terminal))
        return True

    def request_recall(self) -> bool:
        return False


def seats() -> dict[str, int]:
    """Terminal -> seat of the tables here: T1 at seat 1, T2 at 2, T3 at 3."""
    return {terminal: n for n, terminal in enumerate(TERMINALS, start=1)}


class Table:
    """A shipped Rules Submission's live machine with a fake clock; T1 to T3 seated, each
    with its model, client and demo bot."""

    def __init__(
        self,
        name: str,
        seed: int = 3,
        next_round_delay: float = 3.0,
        *,
        session: Any = None,
        credits: dict[str, int] | None = None,
    ) -> None:
        """``session``: the table's session when it is not a new one in memory (a session
        over a real log, :func:`seats`); ``credits``: each terminal's (default
        :data:`CREDITS` each)."""
        if session is None:
            config = load_config(example_path(name))
            shoes = SealedShoes(config, simulation_seeds(seed, config.table_id), bytes(32), "k")
            session = game_for(config).open_session(
                config, MemorySink(), shoes, seats(), MeterBank()
            )
            session.open()
        self.session = session
        self.config: TableConfig = session.config
        self.clock = Clock()
        self.clock.advance(1_000.0)
        self.machine: Any = game_for(self.config).machine(session, self.clock, next_round_delay)
        for terminal, cents in (credits or dict.fromkeys(TERMINALS, CREDITS)).items():
            if cents:
                self.machine.cash_in(terminal, cents, "test")
        self.machine.open()
        self.models: dict[str, TerminalModel] = {}
        self.clients: dict[str, MachineClient] = {}
        self.bots: dict[str, Autoplay] = {}
        for terminal in TERMINALS:
            model = TerminalModel()
            model.apply_connection(ConnectionState.CONNECTED)
            client = MachineClient(self, terminal, model)
            self.models[terminal] = model
            self.clients[terminal] = client
            self.bots[terminal] = Autoplay(client)
            client.refresh()

    def view(self, terminal: str) -> dict[str, Any]:
        """The terminal's view as the wire carries it, with the table's shoe as the server
        adds it (``TableServerFactory``: the table corner's line)."""
        view = dict(self.machine.view(terminal))
        shoe = self.session.public_shoe()
        if shoe is not None:
            view["shoe"] = shoe
        return json.loads(json.dumps(view))

    def refresh(self) -> None:
        for client in self.clients.values():
            client.refresh()

    def step(self, who: tuple[str, ...] = TERMINALS) -> None:
        """Each bot of ``who`` plays what it sees; when nobody did anything, a second
        passes on the table's clock."""
        before = self._moves()
        self.refresh()
        for terminal in who:
            self.bots[terminal](self.models[terminal])
        self.refresh()
        if self._moves() == before:
            self.clock.advance(1.0)
            self.refresh()

    def _moves(self) -> object:
        """What changes when anybody acts: the steps in memory, or over a real log its
        last sequence number."""
        steps = getattr(self.session.sink, "steps", None)
        if steps is not None:
            return len(steps)
        return self.session.sink.head.seq


def model_of(view: dict[str, Any], rules: Any = None) -> TerminalModel:
    """A connected model that took ``view`` (and the rules document ``rules``)."""
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(view)
    if rules is not None:
        model.apply_document(Document.RULES, rules)
    return model


@cache
def screens_of(name: str, seed: int = 3) -> dict[str, dict[str, Any]]:
    """T1's views at ``name``'s table when its betting screen shows its bet in
    (``"betting"``), its play screen its last decision of the round (``"play"``: the most
    cards) and its results screen the round it played (``"results"``)."""
    table = Table(name, seed)
    found: dict[str, dict[str, Any]] = {}
    for _ in range(600):
        model = table.models["T1"]
        table.refresh()
        role = getattr(screen_for(model), "role", None)
        view = table.view("T1")
        if role == "betting" and model.in_round and "betting" not in found:
            found["betting"] = view
        elif role == "play" and model.my_turn and "results" not in found:
            found["play"] = view
        elif (
            role == "results"
            and view["phase"] == "complete"
            and view["settlements"]
            and "play" in found
            and "results" not in found
        ):
            found["results"] = view
        if len(found) == 3:
            return found
        table.step()
    raise AssertionError(
        f"{name}: the bots never showed T1 {sorted({'betting', 'play', 'results'} - set(found))}"
    )


def rules_of(name: str) -> dict[str, Any]:
    """The rules document of ``name``'s table (``GetRules``)."""
    config = load_config(example_path(name))
    return json.loads(json.dumps(game_for(config).rules_document(config)))
