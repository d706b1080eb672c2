"""The chi-square helper: statistic and p-value against textbook values."""

from __future__ import annotations

import math

import pytest

from game_server.rng.errors import BadRange
from game_server.rng.stats import (
    chi_square_p_value,
    chi_square_statistic,
    chi_square_test,
    regularized_gamma_q,
)


@pytest.mark.parametrize(
    ("statistic", "dof", "p_value"),
    [
        # 5% and 0.1% critical values from standard chi-square tables.
        (3.841458820694124, 1, 0.05),
        (10.827566170662733, 1, 0.001),
        (18.307038053275146, 10, 0.05),
        (124.342113404, 100, 0.05),
        (149.449252779, 100, 0.001),
    ],
)
def test_p_values_match_tables(statistic: float, dof: int, p_value: float) -> None:
    """Upper-tail probabilities at tabulated critical values come back to 4 significant digits."""
    assert chi_square_p_value(statistic, dof) == pytest.approx(p_value, rel=1e-3)


@pytest.mark.parametrize("statistic", [2450.0, 2601.0, 2700.0, 2800.0])
def test_large_dof_agrees_with_wilson_hilferty(statistic: float) -> None:
    """At 2601 degrees of freedom (the card-position test) the exact tail agrees with the
    Wilson-Hilferty normal approximation, which is very accurate for so many degrees."""
    k = 2601
    z = ((statistic / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    assert chi_square_p_value(statistic, k) == pytest.approx(0.5 * math.erfc(z / 2**0.5), abs=1e-3)


@pytest.mark.parametrize("x", [0.1, 1.0, 4.0, 30.0])
def test_two_degrees_of_freedom_is_exponential(x: float) -> None:
    """With 2 degrees of freedom the tail is exactly exp(-x/2), on both sides of a + 1."""
    assert chi_square_p_value(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)


def test_q_at_the_edges() -> None:
    """Q(a, 0) is 1, a statistic of 0 has p-value 1, and the median of chi2(k) is near k."""
    assert regularized_gamma_q(3.0, 0.0) == 1.0
    assert chi_square_p_value(0.0, 5) == 1.0
    assert chi_square_p_value(2600.3, 2601) == pytest.approx(0.5, abs=0.01)


def test_statistic() -> None:
    """Pearson's statistic with uniform and with given expected counts."""
    assert chi_square_statistic([10, 20, 30]) == pytest.approx(10.0)
    assert chi_square_statistic([10, 30], [20.0, 20.0]) == pytest.approx(10.0)
    result = chi_square_test([50, 50, 50, 50])
    assert (result.statistic, result.dof, result.p_value) == (0.0, 3, 1.0)


def test_bad_input() -> None:
    """One category, mismatched lengths, zero expectations and dof < 1 are refused."""
    with pytest.raises(BadRange):
        chi_square_statistic([5])
    with pytest.raises(BadRange):
        chi_square_statistic([1, 2], [1.0])
    with pytest.raises(BadRange):
        chi_square_statistic([1, 2], [0.0, 3.0])
    with pytest.raises(BadRange):
        chi_square_statistic([0, 0])
    with pytest.raises(BadRange):
        chi_square_p_value(1.0, 0)
