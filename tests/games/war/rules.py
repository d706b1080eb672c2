"""War's pure rules: one card to each seat with a wager and one to the dealer; a seat's card
higher than the dealer's wins 1 to 1, the same rank pushes, a lower one loses (aces high).

Pure (the import rule): no clock, no randomness; cards come from a card source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, NamedTuple

from game_server.rules.errors import ActionNotAllowed
from game_server.rules.events import event
from game_server.rules.limits import WagerLimits
from game_server.rules.one_deck import CardSource, draw_once
from game_server.rules.replaying import LoggedCards, replay_steps
from game_server.rules.wagers.base import LOST, PUSHED, WON, MeterSpec
from shared.cards import Card

#: The game's name, its ``[table] game`` and its one wager.
WAR: Final = "war"
#: The dealer's seat in the records.
DEALER: Final = 0


@dataclass(frozen=True, slots=True)
class WarRules:
    seats: int
    limits: WagerLimits
    decks: int = 1

    @property
    def wager_unit(self) -> int:
        return self.limits.unit

    def meters(self) -> dict[str, MeterSpec]:
        return {}  # no progressive


@event("war_wager_placed")
class WarPlaced(NamedTuple):
    seat: int
    wager: str
    amount: int


@event("war_card_dealt")
class WarCard(NamedTuple):
    seat: int  # DEALER for the dealer
    card: Card
    position: int


@event("war_wager_settled")
class WarSettled(NamedTuple):
    seat: int
    wager: str
    stake: int
    paid: int
    outcome: str
    line: str


@event("war_round_completed")
class WarCompleted(NamedTuple):
    dealer_card: Card


KINDS: Final = frozenset({WarPlaced, WarCard, WarSettled, WarCompleted})


class Phase(StrEnum):
    BETTING = "betting"
    COMPLETE = "complete"


@dataclass
class Seat:
    wagers: dict[str, int]
    card: Card | None = None


@dataclass
class WarRound:
    """One round: wagers while betting, then :meth:`deal` deals, settles and completes it."""

    rules: WarRules
    table: str = WAR
    phase: Phase = Phase.BETTING
    seats: dict[int, Seat] = field(default_factory=dict)
    dealer: Card | None = None
    settled: list[WarSettled] = field(default_factory=list)
    pending: tuple[int, ...] = ()  # nobody decides anything

    def verify_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> None:
        if self.phase is not Phase.BETTING:
            raise ActionNotAllowed("no more bets: the cards are dealt")
        if seat in self.seats:
            raise ActionNotAllowed(f"seat {seat} has wagered this round")
        if set(wagers) != {WAR}:
            raise ActionNotAllowed(f"the only wager is {WAR!r}, got {sorted(wagers)}")
        self.rules.limits.verify(WAR, wagers[WAR])

    def place_wagers(self, seat: int, wagers: Mapping[str, int]) -> list[Any]:
        self.verify_place_wagers(seat, wagers)
        self.seats[seat] = Seat(dict(wagers))
        return [WarPlaced(seat, WAR, wagers[WAR])]

    def deal(self, source: CardSource) -> list[Any]:
        if self.phase is not Phase.BETTING or not self.seats:
            raise ActionNotAllowed("a round is dealt once, with at least one wager")
        out: list[Any] = []
        dealt: set[Card] = set()
        for seat in [*sorted(self.seats), DEALER]:
            card, position = draw_once(source, dealt)
            out.append(WarCard(seat, card, position))
            if seat == DEALER:
                self.dealer = card
            else:
                self.seats[seat].card = card
        assert self.dealer is not None
        for seat, state in sorted(self.seats.items()):
            stake, mine = state.wagers[WAR], state.card.rank if state.card else 0
            if mine > self.dealer.rank:
                out.append(WarSettled(seat, WAR, stake, 2 * stake, WON, "Win 1 to 1"))
            elif mine == self.dealer.rank:
                out.append(WarSettled(seat, WAR, stake, stake, PUSHED, "Tie: push"))
            else:
                out.append(WarSettled(seat, WAR, stake, 0, LOST, "Loss"))
        self.settled = [ev for ev in out if type(ev) is WarSettled]
        self.phase = Phase.COMPLETE
        return [*out, WarCompleted(self.dealer)]


def replay(rules: WarRules, events: Sequence[Any], table: str) -> WarRound:
    """Drive a fresh round with the logged inputs; every step must give the logged records."""
    game = WarRound(rules, table)
    source = LoggedCards((e.card, e.position) for e in events if type(e) is WarCard)

    def step(i: int, ev: Any) -> list[Any] | None:
        if type(ev) is WarPlaced:
            return game.place_wagers(ev.seat, {ev.wager: ev.amount})
        if type(ev) is WarCard and game.phase is Phase.BETTING:
            return game.deal(source)
        return None

    replay_steps(events, step, lambda: game.phase)
    return game
