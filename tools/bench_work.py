"""``etg bench work``: the work of a round counted, not timed: the guard CI runs on every change.

A timed test flakes on a busy machine; a count does not. :func:`measure` plays a fixed, seeded
set of rounds through each game's simulation driver (the same drivers ``etg bench`` and
``etg sim`` use) and counts, per round:

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

Entry points: :func:`measure`, :func:`check`, :func:`record`, :data:`CASES`.
"""

from __future__ import annotations

import dataclasses
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
#: The Ultimate Texas Hold 'Em table counted: the game's example Rules Submission.
UTH_CONFIG: Final = "game_server/games/uth/configs/uth.toml"
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


def _premade(shoes: Callable[[int], Any], count: int) -> Callable[[int], Any]:
    """Shoes ``0..count-1`` of ``shoes`` made now, handed out by number (no shuffle counted)."""
    made = {n: shoes(n) for n in range(count)}
    return made.__getitem__


def _blackjack(seats: int) -> Callable[[], Any]:
    from game_server.config import example_config_path, load_config
    from game_server.games.blackjack import bench
    from game_server.games.blackjack.sim import TableDriver
    from game_server.sim import seeded_shoes

    config = load_config(example_config_path())
    cut = bench._cut_card(config)
    if seats == 1:
        rules = bench._one_seat_rules(config)
        shoes = seeded_shoes(bench.DECKS, cut, SEED, "work-1")
        driver = TableDriver(rules, _premade(shoes, 4), 1, bench.HitBelow17(), side_wagers=False)
    else:
        rules = bench._full_seat_rules(config)
        shoes = seeded_shoes(bench.DECKS, cut, SEED, "work-7")
        driver = TableDriver(rules, _premade(shoes, 16), seats)
    return driver.play_round


def _uth(seats: int) -> Callable[[], Any]:
    from game_server.config import load_config
    from game_server.games.uth.sim import UthDriver, seeded_decks

    config = load_config(Path(__file__).resolve().parents[1] / UTH_CONFIG)
    decks = _premade(seeded_decks(SEED, f"work-uth-{seats}"), ROUNDS + 2)
    driver = UthDriver(config.rules, decks, seats, table_id="work")
    return driver.play_round


def _shuffle() -> dict[str, int]:
    from game_server.rng.shoe import Shoe, ShoeSeed

    Shoe(6, ShoeSeed.from_test_seed(SEED, "work", 0))
    with counting() as counter:
        Shoe(6, ShoeSeed.from_test_seed(SEED, "work", 1))
    return {"calls": counter.calls, "lines": counter.lines}


#: Each case: its name and what measures it (counts per round, or per shuffle).
CASES: Final[Mapping[str, Callable[[], dict[str, int]]]] = {
    "blackjack_1_seat": lambda: _count_rounds(_blackjack(1), ROUNDS),
    "blackjack_7_seats": lambda: _count_rounds(_blackjack(7), ROUNDS),
    "uth_1_seat": lambda: _count_rounds(_uth(1), ROUNDS),
    "uth_6_seats": lambda: _count_rounds(_uth(6), ROUNDS),
    "shuffle_6_decks": _shuffle,
}


def measure(names: list[str] | None = None) -> dict[str, dict[str, int]]:
    """The counts of every case (or of ``names``): ``{case: {"calls": n, "lines": n}}``."""
    return {name: CASES[name]() for name in (names or list(CASES))}


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
