"""Blackjack Match Progressive (58 Pa. Code 633b.10): the paytables as the regulation prints
them, a scenario for every paragraph that decides a result, the Envy Bonus and the split
jackpot, and the exact counts checked against closed forms and a brute force."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations
from math import perm

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game_server.rules.wagers.base import MeterSpec, Moment, context
from game_server.rules.wagers.blackjack_match import (
    BLACKJACK_MATCH,
    PAYTABLES,
    EnvyBonusError,
    JackpotSplitError,
    envy_bonuses,
    exact_counts,
    fixed_return,
    shoe_counts,
    split_jackpot,
)
from shared.cards import ACE, KING, Card, parse_cards
from shared.money import Fixed, MeterShare, ToOne

AK = "Ace-King Matching Suited Blackjack"
MATCHING = "Matching Suited Blackjack"
SUITED_BOTH = "Player and Dealer Suited Blackjacks"
BOTH = "Player and Dealer Blackjacks"
SUITED = "Player Suited Blackjacks"
PLAYER = "Player Blackjack"
ANY_ACE = "Player Any Ace"

# 633b.10(i), as printed in the regulation.
REGULATION_TABLE = """\
Hand Paytable A Paytable B
Ace-King Matching Suited Blackjack 100% of meter 100% of meter
Matching Suited Blackjack 10% of meter 10% of meter
Player and Dealer Suited Blackjacks 200 to 1 200 to 1
Player and Dealer Blackjacks 30 to 1 30 to 1
Player Suited Blackjacks 10 to 1 10 to 1
Player Blackjack 5 to 1 5 to 1
Player Any Ace 3 to 1 3 to 1
Seed Amount $10,000 $5,000
Increment Rate 13% 13%
Secondary Seed 2.5% 3.25%
Hand Paytable C Paytable D
Ace-King Matching Suited Blackjack 100% of meter 100% of meter
Matching Suited Blackjack 10% of meter 10% of meter
Player and Dealer Suited Blackjacks 300 to 1 300 to 1
Player and Dealer Blackjacks 50 to 1 50 to 1
Player Suited Blackjacks 10 to 1 10 to 1
Player Blackjack 5 to 1 5 to 1
Player Any Ace 2 to 1 2 to 1
Seed Amount $10,000 $5,000
Increment Rate 13% 13%
Secondary Seed 2.5% 3.25%
"""


def _regulation_tables() -> dict[str, tuple[list[tuple[str, object]], MeterSpec]]:
    """Paytable name -> (lines and pays, the meter), read from the printed table."""
    tables: dict[str, tuple[list[tuple[str, object]], MeterSpec]] = {}
    for block in REGULATION_TABLE.split("Hand ")[1:]:
        rows = block.splitlines()
        names = [" ".join(rows[0].split()[i : i + 2]) for i in (0, 2)]
        lines: list[list[tuple[str, object]]] = [[], []]
        meter: dict[str, list[str]] = {}
        for row in rows[1:]:
            words = row.split()
            if row.startswith(("Seed Amount", "Increment Rate", "Secondary Seed")):
                meter[" ".join(words[:2])] = words[2:]
            elif "meter" in words:
                name = " ".join(words[:-6])
                for i, at in enumerate((-6, -3)):
                    share = MeterShare(int(words[at].rstrip("%")), "Blackjack Match Progressive")
                    lines[i].append((name, share))
            else:
                name = " ".join(words[:-6])
                for i, at in enumerate((-6, -3)):
                    assert words[at + 1] == "to"
                    lines[i].append((name, ToOne(int(words[at]), int(words[at + 2]))))
        for i, name in enumerate(names):
            seed = int(meter["Seed Amount"][i].lstrip("$").replace(",", "")) * 100
            spec = MeterSpec(
                "Blackjack Match Progressive",
                seed=seed,
                reseed=seed,
                increment_bp=round(float(meter["Increment Rate"][i].rstrip("%")) * 100),
                secondary_bp=round(float(meter["Secondary Seed"][i].rstrip("%")) * 100),
            )
            tables[name] = (lines[i], spec)
    return tables


def test_paytables_are_the_regulation_tables() -> None:
    """633b.10(i): Paytables A-D pay exactly what the regulation prints, line by line, and
    each feeds one meter with its seed (also the reseed), 13% increment and secondary seed."""
    tables = _regulation_tables()
    assert sorted(PAYTABLES) == sorted(tables)
    for name, (lines, meter) in tables.items():
        table = PAYTABLES[name]
        assert [(line.name, line.pay) for line in table.lines] == lines
        assert table.meters == (meter,)


def test_declaration() -> None:
    """633b.10(b), (e), (g), (h)(5): 6 or 8 decks, a $1 or $5 wager beside a Blackjack
    wager, settled after the dealer's Blackjack check, an optional Envy Bonus."""
    assert BLACKJACK_MATCH.settles_at is Moment.AFTER_PEEK
    assert BLACKJACK_MATCH.allowed_decks == frozenset({6, 8})
    assert BLACKJACK_MATCH.cites["allowed_decks"] == "(b)"
    assert BLACKJACK_MATCH.fixed_amounts == (100, 500)
    assert BLACKJACK_MATCH.requires == ("blackjack",)
    amount = BLACKJACK_MATCH.options["amount"]
    assert (amount.choices, amount.cite) == ((100, 500), "(e)")
    envy = BLACKJACK_MATCH.options["envy_bonus"]
    assert (set(envy.choices), envy.default, envy.cite) == ({True, False}, False, "(h)(5)")


def _line(player: str, dealer: str, paytable: str = "Paytable A") -> str | None:
    ctx = context(parse_cards(player), parse_cards(dealer), 8)
    found = BLACKJACK_MATCH.evaluate(ctx, PAYTABLES[paytable])
    return found.name if found else None


@pytest.mark.parametrize(
    ("player", "dealer", "line"),
    [
        ("AS KS", "KS AS", AK),  # (a)(1)
        ("AH KH", "AH KH", AK),  # (a)(1)
        ("AH KD", "AH KD", BOTH),  # (a)(4): identical cards, but neither Blackjack suited
        ("AS TS", "AS TS", MATCHING),  # (a)(2): the regulation's example
        ("QD AD", "AD QD", MATCHING),  # (a)(2)
        ("QC AD", "AD QC", BOTH),  # (a)(4): not suited Blackjacks
        ("AS TS", "AS QS", SUITED_BOTH),  # (a)(3): the regulation's example
        ("AS TH", "QH AS", BOTH),  # (a)(4): the same two suits, but no suited Blackjack
        ("AS TS", "AH TH", BOTH),  # (a)(4): two suited Blackjacks of different suits
        ("AS KS", "AS KH", BOTH),  # (a)(4): one card matches, the other does not
        ("AS TH", "AH TS", BOTH),  # (a)(4): the suits are swapped between ace and ten
        ("AD JD", "AS 9S", SUITED),  # (a)(5)
        ("JD AD", "TS TH", SUITED),  # (a)(5)
        ("AD JC", "9S 9H", PLAYER),  # (a)(6)
        ("AD AC", "AS KS", ANY_ACE),  # (a)(7): even against a dealer Blackjack
        ("9D AC", "5S 5H", ANY_ACE),  # (a)(7)
        ("9D 2C", "AS KS", None),  # (g)(1): no ace and no Blackjack
        ("KD QC", "AS KS", None),  # (g)(1)
    ],
)
def test_lines(player: str, dealer: str, line: str | None) -> None:
    """633b.10(a), (g): each combination of the player's two cards and the dealer's two."""
    assert _line(player, dealer) == line


def test_633b_10_a_the_matching_lines_are_two_suited_blackjacks_of_one_suit() -> None:
    """633b.10(a)(1)-(3), (a)(5): "Matching Suited Blackjacks" are suited Blackjacks (a
    Blackjack "of the same suit"), as every example of (a) is: an ace of spades and king of
    hearts against the same two cards is "Player and Dealer Blackjacks" (30 to 1), not the
    100% jackpot; the ace and king of spades against the same two cards is the jackpot."""
    assert _line("AS KH", "AS KH") == BOTH
    assert _line("AS KS", "AS KS") == AK
    assert _line("AS TH", "AS TH") == BOTH
    assert _line("AS JH", "AS QH") == BOTH
    assert _line("AH JH", "AH QH") == SUITED_BOTH
    counts = exact_counts(6, PAYTABLES["Paytable A"])
    assert counts[AK] == 14_400  # 1 in 645,465 hands at six decks (1 in 161,366 card by card)
    assert sum(counts.values()) // counts[AK] == 645_464


def test_pays_by_paytable() -> None:
    """633b.10(i): Player and Dealer Suited Blackjacks pay 200 to 1 on Paytables A and B and
    300 to 1 on C and D; Player Any Ace pays 3 to 1 on A and B, 2 to 1 on C and D."""
    pays = {name: table.line(SUITED_BOTH).pay for name, table in PAYTABLES.items()}
    assert pays == {
        "Paytable A": ToOne(200),
        "Paytable B": ToOne(200),
        "Paytable C": ToOne(300),
        "Paytable D": ToOne(300),
    }
    assert PAYTABLES["Paytable C"].line(ANY_ACE).pay == ToOne(2)
    assert PAYTABLES["Paytable A"].line(MATCHING).pay == MeterShare(
        10, "Blackjack Match Progressive"
    )


# -- Envy Bonus ---------------------------------------------------------------------------


def test_envy_bonus_for_another_players_matching_suited_blackjacks() -> None:
    """633b.10(h)(5), (k): another player's Ace-King Matching Suited Blackjack with the dealer
    gives $600 on the $1 wager, $3,000 on the $5; a Matching Suited Blackjack $200 or
    $1,000."""
    assert envy_bonuses([(1, AK), (3, PLAYER)], seat=3, wager_amount=100) == [Fixed(60_000)]
    assert envy_bonuses([(1, AK)], seat=3, wager_amount=500) == [Fixed(300_000)]
    assert envy_bonuses([(2, MATCHING)], seat=3, wager_amount=100) == [Fixed(20_000)]
    assert envy_bonuses([(2, MATCHING)], seat=3, wager_amount=500) == [Fixed(100_000)]


def test_no_envy_bonus_for_his_own_hand() -> None:
    """633b.10(h)(5): "A player is not entitled to an Envy Bonus for his own hand"."""
    assert envy_bonuses([(4, AK)], seat=4, wager_amount=100) == []
    assert envy_bonuses([(4, MATCHING), (5, PLAYER)], seat=4, wager_amount=500) == []


def test_several_envy_bonuses() -> None:
    """633b.10(h)(5): a bonus for each other player holding Matching Suited Blackjacks with
    the dealer; lesser hands of others give none."""
    lines = [(1, AK), (2, MATCHING), (3, SUITED_BOTH), (4, BOTH), (5, MATCHING), (6, AK)]
    assert envy_bonuses(lines, seat=6, wager_amount=100) == [
        Fixed(60_000),
        Fixed(20_000),
        Fixed(20_000),
    ]


def test_envy_bonus_needs_a_wager_amount_of_the_table() -> None:
    """633b.10(k): there is no Envy Bonus table for a wager other than $1 or $5."""
    with pytest.raises(EnvyBonusError, match=r"633b\.10\(k\)"):
        envy_bonuses([(1, AK)], seat=2, wager_amount=200)


# -- split jackpot ------------------------------------------------------------------------


def test_split_jackpot_equally() -> None:
    """633b.10(j): two Ace-King Matching Suited Blackjacks in one round split 100% of the
    meter equally; an odd cent stays on the meter."""
    assert split_jackpot(1_000_001, 2) == [500_000, 500_000]
    assert split_jackpot(900, 3) == [300, 300, 300]
    assert split_jackpot(5, 1) == [5]


@given(st.integers(min_value=0, max_value=10**12), st.integers(min_value=1, max_value=7))
def test_split_jackpot_conserves_every_cent(amount: int, winners: int) -> None:
    """633b.10(j): the shares are equal, one per winner, and with the remainder left on the
    meter they add up to the jackpot exactly; the remainder is under one cent per winner."""
    shares = split_jackpot(amount, winners)
    remainder = amount - sum(shares)
    assert len(shares) == winners
    assert len(set(shares)) == 1
    assert 0 <= remainder < winners
    assert sum(shares) + remainder == amount


def test_split_jackpot_refuses_no_winner() -> None:
    """633b.10(j): a jackpot is split among winners, so at least one."""
    with pytest.raises(JackpotSplitError):
        split_jackpot(100, 0)


# -- exact counts -------------------------------------------------------------------------


def _closed_forms(d: int) -> dict[str | None, int]:
    """Ordered deals (p1, p2, up, hole) of every line from a D-deck shoe, derived by hand.

    A Blackjack is an ace (4D) and a ten-value card (16D) in either order; once the player
    holds one, the dealer has 2 (4D-1)(16D-1) Blackjacks among the rest.
    """
    n = 52 * d
    rest = (n - 2) * (n - 3)
    blackjacks = 2 * 4 * d * 16 * d
    suited = 2 * 4 * d * 4 * d
    suited_kings = 2 * 4 * d * d  # an ace and a king of its suit
    dealer_after_player = 2 * (4 * d - 1) * (16 * d - 1)
    # A suited player Blackjack that the dealer repeats: (D-1) copies of each card, either
    # order.
    ak = suited_kings * 2 * (d - 1) ** 2
    matching = (suited - suited_kings) * 2 * (d - 1) ** 2
    # A suited player Blackjack; the dealer's ace identical to the player's, a ten-value card
    # of the same suit but another of the three other ten ranks (3D cards).
    suited_both = suited * 2 * (d - 1) * 3 * d
    no_dealer_blackjack = rest - dealer_after_player
    aces = perm(n, 2) - perm(48 * d, 2) - blackjacks
    counts: dict[str | None, int] = {
        AK: ak,
        MATCHING: matching,
        SUITED_BOTH: suited_both,
        BOTH: blackjacks * dealer_after_player - ak - matching - suited_both,
        SUITED: suited * no_dealer_blackjack,
        PLAYER: (blackjacks - suited) * no_dealer_blackjack,
        ANY_ACE: aces * rest,
    }
    counts[None] = perm(n, 4) - sum(counts.values())
    assert counts[None] == perm(48 * d, 2) * rest
    return counts


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_exact_counts_match_closed_forms(decks: int) -> None:
    """Every line has exactly its closed-form count, and the losing deals are those whose
    player cards hold no ace; all (52D)_4 ordered deals are counted."""
    counts = exact_counts(decks, PAYTABLES["Paytable A"])
    assert counts == _closed_forms(decks)
    assert sum(counts.values()) == perm(52 * decks, 4)


def _by_the_regulation(player: tuple[Card, ...], dealer: tuple[Card, ...]) -> str | None:
    """633b.10(a), (g) written again from the text on card objects, independently of the
    module."""

    def blackjack(cards: tuple[Card, ...]) -> bool:
        low, high = sorted(c.rank for c in cards)
        return high == ACE and 10 <= low <= KING

    def ace_then_ten(cards: tuple[Card, ...]) -> tuple[Card, Card]:
        ace = next(c for c in cards if c.rank == ACE)
        return ace, next(c for c in cards if c is not ace)

    if blackjack(player) and blackjack(dealer):
        (pa, pt), (da, dt) = ace_then_ten(player), ace_then_ten(dealer)
        one_suit = len({pa.suit, pt.suit, da.suit, dt.suit}) == 1  # two suited, same suit
        if one_suit and pt.rank == dt.rank:
            return AK if pt.rank == KING else MATCHING
        return SUITED_BOTH if one_suit else BOTH
    if blackjack(player):
        return SUITED if player[0].suit == player[1].suit else PLAYER
    if any(c.rank == ACE for c in player):
        return ANY_ACE
    return None


def test_counts_match_brute_force_over_a_small_shoe() -> None:
    """Dealing every ordered 4 of the 24 physical cards of a shoe holding two of each of 12
    cards (aces and ten-value cards of two suits, two other cards) and classifying each deal
    by the regulation's words gives exactly the module's counts for that shoe."""
    small = parse_cards("AS AH KS KH QS TH TS JH 9S 9H 2C 2D")
    physical = [c for c in small for _ in range(2)]
    expected: dict[str | None, int] = {}
    for a, b, c, d in permutations(physical, 4):
        line = _by_the_regulation((a, b), (c, d))
        expected[line] = expected.get(line, 0) + 1
    copies = [0] * 52
    for card in physical:
        copies[card] += 1
    found = shoe_counts(copies)
    assert {k: v for k, v in found.items() if v} == expected
    assert all(found[name] for name in (AK, MATCHING, SUITED_BOTH, BOTH, SUITED, PLAYER))


def test_fixed_return() -> None:
    """The "a to 1" lines return, per unit staked, (a + 1) times their probability."""
    counts = exact_counts(6, PAYTABLES["Paytable C"])
    odds = {SUITED_BOTH: 300, BOTH: 50, SUITED: 10, PLAYER: 5, ANY_ACE: 2}
    total = sum(counts.values())
    expected = Fraction(sum(counts[name] * (a + 1) for name, a in odds.items()), total)
    assert fixed_return(6, PAYTABLES["Paytable C"]) == expected
