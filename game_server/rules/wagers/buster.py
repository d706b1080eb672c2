"""Buster Blackjack wager, 58 Pa. Code 633b.13.

Offered at tables using one, six or eight decks (633b.13(c)). After all action on the
players' hands the dealer draws to at least 17 or busts (633b.13(f)), even when every player
hand is settled; the wager loses unless the dealer busts (633b.13(g)) and wins by the number of
cards in the dealer's busted hand (633b.13(h)). A player whose hand is a Blackjack and who wins
a Buster Blackjack wager of at least $5 with the dealer busting with 7 or 8 or more cards may
also be paid a cash bonus (633b.13(i)).

Entry points: :func:`classify`, :func:`cash_bonus` and :data:`BUSTER`.

The regulation prints Paytables A-F once for each of the single-deck, six-deck and eight-deck
shoes; the three printings are identical letter by letter (the tests check it), so one set of
six paytables serves every shoe and the number of decks does not fix the paytable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from game_server.rules.wagers.base import (
    Bonus,
    Moment,
    OptionSpec,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
)
from shared.cards import BJ_VALUE, Card
from shared.money import ToOne

SECTION = "58 Pa. Code 633b.13"

EIGHT_OR_MORE = "8 or more cards"
LINE_NAMES = (EIGHT_OR_MORE, "7 cards", "6 cards", "5 cards", "4 cards", "3 cards")

# 633b.13(h), "a to 1" by the number of cards in the dealer's busted hand, Paytables A-F.
_ODDS = {
    "Paytable A": (250, 50, 15, 4, 2, 2),
    "Paytable B": (200, 50, 15, 4, 2, 2),
    "Paytable C": (250, 50, 12, 4, 2, 2),
    "Paytable D": (200, 50, 12, 4, 2, 2),
    "Paytable E": (250, 50, 12, 3, 2, 2),
    "Paytable F": (250, 50, 20, 8, 2, 1),
}
PAYTABLES = {
    name: Paytable(
        name, tuple(PaytableLine(line, ToOne(a)) for line, a in zip(LINE_NAMES, odds, strict=True))
    )
    for name, odds in _ODDS.items()
}

BONUS_OPTION = "bonus"
#: 633b.13(i) "Bonus Pay B1" and "Bonus Pay B2", in cents: (8 or more cards, 7 cards).
BONUS_PAYS = {"B1": (800_000, 100_000), "B2": (500_000, 100_000)}
#: 633b.13(i): the bonus needs a Buster Blackjack wager "of at least $5".
BONUS_MIN_WAGER = 500


def _hard_total(cards: Sequence[Card]) -> int:
    return sum(BJ_VALUE[c] for c in cards)


def classify(dealer_cards: Sequence[Card]) -> str | None:
    """The 633b.13(h) line for the dealer's final hand: its number of cards when it busts
    (over 21 with every ace counted 1), None when it does not bust (633b.13(g))."""
    if _hard_total(dealer_cards) <= 21:
        return None
    n = len(dealer_cards)
    return EIGHT_OR_MORE if n >= 8 else f"{n} cards"


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.13(g)-(h): settle on the dealer's final hand, bust card included."""
    name = classify(ctx.dealer_cards)
    return None if name is None else paytable.line(name)


def _is_blackjack(cards: Sequence[Card]) -> bool:
    return len(cards) == 2 and {BJ_VALUE[cards[0]], BJ_VALUE[cards[1]]} == {1, 10}


def bonuses(ctx: SideWagerContext, seats: Mapping[int, SideWagerContext]) -> list[Bonus]:
    """The 633b.13(i) cash bonus as an award of its own, when the Rules Submission offers
    one (option ``bonus``) and it is due."""
    option = ctx.options.get("bonus", "none")
    cents = cash_bonus(ctx, option)
    if not cents:
        return []
    return [(f"Bonus Pay {option}: dealer busts with {classify(ctx.dealer_cards)}", cents)]


def cash_bonus(ctx: SideWagerContext, option: str | int | bool) -> int:
    """The 633b.13(i) cash bonus in cents, 0 when none is due.

    Due when the Rules Submission offers ``"B1"`` or ``"B2"``, the player's initial two cards
    are a Blackjack, the Buster Blackjack wager is at least $5 and the dealer busts with 7 cards
    ($1,000) or 8 or more cards ($8,000 for B1, $5,000 for B2). It is paid on top of the
    wager's own 633b.13(h) payout.
    """
    pays = BONUS_PAYS.get(str(option))
    if pays is None or ctx.stake < BONUS_MIN_WAGER or not _is_blackjack(ctx.player_cards):
        return 0
    line = classify(ctx.dealer_cards)
    if line == EIGHT_OR_MORE:
        return pays[0]
    if line == "7 cards":
        return pays[1]
    return 0


BUSTER = SideWager(
    name="buster",
    title="Buster Blackjack",
    section=SECTION,
    settles_at=Moment.AFTER_ROUND,
    paytables=PAYTABLES,
    evaluate=evaluate,
    bonuses=bonuses,
    requires=("blackjack",),
    allowed_decks=frozenset({1, 6, 8}),
    cites={"paytables": "(h)", "allowed_decks": "(c)", "requires": "(a)"},
    options={
        BONUS_OPTION: OptionSpec(
            choices=("none", "B1", "B2"),
            default="none",
            cite="(i)",
            text="Cash bonus for a player Blackjack with a Buster Blackjack wager of $5 or more "
            "when the dealer busts with 7 cards ($1,000) or 8 or more (B1 $8,000, B2 $5,000).",
        )
    },
)
