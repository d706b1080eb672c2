"""The only place in the terminal that reads pygame events (after Tuxemon's
``tuxemon/platform/events.py``): :func:`poll_intents` drains the queue and
:func:`read_intents` turns events into :mod:`~terminal_client.input.intents`.

Touch rules (docs/design.md "Terminal"):

* FINGERDOWN / FINGERMOTION / FINGERUP drive the UI; their coordinates are normalised 0..1 and
  are scaled by the window size.
* The mouse events SDL synthesises from a touch (``event.touch`` is true, or the mouse id is
  ``SDL_TOUCH_MOUSEID``) are ignored, so one tap is one press.
* Real mouse clicks (the desktop demo) work the same way as fingers.
* A press is a down and an up on the same target: one :class:`Tap` per completed press. A drag
  that leaves the target cancels the press, and a held finger produces nothing until it lifts.

Presses span frames, so their state lives in a :class:`PressTracker` that the caller owns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pygame

from terminal_client.input.intents import Intent, Key, Quit, Resize, Tap

#: SDL_TOUCH_MOUSEID ((Uint32)-1): the ``which`` of mouse events synthesised from a touch.
TOUCH_MOUSEID = getattr(pygame, "TOUCH_MOUSEID", 0xFFFFFFFF)

#: Maps a window position to the id of the touch target under it, or None.
HitTest = Callable[[tuple[int, int]], str | None]

#: Demo keyboard shortcuts: pygame key -> :class:`Key` name.
KEY_NAMES: dict[int, str] = {
    pygame.K_h: "hit",
    pygame.K_s: "stand",
    pygame.K_d: "double",
    pygame.K_p: "split",
    pygame.K_r: "surrender",
    pygame.K_ESCAPE: "back",
    pygame.K_RETURN: "confirm",
    pygame.K_KP_ENTER: "confirm",
    pygame.K_SPACE: "confirm",
}

_MOUSE_EVENTS = (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION)


@dataclass
class _Press:
    target_id: str
    cancelled: bool = False


@dataclass
class PressTracker:
    """Presses in progress, keyed by pointer (a finger, or a mouse button)."""

    presses: dict[tuple[Any, ...], _Press] = field(default_factory=dict)

    def down(self, pointer: tuple[Any, ...], target_id: str | None) -> None:
        if target_id is None:
            self.presses.pop(pointer, None)
        else:
            self.presses[pointer] = _Press(target_id)

    def move(self, pointer: tuple[Any, ...], target_id: str | None) -> None:
        press = self.presses.get(pointer)
        if press is not None and press.target_id != target_id:
            press.cancelled = True

    def up(self, pointer: tuple[Any, ...], target_id: str | None) -> Tap | None:
        press = self.presses.pop(pointer, None)
        if press is None or press.cancelled or press.target_id != target_id:
            return None
        return Tap(press.target_id)

    def clear(self) -> None:
        """Forget every press in progress (e.g. when the screen changes)."""
        self.presses.clear()


def is_synthesised_from_touch(event: pygame.event.Event) -> bool:
    """True for a mouse event SDL made up from a touch (the finger events carry the touch)."""
    if getattr(event, "touch", False):
        return True
    return getattr(event, "which", None) == TOUCH_MOUSEID


def _finger_pos(event: pygame.event.Event, window_size: tuple[int, int]) -> tuple[int, int]:
    width, height = window_size
    return int(event.x * width), int(event.y * height)


def _finger_pointer(event: pygame.event.Event) -> tuple[Any, ...]:
    return ("finger", getattr(event, "touch_id", 0), getattr(event, "finger_id", 0))


def read_intents(
    events: Iterable[pygame.event.Event],
    layout_hit_test: HitTest,
    tracker: PressTracker,
    window_size: tuple[int, int],
) -> list[Intent]:
    """Turn pygame ``events`` into intents, in order.

    ``layout_hit_test`` names the target under a window position; ``tracker`` carries presses
    from one frame to the next; ``window_size`` scales the normalised finger coordinates.
    """
    intents: list[Intent] = []
    for event in events:
        kind = event.type
        if kind == pygame.QUIT:
            intents.append(Quit())
        elif kind == pygame.WINDOWSIZECHANGED:
            intents.append(Resize((int(event.x), int(event.y))))
        elif kind == pygame.KEYDOWN:
            name = KEY_NAMES.get(event.key)
            if name is not None:
                intents.append(Key(name))
        elif kind in (pygame.FINGERDOWN, pygame.FINGERMOTION, pygame.FINGERUP):
            pointer = _finger_pointer(event)
            target = layout_hit_test(_finger_pos(event, window_size))
            if kind == pygame.FINGERDOWN:
                tracker.down(pointer, target)
            elif kind == pygame.FINGERMOTION:
                tracker.move(pointer, target)
            elif (tap := tracker.up(pointer, target)) is not None:
                intents.append(tap)
        elif kind in _MOUSE_EVENTS:
            if is_synthesised_from_touch(event):
                continue
            target = layout_hit_test(tuple(event.pos))
            if kind == pygame.MOUSEMOTION:
                tracker.move(("mouse", 1), target)
            elif event.button != 1:
                continue  # only the primary button presses; the wheel arrives as 4/5
            elif kind == pygame.MOUSEBUTTONDOWN:
                tracker.down(("mouse", 1), target)
            elif (tap := tracker.up(("mouse", 1), target)) is not None:
                intents.append(tap)
    return intents


def poll_intents(
    layout_hit_test: HitTest, tracker: PressTracker, window_size: tuple[int, int]
) -> list[Intent]:
    """Drain the pygame event queue and return the intents it held (once per frame)."""
    return read_intents(pygame.event.get(), layout_hit_test, tracker, window_size)
