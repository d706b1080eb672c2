"""What ``etg strategy`` and ``etg par`` say of Caribbean Stud Poker's strategy: the decision
rule the bots play (:mod:`.rules.strategy`), how it was derived, its exact house edge and the
published optimal figure for the same pays (the Bet Wager paytable is fixed, not a Rules
Submission's choice, so the figures hold for every table).

Entry point: :func:`strategy_report`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from game_server.games.api import AnalysedEdge, PublishedFigure, StrategyReport
from game_server.games.caribbean.rules import optimal_table
from game_server.games.caribbean.rules.rules import BET_PAYTABLE

__all__ = ["PUBLISHED", "strategy_report"]

#: The published optimal figure (secondary source) for the standard pays, which are ours.
PUBLISHED: Final = PublishedFigure(
    house_edge=0.05224,
    source='Wizard of Odds, "Caribbean Stud Poker" (wizardofodds.com/games/caribbean-stud-poker/)',
    rules=(
        "optimal strategy; one deck, the dealer qualifies with ace-king, the Bet Wager twice "
        "the Ante paid 100-50-20-7-5-4-3-2-1-1 (royal flush down to ace-king)"
    ),
)

_RULE: Final = (
    "A pair or better: make the Bet Wager.",
    "Less than ace-king: fold.",
    "Ace-king: make the Bet Wager if (a) the up card is a 2 to a queen and matches one of the "
    "player's ranks, or (b) the up card is an ace or a king and the player holds a queen or a "
    "jack, or (c) the player holds a queen, and the up card matches none of his ranks and is "
    "lower than his fourth highest card; else fold (the Wizard of Odds' simple strategy) - "
    "except in the cells listed below.",
)


def _pct(x: Fraction | float, places: int = 5) -> str:
    return f"{100 * float(x):.{places}f}%"


def _rank(r: int) -> str:
    return {14: "A", 13: "K", 12: "Q", 11: "J", 10: "T"}.get(r, str(r))


def exceptions_text() -> list[str]:
    """The cells where the strategy departs from the simple strategy, grouped by the
    player's ranks and up card, with the counts of his cards in its suit."""
    grouped: dict[tuple[tuple[int, ...], int, bool], list[int]] = {}
    for (ranks, up, same), bets in optimal_table.EXCEPTIONS.items():
        grouped.setdefault((ranks, up, bets), []).append(same)
    out = []
    for (ranks, up, bets), sames in sorted(grouped.items()):
        what = "make the Bet Wager" if bets else "fold"
        counts = ", ".join(str(n) for n in sorted(sames))
        out.append(
            f"{''.join(_rank(r) for r in ranks)} against a {_rank(up)} up, with {counts} of "
            f"the player's cards in its suit: {what}"
        )
    return out


def strategy_report() -> StrategyReport:
    """Caribbean Stud Poker's strategy and its exact house edge."""
    edge = -optimal_table.STRATEGY_RESULT
    optimal = -optimal_table.OPTIMAL_RESULT
    simple = -optimal_table.SIMPLE_RESULT
    deals = optimal_table.DEALS
    listed = exceptions_text()
    lines = [*_RULE, "", f"The {len(optimal_table.EXCEPTIONS)} exceptions:", *listed]
    return StrategyReport(
        name=(
            "The published simple strategy with its exceptions found by exact enumeration: "
            "optimal for the player's ranks, the up card's rank and his cards in its suit"
        ),
        derivation=(
            "Every deal the player can see (his five cards, one per class of suit "
            "permutation, with each of the 47 up cards) against every one of the dealer's "
            "C(46, 4) = 163,185 face-down hands, counted by multisets of ranks and "
            "inclusion-exclusion over the player's cards "
            "(game_server/games/caribbean/rules/analysis.py). Every pair or better bets and "
            "every hand below ace-king folds at every deal; an ace-king cell (the player's "
            "ranks, the up card's rank, his cards in its suit) takes the decision with the "
            "highest total over its deals, which the simple strategy (the Wizard of Odds') "
            "takes in all but the exceptions. Generated into rules/optimal_table.py by "
            "`python -m game_server.games.caribbean.derive_strategy`; the tests derive cells "
            "again. The "
            f"procedure and the {BET_PAYTABLE.name} are secondary sources (639a.7-639a.12 "
            "are not held; docs/decisions.md)."
        ),
        lines=tuple(lines),
        data={
            "rule": list(_RULE),
            "exceptions": [
                {"ranks": list(ranks), "up": up, "in_up_suit": same, "bet": bets}
                for (ranks, up, same), bets in optimal_table.EXCEPTIONS.items()
            ],
            "house_edge": {"strategy": str(edge), "optimal": str(optimal), "simple": str(simple)},
        },
        analysis=AnalysedEdge(
            house_edge=float(edge),
            method=(
                "exact enumeration of every deal: every player hand and up card against "
                "every dealer hand"
            ),
            precision="exact, a fraction shown rounded",
        ),
        published=(PUBLISHED,),
        differences=(
            "The fully optimal strategy also reads the exact suits of the player's cards: "
            f"{optimal_table.DEPARTURES:,} of the {deals:,} deals decide otherwise, for "
            f"{_pct(edge - optimal, 7)} of the Ante ({_pct(optimal, 7)} against "
            f"{_pct(edge, 7)}, both exact).",
            f"The simple strategy alone gives {_pct(simple, 7)} (exact); the bots played it "
            'before with rule (c) missing "the player holds a queen", which gives 5.31828% '
            "(exact): they made the Bet Wager with thousands of ace-king hands it folds.",
        ),
    )
