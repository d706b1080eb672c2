"""Three Card Poker wager of Blackjack (58 Pa. Code 633a.6(e)(9)): the hands, the highest-only
rule, the Rules Submission paytables, and exact counts of every ordered deal checked against
counts derived by hand and a brute force over one physical deck."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import pytest

from game_server.rules.wagers.base import Moment, context
from game_server.rules.wagers.three_card_poker import (
    CLASSIC,
    DEFAULT_PAYTABLE,
    GRADUATED,
    PAYTABLES,
    THREE_CARD_POKER,
    PaytableLinesError,
    exact_counts,
    house_edge,
    paytable_from_lines,
)
from shared.cards import parse_cards
from shared.money import ForOne, ToOne


def _line(player: str, up: str, table: str = CLASSIC) -> str | None:
    ctx = context(parse_cards(player), parse_cards(up), 6)
    found = THREE_CARD_POKER.evaluate(ctx, PAYTABLES[table])
    return found.name if found else None


def test_declaration() -> None:
    """633a.6(e)(9), 633b.7(d): placed with a Blackjack wager and settled right after the
    deal, on the dealer's up card."""
    assert THREE_CARD_POKER.name == "three_card_poker"
    assert THREE_CARD_POKER.settles_at is Moment.AFTER_DEAL
    assert THREE_CARD_POKER.requires == ("blackjack",)
    assert THREE_CARD_POKER.cites["paytables"] == "(e)(9)"
    assert DEFAULT_PAYTABLE in THREE_CARD_POKER.paytables


def test_published_paytables() -> None:
    """The two published tables (not regulation text): 9 to 1 on every hand, and
    40-30-10-5."""
    assert [(x.name, x.pay) for x in PAYTABLES[CLASSIC].lines] == [
        ("Straight Flush", ToOne(9)),
        ("Three of a Kind", ToOne(9)),
        ("Straight", ToOne(9)),
        ("Flush", ToOne(9)),
    ]
    assert [x.pay for x in PAYTABLES[GRADUATED].lines] == [
        ToOne(40),
        ToOne(30),
        ToOne(10),
        ToOne(5),
    ]


@pytest.mark.parametrize(
    ("player", "up", "line"),
    [
        ("5H 6H", "7H", "Straight Flush"),
        ("AS 2S", "3S", "Straight Flush"),
        ("QD KD", "AD", "Straight Flush"),
        ("9C 9D", "9S", "Three of a Kind"),
        ("9H 9H", "9H", "Three of a Kind"),
        ("5H 6C", "7D", "Straight"),
        ("AC 2D", "3H", "Straight"),
        ("QS KD", "AH", "Straight"),
        ("2H 9H", "KH", "Flush"),
        ("7H 7H", "9H", "Flush"),
        ("KS AD", "2C", None),
        ("7S 7D", "9C", None),
        ("2S 9D", "KC", None),
    ],
)
def test_hands(player: str, up: str, line: str | None) -> None:
    """633a.6(e)(9): the player's two cards and the dealer's up card win as a straight flush,
    three of a kind, a straight or a flush (A-2-3 and Q-K-A are straights, K-A-2 is not; a
    pair of one suit with a third of that suit is a flush); a pair or high card loses."""
    assert _line(player, up) == line


def test_highest_hand_only() -> None:
    """633a.6(e)(9): a straight flush is paid as a straight flush (40 to 1), not as a straight
    or a flush; three identical cards as three of a kind, not a flush."""
    assert _line("5H 6H", "7H", GRADUATED) == "Straight Flush"
    assert _line("8D 8D", "8D", GRADUATED) == "Three of a Kind"


def test_settles_on_the_up_card_only() -> None:
    """633b.7(d): the wager is settled on the dealer's up card, the first dealer card."""
    ctx = context(parse_cards("5H 6H"), parse_cards("7H"), 6)
    assert THREE_CARD_POKER.evaluate(ctx, PAYTABLES[CLASSIC]) is not None
    ctx = context(parse_cards("5H 6H"), parse_cards("2C 7H"), 6)
    assert THREE_CARD_POKER.evaluate(ctx, PAYTABLES[CLASSIC]) is None


def test_paytable_from_lines() -> None:
    """A Rules Submission paytable: names in any case and order, pays as written, lines
    ordered from the highest hand down."""
    table = paytable_from_lines(
        "House", {"flush": "3 to 1", "STRAIGHT FLUSH": "41 for 1", "Straight": "6 to 1"}
    )
    assert table.name == "House"
    assert [(x.name, x.pay) for x in table.lines] == [
        ("Straight Flush", ForOne(41)),
        ("Straight", ToOne(6)),
        ("Flush", ToOne(3)),
    ]


def test_paytable_without_a_line() -> None:
    """A hand the paytable leaves out loses, unless it is also a lower hand the paytable
    pays: with no straight flush line, a straight flush is paid as a straight."""
    table = paytable_from_lines("House", {"Straight": "6 to 1"})
    assert THREE_CARD_POKER.evaluate(
        context(parse_cards("5H 6H"), parse_cards("7H"), 6), table
    ) == table.line("Straight")
    assert (
        THREE_CARD_POKER.evaluate(context(parse_cards("5H 9H"), parse_cards("7H"), 6), table)
        is None
    )


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ({"Pair": "1 to 1"}, "is not a Three Card Poker hand"),
        ({"Flush": "3 to 1", "FLUSH": "4 to 1"}, "given twice"),
        ({"Flush": "three to one"}, "is not a payout"),
        ({"Flush": "10%"}, "no progressive meter"),
        ({}, "at least one line"),
    ],
)
def test_paytable_from_lines_refuses(lines: dict[str, str], message: str) -> None:
    """A Rules Submission paytable with an unknown hand, a repeated hand, a pay that is not
    "a to b" or "a for 1", or no line is refused with the reason."""
    with pytest.raises(PaytableLinesError, match=message):
        paytable_from_lines("House", lines)


# ---------------------------------------------------------------------------------------------
# Exact counts.


def _falling3(n: int) -> int:
    return n * (n - 1) * (n - 2)


def _hand_counts(decks: int) -> dict[str | None, int]:
    """Ordered deals per hand, derived by hand. A shoe of D decks holds D copies of each of
    the 52 cards; three cards are dealt in order without replacement."""
    d = decks
    straight_flush = 12 * 4 * 6 * d**3  # 12 sequences (A-2-3 .. Q-K-A), 4 suits, 3! orders
    identical = 52 * _falling3(d)  # three copies of one card
    counts: dict[str | None, int] = {
        "Straight Flush": straight_flush,
        "Three of a Kind": 13 * _falling3(4 * d),  # 13 ranks, 4D cards of each
        "Straight": 12 * 6 * (4 * d) ** 3 - straight_flush,  # any suits, less one suit
        "Flush": 4 * _falling3(13 * d) - straight_flush - identical,  # one suit's 13D cards
    }
    counts[None] = _falling3(52 * d) - sum(counts.values())
    return counts


def _brute_force_one_deck() -> dict[str | None, int]:
    """Every ordered deal of three of the 52 physical cards of one deck, read without the
    poker ranker."""
    counts: dict[str | None, int] = {}
    deck = [(rank, suit) for rank in range(2, 15) for suit in range(4)]
    for cards in permutations(deck, 3):
        ranks = sorted(rank for rank, _ in cards)
        flush = len({suit for _, suit in cards}) == 1
        straight = len(set(ranks)) == 3 and (ranks[2] - ranks[0] == 2 or ranks == [2, 3, 14])
        line: str | None = None
        if straight and flush:
            line = "Straight Flush"
        elif ranks[0] == ranks[2]:
            line = "Three of a Kind"
        elif straight:
            line = "Straight"
        elif flush:
            line = "Flush"
        counts[line] = counts.get(line, 0) + 1
    return counts


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_exact_counts_agree_with_hand_counts(decks: int) -> None:
    """Every ordered deal of the player's two cards and the dealer's up card falls on the
    line the hand-derived counts give, and all (52D)(52D-1)(52D-2) deals are counted."""
    counts = exact_counts(decks, PAYTABLES[CLASSIC])
    assert counts == _hand_counts(decks)
    assert sum(counts.values()) == _falling3(52 * decks)


def test_exact_counts_agree_with_one_physical_deck() -> None:
    """The 132,600 ordered deals of one deck, each read by a separate classifier."""
    assert exact_counts(1, PAYTABLES[GRADUATED]) == _brute_force_one_deck()


def test_six_deck_counts_match_the_published_combinations() -> None:
    """The Wizard of Odds' six-deck 21+3 combinations (unordered): straight flush 10,368,
    three of a kind 26,312, straight 155,520, flush 236,736 + pair-and-flush 56,160."""
    unordered = {k: v // 6 for k, v in exact_counts(6, PAYTABLES[CLASSIC]).items()}
    assert unordered["Straight Flush"] == 10_368
    assert unordered["Three of a Kind"] == 26_312
    assert unordered["Straight"] == 155_520
    assert unordered["Flush"] == 236_736 + 56_160


@pytest.mark.parametrize(
    ("decks", "published"), [(1, "13.30"), (2, "7.26"), (4, "4.24"), (6, "3.24"), (8, "2.74")]
)
def test_classic_house_edge_matches_the_published_figures(decks: int, published: str) -> None:
    """The 9 to 1 table's house edge per deck count is the one the Wizard of Odds publishes
    for 21+3 "Version 1", to two decimals of a percent."""
    edge = house_edge(exact_counts(decks, PAYTABLES[CLASSIC]), PAYTABLES[CLASSIC])
    assert f"{float(edge) * 100:.2f}" == published


def test_house_edge_counts_a_for_1_pay_without_the_stake() -> None:
    """A line paying "a for 1" wins a - 1 units: 10 for 1 is the same as 9 to 1."""
    for_one = paytable_from_lines(
        "For", dict.fromkeys(("Straight Flush", "Three of a Kind", "Straight", "Flush"), "10 for 1")
    )
    counts = exact_counts(6, for_one)
    assert house_edge(counts, for_one) == house_edge(counts, PAYTABLES[CLASSIC])
    assert house_edge(counts, for_one) == Fraction(
        counts[None] - 9 * (sum(counts.values()) - counts[None]), sum(counts.values())
    )
