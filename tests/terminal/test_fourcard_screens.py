"""The Four Card Poker table on the terminal (terminal_client/games/fourcard): the server's
real views (a live machine) read by the terminal's Four Card Poker game and drawn on the
fallback screen: a button per wager while betting, FOLD in its own slot and PLAY 1X 2X 3X on
the decision, the dealer's face-up card, this terminal's five cards, the settlements and the
meters; the demo bot's simple strategy. ``FOURCARD_SCREENS=DIR`` also saves the pictures."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from twisted.internet.task import Clock  # noqa: E402

from game_server.config import example_path, load_config  # noqa: E402
from game_server.games.fourcard.machine import FourCardMachine  # noqa: E402
from game_server.games.fourcard.rules.strategy import decide_cards  # noqa: E402
from game_server.games.fourcard.session import FourCardSession  # noqa: E402
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds  # noqa: E402
from shared.cards import CARDS  # noqa: E402
from terminal_client.games.fourcard.game import FourCardTerminalGame, simple_strategy  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.screens import screen_for  # noqa: E402
from terminal_client.screens.fallback import FallbackScreen  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")
SIZE = (1280, 720)
CONFIG = load_config(example_path("fourcard.toml"))
WAGERS = {"ante": 500, "aces_up": 100, "four_card_progressive": 100, "five_card_progressive": 100}


class Sent:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def place_wagers(self, wagers: Any, position: int | None = None) -> object:
        self.calls.append(("place_wagers", dict(wagers)))
        return object()

    def act(self, action: str, hand: int, amount: int = 0) -> object:
        self.calls.append(("act", (action, hand)))
        return object()

    def request_recall(self) -> bool:
        return True


def live_views() -> dict[str, dict[str, Any]]:
    """T1's view while betting, on its decision, and after the settlement."""
    shoes = SealedShoes(CONFIG, simulation_seeds(4, CONFIG.table_id), bytes(32), "k")
    session = FourCardSession(CONFIG, MemorySink(), shoes, {"T1": 1, "T2": 3})
    session.open()
    clock = Clock()
    machine = FourCardMachine(session, clock, next_round_delay=3.0)
    for terminal in ("T1", "T2"):
        machine.cash_in(terminal, 50_000, "test")
    machine.open()
    out = {"betting": machine.view("T1")}
    machine.place_wagers("T1", WAGERS)
    machine.place_wagers("T2", {"ante": 1_000})
    clock.advance(CONFIG.timers.betting_seconds)
    out["decision"] = machine.view("T1")
    machine.act("T1", "play3", 0, None)
    clock.advance(CONFIG.timers.decision_seconds)
    out["results"] = machine.view("T1")
    return {k: json.loads(json.dumps(v)) for k, v in out.items()}


def drawn(data: dict[str, Any], name: str) -> tuple[TerminalModel, FallbackScreen, Layout]:
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(data)
    assert model.last_error is None, model.last_error
    screen = FallbackScreen(model, Sent())  # type: ignore[arg-type]
    layout = Layout.for_window(SIZE)
    surface = pygame.Surface(SIZE)
    screen.draw(surface, layout)
    folder = os.environ.get("FOURCARD_SCREENS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        pygame.image.save(surface, str(Path(folder) / f"fourcard-{name}.png"))
    return model, screen, layout


def test_the_table_is_read_by_its_game_and_drawn_in_each_phase() -> None:
    views = live_views()
    model, screen, layout = drawn(views["betting"], "betting")
    assert isinstance(model.game, FourCardTerminalGame)
    assert model.game.window_title(model) == "Four Card Poker"
    assert screen_for(model) is FallbackScreen
    ids = {b.id for b in screen.buttons(layout)}
    assert {f"wager-{w}" for w in WAGERS} <= ids

    model, screen, layout = drawn(views["decision"], "play")
    assert model.my_turn and model.legal_actions == {"fold", "play1", "play2", "play3"}
    ids = {b.id for b in screen.buttons(layout)}
    assert {"act-fold", "act-play1", "act-play2", "act-play3"} <= ids
    assert len(model.my_hands[0].cards) == 5
    assert [m.wager for m in model.view.meters] == [  # type: ignore[union-attr]
        "four_card_progressive",
        "five_card_progressive",
        "must_hit_by",
    ]

    model, _, _ = drawn(views["results"], "results")
    wagers = {s.wager for s in model.view.settlements}  # type: ignore[union-attr]
    assert {"ante", "play", "aces_up", "four_card_progressive"} <= wagers


def test_the_demo_bot_decides_as_the_servers_strategy() -> None:
    """The terminal's copy of the simple strategy agrees with the server's on every hand of
    a sample of 5,000 (the terminal never imports the server)."""
    import random

    rng = random.Random(7)
    for _ in range(5_000):
        cards = rng.sample(CARDS, 5)
        _, multiple = decide_cards(cards)
        want = f"play{multiple}" if multiple else "fold"
        assert simple_strategy([str(c) for c in cards]) == want, cards
