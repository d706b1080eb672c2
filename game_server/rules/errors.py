"""Errors of the rules engine.

Every refusal is a specific subclass of :class:`RulesError` with a sentence for a human that
says what was wrong, and, where a regulation is the reason, the section. Nothing in
``rules/`` catches and hides an error.
"""

from shared.errors import ETGError


class RulesError(ETGError):
    """Base of every error of the rules engine."""


class IllegalAction(RulesError):
    """An action the rules do not allow at this moment (wrong phase, wrong hand, not allowed)."""


class WrongPhase(IllegalAction):
    """An action sent in a phase of the round that does not take it."""


class NotYourTurn(IllegalAction):
    """An action for a seat or hand that is not the one to act."""


class ActionNotAllowed(IllegalAction):
    """An action the configured rules forbid for this hand (e.g. double on 12 under '10-11')."""


class WagerError(RulesError):
    """A wager the table cannot accept."""


class BetOutOfLimits(WagerError):
    """A wager below the minimum, above the maximum, or not a multiple of the wager unit."""


class WagerNotOffered(WagerError):
    """A wager this table does not offer, or one whose required wager is missing."""


class SeatError(RulesError):
    """A seat number outside the table, or a seat that is not in this round."""


class ReplayMismatch(RulesError):
    """A logged round whose replay through the engine produced different events."""
