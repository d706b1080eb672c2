"""Blazing 7's Progressive wager, 58 Pa. Code 633b.9.

A progressive wager of a fixed amount, $1 or $5 (633b.9(g)), that wins when either of the
player's initial two cards is a seven (633b.9(b)). It is settled after all other optional
wagers, once the round is over (633b.9(d)), because with two sevens a third seven may still
come:

- (d)(4) two sevens and a seven hit: three sevens, paid by their suits and colours (633b.9(f));
  (d)(3) one seven and a seven hit: paid for the one seven only;
- (d)(1) after a split of the sevens: the two sevens and the third card dealt to the player;
- (d)(2) a bust card never counts;
- (d)(4) with a dealer Blackjack and two sevens, the player is dealt one more card to see if it
  is a seven: the engine deals it and passes it as the third card of ``player_hands[0]``;
- (h) the Rules Submission may use the dealer's up card instead of the player's drawn card
  (option ``third_seven``: ``"player-draw"`` or ``"dealer-up-card"``);
- (e)(3) "If more than one player at the table has won a progressive payout that is 100% of
  the jackpot amount on the progressive meter, each player shall share the maximum amount
  equally": only a 100% payout is shared (:attr:`~game_server.rules.wagers.base.SideWager.
  shared_percents`). A 10% payout is paid in full to each winner, in seat order, from the
  meter as it stands when his turn comes (the meter is topped back to its reset amount after
  each award): two players' "Three 7's Same Color" in one round on a $2,000.15 meter pay
  $200.01 and then 10% of the $2,000.00 meter, $200.00 (shared, it paid $100.00 each).

Entry points: :func:`classify`, :func:`third_card`, :func:`check_meter`,
:func:`exact_counts`, :func:`first_two_counts` and :data:`BLAZING_7S`.

Readings of the text:

- The seven that makes three sevens is the third card of the hand, whether hit or dealt on a
  double down ("hits and receives another seven", (d)(4); "the third card dealt to the
  player", (d)(1)). Any later seven is a bust card and does not count ((d)(2)): two sevens and
  a third card total at least 15 (ace counted 1), so a fourth card of seven busts the hand.
- "Three 7's Diamonds" is three sevens of diamonds; "Three 7's—Clubs, Spades, Hearts" three
  sevens of one of those suits; "Three 7's Same Color" three red or three black sevens not of
  one suit (a same-suit hand is paid at its higher line).
- After a split the final hands do not always show which card was dealt third. When the first
  split hand is resplit with a seven identical to the player's second card, :func:`third_card`
  reads it as not resplit (two sevens, unless the first hand's second card is a seven); when
  it is resplit twice, three sevens are paid with the suit of the later seven. Exact
  settlement of those rare hands needs the seat's cards in the order dealt from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

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
from shared.cards import BJ_VALUE, CARDS, DIAMONDS, HEARTS, SEVEN, Card
from shared.money import MeterShare, ToOne, format_money

SECTION = "58 Pa. Code 633b.9"
METER = "Blazing 7's Progressive"

SAME_SUIT = "Three 7's Same Suit"
DIAMONDS_LINE = "Three 7's Diamonds"
CLUBS_SPADES_HEARTS = "Three 7's\u2014Clubs, Spades, Hearts"
SAME_COLOR = "Three 7's Same Color"
THREE_SEVENS = "Three 7's"
TWO_SEVENS = "First two cards (two 7's)"
ONE_SEVEN = "Either of first two cards (one 7)"

PAYTABLES = {
    "Paytable A": Paytable(
        "Paytable A",
        (
            PaytableLine(SAME_SUIT, MeterShare(100, meter=METER)),
            PaytableLine(SAME_COLOR, MeterShare(10, meter=METER)),
            PaytableLine(THREE_SEVENS, ToOne(200)),
            PaytableLine(TWO_SEVENS, ToOne(25)),
            PaytableLine(ONE_SEVEN, ToOne(2)),
        ),
    ),
    "Paytable B": Paytable(
        "Paytable B",
        (
            PaytableLine(DIAMONDS_LINE, MeterShare(100, meter=METER)),
            PaytableLine(CLUBS_SPADES_HEARTS, MeterShare(10, meter=METER)),
            PaytableLine(SAME_COLOR, ToOne(500)),
            PaytableLine(THREE_SEVENS, ToOne(200)),
            PaytableLine(TWO_SEVENS, ToOne(25)),
            PaytableLine(ONE_SEVEN, ToOne(2)),
        ),
    ),
}

THIRD_SEVEN_OPTION = "third_seven"
PLAYER_DRAW = "player-draw"
DEALER_UP_CARD = "dealer-up-card"

#: 633b.9(g): the initial and reset amounts of the meter for each required wager, in cents.
METER_MINIMUMS = {100: 200_000, 500: 1_000_000}
FIXED_AMOUNTS = tuple(METER_MINIMUMS)

_RED = frozenset({DIAMONDS, HEARTS})


def _is_seven(c: Card) -> bool:
    return c.rank == SEVEN


def classify(first_two: Sequence[Card], third: Card | None = None) -> str | None:
    """The 633b.9(f) hand of the player's first two cards and the card that may make three
    sevens (None when there is none), most specific line first; None without a seven.

    A hit seven with one seven in the first two is not counted ((d)(3)). Names are those of
    both paytables: "Three 7's Diamonds" and "Three 7's—Clubs, Spades, Hearts" are Paytable B's
    split of Paytable A's "Three 7's Same Suit" (see :func:`evaluate`).
    """
    sevens = sum(1 for c in first_two[:2] if _is_seven(c))
    if sevens == 0:
        return None
    if sevens == 1:
        return ONE_SEVEN
    if third is None or not _is_seven(third):
        return TWO_SEVENS
    suits = {first_two[0].suit_index, first_two[1].suit_index, third.suit_index}
    if len(suits) == 1:
        return DIAMONDS_LINE if DIAMONDS in suits else CLUBS_SPADES_HEARTS
    if suits <= _RED or not suits & _RED:
        return SAME_COLOR
    return THREE_SEVENS


def _busts(cards: Sequence[Card]) -> bool:
    return sum(BJ_VALUE[c] for c in cards) > 21


def third_card(ctx: SideWagerContext) -> Card | None:
    """The card that decides three sevens when the first two cards are sevens, or None.

    With the 633b.9(h) procedure: the dealer's up card. Otherwise the third card dealt to the
    player ((d)(1), (d)(4)), unless it is a bust card ((d)(2)): the third card of the unsplit
    hand (the extra card the engine deals on a dealer Blackjack included), or after a split the
    first card dealt to the first split hand. A resplit of the first split hand (possible only
    when that card was a seven) moves that card to the start of the next hand; the final hands
    tell it by the card that is not the player's initial second card (see the module's readings
    for the one case they cannot tell).
    """
    if ctx.options.get(THIRD_SEVEN_OPTION, PLAYER_DRAW) == DEALER_UP_CARD:
        return ctx.dealer_cards[0] if ctx.dealer_cards else None
    hands = ctx.player_hands
    if not hands:
        return None
    first = hands[0]
    if len(hands) == 1:
        if len(first) < 3 or _busts(first[:3]):
            return None
        return first[2]
    # Split: hands[0] keeps the first seven, the next hand was made with the second seven.
    if len(hands) >= 3 and hands[1] and hands[1][0] != ctx.player_cards[1]:
        return hands[1][0]  # the first split hand was resplit with the third card
    return first[1] if len(first) >= 2 else None


def draws_on_dealer_blackjack(first_two: tuple[Card, ...], options: Options) -> bool:
    """633b.9(d)(4): "If a dealer has Blackjack and the first two cards of the player are
    sevens, the player shall be dealt an additional card" (not with the (h) procedure, where
    the dealer's up card decides)."""
    if options.get(THIRD_SEVEN_OPTION, PLAYER_DRAW) == DEALER_UP_CARD:
        return False
    return len(first_two) == 2 and all(_is_seven(c) for c in first_two)


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.9(b), (d), (f), (h): settle once the round is over and the third card is known.

    Paytable A pays every same-suit three sevens at "Three 7's Same Suit"; Paytable B splits
    it into diamonds and the other suits.
    """
    first_two = ctx.player_cards[:2]
    if not (_is_seven(first_two[0]) or _is_seven(first_two[1])):
        return None
    third = third_card(ctx) if _is_seven(first_two[0]) and _is_seven(first_two[1]) else None
    name = classify(first_two, third)
    assert name is not None
    if name in (DIAMONDS_LINE, CLUBS_SPADES_HEARTS) and all(
        line.name != name for line in paytable.lines
    ):
        name = SAME_SUIT
    return paytable.line(name)


def check_meter(wager_amount: int, initial: int, reset: int) -> str | None:
    """The 633b.9(g) problem with a meter's initial and reset amounts (cents), or None.

    They must be at least $2,000 when the required wager is $1 and $10,000 when it is $5; the
    required wager must be one of those.
    """
    minimum = METER_MINIMUMS.get(wager_amount)
    if minimum is None:
        return (
            f"the required Blazing 7's Progressive wager is {format_money(wager_amount)}: "
            "it must be $1 or $5 (58 Pa. Code 633b.9(g))"
        )
    for what, amount in (("initial", initial), ("reset", reset)):
        if amount < minimum:
            return (
                f"the Blazing 7's Progressive {what} amount {format_money(amount)} is below "
                f"the {format_money(minimum)} required for a {format_money(wager_amount)} "
                "wager (58 Pa. Code 633b.9(g)): raise it in the Rules Submission"
            )
    return None


def exact_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """Every line counted exactly over the ordered deals of the player's first two cards
    and, after two sevens, the card that may make three sevens, from a ``decks``-deck shoe.

    That card is the player's next card ((d)(1), (d)(4)), or the dealer's up card with the
    (h) procedure: either is a card of the shoe nobody has seen, so it is distributed as the
    next card of the shoe less the two sevens. It always comes: basic strategy splits two
    sevens against a 2-7 and hits them against an 8 or more (it never stands on them or
    surrenders them), and (d)(4) deals one on a dealer Blackjack; a player who stood on two
    sevens would win less. Deals are weighted to three cards: the counts sum to
    ``N (N-1) (N-2)`` of the shoe's ``N`` cards.
    """
    sevens = [Card(SEVEN, suit) for suit in "CDHS"]
    n = 52 * decks
    others = n - 4 * decks
    counts: dict[str | None, int] = {}

    def add(line: str | None, ways: int) -> None:
        if line in (DIAMONDS_LINE, CLUBS_SPADES_HEARTS) and all(
            pay_line.name != line for pay_line in paytable.lines
        ):
            line = SAME_SUIT
        counts[line] = counts.get(line, 0) + ways

    add(None, others * (others - 1) * (n - 2))
    add(ONE_SEVEN, 2 * 4 * decks * others * (n - 2))
    for a in sevens:
        for b in sevens:
            pair = decks * (decks - (a == b))
            add(TWO_SEVENS, pair * others)
            for c in sevens:
                third = decks - (c == a) - (c == b)
                if pair > 0 and third > 0:
                    add(classify((a, b), c), pair * third)
    return counts


def first_two_counts(decks: int) -> dict[str | None, int]:
    """The exact number of ordered two-card deals from a shoe of ``decks`` decks per
    first-two-cards line ("two 7's", "one 7", None), by enumerating the card kinds."""
    counts: dict[str | None, int] = {}
    for a in CARDS:
        for b in CARDS:
            ways = decks * (decks - 1) if a == b else decks * decks
            name = classify((a, b))
            counts[name] = counts.get(name, 0) + ways
    return counts


BLAZING_7S = SideWager(
    name="blazing_7s",
    title="Blazing 7's Progressive",
    section=SECTION,
    settles_at=Moment.AFTER_ROUND,
    paytables=PAYTABLES,
    evaluate=evaluate,
    requires=("blackjack",),
    fixed_amounts=FIXED_AMOUNTS,
    check_meter=check_meter,
    draws_on_dealer_blackjack=draws_on_dealer_blackjack,
    shared_percents=frozenset({100}),
    cites={"paytables": "(f)", "fixed_amounts": "(g)", "meters": "(g)", "requires": "(b)"},
    options={
        THIRD_SEVEN_OPTION: OptionSpec(
            choices=(PLAYER_DRAW, DEALER_UP_CARD),
            default=PLAYER_DRAW,
            cite="(h)",
            text="With two sevens, the third seven is the player's drawn card, or the "
            "dealer's up card.",
        )
    },
)
