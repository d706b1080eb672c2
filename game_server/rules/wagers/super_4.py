"""Super 4 Progressive Blackjack wager, 58 Pa. Code 633b.6.

A fixed $5 wager (633b.6(e)) on the four-card hand formed by the player's two cards and the
dealer's two cards. It is settled immediately after the second card to each player and the
dealer, once the dealer has determined whether he has a Blackjack (633b.6(g)): without an ace
showing or a Blackjack every Super 4 wager loses ((g)(1)); otherwise the highest-ranking hand of
633b.6(a) is paid from the payout table of 633b.6(i) that the Rules Submission selects.

Every winning hand but "Dealer Ace Up" needs a dealer Blackjack: (3), (5)-(9) say so, and the
Royal Flushes (1)-(2) and the Straight (4) need the dealer to hold the ace with a jack, queen or
king. "Two Pair" (6) and "Pair" (8) mean cards identical in suit *and* rank, which only a shoe of
several decks holds.

The "Award" column of 633b.6(i) is read as a :class:`~shared.money.Fixed` amount won on top of
the returned $5 stake, as a progressive line is (the table pays the meter and returns the
stake).

"No Dealer Face Up Ace -- Loss", printed under "Paytable 3—Option 1" only, is read as the
losing line of the table restated: a hand that wins no line above it, with no ace up, loses.
It changes nothing. It cannot make a dealer Blackjack with a ten-value card up lose: 633b.6(g)
settles every wager when the dealer "has an ace showing or a Blackjack" ((g)(2)), and the line
just above it pays "Any Hand w/ Dealer Blackjack $25". (The reading that it did cut that
paytable's fixed lines from a 52% to a 34% return, :data:`NO_DEALER_FACE_UP_ACE`.)

Entry points: :data:`SUPER_4`, :func:`classify`, :func:`exact_counts`, :func:`fixed_return`,
:data:`MYSTERY_CONFIGURATIONS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from game_server.rules.errors import RulesError
from game_server.rules.wagers.base import (
    NO_OPTIONS,
    MeterSpec,
    Moment,
    Options,
    OptionSpec,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
)
from shared.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from shared.money import Fixed, MeterShare

SECTION = "58 Pa. Code 633b.6"

#: 633b.6(e): the only Super 4 Progressive wager, $5.
WAGER = 500

# 633b.6(i) "Outcome" column; (a)(1)-(10) in the same order, highest first.
ROYAL_FLUSH_CHOSEN_SUIT = "Royal Flush in Chosen Suit"
ROYAL_FLUSH_OTHER_SUIT = "Royal Flush (Other Suit)"
THREE_OF_A_KIND = "Three-of-a-Kind"
STRAIGHT = "Straight"
FLUSH = "Flush"
TWO_PAIR = "Two Pair"
ALL_CARDS_SAME_COLOR = "All Cards Same Color"
PAIR = "Pair"
ANY_HAND_WITH_DEALER_BLACKJACK = "Any Hand w/ Dealer Blackjack"
DEALER_ACE_UP = "Dealer Ace Up"

LINE_NAMES = (
    ROYAL_FLUSH_CHOSEN_SUIT,
    ROYAL_FLUSH_OTHER_SUIT,
    THREE_OF_A_KIND,
    STRAIGHT,
    FLUSH,
    TWO_PAIR,
    ALL_CARDS_SAME_COLOR,
    PAIR,
    ANY_HAND_WITH_DEALER_BLACKJACK,
    DEALER_ACE_UP,
)

#: The progressive meter of each line that can be one (633b.6(i)).
METER_OF_LINE = {
    ROYAL_FLUSH_CHOSEN_SUIT: "Star Progressive",
    ROYAL_FLUSH_OTHER_SUIT: "Heart Progressive",
    THREE_OF_A_KIND: "Spade Progressive",
    STRAIGHT: "Diamond Progressive",
    FLUSH: "Club Progressive",
}

#: 633b.6(i) "Award" of the lines that are not progressive, in cents.
AWARDS = {
    STRAIGHT: 75_000,
    FLUSH: 25_000,
    TWO_PAIR: 20_000,
    ALL_CARDS_SAME_COLOR: 10_000,
    PAIR: 5_000,
    ANY_HAND_WITH_DEALER_BLACKJACK: 2_500,
    DEALER_ACE_UP: 1_000,
}

# 633b.6(i): per paytable, each progressive line's "Seed and Reseed" (cents) and
# "Increment Rate" (basis points), as printed.
_PROGRESSIVES: dict[str, tuple[tuple[str, int, int], ...]] = {
    "Paytable 1\u2014Option 1": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 5_000_000, 600),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 700),
        (THREE_OF_A_KIND, 50_000, 700),
    ),
    "Paytable 1\u2014Option 2": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 2_500_000, 700),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 700),
        (THREE_OF_A_KIND, 50_000, 700),
    ),
    "Paytable 1\u2014Option 3": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 1_000_000, 750),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 700),
        (THREE_OF_A_KIND, 50_000, 700),
    ),
    "Paytable 2\u2014Option 1": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 5_000_000, 600),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 500),
        (THREE_OF_A_KIND, 50_000, 300),
        (STRAIGHT, 30_000, 300),
    ),
    "Paytable 2\u2014Option 2": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 2_500_000, 600),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 500),
        (THREE_OF_A_KIND, 50_000, 300),
        (STRAIGHT, 30_000, 300),
    ),
    "Paytable 3\u2014Option 1": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 5_000_000, 600),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 200),
        (THREE_OF_A_KIND, 50_000, 300),
        (STRAIGHT, 30_000, 300),
        (FLUSH, 25_000, 300),
    ),
    "Paytable 3\u2014Option 2": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 2_500_000, 600),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 200),
        (THREE_OF_A_KIND, 50_000, 300),
        (STRAIGHT, 30_000, 300),
        (FLUSH, 25_000, 300),
    ),
    "Paytable 3\u2014Option 3": (
        (ROYAL_FLUSH_CHOSEN_SUIT, 1_000_000, 600),
        (ROYAL_FLUSH_OTHER_SUIT, 500_000, 200),
        (THREE_OF_A_KIND, 50_000, 300),
        (STRAIGHT, 30_000, 300),
        (FLUSH, 25_000, 300),
    ),
}

#: The line printed under "Paytable 3—Option 1" only: "No Dealer Face Up Ace -- Loss", the
#: losing line restated (module docstring): not a line of the paytable, which lists wins.
NO_DEALER_FACE_UP_ACE = "No Dealer Face Up Ace"


def _paytable(name: str) -> Paytable:
    progressive = {line: (seed, bp) for line, seed, bp in _PROGRESSIVES[name]}
    lines = tuple(
        PaytableLine(line, MeterShare(100, meter=METER_OF_LINE[line]))
        if line in progressive
        else PaytableLine(line, Fixed(AWARDS[line]))
        for line in LINE_NAMES
    )
    meters = tuple(
        MeterSpec(METER_OF_LINE[line], seed=seed, reseed=seed, increment_bp=bp)
        for line, (seed, bp) in progressive.items()
    )
    return Paytable(name, lines, meters)


#: 633b.6(i), named as the regulation names them ("Paytable 1—Option 1", an em dash).
PAYTABLES = {name: _paytable(name) for name in _PROGRESSIVES}


@dataclass(frozen=True, slots=True)
class MysteryConfiguration:
    """One mystery progressive configuration of 633b.6(j), amounts in cents.

    Attributes:
        number: The configuration's number in the table (1-3).
        reseed: The seed and reseed amount.
        must_hit_by: The "Random Must Hit By" amount.
        increment_bp: The "Increment Rate" in basis points (500 = 5%).
    """

    number: int
    reseed: int
    must_hit_by: int
    increment_bp: int

    def meter(self, name: str) -> MeterSpec:
        """The mystery meter called ``name`` with this configuration."""
        return MeterSpec(
            name,
            seed=self.reseed,
            reseed=self.reseed,
            increment_bp=self.increment_bp,
            must_hit_by=self.must_hit_by,
        )


#: 633b.6(j): the mystery progressive configurations 1-3, in the regulation's order.
MYSTERY_CONFIGURATIONS = (
    MysteryConfiguration(1, reseed=25_000, must_hit_by=100_000, increment_bp=500),
    MysteryConfiguration(2, reseed=10_000, must_hit_by=50_000, increment_bp=500),
    MysteryConfiguration(3, reseed=10_000, must_hit_by=20_000, increment_bp=200),
)

#: The option selecting a 633b.6(j) configuration, and the mystery meter's name.
MYSTERY_OPTION = "mystery"
MYSTERY_METER = "Super 4 Mystery Progressive"

#: The suit numbers of :mod:`shared.cards` by the option's words.
SUIT_OF_CHOICE = {"spades": SPADES, "hearts": HEARTS, "diamonds": DIAMONDS, "clubs": CLUBS}
DEFAULT_CHOSEN_SUIT = "spades"


class ChosenSuitError(RulesError):
    """The Rules Submission's chosen suit is not one of the four suits."""


def chosen_suit(options: Options) -> int:
    """The suit number of the option ``chosen_suit`` (633b.6(a)(1)), spades by default."""
    value = options.get("chosen_suit", DEFAULT_CHOSEN_SUIT)
    try:
        return SUIT_OF_CHOICE[str(value)]
    except KeyError:
        raise ChosenSuitError(
            f"chosen suit {value!r} is not a suit: choose spades, hearts, diamonds or clubs "
            f"({SECTION}(a)(1))"
        ) from None


def _is_ace(code: int) -> bool:
    return code >= 48


def _is_ten(code: int) -> bool:
    return 32 <= code < 48


def _color(code: int) -> int:
    """0 for black (clubs, spades), 1 for red (diamonds, hearts)."""
    suit = code & 3
    return 1 if suit in (DIAMONDS, HEARTS) else 0


_ROYAL_RANKS = frozenset({11, 12, 13, 14})  # jack, queen, king, ace


def classify(player: tuple[int, int], dealer: tuple[int, int], chosen: int = SPADES) -> str | None:
    """The 633b.6(a) hand of the player's two cards and the dealer's (up card, hole card).

    Only the highest-ranking hand is returned (633b.6(i)), None for a losing wager. The
    paytable does not change the hand: every paytable of (i) pays the same ten lines.

    Args:
        player: The player's two card codes.
        dealer: The dealer's up card and hole card codes.
        chosen: The suit number of the Royal Flush in the Chosen Suit.
    """
    up, hole = dealer
    if not ((_is_ace(up) and _is_ten(hole)) or (_is_ace(hole) and _is_ten(up))):
        # 633b.6(g)(1), (a)(10): without a dealer Blackjack only an ace up card wins.
        return DEALER_ACE_UP if _is_ace(up) else None
    p1, p2 = player
    cards = (p1, p2, up, hole)
    ranks = [(c >> 2) + 2 for c in cards]
    one_suit = (p1 & 3) == (p2 & 3) == (up & 3) == (hole & 3)
    if set(ranks) == _ROYAL_RANKS:
        # (a)(1), (a)(2), (a)(4): J, Q, K and A; the dealer holds the ace and a ten-value card.
        if one_suit:
            return ROYAL_FLUSH_CHOSEN_SUIT if (up & 3) == chosen else ROYAL_FLUSH_OTHER_SUIT
        return STRAIGHT
    if max(ranks.count(r) for r in ranks) == 3:
        return THREE_OF_A_KIND  # (a)(3)
    if one_suit:
        return FLUSH  # (a)(5)
    if sorted(player) == sorted(dealer):
        return TWO_PAIR  # (a)(6): the dealer's two cards identical to the player's two
    if _color(p1) == _color(p2) == _color(up) == _color(hole):
        return ALL_CARDS_SAME_COLOR  # (a)(7)
    if p1 == p2 or p1 in dealer or p2 in dealer:
        return PAIR  # (a)(8): two cards identical in suit and rank
    return ANY_HAND_WITH_DEALER_BLACKJACK  # (a)(9)


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.6(g)-(i): settle on the player's two cards and the dealer's two cards."""
    player, dealer = ctx.player_cards, ctx.dealer_cards
    up = dealer[0]
    if up < 48 and not ctx.dealer_blackjack:
        return None  # (g)(1): no ace showing and no Blackjack, the common case
    name = classify((player[0], player[1]), (up, dealer[1]), chosen_suit(ctx.options))
    return None if name is None else paytable.line(name)


@cache
def _blackjack_deals(chosen: int) -> tuple[tuple[int, ...], ...]:
    """Every (up, hole, p1, p2, line index) with a dealer Blackjack, p1 <= p2; line index
    -1 for a loss. Independent of the shoe, so computed once."""
    index = {name: i for i, name in enumerate(LINE_NAMES)}
    deals = []
    for up in range(32, 52):
        for hole in range(32, 52):
            if _is_ace(up) == _is_ace(hole):
                continue
            for p1 in range(52):
                for p2 in range(p1, 52):
                    name = classify((p1, p2), (up, hole), chosen)
                    deals.append((up, hole, p1, p2, -1 if name is None else index[name]))
    return tuple(deals)


def shoe_counts(copies: Sequence[int], options: Options = NO_OPTIONS) -> dict[str | None, int]:
    """How many ordered deals of (player card 1, player card 2, dealer up card, dealer hole
    card) from a shoe holding ``copies[code]`` cards of each of the 52 codes fall on each
    line (None: the wager loses). The counts sum to N (N-1) (N-2) (N-3), N = sum(copies).
    """
    total = sum(copies)
    rest = (total - 2) * (total - 3)
    counts = [0] * (len(LINE_NAMES) + 1)  # the last slot is a loss
    ace_up = LINE_NAMES.index(DEALER_ACE_UP)
    for up in range(52):
        for hole in range(52):
            ways = copies[up] * (copies[hole] - (hole == up))
            if ways <= 0:
                continue
            if (_is_ace(up) and _is_ten(hole)) or (_is_ace(hole) and _is_ten(up)):
                continue  # counted card by card below
            counts[ace_up if _is_ace(up) else -1] += ways * rest
    for up, hole, p1, p2, line in _blackjack_deals(chosen_suit(options)):
        c1 = copies[p1] - (p1 == up) - (p1 == hole)
        c2 = copies[p2] - (p2 == up) - (p2 == hole) - (p2 == p1)
        if c1 > 0 and c2 > 0:
            # p1 < p2 stands for both orders of the player's cards.
            counts[line] += copies[up] * copies[hole] * c1 * c2 * (1 if p1 == p2 else 2)
    result: dict[str | None, int] = {name: counts[i] for i, name in enumerate(LINE_NAMES)}
    result[None] = counts[-1]
    return result


def exact_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """:func:`shoe_counts` for a shoe of ``decks`` standard decks: every ordered deal of the
    player's two cards and the dealer's up and hole cards, line by line (the same lines for
    every paytable)."""
    return shoe_counts((decks,) * 52, options)


def fixed_return(decks: int, paytable: Paytable, options: Options = NO_OPTIONS) -> Fraction:
    """What the lines that are not progressive return per unit staked on the $5 wager,
    stake included (the progressive lines' share comes from the meters)."""
    counts = exact_counts(decks, paytable, options)
    total = sum(counts.values())
    returned = 0
    for line in paytable.lines:
        if not isinstance(line.pay, MeterShare):
            returned += counts[line.name] * line.pay.total_return(WAGER)
    return Fraction(returned, total * WAGER)


SUPER_4 = SideWager(
    name="super_4",
    title="Super 4 Progressive Blackjack",
    section=SECTION,
    settles_at=Moment.AFTER_PEEK,
    paytables=PAYTABLES,
    evaluate=evaluate,
    requires=("blackjack",),
    allowed_decks=frozenset({1, 2, 4, 6, 8}),
    fixed_amounts=(WAGER,),
    cites={
        "paytables": "(i)",
        "allowed_decks": "(b)",
        "fixed_amounts": "(e)",
        "requires": "(e)",
        "meters": "(i)",
    },
    options={
        "chosen_suit": OptionSpec(
            choices=("spades", "hearts", "diamonds", "clubs"),
            default=DEFAULT_CHOSEN_SUIT,
            cite="(a)(1)",
            text="The suit of the Royal Flush in Chosen Suit, paid from the Star Progressive.",
        ),
        MYSTERY_OPTION: OptionSpec(
            choices=(0, 1, 2, 3),
            default=0,
            cite="(j)",
            text="The mystery progressive configuration of the table's progressive system "
            "(0: none)",
        ),
    },
)


def mystery_meter(options: Options) -> MeterSpec | None:
    """The mystery progressive of 633b.6(j) the Rules Submission selects, or None."""
    number = options.get(MYSTERY_OPTION, 0)
    if not isinstance(number, int) or not 1 <= number <= len(MYSTERY_CONFIGURATIONS):
        return None
    return MYSTERY_CONFIGURATIONS[number - 1].meter(MYSTERY_METER)
