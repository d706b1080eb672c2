"""The live demo's pictures (``etg demo --live``, ``tools/screens.py``): a bot-played terminal
whose frames tick in real time, as the demo's windows do, keeps its play screen (its
decision on the cards it was dealt, before the bot takes it), its results screen and a
picture of every round, at the table that deals the most cards (Four Card Poker: five to the
player and six to the dealer, five of them turned at the showdown) with the demo's countdowns
and its two seconds between rounds.

This is where the demo's Four Card Poker terminal kept only its betting picture: its bot
decided while the deal was still landing (so no play screen was ever at rest on a decision
to keep) and the dealer's five cards turned one after another past the next round's betting
window (so no results screen ever rested).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from twisted.internet.task import Clock  # noqa: E402

from game_server.config import example_path, load_config  # noqa: E402
from game_server.games.fourcard.machine import FourCardMachine  # noqa: E402
from game_server.games.fourcard.session import FourCardSession  # noqa: E402
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds  # noqa: E402
from terminal_client.app import Autoplay, Screenshots, TerminalApp  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from tools.live_demo import DEMO_TIMERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")

#: The demo server's pause between a round's settlement and the next betting window
#: (``--next-round-delay`` in tools/live_demo.py).
DEMO_NEXT_ROUND = 2.0
#: The terminal's frames per second (``etg terminal --fps`` default) and its bot's
#: thinking time (``--think`` default).
FPS = 30
THINK = 0.6


class MachineClient:
    """The terminal's network client, straight to the machine: each intent and the view
    after it reach the model at once."""

    def __init__(self, machine: FourCardMachine, model: TerminalModel) -> None:
        self.machine = machine
        self.model = model
        self.refused: list[str] = []

    def refresh(self) -> None:
        self.model.apply_view(json.loads(json.dumps(self.machine.view("T1"))))

    def _run(self, call: Any, *args: Any) -> Any:
        try:
            call("T1", *args)
        except Exception as exc:  # a refusal, shown as the server's notice
            self.refused.append(f"{type(exc).__name__}: {exc}")
            self.model.apply_error("REFUSED", str(exc))
            return None
        self.refresh()
        return True

    def place_wagers(self, wagers: Any, position: int | None = None) -> Any:
        return self._run(self.machine.place_wagers, dict(wagers))

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        return self._run(self.machine.act, action, hand, None)

    def request_rules(self) -> bool:
        return False

    def request_recall(self) -> bool:
        return False


def demo_table(clock: Clock) -> FourCardMachine:
    """The shipped Four Card Poker table with the demo's countdowns and pause between
    rounds, T1 seated with demo money."""
    config = load_config(example_path("fourcard.toml"))
    config = replace(config, timers=replace(config.timers, **DEMO_TIMERS))
    shoes = SealedShoes(config, simulation_seeds(5, config.table_id), bytes(32), "k")
    session = FourCardSession(config, MemorySink(), shoes, {"T1": 1})
    session.open()
    machine = FourCardMachine(session, clock, next_round_delay=DEMO_NEXT_ROUND)
    machine.cash_in("T1", 100_000, "demo")
    machine.open()
    return machine


def test_a_demo_terminal_in_real_time_keeps_its_play_results_and_round_pictures(
    tmp_path: Path,
) -> None:
    clock = Clock()
    clock.advance(1_000.0)
    machine = demo_table(clock)
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    client = MachineClient(machine, model)
    client.refresh()
    shots = Screenshots(tmp_path, every=1, screens=True)
    surface = pygame.Surface((1280, 720))
    app = TerminalApp(
        model,
        client,
        clock,
        lambda: surface,
        fps=FPS,
        poll=lambda *a: [],
        autoplay=Autoplay(client, think=THINK, now=clock.seconds),
        after_draw=shots,
    )
    settled: list[Any] = []
    for _ in range(FPS * 90):  # at most 90 seconds of frames
        app.tick()
        clock.advance(1 / FPS)
        client.refresh()
        view = model.view
        if view is not None and view.phase == "complete" and view.round not in settled:
            settled.append(view.round)
        if len(settled) == 4 and view is not None and view.phase == "betting":
            break
    assert len(settled) == 4 and client.refused == []
    kept = {p.name for p in tmp_path.glob("*.png")}
    for role in ("betting", "play", "results"):
        assert f"T1-{role}.png" in kept, (role, sorted(kept))
    # Every round's results rested on the screen before the next betting window opened.
    assert shots.seen == len(settled), sorted(kept)
