"""Four Card Poker's exact math: the class counting of rules/math.py against a card-by-card
count over reduced decks and against closed forms over the full deck; ``etg math aces_up
--all`` against those counts; and the published Aces Up house edges reproduced (Wikipedia
"Four Card Poker", after the Wizard of Odds: "a house edge ranging from 1.98% to 6.15%")."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from math import comb

import pytest
from click.testing import CliRunner

from game_server.games.fourcard.rules.hands import FIVE_CARD_NAMES, best_four, four_card_name
from game_server.games.fourcard.rules.math import five_card_counts, four_card_counts
from game_server.rules.poker import Category5, rank_hand
from shared.cards import Card
from tools.cli import main


def brute_force(ranks: tuple[int, ...]) -> tuple[Counter[str], Counter[str]]:
    """Every five-card hand of a deck of ``ranks`` in four suits, one by one."""
    deck = [Card(r, s) for r in ranks for s in range(4)]
    four: Counter[str] = Counter()
    five: Counter[str] = Counter()
    for hand in combinations(deck, 5):
        four[four_card_name(best_four(hand))] += 1
        five[FIVE_CARD_NAMES[Category5(rank_hand(hand).category)]] += 1
    return four, five


@pytest.mark.parametrize(
    "ranks",
    [
        (2, 3, 4, 5, 14),  # the wheel's ranks: straights and straight flushes with the ace low
        (9, 10, 11, 12, 13, 14),  # the top: royal flushes, pairs of aces
        (2, 3, 7, 8, 9),  # no four in a row below the ace
    ],
)
def test_class_counting_equals_the_card_by_card_count(ranks: tuple[int, ...]) -> None:
    four, five = brute_force(ranks)
    assert four_card_counts(ranks) == dict(four)
    assert five_card_counts(ranks) == dict(five)


FULL_DECK = 2_598_960
#: Closed forms over the full deck (best four of five, 641a.6(b)): four of a kind 13 x 48;
#: straight flush: 11 suited runs of four x 4 suits x 48 fifth cards, less the 40 five-card
#: straight flushes counted twice; three of a kind: 13 x C(4,3) x C(48,2); flush: four or
#: five cards of a suit, less those holding a straight flush.
CLOSED = {
    "Four of a Kind": 13 * 48,
    "Straight Flush": 11 * 4 * 48 - 40,
    "Three of a Kind": 13 * comb(4, 3) * comb(48, 2),
    "Flush": 4 * comb(13, 5) + 4 * comb(13, 4) * 39 - (11 * 4 * 48 - 40),
}


def test_full_deck_counts_match_the_closed_forms() -> None:
    counts = four_card_counts()
    assert sum(counts.values()) == FULL_DECK == comb(52, 5)
    assert {name: counts[name] for name in CLOSED} == CLOSED
    five = five_card_counts()
    assert (five["Royal Flush"], five["Straight Flush"], five["Four of a Kind"]) == (4, 36, 624)
    assert sum(five.values()) == FULL_DECK


def test_etg_math_aces_up_all_equals_the_independent_counts() -> None:
    result = CliRunner().invoke(main, ["math", "aces_up", "--all", "--json"])
    assert result.exit_code == 0, result.output
    tables = json.loads(result.output)
    assert len(tables) == 4
    for table in tables:
        lines = {line["line"]: line["combinations"] for line in table["lines"]}
        assert {name: lines[name] for name in CLOSED} == CLOSED
        assert table["total"] == FULL_DECK
        assert table["losing"] == FULL_DECK - sum(lines.values())


@pytest.mark.parametrize(
    ("paytable", "published"),
    [("50-40-9-6-4-2-1", 1.98), ("50-40-7-5-4-3-1", 6.15)],
)
def test_the_published_aces_up_house_edges_are_reproduced(paytable: str, published: float) -> None:
    result = CliRunner().invoke(main, ["math", "aces_up", "--paytable", paytable, "--json"])
    assert result.exit_code == 0, result.output
    assert round(json.loads(result.output)["house_edge"] * 100, 2) == published


def test_etg_math_refuses_an_unknown_aces_up_paytable_and_other_decks() -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["math", "aces_up", "--paytable", "Paytable Z"])
    assert bad.exit_code != 0 and "not an Aces Up paytable" in bad.output
    decks = runner.invoke(main, ["math", "aces_up", "--all", "--decks", "2"])
    assert decks.exit_code != 0 and "one 52-card deck" in decks.output


def test_etg_math_progressives_state_their_hands_and_return() -> None:
    runner = CliRunner()
    four = runner.invoke(main, ["math", "four_card_progressive", "--json"])
    five = runner.invoke(main, ["math", "five_card_progressive", "--json"])
    assert four.exit_code == 0 and five.exit_code == 0, four.output + five.output
    four_data, five_data = json.loads(four.output), json.loads(five.output)
    assert [h["combinations"] for h in four_data["hands"]] == [624, 2072, 58656]
    assert five_data["hands"][0]["hand"] == "Royal Flush"
    assert 0 < four_data["at_reset"] < four_data["long_run"] < 1
