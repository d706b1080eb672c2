"""Durations the server measures of itself, kept in a bounded histogram for its meters.

A server answering thousands of commands a second cannot keep every duration, and an
operator (or ``etg loadtest``) asking where the time goes needs quantiles, not a mean. A
:class:`Durations` counts each duration in one of a fixed set of buckets whose edges grow by
:data:`GROWTH` from :data:`FIRST_EDGE_MS`, so that its memory is fixed and a quantile it
gives is the upper edge of the bucket holding it: never below the true value and at most
:data:`GROWTH` - 1 (8%) above it. The largest duration is kept exactly.

Used by the table server for the time from a command's arrival to its answer
(:class:`~game_server.net.server.TableServerFactory`, ``ReadMeters`` ``"commands"``) and by
the event log's commit thread for each transaction (``"event_log"``).
"""

from __future__ import annotations

import bisect
import math
from typing import Any, Final

#: The upper edge of the first bucket, in milliseconds.
FIRST_EDGE_MS: Final = 0.05
#: Each bucket's upper edge over the one before it.
GROWTH: Final = 1.08
#: Buckets: from 0.05 ms to 17 minutes (the last holds everything longer; a quantile in it
#: is given as the largest duration).
BUCKETS: Final = 220
#: The buckets' upper edges, in milliseconds (the last catches everything above).
EDGES_MS: Final[tuple[float, ...]] = tuple(FIRST_EDGE_MS * GROWTH**i for i in range(BUCKETS))


class Durations:
    """Counts of durations in fixed buckets (see the module), with the largest kept exactly."""

    __slots__ = ("_counts", "count", "max_ms", "total_ms")

    def __init__(self) -> None:
        self._counts = [0] * BUCKETS
        self.count = 0
        self.total_ms = 0.0
        self.max_ms = 0.0

    def add(self, seconds: float) -> None:
        """Count one duration, in seconds (a negative one, from a clock that stepped back,
        counts as zero)."""
        ms = max(seconds, 0.0) * 1000.0
        self._counts[min(bisect.bisect_left(EDGES_MS, ms), BUCKETS - 1)] += 1
        self.count += 1
        self.total_ms += ms
        if ms > self.max_ms:
            self.max_ms = ms

    def quantile(self, q: float) -> float | None:
        """The upper edge (ms) of the bucket holding the ``q`` quantile (0 < q <= 1): at
        least the true value, at most 8% above it; the exact largest for ``q = 1``; None
        when nothing was counted."""
        if not 0 < q <= 1:
            raise ValueError(f"a quantile is in (0, 1], got {q}")
        if self.count == 0:
            return None
        rank = math.ceil(q * self.count)
        seen = 0
        for i, n in enumerate(self._counts[:-1]):
            seen += n
            if seen >= rank:
                return min(EDGES_MS[i], self.max_ms)
        return self.max_ms  # in the last bucket: longer than its edge

    def summary(self) -> dict[str, Any]:
        """``count``, ``mean_us``, ``p50_us``, ``p95_us``, ``p99_us``, ``max_us``: whole
        microseconds (the wire carries integers only: :mod:`shared.codec`), None when nothing
        was counted; JSON-ready."""

        def us(value: float | None) -> int | None:
            return None if value is None else math.ceil(value * 1000.0)

        return {
            "count": self.count,
            "mean_us": us(self.total_ms / self.count) if self.count else None,
            "p50_us": us(self.quantile(0.5)),
            "p95_us": us(self.quantile(0.95)),
            "p99_us": us(self.quantile(0.99)),
            "max_us": us(self.max_ms) if self.count else None,
        }
