"""A fast best-five-of-seven poker evaluator and exact category counts (58 Pa. Code 653a.6).

Ultimate Texas Hold 'Em ranks the best five-card hand a player or the dealer forms from two
own cards and five community cards (653a.1 "Hand"; 653a.6(a) card ranks, ace high and low
only in A-2-3-4-5; 653a.6(b)(1)-(7) categories with the royal flush its own category). The
general ranker :func:`game_server.rules.poker.best_of` tries all 21 five-card subsets; this
module reads seven cards in one pass instead:

- every card code indexes :data:`_KEY`, which packs one count into a 3-bit field of its rank
  (bits 12..50) and one into a 3-bit field of its suit (bits 0..11); the sum over the hand is
  the hand's rank multiset and suit counts at once;
- the suit counts index a 4096-entry table that names the suit with five or more cards, if
  any (two suits cannot both hold five of seven cards);
- without a flush, the rank multiset alone decides the hand: its value is read from a table
  filled on first use (49,205 multisets of seven ranks, each at most four times);
- with a flush, the ranks of the flush suit (a 13-bit mask) index a precomputed table of
  flush, straight flush and royal flush values. A flush in seven or fewer cards cannot
  coexist with four of a kind or a full house (either would need eight cards), so the flush
  value is the hand's value.

A hand value is an ``int``: the category (:class:`~game_server.rules.poker.Category5`, royal
flush 9 down to high card 0) in bits 20 and up, then up to five tie-break ranks (2..14) in
4-bit fields, most important first, with the same tie-break tuples as
:class:`~game_server.rules.poker.HandRank` (straights by their top card, the wheel's being 5).
Larger is better; equal values tie (653a.6 ranks all suits equally).

:func:`category_counts` counts every hand of ``n`` cards from a deck by category in seconds,
by multiset of ranks and the flush suit's ranks, without dealing any hand (``etg math``).

Entry points: :func:`rank7`, :func:`rank_cards`, :func:`category_of`, :func:`to_hand_rank`,
:func:`best_five`, :func:`category_counts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from math import comb
from typing import Final

from game_server.rules.errors import RulesError
from game_server.rules.poker import Category5, HandRank
from shared.cards import ACE, RANKS, Card

#: 653a.6(b) categories, highest first, as the regulation and its paytables name them.
HAND_NAMES: Final[dict[Category5, str]] = {
    Category5.ROYAL_FLUSH: "Royal flush",
    Category5.STRAIGHT_FLUSH: "Straight flush",
    Category5.FOUR_OF_A_KIND: "Four-of-a-kind",
    Category5.FULL_HOUSE: "Full house",
    Category5.FLUSH: "Flush",
    Category5.STRAIGHT: "Straight",
    Category5.THREE_OF_A_KIND: "Three-of-a-kind",
    Category5.TWO_PAIR: "Two pair",
    Category5.PAIR: "Pair",
    Category5.HIGH_CARD: "High card",
}
#: The ten categories of 653a.6(b) (no five of a kind in one deck), highest first.
CATEGORIES: Final = tuple(HAND_NAMES)

CATEGORY_SHIFT: Final = 20
#: How many tie-break ranks each category carries (as in :class:`HandRank`).
_TIE_LENGTH: Final = {
    Category5.ROYAL_FLUSH: 1,
    Category5.STRAIGHT_FLUSH: 1,
    Category5.FOUR_OF_A_KIND: 2,
    Category5.FULL_HOUSE: 2,
    Category5.FLUSH: 5,
    Category5.STRAIGHT: 1,
    Category5.THREE_OF_A_KIND: 3,
    Category5.TWO_PAIR: 3,
    Category5.PAIR: 4,
    Category5.HIGH_CARD: 5,
}

_RANK_BASE: Final = 12  # the rank fields start above the 12 bits of suit fields
_SUIT_MASK: Final = (1 << _RANK_BASE) - 1


class EvaluatorError(RulesError):
    """Cards the evaluator cannot read (too few, too many, or the same card twice)."""


def _pack(category: int, ranks: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = value << 4 | (ranks[i] if i < len(ranks) else 0)
    return value


#: Per card code: one count in its rank's 3-bit field and one in its suit's 3-bit field.
_KEY: Final[tuple[int, ...]] = tuple(
    (1 << (_RANK_BASE + 3 * (code >> 2))) | (1 << (3 * (code & 3))) for code in range(52)
)
#: Per card code: its rank's bit in its suit's 16-bit lane (the flush suit's ranks).
_LANE: Final[tuple[int, ...]] = tuple(1 << (16 * (code & 3) + (code >> 2)) for code in range(52))

#: Suit counts (four 3-bit fields) -> the suit holding five or more cards, or -1.
_FLUSH_SUIT: Final[tuple[int, ...]] = tuple(
    next((s for s in range(4) if (fields >> (3 * s)) & 7 >= 5), -1) for fields in range(4096)
)


def _straight_top(mask: int) -> int:
    """The top rank of the highest straight in a 13-bit rank mask (bit 0 = deuce), or 0."""
    for top in range(ACE, 5, -1):
        window = 0b11111 << (top - 6)
        if mask & window == window:
            return top
    wheel = 0b1111 | 1 << (ACE - 2)
    return 5 if mask & wheel == wheel else 0


def _flush_value(mask: int) -> int:
    """The value of the best hand of one suit whose ranks are ``mask`` (five or more bits)."""
    top = _straight_top(mask)
    if top == ACE:
        return _pack(Category5.ROYAL_FLUSH, (ACE,))
    if top:
        return _pack(Category5.STRAIGHT_FLUSH, (top,))
    ranks = [r for r in range(ACE, 1, -1) if mask >> (r - 2) & 1][:5]
    return _pack(Category5.FLUSH, ranks)


#: 13-bit mask of a suit's ranks -> best one-suit hand value (0 with fewer than five ranks).
_FLUSH_VALUE: Final[tuple[int, ...]] = tuple(
    _flush_value(mask) if mask.bit_count() >= 5 else 0 for mask in range(1 << 13)
)


def _counts_value(counts: Sequence[int]) -> int:
    """The value of the best hand of ``counts`` (index 0 = deuces) ignoring suits."""
    desc = [r for r in range(ACE, 1, -1) if counts[r - 2]]
    mask = 0
    for r in desc:
        mask |= 1 << (r - 2)
    quads = [r for r in desc if counts[r - 2] >= 4]
    trips = [r for r in desc if counts[r - 2] == 3]
    pairs = [r for r in desc if counts[r - 2] == 2]
    if quads:
        q = quads[0]
        return _pack(Category5.FOUR_OF_A_KIND, (q, *[r for r in desc if r != q][:1]))
    if trips and (len(trips) >= 2 or pairs):
        t = trips[0]
        pair = max([r for r in trips[1:]] + pairs)
        return _pack(Category5.FULL_HOUSE, (t, pair))
    top = _straight_top(mask)
    if top:
        return _pack(Category5.STRAIGHT, (top,))
    if trips:
        t = trips[0]
        return _pack(Category5.THREE_OF_A_KIND, (t, *[r for r in desc if r != t][:2]))
    if len(pairs) >= 2:
        p, q = pairs[0], pairs[1]
        return _pack(Category5.TWO_PAIR, (p, q, *[r for r in desc if r not in (p, q)][:1]))
    if pairs:
        p = pairs[0]
        return _pack(Category5.PAIR, (p, *[r for r in desc if r != p][:3]))
    return _pack(Category5.HIGH_CARD, desc[:5])


#: Rank multiset key (the rank fields of a hand's key, shifted down) -> value, filled lazily.
_BY_RANKS: dict[int, int] = {}


def _ranks_miss(rkey: int) -> int:
    counts = [(rkey >> (3 * i)) & 7 for i in range(13)]
    value = _BY_RANKS[rkey] = _counts_value(counts)
    return value


def rank7(cards: Sequence[Card | int]) -> int:
    """The value of the best five of exactly seven distinct cards (653a.6; 653a.1 "Hand").

    The hot path of the table and of the simulator: no checks beyond unpacking seven cards
    (pass distinct cards of one deck; :func:`rank_cards` checks).
    """
    a, b, c, d, e, f, g = cards
    key = _KEY
    k = key[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
    suit = _FLUSH_SUIT[k & _SUIT_MASK]
    if suit >= 0:
        lane = _LANE
        m = lane[a] | lane[b] | lane[c] | lane[d] | lane[e] | lane[f] | lane[g]
        return _FLUSH_VALUE[(m >> (16 * suit)) & 0x1FFF]
    rkey = k >> _RANK_BASE
    value = _BY_RANKS.get(rkey)
    if value is None:
        value = _ranks_miss(rkey)
    return value


def rank_cards(cards: Sequence[Card | int]) -> int:
    """The value of the best five-card hand among five, six or seven distinct cards.

    Raises:
        EvaluatorError: fewer than five or more than seven cards, or a card twice.
    """
    if not 5 <= len(cards) <= 7:
        raise EvaluatorError(
            f"a 653a.6 hand is the best five of five to seven cards, not {len(cards)}"
        )
    if len(set(cards)) != len(cards):
        raise EvaluatorError(f"cards {[str(c) for c in cards]} hold the same card twice")
    if len(cards) == 7:
        return rank7(cards)
    k = 0
    m = 0
    for c in cards:
        k += _KEY[c]
        m |= _LANE[c]
    suit = _FLUSH_SUIT[k & _SUIT_MASK]
    if suit >= 0:
        return _FLUSH_VALUE[(m >> (16 * suit)) & 0x1FFF]
    rkey = k >> _RANK_BASE
    value = _BY_RANKS.get(rkey)
    return _ranks_miss(rkey) if value is None else value


def count_better(
    base: Sequence[Card | int], candidates: Iterable[int], target: int, limit: int
) -> int:
    """How many ``candidates`` (card codes) give ``base`` plus that one card a value above
    ``target``, counting up to ``limit`` (the strategy's dealer outs at the river)."""
    k0 = 0
    m0 = 0
    for c in base:
        k0 += _KEY[c]
        m0 |= _LANE[c]
    found = 0
    for c in candidates:
        k = k0 + _KEY[c]
        suit = _FLUSH_SUIT[k & _SUIT_MASK]
        if suit >= 0:
            value = _FLUSH_VALUE[((m0 | _LANE[c]) >> (16 * suit)) & 0x1FFF]
        else:
            rkey = k >> _RANK_BASE
            got = _BY_RANKS.get(rkey)
            value = _ranks_miss(rkey) if got is None else got
        if value > target:
            found += 1
            if found >= limit:
                break
    return found


def category_of(value: int) -> Category5:
    """The 653a.6(b) category of a hand value."""
    return Category5(value >> CATEGORY_SHIFT)


def hand_name(value: int) -> str:
    """The category of a hand value as the regulation names it ("Full house")."""
    return HAND_NAMES[category_of(value)]


def tie_break(value: int) -> tuple[int, ...]:
    """The tie-break ranks of a hand value, most important first."""
    n = _TIE_LENGTH[category_of(value)]
    return tuple((value >> (4 * (4 - i))) & 0xF for i in range(n))


def to_hand_rank(value: int) -> HandRank:
    """The same hand as :class:`~game_server.rules.poker.HandRank` (for the general ranker)."""
    return HandRank(category_of(value), tie_break(value))


def best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five cards that make the best hand among ``cards`` (the first such five in the
    order given when several tie), for display and the log."""
    target = rank_cards(cards)
    for five in combinations(cards, 5):
        if rank_cards(five) == target:
            return tuple(five)
    raise AssertionError("no five cards reach the hand's value")  # pragma: no cover


def warm() -> int:
    """Fill the rank table for every multiset of seven ranks; returns its size."""
    for counts in _rank_multisets(7, (4,) * 13):
        rkey = sum(m << (3 * i) for i, m in enumerate(counts))
        if rkey not in _BY_RANKS:
            _ranks_miss(rkey)
    return len(_BY_RANKS)


# --------------------------------------------------------------------------- exact counts


def _rank_multisets(n: int, limits: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every vector of 13 rank counts with ``counts[i] <= limits[i]`` summing to ``n``."""
    counts = [0] * len(limits)

    def walk(i: int, left: int) -> Iterator[tuple[int, ...]]:
        if i == len(limits):
            if left == 0:
                yield tuple(counts)
            return
        for m in range(min(left, limits[i]) + 1):
            counts[i] = m
            yield from walk(i + 1, left - m)
        counts[i] = 0

    yield from walk(0, n)


def category_counts(
    n: int = 7, ranks: Iterable[int] = RANKS, *, by_value: bool = False
) -> dict[int, int]:
    """The number of ``n``-card hands of each category (or each hand value) from a deck of
    every suit of ``ranks`` (default the 52-card deck of 653a.6(a)), counted exactly.

    Each multiset of ranks (at most four of a rank) is taken once: it can be dealt in
    ``prod C(4, m)`` ways. A flush needs five or more distinct ranks in one suit; for each
    set ``T`` of five or more of the multiset's distinct ranks, the deals whose spade ranks
    are exactly ``T`` number ``prod_{r in T} C(3, m_r - 1) * prod_{r not in T} C(3, m_r)``,
    times four suits (two suits cannot both hold five of seven cards). Those are flushes of
    ``T``; every other deal is read from the ranks alone.

    Returns:
        ``{category (int of Category5): hands}``, or ``{hand value: hands}`` with ``by_value``.

    Raises:
        EvaluatorError: ``n`` outside 5..7 or ranks outside 2..14.
    """
    if not 5 <= n <= 7:
        raise EvaluatorError(f"hands of {n} cards are not 653a.6 hands (5 to 7 cards)")
    present = set(ranks)
    if not present <= set(RANKS):
        raise EvaluatorError(f"ranks {sorted(present - set(RANKS))} are not card ranks 2..14")
    limits = tuple(4 if r in present else 0 for r in RANKS)
    c4 = [comb(4, m) for m in range(5)]
    c3 = [comb(3, m) for m in range(5)]
    out: dict[int, int] = {}
    shift = 0 if by_value else CATEGORY_SHIFT
    for counts in _rank_multisets(n, limits):
        deals = 1
        rkey = 0
        for i, m in enumerate(counts):
            if m:
                deals *= c4[m]
                rkey |= m << (3 * i)
        distinct = [i for i, m in enumerate(counts) if m]
        flushes = 0
        if len(distinct) >= 5:
            for size in range(5, len(distinct) + 1):
                for chosen in combinations(distinct, size):
                    ways = 4
                    mask = 0
                    for i in distinct:
                        if i in chosen:
                            ways *= c3[counts[i] - 1]
                            mask |= 1 << i
                        else:
                            ways *= c3[counts[i]]
                    if ways:
                        flushes += ways
                        key = _FLUSH_VALUE[mask] >> shift
                        out[key] = out.get(key, 0) + ways
        value = _BY_RANKS.get(rkey)
        if value is None:
            value = _ranks_miss(rkey)
        key = value >> shift
        out[key] = out.get(key, 0) + deals - flushes
    return out
