"""A real terminal that does not know High Card, played by a finger on its generic fallback
screen: ``python tests/games/fallback_terminal.py --port P --certs DIR --rounds N``.

The real :class:`~terminal_client.net.TerminalClient` over mutual TLS and the real
:class:`~terminal_client.app.TerminalApp` frame tick (``SDL_VIDEODRIVER=dummy``); each frame
the finger looks at the screen on top and, while the table takes wagers and this terminal has
none in, taps the fallback screen's wager button (checked with the screen's own
``hit_test``), posting the touch as SDL delivers it. After ``--rounds`` of its rounds have
settled it prints one JSON line (the rounds, the taps, the screens seen, the settlements
shown, the credits at the start and end) and exits 0; a refusal or the ``--timeout`` exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pygame

from terminal_client.app import TerminalApp
from terminal_client.model import TerminalModel
from terminal_client.net import TerminalClient
from terminal_client.net.tls import terminal_tls_options, tls_endpoint
from terminal_client.screens.fallback import FallbackScreen
from tests.e2e.touch_terminal import SIZE, touch  # a tap as SDL delivers a touch

WAGER = "high_card"


class Finger:
    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.app: TerminalApp | None = None
        self.taps: list[str] = []
        self.bet_rounds: list[int] = []
        self.played: list[int] = []
        self.shown: list[list[str]] = []
        self.screens: set[str] = set()
        self.start_credits: int | None = None
        self.finished = False

    def saw(self, model: TerminalModel) -> None:
        """Each view as it arrives: a round of ours settled (the app's frames, on which the
        finger acts, wait for the cards to land, and the table moves on 0.2 s after a
        round settles)."""
        view = model.view
        if view is None:
            return
        if self.start_credits is None:
            self.start_credits = view.credits
        if (
            view.phase == "complete"
            and view.round in self.bet_rounds
            and view.round not in self.played
        ) and view.settlements:
            self.played.append(view.round)
            self.shown.append([f"{s.wager}:{s.outcome}:{s.paid}" for s in view.settlements])
        if len(self.played) >= self.rounds:
            self.finished = True

    def __call__(self, model: TerminalModel) -> None:
        view, app = model.view, self.app
        if app is None or view is None or self.finished:
            return
        screen = app.stack.top
        self.screens.add(type(screen).__name__)
        if model.pending or pygame.event.peek([pygame.FINGERDOWN, pygame.MOUSEBUTTONDOWN]):
            return
        if not isinstance(screen, FallbackScreen) or view.round in self.bet_rounds:
            return
        layout = app.layout()
        button = next((b for b in screen.wager_buttons(layout) if b.id == f"wager-{WAGER}"), None)
        if button is None or not button.enabled:
            return
        center = pygame.Rect(button.rect).center
        found = screen.hit_test(layout, center)
        if found != button.target_id:
            raise AssertionError(f"the wager button at {center} hits {found}")
        self.bet_rounds.append(view.round)
        self.taps.append(found)
        touch(center, len(self.taps))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--certs", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    from twisted.internet import reactor as _reactor

    reactor: Any = _reactor
    options = terminal_tls_options(
        args.certs / "ca.pem",
        args.certs / "terminals" / "T1.pem",
        args.certs / "terminals" / "T1.key",
        "localhost",
    )
    pygame.display.init()
    pygame.font.init()
    pygame.display.set_mode(SIZE)
    model = TerminalModel()
    errors: list[str] = []
    apply_error = model.apply_error

    def record_error(code: str, message: str, request_id: str | None = None) -> None:
        errors.append(f"{code}: {message}")
        apply_error(code, message, request_id)

    model.apply_error = record_error  # type: ignore[method-assign]
    finger = Finger(args.rounds)
    apply_view = model.apply_view

    def seen_view(data: Any) -> None:
        apply_view(data)
        finger.saw(model)

    model.apply_view = seen_view  # type: ignore[method-assign]
    client = TerminalClient(tls_endpoint(reactor, "127.0.0.1", args.port, options), model, reactor)
    outcome: dict[str, Any] = {}

    def finish(failure: str | None = None) -> None:
        if not outcome:
            outcome["failure"] = failure
            app.stop()
            client.stop().addBoth(lambda _: reactor.stop())

    def on_frame(model: TerminalModel) -> None:
        try:
            finger(model)
        except Exception as exc:
            finish(f"the finger failed: {exc!r}")
            return
        if errors:
            finish(f"the server refused an intent: {errors}")
        elif finger.finished:
            finish()

    app = TerminalApp(model, client, reactor, pygame.display.get_surface, fps=30, autoplay=on_frame)
    finger.app = app
    timer = reactor.callLater(args.timeout, lambda: finish(f"timed out: {finger.played} played"))
    client.start()
    app.start()
    try:
        reactor.run()
    finally:
        pygame.quit()
    if timer.active():
        timer.cancel()
    if outcome.get("failure"):
        print(outcome["failure"], file=sys.stderr)
        return 1
    view = model.view
    report = {
        "rounds": finger.played,
        "taps": finger.taps,
        "screens": sorted(finger.screens),
        "shown": finger.shown,
        "title": model.game.window_title(model),
        "start_credits": finger.start_credits,
        "final_credits": None if view is None else view.credits,
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
