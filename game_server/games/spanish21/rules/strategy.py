"""Spanish 21 basic strategy: what the bots and the simulator play.

The chart is the one the combinatorial analysis derives for the table's rules
(:mod:`game_server.games.blackjack.rules.analysis`, :func:`spanish21_model`): Spanish decks,
the dealer's soft-17 rule, doubling on any number of cards once a hand (635a.10), the rescue,
late surrender, splits and resplits as the Rules Submission allows, a player's 21 that always
wins with its 635a.12(b) bonus and the (c) super bonus at the table minimum (the wager
``etg sim`` and ``etg par`` place), a Blackjack that beats the dealer's. Its cells depend on
the hand's total and number of cards (2 to 7 or more), the pairs have their own, and the
rescue after a double has a cell per total and up card. The published Wizard of Odds chart
for six decks, H17 (and S17), is kept in the tests to compare it with; ``etg strategy`` lists
each difference with the analysis' values. The strategy reads no suits: a possible suited
6-7-8 or 7-7-7 is valued at its average over the suits.

Insurance is never taken. Entry points: :class:`Spanish21Strategy`, :func:`spanish21_model`,
:func:`strategy_for`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from game_server.games.blackjack.rules.analysis import MAX_CARDS, Chart, Model
from game_server.games.blackjack.rules.charts import chart_for, named, shoe_of
from game_server.games.spanish21.rules.round import Spanish21Action
from game_server.games.spanish21.rules.rules import (
    SUPER_BONUS_5_TO_25,
    SUPER_BONUS_HIGH,
    SUPER_BONUS_LOW,
    Spanish21Rules,
)
from shared.cards import BJ_VALUE, Card

__all__ = ["Spanish21Strategy", "spanish21_model", "strategy_for"]

_ACTIONS = {
    "R": Spanish21Action.SURRENDER,
    "P": Spanish21Action.SPLIT,
    "D": Spanish21Action.DOUBLE,
    "H": Spanish21Action.HIT,
    "S": Spanish21Action.STAND,
}


def spanish21_model(rules: Spanish21Rules, stake: int | None = None) -> Model:
    """``rules`` as the analysis reads them, for an original wager of ``stake`` cents (the
    table minimum if None): the 635a.12(c) super bonus is a fixed amount, so its value per
    wager depends on the wager."""
    stake = rules.main_limits.minimum if stake is None else stake
    if stake >= SUPER_BONUS_HIGH:
        units = rules.super_bonus_25_and_over / stake
    elif stake >= SUPER_BONUS_LOW:
        units = SUPER_BONUS_5_TO_25 / stake
    else:
        units = 0.0
    return named(
        Model(
            shoe=shoe_of(rules.decks, spanish=True),
            decks=rules.decks,
            hits_soft_17=rules.dealer_hits_soft_17,
            peeks=rules.dealer_peeks,
            double_after_split=rules.double_after_split,
            max_hands=rules.max_split_hands,
            resplit_aces=rules.resplit_aces,
            hit_split_aces=rules.hit_split_aces,
            surrender=rules.late_surrender,
            double_any_cards=True,
            rescue=True,
            blackjack_beats_blackjack=True,
            twenty_one_wins=True,
            bonuses=True,
            super_bonus=units,
        )
    )


def strategy_for(rules: Spanish21Rules, stake: int | None = None) -> Spanish21Strategy:
    """The strategy of ``rules`` (its chart derived once per process, or generated)."""
    return _strategy(spanish21_model(rules, stake))


@lru_cache(maxsize=32)
def _strategy(model: Model) -> Spanish21Strategy:
    return Spanish21Strategy(chart_for(model))


class Spanish21Strategy:
    """A chart as decisions: :meth:`decide` for a hand to act."""

    def __init__(self, chart: Chart) -> None:
        self.chart = chart

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
        chart = self.chart
        if doubled:
            rescue = total < 21 and chart.rescues(total, soft, column)
            return Spanish21Action.RESCUE if rescue else Spanish21Action.STAND
        if total >= 21:
            return Spanish21Action.STAND
        n = len(cards)
        if n == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]]:
            order = chart.pair_order(BJ_VALUE[cards[0]], column)
        else:
            order = chart.order(total, soft, min(n, MAX_CARDS), column)
        for letter in order:
            if letter == "D" and not can_double:
                continue
            if letter == "P" and not can_split:
                continue
            if letter == "R" and not can_surrender:
                continue
            return _ACTIONS[letter]
        return Spanish21Action.STAND

    def take_insurance(self) -> bool:
        """Basic strategy never takes insurance."""
        return False
