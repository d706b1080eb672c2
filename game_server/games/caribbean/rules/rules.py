"""What a Caribbean Stud Poker Rules Submission chose (58 Pa. Code 639a, 639b.1), and the
paytables, named as the regulation names them.

The text of 639a.6-639a.12 is not held (research notes ``regs-other-games.md`` and
``regs-other-games-more.md``: only 639a.1 and the chapter's contents were found). So:

- **Bet Wager paytable** (:data:`BET_PAYTABLE`): secondary source, the sister chapter
  671a.12(d) (Lunar Poker, the same ace-king qualification and Bet Wager) and the published
  Caribbean Stud rules, which agree line for line: royal flush 100 to 1 down to one pair and
  ace-king 1 to 1. The Ante pays 1 to 1 when the player beats a qualifying dealer or the dealer
  does not qualify (the Bet then pushes). Fixed, not a choice.
- **Progressive Payout Wager** (639a.7(d)(2), 639a.1 "Progressive Payout Hand"): its
  paytable's lines ("p% of meter", "a for 1", "a to 1") and meter (reset amount, rate of
  progression, 639a.12) are Rules Submission data (:class:`Progressive`), three-of-a-kind or
  better, and two pair only "if included in the paytable selected" (639a.1 (ii)); the
  **Envy Bonus** (639a.1) is a fixed sum per Envy Bonus Qualifying Hand (straight flush or
  better) at another seat, also Rules Submission data.
- **Five Card Hand Bonus Wager** with the **Magic Card Bonus** or **Lucky Bonus** (639a.1):
  639a.12 is not held; its paytable and bonuses are the sister chapter's, 653a.12(e)(1) and
  (e)(3), used from Ultimate Texas Hold 'Em's rules (secondary source), on the player's five
  cards and on the dealer's five cards (:class:`FiveCard`).
- **Maximum payout**: the text we hold states none for Caribbean Stud; none is applied.

Entry points: :class:`CaribbeanRules`, :data:`BET_PAYTABLE`, :func:`bet_line`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from game_server.games.uth.rules.hands import HAND_NAMES
from game_server.games.uth.rules.rules import BonusOn
from game_server.rules.errors import RulesError
from game_server.rules.limits import WagerLimits
from game_server.rules.poker import Category5
from game_server.rules.wagers.base import MeterSpec, Paytable, PaytableLine
from shared.money import ToOne

__all__ = [
    "BET_PAYTABLE",
    "PROGRESSIVE_HANDS",
    "BonusOn",
    "CaribbeanRules",
    "CaribbeanRulesError",
    "FiveCard",
    "FiveCardBonus",
    "Progressive",
    "bet_line",
    "hand_name",
]

#: Where the base game's procedure comes from (639a.7, 639a.11 and 639a.12 are not held: a
#: secondary source, the published rules; the dealer's qualification is 639a.11's).
PROCEDURE: Final = "639a.7, 639a.11"
BET_SECTION: Final = "639a.12"


class CaribbeanRulesError(RulesError):
    """A Rules Submission the Caribbean Stud engine cannot play."""


def hand_name(category: Category5) -> str:
    """The 639a.6(b) name of a five-card category ("Royal flush", "Two pair")."""
    return HAND_NAMES[category]


def _bet_table() -> Paytable:
    pays = (100, 50, 20, 7, 5, 4, 3, 2)
    lines = [
        PaytableLine(HAND_NAMES[category], ToOne(a))
        for category, a in zip(
            (
                Category5.ROYAL_FLUSH,
                Category5.STRAIGHT_FLUSH,
                Category5.FOUR_OF_A_KIND,
                Category5.FULL_HOUSE,
                Category5.FLUSH,
                Category5.STRAIGHT,
                Category5.THREE_OF_A_KIND,
                Category5.TWO_PAIR,
            ),
            pays,
            strict=True,
        )
    ]
    lines += [PaytableLine("One pair", ToOne(1)), PaytableLine("Ace-king", ToOne(1))]
    return Paytable("Bet Wager paytable", tuple(lines))


#: The Bet Wager paytable (secondary source: 671a.12(d), the published Caribbean Stud rules).
BET_PAYTABLE: Final = _bet_table()


def bet_line(category: Category5) -> PaytableLine:
    """The Bet Wager line a winning hand of ``category`` is paid by: a player's hand that beats
    a qualifying dealer (ace-king or better) is at least ace-king, so every winning hand has
    one ("Ace-king" for a high-card hand, "One pair" for a pair)."""
    name = {Category5.PAIR: "One pair", Category5.HIGH_CARD: "Ace-king"}.get(
        category, HAND_NAMES[category]
    )
    return next(line for line in BET_PAYTABLE.lines if line.name == name)


#: The hands a Progressive Payout paytable may pay (639a.1 "Progressive Payout Hand"):
#: three-of-a-kind or better, and two pair if the paytable includes it.
PROGRESSIVE_HANDS: Final = tuple(
    HAND_NAMES[c]
    for c in (
        Category5.ROYAL_FLUSH,
        Category5.STRAIGHT_FLUSH,
        Category5.FOUR_OF_A_KIND,
        Category5.FULL_HOUSE,
        Category5.FLUSH,
        Category5.STRAIGHT,
        Category5.THREE_OF_A_KIND,
        Category5.TWO_PAIR,
    )
)
#: The Envy Bonus Qualifying Hands (639a.1): straight flush or better.
ENVY_HANDS: Final = (HAND_NAMES[Category5.ROYAL_FLUSH], HAND_NAMES[Category5.STRAIGHT_FLUSH])


@dataclass(frozen=True, slots=True)
class Progressive:
    """The Progressive Payout Wager a table offers (639a.7(d)(2), 639a.12).

    Attributes:
        amounts: The fixed wager amounts offered (cents).
        paytable: Its lines as the Rules Submission names them, its meter in ``meters``.
        envy: The Envy Bonus per qualifying hand at another seat (``Fixed`` pays), or None.
        meter_id: The meter's id (a linked meter's shared id, 605a.8, or the table's own).
    """

    amounts: tuple[int, ...]
    paytable: Paytable
    envy: Paytable | None
    meter_id: str

    @property
    def meter(self) -> MeterSpec:
        return self.paytable.meters[0]


class FiveCardBonus(StrEnum):
    """Which additional payout of 639a.1 the table game system draws for the Five Card Hand
    Bonus Wager, if any (653a.12(e)(3): "a Magic Card **or** Lucky Bonus")."""

    MAGIC_CARD = "magic-card"
    LUCKY_BONUS = "lucky-bonus"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class FiveCard:
    """The Five Card Hand Bonus Wager a table offers (639a.1; paytable 653a.12(e)).

    Attributes:
        amounts: The fixed wager amounts offered (cents).
        meter: Its meter (653a.12(e)(4): reset at least $10,000).
        meter_id: The meter's id.
        bonus: The Magic Card or Lucky Bonus drawn, or none.
        bonus_on: Which wagers the bonus pays (:class:`BonusOn`).
    """

    amounts: tuple[int, ...]
    meter: MeterSpec
    meter_id: str
    bonus: FiveCardBonus
    bonus_on: BonusOn


@dataclass(frozen=True, slots=True)
class CaribbeanRules:
    """One table's Caribbean Stud Poker rules.

    Attributes:
        seats: The layout's seats.
        ante_limits: The Caribbean Stud Wager's (Ante's) limits; the Bet is twice the Ante.
        progressive: The Progressive Payout Wager, if offered.
        five_card: The Five Card Hand Bonus Wager, if offered.
        side_wagers_settle_on_fold: Whether a folded hand's Progressive Payout and Five Card
            Hand Bonus (player's hand) stay in action (True) or are lost with it (False).
        decks: One 52-card deck per round.
    """

    seats: int
    ante_limits: WagerLimits
    progressive: Progressive | None
    five_card: FiveCard | None
    side_wagers_settle_on_fold: bool
    decks: int = 1

    @property
    def magic_card_bonus(self) -> bool:
        return self.five_card is not None and self.five_card.bonus is FiveCardBonus.MAGIC_CARD

    @property
    def lucky_bonus(self) -> bool:
        return self.five_card is not None and self.five_card.bonus is FiveCardBonus.LUCKY_BONUS

    @property
    def bonus_on(self) -> BonusOn:
        """Which Five Card Hand Bonus Wagers the Magic Card or Lucky Bonus pays."""
        return BonusOn.WINNING_HAND if self.five_card is None else self.five_card.bonus_on

    def meters(self) -> dict[str, MeterSpec]:
        """The progressive meters its wagers feed: id -> spec."""
        out: dict[str, MeterSpec] = {}
        if self.progressive is not None:
            out[self.progressive.meter_id] = self.progressive.meter
        if self.five_card is not None:
            out[self.five_card.meter_id] = self.five_card.meter
        return out

    @property
    def wager_unit(self) -> int:
        """The table's wager unit in cents: every wager is a whole multiple of it."""
        return self.ante_limits.unit
