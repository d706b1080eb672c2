"""``Game.strategy`` of the twenty-one games (Blackjack, Spanish 21, the hybrid tables): the
report of the chart the analysis derives for a table's rules.

Entry point: :func:`twenty_one_report`.
"""

from __future__ import annotations

from game_server.games.api import AnalysedEdge, PublishedFigure, StrategyReport
from game_server.games.blackjack.rules.analysis import DEALER_EXACT_CARDS, Model
from game_server.games.blackjack.rules.charts import report_of

__all__ = ["DERIVATION", "twenty_one_report"]

DERIVATION = (
    "Derived by the combinatorial analysis of game_server/games/blackjack/rules/analysis.py, "
    "the method of the public CA programs (MGP's, Cacarulo's, the Wizard of Odds' appendices): "
    "the dealer's final totals for each up card with the cards removed, the composition-"
    "dependent value of every decision (stand, hit, double, surrender, split, and at Spanish 21 "
    "the rescue and the 635a.12 payouts), conditioned on no dealer Blackjack where the dealer "
    "peeks and settled against it as the engine does where he does not. The chart is "
    "total-dependent: each cell (total, up card, and at Spanish 21 the number of cards) takes "
    "the action whose value, averaged over the hands the cell covers as often as they are met, "
    "is best; Blackjack's cells are those of the first two cards, as the published charts'. "
    "Approximations: each split hand is valued with only the pair's cards removed, resplits by "
    "the hand-count distribution; the dealer's outcomes count the removal of a hand's first "
    f"{DEALER_EXACT_CARDS} cards (its higher cards beyond them left out); the suited bonuses are "
    "averaged over the suits (the strategy reads none)."
)


def twenty_one_report(
    model: Model, published: tuple[PublishedFigure, ...], comparison: str
) -> StrategyReport:
    """The report of ``model``'s chart; ``comparison`` names the published chart compared."""
    entry = report_of(model)
    chart = entry.chart
    method = (
        "combinatorial analysis: composition-dependent values, the total-dependent chart "
        "played; the edge of composition-dependent optimal play is "
        f"{100 * entry.optimal_edge:.4f}%"
    )
    precision = (
        "within about 0.01% of an exact analysis of the same chart (split hands valued "
        "independently, the dealer's removal counting four cards of a hand; both change the "
        "edge by under 0.005% in our checks); no cut-card effect"
    )
    differences = entry.differences or (
        (f"None: the chart equals {comparison} cell by cell.",) if comparison else ()
    )
    return StrategyReport(
        name=f"Basic strategy of these rules by combinatorial analysis: {model.name}",
        derivation=DERIVATION + (f" Compared with {comparison}." if comparison else ""),
        lines=tuple(chart.lines()),
        data={"rules": model.key, "chart": chart.to_data()},
        analysis=AnalysedEdge(entry.house_edge, method, precision),
        published=published,
        differences=differences,
    )
