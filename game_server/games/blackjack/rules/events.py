"""The event records of a Blackjack round.

Seat 0 is the dealer; player seats are 1..7. ``hand`` is the hand's number within the seat in
order of creation (0 is the initial hand, splits add 1, 2, 3). Money fields are integer cents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from game_server.rules import replaying
from game_server.rules.events import event
from game_server.rules.wagers.base import LOST as LOST
from game_server.rules.wagers.base import PUSHED as PUSHED
from game_server.rules.wagers.base import WON as WON
from shared.cards import Card

DEALER = 0

# Wager names of the main game.
BLACKJACK = "blackjack"
DOUBLE = "double"
INSURANCE = "insurance"
#: The TriLux Deluxe Press: winnings capping the initial Blackjack wager (633b.11(f)-(h)).
TRILUX_PRESS = "trilux_press"

# Outcomes of a settled wager (won, lost and pushed are every game's).
SURRENDERED = "surrendered"


@event("wager_placed")
class WagerPlaced(NamedTuple):
    """A wager was placed: at betting, or an insurance, double down, split or TriLux Deluxe
    Press (``trilux_press``) wager."""

    seat: int
    hand: int
    wager: str
    amount: int


@event("card_dealt")
class CardDealt(NamedTuple):
    """A card left the shoe for a player hand or the dealer (seat 0).

    ``position`` is the card's 0-based place in the shoe's shuffled order. The dealer's hole
    card is dealt with ``face_up`` False and never shown until :class:`HoleCardRevealed`.
    """

    seat: int
    hand: int
    card: Card
    position: int
    face_up: bool


@event("decision")
class Decision(NamedTuple):
    """A player's decision, or the countdown's on the player's behalf (``auto``).

    ``action`` is an :class:`~game_server.games.blackjack.rules.actions.Action` value, or
    ``"insurance"``, ``"no-insurance"`` or ``"even-money"``; ``amount`` is the insurance,
    double down or TriLux Deluxe Press amount (0 otherwise).
    """

    seat: int
    hand: int
    action: str
    amount: int
    auto: bool


@event("dealer_peeked")
class DealerPeeked(NamedTuple):
    """The dealer checked the hole card for Blackjack under an ace or ten-value up card."""

    blackjack: bool


@event("hole_card_revealed")
class HoleCardRevealed(NamedTuple):
    """The dealer's hole card was turned face up."""

    card: Card
    position: int


@event("wager_settled")
class WagerSettled(NamedTuple):
    """A wager was settled: ``paid`` is what returns to the player's credits (stake included).

    ``line`` names the paytable line or the rule that decided it, e.g. ``"Blackjack 3 to 2"``.
    """

    seat: int
    hand: int
    wager: str
    stake: int
    paid: int
    outcome: str
    line: str


@event("progressive_won")
class ProgressiveWon(NamedTuple):
    """A side wager won a progressive line: ``percent`` of the meter ``meter`` (the table's
    meters pay it in seat order, sharing a jackpot equally among the round's winners of the
    same meter where the wager's section says so, 633b.9(e)(3), 633b.10(j)). It follows the
    wager's ``wager_settled``, which returns the stake; the meter's payout is the win."""

    seat: int
    wager: str
    meter: str
    percent: int
    line: str


@event("round_completed")
class RoundCompleted(NamedTuple):
    """Every wager of the round is settled; the dealer's final cards and total."""

    dealer_cards: tuple[Card, ...]
    dealer_total: int


def seat_wagers(events: Sequence[Any], i: int) -> dict[str, int]:
    """The wagers one seat placed together: the run of ``wager_placed`` of that seat from
    event ``i`` (one ``place_wagers`` or ``join`` input)."""
    return replaying.seat_wagers(events, i, WagerPlaced)
