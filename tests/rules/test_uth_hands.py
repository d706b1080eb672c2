"""The Ultimate Texas Hold 'Em evaluator and exact counts (game_server.games.uth.rules.hands):
653a.6(a)-(b) rankings of the best five of seven cards, agreement with the general ranker
(poker.best_of), and category counts checked against known totals and brute force."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game_server.games.uth.rules.hands import (
    EvaluatorError,
    best_five,
    category_counts,
    category_of,
    count_better,
    hand_name,
    rank7,
    rank_cards,
    tie_break,
    to_hand_rank,
)
from game_server.rules.poker import Category5, HandRank, best_of, rank_hand
from shared.cards import CARDS, RANKS, Card, parse_cards

C = Category5

SEVEN_CARD_COUNTS = {
    C.ROYAL_FLUSH: 4_324,
    C.STRAIGHT_FLUSH: 37_260,
    C.FOUR_OF_A_KIND: 224_848,
    C.FULL_HOUSE: 3_473_184,
    C.FLUSH: 4_047_644,
    C.STRAIGHT: 6_180_020,
    C.THREE_OF_A_KIND: 6_461_620,
    C.TWO_PAIR: 31_433_400,
    C.PAIR: 58_627_800,
    C.HIGH_CARD: 23_294_460,
}
SIX_CARD_COUNTS = {
    C.ROYAL_FLUSH: 188,
    C.STRAIGHT_FLUSH: 1_656,
    C.FOUR_OF_A_KIND: 14_664,
    C.FULL_HOUSE: 165_984,
    C.FLUSH: 205_792,
    C.STRAIGHT: 361_620,
    C.THREE_OF_A_KIND: 732_160,
    C.TWO_PAIR: 2_532_816,
    C.PAIR: 9_730_740,
    C.HIGH_CARD: 6_612_900,
}
FIVE_CARD_COUNTS = {
    C.ROYAL_FLUSH: 4,
    C.STRAIGHT_FLUSH: 36,
    C.FOUR_OF_A_KIND: 624,
    C.FULL_HOUSE: 3_744,
    C.FLUSH: 5_108,
    C.STRAIGHT: 10_200,
    C.THREE_OF_A_KIND: 54_912,
    C.TWO_PAIR: 123_552,
    C.PAIR: 1_098_240,
    C.HIGH_CARD: 1_302_540,
}


def _v(text: str) -> int:
    return rank_cards(parse_cards(text))


def _reference(cards: tuple[Card, ...]) -> HandRank:
    """best_of, with the full-house tie-break read directly (trips rank, then the best other
    rank held twice or more): poker.best_of reports (trips, trips) when the pair outranks the
    trips (e.g. 9-9-9-K-K), so only the category of its full houses is compared."""
    ref = best_of(cards)
    if ref.category is C.FULL_HOUSE:
        counts = Counter(c.rank for c in cards)
        trips = max(r for r, n in counts.items() if n >= 3)
        pair = max(r for r, n in counts.items() if n >= 2 and r != trips)
        return HandRank(C.FULL_HOUSE, (trips, pair))
    return ref


# ------------------------------------------------------------------------ 653a.6 cases


def test_653a_6_a_wheel_is_the_lowest_straight() -> None:
    """653a.6(a), (b)(6): A-2-3-4-5 is a straight whose top card is the five, below 2-6."""
    wheel = _v("AS 2D 3C 4H 5S 9D KC")
    six_high = _v("2D 3C 4H 5S 6D 9C KC")
    assert category_of(wheel) is C.STRAIGHT and tie_break(wheel) == (5,)
    assert six_high > wheel and tie_break(six_high) == (6,)


def test_653a_6_a_no_wrap_around_straight() -> None:
    """653a.6(a): Q-K-A-2-3 is not a straight."""
    assert category_of(_v("QS KD AC 2H 3S 8D 9C")) is C.HIGH_CARD


def test_653a_6_b_1_royal_flush_is_its_own_category() -> None:
    """653a.6(b)(1)-(2): A-K-Q-J-10 suited is a royal flush, above every straight flush;
    5-4-3-2-A suited is the lowest straight flush."""
    royal = _v("AH KH QH JH TH 2C 3D")
    steel_wheel = _v("AH 2H 3H 4H 5H KC KD")
    king_high = _v("KH QH JH TH 9H 2C 3D")
    assert category_of(royal) is C.ROYAL_FLUSH
    assert category_of(steel_wheel) is C.STRAIGHT_FLUSH and tie_break(steel_wheel) == (5,)
    assert royal > king_high > steel_wheel
    assert hand_name(royal) == "Royal flush"


def test_653a_6_b_5_flush_and_straight_in_different_cards_is_a_flush() -> None:
    """653a.6(b)(2), (5): five hearts and a straight that is not all hearts make a flush,
    not a straight flush."""
    value = _v("2H 5H 9H JH KH TC QD")
    assert category_of(value) is C.FLUSH
    assert tie_break(value) == (13, 11, 9, 5, 2)


def test_653a_6_b_6_straight_uses_the_highest_run() -> None:
    """653a.6(b)(6): with six cards in a row the straight is the top five."""
    assert tie_break(_v("4S 5D 6C 7H 8S 9D 2C")) == (9,)


def test_653a_6_b_4_two_three_of_a_kind_make_a_full_house() -> None:
    """653a.6(b)(4): two sets of three make a full house of the higher over the lower."""
    value = _v("9S 9D 9C KH KS KD 2C")
    assert category_of(value) is C.FULL_HOUSE and tie_break(value) == (13, 9)


def test_653a_6_b_4_full_house_pair_above_the_trips_counts() -> None:
    """653a.6(b)(4): nines full of kings beat nines full of tens (the pair breaks the tie)."""
    assert _v("9S 9D 9C KH KS 2D 3C") > _v("9S 9D 9C TH TS 2D 3C")


def test_653a_6_b_3_four_of_a_kind_kicker_may_come_from_a_pair() -> None:
    """653a.6(b)(3): four of a kind takes the best other card as kicker."""
    value = _v("7S 7D 7C 7H QS QD 2C")
    assert category_of(value) is C.FOUR_OF_A_KIND and tie_break(value) == (7, 12)


def test_three_pairs_make_two_pair_with_the_best_kicker() -> None:
    """Three pairs: the two highest pairs and the best remaining card, which may be the
    third pair's rank."""
    value = _v("AS AD KC KH QS QD 2C")
    assert category_of(value) is C.TWO_PAIR and tie_break(value) == (14, 13, 12)
    assert _v("AS AD KC KH 3S 3D 4C") == _v("AS AD KC KH 4S 2D 3C")


def test_kickers_decide_and_a_board_that_plays_ties() -> None:
    """Pairs compare by their rank, then kickers in order; identical best fives tie."""
    assert _v("AS AD KC 9H 7S 4D 2C") > _v("AS AD QC JH 7S 4D 2C")
    assert _v("2S 3D AC KH QS JD 9C") == _v("4S 5D AC KH QS JD 9C")


# ------------------------------------------------------------- agreement and errors


def test_agrees_with_poker_best_of_on_a_seeded_random_sample() -> None:
    """On 20,000 seeded random seven-card hands the fast evaluator's value is the general
    ranker's (up to its full-house tie-break, see _reference), and orders hands the same."""
    rng = random.Random(653)
    for _ in range(20_000):
        hand = tuple(rng.sample(CARDS, 7))
        assert to_hand_rank(rank7(hand)) == _reference(hand), hand


def test_hands_order_like_the_general_ranker() -> None:
    """Pairs of random hands compare the same way under both evaluators."""
    rng = random.Random(6536)
    for _ in range(3_000):
        a = tuple(rng.sample(CARDS, 7))
        b = tuple(rng.sample(CARDS, 7))
        ra, rb = _reference(a), _reference(b)
        va, vb = rank7(a), rank7(b)
        assert (va > vb) == (ra > rb) and (va == vb) == (ra == rb)


@given(st.lists(st.sampled_from(CARDS), min_size=5, max_size=7, unique=True))
def test_five_six_or_seven_cards_agree_with_best_of(cards: list[Card]) -> None:
    """rank_cards reads five, six or seven cards like best_of."""
    assert to_hand_rank(rank_cards(cards)) == _reference(tuple(cards))


def test_best_five_makes_the_hand_value() -> None:
    """best_five names five of the cards with the hand's value."""
    cards = parse_cards("AS 2D 3C 4H 5S 9D KC")
    five = best_five(cards)
    assert len(five) == 5 and set(five) <= set(cards)
    assert rank_cards(five) == rank_cards(cards)


def test_bad_hands_are_refused() -> None:
    """Fewer than five or more than seven cards, or a card twice, are refused."""
    with pytest.raises(EvaluatorError):
        rank_cards(parse_cards("AS KS QS JS"))
    with pytest.raises(EvaluatorError):
        rank_cards(parse_cards("AS AS KD QC JH 9S 2C"))
    with pytest.raises(EvaluatorError):
        category_counts(8)
    with pytest.raises(EvaluatorError):
        category_counts(7, ranks=(1, 2, 3))


def test_count_better_counts_the_cards_that_beat_a_value() -> None:
    """count_better: the cards that give the base plus one card a better value."""
    board = parse_cards("2S 7D 9C JH KS")
    target = rank_cards(parse_cards("AS 3D 2S 7D 9C JH KS"))  # ace high
    unseen = [c for c in CARDS if c not in board and c not in parse_cards("AS 3D")]
    expected = sum(1 for c in unseen if rank_cards([*board, c]) > target)
    assert count_better(board, unseen, target, 99) == expected
    assert count_better(board, unseen, target, 3) == 3


# ------------------------------------------------------------------------ exact counts


def test_counts_of_all_133784560_seven_card_hands() -> None:
    """653a.6(b): every seven-card hand of one deck, by category (the standard figures)."""
    counts = category_counts(7)
    assert {C(k): v for k, v in counts.items()} == SEVEN_CARD_COUNTS
    assert sum(counts.values()) == comb(52, 7) == 133_784_560


def test_counts_of_five_and_six_card_hands() -> None:
    """The same method reproduces the standard five- and six-card tables."""
    assert {C(k): v for k, v in category_counts(5).items()} == FIVE_CARD_COUNTS
    assert {C(k): v for k, v in category_counts(6).items()} == SIX_CARD_COUNTS


@pytest.mark.parametrize("ranks", [(14, 2, 3, 4, 5, 6), (9, 10, 11, 12, 13, 14)])
def test_counts_match_brute_force_over_a_small_deck(ranks: tuple[int, ...]) -> None:
    """On a 24-card deck (the wheel and six-high straights, or the royal ranks) the counting
    method gives, value by value, what dealing every one of the 346,104 seven-card hands
    through the evaluator gives."""
    deck = [c for c in CARDS if c.rank in ranks]
    brute = Counter(rank7(hand) for hand in combinations(deck, 7))
    assert sum(brute.values()) == comb(24, 7)
    assert category_counts(7, ranks, by_value=True) == dict(brute)


def test_five_card_counts_match_the_general_ranker_over_a_small_deck() -> None:
    """Five-card hands of a 28-card deck: the counting method agrees by category with
    poker.rank_hand on every hand (an evaluator it shares no code with)."""
    ranks = (14, 2, 3, 4, 5, 12, 13)
    deck = [c for c in CARDS if c.rank in ranks]
    brute = Counter(int(rank_hand(hand).category) for hand in combinations(deck, 5))
    assert category_counts(5, ranks) == dict(brute)


def test_counts_by_value_sum_to_the_categories() -> None:
    """The by-value counts add up to the category counts (and every rank set is a deck's)."""
    by_value = category_counts(5, RANKS, by_value=True)
    totals: Counter[int] = Counter()
    for value, n in by_value.items():
        totals[value >> 20] += n
    assert dict(totals) == category_counts(5)
