"""The hybrid Blackjack tables as the platform sees them: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``hybrid``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.api import (
    COMPLETED,
    DEALER_STEP,
    HOLE,
    NUMBERED,
    NUMBERED_WAGER,
    PLAYER,
    PLAYER_WAGER,
    TABLE_CARD,
    Game,
    MainWager,
    NotOffered,
    StrategyReport,
    WireBot,
)
from game_server.games.blackjack import par
from game_server.games.blackjack.game import BlackjackFamilyGame
from game_server.games.blackjack.rules.events import (
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.strategy_report import twenty_one_report
from game_server.games.hybrid import config, recall, sim
from game_server.games.hybrid.info import hybrid_rules_for
from game_server.games.hybrid.machine import HybridMachine
from game_server.games.hybrid.pictures import hybrid_round_views
from game_server.games.hybrid.rules import no_hole_card, three_position
from game_server.games.hybrid.rules.events import (
    Hybrid3CardUsed,
    Hybrid3CommunityCard,
    Hybrid3Decision,
    Hybrid3WagerPlaced,
    Hybrid3WagerSettled,
)
from game_server.games.hybrid.rules.no_hole_card import (
    NO_HOLE_CARD_KINDS,
    CardDesignated,
    DealerHandCompleted,
)
from game_server.games.hybrid.rules.strategy import hybrid_model
from game_server.games.hybrid.rules.three_position import HYBRID3_KINDS
from game_server.games.hybrid.session import HybridSession, resume_round, three_position_rules
from game_server.recall.rounds import Logged, LoggedRound
from game_server.recall.timeline import Described, Labels, Timeline
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["GAME", "HybridGame"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


class HybridGame(BlackjackFamilyGame):
    """Blackjack at a hybrid table in stadium play (633b.5): any number of terminals take
    part in each round, none holds a seat. A
    :class:`~game_server.games.blackjack.game.BlackjackFamilyGame` whose engine, records and
    checks depend on its table type."""

    name = "hybrid"
    title = "Hybrid Blackjack"
    chapter = "58 Pa. Code 633b.5"
    config_game = "blackjack"
    table_types = frozenset({TableType.HYBRID, TableType.HYBRID_NO_HOLE_CARD})
    examples = (
        _CONFIGS / "hybrid-three-position.toml",
        _CONFIGS / "hybrid-no-hole-card.toml",
    )
    pictured: Final = {path.stem: path for path in examples}
    config_section = config
    machine_type = HybridMachine
    rules_document = staticmethod(hybrid_rules_for)
    round_views = staticmethod(hybrid_round_views)
    driver_type = staticmethod(sim.sim_driver)
    tally = staticmethod(sim.tally)
    logged_sim = staticmethod(sim.logged_sim)

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

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        return {}

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        assert isinstance(session, HybridSession)
        return resume_round(session, logged)

    # ------------------------------------------------------------------------- recall

    #: Its wagers are Blackjack's and the shared side wagers (their titles are theirs).
    wager_titles: Mapping[str, str] = {}

    def engine_kinds(self, table_type: TableType) -> frozenset[type]:
        if table_type is TableType.HYBRID:
            return HYBRID3_KINDS
        return NO_HOLE_CARD_KINDS

    def seated(self, table: TableConfig) -> bool:
        return False  # stadium play: no seats (633b.5(l))

    def recall_labels(
        self, table: TableConfig, seats: Mapping[int, str], events: Sequence[Logged]
    ) -> Labels:
        return recall.HybridLabels(table.table_type, seats, events)

    def describe(self, table: TableConfig, item: Logged, labels: Labels) -> Described | None:
        assert isinstance(labels, recall.HybridLabels)
        return recall.describe(item, labels)

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        return recall.hybrid_game_of(logged, timeline, terminal)

    # ---------------------------------------------------------- the par sheet (etg par)

    def strategy(self, table: TableConfig) -> StrategyReport:
        """The chart the combinatorial analysis derives for the rules this table's engine
        plays (633b.5: no peek and two hands at most without a hole card; the peek and no
        surrender at three positions); no published chart has these rules."""
        no_hole = table.table_type is not TableType.HYBRID
        return twenty_one_report(hybrid_model(table.rules, no_hole_card=no_hole), (), "")

    def main_wager(self, table: TableConfig) -> MainWager:
        if table.table_type is TableType.HYBRID:
            return par.main_wager(table, "58 Pa. Code 633b.5(a)-(v) (three-position hybrid)")
        return par.main_wager(table, "58 Pa. Code 633b.5(w)-(ee) (hybrid, no hole card)")

    def wire_bot(self, table: TableConfig) -> WireBot:
        raise NotOffered(
            f"table {table.table_id} is a hybrid table, which has no bot that plays over "
            "the wire (etg loadtest); etg demo --live plays it with terminal bots"
        )

    # ------------------------------------------------------------------------- verify

    def replay(self, table: TableConfig, events: Sequence[Any], table_id: str) -> object:
        if table.table_type is TableType.HYBRID:
            return three_position.replay(three_position_rules(table.rules), events)
        return no_hole_card.replay(table.rules, events)

    def verify_checks(self, table_type: TableType) -> Mapping[type, str]:
        return _THREE_POSITION if table_type is TableType.HYBRID else _NO_HOLE_CARD


#: What etg verify checks of each record at the three-position table: a player is his
#: terminal (633b.5(l)); the dealer's and the community's cards name none.
_THREE_POSITION: Final[Mapping[type, str]] = {
    CardDealt: TABLE_CARD,
    DealerPeeked: DEALER_STEP,
    HoleCardRevealed: HOLE,
    RoundCompleted: COMPLETED,
    Hybrid3CommunityCard: TABLE_CARD,
    Hybrid3WagerPlaced: PLAYER_WAGER,
    Hybrid3WagerSettled: PLAYER_WAGER,
    Hybrid3Decision: PLAYER,
    Hybrid3CardUsed: PLAYER,
}
#: ... at the table without a hole card: players numbered in the order they joined.
_NO_HOLE_CARD: Final[Mapping[type, str]] = {
    CardDealt: TABLE_CARD,
    RoundCompleted: COMPLETED,
    WagerPlaced: NUMBERED_WAGER,
    WagerSettled: NUMBERED_WAGER,
    Decision: NUMBERED,
    CardDesignated: NUMBERED,
    DealerHandCompleted: NUMBERED,
}

GAME: Final[Game] = HybridGame()
