"""Caribbean Stud Poker's Ante and Bet by exact enumeration: what each deal the player can
see is worth when he makes the Bet Wager, for every deal, and the optimal decision (the
procedure of :mod:`.game`: five cards to the player, five to the dealer with the first face
up; fold, or the Bet Wager of twice the Ante; the dealer qualifies with ace-king or better,
639a.11; the Bet Wager paytable :data:`.rules.BET_PAYTABLE`).

What a deal is worth. The player sees his five cards and the dealer's up card ``u``; the
dealer's four face-down cards are one of ``T = C(46, 4)`` hands. With the Bet Wager, per
Ante: +1 when the dealer does not qualify (the Ante wins, the Bet pushes); ``1 + 2 a`` when
the player's hand beats a qualifying dealer (the Bet paid ``a`` to 1 by his hand); 0 on a
tie; -3 when a qualifying dealer wins. Folding loses the Ante: -1.

How it is counted. All three outcomes are read from ``cum(x)``, the dealer hands of value at
most ``x``, at three values: below ace-king-4-3-2 (the lowest qualifying hand), below the
player's hand and at it. The dealer's value is the value of his five ranks (no flush) unless
all five cards share the up card's suit. So ``cum(x) = A(x) - B(x)``: ``A`` counts the dealer
hands whose rank value is at most ``x``, ``B`` those among them whose five suited cards make
a flush above ``x``. Both avoid the player's cards by inclusion-exclusion over subsets ``S``
of them (hands from the deck less ``u`` that *contain* ``S``, signed ``(-1)^|S|``): ``A``'s
counts depend on the ranks of ``S`` and of ``u`` alone, counted by multisets of ranks;
``B``'s on the ranks of ``S`` in the up card's suit, over the four-card subsets of that suit.
The player's hands are taken one class per suit permutation
(:func:`~game_server.rules.enumeration.suit_classes`), each with its 47 up cards:
122,151,120 deals in about a minute.

Every pair or better makes the Bet Wager and every hand below ace-king folds (optimal for
every deal, checked by the derivation); an ace-king hand's decision depends on the deal.
The strategy shipped reads its five ranks, the up card's rank and how many of the player's
cards share the up card's suit (:func:`cell_key`); each such cell takes the decision with
the highest total over its deals (:class:`Cell`).

Pure, and parameterized by the deck's ranks so that it is checked card by card over reduced
decks (``tests/games/caribbean/test_caribbean_strategy.py``).

Entry points: :class:`Enumeration`, :func:`derive`, :func:`cell_key`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Final

from game_server.games.caribbean.rules.rules import bet_line
from game_server.games.uth.rules.hands import CATEGORY_SHIFT, rank_cards
from game_server.rules.enumeration import Blocks, CumulativeCounts, suit_classes
from game_server.rules.poker import Category5
from shared.cards import ACE, KING, RANKS, Card
from shared.games.caribbean.strategy import simple_bet, simple_bets
from shared.money import ToOne

__all__ = [
    "QUALIFYING",
    "Cell",
    "Derivation",
    "Enumeration",
    "cell_key",
    "derive",
    "is_ace_king",
    "simple_bets",
    "simple_decision",
]

#: The lowest qualifying hand, ace-king-4-3-2 (639a.11; the value of :func:`rank_cards`).
QUALIFYING: Final = rank_cards([Card(ACE, 0), Card(KING, 1), Card(4, 2), Card(3, 3), Card(2, 0)])

CellKey = tuple[tuple[int, ...], int, int]


def _bet_pays() -> dict[int, int]:
    """The Bet Wager's ``a`` (``a`` to 1) by the player's category when he wins."""
    out = {}
    for category in Category5:
        if category is Category5.FIVE_OF_A_KIND:
            continue
        pay = bet_line(category).pay
        assert isinstance(pay, ToOne) and pay.b == 1
        out[int(category)] = pay.a
    return out


_PAYS: Final = _bet_pays()
_RANK_VALUES: dict[tuple[int, ...], int] = {}


def _rank_value(ranks: Sequence[int]) -> int:
    """The value of five cards of these ranks in more than one suit (cached)."""
    key = tuple(sorted(ranks))
    value = _RANK_VALUES.get(key)
    if value is None:  # the i-th card in suit i mod 4: never five of one suit
        value = _RANK_VALUES[key] = rank_cards([Card(r, i % 4) for i, r in enumerate(key)])
    return value


def is_ace_king(value: int) -> bool:
    """Whether a hand value is high cards headed by an ace and a king."""
    return value >> CATEGORY_SHIFT == 0 and value >> 16 & 15 == ACE and value >> 12 & 15 == KING


def simple_decision(cards: Sequence[Card], up: Card) -> bool:
    """The published simple strategy for a deal (:func:`shared.games.caribbean.strategy.
    simple_bet`): whether to make the Bet Wager."""
    ranks, up_rank, _ = cell_key(cards, up)
    return simple_bet(bool(rank_cards(cards) >> CATEGORY_SHIFT), ranks, up_rank)


def cell_key(cards: Sequence[Card], up: Card) -> CellKey:
    """The cell of a deal: the player's five ranks (highest first), the up card's rank, how
    many of the player's cards share its suit."""
    ranks = tuple(sorted(((c >> 2) + 2 for c in cards), reverse=True))
    suit = up & 3
    return ranks, (up >> 2) + 2, sum(1 for c in cards if c & 3 == suit)


@dataclass(slots=True)
class Cell:
    """An ace-king cell: over every deal it covers, the total result of the Bet Wager and of
    folding, in units of ``1 / T`` Ante, the deals, and the deals the Bet Wager suits."""

    bet: int = 0
    fold: int = 0
    deals: int = 0
    bet_best: int = 0

    @property
    def bets(self) -> bool:
        """Whether the cell makes the Bet Wager (it does on a tie)."""
        return self.bet >= self.fold

    def departures(self) -> int:
        """The deals whose own optimal decision is not the cell's."""
        return self.deals - self.bet_best if self.bets else self.bet_best


@dataclass(slots=True)
class Derivation:
    """The ace-king cells and the exact totals, in units of ``1 / T`` Ante over ``deals``
    deals, of the cells' strategy, of the fully optimal strategy (the exact suits of the
    player's cards known) and of a rule ``decide`` given to :func:`derive`."""

    cells: dict[CellKey, Cell] = field(default_factory=dict)
    strategy: int = 0
    optimal: int = 0
    rule: int = 0
    deals: int = 0
    per_deal: int = 1
    pair_folds: int = 0
    """Deals of a pair or better the Bet Wager does not suit (none in the full deck)."""
    below_bets: int = 0
    """Deals below ace-king the Bet Wager suits (none in the full deck)."""

    def result(self, which: str = "strategy") -> Fraction:
        """The mean result of the Ante and the Bet per Ante of ``which`` strategy:
        "strategy" (the cells'), "optimal" or "rule"."""
        total = {"strategy": self.strategy, "optimal": self.optimal, "rule": self.rule}
        return Fraction(total[which], self.deals * self.per_deal)


class Enumeration:
    """The exact counts of one deck of ``ranks`` in four suits (module docstring)."""

    def __init__(self, ranks: Sequence[int] = RANKS) -> None:
        self.ranks = tuple(sorted(ranks))
        self.cards = 4 * len(self.ranks)
        #: ``T``: the dealer's four face-down cards from what the player does not see.
        self.per_deal = comb(self.cards - 6, 4)
        self._rank_tables: dict[tuple[int, tuple[int, ...]], CumulativeCounts] = {}
        self._flush_tables: dict[
            tuple[int, tuple[int, ...]], tuple[CumulativeCounts, CumulativeCounts]
        ] = {}
        self._below: dict[tuple[tuple[int, ...], int, int], int] = {}
        self._flush_above: dict[tuple[tuple[int, ...], int, int], int] = {}

    def _rank_table(self, up: int, held: tuple[int, ...]) -> CumulativeCounts:
        """The dealer's hands holding the up card (rank ``up``) and cards of the ranks
        ``held``, by the value of their ranks (``A``)."""
        key = (up, held)
        table = self._rank_tables.get(key)
        if table is None:
            taken = Counter(held)
            available = {r: 4 - (r == up) - taken[r] for r in self.ranks}
            weighted: Counter[int] = Counter()
            for more in combinations_with_replacement(self.ranks, 4 - len(held)):
                ways = 1
                for r, n in Counter(more).items():
                    if n > available[r]:
                        ways = 0
                        break
                    ways *= comb(available[r], n)
                if ways:
                    weighted[_rank_value((up, *held, *more))] += ways
            table = self._rank_tables[key] = CumulativeCounts(weighted)
        return table

    def _flush_table(
        self, up: int, held: tuple[int, ...]
    ) -> tuple[CumulativeCounts, CumulativeCounts]:
        """The dealer's hands of five cards of the up card's suit holding the up card and
        cards of the ranks ``held`` of that suit: by rank value and by flush value (``B``)."""
        key = (up, held)
        tables = self._flush_tables.get(key)
        if tables is None:
            free = [r for r in self.ranks if r != up and r not in held]
            by_rank: Counter[int] = Counter()
            by_flush: Counter[int] = Counter()
            for more in combinations(free, 4 - len(held)):
                ranks = (up, *held, *more)
                by_rank[_rank_value(ranks)] += 1
                by_flush[rank_cards([Card(r, 0) for r in ranks])] += 1
            tables = self._flush_tables[key] = (
                CumulativeCounts(by_rank),
                CumulativeCounts(by_flush),
            )
        return tables

    def _rank_part(self, ranks: tuple[int, ...], up: int, value: int) -> int:
        key = (ranks, up, value)
        found = self._below.get(key)
        if found is None:
            found = 0
            for size in range(min(4, len(ranks)) + 1):
                for held in combinations(ranks, size):
                    term = self._rank_table(up, held).at_most(value)
                    found += -term if size & 1 else term
            self._below[key] = found
        return found

    def _flush_part(self, suited: tuple[int, ...], up: int, value: int) -> int:
        key = (suited, up, value)
        found = self._flush_above.get(key)
        if found is None:
            found = 0
            for size in range(min(4, len(suited)) + 1):
                for held in combinations(suited, size):
                    by_rank, by_flush = self._flush_table(up, held)
                    term = by_rank.at_most(value) - by_flush.at_most(value)
                    found += -term if size & 1 else term
            self._flush_above[key] = found
        return found

    def _at_most(self, ranks: tuple[int, ...], suited: tuple[int, ...], up: int, x: int) -> int:
        """The dealer hands avoiding the player's cards whose value is at most ``x``."""
        return self._rank_part(ranks, up, x) - self._flush_part(suited, up, x)

    def bet_result(self, cards: Sequence[Card], up: Card) -> int:
        """The total result of the Bet Wager over the dealer's ``T`` hands, in Antes."""
        blocks: list[list[int]] = [[], [], [], []]
        for c in cards:
            blocks[c & 3].append((c >> 2) + 2)
        canonical = tuple(tuple(sorted(b)) for b in blocks)
        return self._bet(canonical, rank_cards(cards), (up >> 2) + 2, up & 3)

    def _bet(self, blocks: Blocks, value: int, up: int, up_suit: int) -> int:
        ranks = tuple(sorted(r for b in blocks for r in b))
        suited = blocks[up_suit]
        t = self.per_deal
        unqualified = self._at_most(ranks, suited, up, QUALIFYING - 1)
        if value < QUALIFYING:  # every dealer hand at most his value does not qualify
            return unqualified - 3 * (t - unqualified)
        below = self._at_most(ranks, suited, up, value - 1)
        at = self._at_most(ranks, suited, up, value)
        pay = _PAYS[value >> CATEGORY_SHIFT]
        return unqualified + (below - unqualified) * (1 + 2 * pay) - 3 * (t - at)

    def forget(self) -> None:
        """Drop the per-hand caches (the tables stay): call between rank multisets."""
        self._below.clear()
        self._flush_above.clear()

    def cells(
        self,
        multiset: Sequence[int],
        derivation: Derivation | None = None,
        decide: Callable[[Sequence[Card], Card], bool] | None = None,
        ups: Sequence[int] | None = None,
    ) -> dict[tuple[int, int], Cell]:
        """The ace-king cells of the player's ranks ``multiset`` (five), by (up card rank,
        cards in its suit), over every hand of those ranks and every up card (of the ranks
        ``ups`` only, if given: for checks, without a derivation); with a ``derivation``,
        every deal of those ranks is added to its totals (``decide``: the rule whose total
        is ``rule``, True to make the Bet Wager)."""
        t = self.per_deal
        out: dict[tuple[int, int], Cell] = {}
        ranks = tuple(sorted(multiset))
        for blocks, count in suit_classes(ranks):
            cards = [Card(r, s) for s, b in enumerate(blocks) for r in b]
            value = rank_cards(cards)
            ace_king = is_ace_king(value)
            for up in self.ranks if ups is None else ups:
                for up_suit in range(4):
                    if up in blocks[up_suit]:
                        continue
                    bet = self._bet(blocks, value, up, up_suit)
                    if ace_king:
                        cell = out.setdefault((up, len(blocks[up_suit])), Cell())
                        cell.bet += count * bet
                        cell.fold -= count * t
                        cell.deals += count
                        cell.bet_best += count if bet >= -t else 0
                    if derivation is None:
                        continue
                    derivation.optimal += count * max(bet, -t)
                    if decide is not None:
                        derivation.rule += count * (bet if decide(cards, Card(up, up_suit)) else -t)
                    if ace_king:
                        continue
                    pair = value >> CATEGORY_SHIFT > 0
                    derivation.strategy += count * (bet if pair else -t)
                    if pair and bet < -t:
                        derivation.pair_folds += count
                    if not pair and bet > -t:
                        derivation.below_bets += count
        if derivation is not None:
            for cell in out.values():
                derivation.strategy += cell.bet if cell.bets else cell.fold
            derivation.cells.update({(ranks[::-1], *k): c for k, c in out.items()})
        self.forget()
        return out


def derive(
    ranks: Sequence[int] = RANKS,
    decide: Callable[[Sequence[Card], Card], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Derivation:
    """Every ace-king cell and the exact totals over the deck of ``ranks`` (about a minute
    over the full deck); ``decide`` is a rule to total as well (True: the Bet Wager)."""
    engine = Enumeration(ranks)
    derivation = Derivation(per_deal=engine.per_deal)
    every = [
        m for m in combinations_with_replacement(engine.ranks, 5) if max(Counter(m).values()) <= 4
    ]
    for i, multiset in enumerate(every):
        engine.cells(multiset, derivation, decide)
        if progress is not None:
            progress(i + 1, len(every))
    derivation.deals = comb(engine.cards, 5) * (engine.cards - 5)
    return derivation
