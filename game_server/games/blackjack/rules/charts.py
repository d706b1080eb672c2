"""The charts the bots, ``etg sim`` and ``etg par`` play: derived by the combinatorial analysis
(:mod:`.analysis`) for a table's rules.

Why a data module and a cache: the analysis of a six-deck shoe takes some seconds of pure
Python (``docs/decisions.md`` has the measured times), too long for every bot, simulation and
test that builds a strategy. So the charts and edges of the shipped example Rules Submissions
are generated into :mod:`.chart_data` (``python -m game_server.games.blackjack.gen_charts``
writes it; a test derives them again and fails on any difference), and any other rules
derive their chart on first use, kept for the life of the process (:func:`analysis_for`).
Either way the chart is the analysis' own: nothing here is transcribed.

Entry points: :func:`blackjack_model` (the fully automated table's rules as the analysis reads
them), :func:`chart_for`, :func:`analysis_for`, :func:`stored`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from game_server.games.blackjack.rules.analysis import Analysis, Chart, Model, analyse
from game_server.games.blackjack.rules.rules import BlackjackRules, DoubleOn

__all__ = [
    "Stored",
    "analysis_for",
    "blackjack_model",
    "chart_for",
    "differences",
    "report_of",
    "shoe_of",
    "stored",
]


def shoe_of(decks: int, *, spanish: bool = False) -> tuple[int, ...]:
    """Cards of each value 1..10 in ``decks`` decks (a Spanish deck has no tens, 633a.3(e))."""
    tens = 12 if spanish else 16
    return (0,) + (4 * decks,) * 9 + (tens * decks,)


def _double_totals(double_on: DoubleOn) -> frozenset[int] | None:
    if double_on is DoubleOn.ANY:
        return None
    low = 9 if double_on is DoubleOn.NINE_TO_ELEVEN else 10
    return frozenset(range(low, 12))


def _words(model: Model) -> str:
    parts = [
        f"{model.decks} deck{'s' * (model.decks != 1)}",
        "dealer hits soft 17" if model.hits_soft_17 else "dealer stands on soft 17",
        "dealer peeks" if model.peeks else "no peek (no hole card or no check)",
        "double on any number of cards" if model.double_any_cards else "double on two cards",
    ]
    if model.double_totals is not None:
        parts.append(f"double on hard {min(model.double_totals)}-11 only")
    parts.append("double after split" if model.double_after_split else "no double after split")
    parts.append(f"split to {model.max_hands} hands")
    parts.append("resplit aces" if model.resplit_aces else "no resplit of aces")
    parts.append("hit split aces" if model.hit_split_aces else "one card to split aces")
    parts.append("late surrender" if model.surrender else "no surrender")
    if model.rescue:
        parts.append("rescue")
    return ", ".join(parts)


def blackjack_model(rules: BlackjackRules) -> Model:
    """The fully automated table's rules (633a, 633b.5) as the analysis reads them."""
    model = Model(
        shoe=shoe_of(rules.decks),
        decks=rules.decks,
        hits_soft_17=rules.dealer_hits_soft_17,
        peeks=rules.dealer_peeks,
        double_after_split=rules.double_after_split,
        max_hands=rules.max_split_hands,
        resplit_aces=rules.resplit_aces,
        hit_split_aces=rules.hit_split_aces,
        surrender=rules.late_surrender,
        double_totals=_double_totals(rules.double_on),
    )
    return named(model)


def named(model: Model) -> Model:
    """``model`` with its rules in words."""
    from dataclasses import replace

    return replace(model, name=_words(model))


@dataclass(frozen=True, slots=True)
class Stored:
    """A chart and its edges as :mod:`.chart_data` keeps them."""

    chart: Chart
    house_edge: float
    optimal_edge: float
    differences: tuple[str, ...] = ()


def stored(model: Model) -> Stored | None:
    """The generated chart of ``model``'s rules, if it is one of the shipped ones."""
    from game_server.games.blackjack.rules.chart_data import CHARTS

    entry: Mapping[str, Any] | None = CHARTS.get(model.key)
    if entry is None:
        return None
    return Stored(
        Chart.from_data(entry["chart"]),
        float(entry["house_edge"]),
        float(entry["optimal_edge"]),
        tuple(entry.get("differences", ())),
    )


def differences(analysis: Analysis) -> tuple[str, ...]:
    """Where ``analysis``' chart departs from the published chart of the same rules (Blackjack's
    4-8 deck charts for a peeking table of 4 or more decks, Spanish 21's H17 chart), each with
    the analysis' margin; empty where no published chart has these rules."""
    from game_server.games.blackjack.rules.compare import against_blackjack, against_spanish21

    model = analysis.model
    if model.twenty_one_wins:
        if not model.hits_soft_17:
            return ()
        found = against_spanish21(analysis)
    elif model.peeks and model.decks >= 4:
        found = against_blackjack(analysis)
    else:
        return ()
    return tuple(d.text() for d in found)


def report_of(model: Model) -> Stored:
    """The chart, edges and differences of ``model``: generated if shipped, else derived."""
    entry = stored(model)
    if entry is not None:
        return entry
    analysis = analysis_for(model)
    return Stored(analysis.chart, analysis.house_edge, analysis.optimal_edge, differences(analysis))


@lru_cache(maxsize=64)
def analysis_for(model: Model) -> Analysis:
    """The analysis of ``model`` (derived once per process)."""
    return analyse(model)


@lru_cache(maxsize=256)
def chart_for(model: Model) -> Chart:
    """The chart of ``model``'s rules: the generated one if shipped, else derived now."""
    entry = stored(model)
    if entry is not None:
        return entry.chart
    return analysis_for(model).chart
