"""The same things look and read the same at every table: the countdown says what it does
at zero at every game, the table printing separates its parts with a bullet, a hand over 21
says BUST (the dealer's 26 too), the seat box says the total at risk after splits and a
double, and the attract screen invites to the table's own game."""

from __future__ import annotations

import copy
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from every_table import CONFIGS, model_of, rules_of, screens_of  # noqa: E402
from test_type_scale import draw_screen  # noqa: E402

from terminal_client import games  # noqa: E402
from terminal_client.model import hand_total  # noqa: E402
from terminal_client.model.view import Hand, Seat  # noqa: E402
from terminal_client.render.elements import DrawnText  # noqa: E402
from terminal_client.screens import AttractScreen  # noqa: E402
from terminal_client.screens.scene import at_risk  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")


@pytest.mark.parametrize("config", CONFIGS)
def test_every_game_says_what_its_countdowns_do_at_zero(config: str) -> None:
    """The betting countdown says "deal" and the pause after the results "next round" at
    every table (Caribbean Stud said nothing, Four Card Poker nothing after the results)."""
    betting = model_of(screens_of(config)["betting"]).countdown
    results = model_of(screens_of(config)["results"]).countdown
    assert betting is not None and (betting.kind, betting.then) == ("betting", "deal")
    assert results is not None and (results.kind, results.then) == ("next-round", "next round")


def test_every_table_printing_separates_its_parts_with_a_bullet() -> None:
    """No game's first felt line runs two phrases together ("SPANISH 21  BLACKJACK ...")."""
    for game in games.games():
        for line in game.felt_lines:
            assert "  " not in line, (game.name, line)


def test_a_hand_over_21_says_bust_and_the_dealers_bust_is_drawn_so() -> None:
    """A total over 21 reads BUST; the results screen of a round the dealer busted draws
    BUST under his cards, not 26."""
    assert hand_total(["TD", "6S", "KH"]).text == "BUST"
    assert hand_total(["AS", "6S"]).text == "7/17"
    view = copy.deepcopy(screens_of("fully-automated-blackjack.toml")["results"])
    view["dealer"]["cards"] = ["TD", "6S", "KH"]
    view["dealer"]["total"] = 26
    _canvas, texts, _layout, screen = draw_screen(view, None, (1920, 1080))
    drawn = {t.text for t in texts if isinstance(t, DrawnText)}
    assert screen.role == "results"
    assert "BUST" in drawn and "26" not in drawn


def _hand(index: int, wagers: dict[str, int]) -> Hand:
    return Hand(index, ("8S", "3D"), 11, False, "11", wagers, False, False)


def test_the_seat_box_says_the_total_at_risk_after_splits_and_a_double() -> None:
    """$6 split twice, one hand doubled, and a $1 Lucky Aces: $6 x 3 hands + $6 double +
    $1 = $25 at risk (it said $7, the seat's first wagers)."""
    seat = Seat(
        1,
        True,
        {"blackjack": 600, "lucky_aces": 100},
        True,
        (
            _hand(0, {"blackjack": 600, "double": 600}),
            _hand(1, {"blackjack": 600}),
            _hand(2, {"blackjack": 600}),
        ),
    )
    assert at_risk(seat) == 2_500
    view: dict[str, Any] = copy.deepcopy(screens_of("fully-automated-blackjack.toml")["play"])
    mine = next(s for s in view["seats"] if s["seat"] == view["seat"])
    mine["wagers"] = {"blackjack": 600, "lucky_aces": 100}
    mine["hands"] = [
        {
            "index": i,
            "cards": ["8S", "3D"],
            "total": 11,
            "soft": False,
            "wagers": w,
            "done": False,
            "settled": False,
        }
        for i, w in enumerate(
            [{"blackjack": 600, "double": 600}, {"blackjack": 600}, {"blackjack": 600}]
        )
    ]
    _canvas, texts, _layout, _screen = draw_screen(view, None, (1920, 1080))
    drawn = " ".join(t.text for t in texts if isinstance(t, DrawnText))
    assert "3 HANDS \u2022 $25.00" in drawn


@pytest.mark.parametrize("config", CONFIGS)
def test_the_attract_screen_invites_to_the_tables_own_game(config: str) -> None:
    """Closed, or idle without credits, the terminal shows its table's game and the first
    lines of its own rules (it said BLACKJACK / BLACKJACK PAYS 3 TO 2 at every table)."""
    rules = rules_of(config)
    view = copy.deepcopy(screens_of(config)["betting"])
    view["state"] = "closed"
    model = model_of(view)
    asked: list[bool] = []

    class Client:
        def request_rules(self) -> bool:
            asked.append(True)
            from terminal_client.model import Document

            model.apply_document(Document.RULES, rules)
            return True

    screen = AttractScreen(model, Client())  # type: ignore[arg-type]
    screen.enter()
    title, lines = screen.summary()
    assert asked and title == rules["game"].upper()
    assert lines == tuple(rules["lines"][:2])
    assert config.startswith(("fully", "hybrid", "spanish")) or "BLACKJACK" not in title
