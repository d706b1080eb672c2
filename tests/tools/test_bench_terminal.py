"""``etg bench terminal`` (tools.bench_terminal): the figures' shape, from a tiny run.

Benchmarks are not timed tests (docs/design.md "Tests"): nothing here checks a timing."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

pygame = pytest.importorskip("pygame")

from tools import bench_terminal as bench  # noqa: E402
from tools.cli import main  # noqa: E402


@pytest.fixture(autouse=True)
def headless(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(os.environ, "SDL_VIDEODRIVER", "dummy")
    monkeypatch.setitem(os.environ, "SDL_AUDIODRIVER", "dummy")
    yield
    pygame.display.quit()


def test_round_views_run_from_betting_to_results() -> None:
    """The scripted round is the real server's views of a seven-seat table: betting first,
    the deal with the hole card hidden, and the results with it turned up."""
    views = bench.round_views()
    assert views[0]["phase"] == "betting" and not views[0]["dealer"]["cards"]
    assert all(not hand["cards"] for seat in views[0]["seats"] for hand in seat["hands"])
    dealt = views[1]
    assert len(dealt["seats"]) == 7 and dealt["dealer"]["cards"][1] == {"hidden": True}
    assert views[-1]["phase"] == "complete" and views[-1]["dealer"]["hole_revealed"]


def test_a_tiny_bench_gives_every_figure() -> None:
    """One repetition of each measurement gives every figure, the table and JSON."""
    figures = bench.bench_terminal(bench.TerminalBenchSizes.tiny())
    assert figures["size"] == "1920x1080"
    assert set(figures["frame_ms"]) == {"p50", "p95", "max"}
    assert figures["frames_moving"] > 0
    for name in (
        "blit_ms",
        "frame_vs_blit",
        "idle_cpu_percent",
        "idle_draws_per_s",
        "redraw_cpu_percent",
        "idle_vs_redraw",
        "start_ms",
        "pygame_start_ms",
        "start_vs_pygame",
    ):
        assert isinstance(figures[name], float), name
    assert len(figures["runs"]) == 1
    table = bench.format_bench_terminal(figures)
    assert "frame p95 ms" in table and "start to attract ms" in table
    json.dumps(figures)


def test_the_cli_prints_the_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """``etg bench terminal --json`` prints what bench_terminal returns."""
    seen: list[Any] = []

    def fake(sizes: Any, progress: Any = None) -> dict[str, Any]:
        seen.append(sizes)
        return {"frame_ms": {"p50": 1.0}}

    monkeypatch.setattr(bench, "bench_terminal", fake)
    result = CliRunner().invoke(main, ["bench", "terminal", "--json", "--quick"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"frame_ms": {"p50": 1.0}}
    assert seen == [bench.TerminalBenchSizes.quick()]
