"""Every view a terminal is sent carries its table's shoe (number and commitment of the shoe
in use, the reveal of the last one retired), for every registered game without the game
doing anything; and nothing secret of a shoe (its seed, nonce, salt, order, the cards still
in it) is in any view before that shoe is retired: a scan of every view of every terminal
after every logged step, as the hole-card tests scan the dealer's card."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pytest
from twisted.internet.task import Clock

from game_server.config import load_config
from game_server.games import games
from game_server.games.api import Game
from game_server.net.floor import FloorConfig
from game_server.net.server import TableServerFactory
from game_server.rng.shoe import ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.table.events import ShoeCommitted, ShoeRevealed
from game_server.table.session import MemorySink, SealedShoes, SeedSource, TableBook
from shared.errors import ETGError
from terminal_client.app import Autoplay
from terminal_client.model import TerminalModel
from tools.verify_receipt import commitment, shuffled_shoe

TERMINALS = {"T1": 1, "T2": 2, "T3": 3}

EXAMPLES = [
    pytest.param(game, path, id=f"{game.name}-{path.stem}")
    for game in games()
    for path in game.examples
]


class _Scanner:
    """After every logged step: each terminal's view as the server sends it, scanned."""

    def __init__(self, factory: TableServerFactory, book: TableBook) -> None:
        self.factory = factory
        self.book = book
        self.views = 0
        self.committed: dict[int, str] = {}
        self.revealed: dict[int, ShoeRevealed] = {}
        self.retired_seen: set[int] = set()

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        for ev in events:
            if type(ev) is ShoeCommitted:
                self.committed[ev.shoe] = ev.commitment
            elif type(ev) is ShoeRevealed:
                self.revealed[ev.shoe] = ev
        for terminal in TERMINALS:
            self.scan(self.factory.view_for(terminal))

    def scan(self, view: dict[str, Any]) -> None:
        self.views += 1
        shoe = self.book.shoe
        shown = view["shoe"]
        text = json.dumps(view)
        if shoe is not None:
            number = self.book.shoe_number
            current = shown["current"]
            assert current["number"] == number
            assert current["commitment"] == self.committed[number]
            assert current["dealt"] == shoe.position
            seed = shoe.seed
            secrets = {
                "entropy input": seed.entropy_input.hex(),
                "nonce": seed.nonce.hex(),
                "salt": self.book._salt.hex(),
                "order": shoe.order_bytes().hex(),
                "cards still in the shoe": json.dumps(
                    [str(c) for c in shoe.order[shoe.position :][:3]]
                ),
            }
            for what, secret in secrets.items():
                assert secret not in text, f"the view shows the {what} of shoe {number} in use"
        retired = shown["retired"] if shown is not None else None
        if retired is not None:
            revealed = self.revealed[retired["number"]]
            assert retired["salt"] == revealed.salt
            assert retired["entropy_input"] == revealed.entropy_input
            # What a terminal shows is enough to check the retired shoe on its own.
            order = shuffled_shoe(
                self.book.config.rules.decks,
                bytes.fromhex(revealed.entropy_input),
                bytes.fromhex(revealed.nonce),
                bytes.fromhex(revealed.personalization),
            )
            assert commitment(order, bytes.fromhex(revealed.salt)) == retired["commitment"]
            assert retired["commitment"] == self.committed[retired["number"]]
            self.retired_seen.add(retired["number"])


def _seeds(table_id: str) -> SeedSource:
    """Seed material and salt of its own for each shoe (the simulation's seeds share the
    entropy input across shoes, which would look like a leak of one shoe by another)."""

    def make(number: int) -> tuple[ShoeSeed, bytes]:
        seed = ShoeSeed.from_test_seed(1000 + number, table_id, number)
        return seed, hashlib.sha256(b"salt" + seed.entropy_input).digest()

    return make


class _Terminal:
    """A terminal played by its game's demo bot (the terminal's own ``Autoplay``), its
    intents sent straight to the machine and answered with the view the server sends."""

    def __init__(self, terminal: str, machine: Any, factory: TableServerFactory) -> None:
        self.terminal, self.machine, self.factory = terminal, machine, factory
        self.model = TerminalModel()
        self.bot = Autoplay(self)
        self.sent = 0

    def refresh(self) -> None:
        self.model.apply_view(self.factory.view_for(self.terminal))

    def play(self) -> bool:
        """Let the bot act on the latest view; True when it sent something."""
        before = self.sent
        self.refresh()
        self.bot(self.model)
        return self.sent > before

    def _run(self, operation: Any, *args: Any) -> None:
        self.sent += 1
        # A refusal (the table says why) is left to the countdown, as at a real terminal.
        with contextlib.suppress(ETGError):
            operation(self.terminal, *args)

    def place_wagers(self, wagers: Any, position: int | None = None) -> None:
        self._run(self.machine.place_wagers, dict(wagers), position)

    def act(self, action: str, hand: int, amount: int = 0) -> None:
        decision = self.machine.parse_action(self.terminal, action)
        self._run(self.machine.act, decision, hand, amount or None)

    def answer_insurance(self, choice: str, amount: int = 0) -> None:
        self._run(self.machine.answer_insurance, choice, amount)


@pytest.mark.parametrize(("game", "path"), EXAMPLES)
def test_every_view_shows_the_shoe_and_no_secret_of_it(game: Game, path: Path) -> None:
    config = load_config(path)
    shoes = SealedShoes(config, _seeds(config.table_id), bytes(32), "test")
    session = game.open_session(config, MemorySink(), shoes, TERMINALS, MeterBank())
    session.open()
    clock = Clock()
    machine = game.machine(session, clock, 1.0)
    factory = TableServerFactory(machine, FloorConfig(terminals=TERMINALS), clock)
    scanner = _Scanner(factory, session)
    machine.add_listener(scanner)
    assert factory.view_for("T1")["shoe"] is None  # no shoe dealt yet
    machine.open()
    for terminal in TERMINALS:
        machine.cash_in(terminal, 1_000_000, "test")
    players = [_Terminal(terminal, machine, factory) for terminal in TERMINALS]
    for _ in range(3000):
        moved = [player.play() for player in players]
        if not any(moved):
            clock.advance(1)
        if len(scanner.retired_seen) >= 2 and session.round_id >= 3:
            break
    assert scanner.views > 50
    assert len(scanner.retired_seen) >= 2, (
        f"only shoes {sorted(scanner.retired_seen)} retired in {session.round_id} rounds"
    )
