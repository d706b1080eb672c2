"""Pearson's chi-square goodness-of-fit test, in pure Python, for checking RNG uniformity.

Used by the RNG tests and by the RNG report tool. Entry point: :func:`chi_square_test`.

The p-value is the upper tail of the chi-square distribution, ``Q(dof / 2, statistic / 2)``,
the regularized upper incomplete gamma function. It is computed exactly (to double
precision) with the power series for ``P(a, x)`` when ``x < a + 1`` and with Lentz's
continued fraction for ``Q(a, x)`` otherwise (Numerical Recipes, 3rd ed., section 6.2), so
there is no approximation such as Wilson-Hilferty, and no dependency on scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from game_server.rng.errors import BadRange

_EPS: Final = 1e-15
_TINY: Final = 1e-300
_MAX_ITERATIONS: Final = 100_000


@dataclass(frozen=True, slots=True)
class ChiSquareResult:
    """The outcome of one chi-square test."""

    statistic: float
    dof: int
    p_value: float


def chi_square_statistic(observed: Sequence[int], expected: Sequence[float] | None = None) -> float:
    """Pearson's statistic ``sum((o - e)**2 / e)``.

    Args:
        observed: counts per category.
        expected: expected counts per category; ``None`` means all categories equally likely
            with the same total as ``observed``.

    Raises:
        BadRange: fewer than two categories, lengths differ, or an expected count is not
            positive.
    """
    if len(observed) < 2:
        raise BadRange(f"a chi-square test needs at least 2 categories, got {len(observed)}")
    if expected is None:
        mean = sum(observed) / len(observed)
        if mean <= 0:
            raise BadRange("a chi-square test needs some observations; all counts are 0")
        return sum((o - mean) ** 2 for o in observed) / mean
    if len(expected) != len(observed):
        raise BadRange(f"{len(observed)} observed counts but {len(expected)} expected counts")
    if min(expected) <= 0:
        raise BadRange("every expected count of a chi-square test must be above 0")
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


def chi_square_p_value(statistic: float, dof: int) -> float:
    """The probability that a chi-square variable with ``dof`` degrees of freedom exceeds
    ``statistic``: ``Q(dof / 2, statistic / 2)``.

    Raises:
        BadRange: ``dof`` is below 1.
    """
    if dof < 1:
        raise BadRange(f"degrees of freedom must be 1 or more, got {dof}")
    if statistic <= 0:
        return 1.0
    return regularized_gamma_q(dof / 2, statistic / 2)


def chi_square_test(
    observed: Sequence[int],
    expected: Sequence[float] | None = None,
    *,
    dof: int | None = None,
) -> ChiSquareResult:
    """Statistic and p-value of a goodness-of-fit test.

    Args:
        observed: counts per category.
        expected: expected counts (``None``: uniform).
        dof: degrees of freedom; ``len(observed) - 1`` unless given. For a card x position
            table of shuffles use :func:`permutation_table_test`, not this with
            ``(n - 1)**2``: the statistic of such a table is not chi-square distributed.
    """
    statistic = chi_square_statistic(observed, expected)
    freedom = len(observed) - 1 if dof is None else dof
    return ChiSquareResult(statistic, freedom, chi_square_p_value(statistic, freedom))


def permutation_table_test(counts: Sequence[int], n: int) -> ChiSquareResult:
    """The card x position test over shuffles of ``n`` items: ``counts[item * n + position]``.

    Each shuffle adds a whole permutation matrix (every row and column sum fixed), not ``n``
    independent draws: the cells' covariance is ``P / (n - 1)`` with ``P`` the projection on
    the doubly centred tables, of rank ``(n - 1)**2``. Pearson's statistic is therefore
    ``n / (n - 1)`` times a chi-square with ``(n - 1)**2`` degrees of freedom (its mean is
    ``n (n - 1)``, not ``(n - 1)**2``); the factor is undone before the p-value. Without it a
    perfect shuffle is rejected several times too often (checked by simulation).
    """
    if len(counts) != n * n:
        raise BadRange(f"a permutation table of {n} items has {n * n} cells, not {len(counts)}")
    statistic = chi_square_statistic(counts) * (n - 1) / n
    dof = (n - 1) ** 2
    return ChiSquareResult(statistic, dof, chi_square_p_value(statistic, dof))


def regularized_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``.

    Raises:
        BadRange: ``a`` is not positive or ``x`` is negative.
    """
    if a <= 0 or x < 0:
        raise BadRange(f"Q(a, x) needs a > 0 and x >= 0, got a={a}, x={x}")
    if x == 0:
        return 1.0
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        return 1.0 - _lower_series(a, x) * math.exp(log_prefactor)
    return _upper_continued_fraction(a, x) * math.exp(log_prefactor)


def _lower_series(a: float, x: float) -> float:
    """The series ``sum x**n / (a (a+1) ... (a+n))`` of ``P(a, x)`` without its prefactor."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPS:
            return total
    raise ArithmeticError(f"the gamma series did not converge for a={a}, x={x}")


def _upper_continued_fraction(a: float, x: float) -> float:
    """The continued fraction of ``Q(a, x)`` without its prefactor (modified Lentz)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < _TINY:
            d = _TINY
        c = b + an / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"the gamma continued fraction did not converge for a={a}, x={x}")
