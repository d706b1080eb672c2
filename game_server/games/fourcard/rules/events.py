"""The event records of a Four Card Poker round (58 Pa. Code 641a, 641b.1).

Seat 0 is the dealer, player seats are 1..N. Money fields are integer cents. The meters' own
records (``meter_awarded``, ``meter_reseeded``) come from :mod:`game_server.rules.meters` and
appear in the round's events where a progressive line is paid.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from game_server.rules.events import event
from shared.cards import Card

#: The dealer's seat in the records.
DEALER: Final = 0

# Wager names (the Rules Submission's and the wire's).
ANTE: Final = "ante"
PLAY: Final = "play"
ACES_UP: Final = "aces_up"
FOUR_CARD_PROGRESSIVE: Final = "four_card_progressive"
FIVE_CARD_PROGRESSIVE: Final = "five_card_progressive"
#: The Ante Bonus: an award on the Ante with no stake of its own.
ANTE_BONUS: Final = "ante_bonus"
#: The Must-Hit-By Mystery Bonus (641b.1): an award with no stake of its own.
MUST_HIT_BY: Final = "must_hit_by"
#: The wagers a seat places before the deal (the Play Wager is a decision).
BETTING_WAGERS: Final = (ANTE, ACES_UP, FOUR_CARD_PROGRESSIVE, FIVE_CARD_PROGRESSIVE)
#: The progressive wagers, each paying from its own meter.
PROGRESSIVES: Final = (FOUR_CARD_PROGRESSIVE, FIVE_CARD_PROGRESSIVE)

# The Envy Bonuses (641a.1): fixed sums with no stake of their own, paid to a progressive's
# bettor for another player's Envy Bonus Qualifying Hand, each under its progressive's name.
FOUR_CARD_ENVY: Final = "four_card_envy"
FIVE_CARD_ENVY: Final = "five_card_envy"
#: Each progressive wager's Envy Bonus.
ENVY_OF: Final = {FOUR_CARD_PROGRESSIVE: FOUR_CARD_ENVY, FIVE_CARD_PROGRESSIVE: FIVE_CARD_ENVY}


@event("fourcard_wager_placed")
class FourCardWagerPlaced(NamedTuple):
    """A wager was placed: before the deal, or the Play Wager at the decision."""

    seat: int
    wager: str
    amount: int


@event("fourcard_card_dealt")
class FourCardCardDealt(NamedTuple):
    """A card left the deck for a seat or the dealer (0); ``position`` is its 0-based place
    in the shuffled deck. A player's cards are shown to that player only; the dealer's first
    card is dealt face up (``face_up``), the other five face down until
    :class:`FourCardDealerRevealed`."""

    seat: int
    card: Card
    position: int
    face_up: bool


@event("fourcard_decision")
class FourCardDecision(NamedTuple):
    """A seat folded or made its Play Wager of ``multiple`` (1 to 3) times the Ante;
    ``auto``: the countdown decided (fold)."""

    seat: int
    action: str
    multiple: int
    auto: bool


@event("fourcard_dealer_revealed")
class FourCardDealerRevealed(NamedTuple):
    """Every player decided: the dealer's six cards turned up, its best four-card hand's
    name, and the meters the settlement reads (``(id, amount, reserve)`` in millicents, so
    that a replay settles from the same meters)."""

    cards: tuple[Card, ...]
    name: str
    meters: tuple[tuple[str, int, int], ...]


@event("fourcard_wager_settled")
class FourCardWagerSettled(NamedTuple):
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


@event("fourcard_round_completed")
class FourCardRoundCompleted(NamedTuple):
    """Every wager of the round is settled."""

    dealer: tuple[Card, ...]
    dealer_hand: str


@event("fourcard_mystery_paid")
class FourCardMysteryPaid(NamedTuple):
    """The Must-Hit-By Mystery Bonus a seat's qualifying contribution won (641b.1(c)(3),
    (7)): 100% of the meter, paid with the ``mystery_awarded`` that precedes it. Written by
    the table when the wagers feed the meter at the deal, not by the round's engine."""

    seat: int
    wager: str
    stake: int
    paid: int
    from_meter: int
    outcome: str
    line: str
