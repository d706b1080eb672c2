"""A real terminal played by a finger: ``python tests/e2e/touch_terminal.py``.

Connects a real :class:`~terminal_client.net.TerminalClient` to a table over mutual TLS (the
code path of ``etg terminal``), runs the real :class:`~terminal_client.app.TerminalApp` frame
tick on the reactor with a headless display (``SDL_VIDEODRIVER=dummy``), and instead of
``--autoplay`` lets :class:`Finger` play: each frame it looks at the screen on top, finds its
target with the screen's own geometry (chip tray slots, betting circles, ``buttons(layout)``),
checks that ``screen.hit_test`` names that target, and posts a touch as SDL delivers it
(FINGERDOWN, the synthesised MOUSEBUTTONDOWN with ``touch=True``, FINGERUP, MOUSEBUTTONUP) to
the pygame queue, which the app's default poll reads. It bets the table minimum with the
smallest chip that reaches it, declines insurance, and plays the lit buttons by
:func:`~terminal_client.app.basic_strategy`.

After ``--rounds`` of its rounds have settled it prints one JSON line (rounds, wagers sent,
credits at the start and end, refusals) and exits 0; an exception, a refusal or the
``--timeout`` exits 1 with a message on stderr.
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
from terminal_client.games.blackjack.bot import basic_strategy
from terminal_client.input.events import TOUCH_MOUSEID
from terminal_client.model import TerminalModel
from terminal_client.net import TerminalClient
from terminal_client.net.tls import terminal_tls_options, tls_endpoint
from terminal_client.render import Layout
from terminal_client.screens import BettingScreen, PlayScreen, Screen, betting_open

SIZE = (1280, 720)
#: Accepted intents that place one more wager: a double, a split, an insurance.
_ADD_A_WAGER = {("act", "double"), ("act", "split"), ("insurance", "insurance")}
_TOUCH = {pygame.FINGERDOWN, pygame.FINGERUP, pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP}


class Recorder:
    """The network client as the screens see it: every intent it accepted is recorded."""

    def __init__(self, client: TerminalClient) -> None:
        self.client = client
        self.sent: list[dict[str, Any]] = []

    def _keep(self, intent: Any, **what: Any) -> Any:
        if intent is not None:
            self.sent.append({**what, "request_id": intent.request_id})
        return intent

    def place_wagers(self, wagers: Any) -> Any:
        wagers = dict(wagers)
        return self._keep(self.client.place_wagers(wagers), kind="place_wagers", wagers=wagers)

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        return self._keep(self.client.act(action, hand, amount), kind="act", action=action)

    def answer_insurance(self, choice: str, amount: int = 0) -> Any:
        intent = self.client.answer_insurance(choice, amount)
        return self._keep(intent, kind="insurance", choice=choice, amount=amount)

    def cash_out(self) -> Any:
        return self._keep(self.client.cash_out(), kind="cash_out")

    def request_rules(self) -> bool:
        """The paytables the betting screen shows (asked for, not an intent)."""
        return self.client.request_rules()

    def request_recall(self) -> bool:
        return self.client.request_recall()


def touch(pos: tuple[int, int], finger: int) -> None:
    """Post one tap at ``pos`` the way SDL delivers a touch."""
    x, y = (pos[0] + 0.5) / SIZE[0], (pos[1] + 0.5) / SIZE[1]
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        pygame.event.post(
            pygame.event.Event(kind, x=x, y=y, dx=0.0, dy=0.0, touch_id=1, finger_id=finger)
        )
        mouse = pygame.MOUSEBUTTONDOWN if kind == pygame.FINGERDOWN else pygame.MOUSEBUTTONUP
        pygame.event.post(
            pygame.event.Event(mouse, pos=pos, button=1, touch=True, which=TOUCH_MOUSEID)
        )


class Finger:
    """Plays ``rounds`` rounds by touch; called by the app every frame with the model."""

    def __init__(self, rounds: int, wager: str = "blackjack") -> None:
        self.rounds = rounds
        self.wager = wager
        self.app: TerminalApp | None = None
        self.recorder: Recorder | None = None
        self.taps: list[str] = []
        self.bet_rounds: list[int] = []
        self.start_credits: int | None = None
        self.finished = False
        self._done: set[tuple[Any, ...]] = set()

    def tap(self, screen: Screen, layout: Layout, target: str, pos: tuple[int, int]) -> None:
        found = screen.hit_test(layout, pos)
        if found != target:
            raise AssertionError(f"{type(screen).__name__}: {target} at {pos} hits {found}")
        self.taps.append(target)
        touch(pos, len(self.taps))

    def played(self, model: TerminalModel) -> list[int]:
        settled = {r.round for r in model.recent if r.settlements}
        return sorted(r for r in set(self.bet_rounds) if r in settled)

    def __call__(self, model: TerminalModel) -> None:
        app = self.app
        view = model.view
        if app is None or view is None or self.finished:
            return
        if self.start_credits is None:
            self.start_credits = view.credits
        if model.pending or pygame.event.peek(list(_TOUCH)):
            return  # an answer or our last tap is on its way
        if len(self.played(model)) >= self.rounds:
            self.finished = True
            return
        screen = app.stack.top
        layout = app.layout()
        if isinstance(screen, BettingScreen):
            self.bet(screen, layout, model)
        elif isinstance(screen, PlayScreen):
            self.play(screen, layout, model)

    def bet(self, screen: BettingScreen, layout: Layout, model: TerminalModel) -> None:
        view = model.view
        limits = model.limits.get(self.wager)
        if view is None or limits is None or not betting_open(model) or model.my_seat:
            return
        chips = [c for c in model.chips if limits.minimum % c == 0]
        chip = max(chips)
        if screen.selected != chip:
            slot = next(s for s in screen.tray(layout).slots() if s.cents == chip)
            self.tap(screen, layout, slot.target_id, slot.center)
        elif screen.pending.get(self.wager, 0) < limits.minimum:
            spot = next(s for s in screen.spots(layout) if s.id == "main")
            self.tap(screen, layout, "spot:main", spot.center)
        else:
            deal = next(b for b in screen.buttons(layout) if b.id == "deal")
            if deal.enabled and self._once(("deal", view.round)):
                self.bet_rounds.append(view.round)
                self.tap(screen, layout, deal.target_id, pygame.Rect(deal.rect).center)

    def play(self, screen: PlayScreen, layout: Layout, model: TerminalModel) -> None:
        view = model.view
        seat = model.my_seat
        if view is None or seat is None:
            return
        lit = {b.id: b for b in screen.buttons(layout) if b.enabled}
        if model.insurance is not None:
            if "decline" in lit and self._once(("insurance", view.round)):
                self.press(screen, layout, lit["decline"])
            return
        index = model.hand_to_act
        hand = next((h for h in seat.hands if h.index == index), None)
        if hand is None or not view.dealer.cards or not lit:
            return
        action = basic_strategy(hand.cards, view.dealer.cards[0], frozenset(lit))
        key = ("act", view.round, index, len(hand.cards), len(seat.hands))
        if action is not None and self._once(key):
            self.press(screen, layout, lit[action])

    def press(self, screen: Screen, layout: Layout, button: Any) -> None:
        self.tap(screen, layout, button.target_id, pygame.Rect(button.rect).center)

    def _once(self, key: tuple[Any, ...]) -> bool:
        if key in self._done:
            return False
        self._done.add(key)
        return True


def wagers_sent(sent: list[dict[str, Any]]) -> int:
    """How many wagers the accepted intents place: each wager of a PlaceWagers, each double
    and each split, each insurance taken."""
    count = 0
    for intent in sent:
        if intent["kind"] == "place_wagers":
            count += sum(1 for amount in intent["wagers"].values() if amount)
        elif (intent["kind"], intent.get("action", intent.get("choice"))) in _ADD_A_WAGER:
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--certs", type=Path, required=True)
    parser.add_argument("--terminal", default="T1")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)

    from twisted.internet import reactor as _reactor

    reactor: Any = _reactor
    certs: Path = args.certs
    options = terminal_tls_options(
        certs / "ca.pem",
        certs / "terminals" / f"{args.terminal}.pem",
        certs / "terminals" / f"{args.terminal}.key",
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
    client = TerminalClient(tls_endpoint(reactor, "127.0.0.1", args.port, options), model, reactor)
    recorder = Recorder(client)
    finger = Finger(args.rounds)
    outcome: dict[str, Any] = {}

    def finish(failure: str | None = None) -> None:
        if outcome:
            return
        outcome["failure"] = failure
        app.stop()
        client.stop().addBoth(lambda _: reactor.stop())

    def on_frame(model: TerminalModel) -> None:
        try:
            finger(model)
        except Exception as exc:  # reported, then the script fails
            finish(f"the finger failed: {exc!r}")
            return
        if errors:
            finish(f"the server refused an intent: {errors}")
        elif finger.finished:
            finish()

    app = TerminalApp(
        model,
        recorder,
        reactor,
        pygame.display.get_surface,
        fps=30,
        present=pygame.display.flip,
        autoplay=on_frame,
    )
    finger.app, finger.recorder = app, recorder
    timer = reactor.callLater(
        args.timeout,
        lambda: finish(f"timed out after {args.timeout} s: {len(finger.played(model))} round(s)"),
    )
    client.start()
    app.start()
    loop: Any = getattr(app, "_loop", None)
    if loop is not None and loop.deferred is not None:
        loop.deferred.addErrback(lambda f: finish(f"the frame tick failed: {f.getTraceback()}"))
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
    print(
        json.dumps(
            {
                "terminal": args.terminal,
                "rounds": finger.played(model),
                "placed": wagers_sent(recorder.sent),
                "sent": recorder.sent,
                "taps": finger.taps,
                "start_credits": finger.start_credits,
                "final_credits": None if view is None else view.credits,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
