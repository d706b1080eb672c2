"""A Caribbean Stud Poker table's real views for the terminal tests: the example Rules
Submission's table on a live machine with a fake clock, two terminals seated, as terminal T1
sees it while betting, on its decision and after the settlement."""

from __future__ import annotations

from typing import Any, Final

from poker_views import machine_views

from game_server.config import example_path, load_config
from game_server.games.caribbean.machine import CaribbeanMachine
from game_server.games.caribbean.session import CaribbeanSession

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
    return machine_views(CONFIG, CaribbeanSession, CaribbeanMachine, WAGERS, decision, seed)
