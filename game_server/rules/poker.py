"""Poker hand ranking for 3-, 4- and 5-card hands, with an optional wild card; pure.

Used by the Blackjack side wagers of 58 Pa. Code 633b that read the cards as a poker hand:

- 633b.6 Super 4 Progressive: four cards (royal flush, three of a kind, straight, flush);
  :func:`rank_hand` with :class:`Category4` and :func:`is_royal`.
- 633b.7 Top 3 and 633b.11 TriLux Deluxe: three cards (straight flush, three of a kind,
  straight, flush); :func:`rank_hand` with :class:`Category3` and :func:`is_suited`
  ("Three-of-a-kind Suited", possible with several decks).
- 633b.12 AxMan: the dealer's final hand, two to five cards or "the five highest cards"
  (:func:`five_highest_choices`), with the king of diamonds wild; :func:`five_card_readings`.

and later by Ultimate Texas Hold 'Em (58 Pa. Code 653a.6), the best five of seven cards:
:func:`best_of`. Entry points: :func:`rank_hand`, :func:`best_of`, :func:`five_card_readings`.

Ranking conventions (the regulation text this product holds does not state them for three
cards; each follows the Board's wording for its sister games):

- Cards rank ace, king, ..., 2; suits are equal. The ace is low only to complete the lowest
  straight or straight flush: A-2-3 (three cards), A-2-3-4 (four cards, 58 Pa. Code 641a.6(a)),
  A-2-3-4-5 (five cards, 653a.6(a)). There
  is no wrap-around (Q-K-A-2 is not a straight). With three cards the exhaustive count of 720
  straights and 48 straight flushes requires both A-2-3 and Q-K-A.
- Three cards (Three Card Poker): straight flush, three of a kind, straight, flush, pair,
  high card; a straight ranks above a flush (633b.11(i) pays it so).
- Four cards (Four Card Poker, 641a.6(b), the rankings 641a.1 cites for its four-card
  hands): four of a kind, straight flush, three of a kind, flush, straight, two pair, pair,
  high card. The text of 641a.6 is not held; the order is the Board's four-card ranking as
  its sister chapters word it: 684a.6 (Four Card Frenzy), quoted in part in the regulation
  notes, and 657a.6 (Crazy 4 Poker), quoted there in full, which give the same order.
- Five cards (653a.6(b)): five of a kind (wild card or several decks), royal flush, straight
  flush, four of a kind, full house, flush, straight, three of a kind, two pair, pair, high
  card. The royal flush is its own category because paytables pay it separately.
- Several decks: a hand may hold identical cards (633b.6(a)(6), AxMan's five of a kind). A hand
  is read as every category its cards satisfy, and ranks as the highest of them: three sevens
  of hearts are three of a kind (above a flush in 3 and 4 cards), two pair all of hearts is a
  flush.
- Wild card (633b.12(k): "treated as a wild card, meaning it can be assigned any rank"): every
  copy of the given card is a *full* wild card, not a "bug": it becomes whichever card makes
  the best hand, may duplicate a card already in the hand (five of a kind), and by default
  also takes any suit. ``wild_any_suit=False`` keeps its printed suit (the narrow reading of
  "any rank"); the regulation does not say, so it is an option for the Rules Submission.

Ties between hands of the same size compare :class:`HandRank` values: the category, then the
tie-break ranks (the ranks grouped by how many of each, larger groups and higher ranks first;
straights by their top card, the wheel's top card being 5).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import IntEnum
from itertools import combinations, combinations_with_replacement
from types import MappingProxyType
from typing import Final, NamedTuple, TypeAlias

from game_server.rules.errors import RulesError
from shared.cards import ACE, JACK, KING, QUEEN, RANKS, TEN, Card


class HandSizeError(RulesError):
    """A poker hand with a number of cards this ranker does not define."""


class Category3(IntEnum):
    """Three-card hand categories, lowest first (Three Card Poker; 633b.7, 633b.11)."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    THREE_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5


class Category4(IntEnum):
    """Four-card hand categories, lowest first (Four Card Poker, 58 Pa. Code 641a.6(b))."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    STRAIGHT = 3
    FLUSH = 4
    THREE_OF_A_KIND = 5
    STRAIGHT_FLUSH = 6
    FOUR_OF_A_KIND = 7


class Category5(IntEnum):
    """Five-card hand categories, lowest first (653a.6(b); five of a kind from 633b.12(a))."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9
    FIVE_OF_A_KIND = 10


Category: TypeAlias = Category3 | Category4 | Category5


class HandRank(NamedTuple):
    """The value of a poker hand: orderable, hashable, immutable.

    Two hands of the same size compare as poker hands do: category first, then ``ranks``, the
    tie-break ranks (2..14) in order of importance. Ranks of different hand sizes have
    different category enums and are not meant to be compared.
    """

    category: Category
    ranks: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.category.name.lower().replace('_', ' ')} {self.ranks}"


# ---------------------------------------------------------------------------------------------
# Slow path: read a multiset of ranks (and whether the cards share a suit) into categories.
# Its results are cached per class of hand, so each class is computed once per process.

_Readings: TypeAlias = Mapping[Category, HandRank]
_SHORT: Final = 0  # five-card category names for a hand of one to five cards (633b.12(h), (i))


def _straight_top(distinct_desc: tuple[int, ...], n: int) -> int | None:
    """The top rank of a straight of ``n`` distinct ranks, 5/4/3 for the ace-low ones."""
    if len(distinct_desc) != n:
        return None
    if distinct_desc[0] - distinct_desc[-1] == n - 1:
        return distinct_desc[0]
    if distinct_desc[0] == ACE and distinct_desc[1:] == tuple(range(n, 1, -1)):
        return n
    return None


def _without(ranks_desc: list[int], rank: int, times: int) -> list[int]:
    rest = list(ranks_desc)
    for _ in range(times):
        rest.remove(rank)
    return rest


def _read(ranks: Iterable[int], flush: bool, scheme: int) -> dict[Category, HandRank]:
    """Every category the ranks (and a common suit when ``flush``) satisfy, each with its best
    tie-break. ``scheme`` is 3, 4 or 5 (that many cards) or ``_SHORT``."""
    ranks_desc = sorted(ranks, reverse=True)
    n = len(ranks_desc)
    counts: dict[int, int] = {}
    for r in ranks_desc:
        counts[r] = counts.get(r, 0) + 1
    distinct = tuple(sorted(counts, reverse=True))
    pairs = [r for r in distinct if counts[r] >= 2]
    trips = [r for r in distinct if counts[r] >= 3]
    quads = [r for r in distinct if counts[r] >= 4]
    five = n == 5 and len(distinct) == 1
    top = _straight_top(distinct, n) if scheme != _SHORT else None
    flush = flush and scheme != _SHORT
    every = tuple(ranks_desc)

    def kind(rank: int, times: int) -> tuple[int, ...]:
        return (rank, *_without(ranks_desc, rank, times))

    two_pair: tuple[int, ...] = ()
    if len(pairs) >= 2:
        two_pair = (pairs[0], pairs[1], *_without(_without(ranks_desc, pairs[0], 2), pairs[1], 2))
    found: dict[Category, HandRank] = {}
    if scheme == 3:
        cats3 = Category3
        if top is not None and flush:
            found[cats3.STRAIGHT_FLUSH] = HandRank(cats3.STRAIGHT_FLUSH, (top,))
        if trips:
            found[cats3.THREE_OF_A_KIND] = HandRank(cats3.THREE_OF_A_KIND, kind(trips[0], 3))
        if top is not None:
            found[cats3.STRAIGHT] = HandRank(cats3.STRAIGHT, (top,))
        if flush:
            found[cats3.FLUSH] = HandRank(cats3.FLUSH, every)
        if pairs:
            found[cats3.PAIR] = HandRank(cats3.PAIR, kind(pairs[0], 2))
        found[cats3.HIGH_CARD] = HandRank(cats3.HIGH_CARD, every)
        return found
    if scheme == 4:
        cats4 = Category4
        if quads:
            found[cats4.FOUR_OF_A_KIND] = HandRank(cats4.FOUR_OF_A_KIND, kind(quads[0], 4))
        if top is not None and flush:
            found[cats4.STRAIGHT_FLUSH] = HandRank(cats4.STRAIGHT_FLUSH, (top,))
        if trips:
            found[cats4.THREE_OF_A_KIND] = HandRank(cats4.THREE_OF_A_KIND, kind(trips[0], 3))
        if flush:
            found[cats4.FLUSH] = HandRank(cats4.FLUSH, every)
        if top is not None:
            found[cats4.STRAIGHT] = HandRank(cats4.STRAIGHT, (top,))
        if len(pairs) >= 2:
            found[cats4.TWO_PAIR] = HandRank(cats4.TWO_PAIR, two_pair)
        if pairs:
            found[cats4.PAIR] = HandRank(cats4.PAIR, kind(pairs[0], 2))
        found[cats4.HIGH_CARD] = HandRank(cats4.HIGH_CARD, every)
        return found
    cats = Category5
    if five:
        found[cats.FIVE_OF_A_KIND] = HandRank(cats.FIVE_OF_A_KIND, (distinct[0],))
    if top is not None and flush:
        if top == ACE:
            found[cats.ROYAL_FLUSH] = HandRank(cats.ROYAL_FLUSH, (ACE,))
        else:
            found[cats.STRAIGHT_FLUSH] = HandRank(cats.STRAIGHT_FLUSH, (top,))
    if quads:
        found[cats.FOUR_OF_A_KIND] = HandRank(cats.FOUR_OF_A_KIND, kind(quads[0], 4))
    if n == 5 and sorted(counts.values()) == [2, 3]:
        pair = next(r for r in distinct if counts[r] == 2)  # may rank above the trips
        found[cats.FULL_HOUSE] = HandRank(cats.FULL_HOUSE, (trips[0], pair))
    if flush:
        found[cats.FLUSH] = HandRank(cats.FLUSH, every)
    if top is not None:
        found[cats.STRAIGHT] = HandRank(cats.STRAIGHT, (top,))
    if trips:
        found[cats.THREE_OF_A_KIND] = HandRank(cats.THREE_OF_A_KIND, kind(trips[0], 3))
    if len(pairs) >= 2:
        found[cats.TWO_PAIR] = HandRank(cats.TWO_PAIR, two_pair)
    if pairs:
        found[cats.PAIR] = HandRank(cats.PAIR, kind(pairs[0], 2))
    found[cats.HIGH_CARD] = HandRank(cats.HIGH_CARD, every)
    return found


def _read_wild(ranks: Sequence[int], flush: bool, wilds: int, scheme: int) -> _Readings:
    """The readings of ``ranks`` plus ``wilds`` full wild cards: per category, the best
    tie-break over every rank the wild cards can take (taking the common suit if ``flush``,
    which only adds readings)."""
    best: dict[Category, HandRank] = {}
    for extra in combinations_with_replacement(RANKS, wilds):
        for category, value in _read((*ranks, *extra), flush, scheme).items():
            if category not in best or value > best[category]:
                best[category] = value
    return MappingProxyType(best)


def _scheme(n: int, short: bool) -> int:
    if short:
        if not 1 <= n <= 5:
            raise HandSizeError(f"a hand of {n} cards: five-card readings take 1 to 5 cards")
        return _SHORT if n < 5 else 5
    if not 3 <= n <= 5:
        raise HandSizeError(f"a poker hand of {n} cards: rank_hand takes 3, 4 or 5 cards")
    return n


# ---------------------------------------------------------------------------------------------
# Fast path: a hand's class key is its rank counts packed in 4-bit fields (which also encode
# the number of cards) and one bit for "all one suit"; the cache maps it to the result.

_NIBBLE: Final = tuple(1 << (4 * (code >> 2)) for code in range(52))
_SUIT_BIT: Final = tuple(1 << (code & 3) for code in range(52))
_RANK_CACHE: dict[int, HandRank] = {}
_READ_CACHE: dict[int, _Readings] = {}
_WILD_RANK_CACHE: dict[tuple[int, bool, int, int], HandRank] = {}
_WILD_READ_CACHE: dict[tuple[int, bool, int, int], _Readings] = {}


def _ranks_of(key: int) -> list[int]:
    return [rank for rank in RANKS for _ in range((key >> (4 * (rank - 2))) & 15)]


def _best(readings: _Readings) -> HandRank:
    return readings[max(readings)]


def _wild_class(
    cards: Sequence[Card], wild: Card, wild_any_suit: bool
) -> tuple[int, bool, int, int]:
    key = 0
    suits = 0
    wilds = 0
    for c in cards:
        if c == wild:
            wilds += 1
        else:
            key += _NIBBLE[c]
            suits |= _SUIT_BIT[c]
    if not wild_any_suit:
        suits |= _SUIT_BIT[wild]
    return key, not suits & (suits - 1), wilds, len(cards)


def rank_hand(
    cards: Sequence[Card], wild: Card | None = None, *, wild_any_suit: bool = True
) -> HandRank:
    """The value of a 3-, 4- or 5-card poker hand.

    Args:
        cards: three, four or five cards (identical cards allowed, as from several decks).
        wild: a card that is wild wherever it appears (AxMan: the king of diamonds,
            58 Pa. Code 633b.12(k)); it becomes whatever card makes the best hand.
        wild_any_suit: whether the wild card may also take any suit (default) or keeps its own.

    Returns:
        A :class:`HandRank` whose category is a :class:`Category3`, :class:`Category4` or
        :class:`Category5` according to the number of cards.

    Raises:
        HandSizeError: for fewer than 3 or more than 5 cards (use :func:`best_of` for more).
    """
    if wild is None or wild not in cards:
        key = 0
        suits = 0
        for c in cards:
            key += _NIBBLE[c]
            suits |= _SUIT_BIT[c]
        cls = key << 1 | (not suits & (suits - 1))
        found = _RANK_CACHE.get(cls)
        if found is None:
            scheme = _scheme(len(cards), short=False)
            found = _RANK_CACHE[cls] = _best(_read(_ranks_of(key), bool(cls & 1), scheme))
        return found
    wcls = _wild_class(cards, wild, wild_any_suit)
    found = _WILD_RANK_CACHE.get(wcls)
    if found is None:
        key, flush, wilds, n = wcls
        scheme = _scheme(n, short=False)
        found = _WILD_RANK_CACHE[wcls] = _best(_read_wild(_ranks_of(key), flush, wilds, scheme))
    return found


def five_card_readings(
    cards: Sequence[Card], wild: Card | None = None, *, wild_any_suit: bool = True
) -> Mapping[Category5, HandRank]:
    """Every five-card category a hand of one to five cards can be read as, with its best
    tie-break in that category (AxMan, 58 Pa. Code 633b.12).

    A hand is read as a category when its cards satisfy the category's definition in
    633b.12(a): "two of the dealer's cards are of the same rank" is a pair even inside three of
    a kind, and four sevens of hearts from several decks are both four of a kind and a flush.
    With fewer than five cards only pair, two pair, three of a kind and four of a kind (and
    high card) are possible (633b.12(h)); straights, flushes, full houses and five of a kind
    need five cards (633b.12(i)). A wild card is assigned, per category, whatever makes that
    category best. A wager that pays the best of several readings (AxMan pays a flush above
    four of a kind) picks from the mapping; ``readings[Category5.PAIR].ranks[0]`` is the
    highest pair's rank (jacks or better).

    Raises:
        HandSizeError: for no cards or more than five (see :func:`five_highest_choices`).
    """
    if wild is None or wild not in cards:
        key = 0
        suits = 0
        for c in cards:
            key += _NIBBLE[c]
            suits |= _SUIT_BIT[c]
        cls = key << 1 | (not suits & (suits - 1))
        found = _READ_CACHE.get(cls)
        if found is None:
            scheme = _scheme(len(cards), short=True)
            read = _read(_ranks_of(key), bool(cls & 1), scheme)
            found = _READ_CACHE[cls] = MappingProxyType(read)
    else:
        wcls = _wild_class(cards, wild, wild_any_suit)
        found = _WILD_READ_CACHE.get(wcls)
        if found is None:
            key, flush, wilds, n = wcls
            scheme = _scheme(n, short=True)
            found = _WILD_READ_CACHE[wcls] = _read_wild(_ranks_of(key), flush, wilds, scheme)
    return found  # type: ignore[return-value]  # built with Category5 keys only


def best_hand(
    cards: Sequence[Card], k: int = 5, wild: Card | None = None, *, wild_any_suit: bool = True
) -> tuple[HandRank, tuple[Card, ...]]:
    """The best ``k``-card hand among ``cards`` and the cards that make it (the first such
    cards in the order given when several make the same value).

    Raises:
        HandSizeError: when ``k`` is not 3, 4 or 5 or there are fewer than ``k`` cards.
    """
    if len(cards) < k:
        raise HandSizeError(f"the best {k}-card hand needs at least {k} cards, not {len(cards)}")
    _scheme(k, short=False)
    best_value: HandRank | None = None
    best_cards: tuple[Card, ...] = ()
    for combo in combinations(cards, k):
        value = rank_hand(combo, wild, wild_any_suit=wild_any_suit)
        if best_value is None or value > best_value:
            best_value, best_cards = value, combo
    assert best_value is not None
    return best_value, best_cards


def best_of(
    cards: Sequence[Card], k: int = 5, wild: Card | None = None, *, wild_any_suit: bool = True
) -> HandRank:
    """The value of the best ``k``-card hand among ``cards`` (Ultimate Texas Hold 'Em:
    the best five of seven, 58 Pa. Code 653a.6).

    Raises:
        HandSizeError: when ``k`` is not 3, 4 or 5 or there are fewer than ``k`` cards.
    """
    if len(cards) < k:
        raise HandSizeError(f"the best {k}-card hand needs at least {k} cards, not {len(cards)}")
    _scheme(k, short=False)
    if wild is None and k == 5:
        # Inline fast path: the class key of each 5-subset, without calling rank_hand.
        nib = [_NIBBLE[c] for c in cards]
        bit = [_SUIT_BIT[c] for c in cards]
        best_value = None
        for a, b, c, d, e in combinations(range(len(cards)), 5):
            suits = bit[a] | bit[b] | bit[c] | bit[d] | bit[e]
            key = nib[a] + nib[b] + nib[c] + nib[d] + nib[e]
            cls = key << 1 | (not suits & (suits - 1))
            value = _RANK_CACHE.get(cls)
            if value is None:
                value = _RANK_CACHE[cls] = _best(_read(_ranks_of(key), bool(cls & 1), 5))
            if best_value is None or value > best_value:
                best_value = value
        assert best_value is not None
        return best_value
    return max(
        rank_hand(combo, wild, wild_any_suit=wild_any_suit) for combo in combinations(cards, k)
    )


def is_suited(cards: Iterable[Card]) -> bool:
    """Whether all the cards are of one suit (e.g. Top 3 "Three-of-a-kind Suited", 633b.7(e))."""
    return len({int(c) & 3 for c in cards}) == 1


_ROYAL_RANKS: Final = {
    4: (ACE, KING, QUEEN, JACK),
    5: (ACE, KING, QUEEN, JACK, TEN),
}


def is_royal(cards: Sequence[Card]) -> bool:
    """Whether four or five cards are the ace, king, queen, jack (and ten, for five cards) of
    one suit (Super 4 "Royal Flush", 633b.6(a)(1)-(2); five-card royal flush, 653a.6(b)(1))."""
    royal = _ROYAL_RANKS.get(len(cards))
    return (
        royal is not None
        and is_suited(cards)
        and tuple(sorted((c.rank for c in cards), reverse=True)) == royal
    )


def five_highest_choices(cards: Sequence[Card]) -> tuple[tuple[Card, ...], ...]:
    """The ways to take "the five highest cards in the dealer's hand" (58 Pa. Code 633b.12(g)).

    Five cards or fewer: the hand itself, the one choice. Six or more: the cards by rank (ace
    highest, each card at its printed rank, a wild king of diamonds being a king), and when
    cards of one rank straddle the fifth place, every way to take the cards of that rank: the
    regulation does not tell equal-ranked cards apart, so the AxMan wager decides between
    them (the conservative reading is the one best for the player, e.g. the wild king of
    diamonds rather than another king beside four aces). Each choice keeps the order of
    ``cards``.
    """
    if len(cards) <= 5:
        return (tuple(cards),)
    ordered = sorted(cards, key=lambda c: c.rank, reverse=True)
    cut = ordered[4].rank
    above = [c for c in ordered if c.rank > cut]
    tied_positions = [i for i, c in enumerate(cards) if c.rank == cut]
    need = 5 - len(above)
    choices: list[tuple[Card, ...]] = []
    seen: set[tuple[Card, ...]] = set()
    for picked in combinations(tied_positions, need):
        keep = set(picked)
        choice = tuple(c for i, c in enumerate(cards) if c.rank > cut or i in keep)
        if choice not in seen:
            seen.add(choice)
            choices.append(choice)
    return tuple(choices)
