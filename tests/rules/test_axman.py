"""AxMan (58 Pa. Code 633b.12): the paytable as the regulation prints it, a scenario for every
paragraph that changes a result, and every 2- and 3-card dealer hand (and random longer ones)
checked against an independent reading of the regulation's definitions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.rules.wagers.axman import AXMAN, LINE_NAMES, PAYTABLE, classify
from game_server.rules.wagers.base import Moment, context
from shared.cards import CARDS, DIAMONDS, JACK, KING, Card, parse_cards
from shared.money import ToOne

KD = Card(KING, "D")

# 633b.12(l), as printed in the regulation.
REGULATION_TABLE = """\
Straight flush (five cards) 1000 to 1
Five-of-a-kind (five cards) 500 to 1
Flush (five cards) 200 to 1
Straight (five cards) 100 to 1
Four-of-a-kind 50 to 1
Full house (five cards) 30 to 1
Three-of-a-kind 20 to 1
Two pair 12 to 1
Jacks or better pair 5 to 1
"""


def test_paytable_is_the_regulation_table() -> None:
    """633b.12(l): the one paytable pays exactly the odds the regulation prints, line by line."""
    rows = []
    for line in REGULATION_TABLE.splitlines():
        *name, a, to, b = line.split()
        assert to == "to"
        rows.append((" ".join(name), ToOne(int(a), int(b))))
    assert [(line.name, line.pay) for line in PAYTABLE.lines] == rows
    assert AXMAN.paytables == {"Paytable": PAYTABLE}


def test_declaration() -> None:
    """633b.12(b), (f): six- or eight-deck tables only, settled after the round, needs the
    Blackjack wager; each limit cites its paragraph."""
    assert AXMAN.section == "58 Pa. Code 633b.12"
    assert AXMAN.settles_at is Moment.AFTER_ROUND
    assert AXMAN.allowed_decks == frozenset({6, 8})
    assert AXMAN.requires == ("blackjack",)
    assert AXMAN.cites == {"paytables": "(l)", "allowed_decks": "(b)", "requires": "(b)"}
    assert AXMAN.options["wild_suit"].cite == "(k)"


def _line(dealer: str, player: str = "9C 8S", **options: str) -> tuple[str, ToOne] | None:
    ctx = context(parse_cards(player), parse_cards(dealer), 6, options=options)
    found = AXMAN.evaluate(ctx, PAYTABLE)
    if found is None:
        return None
    assert isinstance(found.pay, ToOne)
    return found.name, found.pay


@pytest.mark.parametrize(
    ("dealer", "line"),
    [
        ("JH JS 5C", "Jacks or better pair"),
        ("AH 6D AC", "Jacks or better pair"),
        ("TH TS 5C", None),
        ("2H 2S 2C", "Three-of-a-kind"),
        ("9H 4S 9C 4D", "Two pair"),
        ("3C 3D 3H 3S", "Four-of-a-kind"),
        ("2H 3H 4H 5H", None),
        ("5C 6C 7C 8D", None),
    ],
)
def test_fewer_than_five_cards(dealer: str, line: str | None) -> None:
    """633b.12(h), (j): fewer than five cards make only a pair of jacks or better, two pair,
    three or four of a kind; a pair of tens, four to a straight or a flush lose."""
    assert classify(parse_cards(dealer)) == line


@pytest.mark.parametrize(
    ("dealer", "line"),
    [
        ("9S TS JS QS KS", "Straight flush (five cards)"),
        ("TH JH QH KH AH", "Straight flush (five cards)"),  # royal flush: no line of its own
        ("AC 2C 3C 4C 5C", "Straight flush (five cards)"),
        ("2H 2H 2C 2S 2D", "Five-of-a-kind (five cards)"),
        ("2H 4H 8H 3H 2H", "Flush (five cards)"),
        ("7H 7H 7H 7H 2H", "Flush (five cards)"),  # a flush pays above four of a kind
        ("2C 3D 4H 5S 6C", "Straight (five cards)"),
        ("AC 2D 3H 4S 5C", "Straight (five cards)"),
        ("4C 4D 4H 4S 2C", "Four-of-a-kind"),
        ("5H 5C 5D 9S 9C", "Full house (five cards)"),
        ("3C 3D 3H 2S 9C", "Three-of-a-kind"),
        ("2C 2D 5H 5S 4C", "Two pair"),
        ("QC QD 2H 3S 4C", "Jacks or better pair"),
        ("TC TD 2H 3S 4C", None),
        ("QC KD AH 2S 3C", "Jacks or better pair"),  # the wild king pairs the ace
    ],
)
def test_five_cards(dealer: str, line: str | None) -> None:
    """633b.12(i): five cards also make a full house, straight, flush, five of a kind and a
    straight flush; the best-paying hand is paid (633b.12(l))."""
    assert classify(parse_cards(dealer)) == line


def test_six_cards_read_as_the_five_highest() -> None:
    """633b.12(g): with six or more cards only the five highest count: a straight flush
    from 2 to 6 with a nine is nine high (it loses); four twos with an ace and a nine are three
    twos; four twos, two threes, a four and a ten are a pair of threes (it loses)."""
    assert classify(parse_cards("2C 3C 4C 5C 6C 9D")) is None
    assert classify(parse_cards("2C 3C 4C 5C 6C")) == "Straight flush (five cards)"
    assert classify(parse_cards("2C 2D 2H 2S AH 9C")) == "Three-of-a-kind"
    assert classify(parse_cards("2C 2D 2H 2S 3H 3C 4D TD")) is None  # T 4 3 3 2: threes


def test_equal_ranks_straddling_the_fifth_place_read_for_the_player() -> None:
    """633b.12(g): when cards of one rank straddle the fifth place, the choice best for the
    player is read: of 2C and 2H beside four hearts, the 2H makes a flush."""
    assert classify(parse_cards("2C 2H 3H 4H 5H 9H")) == "Flush (five cards)"
    assert classify(parse_cards("2H 2C 3H 4H 5H 9H")) == "Flush (five cards)"


@pytest.mark.parametrize(
    ("dealer", "line", "line_if_diamond"),
    [
        ("5C 6D 7H 8S KD", "Straight (five cards)", "Straight (five cards)"),
        ("2H 5H 9H JH KD", "Flush (five cards)", "Jacks or better pair"),
        ("2D 5D 9D JD KD", "Flush (five cards)", "Flush (five cards)"),
        ("9H TH JH QH KD", "Straight flush (five cards)", "Straight (five cards)"),
        ("7H 7D 7C 7S KD", "Five-of-a-kind (five cards)", "Five-of-a-kind (five cards)"),
        ("KD AS", "Jacks or better pair", "Jacks or better pair"),
        ("KD 5C 9H", None, None),
        ("KD 5C 5H", "Three-of-a-kind", "Three-of-a-kind"),
        ("KD KD 5C 5H", "Four-of-a-kind", "Four-of-a-kind"),
    ],
)
def test_king_of_diamonds_is_wild(
    dealer: str, line: str | None, line_if_diamond: str | None
) -> None:
    """633b.12(k): the dealer's king of diamonds takes any rank (and by default any suit),
    making straights, flushes, five of a kind and pairs; kept a diamond, it makes no heart
    flush."""
    cards = parse_cards(dealer)
    assert classify(cards) == line
    assert classify(cards, wild_any_suit=False) == line_if_diamond
    assert _line(dealer, wild_suit="diamonds") == (
        None if line_if_diamond is None else (line_if_diamond, PAYTABLE.line(line_if_diamond).pay)
    )


def test_one_king_of_diamonds_doubles_the_payout() -> None:
    """633b.12(k): one king of diamonds in the player's initial two cards doubles the winning
    payout: two pair pays 24 to 1, a pair of jacks 10 to 1."""
    assert _line("9H 4S 9C 4D", player="KD 5C") == ("Two pair (2x king of diamonds)", ToOne(24))
    assert _line("JH JS 5C", player="2C KD") == (
        "Jacks or better pair (2x king of diamonds)",
        ToOne(10),
    )


def test_two_kings_of_diamonds_multiply_by_five() -> None:
    """633b.12(k): two kings of diamonds in the player's initial two cards multiply the
    winning payout by five; a losing wager stays lost."""
    assert _line("9H 4S 9C 4D", player="KD KD") == ("Two pair (5x king of diamonds)", ToOne(60))
    assert _line("TH TS 5C", player="KD KD") is None


def test_only_the_initial_two_cards_multiply() -> None:
    """633b.12(k): a king of diamonds the player draws later, or a king of hearts, is no
    multiplier."""
    ctx = context(
        parse_cards("5C 6H"),
        parse_cards("9H 4S 9C 4D"),
        6,
        player_hands=(parse_cards("5C 6H KD"),),
    )
    assert AXMAN.evaluate(ctx, PAYTABLE) == PAYTABLE.line("Two pair")
    assert _line("9H 4S 9C 4D", player="KH KS") == ("Two pair", ToOne(12))


# ------------------------------------------------------------------ an independent reading

_PAYS = {name: i for i, name in enumerate(LINE_NAMES)}


def _concrete(cards: Sequence[Card]) -> str | None:
    """633b.12(a), (h), (i) read directly off a hand without wild cards."""
    counts = sorted(Counter(c.rank for c in cards).values(), reverse=True)
    ranks = sorted({c.rank for c in cards})
    found: list[str] = []
    if len(cards) == 5:
        suited = len({c.suit for c in cards}) == 1
        straight = len(ranks) == 5 and (ranks[4] - ranks[0] == 4 or ranks == [2, 3, 4, 5, 14])
        if straight and suited:
            found.append("Straight flush (five cards)")
        if counts[0] == 5:
            found.append("Five-of-a-kind (five cards)")
        if suited:
            found.append("Flush (five cards)")
        if straight:
            found.append("Straight (five cards)")
        if counts[:2] == [3, 2]:
            found.append("Full house (five cards)")
    if counts[0] >= 4:
        found.append("Four-of-a-kind")
    if counts[0] >= 3:
        found.append("Three-of-a-kind")
    if len(counts) > 1 and counts[1] >= 2:
        found.append("Two pair")
    if any(n >= 2 and r >= JACK for r, n in Counter(c.rank for c in cards).items()):
        found.append("Jacks or better pair")
    return min(found, key=_PAYS.__getitem__, default=None)


def _oracle(cards: Sequence[Card], any_suit: bool = True) -> str | None:
    """Every card the wild kings of diamonds could be, and every five of the highest ranks."""
    hands: list[tuple[Card, ...]]
    if len(cards) > 5:
        top = sorted((c.rank for c in cards), reverse=True)[:5]
        hands = [
            h for h in combinations(cards, 5) if sorted((c.rank for c in h), reverse=True) == top
        ]
    else:
        hands = [tuple(cards)]
    results: list[str] = []
    stand_ins = [c for c in CARDS if any_suit or c.suit_index == DIAMONDS]
    for hand in hands:
        plain = [c for c in hand if c != KD]
        for extra in combinations_with_replacement(stand_ins, len(hand) - len(plain)):
            found = _concrete([*plain, *extra])
            if found is not None:
                results.append(found)
    return min(results, key=_PAYS.__getitem__, default=None)


@pytest.mark.parametrize("size", [2, 3])
def test_every_small_dealer_hand_matches_the_definitions(size: int) -> None:
    """Every multiset of 2 and 3 cards (identical cards allowed, as from six decks) is
    classified as a direct reading of 633b.12(a), (h), (k) classifies it."""
    for cards in combinations_with_replacement(CARDS, size):
        assert classify(cards) == _oracle(cards), cards


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(CARDS), min_size=4, max_size=8), st.booleans())
def test_longer_dealer_hands_match_the_definitions(cards: list[Card], any_suit: bool) -> None:
    """Dealer hands of four to eight cards (read whole or as the five highest, wild kings
    included) match the direct reading of 633b.12(a), (g)-(k)."""
    if cards.count(KD) > 2:
        cards = [c for c in cards if c != KD] + [KD, KD]
    assert classify(cards, wild_any_suit=any_suit) == _oracle(cards, any_suit)
