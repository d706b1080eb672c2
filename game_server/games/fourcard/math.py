"""Four Card Poker's ``etg math`` entries, exact off one 52-card deck (2,598,960 five-card
hands, :mod:`game_server.games.fourcard.rules.math`):

- ``etg math aces_up --paytable 50-40-8-6-4-2-1`` (or ``--all``: every Aces Up paytable);
- ``etg math four_card_progressive`` and ``five_card_progressive``: the chance of every
  Progressive Payout Hand, and the return of the paytable of a Rules Submission
  (``--paytable PATH.toml``; the example ``configs/fourcard.toml`` when not given) with its
  meter at its reset amount and in the long run, with its Envy Bonus (641a.1) at a full
  table when the Rules Submission offers one.

Entry point: :func:`math_report`.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from game_server.games.api import MathReport, NotOffered
from game_server.games.fourcard.rules.events import (
    ACES_UP,
    FIVE_CARD_PROGRESSIVE,
    FOUR_CARD_PROGRESSIVE,
)
from game_server.games.fourcard.rules.math import five_card_counts, four_card_counts
from game_server.games.fourcard.rules.paytables import (
    ACES_UP_PAYTABLES,
    ACES_UP_SOURCES,
    FIVE_CARD_PROGRESSIVE_HANDS,
    FOUR_CARD_PROGRESSIVE_HANDS,
)
from game_server.games.fourcard.rules.returns import fourcard_returns
from game_server.rules.wagers.base import Paytable
from shared.money import MeterShare

__all__ = ["aces_up_math", "math_report"]

_EXAMPLE = Path(__file__).resolve().parent / "configs" / "fourcard.toml"
NAMES = (ACES_UP, FOUR_CARD_PROGRESSIVE, FIVE_CARD_PROGRESSIVE)


def aces_up_math(paytable: Paytable) -> dict[str, Any]:
    """The exact Aces Up figures of a paytable: each line's combinations, probability and
    return per unit, and the house edge (exact fraction and float)."""
    counts = four_card_counts()
    total = sum(counts.values())
    lines: list[dict[str, Any]] = []
    ret = Fraction(0)
    for line in paytable.lines:
        pay = line.pay
        assert not isinstance(pay, MeterShare)
        n = counts.get(line.name, 0)
        back = Fraction(pay.total_return(100), 100)
        ret += Fraction(n, total) * back
        lines.append(
            {"line": line.name, "combinations": n, "probability": n / total, "pays": str(pay)}
        )
    won = sum(int(line["combinations"]) for line in lines)
    edge = 1 - ret
    return {
        "wager": ACES_UP,
        "paytable": paytable.name,
        "source": ACES_UP_SOURCES.get(paytable.name, ""),
        "total": total,
        "lines": lines,
        "losing": total - won,
        "house_edge": float(edge),
        "house_edge_exact": f"{edge.numerator}/{edge.denominator}",
    }


def _aces_up_lines(data: dict[str, Any]) -> list[str]:
    out = [
        f"Aces Up (58 Pa. Code 641a.1), paytable {data['paytable']}: {data['source']}",
        f"counted: {data['total']:,} five-card hands, the best four cards of each (641a.6(b))",
        f"{'line':<18} {'combinations':>13} {'probability':>12} {'pays':>10}",
    ]
    for line in data["lines"]:
        out.append(
            f"{line['line']:<18} {line['combinations']:>13,} {line['probability']:>12.8f} "
            f"{line['pays']:>10}"
        )
    out.append(f"{'loses':<18} {data['losing']:>13,} {data['losing'] / data['total']:>12.8f}")
    out.append(f"house edge {data['house_edge'] * 100:.4f}% ({data['house_edge_exact']})")
    return out


def _progressive(wager: str, source: str | None) -> MathReport:
    from game_server.config import load_config

    path = Path(source) if source else _EXAMPLE
    config = load_config(path)
    hands, counts = (
        (FOUR_CARD_PROGRESSIVE_HANDS, four_card_counts())
        if wager == FOUR_CARD_PROGRESSIVE
        else (FIVE_CARD_PROGRESSIVE_HANDS, five_card_counts())
    )
    total = sum(counts.values())
    title = "Four-Card" if wager == FOUR_CARD_PROGRESSIVE else "Five-Card"
    ranking = (
        "the best four of the five cards, 641a.6(b)"
        if title == "Four-Card"
        else ("the five cards, 641a.6(d)")
    )
    lines = [
        f"{title} Progressive Payout Wager (58 Pa. Code 641a.1): {title} Progressive Payout "
        f"Hands ({ranking})",
        f"counted: {total:,} five-card hands",
        f"{'hand':<18} {'combinations':>13} {'probability':>12}",
    ]
    data: dict[str, Any] = {"wager": wager, "total": total, "hands": []}
    for hand in hands:
        n = counts.get(hand, 0)
        lines.append(f"{hand:<18} {n:>13,} {n / total:>12.10f}")
        data["hands"].append({"hand": hand, "combinations": n, "probability": n / total})
    found = [r for r in fourcard_returns(config.rules) if r.wager == wager]
    if found:
        ret = found[0]
        lines.append(f"paytable of {path.name}, at the {ret.stake / 100:.2f} wager:")
        for line in ret.lines:
            lines.append(f"  {line.line:<18} {line.pays:>14}  returns {line.returns or 0:.5f}")
        lines += [f"  ({note})" for note in ret.notes if "Envy Bonus" in note]
        lines.append(
            f"return {ret.at_reset * 100:.3f}% with the meter at its reset amount; "
            f"{ret.long_run * 100:.3f}% in the long run (its rate of progression"
            f"{' and the Must-Hit-By Mystery Bonus' if len(ret.meters) > 1 else ''})"
        )
        data["at_reset"], data["long_run"] = ret.at_reset, ret.long_run
    else:
        lines.append(f"{path.name} does not offer the {title} Progressive Payout Wager")
    return MathReport(lines, data)


def math_report(
    name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
) -> MathReport | None:
    """``etg math aces_up | four_card_progressive | five_card_progressive`` (None for another
    name).

    Raises:
        NotOffered: another deck count than one, or an Aces Up paytable missing or unknown.
    """
    wager = name.lower().replace("-", "_")
    if wager not in NAMES:
        return None
    if decks not in (None, 1):
        raise NotOffered("Four Card Poker is dealt from one 52-card deck (--decks 1)")
    if wager != ACES_UP:
        return _progressive(wager, paytable)
    if every:
        names = list(ACES_UP_PAYTABLES)
    elif paytable is None:
        raise NotOffered(f"give --paytable ({', '.join(ACES_UP_PAYTABLES)}) or --all")
    elif paytable not in ACES_UP_PAYTABLES:
        raise NotOffered(
            f"{paytable!r} is not an Aces Up paytable; choose {', '.join(ACES_UP_PAYTABLES)}"
        )
    else:
        names = [paytable]
    results = [aces_up_math(ACES_UP_PAYTABLES[n]) for n in names]
    out: list[str] = []
    for i, result in enumerate(results):
        out += ([""] if i else []) + _aces_up_lines(result)
    return MathReport(out, results if every else results[0])
