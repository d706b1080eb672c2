"""Four Card Poker hands: the best four-card hand of five (a player) or six cards (the
dealer), ranked by 58 Pa. Code 641a.6(b), and the five-card hand of the Five-Card Progressive
Payout Wager, ranked by 641a.6(d).

The ranking itself is the shared one (:mod:`game_server.rules.poker`: :class:`Category4` and
:class:`Category5`, :func:`best_of`); this module only names the hands as the paytables name
them. The text of 641a.6 is not held: the four-card order is the Board's four-card ranking as
its sister chapters word it (684a.6, 657a.6, quoted in the regulation notes: secondary
source): four of a kind, straight flush, three of a kind, flush, straight, two pair, pair.

Entry points: :func:`best_four`, :func:`five_card`, :func:`four_card_name`,
:func:`aces_up_line`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

from game_server.rules.poker import Category4, Category5, HandRank, best_of, rank_hand
from shared.cards import ACE, Card

__all__ = [
    "FIVE_CARD_NAMES",
    "FOUR_CARD_NAMES",
    "PAIR_OF_ACES",
    "aces_up_line",
    "best_four",
    "five_card",
    "four_card_name",
]

#: The four-card hands as the paytables name them (641a.6(b)), highest first.
FOUR_CARD_NAMES: Final[Mapping[Category4, str]] = MappingProxyType(
    {
        Category4.FOUR_OF_A_KIND: "Four of a Kind",
        Category4.STRAIGHT_FLUSH: "Straight Flush",
        Category4.THREE_OF_A_KIND: "Three of a Kind",
        Category4.FLUSH: "Flush",
        Category4.STRAIGHT: "Straight",
        Category4.TWO_PAIR: "Two Pair",
        Category4.PAIR: "Pair",
        Category4.HIGH_CARD: "High Card",
    }
)
#: The five-card hands as the Five-Card Progressive paytable names them (641a.6(d)).
FIVE_CARD_NAMES: Final[Mapping[Category5, str]] = MappingProxyType(
    {
        Category5.ROYAL_FLUSH: "Royal Flush",
        Category5.STRAIGHT_FLUSH: "Straight Flush",
        Category5.FOUR_OF_A_KIND: "Four of a Kind",
        Category5.FULL_HOUSE: "Full House",
        Category5.FLUSH: "Flush",
        Category5.STRAIGHT: "Straight",
        Category5.THREE_OF_A_KIND: "Three of a Kind",
        Category5.TWO_PAIR: "Two Pair",
        Category5.PAIR: "Pair",
        Category5.HIGH_CARD: "High Card",
    }
)
#: The Aces Up paytable's lowest line (641a.1 "Aces Up Wager"; the posted tables' wording).
PAIR_OF_ACES: Final = "Pair of Aces"


def best_four(cards: Sequence[Card]) -> HandRank:
    """The best four-card hand among a player's five or the dealer's six cards (641a.1
    "Hand"; 641a.6(b)). Ties compare :class:`HandRank` values."""
    return best_of(cards, 4)


def five_card(cards: Sequence[Card]) -> HandRank:
    """A player's five cards as one five-card hand (641a.6(d); the Five-Card Progressive
    Payout Hand)."""
    return rank_hand(cards)


def four_card_name(value: HandRank) -> str:
    """A four-card hand's paytable name; a pair of aces is "Pair of Aces"."""
    category = Category4(value.category)
    if category is Category4.PAIR and value.ranks[0] == ACE:
        return PAIR_OF_ACES
    return FOUR_CARD_NAMES[category]


def aces_up_line(value: HandRank) -> str | None:
    """The Aces Up line a best four-card hand wins (a pair of aces or better), or None."""
    category = Category4(value.category)
    if category < Category4.PAIR:
        return None
    name = four_card_name(value)
    return None if name == FOUR_CARD_NAMES[Category4.PAIR] else name
