"""Ultimate Texas Hold 'Em's ``etg math`` entries (58 Pa. Code 653a.12, one deck).

``etg math uth_trips --paytable "Paytable A"`` (exact, every seven-card hand; also
``uth_progressive`` and ``uth_five_card``, fixed lines exact), and ``etg math uth_blind
--paytable "Paytable A" --hands 1000000 --seed 1`` (the Blind needs the dealer's hand and the
player's decisions: a seeded simulation with the near-optimal strategy). ``uth-trips`` is
accepted for ``uth_trips``. The counting is :mod:`game_server.games.uth.rules.math`.

Entry point: :func:`math_report`.
"""

from __future__ import annotations

from typing import Any

from game_server.games.api import MathReport, NotOffered
from game_server.games.uth.rules.math import UTH_MATH, BlindSimulation, blind_simulation
from game_server.games.uth.rules.paytables import BLIND_PAYTABLES
from game_server.rules.wagers.math import format_math

__all__ = ["format_blind", "math_report"]


def format_blind(result: BlindSimulation, paytables: list[str]) -> list[str]:
    """The Blind simulation's report as lines of text."""
    lines = [
        "Ultimate Texas Hold 'Em Blind (58 Pa. Code 653a.12(b)), Ante + Blind + Play",
        f"simulated: {result.hands:,} hands, seed {result.seed}, near-optimal strategy "
        f"(river fold rate {result.folds:.4f}, average wager {result.average_wager:.4f} Antes)",
    ]
    for name in paytables:
        lines.append(
            f"{name}: Blind result {result.blind_result[name]:+.5f} "
            f"(+/- {result.blind_error[name]:.5f}) per Ante; "
            f"house edge {-result.hand_result[name] * 100:.3f}% of the Ante "
            f"(+/- {result.hand_error[name] * 100:.3f}%)"
        )
    return lines


def math_report(
    name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
) -> MathReport | None:
    """``etg math uth_*``: one of Ultimate Texas Hold 'Em's wagers (None for another name).

    Raises:
        NotOffered: an Ultimate Texas Hold 'Em name it does not have, another deck count than
            one, or a paytable missing or unknown.
    """
    wager = name.lower().replace("-", "_")
    if not wager.startswith("uth"):
        return None
    if decks not in (None, 1):
        raise NotOffered("Ultimate Texas Hold 'Em is dealt from one 52-card deck (--decks 1)")
    if wager == "uth_blind":
        if every:
            names = list(BLIND_PAYTABLES)
        elif paytable is None:
            raise NotOffered("give --paytable or --all")
        elif paytable not in BLIND_PAYTABLES:
            choices = ", ".join(f'"{n}"' for n in BLIND_PAYTABLES)
            raise NotOffered(f"{paytable!r} is not a Blind paytable; choose {choices}")
        else:
            names = [paytable]
        simulated = blind_simulation(hands, seed)
        return MathReport(format_blind(simulated, names), simulated.to_json())
    exact = UTH_MATH.get(wager)
    if exact is None:
        known = ", ".join(sorted([*UTH_MATH, "uth_blind"]))
        raise NotOffered(f"no wager {wager!r}; Ultimate Texas Hold 'Em has: {known}")
    if every:
        names = list(exact.paytables)
    elif paytable is None:
        raise NotOffered("give --paytable, or --all")
    else:
        names = [paytable]
    results = [exact.compute(n) for n in names]  # MathError: etg's exit 2
    lines: list[str] = []
    for i, result in enumerate(results):
        if i:
            lines.append("")
        lines += format_math(result)
    data: Any = [r.to_json() for r in results] if every else results[0].to_json()
    return MathReport(lines, data)
