"""The results panel's words (terminal_client.screens.results): a player reads what each
wager did in plain words and what it won or lost net of its stake; the regulation's
citations are left to recall."""

from __future__ import annotations

import pytest

from game_server.games.blackjack.rules import round as blackjack
from game_server.games.hybrid.rules import no_hole_card, three_position
from game_server.games.uth.rules import game as uth
from game_server.rules.wagers import buzzer_beater
from terminal_client.games.uth.screens import LINE_TITLES
from terminal_client.screens.results import (
    headline,
    net_text,
    outcome_word,
    plain_detail,
    strip_citations,
)

ENGINE_LINES = [
    value
    for module in (blackjack, no_hole_card, three_position, buzzer_beater, uth)
    for name, value in vars(module).items()
    if name.startswith("LINE_") and isinstance(value, str)
]


@pytest.mark.parametrize(
    ("line", "plain"),
    [
        (blackjack.LINE_WIN, ""),
        (blackjack.LINE_BLACKJACK, "Blackjack pays 3 to 2"),
        (three_position.LINE_DEALER_BUST, "Dealer over 21"),
        (three_position.LINE_LOSS, "Dealer's total is higher"),
        (no_hole_card.LINE_BUST, "Bust"),
        (three_position.LINE_PUSH, "Equal totals"),
        (blackjack.LINE_SURRENDER, "Surrender, half returned"),
        (uth.LINE_WIN, ""),
        (uth.LINE_NOT_QUALIFIED, "Dealer does not qualify"),
        (uth.LINE_TIE, "Tie"),
        ("Fold (653a.7, 653a.11)", "Folded"),
        ("Blind Paytable A: Flush 3 to 2 (653a.12(b))", "Flush pays 3 to 2"),
        ("Blind Paytable A: Less than a straight: Push (653a.12(b))", "Less than a straight"),
        ("Trips Paytable A: no win (653a.12(c))", ""),
        ("Progressive Payout: Flush 40 for 1 (653a.12(d)(1)-(2))", "Flush pays 40 for 1"),
        ("Magic Card (player's hand) 20 for 1 (653a.12(e)(3))", "Pays 20 for 1"),
        ("Two pair (2x king of diamonds)", "Two pair (2x king of diamonds)"),
    ],
)
def test_a_paytable_line_in_plain_words(line: str, plain: str) -> None:
    """The outcome's own words and the citations are left out, odds read "pays"."""
    assert plain_detail(line, LINE_TITLES) == plain


@pytest.mark.parametrize("line", ENGINE_LINES)
def test_no_engine_line_shows_a_citation_to_a_player(line: str) -> None:
    """Whatever line the engines settle with, the player reads no section number."""
    shown = plain_detail(line, LINE_TITLES)
    assert "633" not in shown and "653a" not in shown and "(" not in shown.replace("(2x", "")


def test_citations_with_nested_parentheses_are_removed_whole() -> None:
    assert strip_citations("Blackjack 3 to 2, paid at once (633b.5(p)(1), (v)(1))") == (
        "Blackjack 3 to 2, paid at once"
    )


def test_amounts_are_net_and_the_headline_is_their_sum() -> None:
    """A lost $5 Ante reads -$5.00 (not "$0.00" paid) and a won one +$5.00 (not the $10.00
    returned); the headline is the sum of the lines."""
    assert net_text(-500) == "\u2212$5.00"
    assert net_text(500) == "+$5.00"
    assert net_text(0) == "$0.00"
    assert headline([500, -200], True) == "YOU WIN $3.00"
    assert headline([-500], True) == "YOU LOSE $5.00"
    assert headline([0], True) == "PUSH"
    assert headline([], False) == "NO WAGERS THIS ROUND"
    assert outcome_word("pushed") == "PUSH" and outcome_word("odd") == "ODD"
