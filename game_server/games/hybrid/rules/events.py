"""Event records of the three-position hybrid Blackjack engine (58 Pa. Code 633b.5(a)-(v)).

The engine reuses :class:`~game_server.games.blackjack.rules.events.CardDealt` (seat = player
position 1-3, or 0 for the dealer), :class:`~game_server.games.blackjack.rules.events.DealerPeeked`,
:class:`~game_server.games.blackjack.rules.events.HoleCardRevealed` and
:class:`~game_server.games.blackjack.rules.events.RoundCompleted`, whose fields fit. The records
below carry what those cannot: a player is a terminal id (``player``) *and* the position he
chose, several players share one position (633b.5(l)), and the cards drawn after the deal are
community cards (633b.5(q)).

``hand`` is the hand's number within the player's hands in order of creation (0 is the
position's hand, splits add 1, 2, 3). Money fields are integer cents. Kinds are prefixed
``hybrid3_`` and classes ``Hybrid3`` so that they never clash with the no-hole-card engine's.
"""

from __future__ import annotations

from typing import NamedTuple

from game_server.rules.events import event
from shared.cards import Card

#: The optional Buzzer Beater wager (633b.5(m), (u), (v)(3)).
BUZZER_BEATER = "buzzer_beater"


@event("hybrid3_wager_placed")
class Hybrid3WagerPlaced(NamedTuple):
    """A wager was placed: a Blackjack or Buzzer Beater wager at betting (choosing
    ``position``, 633b.5(l)-(m)), or an insurance, double down or split wager later."""

    player: str
    position: int
    hand: int
    wager: str
    amount: int


@event("hybrid3_decision")
class Hybrid3Decision(NamedTuple):
    """A player's decision, or the countdown's on his behalf (``auto``, 633b.5(p)(2)).

    ``action`` is ``"hit"``, ``"stand"``, ``"double"``, ``"split"``, ``"insurance"``,
    ``"no-insurance"`` or ``"even-money"``; ``amount`` is the insurance or double down amount
    (0 otherwise).
    """

    player: str
    position: int
    hand: int
    action: str
    amount: int
    auto: bool


@event("hybrid3_community_card")
class Hybrid3CommunityCard(NamedTuple):
    """A card was drawn face up into the community box (633b.5(b)(4), (q)).

    ``number`` is its 1-based number among the round's community cards; ``position`` its
    0-based place in the shoe's order (as in ``CardDealt``).
    """

    number: int
    card: Card
    position: int


@event("hybrid3_card_used")
class Hybrid3CardUsed(NamedTuple):
    """A player's hand took community card ``number`` (633b.5(q)): the card is now part of
    that hand for that player only."""

    player: str
    position: int
    hand: int
    number: int
    card: Card


@event("hybrid3_wager_settled")
class Hybrid3WagerSettled(NamedTuple):
    """A wager was settled: ``paid`` is what returns to the player's credits (stake included).

    ``line`` names the paytable line or the rule that decided it, e.g. ``"Blackjack 3 to 2"``.
    """

    player: str
    position: int
    hand: int
    wager: str
    stake: int
    paid: int
    outcome: str
    line: str
