"""Money: integer cents and the "a to b" / "a for 1" payouts of the regulations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.codec import CodecError, canonical_json, loads
from shared.errors import MoneyError
from shared.money import (
    Fixed,
    ForOne,
    MeterShare,
    ToOne,
    format_money,
    parse_money,
    parse_pay,
)


def test_parse_money_is_exact() -> None:
    """Dollar text becomes exact cents; an int is already cents."""
    assert parse_money("25") == 2500
    assert parse_money("$25.50") == 2550
    assert parse_money("1,000.05") == 100005
    assert parse_money(125) == 125


@pytest.mark.parametrize("bad", ["2.5", "-1", "abc", "1.234", "", "1e3"])
def test_parse_money_refuses_bad_text(bad: str) -> None:
    """Fractions of a cent, negatives and non-numbers are refused with an explanation."""
    with pytest.raises(MoneyError, match="not an amount of money"):
        parse_money(bad)


def test_parse_money_refuses_float_and_bool() -> None:
    """A float never holds money."""
    with pytest.raises(MoneyError):
        parse_money(2.5)  # type: ignore[arg-type]
    with pytest.raises(MoneyError):
        parse_money(True)


def test_to_one_and_for_one() -> None:
    """3 to 2 on $10 returns $25; 25 for 1 on $10 returns $250 including the stake."""
    assert ToOne(3, 2).total_return(1000) == 2500
    assert ToOne(3, 2).win(1000) == 1500
    assert ForOne(25).total_return(1000) == 25000
    assert ForOne(25).win(1000) == 24000
    assert Fixed(500).total_return(100) == 600


def test_parse_pay() -> None:
    """Payouts parse as the regulations write them."""
    assert parse_pay("3 to 2") == ToOne(3, 2)
    assert parse_pay("1,000 to 1") == ToOne(1000, 1)
    assert parse_pay("25 for 1") == ForOne(25)
    assert parse_pay("10% of meter") == MeterShare(10)
    with pytest.raises(MoneyError, match="not a payout"):
        parse_pay("three to two")


def test_format_money() -> None:
    """Amounts print as dollars with separators."""
    assert format_money(123456) == "$1,234.56"
    assert format_money(-100) == "-$1.00"


@given(st.integers(min_value=0, max_value=10**12))
def test_money_text_round_trip(cents: int) -> None:
    """format_money and parse_money are inverse."""
    assert parse_money(format_money(cents)) == cents


@given(st.integers(1, 10**9), st.integers(0, 1000), st.integers(1, 100))
def test_to_one_never_loses_a_cent_to_rounding_up(stake: int, a: int, b: int) -> None:
    """A "to" payout is floored: never more than the exact odds, never a whole cent less."""
    win = ToOne(a, b).win(stake)
    assert win * b <= stake * a < (win + 1) * b


def test_canonical_json() -> None:
    """Sorted keys, no spaces, integers only."""
    assert canonical_json({"b": 1, "a": [1, "x"]}) == b'{"a":[1,"x"],"b":1}'
    with pytest.raises(CodecError, match="integers only"):
        canonical_json({"a": 1.5})
    with pytest.raises(CodecError, match="integers only"):
        loads(b'{"a":1.5}')
