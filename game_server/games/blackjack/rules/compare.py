"""The analysis' chart against a published chart for the same rules, cell by cell: each
difference with the analysis' own expected values of both plays (its margin).

Entry points: :class:`Difference`, :func:`against_blackjack` (the Wizard of Odds 4-8 deck
charts, :mod:`.published`), :func:`against_spanish21` (the Wizard of Odds Spanish 21 H17 chart,
:mod:`game_server.games.spanish21.rules.published`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from game_server.games.blackjack.rules import published
from game_server.games.blackjack.rules.analysis import COLUMNS, MAX_CARDS, Analysis, Chart

__all__ = ["Difference", "against_blackjack", "against_spanish21"]

_NAMES: Final = {"R": "surrender", "P": "split", "D": "double", "H": "hit", "S": "stand"}


@dataclass(frozen=True, slots=True)
class Difference:
    """One cell where the analysis' play is not the published one.

    Attributes:
        cell: (``"hard"``/``"soft"``/``"pair"``, total or pair value, cards, up card).
        ours: The analysis' play (a letter of ``RPDHS``).
        published: The published play for the same rules.
        margin: The analysis' value of its play less that of the published play, per hand
            of the cell (its hands weighted as they are met); None when no hand of the cell
            is met under composition-dependent play from the first two cards.
    """

    cell: tuple[str, int, int, int]
    ours: str
    published: str
    margin: float | None

    def text(self) -> str:
        kind, total, cards, up = self.cell
        upname = "A" if up == 1 else str(up)
        what = (
            f"pair {'A' if total == 1 else 'T' if total == 10 else total}s"
            if kind == "pair"
            else f"{kind} {total}"
            + (
                ""
                if cards == 2 and kind != "pair"
                else f" with {cards}{'+' if cards == 6 else ''} cards"
            )
        )
        why = (
            "no hand of it is met under composition-dependent play"
            if self.margin is None
            else f"the analysis' value is {self.margin * 100:+.3f}% of the wager per hand better"
        )
        return (
            f"{what} against {upname}: the analysis plays {_NAMES[self.ours]}, the published "
            f"chart {_NAMES[self.published]} ({why})"
        )


def _play(order: str, *, double: bool, split: bool, surrender: bool) -> str:
    for letter in order:
        if (
            (letter == "D" and not double)
            or (letter == "P" and not split)
            or (letter == "R" and not surrender)
        ):
            continue
        return letter
    return "S"


def _margin(
    analysis: Analysis, cell: tuple[str, int, int, int], ours: str, theirs: str
) -> float | None:
    values = analysis.cell_values.get(cell)
    if values is None or ours not in values:
        return None
    if theirs == "-":
        other = max(v for a, v in values.items() if a != "P")
    elif theirs not in values:
        return None
    else:
        other = values[theirs]
    return values[ours] - other


def against_blackjack(analysis: Analysis) -> list[Difference]:
    """The differences from the published 4-8 deck chart of the model's soft-17 rule, on the
    first two cards (the published charts' cells)."""
    model, chart = analysis.model, analysis.chart
    h17 = model.hits_soft_17
    hard = published.HARD_H17 if h17 else published.HARD_S17
    soft = published.SOFT_H17 if h17 else published.SOFT_S17
    pairs = published.PAIRS_H17 if h17 else published.PAIRS_S17
    out: list[Difference] = []

    def may_double(total: int, is_soft: bool) -> bool:
        totals = model.double_totals
        return totals is None or (not is_soft and total in totals)

    for kind, rows, totals in (("hard", hard, range(5, 20)), ("soft", soft, range(13, 21))):
        for total in totals:
            codes = rows.get(total)
            for i, up in enumerate(COLUMNS):
                code = (
                    "S"
                    if codes is None and total >= 17
                    else "H"
                    if codes is None
                    else codes.split()[i]
                )
                double = may_double(total, kind == "soft")
                theirs = published.published_play(
                    code, das=model.double_after_split, surrender=model.surrender, double=double
                )
                ours = _play(
                    chart.order(total, kind == "soft", 2, up),
                    double=double,
                    split=False,
                    surrender=model.surrender,
                )
                if ours != theirs:
                    cell = (kind, total, 2, up)
                    out.append(
                        Difference(cell, ours, theirs, _margin(analysis, cell, ours, theirs))
                    )
    for value in range(1, 11):
        pair_codes = pairs[value].split()
        for i, up in enumerate(COLUMNS):
            theirs = published.published_play(
                pair_codes[i], das=model.double_after_split, surrender=model.surrender, double=True
            )
            ours = _play(
                chart.pair_order(value, up), double=True, split=True, surrender=model.surrender
            )
            split_ours = (ours in "PR" and ours == theirs) or (ours not in "PR" and theirs == "-")
            if not split_ours:
                cell = ("pair", value, 2, up)
                shown = theirs if theirs != "-" else "H" if ours == "P" else "P"
                out.append(Difference(cell, ours, shown, _margin(analysis, cell, ours, theirs)))
    return out


def against_spanish21(analysis: Analysis) -> list[Difference]:
    """The differences from the published Spanish 21 H17 chart, card count by card count."""
    from game_server.games.spanish21.rules import published as spanish

    model, chart = analysis.model, analysis.chart
    out: list[Difference] = []
    for kind, rows, totals in (
        ("hard", spanish.HARD_H17, range(5, 21)),
        ("soft", spanish.SOFT_H17, range(13, 21)),
    ):
        for total in totals:
            for i, up in enumerate(COLUMNS):
                cell_codes = rows[total][i]
                for cards in range(2, MAX_CARDS + 1):
                    if not _possible(kind, total, cards):
                        continue
                    code = cell_codes[min(cards, 6) - 2]
                    theirs = "R" if code == "R" and cards == 2 else "H" if code == "R" else code
                    ours = _play(
                        chart.order(total, kind == "soft", cards, up),
                        double=True,
                        split=False,
                        surrender=cards == 2 and model.surrender,
                    )
                    if ours != theirs:
                        cell = (kind, total, cards, up)
                        out.append(
                            Difference(cell, ours, theirs, _margin(analysis, cell, ours, theirs))
                        )
    for value in range(1, 11):
        for i, up in enumerate(COLUMNS):
            code = spanish.PAIRS_H17[value][i]
            theirs = "R" if code == "Q" else code
            ours = _play(
                chart.pair_order(value, up), double=True, split=True, surrender=model.surrender
            )
            if ours != theirs:
                cell = ("pair", value, 2, up)
                out.append(Difference(cell, ours, theirs, _margin(analysis, cell, ours, theirs)))
    return out


def _possible(kind: str, total: int, cards: int) -> bool:
    """Whether a hand of ``cards`` cards can have that total (an ace counted 1 but one)."""
    if kind == "soft":
        return 11 + (cards - 1) <= total <= 21 and (cards == 2 or total - 11 >= cards - 1)
    return 2 * cards <= total + (cards - 1) and total >= 4 and (cards <= total - 1)


__all__ += ["Chart"]
