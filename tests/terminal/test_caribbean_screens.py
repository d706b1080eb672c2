"""The Caribbean Stud Poker table on the terminal (terminal_client/games/caribbean): the
server's real views (a live machine, tests/terminal/caribbean_views.py) read by the
terminal's game and drawn on its own screens: the ANTE circle and the side wagers' circles
(stepping through their fixed amounts) while betting; on the decision FOLD in its own slot
and BET 2X with its amount, no wager control; the dealer's cards and this terminal's five
large; the platform's meters panel; the results panel in plain words (the citations left
to recall). ``CARIBBEAN_SCREENS=DIR`` also saves the pictures."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from caribbean_views import WAGERS, live_views  # noqa: E402
from poker_views import Sent  # noqa: E402

from terminal_client.games.caribbean.game import CaribbeanTerminalGame  # noqa: E402
from terminal_client.games.caribbean.model import caribbean_of  # noqa: E402
from terminal_client.games.caribbean.screens import (  # noqa: E402
    CaribbeanBettingScreen,
    CaribbeanPlayScreen,
    CaribbeanResultsScreen,
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
PORTRAIT = (1080, 1920)


def drawn(
    data: dict[str, Any], name: str, size: tuple[int, int] = SIZE
) -> tuple[TerminalModel, Screen, Layout, ElementCanvas]:
    """The view read by a new terminal's model and drawn by the screen its game picks."""
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(data)
    assert model.last_error is None, model.last_error
    screen = screen_for(model)(model, Sent())  # type: ignore[arg-type]
    layout = Layout.for_window(size)
    surface = ElementCanvas(size)
    screen.update(0.0)
    screen.draw(surface, layout)
    folder = os.environ.get("CARIBBEAN_SCREENS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        pygame.image.save(surface, str(Path(folder) / f"caribbean-{name}-{size[0]}x{size[1]}.png"))
    return model, screen, layout, surface


def names(surface: ElementCanvas) -> set[str]:
    return {d.name for d in surface.drawn}


def test_betting_shows_the_circles_the_meters_panel_and_no_wager_button() -> None:
    model, screen, layout, surface = drawn(live_views()["betting"], "betting")
    assert isinstance(model.game, CaribbeanTerminalGame)
    assert isinstance(screen, CaribbeanBettingScreen)
    spots = {spot.id: spot for spot in screen.spots(layout)}  # type: ignore[attr-defined]
    assert set(spots) == set(WAGERS)
    assert all(spot.enabled for spot in spots.values())
    assert {b.id for b in screen.buttons(layout)} == {"clear", "rebet", "deal"}
    # The meters are the platform's panel (not lines of text), with the Must-Hit-By
    # meter's amount it must hit by.
    assert {"countdown", "meters", "credits", "message", "table printing"} <= names(surface)
    meters = {m.wager: m for m in model.view.meters}  # type: ignore[union-attr]
    assert set(meters) == {"progressive", "five_card_player", "must_hit_by"}
    assert meters["must_hit_by"].must_hit_by == 20_000
    assert meters["progressive"].amount == 1_000_000
    assert screen.message() == "PLACE YOUR ANTE"


def test_a_side_wager_steps_through_its_fixed_amounts_and_deal_sends_one_bet() -> None:
    """The server takes only the configured amounts of the Five Card Hand Bonus ($1 or $5)
    and of the Progressive Payout Wager ($1): a tap takes the next, past the largest it
    comes off; chips go on the Ante."""
    _, screen, _, _ = drawn(live_views()["betting"], "betting")
    assert isinstance(screen, CaribbeanBettingScreen)
    seen = []
    for _ in range(3):
        screen.handle(Tap("spot:five_card_dealer"))
        seen.append(screen.pending.get("five_card_dealer"))
    assert seen == [100, 500, None]
    screen.handle(Tap("spot:progressive"))
    screen.handle(Tap("chip:500"))
    screen.handle(Tap("spot:ante"))
    screen.handle(Tap("spot:ante"))
    screen.handle(Tap("spot:bet"))  # the Bet is the decision: not a betting spot
    assert screen.pending == {"ante": 1_000, "progressive": 100}
    screen.handle(Tap("button:deal"))
    assert screen.client.calls == [  # type: ignore[attr-defined]
        ("place_wagers", {"ante": 1_000, "progressive": 100})
    ]


@pytest.mark.parametrize("size", [SIZE, PORTRAIT])
def test_the_decision_shows_fold_and_bet_2x_and_no_wager_control(size: tuple[int, int]) -> None:
    model, screen, layout, surface = drawn(live_views()["decision"], "play", size)
    assert isinstance(screen, CaribbeanPlayScreen)
    assert model.my_turn and model.legal_actions == {"bet", "fold"}
    buttons = {b.id: b for b in screen.buttons(layout)}
    assert {k: b.label for k, b in buttons.items()} == {"bet": "BET 2X $10.00", "fold": "FOLD"}
    assert all(b.enabled for b in buttons.values())
    assert buttons["fold"].rect == tuple(layout.action_buttons[DESTRUCTIVE_SLOT])
    # No ANTE button (greyed or not) once betting is over; the wagers lie on their circles.
    drawn_buttons = [d for d in surface.drawn if d.name == "buttons"]
    assert len(drawn_buttons) == 1
    assert {"countdown", "dealer", "your cards", "wagers", "meters"} <= names(surface)
    assert screen.message() == "FOLD, OR BET 2X THE ANTE"
    assert screen.handle(Tap("button:bet")) is not None
    assert screen.client.calls == [("act", ("bet", 0))]  # type: ignore[attr-defined]
    assert overlaps(surface.drawn) == []


def test_this_terminals_cards_are_drawn_large() -> None:
    """Five cards at least a third of the window's height (the old seat box drew them at
    a ninth)."""
    _, _, _, surface = drawn(live_views()["decision"], "play")
    (mine,) = [d for d in surface.drawn if d.name == "your cards"]
    assert mine.rect.height >= SIZE[1] // 3 - 40, mine.rect
    assert mine.rect.width >= SIZE[0] // 2


@pytest.mark.parametrize("size", [SIZE, PORTRAIT])
def test_the_results_read_in_plain_words_without_citations(size: tuple[int, int]) -> None:
    model, screen, _, surface = drawn(live_views()["results"], "results", size)
    assert isinstance(screen, CaribbeanResultsScreen)
    rows = screen.rows()
    assert [r.what for r in rows] == [
        "Ante",
        "Bet",
        "Progressive Payout",
        "Five Card Bonus",
        "Dealer Five Card Bonus",
    ]
    # The server's lines cite their paragraphs; the panel does not (recall does).
    assert all("639a" in s.line for s in model.results)
    assert not any("639" in r.detail or "653a" in r.detail for r in rows)
    assert rows[0].detail == "Dealer's hand wins"
    assert rows[3].detail == ""  # "Five Card Hand Bonus (player's hand): no win" says LOST
    assert {"results", "dealer", "your cards", "countdown", "meters"} <= names(surface)
    assert not any(d.name == "buttons" for d in surface.drawn)
    assert overlaps(surface.drawn) == []
    cv = caribbean_of(model)
    assert cv is not None and cv.hand == "Pair" and cv.dealer_hand == "Pair"


def test_a_folded_hand_says_so() -> None:
    model, screen, _, _ = drawn(live_views(decision="fold")["results"], "results-folded")
    cv = caribbean_of(model)
    assert cv is not None and cv.folded
    assert isinstance(screen, CaribbeanResultsScreen)
    assert screen.rows()[0].detail == "Folded"


@pytest.mark.parametrize("size", [(1920, 1080), (800, 600)])
def test_every_phase_is_drawn_without_overlap_at_other_sizes(size: tuple[int, int]) -> None:
    for name, data in live_views().items():
        _, _, _, surface = drawn(data, name, size)
        assert overlaps(surface.drawn) == [], (name, size)


@pytest.mark.parametrize("size", [SIZE, PORTRAIT])
def test_the_bet_total_keeps_clear_of_the_circles(size: tuple[int, int]) -> None:
    """The bet's total ("BET $15.00", 440 x 100 layout units) is where the cards will be,
    not over a circle (in portrait the platform's place for it is the circles' row)."""
    _, screen, layout, _ = drawn(live_views()["betting"], "betting", size)
    assert isinstance(screen, CaribbeanBettingScreen)
    s = layout.scale
    total = pygame.Rect(0, 0, round(440 * s), round(100 * s))
    total.center = screen.bet_total_centre(layout)
    for spot in screen.spots(layout):
        circle = pygame.Rect(0, 0, 2 * spot.radius, 2 * spot.radius)
        circle.center = spot.center
        assert not total.colliderect(circle), spot.id
