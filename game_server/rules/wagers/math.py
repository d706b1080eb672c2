"""Exact math of the side wagers that depend only on the cards (``etg math``).

For a wager, a paytable and a deck count, every way the cards the wager looks at can come out
of the shoe is counted exactly (integers, no sampling), line by line; each line's probability,
pay and contribution to the return follow, and the house edge is minus the expected result of
one unit staked. A losing deal loses the stake; a line paying ``a to b`` wins ``a/b``; a line
paying ``a for 1`` wins ``a - 1``; a fixed award of ``c`` cents on a fixed wager of ``w`` cents
wins ``c/w``. A progressive line (a share of a meter) has no fixed value: its combinations and
probability are reported, its contribution is left out, and the house edge is then that of the
fixed lines alone (the report says so).

Each wager module offers ``exact_counts(decks, paytable, options) -> {line or None: count}``;
:data:`EXACT` maps the wager's name to it, with what a count counts ("ordered deals of ...").
Strategy-dependent wagers (AxMan, Buster, the three-seven lines of Blazing 7's) are covered by
``etg sim`` instead.

Entry points: :func:`wager_math`, :func:`math_of_counts`, :data:`EXACT`, :func:`format_math` (the
report as text).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from game_server.rules.errors import RulesError
from game_server.rules.wagers.base import NO_OPTIONS, Options, Paytable, SideWager
from shared.money import Fixed, ForOne, MeterShare, Pay, ToOne

#: ``exact_counts(decks, paytable, options) -> {line name or None (a loss): count}``.
ExactCounts = Callable[[int, Paytable, Options], Mapping[str | None, int]]


class MathError(RulesError):
    """A wager, paytable or deck count that ``etg math`` cannot compute."""


@dataclass(frozen=True, slots=True)
class Exact:
    """How to count one wager exactly."""

    counts: ExactCounts
    counted: str
    """What one count is, e.g. "ordered deals of the player's two cards and the dealer's
    up card"."""
    stake: int | None = None
    """The fixed wager in cents, for fixed-cents awards (633b.6(e): $5)."""
    by_simulation: tuple[str, ...] = ()
    """Lines that depend on play, not counted (633b.9: the three-seven lines need the third
    card): reported without a count and left out of the house edge, like meter lines."""


#: The wagers ``etg math`` can count, by name (filled in by :func:`register`).
EXACT: dict[str, Exact] = {}


def register(wager: SideWager, exact: Exact) -> None:
    """Make ``wager`` countable by :func:`wager_math`."""
    EXACT[wager.name] = exact


@dataclass(frozen=True, slots=True)
class LineMath:
    """One paytable line: how many deals fall on it and what it returns per unit staked."""

    line: str
    combinations: int
    probability: Fraction
    pays: str
    win: Fraction | None
    """What one unit staked wins on this line (None for a meter share)."""
    contribution: Fraction | None
    """probability x win (None for a meter share)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "combinations": self.combinations,
            "probability": float(self.probability),
            "pays": self.pays,
            "win_per_unit": None if self.win is None else float(self.win),
            "contribution": None if self.contribution is None else float(self.contribution),
        }


@dataclass(frozen=True, slots=True)
class WagerMath:
    """The exact math of one wager, paytable and deck count."""

    wager: str
    title: str
    section: str
    paytable: str
    decks: int
    counted: str
    total: int
    lines: tuple[LineMath, ...]
    losing: int
    house_edge: Fraction
    meter_lines: tuple[str, ...]
    simulated_lines: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"wager", "paytable", "decks", "lines", "house_edge", ...}`` (edge as a
        fraction of the wager)."""
        return {
            "wager": self.wager,
            "title": self.title,
            "section": self.section,
            "paytable": self.paytable,
            "decks": self.decks,
            "counted": self.counted,
            "total": self.total,
            "lines": [line.to_json() for line in self.lines],
            "losing": self.losing,
            "house_edge": float(self.house_edge),
            "meter_lines_excluded": list(self.meter_lines),
            "simulated_lines_excluded": list(self.simulated_lines),
        }


def ordered_deals(sizes: Sequence[int], k: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every sequence of ``k`` card classes drawn without replacement from a shoe holding
    ``sizes[c]`` cards of class ``c``, with the number of ordered deals that give it.

    A wager that looks only at some features of the cards (an ace and its suit, a seven,
    a ten-value card) counts over a handful of classes instead of every card: the weights
    sum to the falling factorial ``N (N-1) ... (N-k+1)`` of the shoe's ``N`` cards.
    """
    drawn = [0] * len(sizes)
    sequence: list[int] = []

    def walk(weight: int) -> Iterator[tuple[tuple[int, ...], int]]:
        if len(sequence) == k:
            yield tuple(sequence), weight
            return
        for c, size in enumerate(sizes):
            left = size - drawn[c]
            if left <= 0:
                continue
            drawn[c] += 1
            sequence.append(c)
            yield from walk(weight * left)
            sequence.pop()
            drawn[c] -= 1

    yield from walk(1)


def win_per_unit(pay: Pay, stake: int | None) -> Fraction | None:
    """What one unit staked wins on a line paying ``pay`` (None for a meter share)."""
    if isinstance(pay, ToOne):
        return Fraction(pay.a, pay.b)
    if isinstance(pay, ForOne):
        return Fraction(pay.a - 1)
    if isinstance(pay, Fixed):
        if stake is None:
            raise MathError(f"a fixed award of {pay} needs the wager's fixed amount")
        return Fraction(pay.cents, stake)
    if isinstance(pay, MeterShare):
        return None
    raise MathError(f"unknown pay {pay!r}")  # pragma: no cover - Pay is closed


def wager_math(
    wager: SideWager, paytable_name: str, decks: int, options: Options = NO_OPTIONS
) -> WagerMath:
    """Count ``wager`` exactly with ``paytable_name`` on a ``decks``-deck shoe.

    Raises:
        MathError: the wager depends on play (no exact count), the paytable is not one of
            the wager's, or the deck count is one the regulation does not allow for it.
    """
    exact = EXACT.get(wager.name)
    if exact is None:
        raise MathError(
            f"{wager.title} depends on how the round is played, not only on the cards: "
            "use etg sim for its return"
        )
    paytable = wager.paytables.get(paytable_name)
    if paytable is None:
        names = ", ".join(f'"{n}"' for n in wager.paytables)
        raise MathError(f"{paytable_name!r} is not a {wager.title} paytable; choose {names}")
    if wager.allowed_decks is not None and decks not in wager.allowed_decks:
        allowed = ", ".join(str(d) for d in sorted(wager.allowed_decks))
        raise MathError(
            f"{wager.title} is played with {allowed} decks, not {decks} "
            f"({wager.section}{wager.cites.get('allowed_decks', '')})"
        )
    if wager.deck_paytables is not None and wager.deck_paytables.get(decks) != paytable_name:
        fixed = wager.deck_paytables.get(decks)
        raise MathError(
            f"{wager.title} on {decks} decks uses {fixed}, not {paytable_name} "
            f"({wager.section}{wager.cites.get('deck_paytables', '')})"
        )
    counts = exact.counts(decks, paytable, options)
    return math_of_counts(
        wager, paytable, decks, counts, exact.counted, exact.stake, exact.by_simulation
    )


def math_of_counts(
    wager: SideWager,
    paytable: Paytable,
    decks: int,
    counts: Mapping[str | None, int],
    counted: str,
    stake: int | None = None,
    by_simulation: tuple[str, ...] = (),
) -> WagerMath:
    """The report of :func:`wager_math` from counts of ``paytable``'s lines (None: a loss)
    made some other way (a variant of the rules, e.g. a dealer who hits soft 17).

    Raises:
        MathError: nothing was counted, or a counted line is not in the paytable.
    """
    total = sum(counts.values())
    if total <= 0:
        raise MathError(f"no deals counted for {wager.title}")
    lines = []
    meter_lines = []
    expected = Fraction(0)
    for line in paytable.lines:
        combinations = counts.get(line.name, 0)
        probability = Fraction(combinations, total)
        simulated = line.name in by_simulation
        win = None if simulated else win_per_unit(line.pay, stake)
        contribution = None if win is None else probability * win
        lines.append(
            LineMath(line.name, combinations, probability, str(line.pay), win, contribution)
        )
        if simulated:
            continue
        if contribution is None:
            meter_lines.append(line.name)
        else:
            expected += contribution
    unknown = set(counts) - {line.name for line in paytable.lines} - {None}
    if unknown:
        raise MathError(f"counted lines not in {paytable.name}: {sorted(map(str, unknown))}")
    losing = counts.get(None, 0)
    expected -= Fraction(losing, total)
    return WagerMath(
        wager=wager.name,
        title=wager.title,
        section=wager.section,
        paytable=paytable.name,
        decks=decks,
        counted=counted,
        total=total,
        lines=tuple(lines),
        losing=losing,
        house_edge=-expected,
        meter_lines=tuple(meter_lines),
        simulated_lines=tuple(line.name for line in paytable.lines if line.name in by_simulation),
    )


def format_math(result: WagerMath) -> list[str]:
    """The report as lines of text."""
    lines = [
        f"{result.title} ({result.section}), {result.paytable}, "
        f"{result.decks} deck{'s' * (result.decks != 1)}",
        f"counted: {result.total:,} {result.counted}",
        f"{'line':<36} {'combinations':>18} {'probability':>12} {'pays':>22} {'return':>9}",
    ]
    for line in result.lines:
        if line.line in result.simulated_lines:
            share = "sim"
        elif line.contribution is None:
            share = "meter"
        else:
            share = f"{float(line.contribution):9.5f}"
        lines.append(
            f"{line.line:<36} {line.combinations:>18,} {float(line.probability):>12.8f} "
            f"{line.pays:>22} {share:>9}"
        )
    lines.append(f"{'loses':<36} {result.losing:>18,} {result.losing / result.total:>12.8f}")
    edge = f"house edge {float(result.house_edge) * 100:.4f}%"
    if result.meter_lines:
        edge += " (fixed lines only; the meter lines' return depends on the meter)"
    if result.simulated_lines:
        edge += "; lines marked sim depend on play: see etg sim"
    lines.append(edge)
    return lines
