"""High Card as the platform sees it: :data:`GAME` (registered by the tests, never shipped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from game_server.games.api import COMPLETED, SEAT_CARD, WAGER
from game_server.games.base import GameBase
from game_server.rules.wagers.base import TableType
from game_server.sim import seeded_shoes
from game_server.table.info import RULES_VERSION
from shared.money import format_money

from . import config
from .machine import HighCardMachine
from .rules import (
    HIGH_CARD,
    KINDS,
    CardDealt,
    HighCardRound,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
    replay,
)
from .session import HighCardSession, resume_round


class Driver:
    """Every seat wagers the minimum; one new deck a round."""

    def __init__(self, spec: Any, chunk: int) -> None:
        self.spec, self.rounds = spec, 0
        self.shoes = seeded_shoes(1, None, spec.seed, f"{spec.table_id}-{chunk}")

    def play_round(self) -> list[Any]:
        self.rounds += 1
        game = HighCardRound(self.spec.rules)
        stake = self.spec.main_wager or self.spec.rules.limits.minimum
        out = [
            ev
            for seat in range(1, self.spec.seats + 1)
            for ev in game.place_wagers(seat, {HIGH_CARD: stake})
        ]
        return out + game.deal(self.shoes(self.rounds))


class HighCardGame(GameBase):
    name = config_game = HIGH_CARD
    title = "High Card"
    chapter = "tests/games/high_card (a test-only game)"
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (Path(__file__).with_name("high_card.toml"),)
    placed_kinds = frozenset({WagerPlaced})
    settled_kinds = frozenset({WagerSettled})
    completed_kinds = frozenset({RoundCompleted})
    shoe_card_kinds = frozenset({CardDealt})
    wager_titles: ClassVar = {HIGH_CARD: "High Card"}
    config_section = config
    session_type = HighCardSession
    machine_type = HighCardMachine
    resume_round = staticmethod(resume_round)
    round_kinds = KINDS
    checks: ClassVar = {
        WagerPlaced: WAGER,
        CardDealt: SEAT_CARD,
        WagerSettled: WAGER,
        RoundCompleted: COMPLETED,
    }
    replay_round = staticmethod(replay)
    driver_type = Driver

    def rules_document(self, table: Any) -> dict[str, Any]:
        limits = table.rules.limits
        return {
            "v": RULES_VERSION,
            "table": table.table_id,
            "game": self.title,
            "lines": [
                "One card to each wager and one to the dealer",
                "Aces are high; a tie pushes",
            ],
            "countdowns": [
                {"for": "betting", "seconds": table.timers.betting_seconds, "then": "deal"}
            ],
            "limits_text": f"{format_money(limits.minimum)} to {format_money(limits.maximum)}",
            "wagers": [
                {
                    "wager": HIGH_CARD,
                    "title": self.title,
                    "section": self.chapter,
                    "min": limits.minimum,
                    "max": limits.maximum,
                    "paytable": None,
                    "lines": [{"hand": "Your card beats the dealer's", "pays": "1 to 1"}],
                    "notes": [],
                }
            ],
        }

    # Recall and verify.


GAME = HighCardGame()
