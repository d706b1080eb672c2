"""Ultimate Texas Hold 'Em's figure of ``etg bench``: its hand evaluator against the general
ranker it replaced.

Entry point: :func:`figures` (what the game's ``bench_figures`` gives ``tools/bench.py``).

- ``uth_rank7_vs_best_of``: seven-card hands per second of the game's evaluator
  (:func:`~game_server.games.uth.rules.hands.rank7`, 653a.6) over those of the general ranker
  it replaced (:func:`game_server.rules.poker.best_of`, the best five of seven by trying all
  21), on the same seeded hands (the evaluator's tables are warmed first; it is the steady
  state of a table that has dealt for a while).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from game_server.games.api import BenchFigure, BenchSample
from game_server.games.uth.rules.hands import rank7, warm
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.poker import best_of
from shared.cards import Card

__all__ = ["EvaluatorFigure", "figures", "time_evaluators", "uth_hands", "work_rounds"]


def uth_hands(count: int, seed: int) -> list[list[Card]]:
    """``count`` seven-card hands, seven from each of a series of seeded one-deck shoes (the
    server's own DRBG with test seeds; the benchmark's input, not a deal)."""
    hands: list[list[Card]] = []
    shoe_number = 0
    while len(hands) < count:
        shoe = Shoe(1, ShoeSeed.from_test_seed(seed, "bench-uth", shoe_number))
        shoe_number += 1
        for _ in range(min(7, count - len(hands))):
            hands.append([shoe.draw() for _ in range(7)])
    return hands


def time_evaluators(hands: list[list[Card]]) -> tuple[float, float]:
    """Hands per second of ``rank7`` and of ``best_of`` on the same hands."""
    start = time.perf_counter()
    for hand in hands:
        rank7(hand)
    ours = len(hands) / (time.perf_counter() - start)
    start = time.perf_counter()
    for hand in hands:
        best_of(hand, 5)
    peer = len(hands) / (time.perf_counter() - start)
    return ours, peer


class EvaluatorFigure:
    """``uth_rank7_vs_best_of``: ``rank7``'s hands per second over ``best_of``'s."""

    name = "uth_rank7_vs_best_of"
    details_key = "uth_evaluator"
    target = ">= 10"
    work = 20_000
    quick_work = 2_000

    def prepare(self) -> None:
        """Fill the evaluator's tables, as a table that has dealt for a while has."""
        warm()

    def measure(self, work: int, repetition: int) -> BenchSample:
        """``work`` hands seeded by the repetition, through each evaluator."""
        ours, peer = time_evaluators(uth_hands(work, seed=repetition))
        return BenchSample(ours / peer, {"ours": ours, "peer": peer})

    def details(self, samples: Sequence[BenchSample], work: int) -> dict[str, Any]:
        """Both evaluators' median rates and every ratio."""
        return {
            "hands_per_sample": work,
            "rank7_hands_per_s": statistics.median(s.parts["ours"] for s in samples),
            "best_of_hands_per_s": statistics.median(s.parts["peer"] for s in samples),
            "ratios": [s.value for s in samples],
        }

    def value_text(self, value: float) -> str:
        """``31.2x``."""
        return f"{value:.1f}x"

    def against(self, details: Mapping[str, Any]) -> str:
        """Both evaluators' rates."""
        return (
            f"7-card hands: rank7 {details['rank7_hands_per_s']:,.0f}/s vs "
            f"best_of {details['best_of_hands_per_s']:,.0f}/s"
        )


def figures() -> tuple[BenchFigure, ...]:
    """Its one figure."""
    return (EvaluatorFigure(),)


def work_rounds(seed: int, rounds: int = 64) -> dict[str, Callable[[], Any]]:
    """The rounds ``etg bench work`` counts: ``uth_1_seat`` and ``uth_6_seats`` (the example
    config's full table), every seat on the game's strategy and every wager the config
    offers, each round on its own seeded deck made in advance (``rounds`` of them)."""
    from game_server.config import load_config
    from game_server.games.uth.sim import UthDriver, seeded_decks

    config = load_config(Path(__file__).resolve().parent / "configs" / "uth.toml")
    found: dict[str, Callable[[], Any]] = {}
    for name, seats in (("uth_1_seat", 1), (f"uth_{config.rules.seats}_seats", config.rules.seats)):
        decks = seeded_decks(seed, f"work-uth-{seats}")
        made = {n: decks(n) for n in range(1, rounds + 1)}
        found[name] = UthDriver(config.rules, made.__getitem__, seats, table_id="work").play_round
    return found
