"""Benchmark of the certified shuffle against the standard library's ``SystemRandom``.

Entry point: :func:`shuffle_vs_systemrandom`, which ``etg bench`` reports; run this module
to print its figures as JSON (``python -m tools.bench_rng``). The target is a ratio of at
most 2.0: an 8-deck DRBG shoe costs no more than twice ``SystemRandom().shuffle``.
"""

from __future__ import annotations

import json
import secrets
import statistics
import time

from game_server.rng import Shoe, ShoeSeed
from shared.cards import standard_deck

DECKS = 8


def shuffle_vs_systemrandom(repeats: int = 31, number: int = 20) -> dict[str, float]:
    """Median seconds per 8-deck (416-card) shuffle: ours against ``SystemRandom``.

    Ours is a fresh :class:`~game_server.rng.Shoe` from a seed, which includes the
    HMAC_DRBG instantiation and the Fisher-Yates shuffle. The peer is
    ``secrets.SystemRandom().shuffle`` on a 416-item list (one ``os.urandom`` call per
    draw). The two are timed interleaved in the same run, alternating which goes first,
    ``number`` shuffles per sample, ``repeats`` samples each.

    Returns:
        ``{"ours_s": median, "systemrandom_s": median, "ratio": ours / systemrandom}``.
    """
    seeds = [ShoeSeed.from_test_seed(i, "bench", i) for i in range(number)]
    cards = list(standard_deck()) * DECKS
    system_random = secrets.SystemRandom()
    clock = time.perf_counter

    def ours() -> float:
        start = clock()
        for seed in seeds:
            Shoe(DECKS, seed)
        return (clock() - start) / number

    def peer() -> float:
        start = clock()
        for _ in range(number):
            system_random.shuffle(cards)
        return (clock() - start) / number

    ours_times: list[float] = []
    peer_times: list[float] = []
    for i in range(repeats):
        if i % 2:
            peer_times.append(peer())
            ours_times.append(ours())
        else:
            ours_times.append(ours())
            peer_times.append(peer())
    ours_s = statistics.median(ours_times)
    peer_s = statistics.median(peer_times)
    return {"ours_s": ours_s, "systemrandom_s": peer_s, "ratio": ours_s / peer_s}


if __name__ == "__main__":
    print(json.dumps(shuffle_vs_systemrandom(), indent=2))
