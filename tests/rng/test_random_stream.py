"""RandomStream: uniform integers from DRBG output by rejection sampling."""

from __future__ import annotations

import pytest

from game_server.rng.drbg import BLOCK_BYTES, HmacDrbg, RandomStream
from game_server.rng.errors import BadRange
from game_server.rng.shoe import ShoeSeed
from game_server.rng.stats import chi_square_test

P_THRESHOLD = 0.001


class ScriptedDrbg:
    """A fake DRBG: serves scripted bytes (then zeros) and records each request size."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.requests: list[int] = []

    def generate(self, n_bytes: int, additional_input: bytes = b"") -> bytes:
        self.requests.append(n_bytes)
        out, self.data = self.data[:n_bytes], self.data[n_bytes:]
        return out.ljust(n_bytes, b"\x00")


def seeded_stream(seed: int = 1) -> RandomStream:
    seed_material = ShoeSeed.from_test_seed(seed, "stream-test", 0)
    return RandomStream(
        HmacDrbg(seed_material.entropy_input, seed_material.nonce, seed_material.personalization)
    )


def test_rejects_instead_of_reducing_modulo() -> None:
    """For n=3 a 2-bit draw of 3 is rejected and the next draw is used (no modulo bias)."""
    # 0xFF -> top 2 bits 0b11 = 3: rejected (3 mod 3 would have given 0); 0x80 -> 0b10 = 2.
    stream = RandomStream(ScriptedDrbg(bytes([0xFF, 0xC0, 0x80])))
    assert stream.randbelow(3) == 2


def test_uses_the_fewest_bits() -> None:
    """n=4 takes 2 bits, n=5 three, n=256 eight (one byte), n=257 nine (two bytes)."""
    stream = RandomStream(ScriptedDrbg(bytes([0xC0, 0x80, 0xAB, 0x80, 0x00, 0x7F])))
    assert stream.randbelow(4) == 3  # 0b11......
    assert stream.randbelow(5) == 4  # 0b100.....
    assert stream.randbelow(256) == 0xAB
    assert stream.randbelow(257) == 256  # 0x8000 -> top 9 bits 0b100000000
    assert stream.randbits(8) == 0x7F  # the 9-bit draw used exactly two bytes


def test_rejected_nine_bit_draw_reads_two_more_bytes() -> None:
    """A rejected 9-bit draw consumes its two bytes; the next try reads the next two."""
    stream = RandomStream(ScriptedDrbg(bytes([0xFF, 0x80, 0x00, 0x80, 0x55])))
    assert stream.randbelow(257) == 1  # 0xFF80 >> 7 = 511 rejected; 0x0080 >> 7 = 1
    assert stream.randbits(8) == 0x55


def test_randbits() -> None:
    """randbits(k) is the top k bits of the next ceil(k/8) bytes, big-endian."""
    stream = RandomStream(ScriptedDrbg(bytes([0xAB, 0xCD, 0xEF, 0x12, 0x34])))
    assert stream.randbits(0) == 0
    assert stream.randbits(12) == 0xABC
    assert stream.randbits(8) == 0xEF
    assert stream.randbits(16) == 0x1234


def test_randbelow_one_reads_nothing() -> None:
    """randbelow(1) is 0 without asking the DRBG for anything."""
    drbg = ScriptedDrbg(b"")
    stream = RandomStream(drbg)
    assert [stream.randbelow(1) for _ in range(10)] == [0] * 10
    assert drbg.requests == []


@pytest.mark.parametrize("n", [0, -1, -(2**70)])
def test_randbelow_refuses_n_below_one(n: int) -> None:
    """There is no integer below 0 or below a negative bound."""
    with pytest.raises(BadRange, match="randbelow needs n of 1 or more"):
        seeded_stream().randbelow(n)


def test_randbits_refuses_negative_counts() -> None:
    """A negative bit count is an error, not 0."""
    with pytest.raises(BadRange):
        seeded_stream().randbits(-1)


def test_asks_the_drbg_in_fixed_blocks() -> None:
    """Every DRBG request is exactly BLOCK_BYTES, and a read straddling two blocks joins them."""
    drbg = ScriptedDrbg(bytes(BLOCK_BYTES - 1) + bytes([0x12, 0x34]))
    stream = RandomStream(drbg)
    assert stream.randbits(8 * (BLOCK_BYTES - 1)) == 0
    assert stream.randbits(16) == 0x1234  # one byte from each block
    assert drbg.requests == [BLOCK_BYTES, BLOCK_BYTES]


def test_large_ranges_stay_in_range() -> None:
    """Bounds needing 3 or more bytes (and more than a block) give values below the bound."""
    stream = seeded_stream()
    for n in (2**16 + 1, 10**9 + 7, 2**64 - 59, 2 ** (8 * BLOCK_BYTES + 3) + 1):
        for _ in range(20):
            assert 0 <= stream.randbelow(n) < n


def test_same_seed_same_outputs() -> None:
    """Two streams over DRBGs instantiated with the same seed give the same integers."""
    a, b = seeded_stream(7), seeded_stream(7)
    draws = [(416, 3), (52, 17), (2**20, 1000)]
    assert [a.randbelow(n) for n, k in draws for _ in range(k)] == [
        b.randbelow(n) for n, k in draws for _ in range(k)
    ]
    assert seeded_stream(8).randbits(256) != seeded_stream(7).randbits(256)


def test_randbelow_three_is_uniform() -> None:
    """60,000 draws of randbelow(3) from a fixed seed fit the uniform distribution."""
    stream = seeded_stream(3)
    counts = [0, 0, 0]
    for _ in range(60_000):
        counts[stream.randbelow(3)] += 1
    assert chi_square_test(counts).p_value > P_THRESHOLD


def test_randbelow_with_heavy_rejection_is_uniform() -> None:
    """n = 2**k + 1 rejects almost half the draws and still fits uniform (17 categories)."""
    stream = seeded_stream(4)
    counts = [0] * 17
    for _ in range(34_000):
        counts[stream.randbelow(17)] += 1
    assert chi_square_test(counts).p_value > P_THRESHOLD
