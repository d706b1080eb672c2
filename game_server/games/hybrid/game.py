"""The hybrid Blackjack tables as the platform sees them: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``hybrid``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

from game_server.config import TableConfig, example_config_path
from game_server.games.api import Game
from game_server.games.blackjack import config as blackjack_config
from game_server.games.blackjack.rules.events import (
    CardDealt,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.hybrid import config
from game_server.games.hybrid.machine import HybridMachine
from game_server.games.hybrid.rules.events import (
    Hybrid3CommunityCard,
    Hybrid3WagerPlaced,
    Hybrid3WagerSettled,
)
from game_server.games.hybrid.session import HybridSession, resume_round
from game_server.recall.rounds import LoggedRound
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.table.api import HostedTable, ReactorTime
from game_server.table.ledger import Ledger
from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["GAME", "HybridGame"]

_CONFIGS: Final = example_config_path().parent


class HybridGame:
    """Blackjack at a hybrid table in stadium play (633b.5): any number of terminals take
    part in each round, none holds a seat."""

    name = "hybrid"
    title = "Hybrid Blackjack"
    chapter = "58 Pa. Code 633b.5"
    config_game = "blackjack"
    table_types = frozenset({TableType.HYBRID, TableType.HYBRID_NO_HOLE_CARD})
    examples = (
        _CONFIGS / "hybrid-three-position.toml",
        _CONFIGS / "hybrid-no-hole-card.toml",
    )

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.build_config(data, source)

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return blackjack_config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return blackjack_config.file_shape(logged)

    # ----------------------------------------------------------------- the live table

    #: The no-hole-card table logs Blackjack's records, the three-position table its own.
    placed_kinds = frozenset({WagerPlaced, Hybrid3WagerPlaced})
    settled_kinds = frozenset({WagerSettled, Hybrid3WagerSettled})
    completed_kinds = frozenset({RoundCompleted})
    #: The cards of the shoe: dealt, and the three-position table's community cards.
    shoe_card_kinds = frozenset({CardDealt, Hybrid3CommunityCard})

    def open_session(
        self,
        table: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> TableBook:
        """Stadium play: the terminals of the table take part, none holds a seat (633b.5(l));
        the hybrid tables offer no progressive."""
        return HybridSession(table, sink, shoes, seats)

    def machine(
        self, session: TableBook, clock: ReactorTime, next_round_delay: float
    ) -> HostedTable:
        assert isinstance(session, HybridSession)
        return HybridMachine(session, clock, next_round_delay=next_round_delay)

    def new_ledger(self) -> Ledger:
        return Ledger()

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        return {}

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        assert isinstance(session, HybridSession)
        return resume_round(session, logged)


GAME: Final[Game] = HybridGame()
