"""Four Card Poker's published simple strategy (Shuffle Master's, as Frome and Wikipedia give
it), by the player's best four cards: play 3 times the Ante with a pair of 10s or better,
once with a pair of 3s to 9s, fold a pair of 2s or high cards; it never reads the up card.

The server's analysis measures it against the optimal strategy by the up card
(``game_server.games.fourcard.rules.analysis``); the terminal's demo bot plays it.

Entry point: :func:`simple_multiple`.
"""

from __future__ import annotations

__all__ = ["simple_multiple"]


def simple_multiple(better_than_pair: bool, pair: int | None) -> int:
    """The Play Wager's multiple (0: fold) for a best four better than one pair, or holding
    one pair of rank ``pair`` (None: high cards only)."""
    if better_than_pair:
        return 3
    if pair is None:
        return 0
    return 3 if pair >= 10 else 1 if pair >= 3 else 0
