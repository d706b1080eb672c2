"""Top 3 wager, 58 Pa. Code 633b.7.

Offered only where the Three Card Poker wager of 633a.6(e)(9) is (633b.7(a)), and placed
only by a player who has placed a Blackjack wager and a Three Card Poker wager (633b.7(c)).
It is settled with the Three Card Poker wager immediately after the second card is dealt to
each player and the dealer, before any other card (633b.7(d)): it wins when the player's two
cards and the dealer's up card form three of a kind or a straight flush ((a), (d)(2)) and
loses otherwise ((d)(1)), a straight that is not a flush included. Only the highest hand
formed is paid, at the odds of Paytable A or B of 633b.7(e).

"Three-of-a-kind Suited" is three cards of one rank and one suit, that is three identical
cards, possible only with several decks; it is paid on its own line and not also as
"Three-of-a-kind". Entry points: :data:`TOP_3`, :func:`evaluate`, :func:`exact_counts`.
"""

from __future__ import annotations

from collections.abc import Sequence

from game_server.rules.poker import Category3, is_suited, rank_hand
from game_server.rules.wagers.base import (
    NO_OPTIONS,
    Moment,
    Options,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
)
from game_server.rules.wagers.three_card_poker import (
    highest_line,
    ordered_three_card_counts,
    three_cards,
)
from shared.cards import Card
from shared.money import ToOne

SECTION = "58 Pa. Code 633b.7"

THREE_OF_A_KIND_SUITED = "Three-of-a-kind Suited"
STRAIGHT_FLUSH = "Straight Flush"
THREE_OF_A_KIND = "Three-of-a-kind"

LINE_NAMES = (THREE_OF_A_KIND_SUITED, STRAIGHT_FLUSH, THREE_OF_A_KIND)

# 633b.7(e): "a to 1" for each hand, Paytables A and B in the regulation's column order.
_ODDS = {
    THREE_OF_A_KIND_SUITED: (270, 1000),
    STRAIGHT_FLUSH: (180, 100),
    THREE_OF_A_KIND: (90, 70),
}

PAYTABLES = {
    name: Paytable(name, tuple(PaytableLine(line, ToOne(_ODDS[line][i])) for line in LINE_NAMES))
    for i, name in enumerate(("Paytable A", "Paytable B"))
}


def classify(cards: Sequence[Card]) -> tuple[str, ...]:
    """The 633b.7 hands three cards form, highest first (empty: the wager loses, (d)(1)).

    Three identical cards are "Three-of-a-kind Suited" and also "Three-of-a-kind"; the
    paytable pays the first, the highest hand formed (633b.7(e)).
    """
    category = rank_hand(cards).category
    if category is Category3.THREE_OF_A_KIND:
        if is_suited(cards):
            return (THREE_OF_A_KIND_SUITED, THREE_OF_A_KIND)
        return (THREE_OF_A_KIND,)
    if category is Category3.STRAIGHT_FLUSH:
        return (STRAIGHT_FLUSH,)
    return ()


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.7(d)-(e): settle on the player's two cards and the dealer's up card, paying the
    highest hand formed."""
    return highest_line(classify(three_cards(ctx)), paytable)


def exact_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """Ordered deals of the player's two cards and the dealer's up card, per line."""
    return ordered_three_card_counts(decks, classify, paytable)


TOP_3 = SideWager(
    name="top_3",
    title="Top 3",
    section=SECTION,
    settles_at=Moment.AFTER_DEAL,
    paytables=PAYTABLES,
    evaluate=evaluate,
    requires=("blackjack", "three_card_poker"),
    cites={"paytables": "(e)", "requires": "(a), (c)"},
)
