"""What ``etg strategy`` and ``etg par`` say of Four Card Poker's strategy: the decision rule
the bots play (:mod:`.rules.strategy`), how it was derived, its exact house edge for a Rules
Submission's Ante Bonus and the published optimal figure for the same pays.

The house edge is exact: the Ante and the Play come from the enumeration's fractions
(:mod:`.rules.optimal_table`); the Ante Bonus from the exact counts of the hands it pays
(:func:`.rules.math.four_card_counts`; every such hand plays 3x, so that it is the same under
every strategy compared).

Entry point: :func:`strategy_report`.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Final

from game_server.games.api import AnalysedEdge, PublishedFigure, StrategyReport
from game_server.games.fourcard.rules import optimal_table
from game_server.games.fourcard.rules.analysis import ROW_CELLS, ROWS
from game_server.games.fourcard.rules.math import four_card_counts
from game_server.games.fourcard.rules.rules import FourCardRules
from game_server.rules.wagers.base import Paytable
from shared.money import ToOne

__all__ = ["PUBLISHED", "ante_bonus_result", "strategy_report"]

#: The published optimal figure and the Ante Bonus it is for (secondary source).
PUBLISHED: Final = PublishedFigure(
    house_edge=0.0279,
    source='Wizard of Odds, "Four Card Poker" (wizardofodds.com/games/four-card-poker/)',
    rules=(
        "optimal strategy; five cards against the dealer's six with one face up, best four "
        "of each, a tie wins, Play 1 to 3 times the Ante, Ante Bonus 25-20-2 (four of a kind "
        "25 to 1, straight flush 20 to 1, three of a kind 2 to 1)"
    ),
)
_PUBLISHED_BONUS: Final = "25-20-2"


def ante_bonus_result(paytable: Paytable) -> Fraction:
    """What the Ante Bonus adds per Ante, exactly: each line's pay times the chance of its
    hand among the C(52, 5) five-card hands (every hand it pays plays)."""
    counts = four_card_counts()
    total = Fraction(0)
    for line in paytable.lines:
        pay = line.pay
        assert isinstance(pay, ToOne)
        total += Fraction(counts.get(line.name, 0) * pay.a, pay.b)
    return total / comb(52, 5)


def _pct(x: Fraction | float, places: int = 5) -> str:
    return f"{100 * float(x):.{places}f}%"


def strategy_report(rules: FourCardRules) -> StrategyReport:
    """The strategy of a table with ``rules`` (its Ante Bonus paytable)."""
    bonus = ante_bonus_result(rules.ante_bonus)
    edge = -(optimal_table.STRATEGY_RESULT + bonus)
    optimal = -(optimal_table.OPTIMAL_RESULT + bonus)
    simple = -(optimal_table.SIMPLE_RESULT + bonus)
    cells = optimal_table.CELLS
    rule = [
        "Every hand above a pair (two pair, a straight, a flush, three of a kind or better): "
        "Play 3x the Ante.",
        "A pair or high cards: the decision of its cell, by the player's five ranks, the "
        "dealer's face-up card's rank and how many of the player's cards share its suit "
        f"({sum(cells.values()):,} cells: {cells[0]:,} fold, {cells[1]:,} play 1x, "
        f"{cells[3]:,} play 3x; game_server/games/fourcard/rules/optimal_table.py).",
        "High cards below ace-king: fold.",
    ]
    lines = [
        *rule,
        "",
        "The cells by pair (or the top two of high cards) and up card rank (3 play 3x, "
        "1 play 1x, F fold; 3/1: some cells of the row play 3x, some 1x):",
        *optimal_table.GRID,
    ]
    published = (PUBLISHED,) if rules.ante_bonus.name == _PUBLISHED_BONUS else ()
    deals = optimal_table.DEALS
    differences = [
        "The fully optimal strategy also reads the exact suits of the player's cards: "
        f"{optimal_table.DEPARTURES:,} of the {deals:,} deals ("
        f"{_pct(Fraction(optimal_table.DEPARTURES, deals), 3)}) decide otherwise there, for "
        f"{_pct(edge - optimal)} of the Ante ({_pct(optimal)} against {_pct(edge)}, both "
        "exact).",
        "The published simple strategy (3x on a pair of 10s or better, 1x on a pair of 3s to "
        "9s, fold the rest, never reading the up card; Shuffle Master's, as Frome and "
        f"Wikipedia give it), which the bots played before, gives {_pct(simple)} (exact).",
    ]
    if not published:
        differences.append(
            f"No published figure is held for the {rules.ante_bonus.name} Ante Bonus (the "
            f"published {_pct(PUBLISHED.house_edge, 2)} is for {_PUBLISHED_BONUS}); the "
            "decisions do not depend on it (every hand it pays plays 3x)."
        )
    return StrategyReport(
        name=(
            "Optimal strategy reading the dealer's up card, by exact enumeration: a cell per "
            "player's five ranks, up card rank and cards in its suit; above a pair, 3x"
        ),
        derivation=(
            "Every deal the player can see (his five cards, one per class of suit "
            "permutation, with each of the 47 up cards) against every one of the dealer's "
            "C(46, 5) = 1,370,754 face-down hands, counted by multisets of ranks and "
            "inclusion-exclusion over the player's cards "
            "(game_server/games/fourcard/rules/analysis.py); each cell takes the decision "
            "with the highest total over its deals. Generated into rules/optimal_table.py by "
            "`python -m game_server.games.fourcard.derive_strategy`; the tests derive cells "
            "again. The "
            "procedure and the Ante Bonus paytables are secondary sources (641a.7-641a.12 "
            "are not held; docs/decisions.md)."
        ),
        lines=tuple(lines),
        data={
            "rule": rule,
            "above_pair": "play 3x",
            "cells": {"fold": cells[0], "play 1x": cells[1], "play 3x": cells[3]},
            "grid": list(optimal_table.GRID),
            "table": {
                "layout": (
                    f"one byte per cell at row * {ROW_CELLS} + cards in the up card's suit * "
                    "13 + up card rank - 2 (0 fold, 1 play 1x, 3 play 3x); the rows are the "
                    f"{len(ROWS):,} multisets of five ranks with four or five distinct ranks, "
                    "each highest rank first, in descending order"
                ),
                "encoding": "zlib, base 85",
                "text": optimal_table.TABLE,
            },
            "house_edge": {
                "strategy": str(edge),
                "optimal": str(optimal),
                "simple": str(simple),
            },
        },
        analysis=AnalysedEdge(
            house_edge=float(edge),
            method=(
                "exact enumeration of every deal: every player hand and up card against "
                "every dealer hand"
            ),
            precision=(
                "exact, a fraction shown rounded; the Ante Bonus "
                f"{rules.ante_bonus.name} adds {_pct(bonus)} of the Ante"
            ),
        ),
        published=published,
        differences=tuple(differences),
    )
