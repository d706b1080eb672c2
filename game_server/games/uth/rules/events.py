"""The event records of an Ultimate Texas Hold 'Em round (58 Pa. Code 653a).

Seat 0 is the dealer, :data:`BOARD` (-1) the community cards, player seats are 1..N. Money
fields are integer cents. The meters' own records (``meter_awarded``, ``meter_reseeded``) come
from :mod:`game_server.rules.meters` and appear in the round's events where the award happens.
"""

from __future__ import annotations

from typing import NamedTuple

from game_server.rules.events import event
from shared.cards import Card

DEALER = 0
BOARD = -1

# Wager names.
ANTE = "ante"
BLIND = "blind"
PLAY = "play"
TRIPS = "trips"
PROGRESSIVE = "progressive"
FIVE_CARD_PLAYER = "five_card_player"
FIVE_CARD_DEALER = "five_card_dealer"
#: The wagers a seat places before the deal (the Play Wager is a decision).
BETTING_WAGERS = (ANTE, BLIND, TRIPS, PROGRESSIVE, FIVE_CARD_PLAYER, FIVE_CARD_DEALER)
# Awards with no stake of their own, settled under the name of the wager that earned them.
ENVY = "progressive_envy"
MAGIC = "_magic_card"
LUCKY = "_lucky_bonus"

# Outcomes.
WON = "won"
LOST = "lost"
PUSHED = "pushed"


@event("uth_wager_placed")
class UthWagerPlaced(NamedTuple):
    """A wager was placed: before the deal, or the Play Wager at a decision."""

    seat: int
    wager: str
    amount: int


@event("uth_card_dealt")
class UthCardDealt(NamedTuple):
    """A card left the deck for a seat, the dealer (0) or the board (-1).

    ``position`` is its 0-based place in the shuffled deck. Player and dealer cards are dealt
    face down (``face_up`` False: a player's cards are shown to that player only, the dealer's
    to nobody until :class:`UthDealerRevealed`); community cards face up.
    """

    seat: int
    card: Card
    position: int
    face_up: bool


@event("uth_street_started")
class UthStreetStarted(NamedTuple):
    """A betting decision opened: ``street`` is "preflop", "flop" or "river"; ``seats`` must
    each decide (check or Play, or fold or Play at the river)."""

    street: str
    seats: tuple[int, ...]


@event("uth_decision")
class UthDecision(NamedTuple):
    """A player's decision, or the countdown's for the player (``auto``): ``action`` is
    "check", "play" (``multiple`` times the Ante) or "fold"."""

    seat: int
    street: str
    action: str
    multiple: int
    auto: bool


@event("uth_dealer_revealed")
class UthDealerRevealed(NamedTuple):
    """The dealer's two cards were turned up; ``hand`` names the dealer's best five
    (``five``), and ``qualifies`` says whether it is a pair or better."""

    cards: tuple[Card, ...]
    hand: str
    five: tuple[Card, ...]
    qualifies: bool


@event("uth_hand_shown")
class UthHandShown(NamedTuple):
    """A player's final hand: the best five of the seven cards (653a.6)."""

    seat: int
    hand: str
    five: tuple[Card, ...]
    folded: bool


@event("uth_settlement_started")
class UthSettlementStarted(NamedTuple):
    """Settlement began with the inputs from outside the deck: the Magic Card (none or one)
    and the Lucky Bonus position (a seat, 0 for the dealer, None when not drawn) drawn by the
    table game system (653a.1, 653a.12(e)(3)), and each meter read as ``(id, amount,
    reserve)`` in millicents."""

    magic_card: tuple[Card, ...]
    lucky_position: int | None
    meters: tuple[tuple[str, int, int], ...]


@event("uth_wager_settled")
class UthWagerSettled(NamedTuple):
    """A wager or an award was settled: ``paid`` returns to the player's credits (stake
    included), of which ``from_meter`` came from a progressive meter. ``line`` names the
    paytable and line or the rule that decided it, with its paragraph."""

    seat: int
    wager: str
    stake: int
    paid: int
    from_meter: int
    outcome: str
    line: str


@event("uth_payout_capped")
class UthPayoutCapped(NamedTuple):
    """653a.12(f): the winnings of a seat's Ante, Blind, Play and Trips Wagers on one hand
    (``uncapped``) exceeded the maximum payout ``cap`` and were reduced to it."""

    seat: int
    uncapped: int
    cap: int


@event("uth_round_completed")
class UthRoundCompleted(NamedTuple):
    """Every wager of the round is settled."""

    dealer_cards: tuple[Card, ...]
    board: tuple[Card, ...]
    dealer_hand: str
