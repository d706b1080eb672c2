"""The server's duration histogram (game_server.durations): bounded, and its quantiles within
the bucket's 8% of the exact ones, never below."""

from __future__ import annotations

import math
import random

import pytest

from game_server.durations import BUCKETS, GROWTH, Durations


def _exact(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(q * len(ordered)) - 1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_quantiles_are_never_below_the_exact_ones_and_at_most_8_percent_above(seed: int) -> None:
    """Over durations spread from 0.1 ms to 2 s (log-uniform, seeded), each quantile given is
    in [exact, exact x 1.08]; the largest is exact; the count and mean are exact."""
    rng = random.Random(seed)
    seconds = [10 ** rng.uniform(-4, math.log10(2)) for _ in range(5_000)]
    durations = Durations()
    for value in seconds:
        durations.add(value)
    ms = [value * 1000 for value in seconds]
    for q in (0.01, 0.5, 0.9, 0.95, 0.99, 0.999):
        given = durations.quantile(q)
        exact = _exact(ms, q)
        assert given is not None and exact <= given <= exact * GROWTH + 1e-9, (q, given, exact)
    assert durations.quantile(1.0) == pytest.approx(max(ms))
    summary = durations.summary()
    assert summary["count"] == 5_000
    assert summary["mean_us"] == math.ceil(sum(ms) / len(ms) * 1000)
    assert summary["max_us"] == math.ceil(max(ms) * 1000)
    assert all(type(v) is int for v in summary.values())  # the wire carries integers only


def test_memory_is_fixed_and_the_extremes_land_in_the_end_buckets() -> None:
    """A negative duration (a clock stepping back) counts as zero, one of an hour in the last
    bucket; the quantile never exceeds the largest seen."""
    durations = Durations()
    durations.add(-1.0)
    durations.add(3600.0)
    assert len(durations._counts) == BUCKETS
    assert durations.quantile(0.5) == pytest.approx(0.05)
    assert durations.quantile(1.0) == 3_600_000.0


def test_nothing_counted_gives_no_figures_and_a_bad_quantile_is_refused() -> None:
    durations = Durations()
    assert durations.summary() == {
        "count": 0,
        "mean_us": None,
        "p50_us": None,
        "p95_us": None,
        "p99_us": None,
        "max_us": None,
    }
    with pytest.raises(ValueError, match="a quantile is in"):
        durations.quantile(0)
