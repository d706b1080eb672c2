"""Four Card Poker's paytables, named as the text names them where it does.

58 Pa. Code 641a.12 (payout odds) is not held: the text we hold defines the wagers and their
hands (641a.1) but gives no odds. The tables here are therefore SECONDARY SOURCES, offered as
the choices of the Rules Submission (601a.2) and named by their pays, highest hand first:

- Aces Up (641a.1 "Aces Up Wager": a pair of aces or better against a posted paytable):
  four tables posted by casinos. "50-40-8-6-4-2-1" is the one a Pennsylvania casino posts
  (Live! Casino Philadelphia, in the regulation notes); "50-40-8-5-4-3-1" another casino's;
  "50-40-9-6-4-2-1" and "50-40-7-5-4-3-1" are the best and the worst of the published range
  (house edge 1.98% to 6.15%, Wikipedia "Four Card Poker" after the Wizard of Odds), which
  :mod:`.math` reproduces exactly.
- The Ante Bonus (three of a kind, straight flush, four of a kind, paid on the Ante whatever
  the dealer holds): "25-20-2" as the same Pennsylvania casino posts it; "30-15-2" another
  published table. Stated in the Rules Submission by name.
- The Four-Card and Five-Card Progressive Payout paytables are stated line by line in the
  Rules Submission (no table is held): their hands are three of a kind or better (641a.1
  "Four-Card Progressive Payout Hand", "Five-Card Progressive Payout Hand").

Entry points: :data:`ACES_UP_PAYTABLES`, :data:`ANTE_BONUS_PAYTABLES`,
:data:`FOUR_CARD_PROGRESSIVE_HANDS`, :data:`FIVE_CARD_PROGRESSIVE_HANDS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from game_server.games.fourcard.rules.hands import PAIR_OF_ACES
from game_server.rules.wagers.base import Paytable, PaytableLine
from shared.money import ToOne

__all__ = [
    "ACES_UP_LINES",
    "ACES_UP_PAYTABLES",
    "ANTE_BONUS_LINES",
    "ANTE_BONUS_PAYTABLES",
    "FIVE_CARD_ENVY_HANDS",
    "FIVE_CARD_PROGRESSIVE_HANDS",
    "FOUR_CARD_ENVY_HANDS",
    "FOUR_CARD_PROGRESSIVE_HANDS",
]

#: The Aces Up lines, highest hand first (641a.6(b) order, a pair of aces the lowest).
ACES_UP_LINES: Final = (
    "Four of a Kind",
    "Straight Flush",
    "Three of a Kind",
    "Flush",
    "Straight",
    "Two Pair",
    PAIR_OF_ACES,
)
#: The Ante Bonus lines, highest first.
ANTE_BONUS_LINES: Final = ("Four of a Kind", "Straight Flush", "Three of a Kind")
#: 641a.1 "Four-Card Progressive Payout Hand": three of a kind or better (641a.6(b)).
FOUR_CARD_PROGRESSIVE_HANDS: Final = ("Four of a Kind", "Straight Flush", "Three of a Kind")
#: 641a.1 "Five-Card Progressive Payout Hand": three of a kind or better (641a.6(d)).
FIVE_CARD_PROGRESSIVE_HANDS: Final = (
    "Royal Flush",
    "Straight Flush",
    "Four of a Kind",
    "Full House",
    "Flush",
    "Straight",
    "Three of a Kind",
)

#: 641a.1 "Four-Card Envy Bonus Qualifying Hand": four of a kind or better, or straight flush
#: or better (641a.6(b) ranks four of a kind above the straight flush), "depending on the
#: paytable selected": a Rules Submission states "Four of a Kind" alone (four of a kind or
#: better) or with "Straight Flush" (straight flush or better).
FOUR_CARD_ENVY_HANDS: Final = ("Four of a Kind", "Straight Flush")
#: 641a.1 "Five-Card Envy Bonus Qualifying Hand": a straight flush or better (641a.6(d)): the
#: royal flush and every other straight flush.
FIVE_CARD_ENVY_HANDS: Final = ("Royal Flush", "Straight Flush")


def _table(name: str, lines: tuple[str, ...]) -> Paytable:
    pays = [int(p) for p in name.split("-")]
    return Paytable(
        name, tuple(PaytableLine(n, ToOne(p)) for n, p in zip(lines, pays, strict=True))
    )


#: The Aces Up paytables a Rules Submission may choose (secondary sources: module docstring).
ACES_UP_PAYTABLES: Final[Mapping[str, Paytable]] = MappingProxyType(
    {
        name: _table(name, ACES_UP_LINES)
        for name in ("50-40-8-6-4-2-1", "50-40-8-5-4-3-1", "50-40-9-6-4-2-1", "50-40-7-5-4-3-1")
    }
)
#: Where each Aces Up paytable was published (said on the par sheet and the rules screen).
ACES_UP_SOURCES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "50-40-8-6-4-2-1": "posted by a Pennsylvania casino (Live! Casino Philadelphia)",
        "50-40-8-5-4-3-1": "posted by a casino (gbhcasino.com)",
        "50-40-9-6-4-2-1": "the lowest published house edge, 1.98% (Wikipedia, Wizard of Odds)",
        "50-40-7-5-4-3-1": "the highest published house edge, 6.15% (Wikipedia, Wizard of Odds)",
    }
)
#: The Ante Bonus paytables (secondary sources: module docstring).
ANTE_BONUS_PAYTABLES: Final[Mapping[str, Paytable]] = MappingProxyType(
    {name: _table(name, ANTE_BONUS_LINES) for name in ("25-20-2", "30-15-2")}
)
