"""Super 4 Progressive Blackjack (58 Pa. Code 633b.6): the paytables as the regulation prints
them, a scenario for every paragraph that decides a result, and the exact counts checked
against closed forms and against a brute force over the physical cards of a small shoe."""

from __future__ import annotations

from itertools import permutations
from math import perm

import pytest

from game_server.rules.wagers.base import MeterSpec, Moment, context
from game_server.rules.wagers.math import wager_math
from game_server.rules.wagers.super_4 import (
    MYSTERY_CONFIGURATIONS,
    NO_DEALER_FACE_UP_ACE,
    PAYTABLES,
    SUPER_4,
    ChosenSuitError,
    exact_counts,
    fixed_return,
    shoe_counts,
)
from shared.cards import ACE, CARDS, Card, parse_cards
from shared.money import Fixed, MeterShare

P11 = "Paytable 1\u2014Option 1"
P31 = "Paytable 3\u2014Option 1"
P32 = "Paytable 3\u2014Option 2"

# 633b.6(i), as printed in the regulation (an em dash between "Paytable n" and "Option m").
REGULATION_TABLES = """\
Paytable 1—Option 1
Royal Flush in Chosen Suit Star Progressive $50,000 6%
Royal Flush (Other Suit) Heart Progressive $5,000 7%
Three-of-a-Kind Spade Progressive $500 7%
Straight $750
Flush $250
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
Paytable 1—Option 2
Royal Flush in Chosen Suit Star Progressive $25,000 7%
Royal Flush (Other Suit) Heart Progressive $5,000 7%
Three-of-a-Kind Spade Progressive $500 7%
Straight $750
Flush $250
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
Paytable 1—Option 3
Royal Flush in Chosen Suit Star Progressive $10,000 7.5%
Royal Flush (Other Suit) Heart Progressive $5,000 7%
Three-of-a-Kind Spade Progressive $500 7%
Straight $750
Flush $250
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
Paytable 2—Option 1
Royal Flush in Chosen Suit Star Progressive $50,000 6%
Royal Flush (Other Suit) Heart Progressive $5,000 5%
Three-of-a-Kind Spade Progressive $500 3%
Straight Diamond Progressive $300 3%
Flush $250
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
Paytable 2—Option 2
Royal Flush in Chosen Suit Star Progressive $25,000 6%
Royal Flush (Other Suit) Heart Progressive $5,000 5%
Three-of-a-Kind Spade Progressive $500 3%
Straight Diamond Progressive $300 3%
Flush $250
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
Paytable 3—Option 1
Royal Flush in Chosen Suit Star Progressive $50,000 6%
Royal Flush (Other Suit) Heart Progressive $5,000 2%
Three-of-a-Kind Spade Progressive $500 3%
Straight Diamond Progressive $300 3%
Flush Club Progressive $250 3%
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
No Dealer Face Up Ace Loss
Paytable 3—Option 2
Royal Flush in Chosen Suit Star Progressive $25,000 6%
Royal Flush (Other Suit) Heart Progressive $5,000 2%
Three-of-a-Kind Spade Progressive $500 3%
Straight Diamond Progressive $300 3%
Flush Club Progressive $250 3%
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
Paytable 3—Option 3
Royal Flush in Chosen Suit Star Progressive $10,000 6%
Royal Flush (Other Suit) Heart Progressive $5,000 2%
Three-of-a-Kind Spade Progressive $500 3%
Straight Diamond Progressive $300 3%
Flush Club Progressive $250 3%
Two Pair $200
All Cards Same Color $100
Pair $50
Any Hand w/ Dealer Blackjack $25
Dealer Ace Up $10
"""


def _cents(text: str) -> int:
    return int(text.lstrip("$").replace(",", "")) * 100


def _basis_points(text: str) -> int:
    return round(float(text.rstrip("%")) * 100)


def _regulation_tables() -> dict[str, tuple[list[tuple[str, object]], list[MeterSpec], bool]]:
    """Paytable name -> (lines and pays, meters, prints "No Dealer Face Up Ace Loss")."""
    tables: dict[str, tuple[list[tuple[str, object]], list[MeterSpec], bool]] = {}
    current = ""
    for row in REGULATION_TABLES.splitlines():
        if row.startswith("Paytable "):
            current = row
            tables[current] = ([], [], False)
            continue
        lines, meters, _ = tables[current]
        if row == "No Dealer Face Up Ace Loss":
            tables[current] = (lines, meters, True)
            continue
        words = row.split()
        if "Progressive" in words:
            at = words.index("Progressive")
            meter = " ".join(words[at - 1 : at + 1])
            name = " ".join(words[: at - 1])
            seed, rate = _cents(words[at + 1]), _basis_points(words[at + 2])
            lines.append((name, MeterShare(100, meter=meter)))
            meters.append(MeterSpec(meter, seed=seed, reseed=seed, increment_bp=rate))
        else:
            lines.append((" ".join(words[:-1]), Fixed(_cents(words[-1]))))
    return tables


def test_paytables_are_the_regulation_tables() -> None:
    """633b.6(i): the eight tables, their names (with the em dash), lines, awards, meters,
    seeds and increment rates are exactly those printed; only Paytable 3—Option 1 prints
    "No Dealer Face Up Ace Loss", the losing line restated, which no paytable lists as a
    line (a paytable lists wins)."""
    tables = _regulation_tables()
    assert list(PAYTABLES) == list(tables)
    assert [name for name, (_, _, loss_line) in tables.items() if loss_line] == [P31]
    for name, (lines, meters, _) in tables.items():
        table = PAYTABLES[name]
        assert [(line.name, line.pay) for line in table.lines] == lines
        assert list(table.meters) == meters
        assert NO_DEALER_FACE_UP_ACE not in {line.name for line in table.lines}


def test_declaration() -> None:
    """633b.6(b), (e), (g): 1, 2, 4, 6 or 8 decks, a fixed $5 wager beside a Blackjack
    wager, settled once the dealer has determined whether he has a Blackjack."""
    assert SUPER_4.settles_at is Moment.AFTER_PEEK
    assert SUPER_4.allowed_decks == frozenset({1, 2, 4, 6, 8})
    assert SUPER_4.fixed_amounts == (500,)
    assert SUPER_4.requires == ("blackjack",)
    assert SUPER_4.cites["allowed_decks"] == "(b)"
    assert SUPER_4.cites["fixed_amounts"] == "(e)"
    suit = SUPER_4.options["chosen_suit"]
    assert set(suit.choices) == {"spades", "hearts", "diamonds", "clubs"}
    assert suit.cite == "(a)(1)"


def test_mystery_configurations() -> None:
    """633b.6(j): configurations 1-3 give a meter seeded and reseeded at the Reseed amount,
    with the Random Must Hit By amount and the increment rate of the table."""
    table = [(c.number, c.reseed, c.must_hit_by, c.increment_bp) for c in MYSTERY_CONFIGURATIONS]
    assert table == [(1, 25_000, 100_000, 500), (2, 10_000, 50_000, 500), (3, 10_000, 20_000, 200)]
    assert MYSTERY_CONFIGURATIONS[2].meter("Mystery") == MeterSpec(
        "Mystery", seed=10_000, reseed=10_000, increment_bp=200, must_hit_by=20_000
    )


def _line(
    player: str,
    dealer: str,
    paytable: str = P11,
    suit: str = "spades",
    decks: int = 6,
) -> str | None:
    up, hole = parse_cards(dealer)
    low, high = sorted((up.rank, hole.rank))
    blackjack = high == ACE and 10 <= low <= 13
    ctx = context(
        parse_cards(player),
        (up, hole),
        decks,
        dealer_blackjack=blackjack,
        stake=500,
        options={"chosen_suit": suit},
    )
    found = SUPER_4.evaluate(ctx, PAYTABLES[paytable])
    return found.name if found else None


@pytest.mark.parametrize(
    ("player", "dealer", "line"),
    [
        ("KS QS", "AS JS", "Royal Flush in Chosen Suit"),  # (a)(1)
        ("JS QS", "KS AS", "Royal Flush in Chosen Suit"),  # (a)(1): the ace in the hole
        ("KH QH", "AH JH", "Royal Flush (Other Suit)"),  # (a)(2)
        ("AH AD", "AS KC", "Three-of-a-Kind"),  # (a)(3): three aces
        ("QH QD", "QS AC", "Three-of-a-Kind"),  # (a)(3): three of the dealer's ten rank
        ("KH QD", "AS JC", "Straight"),  # (a)(4)
        ("9S 2S", "AS TS", "Flush"),  # (a)(5)
        ("AH KC", "AH KC", "Two Pair"),  # (a)(6): identical in suit and rank
        ("9S 2C", "AC TS", "All Cards Same Color"),  # (a)(7): all black
        ("9C TH", "AH TH", "Pair"),  # (a)(8): a player card identical to a dealer card
        ("9D 9D", "AS TC", "Pair"),  # (a)(8): the player's two cards identical
        ("9D 2C", "AS TH", "Any Hand w/ Dealer Blackjack"),  # (a)(9)
        ("9D 2C", "TH AS", "Any Hand w/ Dealer Blackjack"),  # (a)(9): ten up, ace in the hole
        ("9D 2C", "AS 9H", "Dealer Ace Up"),  # (a)(10)
        ("AS KS", "AD AH", "Dealer Ace Up"),  # (a)(10): two aces are no Blackjack
        ("AS KS", "KD 9H", None),  # (g)(1): no ace showing, no Blackjack
        ("KS QS", "JS 9S", None),  # (g)(1)
    ],
)
def test_lines(player: str, dealer: str, line: str | None) -> None:
    """633b.6(a), (g): each combination on the player's two cards and the dealer's up card
    then hole card, with spades the chosen suit."""
    assert _line(player, dealer) == line


def test_chosen_suit_decides_which_royal() -> None:
    """633b.6(a)(1)-(2): the same royal flush in hearts is the Chosen Suit royal when hearts
    is chosen and the Other Suit royal when spades is."""
    assert _line("KH QH", "AH JH", suit="hearts") == "Royal Flush in Chosen Suit"
    assert _line("KH QH", "AH JH", suit="spades") == "Royal Flush (Other Suit)"
    assert _line("KS QS", "AS JS", suit="hearts") == "Royal Flush (Other Suit)"


def test_unknown_chosen_suit_is_refused() -> None:
    """633b.6(a)(1): a chosen suit that is not a suit is refused with the paragraph named."""
    with pytest.raises(ChosenSuitError, match=r"633b\.6\(a\)\(1\)"):
        _line("KS QS", "AS JS", suit="stars")


def test_royal_needs_the_dealer_to_hold_the_ace() -> None:
    """633b.6(a)(1), (4): the player's ace and king with the dealer's queen and jack of one
    suit are no royal flush (and no straight): without an ace the dealer's two cards lose."""
    assert _line("AS KS", "QS JS") is None
    assert _line("AS KH", "QS JS") is None


@pytest.mark.parametrize(
    ("player", "dealer", "line"),
    [
        ("AS AS", "AS KS", "Three-of-a-Kind"),  # also a Flush, an identical pair, a colour
        ("AS KS", "AS KS", "Flush"),  # also Two Pair and All Cards Same Color
        ("AD KH", "AD KH", "Two Pair"),  # also All Cards Same Color and Pair
        ("KC QS", "AS JC", "Straight"),  # also All Cards Same Color
        ("AS 2C", "AS KC", "All Cards Same Color"),  # also a Pair
    ],
)
def test_highest_hand_only(player: str, dealer: str, line: str) -> None:
    """633b.6(i): "for the highest ranking four-card hand formed": a hand that is several
    combinations is paid as the highest only."""
    assert _line(player, dealer) == line


def test_two_pair_and_pair_need_identical_cards() -> None:
    """633b.6(a)(6), (8): a pair of the same rank in two suits is no Pair, and the player's
    ace-king of other suits than the dealer's is no Two Pair."""
    assert _line("9D 9C", "AS TH") == "Any Hand w/ Dealer Blackjack"
    assert _line("AD KC", "AH KS") == "Any Hand w/ Dealer Blackjack"


def test_three_of_a_kind_is_in_the_dealer_blackjack() -> None:
    """633b.6(a)(3): three sevens without a dealer Blackjack win nothing (no ace up either)."""
    assert _line("7H 7D", "7S 9C") is None


def test_633b_6_g_2_dealer_blackjack_with_a_ten_up_wins_on_paytable_3_option_1() -> None:
    """633b.6(g)(2): the dealer "has an ace showing or a Blackjack", so a dealer Blackjack
    with the ace in the hole is settled by the paytable on Paytable 3—Option 1 as on every
    other: "Any Hand w/ Dealer Blackjack $25" and the royal flushes are paid. "No Dealer Face
    Up Ace Loss" restates the losing line: a hand with no ace up and no Blackjack loses."""
    assert _line("9D 2C", "TH AS", paytable=P31) == "Any Hand w/ Dealer Blackjack"
    assert _line("JS QS", "KS AS", paytable=P31) == "Royal Flush in Chosen Suit"
    assert _line("JS QS", "KS AS", paytable=P32) == "Royal Flush in Chosen Suit"
    assert _line("9D 2C", "AS TH", paytable=P31) == "Any Hand w/ Dealer Blackjack"
    assert _line("9D 2C", "AS 9H", paytable=P31) == "Dealer Ace Up"
    assert _line("9D 2C", "TH 9S", paytable=P31) is None


def test_award_is_won_on_top_of_the_five_dollar_stake() -> None:
    """633b.6(e), (i): a Straight on the $5 wager returns the stake and the $750 Award."""
    line = PAYTABLES[P11].line("Straight")
    assert line.pay == Fixed(75_000)
    assert line.pay.total_return(500) == 75_500


# -- exact counts -------------------------------------------------------------------------


def _closed_forms(d: int) -> dict[str, int]:
    """Ordered deals (p1, p2, up, hole) of some lines from a D-deck shoe, derived by hand.

    A dealer Blackjack is an ace (4D) and a ten-value card (16D) in either order.
    """
    n = 52 * d
    rest = (n - 2) * (n - 3)
    dealer_blackjacks = 2 * 4 * d * 16 * d
    suited_blackjacks = 2 * 4 * d * 4 * d  # ace and ten-value card of one suit
    royals = 4 * (2 * d * 3 * d) * (2 * d * d)  # dealer A + J/Q/K; player the other two
    return {
        "Royal Flush in Chosen Suit": royals // 4,
        "Royal Flush (Other Suit)": royals * 3 // 4,
        # The player's two cards both of the dealer's ace's rank or ten-value card's rank.
        "Three-of-a-Kind": dealer_blackjacks * 2 * (4 * d - 1) * (4 * d - 2),
        # Dealer A + J/Q/K (12D), the player the other two ranks of J/Q/K, not one suit.
        "Straight": 2 * 4 * d * 12 * d * 2 * (4 * d) ** 2 - royals,
        # Both player cards of the suit of a suited Blackjack, minus royals and three of a
        # kind (the player's cards both identical to the dealer's ace or ten-value card).
        "Flush": suited_blackjacks * ((13 * d - 2) * (13 * d - 3) - 2 * (d - 1) * (d - 2)) - royals,
        # The player holds the dealer's two cards again; a suited pair is a Flush.
        "Two Pair": (dealer_blackjacks - suited_blackjacks) * 2 * (d - 1) ** 2,
        "Dealer Ace Up": 4 * d * (36 * d - 1) * rest,
        "dealer blackjack": dealer_blackjacks * rest,
        "total": perm(n, 4),
    }


@pytest.mark.parametrize("decks", [1, 2, 4, 6, 8])
def test_exact_counts_match_closed_forms(decks: int) -> None:
    """Every line computable by hand has exactly its closed-form count, the lines (3)-(9)
    add up to every deal with a dealer Blackjack, and all (52D)_4 ordered deals are counted."""
    counts = exact_counts(decks, PAYTABLES[P11])
    expected = _closed_forms(decks)
    for name in ("Royal Flush in Chosen Suit", "Royal Flush (Other Suit)", "Three-of-a-Kind"):
        assert counts[name] == expected[name], name
    for name in ("Straight", "Flush", "Two Pair", "Dealer Ace Up"):
        assert counts[name] == expected[name], name
    with_blackjack = sum(v for k, v in counts.items() if k not in (None, "Dealer Ace Up"))
    assert with_blackjack == expected["dealer blackjack"]
    assert sum(counts.values()) == expected["total"]


@pytest.mark.parametrize("decks", [1, 2, 4, 6, 8])
def test_paytable_3_option_1_counts_every_dealer_blackjack(decks: int) -> None:
    """633b.6(g)(2), (i): Paytable 3—Option 1 wins on the same deals as every other paytable
    (its "No Dealer Face Up Ace Loss" loses nothing more), so its fixed lines return what
    Paytable 3—Option 2's return: 52.55% with six decks (34.25% under the reading that lost
    every dealer Blackjack with a ten up)."""
    assert exact_counts(decks, PAYTABLES[P31]) == exact_counts(decks, PAYTABLES[P32])
    assert fixed_return(decks, PAYTABLES[P31]) == fixed_return(decks, PAYTABLES[P32])
    if decks == 6:  # etg math: the fixed lines, a meter line's stake returned
        assert round(float(1 - wager_math(SUPER_4, P31, 6).house_edge), 4) == 0.5255


def _by_the_regulation(player: tuple[Card, ...], dealer: tuple[Card, ...], chosen: str) -> str:
    """633b.6(a), (g), (i) written again from the text on card objects, independently of the
    module: the first combination of the list that the four cards form."""
    cards = player + dealer
    ranks = sorted(c.rank for c in cards)
    suits = {c.suit for c in cards}
    colors = {c.suit in "DH" for c in cards}
    dealer_ace = any(c.rank == ACE for c in dealer)
    dealer_ten = any(10 <= c.rank <= 13 for c in dealer)
    blackjack = dealer_ace and dealer_ten
    royal = ranks == [11, 12, 13, 14] and len(suits) == 1 and dealer_ace
    if royal and suits == {chosen}:
        return "Royal Flush in Chosen Suit"
    if royal:
        return "Royal Flush (Other Suit)"
    if blackjack and any(ranks.count(r) == 3 for r in ranks):
        return "Three-of-a-Kind"
    if ranks == [11, 12, 13, 14] and len(suits) > 1 and blackjack:
        return "Straight"
    if blackjack and len(suits) == 1:
        return "Flush"
    if blackjack and sorted(player) == sorted(dealer):
        return "Two Pair"
    if blackjack and len(colors) == 1:
        return "All Cards Same Color"
    if blackjack and len(set(cards)) < 4:
        return "Pair"
    if blackjack:
        return "Any Hand w/ Dealer Blackjack"
    if dealer[0].rank == ACE:
        return "Dealer Ace Up"
    return "lose"


SMALL_SHOE = parse_cards("AS KS QS JS AH KH QH JH AC KC AD TD")


@pytest.mark.parametrize(("chosen", "letter"), [("spades", "S"), ("hearts", "H")])
def test_counts_match_brute_force_over_a_small_shoe(chosen: str, letter: str) -> None:
    """Dealing every ordered 4 of the 24 physical cards of a shoe holding two of each of 12
    cards (royals in two suits, straights, flushes, identical pairs, both colours, aces up
    without Blackjack) and classifying each deal by the regulation's words gives exactly the
    module's counts for that shoe."""
    physical = [c for c in SMALL_SHOE for _ in range(2)]
    expected: dict[str | None, int] = {}
    for a, b, c, d in permutations(physical, 4):
        line = _by_the_regulation((a, b), (c, d), letter)
        key = None if line == "lose" else line
        expected[key] = expected.get(key, 0) + 1
    copies = [0] * 52
    for card in physical:
        copies[card] += 1
    found = shoe_counts(copies, {"chosen_suit": chosen})
    assert {k: v for k, v in found.items() if v} == expected


def test_classification_is_the_regulation_on_every_blackjack_deal_of_one_deck() -> None:
    """For every deal of one deck in which the dealer has an ace or a ten-value card up and
    the other in the hole, the module's line is the one the regulation's words give."""
    tens_and_aces = [c for c in CARDS if c.rank >= 10]
    for up in tens_and_aces:
        for hole in tens_and_aces:
            if (up.rank == ACE) == (hole.rank == ACE):
                continue
            for p1 in CARDS[::3]:
                for p2 in CARDS[1::2]:
                    if len({up, hole, p1, p2}) < 4:
                        continue
                    expected = _by_the_regulation((p1, p2), (up, hole), "S")
                    found = _line(f"{p1} {p2}", f"{up} {hole}", decks=1)
                    assert found == (None if expected == "lose" else expected)


def test_fixed_return() -> None:
    """The non-progressive lines return, per unit of the $5 stake, the stake plus the Award
    over the stake, weighted by the exact counts (8 decks, Paytable 1—Option 1)."""
    counts = exact_counts(8, PAYTABLES[P11])
    awards = {
        "Straight": 750,
        "Flush": 250,
        "Two Pair": 200,
        "All Cards Same Color": 100,
        "Pair": 50,
        "Any Hand w/ Dealer Blackjack": 25,
        "Dealer Ace Up": 10,
    }
    returned = sum(counts[name] * (5 + award) for name, award in awards.items())
    total = sum(counts.values())
    assert fixed_return(8, PAYTABLES[P11]) * total * 5 == returned
