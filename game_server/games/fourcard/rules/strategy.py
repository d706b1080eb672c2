"""The demo bots' and the simulator's Four Card Poker strategy: the published simple strategy
(SECONDARY SOURCE: the "basic strategy" of the game's maker, Shuffle Master, as Elliot Frome
("Four Card Poker - Part Two", Casino City Times, 14 April 2004) and Wikipedia give it;
Frome puts its payback at about 98.41% of the amount wagered, against the Wizard of Odds'
2.79% of the Ante for the optimal strategy, which reads the dealer's face-up card):

- play 3 times the Ante with a pair of 10s or better (every two pair, straight, flush,
  three of a kind, straight flush, four of a kind);
- play 1 times the Ante with a pair of 3s to 9s (the stated threshold: a pair of 3s);
- fold everything else (a pair of 2s, no pair).

It reads only the seat's own five cards (never the dealer's face-up card). Over all
2,598,960 hands it folds 1,231,176, plays 1 times 562,836 and 3 times 804,948: an average
total wager of 2.1457 Antes, so Frome's 1.59% of the amount wagered is about 3.41% of the
Ante, inside the 95% interval of ``etg sim`` (docs/decisions.md). Pure.

Entry points: :func:`decide_cards`, :func:`decide`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from game_server.games.fourcard.rules.game import Action, FourCardRound
from game_server.games.fourcard.rules.hands import best_four
from game_server.rules.poker import Category4
from shared.cards import TEN, Card

__all__ = ["ONE_TIMES_FROM", "THREE_TIMES_FROM", "decide", "decide_cards"]

#: The lowest pair played 3 times the Ante.
THREE_TIMES_FROM: Final = TEN
#: The lowest pair played 1 times (the threshold below which the hand folds).
ONE_TIMES_FROM: Final = 3


def decide_cards(cards: Sequence[Card]) -> tuple[Action, int]:
    """The decision for a seat's five cards: (fold, 0) or (play, multiple)."""
    value = best_four(cards)
    category = Category4(value.category)
    if category > Category4.PAIR:
        return Action.PLAY, 3
    if category is Category4.PAIR:
        pair = value.ranks[0]
        if pair >= THREE_TIMES_FROM:
            return Action.PLAY, 3
        if pair >= ONE_TIMES_FROM:
            return Action.PLAY, 1
    return Action.FOLD, 0


def decide(game: FourCardRound, seat: int) -> tuple[Action, int]:
    """The decision of ``seat`` in ``game`` (its five cards dealt)."""
    return decide_cards(game.seats[seat].cards)
