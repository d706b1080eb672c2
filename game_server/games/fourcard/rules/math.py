"""Exact counts of Four Card Poker's hands off one deck, for the paytable wagers' math
(``etg math aces_up``, ``four_card_progressive``, ``five_card_progressive``) and the
player-edge guard.

A player's five cards are counted by their ranks and by how their suits can make a flush,
never card by card: for each multiset of five ranks (at most four of a rank) the
``prod C(4, c)`` ways to give it suits fall into a few classes that rank alike (all five of
one suit; exactly four of one suit, with the odd card named; no four of a suit), and one
representative hand of each class is ranked by the shared ranker. 6,175 multisets of a full
deck, a few thousand rankings, in well under a second; the sum is C(52, 5) = 2,598,960.
``tests/games/fourcard/test_fourcard_math.py`` checks it card by card over reduced decks.

Entry points: :func:`four_card_counts`, :func:`five_card_counts`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import combinations_with_replacement
from math import comb, prod

from game_server.games.fourcard.rules.hands import (
    FIVE_CARD_NAMES,
    best_four,
    five_card,
    four_card_name,
)
from game_server.rules.poker import Category5
from shared.cards import RANKS, Card

__all__ = ["five_card_counts", "four_card_counts", "hand_classes"]


def hand_classes(ranks: Sequence[int] = RANKS) -> Iterator[tuple[tuple[Card, ...], int]]:
    """Every five-card hand of a deck of ``ranks`` in four suits, as (a representative hand,
    how many hands rank as it does both as the best four and as five cards)."""
    for multiset in combinations_with_replacement(sorted(ranks), 5):
        counts = Counter(multiset)
        if max(counts.values()) > 4:
            continue
        total = prod(comb(4, c) for c in counts.values())
        distinct = sorted(counts)
        if len(distinct) == 5:
            yield tuple(Card(r, 0) for r in distinct), 4  # all five of one suit
            for odd in range(5):  # exactly four of one suit: 4 suits x 3 for the odd card
                yield tuple(Card(r, 1 if i == odd else 0) for i, r in enumerate(distinct)), 12
            yield (
                tuple(Card(r, s) for r, s in zip(distinct, (0, 0, 0, 1, 1), strict=True)),
                (total - 64),
            )
        elif len(distinct) == 4:
            pair = next(r for r in distinct if counts[r] == 2)
            singles = [r for r in distinct if r != pair]
            four = (Card(pair, 0), Card(pair, 1), *(Card(r, 0) for r in singles))
            yield four, 12  # the three singles and one of the pair of one suit: 4 x 3
            none = (
                Card(pair, 0),
                Card(pair, 1),
                *(Card(r, s) for r, s in zip(singles, (0, 1, 2), strict=True)),
            )
            yield none, total - 12
        else:  # three ranks or fewer: no four cards of one suit
            yield tuple(Card(r, s) for r in distinct for s in range(counts[r])), total


@cache
def four_card_counts(ranks: tuple[int, ...] = RANKS) -> dict[str, int]:
    """How many five-card hands have each best four-card hand (641a.6(b)), by paytable name
    (a pair of aces apart: "Pair of Aces")."""
    out: Counter[str] = Counter()
    for hand, ways in hand_classes(ranks):
        if ways:
            out[four_card_name(best_four(hand))] += ways
    return dict(out)


@cache
def five_card_counts(ranks: tuple[int, ...] = RANKS) -> dict[str, int]:
    """How many five-card hands are each five-card hand (641a.6(d)), by paytable name."""
    out: Counter[str] = Counter()
    for hand, ways in hand_classes(ranks):
        if ways:
            out[FIVE_CARD_NAMES[Category5(five_card(hand).category)]] += ways
    return dict(out)
