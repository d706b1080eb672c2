"""Caribbean Stud Poker's published simple strategy (the Wizard of Odds, "Caribbean Stud
Poker"), on the cards' ranks: make the Bet Wager with a pair or better; fold below ace-king;
with ace-king, bet if the dealer's up card (2 to queen) matches one of the player's ranks, or
is an ace or a king and the player holds a queen or a jack, or the player holds a queen and
the up card matches none of his ranks and is below his fourth highest card; else fold.

The server's strategy (``game_server.games.caribbean.rules.strategy``) is this with the
ace-king exceptions exact enumeration finds; the terminal's demo bot plays it as it is.

Entry points: :func:`simple_bet`, :func:`simple_bets`.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.cards import ACE, JACK, KING, QUEEN

__all__ = ["simple_bet", "simple_bets"]


def simple_bet(pair_or_better: bool, ranks: Sequence[int], up: int) -> bool:
    """Whether to make the Bet Wager: ``ranks`` the player's five (highest first), ``up``
    the dealer's up card's rank."""
    if pair_or_better:
        return True
    if ranks[0] != ACE or ranks[1] != KING:
        return False
    return simple_bets(ranks, up)


def simple_bets(ranks: Sequence[int], up: int) -> bool:
    """The rule for an ace-king hand of ``ranks`` (highest first) against an up card of rank
    ``up``: whether to make the Bet Wager."""
    if up <= QUEEN and up in ranks:
        return True
    if up >= KING:
        return QUEEN in ranks or JACK in ranks
    return QUEEN in ranks and up not in ranks and up < ranks[3]
