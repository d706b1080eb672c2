"""The Caribbean Stud Poker strategy of the par sheet, the simulator and the bots: the
published simple strategy, corrected by exact enumeration where it is not optimal.

The published simple strategy (secondary source: the Wizard of Odds, "Caribbean Stud Poker";
the same in the Casino Answer Man's "Splitting hairs in Caribbean Stud strategy", 2013):

1. make the Bet Wager with a pair or better;
2. fold with less than ace-king;
3. with ace-king (no pair), make the Bet Wager if any of these is true, else fold:

   a. the dealer's up card is a 2 to a queen and matches the rank of one of the player's cards;
   b. the dealer's up card is an ace or a king and the player holds a queen or a jack;
   c. the player holds a queen, and the dealer's up card matches none of the player's cards
      and is lower than the player's fourth highest card.

:data:`.optimal_table.EXCEPTIONS` holds the ace-king cells (the player's five ranks, the up
card's rank, how many of the player's cards share its suit) where the exact enumeration of
:mod:`.analysis` finds the other decision better over every deal of the cell (109 cells: 81
fold where the simple strategy bets, 28 bet where it folds). With them the strategy's house
edge is 5.224306% of the Ante, 0.0000003% from the fully optimal strategy (which also reads
the exact suits of the player's cards) and the Wizard of Odds' published 5.224%; the simple
strategy alone gives 5.224531%. (Rule c without "the player holds a queen", as this module
had it before, gives 5.318282%: it bet thousands of ace-king hands the published strategy
folds.)

The simple strategy's rule for ace-king is written once for the server and the terminal's
demo bot (:func:`shared.games.caribbean.strategy.simple_bets`).

Entry points: :func:`decide`, :func:`shared.games.caribbean.strategy.simple_bets`.
"""

from __future__ import annotations

from collections.abc import Sequence

from game_server.games.caribbean.rules import optimal_table
from game_server.games.caribbean.rules.analysis import cell_key
from game_server.games.caribbean.rules.game import Action, qualifies
from game_server.rules.poker import Category5, rank_hand
from shared.cards import Card
from shared.games.caribbean.strategy import simple_bets

__all__ = ["decide", "simple_bets"]


def decide(cards: Sequence[Card], up_card: Card) -> Action:
    """Bet or fold with the player's five ``cards`` against the dealer's ``up_card``."""
    value = rank_hand(cards)
    if value.category >= Category5.PAIR:
        return Action.BET
    if not qualifies(value):  # less than ace-king
        return Action.FOLD
    key = cell_key(cards, up_card)
    bets = optimal_table.EXCEPTIONS.get(key)
    if bets is None:
        bets = simple_bets(key[0], key[1])
    return Action.BET if bets else Action.FOLD
