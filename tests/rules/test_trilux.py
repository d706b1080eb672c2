"""TriLux Deluxe wager (58 Pa. Code 633b.11): the hands of (a), the paytables of (i) and the
deck-count rule of (j), the 2x limit of (d), the Press of (f)-(h), and exact counts of every
ordered deal checked against counts derived by hand and a brute force over one physical
deck."""

from __future__ import annotations

from itertools import permutations

import pytest

from game_server.rules.errors import ActionNotAllowed
from game_server.rules.wagers.base import Moment, context
from game_server.rules.wagers.three_card_poker import house_edge
from game_server.rules.wagers.trilux import (
    DECK_PAYTABLES,
    PAYTABLES,
    PRESS,
    TRILUX,
    PressNotAllowed,
    can_press,
    exact_counts,
    press_allowed,
    press_limit,
    pressed_hand_pays,
    split_match,
    verify_press,
)
from shared.cards import parse_cards
from shared.money import ToOne

# 633b.11(i), as printed in the regulation.
REGULATION_TABLE = """\
Straight flush 20 to 1 20 to 1 25 to 1
Three-of-a-kind 15 to 1 15 to 1 15 to 1
Straight 9 to 1 9 to 1 8 to 1
Flush 6 to 1 5 to 1 5 to 1
"""
TABLES = ("Paytable TLX-1", "Paytable TLX-2", "Paytable TLX-3")


def _line(player: str, up: str, table: str = "Paytable TLX-3") -> str | None:
    ctx = context(parse_cards(player), parse_cards(up), 6)
    found = TRILUX.evaluate(ctx, PAYTABLES[table])
    return found.name if found else None


def test_paytables_are_the_regulation_table() -> None:
    """633b.11(i): Paytables TLX-1, TLX-2 and TLX-3 pay exactly the odds the regulation
    prints, line by line."""
    for column, name in enumerate(TABLES):
        expected = []
        for row in REGULATION_TABLE.splitlines():
            words = row.split()
            odds = words[-9:]
            expected.append(
                (" ".join(words[:-9]), ToOne(int(odds[3 * column]), int(odds[3 * column + 2])))
            )
        assert [(x.name, x.pay) for x in PAYTABLES[name].lines] == expected


def test_paytable_by_number_of_decks() -> None:
    """633b.11(j): the number of decks fixes the paytable: TLX-1 for 1 deck, TLX-2 for 2,
    TLX-3 for 4, 6 and 8; no other deck count has one, so none other is allowed."""
    assert dict(DECK_PAYTABLES) == {
        1: "Paytable TLX-1",
        2: "Paytable TLX-2",
        4: "Paytable TLX-3",
        6: "Paytable TLX-3",
        8: "Paytable TLX-3",
    }
    assert TRILUX.deck_paytables == DECK_PAYTABLES
    assert TRILUX.allowed_decks == frozenset({1, 2, 4, 6, 8})
    assert TRILUX.cites["deck_paytables"] == "(j)"


def test_at_most_twice_the_blackjack_wager() -> None:
    """633b.11(d): a TriLux Deluxe wager may not exceed two times the Blackjack wager (the
    declaration; the engine refuses a larger wager)."""
    assert TRILUX.max_multiple_of_main == 2
    assert TRILUX.cites["max_multiple_of_main"] == "(d)"
    assert TRILUX.requires == ("blackjack",)


def test_settled_after_the_deal() -> None:
    """633b.11(e): settled right after the second card, before any other card or the card
    reader, on the player's initial two cards and the dealer's up card."""
    assert TRILUX.settles_at is Moment.AFTER_DEAL
    assert TRILUX.section == "58 Pa. Code 633b.11"


@pytest.mark.parametrize(
    ("player", "up", "line"),
    [
        ("2H 9H", "KH", "Flush"),  # (a)(1)
        ("5H 6C", "7D", "Straight"),  # (a)(2)
        ("AC 2D", "3H", "Straight"),
        ("QS KD", "AH", "Straight"),
        ("5H 6H", "7H", "Straight flush"),  # (a)(3)
        ("9C 9D", "9S", "Three-of-a-kind"),  # (a)(4)
    ],
)
def test_each_hand(player: str, up: str, line: str) -> None:
    """633b.11(a)(1)-(4), (e)(1): a flush, a straight (A-2-3 and Q-K-A included), a straight
    flush and three of a kind win."""
    assert _line(player, up) == line


@pytest.mark.parametrize(("player", "up"), [("KS AD", "2C"), ("7S 7D", "9C"), ("2S 9D", "KC")])
def test_losing_hands(player: str, up: str) -> None:
    """633b.11(e)(2): anything else loses: K-A-2 (no wrap-around), a pair, high card."""
    assert _line(player, up) is None


@pytest.mark.parametrize(
    ("player", "up", "line"),
    [
        ("5H 6H", "7H", "Straight flush"),  # not also a straight and a flush
        ("8D 8D", "8D", "Three-of-a-kind"),  # three identical cards: not a flush
        ("7H 7H", "9H", "Flush"),  # a suited pair and a third of the suit
    ],
)
def test_highest_hand_only(player: str, up: str, line: str) -> None:
    """633b.11(a), (i): a hand that is several of the hands is paid once, as the highest."""
    assert _line(player, up, "Paytable TLX-1") == line


# ---------------------------------------------------------------------------------------------
# The Press, 633b.11(f)-(h).


def test_press_is_an_option_of_the_rules_submission() -> None:
    """633b.11(f): the Press is an option, off unless the Rules Submission offers it."""
    spec = TRILUX.options[PRESS]
    assert spec.default is False
    assert spec.choices == (False, True)
    assert spec.cite == "(f)"


def test_no_press_when_the_dealer_has_blackjack() -> None:
    """633b.11(g): the winnings may not cap the Blackjack wager when the dealer has
    Blackjack."""
    assert press_allowed(dealer_blackjack=False)
    assert not press_allowed(dealer_blackjack=True)
    with pytest.raises(PressNotAllowed, match=r"633b\.11\(g\)"):
        verify_press(500, winnings=500, main=100, dealer_blackjack=True)
    assert not can_press(500, winnings=500, main=100, dealer_blackjack=True)


def test_press_all_or_a_portion_of_the_winnings() -> None:
    """633b.11(f): the player caps the Blackjack wager with all or a portion of the TriLux
    Deluxe winnings: at most the winnings, whatever the Blackjack wager."""
    assert press_limit(winnings=2_000, main=100) == 2_000
    assert can_press(2_000, winnings=2_000, main=100, dealer_blackjack=False)
    assert can_press(700, winnings=2_000, main=100, dealer_blackjack=False)
    assert not can_press(2_001, winnings=2_000, main=100, dealer_blackjack=False)
    assert not can_press(0, winnings=2_000, main=100, dealer_blackjack=False)
    with pytest.raises(PressNotAllowed, match=r"more than the TriLux Deluxe winnings"):
        verify_press(2_001, winnings=2_000, main=100, dealer_blackjack=False)
    assert issubclass(PressNotAllowed, ActionNotAllowed)


def test_nothing_to_press_without_winnings_or_a_blackjack_wager() -> None:
    """633b.11(f): there is nothing to press without winnings, or without an initial
    Blackjack wager to cap."""
    assert press_limit(winnings=0, main=100) == 0
    assert press_limit(winnings=500, main=0) == 0
    with pytest.raises(ValueError):
        press_limit(winnings=-1, main=100)


def test_pressed_portion_paid_even_money_on_a_blackjack() -> None:
    """633b.11(g): a winning pressed hand pays the pressed winnings even money, even when the
    player has Blackjack; the initial wager keeps its own payout (3 to 2 on a Blackjack)."""
    assert pressed_hand_pays(1_000, 600, blackjack=True) == 1_500 + 600
    assert pressed_hand_pays(1_000, 600, blackjack=False) == 1_000 + 600
    assert pressed_hand_pays(1_000, 600, blackjack=True, blackjack_pay=ToOne(6, 5)) == 1_800
    assert pressed_hand_pays(1_000, 0, blackjack=True) == 1_500


def test_split_matches_the_wager_and_the_pressed_portion() -> None:
    """633b.11(h): splitting a pressed hand needs the initial Blackjack wager plus the pressed
    portion on the new hand."""
    assert split_match(1_000, 600) == 1_600
    assert split_match(1_000, 0) == 1_000


# ---------------------------------------------------------------------------------------------
# Exact counts.


def _falling3(n: int) -> int:
    return n * (n - 1) * (n - 2)


def _hand_counts(decks: int) -> dict[str | None, int]:
    """Ordered deals per line, derived by hand: D copies of each of 52 cards, three dealt in
    order without replacement."""
    d = decks
    straight_flush = 12 * 4 * 6 * d**3  # 12 sequences (A-2-3 .. Q-K-A), 4 suits, 3! orders
    identical = 52 * _falling3(d)  # three copies of one card: three of a kind
    counts: dict[str | None, int] = {
        "Straight flush": straight_flush,
        "Three-of-a-kind": 13 * _falling3(4 * d),
        "Straight": 12 * 6 * (4 * d) ** 3 - straight_flush,
        "Flush": 4 * _falling3(13 * d) - straight_flush - identical,
    }
    counts[None] = _falling3(52 * d) - sum(counts.values())
    return counts


def _brute_force_one_deck() -> dict[str | None, int]:
    """Every ordered deal of three of one deck's 52 physical cards, read by the definitions
    of 633b.11(a) without the ranker."""
    counts: dict[str | None, int] = {}
    deck = [(rank, suit) for rank in range(2, 15) for suit in range(4)]
    for cards in permutations(deck, 3):
        ranks = sorted(rank for rank, _ in cards)
        flush = len({suit for _, suit in cards}) == 1
        straight = len(set(ranks)) == 3 and (ranks[2] - ranks[0] == 2 or ranks == [2, 3, 14])
        line: str | None = None
        if straight and flush:
            line = "Straight flush"
        elif ranks[0] == ranks[2]:
            line = "Three-of-a-kind"
        elif straight:
            line = "Straight"
        elif flush:
            line = "Flush"
        counts[line] = counts.get(line, 0) + 1
    return counts


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_exact_counts_agree_with_hand_counts(decks: int) -> None:
    """Every ordered deal falls on the line the hand-derived counts give, and all
    (52D)(52D-1)(52D-2) deals are counted."""
    counts = exact_counts(decks, PAYTABLES[DECK_PAYTABLES[decks]])
    assert counts == _hand_counts(decks)
    assert sum(counts.values()) == _falling3(52 * decks)


def test_exact_counts_agree_with_one_physical_deck() -> None:
    """The 132,600 ordered deals of one deck, each read by a separate classifier."""
    assert exact_counts(1, PAYTABLES["Paytable TLX-1"]) == _brute_force_one_deck()


@pytest.mark.parametrize(
    ("decks", "edge"),
    [(1, "24.3801"), (2, "24.5442"), (4, "24.1138"), (6, "23.2521"), (8, "22.8185")],
)
def test_house_edge_of_the_paytable_each_deck_count_uses(decks: int, edge: str) -> None:
    """The house edge of the wager alone (without the Press) with the paytable (j) fixes for
    the deck count, from the hand-derived counts (percent, 4 decimals)."""
    table = PAYTABLES[DECK_PAYTABLES[decks]]
    assert f"{float(house_edge(_hand_counts(decks), table)) * 100:.4f}" == edge
