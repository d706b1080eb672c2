"""The entropy source's health tests (NIST SP 800-90B 4.3 start-up, 4.4.1 RCT, 4.4.2 APT)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

from game_server.rng.entropy import (
    APT_WINDOW,
    STARTUP_SAMPLES,
    EntropySource,
    adaptive_proportion_cutoff,
    repetition_count_cutoff,
)
from game_server.rng.errors import BadRange, EntropyHealthError


class ScriptedReader:
    """A raw reader that serves bytes from an iterator and records each request."""

    def __init__(self, samples: Iterator[int]) -> None:
        self.samples = samples
        self.requests: list[int] = []

    def __call__(self, n: int) -> bytes:
        self.requests.append(n)
        return bytes(next(self.samples) for _ in range(n))


def healthy_then(tail: list[int]) -> ScriptedReader:
    """A reader that passes start-up with a non-repeating pattern, then serves ``tail``."""
    start = (i % 256 for i in range(STARTUP_SAMPLES))
    return ScriptedReader(iter([*start, *tail]))


def test_cutoffs_match_sp800_90b() -> None:
    """The cutoffs are SP 800-90B's: RCT 1 + ceil(20/H); APT from its Table 2 (alpha 2**-20)."""
    assert repetition_count_cutoff(8.0, 20) == 4
    assert repetition_count_cutoff(2.0, 20) == 11
    assert adaptive_proportion_cutoff(8.0, 20, 512) == 13
    assert adaptive_proportion_cutoff(4.0, 20, 512) == 62
    assert adaptive_proportion_cutoff(1.0, 20, 1024) == 589
    source = EntropySource()
    assert (source.rct_cutoff, source.apt_cutoff) == (6, 19)  # the defaults: H=8, alpha=2**-40


def test_stuck_source_fails() -> None:
    """A source stuck on one byte value fails the repetition count test at start-up."""
    source = EntropySource(lambda n: bytes(n))
    with pytest.raises(EntropyHealthError, match="repetition count test failed"):
        source.get_entropy(32)
    assert source.failed


def test_failure_is_sticky() -> None:
    """After a failure every later request is refused, even if the reader recovers."""
    reads = iter([bytes(STARTUP_SAMPLES), os.urandom(STARTUP_SAMPLES + 32)])
    source = EntropySource(lambda n: next(reads)[:n])
    with pytest.raises(EntropyHealthError):
        source.get_entropy(32)
    with pytest.raises(EntropyHealthError, match="out of service"):
        source.get_entropy(32)


def test_repetition_count_boundary() -> None:
    """Five equal bytes in a row pass; the sixth (the cutoff) fails (SP 800-90B 4.4.1)."""
    reader = healthy_then([7, 7, 7, 7, 7, 1, 7, 7, 7, 7, 7, 7])
    source = EntropySource(reader)
    assert source.get_entropy(6) == bytes([7, 7, 7, 7, 7, 1])
    with pytest.raises(EntropyHealthError, match="0x07 came 6 times in a row"):
        source.get_entropy(6)


def test_repetition_count_spans_calls() -> None:
    """The test runs on the stream of samples, not per call: a run split over calls fails."""
    source = EntropySource(healthy_then([9] * 6))
    assert source.get_entropy(3) == bytes([9, 9, 9])
    with pytest.raises(EntropyHealthError, match="repetition count"):
        source.get_entropy(3)


def test_adaptive_proportion_fails_on_a_biased_source() -> None:
    """A source that repeats one value too often, though never 6 in a row, fails the APT."""
    biased = [0x55, 0x55, 0x55, 1, 2, 3] * 200
    source = EntropySource(healthy_then(biased))
    with pytest.raises(EntropyHealthError, match="adaptive proportion test failed"):
        source.get_entropy(len(biased))


def test_adaptive_proportion_allows_the_cutoff_minus_one() -> None:
    """18 copies of the window's first value in a window of 512 pass; 19 fail (4.4.2)."""

    def window(copies: int) -> list[int]:
        """512 samples starting with 0xAA, holding ``copies`` of it, never two in a row."""
        filler = itertools.cycle([v for v in range(256) if v != 0xAA])
        samples: list[int] = []
        for _ in range(copies):
            samples += [0xAA, next(filler)]
        return samples + [next(filler) for _ in range(APT_WINDOW - len(samples))]

    passing = window(18)
    assert len(passing) == APT_WINDOW
    assert passing.count(0xAA) == 18
    EntropySource(healthy_then(passing)).get_entropy(APT_WINDOW)
    failing = window(19)
    assert failing.count(0xAA) == 19
    with pytest.raises(EntropyHealthError, match="19 times in a window of 512"):
        EntropySource(healthy_then(failing)).get_entropy(APT_WINDOW)


def test_start_up_test_reads_1024_samples_first() -> None:
    """The first request reads 1024 samples for the start-up test (4.3), then the request."""
    reader = ScriptedReader(iter(os.urandom(STARTUP_SAMPLES + 64)))
    source = EntropySource(reader)
    source.get_entropy(32)
    source.get_entropy(16)
    assert reader.requests == [STARTUP_SAMPLES, 32, 16]


def test_os_urandom_passes() -> None:
    """The real OS source passes the health tests over a megabyte."""
    source = EntropySource()
    for _ in range(256):
        assert len(source.get_entropy(4096)) == 4096
    assert not source.failed


def test_short_read_fails() -> None:
    """A reader that returns fewer bytes than asked is a failed source."""
    source = EntropySource(lambda n: os.urandom(n - 1))
    with pytest.raises(EntropyHealthError, match="returned 1023 bytes when asked for 1024"):
        source.get_entropy(32)


def test_bad_arguments() -> None:
    """Zero bytes, a min-entropy above 8 and an alpha outside 2**-40..2**-20 are refused."""
    with pytest.raises(BadRange):
        EntropySource().get_entropy(0)
    with pytest.raises(BadRange):
        EntropySource(min_entropy=9)
    with pytest.raises(BadRange):
        EntropySource(alpha_exponent=10)
