"""The Four Card Poker table on the terminal (terminal_client/games/fourcard): the server's
real views (a live machine) read by the terminal's Four Card Poker game and drawn on its own
screens: the ANTE, ACES UP and progressive circles while betting (a progressive circle
stepping through its fixed amounts), FOLD in its own slot and PLAY 1X 2X 3X on the decision,
the dealer's face-up card, this terminal's five cards, the countdown, the results panel and
the meters; the demo bot's simple strategy. ``FOURCARD_SCREENS=DIR`` also saves the
pictures."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from poker_views import Sent, machine_views  # noqa: E402

from game_server.config import example_path, load_config  # noqa: E402
from game_server.games.fourcard.machine import FourCardMachine  # noqa: E402
from game_server.games.fourcard.rules.analysis import hand_value, simple_decision  # noqa: E402
from game_server.games.fourcard.session import FourCardSession  # noqa: E402
from shared.cards import CARDS  # noqa: E402
from terminal_client.games.fourcard.game import FourCardTerminalGame, simple_strategy  # noqa: E402
from terminal_client.games.fourcard.model import fourcard_of  # noqa: E402
from terminal_client.games.fourcard.screens import (  # noqa: E402
    FourCardBettingScreen,
    FourCardPlayScreen,
    FourCardResultsScreen,
)
from terminal_client.input import Tap  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.elements import ElementCanvas, overlaps  # noqa: E402
from terminal_client.render.layout import DESTRUCTIVE_SLOT  # noqa: E402
from terminal_client.screens import screen_for  # noqa: E402
from terminal_client.screens.base import Screen  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")
SIZE = (1280, 720)
CONFIG = load_config(example_path("fourcard.toml"))
WAGERS = {"ante": 500, "aces_up": 100, "four_card_progressive": 100, "five_card_progressive": 100}


def live_views() -> dict[str, dict[str, Any]]:
    """T1's view while betting, on its decision and after the settlement."""
    return machine_views(CONFIG, FourCardSession, FourCardMachine, WAGERS, "play3")


def drawn(
    data: dict[str, Any], name: str, size: tuple[int, int] = SIZE
) -> tuple[TerminalModel, Screen, Layout, ElementCanvas]:
    """The view read by a new terminal's model and drawn by the screen its game picks (its
    countdown read first, as the app does before a frame)."""
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(data)
    assert model.last_error is None, model.last_error
    screen = screen_for(model)(model, Sent())  # type: ignore[arg-type]
    layout = Layout.for_window(size)
    surface = ElementCanvas(size)
    screen.update(0.0)
    screen.draw(surface, layout)
    folder = os.environ.get("FOURCARD_SCREENS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        wide = "" if size == SIZE else f"-{size[0]}x{size[1]}"
        pygame.image.save(surface, str(Path(folder) / f"fourcard-{name}{wide}.png"))
    return model, screen, layout, surface


def names(surface: ElementCanvas) -> set[str]:
    return {d.name for d in surface.drawn}


def test_betting_shows_the_felts_circles_the_countdown_and_no_wager_button() -> None:
    model, screen, layout, surface = drawn(live_views()["betting"], "betting")
    assert isinstance(model.game, FourCardTerminalGame)
    assert model.game.window_title(model) == "Four Card Poker"
    assert isinstance(screen, FourCardBettingScreen)
    spots = {spot.id: spot for spot in screen.spots(layout)}  # type: ignore[attr-defined]
    assert set(spots) == set(WAGERS)
    assert all(spot.enabled for spot in spots.values())
    assert not any(b.id.startswith("wager-") for b in screen.buttons(layout))
    assert {b.id for b in screen.buttons(layout)} == {"clear", "rebet", "deal"}
    assert {"countdown", "meters", "credits", "message", "table printing"} <= names(surface)
    # Every circle keeps to the window and to itself (none covers another).
    circles = [pygame.Rect(0, 0, 2 * s.radius, 2 * s.radius) for s in spots.values()]
    for spot, rect in zip(spots.values(), circles, strict=True):
        rect.center = spot.center
        assert layout.window.contains(rect), spot.id
    assert not any(a.colliderect(b) for i, a in enumerate(circles) for b in circles[i + 1 :])


def test_a_progressive_circle_steps_through_its_fixed_amounts() -> None:
    """The server takes only the configured amounts of a progressive wager ($1 or $5): a tap
    takes the next amount, past the largest it comes off; a chip goes on the Ante."""
    _, screen, _, _ = drawn(live_views()["betting"], "betting")
    assert isinstance(screen, FourCardBettingScreen)
    tap = "spot:four_card_progressive"
    seen = []
    for _ in range(3):
        screen.handle(Tap(tap))
        seen.append(screen.pending.get("four_card_progressive"))
    assert seen == [100, 500, None]
    screen.handle(Tap("chip:500"))
    screen.handle(Tap("spot:ante"))
    screen.handle(Tap("spot:ante"))
    assert screen.pending == {"ante": 1_000}
    screen.handle(Tap("button:deal"))
    assert screen.client.calls == [("place_wagers", {"ante": 1_000})]  # type: ignore[attr-defined]


def test_the_decision_lights_fold_and_play_1x_2x_3x_with_the_countdown() -> None:
    model, screen, layout, surface = drawn(live_views()["decision"], "play")
    assert isinstance(screen, FourCardPlayScreen)
    assert model.my_turn and model.legal_actions == {"fold", "play1", "play2", "play3"}
    buttons = {b.id: b for b in screen.buttons(layout)}
    assert {k: b.label for k, b in buttons.items()} == {
        "play1": "PLAY 1X",
        "play2": "PLAY 2X",
        "play3": "PLAY 3X",
        "fold": "FOLD",
    }
    assert all(b.enabled for b in buttons.values())
    # FOLD keeps the slot no harmless choice takes.
    assert buttons["fold"].rect == tuple(layout.action_buttons[DESTRUCTIVE_SLOT])
    assert {"countdown", "dealer", "your cards", "wagers", "buttons"} <= names(surface)
    assert model.countdown is not None and model.countdown.then == "fold"
    assert screen.message() == "FOLD, OR PLAY 1X, 2X OR 3X THE ANTE"
    # The label fits its button: one size for the row, read from the drawn pixels.
    assert screen.handle(Tap("button:play2")) is not None
    assert screen.client.calls == [("act", ("play2", 0))]  # type: ignore[attr-defined]
    assert len(model.my_hands[0].cards) == 5
    assert [m.wager for m in model.view.meters] == [  # type: ignore[union-attr]
        "four_card_progressive",
        "five_card_progressive",
        "must_hit_by",
    ]
    assert overlaps(surface.drawn) == []


def test_the_results_show_each_wager_and_both_hands() -> None:
    model, screen, _, surface = drawn(live_views()["results"], "results")
    assert isinstance(screen, FourCardResultsScreen)
    rows = screen.rows()
    # The reasons in plain words: the chapter's citation is left to recall.
    assert rows[0].detail == "Pair beats the dealer's High Card, pays 1 to 1"
    assert not any("Pa. Code" in r.detail or "641a" in r.detail for r in rows)
    # The progressive rows say the hand, not the wager's full name again (which shrank
    # the line to an unreadable size); the server's line keeps it for recall.
    assert [r.detail for r in rows[3:]] == ["Pair pays nothing", "Pair pays nothing"]
    assert model.results[3].line.startswith("Four-Card Progressive Payout Wager: ")
    assert [r.what for r in rows] == [
        "Ante",
        "Play",
        "Aces Up",
        "Four-Card Progressive",
        "Five-Card Progressive",
    ]
    assert {"results", "dealer", "your cards", "countdown"} <= names(surface)
    assert overlaps(surface.drawn) == []
    fc = fourcard_of(model)
    assert fc is not None and fc.hand == "Pair" and fc.dealer_hand == "High Card"
    assert fc.play_multiple == 3


@pytest.mark.parametrize("size", [(1920, 1080), (1080, 1920), (800, 600)])
def test_every_phase_is_drawn_without_overlap_at_other_sizes(size: tuple[int, int]) -> None:
    for name, data in live_views().items():
        _, _, _, surface = drawn(data, name, size)
        assert overlaps(surface.drawn) == [], (name, size)


def test_the_demo_bot_decides_as_the_servers_simple_strategy() -> None:
    """The terminal's copy of the simple strategy agrees with the server's statement of it
    on every hand of a sample of 5,000 (the terminal never imports the server; the server's
    bots play the optimal strategy by the up card)."""
    import random

    rng = random.Random(7)
    for _ in range(5_000):
        cards = rng.sample(CARDS, 5)
        multiple = simple_decision(hand_value(cards))
        want = f"play{multiple}" if multiple else "fold"
        assert simple_strategy([str(c) for c in cards]) == want, cards


def test_the_results_panel_shows_an_envy_bonus_payout() -> None:
    """641a.1: the Four-Card Envy Bonus the engine settles for seat 1's four of a kind is a
    row of its own on seat 2's panel, with its sum and a plain reason. The settlements of a
    stacked-deck round (turned into the view's shape by the machine's own ``Results``) are
    put into a live results view: its cards and message stay the live round's."""
    from game_server.games.fourcard.machine import Results
    from game_server.games.fourcard.rules.events import FourCardWagerSettled
    from game_server.games.fourcard.rules.game import Action, FourCardRound
    from game_server.rules.meters import Meter
    from tests.games.fourcard.test_fourcard_rules import Stacked

    rules = CONFIG.rules
    game = FourCardRound(rules, CONFIG.table_id)
    game.place_wagers(1, {"ante": 500, "four_card_progressive": 100})
    game.place_wagers(2, WAGERS)
    game.deal(Stacked("9S 9H 9D 9C 2S 2H 5D 8C JH KD AH AD KH QD 8D 7H"))
    for seat in game.pending:
        game.decide(seat, Action.PLAY, 1)
    meters = {m: Meter.open(m, rules.meters()[m]).meter for m in game.meter_ids_needed()}
    settled = [e for e in game.settle(meters) if type(e) is FourCardWagerSettled and e.seat == 2]

    class OneTerminal:
        def __init__(self) -> None:
            self.terminal_of = {2: "T1"}
            self.round = None

    results = Results(OneTerminal())  # type: ignore[arg-type]
    results.step_logged(settled)
    data = live_views()["results"]
    data["settlements"] = json.loads(json.dumps(results.of("T1")))
    _, screen, _, surface = drawn(data, "results-envy")
    assert isinstance(screen, FourCardResultsScreen)
    rows = screen.rows()
    envy = [r for r in rows if r.what == "Four-Card Envy Bonus"]
    assert len(envy) == 1
    assert "Four of a Kind at seat 1" in envy[0].detail and "641a" not in envy[0].detail
    assert any(r.what == "Four-Card Progressive" for r in rows)
    assert overlaps(surface.drawn) == []
