"""The configurable rules of one Blackjack table, as a frozen value.

Built by :mod:`game_server.config` from the Rules Submission; the engine, the strategy and the
simulator read it. Defaults are those of the fully automated table: 6 decks, dealer stands on
all 17s (58 Pa. Code 633b.5(c)(2)), Blackjack pays 3 to 2 (633b.5(v)(1)), insurance pays 2 to 1
(633a.8), double on any first two cards (633a.10), resplit to 4 hands, split aces one card each
(633a.11(c)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from game_server.rules.errors import ActionNotAllowed, BetOutOfLimits, RulesError
from game_server.rules.limits import WagerLimits
from game_server.rules.twenty_one import hand_total
from game_server.rules.wagers.base import SideWagerOffer
from shared.cards import Card
from shared.money import ToOne, format_money

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
        offers = {o.wager.name: o for o in self.side_wagers}
        if "blackjack" in offers:
            # The engine tells the main wager from the side wagers by this name.
            raise ValueError("a side wager may not be named 'blackjack', the main wager's name")
        object.__setattr__(self, "offers", offers)
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

    @property
    def wager_unit(self) -> int:
        """The table's wager unit in cents: every wager is a whole multiple of it."""
        return self.main_limits.unit


class DoublingRules(Protocol):
    """What :func:`double_down_refusal` reads of a table's rules (a
    :class:`BlackjackRules`, or the three-position hybrid table's own rules)."""

    @property
    def double_on(self) -> DoubleOn: ...

    @property
    def double_after_split(self) -> bool: ...

    @property
    def hit_split_aces(self) -> bool: ...

    @property
    def main_limits(self) -> WagerLimits: ...


def double_down_refusal(
    rules: DoublingRules,
    cards: Sequence[Card],
    *,
    from_split: bool,
    split_aces: bool,
    original: int,
    amount: int | None,
) -> RulesError | None:
    """Why a hand of ``cards`` may not double down under ``rules`` (633a.10), or None.

    The checks every Blackjack table shares (the fully automated table and both hybrid
    tables of 633b.5): the first two cards only; after a split only where the Rules
    Submission allows it; split aces take one card each unless it lets them be hit
    (633a.11); the totals the Rules Submission allows; and a double for less (``amount``)
    above $0, at most the ``original`` wager and in whole wager units. Whose turn it is, and
    the credits, are the caller's."""
    if len(cards) != 2:
        return ActionNotAllowed("a double down is allowed only on the first two cards (633a.10)")
    if from_split and not rules.double_after_split:
        return ActionNotAllowed(
            "this table does not allow a double down after a split (633a.10, Rules Submission)"
        )
    if split_aces and not rules.hit_split_aces:
        return ActionNotAllowed("split aces receive one card each (633a.11)")
    if rules.double_on is not DoubleOn.ANY:
        low = 9 if rules.double_on is DoubleOn.NINE_TO_ELEVEN else 10
        total, soft = hand_total(cards)
        if soft or not low <= total <= 11:
            return ActionNotAllowed(
                f"this table allows a double down only on a hard {low} to 11, not on "
                f"{'soft ' if soft else ''}{total} (633a.10, Rules Submission)"
            )
    if amount is not None:
        if type(amount) is not int or not 0 < amount <= original:
            return BetOutOfLimits(
                "a double down wager must be more than $0 and at most the original wager "
                f"{format_money(original)} (633a.10)"
            )
        if amount != original and amount % rules.main_limits.unit:
            return BetOutOfLimits(
                f"a double down wager of {format_money(amount)} is not a multiple of the "
                f"wager unit {format_money(rules.main_limits.unit)}"
            )
    return None
