"""The decisions a player can make on a Blackjack hand."""

from enum import StrEnum


class Action(StrEnum):
    """A player's decision on the hand to act (633a.9-633a.11, 633b.5(p)(2), 633b.11(f))."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    PRESS = "press"
    """Cap the initial Blackjack wager with TriLux Deluxe winnings (58 Pa. Code 633b.11(f))."""
