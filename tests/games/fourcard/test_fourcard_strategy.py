"""Four Card Poker's strategy by exact enumeration (641a.6(b) rankings; the procedure of
rules/game.py): the enumeration's counts against a card-by-card count with the engine's own
ranking over reduced decks, its totals against a deal-by-deal sum, cells of the shipped table
derived again, the exact house edge against the published 2.79%, and the bots playing the
table, reading the dealer's up card."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import pytest

from game_server.config import example_path, load_config, parse_config
from game_server.games import game_for
from game_server.games.fourcard.rules import analysis, optimal_table
from game_server.games.fourcard.rules.events import FourCardCardDealt, FourCardDecision
from game_server.games.fourcard.rules.game import Action
from game_server.games.fourcard.rules.hands import best_four
from game_server.games.fourcard.rules.strategy import decide_cards, table
from game_server.games.fourcard.sim import Driver
from game_server.sim import SimSpec
from shared.cards import Card, parse_cards

CONFIG = load_config(example_path("fourcard.toml"))


def card_by_card(deck: list[Card], player: list[Card], up: Card) -> int:
    """The dealer's five face-down cards, hand by hand, that let the player's best four beat
    or tie the dealer's best four of six (the engine's own ranking)."""
    mine = best_four(player)
    rest = [c for c in deck if c not in player and c != up]
    return sum(1 for hidden in combinations(rest, 5) if best_four([up, *hidden]) <= mine)


@pytest.mark.parametrize(
    ("ranks", "deals"),
    [
        ((2, 3, 4, 5, 14), 8),  # the wheel's ranks: A-2-3-4 straights, many ties and flushes
        ((10, 11, 12, 13, 14), 8),  # the top: straight flushes, trips, two pair
        ((2, 3, 7, 8, 9, 14), 3),  # gaps: straights both ways of the 9
    ],
)
def test_the_dealer_hands_counted_equal_a_card_by_card_count(
    ranks: tuple[int, ...], deals: int
) -> None:
    """W, the dealer hands the player beats or ties, by rank multisets and
    inclusion-exclusion equals the count hand by hand over seeded deals of a reduced deck."""
    deck = [Card(r, s) for r in ranks for s in range(4)]
    engine = analysis.Enumeration(ranks)
    rng = random.Random(len(ranks) * 100 + ranks[0])
    for _ in range(deals):
        dealt = rng.sample(deck, 6)
        assert engine.wins(dealt[:5], dealt[5]) == card_by_card(deck, dealt[:5], dealt[5])


def test_the_derivation_adds_up_every_deal_of_a_small_deck() -> None:
    """Over a deck of four ranks, the derivation's cells and its optimal total (one hand
    per class of suit permutation, weighted) equal the sums over every player hand and every
    up card dealt one by one."""
    ranks = (2, 3, 4, 14)
    deck = [Card(r, s) for r in ranks for s in range(4)]
    derived = analysis.derive(ranks)
    engine = analysis.Enumeration(ranks)
    t = engine.per_deal
    cells: dict[Any, list[int]] = {}
    optimal = 0
    for player in combinations(deck, 5):
        value = analysis.hand_value(player)
        for up in deck:
            if up in player:
                continue
            d = 2 * engine.wins(player, up) - t
            optimal += max(-t, 2 * d, 4 * d)
            if value < analysis.ABOVE_PAIR:
                cell = cells.setdefault(analysis.table_key(player, up), [0, 0, 0])
                cell[0] -= t
                cell[1] += 2 * d
                cell[2] += 4 * d
    assert derived.deals == comb(16, 5) * 11
    assert derived.result("optimal") == Fraction(optimal, derived.deals * t)
    assert {k: [c.fold, c.one, c.three] for k, c in derived.cells.items() if not c.pruned} == {
        k: v for k, v in cells.items() if not derived.cells[k].pruned
    }
    assert all(max(cells[k][1:]) < -t for k, c in derived.cells.items() if c.pruned)


#: Rows whose cells change decision with the up card or its suit (a pair of 9s: 3x or 1x;
#: a pair of 2s: 1x or fold; ace-king: 1x or fold), each with the up card ranks checked.
BORDERLINE = [
    ((9, 9, 7, 6, 2), (2, 9, 14)),
    ((13, 8, 5, 2, 2), (3, 8)),
    ((14, 13, 8, 4, 3), (5, 13)),
]


def test_the_shipped_table_is_the_enumerations() -> None:
    """Cells of rules/optimal_table.py derived again by enumeration (borderline rows and a
    seeded row, at chosen up cards) take the same decisions, and those decisions differ across
    the up cards: the table is no constant and no copy of the simple strategy."""
    rng = random.Random(36)
    seeded = rng.choice(analysis.ROWS)
    rows = [*BORDERLINE, (seeded, tuple(rng.sample(range(2, 15), 2)))]
    engine = analysis.Enumeration()
    seen = set()
    for ranks, ups in rows:
        for (same, up), cell in engine.cells(ranks, ups=ups).items():
            shipped = table()[analysis.cell_index(ranks, same, up)]
            assert shipped == cell.decision, (ranks, same, up)
            seen.add(cell.decision)
    assert seen == {analysis.FOLD, analysis.ONE, analysis.THREE}


def test_every_hand_above_a_pair_plays_3x_even_the_weakest() -> None:
    """The table plays every hand above a pair 3x: the weakest two pair (3s and 2s with a 4)
    wins or ties at least half of the dealer's hands against every up card rank."""
    deck = [Card(r, s) for r in range(2, 15) for s in range(4)]
    player = list(parse_cards("3C 3D 2H 2S 4C"))
    engine = analysis.Enumeration()
    for up in (c for c in deck if c.suit_index == 0 and c not in player):
        assert 2 * engine.wins(player, up) >= engine.per_deal, up
        assert decide_cards(player, up) == (Action.PLAY, 3)


def test_the_decision_reads_the_dealers_up_card() -> None:
    """A pair of 9s with 7-6-2 plays 3x against a 2 up and 1x against an ace up (the simple
    strategy plays it 1x whatever the dealer shows)."""
    player = parse_cards("9C 9D 7H 6S 2C")
    assert decide_cards(player, parse_cards("2H")[0]) == (Action.PLAY, 3)
    assert decide_cards(player, parse_cards("AH")[0]) == (Action.PLAY, 1)


def test_the_house_edge_is_exact_and_the_published_figure_for_the_same_pays() -> None:
    """The example table's Ante Bonus is 25-20-2: the table's exact house edge rounds to the
    Wizard of Odds' 2.79% (optimal, the same pays), between the fully optimal strategy's and
    the simple strategy's; the Ante Bonus adds the exact sum of its lines."""
    report = game_for(CONFIG).strategy(CONFIG)
    assert report.analysis is not None
    edge = report.analysis.house_edge
    assert [p.house_edge for p in report.published] == [0.0279]
    assert abs(edge - 0.0279) < 0.00005
    bonus = Fraction(13 * 48 * 25 + (11 * 4 * 48 - 40) * 20 + 13 * 4 * comb(48, 2) * 2)
    bonus /= comb(52, 5)
    assert edge == float(-(optimal_table.STRATEGY_RESULT + bonus))
    assert -(optimal_table.OPTIMAL_RESULT + bonus) < -(optimal_table.STRATEGY_RESULT + bonus)
    assert -(optimal_table.STRATEGY_RESULT + bonus) < -(optimal_table.SIMPLE_RESULT + bonus)


def test_no_published_figure_is_claimed_for_another_ante_bonus() -> None:
    """With the 30-15-2 Ante Bonus the report states its own exact edge and no published
    figure (the 2.79% is for 25-20-2), and says why."""
    text = example_path("fourcard.toml").read_text().replace('"25-20-2"', '"30-15-2"')
    config = parse_config(text, "30-15-2")
    report = game_for(config).strategy(config)
    assert report.published == ()
    assert any("30-15-2" in line for line in report.differences)


def test_the_simulators_bots_play_the_table() -> None:
    """Every decision of seeded simulated rounds is the table's for the seat's cards and the
    dealer's face-up card, and some of them are not the simple strategy's."""
    spec = SimSpec(CONFIG.rules, True, None, seats=3, seed=5, rounds=150, table_id="FCP-01")
    driver = Driver(spec, 0)
    decisions = 0
    unlike_simple = 0
    for _ in range(150):
        events = driver.play_round()
        cards: dict[int, list[Card]] = {}
        for e in events:
            if type(e) is FourCardCardDealt:
                cards.setdefault(e.seat, []).append(e.card)
        up = cards[0][0]
        for e in events:
            if type(e) is FourCardDecision:
                decisions += 1
                action, multiple = decide_cards(cards[e.seat], up)
                assert (e.action, e.multiple) == (action.value, multiple)
                simple = analysis.simple_decision(analysis.hand_value(cards[e.seat]))
                unlike_simple += simple != multiple
    assert decisions == 450 and unlike_simple > 0
