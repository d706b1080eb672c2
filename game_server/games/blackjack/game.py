"""Blackjack at the fully automated table as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``blackjack``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    StrategyReport,
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
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline
from game_server.rng.shoe import ShoeSeed
from game_server.rules.returns import WagerReturn
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.sim import SimResult
from game_server.table.session import EventSink, SealedShoes

__all__ = ["GAME", "BlackjackFamilyGame", "BlackjackGame"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


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


class BlackjackFamilyGame(GameBase):
    """What a game of the Blackjack family keeps of Blackjack's (a game built on the
    Blackjack engine, as Spanish 21 and the hybrid tables are, subclasses it): the records the
    platform folds and ``etg verify`` checks, the hole card, the meters, the recall labels and
    hand wagers, the simulation's report order, seats, title and tally, the console story,
    and the par sheet's side wagers."""

    table_types = frozenset({TableType.FULLY_AUTOMATED})

    # ----------------------------------------------------------------- the live table

    placed_kinds = frozenset({WagerPlaced})
    settled_kinds = frozenset({WagerSettled})
    completed_kinds = frozenset({RoundCompleted})
    shoe_card_kinds = frozenset({CardDealt})
    hidden_cards = SECRECY

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        return {meter_id: spec for meter_id, (_, spec) in meter_specs(table).items()}

    # ------------------------------------------------------------------------- recall

    hand_wagers: frozenset[str] = frozenset({BLACKJACK, DOUBLE})
    labels_type = staticmethod(recall.labels)
    describe_record = staticmethod(recall.describe)

    # ------------------------------------------------------------------------- verify

    checks = _CHECKS

    def seeded_draw_problem(
        self, seed: ShoeSeed, table: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        return None  # nothing is drawn from the seed but the shoe

    # -------------------------------------------------------------- simulation (etg sim)

    report_order: Mapping[str, int] = {BLACKJACK: 0, INSURANCE: 1}
    tally = staticmethod(sim.tally)

    def sim_seats(self, table: TableConfig) -> int:
        return 7

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        decks = table.rules.decks
        return (
            f"{rounds:,} rounds at {seats} seat{'s' * (seats != 1)} of {table.table_id} "
            f"({decks} deck{'s' * (decks != 1)}, {table.shuffle.value}), basic strategy, "
            f"seed {seed}"
        )

    def console_demo(
        self,
        config: TableConfig,
        *,
        rounds: int,
        seats: int,
        seed: int | None,
        delay: float,
        echo: Callable[[str], Any],
        sleep: Callable[[float], Any],
    ) -> SimResult:
        return demo.run_demo(
            config, rounds=rounds, seats=seats, seed=seed, delay=delay, echo=echo, sleep=sleep
        )

    # ---------------------------------------------------------- the par sheet (etg par)

    def optional_returns(self, table: TableConfig) -> list[WagerReturn]:
        return par.optional_returns(table)

    def wager_limits(self, table: TableConfig, wager: str) -> tuple[int, int]:
        return par.wager_limits(table, wager)


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
    config_section = config
    session_type = TableSession
    machine_type = RoundMachine
    resume_round = staticmethod(resume_round)
    rules_document = staticmethod(blackjack_rules_for)
    wager_titles = recall.WAGER_TITLES
    round_kinds = ENGINE_KINDS
    replay_round = staticmethod(replay)
    round_views = staticmethod(blackjack_round_views)
    driver_type = staticmethod(sim.sim_driver)
    logged_sim = staticmethod(sim.logged_sim)
    wire_bot = BlackjackWireBot

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        return recall.game_of(timeline, terminal)

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


GAME: Final[Game] = BlackjackGame()
