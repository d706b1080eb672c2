"""Top 3 wager (58 Pa. Code 633b.7): the paytables as the regulation prints them, the hands
of (a) and (d), the highest-only rule of (e), the Three Card Poker requirement, and exact
counts of every ordered deal checked against counts derived by hand and a brute force over
one physical deck."""

from __future__ import annotations

from itertools import permutations

import pytest

from game_server.rules.wagers.base import Moment, context
from game_server.rules.wagers.three_card_poker import THREE_CARD_POKER, house_edge
from game_server.rules.wagers.top_3 import PAYTABLES, TOP_3, exact_counts
from shared.cards import parse_cards
from shared.money import ToOne

# 633b.7(e), as printed in the regulation.
REGULATION_TABLE = """\
Three-of-a-kind Suited 270 to 1 1000 to 1
Straight Flush 180 to 1 100 to 1
Three-of-a-kind 90 to 1 70 to 1
"""


def _line(player: str, up: str, table: str = "Paytable A") -> str | None:
    ctx = context(parse_cards(player), parse_cards(up), 6)
    found = TOP_3.evaluate(ctx, PAYTABLES[table])
    return found.name if found else None


def test_paytables_are_the_regulation_table() -> None:
    """633b.7(e): Paytables A and B pay exactly the odds the regulation prints, line by line."""
    for column, name in enumerate(("Paytable A", "Paytable B")):
        expected = []
        for row in REGULATION_TABLE.splitlines():
            words = row.split()
            odds = words[-6:]
            expected.append(
                (" ".join(words[:-6]), ToOne(int(odds[3 * column]), int(odds[3 * column + 2])))
            )
        assert [(x.name, x.pay) for x in PAYTABLES[name].lines] == expected


def test_requires_the_three_card_poker_wager() -> None:
    """633b.7(a), (c): the Top 3 wager is offered with, and placed after, a Blackjack wager
    and a Three Card Poker wager."""
    assert TOP_3.requires == ("blackjack", THREE_CARD_POKER.name)
    assert TOP_3.cites["requires"] == "(a), (c)"
    assert TOP_3.section == "58 Pa. Code 633b.7"


def test_settled_after_the_deal() -> None:
    """633b.7(d): settled with the Three Card Poker wager right after the second card."""
    assert TOP_3.settles_at is Moment.AFTER_DEAL
    assert THREE_CARD_POKER.settles_at is Moment.AFTER_DEAL
    assert TOP_3.cites["paytables"] == "(e)"


@pytest.mark.parametrize(
    ("player", "up", "line"),
    [
        ("7H 7H", "7H", "Three-of-a-kind Suited"),
        ("7H 7D", "7H", "Three-of-a-kind"),
        ("7C 7D", "7S", "Three-of-a-kind"),
        ("5H 6H", "7H", "Straight Flush"),
        ("AS 2S", "3S", "Straight Flush"),
        ("QD KD", "AD", "Straight Flush"),
    ],
)
def test_winning_hands(player: str, up: str, line: str) -> None:
    """633b.7(a), (d)(2): three of a kind or a straight flush of the player's two cards and the
    dealer's up card wins; three identical cards (several decks) are "Three-of-a-kind
    Suited"."""
    assert _line(player, up) == line


@pytest.mark.parametrize(
    ("player", "up"),
    [
        ("5H 6C", "7D"),  # a straight that is not a flush
        ("QS KD", "AH"),
        ("2H 9H", "KH"),  # a flush that is not a straight
        ("7H 7H", "9H"),  # a suited pair and a third of the suit
        ("KS AS", "2S"),  # K-A-2 of one suit: no wrap-around
        ("9C 9D", "2S"),
    ],
)
def test_losing_hands(player: str, up: str) -> None:
    """633b.7(d)(1): without three of a kind or a straight flush the wager loses, a straight
    that is not a flush and a flush that is not a straight included."""
    assert _line(player, up) is None


def test_highest_hand_only() -> None:
    """633b.7(e): three identical cards are paid once, as "Three-of-a-kind Suited" (Paytable
    B 1000 to 1), not also as "Three-of-a-kind"."""
    ctx = context(parse_cards("QS QS"), parse_cards("QS"), 8)
    line = TOP_3.evaluate(ctx, PAYTABLES["Paytable B"])
    assert line is not None
    assert line.name == "Three-of-a-kind Suited"
    assert line.pay == ToOne(1000)


def test_paytable_b_pays_a_straight_flush_100_to_1() -> None:
    """633b.7(e): Paytable B pays a straight flush 100 to 1 and three of a kind 70 to 1."""
    sf = TOP_3.evaluate(
        context(parse_cards("9C TC"), parse_cards("JC"), 6), PAYTABLES["Paytable B"]
    )
    trips = TOP_3.evaluate(
        context(parse_cards("9C 9H"), parse_cards("9D"), 6), PAYTABLES["Paytable B"]
    )
    assert sf is not None and sf.pay == ToOne(100)
    assert trips is not None and trips.pay == ToOne(70)


# ---------------------------------------------------------------------------------------------
# Exact counts.


def _falling3(n: int) -> int:
    return n * (n - 1) * (n - 2)


def _hand_counts(decks: int) -> dict[str | None, int]:
    """Ordered deals per line, derived by hand: D copies of each of 52 cards, three dealt in
    order without replacement."""
    d = decks
    suited = 52 * _falling3(d)  # three copies of one card
    counts: dict[str | None, int] = {
        "Three-of-a-kind Suited": suited,
        "Straight Flush": 12 * 4 * 6 * d**3,  # 12 sequences, 4 suits, 3! orders, D^3 copies
        "Three-of-a-kind": 13 * _falling3(4 * d) - suited,  # any three of a rank's 4D cards
    }
    counts[None] = _falling3(52 * d) - sum(counts.values())
    return counts


def _brute_force_one_deck() -> dict[str | None, int]:
    """Every ordered deal of three of one deck's 52 physical cards, without the ranker."""
    counts: dict[str | None, int] = {}
    deck = [(rank, suit) for rank in range(2, 15) for suit in range(4)]
    for cards in permutations(deck, 3):
        ranks = sorted(rank for rank, _ in cards)
        suited = len({suit for _, suit in cards}) == 1
        run = len(set(ranks)) == 3 and (ranks[2] - ranks[0] == 2 or ranks == [2, 3, 14])
        line: str | None = None
        if ranks[0] == ranks[2]:
            line = "Three-of-a-kind Suited" if suited else "Three-of-a-kind"
        elif run and suited:
            line = "Straight Flush"
        counts[line] = counts.get(line, 0) + 1
    return counts


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
@pytest.mark.parametrize("paytable", ["Paytable A", "Paytable B"])
def test_exact_counts_agree_with_hand_counts(decks: int, paytable: str) -> None:
    """Every ordered deal falls on the line the hand-derived counts give, and all
    (52D)(52D-1)(52D-2) deals are counted."""
    counts = exact_counts(decks, PAYTABLES[paytable])
    assert counts == _hand_counts(decks)
    assert sum(counts.values()) == _falling3(52 * decks)


def test_exact_counts_agree_with_one_physical_deck() -> None:
    """The 132,600 ordered deals of one deck, each read by a separate classifier; one deck
    never deals three identical cards."""
    brute = _brute_force_one_deck()
    assert exact_counts(1, PAYTABLES["Paytable A"]) == {"Three-of-a-kind Suited": 0, **brute}


@pytest.mark.parametrize(
    ("paytable", "decks", "edge"),
    [
        ("Paytable A", 1, "39.2760"),
        ("Paytable A", 6, "11.0729"),
        ("Paytable A", 8, "8.9997"),
        ("Paytable B", 1, "61.3575"),
        ("Paytable B", 6, "22.5559"),
        ("Paytable B", 8, "17.9963"),
    ],
)
def test_house_edge(paytable: str, decks: int, edge: str) -> None:
    """The house edge of each paytable, from the hand-derived counts (percent, 4 decimals)."""
    table = PAYTABLES[paytable]
    assert f"{float(house_edge(_hand_counts(decks), table)) * 100:.4f}" == edge
