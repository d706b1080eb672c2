"""Blackjack at the fully automated table as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``blackjack``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from game_server.config import TableConfig, example_config_path
from game_server.games.api import (
    CARD,
    COMPLETED,
    DEALER_STEP,
    HOLE,
    SEATED,
    WAGER,
    Game,
)
from game_server.games.blackjack import config, recall
from game_server.games.blackjack.info import blackjack_rules_for
from game_server.games.blackjack.machine import RoundMachine
from game_server.games.blackjack.rules.events import (
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import ENGINE_KINDS, replay
from game_server.games.blackjack.session import TableSession, meter_specs, resume_round
from game_server.recall.rounds import Logged, LoggedRound
from game_server.recall.timeline import Described, Labels, Timeline
from game_server.rng.shoe import ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.table.api import HostedTable, ReactorTime
from game_server.table.ledger import Ledger
from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["GAME", "BlackjackGame"]

_CONFIGS: Final = example_config_path().parent


class BlackjackGame:
    """Blackjack dealt by the table game system alone (633b.8 and the fully automated
    electronic table of 605a)."""

    name = "blackjack"
    title = "Blackjack"
    chapter = "58 Pa. Code 633a, 633b"
    config_game = "blackjack"
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (
        _CONFIGS / "fully-automated-blackjack.toml",
        _CONFIGS / "fully-automated-all-side-wagers.toml",
    )

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.BlackjackBuilder(data, source).build()

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return config.file_shape(logged)

    # ----------------------------------------------------------------- the live table

    placed_kinds = frozenset({WagerPlaced})
    settled_kinds = frozenset({WagerSettled})
    completed_kinds = frozenset({RoundCompleted})
    shoe_card_kinds = frozenset({CardDealt})

    def open_session(
        self,
        table: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> TableBook:
        return TableSession(table, sink, shoes, seats, meters)

    def machine(
        self, session: TableBook, clock: ReactorTime, next_round_delay: float
    ) -> HostedTable:
        assert isinstance(session, TableSession)
        return RoundMachine(session, clock, next_round_delay=next_round_delay)

    def new_ledger(self) -> Ledger:
        return Ledger()

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        return {meter_id: spec for meter_id, (_, spec) in meter_specs(table).items()}

    def rules_document(self, table: TableConfig) -> dict[str, Any]:
        return blackjack_rules_for(table)

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        assert isinstance(session, TableSession)
        return resume_round(session, logged, seats)

    # ------------------------------------------------------------------------- recall

    wager_titles = recall.WAGER_TITLES

    def engine_kinds(self, table_type: TableType) -> frozenset[type]:
        return ENGINE_KINDS

    def seated(self, table: TableConfig) -> bool:
        return True

    def recall_labels(
        self, table: TableConfig, seats: Mapping[int, str], events: Sequence[Logged]
    ) -> Labels:
        return recall.labels(seats, events)

    def describe(self, table: TableConfig, item: Logged, labels: Labels) -> Described | None:
        return recall.describe(item, labels)

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        return recall.game_of(timeline, terminal)

    # ------------------------------------------------------------------------- verify

    def replay(self, table: TableConfig, events: Sequence[Any], table_id: str) -> object:
        return replay(table.rules, events)

    def verify_checks(self, table_type: TableType) -> Mapping[type, str]:
        return _CHECKS

    def seeded_draw_problem(
        self, seed: ShoeSeed, table: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        return None  # nothing is drawn from the seed but the shoe


#: What etg verify checks of each record of the engine (ProgressiveWon: only its replay).
_CHECKS: Final[Mapping[type, str]] = {
    CardDealt: CARD,
    HoleCardRevealed: HOLE,
    WagerPlaced: WAGER,
    WagerSettled: WAGER,
    Decision: SEATED,
    DealerPeeked: DEALER_STEP,
    RoundCompleted: COMPLETED,
}

GAME: Final[Game] = BlackjackGame()
