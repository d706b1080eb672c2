"""Buster Blackjack (58 Pa. Code 633b.13): the paytables as the regulation prints them for each
shoe, a dealer bust of every number of cards, and the 633b.13(i) cash bonus."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game_server.rules.wagers.base import Moment, context
from game_server.rules.wagers.buster import BUSTER, PAYTABLES, cash_bonus, classify
from shared.cards import BJ_VALUE, CARDS, Card, parse_cards
from shared.money import ToOne

# 633b.13(h), as printed in the regulation: one printing per shoe.
REGULATION_TABLES = """\
Single Deck Shoe
Dealer Busts with Paytable A Paytable B Paytable C
8 or more cards 250 to 1 200 to 1 250 to 1
7 cards 50 to 1 50 to 1 50 to 1
6 cards 15 to 1 15 to 1 12 to 1
5 cards 4 to 1 4 to 1 4 to 1
4 cards 2 to 1 2 to 1 2 to 1
3 cards 2 to 1 2 to 1 2 to 1
Dealer Busts with Paytable D Paytable E Paytable F
8 or more cards 200 to 1 250 to 1 250 to 1
7 cards 50 to 1 50 to 1 50 to 1
6 cards 12 to 1 12 to 1 20 to 1
5 cards 4 to 1 3 to 1 8 to 1
4 cards 2 to 1 2 to 1 2 to 1
3 cards 2 to 1 2 to 1 1 to 1
Six-Deck Shoe
Dealer Busts with Paytable A Paytable B Paytable C
8 or more cards 250 to 1 200 to 1 250 to 1
7 cards 50 to 1 50 to 1 50 to 1
6 cards 15 to 1 15 to 1 12 to 1
5 cards 4 to 1 4 to 1 4 to 1
4 cards 2 to 1 2 to 1 2 to 1
3 cards 2 to 1 2 to 1 2 to 1
Dealer Busts with Paytable D Paytable E Paytable F
8 or more cards 200 to 1 250 to 1 250 to 1
7 cards 50 to 1 50 to 1 50 to 1
6 cards 12 to 1 12 to 1 20 to 1
5 cards 4 to 1 3 to 1 8 to 1
4 cards 2 to 1 2 to 1 2 to 1
3 cards 2 to 1 2 to 1 1 to 1
Eight-Deck Shoe
Dealer Busts with Paytable A Paytable B Paytable C
8 or more cards 250 to 1 200 to 1 250 to 1
7 cards 50 to 1 50 to 1 50 to 1
6 cards 15 to 1 15 to 1 12 to 1
5 cards 4 to 1 4 to 1 4 to 1
4 cards 2 to 1 2 to 1 2 to 1
3 cards 2 to 1 2 to 1 2 to 1
Dealer Busts with Paytable D Paytable E Paytable F
8 or more cards 200 to 1 250 to 1 250 to 1
7 cards 50 to 1 50 to 1 50 to 1
6 cards 12 to 1 12 to 1 20 to 1
5 cards 4 to 1 3 to 1 8 to 1
4 cards 2 to 1 2 to 1 2 to 1
3 cards 2 to 1 2 to 1 1 to 1
"""


def _printed() -> dict[str, dict[str, list[tuple[str, ToOne]]]]:
    """Shoe -> paytable letter -> (line, pay) rows, parsed from the printing above."""
    shoes: dict[str, dict[str, list[tuple[str, ToOne]]]] = {}
    shoe: dict[str, list[tuple[str, ToOne]]] = {}
    letters: list[str] = []
    for line in REGULATION_TABLES.splitlines():
        if line.endswith("Shoe"):
            shoe = shoes.setdefault(line, {})
        elif line.startswith("Dealer Busts with"):
            letters = [f"Paytable {w}" for w in line.split()[-5::2]]
        else:
            words = line.split()
            name, odds = " ".join(words[:-9]), words[-9:]
            for i, letter in enumerate(letters):
                a, to, b = odds[3 * i : 3 * i + 3]
                assert to == "to"
                shoe.setdefault(letter, []).append((name, ToOne(int(a), int(b))))
    return shoes


def test_the_three_shoes_print_the_same_paytables() -> None:
    """633b.13(h): the single-deck, six-deck and eight-deck printings of Paytables A-F are
    identical letter by letter, so the number of decks does not fix the paytable."""
    shoes = _printed()
    assert list(shoes) == ["Single Deck Shoe", "Six-Deck Shoe", "Eight-Deck Shoe"]
    single, six, eight = shoes.values()
    assert single == six == eight
    assert BUSTER.deck_paytables is None


def test_paytables_are_the_regulation_tables() -> None:
    """633b.13(h): Paytables A-F pay exactly the odds the regulation prints, line by line."""
    single = _printed()["Single Deck Shoe"]
    assert sorted(PAYTABLES) == sorted(single) == [f"Paytable {x}" for x in "ABCDEF"]
    for name, rows in single.items():
        assert [(line.name, line.pay) for line in PAYTABLES[name].lines] == rows


def test_declaration() -> None:
    """633b.13(c), (f)-(i): one-, six- and eight-deck shoes, settled on the dealer's final
    hand, with the cash bonus an option of the Rules Submission."""
    assert BUSTER.section == "58 Pa. Code 633b.13"
    assert BUSTER.settles_at is Moment.AFTER_ROUND
    assert BUSTER.allowed_decks == frozenset({1, 6, 8})
    assert BUSTER.requires == ("blackjack",)
    assert BUSTER.cites["allowed_decks"] == "(c)" and BUSTER.cites["paytables"] == "(h)"
    bonus = BUSTER.options["bonus"]
    assert (bonus.choices, bonus.default, bonus.cite) == (("none", "B1", "B2"), "none", "(i)")


# Dealer hands as the dealer draws them (standing on all 17s), busting with 3 to 9 cards.
BUSTS = [
    ("TH 6C 9D", "3 cards"),
    ("2C 4D TH 9S", "4 cards"),
    ("2C 2D 3H 9S TC", "5 cards"),
    ("2C 2D 2H 3S 7C TD", "6 cards"),
    ("2C 2D 2H 2S 3C 4D TD", "7 cards"),
    ("2C 2D 2H 2S 2C 2D 3H TD", "8 or more cards"),
    ("2C 2D 2H 2S 2C 2D AH AS TD", "8 or more cards"),
]


@pytest.mark.parametrize(("dealer", "line"), BUSTS)
@pytest.mark.parametrize("paytable", sorted(PAYTABLES))
def test_a_dealer_bust_pays_by_its_number_of_cards(dealer: str, line: str, paytable: str) -> None:
    """633b.13(h): a dealer bust wins, paid by the number of cards in the busted hand, bust
    card included; 8 or more cards share one line."""
    ctx = context(parse_cards("TC 8D"), parse_cards(dealer), 6)
    assert BUSTER.evaluate(ctx, PAYTABLES[paytable]) == PAYTABLES[paytable].line(line)


def test_paytable_f_pays_a_three_card_bust_1_to_1() -> None:
    """633b.13(h): Paytable F pays 1 to 1 for a three-card bust and 8 to 1 for five cards."""
    table = PAYTABLES["Paytable F"]
    ctx = context(parse_cards("TC 8D"), parse_cards("TH 6C 9D"), 8)
    assert BUSTER.evaluate(ctx, table) == table.line("3 cards")
    assert table.line("3 cards").pay == ToOne(1) and table.line("5 cards").pay == ToOne(8)


@pytest.mark.parametrize("dealer", ["TH 7C", "AS KD", "TH 6C 5D", "2C 3D 4H 5S 6C"])
def test_a_dealer_hand_that_does_not_bust_loses(dealer: str) -> None:
    """633b.13(g): a dealer hand of 21 or less (a Blackjack included) loses the wager."""
    ctx = context(parse_cards("TC 8D"), parse_cards(dealer), 6)
    assert BUSTER.evaluate(ctx, PAYTABLES["Paytable A"]) is None


@given(st.lists(st.sampled_from(CARDS), min_size=2, max_size=12))
def test_the_wager_wins_exactly_when_the_dealer_busts(cards: list[Card]) -> None:
    """633b.13(g)-(h): a hand wins exactly when its total, aces counted 1, is over 21, at the
    line of its number of cards."""
    busts = sum(BJ_VALUE[c] for c in cards) > 21
    expected = (f"{len(cards)} cards" if len(cards) < 8 else "8 or more cards") if busts else None
    assert classify(cards) == expected


def _bonus(player: str, dealer: str, option: str, stake: int = 500) -> int:
    return cash_bonus(context(parse_cards(player), parse_cards(dealer), 6, stake=stake), option)


SEVEN_CARD_BUST = "2C 2D 2H 2S 3C 4D TD"
EIGHT_CARD_BUST = "2C 2D 2H 2S 2C 2D 3H TD"


def test_bonus_for_a_blackjack_and_a_seven_or_eight_card_bust() -> None:
    """633b.13(i): a player Blackjack with a $5 Buster Blackjack wager and a dealer bust of
    8 or more cards is paid $8,000 (B1) or $5,000 (B2); of 7 cards, $1,000 either way."""
    assert _bonus("AS KH", EIGHT_CARD_BUST, "B1") == 800_000
    assert _bonus("JD AC", EIGHT_CARD_BUST, "B2") == 500_000
    assert _bonus("AS KH", SEVEN_CARD_BUST, "B1") == 100_000
    assert _bonus("AS KH", SEVEN_CARD_BUST, "B2") == 100_000


@pytest.mark.parametrize(
    ("player", "dealer", "option", "stake"),
    [
        ("AS KH", EIGHT_CARD_BUST, "none", 500),  # the Rules Submission offers no bonus
        ("AS KH", EIGHT_CARD_BUST, "B1", 499),  # a wager under $5
        ("AS 9H", EIGHT_CARD_BUST, "B1", 500),  # not a Blackjack
        ("7S 7H", EIGHT_CARD_BUST, "B1", 500),
        ("AS KH", "2C 2D 2H 3S 7C TD", "B1", 500),  # a six-card bust
        ("AS KH", "TH 7C", "B1", 500),  # no bust: the Buster Blackjack wager lost
    ],
)
def test_no_bonus(player: str, dealer: str, option: str, stake: int) -> None:
    """633b.13(i): no bonus without the option, a wager of at least $5, a player Blackjack
    and a winning Buster Blackjack wager with a dealer bust of 7 or more cards."""
    assert _bonus(player, dealer, option, stake) == 0


def test_the_bonus_needs_the_initial_two_cards_to_be_a_blackjack() -> None:
    """633b.13(i): a 21 of three cards is not a Blackjack; the initial two cards decide."""
    ctx = context(
        parse_cards("5S 6H"),
        parse_cards(EIGHT_CARD_BUST),
        6,
        player_hands=(parse_cards("5S 6H KD"),),
        stake=2_500,
    )
    assert cash_bonus(ctx, "B1") == 0
