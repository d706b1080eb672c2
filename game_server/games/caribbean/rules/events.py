"""The records of a Caribbean Stud Poker round (58 Pa. Code 639a, 639b.1).

Seat 0 is the dealer, player seats are 1..N; money is integer cents. The meters' own records
(``meter_awarded``, ``meter_reseeded``) come from :mod:`game_server.rules.meters` and appear in
the round's records where the award happens.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from game_server.rules.events import event
from game_server.rules.wagers.base import LOST, PUSHED, WON
from shared.cards import Card

DEALER: Final = 0

# The wagers, by the names the records carry.
ANTE: Final = "ante"
BET: Final = "bet"
PROGRESSIVE: Final = "progressive"
FIVE_CARD_PLAYER: Final = "five_card_player"
FIVE_CARD_DEALER: Final = "five_card_dealer"
#: The wagers a seat places before the deal (the Bet Wager is its decision after it).
BETTING_WAGERS: Final = (ANTE, PROGRESSIVE, FIVE_CARD_PLAYER, FIVE_CARD_DEALER)
# Awards with no stake of their own, settled under the name of what earned them.
ENVY: Final = "progressive_envy"
MAGIC: Final = "_magic_card"
LUCKY: Final = "_lucky_bonus"
#: The Must-Hit-By Mystery Bonus won by a qualifying contribution (639b.1(c)(3), (7)).
MYSTERY: Final = "must_hit_by"

__all__ = [
    "ANTE",
    "BET",
    "DEALER",
    "LOST",
    "PUSHED",
    "WON",
    "CaribbeanCardDealt",
    "CaribbeanDealerRevealed",
    "CaribbeanDecision",
    "CaribbeanDecisionOpened",
    "CaribbeanMysteryPaid",
    "CaribbeanRoundCompleted",
    "CaribbeanSettlementStarted",
    "CaribbeanWagerPlaced",
    "CaribbeanWagerSettled",
]


@event("caribbean_wager_placed")
class CaribbeanWagerPlaced(NamedTuple):
    """A wager was placed: before the deal, or the Bet Wager at the decision."""

    seat: int
    wager: str
    amount: int


@event("caribbean_card_dealt")
class CaribbeanCardDealt(NamedTuple):
    """A card left the round's deck for a seat or the dealer (0); ``position`` is its 0-based
    place in the shuffled deck. A player's five cards are face down (shown to that player
    only); the dealer's first card is face up, the other four are hole cards (639a.1), shown
    to nobody until :class:`CaribbeanDealerRevealed`."""

    seat: int
    card: Card
    position: int
    face_up: bool


@event("caribbean_decision_opened")
class CaribbeanDecisionOpened(NamedTuple):
    """The decision opened: each of ``seats`` folds or makes the Bet Wager."""

    seats: tuple[int, ...]


@event("caribbean_decision")
class CaribbeanDecision(NamedTuple):
    """A player's decision, or the countdown's for the player (``auto``): "bet" (the Bet
    Wager of twice the Ante) or "fold" (639a.1 "Fold")."""

    seat: int
    action: str
    auto: bool


@event("caribbean_dealer_revealed")
class CaribbeanDealerRevealed(NamedTuple):
    """The dealer's hole cards were turned up: ``hand`` names the dealer's five cards and
    ``qualifies`` says whether they are ace-king or better."""

    cards: tuple[Card, ...]
    hand: str
    qualifies: bool


@event("caribbean_settlement_started")
class CaribbeanSettlementStarted(NamedTuple):
    """Settlement began with its inputs from outside the deck: the Magic Card (none or one)
    and the Lucky Bonus position (a seat, 0 the dealer, None when not drawn) drawn by the
    table game system (639a.1), and each meter read as ``(id, amount, reserve)``."""

    magic_card: tuple[Card, ...]
    lucky_position: int | None
    meters: tuple[tuple[str, int, int], ...]


@event("caribbean_wager_settled")
class CaribbeanWagerSettled(NamedTuple):
    """A wager or an award was settled: ``paid`` returns to the player's credits (stake
    included), of which ``from_meter`` came from a progressive meter; ``line`` names the
    paytable line or the rule that decided it, with its paragraph."""

    seat: int
    wager: str
    stake: int
    paid: int
    from_meter: int
    outcome: str
    line: str


@event("caribbean_mystery_paid")
class CaribbeanMysteryPaid(NamedTuple):
    """The table paid a seat the Must-Hit-By Mystery Bonus its qualifying contribution won
    (639b.1(c)(3), (7)): logged by the table (not the engine) in the step of the deal, right
    after the meter's ``mystery_awarded``; ``paid`` all from the meter."""

    seat: int
    wager: str
    stake: int
    paid: int
    from_meter: int
    outcome: str
    line: str


@event("caribbean_round_completed")
class CaribbeanRoundCompleted(NamedTuple):
    """Every wager of the round is settled."""

    dealer_cards: tuple[Card, ...]
    dealer_hand: str
