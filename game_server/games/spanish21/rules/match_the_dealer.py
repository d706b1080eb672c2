"""The Match the Dealer Progressive Spanish 21 wager, 58 Pa. Code 635b.1.

A wager of $1 or $5 ((e)) that one or both of the player's first two cards match the dealer's
up card ((a)), settled right after the second card is dealt to each player and the dealer and
before any other card ((g)): the engine settles it at :attr:`Moment.AFTER_DEAL`. The six
winning combinations of (a), from the highest:

1. Two Suited Match, Aces of Spades: both cards and the up card are aces of spades;
2. Two Suited Match, All Others: both cards match the up card in suit and rank;
3. One Non-Suited Match and One Suited Match;
4. One Suited Match;
5. Two Non-Suited Matches: both match the up card's rank, neither its suit;
6. One Non-Suited Match.

A card "matches the rank" when its rank is the up card's (a king matches a king, not a queen:
(a)(5)-(6) say rank, not value). The lines are named as the paytables of (i) name them; the
six- and eight-deck paytables 1-10 are different tables ((i)), each kept as data under its
name. The first two lines pay 100% and 10% of the progressive meter; the meter's seed is 1,000
times the wager offered, its primary and secondary increment rates 15% and 6% ((j)). (j) does
not say what the secondary rate is for: the Rules Submission says it (``reserve``:
:class:`~game_server.rules.wagers.base.ReserveUse`; by default it funds the reseeds).

Readings of the text:

- (e) offers the wager "of $1 or $5": the Rules Submission chooses which one the table takes
  (``amount``), and (j)'s seed is 1,000 times it. Any other amount is refused citing (e).
- (i)'s six-deck Paytables 9 and 10 print their second line "2 Other Suited Match—All
  Others"; it is the same combination as every other table's "2 Suited Match—All Others" ((a)(2))
  and carries that name here.
- 635b.1 does not say how two winners of one meter in one round share it. As for a Blazing
  7's 10% line, each winner is paid his own share in seat order from the meter as it stands
  (reset after each award): ``shared_percents`` is empty.

Entry points: :data:`MATCH_THE_DEALER`, :func:`classify`, :func:`paytable`,
:func:`exact_counts`, :func:`enumerated_counts`, :func:`meter_spec`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb
from typing import Final

from game_server.games.spanish21.rules.rules import spanish_deck
from game_server.rules.wagers.base import (
    MeterSpec,
    Moment,
    Paytable,
    PaytableLine,
    ReserveUse,
    SideWager,
    SideWagerContext,
    TableType,
)
from shared.cards import ACE, Card
from shared.money import MeterShare, ToOne

__all__ = [
    "AMOUNTS",
    "LINES",
    "MATCH_THE_DEALER",
    "METER",
    "NAME",
    "PAYTABLES",
    "classify",
    "enumerated_counts",
    "exact_counts",
    "meter_spec",
    "paytable",
]

SECTION: Final = "58 Pa. Code 635b.1"
NAME: Final = "match_the_dealer"
TITLE: Final = "Match the Dealer Progressive"
METER: Final = "Match the Dealer Progressive"

AS_SUITED: Final = "2 Suited Match\u2014Aces of Spades"
TWO_SUITED: Final = "2 Suited Match\u2014All Others"
NON_SUITED_AND_SUITED: Final = "1 Non-Suited and 1 Suited Match"
ONE_SUITED: Final = "1 Suited Match"
TWO_NON_SUITED: Final = "2 Non-Suited Matches"
ONE_NON_SUITED: Final = "1 Non-Suited Match"
#: The lines of every paytable of (i), highest first.
LINES: Final = (
    AS_SUITED,
    TWO_SUITED,
    NON_SUITED_AND_SUITED,
    ONE_SUITED,
    TWO_NON_SUITED,
    ONE_NON_SUITED,
)

#: (e): the wager is $1 or $5 (cents); (j): the seed is 1,000 times it.
AMOUNTS: Final = (100, 500)
SEED_TIMES: Final = 1000
#: (j): the primary and secondary incrementation rates, basis points of each wager.
PRIMARY_BP: Final = 1500
SECONDARY_BP: Final = 600
#: (b): the shoe.
DECKS: Final = frozenset({6, 8})

#: (i): the fixed lines of each paytable, "1 Non-Suited and 1 Suited Match", "1 Suited
#: Match", "2 Non-Suited Matches", "1 Non-Suited Match" (each "x to 1"), by deck count.
_FIXED: Final[Mapping[int, Mapping[str, tuple[int, int, int, int]]]] = {
    6: {
        "Paytable 1": (8, 5, 6, 3),
        "Paytable 2": (11, 9, 4, 2),
        "Paytable 3": (75, 4, 25, 2),
        "Paytable 4": (50, 4, 15, 3),
        "Paytable 5": (11, 8, 6, 3),
        "Paytable 6": (12, 9, 6, 3),
        "Paytable 7": (10, 6, 8, 4),
        "Paytable 8": (13, 10, 6, 3),
        "Paytable 9": (75, 5, 15, 3),
        "Paytable 10": (11, 7, 8, 4),
    },
    8: {
        "Paytable 1": (8, 5, 6, 3),
        "Paytable 2": (11, 9, 4, 2),
        "Paytable 3": (12, 10, 4, 2),
        "Paytable 4": (10, 7, 6, 3),
        "Paytable 5": (50, 4, 15, 3),
        "Paytable 6": (100, 4, 20, 2),
        "Paytable 7": (9, 5, 8, 4),
        "Paytable 8": (12, 9, 6, 3),
        "Paytable 9": (10, 6, 8, 4),
        "Paytable 10": (13, 10, 6, 3),
    },
}


def meter_spec(amount: int, reserve: ReserveUse = ReserveUse.RESEED) -> MeterSpec:
    """(j): the meter of a table taking the ``amount`` wager (cents): seeded (and reseeded
    after a 100% award) at 1,000 times it, 15% of each wager to the meter and 6% to the
    secondary pool, for what the Rules Submission says it is (``reserve``)."""
    seed = SEED_TIMES * amount
    return MeterSpec(METER, seed, seed, PRIMARY_BP, SECONDARY_BP, reserve=reserve)


def paytable(
    decks: int, name: str, amount: int = AMOUNTS[0], reserve: ReserveUse = ReserveUse.RESEED
) -> Paytable:
    """(i): the paytable ``name`` ("Paytable 1".."Paytable 10") of the ``decks``-deck tables,
    its meter seeded for the ``amount`` wager, its reserve for ``reserve``.

    Raises:
        KeyError: no such deck count or paytable (the message lists them).
    """
    tables = _FIXED.get(decks)
    if tables is None:
        raise KeyError(f"Match the Dealer is played with 6 or 8 decks (635b.1(b)), not {decks}")
    fixed = tables.get(name)
    if fixed is None:
        choices = ", ".join(f'"{n}"' for n in tables)
        raise KeyError(f"{name!r} is not a paytable of 635b.1(i); choose {choices}")
    lines = (
        PaytableLine(AS_SUITED, MeterShare(100, meter=METER)),
        PaytableLine(TWO_SUITED, MeterShare(10, meter=METER)),
        *(PaytableLine(line, ToOne(pays)) for line, pays in zip(LINES[2:], fixed, strict=True)),
    )
    return Paytable(name, lines, (meter_spec(amount, reserve),))


#: Every paytable of (i) by deck count, at the $1 wager.
PAYTABLES: Final[Mapping[int, Mapping[str, Paytable]]] = {
    decks: {name: paytable(decks, name) for name in names} for decks, names in _FIXED.items()
}


def classify(first_two: Sequence[Card], up_card: Card) -> str | None:
    """The combination of (a) the player's first two cards make with the dealer's up card,
    the highest one; None when neither card matches ((g)(1): the wager loses)."""
    suited = sum(1 for c in first_two[:2] if c == up_card)
    ranked = sum(1 for c in first_two[:2] if c.rank == up_card.rank) - suited
    if suited == 2:
        return AS_SUITED if up_card.rank == ACE and up_card.suit == "S" else TWO_SUITED
    if suited == 1:
        return NON_SUITED_AND_SUITED if ranked else ONE_SUITED
    if ranked == 2:
        return TWO_NON_SUITED
    return ONE_NON_SUITED if ranked else None


def evaluate(ctx: SideWagerContext, table: Paytable) -> PaytableLine | None:
    """(g): the line the wager wins on the player's first two cards and the up card."""
    name = classify(ctx.player_cards, ctx.dealer_cards[0])
    return None if name is None else table.line(name)


MATCH_THE_DEALER: Final = SideWager(
    name=NAME,
    title=TITLE,
    section=SECTION,
    settles_at=Moment.AFTER_DEAL,
    paytables=PAYTABLES[6],
    evaluate=evaluate,
    requires=("blackjack",),
    table_types=frozenset({TableType.FULLY_AUTOMATED}),
    allowed_decks=DECKS,
    fixed_amounts=AMOUNTS,
    cites={
        "paytables": "(i)",
        "allowed_decks": "(b)",
        "fixed_amounts": "(e)",
        "requires": "(e)",
        "meters": "(j)",
    },
    shared_percents=frozenset(),
)

#: What one count of :func:`exact_counts` is.
COUNTED: Final = "deals of the dealer's up card and the player's two cards (unordered)"


def exact_counts(decks: int) -> dict[str | None, int]:
    """Closed form: each line's number of deals (the up card, then the player's two cards as
    a set) from a full shoe of ``decks`` 48-card decks; None counts the losing deals.

    Of the ``48d - 1`` cards left after the up card, ``d - 1`` are identical to it (suited),
    ``3d`` have its rank in another suit (non-suited) and ``44d`` neither. The up card is the
    ace of spades in ``d`` of the ``48d`` ways."""
    suited, ranked = decks - 1, 3 * decks
    other = 48 * decks - 1 - suited - ranked
    ups = 48 * decks
    two_suited = comb(suited, 2)
    return {
        AS_SUITED: decks * two_suited,
        TWO_SUITED: (ups - decks) * two_suited,
        NON_SUITED_AND_SUITED: ups * suited * ranked,
        ONE_SUITED: ups * suited * other,
        TWO_NON_SUITED: ups * comb(ranked, 2),
        ONE_NON_SUITED: ups * ranked * other,
        None: ups * comb(other, 2),
    }


def enumerated_counts(decks: int) -> dict[str | None, int]:
    """The same counts found another way: every kind of up card and every pair of kinds of
    player card of the Spanish deck (:func:`.rules.spanish_deck`), weighted by how many
    ways the shoe deals them, classified by :func:`classify` itself (a check of
    :func:`exact_counts`, and of :func:`classify`)."""
    kinds = spanish_deck()
    counts: dict[str | None, int] = {}
    for up in kinds:
        left = {c: decks - (c == up) for c in kinds}
        for i, a in enumerate(kinds):
            for b in kinds[i:]:
                ways = comb(left[a], 2) if a == b else left[a] * left[b]
                if ways:
                    line = classify((a, b), up)
                    counts[line] = counts.get(line, 0) + decks * ways
    return counts
