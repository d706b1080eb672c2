"""``etg bench floor``: how fast the shipper moves a log into the floor store, against how fast
the table server writes it.

Entry point: :func:`bench_floor`, which returns a dict of figures and asserts nothing (a
benchmark, not a timed test). In each of ``repeats`` repetitions, on the same disk and
machine:

1. the peer: a new log is written through :meth:`~game_server.eventlog.EventLog.append`, the
   server's own logging path (one durable SQLite transaction per step of ``step`` events,
   each step closed by a signed round-close checkpoint): events per second;
2. that log is shipped whole, from nothing, by a :class:`~game_server.floor.shipper.Shipper`
   (its own thread, transactions of 2,000 events, the ingest checks and the store's
   triggers) into a new store database of a local floor (``etg floor up``): events per
   second from start to the store holding the last checkpoint.

``ratio`` is the median over the repetitions of shipped/s over logged/s: above 1, a shipper
that fell behind (the store down for a while) catches up while the table goes on logging.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any, Final

from game_server.eventlog import EventLog, NewEvent, system_clock
from game_server.floor.cluster import LocalFloor, drop_store, scratch_store
from game_server.floor.shipper import Shipper
from game_server.keys import init_keys, key_id, load_public_key, load_signing_key

#: Events per run and per step (a round's worth), and repetitions.
DEFAULT_EVENTS: Final = 20_000
DEFAULT_STEP: Final = 20
DEFAULT_REPEATS: Final = 3
#: Seconds the shipping of one log may take before the run is given up.
SHIP_TIMEOUT: Final = 600.0


def _step(round_id: int, size: int) -> list[NewEvent]:
    return [
        NewEvent(
            "BENCH-1",
            round_id,
            None if i == 0 else f"T{i % 7 + 1}",
            {"kind": "bench_event", "v": 1, "round": round_id, "i": i, "amount": 500},
        )
        for i in range(size)
    ]


def _log(path: Path, key: Any, events: int, step: int) -> float:
    """Write ``events`` events in steps of ``step``; events per second."""
    steps = [_step(r, step) for r in range(1, events // step + 1)]
    log = EventLog.create_or_open(path, key, system_clock)
    began = time.perf_counter()
    for each in steps:
        log.append(each, checkpoint="round-close")
    elapsed = time.perf_counter() - began
    log.close()
    return (len(steps) * step) / elapsed


def _ship(path: Path, url: str, ident: str, events: int) -> float:
    """Ship the whole log from nothing; events per second."""
    shipper = Shipper(path, url, ident, poll=0.01)
    began = time.perf_counter()
    shipper.start()
    deadline = began + SHIP_TIMEOUT
    try:
        while shipper.meters()["shipped_seq"] < events or shipper.meters()["events_behind"]:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"shipping did not finish in {SHIP_TIMEOUT:.0f} s")
            if shipper.meters()["last_error"]:
                raise RuntimeError(shipper.meters()["last_error"])
            time.sleep(0.005)
        elapsed = time.perf_counter() - began
    finally:
        shipper.stop(timeout=30)
    return events / elapsed


def bench_floor(
    floor_dir: Path,
    scratch: Path,
    *,
    events: int = DEFAULT_EVENTS,
    step: int = DEFAULT_STEP,
    repeats: int = DEFAULT_REPEATS,
) -> dict[str, Any]:
    """Measure logging and shipping ``repeats`` times; the median figures and each run's.

    Args:
        floor_dir: A local floor made by ``etg floor up`` (a new database is made in it for
            each run, and dropped).
        scratch: Where the logs are written (the disk the server would use).
        events: Events per log (rounded down to whole steps).
        step: Events per step (one checkpoint each).
        repeats: Repetitions.
    """
    floor = LocalFloor.load(floor_dir)
    files = init_keys(scratch / "certs")
    key = load_signing_key(files.signing_key)
    public = load_public_key(files.public_key)
    events = events // step * step
    runs = []
    for run in range(repeats):
        path = scratch / f"bench-{run}.db"
        logged = _log(path, key, events, step)
        name, url = scratch_store(floor, public, "bench", "bench")
        try:
            shipped = _ship(path, url, key_id(public), events)
        finally:
            drop_store(floor, name)
        runs.append(
            {
                "logged_per_s": round(logged, 1),
                "shipped_per_s": round(shipped, 1),
                "ratio": round(shipped / logged, 3),
            }
        )
    return {
        "events": events,
        "step": step,
        "repeats": repeats,
        "logged_per_s": statistics.median(r["logged_per_s"] for r in runs),
        "shipped_per_s": statistics.median(r["shipped_per_s"] for r in runs),
        "ratio": statistics.median(r["ratio"] for r in runs),
        "runs": runs,
    }


#: Contributions per run of the linked-meter latency figure.
METER_CONTRIBUTIONS: Final = 2_000


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bench_linked_meter(
    floor_dir: Path,
    scratch: Path,
    *,
    contributions: int = METER_CONTRIBUTIONS,
    repeats: int = DEFAULT_REPEATS,
) -> dict[str, Any]:
    """The latency of one contribution to a meter linked across the floor (one transaction
    of the store, :meth:`~game_server.floor.meters.LinkedMeterClient.contribute`) against
    the same contribution to a server's own meter (:meth:`MeterBank.contribute`), p50 and
    p99 in milliseconds, each run on a new store database; medians over ``repeats`` runs."""
    from game_server.floor.meters import LinkedMeterClient
    from game_server.rules.meters import MeterBank
    from game_server.rules.wagers.base import MeterSpec

    floor = LocalFloor.load(floor_dir)
    spec = MeterSpec("Bench 7s", seed=100_000, reseed=50_000, increment_bp=500, secondary_bp=100)
    public = load_public_key(init_keys(scratch / "meter-certs").public_key)
    runs = []
    for _ in range(repeats):
        name, url = scratch_store(floor, public, "bench-meter", "bench")
        client = LinkedMeterClient(url)
        try:
            client.open("floor:bench", spec)
            for n in range(contributions):
                client.contribute("floor:bench", "BJ-01", n + 1, "c:1", "T1", 500)
        finally:
            client.close()
            drop_store(floor, name)
        bank = MeterBank()
        bank.link("floor:bench", spec)
        local = []
        for _ in range(contributions):
            began = time.perf_counter()
            bank.contribute("floor:bench", 500, "T1")
            local.append(time.perf_counter() - began)
        linked = client.latencies
        runs.append(
            {
                "linked_p50_ms": round(1000 * _percentile(linked, 0.5), 3),
                "linked_p99_ms": round(1000 * _percentile(linked, 0.99), 3),
                "local_p50_ms": round(1000 * _percentile(local, 0.5), 4),
                "local_p99_ms": round(1000 * _percentile(local, 0.99), 4),
            }
        )
    figures: dict[str, Any] = {"contributions": contributions, "repeats": repeats}
    for field in runs[0]:
        figures[field] = statistics.median(r[field] for r in runs)
    figures["p99_ratio"] = round(figures["linked_p99_ms"] / figures["local_p99_ms"], 1)
    figures["runs"] = runs
    return figures
