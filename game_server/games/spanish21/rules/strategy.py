"""Spanish 21 basic strategy: what the bots and the simulator play.

Source of the chart: the published basic strategy for Spanish 21 with six to eight decks, the
dealer hitting soft 17, doubling on any number of cards, the double-down rescue, late
surrender and resplitting aces (Michael Shackleford, the Wizard of Odds, as reproduced on
public strategy pages; a secondary source). It depends on the hand's total and, where the
chart says so, on its number of cards, with its notation kept below:

- ``H`` hit, ``S`` stand, ``D`` double (otherwise hit), ``P`` split, ``-`` do not split;
- ``S4`` stand unless the hand has 4 or more cards, then hit (``S5``, ``S6`` likewise);
- ``D3`` double a two-card hand, otherwise hit; ``Ds3`` double a two-card hand, otherwise stand;
- ``Rh`` / ``Rs`` surrender if allowed, otherwise hit / stand; ``Rp`` surrender if allowed,
  otherwise split.

The same chart is played when the dealer stands on soft 17 (the published S17 chart differs
in a few cells): the simulated house edge of such a table is then a little above the optimal
player's. The chart's refinements for a possible 6-7-8 or 7-7-7 bonus are not played.

After a double down the hand stands or is rescued (635a.10). The rescue keeps half of what was
staked (the double down wager) and standing is worth ``2 x (P(win) - P(loss))`` of the
original wager, so the rescue is better when ``P(win) - P(loss) < -1/2``: derived here from the
dealer's chances of busting (about 16-25% against an 8, 9, face card or ace, 34-43% against a
2-6), it rescues a total of 16 or less against an 8, 9, ten-value card or ace and a 17
against an ace (not a published table). Insurance is never taken.

Entry point: :class:`Spanish21Strategy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from game_server.games.spanish21.rules.round import Spanish21Action
from shared.cards import BJ_VALUE, Card

__all__ = ["Spanish21Strategy"]

#: Dealer up cards in chart column order: 2..10, then the ace (BJ value 1).
_COLUMNS: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)

# Each row: the play against dealer 2, 3, 4, 5, 6, 7, 8, 9, 10, A.
_HARD: Final = {
    9: "H  H  H  H  D3 H  H  H  H  H",
    10: "D  D  D  D  D  D  H  H  H  H",
    11: "D  D  D  D  D  D  D  H  H  H",
    12: "H  H  H  H  H  H  H  H  H  H",
    13: "H  H  H  S5 S5 H  H  H  H  H",
    14: "H  H  S4 S5 S5 H  H  H  H  H",
    15: "S4 S5 S5 S6 S6 H  H  H  H  H",
    16: "S5 S6 S6 S  S  H  H  H  H  Rh",
    17: "S  S  S  S  S  S  S6 S6 S6 Rs",
}
_SOFT: Final = {
    13: "H  H  H  H  H  H  H  H  H  H",
    14: "H  H  H  H  H  H  H  H  H  H",
    15: "H  H  H  H  H  H  H  H  H  H",
    16: "H  H  H  H  D3 H  H  H  H  H",
    17: "H  H  D3 D3 D3 H  H  H  H  H",
    18: "S  S  Ds3 Ds3 Ds3 S  S  H  H  H",
}
#: By the pair's card value (1: aces).
_PAIRS: Final = {
    1: "P  P  P  P  P  P  P  P  P  P",
    2: "P  P  P  P  P  P  -  -  -  -",
    3: "P  P  P  P  P  P  -  -  -  -",
    4: "-  -  -  -  -  -  -  -  -  -",
    5: "-  -  -  -  -  -  -  -  -  -",
    6: "-  -  P  P  P  -  -  -  -  -",
    7: "P  P  P  P  P  P  -  -  -  -",
    8: "P  P  P  P  P  P  P  P  P  Rp",
    9: "-  P  P  P  P  -  P  P  -  -",
    10: "-  -  -  -  -  -  -  -  -  -",
}
#: Rescue a doubled hand of at most this total against these up cards (module docstring).
_RESCUE_UP: Final = frozenset({8, 9, 10, 1})


def _cells(row: str) -> dict[int, str]:
    return dict(zip(_COLUMNS, row.split(), strict=True))


_HARD_CELLS: Final = {total: _cells(row) for total, row in _HARD.items()}
_SOFT_CELLS: Final = {total: _cells(row) for total, row in _SOFT.items()}
_PAIR_CELLS: Final = {value: _cells(row) for value, row in _PAIRS.items()}


class Spanish21Strategy:
    """The chart above as decisions: :meth:`decide` for a hand to act."""

    def decide(
        self,
        cards: Sequence[Card],
        total: int,
        soft: bool,
        up: Card,
        *,
        doubled: bool,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
    ) -> Spanish21Action:
        """The play for a hand of ``cards`` (best ``total``, ``soft`` or not) against the
        dealer's ``up`` card; the flags say what the engine allows now."""
        column = BJ_VALUE[up]
        if doubled:
            rescue = (total <= 16 and column in _RESCUE_UP) or (total == 17 and column == 1)
            return Spanish21Action.RESCUE if rescue else Spanish21Action.STAND
        if total >= 21:
            return Spanish21Action.STAND
        if len(cards) == 2 and can_split and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]]:
            cell = _PAIR_CELLS[BJ_VALUE[cards[0]]][column]
            if cell == "P":
                return Spanish21Action.SPLIT
            if cell == "Rp":
                return Spanish21Action.SURRENDER if can_surrender else Spanish21Action.SPLIT
        if soft:
            cell = "S" if total >= 19 else _SOFT_CELLS[total][column] if total >= 13 else "H"
        else:
            cell = "H" if total <= 8 else "S" if total >= 18 else _HARD_CELLS[total][column]
        return _resolve(cell, len(cards), can_double, can_surrender)

    def take_insurance(self) -> bool:
        """Basic strategy never takes insurance."""
        return False


def _resolve(cell: str, cards: int, can_double: bool, can_surrender: bool) -> Spanish21Action:
    """One chart cell's play for a hand of ``cards`` cards."""
    kind, limit = cell.rstrip("0123456789"), cell[len(cell.rstrip("0123456789")) :]
    if limit and cards >= int(limit):
        return Spanish21Action.STAND if kind == "Ds" else Spanish21Action.HIT
    if kind in ("D", "Ds"):
        if can_double:
            return Spanish21Action.DOUBLE
        return Spanish21Action.STAND if kind == "Ds" else Spanish21Action.HIT
    if kind in ("Rh", "Rs"):
        if can_surrender:
            return Spanish21Action.SURRENDER
        return Spanish21Action.HIT if kind == "Rh" else Spanish21Action.STAND
    return Spanish21Action.STAND if kind == "S" else Spanish21Action.HIT
