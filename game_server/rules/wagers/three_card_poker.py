"""Three Card Poker wager of Blackjack, 58 Pa. Code 633a.6(e)(9).

The wager wins when the player's two cards and the dealer's up card form a straight flush,
three of a kind, a straight or a flush, and only the highest of them is paid. It is settled
immediately after the second card is dealt to each player and the dealer, before any other
card (633b.7(d), which refers to 633a.7(g)(8)); it is the wager the Top 3 wager of 633b.7
requires.

Its paytable is **not** in the regulation text this product holds (633a.6 and 633a.13 could
not be retrieved; see the team's regulation notes, regs-633a.md), so the paytable is the one the
certificate holder states in its Rules Submission (601a.2). Two commonly published tables of
the Blackjack "3 card poker side bet" (sold as 21+3) are declared, neither of them regulation
text:

- ``"Classic 9 to 1"`` (:data:`DEFAULT_PAYTABLE`): every winning hand pays 9 to 1. This is the
  original 21+3 table, called the "normal version" by vegas-aces.com ("How to Play 21 + 3"),
  "usual odds payable" by ukcasinotablegames.info (Blackjack 21+3, Galaxy Gaming), and
  "Version 1" with its house edge per deck count by the Wizard of Odds (21+3 page,
  wizardofodds.com/games/blackjack/side-bets/21plus3/, as mirrored): 13.30% (1 deck),
  7.26% (2), 4.24% (4), 3.24% (6), 2.74% (8); the exact counts here reproduce those figures.
- ``"Graduated 40-30-10-5"``: straight flush 40 to 1, three of a kind 30 to 1, straight
  10 to 1, flush 5 to 1: the 21+3 table of Evolution Gaming's live Blackjack
  (onlinecasinoground.nl, "21+3 Side Bet Blackjack") without its "suited three of a kind"
  100 to 1 line, which at a 633b.7 table is the Top 3 wager's line instead. The pays are the
  ones commonly listed; that page's stated house edge (9.73%) does not follow from them read
  as "to 1" (5.42% with 8 decks here; 3.70% with the 100 to 1 suited line), so the table is
  not verified beyond its pays.

A Rules Submission may state any other table: :func:`paytable_from_lines` builds it from
line names and pays (``{"Straight Flush": "40 to 1", ...}``) and refuses a name that is not a
hand of this wager.

Hands (the ranking of :mod:`game_server.rules.poker`, :class:`Category3`): a straight
flush is three cards in sequence of one suit; three of a kind, three cards of one rank (three
identical cards of a several-deck shoe included); a straight, three cards in sequence; a
flush, three cards of one suit (a pair of one suit with a third card of that suit included).
A-2-3 and Q-K-A are straights, K-A-2 is not. A hand that is several of them is paid as the
highest one the paytable has a line for.

This module also holds the exact count shared by the three-card wagers (633b.7 Top 3,
633b.11 TriLux Deluxe): :func:`ordered_three_card_counts`. Entry points: :data:`THREE_CARD_POKER`,
:func:`evaluate`, :func:`paytable_from_lines`, :func:`exact_counts`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement

from game_server.rules.poker import Category3, is_suited, rank_hand
from game_server.rules.wagers.base import (
    NO_OPTIONS,
    Moment,
    Options,
    Paytable,
    PaytableLine,
    PaytableLinesError,  # noqa: F401 - this wager's error
    SideWager,
    SideWagerContext,
    stated_paytable,
)
from game_server.rules.wagers.math import win_per_unit
from shared.cards import CARDS, Card
from shared.money import ToOne

SECTION = "58 Pa. Code 633a.6"
NAME = "three_card_poker"

STRAIGHT_FLUSH = "Straight Flush"
THREE_OF_A_KIND = "Three of a Kind"
STRAIGHT = "Straight"
FLUSH = "Flush"

#: The hands of the wager, highest first.
LINE_NAMES = (STRAIGHT_FLUSH, THREE_OF_A_KIND, STRAIGHT, FLUSH)

_CATEGORY_LINE = {
    Category3.STRAIGHT_FLUSH: STRAIGHT_FLUSH,
    Category3.THREE_OF_A_KIND: THREE_OF_A_KIND,
    Category3.STRAIGHT: STRAIGHT,
    Category3.FLUSH: FLUSH,
}

CLASSIC = "Classic 9 to 1"
GRADUATED = "Graduated 40-30-10-5"
DEFAULT_PAYTABLE = CLASSIC

# Commonly published 21+3 tables ("a to 1"), not regulation text: see the module docstring.
_ODDS = {
    CLASSIC: (9, 9, 9, 9),
    GRADUATED: (40, 30, 10, 5),
}

PAYTABLES = {
    name: Paytable(
        name, tuple(PaytableLine(line, ToOne(a)) for line, a in zip(LINE_NAMES, odds, strict=True))
    )
    for name, odds in _ODDS.items()
}


def paytable_from_lines(name: str, lines: Mapping[str, str]) -> Paytable:
    """A paytable stated in the Rules Submission (601a.2), line name to pay.

    Line names are the hands of :data:`LINE_NAMES` (any case); pays are written as the
    regulations write them ("40 to 1", "41 for 1"). A hand left out loses. The lines are
    ordered from the highest hand down, whatever the order given.

    Raises:
        PaytableLinesError: no line, a name that is not a hand of this wager, a name given
            twice, or a pay that is not "a to b" or "a for 1" (the wager has no meter).
    """
    return stated_paytable(
        name,
        lines,
        title="Three Card Poker",
        cite=f"{SECTION}(e)(9)",
        line_names=LINE_NAMES,
    )


def hands(cards: Sequence[Card]) -> tuple[Category3, ...]:
    """The winning categories three cards satisfy, highest first (empty for a loser).

    A straight flush is also a straight and a flush; three identical cards (several decks)
    are also a flush.
    """
    category = rank_hand(cards).category
    if category is Category3.STRAIGHT_FLUSH:
        return (Category3.STRAIGHT_FLUSH, Category3.STRAIGHT, Category3.FLUSH)
    if category is Category3.THREE_OF_A_KIND:
        if is_suited(cards):
            return (Category3.THREE_OF_A_KIND, Category3.FLUSH)
        return (Category3.THREE_OF_A_KIND,)
    if category is Category3.STRAIGHT:
        return (Category3.STRAIGHT,)
    if category is Category3.FLUSH:
        return (Category3.FLUSH,)
    return ()


def line_names(cards: Sequence[Card]) -> tuple[str, ...]:
    """The Three Card Poker lines three cards satisfy, highest first."""
    return tuple(_CATEGORY_LINE[category] for category in hands(cards))


def three_cards(ctx: SideWagerContext) -> tuple[Card, Card, Card]:
    """The player's two cards and the dealer's up card (the dealer's first card)."""
    return (ctx.player_cards[0], ctx.player_cards[1], ctx.dealer_cards[0])


def highest_line(names: Sequence[str], paytable: Paytable) -> PaytableLine | None:
    """The first of ``names`` (highest first) that ``paytable`` pays, or None."""
    for line in paytable.lines:
        if line.name in names:
            return line
    return None


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633a.6(e)(9), 633b.7(d): settle on the player's two cards and the dealer's up card,
    paying the highest hand the paytable has a line for."""
    return highest_line(line_names(three_cards(ctx)), paytable)


# ---------------------------------------------------------------------------------------------
# Exact counts over ordered deals of three cards, shared by the three-card wagers.

#: What a wager's classifier returns for three cards: the line names they satisfy.
Classifier = Callable[[Sequence[Card]], tuple[str, ...]]


@cache
def _code_triples(classify: Classifier) -> Mapping[tuple[str, ...], tuple[int, int, int]]:
    """Per outcome of ``classify``: the number of ordered triples of card codes (0..51) with
    three different codes, with exactly two equal codes, and with three equal codes.

    The outcome depends only on the codes, and a triple's number of ordered deals from a
    shoe of ``d`` decks depends only on which codes repeat, so the counts for every deck
    count follow from these three numbers (:func:`ordered_three_card_counts`).
    """
    found: dict[tuple[str, ...], list[int]] = {}
    for a, b, c in combinations_with_replacement(range(52), 3):
        outcome = classify((CARDS[a], CARDS[b], CARDS[c]))
        tally = found.setdefault(outcome, [0, 0, 0])
        if a != b != c != a:
            tally[0] += 6  # orderings of three different codes
        elif a == b == c:
            tally[2] += 1
        else:
            tally[1] += 3  # orderings of a code pair and one other code
    return {outcome: (t[0], t[1], t[2]) for outcome, t in found.items()}


def ordered_three_card_counts(
    decks: int, classify: Classifier, paytable: Paytable
) -> dict[str | None, int]:
    """How many ordered deals of three cards from a shoe of ``decks`` 52-card decks (without
    replacement) fall on each line of ``paytable`` (None: a loss), the highest line the
    cards satisfy. The counts sum to N (N-1) (N-2) for the shoe's N = 52 x decks cards.
    """
    if decks < 1:
        raise ValueError(f"a shoe holds at least one deck, not {decks}")
    d = decks
    weights = (d * d * d, d * d * (d - 1), d * (d - 1) * (d - 2))
    counts: dict[str | None, int] = {None: 0}
    counts.update({line.name: 0 for line in paytable.lines})
    for outcome, triples in _code_triples(classify).items():
        line = highest_line(outcome, paytable)
        key = None if line is None else line.name
        counts[key] += sum(n * w for n, w in zip(triples, weights, strict=True))
    return counts


def house_edge(counts: Mapping[str | None, int], paytable: Paytable) -> Fraction:
    """Minus the expected result of one unit staked: a loss loses the stake, a line paying
    "a to b" wins a/b, "a for 1" wins a - 1 (meter shares are not allowed here)."""
    total = sum(counts.values())
    expected = Fraction(-counts.get(None, 0), total)
    for line in paytable.lines:
        win = win_per_unit(line.pay, None)
        if win is None:
            raise ValueError(f"{paytable.name} line {line.name!r} pays a meter share")
        expected += Fraction(counts.get(line.name, 0), total) * win
    return -expected


def exact_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """Ordered deals of the player's two cards and the dealer's up card, per line."""
    return ordered_three_card_counts(decks, line_names, paytable)


THREE_CARD_POKER = SideWager(
    name=NAME,
    title="Three Card Poker",
    section=SECTION,
    settles_at=Moment.AFTER_DEAL,
    paytables=PAYTABLES,
    paytable_from_lines=paytable_from_lines,
    evaluate=evaluate,
    requires=("blackjack",),
    cites={"paytables": "(e)(9)", "requires": "(e)(9)"},
)
