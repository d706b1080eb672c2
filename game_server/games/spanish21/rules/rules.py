"""The configurable rules of one Spanish 21 table, as a frozen value, and the 635a.12 payouts.

Spanish 21 (58 Pa. Code 635a) is Blackjack dealt from Spanish decks with more for the player;
:class:`Spanish21Rules` is a :class:`~game_server.games.blackjack.rules.rules.BlackjackRules`
(so that Blackjack's engine plays it) with what Spanish 21 adds. What we hold of 635a is
635a.12(a)-(c)(1) verbatim; the rest is from secondary sources (the research notes on
Chapter 635a and a Pennsylvania casino's published Spanish 21 rules), said so where used:

- six or eight decks of 48 cards, the four tens of each removed, face cards kept (secondary
  source; 635b.1(b) names the same shoes for Match the Dealer);
- 635a.12(a): each winning wager 1 to 1, Blackjack 3 to 2; a player's Blackjack beats the
  dealer's and a player's 21 always wins (secondary source);
- 635a.12(b): the 6-7-8 and 7-7-7 bonuses and the five-, six- and seven-or-more-card 21, paid
  except when the player made a Double Down Wager, then 1 to 1 (:func:`bonus_line`). The text
  excepts only the double: a split hand is paid them;
- 635a.12(c): the fixed super bonus for three suited 7s against a dealer 7, $1,000 for an
  original wager of $5 to under $25 ((c)(1)); (c)(2), for $25 or more, was not found: the Rules
  Submission states it (``super_bonus_25_and_over``) and the rules screen shows it;
- 635a.10 "Double Down Wager; rescue": a double on any number of cards, once a hand, and the
  rescue: after the double's card the player may take back the double down wager and forfeit
  the original one (secondary source);
- late surrender, resplitting and hitting split aces, doubling after a split, the dealer's
  soft 17 rule and insurance: Rules Submission choices. The dealer peeks under an ace or a
  face card; even money is not offered (a Blackjack is paid 3 to 2 whatever the dealer holds).

Entry points: :class:`Spanish21Rules`, :func:`bonus_line`, :func:`super_bonus`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from game_server.games.blackjack.rules.rules import BlackjackRules
from shared.cards import Card, standard_deck
from shared.money import ToOne

__all__ = [
    "DECK_COUNTS",
    "SUPER_BONUS_5_TO_25",
    "Spanish21Rules",
    "bonus_line",
    "super_bonus",
]

#: Six or eight 48-card Spanish decks (secondary source; 635b.1(b)).
DECK_COUNTS: Final = (6, 8)
#: 635a.12(c)(1): the super bonus for an original wager of $5 or more but less than $25.
SUPER_BONUS_5_TO_25: Final = 100_000
SUPER_BONUS_LOW: Final = 500
SUPER_BONUS_HIGH: Final = 2_500

# 635a.12(b) lines, as the paragraphs name the hands.
MIXED_678: Final = "6-7-8 mixed suits 3 to 2 (635a.12(b)(1))"
SUITED_678: Final = "6-7-8 same suit 2 to 1 (635a.12(b)(2))"
SPADES_678: Final = "6-7-8 of spades 3 to 1 (635a.12(b)(2))"
MIXED_777: Final = "7-7-7 mixed suits 3 to 2 (635a.12(b)(3))"
SUITED_777: Final = "7-7-7 same suit 2 to 1 (635a.12(b)(4))"
SPADES_777: Final = "7-7-7 of spades 3 to 1 (635a.12(b)(4))"
FIVE_CARD_21: Final = "Five-card 21 3 to 2 (635a.12(b)(5))"
SIX_CARD_21: Final = "Six-card 21 2 to 1 (635a.12(b)(6))"
SEVEN_CARD_21: Final = "Seven-or-more-card 21 3 to 1 (635a.12(b)(7))"
WIN_21: Final = "21 wins 1 to 1 (635a.12(a))"
DOUBLED_21: Final = "21 after a double down 1 to 1 (635a.12(b))"
SUPER_BONUS_LINE: Final = "Super bonus: suited 7-7-7 against a dealer 7 (635a.12(c))"

THREE_TO_TWO: Final = ToOne(3, 2)
TWO_TO_ONE: Final = ToOne(2, 1)
THREE_TO_ONE: Final = ToOne(3, 1)
EVEN: Final = ToOne(1, 1)


@dataclass(frozen=True, slots=True)
class Spanish21Rules(BlackjackRules):
    """Every rule the engine needs for one Spanish 21 table: Blackjack's fields (the decks
    are 48-card Spanish decks) and the Rules Submission's value of the 635a.12(c) super bonus
    for an original wager of $25 or more (cents)."""

    super_bonus_25_and_over: int = 500_000


def bonus_line(cards: Sequence[Card], doubled: bool) -> tuple[ToOne, str]:
    """What a winning hand of 21 of ``cards`` is paid (635a.12(a)-(b)): a bonus hand at its
    odds unless the hand was doubled (then 1 to 1, (b)), else 1 to 1."""
    if doubled:
        return EVEN, DOUBLED_21
    n = len(cards)
    if n == 3:
        ranks = sorted(c.rank for c in cards)
        suits = {c.suit for c in cards}
        if ranks in ([6, 7, 8], [7, 7, 7]):
            sevens = ranks == [7, 7, 7]
            if suits == {"S"}:
                return THREE_TO_ONE, SPADES_777 if sevens else SPADES_678
            if len(suits) == 1:
                return TWO_TO_ONE, SUITED_777 if sevens else SUITED_678
            return THREE_TO_TWO, MIXED_777 if sevens else MIXED_678
    if n == 5:
        return THREE_TO_TWO, FIVE_CARD_21
    if n == 6:
        return TWO_TO_ONE, SIX_CARD_21
    if n >= 7:
        return THREE_TO_ONE, SEVEN_CARD_21
    return EVEN, WIN_21


def super_bonus(
    rules: Spanish21Rules, cards: Sequence[Card], up_card: Card, original: int, doubled: bool
) -> int:
    """635a.12(c): the fixed amount (cents) a winning hand of three suited 7s is paid besides
    its (b)(4) odds when the dealer's up card is a 7: $1,000 for an ``original`` wager of $5
    to under $25 ((c)(1)), the Rules Submission's amount for $25 or more; 0 otherwise. It is
    paid "in addition to the payouts under subsection (b)(4)", so never on a doubled hand,
    which (b) pays 1 to 1."""
    if doubled or len(cards) != 3 or up_card.rank != 7:
        return 0
    if any(c.rank != 7 for c in cards) or len({c.suit for c in cards}) != 1:
        return 0
    if original >= SUPER_BONUS_HIGH:
        return rules.super_bonus_25_and_over
    return SUPER_BONUS_5_TO_25 if original >= SUPER_BONUS_LOW else 0


def spanish_deck() -> tuple[Card, ...]:
    """The 48-card Spanish deck: a standard deck without the four tens (Chapter 635a,
    secondary source; 58 Pa. Code 635b.1(b))."""
    return tuple(c for c in standard_deck() if c.rank != 10)
