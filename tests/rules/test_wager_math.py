"""Exact wager math (game_server.rules.wagers.math, ``etg math``): counts agree with counts
derived by hand, the weights of the class enumeration add up to the whole shoe, and a wager,
paytable or deck count the regulation does not allow is refused with the reason."""

from __future__ import annotations

from fractions import Fraction
from math import comb, perm

import pytest

from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.math import MathError, ordered_deals, wager_math, win_per_unit
from shared.money import Fixed, ForOne, MeterShare, ToOne


def _lucky_aces_by_hand(decks: int) -> dict[str | None, int]:
    """633b.8(e) lines over unordered 4-card hands (D copies of each ace, 48D other
    cards), times the 4! orders in which one hand can be dealt."""
    d, other = decks, 48 * decks
    unordered = {
        "4 Aces": comb(4 * d, 4),
        "3 Aces Same Suit": 4 * comb(d, 3) * other,
        "3 Aces": (comb(4 * d, 3) - 4 * comb(d, 3)) * other,
        "2 Aces Same Suit": 4 * comb(d, 2) * comb(other, 2),
        "2 Aces": (comb(4 * d, 2) - 4 * comb(d, 2)) * comb(other, 2),
        "1 Ace of Diamonds": d * comb(other, 3),
        "1 Ace": 3 * d * comb(other, 3),
        None: comb(other, 4),
    }
    return {line: 24 * n for line, n in unordered.items()}


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_lucky_aces_counts_agree_with_the_hand_derived_counts(decks: int) -> None:
    result = wager_math(REGISTRY["lucky_aces"], "Paytable A", decks)
    counted = {line.line: line.combinations for line in result.lines} | {None: result.losing}
    assert counted == _lucky_aces_by_hand(decks)
    assert result.total == perm(52 * decks, 4)


def test_lucky_aces_house_edges_from_the_hand_count() -> None:
    """The house edge is minus the expected win per unit: computed here from the hand
    count and each line's "a to 1"."""
    wager = REGISTRY["lucky_aces"]
    for name, paytable in wager.paytables.items():
        counts = _lucky_aces_by_hand(6)
        total = sum(counts.values())
        expected = sum(
            Fraction(counts[line.name] * line.pay.a, total)  # type: ignore[union-attr]
            for line in paytable.lines
        ) - Fraction(counts[None], total)
        assert wager_math(wager, name, 6).house_edge == -expected
    assert round(float(wager_math(wager, "Paytable C", 8).house_edge) * 100, 3) == 8.273


@pytest.mark.parametrize(("sizes", "k"), [((48, 1, 1, 1, 1), 4), ((3, 2), 3), ((5,), 2)])
def test_ordered_deals_cover_the_shoe_exactly(sizes: tuple[int, ...], k: int) -> None:
    deals = list(ordered_deals(sizes, k))
    assert sum(w for _, w in deals) == perm(sum(sizes), k)
    assert len({seq for seq, _ in deals}) == len(deals)
    for seq, _ in deals:
        for c, size in enumerate(sizes):
            assert seq.count(c) <= size


def test_win_per_unit_of_each_pay() -> None:
    assert win_per_unit(ToOne(3, 2), None) == Fraction(3, 2)
    assert win_per_unit(ForOne(25), None) == 24
    assert win_per_unit(Fixed(75_000), 500) == 150
    assert win_per_unit(MeterShare(100), 500) is None
    with pytest.raises(MathError, match="fixed amount"):
        win_per_unit(Fixed(75_000), None)


def test_refusals_name_what_is_wrong() -> None:
    wager = REGISTRY["lucky_aces"]
    with pytest.raises(MathError, match="'Paytable Z' is not a Lucky Aces paytable"):
        wager_math(wager, "Paytable Z", 6)


@pytest.mark.parametrize("decks", [6, 8])
def test_blazing_7s_lines_by_closed_form(decks: int) -> None:
    """633b.9(b), (d), (f): over ordered deals of the first two cards and, after two sevens,
    the third card (N (N-1) (N-2) weights), two sevens then a card that is not a seven come
    4D(4D-1)48D ways, one seven 2 x 4D x 48D (N-2), three sevens of one suit 4 D(D-1)(D-2),
    three red or three black not of one suit 2 ((2D)(2D-1)(2D-2) - 2 D(D-1)(D-2)); the rest
    of the three sevens are mixed colours."""
    result = wager_math(REGISTRY["blazing_7s"], "Paytable A", decks)
    counts = {line.line: line.combinations for line in result.lines}
    d = decks
    n, sevens, others = 52 * d, 4 * d, 48 * d
    same_suit = 4 * d * (d - 1) * (d - 2)
    same_color = 2 * (2 * d * (2 * d - 1) * (2 * d - 2) - 2 * d * (d - 1) * (d - 2))
    assert counts["Three 7's Same Suit"] == same_suit
    assert counts["Three 7's Same Color"] == same_color
    assert counts["Three 7's"] == sevens * (sevens - 1) * (sevens - 2) - same_suit - same_color
    assert counts["First two cards (two 7's)"] == sevens * (sevens - 1) * others
    assert counts["Either of first two cards (one 7)"] == 2 * sevens * others * (n - 2)
    assert result.losing == others * (others - 1) * (n - 2)
    assert result.total == perm(n, 3)
    assert result.simulated_lines == ()
    expected = (
        Fraction(200 * counts["Three 7's"], result.total)
        + Fraction(25 * counts["First two cards (two 7's)"], result.total)
        + Fraction(2 * counts["Either of first two cards (one 7)"], result.total)
        - Fraction(result.losing, result.total)
    )
    assert result.house_edge == -expected


def test_super_4_fixed_awards_are_counted_on_the_fixed_5_dollar_wager() -> None:
    """633b.6(e), (i): the fixed lines are "Award $750" etc. on the $5 wager."""
    result = wager_math(REGISTRY["super_4"], "Paytable 1\u2014Option 1", 6)
    straight = next(line for line in result.lines if line.line == "Straight")
    assert straight.win == Fraction(75_000, 500)
    assert result.meter_lines  # the Star, Heart and Spade progressives
