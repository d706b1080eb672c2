"""``python -m game_server.games.fourcard.derive_strategy [--check]``: derive Four Card
Poker's strategy by exact enumeration and write the data module the game ships,
``game_server/games/fourcard/rules/optimal_table.py``.

:func:`~game_server.games.fourcard.rules.analysis.derive` (every player hand, one per class
of suit permutation, with each of its 47 up cards, against each of the dealer's C(46, 5)
face-down hands) gives the decision of every cell of a pair or high cards (the table), the
exact results of the table's strategy, of the fully optimal one and of the published simple
strategy, and a grid of the table for people. It prints the run time (212 s of CPU when
measured). With ``--check`` it writes nothing and exits 1 when the module differs from a new
derivation. ``tests/games/fourcard/test_fourcard_strategy.py`` derives cells again in
seconds.

Entry points: :func:`main`, :func:`module_text`, :func:`grid`.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Final

from game_server.games import generated
from game_server.games.fourcard.rules import analysis
from game_server.rules.enumeration import counts_source, fraction_source

__all__ = ["TARGET", "grid", "main", "module_text"]

TARGET: Final = Path(__file__).resolve().parent / "rules" / "optimal_table.py"

DOC: Final = '''\
"""Four Card Poker's strategy table and the exact results of the strategies: GENERATED
by ``python -m game_server.games.fourcard.derive_strategy`` from the enumeration of
:mod:`game_server.games.fourcard.rules.analysis`; do not edit.

- :data:`TABLE`: the decision (fold, play 1x, play 3x) of every cell of a pair or high-card
  hand: the player's five ranks, how many of his cards share the up card's suit, the up
  card's rank (:func:`~game_server.games.fourcard.rules.analysis.encode_table`). Every hand
  above a pair plays 3x.
- The mean result of the Ante and the Play per Ante (negative: the player's loss), without
  the Ante Bonus (every hand that earns it plays 3x under each strategy, so that it adds
  the same to each), exactly, over every deal: :data:`STRATEGY_RESULT` for this table,
  :data:`OPTIMAL_RESULT` for the strategy that also reads the exact suits of the player's
  cards, :data:`SIMPLE_RESULT` for the published simple strategy (3x on a pair of 10s or
  better, 1x on a pair of 3s to 9s).

``tests/games/fourcard/test_fourcard_strategy.py`` derives cells of the table again by
enumeration and fails on any difference.
"""
'''

_CODES: Final = {analysis.THREE: "3", analysis.ONE: "1", analysis.FOLD: "F"}
_RANK_TEXT: Final = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "T"}


def _rank(rank: int) -> str:
    return _RANK_TEXT.get(rank, str(rank))


def grid(derivation: analysis.Derivation) -> list[str]:
    """The table for people: per pair (by its rank) and per high-card hand with any cell
    that plays (by its top two cards), per up card rank, the decisions its cells take
    ("3/1": some cells play 3x, some 1x; "F" fold)."""
    found: dict[tuple[str, int], set[int]] = {}
    for (ranks, _same, up), cell in derivation.cells.items():
        pairs = [r for r in set(ranks) if ranks.count(r) == 2]
        row = f"{_rank(pairs[0]) * 2}" if pairs else f"{_rank(ranks[0])}{_rank(ranks[1])}-high"
        found.setdefault((row, up), set()).add(cell.decision)
    order = [f"{_rank(r) * 2}" for r in range(14, 1, -1)]
    order += sorted(
        {row for row, _ in found if row.endswith("high")},
        key=lambda row: [-"23456789TJQKA".index(c) for c in row[:2]],
    )
    width = 6
    out = [("hand    | up: " + "".join(f"{_rank(u):<{width}}" for u in range(2, 15))).rstrip()]
    for row in order:
        cells = []
        for up in range(2, 15):
            decisions = sorted(found.get((row, up), set()), reverse=True)
            cells.append(f"{'/'.join(_CODES[d] for d in decisions) or '-':<{width}}")
        if not row.endswith("high") or any(c.strip() != "F" for c in cells):
            out.append(f"{row:<8}|     " + "".join(cells).rstrip())
    return out


def module_text(derivation: analysis.Derivation) -> str:
    """The source of the data module for ``derivation``."""
    lines = textwrap.wrap(analysis.encode_table(derivation.cells), 92, break_on_hyphens=False)
    counts = {analysis.FOLD: 0, analysis.ONE: 0, analysis.THREE: 0}
    for cell in derivation.cells.values():
        counts[cell.decision] += 1
    out = DOC + "\nfrom fractions import Fraction\nfrom typing import Final\n\n"
    out += "#: The table, zlib-compressed in base 85.\nTABLE: Final = (\n"
    out += "".join(f'    "{line}"\n' for line in lines) + ")\n"
    out += (
        "#: Cells derived, by decision (0 fold, 1 play 1x, 3 play 3x).\n"
        f"CELLS: Final = {{0: {counts[0]}, 1: {counts[1]}, 3: {counts[3]}}}\n"
    )
    departures = sum(cell.departures() for cell in derivation.cells.values())
    out += counts_source(departures, derivation.deals)
    out += "#: The table for people, by pair or top two cards of high cards and up card rank\n"
    out += '#: ("3" play 3x, "1" play 1x, "F" fold; "3/1": some cells one, some the other).\n'
    out += "GRID: Final = (\n" + "".join(f'    "{line}",\n' for line in grid(derivation))
    out += ")\n"
    out += fraction_source("STRATEGY_RESULT", derivation.result(), "The table's strategy.")
    out += fraction_source("OPTIMAL_RESULT", derivation.result("optimal"), "The fully optimal one.")
    out += fraction_source("SIMPLE_RESULT", derivation.result("simple"), "The simple strategy.")
    return out


def main(argv: list[str] | None = None) -> int:
    """Derive, then write (or ``--check``) the data module; print the run time."""
    check = generated.check_flag("python -m game_server.games.fourcard.derive_strategy", argv)
    derivation, wall, cpu = generated.timed(
        lambda: analysis.derive(progress=generated.progress("rank multisets"))
    )
    if derivation.above_pair_not_three:
        raise SystemExit(f"{derivation.above_pair_not_three} deals above a pair do not play 3x")
    print(f"derived in {wall:.0f} s ({cpu:.0f} s of CPU): {len(derivation.cells):,} cells")
    for which in ("strategy", "optimal", "simple"):
        result = float(derivation.result(which))
        print(f"  {which:8s} Ante+Play without the Ante Bonus: {result:+.7%}")
    return generated.write_or_check(TARGET, module_text(derivation), check)


if __name__ == "__main__":
    raise SystemExit(main())
