"""Table limits for one wager: minimum, maximum and the wager unit.

Wagers are whole multiples of the table's wager unit (default $1), so that a 3 to 2 payout is
always exact in cents (docs/design.md "Money").
"""

from __future__ import annotations

from dataclasses import dataclass

from game_server.rules.errors import BetOutOfLimits
from shared.money import format_money


@dataclass(frozen=True, slots=True)
class WagerLimits:
    """Minimum, maximum and unit of one wager, in cents."""

    minimum: int
    maximum: int
    unit: int = 100

    def __post_init__(self) -> None:
        if self.unit <= 0:
            raise ValueError(f"wager unit must be positive, got {self.unit}")
        if not 0 < self.minimum <= self.maximum:
            raise ValueError(
                f"limits {format_money(self.minimum)}-{format_money(self.maximum)} are not a "
                "positive range"
            )

    def verify(self, wager: str, amount: int) -> None:
        """Raise :class:`BetOutOfLimits` unless ``amount`` is a legal ``wager``."""
        if type(amount) is not int:
            raise BetOutOfLimits(f"{wager} wager {amount!r} is not a whole number of cents")
        if amount < self.minimum:
            raise BetOutOfLimits(
                f"{wager} wager {format_money(amount)} is below the table minimum "
                f"{format_money(self.minimum)}"
            )
        if amount > self.maximum:
            raise BetOutOfLimits(
                f"{wager} wager {format_money(amount)} is above the table maximum "
                f"{format_money(self.maximum)}"
            )
        if amount % self.unit:
            raise BetOutOfLimits(
                f"{wager} wager {format_money(amount)} is not a multiple of the wager unit "
                f"{format_money(self.unit)}"
            )

    def allows(self, amount: int) -> bool:
        return self.minimum <= amount <= self.maximum and amount % self.unit == 0
