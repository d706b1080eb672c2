"""The poker ranker (game_server/rules/poker.py): every 3-, 4- and 5-card combination of one
deck counted against totals derived a second way, the king of diamonds wild (633b.12(k))
counted against a brute-force substitution that does not use the ranker, ordering cases from
653a.6 and 641a.6, several-deck hands, and invariants checked with Hypothesis."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement
from math import comb, prod

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.rules.poker import (
    Category3,
    Category4,
    Category5,
    HandRank,
    HandSizeError,
    best_hand,
    best_of,
    five_card_readings,
    five_highest_choices,
    is_royal,
    is_suited,
    rank_hand,
)
from shared.cards import CARDS, DIAMONDS, KING, RANKS, Card, parse_card, parse_cards

KD = parse_card("KD")


def _counts(n: int, wild: Card | None = None) -> Counter[str]:
    return Counter(rank_hand(h, wild).category.name for h in combinations(CARDS, n))


# ---------------------------------------------------------------------------------------------
# Exhaustive counts over one 52-card deck, each checked against two sources: the standard
# published totals, and the combinatorial formulas written out below.

DISTINCT3 = comb(13, 3) - 12  # rank sets of three that are not a straight (12 straights)
DISTINCT4 = comb(13, 4) - 11  # 11 four-card straights: A-2-3-4 .. J-Q-K-A
DISTINCT5 = comb(13, 5) - 10  # 10 five-card straights: A-2-3-4-5 .. 10-J-Q-K-A


def test_three_card_counts() -> None:
    """All 22,100 three-card hands: straight flush 48, three of a kind 52, straight 720,
    flush 1,096, pair 3,744, high card 16,440 (A-2-3 and Q-K-A are both straights)."""
    formulas = {
        "STRAIGHT_FLUSH": 12 * 4,
        "THREE_OF_A_KIND": 13 * comb(4, 3),
        "STRAIGHT": 12 * (4**3 - 4),
        "FLUSH": 4 * DISTINCT3,
        "PAIR": 13 * comb(4, 2) * 12 * 4,
        "HIGH_CARD": DISTINCT3 * (4**3 - 4),
    }
    published = {
        "STRAIGHT_FLUSH": 48,
        "THREE_OF_A_KIND": 52,
        "STRAIGHT": 720,
        "FLUSH": 1_096,
        "PAIR": 3_744,
        "HIGH_CARD": 16_440,
    }
    assert formulas == published
    assert sum(published.values()) == comb(52, 3) == 22_100
    assert _counts(3) == published


def test_four_card_counts() -> None:
    """All 270,725 four-card hands (Four Card Poker categories, 641a.6(b)): four of a kind 13,
    straight flush 44, three of a kind 2,496, flush 2,816, straight 2,772, two pair 2,808,
    pair 82,368, high card 177,408 (the brief's 175,408 does not add up to 270,725)."""
    formulas = {
        "FOUR_OF_A_KIND": 13,
        "STRAIGHT_FLUSH": 11 * 4,
        "THREE_OF_A_KIND": 13 * comb(4, 3) * 12 * 4,
        "FLUSH": 4 * DISTINCT4,
        "STRAIGHT": 11 * (4**4 - 4),
        "TWO_PAIR": comb(13, 2) * comb(4, 2) ** 2,
        "PAIR": 13 * comb(4, 2) * comb(12, 2) * 4**2,
        "HIGH_CARD": DISTINCT4 * (4**4 - 4),
    }
    published = {
        "FOUR_OF_A_KIND": 13,
        "STRAIGHT_FLUSH": 44,
        "THREE_OF_A_KIND": 2_496,
        "FLUSH": 2_816,
        "STRAIGHT": 2_772,
        "TWO_PAIR": 2_808,
        "PAIR": 82_368,
        "HIGH_CARD": 177_408,
    }
    assert formulas == published
    assert sum(published.values()) == comb(52, 4) == 270_725
    assert _counts(4) == published


def test_five_card_counts() -> None:
    """All 2,598,960 five-card hands: royal flush 4, straight flush 36, four of a kind 624,
    full house 3,744, flush 5,108, straight 10,200, three of a kind 54,912, two pair 123,552,
    pair 1,098,240, high card 1,302,540 (each hand ranked by rank_hand)."""
    formulas = {
        "ROYAL_FLUSH": 4,
        "STRAIGHT_FLUSH": 9 * 4,
        "FOUR_OF_A_KIND": 13 * 48,
        "FULL_HOUSE": 13 * comb(4, 3) * 12 * comb(4, 2),
        "FLUSH": 4 * DISTINCT5,
        "STRAIGHT": 10 * (4**5 - 4),
        "THREE_OF_A_KIND": 13 * comb(4, 3) * comb(12, 2) * 4**2,
        "TWO_PAIR": comb(13, 2) * comb(4, 2) ** 2 * 44,
        "PAIR": 13 * comb(4, 2) * comb(12, 3) * 4**3,
        "HIGH_CARD": DISTINCT5 * (4**5 - 4),
    }
    published = {
        "ROYAL_FLUSH": 4,
        "STRAIGHT_FLUSH": 36,
        "FOUR_OF_A_KIND": 624,
        "FULL_HOUSE": 3_744,
        "FLUSH": 5_108,
        "STRAIGHT": 10_200,
        "THREE_OF_A_KIND": 54_912,
        "TWO_PAIR": 123_552,
        "PAIR": 1_098_240,
        "HIGH_CARD": 1_302_540,
    }
    assert formulas == published
    assert sum(published.values()) == comb(52, 5) == 2_598_960
    assert _counts(5) == published


# ---------------------------------------------------------------------------------------------
# The wild king of diamonds, counted independently: a naive classifier of five ranks and a
# flush flag, and every class of hand (rank multiset, one suit or not) weighted by how many
# hands of one deck fall in it, the wild tried at each of the 13 ranks.

_ORDER5 = [c.name for c in Category5]


def _naive5(ranks: Sequence[int], flush: bool) -> str:
    counts = sorted(Counter(ranks).values(), reverse=True)
    distinct = set(ranks)
    straight = len(distinct) == 5 and (
        max(distinct) - min(distinct) == 4 or distinct == {14, 2, 3, 4, 5}
    )
    if counts[0] == 5:
        return "FIVE_OF_A_KIND"
    if straight and flush:
        return "ROYAL_FLUSH" if min(distinct) == 10 else "STRAIGHT_FLUSH"
    if counts[0] == 4:
        return "FOUR_OF_A_KIND"
    if counts[:2] == [3, 2]:
        return "FULL_HOUSE"
    if flush:
        return "FLUSH"
    if straight:
        return "STRAIGHT"
    if counts[0] == 3:
        return "THREE_OF_A_KIND"
    if counts[:2] == [2, 2]:
        return "TWO_PAIR"
    return "PAIR" if counts[0] == 2 else "HIGH_CARD"


def _classes(suits_of: dict[int, set[int]], m: int) -> list[tuple[tuple[int, ...], bool, int]]:
    """(ranks, one suit, number of hands) for every m-card class of a deck given per rank."""
    found = []
    for ranks in combinations_with_replacement(RANKS, m):
        per_rank = Counter(ranks)
        total = prod(comb(len(suits_of[r]), c) for r, c in per_rank.items())
        if total == 0:
            continue
        suited = 0
        if len(per_rank) == m:
            suited = sum(all(s in suits_of[r] for r in ranks) for s in range(4))
        if suited:
            found.append((ranks, True, suited))
        if total - suited:
            found.append((ranks, False, total - suited))
    return found


def test_five_card_counts_with_the_king_of_diamonds_wild() -> None:
    """633b.12(k): with the king of diamonds wild, the 2,598,960 hands of one deck rank as a
    brute-force substitution of the wild at every rank (and the suit of a four-card flush)
    counts them: 12 five of a kind, 19 royal flushes, 176 straight flushes, and so on."""
    suits_of = {r: {s for s in range(4) if not (r == KING and s == DIAMONDS)} for r in RANKS}
    expected: Counter[str] = Counter()
    for ranks, suited, hands in _classes(suits_of, 5):  # no king of diamonds
        expected[_naive5(ranks, suited)] += hands
    for ranks, suited, hands in _classes(suits_of, 4):  # the wild and four others
        best = max((_naive5((*ranks, w), suited) for w in RANKS), key=_ORDER5.index)
        expected[best] += hands
    assert sum(expected.values()) == comb(52, 5)
    assert _counts(5, KD) == expected
    assert expected["FIVE_OF_A_KIND"] == 12
    assert expected["ROYAL_FLUSH"] == 19


def test_every_rank_class_agrees_with_the_naive_classifier() -> None:
    """Each five-card class of one deck ranks as the naive classifier says, wild or not."""
    suits_of = {r: set(range(4)) for r in RANKS}
    for ranks, suited, _ in _classes(suits_of, 5):
        used: Counter[int] = Counter()
        hand = []
        for r in ranks:
            suit = 0 if suited else used[r]
            used[r] += 1
            hand.append(Card(r, suit))
        if not suited and len(set(ranks)) == 5:
            hand[0] = Card(ranks[0], 1)  # break the flush
        assert rank_hand(hand).category.name == _naive5(ranks, suited), hand


# ---------------------------------------------------------------------------------------------
# Ordering (653a.6(a)-(b) for five cards, 641a.6 for four, Three Card Poker for three).


def _r(text: str, wild: Card | None = None) -> HandRank:
    return rank_hand(parse_cards(text), wild)


def test_ace_high_straight_beats_king_high_and_the_wheel_is_lowest() -> None:
    """653a.6(b)(6): A-K-Q-J-10 is the highest straight and A-2-3-4-5 the lowest."""
    broadway = _r("AS KD QC JH TS")
    king_high = _r("KS QD JC TH 9S")
    six_high = _r("6S 5D 4C 3H 2S")
    wheel = _r("AS 2D 3C 4H 5S")
    assert broadway > king_high > six_high > wheel
    assert wheel.category is Category5.STRAIGHT and wheel.ranks == (5,)
    assert wheel > _r("AS KD QC JH 9S")  # any straight beats ace high


def test_no_wrap_around_straights() -> None:
    """653a.6(a), 641a.6(a): an ace is high or low but never joins K and 2."""
    assert _r("QS KD AC 2H 3S").category is Category5.HIGH_CARD
    assert _r("KS AD 2C 3H").category is Category4.HIGH_CARD
    assert _r("KS AD 2C").category is Category3.HIGH_CARD


def test_three_card_straights_and_flushes() -> None:
    """Three cards: A-2-3 is the lowest straight, Q-K-A the highest, and a straight beats a
    flush (633b.11(i) pays it higher); three of a kind beats a straight."""
    a23 = _r("AS 2D 3C")
    qka = _r("QS KD AC")
    assert a23.category is qka.category is Category3.STRAIGHT
    assert qka > _r("JS QD KC") > _r("2S 3D 4C") > a23
    assert a23 > _r("AS KS 9S")  # straight above flush
    assert _r("QS KS AS").category is Category3.STRAIGHT_FLUSH
    assert _r("2S 2D 2C") > qka


def test_four_card_order() -> None:
    """641a.6(b): four of a kind, straight flush, three of a kind, flush, straight, two pair,
    pair, high card; A-K-Q-J suited is the highest straight flush, A-2-3-4 the lowest."""
    hands = [
        "2S 2D 2C 2H",
        "AS KS QS JS",
        "AS 2S 3S 4S",
        "3S 3D 3C 2H",
        "2S 5S 7S 9S",
        "AS KD QC JH",
        "AS 2D 3C 4H",
        "AS AD KC KH",
        "AS AD KC QH",
        "AS KD QC 9H",
    ]
    values = [_r(h) for h in hands]
    assert values == sorted(values, reverse=True)
    assert [v.category for v in values] == [
        Category4.FOUR_OF_A_KIND,
        Category4.STRAIGHT_FLUSH,
        Category4.STRAIGHT_FLUSH,
        Category4.THREE_OF_A_KIND,
        Category4.FLUSH,
        Category4.STRAIGHT,
        Category4.STRAIGHT,
        Category4.TWO_PAIR,
        Category4.PAIR,
        Category4.HIGH_CARD,
    ]


def test_kickers_and_two_pair_order() -> None:
    """Equal categories compare by rank groups, then kickers: the higher pair first in two
    pair, then the lower pair, then the kicker; the full house by its three of a kind."""
    assert _r("AS AD 2C 2H 3S") > _r("KS KD QC QH JS")
    assert _r("KS KD 3C 3H 2S") > _r("KS KD 2C 2H AS")
    assert _r("KS KD 3C 3H 5S") > _r("KC KH 3S 3D 4C")
    assert _r("9S 9D AC 7H 2S") > _r("9C 9H KC QH JS")
    assert _r("9S 9D AC 7H 3S") > _r("9C 9H AD 7C 2S")
    assert _r("9S 9D AC 7H 3S") == _r("9C 9H AD 7C 3D")
    assert _r("2S 2D 2C AH AS") > _r("AS KS QS JS 9S") > _r("AS KD QC JH TS")
    assert _r("3S 3D 3C 2H 2S") > _r("2S 2D 2C AH AS")
    assert _r("AS KD QC JH 9S") > _r("AS KD QC JH 8S")
    assert _r("5S 5D 5C 5H 2S") > _r("4S 4D 4C 4H AS")


def test_royal_flush_is_its_own_category_and_the_highest_natural_hand() -> None:
    """653a.6(b)(1)-(2): the royal flush tops the straight flushes; is_royal names it for
    four cards (Super 4, 633b.6(a)(1)) and five."""
    royal = _r("AH KH QH JH TH")
    assert royal.category is Category5.ROYAL_FLUSH
    assert royal > _r("KH QH JH TH 9H") > _r("AS AD AC AH KS")
    assert is_royal(parse_cards("AH KH QH JH TH"))
    assert is_royal(parse_cards("JD AD QD KD"))
    assert not is_royal(parse_cards("AH KH QH JS"))
    assert not is_royal(parse_cards("AH KH QH"))
    assert not is_royal(parse_cards("AH KH QH JH 9H"))


# ---------------------------------------------------------------------------------------------
# Several decks, wild cards and AxMan's readings (633b.12).


def test_identical_cards_from_several_decks() -> None:
    """Several decks: three identical cards are three of a kind and suited (Top 3's
    "Three-of-a-kind Suited", 633b.7(e)); five sevens are five of a kind; two pair all of one
    suit is a flush; four of a kind of one suit is four of a kind."""
    suited_trips = parse_cards("7H 7H 7H")
    assert rank_hand(suited_trips).category is Category3.THREE_OF_A_KIND
    assert is_suited(suited_trips) and not is_suited(parse_cards("7H 7H 7S"))
    assert _r("7H 7H 7H 2H").category is Category4.THREE_OF_A_KIND
    assert _r("7H 7H 7S 7S 7C").category is Category5.FIVE_OF_A_KIND
    assert _r("7H 7H 2H 2H 9H").category is Category5.FLUSH
    assert _r("7H 7H 7H 7H 2H").category is Category5.FOUR_OF_A_KIND


def test_wild_card_makes_the_best_hand() -> None:
    """633b.12(k): the king of diamonds is a full wild card: any rank, duplicating a card if
    that is best (five of a kind), any suit by default; with wild_any_suit=False it stays a
    diamond."""
    assert _r("7S 7D 7C 7H KD", KD) == HandRank(Category5.FIVE_OF_A_KIND, (7,))
    assert _r("AS QS JS TS KD", KD).category is Category5.ROYAL_FLUSH
    assert _r("2S 3S 4S 5S KD", KD) == HandRank(Category5.STRAIGHT_FLUSH, (6,))
    assert _r("2S 4D 6C 9H KD", KD) == HandRank(Category5.PAIR, (9, 6, 4, 2))
    assert _r("AS AD KC KH KD", KD) == HandRank(Category5.FULL_HOUSE, (14, 13))
    assert _r("KD KD 2C 3H 9S", KD) == HandRank(Category5.THREE_OF_A_KIND, (9, 3, 2))
    assert _r("AS KH 9C KD", KD) == HandRank(Category4.PAIR, (14, 13, 9))
    assert _r("AS KS 9S KD", KD) == HandRank(Category4.FLUSH, (14, 14, 13, 9))
    assert _r("KD KS 9S") == HandRank(Category3.PAIR, (13, 9))  # not wild unless named
    spades = parse_cards("2S 5S 9S JS KD")
    assert rank_hand(spades, KD).category is Category5.FLUSH
    assert rank_hand(spades, KD, wild_any_suit=False).category is Category5.PAIR
    diamonds = parse_cards("2D 5D 9D JD KD")
    assert rank_hand(diamonds, KD, wild_any_suit=False).category is Category5.FLUSH


def test_five_card_readings_for_axman() -> None:
    """633b.12(a), (h), (i): a dealer hand is read as every category its cards satisfy; with
    fewer than five cards only pairs, two pair, three and four of a kind; the wild king of
    diamonds pairs the highest card for jacks or better."""
    two = five_card_readings(parse_cards("KD AS"), KD)
    assert two[Category5.PAIR] == HandRank(Category5.PAIR, (14,))
    short = five_card_readings(parse_cards("2H 3H 4H 5H"))
    assert set(short) == {Category5.HIGH_CARD}
    four = five_card_readings(parse_cards("7H 7H 7H 7H 2H"))  # several decks
    assert {Category5.FOUR_OF_A_KIND, Category5.FLUSH, Category5.THREE_OF_A_KIND} <= set(four)
    wild_flush = five_card_readings(parse_cards("7H 7H 7H 2H KD"), KD)
    assert Category5.FLUSH in wild_flush and Category5.FOUR_OF_A_KIND in wild_flush
    assert Category5.FIVE_OF_A_KIND not in wild_flush
    low = five_card_readings(parse_cards("2C 6H 9S KD"), KD)
    assert low[Category5.PAIR].ranks[0] == 9  # a pair of nines: not jacks or better
    with pytest.raises(HandSizeError):
        five_card_readings(())
    with pytest.raises(HandSizeError):
        five_card_readings(CARDS[:6])


def test_five_highest_cards() -> None:
    """633b.12(g): six or more cards keep the five highest; equal ranks at the cut give one
    choice per way to take them (four aces and two kings: either king)."""
    assert five_highest_choices(parse_cards("2S 3D")) == (parse_cards("2S 3D"),)
    assert five_highest_choices(parse_cards("2S 3D 4C 5H 6S 7D")) == (
        parse_cards("3D 4C 5H 6S 7D"),
    )
    choices = five_highest_choices(parse_cards("AS AD AC AH KS KD"))
    assert choices == (parse_cards("AS AD AC AH KS"), parse_cards("AS AD AC AH KD"))
    assert max(rank_hand(c, KD) for c in choices).category is Category5.FIVE_OF_A_KIND


def test_hand_sizes_outside_three_to_five_are_refused() -> None:
    """rank_hand takes 3, 4 or 5 cards; best_of needs at least k cards."""
    for size in (0, 1, 2, 6):
        with pytest.raises(HandSizeError):
            rank_hand(CARDS[:size])
    with pytest.raises(HandSizeError):
        best_of(CARDS[:4], 5)
    with pytest.raises(HandSizeError):
        best_of(CARDS[:7], 6)


# ---------------------------------------------------------------------------------------------
# Invariants.

hands5 = st.lists(st.sampled_from(CARDS), min_size=5, max_size=5, unique=True)
sized = st.integers(3, 5).flatmap(
    lambda n: st.lists(st.sampled_from(CARDS), min_size=n, max_size=n, unique=True)
)


@given(sized, st.data())
def test_rank_ignores_card_order(hand: list[Card], data: st.DataObject) -> None:
    """A hand's rank does not depend on the order of its cards, wild or not."""
    shuffled = data.draw(st.permutations(hand))
    assert rank_hand(shuffled) == rank_hand(hand)
    assert rank_hand(shuffled, KD) == rank_hand(hand, KD)


@given(sized, st.permutations(range(4)))
def test_rank_ignores_a_permutation_of_suits(hand: list[Card], perm: list[int]) -> None:
    """Suits are equal in rank: renaming the suits changes no hand's rank."""
    renamed = [Card(c.rank, perm[c.suit_index]) for c in hand]
    assert rank_hand(renamed) == rank_hand(hand)


@given(hands5)
def test_wild_never_hurts(hand: list[Card]) -> None:
    """Any card made wild ranks the hand at least as high as without it."""
    for wild in set(hand):
        assert rank_hand(hand, wild) >= rank_hand(hand)


@settings(max_examples=200)
@given(st.lists(st.sampled_from(CARDS), min_size=5, max_size=8, unique=True))
def test_best_of_is_the_best_subset(cards: list[Card]) -> None:
    """best_of(cards, 5) is at least every five-card subset and equals one of them; best_hand
    names the cards that make it; with a wild card too."""
    subsets = [rank_hand(s) for s in combinations(cards, 5)]
    best = best_of(cards, 5)
    assert all(best >= s for s in subsets) and best in subsets
    value, chosen = best_hand(cards, 5)
    assert value == best and rank_hand(chosen) == best and set(chosen) <= set(cards)
    assert best_of(cards, 5, KD) == max(rank_hand(s, KD) for s in combinations(cards, 5))
    if len(cards) >= 4:
        assert best_of(cards, 4) == max(rank_hand(s) for s in combinations(cards, 4))


def test_full_house_ranks_by_its_trips_then_its_pair_whichever_is_higher() -> None:
    """653a.6(b)(4): nines full of kings beat nines full of tens (a pair above the trips;
    the tie-break once read the trips twice, so these two tied), and tens full of twos beat
    nines full of aces."""
    kings = best_of(parse_cards("9C 9D 9H KS KD"), 5)
    tens = best_of(parse_cards("9C 9D 9S TS TD"), 5)
    assert kings.ranks == (9, KING) and tens.ranks == (9, 10)
    assert kings > tens
    assert best_of(parse_cards("TC TD TH 2S 2D"), 5) > best_of(parse_cards("9C 9D 9H AS AD"), 5)


def test_four_card_rankings_cite_641a_6_b_the_four_card_poker_section() -> None:
    """641a.6(b): 641a.1 defines Four Card Poker's hands "as defined in § 641a.6(b)"; the
    four-card categories cite that paragraph, not Four Card Frenzy's 684a.6(b) (whose wording
    the order follows, as the module says)."""
    doc = Category4.__doc__ or ""
    assert "641a.6(b)" in doc
    assert "684a" not in doc
