"""The configurable rules of one Ultimate Texas Hold 'Em table, as a frozen, validated value.

Built from the Rules Submission (58 Pa. Code 601a.2); the round engine, the strategy and the
math read it. Construction checks every limit 653a.12 sets and raises :class:`UthRulesError`
naming the paragraph:

- the Blind paytable is "Paytable A" or "Paytable B" (653a.12(b)); the Trips paytable, if
  Trips is offered, "Paytable A" to "Paytable D" (653a.12(c));
- the Progressive Payout Wager amounts are ones with an Envy Bonus table, $1 and $5
  (653a.12(d)(5)); its meter's initial and reset amounts are at least $10,000 (653a.12(d)(3));
- the Five Card Hand Bonus Wager amounts are positive whole wager units; its meter's initial
  and reset amounts are at least $10,000 (653a.12(e)(4)); the Magic Card or the Lucky Bonus
  needs the Five Card Hand Bonus, and a table pays one of them, not both: (e)(3) lets a
  certificate holder "pay a Magic Card or Lucky Bonus" (653a.12(e)(3));
- a maximum payout per hand is at least $50,000 and at least what one patron could win in a
  round betting the minimum wagers (653a.12(f)).

Entry point: :class:`UthRules`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from game_server.games.uth.rules.paytables import (
    BLIND_PAYTABLES,
    PROGRESSIVE_AMOUNTS,
    TRIPS_PAYTABLES,
)
from game_server.rules.errors import RulesError
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import MeterSpec, Paytable
from shared.money import format_money

#: 653a.12(d)(3), (e)(4): the least initial and reset amount of a meter, in cents.
MINIMUM_METER_SEED: Final = 1_000_000
#: 653a.12(f): the least maximum payout per hand, in cents.
MINIMUM_MAX_PAYOUT: Final = 5_000_000
#: The Play Wager multiples of the Ante at each decision (653a.7; see regs-653a.md, whose
#: 653a.7 text is not held: the procedure is that of every Pennsylvania rack card).
PREFLOP_MULTIPLES: Final = (3, 4)
FLOP_MULTIPLES: Final = (2,)
RIVER_MULTIPLES: Final = (1,)
#: The most a winning hand returns per unit of Ante under 653a.12(a)-(c) at the largest
#: multiples: Ante 1 + Play 4 + Blind 500 (royal flush), plus Trips 50 per unit of Trips.
_MAX_WIN_PER_ANTE: Final = 1 + 4 + 500
_MAX_WIN_PER_TRIPS: Final = 50


class UthRulesError(RulesError):
    """A Rules Submission for Ultimate Texas Hold 'Em that 653a.12 does not allow."""


class FiveCardHand(StrEnum):
    """Which cards form the Five Card Hand Bonus hand.

    653a.12(e)(2) says "the highest ranking five-card Poker hand formed" without saying from
    which cards; the Progressive Payout Wager's (d)(2) says "the player's two cards and the
    three-card Flop". The default reads (e)(2) the same way. The best five of the hand's seven
    cards (653a.1 "Hand") would pay a flush, full house or four of a kind made on the turn and
    river at 50, 100 and 500 for 1: the wager would return 574%, and the player-edge guard of
    the Rules Submission refuses it (the engine keeps it so that the reading can be measured).
    """

    HOLE_AND_FLOP = "hole-and-flop"
    BEST_OF_SEVEN = "best-of-seven"


class BonusOn(StrEnum):
    """Which Five Card Hand Bonus Wagers the Magic Card or Lucky Bonus pays (653a.12(e)(3)).

    653a.1 calls each "an additional payout to a player who placed a Five Card Hand Bonus
    Wager" whose card matches the drawn card (whose position is drawn), and (e)(3) lists them
    in the wager's paytable as "Magic Card 20 for 1" and "Lucky Bonus 5 for 1". Read as a
    payout on EVERY such wager, the Magic Card alone returns 2/52 x 20 = 0.77 of the wager (a
    Magic Card is one of the hand's two cards 2 times in 52) and the Lucky Bonus 1/7 x 5 =
    0.71 at six seats (a Lucky position is one of seven): with the (e)(1) lines the wager
    returns 131% or 126% in the long run (``etg par`` on ``uth.toml``), a reading no table
    could offer, and the player-edge guard of the Rules Submission refuses it
    (:mod:`game_server.rules.returns`). The default therefore pays them only on a wager whose
    hand wins a line of the (e)(1) paytable ("additional" to a winning payout). The Rules
    Submission states which.
    """

    WINNING_HAND = "winning-hand"
    EVERY_HAND = "every-hand"


@dataclass(frozen=True, slots=True)
class UthRules:
    """Every rule the engine needs for one table. Money in cents.

    Attributes:
        seats: The table's player seats, numbered 1..seats (653a.2; typically 6 or 7).
        ante_limits: Ante (and so Blind) minimum, maximum and unit.
        blind_paytable: 653a.12(b) "Paytable A" or "Paytable B".
        trips_paytable: 653a.12(c) "Paytable A".."Paytable D", or None: Trips not offered.
        trips_limits: Trips minimum, maximum and unit.
        progressive_amounts: The fixed Progressive Payout Wager amounts offered (653a.12(d)),
            empty when the wager is not offered.
        progressive_meter: The Progressive Payout meter (653a.12(d)(3)).
        progressive_meter_id: The id tables link that meter by.
        five_card_amounts: The fixed Five Card Hand Bonus Wager amounts offered
            (653a.12(e)), empty when not offered.
        five_card_meter: The Five Card Hand Bonus meter (653a.12(e)(4)).
        five_card_meter_id: The id tables link that meter by.
        five_card_hand: Which cards form the Five Card Hand Bonus hand (:class:`FiveCardHand`).
        magic_card_bonus: Pay the Magic Card bonus (653a.12(e)(3)).
        lucky_bonus: Pay the Lucky Bonus (653a.12(e)(3)); not with the Magic Card.
        bonus_on: Which Five Card Hand Bonus Wagers the bonus pays (:class:`BonusOn`).
        max_payout: The most payable to a player on a single hand for the Ante, Blind, Play
            and Trips Wagers (653a.12(f)), or None: no limit.
        side_wagers_settle_on_fold: Trips, Progressive Payout and Five Card Hand Bonus still
            settle on a folded player's hand (the default: 653a.12(c)-(e) pay on the player's
            hand with no condition on the Play Wager; 653a.11 is not held, see regs-653a.md).
    """

    seats: int = 6
    ante_limits: WagerLimits = field(default_factory=lambda: WagerLimits(500, 50_000, 100))
    blind_paytable: str = "Paytable A"
    trips_paytable: str | None = "Paytable A"
    trips_limits: WagerLimits = field(default_factory=lambda: WagerLimits(500, 50_000, 100))
    progressive_amounts: tuple[int, ...] = ()
    progressive_meter: MeterSpec | None = None
    progressive_meter_id: str = "uth:progressive"
    five_card_amounts: tuple[int, ...] = ()
    five_card_meter: MeterSpec | None = None
    five_card_meter_id: str = "uth:five-card"
    five_card_hand: FiveCardHand = FiveCardHand.HOLE_AND_FLOP
    magic_card_bonus: bool = False
    lucky_bonus: bool = False
    bonus_on: BonusOn = BonusOn.WINNING_HAND
    max_payout: int | None = None
    side_wagers_settle_on_fold: bool = True

    def __post_init__(self) -> None:
        if type(self.seats) is not int or not 1 <= self.seats <= 10:
            raise UthRulesError(
                f"an Ultimate Texas Hold 'Em table has 1 to 10 player seats, not {self.seats!r} "
                "(653a.2)"
            )
        if self.blind_paytable not in BLIND_PAYTABLES:
            raise UthRulesError(
                f"{self.blind_paytable!r} is not a Blind paytable: choose "
                f"{_names(BLIND_PAYTABLES)} (653a.12(b))"
            )
        if self.trips_paytable is not None and self.trips_paytable not in TRIPS_PAYTABLES:
            raise UthRulesError(
                f"{self.trips_paytable!r} is not a Trips paytable: choose "
                f"{_names(TRIPS_PAYTABLES)} (653a.12(c))"
            )
        try:
            object.__setattr__(self, "five_card_hand", FiveCardHand(self.five_card_hand))
        except ValueError:
            choices = ", ".join(f'"{c.value}"' for c in FiveCardHand)
            raise UthRulesError(
                f"five_card_hand {self.five_card_hand!r} is not one of {choices} (653a.12(e)(2))"
            ) from None
        try:
            object.__setattr__(self, "bonus_on", BonusOn(self.bonus_on))
        except ValueError:
            choices = ", ".join(f'"{c.value}"' for c in BonusOn)
            raise UthRulesError(
                f"bonus_on {self.bonus_on!r} is not one of {choices} (653a.12(e)(3))"
            ) from None
        self._check_progressive()
        self._check_five_card()
        self._check_max_payout()

    def _check_progressive(self) -> None:
        if not self.progressive_amounts:
            return
        for amount in self.progressive_amounts:
            if amount not in PROGRESSIVE_AMOUNTS:
                offered = ", ".join(format_money(a) for a in PROGRESSIVE_AMOUNTS)
                raise UthRulesError(
                    f"a Progressive Payout Wager of {_money(amount)} has no Envy Bonus table; "
                    f"offer {offered} (653a.12(d)(5))"
                )
        _check_meter(self.progressive_meter, "Progressive Payout Wager", "653a.12(d)(3)")

    def _check_five_card(self) -> None:
        if self.magic_card_bonus and self.lucky_bonus:
            raise UthRulesError(
                "a table pays a Magic Card or a Lucky Bonus, not both: 653a.12(e)(3) lets the "
                'certificate holder "pay a Magic Card or Lucky Bonus"; turn one of them off '
                "(653a.12(e)(3))"
            )
        if not self.five_card_amounts:
            if self.magic_card_bonus or self.lucky_bonus:
                raise UthRulesError(
                    "the Magic Card and Lucky Bonus are paid on Five Card Hand Bonus Wagers: "
                    "offer that wager or turn them off (653a.12(e)(3))"
                )
            return
        unit = self.ante_limits.unit
        for amount in self.five_card_amounts:
            if type(amount) is not int or amount <= 0 or amount % unit:
                raise UthRulesError(
                    f"a Five Card Hand Bonus Wager of {_money(amount)} is not a positive "
                    f"multiple of the wager unit {format_money(unit)} (653a.12(e))"
                )
        _check_meter(self.five_card_meter, "Five Card Hand Bonus Wager", "653a.12(e)(4)")

    def _check_max_payout(self) -> None:
        if self.max_payout is None:
            return
        least = max(MINIMUM_MAX_PAYOUT, self.max_win_at_minimum())
        if type(self.max_payout) is not int or self.max_payout < least:
            raise UthRulesError(
                f"the maximum payout per hand {_money(self.max_payout)} is below "
                f"{format_money(least)}: it must be at least $50,000 or what one patron could "
                "win in a round betting the minimum wager, whichever is greater (653a.12(f))"
            )

    def max_win_at_minimum(self) -> int:
        """What one patron could win under 653a.12(a)-(c) in a round betting the minimum
        Ante, Blind, the largest Play Wager and (if offered) the minimum Trips (653a.12(f))."""
        win = self.ante_limits.minimum * _MAX_WIN_PER_ANTE
        if self.trips_paytable is not None:
            win += self.trips_limits.minimum * _MAX_WIN_PER_TRIPS
        return win

    @property
    def blind(self) -> Paytable:
        """The selected 653a.12(b) Blind paytable."""
        return BLIND_PAYTABLES[self.blind_paytable]

    @property
    def trips(self) -> Paytable | None:
        """The selected 653a.12(c) Trips paytable, or None when Trips is not offered."""
        return None if self.trips_paytable is None else TRIPS_PAYTABLES[self.trips_paytable]

    @property
    def decks(self) -> int:
        """Decks in the table's shoe: one freshly shuffled 52-card deck per round (653a.3)."""
        return 1

    def meters(self) -> dict[str, MeterSpec]:
        """The meters this table links to, by id."""
        out: dict[str, MeterSpec] = {}
        if self.progressive_amounts and self.progressive_meter is not None:
            out[self.progressive_meter_id] = self.progressive_meter
        if self.five_card_amounts and self.five_card_meter is not None:
            out[self.five_card_meter_id] = self.five_card_meter
        return out

    @property
    def wager_unit(self) -> int:
        """The table's wager unit in cents: every wager is a whole multiple of it."""
        return self.ante_limits.unit


def _check_meter(spec: MeterSpec | None, wager: str, cite: str) -> None:
    if spec is None:
        raise UthRulesError(f"the {wager} needs its meter in the Rules Submission ({cite})")
    if spec.seed < MINIMUM_METER_SEED or spec.reseed < MINIMUM_METER_SEED:
        raise UthRulesError(
            f"the {wager} meter's initial amount {_money(spec.seed)} and reset amount "
            f"{_money(spec.reseed)} must each be at least $10,000 ({cite})"
        )
    if not 0 < spec.increment_bp <= 10_000:
        raise UthRulesError(
            f"the {wager} meter's rate of progression {spec.increment_bp} bp must be in the "
            f"Rules Submission and be more than 0% and at most 100% of the wager ({cite})"
        )


def _names(tables: object) -> str:
    return ", ".join(f'"{n}"' for n in tables)  # type: ignore[attr-defined]


def _money(amount: object) -> str:
    return format_money(amount) if type(amount) is int else repr(amount)
