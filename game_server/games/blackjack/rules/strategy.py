"""Blackjack basic strategy for a configured table, as precomputed lookup tables.

Used by the bots, the simulator and the benchmark. Entry point: :class:`BasicStrategy`, built
once per :class:`~game_server.games.blackjack.rules.rules.BlackjackRules`; its fast path is
:meth:`BasicStrategy.decide`, which is three tuple indexes and no branching on the chart.

The chart is the one the combinatorial analysis derives for the table's rules
(:mod:`.analysis`, :mod:`.charts`): per hard or soft total and dealer up card an order of
preference among surrender, double, hit and stand, and per pair among those and split, the
first that is allowed being played. It is the basic strategy of these rules, not a
transcription; the published 4-8 deck charts (:mod:`.published`) are kept to compare it with
(``etg strategy`` lists every difference and why). A one- or two-deck table gets its own chart.

Whether a double, split or surrender is legal *now* (second card of a split hand, split
limit, surrender only on the first two cards) is the engine's to say; :meth:`decide` takes
it as flags and never returns an action the flags forbid: a flag only decides whether its own
action may be chosen (the simulator asks the engine lazily on that ground). A pair that may
not be split plays its own next preference. A total of 21, soft or hard, always stands.
Insurance and even money are never taken (:meth:`BasicStrategy.take_insurance`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.analysis import Chart
from game_server.games.blackjack.rules.charts import blackjack_model, chart_for
from game_server.games.blackjack.rules.rules import BlackjackRules, DoubleOn
from game_server.rules.twenty_one import hand_total
from shared.cards import BJ_VALUE

__all__ = ["BasicStrategy", "resolve"]

#: The flag index used by every table cell: ``can_double + 2*can_split + 4*can_surrender``.
_FLAG_SETS: Final = tuple((bool(i & 1), bool(i & 2), bool(i & 4)) for i in range(8))

#: One chart cell resolved for each of the 8 flag combinations.
_Cell = tuple[Action, ...]
#: Rows indexed by dealer up value 0..10 (0 unused, 1 = ace).
_Row = tuple[_Cell, ...]

_LETTERS: Final = {
    "R": Action.SURRENDER,
    "P": Action.SPLIT,
    "D": Action.DOUBLE,
    "H": Action.HIT,
    "S": Action.STAND,
}


def resolve(order: str, can_double: bool, can_split: bool, can_surrender: bool) -> Action:
    """The first action of a chart cell's ``order`` that the flags allow (hit and stand
    always are; an order always ends with one of them)."""
    for letter in order:
        if letter == "D" and not can_double:
            continue
        if letter == "P" and not can_split:
            continue
        if letter == "R" and not can_surrender:
            continue
        return _LETTERS[letter]
    return Action.STAND


def _double_allowed(double_on: DoubleOn, total: int, soft: bool) -> bool:
    """Whether the rules let a two-card ``total`` be doubled at all (633a.10)."""
    if double_on is DoubleOn.ANY:
        return True
    low = 9 if double_on is DoubleOn.NINE_TO_ELEVEN else 10
    return not soft and low <= total <= 11


class BasicStrategy:
    """Basic strategy for one table's rules, decided by table lookup.

    Args:
        rules: The table's rules; the tables are built once, here.
        chart: The chart to play; the analysis' chart of ``rules`` (the fully automated
            table's) if None. A hybrid table passes its own (its rules differ, 633b.5).

    Example:
        >>> from game_server.games.blackjack.rules.rules import BlackjackRules, DoubleOn
        >>> strategy = BasicStrategy(BlackjackRules())
        >>> strategy.decide(16, False, 0, 10, True, False, False)
        <Action.HIT: 'hit'>
    """

    __slots__ = ("_chart", "_hard", "_pairs", "_rules", "_soft")

    def __init__(self, rules: BlackjackRules, chart: Chart | None = None) -> None:
        self._rules = rules
        self._chart = chart_for(blackjack_model(rules)) if chart is None else chart
        surrender_ok = rules.late_surrender
        chart = self._chart

        def row(total: int, soft: bool) -> _Row:
            double_ok = _double_allowed(rules.double_on, total, soft)
            cells: list[_Cell] = [()]  # dealer up value 0 does not exist
            for up in range(1, 11):
                order = chart.order(total, soft, 2, up) if total < 21 else "S"
                cells.append(
                    tuple(
                        resolve(order, d and double_ok, False, s and surrender_ok)
                        for d, _p, s in _FLAG_SETS
                    )
                )
            return tuple(cells)

        # Rows for every total 0..21 so that any reachable total is one index away.
        self._hard: tuple[_Row, ...] = tuple(row(total, False) for total in range(22))
        self._soft: tuple[_Row, ...] = tuple(row(total, True) for total in range(22))
        pair_rows: list[_Row] = [self._hard[0]]  # index 0: not a pair, never used
        for value in range(1, 11):
            double_ok = _double_allowed(
                rules.double_on, 12 if value == 1 else 2 * value, value == 1
            )
            cells: list[_Cell] = [()]
            for up in range(1, 11):
                order = chart.pair_order(value, up)
                cells.append(
                    tuple(
                        resolve(order, d and double_ok, p, s and surrender_ok)
                        for d, p, s in _FLAG_SETS
                    )
                )
            pair_rows.append(tuple(cells))
        self._pairs: tuple[_Row, ...] = tuple(pair_rows)

    @property
    def rules(self) -> BlackjackRules:
        """The rules the tables were built for."""
        return self._rules

    @property
    def chart(self) -> Chart:
        """The chart played."""
        return self._chart

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
