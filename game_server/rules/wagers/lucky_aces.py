"""Lucky Aces wager, 58 Pa. Code 633b.8.

Offered only on a fully automated electronic gaming table (633b.8(a)). Settled immediately
after the dealer's hole card is turned face up (633b.8(d)): it wins when the player's two cards
and the dealer's two cards contain at least one ace, paid by the number of aces and by the
"same suit" and "ace of diamonds" lines of the table in 633b.8(e).
"""

from __future__ import annotations

from game_server.rules.wagers.base import (
    Moment,
    Options,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
    TableType,
)
from game_server.rules.wagers.math import ordered_deals
from shared.cards import DIAMONDS
from shared.money import ToOne

SECTION = "58 Pa. Code 633b.8"

FOUR_ACES = "4 Aces"
THREE_ACES_SAME_SUIT = "3 Aces Same Suit"
THREE_ACES = "3 Aces"
TWO_ACES_SAME_SUIT = "2 Aces Same Suit"
TWO_ACES = "2 Aces"
ONE_ACE_OF_DIAMONDS = "1 Ace of Diamonds"
ONE_ACE = "1 Ace"

LINE_NAMES = (
    FOUR_ACES,
    THREE_ACES_SAME_SUIT,
    THREE_ACES,
    TWO_ACES_SAME_SUIT,
    TWO_ACES,
    ONE_ACE_OF_DIAMONDS,
    ONE_ACE,
)

# 633b.8(e): "a to 1" for each line, Paytables A, B, C, D in the regulation's column order.
_ODDS = {
    FOUR_ACES: (500, 500, 1000, 2000),
    THREE_ACES_SAME_SUIT: (250, 250, 500, 500),
    THREE_ACES: (20, 30, 35, 15),
    TWO_ACES_SAME_SUIT: (8, 12, 16, 10),
    TWO_ACES: (5, 5, 5, 4),
    ONE_ACE_OF_DIAMONDS: (2, 2, 2, 2),
    ONE_ACE: (1, 1, 1, 1),
}

PAYTABLES = {
    name: Paytable(name, tuple(PaytableLine(line, ToOne(_ODDS[line][i])) for line in LINE_NAMES))
    for i, name in enumerate(("Paytable A", "Paytable B", "Paytable C", "Paytable D"))
}


def classify(cards: tuple[int, ...]) -> str | None:
    """The 633b.8(e) hand of four cards (player's two and dealer's two), or None without an ace.

    Only the highest line is paid: three aces of which two share a suit are "3 Aces", and
    "Same Suit" lines need every ace of the hand in one suit.
    """
    ace_suits: list[int] = []
    for c in cards:
        if c >= 48:  # aces are the codes 48..51
            ace_suits.append(c & 3)
    aces = len(ace_suits)
    if aces == 0:
        return None
    if aces == 4:
        return FOUR_ACES
    same_suit = ace_suits.count(ace_suits[0]) == aces
    if aces == 3:
        return THREE_ACES_SAME_SUIT if same_suit else THREE_ACES
    if aces == 2:
        return TWO_ACES_SAME_SUIT if same_suit else TWO_ACES
    return ONE_ACE_OF_DIAMONDS if ace_suits[0] == DIAMONDS else ONE_ACE


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.8(d): settle on the player's two cards and the dealer's two cards."""
    player, dealer = ctx.player_cards, ctx.dealer_cards
    if player[0] < 48 and player[1] < 48 and dealer[0] < 48 and dealer[1] < 48:
        return None  # no ace: the common case, decided without building the hand
    name = classify((player[0], player[1], dealer[0], dealer[1]))
    return None if name is None else paytable.line(name)


def exact_counts(decks: int, paytable: Paytable, options: Options) -> dict[str | None, int]:
    """Ordered deals of the player's two cards and the dealer's two cards, per line: the
    line depends only on which cards are aces and their suits, so five classes suffice (any
    other card: 48 per deck; the ace of each suit: 1 per deck)."""
    representative = (0, 48, 49, 50, 51)  # 2C, then AC AD AH AS
    counts: dict[str | None, int] = {}
    for classes, weight in ordered_deals((48 * decks, decks, decks, decks, decks), 4):
        line = classify(tuple(representative[c] for c in classes))
        counts[line] = counts.get(line, 0) + weight
    return counts


LUCKY_ACES = SideWager(
    name="lucky_aces",
    title="Lucky Aces",
    section=SECTION,
    settles_at=Moment.AFTER_HOLE_CARD,
    paytables=PAYTABLES,
    evaluate=evaluate,
    requires=("blackjack",),
    table_types=frozenset({TableType.FULLY_AUTOMATED}),
    cites={"paytables": "(e)", "table_types": "(a)"},
)
