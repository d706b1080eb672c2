"""Lucky Aces (58 Pa. Code 633b.8): the paytables as the regulation prints them, and every
4-card combination of a 6- and an 8-deck shoe counted against totals derived by hand."""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import comb, prod

import pytest

from game_server.rules.wagers.base import Moment, TableType, context
from game_server.rules.wagers.lucky_aces import LUCKY_ACES, PAYTABLES, classify
from shared.cards import CARDS, parse_cards
from shared.money import ToOne

# 633b.8(e), as printed in the regulation.
REGULATION_TABLE = """\
4 Aces 500 to 1 500 to 1 1000 to 1 2000 to 1
3 Aces Same Suit 250 to 1 250 to 1 500 to 1 500 to 1
3 Aces 20 to 1 30 to 1 35 to 1 15 to 1
2 Aces Same Suit 8 to 1 12 to 1 16 to 1 10 to 1
2 Aces 5 to 1 5 to 1 5 to 1 4 to 1
1 Ace of Diamonds 2 to 1 2 to 1 2 to 1 2 to 1
1 Ace 1 to 1 1 to 1 1 to 1 1 to 1
"""


def _regulation_rows() -> list[tuple[str, list[ToOne]]]:
    rows = []
    for line in REGULATION_TABLE.splitlines():
        words = line.split()
        name = " ".join(words[: len(words) - 12])
        odds = words[len(words) - 12 :]
        assert all(odds[i + 1] == "to" for i in range(0, 12, 3))
        pays = [ToOne(int(odds[i]), int(odds[i + 2])) for i in range(0, 12, 3)]
        rows.append((name, pays))
    return rows


def test_paytables_are_the_regulation_table() -> None:
    """633b.8(e): Paytables A-D pay exactly the odds the regulation prints, line by line."""
    rows = _regulation_rows()
    for column, name in enumerate(("Paytable A", "Paytable B", "Paytable C", "Paytable D")):
        table = PAYTABLES[name]
        assert [(line.name, line.pay) for line in table.lines] == [
            (row, pays[column]) for row, pays in rows
        ]


def test_declaration() -> None:
    """633b.8(a), (d): fully automated tables only, settled after the hole card, needs the
    Blackjack wager."""
    assert LUCKY_ACES.table_types == frozenset({TableType.FULLY_AUTOMATED})
    assert LUCKY_ACES.settles_at is Moment.AFTER_HOLE_CARD
    assert LUCKY_ACES.requires == ("blackjack",)


@pytest.mark.parametrize(
    ("player", "dealer", "line"),
    [
        ("AS AD", "AH AC", "4 Aces"),
        ("AS AS", "AS KD", "3 Aces Same Suit"),
        ("AS AS", "AH KD", "3 Aces"),
        ("AH 9C", "AH 5D", "2 Aces Same Suit"),
        ("AH AC", "7D 5D", "2 Aces"),
        ("AD 9C", "TH 5D", "1 Ace of Diamonds"),
        ("9C 2C", "AS 5D", "1 Ace"),
        ("9C 2C", "KS 5D", None),
    ],
)
def test_lines(player: str, dealer: str, line: str | None) -> None:
    """633b.8(d)-(e): the line is decided by the aces among the player's and dealer's two
    cards; the highest line only is paid."""
    ctx = context(parse_cards(player), parse_cards(dealer), 6)
    found = LUCKY_ACES.evaluate(ctx, PAYTABLES["Paytable A"])
    assert (found.name if found else None) == line


def _hand_counts(decks: int) -> dict[str | None, int]:
    """Counts of 4-card combinations per line, derived by hand.

    A shoe of D decks has D copies of each ace (D per suit, 4D in all) and 48D other cards.
    """
    d, other = decks, 48 * decks
    return {
        "4 Aces": comb(4 * d, 4),
        "3 Aces Same Suit": 4 * comb(d, 3) * other,
        "3 Aces": (comb(4 * d, 3) - 4 * comb(d, 3)) * other,
        "2 Aces Same Suit": 4 * comb(d, 2) * comb(other, 2),
        "2 Aces": (comb(4 * d, 2) - 4 * comb(d, 2)) * comb(other, 2),
        "1 Ace of Diamonds": d * comb(other, 3),
        "1 Ace": 3 * d * comb(other, 3),
        None: comb(other, 4),
    }


@pytest.mark.parametrize("decks", [6, 8])
def test_every_four_card_combination(decks: int) -> None:
    """Enumerating every multiset of 4 card kinds (weighted by the ways to draw it from the
    shoe) gives exactly the hand-derived count of every line, and all C(52D, 4) hands."""
    counts: dict[str | None, int] = {}
    for kinds in combinations_with_replacement(range(52), 4):
        weight = prod(comb(decks, kinds.count(k)) for k in set(kinds))
        line = classify(tuple(CARDS[k] for k in kinds))
        counts[line] = counts.get(line, 0) + weight
    assert counts == _hand_counts(decks)
    assert sum(counts.values()) == comb(52 * decks, 4)
