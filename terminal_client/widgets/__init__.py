"""Touch-target value objects shared by the hit test and by drawing.

They hold geometry and what to show (label, enabled, amount); they never hold game state
and never draw themselves. Target ids: ``"button:<id>"``, ``"spot:<id>"``, ``"chip:<cents>"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pygame

Point = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Button:
    """A push button; ``hit`` is true only when it is enabled and ``pos`` is inside it."""

    id: str
    rect: tuple[int, int, int, int]
    label: str
    enabled: bool = True

    @property
    def target_id(self) -> str:
        return f"button:{self.id}"

    def hit(self, pos: Point) -> bool:
        return self.enabled and pygame.Rect(self.rect).collidepoint(pos)


@dataclass(frozen=True, slots=True)
class BetSpot:
    """A round betting circle on the felt, with the amount staked on it (cents)."""

    id: str
    center: Point
    radius: int
    label: str
    amount: int = 0
    enabled: bool = True
    #: The label's declared short name, for a circle too small for the label at the type
    #: scale's minimum ("" : none).
    short: str = ""

    @property
    def target_id(self) -> str:
        return f"spot:{self.id}"

    @property
    def rect(self) -> tuple[int, int, int, int]:
        x, y = self.center
        return (x - self.radius, y - self.radius, 2 * self.radius, 2 * self.radius)

    def hit(self, pos: Point) -> bool:
        dx, dy = pos[0] - self.center[0], pos[1] - self.center[1]
        return self.enabled and dx * dx + dy * dy <= self.radius * self.radius


@dataclass(frozen=True, slots=True)
class ChipSlot:
    """One chip of the tray: its value in cents and where it sits."""

    cents: int
    center: Point
    radius: int

    @property
    def target_id(self) -> str:
        return f"chip:{self.cents}"

    @property
    def rect(self) -> tuple[int, int, int, int]:
        x, y = self.center
        return (x - self.radius, y - self.radius, 2 * self.radius, 2 * self.radius)


@dataclass(frozen=True, slots=True)
class ChipTray:
    """A row of chip denominations spread evenly across ``rect``; ``selected`` is in cents."""

    rect: tuple[int, int, int, int]
    denominations: tuple[int, ...]
    selected: int | None = None

    def slots(self) -> tuple[ChipSlot, ...]:
        x, y, w, h = self.rect
        count = max(1, len(self.denominations))
        pitch = w / count
        radius = int(min(pitch * 0.92, h * 0.92) / 2)
        return tuple(
            ChipSlot(cents, (int(x + pitch * (i + 0.5)), y + h // 2), radius)
            for i, cents in enumerate(self.denominations)
        )

    def hit(self, pos: Point) -> int | None:
        """The denomination (cents) of the chip under ``pos``, or None."""
        for slot in self.slots():
            dx, dy = pos[0] - slot.center[0], pos[1] - slot.center[1]
            if dx * dx + dy * dy <= slot.radius * slot.radius:
                return slot.cents
        return None


def hit_test(
    pos: Point,
    buttons: Iterable[Button] = (),
    spots: Iterable[BetSpot] = (),
    tray: ChipTray | None = None,
) -> str | None:
    """The target id under ``pos`` (disabled buttons and spots are not targets), or None."""
    for button in buttons:
        if button.hit(pos):
            return button.target_id
    for spot in spots:
        if spot.hit(pos):
            return spot.target_id
    if tray is not None and (cents := tray.hit(pos)) is not None:
        return f"chip:{cents}"
    return None


__all__ = ["BetSpot", "Button", "ChipSlot", "ChipTray", "hit_test"]
