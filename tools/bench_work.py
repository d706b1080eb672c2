"""``etg bench work``: the work of a round counted, not timed: the guard CI runs on every change.

A timed test flakes on a busy machine; a count does not. :func:`measure` plays a fixed, seeded
set of rounds of every game that offers some (:meth:`Game.work_rounds
<game_server.games.api.Game.work_rounds>`: Blackjack at one seat and at seven, Ultimate Texas
Hold 'Em at one and at six, through the drivers ``etg bench`` and ``etg sim`` use) and counts,
per round:

- ``calls``: every function call, Python and built-in (``sys.setprofile`` ``call`` and
  ``c_call`` events);
- ``lines``: every line of Python executed (``sys.settrace`` ``line`` events), which also
  counts a loop that calls nothing.

The shoes and decks are made (shuffled) before counting starts, so the counts are those of
the engine and its driver; the shuffle has a case of its own (``shuffle_6_decks``). The counts
are deterministic for a given Python minor version: the seeds are fixed and nothing in a round
depends on the clock.

:data:`BUDGET_PATH` (``tests/bench_budget.json``) records each case's counts when the budget was
last set and its budget: the counts plus :data:`HEADROOM`. ``tests/test_bench_work.py`` fails
when a count exceeds its budget (a change that doubles the work of a round cannot pass) and
proves the guard trips on an injected loop. ``etg bench work --record`` rewrites the budget
after a change that is meant to cost more, or saves enough to tighten it.

Entry points: :func:`measure`, :func:`check`, :func:`record`, :func:`cases`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Final

#: Where the budget is recorded.
BUDGET_PATH: Final = Path(__file__).resolve().parents[1] / "tests" / "bench_budget.json"
#: A budget is the recorded count times this (25% headroom).
HEADROOM: Final = 1.25
#: Rounds counted per case (after one round that warms the engine's caches).
ROUNDS: Final = 40
#: The fixed seed of every case.
SEED: Final = 22
#: What is counted.
MEASURES: Final = ("calls", "lines")


@dataclasses.dataclass
class Counter:
    """The profile and trace hooks, counting calls and lines."""

    calls: int = 0
    lines: int = 0

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" or event == "c_call":
            self.calls += 1

    def trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines += 1
        return self.trace


@contextmanager
def counting() -> Iterator[Counter]:
    """Count the calls and lines run inside the block (the previous hooks are put back)."""
    counter = Counter()
    old_profile, old_trace = sys.getprofile(), sys.gettrace()
    sys.setprofile(counter.profile)
    sys.settrace(counter.trace)
    try:
        yield counter
    finally:
        sys.settrace(old_trace)
        sys.setprofile(old_profile)


def _count_rounds(play: Callable[[], Any], rounds: int) -> dict[str, int]:
    play()  # warms what a table warms once (strategy tables, caches)
    with counting() as counter:
        for _ in range(rounds):
            play()
    return {"calls": counter.calls // rounds, "lines": counter.lines // rounds}


def _shuffle() -> dict[str, int]:
    from game_server.rng.shoe import Shoe, ShoeSeed

    Shoe(6, ShoeSeed.from_test_seed(SEED, "work", 0))
    with counting() as counter:
        Shoe(6, ShoeSeed.from_test_seed(SEED, "work", 1))
    return {"calls": counter.calls, "lines": counter.lines}


def cases() -> dict[str, Callable[[], dict[str, int]]]:
    """Each case by name: what measures it (counts per round, or per shuffle). The rounds
    come from every registered game (:meth:`Game.work_rounds
    <game_server.games.api.Game.work_rounds>`), the shuffle from the platform."""
    from game_server import games

    found: dict[str, Callable[[], dict[str, int]]] = {}
    for game in games.games():
        for name, play in game.work_rounds(SEED).items():
            found[name] = functools.partial(_count_rounds, play, ROUNDS)
    found["shuffle_6_decks"] = _shuffle
    return found


def measure(names: list[str] | None = None) -> dict[str, dict[str, int]]:
    """The counts of every case (or of ``names``): ``{case: {"calls": n, "lines": n}}``."""
    found = cases()
    return {name: found[name]() for name in (names or list(found))}


def python_version() -> str:
    """The Python the counts hold for (``3.11``): another minor version counts differently."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def load_budget(path: Path = BUDGET_PATH) -> dict[str, Any]:
    """The recorded budget (see :func:`record` for its shape)."""
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def over_budget(counts: Mapping[str, Mapping[str, int]], budget: Mapping[str, Any]) -> list[str]:
    """A sentence for every count above its budget (empty: within budget)."""
    found = []
    for name, measured in counts.items():
        limits = budget["cases"][name]["budget"]
        for what in MEASURES:
            if measured[what] > limits[what]:
                found.append(
                    f"{name}: {measured[what]:,} {what} per round, over its budget of "
                    f"{limits[what]:,} (recorded {budget['cases'][name]['recorded'][what]:,})"
                )
    return found


def check(names: list[str] | None = None, path: Path = BUDGET_PATH) -> list[str]:
    """Measure and compare with the recorded budget: the sentences of :func:`over_budget`."""
    return over_budget(measure(names), load_budget(path))


def record(path: Path = BUDGET_PATH) -> dict[str, Any]:
    """Measure every case and write the budget: the counts and the counts times
    :data:`HEADROOM`, with the Python version they hold for."""
    counts = measure()
    data = {
        "python": python_version(),
        "headroom": HEADROOM,
        "rounds": ROUNDS,
        "seed": SEED,
        "cases": {
            name: {
                "recorded": measured,
                "budget": {what: math.ceil(n * HEADROOM) for what, n in measured.items()},
            }
            for name, measured in counts.items()
        },
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return data
