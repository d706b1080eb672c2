"""``etg bench``: figures for every game's engine and for the shuffle, against their peers.

Entry point: :func:`run_bench`. It prints figures and asserts nothing (docs/design.md "Tests":
benchmarks are not timed tests). Everything is measured in ONE run: the measurements are
interleaved, repeated ``repeats`` times, and each figure is a median; a ratio is the median
of the ratios of the two peers measured back to back in the same repetition.

Each registered game gives its own figures (:meth:`Game.bench_figures
<game_server.games.api.Game.bench_figures>`: each game's ``bench.py`` says what it measures
and against which peer); the platform adds one:

- ``shuffle_vs_systemrandom``: from :func:`tools.bench_rng.shuffle_vs_systemrandom` (seconds
  per 8-deck certified shoe over seconds per ``SystemRandom().shuffle``).

``etg bench --record`` appends the figures to ``docs/bench-history.jsonl`` with the commit
measured (:func:`record_history`), so that a regression shows against the figures before it.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from game_server import games
from game_server.games.api import BenchFigure, BenchSample

__all__ = [
    "HISTORY_PATH",
    "BenchSizes",
    "ShuffleFigure",
    "bench_figures",
    "format_bench",
    "record_history",
    "run_bench",
]

#: The repository's root.
ROOT: Final = Path(__file__).resolve().parents[1]
#: The benchmark history: one JSON line per ``etg bench --record`` run, with its commit.
HISTORY_PATH: Final = ROOT / "docs" / "bench-history.jsonl"


@dataclass(frozen=True)
class BenchSizes:
    """How much work one repetition of each figure does.

    Attributes:
        work: Work per sample by figure name (rounds, hands, shuffles); a figure not named
            here does its own default (:attr:`BenchFigure.work`, or
            :attr:`BenchFigure.quick_work` when :attr:`quick`).
        quick: About a tenth of the default work.
    """

    work: Mapping[str, int] = field(default_factory=dict)
    quick: bool = False

    def work_for(self, figure: BenchFigure) -> int:
        """The work per sample of ``figure``."""
        default = figure.quick_work if self.quick else figure.work
        return self.work.get(figure.name, default)


class ShuffleFigure:
    """``shuffle_vs_systemrandom``: seconds per 8-deck certified shoe over seconds per
    ``SystemRandom().shuffle`` of as many cards."""

    name = "shuffle_vs_systemrandom"
    details_key = "shuffle"
    target = "<= 2.0"
    work = 20
    quick_work = 5

    def prepare(self) -> None:
        """Nothing to ready."""

    def measure(self, work: int, repetition: int) -> BenchSample:
        """``work`` shuffles each side (:func:`tools.bench_rng.shuffle_vs_systemrandom`)."""
        from tools.bench_rng import shuffle_vs_systemrandom

        shuffle = shuffle_vs_systemrandom(repeats=1, number=work)
        return BenchSample(
            shuffle["ratio"], {"ours": shuffle["ours_s"], "peer": shuffle["systemrandom_s"]}
        )

    def details(self, samples: Sequence[BenchSample], work: int) -> dict[str, Any]:
        """Both sides' median seconds per shuffle and every ratio."""
        return {
            "decks": 8,
            "shuffles_per_sample": work,
            "ours_s": statistics.median(s.parts["ours"] for s in samples),
            "systemrandom_s": statistics.median(s.parts["peer"] for s in samples),
            "ratios": [s.value for s in samples],
        }

    def value_text(self, value: float) -> str:
        """``1.10x``."""
        return f"{value:.2f}x"

    def against(self, details: Mapping[str, Any]) -> str:
        """Both sides' times."""
        return (
            f"8-deck shoe {1e3 * details['ours_s']:.3f} ms vs SystemRandom "
            f"{1e3 * details['systemrandom_s']:.3f} ms"
        )


def bench_figures() -> list[BenchFigure]:
    """Every registered game's figures, in the registry's order, then the shuffle's."""
    found: list[BenchFigure] = []
    for game in games.games():
        found.extend(game.bench_figures())
    found.append(ShuffleFigure())
    return found


def run_bench(
    sizes: BenchSizes | None = None,
    *,
    repeats: int = 7,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measure every figure, interleaved, ``repeats`` times; report medians.

    Args:
        sizes: Work per sample; each figure's default if None.
        repeats: Repetitions of every measurement.
        progress: Told a short line after each repetition.

    Returns:
        ``{figure name: median, ..., "details": {details key: {...}, "repeats": ...}}``
        (``engine_vs_blackjack21``, ``shuffle_vs_systemrandom``, ...).
    """
    sizes = BenchSizes() if sizes is None else sizes
    figures = bench_figures()
    for figure in figures:
        figure.prepare()
    samples: dict[str, list[BenchSample]] = {figure.name: [] for figure in figures}
    for rep in range(repeats):
        for figure in figures:
            samples[figure.name].append(figure.measure(sizes.work_for(figure), rep))
        if progress is not None:
            done = ", ".join(
                f"{figure.name} {figure.value_text(samples[figure.name][-1].value)}"
                for figure in figures
            )
            progress(f"repetition {rep + 1}/{repeats}: {done}")

    result: dict[str, Any] = {}
    details: dict[str, Any] = {
        "repeats": repeats,
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "machine": platform.machine(),
    }
    for figure in figures:
        taken = samples[figure.name]
        result[figure.name] = statistics.median(s.value for s in taken)
        details[figure.details_key] = figure.details(taken, sizes.work_for(figure))
    result["details"] = details
    return result


def record_history(
    figures: Mapping[str, Any], *, quick: bool = False, path: Path = HISTORY_PATH
) -> Path:
    """Append one line to the benchmark history (:data:`HISTORY_PATH`): the UTC time, the
    commit measured (and whether the tree had uncommitted changes), whether it was a quick
    run, and the figures with their details. Returns the file written."""
    from tools.version import build_commit

    commit = build_commit()
    line = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit.hash,
        "modified": commit.modified,
        "quick": quick,
        "figures": {k: v for k, v in figures.items() if k != "details"},
        "details": figures.get("details", {}),
    }
    with path.open("a", encoding="utf-8") as history:
        history.write(json.dumps(line, sort_keys=True) + "\n")
    return path


def format_bench(figures: Mapping[str, Any]) -> str:
    """A small table of the figures, their targets and the peers' own numbers."""
    details = figures["details"]
    rows = [("Figure", "Value", "Target", "Measured against")]
    for figure in bench_figures():
        if figure.name in figures:
            rows.append(
                (
                    figure.name,
                    figure.value_text(figures[figure.name]),
                    figure.target,
                    figure.against(details[figure.details_key]),
                )
            )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.append(
        f"(medians of {details['repeats']} interleaved repetitions; {details['python']}, one core)"
    )
    return "\n".join(lines)
