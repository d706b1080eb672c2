"""The paytables of Ultimate Texas Hold 'Em as data, named as 58 Pa. Code 653a.12 names them.

Each paytable is a :class:`~game_server.rules.wagers.base.Paytable` whose lines are the
653a.6(b) hands as the regulation writes them ("Royal flush", "Four-of-a-kind", ...) with
their pay (``ToOne`` for "a to b", ``ForOne`` for "a for 1", ``MeterShare`` for "p% of
meter", ``Fixed`` for the Envy Bonus dollar amounts). A hand with no line loses the wager,
except on the Blind paytables, whose last row is a push ("Less than a straight", "Less than a
flush"): see :data:`BLIND_PUSH`.

- 653a.12(a): Ante and Play, 1 to 1 (:data:`EVEN_MONEY`).
- 653a.12(b): Blind, "Paytable A" and "Paytable B" (:data:`BLIND_PAYTABLES`).
- 653a.12(c): Trips, "Paytable A" to "Paytable D" (:data:`TRIPS_PAYTABLES`).
- 653a.12(d)(1): Progressive Payout (:data:`PROGRESSIVE_PAYTABLE`); (d)(5) Envy Bonus for the
  $1 and $5 Progressive Payout Wagers (:data:`ENVY_BONUS`).
- 653a.12(e)(1): Five Card Hand Bonus (:data:`FIVE_CARD_PAYTABLE`); (e)(3) Magic Card and
  Lucky Bonus (:data:`MAGIC_CARD`, :data:`LUCKY_BONUS`).

Entry points: :data:`BLIND_PAYTABLES`, :data:`TRIPS_PAYTABLES`, :func:`line_for`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from game_server.games.uth.rules.hands import HAND_NAMES
from game_server.rules.poker import Category5
from game_server.rules.wagers import five_card_bonus
from game_server.rules.wagers.base import Paytable, PaytableLine
from shared.money import Fixed, ForOne, MeterShare, Pay, ToOne

ROYAL = HAND_NAMES[Category5.ROYAL_FLUSH]
STRAIGHT_FLUSH = HAND_NAMES[Category5.STRAIGHT_FLUSH]
FOUR = HAND_NAMES[Category5.FOUR_OF_A_KIND]
FULL_HOUSE = HAND_NAMES[Category5.FULL_HOUSE]
FLUSH = HAND_NAMES[Category5.FLUSH]
STRAIGHT = HAND_NAMES[Category5.STRAIGHT]
TRIPS = HAND_NAMES[Category5.THREE_OF_A_KIND]

#: 653a.12(a): each winning Ante Wager and Play Wager is paid at 1 to 1.
EVEN_MONEY: Final = ToOne(1, 1)


def _table(name: str, *lines: tuple[str, Pay]) -> Paytable:
    return Paytable(name, tuple(PaytableLine(hand, pay) for hand, pay in lines))


#: 653a.12(b): the Blind Wager paytables of the Rules Submission.
BLIND_PAYTABLES: Final[Mapping[str, Paytable]] = MappingProxyType(
    {
        "Paytable A": _table(
            "Paytable A",
            (ROYAL, ToOne(500)),
            (STRAIGHT_FLUSH, ToOne(50)),
            (FOUR, ToOne(10)),
            (FULL_HOUSE, ToOne(3)),
            (FLUSH, ToOne(3, 2)),
            (STRAIGHT, ToOne(1)),
        ),
        "Paytable B": _table(
            "Paytable B",
            (ROYAL, ToOne(500)),
            (STRAIGHT_FLUSH, ToOne(50)),
            (FOUR, ToOne(10)),
            (FULL_HOUSE, ToOne(3)),
            (FLUSH, ToOne(3, 2)),
        ),
    }
)
#: 653a.12(b): the last row of each Blind paytable, a push.
BLIND_PUSH: Final[Mapping[str, str]] = MappingProxyType(
    {"Paytable A": "Less than a straight", "Paytable B": "Less than a flush"}
)


def _trips(name: str, full_house: int, flush: int, straight: int, four: int = 30) -> Paytable:
    return _table(
        name,
        (ROYAL, ToOne(50)),
        (STRAIGHT_FLUSH, ToOne(40)),
        (FOUR, ToOne(four)),
        (FULL_HOUSE, ToOne(full_house)),
        (FLUSH, ToOne(flush)),
        (STRAIGHT, ToOne(straight)),
        (TRIPS, ToOne(3)),
    )


#: 653a.12(c): the Trips Wager paytables of the Rules Submission.
TRIPS_PAYTABLES: Final[Mapping[str, Paytable]] = MappingProxyType(
    {
        "Paytable A": _trips("Paytable A", full_house=9, flush=7, straight=4),
        "Paytable B": _trips("Paytable B", full_house=8, flush=6, straight=5),
        "Paytable C": _trips("Paytable C", full_house=8, flush=7, straight=4),
        "Paytable D": _trips("Paytable D", full_house=7, flush=6, straight=5, four=20),
    }
)

#: 653a.12(d)(1): the Progressive Payout Wager paytable (one, "Paytable").
PROGRESSIVE_PAYTABLE: Final = _table(
    "Paytable",
    (ROYAL, MeterShare(100)),
    (STRAIGHT_FLUSH, MeterShare(10)),
    (FOUR, ForOne(300)),
    (FULL_HOUSE, ForOne(50)),
    (FLUSH, ForOne(40)),
    (STRAIGHT, ForOne(30)),
    (TRIPS, ForOne(9)),
)

#: 653a.12(d)(5): Envy Bonus per Progressive Payout Wager amount (cents) and qualifying hand.
ENVY_BONUS: Final[Mapping[int, Paytable]] = MappingProxyType(
    {
        100: _table(
            "$1 Progressive Payout Wager",
            (ROYAL, Fixed(100_000)),
            (STRAIGHT_FLUSH, Fixed(30_000)),
        ),
        500: _table(
            "$5 Progressive Payout Wager",
            (ROYAL, Fixed(500_000)),
            (STRAIGHT_FLUSH, Fixed(150_000)),
        ),
    }
)
#: The Progressive Payout Wager amounts that have an Envy Bonus table (653a.12(d)(5)).
PROGRESSIVE_AMOUNTS: Final = tuple(ENVY_BONUS)

#: 653a.12(e)(1): the Five Card Hand Bonus Wager paytable.
FIVE_CARD_PAYTABLE: Final = _table(
    "Payout",
    (ROYAL, MeterShare(100)),
    (STRAIGHT_FLUSH, MeterShare(10)),
    (FOUR, ForOne(500)),
    (FULL_HOUSE, ForOne(100)),
    (FLUSH, ForOne(50)),
)

#: 653a.12(e)(3): Magic Card and Lucky Bonus (shared with Caribbean Stud Poker's 639a.1).
MAGIC_CARD: Final = five_card_bonus.MAGIC_CARD
LUCKY_BONUS: Final = five_card_bonus.LUCKY_BONUS


def line_for(paytable: Paytable, category: Category5) -> PaytableLine | None:
    """The line of ``paytable`` that a hand of ``category`` wins, or None."""
    name = HAND_NAMES[category]
    for line in paytable.lines:
        if line.name == name:
            return line
    return None
