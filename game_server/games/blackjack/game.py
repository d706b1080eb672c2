"""Blackjack at the fully automated table as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``blackjack``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.api import (
    CARD,
    COMPLETED,
    DEALER_STEP,
    HOLE,
    SEATED,
    WAGER,
    BenchFigure,
    BusyTable,
    Game,
    MainWager,
    MathReport,
    StrategyReport,
    WireBot,
)
from game_server.games.base import GameBase
from game_server.games.blackjack import config, demo, par, recall, sim
from game_server.games.blackjack.bot import BlackjackWireBot
from game_server.games.blackjack.info import blackjack_rules_for
from game_server.games.blackjack.machine import RoundMachine
from game_server.games.blackjack.pictures import blackjack_round_views
from game_server.games.blackjack.rules.charts import blackjack_model
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DOUBLE,
    INSURANCE,
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import ENGINE_KINDS, replay
from game_server.games.blackjack.session import SECRECY, TableSession, meter_specs, resume_round
from game_server.games.blackjack.strategy_report import twenty_one_report
from game_server.recall.rounds import Logged, LoggedRound
from game_server.recall.timeline import Described, Labels, Timeline
from game_server.rng.shoe import ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.rules.returns import WagerReturn
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.sim import RoundDriver, SimResult, SimSpec
from game_server.table.api import HostedTable, ReactorTime
from game_server.table.ledger import Ledger
from game_server.table.secrecy import Secrecy
from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["GAME", "BlackjackFamilyGame", "BlackjackGame"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


class BlackjackFamilyGame(GameBase):
    """What a game of the Blackjack family at the fully automated table keeps of Blackjack's
    (a game built on the Blackjack engine, as Spanish 21 is, subclasses it): the records the
    platform folds and ``etg verify`` checks, the ledger, the meters, the recall labels and
    hand wagers, and the simulation's report order, seats and tally."""

    table_types = frozenset({TableType.FULLY_AUTOMATED})

    # ----------------------------------------------------------------- the live table

    placed_kinds = frozenset({WagerPlaced})
    settled_kinds = frozenset({WagerSettled})
    completed_kinds = frozenset({RoundCompleted})
    shoe_card_kinds = frozenset({CardDealt})

    def secrecy(self, table_type: TableType) -> Secrecy:
        """Its hidden cards, as its session declares them."""
        return SECRECY

    def new_ledger(self) -> Ledger:
        return Ledger()

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        return {meter_id: spec for meter_id, (_, spec) in meter_specs(table).items()}

    # ------------------------------------------------------------------------- recall

    hand_wagers: frozenset[str] = frozenset({BLACKJACK, DOUBLE})

    def recall_labels(
        self, table: TableConfig, seats: Mapping[int, str], events: Sequence[Logged]
    ) -> Labels:
        return recall.labels(seats, events)

    # -------------------------------------------------------------- simulation (etg sim)

    report_order: Mapping[str, int] = {BLACKJACK: 0, INSURANCE: 1}

    def sim_seats(self, table: TableConfig) -> int:
        return 7

    def tally(self, events: Sequence[Any], result: SimResult) -> None:
        sim.tally(events, result)

    # ------------------------------------------------------------------------- verify

    def verify_checks(self, table_type: TableType) -> Mapping[type, str]:
        return _CHECKS


class BlackjackGame(BlackjackFamilyGame):
    """Blackjack dealt by the table game system alone (633b.8 and the fully automated
    electronic table of 605a)."""

    name = "blackjack"
    title = "Blackjack"
    chapter = "58 Pa. Code 633a, 633b"
    config_game = "blackjack"
    links_floor_meters = True
    examples = (
        _CONFIGS / "fully-automated-blackjack.toml",
        _CONFIGS / "fully-automated-all-side-wagers.toml",
    )
    pictured: Final = {"blackjack": examples[0]}

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.BlackjackBuilder(data, source).build()

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return config.file_shape(logged)

    # ----------------------------------------------------------------- the live table

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

    def describe(self, table: TableConfig, item: Logged, labels: Labels) -> Described | None:
        return recall.describe(item, labels)

    def round_views(self, logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
        return blackjack_round_views(logged, terminal)

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        return recall.game_of(timeline, terminal)

    # -------------------------------------------------------------- simulation (etg sim)

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        decks = table.rules.decks
        return (
            f"{rounds:,} rounds at {seats} seat{'s' * (seats != 1)} of {table.table_id} "
            f"({decks} deck{'s' * (decks != 1)}, {table.shuffle.value}), basic strategy, "
            f"seed {seed}"
        )

    def sim_driver(self, spec: SimSpec, chunk: int) -> RoundDriver:
        return sim.sim_driver(spec, chunk)

    def logged_sim(
        self,
        table: TableConfig,
        log: EventSink,
        shoes: SealedShoes,
        *,
        rounds: int,
        seats: int,
        progress: Callable[[int], None] | None = None,
    ) -> TableBook:
        return sim.logged_sim(table, log, shoes, rounds=rounds, seats=seats, progress=progress)

    def console_demo(
        self,
        table: TableConfig,
        *,
        rounds: int,
        seats: int,
        seed: int | None,
        delay: float,
        echo: Callable[[str], Any],
        sleep: Callable[[float], Any],
    ) -> SimResult:
        return demo.run_demo(
            table, rounds=rounds, seats=seats, seed=seed, delay=delay, echo=echo, sleep=sleep
        )

    # ---------------------------------------------------------- the par sheet (etg par)

    def optional_returns(self, table: TableConfig) -> list[WagerReturn]:
        return par.optional_returns(table)

    def strategy(self, config: TableConfig) -> StrategyReport:
        """The chart the combinatorial analysis derives for the table's rules (the bots',
        ``etg sim``'s and ``etg par``'s), compared with the Wizard of Odds 4-8 deck chart."""
        model = blackjack_model(config.rules)
        comparison = ""
        if model.peeks and model.decks >= 4:
            rule = "hits" if model.hits_soft_17 else "stands on"
            comparison = f"the Wizard of Odds 4-8 deck chart where the dealer {rule} soft 17"
        return twenty_one_report(model, (), comparison)

    def main_wager(self, table: TableConfig) -> MainWager:
        return par.main_wager(table, "58 Pa. Code 633a; 605a (fully automated table)")

    def wager_limits(self, table: TableConfig, wager: str) -> tuple[int, int]:
        return par.wager_limits(table, wager)

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        return None  # its side wagers are the shared registry's (etg math WAGER)

    def wire_bot(self, table: TableConfig) -> WireBot:
        return BlackjackWireBot(table)

    # ------------------------------------------------------------------------- verify

    def replay(self, table: TableConfig, events: Sequence[Any], table_id: str) -> object:
        return replay(table.rules, events)

    def seeded_draw_problem(
        self, seed: ShoeSeed, table: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        return None  # nothing is drawn from the seed but the shoe

    def bench_figures(self) -> Sequence[BenchFigure]:
        """Its engine against ``blackjack21`` and a full table (:mod:`.bench`)."""
        from game_server.games.blackjack import bench

        return bench.figures()

    def work_rounds(self, seed: int) -> Mapping[str, Callable[[], object]]:
        """One seat as ``engine_vs_blackjack21`` plays it, seven as ``full_seat_rounds_per_s``
        (:func:`.bench.work_rounds`)."""
        from game_server.games.blackjack import bench

        return bench.work_rounds(seed)

    def busy_table(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        variant: int,
    ) -> BusyTable:
        """Basic-strategy bots at a live table (:class:`.bench.BusyTable`)."""
        from game_server.games.blackjack import bench

        return bench.BusyTable(config, sink, shoes, seats, variant)


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
