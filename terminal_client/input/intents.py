"""What the player meant, free of pygame: the screens consume these and nothing else.

Intents are frozen values with no game logic: a :class:`Tap` names the touch target that was
pressed and released, a :class:`Key` names a demo keyboard shortcut, :class:`Quit` asks the
terminal to close, and :class:`Resize` reports a new window size so the layout can be rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Tap:
    """One completed press (down and up on the same target) of the target ``target_id``."""

    target_id: str


@dataclass(frozen=True, slots=True)
class Key:
    """A keyboard shortcut, by action name: "hit", "stand", "double", "split", "surrender",
    "back" or "confirm"."""

    name: str


@dataclass(frozen=True, slots=True)
class Quit:
    """The window was closed."""


@dataclass(frozen=True, slots=True)
class Resize:
    """The window now measures ``size`` pixels (width, height)."""

    size: tuple[int, int]


Intent = Tap | Key | Quit | Resize
