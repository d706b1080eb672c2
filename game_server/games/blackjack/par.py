"""The Blackjack tables' par sheet parts (``etg par``): the main wager and the returns of the
other wagers (the player-edge guard's figures), and how a figure that depends on play is
measured for :data:`~game_server.rules.returns.PAR_FIGURES`.

Entry points: :func:`main_wager`, :func:`optional_returns`, :func:`wager_limits`,
:func:`measure_par_figure`.
"""

from __future__ import annotations

import dataclasses

from game_server.config import TableConfig
from game_server.games import game_for
from game_server.games.api import MainWager
from game_server.games.blackjack.rules.events import BLACKJACK, INSURANCE
from game_server.games.blackjack.rules.returns import offered_returns
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.rules.limits import WagerLimits
from game_server.rules.returns import MustHitByTerms, ParFigure, WagerReturn
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.base import SideWagerOffer
from game_server.sim import SimSpec, run_sim

__all__ = ["main_wager", "measure_par_figure", "optional_returns", "wager_limits"]


def main_wager(config: TableConfig, section: str) -> MainWager:
    """The Blackjack wager as the par sheet states it (``section``: the regulation of the
    table it is dealt at): figures per original wager, insurance left out of the hold (basic
    strategy never takes it)."""
    rules: BlackjackRules = config.rules
    limits = rules.main_limits
    return MainWager(
        wager=BLACKJACK,
        title="Blackjack",
        section=section,
        initial="original Blackjack wager",
        minimum=limits.minimum,
        maximum=limits.maximum,
        unheld=(INSURANCE,),
    )


def optional_returns(config: TableConfig) -> list[WagerReturn]:
    """Every side wager's return, and Insurance's if offered; a Must-Hit-By Mystery Bonus
    adds its meter to each qualifying wager."""
    mystery = config.must_hit_by
    terms = None if mystery is None else MustHitByTerms(mystery.spec(), mystery.qualifying)
    return offered_returns(config.rules, terms)


def wager_limits(config: TableConfig, wager: str) -> tuple[int, int]:
    """The limits of an offered side wager."""
    limits = config.rules.offers[wager].limits
    return limits.minimum, limits.maximum


def measure_par_figure(
    base: TableConfig,
    wager: str,
    decks: int,
    options: tuple[tuple[str, str | int | bool], ...],
    rounds: int,
    seed: int,
    reading: str,
    workers: int = 1,
) -> ParFigure:
    """Measure a wager that depends on play as :data:`~game_server.rules.returns.PAR_FIGURES`
    were measured: ``base``'s rules with ``decks`` decks and only this wager, on its first
    paytable, at $1, with ``options``, played as ``etg par`` plays (one seat or player, a new
    shoe every round). The rules are built directly, not loaded: the guard would refuse a
    Rules Submission offering a reading whose figure is being measured."""
    side = REGISTRY[wager]
    offer = SideWagerOffer(
        side, next(iter(side.paytables.values())), WagerLimits(100, 10_000, 100), options
    )
    rules: BlackjackRules = dataclasses.replace(base.rules, decks=decks, side_wagers=(offer,))
    spec = SimSpec(
        rules=rules,
        every_round=True,
        cut_card=None,
        seats=1,
        seed=seed,
        rounds=rounds,
        table_id=f"par-{base.table_id}",
        table_type=base.table_type,
        game=game_for(base).name,
    )
    stats = run_sim(spec, workers).wagers[wager]
    ci = stats.ci95()
    assert ci is not None
    return ParFigure(
        wager=wager,
        reading=reading,
        decks=decks,
        options=options,
        rounds=rounds,
        seed=seed,
        wagered=stats.wagered,
        paid=stats.paid,
        low=round(ci[0], 6),
        high=round(ci[1], 6),
    )
