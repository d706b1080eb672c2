"""Spanish 21 at the fully automated table as the platform sees it: :data:`GAME`.

Built on the Blackjack package: its engine (:class:`~.rules.round.Spanish21Round` over
``BlackjackRound``), records, session, round machine, view, recall sentences and pictures, and
sim tally are Blackjack's, with what Spanish 21 changes (this package's modules say what).

Entry point: :data:`GAME` (the ``etg.games`` entry point ``spanish21``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.api import (
    Game,
    MainWager,
    MathReport,
    PublishedFigure,
    StrategyReport,
)
from game_server.games.base import GameBase
from game_server.games.blackjack import recall as blackjack_recall
from game_server.games.blackjack.game import BlackjackFamilyGame
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    INSURANCE,
)
from game_server.games.blackjack.strategy_report import twenty_one_report
from game_server.games.spanish21 import config, math, recall, sim
from game_server.games.spanish21.info import spanish21_rules_for
from game_server.games.spanish21.machine import Spanish21Machine
from game_server.games.spanish21.rules.returns import optional_returns
from game_server.games.spanish21.rules.round import ENGINE_KINDS, replay
from game_server.games.spanish21.rules.strategy import spanish21_model
from game_server.games.spanish21.session import Spanish21Session, resume_round
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline
from game_server.rules.returns import WagerReturn

__all__ = ["GAME", "Spanish21Game"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"


class Spanish21Game(BlackjackFamilyGame):
    """Spanish 21 (58 Pa. Code 635a) with Match the Dealer (635b.1), dealt by the table game
    system alone: a :class:`~game_server.games.blackjack.game.BlackjackFamilyGame` (Blackjack's
    records, ledger, meters, recall labels, simulation tally) with what Spanish 21 changes."""

    name = "spanish21"
    title = "Spanish 21"
    chapter = "58 Pa. Code 635a, 635b"
    config_game = config.GAME
    examples = (_CONFIGS / "spanish21.toml",)
    pictured: Final = {"spanish21": examples[0]}
    config_section = config
    session_type = Spanish21Session
    machine_type = Spanish21Machine
    resume_round = staticmethod(resume_round)
    rules_document = staticmethod(spanish21_rules_for)
    round_kinds = ENGINE_KINDS
    replay_round = staticmethod(replay)
    describe_record = staticmethod(recall.describe)
    round_views = staticmethod(recall.round_views)
    driver_type = staticmethod(sim.sim_driver)
    logged_sim = staticmethod(sim.logged_sim)
    #: It tells no console story (Blackjack's is Blackjack's): etg demo --live plays it.
    console_demo = GameBase.console_demo

    # ------------------------------------------------------------------------- recall

    #: Its own wagers only (titles are looked up across every game: Blackjack names the
    #: main wager, the double and insurance; :func:`.recall.describe` renames them).
    wager_titles = recall.OWN_TITLES

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        found = blackjack_recall.game_of(timeline, terminal)
        if found is not None:
            found["game"] = self.name
        return found

    # -------------------------------------------------------------- simulation (etg sim)

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        rules = table.rules
        s17 = "dealer hits soft 17" if rules.dealer_hits_soft_17 else "dealer stands on 17s"
        return (
            f"{rounds:,} rounds at {seats} seat{'s' * (seats != 1)} of {table.table_id} "
            f"({rules.decks} Spanish decks, {s17}, {table.shuffle.value}), Spanish 21 basic "
            f"strategy, seed {seed}"
        )

    # ---------------------------------------------------------- the par sheet (etg par)

    def optional_returns(self, table: TableConfig) -> list[WagerReturn]:
        return optional_returns(table.rules)

    def strategy(self, config: TableConfig) -> StrategyReport:
        """The chart the combinatorial analysis derives for the table's rules (the bots',
        ``etg sim``'s and ``etg par``'s; the super bonus at the table minimum, the wager they
        place), compared with the Wizard of Odds Spanish 21 H17 chart card count by card
        count."""
        model = spanish21_model(config.rules)
        published: tuple[PublishedFigure, ...] = ()
        comparison = ""
        if model.hits_soft_17:
            comparison = "the Wizard of Odds Spanish 21 chart, six to eight decks, H17"
        if model.decks in (6, 8):
            h17 = model.hits_soft_17
            edge = {(6, True): 0.0078, (8, True): 0.0080, (6, False): 0.0037, (8, False): 0.0038}
            published = (
                PublishedFigure(
                    edge[(model.decks, h17)],
                    "Wizard of Odds, Spanish 21, house edge by rules (0.78%/0.80% H17, "
                    "0.37%/0.38% S17 for 6/8 decks); on the same page the super bonus at a $5 "
                    "or $25 wager lowers a six-deck edge by 0.030%",
                    f"{model.decks} Spanish decks, dealer {'hits' if h17 else 'stands on'} soft "
                    "17, double any number of cards, rescue, late surrender, resplit and hit "
                    "split aces, no redoubling; the super bonus not counted",
                ),
            )
        return twenty_one_report(model, published, comparison)

    def main_wager(self, table: TableConfig) -> MainWager:
        limits = table.rules.main_limits
        return MainWager(
            wager=BLACKJACK,
            title="Spanish 21",
            section="58 Pa. Code 635a; 605a (fully automated table)",
            initial="original Spanish 21 wager",
            minimum=limits.minimum,
            maximum=limits.maximum,
            unheld=(INSURANCE,),
        )

    def wager_limits(self, table: TableConfig, wager: str) -> tuple[int, int]:
        limits = table.rules.offers[wager].limits
        return limits.minimum, limits.maximum

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        return math.math_report(name, paytable, decks, every)

    # ------------------------------------------------------------------------- verify


GAME: Final[Game] = Spanish21Game()
