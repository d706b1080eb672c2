"""``etg math caribbean_progressive``: the Progressive Payout Wager exactly, over every
five-card hand of one deck (2,598,960), for each paytable of the example Rules Submissions
(``--paytable "Paytable A"`` or ``--all``): per line its number of hands, chance, pay and
share of the return, then the return with the meter at its reset amount and in the long run
(the meter's rate of progression, the Envy Bonus at a full table and the Must-Hit-By Mystery
Bonus of the file). ``caribbean_five_card`` does the same for the Five Card Hand Bonus.

Entry point: :func:`math_report`.
"""

from __future__ import annotations

import tomllib
from typing import Any

from game_server.config import TableConfig
from game_server.games.api import MathReport, NotOffered
from game_server.games.caribbean.config import build_config
from game_server.games.caribbean.returns import caribbean_returns
from game_server.games.uth.rules.math import counts
from game_server.rules.returns import WagerReturn

__all__ = ["math_report"]

_WAGERS = {"caribbean_progressive": "progressive", "caribbean_five_card": "five_card_player"}


def _examples() -> list[TableConfig]:
    from game_server.games.caribbean.game import GAME

    out = []
    for path in GAME.examples:
        with path.open("rb") as handle:
            out.append(build_config(tomllib.load(handle), str(path.name)))
    return out


def _lines(ret: WagerReturn, source: str) -> list[str]:
    out = [
        f"{ret.title} ({ret.section}), {ret.paytable}, from {source}",
        f"counted: {ret.counted} ({sum(counts(5).values()):,} hands), at a {ret.stake / 100:.2f} "
        "wager",
        f"{'line':<44} {'chance':>12} {'pays':>16} {'return':>10}",
    ]
    for line in ret.lines:
        out.append(
            f"{line.line:<44} {line.probability or 0:>12.8f} {line.pays:>16} "
            f"{line.returns or 0:>10.6f}"
        )
    out.append(f"return with the meters at their reset amounts: {100 * ret.at_reset:.3f}%")
    for meter in ret.meters:
        out.append(f"  {meter.spec.name} meter: long run adds {100 * meter.long_run:.3f}%")
    out.append(
        f"return in the long run: {100 * ret.long_run:.3f}% (house edge "
        f"{100 * (1 - ret.long_run):.3f}%)"
    )
    out += [f"note: {note}" for note in ret.notes]
    return out


def math_report(
    name: str, paytable: str | None, decks: int | None, every: bool
) -> MathReport | None:
    """The report of ``name`` (None: not one of Caribbean Stud Poker's)."""
    wager = _WAGERS.get(name.lower().replace("-", "_"))
    if wager is None:
        if name.lower().startswith("caribbean"):
            raise NotOffered(f"no wager {name!r}; Caribbean Stud Poker has: {', '.join(_WAGERS)}")
        return None
    if decks not in (None, 1):
        raise NotOffered("Caribbean Stud Poker is dealt from one 52-card deck (--decks 1)")
    found: list[tuple[WagerReturn, str]] = []
    for table in _examples():
        for ret in caribbean_returns(table.rules, table.must_hit_by):
            if ret.wager == wager and (every or paytable in (None, ret.paytable)):
                found.append((ret, table.source))
    if not found:
        names = sorted({r.paytable for t in _examples() for r in caribbean_returns(t.rules)})
        raise NotOffered(f"no paytable {paytable!r}; the example Rules Submissions have {names}")
    lines: list[str] = []
    data: list[dict[str, Any]] = []
    for i, (ret, source) in enumerate(found):
        lines += ([""] if i else []) + _lines(ret, source)
        data.append(
            {
                "wager": ret.wager,
                "paytable": ret.paytable,
                "source": source,
                "at_reset": ret.at_reset,
                "long_run": ret.long_run,
                "lines": [
                    {"line": x.line, "chance": x.probability, "pays": x.pays, "return": x.returns}
                    for x in ret.lines
                ],
            }
        )
    return MathReport(lines, data if every or len(data) > 1 else data[0])
