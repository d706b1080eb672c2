"""Blazing 7's Progressive (58 Pa. Code 633b.9): the paytables as the regulation prints them, a
scenario for every paragraph of (d) and (h), the meter minimums of (g), and the exact counts of
the first-two-cards lines against a count derived by hand."""

from __future__ import annotations

import pytest

from game_server.rules.wagers.base import Moment, context
from game_server.rules.wagers.blazing_7s import (
    BLAZING_7S,
    METER,
    PAYTABLES,
    check_meter,
    first_two_counts,
)
from shared.cards import parse_cards
from shared.money import MeterShare, Pay, ToOne

# 633b.9(f), as printed in the regulation.
REGULATION_TABLE = """\
Three 7's Same Suit | 100% of meter | N/A
Three 7's Diamonds | N/A | 100% of meter
Three 7's\u2014Clubs, Spades, Hearts | N/A | 10% of meter
Three 7's Same Color | 10% of meter | 500 to 1
Three 7's | 200 to 1 | 200 to 1
First two cards (two 7's) | 25 to 1 | 25 to 1
Either of first two cards (one 7) | 2 to 1 | 2 to 1
"""

A, B = PAYTABLES["Paytable A"], PAYTABLES["Paytable B"]


def _pay(text: str) -> Pay | None:
    if text == "N/A":
        return None
    if text.endswith("% of meter"):
        return MeterShare(int(text.split("%")[0]), meter=METER)
    a, to, b = text.split()
    assert to == "to"
    return ToOne(int(a), int(b))


def test_paytables_are_the_regulation_table() -> None:
    """633b.9(f): Paytables A and B pay exactly what the regulation prints, the meter lines
    as shares of the Blazing 7's Progressive meter; N/A lines are absent."""
    for column, table in ((1, A), (2, B)):
        rows = []
        for line in REGULATION_TABLE.splitlines():
            cells = line.split(" | ")
            pay = _pay(cells[column])
            if pay is not None:
                rows.append((cells[0], pay))
        assert [(line.name, line.pay) for line in table.lines] == rows


def test_declaration() -> None:
    """633b.9(b), (d), (g), (h): a $1 or $5 wager on the Blackjack wager's seat, settled
    after the round, with the (h) procedure an option."""
    assert BLAZING_7S.section == "58 Pa. Code 633b.9"
    assert BLAZING_7S.settles_at is Moment.AFTER_ROUND
    assert BLAZING_7S.fixed_amounts == (100, 500)
    assert BLAZING_7S.requires == ("blackjack",)
    assert BLAZING_7S.cites["fixed_amounts"] == "(g)" and BLAZING_7S.cites["paytables"] == "(f)"
    option = BLAZING_7S.options["third_seven"]
    assert (option.choices, option.default, option.cite) == (
        ("player-draw", "dealer-up-card"),
        "player-draw",
        "(h)",
    )


def _line(
    player: str,
    hands: tuple[str, ...] | None = None,
    dealer: str = "9C 8D",
    table: str = "Paytable A",
    *,
    dealer_blackjack: bool = False,
    procedure: str | None = None,
) -> str | None:
    options = {} if procedure is None else {"third_seven": procedure}
    ctx = context(
        parse_cards(player),
        parse_cards(dealer),
        6,
        dealer_blackjack=dealer_blackjack,
        player_hands=None if hands is None else tuple(parse_cards(h) for h in hands),
        options=options,
    )
    found = BLAZING_7S.evaluate(ctx, PAYTABLES[table])
    return None if found is None else found.name


@pytest.mark.parametrize(
    ("player", "line"),
    [
        ("7H 9C", "Either of first two cards (one 7)"),
        ("KD 7S", "Either of first two cards (one 7)"),
        ("7H 7C", "First two cards (two 7's)"),
        ("6H 8C", None),
    ],
)
def test_a_seven_in_the_first_two_cards_wins(player: str, line: str | None) -> None:
    """633b.9(b), (d)(3): the wager wins when either of the player's initial two cards is a
    seven; two sevens pay 25 to 1 and one 2 to 1."""
    assert _line(player) == line
    assert _line(player, table="Paytable B") == line


def test_one_seven_and_a_hit_seven_pays_for_one_seven() -> None:
    """633b.9(d)(3): one seven in the first two cards and a hit seven pay only for the seven
    in the first two cards."""
    assert _line("7H 2C", ("7H 2C 7H",)) == "Either of first two cards (one 7)"
    assert _line("7H 2C", ("7H 2C 7D 7S",)) == "Either of first two cards (one 7)"


@pytest.mark.parametrize(
    ("hit", "line_a", "line_b"),
    [
        ("7D", "Three 7's Same Suit", "Three 7's Diamonds"),
        ("7H", "Three 7's Same Color", "Three 7's Same Color"),
        ("7S", "Three 7's", "Three 7's"),
        ("9C", "First two cards (two 7's)", "First two cards (two 7's)"),
    ],
)
def test_two_sevens_and_a_hit_seven_are_three_sevens(hit: str, line_a: str, line_b: str) -> None:
    """633b.9(d)(4), (f): two sevens of diamonds and a hit seven are three sevens, paid by
    their suits (same suit, diamonds) and colours per paytable; another card is two sevens."""
    hands = (f"7D 7D {hit}",)
    assert _line("7D 7D", hands) == line_a
    assert _line("7D 7D", hands, table="Paytable B") == line_b


@pytest.mark.parametrize(
    ("player", "hit", "line_a", "line_b"),
    [
        ("7S 7S", "7S", "Three 7's Same Suit", "Three 7's\u2014Clubs, Spades, Hearts"),
        ("7H 7H", "7H", "Three 7's Same Suit", "Three 7's\u2014Clubs, Spades, Hearts"),
        ("7C 7S", "7C", "Three 7's Same Color", "Three 7's Same Color"),
        ("7D 7H", "7D", "Three 7's Same Color", "Three 7's Same Color"),
        ("7C 7D", "7C", "Three 7's", "Three 7's"),
    ],
)
def test_suit_and_colour_lines(player: str, hit: str, line_a: str, line_b: str) -> None:
    """633b.9(f): Paytable A pays any three sevens of one suit from the meter, Paytable B
    only diamonds at 100% and clubs, spades or hearts at 10%; three red or three black sevens
    of mixed suits are "Same Color"."""
    hands = (f"{player} {hit}",)
    assert _line(player, hands) == line_a
    assert _line(player, hands, table="Paytable B") == line_b


def test_meter_lines_pay_a_share_of_the_meter() -> None:
    """633b.9(f): "100% of meter" and "10% of meter" are shares of the Blazing 7's
    Progressive meter."""
    assert A.line("Three 7's Same Suit").pay == MeterShare(100, meter="Blazing 7's Progressive")
    assert A.line("Three 7's Same Color").pay == MeterShare(10, meter="Blazing 7's Progressive")
    assert B.line("Three 7's Same Color").pay == ToOne(500)


def test_the_bust_card_does_not_count() -> None:
    """633b.9(d)(2): a seven that busts the hand does not count: two sevens, an ace and a
    seven (22) are two sevens; a seven busting 7-9 is still one seven."""
    assert _line("7H 7H", ("7H 7H AD 7H",)) == "First two cards (two 7's)"
    assert _line("7H 9H", ("7H 9H 7H",)) == "Either of first two cards (one 7)"


def test_a_split_uses_the_third_card_dealt() -> None:
    """633b.9(d)(1): after the sevens are split, the two sevens and the third card dealt to
    the player (the first card of the first split hand) decide; a seven dealt later to the
    second hand does not count."""
    assert _line("7H 7D", ("7H 7D 4C", "7D 9S")) == "Three 7's Same Color"
    assert _line("7H 7D", ("7H 4C 3S", "7D 7D")) == "First two cards (two 7's)"
    assert _line("7H 7D", ("7H 4C 3S", "7D 5C", "7D 9S")) == "First two cards (two 7's)"


def test_a_resplit_of_the_first_hand_keeps_the_third_card() -> None:
    """633b.9(d)(1): when the third card (a seven) is resplit from the first hand, it starts
    the second hand, and the player still has three sevens."""
    hands = ("7H 4C 3S", "7C 9S", "7D 8D")  # 7C was dealt third and resplit
    assert _line("7H 7D", hands) == "Three 7's"


def test_dealer_blackjack_deals_the_player_an_additional_card() -> None:
    """633b.9(d)(4): with a dealer Blackjack and two sevens, the additional card the player is
    dealt (the third card of the first hand) decides three sevens."""
    assert _line("7S 7S", ("7S 7S 7S",), dealer="AS KD", dealer_blackjack=True) == (
        "Three 7's Same Suit"
    )
    assert _line("7S 7S", ("7S 7S 2S",), dealer="AS KD", dealer_blackjack=True) == (
        "First two cards (two 7's)"
    )


def test_two_sevens_that_stand_are_two_sevens() -> None:
    """633b.9(d)(4): two sevens with no further card are paid as two sevens."""
    assert _line("7S 7C", ("7S 7C",)) == "First two cards (two 7's)"


def test_the_alternate_procedure_uses_the_dealer_up_card() -> None:
    """633b.9(h): with the alternate procedure the dealer's up card, not the player's drawn
    card, decides three sevens."""
    drew_seven = ("7D 7D 7D",)
    assert _line("7D 7D", drew_seven, dealer="9C 8D", procedure="dealer-up-card") == (
        "First two cards (two 7's)"
    )
    assert _line("7D 7D", ("7D 7D 2C",), dealer="7D 8D", procedure="dealer-up-card") == (
        "Three 7's Same Suit"
    )
    assert _line("7D 7D", ("7D 7D 2C",), dealer="8D 7D", procedure="dealer-up-card") == (
        "First two cards (two 7's)"
    )
    assert _line("7D 7D", drew_seven, dealer="9C 8D", procedure="player-draw") == (
        "Three 7's Same Suit"
    )
    assert _line("7D 9D", ("7D 9D",), dealer="7D 8D", procedure="dealer-up-card") == (
        "Either of first two cards (one 7)"
    )


@pytest.mark.parametrize(
    ("wager", "initial", "reset", "problem"),
    [
        (100, 200_000, 200_000, None),
        (500, 1_000_000, 1_500_000, None),
        (100, 199_999, 200_000, "initial amount $1,999.99 is below the $2,000.00"),
        (100, 200_000, 150_000, "reset amount $1,500.00 is below the $2,000.00"),
        (500, 200_000, 1_000_000, "initial amount $2,000.00 is below the $10,000.00"),
        (200, 1_000_000, 1_000_000, "wager is $2.00: it must be $1 or $5"),
    ],
)
def test_meter_minimums(wager: int, initial: int, reset: int, problem: str | None) -> None:
    """633b.9(g): the initial and reset amounts are at least $2,000 for a $1 wager and $10,000
    for a $5 wager; the problem sentence cites the paragraph."""
    found = check_meter(wager, initial, reset)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found and "633b.9(g)" in found


@pytest.mark.parametrize("decks", [6, 8])
def test_first_two_cards_counts(decks: int) -> None:
    """633b.9(f): over the ordered two-card deals of the shoe, two sevens come 4D(4D-1) ways,
    one seven 2 * 4D * 48D ways, and none 48D(48D-1) ways, of 52D(52D-1)."""
    sevens, others = 4 * decks, 48 * decks
    expected = {
        "First two cards (two 7's)": sevens * (sevens - 1),
        "Either of first two cards (one 7)": 2 * sevens * others,
        None: others * (others - 1),
    }
    counts = first_two_counts(decks)
    assert counts == expected
    assert sum(counts.values()) == 52 * decks * (52 * decks - 1)


def test_first_two_cards_counts_at_six_and_eight_decks() -> None:
    """The counts for the Rules Submission's par sheet: 6 and 8 decks."""
    assert first_two_counts(6) == {
        "First two cards (two 7's)": 552,
        "Either of first two cards (one 7)": 13_824,
        None: 82_656,
    }
    assert first_two_counts(8) == {
        "First two cards (two 7's)": 992,
        "Either of first two cards (one 7)": 24_576,
        None: 147_072,
    }
