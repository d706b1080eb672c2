"""War as the platform sees it: :data:`GAME` (registered by the tests, never shipped)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from game_server.games.api import COMPLETED, SEAT_CARD, WAGER
from game_server.games.base import GameBase
from game_server.rules.wagers.base import TableType
from game_server.sim import seeded_shoes
from game_server.table.info import RULES_VERSION
from shared.money import format_money

from . import config
from .machine import WarMachine
from .rules import KINDS, WAR, WarCard, WarCompleted, WarPlaced, WarRound, WarSettled, replay
from .session import WarSession, resume_round


class Driver:
    """``etg sim``: every seat wagers the minimum; one new deck a round."""

    def __init__(self, spec: Any, chunk: int) -> None:
        self.spec, self.rounds = spec, 0
        self.shoes = seeded_shoes(1, None, spec.seed, f"{spec.table_id}-{chunk}")

    def play_round(self) -> list[Any]:
        self.rounds += 1
        game, stake = (
            WarRound(self.spec.rules),
            self.spec.main_wager or self.spec.rules.limits.minimum,
        )
        placed = [game.place_wagers(seat, {WAR: stake}) for seat in range(1, self.spec.seats + 1)]
        return [ev for step in placed for ev in step] + game.deal(self.shoes(self.rounds))


class WarGame(GameBase):
    name = config_game = WAR
    title = "War"
    chapter = "tests/games/war (a test-only game)"
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (Path(__file__).with_name("war.toml"),)
    wager_titles: Mapping[str, str] = {WAR: "War"}
    config_section = config
    session_type = WarSession
    machine_type = WarMachine
    resume_round = staticmethod(resume_round)
    placed_kinds = frozenset({WarPlaced})
    settled_kinds = frozenset({WarSettled})
    completed_kinds = frozenset({WarCompleted})
    shoe_card_kinds = frozenset({WarCard})
    round_kinds = KINDS
    checks: Mapping[type, str] = {
        WarPlaced: WAGER,
        WarCard: SEAT_CARD,
        WarSettled: WAGER,
        WarCompleted: COMPLETED,
    }
    replay_at_table = staticmethod(replay)
    driver_type = Driver

    def rules_document(self, table: Any) -> dict[str, Any]:
        low, high = table.rules.limits.minimum, table.rules.limits.maximum
        return {
            "v": RULES_VERSION,
            "table": table.table_id,
            "game": self.title,
            "lines": ["One card to each wager and one to the dealer", "Aces high; a tie pushes"],
            "countdowns": [
                {"for": "betting", "seconds": table.timers.betting_seconds, "then": "deal"}
            ],
            "limits_text": f"{format_money(low)} to {format_money(high)}",
            "wagers": [
                {
                    "wager": WAR,
                    "title": self.title,
                    "section": self.chapter,
                    "min": low,
                    "max": high,
                    "paytable": None,
                    "notes": [],
                    "lines": [{"hand": "Your card beats the dealer's", "pays": "1 to 1"}],
                }
            ],
        }


GAME = WarGame()
