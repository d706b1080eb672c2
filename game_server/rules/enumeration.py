"""Helpers of the exact poker analyses (Four Card Poker's and Caribbean Stud Poker's
strategies): the player's hands of a rank multiset, one per class of suit permutation, and
weighted hand values read by threshold.

Every suit plays the same part in these games (a flush is any four or five cards of one
suit), so relabelling the suits of a deal changes nothing: a hand is counted once per class
of the 24 suit permutations, with the number of hands the class holds.

Entry points: :func:`suit_classes`, :class:`CumulativeCounts`; :func:`fraction_source` and
:func:`counts_source` write lines of the generated data modules.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations

__all__ = ["Blocks", "CumulativeCounts", "counts_source", "fraction_source", "suit_classes"]

#: A hand as four blocks of ranks: block ``s`` holds the ranks of its cards of suit ``s``.
Blocks = tuple[tuple[int, ...], ...]


def suit_classes(ranks: Sequence[int]) -> list[tuple[Blocks, int]]:
    """The hands whose ranks are the multiset ``ranks``, one per class of suit permutation:
    its cards as four blocks of ranks, sorted (a canonical form of the class), and how many
    hands the class holds. The counts add up to ``prod C(4, count of each rank)``."""
    items = sorted(Counter(ranks).items())
    choices = [list(combinations(range(4), n)) for _, n in items]
    found: Counter[Blocks] = Counter()
    blocks: list[list[int]] = [[], [], [], []]

    def place(i: int) -> None:
        if i == len(items):
            found[tuple(sorted(tuple(b) for b in blocks))] += 1
            return
        rank = items[i][0]
        for suits in choices[i]:
            for s in suits:
                blocks[s].append(rank)
            place(i + 1)
            for s in suits:
                blocks[s].pop()

    place(0)
    return sorted(found.items())


class CumulativeCounts:
    """Hand values with their weights (how many hands have each), read by threshold."""

    __slots__ = ("_cumulative", "_values")

    def __init__(self, weighted: Mapping[int, int]) -> None:
        self._values = array("q", sorted(weighted))
        running = array("q", [0])
        for v in self._values:
            running.append(running[-1] + weighted[v])
        self._cumulative = running

    def at_most(self, value: int) -> int:
        """The weight of the values at most ``value``."""
        return self._cumulative[bisect_right(self._values, value)]


def fraction_source(name: str, value: Fraction, doc: str) -> str:
    """A generated data module's line for an exact result: ``NAME: Final = Fraction(...)``."""
    return (
        f"#: {doc}\n{name}: Final = Fraction(\n"
        f"    {value.numerator},\n    {value.denominator},\n)\n"
    )


def counts_source(departures: int, deals: int) -> str:
    """A generated data module's lines for the deals counted and those whose own optimal
    decision is not their cell's."""
    return (
        "#: Deals (player hand and up card) whose own optimal decision is not their cell's.\n"
        f"DEPARTURES: Final = {departures}\n"
        f"#: Deals in all: C(52, 5) x 47.\nDEALS: Final = {deals}\n"
    )
