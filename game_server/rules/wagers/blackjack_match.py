"""Blackjack Match Progressive wager, 58 Pa. Code 633b.10.

A fixed wager of $1 or $5, as the Rules Submission selects (633b.10(e)), on the player's two
cards and the dealer's two cards. It is settled after the dealer has determined whether he has
a Blackjack and before any further card (633b.10(g)): a player whose two cards hold neither an
ace nor a Blackjack loses ((g)(1)); otherwise the hand of 633b.10(a) is paid from the paytable
of 633b.10(i) that the Rules Submission selects.

The three matching lines are named "Matching **Suited** Blackjacks" and "Player and Dealer
**Suited** Blackjacks", (a)(5) defines a Suited Blackjack as a Blackjack "of the same suit",
and every example of (a) is a pair of suited Blackjacks ("a player's ace-ten of spades and the
dealer's ace-ten of spades"). So (a)(1)-(3), and the Envy Bonus that (h)(5) pays on (a)'s
Matching Suited Blackjacks, need both Blackjacks suited, of the same suit: (1) the player's
suited ace-king and the dealer's identical one, (2) the same with a ten, jack or queen, (3)
two suited Blackjacks of one suit with ten-value cards of different ranks; (4) is every other
pair of Blackjacks. Identical cards need a shoe of several decks. (The reading that compared
the two hands' suits card by card, so that an unsuited ace of spades and king of hearts
against the same two cards won the jackpot, made the jackpot four times as frequent: 1 in
161,000 hands at six decks against 1 in 645,000.)

Two helpers serve the table, which knows every seat: :func:`envy_bonuses` (633b.10(h)(5),
(k)) and :func:`split_jackpot` (633b.10(j)).

Entry points: :data:`BLACKJACK_MATCH`, :func:`classify`, :func:`envy_bonuses`,
:func:`split_jackpot`, :func:`exact_counts`, :func:`fixed_return`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache

from game_server.rules.errors import RulesError
from game_server.rules.wagers.base import (
    NO_OPTIONS,
    Bonus,
    MeterSpec,
    Moment,
    Options,
    OptionSpec,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
)
from shared.money import Fixed, MeterShare, ToOne

SECTION = "58 Pa. Code 633b.10"

METER = "Blackjack Match Progressive"

# 633b.10(i) "Hand" column; (a)(1)-(7) in the same order, highest first.
ACE_KING_MATCHING_SUITED_BLACKJACK = "Ace-King Matching Suited Blackjack"
MATCHING_SUITED_BLACKJACK = "Matching Suited Blackjack"
PLAYER_AND_DEALER_SUITED_BLACKJACKS = "Player and Dealer Suited Blackjacks"
PLAYER_AND_DEALER_BLACKJACKS = "Player and Dealer Blackjacks"
PLAYER_SUITED_BLACKJACKS = "Player Suited Blackjacks"
PLAYER_BLACKJACK = "Player Blackjack"
PLAYER_ANY_ACE = "Player Any Ace"

LINE_NAMES = (
    ACE_KING_MATCHING_SUITED_BLACKJACK,
    MATCHING_SUITED_BLACKJACK,
    PLAYER_AND_DEALER_SUITED_BLACKJACKS,
    PLAYER_AND_DEALER_BLACKJACKS,
    PLAYER_SUITED_BLACKJACKS,
    PLAYER_BLACKJACK,
    PLAYER_ANY_ACE,
)

# 633b.10(i), Paytables A, B, C, D in the regulation's column order: the "a to 1" lines, then
# "Seed Amount" (cents), "Increment Rate" and "Secondary Seed" (basis points).
_ODDS = {
    PLAYER_AND_DEALER_SUITED_BLACKJACKS: (200, 200, 300, 300),
    PLAYER_AND_DEALER_BLACKJACKS: (30, 30, 50, 50),
    PLAYER_SUITED_BLACKJACKS: (10, 10, 10, 10),
    PLAYER_BLACKJACK: (5, 5, 5, 5),
    PLAYER_ANY_ACE: (3, 3, 2, 2),
}
_METER_PERCENT = {ACE_KING_MATCHING_SUITED_BLACKJACK: 100, MATCHING_SUITED_BLACKJACK: 10}
_SEED = (1_000_000, 500_000, 1_000_000, 500_000)
_INCREMENT_BP = (1300, 1300, 1300, 1300)
_SECONDARY_SEED_BP = (250, 325, 250, 325)


def _paytable(name: str, column: int) -> Paytable:
    lines = tuple(
        PaytableLine(line, MeterShare(_METER_PERCENT[line], meter=METER))
        if line in _METER_PERCENT
        else PaytableLine(line, ToOne(_ODDS[line][column]))
        for line in LINE_NAMES
    )
    meter = MeterSpec(
        METER,
        seed=_SEED[column],
        reseed=_SEED[column],
        increment_bp=_INCREMENT_BP[column],
        secondary_bp=_SECONDARY_SEED_BP[column],
    )
    return Paytable(name, lines, (meter,))


#: 633b.10(i), named as the regulation names them.
PAYTABLES = {
    name: _paytable(name, column)
    for column, name in enumerate(("Paytable A", "Paytable B", "Paytable C", "Paytable D"))
}

#: 633b.10(e): the wager is $1 or $5, as the Rules Submission selects.
AMOUNTS = (100, 500)

#: 633b.10(k): the Envy Bonus of each Matching Suited Blackjack, by the wager offered.
ENVY_BONUS = {
    100: {ACE_KING_MATCHING_SUITED_BLACKJACK: 60_000, MATCHING_SUITED_BLACKJACK: 20_000},
    500: {ACE_KING_MATCHING_SUITED_BLACKJACK: 300_000, MATCHING_SUITED_BLACKJACK: 100_000},
}


class EnvyBonusError(RulesError):
    """An Envy Bonus asked for a wager amount that 633b.10(k) has no table for."""


class JackpotSplitError(RulesError):
    """A jackpot split among no winners, or a negative jackpot."""


def _is_ace(code: int) -> bool:
    return code >= 48


def _is_ten(code: int) -> bool:
    return 32 <= code < 48


def _blackjack(a: int, b: int) -> tuple[int, int] | None:
    """(ace, ten-value card) when the two codes are a Blackjack, else None."""
    if _is_ace(a) and _is_ten(b):
        return a, b
    if _is_ace(b) and _is_ten(a):
        return b, a
    return None


_KING_CODES = range(44, 48)


def classify(player: tuple[int, int], dealer: tuple[int, int]) -> str | None:
    """The 633b.10(a) hand of the player's two card codes and the dealer's two, or None when
    the wager loses (633b.10(g)(1))."""
    mine = _blackjack(*player)
    if mine is None:
        return PLAYER_ANY_ACE if _is_ace(player[0]) or _is_ace(player[1]) else None  # (a)(7)
    ace, ten = mine
    suit = ace & 3
    suited = (ten & 3) == suit
    theirs = _blackjack(*dealer)
    if theirs is None:
        # (a)(5), (a)(6): the dealer's two cards are not a Blackjack.
        return PLAYER_SUITED_BLACKJACKS if suited else PLAYER_BLACKJACK
    dealer_ace, dealer_ten = theirs
    if not (suited and (dealer_ace & 3) == suit and (dealer_ten & 3) == suit):
        return PLAYER_AND_DEALER_BLACKJACKS  # (a)(4): not two suited Blackjacks of one suit
    if ten != dealer_ten:
        return PLAYER_AND_DEALER_SUITED_BLACKJACKS  # (a)(3): one suit, not the same rank
    if ten in _KING_CODES:
        return ACE_KING_MATCHING_SUITED_BLACKJACK  # (a)(1)
    return MATCHING_SUITED_BLACKJACK  # (a)(2)


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.10(g)-(i): settle on the player's two cards and the dealer's two cards."""
    player, dealer = ctx.player_cards, ctx.dealer_cards
    if player[0] < 48 and player[1] < 48:
        return None  # (g)(1): no ace, so no Blackjack either, the common case
    hole = dealer[1] if len(dealer) > 1 else dealer[0]  # no hole card: no dealer Blackjack
    name = classify((player[0], player[1]), (dealer[0], hole))
    return None if name is None else paytable.line(name)


def envy_bonuses(
    winners_lines: Sequence[tuple[int, str]], seat: int, wager_amount: int
) -> list[Fixed]:
    """The Envy Bonuses of the player at ``seat`` (633b.10(h)(5), (k)).

    One bonus for each *other* seat whose hand and the dealer's are Matching Suited
    Blackjacks (lines (a)(1) or (a)(2)); never one for the player's own hand. Only a player
    who made a Blackjack Match Progressive wager receives them, and only when the Rules
    Submission selects the Envy Bonus: the caller checks both.

    Args:
        winners_lines: (seat, line of :func:`classify`) for the seats at the table; a seat
            that holds Matching Suited Blackjacks triggers the bonus whether or not it wagered.
        seat: The seat of the player to pay.
        wager_amount: The Blackjack Match Progressive wager offered, in cents ($1 or $5).

    Raises:
        EnvyBonusError: ``wager_amount`` is not $1 or $5.
    """
    table = ENVY_BONUS.get(wager_amount)
    if table is None:
        raise EnvyBonusError(
            f"the Envy Bonus is paid on a $1 or $5 wager, not {wager_amount} cents "
            f"({SECTION}(k)); select 100 or 500 as the wager amount"
        )
    return [Fixed(table[line]) for other, line in winners_lines if other != seat and line in table]


def bonuses(ctx: SideWagerContext, seats: Mapping[int, SideWagerContext]) -> list[Bonus]:
    """The Envy Bonuses of this seat when the Rules Submission selects them (option
    ``envy_bonus``), one per other seat holding Matching Suited Blackjacks with the dealer
    (633b.10(h)(5), (k)); every dealt seat counts, whether or not it made the wager."""
    if not ctx.options.get("envy_bonus") or not ctx.dealer_blackjack:
        return []
    seat = next(number for number, other in seats.items() if other is ctx)
    dealer = (ctx.dealer_cards[0], ctx.dealer_cards[1])
    lines = [
        (number, classify((other.player_cards[0], other.player_cards[1]), dealer))
        for number, other in sorted(seats.items())
    ]
    table = ENVY_BONUS.get(ctx.stake, {})
    paid = envy_bonuses([(n, line) for n, line in lines if line is not None], seat, ctx.stake)
    named = [line for n, line in lines if n != seat and line in table]
    return [(f"Envy Bonus: {line}", bonus.cents) for line, bonus in zip(named, paid, strict=True)]


def split_jackpot(amount_cents: int, winners: int) -> list[int]:
    """Each winner's equal share of a progressive amount won by ``winners`` players in the
    same round (633b.10(j)).

    Shares are whole cents; the ``amount_cents % winners`` cents left over stay on the
    progressive meter, so the shares and the remainder add up to ``amount_cents``.

    Raises:
        JackpotSplitError: ``winners`` is below 1 or ``amount_cents`` is negative.
    """
    if winners < 1:
        raise JackpotSplitError(f"a jackpot is split among at least one winner, not {winners}")
    if amount_cents < 0:
        raise JackpotSplitError(f"a jackpot of {amount_cents} cents is negative")
    return [amount_cents // winners] * winners


@cache
def _blackjack_deals() -> tuple[tuple[int, int, int, int, int], ...]:
    """Every (p1, p2, up, hole, line index) with a player Blackjack, up <= hole; the line is
    the same for both orders of the dealer's cards. Independent of the shoe."""
    index = {name: i for i, name in enumerate(LINE_NAMES)}
    deals = []
    for p1 in range(32, 52):
        for p2 in range(32, 52):
            if _is_ace(p1) == _is_ace(p2):
                continue
            for up in range(52):
                for hole in range(up, 52):
                    name = classify((p1, p2), (up, hole))
                    assert name is not None  # a player Blackjack always wins
                    deals.append((p1, p2, up, hole, index[name]))
    return tuple(deals)


def shoe_counts(copies: Sequence[int]) -> dict[str | None, int]:
    """How many ordered deals of (player card 1, player card 2, dealer up card, dealer hole
    card) from a shoe holding ``copies[code]`` cards of each of the 52 codes fall on each
    line (None: the wager loses). The counts sum to N (N-1) (N-2) (N-3), N = sum(copies).
    """
    total = sum(copies)
    rest = (total - 2) * (total - 3)
    counts = [0] * (len(LINE_NAMES) + 1)  # the last slot is a loss
    any_ace = LINE_NAMES.index(PLAYER_ANY_ACE)
    for p1 in range(52):
        for p2 in range(52):
            ways = copies[p1] * (copies[p2] - (p2 == p1))
            if ways <= 0 or _blackjack(p1, p2) is not None:
                continue  # a player Blackjack is counted card by card below
            counts[any_ace if _is_ace(p1) or _is_ace(p2) else -1] += ways * rest
    for p1, p2, up, hole, line in _blackjack_deals():
        cu = copies[up] - (up == p1) - (up == p2)
        ch = copies[hole] - (hole == p1) - (hole == p2) - (hole == up)
        if cu > 0 and ch > 0:
            # up < hole stands for both orders of the dealer's cards.
            counts[line] += copies[p1] * copies[p2] * cu * ch * (1 if up == hole else 2)
    result: dict[str | None, int] = {name: counts[i] for i, name in enumerate(LINE_NAMES)}
    result[None] = counts[-1]
    return result


def exact_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """:func:`shoe_counts` for a shoe of ``decks`` standard decks (the lines do not depend on
    the paytable or the options)."""
    return shoe_counts((decks,) * 52)


def fixed_return(decks: int, paytable: Paytable, options: Options = NO_OPTIONS) -> Fraction:
    """What the "a to 1" lines return per unit staked, stake included (the meter lines and
    the Envy Bonus are paid from the meter and left out)."""
    counts = exact_counts(decks, paytable, options)
    total = sum(counts.values())
    returned = Fraction(0)
    for line in paytable.lines:
        if isinstance(line.pay, ToOne):
            returned += counts[line.name] * (1 + Fraction(line.pay.a, line.pay.b))
    return returned / total


BLACKJACK_MATCH = SideWager(
    name="blackjack_match",
    title="Blackjack Match Progressive",
    section=SECTION,
    settles_at=Moment.AFTER_PEEK,
    paytables=PAYTABLES,
    evaluate=evaluate,
    bonuses=bonuses,
    requires=("blackjack",),
    allowed_decks=frozenset({6, 8}),
    fixed_amounts=AMOUNTS,
    cites={
        "paytables": "(i)",
        "allowed_decks": "(b)",
        "fixed_amounts": "(e)",
        "requires": "(e)",
        "meters": "(i)",
    },
    options={
        "amount": OptionSpec(
            choices=AMOUNTS,
            default=100,
            cite="(e)",
            text="The Blackjack Match Progressive wager offered, in cents: $1 or $5.",
        ),
        "envy_bonus": OptionSpec(
            choices=(False, True),
            default=False,
            cite="(h)(5)",
            text="Pay the Envy Bonus of (k) when another player and the dealer hold Matching "
            "Suited Blackjacks.",
        ),
    },
)
