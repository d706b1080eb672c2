"""The screen stack (after Tuxemon ``tuxemon/state.py``): screens enter, update, handle
intents, draw and exit; only the top screen handles intents, every screen draws bottom-up.

A screen reads the :class:`~terminal_client.model.TerminalModel` and sends intents through the
client it was built with; :meth:`Screen.draw` never changes the screen, the model or anything
but the pixels of the surface. Entry points: :class:`Screen`, :class:`ScreenStack`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import pygame

from terminal_client.input import Intent
from terminal_client.model import TerminalModel
from terminal_client.render import Layout


class IntentSender(Protocol):
    """What a screen may ask of the network client (:class:`terminal_client.net.TerminalClient`)."""

    def place_wagers(self, wagers: Any, position: int | None = None) -> Any: ...

    def act(self, action: str, hand: int, amount: int = 0) -> Any: ...

    def answer_insurance(self, choice: str, amount: int = 0) -> Any: ...

    def cash_out(self) -> Any: ...

    def request_rules(self) -> bool: ...

    def request_recall(self) -> bool: ...


@dataclass(frozen=True)
class Handled:
    """A screen used an intent; it may ask the stack to ``push`` a screen or ``pop`` itself."""

    push: Screen | None = None
    pop: bool = False


class Screen:
    """One screen: override what it needs. ``update`` and ``handle`` return whether what the
    screen shows changed; ``draw`` only paints."""

    #: Screens that cover the whole window hide nothing below them from drawing, but an
    #: overlay (``opaque = False``) lets the screen below show through.
    opaque = True
    #: What the screen is in a round, whatever the game: ``"betting"``, ``"play"``,
    #: ``"results"`` (None for the others); the demo's screenshots are named after it.
    role: str | None = None

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        self.model = model
        self.client = client

    def enter(self) -> None:
        """The screen became part of the stack."""

    def exit(self) -> None:
        """The screen left the stack."""

    def update(self, now: float) -> bool:
        """Advance time-driven state (countdowns) to ``now``; True when what it shows changed."""
        return False

    def handle(self, intent: Intent) -> Handled | None:
        """React to an intent (only the top screen is asked); None when it was not used."""
        return None

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        """The id of this screen's enabled touch target under ``pos``, or None."""
        return None

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        """Paint the screen; never changes any state."""


class ScreenStack:
    """Screens, bottom first. Only :attr:`top` handles intents; all draw bottom-up."""

    def __init__(self) -> None:
        self._screens: list[Screen] = []

    @property
    def screens(self) -> tuple[Screen, ...]:
        return tuple(self._screens)

    @property
    def top(self) -> Screen | None:
        return self._screens[-1] if self._screens else None

    @property
    def base(self) -> Screen | None:
        return self._screens[0] if self._screens else None

    def push(self, screen: Screen) -> None:
        self._screens.append(screen)
        screen.enter()

    def pop(self) -> Screen | None:
        if not self._screens:
            return None
        screen = self._screens.pop()
        screen.exit()
        return screen

    def replace(self, screen: Screen) -> None:
        """Put ``screen`` in place of the top screen."""
        self.pop()
        self.push(screen)

    def reset(self, screen: Screen) -> None:
        """Empty the stack and make ``screen`` its only screen."""
        while self._screens:
            self.pop()
        self.push(screen)

    def replace_base(self, screen: Screen) -> None:
        """Put ``screen`` at the bottom in place of the base, keeping the overlays above."""
        if not self._screens:
            self.push(screen)
            return
        self._screens[0].exit()
        self._screens[0] = screen
        screen.enter()

    def drop_overlays(self) -> bool:
        """Pop every screen above the base; True when there was one."""
        dropped = False
        while len(self._screens) > 1:
            self.pop()
            dropped = True
        return dropped

    def update(self, now: float) -> bool:
        changed = False
        for screen in self._screens:
            changed = screen.update(now) or changed
        return changed

    def handle(self, intent: Intent) -> bool:
        """Give ``intent`` to the top screen and apply what it asks; True when it was used."""
        top = self.top
        if top is None:
            return False
        handled = top.handle(intent)
        if handled is None:
            return False
        if handled.pop:
            self.pop()
        if handled.push is not None:
            self.push(handled.push)
        return True

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        top = self.top
        return None if top is None else top.hit_test(layout, pos)

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        """Draw the visible screens bottom-up (from the topmost opaque one)."""
        first = 0
        for i, screen in enumerate(self._screens):
            if screen.opaque:
                first = i
        for screen in self._screens[first:]:
            screen.draw(surface, layout)
