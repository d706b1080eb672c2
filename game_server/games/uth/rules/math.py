"""The math of the Ultimate Texas Hold 'Em wagers (``etg math uth_trips`` and friends).

Exact, by counting every hand (no sampling), with :func:`~game_server.games.uth.rules.hands.
category_counts` (all 133,784,560 seven-card hands or 2,598,960 five-card hands of one deck,
counted by rank multiset and flush suit in about a second):

- Trips, 653a.12(c) Paytable A-D: a pure function of the player's seven cards
  (:func:`trips_math`).
- Progressive Payout, 653a.12(d)(1): the player's two cards and the flop, five cards
  (:func:`progressive_math`; the meter lines are reported without a return).
- Five Card Hand Bonus, 653a.12(e)(1), on the player's or the dealer's two cards and the
  flop (:func:`five_card_math`; meter lines likewise; the Magic Card and Lucky Bonus of
  653a.12(e)(3) depend on the Rules Submission and are left out).

By seeded simulation (:func:`blind_simulation`): the Blind (653a.12(b)) pays only when the
player beats the dealer, which depends on the dealer's cards and on the player's Play
decisions, so the Ante, Blind and Play are played out with the near-optimal
:mod:`~game_server.games.uth.rules.strategy` over seeded deals (a SplitMix64 generator local to the
simulation: the rules engine never reads a global random source). The figures carry their
standard error.

Entry points: :data:`UTH_MATH`, :func:`trips_math`, :func:`blind_simulation`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb, sqrt
from typing import Any, Final

from game_server.games.uth.rules.hands import (
    CATEGORIES,
    CATEGORY_SHIFT,
    HAND_NAMES,
    category_counts,
    rank7,
)
from game_server.games.uth.rules.paytables import (
    BLIND_PAYTABLES,
    FIVE_CARD_PAYTABLE,
    PROGRESSIVE_PAYTABLE,
    TRIPS_PAYTABLES,
    line_for,
)
from game_server.games.uth.rules.strategy import flop_plays, preflop_multiple, river_plays
from game_server.rules.poker import Category5
from game_server.rules.wagers.base import Paytable
from game_server.rules.wagers.math import LineMath, MathError, WagerMath, win_per_unit
from shared.money import ToOne

_COUNTS: dict[int, dict[int, int]] = {}


def counts(n: int) -> dict[int, int]:
    """Hands of ``n`` cards (5 or 7) of one deck by 653a.6(b) category, counted once per
    process."""
    found = _COUNTS.get(n)
    if found is None:
        found = _COUNTS[n] = category_counts(n)
    return found


def _math(
    wager: str, title: str, section: str, paytable: Paytable, n: int, counted: str
) -> WagerMath:
    by_category = counts(n)
    total = sum(by_category.values())
    lines = []
    meter_lines = []
    expected = Fraction(0)
    paid = 0
    names = {HAND_NAMES[c]: c for c in CATEGORIES}
    for line in paytable.lines:
        combos = by_category.get(int(names[line.name]), 0)
        paid += combos
        probability = Fraction(combos, total)
        win = win_per_unit(line.pay, None)
        contribution = None if win is None else probability * win
        if contribution is None:
            meter_lines.append(line.name)
        else:
            expected += contribution
        lines.append(LineMath(line.name, combos, probability, str(line.pay), win, contribution))
    losing = total - paid
    expected -= Fraction(losing, total)
    return WagerMath(
        wager=wager,
        title=title,
        section=section,
        paytable=paytable.name,
        decks=1,
        counted=counted,
        total=total,
        lines=tuple(lines),
        losing=losing,
        house_edge=-expected,
        meter_lines=tuple(meter_lines),
    )


def trips_math(paytable: str) -> WagerMath:
    """653a.12(c): the exact return of the Trips Wager on ``paytable`` ("Paytable A".."D")."""
    table = TRIPS_PAYTABLES.get(paytable)
    if table is None:
        raise MathError(f"{paytable!r} is not a Trips paytable; choose {_names(TRIPS_PAYTABLES)}")
    return _math(
        "uth_trips",
        "Ultimate Texas Hold 'Em Trips",
        "58 Pa. Code 653a.12(c)",
        table,
        7,
        "seven-card hands (the player's two cards and the five community cards)",
    )


def progressive_math(paytable: str = "Paytable") -> WagerMath:
    """653a.12(d)(1)-(2): the fixed lines of the Progressive Payout Wager, exactly, on the
    player's two cards and the flop; the meter lines are left out of the return."""
    if paytable != PROGRESSIVE_PAYTABLE.name:
        raise MathError(f"the Progressive Payout Wager has one paytable, {'Paytable'!r}")
    return _math(
        "uth_progressive",
        "Ultimate Texas Hold 'Em Progressive Payout",
        "58 Pa. Code 653a.12(d)",
        PROGRESSIVE_PAYTABLE,
        5,
        "five-card hands (the player's two cards and the flop)",
    )


def five_card_math(paytable: str = "Payout") -> WagerMath:
    """653a.12(e)(1): the fixed lines of the Five Card Hand Bonus Wager on one hand's two
    cards and the flop, exactly; meter lines and the Magic Card and Lucky Bonus (which
    depend on the Rules Submission and the seats) are left out."""
    if paytable != FIVE_CARD_PAYTABLE.name:
        raise MathError(f"the Five Card Hand Bonus Wager has one paytable, {'Payout'!r}")
    return _math(
        "uth_five_card",
        "Ultimate Texas Hold 'Em Five Card Hand Bonus",
        "58 Pa. Code 653a.12(e)",
        FIVE_CARD_PAYTABLE,
        5,
        "five-card hands (two cards and the flop)",
    )


@dataclass(frozen=True, slots=True)
class ExactMath:
    """A wager ``etg math`` counts exactly: its paytables and how to count one."""

    paytables: tuple[str, ...]
    compute: Callable[[str], WagerMath]


#: The exactly counted UTH wagers, by the name ``etg math`` takes.
UTH_MATH: Final[Mapping[str, ExactMath]] = {
    "uth_trips": ExactMath(tuple(TRIPS_PAYTABLES), trips_math),
    "uth_progressive": ExactMath((PROGRESSIVE_PAYTABLE.name,), progressive_math),
    "uth_five_card": ExactMath((FIVE_CARD_PAYTABLE.name,), five_card_math),
}


# ------------------------------------------------------------------------ simulation

_M64: Final = (1 << 64) - 1


class SplitMix64:
    """A small seeded generator for simulations only (never for a live shuffle): SplitMix64
    (Steele, Lea, Flood 2014). ``below(n)`` maps 64 bits to 0..n-1 by multiply-and-shift,
    whose bias (under 2**-58 for n <= 52) is far below any simulation's error."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _M64

    def next64(self) -> int:
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return (self.next64() * n) >> 64


def _blind_halves(table: Paytable) -> dict[int, int]:
    """653a.12(b): the Blind's win in half units per winning category (2 = 1 to 1)."""
    out = {}
    for category in CATEGORIES:
        line = line_for(table, category)
        if line is not None:
            pay = line.pay
            assert isinstance(pay, ToOne)
            out[int(category)] = 2 * pay.a // pay.b
    return out


@dataclass(frozen=True, slots=True)
class BlindSimulation:
    """The Ante, Blind and Play played out over seeded deals with the near-optimal strategy.

    Per unit of Ante (the Blind equals the Ante), by Blind paytable: the Blind's mean result
    (its return minus the stake), the whole hand's mean result (Ante + Blind + Play), and
    their standard errors; the house edge is minus the hand's mean result.
    """

    hands: int
    seed: int
    blind_result: Mapping[str, float]
    blind_error: Mapping[str, float]
    hand_result: Mapping[str, float]
    hand_error: Mapping[str, float]
    average_wager: float
    """The mean total of Ante, Blind and Play per unit of Ante."""
    folds: float
    """The share of hands folded at the river."""

    def to_json(self) -> dict[str, Any]:
        return {
            "wager": "uth_blind",
            "section": "58 Pa. Code 653a.12(b)",
            "method": (
                "seeded simulation, near-optimal strategy (game_server.games.uth.rules.strategy)"
            ),
            "hands": self.hands,
            "seed": self.seed,
            "blind_result_per_ante": dict(self.blind_result),
            "blind_standard_error": dict(self.blind_error),
            "hand_result_per_ante": dict(self.hand_result),
            "hand_standard_error": dict(self.hand_error),
            "house_edge_per_ante": {k: -v for k, v in self.hand_result.items()},
            "average_wager_per_ante": self.average_wager,
            "fold_rate": self.folds,
        }


def blind_simulation(hands: int, seed: int = 1) -> BlindSimulation:
    """Play ``hands`` one-player rounds (653a.12(a)-(b)) from seed ``seed``.

    Raises:
        MathError: fewer than one hand.
    """
    if hands < 1:
        raise MathError("the simulation needs at least one hand")
    rng = SplitMix64(seed)
    names = tuple(BLIND_PAYTABLES)
    halves = [_blind_halves(BLIND_PAYTABLES[n]) for n in names]
    pair = Category5.PAIR << CATEGORY_SHIFT
    blind_sum = [0] * len(names)
    blind_sq = [0] * len(names)
    hand_sum = [0] * len(names)
    hand_sq = [0] * len(names)
    wagered = 0
    folds = 0
    deck = list(range(52))
    for _ in range(hands):
        for i in range(9):  # a partial Fisher-Yates shuffle: nine cards are used
            j = i + rng.below(52 - i)
            deck[i], deck[j] = deck[j], deck[i]
        hole = deck[0:2]
        dealer = deck[2:4]
        board = deck[4:9]
        multiple = preflop_multiple(hole)
        if not multiple and flop_plays(hole, board[:3]):
            multiple = 2
        if not multiple and river_plays(hole, board):
            multiple = 1
        if not multiple:
            folds += 1
            wagered += 2
            for t in range(len(names)):
                blind_sum[t] -= 2
                blind_sq[t] += 4
                hand_sum[t] -= 4
                hand_sq[t] += 16
            continue
        wagered += 2 + multiple
        player = rank7((*hole, *board))
        versus = rank7((*dealer, *board))
        if player > versus:
            main = 2 * multiple + (2 if versus >= pair else 0)
            category = player >> CATEGORY_SHIFT
            for t in range(len(names)):
                b = halves[t].get(category, 0)
                blind_sum[t] += b
                blind_sq[t] += b * b
                total = main + b
                hand_sum[t] += total
                hand_sq[t] += total * total
        elif player < versus:
            main = -2 * multiple - (2 if versus >= pair else 0)
            for t in range(len(names)):
                blind_sum[t] -= 2
                blind_sq[t] += 4
                total = main - 2
                hand_sum[t] += total
                hand_sq[t] += total * total
    n = hands

    def mean(s: int) -> float:
        return s / 2 / n

    def error(s: int, sq: int) -> float:
        m = s / 2 / n
        var = sq / 4 / n - m * m
        return sqrt(max(var, 0.0) / n)

    return BlindSimulation(
        hands=n,
        seed=seed,
        blind_result={names[t]: mean(blind_sum[t]) for t in range(len(names))},
        blind_error={names[t]: error(blind_sum[t], blind_sq[t]) for t in range(len(names))},
        hand_result={names[t]: mean(hand_sum[t]) for t in range(len(names))},
        hand_error={names[t]: error(hand_sum[t], hand_sq[t]) for t in range(len(names))},
        average_wager=wagered / n,
        folds=folds / n,
    )


def _names(tables: Mapping[str, object]) -> str:
    return ", ".join(f'"{n}"' for n in tables)


#: The number of seven-card hands of one deck, for reports.
SEVEN_CARD_HANDS: Final = comb(52, 7)
