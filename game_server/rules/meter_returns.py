"""What a progressive meter gives back in the long run, from its own dynamics.

A wager that pays shares of a meter returns, over the meter's life, everything put into the
meter: the contributions of every wager and the money that reseeds it. Per unit staked, for a
wager of ``w`` cents feeding a meter with reset amount ``R`` at primary rate ``a`` and
secondary rate ``b`` (:class:`~game_server.rules.wagers.base.MeterSpec`), whose lines pay all
of the meter with chance ``p`` per wager and a share ``f`` of it with chance ``q`` (each such
line), this module counts it as the engine runs the meter (:mod:`game_server.rules.meters`):

- **Contributions**: ``a`` of every wager goes to the meter and is paid out in the end.
- **Reseeds after a 100% award**: the meter is empty (a remainder under a cent) and is brought
  back to ``R``: ``p x R / w`` per unit staked. Nothing is added after a partial award that
  leaves the meter at or above ``R``: that award is paid from contributions already counted.
- **Top-ups after a partial award**: a share ``f`` paid while the meter stood below
  ``R / (1 - f)`` leaves it under ``R``, and it is topped up to ``R``. How often that happens
  depends on where the meter stands, so the meter's stationary distribution is computed
  (:func:`_stationary`): a chain on the meter's excess over ``R`` in bins, moving up by the
  contribution of each wager, falling to 0 at a 100% award and to ``(1 - f)`` of the meter at
  a partial one. Each bin's chance follows from the one below it by a ratio computed from the
  top bin down, so the chain is solved exactly in one pass (no iteration).
- **What the reserve is for** (:class:`~game_server.rules.wagers.base.ReserveUse`, as the
  Rules Submission states it): ``"reseed"`` (the default): the secondary contributions fund
  the reseeds and top-ups before the house does; what they hold beyond that is not paid to the
  players, so the return is contributions plus reseeds, whoever funded them. ``"players"``:
  the reserve is the players' money; it holds at most one reset amount and the secondary
  contributions beyond that go to the meter, so every contribution is paid out and the house
  adds only what the reserve lacks at a reseed. That shortfall is counted from the wagers
  since the last 100% award (the reserve is empty after one), geometric in number; top-ups
  drawn from the reserve can only add to it, by at most their own amount, so the figure is
  given as an interval and the guard uses its upper end.

A 100% award resets the meter whatever it held, so the long run does not depend on the seed
(the initial amount) or on the meter the table opened with.

Stated approximations (:attr:`MeterLongRun.precision`): one wager per round feeds the meter
(two winners of one meter in one round, who share or are paid in turn, are counted as two
rounds); the chain's bins are ``1/100`` of the smallest top-up zone wide, and a partial
award's result is rounded to the nearest bin; the chain stops where the meter's chance of
standing higher is below 10^-12.

Entry points: :func:`meter_long_run`, :class:`MeterLongRun`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Final

from game_server.rules.wagers.base import MeterSpec, ReserveUse

__all__ = ["MeterLongRun", "meter_long_run"]

#: Bins across the smallest top-up zone (``f R / (1 - f)``).
BINS_PER_ZONE: Final = 100
#: The chain stops where the meter's chance of standing higher falls below this.
TAIL: Final = 1e-12
#: Basis points in 100%.
_FULL_BP: Final = 10_000


@dataclass(frozen=True, slots=True)
class MeterLongRun:
    """What one meter gives back per unit staked in the long run, by part.

    Attributes:
        contributions: The primary rate (and, when the reserve is the players', the
            secondary rate): paid out in the end.
        reseeds: The reset amount brought back after each 100% award, per unit staked.
        top_ups: What brings the meter back to its reset amount after a partial award
            that left it below, per unit staked.
        house_low: With the reserve the players' (``"players"``): the least the house adds
            (the reserve's shortfall at 100% awards); 0 otherwise.
        house_high: Its most (plus every top-up); 0 unless ``"players"``.
        average_meter: The meter's long-run average amount, in cents (the reset amount plus
            the chain's mean excess); None for a meter without partial awards, whose
            average is its reset amount plus the contributions of half a cycle.
        precision: What the figure approximates (module docstring).
    """

    contributions: float
    reseeds: float
    top_ups: float
    house_low: float
    house_high: float
    average_meter: float | None
    reserve: ReserveUse
    precision: str

    @property
    def long_run(self) -> float:
        """What the guard checks: with the reserve the players', the upper end."""
        if self.reserve is ReserveUse.PLAYERS:
            return self.contributions + self.house_high
        return self.contributions + self.reseeds + self.top_ups

    @property
    def long_run_low(self) -> float:
        """The lower end of the interval (the same figure unless ``"players"``)."""
        if self.reserve is ReserveUse.PLAYERS:
            return self.contributions + self.house_low
        return self.long_run


def meter_long_run(
    spec: MeterSpec,
    stake: int,
    full: Fraction,
    partial: Sequence[tuple[int, Fraction]],
) -> MeterLongRun:
    """The long run of ``spec``'s meter fed by wagers of ``stake`` cents whose lines pay the
    whole meter with chance ``full`` per wager and ``percent`` of it with chance ``p`` for
    each ``(percent, p)`` of ``partial`` (module docstring).

    Raises:
        ValueError: no stake, a chance outside 0..1, a share outside 1..99%.
    """
    if stake <= 0:
        raise ValueError(f"a meter is fed by wagers of at least 1 cent, not {stake}")
    for percent, chance in partial:
        if not 0 < percent < 100:
            raise ValueError(f"a partial share of the meter is 1..99%, not {percent}%")
        if not 0 <= chance <= 1:
            raise ValueError(f"a line's chance is 0..1, not {chance}")
    if not 0 <= full <= 1:
        raise ValueError(f"a line's chance is 0..1, not {full}")
    shares = tuple(sorted((percent, float(chance)) for percent, chance in partial if chance))
    return _long_run(spec, stake, float(full), shares)


@cache
def _long_run(
    spec: MeterSpec, stake: int, full: float, shares: tuple[tuple[int, float], ...]
) -> MeterLongRun:
    primary = spec.increment_bp / _FULL_BP
    secondary = spec.secondary_bp / _FULL_BP
    reseed = spec.reseed
    reseeds = full * reseed / stake
    step = stake * primary  # cents the meter grows by per wager
    top_ups = 0.0
    average: float | None = None
    precision = "exact"
    if shares and step > 0 and reseed > 0:
        top_ups_cents, mean_excess = _stationary(reseed, step, full, shares)
        top_ups = top_ups_cents / stake
        average = reseed + mean_excess
        precision = (
            "top-ups from the meter's stationary distribution (one wager per round, "
            f"{BINS_PER_ZONE} bins across the smallest top-up zone, tail below {TAIL:g})"
        )
    if spec.reserve is ReserveUse.PLAYERS:
        shortfall = _reserve_shortfall(reseed, stake * secondary, full) / stake
        return MeterLongRun(
            contributions=primary + secondary,
            reseeds=reseeds,
            top_ups=top_ups,
            house_low=shortfall,
            house_high=shortfall + top_ups,
            average_meter=average,
            reserve=spec.reserve,
            precision=f"{precision}; the house's share of the reseeds between the reserve's "
            "shortfall at 100% awards and that plus every top-up",
        )
    return MeterLongRun(
        contributions=primary,
        reseeds=reseeds,
        top_ups=top_ups,
        house_low=0.0,
        house_high=0.0,
        average_meter=average,
        reserve=spec.reserve,
        precision=precision,
    )


def _reserve_shortfall(reseed: int, per_wager: float, full: float) -> float:
    """Cents per wager the house adds at 100% awards when the reserve (empty after the last
    one, filled by ``per_wager`` cents a wager up to ``reseed``) cannot pay the reseed: the
    expected ``(R - per_wager * N)+`` over ``N``, the wagers since the last such award
    (geometric with chance ``full``), times ``full``."""
    if full <= 0:
        return 0.0
    if per_wager <= 0:
        return full * reseed
    stay = 1.0 - full
    m = math.floor(reseed / per_wager)
    if stay <= 0:
        return full * max(0.0, reseed - per_wager)
    # sum_{n=1}^{m} full * stay^(n-1) * (R - per_wager * n)
    s_m = stay**m
    ones = (1 - s_m) / full  # sum of stay^(n-1)
    ns = (1 - (m + 1) * s_m + m * s_m * stay) / (full * full)  # sum of n * stay^(n-1)
    return full * full * (reseed * ones - per_wager * ns)


def _stationary(
    reseed: int, step: float, full: float, shares: tuple[tuple[int, float], ...]
) -> tuple[float, float]:
    """The top-ups (cents per wager) and the meter's mean excess over the reset amount
    (cents), from the stationary distribution of the excess (module docstring).

    The excess ``x`` lives in bins ``j = 0 .. n`` of width ``h`` (cents). Per wager it moves
    up one bin with chance ``u = (1 - full - q) * step / h`` (the contribution as a chance of
    crossing a bin), falls to bin 0 with chance ``full``, and with each share's chance ``q_k``
    falls to the bin of ``(1 - f_k)(R + x) - R`` (0 when negative: a top-up). Balance at bin
    ``j >= 1``: ``pi_j (u + full + q) = u pi_{j-1} + sum_k q_k sum_{i -> j} pi_i``; the
    bins that fall to ``j`` are all above it, so with ``pi_i = r_i pi_{i-1}`` known above
    ``j``, ``pi_j = r_j pi_{j-1}`` follows, from the top bin down."""
    smallest = min(f * reseed / (100 - f) for f, _ in shares)
    h = smallest / BINS_PER_ZONE
    if step > h:
        h = step  # a bin at least one contribution wide: the chain moves at most one bin
    q_all = sum(q for _, q in shares)
    leave = full + q_all
    u = (1.0 - leave) * step / h
    # How high the meter can stand: the balance of its drift against its falls, and a tail
    # of e-folds of the climb between two falls (both generous).
    mean_guess = step / max(full + sum(q * f / 100 for f, q in shares), 1e-300)
    climb = step / leave if leave > 0 else mean_guess
    top = mean_guess * 12 + climb * -math.log(TAIL) * 2
    n = max(int(top / h) + 1, BINS_PER_ZONE * 4)
    # Where each share's fall from bin i lands: the nearest bin of (1 - f)(R + x_i) - R.
    lands: list[list[int]] = []
    for f, _ in shares:
        keep = (100 - f) / 100
        lands.append([max(0, round((keep * (reseed + i * h) - reseed) / h)) for i in range(n + 1)])
    # into[k][j]: the bins i whose fall by share k lands on j (a contiguous run, i > j).
    into: list[dict[int, tuple[int, int]]] = []
    for land in lands:
        runs: dict[int, tuple[int, int]] = {}
        for i in range(1, n + 1):
            j = land[i]
            lo, hi = runs.get(j, (i, i))
            runs[j] = (min(lo, i), max(hi, i))
        into.append(runs)
    # ratio[j] = pi_j / pi_{j-1}; logs of suffix products for the inflow sums.
    ratio = [0.0] * (n + 1)
    # below[i] = log(pi_i / pi_n-ish): we keep cum[i] = sum_{k<=i} log ratio[k] relative to
    # the top, filled as ratios become known (top down): cum_top[i] = log(pi_i / pi_j) for
    # the current j is cum[i] - cum[j].
    cum = [0.0] * (n + 2)  # cum[i] = sum_{k=i}^{n} log ratio[k]; cum[n+1] = 0
    for j in range(n, 0, -1):
        inflow = 0.0
        for (_, q), runs in zip(shares, into, strict=True):
            run = runs.get(j)
            if run is None:
                continue
            lo, hi = run
            # sum_{i=lo}^{hi} pi_i / pi_j = sum exp(cum[j+1] - cum[i+1])
            base = cum[j + 1]
            inflow += q * sum(math.exp(base - cum[i + 1]) for i in range(lo, hi + 1))
        denominator = u + leave - inflow
        ratio[j] = u / denominator if denominator > 0 else 1.0
        cum[j] = cum[j + 1] + math.log(ratio[j]) if ratio[j] > 0 else cum[j + 1] - 745.0
    # pi_j = pi_0 * prod_{k=1}^{j} ratio[k] = pi_0 * exp(cum[1] - cum[j+1]).
    weights = [math.exp(cum[1] - cum[j + 1]) for j in range(n + 1)]
    total = sum(weights)
    pi = [w / total for w in weights]
    mean = sum(p * j * h for j, p in enumerate(pi))
    top_ups = 0.0
    for f, q in shares:
        keep = (100 - f) / 100
        for j, p in enumerate(pi):
            short = reseed - keep * (reseed + j * h)
            if short <= 0:
                break
            top_ups += q * p * short
    return top_ups, mean
