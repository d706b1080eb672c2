"""A Caribbean Stud Poker table's real views for the terminal tests: the example Rules
Submission's table on a live machine with a fake clock, two terminals seated, as terminal T1
sees it while betting, on its decision and after the settlement."""

from __future__ import annotations

import json
from typing import Any, Final

from twisted.internet.task import Clock

from game_server.config import example_path, load_config
from game_server.games.caribbean.machine import CaribbeanMachine
from game_server.games.caribbean.session import CaribbeanSession
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

CONFIG: Final = load_config(example_path("caribbean.toml"))
#: T1's wagers: the Ante and every side wager the example table offers.
WAGERS: Final = {
    "ante": 500,
    "progressive": 100,
    "five_card_player": 100,
    "five_card_dealer": 500,
}


def live_views(seed: int = 4, decision: str = "bet") -> dict[str, dict[str, Any]]:
    """T1's view while betting (``"betting"``), on its decision (``"decision"``) and after
    the settlement (``"results"``), having made ``decision``; as the wire carries them."""
    shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), bytes(32), "k")
    session = CaribbeanSession(CONFIG, MemorySink(), shoes, {"T1": 1, "T2": 3})
    session.open()
    clock = Clock()
    machine = CaribbeanMachine(session, clock, next_round_delay=3.0)
    for terminal in ("T1", "T2"):
        machine.cash_in(terminal, 50_000, "test")
    machine.open()
    out = {"betting": machine.view("T1")}
    machine.place_wagers("T1", WAGERS)
    machine.place_wagers("T2", {"ante": 1_000})
    clock.advance(CONFIG.timers.betting_seconds)
    out["decision"] = machine.view("T1")
    machine.act("T1", decision, 0, None)
    clock.advance(CONFIG.timers.decision_seconds)
    out["results"] = machine.view("T1")
    return {k: json.loads(json.dumps(v)) for k, v in out.items()}
