"""Ultimate Texas Hold 'Em as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``uth``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.api import (
    COMPLETED,
    DEALER_STEP,
    SEAT_CARD,
    SEATED,
    SEEDED,
    WAGER,
    BenchFigure,
    Game,
    MainWager,
    MathReport,
    NotOffered,
    StrategyReport,
    WireBot,
)
from game_server.games.base import GameBase
from game_server.games.uth import config, recall, sim
from game_server.games.uth.info import uth_rules_for
from game_server.games.uth.machine import UthMachine
from game_server.games.uth.math import math_report
from game_server.games.uth.pictures import uth_round_views
from game_server.games.uth.rules.events import (
    ANTE,
    BLIND,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    PLAY,
    PROGRESSIVE,
    TRIPS,
    UthCardDealt,
    UthDealerRevealed,
    UthDecision,
    UthHandShown,
    UthPayoutCapped,
    UthRoundCompleted,
    UthSettlementStarted,
    UthStreetStarted,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.game import UTH_KINDS, replay
from game_server.games.uth.rules.returns import uth_returns
from game_server.games.uth.rules.rules import UthRules
from game_server.games.uth.session import SECRECY, UthLedger, UthSession, bonus_draws, resume_round
from game_server.games.uth.strategy_report import strategy_report
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

__all__ = ["GAME", "UthGame"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


class UthGame(GameBase):
    """Ultimate Texas Hold 'Em at the fully automated electronic table (653a): one freshly
    shuffled deck per round, one shared decision countdown per street."""

    name = "uth"
    title = "Ultimate Texas Hold 'Em"
    chapter = "58 Pa. Code 653a"
    config_game = config.UTH
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (_CONFIGS / "uth.toml",)
    pictured: Final = {"ultimate-texas-holdem": examples[0]}

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

    def rules_document(self, table: TableConfig) -> dict[str, Any]:
        return uth_rules_for(table)

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        assert isinstance(session, UthSession)
        return resume_round(session, logged, seats)

    # ------------------------------------------------------------------------- recall

    wager_titles = recall.WAGER_TITLES

    def secrecy(self, table_type: TableType) -> Secrecy:
        """Its hidden cards, as its session declares them."""
        return SECRECY

    def engine_kinds(self, table_type: TableType) -> frozenset[type]:
        return UTH_KINDS

    def seated(self, table: TableConfig) -> bool:
        return True

    def recall_labels(
        self, table: TableConfig, seats: Mapping[int, str], events: Sequence[Logged]
    ) -> Labels:
        return recall.labels(seats, events)

    def describe(self, table: TableConfig, item: Logged, labels: Labels) -> Described | None:
        return recall.describe(item, labels)

    def round_views(self, logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
        return uth_round_views(logged, terminal)

    hand_wagers: frozenset[str] = frozenset()  # one hand per seat

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        return recall.uth_game_of(timeline, terminal)

    # -------------------------------------------------------------- simulation (etg sim)

    report_order: Mapping[str, int] = {sim.UTH_BASE: 0, ANTE: 1, BLIND: 1, PLAY: 1}

    def sim_seats(self, table: TableConfig) -> int:
        return int(table.rules.seats)  # every seat of the table

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        return (
            f"{rounds:,} rounds of Ultimate Texas Hold 'Em at {seats} seat"
            f"{'s' * (seats != 1)} of {table.table_id} (one 52-card deck per round), "
            f"rules.uth.strategy, seed {seed}"
        )

    def sim_driver(self, spec: SimSpec, chunk: int) -> RoundDriver:
        return sim.sim_driver(spec, chunk)

    def tally(self, events: Sequence[Any], result: SimResult) -> None:
        sim.tally(events, result)

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
        raise NotOffered(
            f"table {table.table_id} deals Ultimate Texas Hold 'Em, which has no console "
            "story: etg demo --live plays it with terminals"
        )

    # ---------------------------------------------------------- the par sheet (etg par)

    def optional_returns(self, table: TableConfig) -> list[WagerReturn]:
        return uth_returns(table.rules)

    def main_wager(self, table: TableConfig) -> MainWager:
        ante = table.rules.ante_limits
        return MainWager(
            wager=sim.UTH_BASE,
            title="Ultimate Texas Hold 'Em (Ante, Blind and Play)",
            section="58 Pa. Code 653a.12(a)-(b)",
            initial="Ante",
            minimum=ante.minimum,
            maximum=ante.maximum,
            covered=(ANTE,),
        )

    def strategy(self, table: TableConfig) -> StrategyReport:
        """The published near-optimal strategy, its published optimal figure and how close
        it comes (:mod:`.strategy_report`)."""
        return strategy_report(table.rules)

    def wager_limits(self, table: TableConfig, wager: str) -> tuple[int, int]:
        rules: UthRules = table.rules
        if wager == TRIPS:
            return rules.trips_limits.minimum, rules.trips_limits.maximum
        if wager == PROGRESSIVE:
            return min(rules.progressive_amounts), max(rules.progressive_amounts)
        if wager in (FIVE_CARD_PLAYER, FIVE_CARD_DEALER):
            return min(rules.five_card_amounts), max(rules.five_card_amounts)
        raise NotOffered(f"Ultimate Texas Hold 'Em has no optional wager {wager!r}")

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        return math_report(name, paytable, decks, every, hands, seed)

    def wire_bot(self, table: TableConfig) -> WireBot:
        raise NotOffered(
            f"table {table.table_id} deals Ultimate Texas Hold 'Em, which has no bot that plays "
            "over the wire (etg loadtest); etg demo --live plays it with terminal bots"
        )

    # ------------------------------------------------------------------------- verify

    def replay(self, table: TableConfig, events: Sequence[Any], table_id: str) -> object:
        return replay(table.rules, events, table_id)

    def verify_checks(self, table_type: TableType) -> Mapping[type, str]:
        return _CHECKS

    def seeded_draw_problem(
        self, seed: ShoeSeed, table: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        """653a.12(e)(3): the Magic Card and Lucky Bonus position of ``uth_settlement_started``
        must be the draws of the round deck's seed (:func:`bonus_draws`)."""
        magic, lucky = tuple(record.magic_card), record.lucky_position
        want_magic, want_lucky = bonus_draws(seed, table.rules)
        wanted = () if want_magic is None else (want_magic,)
        if magic == wanted and lucky == want_lucky:
            return None
        return (
            f"uth_settlement_started at seq {seq} draws Magic Card "
            f"{[str(c) for c in magic]} and Lucky position {lucky}, but the seed of "
            f"shoe {shoe} draws {[str(c) for c in wanted]} and {want_lucky} "
            "(653a.12(e)(3): the draws come from the certified RNG)"
        )

    def bench_figures(self) -> Sequence[BenchFigure]:
        """Its hand evaluator against the general poker ranker (:mod:`.bench`)."""
        from game_server.games.uth import bench

        return bench.figures()

    def work_rounds(self, seed: int) -> Mapping[str, Callable[[], object]]:
        """One seat and a full table of the example config (:func:`.bench.work_rounds`)."""
        from game_server.games.uth import bench

        return bench.work_rounds(seed)


#: What etg verify checks of each record of the engine (the meter awards and reseeds its
#: settlement logs are the platform's).
_CHECKS: Final[Mapping[type, str]] = {
    UthCardDealt: SEAT_CARD,
    UthWagerPlaced: WAGER,
    UthWagerSettled: WAGER,
    UthDecision: SEATED,
    UthHandShown: SEATED,
    UthPayoutCapped: SEATED,
    UthStreetStarted: DEALER_STEP,
    UthDealerRevealed: DEALER_STEP,
    UthSettlementStarted: SEEDED,
    UthRoundCompleted: COMPLETED,
}

GAME: Final[Game] = UthGame()
