"""The dealer's final hand, counted exactly: the wagers settled on it alone.

Buster Blackjack (633b.13) is settled on the number of cards in the dealer's busted hand, and
the Buzzer Beater read on the position's first two cards (633b.5(u), ``first-two-cards``) on
those two cards against the dealer's final hand. Neither depends on how the players play: the
dealer's up card and hole card are cards of the shuffled shoe, and the cards the dealer draws
after every player has acted come after a number of cards that depends only on cards already
seen, so (a shuffled shoe's cards being exchangeable) they are distributed as the next cards of
the shoe that is left once the wager's own cards are out. Both are therefore counted here over
every sequence of dealer cards from a full shoe (off the top), by card value, the dealer
drawing to 17 as the rules say (standing on soft 17 unless he hits it).

Counts are integers: each dealer hand of ``k`` cards is weighted by the number of ways to
deal it and then ``LENGTH - k`` further cards, so that every hand of every length counts in
one unit and the counts of a shoe of ``N`` cards sum to ``N (N-1) ... (N-LENGTH+1)``.

Entry points: :func:`dealer_hands`, :func:`buster_counts`, :func:`buzzer_beater_counts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from math import perm

from game_server.rules.wagers.base import NO_OPTIONS, Options, Paytable
from game_server.rules.wagers.buster import BONUS_PAYS, EIGHT_OR_MORE
from game_server.rules.wagers.buzzer_beater import (
    BUZZER_BEATER_PAYS,
    Basis,
    _line_name,
    basis,
)

#: Card values 1 (ace) to 10 (ten-value cards): index ``v - 1`` of a shoe tuple.
VALUES = tuple(range(1, 11))
#: Longer than any dealer hand can be (four aces and four 2s are 12 with eight cards, and a
#: dealer hand never passes 26), so every hand is weighted to this many cards.
LENGTH = 14
#: The final hand of a dealer Blackjack, and of a busted hand.
BLACKJACK = "blackjack"
BUST = "bust"

#: A dealer's final hand: (17..21, ``BLACKJACK`` or ``BUST``, number of cards).
Final = tuple[int | str, int]


def shoe_values(decks: int) -> tuple[int, ...]:
    """The cards of a shoe of ``decks`` decks by value: 4 per deck of each, 16 of ten."""
    return (*(4 * decks,) * 9, 16 * decks)


def _remove(shoe: tuple[int, ...], *values: int) -> tuple[int, ...]:
    out = list(shoe)
    for v in values:
        out[v - 1] -= 1
    return tuple(out)


@cache
def dealer_hands(shoe: tuple[int, ...], hits_soft_17: bool = False) -> Mapping[Final, int]:
    """Every final hand the dealer can draw from ``shoe`` (cards by value), with the number
    of ordered ways, each weighted to :data:`LENGTH` cards (module docstring): two cards of
    21 are a Blackjack; the dealer draws to a hard or soft 17 (hitting soft 17 when
    ``hits_soft_17``)."""
    total_cards = sum(shoe)

    @cache
    def walk(drawn: tuple[int, ...]) -> dict[Final, int]:
        n = sum(drawn)
        hard = sum(v * c for v, c in zip(VALUES, drawn, strict=True))
        soft = drawn[0] > 0 and hard + 10 <= 21
        total = hard + 10 if soft else hard
        rest = perm(total_cards - n, LENGTH - n)
        if n == 2 and total == 21:
            return {(BLACKJACK, 2): rest}
        if hard > 21:
            return {(BUST, n): rest}
        if total > 17 or (total == 17 and not (soft and hits_soft_17)):
            return {(total, n): rest}
        out: dict[Final, int] = {}
        for i, left in enumerate(shoe):
            ways = left - drawn[i]
            if ways <= 0:
                continue
            following = walk((*drawn[:i], drawn[i] + 1, *drawn[i + 1 :]))
            for final, count in following.items():
                out[final] = out.get(final, 0) + ways * count
        return out

    return walk((0,) * 10)


def buster_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS, *, hits_soft_17: bool = False
) -> dict[str | None, int]:
    """633b.13(g)-(h): the dealer's busted hands by number of cards ("3 cards" .. "8 or more
    cards"), None for a hand that does not bust (the lines do not depend on the paytable)."""
    counts: dict[str | None, int] = {}
    for (final, cards), ways in dealer_hands(shoe_values(decks), hits_soft_17).items():
        line = (EIGHT_OR_MORE if cards >= 8 else f"{cards} cards") if final == BUST else None
        counts[line] = counts.get(line, 0) + ways
    return counts


def buster_bonus_chances(decks: int, *, hits_soft_17: bool = False) -> dict[str, tuple[int, int]]:
    """633b.13(i): per bonus line ("7 cards", "8 or more cards"), ``(ways, total)``: the
    player's first two cards a Blackjack and the dealer busting with that many cards, over
    ordered deals of the player's two cards and the dealer's hand."""
    shoe = shoe_values(decks)
    n = sum(shoe)
    blackjacks = 2 * shoe[0] * shoe[9]  # an ace and a ten-value card, either order
    hands = dealer_hands(_remove(shoe, 1, 10), hits_soft_17)
    total = perm(n, 2) * perm(n - 2, LENGTH)
    out = {"7 cards": 0, EIGHT_OR_MORE: 0}
    for (final, cards), ways in hands.items():
        if final == BUST and cards >= 7:
            out[EIGHT_OR_MORE if cards >= 8 else "7 cards"] += blackjacks * ways
    return {line: (ways, total) for line, ways in out.items()}


#: The bonus of 633b.13(i) per line, by option, in cents.
BUSTER_BONUS_CENTS: Mapping[str, Mapping[str, int]] = {
    option: {EIGHT_OR_MORE: eight, "7 cards": seven}
    for option, (eight, seven) in BONUS_PAYS.items()
}


def _two_card_rank(first: int, second: int) -> str | None:
    """The (v)(3) player column of a position's two cards: "Blackjack", "20", "19" or None."""
    if {first, second} == {1, 10}:
        return "Blackjack"
    total = first + second + (10 if 1 in (first, second) else 0)
    return str(total) if total in (19, 20) else None


def buzzer_beater_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """633b.5(u), (v)(3) on the position's first two cards (``first-two-cards``): every
    ordered deal of the position's two cards and the dealer's hand (the dealer stands on all
    17s and checks for Blackjack, 633b.5(c)(2), (o)), by line of the paytable; None: the
    wager loses. A position Blackjack against no dealer Blackjack loses ((p)(1)).

    Raises:
        ValueError: the options read the wager on the final hand, which depends on play.
    """
    if basis(options) is not Basis.FIRST_TWO_CARDS:
        raise ValueError("the Buzzer Beater on the final hand depends on play: see etg par")
    shoe = shoe_values(decks)
    n = sum(shoe)
    counts: dict[str | None, int] = {}
    for i, first in enumerate(VALUES):
        for j, second in enumerate(VALUES):
            ways = shoe[i] * (shoe[j] - (i == j))
            if ways <= 0:
                continue
            rank = _two_card_rank(first, second)
            if rank is None:
                counts[None] = counts.get(None, 0) + ways * perm(n - 2, LENGTH)
                continue
            strength = 22 if rank == "Blackjack" else int(rank)
            hands = dealer_hands(_remove(shoe, first, second))
            for (final, _), dealer_ways in hands.items():
                theirs = 22 if final == BLACKJACK else (-1 if final == BUST else int(final))
                line = None
                if theirs >= strength:
                    shown = (
                        "Blackjack"
                        if rank == "Blackjack"
                        else ("21" if theirs >= 21 else str(theirs))
                    )
                    if (rank, shown) in BUZZER_BEATER_PAYS:
                        line = _line_name(rank, shown)
                counts[line] = counts.get(line, 0) + ways * dealer_ways
    return counts
