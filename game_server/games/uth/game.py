"""Ultimate Texas Hold 'Em as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``uth``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

from game_server.config import TableConfig, example_config_path
from game_server.games.api import Game
from game_server.games.uth import config
from game_server.games.uth.machine import UthMachine
from game_server.games.uth.rules.events import (
    UthCardDealt,
    UthRoundCompleted,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.rules import UthRules
from game_server.games.uth.session import UthLedger, UthSession, resume_round
from game_server.recall.rounds import LoggedRound
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.table.api import HostedTable, ReactorTime
from game_server.table.ledger import Ledger
from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["GAME", "UthGame"]

_CONFIGS: Final = example_config_path().parent


class UthGame:
    """Ultimate Texas Hold 'Em at the fully automated electronic table (653a): one freshly
    shuffled deck per round, one shared decision countdown per street."""

    name = "uth"
    title = "Ultimate Texas Hold 'Em"
    chapter = "58 Pa. Code 653a"
    config_game = config.UTH
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (_CONFIGS / "uth.toml",)

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.UthBuilder(data, source).build()

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return config.file_shape(logged)

    # ----------------------------------------------------------------- the live table

    placed_kinds = frozenset({UthWagerPlaced})
    settled_kinds = frozenset({UthWagerSettled})
    completed_kinds = frozenset({UthRoundCompleted})
    shoe_card_kinds = frozenset({UthCardDealt})

    def open_session(
        self,
        table: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> TableBook:
        return UthSession(table, sink, shoes, seats, meters)

    def machine(
        self, session: TableBook, clock: ReactorTime, next_round_delay: float
    ) -> HostedTable:
        assert isinstance(session, UthSession)
        return UthMachine(session, clock, next_round_delay=next_round_delay)

    def new_ledger(self) -> Ledger:
        return UthLedger()

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        rules: UthRules = table.rules
        return rules.meters()

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        assert isinstance(session, UthSession)
        return resume_round(session, logged, seats)


GAME: Final[Game] = UthGame()
