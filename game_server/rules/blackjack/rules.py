"""The configurable rules of one Blackjack table, as a frozen value.

Built by :mod:`game_server.config` from the Rules Submission; the engine, the strategy and the
simulator read it. Defaults are those of the fully automated table: 6 decks, dealer stands on
all 17s (58 Pa. Code 633b.5(c)(2)), Blackjack pays 3 to 2 (633b.5(v)(1)), insurance pays 2 to 1
(633a.8), double on any first two cards (633a.10), resplit to 4 hands, split aces one card each
(633a.11(c)).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import SideWagerOffer
from shared.money import ToOne

#: 633b.5(v)(1): a player Blackjack is paid at 3 to 2; everything else at 1 to 1.
BLACKJACK_PAYS = ToOne(3, 2)
EVEN = ToOne(1, 1)
#: 633b.5(v)(2), 633a.8: insurance pays 2 to 1.
INSURANCE_PAYS = ToOne(2, 1)

DECK_COUNTS = (1, 2, 4, 6, 8)
MAX_SEATS = 7


class DoubleOn(StrEnum):
    """Which first two cards may be doubled (633a.10)."""

    ANY = "any"
    NINE_TO_ELEVEN = "9-11"
    TEN_TO_ELEVEN = "10-11"


class CountdownDefault(StrEnum):
    """What the countdown does for a player who has not acted (633b.5(p)(2), (z))."""

    STAND = "stand"
    HIT_HARD_11_OR_LESS = "hit-hard-11-or-less"


@dataclass(frozen=True, slots=True)
class BlackjackRules:
    """Every rule the engine needs for one table."""

    decks: int = 6
    seats: int = MAX_SEATS
    dealer_hits_soft_17: bool = False
    dealer_peeks: bool = True
    double_on: DoubleOn = DoubleOn.ANY
    double_after_split: bool = True
    max_split_hands: int = 4
    resplit_aces: bool = False
    hit_split_aces: bool = False
    late_surrender: bool = False
    insurance: bool = True
    even_money: bool = True
    countdown_default: CountdownDefault = CountdownDefault.STAND
    main_limits: WagerLimits = field(default_factory=lambda: WagerLimits(100, 100_000, 100))
    side_wagers: tuple[SideWagerOffer, ...] = ()

    offers: Mapping[str, SideWagerOffer] = field(init=False, repr=False, compare=False)
    """The side wagers by name (derived from ``side_wagers``)."""
    quick_limits: Mapping[str, tuple[int, int, int, bool]] = field(
        init=False, repr=False, compare=False
    )
    """Per wager name (the main wager included): minimum, maximum, unit and whether it needs
    the Blackjack wager, for wagers with no other limit; the engine accepts a wager within
    these at once and sends anything else through the full check, which explains a refusal."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "offers", {o.wager.name: o for o in self.side_wagers})
        main = self.main_limits
        quick = {"blackjack": (main.minimum, main.maximum, main.unit, False)}
        for offer in self.side_wagers:
            wager, limits = offer.wager, offer.limits
            if (
                not wager.fixed_amounts
                and wager.max_multiple_of_main is None
                and set(wager.requires) <= {"blackjack"}
            ):
                needs_main = "blackjack" in wager.requires
                quick[wager.name] = (limits.minimum, limits.maximum, limits.unit, needs_main)
        object.__setattr__(self, "quick_limits", quick)

    def side_wager(self, name: str) -> SideWagerOffer | None:
        return self.offers.get(name)
