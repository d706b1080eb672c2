"""The terminal application: a frame tick driven by the reactor (``task.LoopingCall``; no
threads) that picks the screen from the model, routes intents to the top screen and redraws
only when something changed.

Entry point: :class:`TerminalApp`; the command line is :mod:`terminal_client.cli`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pygame
from twisted.internet import task
from twisted.internet.interfaces import IReactorTime

from terminal_client.input import HitTest, PressTracker, Quit, Resize, poll_intents
from terminal_client.input import Intent as InputIntent
from terminal_client.model import TerminalModel
from terminal_client.render import Layout
from terminal_client.screens import IntentSender, ScreenStack, screen_for

#: ``poll(hit_test, tracker, window_size) -> intents`` (default: the pygame event queue).
Poll = Callable[[HitTest, PressTracker, tuple[int, int]], list[InputIntent]]


class TerminalApp:
    """The frame loop of one terminal.

    Args:
        model: The model the network client feeds.
        client: The network client the screens send intents through.
        clock: The reactor (tests: ``task.Clock``) that runs the frame tick.
        surface_provider: Returns the surface to draw on (the display surface).
        fps: Frames per second of the tick.
        present: Shows a drawn frame (``pygame.display.flip`` for a window; default none).
        on_quit: Called when the window is closed.
        poll: Where intents come from (default :func:`terminal_client.input.poll_intents`).
    """

    def __init__(
        self,
        model: TerminalModel,
        client: IntentSender,
        clock: IReactorTime,
        surface_provider: Callable[[], pygame.Surface],
        *,
        fps: int = 30,
        present: Callable[[], Any] | None = None,
        on_quit: Callable[[], Any] | None = None,
        poll: Poll = poll_intents,
    ) -> None:
        self.model = model
        self.client = client
        self.clock: Any = clock
        self.fps = fps
        self.stack = ScreenStack()
        self.tracker = PressTracker()
        self.draws = 0
        self.dirty = True
        self.running = False
        self._surface_provider = surface_provider
        self._present = present
        self._on_quit = on_quit
        self._poll = poll
        self._layout: Layout | None = None
        self._seen: tuple[Any, ...] | None = None
        self._loop: task.LoopingCall | None = None

    # Running --------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the frame tick on the reactor."""
        self.running = True
        self._loop = task.LoopingCall(self.tick)
        self._loop.clock = self.clock
        self._loop.start(1 / self.fps, now=True)

    def stop(self) -> None:
        self.running = False
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None

    def run_headless(self, frames: int) -> None:
        """Run ``frames`` ticks now (tests; the clock is advanced by the caller)."""
        for _ in range(frames):
            self.tick()

    # One frame ------------------------------------------------------------------------------

    def layout(self) -> Layout:
        size = self._surface_provider().get_size()
        if self._layout is None or self._layout.size != size:
            self._layout = Layout.for_window(size)
            self.dirty = True
        return self._layout

    def _model_changed(self) -> bool:
        model = self.model
        seen = (model.view, model.connection, model.pending, model.last_error)
        old, self._seen = self._seen, seen
        if old is None:
            return True
        return old[0] is not seen[0] or old[1:] != seen[1:]

    def tick(self) -> None:
        """Pick the screen, handle the player's intents, advance time, draw if needed."""
        now = self.clock.seconds()
        layout = self.layout()
        if self._model_changed():
            self.dirty = True
        wanted = screen_for(self.model)
        if type(self.stack.base) is not wanted:
            self.stack.reset(wanted(self.model, self.client))
            self.tracker.clear()
            self.dirty = True
        for intent in self._poll(partial(self.stack.hit_test, layout), self.tracker, layout.size):
            if isinstance(intent, Quit):
                self.stop()
                if self._on_quit is not None:
                    self._on_quit()
                return
            if isinstance(intent, Resize):
                layout = self.layout()  # rebuilt (and redrawn) only if the size changed
            elif self.stack.handle(intent):
                self.dirty = True
        if self._model_changed():  # an intent sent is now pending
            self.dirty = True
        if self.stack.update(now):
            self.dirty = True
        if self.dirty:
            self.draw(layout)

    def draw(self, layout: Layout) -> None:
        surface = self._surface_provider()
        self.stack.draw(surface, layout)
        self.draws += 1
        self.dirty = False
        if self._present is not None:
            self._present()
