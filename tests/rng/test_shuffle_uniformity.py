"""Statistical checks that the certified shuffle is uniform (fixed seeds, deterministic).

Each test compares counts with the uniform distribution by Pearson's chi-square test and
asks for a p-value above 0.001. The seeds are fixed, so the outcome never changes from run
to run; a biased shuffle (modulo reduction, an off-by-one in Fisher-Yates) fails these by a
wide margin.
"""

from __future__ import annotations

import itertools

import pytest

from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.shoe import Shoe, ShoeSeed, fisher_yates
from game_server.rng.stats import chi_square_test, permutation_table_test

P_THRESHOLD = 0.001


@pytest.mark.slow
def test_card_positions_are_uniform_over_100000_shoes() -> None:
    """Over 100,000 one-deck shoes, each from its own seed, every card is equally likely at
    every position: chi-square over the 52 x 52 table of counts (permutation_table_test:
    (52-1)**2 degrees of freedom after the 51/52 correction), and each card's row alone.
    """
    shoes = 100_000
    counts = [0] * (52 * 52)
    for i in range(shoes):
        order = Shoe(1, ShoeSeed.from_test_seed(i, "uniformity", 1)).order
        for position, dealt in enumerate(order):
            counts[dealt * 52 + position] += 1
    result = permutation_table_test(counts, 52)
    assert result.p_value > P_THRESHOLD, result
    # And each card on its own, with a Bonferroni correction for the 52 tests.
    for card in range(52):
        row = counts[card * 52 : card * 52 + 52]
        assert chi_square_test(row).p_value > P_THRESHOLD / 52, (card, row)


@pytest.mark.slow
def test_all_120_orders_of_five_cards_are_equally_likely() -> None:
    """120,000 Fisher-Yates shuffles of 5 items from one stream hit each of the 120 orders
    about 1,000 times (chi-square, 119 degrees of freedom)."""
    seed = ShoeSeed.from_test_seed(120, "permutations", 0)
    stream = RandomStream(HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization))
    index = {order: i for i, order in enumerate(itertools.permutations(range(5)))}
    counts = [0] * 120
    for _ in range(120_000):
        items = list(range(5))
        fisher_yates(items, stream)
        counts[index[tuple(items)]] += 1
    result = chi_square_test(counts)
    assert result.p_value > P_THRESHOLD, result


def test_a_biased_shuffle_fails_the_same_check() -> None:
    """The check can fail: the classic naive shuffle (j drawn from all n positions) is
    biased on 3 items and the chi-square test rejects it."""
    seed = ShoeSeed.from_test_seed(3, "naive", 0)
    stream = RandomStream(HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization))
    index = {order: i for i, order in enumerate(itertools.permutations(range(3)))}
    counts = [0] * 6
    for _ in range(60_000):
        items = [0, 1, 2]
        for i in range(3):
            j = stream.randbelow(3)
            items[i], items[j] = items[j], items[i]
        counts[index[tuple(items)]] += 1
    assert chi_square_test(counts).p_value < P_THRESHOLD
