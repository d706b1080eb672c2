"""Caribbean Stud Poker's strategy by exact enumeration (the procedure of rules/game.py: the
dealer qualifies with ace-king or better, 639a.11; the Bet Wager paytable): the enumeration's
values against a card-by-card count with the engine's own ranking over reduced decks, its
totals against a deal-by-deal sum, ace-king cells derived again against the shipped
exceptions, the exact house edge against the published 5.224%, and the bots playing it."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest

from game_server.config import example_path, load_config
from game_server.games import game_for
from game_server.games.caribbean.rules import analysis, optimal_table
from game_server.games.caribbean.rules.events import CaribbeanCardDealt, CaribbeanDecision
from game_server.games.caribbean.rules.game import Action, qualifies
from game_server.games.caribbean.rules.rules import bet_line
from game_server.games.caribbean.rules.strategy import decide
from game_server.games.caribbean.sim import CaribbeanDriver
from game_server.rules.poker import Category5, rank_hand
from game_server.sim import SimSpec
from shared.cards import CARDS, Card, parse_cards

CONFIG = load_config(example_path("caribbean.toml"))


def card_by_card(deck: list[Card], player: list[Card], up: Card) -> int:
    """The Bet Wager's total result in Antes over the dealer's four face-down cards, hand by
    hand, settled as the engine settles (a dealer below ace-king pays the Ante, the Bet
    pushes; else the better hand wins, the Bet by the paytable; a tie pushes)."""
    mine = rank_hand(player)
    pay = bet_line(Category5(mine.category)).pay
    rest = [c for c in deck if c not in player and c != up]
    total = 0
    for hidden in combinations(rest, 4):
        dealer = rank_hand([up, *hidden])
        if not qualifies(dealer):
            total += 1
        elif mine > dealer:
            total += 1 + 2 * pay.a
        elif mine < dealer:
            total -= 3
    return total


@pytest.mark.parametrize(
    ("ranks", "deals"),
    [
        ((2, 3, 4, 5, 13, 14), 8),  # the wheel, ace-king hands, flushes
        ((9, 10, 11, 12, 13, 14), 8),  # royal and straight flushes, ace-king with a queen
    ],
)
def test_the_bet_wager_counted_equals_a_card_by_card_count(
    ranks: tuple[int, ...], deals: int
) -> None:
    """The Bet Wager's total by rank multisets and inclusion-exclusion equals the count hand
    by hand over seeded deals of a reduced deck."""
    deck = [Card(r, s) for r in ranks for s in range(4)]
    engine = analysis.Enumeration(ranks)
    rng = random.Random(len(ranks) * 10 + ranks[0])
    for _ in range(deals):
        dealt = rng.sample(deck, 6)
        assert engine.bet_result(dealt[:5], dealt[5]) == card_by_card(deck, dealt[:5], dealt[5])


def test_the_derivation_adds_up_every_deal_of_a_small_deck() -> None:
    """Over a deck of four ranks, the derivation's ace-king cells and totals (one hand per
    class of suit permutation, weighted) equal the sums over every player hand and up card
    dealt one by one."""
    ranks = (2, 3, 13, 14)
    deck = [Card(r, s) for r in ranks for s in range(4)]
    derived = analysis.derive(ranks, decide=analysis.simple_decision)
    engine = analysis.Enumeration(ranks)
    t = engine.per_deal
    cells: dict[object, list[int]] = {}
    optimal = rule = 0
    for player in combinations(deck, 5):
        for up in deck:
            if up in player:
                continue
            bet = engine.bet_result(player, up)
            optimal += max(bet, -t)
            rule += bet if analysis.simple_decision(player, up) else -t
            if rank_hand(player).category == Category5.HIGH_CARD and qualifies(rank_hand(player)):
                cell = cells.setdefault(analysis.cell_key(player, up), [0, 0])
                cell[0] += bet
                cell[1] -= t
    assert derived.deals == comb(16, 5) * 11
    assert derived.result("optimal") == Fraction(optimal, derived.deals * t)
    assert derived.result("rule") == Fraction(rule, derived.deals * t)
    assert {k: [c.bet, c.fold] for k, c in derived.cells.items()} == cells


#: Ace-king rows, each with up card ranks: some cells of them are exceptions (fold where the
#: simple strategy bets; bet where it folds), some follow it.
ROWS = [
    ((14, 13, 8, 3, 2), (2, 8)),
    ((14, 13, 12, 5, 2), (3, 4, 11)),
    ((14, 13, 12, 8, 7), (11, 13)),
]


def test_the_shipped_exceptions_are_the_enumerations() -> None:
    """Ace-king cells derived again by enumeration take the strategy's decision: the simple
    strategy's, but in the cells rules/optimal_table.py lists; both kinds are among them."""
    engine = analysis.Enumeration()
    kinds = set()
    for ranks, ups in ROWS:
        for up in ups:
            cells = engine.cells(ranks, ups=(up,))
            for (up_rank, same), cell in cells.items():
                key = (ranks, up_rank, same)
                shipped = optimal_table.EXCEPTIONS.get(key)
                want = analysis.simple_bets(ranks, up_rank) if shipped is None else shipped
                assert cell.bets == want, key
                kinds.add(shipped is None)
    assert kinds == {True, False}


def test_rule_c_needs_a_queen_as_published() -> None:
    """With ace-king and no queen, an up card below the fourth highest card and matching none
    of the player's ranks folds (rule c is the Wizard of Odds': "the player holds a queen");
    with a queen it bets."""
    assert decide(parse_cards("AC KD 9H 8S 3D"), parse_cards("5H")[0]) is Action.FOLD
    assert decide(parse_cards("AC KD QH 8S 7D"), parse_cards("5H")[0]) is Action.BET


def test_the_house_edge_is_exact_and_the_published_figure() -> None:
    """The strategy's exact house edge rounds to the Wizard of Odds' 5.224% (optimal, the
    same pays), at most the simple strategy's and at least the fully optimal one's."""
    report = game_for(CONFIG).strategy(CONFIG)
    assert report.analysis is not None
    assert [p.house_edge for p in report.published] == [0.05224]
    assert abs(report.analysis.house_edge - 0.05224) < 0.000005
    assert report.analysis.house_edge == float(-optimal_table.STRATEGY_RESULT)
    assert optimal_table.OPTIMAL_RESULT >= optimal_table.STRATEGY_RESULT
    assert optimal_table.STRATEGY_RESULT > optimal_table.SIMPLE_RESULT


def test_the_simulators_bots_play_the_strategy() -> None:
    """Every decision of seeded simulated rounds is the strategy's for the seat's cards and
    the dealer's face-up card."""
    spec = SimSpec(CONFIG.rules, True, None, seats=4, seed=9, rounds=100, table_id="CSP-01")
    driver = CaribbeanDriver(spec, 0)
    decisions = 0
    for _ in range(100):
        events = driver.play_round()
        cards: dict[int, list[Card]] = {}
        for e in events:
            if type(e) is CaribbeanCardDealt:
                cards.setdefault(e.seat, []).append(e.card)
        up = cards[0][0]
        for e in events:
            if type(e) is CaribbeanDecision:
                decisions += 1
                assert e.action == decide(cards[e.seat], up).value
    assert decisions == 400


def test_the_terminal_demo_bot_plays_the_published_simple_strategy() -> None:
    """The terminal's own copy (it never imports the server) decides as the published simple
    strategy on every hand of a seeded sample, rule (c)'s queen included."""
    from terminal_client.games.caribbean.model import PAIR_OR_BETTER, demo_decision

    pair = min(PAIR_OR_BETTER)

    rng = random.Random(639)
    for _ in range(20_000):
        dealt = rng.sample(CARDS, 6)
        cards, up = dealt[:5], dealt[5]
        value = rank_hand(cards)
        hand = pair if value.category >= Category5.PAIR else None
        want = "bet" if analysis.simple_decision(cards, up) else "fold"
        assert demo_decision(hand, [str(c) for c in cards], str(up)) == want, (cards, up)
