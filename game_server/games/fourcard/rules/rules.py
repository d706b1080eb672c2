"""What a Four Card Poker Rules Submission chose (58 Pa. Code 641a, 641b.1, 601a.2):
:class:`FourCardRules`, read by the engine, the table and the math.

Entry points: :class:`FourCardRules`, :class:`ProgressiveOffer`, :class:`MysteryOffer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from game_server.games.fourcard.rules.events import FIVE_CARD_PROGRESSIVE, FOUR_CARD_PROGRESSIVE
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec, Paytable

__all__ = ["PLAY_MULTIPLES", "FourCardRules", "MysteryOffer", "ProgressiveOffer"]

#: The Play Wager: one, two or three times the Ante (secondary source: every published rule).
PLAY_MULTIPLES: Final = (1, 2, 3)


@dataclass(frozen=True, slots=True)
class ProgressiveOffer:
    """A Four-Card or Five-Card Progressive Payout Wager as offered (641a.1).

    Attributes:
        amounts: The fixed amounts a player may wager (cents).
        paytable: Its lines as the Rules Submission states them, with its meter.
        meter_id: The meter it pays from and feeds (its own, or one linked tables share).
        envy: Its Envy Bonus (641a.1 "Four-Card Envy Bonus", "Five-Card Envy Bonus"): the
            fixed sum (``Fixed`` pays) per Envy Bonus Qualifying Hand another player holds,
            None when the Rules Submission offers none.
    """

    amounts: tuple[int, ...]
    paytable: Paytable
    meter_id: str
    envy: Paytable | None = None

    @property
    def meter(self) -> MeterSpec | None:
        return self.paytable.meters[0] if self.paytable.meters else None


@dataclass(frozen=True, slots=True)
class MysteryOffer:
    """The Must-Hit-By Mystery Bonus (641b.1): configuration "A".."D" of (c)(4) for a
    minimum progressive wager of $1, $2 or $5, the progressive wagers that qualify ((c)(1))
    and its meter id."""

    configuration: str
    minimum_wager: int
    qualifying: tuple[str, ...]
    meter_id: str

    @property
    def spec(self) -> MeterSpec:
        return must_hit_by.meter_spec(
            must_hit_by.configuration(self.configuration, self.minimum_wager)
        )


@dataclass(frozen=True, slots=True)
class FourCardRules:
    """A Four Card Poker table's rules.

    Attributes:
        seats: Player positions on the layout.
        ante_limits: The Ante's limits (the Play Wager is 1 to 3 times it).
        ante_bonus: The Ante Bonus paytable.
        aces_up: The Aces Up paytable, None when not offered.
        aces_up_limits: Its limits.
        four_card: The Four-Card Progressive Payout Wager, if offered.
        five_card: The Five-Card Progressive Payout Wager, if offered.
        mystery: The Must-Hit-By Mystery Bonus, if offered.
        decks: One 52-card deck, shuffled for every round.
    """

    seats: int
    ante_limits: WagerLimits
    ante_bonus: Paytable
    aces_up: Paytable | None = None
    aces_up_limits: WagerLimits | None = None
    four_card: ProgressiveOffer | None = None
    five_card: ProgressiveOffer | None = None
    mystery: MysteryOffer | None = None
    decks: int = 1

    def progressive(self, wager: str) -> ProgressiveOffer | None:
        if wager == FOUR_CARD_PROGRESSIVE:
            return self.four_card
        if wager == FIVE_CARD_PROGRESSIVE:
            return self.five_card
        return None

    def meters(self) -> dict[str, MeterSpec]:
        """Every meter this table opens or links: id -> spec."""
        out: dict[str, MeterSpec] = {}
        for offer in (self.four_card, self.five_card):
            if offer is not None and offer.meter is not None:
                out[offer.meter_id] = offer.meter
        if self.mystery is not None:
            out[self.mystery.meter_id] = self.mystery.spec
        return out

    @property
    def wager_unit(self) -> int:
        """The table's wager unit in cents: every wager is a whole multiple of it."""
        return self.ante_limits.unit
