"""Four Card Poker as the platform sees it: :data:`GAME` (the ``etg.games`` entry point
``fourcard``), 58 Pa. Code 641a and 641b.1.

Entry point: :data:`GAME`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from game_server.config import TableConfig
from game_server.games.ante_poker.game import AntePokerGame
from game_server.games.api import (
    COMPLETED,
    DEALER_STEP,
    SEAT_CARD,
    SEATED,
    WAGER,
    Game,
    MathReport,
    NotOffered,
    StrategyReport,
)
from game_server.games.fourcard import config, recall, sim
from game_server.games.fourcard.info import rules_document
from game_server.games.fourcard.machine import FourCardMachine
from game_server.games.fourcard.math import math_report
from game_server.games.fourcard.rules.events import (
    ACES_UP,
    ANTE,
    PLAY,
    PROGRESSIVES,
    FourCardCardDealt,
    FourCardDealerRevealed,
    FourCardDecision,
    FourCardMysteryPaid,
    FourCardRoundCompleted,
    FourCardWagerPlaced,
    FourCardWagerSettled,
)
from game_server.games.fourcard.rules.game import FOURCARD_KINDS, replay
from game_server.games.fourcard.rules.returns import fourcard_returns
from game_server.games.fourcard.rules.rules import FourCardRules
from game_server.games.fourcard.session import (
    SECRECY,
    FourCardLedger,
    FourCardSession,
)
from game_server.games.fourcard.strategy_report import strategy_report
from game_server.rules.returns import WagerReturn

__all__ = ["GAME", "FourCardGame"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


#: What etg verify checks of each record (the meters' own records are the platform's).
_CHECKS: Final[Mapping[type, str]] = {
    FourCardWagerPlaced: WAGER,
    FourCardCardDealt: SEAT_CARD,
    FourCardDecision: SEATED,
    FourCardDealerRevealed: DEALER_STEP,
    FourCardWagerSettled: WAGER,
    FourCardMysteryPaid: WAGER,
    FourCardRoundCompleted: COMPLETED,
}


class FourCardGame(AntePokerGame):
    """Four Card Poker at the fully automated electronic table: one freshly shuffled deck
    per round, one shared decision countdown."""

    name = "fourcard"
    title = "Four Card Poker"
    chapter = "58 Pa. Code 641a, 641b"
    config_game = config.FOURCARD
    examples = (_CONFIGS / "fourcard.toml",)
    pictured: Final = {"four-card-poker": examples[0]}

    config_section = config
    base_wager = sim.FOURCARD_BASE
    base_title = "Four Card Poker (Ante, Ante Bonus and Play)"
    base_section = "58 Pa. Code 641a (procedure and Ante Bonus: secondary source)"
    base_covers = (ANTE, PLAY)

    # ----------------------------------------------------------------- the live table

    placed_kinds = frozenset({FourCardWagerPlaced})
    settled_kinds = frozenset({FourCardWagerSettled, FourCardMysteryPaid})
    completed_kinds = frozenset({FourCardRoundCompleted})
    shoe_card_kinds = frozenset({FourCardCardDealt})
    session_type = FourCardSession
    machine_type = FourCardMachine
    ledger_type = FourCardLedger
    rules_document = staticmethod(rules_document)
    hidden_cards = SECRECY

    # ------------------------------------------------------------------------- recall

    wager_titles = recall.WAGER_TITLES
    round_kinds = FOURCARD_KINDS
    labels_type = staticmethod(recall.labels)
    describe_record = staticmethod(recall.describe)

    # ------------------------------------------------------------------------- verify

    replay_at_table = staticmethod(replay)
    checks = _CHECKS

    # -------------------------------------------------------------- simulation (etg sim)

    report_order: Mapping[str, int] = {sim.FOURCARD_BASE: 0, ANTE: 1, PLAY: 1}
    driver_type = sim.Driver
    tally = staticmethod(sim.tally)
    logged_sim = staticmethod(sim.logged_sim)

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        return (
            f"{rounds:,} rounds of Four Card Poker at {seats} seat{'s' * (seats != 1)} of "
            f"{table.table_id} (one 52-card deck per round), the optimal strategy by the up "
            f"card of rules.strategy (etg strategy), seed {seed}"
        )

    # ---------------------------------------------------------- the par sheet (etg par)

    def optional_returns(self, table: TableConfig) -> list[WagerReturn]:
        return fourcard_returns(table.rules)

    def strategy(self, table: TableConfig) -> StrategyReport:
        """The optimal strategy by the up card, with its exact house edge
        (:mod:`.strategy_report`)."""
        return strategy_report(table.rules)

    def wager_limits(self, table: TableConfig, wager: str) -> tuple[int, int]:
        rules: FourCardRules = table.rules
        if wager == ACES_UP and rules.aces_up_limits is not None:
            return rules.aces_up_limits.minimum, rules.aces_up_limits.maximum
        if wager in PROGRESSIVES and (offer := rules.progressive(wager)) is not None:
            return min(offer.amounts), max(offer.amounts)
        raise NotOffered(f"this Four Card Poker table offers no optional wager {wager!r}")

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        return math_report(name, paytable, decks, every, hands, seed)


GAME: Final[Game] = FourCardGame()
