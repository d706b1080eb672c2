"""Caribbean Stud Poker's bots (``etg sim``, ``etg par``, ``etg sim --log``): the strategy of
:mod:`.rules.strategy` on every seat, a new deck per round, and the tally of its wagers.

Entry points: :class:`CaribbeanDriver`, :func:`tally`, :func:`logged_sim`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from game_server.config import MustHitBy, TableConfig
from game_server.games.ante_poker.sim import play_logged
from game_server.games.caribbean.rules import strategy
from game_server.games.caribbean.rules.events import (
    ANTE,
    BET,
    ENVY,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    LUCKY,
    MAGIC,
    MYSTERY,
    PROGRESSIVE,
    CaribbeanMysteryPaid,
    CaribbeanWagerPlaced,
    CaribbeanWagerSettled,
)
from game_server.games.caribbean.rules.game import CaribbeanRound
from game_server.games.caribbean.rules.rules import CaribbeanRules
from game_server.games.caribbean.session import CaribbeanSession, bonus_draws, feed_mystery
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.rules.wagers import must_hit_by
from game_server.sim import RoundTally, SimResult, SimSpec, mystery_draw
from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["CARIBBEAN_BASE", "CaribbeanDriver", "logged_sim", "table_wagers", "tally"]

#: The base game's two wagers together (the house edge per Ante).
CARIBBEAN_BASE: Final = "ante+bet"


def table_wagers(rules: CaribbeanRules, ante: int | None = None) -> dict[str, int]:
    """What a bot places: the Ante (the minimum if None) and every optional wager at its
    smallest amount."""
    wagers = {ANTE: rules.ante_limits.minimum if ante is None else ante}
    if rules.progressive is not None:
        wagers[PROGRESSIVE] = min(rules.progressive.amounts)
    if rules.five_card is not None:
        wagers[FIVE_CARD_PLAYER] = wagers[FIVE_CARD_DEALER] = min(rules.five_card.amounts)
    return wagers


def _group(wager: str) -> str:
    if wager in (ENVY, MYSTERY):  # 639b.1: the Progressive Payout Wager qualifies
        return PROGRESSIVE
    return wager.removesuffix(MAGIC).removesuffix(LUCKY)


class CaribbeanDriver:
    """Whole rounds through the engine, the strategy of :mod:`.rules.strategy` on every seat:
    a new deck per round, the meters fed at the deal and awarded at settlement, the Magic
    Card and Lucky Bonus drawn from the round deck's seed, as at the live table; the
    Must-Hit-By meter (639b.1) fed by the qualifying seats, its triggers drawn from the
    simulation's own certified stream, its awards counted with the Progressive Payout."""

    def __init__(self, spec: SimSpec, chunk: int) -> None:
        self.rules: CaribbeanRules = spec.rules
        self.seats = spec.seats
        self.table_id = f"{spec.table_id}-{chunk}"
        self.seed = spec.seed
        self.wagers = table_wagers(self.rules, spec.main_wager)
        self.meters = MeterBank()
        for meter_id, meter in self.rules.meters().items():
            self.meters.link(meter_id, meter)
        self.mystery: MustHitBy | None = spec.must_hit_by
        self.places = {seat: f"seat-{seat}" for seat in range(1, self.seats + 1)}
        self._draw = mystery_draw(self.seed, self.table_id)
        self.mystery_id = f"{self.table_id}:{MYSTERY}"
        if self.mystery is not None:
            opened = must_hit_by.open_meter(self.mystery_id, self.mystery.spec(), self._draw)
            self.meters.commit(opened)
        self.rounds = 0

    def play_round(self) -> list[Any]:
        self.rounds += 1
        deck = Shoe(1, ShoeSeed.from_test_seed(self.seed, self.table_id, self.rounds))
        game = CaribbeanRound(self.rules, self.table_id)
        out: list[Any] = []
        for seat in range(1, self.seats + 1):
            out += game.place_wagers(seat, self.wagers)
        for meter_id, stake, place in game.contributions():
            self.meters.contribute(meter_id, stake, place)
        if self.mystery is not None:
            fed = feed_mystery(
                game, self.mystery, self.mystery_id, self.meters, self._draw, self.places
            )
            out += [ev for _, ev in fed if type(ev) is CaribbeanMysteryPaid]
        out += game.deal(deck)
        up = game.dealer[0]
        for seat in game.pending:
            out += game.decide(seat, strategy.decide(game.seats[seat].cards, up))
        magic, lucky = bonus_draws(deck.seed, self.rules)
        meters = {m: self.meters.meter(m) for m in self.rules.meters()}
        out += game.settle(meters, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return out


def tally(events: Iterable[Any], result: SimResult) -> None:
    """Each wager (the Envy Bonus with the Progressive Payout, a Magic Card or Lucky Bonus
    with its Five Card Hand Bonus), and the Ante and Bet together under ``ante+bet``."""
    this = RoundTally(result)
    for ev in events:
        kind = type(ev)
        if kind is CaribbeanMysteryPaid:
            this.paid(ev.seat, PROGRESSIVE, ev.paid)
            this.line(PROGRESSIVE, "Must-Hit-By Mystery Bonus")
            continue
        if kind is not CaribbeanWagerPlaced and kind is not CaribbeanWagerSettled:
            continue
        group = _group(ev.wager)
        for name in [group, CARIBBEAN_BASE] if group in (ANTE, BET) else [group]:
            if kind is CaribbeanWagerPlaced:
                this.placed(ev.seat, name, ev.amount)
            else:
                this.paid(ev.seat, name, ev.paid)
                this.line(name, ev.line)
    this.close()


def logged_sim(
    config: TableConfig,
    log: EventSink,
    shoes: SealedShoes,
    *,
    rounds: int,
    seats: int,
    progress: Callable[[int], None] | None = None,
) -> TableBook:
    """``etg sim --log``: the bots through the live table's session, the Must-Hit-By meter
    included; the last deck revealed at the end so that every card and draw verifies."""
    wagers = table_wagers(config.rules)
    session = CaribbeanSession(config, log, shoes, {f"T{s}": s for s in range(1, seats + 1)})

    def decide(session: CaribbeanSession, terminal: str) -> None:
        game = session.round
        assert game is not None
        cards = game.seats[session.seats[terminal]].cards
        session.decide(terminal, strategy.decide(cards, game.dealer[0]))

    most = sum(wagers.values()) + 2 * wagers[ANTE]
    return play_logged(
        session,
        wagers,
        rounds=rounds,
        most=most,
        decide=decide,
        progress=progress,
    )
