"""Ultimate Texas Hold 'Em's simulator (58 Pa. Code 653a): bots playing whole rounds, and its
tally; ``etg sim --log`` through the live table's session.

:class:`UthDriver` plays over the pure :class:`~game_server.games.uth.rules.game.UthRound`:
every seat places the Ante at the minimum (or ``--wager``), the equal Blind and every other
wager the table offers at its minimum, decides with
:mod:`game_server.games.uth.rules.strategy`, and each round is dealt from its own certified
one-deck shoe; the meters are fed and awarded through a
:class:`~game_server.rules.meters.MeterBank`, and the Magic Card and Lucky Bonus come from
:func:`~game_server.games.uth.session.bonus_draws` as at the live table. :func:`tally` reports
each wager (the Envy Bonus with the Progressive Payout, the Magic Card and Lucky Bonus with
their Five Card Hand Bonus) and ``ante+blind+play``, the base game together
(:data:`UTH_BASE`). :func:`logged_sim` plays the same bots through the live table's
:class:`~game_server.games.uth.session.UthSession`.

Entry points: :class:`UthDriver`, :func:`tally`, :func:`logged_sim`, :func:`uth_wagers`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.ante_poker.sim import play_logged
from game_server.games.uth.rules import strategy as uth_strategy
from game_server.games.uth.rules.events import (
    ANTE,
    BLIND,
    ENVY,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    LUCKY,
    MAGIC,
    PLAY,
    PROGRESSIVE,
    TRIPS,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.game import MULTIPLES, UthRound
from game_server.games.uth.rules.rules import UthRules
from game_server.games.uth.session import UthSession, bonus_draws
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.sim import RoundTally, SimResult, SimSpec
from game_server.table.session import EventSink, SealedShoes

__all__ = [
    "UTH_BASE",
    "UthDriver",
    "logged_sim",
    "seeded_decks",
    "sim_driver",
    "tally",
    "uth_wagers",
]

#: Ultimate Texas Hold 'Em: the base game's three wagers, also reported together.
UTH_BASE: Final = "ante+blind+play"
_UTH_BASE_WAGERS: Final = frozenset({ANTE, BLIND, PLAY})


def _uth_group(name: str) -> str:
    """The wager an Ultimate Texas Hold 'Em settlement is reported under: the Envy Bonus with
    the Progressive Payout, a Magic Card or Lucky Bonus with its Five Card Hand Bonus."""
    if name == ENVY:
        return PROGRESSIVE
    return name.removesuffix(MAGIC).removesuffix(LUCKY)


def tally(events: Iterable[Any], result: SimResult) -> None:
    """Add one Ultimate Texas Hold 'Em round's events to ``result``: each wager on its own,
    and the Ante, Blind and Play also together under :data:`UTH_BASE` (its initial wager:
    the Ante)."""
    this = RoundTally(result)
    for event in events:
        kind = type(event)
        if kind is not UthWagerPlaced and kind is not UthWagerSettled:
            continue
        group = _uth_group(event.wager)
        groups = [group, UTH_BASE] if group in _UTH_BASE_WAGERS else [group]
        for name in groups:
            if kind is UthWagerPlaced:
                this.placed(event.seat, name, event.amount)
            else:
                this.paid(event.seat, name, event.paid)
                this.line(name, event.line)
    this.close()


def sim_driver(spec: SimSpec, chunk: int) -> UthDriver:
    """The driver of chunk ``chunk`` of a simulation: its own table id, so its own decks."""
    table_id = f"{spec.table_id}-{chunk}"
    return UthDriver(
        spec.rules, seeded_decks(spec.seed, table_id), spec.seats, spec.main_wager, table_id
    )


def seeded_decks(seed: int, table_id: str) -> Callable[[int], Shoe]:
    """One certified 52-card deck per round (Ultimate Texas Hold 'Em), seeded for simulation."""

    def make(number: int) -> Shoe:
        return Shoe(1, ShoeSeed.from_test_seed(seed, table_id, number))

    return make


def uth_wagers(rules: UthRules, ante: int | None = None) -> dict[str, int]:
    """What a simulated Ultimate Texas Hold 'Em seat places: the Ante (the minimum if None),
    the equal Blind, and every offered wager at its minimum (653a.7, 653a.12)."""
    amount = rules.ante_limits.minimum if ante is None else ante
    wagers = {ANTE: amount, BLIND: amount}
    if rules.trips_paytable is not None:
        wagers[TRIPS] = rules.trips_limits.minimum
    if rules.progressive_amounts:
        wagers[PROGRESSIVE] = min(rules.progressive_amounts)
    if rules.five_card_amounts:
        wagers[FIVE_CARD_PLAYER] = min(rules.five_card_amounts)
        wagers[FIVE_CARD_DEALER] = min(rules.five_card_amounts)
    return wagers


class UthDriver:
    """Plays whole Ultimate Texas Hold 'Em rounds through the engine with the strategy of
    :mod:`game_server.games.uth.rules.strategy` on every seat, as the live table would: a new deck
    per round, the meters fed at the deal and awarded at settlement, the Magic Card and Lucky
    Bonus drawn from the round deck's seed.

    Args:
        rules: The table's UTH rules.
        decks: Makes the deck of round ``n`` (1, 2, ...).
        seats: Seats played (1..``seats``).
        ante: The Ante in cents; the table minimum if None.
        table_id: The table's name (the meters' betting positions).
    """

    def __init__(
        self,
        rules: UthRules,
        decks: Callable[[int], Shoe],
        seats: int,
        ante: int | None = None,
        table_id: str = "sim",
    ) -> None:
        if not 1 <= seats <= rules.seats:
            raise ValueError(f"seats must be within 1..{rules.seats}, got {seats}")
        self.rules = rules
        self.decks = decks
        self.seats = seats
        self.table_id = table_id
        self.wagers = uth_wagers(rules, ante)
        self.meters = MeterBank()
        for meter_id, spec in rules.meters().items():
            self.meters.link(meter_id, spec)
        self.rounds = 0

    def play_round(self) -> list[Any]:
        """Play one round; return every event the engine produced."""
        self.rounds += 1
        deck = self.decks(self.rounds)
        rules = self.rules
        game = UthRound(rules, self.table_id)
        out: list[Any] = []
        for seat in range(1, self.seats + 1):
            out += game.place_wagers(seat, self.wagers)
        for meter_id, stake, place in game.contributions():
            self.meters.contribute(meter_id, stake, place)
        out += game.deal(deck)
        while game.phase in MULTIPLES:
            for seat in game.pending:
                action, multiple = uth_strategy.decide(game, seat)
                out += game.decide(seat, action, multiple)
        magic, lucky = bonus_draws(deck.seed, rules)
        meters = {m: self.meters.meter(m) for m in rules.meters()}
        out += game.settle(meters, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return out


def logged_sim(
    config: TableConfig,
    log: EventSink,
    shoes: SealedShoes,
    *,
    rounds: int,
    seats: int,
    progress: Callable[[int], None] | None = None,
) -> UthSession:
    """``etg sim --log`` of an Ultimate Texas Hold 'Em table: ``rounds`` rounds at ``seats``
    seats (terminals ``T1``..) played through the live table's :class:`UthSession` with the
    strategy, writing to ``log`` (the last deck revealed at the end so that every card and
    draw verifies)."""
    wagers = uth_wagers(config.rules)
    session = UthSession(config, log, shoes, {f"T{s}": s for s in range(1, seats + 1)})

    def decide(session: UthSession, terminal: str) -> None:
        assert session.round is not None
        session.decide(terminal, *uth_strategy.decide(session.round, session.seats[terminal]))

    most = sum(wagers.values()) + 4 * wagers[ANTE]
    return play_logged(
        session,
        wagers,
        rounds=rounds,
        most=most,
        decide=decide,
        progress=progress,
    )
