"""Errors of the rules engine.

Every refusal is a specific subclass of :class:`RulesError` with a sentence for a human that
says what was wrong, and, where a regulation is the reason, the section. Nothing in
``rules/`` catches and hides an error.
"""

from collections.abc import Sequence
from typing import Any

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


def check_replayed_step(logged: Sequence[Any], start: int, produced: Sequence[Any]) -> int:
    """Compare a step the engine produced on replay with the logged events from ``start``;
    return the number of events it covers. Every engine's ``replay`` uses it.

    Raises:
        ReplayMismatch: naming the first event that differs, or the step's length.
    """
    expected = list(logged[start : start + len(produced)])
    if list(produced) != expected:
        for k, (want, got) in enumerate(zip(expected, produced, strict=False)):
            if want != got:
                raise ReplayMismatch(
                    f"event {start + k} differs on replay: logged {want!r}, replay gives {got!r}"
                )
        raise ReplayMismatch(
            f"the step at event {start} produced {len(produced)} events on replay but the log "
            f"has {len(expected)}"
        )
    return len(produced)
