"""The published near-optimal Caribbean Stud Poker strategy, for bots and simulation.

Secondary source: the Wizard of Odds, "Caribbean Stud Poker", its simple strategy (within a
few thousandths of a percent of the optimal strategy, whose house edge is 5.22% of the Ante
with the standard Bet Wager paytable):

1. make the Bet Wager with a pair or better;
2. fold with less than ace-king;
3. with ace-king (no pair), make the Bet Wager if any of these is true, else fold:

   a. the dealer's up card is a 2 to a queen and matches the rank of one of the player's cards;
   b. the dealer's up card is an ace or a king and the player holds a queen or a jack;
   c. the dealer's up card matches none of the player's cards and is lower than the player's
      fourth highest card.

Entry point: :func:`decide`.
"""

from __future__ import annotations

from collections.abc import Sequence

from game_server.games.caribbean.rules.game import Action, qualifies
from game_server.rules.poker import Category5, rank_hand
from shared.cards import JACK, KING, QUEEN, Card

__all__ = ["decide"]


def decide(cards: Sequence[Card], up_card: Card) -> Action:
    """Bet or fold with the player's five ``cards`` against the dealer's ``up_card``."""
    value = rank_hand(cards)
    if value.category >= Category5.PAIR:
        return Action.BET
    if not qualifies(value):  # less than ace-king
        return Action.FOLD
    ranks = sorted((c.rank for c in cards), reverse=True)
    up = up_card.rank
    if up <= QUEEN and up in ranks:
        return Action.BET
    if up >= KING and (QUEEN in ranks or JACK in ranks):
        return Action.BET
    if up not in ranks and up < ranks[3]:
        return Action.BET
    return Action.FOLD
