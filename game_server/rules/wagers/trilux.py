"""TriLux Deluxe wager, 58 Pa. Code 633b.11, and its Press.

A player who has placed a Blackjack wager may place a TriLux Deluxe wager of at most two
times the Blackjack wager (633b.11(b), (d)). It is settled immediately after the second card
is dealt to each player and the dealer, before any other card or card reader (633b.11(e)):
it wins when the player's initial two cards and the dealer's up card form a flush, a
straight, three of a kind or a straight flush (633b.11(a)(1)-(4), (e)(1)) and loses otherwise
((e)(2)); only the highest of them is paid, at the odds of 633b.11(i). The paytable is not
chosen: the number of decks fixes it (633b.11(j)): TLX-1 for 1 deck, TLX-2 for 2, TLX-3 for
4, 6 or 8 (:data:`DECK_PAYTABLES`); no paytable is named for other deck counts, so the wager
is offered only with those.

The Press (633b.11(f)-(h), the Rules Submission option ``"press"``): a player whose TriLux
Deluxe wager wins may "cap" the initial Blackjack wager with all or a portion of those
winnings, which then ride on the Blackjack hand. The pure rules are here; the Blackjack
engine (its round's ``press``) asks them when it offers the Press, and settles and splits the
pressed hand:

- :func:`press_allowed`: not when the dealer has Blackjack ((g)).
- :func:`press_limit`, :func:`refuse_press`, :func:`verify_press`, :func:`can_press`: what
  may be pressed ((f)).
- :func:`pressed_hand_pays`: a winning pressed hand pays the pressed portion even money,
  a Blackjack included ((g)).
- :func:`split_match`: a split needs the initial wager plus the pressed portion ((h)).

Entry points: :data:`TRILUX`, :func:`evaluate`, :func:`exact_counts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from game_server.rules.errors import ActionNotAllowed
from game_server.rules.poker import Category3
from game_server.rules.wagers.base import (
    NO_OPTIONS,
    Moment,
    Options,
    OptionSpec,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
)
from game_server.rules.wagers.three_card_poker import (
    hands,
    highest_line,
    ordered_three_card_counts,
    three_cards,
)
from shared.cards import Card
from shared.money import StakePay, ToOne, format_money

SECTION = "58 Pa. Code 633b.11"

STRAIGHT_FLUSH = "Straight flush"
THREE_OF_A_KIND = "Three-of-a-kind"
STRAIGHT = "Straight"
FLUSH = "Flush"

#: The hands of 633b.11(i), highest first.
LINE_NAMES = (STRAIGHT_FLUSH, THREE_OF_A_KIND, STRAIGHT, FLUSH)

_CATEGORY_LINE = {
    Category3.STRAIGHT_FLUSH: STRAIGHT_FLUSH,  # (a)(3)
    Category3.THREE_OF_A_KIND: THREE_OF_A_KIND,  # (a)(4)
    Category3.STRAIGHT: STRAIGHT,  # (a)(2)
    Category3.FLUSH: FLUSH,  # (a)(1)
}

TLX_1, TLX_2, TLX_3 = "Paytable TLX-1", "Paytable TLX-2", "Paytable TLX-3"

# 633b.11(i): "a to 1" for each hand, Paytables TLX-1, TLX-2, TLX-3 in the regulation's order.
_ODDS = {
    STRAIGHT_FLUSH: (20, 20, 25),
    THREE_OF_A_KIND: (15, 15, 15),
    STRAIGHT: (9, 9, 8),
    FLUSH: (6, 5, 5),
}

PAYTABLES = {
    name: Paytable(name, tuple(PaytableLine(line, ToOne(_ODDS[line][i])) for line in LINE_NAMES))
    for i, name in enumerate((TLX_1, TLX_2, TLX_3))
}

#: 633b.11(j)(1)-(5): the paytable for each number of decks.
DECK_PAYTABLES: Mapping[int, str] = {1: TLX_1, 2: TLX_2, 4: TLX_3, 6: TLX_3, 8: TLX_3}

#: 633b.11(d): the wager may not exceed two times the Blackjack wager.
MAX_MULTIPLE_OF_MAIN = 2

PRESS = "press"

#: The usual Blackjack payout, 3 to 2, for :func:`pressed_hand_pays`.
BLACKJACK_PAYS = ToOne(3, 2)


def classify(cards: Sequence[Card]) -> tuple[str, ...]:
    """The 633b.11(a) hands three cards form, highest first (empty: the wager loses).

    A straight flush is also a straight and a flush; three identical cards (several decks)
    are three of a kind and a flush. Only the first is paid.
    """
    return tuple(_CATEGORY_LINE[category] for category in hands(cards))


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.11(e): settle on the player's initial two cards and the dealer's up card, paying
    the highest hand formed at the odds of (i)."""
    return highest_line(classify(three_cards(ctx)), paytable)


def exact_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """Ordered deals of the player's initial two cards and the dealer's up card, per line."""
    return ordered_three_card_counts(decks, classify, paytable)


# ---------------------------------------------------------------------------------------------
# The Press, 633b.11(f)-(h).


class PressNotAllowed(ActionNotAllowed):
    """A TriLux Deluxe Press the regulation does not allow (633b.11(f)-(g))."""


def press_allowed(dealer_blackjack: bool) -> bool:
    """633b.11(g): TriLux Deluxe winnings may not cap the Blackjack wager when the dealer has
    Blackjack.

    The wager is settled before anyone knows the hole card ((e)), so the engine offers the
    Press only once the dealer is known not to have Blackjack: after the peek, or at once
    under an up card that cannot make one. A table that does not peek under an ace or a
    ten-value card never offers it under those up cards (the dealer's Blackjack is not known
    before the hand is played).
    """
    return not dealer_blackjack


def press_limit(winnings: int, main: int) -> int:
    """633b.11(f): the most that may be pressed onto the initial Blackjack wager, in cents.

    The player caps the wager "with all or a portion of the player's initial TriLux Deluxe
    wager winnings": the pressed amount is bounded by those winnings (the win on top of the
    returned TriLux stake; the stake itself is not pressed) and by nothing else in the
    regulation: not by the Blackjack wager, nor by the table maximum. Without an initial
    Blackjack wager there is nothing to cap (0).
    """
    if winnings < 0:
        raise ValueError(f"winnings of {winnings} cents are negative")
    return winnings if main > 0 else 0


def refuse_press(
    amount: int, *, winnings: int, main: int, dealer_blackjack: bool, unit: int = 1
) -> PressNotAllowed | None:
    """The :class:`PressNotAllowed` a Press of ``amount`` cents of the TriLux Deluxe winnings
    onto an initial Blackjack wager of ``main`` cents would meet (633b.11(f)-(g)), or None.

    ``unit`` is the table's wager unit: a portion of the winnings must be a multiple of it
    (chips of the unit), all of the winnings may always be pressed, as a double down may
    always be the full original wager.
    """
    if not press_allowed(dealer_blackjack):
        return PressNotAllowed(
            "TriLux Deluxe winnings may not cap the Blackjack wager when the dealer has "
            f"Blackjack ({SECTION}(g))"
        )
    limit = press_limit(winnings, main)
    if type(amount) is not int or amount <= 0:
        return PressNotAllowed(
            f"a Press of {amount!r} is not a positive whole number of cents ({SECTION}(f))"
        )
    if amount > limit:
        return PressNotAllowed(
            f"a Press of {format_money(amount)} is more than the TriLux Deluxe winnings of "
            f"{format_money(limit)}; press all or a portion of them ({SECTION}(f))"
        )
    if amount != limit and amount % unit:
        return PressNotAllowed(
            f"a Press of {format_money(amount)} is not a multiple of the wager unit "
            f"{format_money(unit)}; press all the winnings of {format_money(limit)} or a "
            f"multiple of the unit ({SECTION}(f))"
        )
    return None


def verify_press(
    amount: int, *, winnings: int, main: int, dealer_blackjack: bool, unit: int = 1
) -> None:
    """Raise :class:`PressNotAllowed` unless ``amount`` of the TriLux Deluxe winnings may cap
    the initial Blackjack wager of ``main`` cents (633b.11(f)-(g))."""
    refusal = refuse_press(
        amount, winnings=winnings, main=main, dealer_blackjack=dealer_blackjack, unit=unit
    )
    if refusal is not None:
        raise refusal


def can_press(
    amount: int, *, winnings: int, main: int, dealer_blackjack: bool, unit: int = 1
) -> bool:
    """Whether :func:`verify_press` accepts the Press."""
    return (
        refuse_press(
            amount, winnings=winnings, main=main, dealer_blackjack=dealer_blackjack, unit=unit
        )
        is None
    )


def pressed_hand_pays(
    main: int, pressed: int, *, blackjack: bool, blackjack_pay: StakePay = BLACKJACK_PAYS
) -> int:
    """What a winning pressed Blackjack hand wins on top of the returned wagers, in cents.

    633b.11(g): the pressed TriLux Deluxe winnings are paid even money, including when the
    player has Blackjack; the initial wager is paid as usual: ``blackjack_pay`` (the table's
    Blackjack payout) on a Blackjack, even money otherwise. A losing hand loses both, a push
    returns both (the standard rules).

    The engine settles the pressed portion as a wager of its own (``trilux_press``) next to
    the Blackjack wager, for the same total. It pays a player Blackjack as soon as the dealer
    is known not to have one, before the Press is offered, so a pressed Blackjack does not
    occur there; ``blackjack=True`` serves tables that would hold the Blackjack for the Press.
    """
    main_win = blackjack_pay.win(main) if blackjack else main
    return main_win + pressed


def split_match(main: int, pressed: int) -> int:
    """633b.11(h): the wager a split of a pressed hand needs on the new hand: the initial
    Blackjack wager plus the pressed portion added to it.

    A double down is not such a match: (h) allows it "in accordance with 633a.10", whose
    additional wager may not exceed the original Blackjack wager, so the pressed portion is
    not doubled (the engine's ``double_cost``).
    """
    return main + pressed


TRILUX = SideWager(
    name="trilux",
    title="TriLux Deluxe",
    section=SECTION,
    settles_at=Moment.AFTER_DEAL,
    paytables=PAYTABLES,
    evaluate=evaluate,
    requires=("blackjack",),
    allowed_decks=frozenset(DECK_PAYTABLES),
    max_multiple_of_main=MAX_MULTIPLE_OF_MAIN,
    cites={
        "paytables": "(i)",
        "deck_paytables": "(j)",
        "allowed_decks": "(j)",
        "requires": "(b)",
        "max_multiple_of_main": "(d)",
    },
    options={
        PRESS: OptionSpec(
            choices=(False, True),
            default=False,
            cite="(f)",
            text="Offer the TriLux Deluxe Press: cap the Blackjack wager with the winnings.",
        )
    },
    deck_paytables=DECK_PAYTABLES,
)
