"""The RNG benchmark runs and reports its figures (no timing is asserted)."""

from __future__ import annotations

from tools.bench_rng import shuffle_vs_systemrandom


def test_benchmark_reports_medians_and_their_ratio() -> None:
    """One tiny run returns both medians and ours / SystemRandom."""
    figures = shuffle_vs_systemrandom(repeats=3, number=2)
    assert set(figures) == {"ours_s", "systemrandom_s", "ratio"}
    assert figures["ours_s"] > 0 and figures["systemrandom_s"] > 0
    assert figures["ratio"] == figures["ours_s"] / figures["systemrandom_s"]
