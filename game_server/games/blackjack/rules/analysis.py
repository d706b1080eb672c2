"""Combinatorial analysis of the twenty-one family: the dealer's final totals, the expected
value of every decision, the basic strategy of a table's rules and its house edge.

The method is the one of the public combinatorial analysers (MGP's and Cacarulo's CA programs,
the Wizard of Odds' appendices): exact card removal, composition-dependent (CD) expected
values for every hand the player can hold, from which a chart is derived and then valued.

- **The dealer.** For each up card the dealer's draws are a small graph of the multisets of
  cards he can hold while he must still draw (:class:`_DealerGraph`, built once per up card
  and soft-17 rule: at most 364 nodes). The probability of each final total (17 to 21, bust,
  Blackjack) for a given set of removed cards is one pass over that graph with the counts
  left in the shoe: every ordering of the dealer's cards is counted, with exact removal of the
  up card, the player's cards and the other cards of a split. Results are memoized on the
  removed composition.
- **The peek.** Where the dealer checks for Blackjack (633b.5(o)) the player acts knowing he
  has none. The hole card is an unseen card like the player's next ones (the unseen cards are
  exchangeable), so the analysis lets it be drawn after the player's cards: every value is
  ``E[payoff x 1{no dealer Blackjack} | hand]``, the player's cards drawn with unconditioned
  probabilities and the dealer's first draw kept off the card that would make Blackjack. At
  a decision the factor ``P(no Blackjack | hand)`` is common to every action, so the best
  action is the best conditioned on no Blackjack, exactly. Without a peek (633a.10, 633a.11(d);
  the no-hole-card table, 633b.5(bb)(1)) Blackjack is one of the dealer's outcomes and each
  hand is settled against it as the engines do: a busted hand has already lost everything, a
  surrender has kept half, the first hand loses its original wager only and the other hands
  of a split get theirs back.
- **Decisions.** Stand, hit, double down (two cards, or any number of cards once at Spanish 21,
  635a.10), surrender (first two cards, 633a.9), split (633a.11), Spanish 21's rescue after a
  double (635a.10) and its payouts (635a.12: a player's 21 always wins, the 5-, 6- and
  7-or-more-card 21 and the 6-7-8 and 7-7-7 bonuses unless doubled, the super bonus in units
  of the original wager, a player Blackjack that beats the dealer's).
- **Splits (approximation).** Each split hand is played as if the other hands were not there:
  it is valued with the pair's two cards (and the up card) removed, not the other hands'
  cards. Resplits follow the usual hand-count approximation: the number of hands a split
  ends with is the exact distribution of a process where each hand draws its second card
  from the shoe less the pair cards drawn so far (a pair card resplits while the table
  allows, otherwise the hand plays its pair unsplit), and each hand is valued as above.
- **The chart (approximation).** The bots play a total-dependent chart, as players do: per
  hard or soft total, the dealer's up card and (at Spanish 21) the hand's number of cards, an
  order of preference among the actions, the first the engine allows being taken. Each cell
  is derived from the CD expected values of the hands it covers, weighted by how often each
  is met: the two-card hands by their probability, the hands of more cards (Spanish 21) by
  the probability of reaching them under CD play. Blackjack's chart is the two-card chart
  (a hand of three or more cards plays its total's cell without double or surrender), as the
  published charts are. Pairs have cells of their own.
- **The house edge.** Valued twice with the same machinery: the chart the bots play (the edge
  ``etg par`` states) and the CD-optimal play (its bound). The difference is the cost of a
  total-dependent chart.

Entry points: :class:`Model` (what the analysis reads of a table's rules), :func:`analyse`
(the chart and both edges), :class:`Chart`. Pure Python and floating point; nothing reads a
clock or a random source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from math import comb
from typing import Final

__all__ = [
    "ACTIONS",
    "Analysis",
    "Chart",
    "Model",
    "analyse",
    "dealer_outcomes",
    "initial_hands",
]

#: Card values 1 (ace) to 10 (ten-value); index 0 of every count tuple is unused.
VALUES: Final = tuple(range(1, 11))
#: Dealer up cards in chart column order: 2..10, then the ace.
COLUMNS: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
#: Chart action letters: surrender, split, double, hit, stand.
ACTIONS: Final = "RPDHS"
#: The dealer's outcomes, by index: totals 17..21, bust, Blackjack.
BUST: Final = 5
DEALER_BJ: Final = 6
#: Bits per card value in a composition key (counts below 64).
_BITS: Final = 6
_UNIT: Final = tuple(0 if v == 0 else 1 << (_BITS * (v - 1)) for v in range(11))
#: The most cards of a player's hand whose removal the dealer's outcomes count exactly.
DEALER_EXACT_CARDS: Final = 4
#: The most cards a chart distinguishes (a Spanish 21 hand of 7 or more is one bucket).
MAX_CARDS: Final = 7


@dataclass(frozen=True, slots=True)
class Model:
    """What the analysis reads of a table: the shoe, the dealer's rules, the player's options
    and the payouts (each the engine's; see the game's ``analysis_model``).

    Attributes:
        shoe: Cards of each value 1..10 in the full shoe (index 0 unused): a 52-card deck is
            ``(0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 16)``, a Spanish deck has 12 ten-values.
        decks: Decks in the shoe (for the suited bonuses' chances).
        hits_soft_17: The dealer hits soft 17.
        peeks: The dealer checks for Blackjack under an ace or ten-value before play.
        double_any_cards: A hand may double on any number of cards, once (Spanish 21).
        double_totals: The hard totals a hand may double on, or None for any hand.
        double_after_split: A split hand may double.
        max_hands: The most hands a pair may become (2 to 4).
        resplit_aces: Split aces may be split again.
        hit_split_aces: Split aces may be hit (and doubled).
        surrender: Late surrender of an unsplit two-card hand.
        rescue: After a double's card the hand may be rescued (635a.10).
        blackjack_pays: A player Blackjack's odds.
        blackjack_beats_blackjack: A player Blackjack wins against the dealer's.
        twenty_one_wins: A player's 21 wins at once (635a.12(a)), with ``bonuses``.
        bonuses: The 635a.12(b) bonuses are paid.
        super_bonus: The 635a.12(c) super bonus in units of the original wager (0: none).
        name: The rules in words.
    """

    shoe: tuple[int, ...]
    decks: int
    hits_soft_17: bool
    peeks: bool
    double_after_split: bool
    max_hands: int
    resplit_aces: bool
    hit_split_aces: bool
    surrender: bool
    double_any_cards: bool = False
    double_totals: frozenset[int] | None = None
    rescue: bool = False
    blackjack_pays: float = 1.5
    blackjack_beats_blackjack: bool = False
    twenty_one_wins: bool = False
    bonuses: bool = False
    super_bonus: float = 0.0
    name: str = ""

    def __post_init__(self) -> None:
        if len(self.shoe) != 11 or self.shoe[0] != 0 or min(self.shoe[1:]) <= 0:
            raise ValueError("a shoe is 11 counts: index 0 zero, then cards of values 1 to 10")
        if not 2 <= self.max_hands <= 4:
            raise ValueError(f"max_hands is 2 to 4, not {self.max_hands}")

    @property
    def key(self) -> str:
        """The rules as one stable string (the generated charts' key)."""
        shoe = ",".join(str(n) for n in self.shoe[1:])
        totals = (
            "any" if self.double_totals is None else "-".join(map(str, sorted(self.double_totals)))
        )
        flags = [
            f"shoe={shoe}",
            f"decks={self.decks}",
            f"h17={int(self.hits_soft_17)}",
            f"peek={int(self.peeks)}",
            f"das={int(self.double_after_split)}",
            f"hands={self.max_hands}",
            f"rsa={int(self.resplit_aces)}",
            f"hsa={int(self.hit_split_aces)}",
            f"ls={int(self.surrender)}",
            f"dany={int(self.double_any_cards)}",
            f"dtot={totals}",
            f"rescue={int(self.rescue)}",
            f"bj={self.blackjack_pays:g}",
            f"bjbeats={int(self.blackjack_beats_blackjack)}",
            f"21wins={int(self.twenty_one_wins)}",
            f"bonus={int(self.bonuses)}",
            f"super={self.super_bonus:g}",
        ]
        return ";".join(flags)


# ------------------------------------------------------------------------------- the dealer


@dataclass(slots=True)
class _DealerGraph:
    """The multisets of cards a dealer with ``up`` can hold while he must draw, in order of
    size; each node's transitions: (value, count of that value in the node, the next node or
    ``~outcome``)."""

    sizes: list[int]
    transitions: list[tuple[tuple[int, int, int], ...]]


def _total(hard: int, ace: bool) -> tuple[int, bool]:
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def _dealer_graph(up: int, hits_soft_17: bool, peeks: bool) -> _DealerGraph:
    nodes: list[tuple[int, ...]] = [(0,) * 11]
    index = {nodes[0]: 0}
    sizes: list[int] = []
    transitions: list[tuple[tuple[int, int, int], ...]] = []
    i = 0
    while i < len(nodes):
        held = nodes[i]
        i += 1
        size = sum(held)
        hard = up + sum(v * held[v] for v in VALUES)
        ace = up == 1 or held[1] > 0
        out: list[tuple[int, int, int]] = []
        for v in VALUES:
            if size == 0 and peeks and up + v == 11 and (up == 1 or v == 1):
                continue  # the peek: the hole card does not make Blackjack
            total, soft = _total(hard + v, ace or v == 1)
            if total < 17 or (total == 17 and soft and hits_soft_17):
                nxt = list(held)
                nxt[v] += 1
                key = tuple(nxt)
                if key not in index:
                    index[key] = len(nodes)
                    nodes.append(key)
                out.append((v, held[v], index[key]))
            elif total > 21:
                out.append((v, held[v], ~BUST))
            elif total == 21 and size == 0:
                out.append((v, held[v], ~DEALER_BJ))
            else:
                out.append((v, held[v], ~(total - 17)))
        sizes.append(size)
        transitions.append(tuple(out))
    return _DealerGraph(sizes, transitions)


def _dealer_pass(graph: _DealerGraph, left: list[int], n_left: int) -> tuple[float, ...]:
    """One pass over ``graph`` with ``left`` cards of each value (``n_left`` in all)."""
    probs = [0.0] * len(graph.sizes)
    probs[0] = 1.0
    out = [0.0] * 7
    i = 0
    for size, trans in zip(graph.sizes, graph.transitions, strict=True):
        p = probs[i]
        i += 1
        if p == 0.0:
            continue
        f = p / (n_left - size)
        for v, held, target in trans:
            c = left[v] - held
            if c > 0:
                if target >= 0:
                    probs[target] += c * f
                else:
                    out[~target] += c * f
    return tuple(out)


def dealer_outcomes(
    shoe: tuple[int, ...], up: int, removed: tuple[int, ...], hits_soft_17: bool, peeks: bool
) -> tuple[float, ...]:
    """The dealer's final totals with ``up`` showing and ``removed`` cards out of ``shoe``
    (besides the up card): probabilities of 17, 18, 19, 20, 21, bust and Blackjack. With
    ``peeks`` the Blackjack outcomes are left out (the values sum to P(no Blackjack)).
    A convenience for tests; the analysis keeps its graphs and caches."""
    graph = _dealer_graph(up, hits_soft_17, peeks)
    left = [shoe[v] - removed[v] - (v == up) for v in range(11)]
    left[0] = 0
    return _dealer_pass(graph, left, sum(left))


# ---------------------------------------------------------------------------- hand values


def _plus(counts: tuple[int, ...], v: int) -> tuple[int, ...]:
    """``counts`` with one more card of value ``v``."""
    grown = list(counts)
    grown[v] += 1
    return tuple(grown)


def _hand_total(counts: tuple[int, ...]) -> tuple[int, bool]:
    hard = sum(v * counts[v] for v in VALUES)
    return _total(hard, counts[1] > 0)


#: A hand's situation, as bits: a post-split hand, of split aces, not the seat's first hand
#: (its settlement against a dealer Blackjack without a peek differs).
SPLIT: Final = 1
ACES: Final = 2
OTHER: Final = 4
_Context = int
_UNSPLIT: Final = 0


#: A chart as the solver asks it: (total, soft, cards, pair value or 0 or -1 for the rescue
#: after a double, context) to an order of preference of action letters.
Policy = Callable[[int, bool, int, int, int], str]


class _Solver:
    """Hand values against one up card, under a policy: the best action (CD-optimal, when
    ``policy`` is None) or a chart's. Every value is ``E[payoff x 1{no dealer Blackjack}]``
    where the dealer peeks (module docstring)."""

    def __init__(
        self,
        model: Model,
        up: int,
        dealer_cache: dict[int, tuple[float, ...]],
        graph: _DealerGraph,
        policy: Policy | None,
        extra: int = 0,
    ) -> None:
        self.m = model
        self.up = up
        #: The cards left besides the hand's: the shoe less the up card and the pair card of
        #: a split (``extra``, a value or 0).
        self.base = tuple(model.shoe[v] - (v == up) - (v == extra != 0) for v in range(11))
        self.n_base = sum(self.base)
        self.extra_key = _UNIT[extra] if extra else 0
        self.graph = graph
        self.dealer_cache = dealer_cache
        self.policy = policy
        self.values: dict[int, float] = {}
        self.best: dict[int, str] = {}
        # 7-7-7 suited chances given the up card (the other cards' suits left out).
        d = model.decks
        if up == 7:
            denominator = comb(4 * d - 1, 3)
            suited = (comb(d - 1, 3) + 3 * comb(d, 3)) / denominator
            spades = (comb(d - 1, 3) / 4 + 3 * comb(d, 3) / 4) / denominator
        else:
            suited = 4 * comb(d, 3) / comb(4 * d, 3)
            spades = comb(d, 3) / comb(4 * d, 3)
        self.pay_777 = 1.5 * (1 - suited) + 2 * (suited - spades) + 3 * spades
        if up == 7:
            self.pay_777 += suited * model.super_bonus
        #: 6-7-8: one card of each rank, suits independent: 1/16 suited, 1/64 spades.
        self.pay_678 = 1.5 * 15 / 16 + 2 * 3 / 64 + 3 / 64

    # -- the dealer and the peek ---------------------------------------------------------

    def dealer_blackjack(self, counts: tuple[int, ...], n: int) -> float:
        """P(the dealer's hole card makes Blackjack) given the removed ``counts``."""
        if self.up not in (1, 10):
            return 0.0
        completes = 10 if self.up == 1 else 1
        return (self.base[completes] - counts[completes]) / (self.n_base - n)

    def dealer(self, key: int, counts: tuple[int, ...]) -> tuple[float, ...]:
        """The dealer's outcomes with ``counts`` removed (its key ``key``); a hand of more
        than :data:`DEALER_EXACT_CARDS` cards counts only that many of them, its highest
        cards left out (module docstring)."""
        n = sum(counts)
        if n > DEALER_EXACT_CARDS:
            trimmed = list(counts)
            for v in range(10, 0, -1):
                drop = min(trimmed[v], n - DEALER_EXACT_CARDS)
                trimmed[v] -= drop
                key -= drop * _UNIT[v]
                n -= drop
            counts = tuple(trimmed)
        full = key + self.extra_key
        cached = self.dealer_cache.get(full)
        if cached is None:
            left = [self.base[v] - counts[v] for v in range(11)]
            left[0] = 0
            cached = self.dealer_cache[full] = _dealer_pass(self.graph, left, sum(left))
        return cached

    def no_blackjack(self, counts: tuple[int, ...], n: int) -> float:
        """P(the dealer has no Blackjack) given the removed ``counts`` (1 without a peek)."""
        if not self.m.peeks:
            return 1.0
        return 1.0 - self.dealer_blackjack(counts, n)

    # -- terminal values -------------------------------------------------------------------

    def stand(
        self, key: int, counts: tuple[int, ...], total: int, stake: int, ctx: _Context
    ) -> float:
        """Standing on ``total`` with ``stake`` original wagers at risk (2 when doubled)."""
        d = self.dealer(key, counts)
        if total < 17:
            ev = d[BUST] - (d[0] + d[1] + d[2] + d[3] + d[4])
        else:
            i = total - 17
            ev = d[BUST] - sum(d[i + 1 : 5]) + sum(d[:i])
        ev *= stake
        if not self.m.peeks and d[DEALER_BJ]:
            # 633a.10, 633a.11(d), 633b.5(bb)(1): the first hand loses its original wager
            # only; the additional wagers and the other split hands come back.
            ev -= d[DEALER_BJ] * (0.0 if ctx & OTHER else 1.0)
        return ev

    def twenty_one(self, counts: tuple[int, ...], n: int, doubled: bool) -> float:
        """What a player's 21 that always wins pays (635a.12(a)-(c)), per original wager."""
        if doubled:
            return 2.0
        if not self.m.bonuses:
            return 1.0
        if n == 3:
            if counts[7] == 3:
                return self.pay_777
            if counts[6] == 1 and counts[7] == 1 and counts[8] == 1:
                return self.pay_678
            return 1.0
        if n == 5:
            return 1.5
        if n == 6:
            return 2.0
        if n >= 7:
            return 3.0
        return 1.0

    # -- the recursion ---------------------------------------------------------------------

    def can_double(
        self, counts: tuple[int, ...], n: int, total: int, soft: bool, ctx: _Context
    ) -> bool:
        m = self.m
        if ctx & SPLIT and (not m.double_after_split or (ctx & ACES and not m.hit_split_aces)):
            return False
        if not m.double_any_cards and n != 2:
            return False
        return m.double_totals is None or (not soft and total in m.double_totals)

    def action_values(
        self, key: int, counts: tuple[int, ...], n: int, ctx: _Context, initial: bool
    ) -> dict[str, float]:
        """The value of every action open to an undoubled hand (not split: see
        :meth:`split`); ``initial``: the seat's first two cards, where surrender is open."""
        total, soft = _hand_total(counts)
        w = self.no_blackjack(counts, n)
        out = {"S": self.stand(key, counts, total, 1, ctx)}
        if total < 21 and not (ctx & ACES and not self.m.hit_split_aces):
            out["H"] = self.hit(key, counts, n, ctx)
            if self.can_double(counts, n, total, soft, ctx):
                out["D"] = self.double(key, counts, n, ctx)
        if initial and self.m.surrender and not ctx & SPLIT and n == 2:
            out["R"] = -0.5 * w
        return out

    def value(self, key: int, counts: tuple[int, ...], n: int, ctx: _Context) -> float:
        """An undoubled hand of ``counts`` that has drawn (or a post-split hand), played on."""
        memo = key * 8 + ctx
        v = self.values.get(memo)
        if v is not None:
            return v
        total, soft = _hand_total(counts)
        if total > 21:
            v = -self.no_blackjack(counts, n)
        elif total == 21 and self.m.twenty_one_wins:
            v = self.twenty_one(counts, n, False) * self.no_blackjack(counts, n)
        elif total == 21:
            v = self.stand(key, counts, 21, 1, ctx)
        elif self.policy is None:
            values = self.action_values(key, counts, n, ctx, False)
            best = max(values, key=values.__getitem__)
            self.best[memo] = best
            v = values[best]
        else:
            pair = 0
            if n == 2:
                pair = next((c for c in VALUES if counts[c] == 2), 0)
            v = self.play(key, counts, n, ctx, self.policy(total, soft, n, pair, ctx), False)
        self.values[memo] = v
        return v

    def play(
        self, key: int, counts: tuple[int, ...], n: int, ctx: _Context, order: str, initial: bool
    ) -> float:
        """The value of the first action of ``order`` open to the hand."""
        total, soft = _hand_total(counts)
        may_draw = total < 21 and not (ctx & ACES and not self.m.hit_split_aces)
        for action in order:
            if action == "S":
                return self.stand(key, counts, total, 1, ctx)
            if action == "H" and may_draw:
                return self.hit(key, counts, n, ctx)
            if action == "D" and may_draw and self.can_double(counts, n, total, soft, ctx):
                return self.double(key, counts, n, ctx)
            if action == "R" and initial and self.m.surrender and not ctx & SPLIT and n == 2:
                return -0.5 * self.no_blackjack(counts, n)
        return self.stand(key, counts, total, 1, ctx)

    def draws(self, counts: tuple[int, ...], n: int) -> Iterator[tuple[int, float]]:
        """Each value the next card may have, with its probability."""
        left = self.n_base - n
        base = self.base
        for v in VALUES:
            c = base[v] - counts[v]
            if c > 0:
                yield v, c / left

    def hit(self, key: int, counts: tuple[int, ...], n: int, ctx: _Context) -> float:
        ev = 0.0
        for v, p in self.draws(counts, n):
            nxt = _plus(counts, v)
            ev += p * self.value(key + _UNIT[v], nxt, n + 1, ctx)
        return ev

    def double(self, key: int, counts: tuple[int, ...], n: int, ctx: _Context) -> float:
        ev = 0.0
        for v, p in self.draws(counts, n):
            nxt = _plus(counts, v)
            ev += p * self.doubled(key + _UNIT[v], nxt, n + 1, ctx)
        return ev

    def doubled(self, key: int, counts: tuple[int, ...], n: int, ctx: _Context) -> float:
        """A doubled hand after its card: stand, or (635a.10) rescue."""
        total, soft = _hand_total(counts)
        w = self.no_blackjack(counts, n)
        if total > 21:
            return -2.0 * w
        if total == 21 and self.m.twenty_one_wins:
            return 2.0 * w
        stand = self.stand(key, counts, total, 2, ctx)
        if not self.m.rescue:
            return stand
        rescue = -1.0 * w
        if self.policy is None:
            return max(stand, rescue)
        return rescue if self.policy(total, soft, n, -1, ctx) == "R" else stand


# ----------------------------------------------------------------------------------- splits


def _hand_counts(
    pair: int, n_pair_cards: int, shoe_pairs: int, left_total: int, model: Model
) -> tuple[float, float]:
    """The expected numbers of hands a split ends with whose second card is not a pair card,
    and of hands holding a pair they may not split again (module docstring: the hand-count
    approximation). ``shoe_pairs`` pair cards and ``left_total`` cards are left once the
    pair is split."""
    may_resplit = pair != 1 or model.resplit_aces
    states: dict[tuple[int, int, int], float] = {(2, 2, 0): 1.0}
    others = blocked = 0.0
    while states:
        (hands, pending, drawn), p = states.popitem()
        q = max(shoe_pairs - drawn, 0) / (left_total - drawn)
        others += p * (1 - q)
        if pending > 1:
            key = (hands, pending - 1, drawn)
            states[key] = states.get(key, 0.0) + p * (1 - q)
        if q:
            if may_resplit and hands < model.max_hands:
                key = (hands + 1, pending + 1, drawn + 1)
            else:
                blocked += p * q
                key = (hands, pending - 1, drawn + 1)
            if key[1] > 0:
                states[key] = states.get(key, 0.0) + p * q
    del n_pair_cards
    return others, blocked


class _Table:
    """Every solver of one up card: the unsplit hands' and each pair's post-split solver,
    sharing the dealer cache."""

    def __init__(
        self,
        model: Model,
        up: int,
        policy: Policy | None,
        shared: _Table | None = None,
    ) -> None:
        self.model = model
        self.up = up
        self.policy = policy
        self.graph: _DealerGraph = (
            _dealer_graph(up, model.hits_soft_17, model.peeks) if shared is None else shared.graph
        )
        self.cache: dict[int, tuple[float, ...]] = {} if shared is None else shared.cache
        self.main = _Solver(model, up, self.cache, self.graph, policy)
        self._split: dict[int, _Solver] = {}

    def split_solver(self, pair: int) -> _Solver:
        solver = self._split.get(pair)
        if solver is None:
            solver = self._split[pair] = _Solver(
                self.model, self.up, self.cache, self.graph, self.policy, extra=pair
            )
        return solver

    def split(self, pair: int) -> float:
        """The value of splitting a pair of ``pair`` (module docstring: the approximations)."""
        model = self.model
        s = self.split_solver(pair)
        one = tuple(int(v == pair) for v in range(11))
        key1 = _UNIT[pair]
        aces = ACES if pair == 1 else 0
        contexts: tuple[int, ...] = (SPLIT | aces, SPLIT | aces | OTHER)
        if model.peeks:
            contexts = contexts[:1]
        q = (s.base[pair] - 1) / (s.n_base - 1)
        values_other: dict[_Context, tuple[float, float]] = {}
        for ctx in contexts:
            others = 0.0
            for v, p in s.draws(one, 1):
                if v == pair:
                    continue
                nxt = _plus(one, v)
                others += p * s.value(key1 + _UNIT[v], nxt, 2, ctx)
            others /= 1 - q
            pp = _plus(one, pair)
            blocked = s.value(2 * key1, pp, 2, ctx)
            values_other[ctx] = (others, blocked)
        n_others, n_blocked = _hand_counts(pair, 2, s.base[pair] - 1, s.n_base - 1, model)
        last = contexts[-1]
        ev = n_others * values_other[last][0] + n_blocked * values_other[last][1]
        if len(contexts) == 2:
            # The first hand's settlement against a dealer Blackjack differs (no peek).
            first = contexts[0]
            share = n_others / (n_others + n_blocked)
            ev += share * (values_other[first][0] - values_other[last][0])
            ev += (1 - share) * (values_other[first][1] - values_other[last][1])
        return ev

    # -- the seat's first two cards ----------------------------------------------------------

    def initial_values(self, a: int, b: int) -> dict[str, float]:
        """Every action's value for the initial hand ``a``, ``b`` (no Blackjack), the dealer's
        Blackjack included: ``E[payoff]`` of the round's hand."""
        s = self.main
        counts = tuple(int(v == a) + int(v == b) for v in range(11))
        key = _UNIT[a] + _UNIT[b]
        values = s.action_values(key, counts, 2, _UNSPLIT, True)
        if a == b:
            values["P"] = self.split(a)
        if self.model.peeks:
            lost = s.dealer_blackjack(counts, 2)
            values = {action: v - lost for action, v in values.items()}
        return values

    def blackjack_value(self) -> float:
        """A player Blackjack (ace and ten-value)."""
        counts = tuple(int(v in (1, 10)) for v in range(11))
        dealer = self.main.dealer_blackjack(counts, 2)
        pays = self.model.blackjack_pays
        if self.model.blackjack_beats_blackjack:
            return pays
        return (1 - dealer) * pays

    def initial_value(self, a: int, b: int) -> float:
        """The hand's value under the policy (the best action without one)."""
        if {a, b} == {1, 10}:
            return self.blackjack_value()
        if self.policy is None:
            return max(self.initial_values(a, b).values())
        s = self.main
        counts = tuple(int(v == a) + int(v == b) for v in range(11))
        key = _UNIT[a] + _UNIT[b]
        total, soft = _hand_total(counts)
        order = self.policy(total, soft, 2, a if a == b else 0, _UNSPLIT)
        value: float | None = None
        for action in order:
            if action == "P" and a == b:
                value = self.split(a)
                break
            if action == "R" and self.model.surrender:
                value = -0.5 * s.no_blackjack(counts, 2)
                break
            if action in "DHS":
                value = s.play(key, counts, 2, _UNSPLIT, order[order.index(action) :], True)
                break
        assert value is not None
        if self.model.peeks:
            value -= s.dealer_blackjack(counts, 2)
        return value


def initial_hands(shoe: tuple[int, ...], up: int) -> Iterator[tuple[int, int, float]]:
    """Every initial hand ``a <= b`` against ``up`` with its probability given the up card."""
    left = [shoe[v] - (v == up) for v in range(11)]
    n = sum(left[1:])
    for a in VALUES:
        for b in VALUES:
            if b < a:
                continue
            p = left[a] / n * (left[b] - (a == b)) / (n - 1)
            yield a, b, p if a == b else 2 * p


# ------------------------------------------------------------------------------- the chart

_Cell = tuple[str, int, int, int]
"""(``"hard"`` or ``"soft"``, total, cards, up): a chart cell."""


@dataclass(frozen=True, slots=True)
class Chart:
    """A total-dependent chart: each cell an order of preference of action letters
    (``R`` surrender, ``P`` split, ``D`` double, ``H`` hit, ``S`` stand), the first the
    engine allows being played; it always ends with ``H`` or ``S``.

    Attributes:
        cells: By (``"hard"``/``"soft"``, total, cards, up): cards 2 to :data:`MAX_CARDS`
            (7: seven or more); a chart without card-count cells has cards 2 only, which
            every hand of its total plays.
        pairs: By (pair value, up): the two-card pair's order, with ``P``.
        rescue: By (``"hard"``/``"soft"``, total, up): True to rescue a doubled hand of that
            total (635a.10); empty where there is no rescue.
    """

    cells: Mapping[_Cell, str]
    pairs: Mapping[tuple[int, int], str]
    rescue: Mapping[tuple[str, int, int], bool] = field(default_factory=dict)

    @property
    def by_cards(self) -> bool:
        """Whether some cell depends on the number of cards."""
        return any(cards > 2 for _kind, _total, cards, _up in self.cells)

    def order(self, total: int, soft: bool, cards: int, up: int) -> str:
        """The order of a hand of ``cards`` cards that is not a pair."""
        if total >= 21:
            return "S"
        kind = "soft" if soft else "hard"
        for n in range(min(cards, MAX_CARDS), 1, -1):
            order = self.cells.get((kind, total, n, up))
            if order is not None:
                return order
        return "S" if total >= 17 else "H"

    def pair_order(self, pair: int, up: int) -> str:
        return self.pairs[(pair, up)]

    def rescues(self, total: int, soft: bool, up: int) -> bool:
        return self.rescue.get(("soft" if soft else "hard", total, up), False)

    def for_up(self, up: int) -> Policy:
        """The chart against one up card, as the solver asks it."""

        def policy(total: int, soft: bool, cards: int, pair: int, ctx: _Context) -> str:
            del ctx
            if pair < 0:
                return "R" if self.rescues(total, soft, up) else "S"
            if pair > 0:
                return self.pair_order(pair, up)
            return self.order(total, soft, cards, up)

        return policy

    def lines(self) -> list[str]:
        """The chart as text, a row per total (and number of cards), columns 2..10, A."""
        out = []
        for kind in ("hard", "soft"):
            rows = sorted({(total, cards) for k, total, cards, _up in self.cells if k == kind})
            for total, cards in rows:
                label = f"{kind} {total}" + (
                    f" ({cards}{'+' if cards == MAX_CARDS else ''} cards)" if self.by_cards else ""
                )
                codes = [self.order(total, kind == "soft", cards, up) for up in COLUMNS]
                out.append(f"{label:<22}" + " ".join(f"{c:<4}" for c in codes).rstrip())
        for pair in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10):
            if (pair, 2) in self.pairs:
                label = "pair " + (
                    "A,A" if pair == 1 else "T,T" if pair == 10 else f"{pair},{pair}"
                )
                codes = [self.pairs[(pair, up)] for up in COLUMNS]
                out.append(f"{label:<22}" + " ".join(f"{c:<4}" for c in codes).rstrip())
        for kind in ("hard", "soft"):
            totals = sorted({t for k, t, _up in self.rescue if k == kind})
            for total in totals:
                codes = ["R" if self.rescue.get((kind, total, up)) else "S" for up in COLUMNS]
                out.append(
                    f"{'rescue ' + kind + ' ' + str(total):<22}"
                    + " ".join(f"{c:<4}" for c in codes).rstrip()
                )
        return out

    def to_data(self) -> dict[str, list[list[object]]]:
        """Plain data (the generated module, ``--json``)."""
        return {
            "cells": [[k, t, n, up, order] for (k, t, n, up), order in sorted(self.cells.items())],
            "pairs": [[p, up, order] for (p, up), order in sorted(self.pairs.items())],
            "rescue": [[k, t, up, r] for (k, t, up), r in sorted(self.rescue.items())],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, list[list[object]]]) -> Chart:
        cells = {(str(k), int(t), int(n), int(up)): str(o) for k, t, n, up, o in data["cells"]}  # type: ignore[call-overload]
        pairs = {(int(p), int(up)): str(o) for p, up, o in data["pairs"]}  # type: ignore[call-overload]
        rescue = {(str(k), int(t), int(up)): bool(r) for k, t, up, r in data.get("rescue", [])}  # type: ignore[call-overload]
        return cls(cells, pairs, rescue)


def _order(values: Mapping[str, float]) -> str:
    """Actions best first, up to the first that is always open (hit or stand)."""
    out = ""
    for action in sorted(values, key=lambda a: (-values[a], ACTIONS.index(a))):
        out += action
        if action in "HS":
            break
    return out


# ------------------------------------------------------------------------------ the analysis


@dataclass(frozen=True, slots=True)
class Analysis:
    """What :func:`analyse` finds for a model.

    Attributes:
        model: The rules analysed.
        chart: The total-dependent chart derived from the CD values.
        house_edge: The house edge per initial wager of the chart's play.
        optimal_edge: The house edge of composition-dependent optimal play (the same
            approximations), a lower bound of any chart's.
        cell_values: Per chart cell (a :data:`_Cell`, ``("pair", value, 2, up)`` or
            ``("rescue-hard"/"rescue-soft", total, 0, up)``), each action's expected value per
            hand of the cell, its weighted average over the hands the cell covers, the
            dealer's Blackjack included.
        weights: Per cell, how often it is met per round (the sum of its hands' chances).
    """

    model: Model
    chart: Chart
    house_edge: float
    optimal_edge: float
    cell_values: Mapping[tuple[str, int, int, int], Mapping[str, float]]
    weights: Mapping[tuple[str, int, int, int], float]


def _add(
    sums: dict[tuple[str, int, int, int], dict[str, float]],
    weights: dict[tuple[str, int, int, int], float],
    cell: tuple[str, int, int, int],
    weight: float,
    values: Mapping[str, float],
) -> None:
    acc = sums.setdefault(cell, {})
    for action, value in values.items():
        acc[action] = acc.get(action, 0.0) + weight * value
    weights[cell] = weights.get(cell, 0.0) + weight


def _derive_up(
    table: _Table,
    sums: dict[tuple[str, int, int, int], dict[str, float]],
    weights: dict[tuple[str, int, int, int], float],
    p_up: float,
) -> float:
    """Add ``table``'s up card to the cells' sums; return the CD-optimal value of a round
    against it (per initial wager, given the up card)."""
    model, up, s = table.model, table.up, table.main
    by_cards = model.double_any_cards or model.bonuses
    total_ev = 0.0
    level: list[tuple[int, tuple[int, ...], float]] = []
    doubled: list[tuple[int, tuple[int, ...], float]] = []
    for a, b, p in initial_hands(model.shoe, up):
        if {a, b} == {1, 10}:
            total_ev += p * table.blackjack_value()
            continue
        values = table.initial_values(a, b)
        best = max(values, key=lambda x: (values[x], -ACTIONS.index(x)))
        total_ev += p * values[best]
        counts = tuple(int(v == a) + int(v == b) for v in range(11))
        total, soft = _hand_total(counts)
        if a == b:
            _add(sums, weights, ("pair", a, 2, up), p * p_up, values)
        else:
            _add(sums, weights, ("soft" if soft else "hard", total, 2, up), p * p_up, values)
        key = _UNIT[a] + _UNIT[b]
        if best == "H" and by_cards:
            level.append((key, counts, p))
        elif best == "D" and model.rescue:
            doubled.append((key, counts, p))
    n = 2
    while level:
        reached: dict[int, tuple[tuple[int, ...], float]] = {}
        for key, counts, p in level:
            for v, q in s.draws(counts, n):
                nxt = _plus(counts, v)
                if _hand_total(nxt)[0] >= 21:
                    continue
                k = key + _UNIT[v]
                old = reached.get(k)
                reached[k] = (nxt, p * q + (0.0 if old is None else old[1]))
        n += 1
        level = []
        for key, (counts, p) in reached.items():
            values = s.action_values(key, counts, n, _UNSPLIT, False)
            total, soft = _hand_total(counts)
            cell = ("soft" if soft else "hard", total, min(n, MAX_CARDS), up)
            _add(sums, weights, cell, p * p_up, values)
            best = max(values, key=lambda x: (values[x], -ACTIONS.index(x)))
            if best == "H":
                level.append((key, counts, p))
            elif best == "D" and model.rescue:
                doubled.append((key, counts, p))
    for key, counts, p in doubled:
        n_cards = sum(counts)
        for v, q in s.draws(counts, n_cards):
            nxt = _plus(counts, v)
            total, soft = _hand_total(nxt)
            if total >= 21:
                continue
            stand = s.stand(key + _UNIT[v], nxt, total, 2, _UNSPLIT)
            rescue = -s.no_blackjack(nxt, n_cards + 1)
            cell = ("rescue-soft" if soft else "rescue-hard", total, 0, up)
            _add(sums, weights, cell, p * q * p_up, {"S": stand, "R": rescue})
    return total_ev


def analyse(model: Model) -> Analysis:
    """The chart of ``model``'s rules and its house edge (module docstring). A few seconds
    for a Blackjack shoe, longer for Spanish 21's card-count cells."""
    shoe = model.shoe
    n_shoe = sum(shoe)
    sums: dict[tuple[str, int, int, int], dict[str, float]] = {}
    weights: dict[tuple[str, int, int, int], float] = {}
    tables: dict[int, _Table] = {}
    optimal = 0.0
    for up in COLUMNS:
        p_up = shoe[up] / n_shoe
        table = tables[up] = _Table(model, up, None)
        optimal += p_up * _derive_up(table, sums, weights, p_up)
    cell_values = {
        cell: {a: v / weights[cell] for a, v in acc.items()} for cell, acc in sums.items()
    }
    cells: dict[_Cell, str] = {}
    pairs: dict[tuple[int, int], str] = {}
    rescue: dict[tuple[str, int, int], bool] = {}
    for (kind, total, n, up), values in cell_values.items():
        if kind == "pair":
            pairs[(total, up)] = _order(values)
        elif kind.startswith("rescue"):
            rescue[(kind.removeprefix("rescue-"), total, up)] = values["R"] > values["S"]
        else:
            cells[(kind, total, n, up)] = _order(values)
    chart = Chart(cells, pairs, rescue)
    played = 0.0
    for up in COLUMNS:
        p_up = shoe[up] / n_shoe
        table = _Table(model, up, chart.for_up(up), shared=tables[up])
        played += p_up * sum(p * table.initial_value(a, b) for a, b, p in initial_hands(shoe, up))
    return Analysis(model, chart, -played, -optimal, cell_values, weights)
