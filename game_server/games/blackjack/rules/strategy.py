"""Blackjack basic strategy for a configured table, as precomputed lookup tables.

Used by the bots, the simulator and the benchmark. Entry point: :class:`BasicStrategy`, built
once per :class:`~game_server.games.blackjack.rules.rules.BlackjackRules`; its fast path is
:meth:`BasicStrategy.decide`, which is three tuple indexes and no branching on the chart.

Source of the charts: the widely published Wizard of Odds (Michael Shackleford) total-dependent
basic strategy for 4 to 8 decks, "dealer stands on soft 17" and "dealer hits soft 17" charts,
with their notation kept in the chart text below:

- ``H`` hit, ``S`` stand;
- ``Dh`` double if allowed, otherwise hit; ``Ds`` double if allowed, otherwise stand;
- ``Rh`` / ``Rs`` surrender if allowed, otherwise hit / stand;
- ``P`` split; ``Ph`` split if doubling after a split is allowed, otherwise play the total;
  ``Rp`` surrender if allowed, otherwise split; ``-`` do not split, play the total.

The same multi-deck charts are used for 1- and 2-deck tables. The published single-deck and
double-deck charts differ in a handful of cells (for example hard 9 against a 2, hard 8
against 5 and 6, soft 18 against an ace and 7,7 against a 10 in one deck), and their H17,
surrender and no-DAS variants were not transcribed here with enough confidence to ship; on a
1- or 2-deck table this strategy is therefore slightly below optimal (still never illegal),
and a simulated house edge for such a table is a little higher than the optimal player's.

Rule adjustments made when the tables are built:

- S17 or H17 selects the chart (``dealer_hits_soft_17``);
- ``Ph`` cells split only with double after split (``double_after_split``; 633a.11(c));
- ``Rh``/``Rs``/``Rp`` cells surrender only with ``late_surrender`` (633a.9), otherwise
  they take their fallback;
- ``Dh``/``Ds`` cells double only where ``double_on`` allows the total (633a.10): under
  ``"9-11"`` or ``"10-11"`` only hard 9-11 or hard 10-11, never a soft total; elsewhere they
  take their fallback (``Dh`` hits, ``Ds`` stands).

Whether a double, split or surrender is legal *now* (second card of a split hand, split
limit, surrender only on the first two cards) is the engine's to say; :meth:`decide` takes
it as flags and never returns an action the flags forbid. A pair that may not be split is
played by its total (two aces as soft 12, which is always hit). A total of 21, soft or hard,
always stands. Insurance and even money are never taken (:meth:`BasicStrategy.take_insurance`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.rules import BlackjackRules, DoubleOn
from game_server.rules.twenty_one import hand_total
from shared.cards import BJ_VALUE

__all__ = ["BasicStrategy"]

#: Dealer upcards in chart column order: 2..10, then the ace (BJ value 1).
_COLUMNS: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)

# Each chart row lists the play against dealer 2, 3, 4, 5, 6, 7, 8, 9, 10, A.
# Hard totals 4-8 are all "H"; the rows start at 9. 17 and up always stand.
_HARD_S17: Final = {
    9: "H  Dh Dh Dh Dh H  H  H  H  H",
    10: "Dh Dh Dh Dh Dh Dh Dh Dh H  H",
    11: "Dh Dh Dh Dh Dh Dh Dh Dh Dh H",
    12: "H  H  S  S  S  H  H  H  H  H",
    13: "S  S  S  S  S  H  H  H  H  H",
    14: "S  S  S  S  S  H  H  H  H  H",
    15: "S  S  S  S  S  H  H  H  Rh H",
    16: "S  S  S  S  S  H  H  Rh Rh Rh",
    17: "S  S  S  S  S  S  S  S  S  S",
}
_HARD_H17: Final = _HARD_S17 | {
    11: "Dh Dh Dh Dh Dh Dh Dh Dh Dh Dh",
    15: "S  S  S  S  S  H  H  H  Rh Rh",
    17: "S  S  S  S  S  S  S  S  S  Rs",
}

# Soft totals: 12 is A,A that may not be split; 13 is A,2 ... 20 is A,9; 21 always stands.
_SOFT_S17: Final = {
    12: "H  H  H  H  H  H  H  H  H  H",
    13: "H  H  H  Dh Dh H  H  H  H  H",
    14: "H  H  H  Dh Dh H  H  H  H  H",
    15: "H  H  Dh Dh Dh H  H  H  H  H",
    16: "H  H  Dh Dh Dh H  H  H  H  H",
    17: "H  Dh Dh Dh Dh H  H  H  H  H",
    18: "S  Ds Ds Ds Ds S  S  H  H  H",
    19: "S  S  S  S  S  S  S  S  S  S",
    20: "S  S  S  S  S  S  S  S  S  S",
}
_SOFT_H17: Final = _SOFT_S17 | {
    18: "Ds Ds Ds Ds Ds S  S  H  H  H",
    19: "S  S  S  S  Ds S  S  S  S  S",
}

# Pairs, keyed by the BJ value of one card (1 = aces). Only whether to split; "-" plays the
# total (5,5 as hard 10, T,T as hard 20, 9,9 against 7 as hard 18, ...).
_PAIRS_S17: Final = {
    1: "P  P  P  P  P  P  P  P  P  P",
    2: "Ph Ph P  P  P  P  -  -  -  -",
    3: "Ph Ph P  P  P  P  -  -  -  -",
    4: "-  -  -  Ph Ph -  -  -  -  -",
    5: "-  -  -  -  -  -  -  -  -  -",
    6: "Ph P  P  P  P  -  -  -  -  -",
    7: "P  P  P  P  P  P  -  -  -  -",
    8: "P  P  P  P  P  P  P  P  P  P",
    9: "P  P  P  P  P  -  P  P  -  -",
    10: "-  -  -  -  -  -  -  -  -  -",
}
_PAIRS_H17: Final = _PAIRS_S17 | {
    8: "P  P  P  P  P  P  P  P  P  Rp",
}

#: The flag index used by every table cell: ``can_double + 2*can_split + 4*can_surrender``.
_FLAG_SETS: Final = tuple((bool(i & 1), bool(i & 2), bool(i & 4)) for i in range(8))

#: One chart cell resolved for each of the 8 flag combinations.
_Cell = tuple[Action, ...]
#: Rows indexed by dealer up value 0..10 (0 unused, 1 = ace).
_Row = tuple[_Cell, ...]


def _parse(chart: dict[int, str]) -> dict[int, dict[int, str]]:
    """Chart text to ``{row: {dealer_up_value: code}}``."""
    parsed: dict[int, dict[int, str]] = {}
    for row, text in chart.items():
        codes = text.split()
        if len(codes) != len(_COLUMNS):
            raise ValueError(f"chart row {row} has {len(codes)} cells, expected 10")
        parsed[row] = dict(zip(_COLUMNS, codes, strict=True))
    return parsed


class BasicStrategy:
    """Basic strategy for one table's rules, decided by table lookup.

    Args:
        rules: The table's rules; the tables are built once, here.

    Example:
        >>> from game_server.games.blackjack.rules.rules import BlackjackRules
        >>> strategy = BasicStrategy(BlackjackRules())
        >>> strategy.decide(16, False, 0, 10, True, False, False)
        <Action.HIT: 'hit'>
    """

    __slots__ = ("_hard", "_pairs", "_rules", "_soft")

    def __init__(self, rules: BlackjackRules) -> None:
        self._rules = rules
        h17 = rules.dealer_hits_soft_17
        hard = _parse(_HARD_H17 if h17 else _HARD_S17)
        soft = _parse(_SOFT_H17 if h17 else _SOFT_S17)
        pairs = _parse(_PAIRS_H17 if h17 else _PAIRS_S17)

        # Rows for every total 0..21 so that any reachable total is one index away; totals
        # without a chart row hit below 17 and stand from 17, and 21 always stands.
        self._hard: tuple[_Row, ...] = tuple(
            self._total_row(hard.get(total), total, soft=False) for total in range(22)
        )
        self._soft: tuple[_Row, ...] = tuple(
            self._total_row(soft.get(total), total, soft=True) for total in range(22)
        )

        pair_rows: list[_Row] = [self._hard[0]]  # index 0: not a pair, never used
        for value in range(1, 11):
            by_total = self._soft[12] if value == 1 else self._hard[2 * value]
            pair_rows.append(self._pair_row(pairs[value], by_total))
        self._pairs: tuple[_Row, ...] = tuple(pair_rows)

    @property
    def rules(self) -> BlackjackRules:
        """The rules the tables were built for."""
        return self._rules

    def decide(
        self,
        total: int,
        soft: bool,
        pair_value: int,
        dealer_up_value: int,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
    ) -> Action:
        """The basic-strategy play for a hand; the simulator's and the bots' hot path.

        Args:
            total: The hand's best total, 2..21 (as :func:`~.hand.hand_total` gives it).
            soft: Whether ``total`` counts an ace as 11.
            pair_value: 0 unless the hand is two cards of the same value that the player
                could split (633a.11(a)); then that value, 1 for aces, 10 for ten-values.
            dealer_up_value: The dealer's upcard as a BJ value, 1 (ace) to 10.
            can_double: Whether doubling is legal for this hand now (633a.10).
            can_split: Whether splitting is legal for this hand now (633a.11).
            can_surrender: Whether surrender is legal for this hand now (633a.9).

        Returns:
            The action; never one the three flags forbid, never HIT on 21.
        """
        flags = can_double + 2 * can_split + 4 * can_surrender
        if pair_value:
            return self._pairs[pair_value][dealer_up_value][flags]
        if soft:
            return self._soft[total][dealer_up_value][flags]
        return self._hard[total][dealer_up_value][flags]

    def decide_cards(
        self,
        cards: Sequence[int],
        dealer_up: int,
        *,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
    ) -> Action:
        """The basic-strategy play for a hand given as card codes (convenience, slower).

        Args:
            cards: The hand's card codes (or :class:`~shared.cards.Card` objects).
            dealer_up: The dealer's upcard code.
            can_double: Whether doubling is legal for this hand now.
            can_split: Whether splitting is legal for this hand now; the hand is treated as
                a pair only when it is two cards of the same BJ value.
            can_surrender: Whether surrender is legal for this hand now.

        Returns:
            The same action :meth:`decide` gives for the hand's total, softness and pair.
        """
        total, soft = hand_total(cards)
        pair_value = 0
        if len(cards) == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]]:
            pair_value = BJ_VALUE[cards[0]]
        return self.decide(
            total, soft, pair_value, BJ_VALUE[dealer_up], can_double, can_split, can_surrender
        )

    def take_insurance(self) -> bool:
        """Whether to take insurance (633a.8) or even money: basic strategy never does.

        Insurance pays 2 to 1 but wins less than one time in three without a count, so it
        and even money (the same bet on a Blackjack) cost the player on average.

        Returns:
            Always False.
        """
        return False

    # -- building the tables -----------------------------------------------------------

    def _double_allowed(self, total: int, soft: bool) -> bool:
        """Whether the rules let a two-card ``total`` be doubled at all (633a.10)."""
        double_on = self._rules.double_on
        if double_on is DoubleOn.ANY:
            return True
        if soft:
            return False
        low = 9 if double_on is DoubleOn.NINE_TO_ELEVEN else 10
        return low <= total <= 11

    def _total_row(self, row: dict[int, str] | None, total: int, *, soft: bool) -> _Row:
        """Resolve one hard or soft chart row for every upcard and flag combination."""
        double_ok = self._double_allowed(total, soft)
        surrender_ok = self._rules.late_surrender
        cells: list[_Cell] = [()]  # dealer up value 0 does not exist
        for up in range(1, 11):
            if total >= 21:
                code = "S"
            elif row is None:
                code = "S" if total >= 17 else "H"
            else:
                code = row[up]
            cells.append(
                tuple(
                    _resolve_total(code, can_double and double_ok, can_surrender and surrender_ok)
                    for can_double, _can_split, can_surrender in _FLAG_SETS
                )
            )
        return tuple(cells)

    def _pair_row(self, row: dict[int, str], by_total: _Row) -> _Row:
        """Resolve one pair chart row; a pair not split is played as ``by_total``."""
        das = self._rules.double_after_split
        surrender_ok = self._rules.late_surrender
        cells: list[_Cell] = [()]
        for up in range(1, 11):
            code = row[up]
            cell: list[Action] = []
            for flags, (_can_double, can_split, can_surrender) in enumerate(_FLAG_SETS):
                if code == "Rp" and can_surrender and surrender_ok:
                    cell.append(Action.SURRENDER)
                elif can_split and (code in ("P", "Rp") or (code == "Ph" and das)):
                    cell.append(Action.SPLIT)
                elif code in ("P", "Ph", "Rp", "-"):
                    cell.append(by_total[up][flags])
                else:
                    raise ValueError(f"unknown pair chart code {code!r}")
            cells.append(tuple(cell))
        return tuple(cells)


def _resolve_total(code: str, double: bool, surrender: bool) -> Action:
    """One hard or soft chart code, given whether doubling and surrender are available."""
    if code == "H":
        return Action.HIT
    if code == "S":
        return Action.STAND
    if code in ("Dh", "Ds"):
        if double:
            return Action.DOUBLE
        return Action.HIT if code == "Dh" else Action.STAND
    if code in ("Rh", "Rs"):
        if surrender:
            return Action.SURRENDER
        return Action.HIT if code == "Rh" else Action.STAND
    raise ValueError(f"unknown chart code {code!r}")
