"""The terminal's Spanish 21 table: its views are read by the Spanish 21 game, the play screen
has the RESCUE button (635a.10) in the slot of the choices that give up a wager and sends the
rescue, shows a win as it is settled, and the results name the Spanish 21 wager. Views are
built by the server's own code over a Spanish 21 session dealt from a stacked shoe; each
screen is drawn to a PNG (set ETG_SCREEN_PNGS to keep them)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from twisted.internet import task

pygame = pytest.importorskip("pygame")

from game_server.config import example_path, load_config  # noqa: E402
from game_server.games.spanish21.machine import Spanish21Machine, spanish21_view  # noqa: E402
from game_server.games.spanish21.rules.round import Spanish21Action  # noqa: E402
from game_server.games.spanish21.session import Spanish21Session  # noqa: E402
from game_server.rng.shoe import StackedShoe  # noqa: E402
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds  # noqa: E402
from terminal_client import games  # noqa: E402
from terminal_client.games.spanish21.screens import (  # noqa: E402
    RESCUE,
    Spanish21PlayScreen,
    Spanish21ResultsScreen,
)
from terminal_client.input import Tap  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.layout import DESTRUCTIVE_SLOT  # noqa: E402
from terminal_client.screens import screen_for  # noqa: E402

SIZE = (1280, 720)
PNG_DIR = os.environ.get("ETG_SCREEN_PNGS")
pytestmark = pytest.mark.usefixtures("headless")


class RecordingClient:
    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        self.sent.append(("act", action, hand))
        return True


def session(cards: str) -> Spanish21Session:
    """T1 and T2 seated, each wagering $10 and Match the Dealer, dealt ``cards``."""
    config = load_config(example_path("spanish21.toml"))
    shoes = SealedShoes(config, simulation_seeds(3, config.table_id), bytes(32), "test")
    table = Spanish21Session(config, MemorySink(), shoes, {"T1": 1, "T2": 2})
    table.open()
    for terminal in ("T1", "T2"):
        table.cash_in(terminal, 100_000, "test")
    table.start_round()
    for terminal in ("T1", "T2"):
        table.place_wagers(terminal, {"blackjack": 1000, "match_the_dealer": 100})
    table.shoe = StackedShoe(cards)
    table.deal()
    return table


def model_of(view: dict[str, Any]) -> TerminalModel:
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(view)
    return model


def draw(screen: Any, tmp_path: Path, name: str) -> None:
    surface = pygame.Surface(SIZE)
    screen.update(0.0)
    screen.draw(surface, Layout.for_window(SIZE))
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))
    if PNG_DIR:
        pygame.image.save(surface, str(Path(PNG_DIR) / f"{name}.png"))


def test_a_doubled_hand_gets_the_rescue_button_and_sends_the_rescue(tmp_path: Path) -> None:
    # T1: 3 5 (hit 3 = 11, double: 4 = 15) against a 9; T2: 7 7 against the 9.
    table = session("3C 7H 9D 5H 7S 5S 3D 4C")
    table.act("T1", Spanish21Action.HIT, 0)
    table.act("T1", Spanish21Action.DOUBLE, 0)
    view = spanish21_view(table, "T1")
    assert view["game"] == "spanish21" and sorted(view["actions"]) == ["rescue", "stand"]
    game = games.for_view(view)
    assert game.name == "spanish21"
    model = model_of(view)
    assert screen_for(model) is Spanish21PlayScreen
    client = RecordingClient()
    screen = Spanish21PlayScreen(model, client)  # type: ignore[arg-type]
    layout = Layout.for_window(SIZE)
    buttons = {b.id: b for b in screen.buttons(layout)}
    assert buttons[RESCUE].enabled and "surrender" not in buttons
    assert pygame.Rect(buttons[RESCUE].rect) == layout.action_buttons[DESTRUCTIVE_SLOT]
    assert not buttons["hit"].enabled and not buttons["double"].enabled
    draw(screen, tmp_path, "spanish21-rescue")
    screen.handle(Tap(f"button:{RESCUE}"))
    assert client.sent == [("act", "rescue", 0)]


def test_without_a_double_the_slot_keeps_surrender(tmp_path: Path) -> None:
    table = session("9C 7H 9D 7D 7S 5S")
    buttons = {
        b.id: b
        for b in Spanish21PlayScreen(
            model_of(spanish21_view(table, "T1")), RecordingClient()
        ).buttons(Layout.for_window(SIZE))  # type: ignore[arg-type]
    }
    assert buttons["surrender"].enabled and RESCUE not in buttons


def test_a_21_is_shown_as_it_is_settled_and_the_results_name_spanish21(tmp_path: Path) -> None:
    """At the live table, T1's five-card 21 is paid at once while T2 still plays: T1's
    message bar shows the line; at the end the results panel names the Spanish 21 wager."""
    config = load_config(example_path("spanish21.toml"))
    shoes = SealedShoes(config, simulation_seeds(3, config.table_id), bytes(32), "test")
    table = Spanish21Session(config, MemorySink(), shoes, {"T1": 1, "T2": 2})
    clock = task.Clock()
    machine = Spanish21Machine(table, clock, next_round_delay=5)
    table.open()
    for terminal in ("T1", "T2"):
        table.cash_in(terminal, 100_000, "test")
    machine.open()
    for terminal in ("T1", "T2"):
        machine.place_wagers(terminal, {"blackjack": 1000, "match_the_dealer": 100})
    table.shoe = StackedShoe("2C 7H 9D 3H 7S 5S 4D 5C 7C 9S")
    clock.advance(config.timers.betting_seconds)
    for _ in range(3):
        machine.act("T1", Spanish21Action.HIT, 0, None)
    model = model_of(machine.view("T1"))
    screen = Spanish21PlayScreen(model, RecordingClient())  # type: ignore[arg-type]
    assert screen.message() == "Spanish 21: Five-card 21 3 to 2 (635a.12(b)(5)) +$15.00"
    draw(screen, tmp_path, "spanish21-bonus")
    machine.act("T2", Spanish21Action.STAND, 0, None)
    model = model_of(machine.view("T1"))
    assert screen_for(model) is Spanish21ResultsScreen
    results = Spanish21ResultsScreen(model, RecordingClient())  # type: ignore[arg-type]
    assert [r.what for r in results.rows()] == ["Match the Dealer", "Spanish 21"]
    draw(results, tmp_path, "spanish21-results")


@pytest.mark.parametrize(
    ("cards", "up", "expected"),
    [
        (("3C", "5H", "3D", "4C"), "9D", "rescue"),
        (("3C", "5H", "3D", "4C"), "6D", "stand"),
        (("9C", "8H"), "AD", "rescue"),
        (("9C", "8H"), "KD", "stand"),
        (("9C", "9H"), "AD", "stand"),
    ],
)
def test_the_demo_bot_rescues_a_doubled_hand_as_the_strategy_says(
    cards: tuple[str, ...], up: str, expected: str
) -> None:
    from terminal_client.games.spanish21.bot import rescue_or_stand

    assert rescue_or_stand(cards, up) == expected


class RulesClient(RecordingClient):
    def request_rules(self) -> Any:
        return True


def test_the_rules_overlay_shows_the_spanish21_rules_and_the_match_the_dealer_paytable(
    tmp_path: Path,
) -> None:
    """The rules the server builds from the example Rules Submission, on the terminal's rules
    overlay: the game's page, its payouts page and the Match the Dealer paytable."""
    from game_server.games import game_for
    from terminal_client.model import Document
    from terminal_client.screens import ScreenStack
    from terminal_client.screens.rules import RulesScreen

    table = session("9C 7H 9D 7D 7S 5S")
    model = model_of(spanish21_view(table, "T1"))
    model.apply_document_requested(Document.RULES)
    document = json.loads(json.dumps(game_for(table.config).rules_document(table.config)))
    model.apply_document(Document.RULES, document)
    stack = ScreenStack()
    stack.push(Spanish21PlayScreen(model, RulesClient()))  # type: ignore[arg-type]
    rules = RulesScreen(model, RulesClient())  # type: ignore[arg-type]
    stack.push(rules)
    # The game, its pays, Match the Dealer's paytable, then the shoe (docs/shoe-spec.md).
    assert rules.page_count() == 4
    lines = [text for text, _ in rules.lines()]
    assert any("a player's 21 always wins" in line for line in lines)
    assert any(line.startswith("Dealer hits soft 17") for line in lines)
    for page in range(3):
        surface = pygame.Surface(SIZE)
        stack.update(0.0)
        stack.draw(surface, Layout.for_window(SIZE))
        pygame.image.save(surface, str(tmp_path / f"spanish21-rules-{page + 1}.png"))
        if PNG_DIR:
            pygame.image.save(surface, str(Path(PNG_DIR) / f"spanish21-rules-{page + 1}.png"))
        if page < 2:
            assert stack.handle(Tap("button:next"))
    assert ("1 Suited Match", "5 to 1") in rules.lines()


def test_635b_1_c_the_layout_has_a_match_the_dealer_area_for_each_player() -> None:
    """The betting layout gives the Match the Dealer wager its own circle beside the main
    wager's (635b.1(c)), with its one amount."""
    from terminal_client.screens.table import BettingScreen

    config = load_config(example_path("spanish21.toml"))
    shoes = SealedShoes(config, simulation_seeds(3, config.table_id), bytes(32), "test")
    table = Spanish21Session(config, MemorySink(), shoes, {"T1": 1})
    table.open()
    table.cash_in("T1", 100_000, "test")
    table.start_round()
    model = model_of(spanish21_view(table, "T1"))
    screen = BettingScreen(model, RecordingClient())  # type: ignore[arg-type]
    spots = {spot.id for spot in screen.spots(Layout.for_window(SIZE))}
    assert "match_the_dealer" in spots and "main" in spots
    assert model.limits["match_the_dealer"].minimum == model.limits["match_the_dealer"].maximum
