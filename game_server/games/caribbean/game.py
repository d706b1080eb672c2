"""Caribbean Stud Poker as the platform sees it: :data:`GAME` (the ``etg.games`` entry point
``caribbean``); its recall sentences are :mod:`.recall`'s, its bots :mod:`.sim`'s.

Entry point: :data:`GAME`.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    Game,
    MathReport,
    NotOffered,
    StrategyReport,
)
from game_server.games.caribbean import config, recall, sim
from game_server.games.caribbean.info import rules_document
from game_server.games.caribbean.machine import CaribbeanMachine
from game_server.games.caribbean.returns import caribbean_returns
from game_server.games.caribbean.rules.events import (
    ANTE,
    BET,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    PROGRESSIVE,
    CaribbeanCardDealt,
    CaribbeanDealerRevealed,
    CaribbeanDecision,
    CaribbeanDecisionOpened,
    CaribbeanMysteryPaid,
    CaribbeanRoundCompleted,
    CaribbeanSettlementStarted,
    CaribbeanWagerPlaced,
    CaribbeanWagerSettled,
)
from game_server.games.caribbean.rules.game import (
    CARIBBEAN_KINDS,
    replay,
)
from game_server.games.caribbean.rules.rules import CaribbeanRules
from game_server.games.caribbean.session import (
    SECRECY,
    CaribbeanLedger,
    CaribbeanSession,
    bonus_draws,
    meter_specs,
)
from game_server.games.caribbean.strategy_report import strategy_report
from game_server.recall.rounds import LoggedRound
from game_server.rng.shoe import ShoeSeed
from game_server.rules.returns import WagerReturn
from game_server.rules.wagers.base import MeterSpec

__all__ = ["GAME", "CaribbeanGame"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


#: What etg verify checks of each record (the meter records are the platform's).
_CHECKS: Final[Mapping[type, str]] = {
    CaribbeanWagerPlaced: WAGER,
    CaribbeanCardDealt: SEAT_CARD,
    CaribbeanDecisionOpened: DEALER_STEP,
    CaribbeanDecision: SEATED,
    CaribbeanDealerRevealed: DEALER_STEP,
    CaribbeanSettlementStarted: SEEDED,
    CaribbeanWagerSettled: WAGER,
    CaribbeanMysteryPaid: WAGER,
    CaribbeanRoundCompleted: COMPLETED,
}


class CaribbeanGame(AntePokerGame):
    """Caribbean Stud Poker at the fully automated electronic table (639a, 639b.1): one
    freshly shuffled deck per round, one shared decision countdown."""

    name = "caribbean"
    title = "Caribbean Stud Poker"
    chapter = "58 Pa. Code 639a"
    config_game = config.CARIBBEAN
    examples = (_CONFIGS / "caribbean.toml",)
    placed_kinds = frozenset({CaribbeanWagerPlaced})
    settled_kinds = frozenset({CaribbeanWagerSettled, CaribbeanMysteryPaid})
    completed_kinds = frozenset({CaribbeanRoundCompleted})
    shoe_card_kinds = frozenset({CaribbeanCardDealt})
    wager_titles = recall.WAGER_TITLES
    config_section = config
    base_wager = sim.CARIBBEAN_BASE
    base_title = "Caribbean Stud Poker (Ante and Bet)"
    base_section = "58 Pa. Code 639a.11, 639a.12 (secondary source: the published rules)"
    base_covers = (ANTE, BET)
    session_type = CaribbeanSession
    machine_type = CaribbeanMachine
    ledger_type = CaribbeanLedger
    rules_document = staticmethod(rules_document)
    hidden_cards = SECRECY
    round_kinds = CARIBBEAN_KINDS
    checks = _CHECKS
    replay_at_table = staticmethod(replay)
    describe_record = staticmethod(recall.describe)
    driver_type = sim.CaribbeanDriver
    tally = staticmethod(sim.tally)
    logged_sim = staticmethod(sim.logged_sim)

    def round_views(self, logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
        from game_server.games.caribbean.pictures import caribbean_round_views

        return caribbean_round_views(logged, terminal)

    # --------------------------------------------------------- the Rules Submission

    # --------------------------------------------------------------- the live table

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        return meter_specs(table)

    # ----------------------------------------------------------- recall and verify

    def seeded_draw_problem(
        self, seed: ShoeSeed, table: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        """The Magic Card and Lucky Bonus position must be the draws of the round deck's seed."""
        want_magic, want_lucky = bonus_draws(seed, table.rules)
        wanted = () if want_magic is None else (want_magic,)
        if tuple(record.magic_card) == wanted and record.lucky_position == want_lucky:
            return None
        return (
            f"caribbean_settlement_started at seq {seq} draws Magic Card "
            f"{[str(c) for c in record.magic_card]} and Lucky position {record.lucky_position}, "
            f"but the seed of shoe {shoe} draws {[str(c) for c in wanted]} and {want_lucky} "
            "(639a.1: the table game system's draws come from the certified RNG)"
        )

    # ------------------------------------------------------------------ etg sim

    report_order: Mapping[str, int] = {sim.CARIBBEAN_BASE: 0, ANTE: 1, BET: 1}

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        return (
            f"{rounds:,} rounds of Caribbean Stud Poker at {seats} seat{'s' * (seats != 1)} of "
            f"{table.table_id} (one 52-card deck per round), the strategy of rules.strategy "
            f"(the published simple strategy with its exceptions by exact enumeration: etg "
            f"strategy), seed {seed}"
        )

    # ---------------------------------------------------------- par, math

    def optional_returns(self, table: TableConfig) -> list[WagerReturn]:
        return caribbean_returns(table.rules, table.must_hit_by)

    def strategy(self, table: TableConfig) -> StrategyReport:
        """The published simple strategy with its exceptions by exact enumeration, and its
        exact house edge (:mod:`.strategy_report`; the Bet Wager paytable is fixed)."""
        return strategy_report()

    def wager_limits(self, table: TableConfig, wager: str) -> tuple[int, int]:
        rules: CaribbeanRules = table.rules
        if wager == PROGRESSIVE and rules.progressive is not None:
            return min(rules.progressive.amounts), max(rules.progressive.amounts)
        if wager in (FIVE_CARD_PLAYER, FIVE_CARD_DEALER) and rules.five_card is not None:
            return min(rules.five_card.amounts), max(rules.five_card.amounts)
        raise NotOffered(f"this Caribbean Stud Poker table has no optional wager {wager!r}")

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        from game_server.games.caribbean.math import math_report

        return math_report(name, paytable, decks, every)


GAME: Final[Game] = CaribbeanGame()
