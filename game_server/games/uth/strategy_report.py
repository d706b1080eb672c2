"""What ``etg strategy`` and ``etg par`` say of Ultimate Texas Hold 'Em's strategy: the
published near-optimal strategy the bots play (:mod:`.rules.strategy`), the published optimal
figure for the same pays, and how close the strategy comes to it.

No exact figure is computed: the optimal strategy reads every card at each of three
decisions, and its published figure came from a full enumeration far beyond a pure-Python
run. The strategy's house edge is simulated (``etg par`` through the engine; ``etg math
uth_blind``, a seeded one-player simulation): :data:`MEASURED` states a large seeded run and
the command that reproduces it.

Entry point: :func:`strategy_report`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from game_server.games.api import PublishedFigure, StrategyReport
from game_server.games.uth.rules.rules import UthRules
from game_server.games.uth.rules.strategy import DEALER_OUTS_LIMIT

__all__ = ["MEASURED", "PUBLISHED", "Measured", "strategy_report"]


@dataclass(frozen=True, slots=True)
class Measured:
    """A figure measured by a seeded run, with the commands that reproduce it."""

    value: float
    half_width: float
    """Of its 95% interval."""
    hands: int
    commands: str


#: The published optimal figure for 653a.12(b) Paytable A, the standard Blind pays.
PUBLISHED: Final = PublishedFigure(
    house_edge=0.02185,
    source=(
        'Wizard of Odds, "Ultimate Texas Hold \'Em" '
        "(wizardofodds.com/games/ultimate-texas-hold-em/)"
    ),
    rules=(
        "optimal strategy; one deck, the dealer qualifies with a pair, Play 3x or 4x "
        "preflop, 2x on the flop, 1x at the river, Blind 500-50-10-3-3:2-1 on a royal flush "
        "down to a straight (653a.12(b) Paytable A)"
    ),
)
_PUBLISHED_BLIND: Final = "Paytable A"

#: The strategy's house edge per Ante with Paytable A by a large seeded simulation (the
#: command prints one standard error, 0.141%; the half-width here is 1.96 of them).
MEASURED: Final = Measured(
    value=0.02644,
    half_width=0.00276,
    hands=12_000_000,
    commands='etg math uth_blind --paytable "Paytable A" --hands 12000000 --seed 2185',
)
_RULE: Final = (
    "Preflop, Play 4x with: a pair of 3s or better; any ace; a king with a suited card or a "
    "5 or better; a queen with a suited 6 or better or an offsuit 8 or better; a jack with a "
    "suited 8 or better or an offsuit 10. Else check.",
    "Flop, Play 2x with: two pair or better that uses a hole card; a hidden pair (a hole card "
    "pairs the board, or a pocket pair) but pocket 2s; four to a flush with a hidden 10 or "
    "better of that suit. Else check.",
    "River, Play 1x with a hidden pair or better (the hole cards make more than kickers over "
    f"the board's own hand), or when fewer than {DEALER_OUTS_LIMIT} of the unseen cards would "
    "give the dealer a better hand with the board. Else fold.",
)


def _pct(x: float, places: int = 3) -> str:
    return f"{100 * x:.{places}f}%"


def _closeness(m: Measured) -> str:
    """Whether the published optimal figure is inside the measurement's interval."""
    if abs(m.value - PUBLISHED.house_edge) <= m.half_width:
        return "the published figure inside the interval"
    return (
        "the published figure outside the interval: this strategy plays measurably worse than "
        'the optimal one (the "about 0.1%" of rules/strategy.py is not borne out)'
    )


def strategy_report(rules: UthRules) -> StrategyReport:
    """The strategy of a table with ``rules`` (its Blind paytable)."""
    published = (PUBLISHED,) if rules.blind_paytable == _PUBLISHED_BLIND else ()
    m = MEASURED
    differences = [
        "The optimal strategy is not written out (it reads every card at each decision). "
        f"This one's house edge with {_PUBLISHED_BLIND}, by a seeded simulation of "
        f"{m.hands:,} hands ({m.commands}): {_pct(m.value)} +/- {_pct(m.half_width)} (95%), "
        f"against the published {_pct(PUBLISHED.house_edge)}: "
        f"{_pct(m.value - PUBLISHED.house_edge)} of the Ante above it, {_closeness(m)}.",
    ]
    if not published:
        differences.append(
            f"No published figure is held for the Blind's {rules.blind_paytable}; the "
            f"published {_pct(PUBLISHED.house_edge)} is for {_PUBLISHED_BLIND}."
        )
    return StrategyReport(
        name=(
            "Near-optimal strategy published by the Wizard of Odds: a preflop chart, a flop "
            "rule, a river rule by hidden pairs and the dealer's outs"
        ),
        derivation=(
            "Published, not derived here (secondary source: the Wizard of Odds' strategy for "
            "the three decisions; game_server/games/uth/rules/strategy.py). Its house edge is "
            "simulated: etg par through the engine, etg math uth_blind by a seeded "
            "one-player simulation."
        ),
        lines=_RULE,
        data={
            "preflop": _RULE[0],
            "flop": _RULE[1],
            "river": _RULE[2],
            "dealer_outs_limit": DEALER_OUTS_LIMIT,
            "measured": {
                "house_edge": m.value,
                "ci95_half_width": m.half_width,
                "hands": m.hands,
                "commands": m.commands,
            },
        },
        published=published,
        differences=tuple(differences),
    )
