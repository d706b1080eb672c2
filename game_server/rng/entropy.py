"""The entropy source that seeds every shoe, with continuous health tests (NIST SP 800-90B).

Entry point: :class:`EntropySource`, whose :meth:`~EntropySource.get_entropy` returns bytes
for the DRBG's entropy input and nonce. The raw reader is ``os.urandom`` (getrandom on
Linux) unless a test injects another ``read(n) -> bytes``.

Every byte read is one 8-bit sample and passes through the two health tests of SP 800-90B
section 4.4: the Repetition Count Test (4.4.1) and the Adaptive Proportion Test (4.4.2). The
first call also runs the start-up test of 4.3 over 1024 samples that are then discarded. A
failure raises :class:`~game_server.rng.errors.EntropyHealthError` and the source stays
failed: every later call raises too, so the table goes out of service and stays there until
an operator restarts it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Final

from game_server.rng.errors import BadRange, EntropyHealthError

#: Claimed min-entropy per 8-bit sample. The kernel's getrandom output is conditioned full
#: entropy, so 8 bits per byte.
DEFAULT_MIN_ENTROPY_PER_SAMPLE: Final = 8.0
#: False-positive probability of each health test, -log2(alpha). SP 800-90B 4.4 recommends
#: 2**-40 <= alpha <= 2**-20; we take 2**-40 so that a healthy source practically never
#: takes a table out of service.
DEFAULT_ALPHA_EXPONENT: Final = 40
#: Adaptive Proportion Test window for non-binary samples (SP 800-90B 4.4.2).
APT_WINDOW: Final = 512
#: Samples tested (and discarded) at start-up (SP 800-90B 4.3, item 1: at least 1024).
STARTUP_SAMPLES: Final = 1024


def repetition_count_cutoff(min_entropy: float, alpha_exponent: int) -> int:
    """Cutoff ``C = 1 + ceil(-log2(alpha) / H)`` of the Repetition Count Test (90B 4.4.1)."""
    return 1 + math.ceil(alpha_exponent / min_entropy)


def adaptive_proportion_cutoff(min_entropy: float, alpha_exponent: int, window: int) -> int:
    """Cutoff ``C = 1 + CRITBINOM(W, 2**-H, 1 - alpha)`` of the Adaptive Proportion Test.

    CRITBINOM is the smallest ``k`` with ``P(X <= k) >= 1 - alpha`` for ``X ~ B(W, p)``
    (SP 800-90B 4.4.2); computed here as the smallest ``k`` with ``P(X > k) <= alpha``,
    summing the binomial upper tail from the top so that tiny tails stay exact.
    """
    p = 2.0**-min_entropy
    alpha = 2.0**-alpha_exponent
    log_p, log_q = math.log(p), math.log1p(-p)
    tail = 0.0
    for k in range(window, -1, -1):
        # Adding P(X = k) turns tail from P(X > k) into P(X > k - 1).
        log_pmf = (
            math.lgamma(window + 1)
            - math.lgamma(k + 1)
            - math.lgamma(window - k + 1)
            + k * log_p
            + (window - k) * log_q
        )
        tail += math.exp(log_pmf)
        if tail > alpha:
            return 1 + k
    return 1  # pragma: no cover - alpha < 1 always stops the loop


class EntropySource:
    """Bytes of entropy from the OS, health-tested as they are read (SP 800-90B 4.3, 4.4).

    Args:
        read: the raw reader, ``read(n) -> n bytes``; ``os.urandom`` unless a test injects
            a stuck or biased source.
        min_entropy: claimed min-entropy ``H`` per 8-bit sample, in bits (0 < H <= 8).
        alpha_exponent: ``-log2`` of each test's false-positive probability.
    """

    def __init__(
        self,
        read: Callable[[int], bytes] = os.urandom,
        *,
        min_entropy: float = DEFAULT_MIN_ENTROPY_PER_SAMPLE,
        alpha_exponent: int = DEFAULT_ALPHA_EXPONENT,
    ) -> None:
        if not 0 < min_entropy <= 8:
            raise BadRange(f"min-entropy per 8-bit sample must be in (0, 8], got {min_entropy}")
        if not 20 <= alpha_exponent <= 40:
            raise BadRange(
                f"alpha exponent {alpha_exponent} is outside 20..40 (SP 800-90B 4.4 recommends "
                "2**-40 <= alpha <= 2**-20)"
            )
        self._read = read
        #: Repetition Count Test cutoff (SP 800-90B 4.4.1).
        self.rct_cutoff = repetition_count_cutoff(min_entropy, alpha_exponent)
        #: Adaptive Proportion Test cutoff for a window of 512 samples (SP 800-90B 4.4.2).
        self.apt_cutoff = adaptive_proportion_cutoff(min_entropy, alpha_exponent, APT_WINDOW)
        self._failure: str | None = None
        self._started = False
        # Repetition Count Test state: the last sample and how many times in a row it came.
        self._rct_value = -1
        self._rct_count = 0
        # Adaptive Proportion Test state: the window's first sample, its count, samples seen.
        self._apt_value = -1
        self._apt_count = 0
        self._apt_seen = APT_WINDOW  # a full window: the next sample starts a new one

    @property
    def failed(self) -> bool:
        """True once a health test has failed; the source then refuses every request."""
        return self._failure is not None

    def get_entropy(self, n: int) -> bytes:
        """``n`` bytes that passed the health tests.

        Raises:
            EntropyHealthError: a health test failed now or earlier, or the reader returned
                the wrong number of bytes.
            BadRange: ``n`` is below 1.
        """
        if n < 1:
            raise BadRange(f"asked for {n} bytes of entropy; ask for at least 1")
        if self._failure is not None:
            raise EntropyHealthError(self._failure)
        if not self._started:
            self._read_tested(STARTUP_SAMPLES)  # SP 800-90B 4.3: start-up test, discarded
            self._started = True
        return self._read_tested(n)

    def _read_tested(self, n: int) -> bytes:
        data = self._read(n)
        if len(data) != n:
            self._fail(f"the entropy reader returned {len(data)} bytes when asked for {n}")
        self._check(data)
        return data

    def _check(self, samples: bytes) -> None:
        """Run the Repetition Count Test and the Adaptive Proportion Test on each sample."""
        rct_value, rct_count = self._rct_value, self._rct_count
        apt_value, apt_count, apt_seen = self._apt_value, self._apt_count, self._apt_seen
        rct_cutoff, apt_cutoff = self.rct_cutoff, self.apt_cutoff
        try:
            for sample in samples:
                # SP 800-90B 4.4.1 Repetition Count Test.
                if sample == rct_value:
                    rct_count += 1
                    if rct_count >= rct_cutoff:
                        self._fail(
                            f"repetition count test failed: byte {sample:#04x} came "
                            f"{rct_count} times in a row (cutoff {rct_cutoff}, "
                            "SP 800-90B 4.4.1)"
                        )
                else:
                    rct_value, rct_count = sample, 1
                # SP 800-90B 4.4.2 Adaptive Proportion Test, non-overlapping windows of 512.
                if apt_seen >= APT_WINDOW:
                    apt_value, apt_count, apt_seen = sample, 1, 1
                    continue
                apt_seen += 1
                if sample == apt_value:
                    apt_count += 1
                    if apt_count >= apt_cutoff:
                        self._fail(
                            f"adaptive proportion test failed: byte {sample:#04x} came "
                            f"{apt_count} times in a window of {APT_WINDOW} samples (cutoff "
                            f"{apt_cutoff}, SP 800-90B 4.4.2)"
                        )
        finally:
            self._rct_value, self._rct_count = rct_value, rct_count
            self._apt_value, self._apt_count, self._apt_seen = apt_value, apt_count, apt_seen

    def _fail(self, reason: str) -> None:
        self._failure = (
            f"entropy source failed its health test and is out of service: {reason}; "
            "take the table out of service and have the entropy source checked"
        )
        raise EntropyHealthError(self._failure)
