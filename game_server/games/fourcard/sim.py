"""Four Card Poker's simulator: bots playing whole rounds through the pure engine
(``etg sim``), its tally, and ``etg sim --log`` through the live table's session.

Every seat places the Ante at the minimum (or ``--wager``) and every other wager the table
offers at its minimum, and decides with :mod:`game_server.games.fourcard.rules.strategy`; each
round is dealt from its own certified one-deck shoe; the progressive meters are fed at the
deal and awarded at settlement through a :class:`~game_server.rules.meters.MeterBank`. The
Must-Hit-By Mystery Bonus (641b.1) is fed by the qualifying wagers, its triggers drawn from
the simulation's own certified stream, and each award is counted with the wager that won it
(as the player-edge guard counts it). :func:`tally` reports each wager, the Ante Bonus with
the Ante, and the Ante, its bonus and the Play together (:data:`FOURCARD_BASE`, the Ante its
initial wager: the figure published as the house edge "of the Ante").

Entry points: :class:`Driver`, :func:`tally`, :func:`logged_sim`, :func:`seat_wagers`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.ante_poker.sim import play_logged
from game_server.games.fourcard.rules import strategy
from game_server.games.fourcard.rules.events import (
    ACES_UP,
    ANTE,
    ANTE_BONUS,
    ENVY_OF,
    MUST_HIT_BY,
    PLAY,
    PROGRESSIVES,
    FourCardMysteryPaid,
    FourCardWagerPlaced,
    FourCardWagerSettled,
)
from game_server.games.fourcard.rules.game import FourCardRound, Phase
from game_server.games.fourcard.rules.rules import FourCardRules
from game_server.games.fourcard.session import FourCardSession, feed_mystery
from game_server.rules.meters import MeterBank, MeterStep
from game_server.rules.wagers import must_hit_by
from game_server.sim import RoundTally, SimResult, SimSpec, mystery_draw, seeded_shoes
from game_server.table.session import EventSink, SealedShoes

__all__ = ["FOURCARD_BASE", "Driver", "logged_sim", "seat_wagers", "tally"]

#: The base game's wagers reported together: Ante, Ante Bonus and Play.
FOURCARD_BASE: Final = "ante+play"
#: The line a Must-Hit-By award is counted under, with its qualifying wager.
MYSTERY: Final = "Must-Hit-By Mystery Bonus"
_BASE: Final = frozenset({ANTE, ANTE_BONUS, PLAY})
#: Each Envy Bonus reported with the progressive wager that earns it (641a.1).
_ENVY_GROUP: Final = {envy: wager for wager, envy in ENVY_OF.items()}


def seat_wagers(rules: FourCardRules, ante: int | None = None) -> dict[str, int]:
    """What a simulated seat places: the Ante (the minimum if None) and every other wager
    offered at its minimum."""
    wagers = {ANTE: rules.ante_limits.minimum if ante is None else ante}
    if rules.aces_up_limits is not None:
        wagers[ACES_UP] = rules.aces_up_limits.minimum
    for name in PROGRESSIVES:
        offer = rules.progressive(name)
        if offer is not None:
            wagers[name] = min(offer.amounts)
    return wagers


def tally(events: Iterable[Any], result: SimResult) -> None:
    """Add one round to ``result``: each wager (the Ante Bonus with the Ante, each Envy Bonus
    with its progressive, the mystery bonus apart) and :data:`FOURCARD_BASE`."""
    this = RoundTally(result)
    for event in events:
        kind = type(event)
        if kind is FourCardMysteryPaid:
            this.placed(event.seat, MUST_HIT_BY, 0)
            this.paid(event.seat, MUST_HIT_BY, event.paid)
            this.line(MUST_HIT_BY, event.line)
            continue
        if kind is not FourCardWagerPlaced and kind is not FourCardWagerSettled:
            continue
        group = ANTE if event.wager == ANTE_BONUS else _ENVY_GROUP.get(event.wager, event.wager)
        groups = [group, FOURCARD_BASE] if group in _BASE else [group]
        for name in groups:
            if kind is FourCardWagerPlaced:
                this.placed(event.seat, name, event.amount)
            else:
                this.paid(event.seat, name, event.paid)
                this.line(name, event.line)
    this.close()


class Driver:
    """Whole rounds through the engine, the strategy on every seat (module docstring)."""

    def __init__(self, spec: SimSpec, chunk: int) -> None:
        rules: FourCardRules = spec.rules
        if not 1 <= spec.seats <= rules.seats:
            raise ValueError(f"seats must be within 1..{rules.seats}, got {spec.seats}")
        self.rules, self.seats = rules, spec.seats
        self.table_id = f"{spec.table_id}-{chunk}"
        self.shoes = seeded_shoes(1, None, spec.seed, self.table_id)
        self.wagers = seat_wagers(rules, spec.main_wager)
        self.meters = MeterBank()
        self._draw = mystery_draw(spec.seed, self.table_id)
        for meter_id, meter in rules.meters().items():
            if meter.must_hit_by is None:
                self.meters.link(meter_id, meter)
            else:
                self.meters.commit(must_hit_by.open_meter(meter_id, meter, self._draw))
        self.rounds = 0

    def play_round(self) -> list[Any]:
        self.rounds += 1
        game = FourCardRound(self.rules, self.table_id)
        out: list[Any] = []
        for seat in range(1, self.seats + 1):
            out += game.place_wagers(seat, self.wagers)
        mystery = self.rules.mystery
        for meter_id, stake, seat, wager in game.contributions():
            place = game.place(seat)
            self.meters.contribute(meter_id, stake, place)
            if (
                mystery is not None
                and wager in mystery.qualifying
                and stake >= mystery.minimum_wager
                and ANTE in game.seats[seat].wagers
            ):
                fed = feed_mystery(
                    self.meters, self._draw, mystery.meter_id, stake, seat, place, wager
                )
                # Counted with the qualifying wager that won it, as the guard counts it.
                out += [
                    FourCardWagerSettled(seat, wager, 0, ev.paid, ev.paid, ev.outcome, MYSTERY)
                    for ev in fed
                    if type(ev) is FourCardMysteryPaid
                ]
        out += game.deal(self.shoes(self.rounds))
        for seat in game.pending:
            action, multiple = strategy.decide(game, seat)
            out += game.decide(seat, action, multiple)
        assert game.phase is Phase.SHOWDOWN
        out += game.settle({m: self.meters.meter(m) for m in game.meter_ids_needed()})
        for meter, events in game.meter_steps():
            self.meters.commit(MeterStep(meter, events))
        return out


def logged_sim(
    config: TableConfig,
    log: EventSink,
    shoes: SealedShoes,
    *,
    rounds: int,
    seats: int,
    progress: Callable[[int], None] | None = None,
) -> FourCardSession:
    """``etg sim --log``: the bots through the live table's session, writing to ``log``
    (terminals ``T1``..; the last deck retired at the end so that every card verifies)."""
    wagers = seat_wagers(config.rules)
    session = FourCardSession(config, log, shoes, {f"T{s}": s for s in range(1, seats + 1)})

    def decide(session: FourCardSession, terminal: str) -> None:
        assert session.round is not None
        session.decide(terminal, *strategy.decide(session.round, session.seats[terminal]))

    most = sum(wagers.values()) + 3 * wagers[ANTE]
    return play_logged(
        session,
        wagers,
        rounds=rounds,
        most=most,
        decide=decide,
        progress=progress,
    )
