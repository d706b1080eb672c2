"""AxMan wager, 58 Pa. Code 633b.12.

Offered only at tables using six or eight decks (633b.12(b)). Settled immediately after the
round (633b.12(f)): the dealer's final hand, bust card included, is read as a poker hand, all
its cards when it has five or fewer and "the five highest cards" when it has six or more
(633b.12(g)). Fewer than five cards make only a jacks-or-better pair, two pair, three or four
of a kind (633b.12(h)); five or more also a full house, straight, flush, five of a kind and
straight flush (633b.12(i)). The king of diamonds is wild in the dealer's hand, and each king
of diamonds among the player's first two cards multiplies a winning payout (633b.12(k)).

Entry points: :func:`classify` (the dealer's hand to a line of 633b.12(l)) and :data:`AXMAN`.

Readings of the text (the regulation does not say otherwise):

- AxMan pays a straight and a flush above four of a kind and a full house (633b.12(l)), so a
  hand is paid at the best-paying hand its cards make, not at the highest poker rank: four
  sevens of hearts with a fifth heart (several decks) are a "Flush (five cards)".
- A royal flush is a "Straight flush (five cards)"; the table has no line of its own for it.
- "The five highest cards" rank each card at its printed rank (a king of diamonds is a king
  there), and when cards of one rank straddle the fifth place, the choice best for the player
  is read (see :func:`~game_server.rules.poker.five_highest_choices`).
- The wild king of diamonds takes any rank and, by default, any suit (option ``wild_suit``);
  "any rank" alone would keep its diamond suit (``"diamonds"``).
- The multiplier multiplies the odds of the winning line ("a two-times (2X) multiplier for the
  player's winning AxMan wager based upon the paytable"): a 5 to 1 pair with one king of
  diamonds pays 10 to 1, the stake being returned once.
"""

from __future__ import annotations

from collections.abc import Sequence

from game_server.rules.poker import Category5, five_card_readings, five_highest_choices
from game_server.rules.wagers.base import (
    Moment,
    OptionSpec,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
)
from shared.cards import JACK, KING, Card
from shared.money import ToOne

SECTION = "58 Pa. Code 633b.12"

#: 633b.12(k): the wild card of the dealer's hand and the player's multiplier card.
KING_OF_DIAMONDS = Card(KING, "D")

STRAIGHT_FLUSH = "Straight flush (five cards)"
FIVE_OF_A_KIND = "Five-of-a-kind (five cards)"
FLUSH = "Flush (five cards)"
STRAIGHT = "Straight (five cards)"
FOUR_OF_A_KIND = "Four-of-a-kind"
FULL_HOUSE = "Full house (five cards)"
THREE_OF_A_KIND = "Three-of-a-kind"
TWO_PAIR = "Two pair"
JACKS_OR_BETTER = "Jacks or better pair"

# 633b.12(l), "a to 1", highest-paying line first (the regulation's order).
_ODDS = (
    (STRAIGHT_FLUSH, 1000),
    (FIVE_OF_A_KIND, 500),
    (FLUSH, 200),
    (STRAIGHT, 100),
    (FOUR_OF_A_KIND, 50),
    (FULL_HOUSE, 30),
    (THREE_OF_A_KIND, 20),
    (TWO_PAIR, 12),
    (JACKS_OR_BETTER, 5),
)
LINE_NAMES = tuple(name for name, _ in _ODDS)

#: The one paytable of 633b.12(l), named as the regulation's column ("Paytable").
PAYTABLE = Paytable("Paytable", tuple(PaytableLine(name, ToOne(odds)) for name, odds in _ODDS))
PAYTABLES = {PAYTABLE.name: PAYTABLE}

# The 633b.12(a) hand each five-card category pays as; a pair pays only from jacks up.
_LINE_OF = {
    Category5.ROYAL_FLUSH: STRAIGHT_FLUSH,
    Category5.STRAIGHT_FLUSH: STRAIGHT_FLUSH,
    Category5.FIVE_OF_A_KIND: FIVE_OF_A_KIND,
    Category5.FLUSH: FLUSH,
    Category5.STRAIGHT: STRAIGHT,
    Category5.FOUR_OF_A_KIND: FOUR_OF_A_KIND,
    Category5.FULL_HOUSE: FULL_HOUSE,
    Category5.THREE_OF_A_KIND: THREE_OF_A_KIND,
    Category5.TWO_PAIR: TWO_PAIR,
}
_ORDER = {name: i for i, name in enumerate(LINE_NAMES)}

#: 633b.12(k): the multiplier for one and for two kings of diamonds in the player's first two.
MULTIPLIERS = {1: 2, 2: 5}

WILD_SUIT_OPTION = "wild_suit"


def _best_line(cards: Sequence[Card], wild_any_suit: bool) -> str | None:
    readings = five_card_readings(cards, KING_OF_DIAMONDS, wild_any_suit=wild_any_suit)
    best: str | None = None
    for category, value in readings.items():
        if category == Category5.PAIR:
            name = JACKS_OR_BETTER if value.ranks[0] >= JACK else None
        else:
            name = _LINE_OF.get(category)
        if name is not None and (best is None or _ORDER[name] < _ORDER[best]):
            best = name
    return best


def classify(dealer_cards: Sequence[Card], *, wild_any_suit: bool = True) -> str | None:
    """The 633b.12(l) line the dealer's final hand wins, or None (633b.12(j)).

    Args:
        dealer_cards: the dealer's hand after the round, bust card included (633b.12(f)).
        wild_any_suit: whether the wild king of diamonds may take any suit, not only any rank.

    Five cards or fewer are read whole, six or more by their five highest cards (633b.12(g)),
    taking the best-paying choice when equal ranks straddle the fifth place; fewer than five
    cards pay only pairs of jacks or better, two pair, three and four of a kind (633b.12(h)).
    """
    best: str | None = None
    for choice in five_highest_choices(dealer_cards):
        name = _best_line(choice, wild_any_suit)
        if name is not None and (best is None or _ORDER[name] < _ORDER[best]):
            best = name
    return best


def multiplier(player_cards: Sequence[Card]) -> int:
    """633b.12(k): 2 for one king of diamonds in the player's initial two cards, 5 for two,
    1 otherwise."""
    return MULTIPLIERS.get(sum(1 for c in player_cards[:2] if c == KING_OF_DIAMONDS), 1)


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.12(f)-(l): settle on the dealer's final hand, multiplied by the player's kings of
    diamonds; the multiplied line is named for it, e.g. "Two pair (2x king of diamonds)"."""
    wild_any_suit = ctx.options.get(WILD_SUIT_OPTION, "any") != "diamonds"
    name = classify(ctx.dealer_cards, wild_any_suit=wild_any_suit)
    if name is None:
        return None
    line = paytable.line(name)
    times = multiplier(ctx.player_cards)
    if times == 1:
        return line
    pay = line.pay
    assert isinstance(pay, ToOne)  # 633b.12(l) pays only "a to 1"
    return PaytableLine(f"{name} ({times}x king of diamonds)", ToOne(pay.a * times, pay.b))


AXMAN = SideWager(
    name="axman",
    title="AxMan",
    section=SECTION,
    settles_at=Moment.AFTER_ROUND,
    paytables=PAYTABLES,
    evaluate=evaluate,
    requires=("blackjack",),
    allowed_decks=frozenset({6, 8}),
    cites={"paytables": "(l)", "allowed_decks": "(b)", "requires": "(b)"},
    options={
        WILD_SUIT_OPTION: OptionSpec(
            choices=("any", "diamonds"),
            default="any",
            cite="(k)",
            text="The dealer's wild king of diamonds takes any rank and any suit, or any rank "
            "but stays a diamond.",
        )
    },
)
