"""Cards: parsing, text forms, the compact code, and clear errors for bad text."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.cards import (
    ACE,
    BJ_VALUE,
    CARDS,
    Card,
    CardError,
    card,
    format_cards,
    parse_card,
    parse_cards,
    standard_deck,
)


def test_parse_accepts_ten_as_t_or_10_and_any_case() -> None:
    """ "AS 10D 7c" parses to the ace of spades, ten of diamonds and seven of clubs."""
    cards = parse_cards("AS 10D 7c")
    assert [str(c) for c in cards] == ["AS", "TD", "7C"]
    assert parse_card("td") is parse_card("10D")
    assert cards[0].rank == ACE and cards[0].suit == "S"


def test_constructor_returns_the_singleton() -> None:
    """Card(rank, suit) is the same object as the parsed card, so cards compare fast."""
    assert Card(14, "S") is parse_card("AS")
    assert Card(10, 1) is parse_card("TD")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty card text"),
        ("AX", "suit 'X'"),
        ("1S", "rank '1'"),
        ("11H", "rank '11'"),
        ("S", "rank ''"),
    ],
)
def test_bad_text_says_what_is_wrong(text: str, message: str) -> None:
    """Text that is not a card raises CardError naming the bad rank or suit."""
    with pytest.raises(CardError, match=message):
        parse_card(text)


def test_bad_constructor_arguments() -> None:
    """A rank or suit outside the deck is refused with the valid range in the message."""
    with pytest.raises(CardError, match="unknown rank"):
        Card(15, "S")
    with pytest.raises(CardError, match="unknown suit"):
        Card(5, "Z")
    with pytest.raises(CardError, match=r"outside 0\.\.51"):
        card(52)


def test_decks() -> None:
    """A standard deck has 52 distinct cards."""
    assert len(set(standard_deck())) == 52


def test_blackjack_values() -> None:
    """633a.3(e): 2-10 face value, J/Q/K 10, ace 1 (11 decided by the hand)."""
    assert BJ_VALUE[parse_card("AS")] == 1
    assert BJ_VALUE[parse_card("KH")] == 10
    assert BJ_VALUE[parse_card("TH")] == 10
    assert BJ_VALUE[parse_card("7C")] == 7


def test_display_forms() -> None:
    """Cards have a symbol form for screens and words for reports."""
    assert parse_card("10D").symbol == "10\u2666"
    assert parse_card("AS").name == "ace of spades"


@given(st.lists(st.sampled_from(CARDS), max_size=20))
def test_text_round_trip(cards: list[Card]) -> None:
    """format_cards and parse_cards are inverse; pickling keeps the singleton."""
    assert list(parse_cards(format_cards(cards))) == cards
    for c in cards:
        assert pickle.loads(pickle.dumps(c)) is c
