"""High Card's pure rules: one card to each seat with a wager and one to the dealer; a seat's
card higher than the dealer's wins 1 to 1, the same rank pushes, a lower one loses (aces
high, suits do not count).

Pure (the import rule): no clock, no randomness; cards come from a card source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, NamedTuple, Protocol

from game_server.rules.errors import ActionNotAllowed, RulesError
from game_server.rules.events import event
from game_server.rules.limits import WagerLimits
from game_server.rules.replaying import LoggedCards, replay_steps
from game_server.rules.wagers.base import LOST, PUSHED, WON
from shared.cards import Card

#: The game's name, its ``[table] game`` and its one wager.
HIGH_CARD: Final = "high_card"
#: The dealer's seat in the records.
DEALER: Final = 0


@dataclass(frozen=True, slots=True)
class HighCardRules:
    """Seats of the layout, one deck a round, the wager's limits."""

    seats: int
    limits: WagerLimits
    decks: int = 1

    @property
    def wager_unit(self) -> int:
        """The table's wager unit in cents: every wager is a whole multiple of it."""
        return self.limits.unit


@event("high_card_wager_placed")
class WagerPlaced(NamedTuple):
    seat: int
    wager: str
    amount: int


@event("high_card_card_dealt")
class CardDealt(NamedTuple):
    seat: int  # DEALER for the dealer
    card: Card
    position: int


@event("high_card_wager_settled")
class WagerSettled(NamedTuple):
    seat: int
    wager: str
    stake: int
    paid: int
    outcome: str
    line: str


@event("high_card_round_completed")
class RoundCompleted(NamedTuple):
    dealer_card: Card


KINDS: Final = frozenset({WagerPlaced, CardDealt, WagerSettled, RoundCompleted})


class CardSource(Protocol):
    @property
    def position(self) -> int: ...

    def draw(self) -> Card: ...


class Phase(StrEnum):
    BETTING = "betting"
    COMPLETE = "complete"


class HighCardRound:
    """One round: wagers while betting, then :meth:`deal` deals and settles it."""

    def __init__(self, rules: HighCardRules) -> None:
        self.rules = rules
        self.phase = Phase.BETTING
        self.wagers: dict[int, int] = {}
        self.cards: dict[int, Card] = {}

    def place_wagers(self, seat: int, wagers: Mapping[str, int]) -> list[Any]:
        if self.phase is not Phase.BETTING:
            raise ActionNotAllowed("no more bets: the cards are dealt")
        if not 1 <= seat <= self.rules.seats or seat in self.wagers:
            raise ActionNotAllowed(f"seat {seat} cannot wager now")
        if set(wagers) != {HIGH_CARD}:
            raise ActionNotAllowed(f"the only wager is {HIGH_CARD!r}, got {sorted(wagers)}")
        self.rules.limits.verify(HIGH_CARD, wagers[HIGH_CARD])
        self.wagers[seat] = wagers[HIGH_CARD]
        return [WagerPlaced(seat, HIGH_CARD, wagers[HIGH_CARD])]

    def deal(self, source: CardSource) -> list[Any]:
        if self.phase is not Phase.BETTING or not self.wagers:
            raise ActionNotAllowed("a round is dealt once, with at least one wager")
        out: list[Any] = []
        for seat in [*sorted(self.wagers), DEALER]:
            position = source.position
            self.cards[seat] = card = source.draw()
            out.append(CardDealt(seat, card, position))
        dealer = self.cards[DEALER].rank
        for seat, stake in sorted(self.wagers.items()):
            mine = self.cards[seat].rank
            if mine > dealer:
                out.append(WagerSettled(seat, HIGH_CARD, stake, 2 * stake, WON, "Win 1 to 1"))
            elif mine == dealer:
                out.append(WagerSettled(seat, HIGH_CARD, stake, stake, PUSHED, "Push"))
            else:
                out.append(WagerSettled(seat, HIGH_CARD, stake, 0, LOST, "Loss"))
        self.phase = Phase.COMPLETE
        return [*out, RoundCompleted(self.cards[DEALER])]


def replay(rules: HighCardRules, events: Sequence[Any]) -> HighCardRound:
    """Drive a fresh round with the logged inputs; every step must give the logged records."""
    game = HighCardRound(rules)
    source = LoggedCards((e.card, e.position) for e in events if type(e) is CardDealt)

    def step(i: int, ev: Any) -> list[Any] | None:
        if type(ev) is WagerPlaced:
            return game.place_wagers(ev.seat, {ev.wager: ev.amount})
        if type(ev) is CardDealt and game.phase is Phase.BETTING:
            return game.deal(source)
        return None

    replay_steps(events, step, lambda: game.phase)
    return game


__all__ = ["HighCardRound", "HighCardRules", "RulesError", "replay"]
