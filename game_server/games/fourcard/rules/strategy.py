"""The Four Card Poker strategy of the par sheet, the simulator and the bots: the decision
that is optimal for what the player sees of ranks and one fact of suits, derived by exact
enumeration (:mod:`.analysis`; 641a.6(b) rankings, the procedure of :mod:`.game`).

- Every hand above a pair (two pair, a straight, a flush, three of a kind and better): Play
  3 times the Ante.
- A pair or high cards: the decision of its cell (:data:`.optimal_table.TABLE`), by the
  player's five ranks, the dealer's face-up card's rank and how many of the player's cards
  share its suit: fold, Play 1x or Play 3x, whichever has the highest total over every deal
  the cell covers (2x is never better than both).

It reads the dealer's face-up card, which the player sees (the first of the dealer's six
cards, :meth:`.game.FourCardRound.deal`). Its house edge, exact: 2.78805% of the Ante with the
25-20-2 Ante Bonus, against 2.78785% for the fully optimal strategy (which also reads the
exact suits of the player's cards) and the Wizard of Odds' published 2.79% (optimal, the same
pays); the simple strategy it replaces (3x on a pair of 10s or better, 1x on 3s to 9s, never
reading the up card: :func:`.analysis.simple_decision`) gives 3.39711%.
:data:`.optimal_table` holds the exact fractions; ``etg strategy`` states them for a Rules
Submission's Ante Bonus.

Entry points: :func:`decide_cards`, :func:`decide`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from game_server.games.fourcard.rules import optimal_table
from game_server.games.fourcard.rules.analysis import (
    ABOVE_PAIR,
    FOLD,
    cell_index,
    decode_table,
    hand_value,
    table_key,
)
from game_server.games.fourcard.rules.game import Action, FourCardRound
from shared.cards import Card

__all__ = ["decide", "decide_cards", "table"]


@cache
def table() -> bytes:
    """The decisions of the cells, decoded once."""
    return decode_table(optimal_table.TABLE)


def decide_cards(cards: Sequence[Card], up: Card) -> tuple[Action, int]:
    """The decision for a seat's five ``cards`` against the dealer's face-up card ``up``:
    (fold, 0) or (play, multiple)."""
    if hand_value(cards) >= ABOVE_PAIR:
        return Action.PLAY, 3
    decision = table()[cell_index(*table_key(cards, up))]
    return (Action.FOLD, 0) if decision == FOLD else (Action.PLAY, decision)


def decide(game: FourCardRound, seat: int) -> tuple[Action, int]:
    """The decision of ``seat`` in ``game`` (its five cards and the dealer's six dealt)."""
    return decide_cards(game.seats[seat].cards, game.dealer[0])
