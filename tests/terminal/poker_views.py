"""What the poker tables' terminal tests (Caribbean Stud, Four Card Poker) share: a live
machine's real views as terminal T1 sees them while betting, on its decision and after the
settlement, and a client that records what the screens send (the fallback screen's tests
use it too)."""

from __future__ import annotations

import json
from typing import Any

from twisted.internet.task import Clock

from game_server.config import TableConfig
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds


class Sent:
    """A client that records the intents a screen sends."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def place_wagers(self, wagers: Any, position: int | None = None) -> object:
        self.calls.append(("place_wagers", dict(wagers)))
        return object()

    def act(self, action: str, hand: int, amount: int = 0) -> object:
        self.calls.append(("act", (action, hand)))
        return object()

    def request_recall(self) -> bool:
        return True


def machine_views(
    config: TableConfig,
    session_type: Any,
    machine_type: Any,
    wagers: dict[str, int],
    decision: str,
    seed: int = 4,
) -> dict[str, dict[str, Any]]:
    """T1's view while betting (``"betting"``), on its decision (``"decision"``) and after
    the settlement (``"results"``) at ``config``'s table on a live machine with a fake clock,
    T1 (``wagers``, then ``decision``) and T2 (a $10 Ante) seated; as the wire carries them."""
    shoes = SealedShoes(config, simulation_seeds(seed, config.table_id), bytes(32), "k")
    session = session_type(config, MemorySink(), shoes, {"T1": 1, "T2": 3})
    session.open()
    clock = Clock()
    machine = machine_type(session, clock, next_round_delay=3.0)
    for terminal in ("T1", "T2"):
        machine.cash_in(terminal, 50_000, "test")
    machine.open()
    out = {"betting": machine.view("T1")}
    machine.place_wagers("T1", wagers)
    machine.place_wagers("T2", {"ante": 1_000})
    clock.advance(config.timers.betting_seconds)
    out["decision"] = machine.view("T1")
    machine.act("T1", decision, 0, None)
    clock.advance(config.timers.decision_seconds)
    out["results"] = machine.view("T1")
    return {k: json.loads(json.dumps(v)) for k, v in out.items()}
