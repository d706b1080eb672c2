"""Ultimate Texas Hold 'Em as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``uth``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.ante_poker.game import AntePokerGame
from game_server.games.api import (
    COMPLETED,
    DEALER_STEP,
    SEAT_CARD,
    SEATED,
    SEEDED,
    WAGER,
    BenchFigure,
    Game,
    MathReport,
    NotOffered,
    StrategyReport,
    WireBot,
)
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
from game_server.games.uth.session import SECRECY, UthLedger, UthSession, bonus_draws
from game_server.games.uth.strategy_report import strategy_report
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline
from game_server.rng.shoe import ShoeSeed
from game_server.rules.returns import WagerReturn
from game_server.sim import SimResult

__all__ = ["GAME", "UthGame"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


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


class UthGame(AntePokerGame):
    """Ultimate Texas Hold 'Em at the fully automated electronic table (653a): one freshly
    shuffled deck per round, one shared decision countdown per street."""

    name = "uth"
    title = "Ultimate Texas Hold 'Em"
    chapter = "58 Pa. Code 653a"
    config_game = config.UTH
    examples = (_CONFIGS / "uth.toml",)
    pictured: Final = {"ultimate-texas-holdem": examples[0]}
    config_section = config
    base_wager = sim.UTH_BASE
    base_title = "Ultimate Texas Hold 'Em (Ante, Blind and Play)"
    base_section = "58 Pa. Code 653a.12(a)-(b)"
    base_covers = (ANTE,)

    # ----------------------------------------------------------------- the live table

    placed_kinds = frozenset({UthWagerPlaced})
    settled_kinds = frozenset({UthWagerSettled})
    completed_kinds = frozenset({UthRoundCompleted})
    shoe_card_kinds = frozenset({UthCardDealt})
    session_type = UthSession
    machine_type = UthMachine
    ledger_type = UthLedger
    rules_document = staticmethod(uth_rules_for)
    hidden_cards = SECRECY

    # ------------------------------------------------------------------------- recall

    wager_titles = recall.WAGER_TITLES
    round_kinds = UTH_KINDS
    labels_type = staticmethod(recall.labels)
    describe_record = staticmethod(recall.describe)
    replay_at_table = staticmethod(replay)
    checks = _CHECKS
    round_views = staticmethod(uth_round_views)

    hand_wagers: frozenset[str] = frozenset()  # one hand per seat

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        return recall.uth_game_of(timeline, terminal)

    # -------------------------------------------------------------- simulation (etg sim)

    report_order: Mapping[str, int] = {sim.UTH_BASE: 0, ANTE: 1, BLIND: 1, PLAY: 1}
    driver_type = staticmethod(sim.sim_driver)
    tally = staticmethod(sim.tally)
    logged_sim = staticmethod(sim.logged_sim)

    def sim_seats(self, table: TableConfig) -> int:
        return int(table.rules.seats)  # every seat of the table

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        return (
            f"{rounds:,} rounds of Ultimate Texas Hold 'Em at {seats} seat"
            f"{'s' * (seats != 1)} of {table.table_id} (one 52-card deck per round), "
            f"rules.uth.strategy, seed {seed}"
        )

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


GAME: Final[Game] = UthGame()
