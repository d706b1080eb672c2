"""``etg math match_the_dealer``: the exact math of the Match the Dealer Progressive wager
(58 Pa. Code 635b.1) for one paytable and deck count, or every one with ``--all``.

Every deal of the dealer's up card and the player's two cards from a full Spanish shoe is
counted (:func:`~.rules.match_the_dealer.exact_counts`), line by line, as the shared side
wagers' math reports them (combinations, probability, pays, contribution); the two progressive
lines' contribution depends on the meter and is left out there, so that house edge is that of
the fixed lines. Below it the report gives the long-run return the player-edge guard checks,
with the meter counted from its own dynamics (:mod:`game_server.rules.meter_returns`), for each
thing the Rules Submission may say the reserve is for (``reserve``), and whether the guard
refuses the paytable.

Entry point: :func:`math_report`.
"""

from __future__ import annotations

from typing import Any

from game_server.games.api import MathReport, NotOffered
from game_server.games.spanish21.rules import match_the_dealer as mtd
from game_server.games.spanish21.rules.returns import match_the_dealer_return
from game_server.rules.returns import BREAK_EVEN
from game_server.rules.wagers.base import ReserveUse
from game_server.rules.wagers.math import WagerMath, format_math, math_of_counts

__all__ = ["long_runs", "math_report", "wager_math"]


def long_runs(paytable: str, decks: int, amount: int = mtd.AMOUNTS[0]) -> dict[str, float]:
    """The guard's long-run return of ``paytable`` at the ``amount`` wager, by what the
    reserve is for (the stake returned on every winning line included)."""
    return {
        use.value: match_the_dealer_return(
            mtd.paytable(decks, paytable, amount, use), decks, amount
        ).long_run
        for use in ReserveUse
    }


def _long_run_lines(runs: dict[str, float]) -> list[str]:
    out = ["Long run with the meter's dynamics (what the player-edge guard checks):"]
    for use, figure in runs.items():
        verdict = "refused" if figure >= BREAK_EVEN else "offered"
        out.append(f'  reserve = "{use}": {100 * figure:.3f}% ({verdict})')
    return out


def wager_math(paytable: str, decks: int) -> WagerMath:
    """The exact math of ``paytable`` of the ``decks``-deck tables (635b.1(i))."""
    return math_of_counts(
        mtd.MATCH_THE_DEALER,
        mtd.paytable(decks, paytable),
        decks,
        mtd.exact_counts(decks),
        f"{mtd.COUNTED}, from {decks} 48-card decks",
    )


def math_report(
    name: str, paytable: str | None, decks: int | None, every: bool
) -> MathReport | None:
    """``etg math match_the_dealer`` (None for another name).

    Raises:
        NotOffered: a deck count other than 6 or 8, or a paytable missing or unknown.
    """
    if name.lower().replace("-", "_") != mtd.NAME:
        return None
    if every:
        pairs = [(d, n) for d in sorted(mtd.PAYTABLES) for n in mtd.PAYTABLES[d]]
    elif paytable is None or decks is None:
        raise NotOffered("give --paytable and --decks (6 or 8), or --all")
    elif decks not in mtd.PAYTABLES:
        raise NotOffered(f"Match the Dealer is played with 6 or 8 decks (635b.1(b)), not {decks}")
    elif paytable not in mtd.PAYTABLES[decks]:
        choices = ", ".join(f'"{n}"' for n in mtd.PAYTABLES[decks])
        raise NotOffered(f"{paytable!r} is not a paytable of 635b.1(i); choose {choices}")
    else:
        pairs = [(decks, paytable)]
    results = [wager_math(n, d) for d, n in pairs]
    runs = [long_runs(n, d) for d, n in pairs]
    lines: list[str] = []
    for i, result in enumerate(results):
        if i:
            lines.append("")
        lines += format_math(result)
        lines += _long_run_lines(runs[i])
    data: Any = [r.to_json() | {"long_run": run} for r, run in zip(results, runs, strict=True)]
    return MathReport(lines, data if every else data[0])
