"""How fast ``etg verify`` checks a log: events per second over a log of 100,000+ events.

Entry point: :func:`bench_verify`; ``python -m tools.bench_verify`` prints its figures. The
target is 50,000 events/s for the whole verification (file check, triggers, hash chain,
every checkpoint signature, shoes, cards, replay, ledger). A benchmark prints figures, it
does not pass or fail (docs/design.md "Tests").

The log is written once by the live table's session (``run_logged_sim``, every step synced
to disk, so it takes a while) and kept in the directory given, keyed by its size and seed, so
that later runs only measure.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any, Final

import click

from game_server.config import example_config_path, load_config
from game_server.eventlog import EventLogReader, verify_chain
from game_server.keys import init_keys, load_public_key, load_sealing_key
from game_server.recall.verify import verify_log
from game_server.simlog import run_logged_sim

#: The figure ``etg verify`` must reach on the reference machine.
TARGET_EVENTS_PER_SECOND: Final = 50_000
#: Rounds of the default log: seven seats play about 60 events a round.
DEFAULT_ROUNDS: Final = 1_800
DEFAULT_SEATS: Final = 7


def build_log(directory: Path, rounds: int, seats: int, seed: int) -> tuple[Path, Path, float]:
    """The benchmark log and its keys in ``directory``, written unless already there.

    Returns:
        (log path, key directory, seconds spent writing it; 0.0 when it was cached).
    """
    folder = directory / f"verify-bench-{rounds}r-{seats}s-{seed}"
    db = folder / "table.db"
    certs = folder / "certs"
    done = folder / "complete"
    if done.exists() and db.exists():
        return db, certs, 0.0
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("table.db*"):
        stale.unlink()
    if not (certs / "log-signing.pub").exists():
        init_keys(certs, force=True)
    config = load_config(example_config_path())
    start = time.perf_counter()
    run_logged_sim(config, db, certs, rounds=rounds, seats=seats, seed=seed)
    elapsed = time.perf_counter() - start
    done.write_text("written by tools.bench_verify\n", encoding="utf-8")
    return db, certs, elapsed


def bench_verify(
    tmpdir: str | Path,
    rounds: int = DEFAULT_ROUNDS,
    *,
    seats: int = DEFAULT_SEATS,
    seed: int = 1,
    repeats: int = 3,
    sealing: bool = True,
) -> dict[str, Any]:
    """Measure :func:`verify_log` on a logged simulation of ``rounds`` rounds.

    Args:
        tmpdir: Where the log is written (and found again on the next run).
        rounds: Rounds in the log (1,800 rounds at seven seats is about 110,000 events).
        seats: Seats played.
        seed: Simulation seed.
        repeats: Timed verifications; the figure is their median.
        sealing: Verify with the shoe-sealing key (each sealed seed is opened too).

    Returns:
        ``events``, ``rounds``, ``checkpoints``, ``ok``, ``seconds`` (each run),
        ``median_seconds``, ``events_per_second`` (the figure), ``chain_events_per_second``
        (:func:`verify_chain` alone, for comparison), ``target``, ``meets_target``,
        ``build_seconds`` (0.0 when the log was cached) and ``log``.
    """
    db, certs, built = build_log(Path(tmpdir), rounds, seats, seed)
    public_key = load_public_key(certs)
    sealing_key = load_sealing_key(certs) if sealing else None
    seconds: list[float] = []
    chain_seconds: list[float] = []
    report = None
    for _ in range(repeats):
        with closing(EventLogReader.open(db)) as reader:
            start = time.perf_counter()
            report = verify_log(reader, public_key, sealing_key=sealing_key)
            seconds.append(time.perf_counter() - start)
        with closing(EventLogReader.open(db)) as reader:
            start = time.perf_counter()
            verify_chain(reader, public_key)
            chain_seconds.append(time.perf_counter() - start)
    assert report is not None
    events = report.counts.events
    median = statistics.median(seconds)
    chain_median = statistics.median(chain_seconds)
    rate = events / median
    return {
        "log": str(db),
        "events": events,
        "rounds": report.counts.rounds,
        "seats": seats,
        "checkpoints": report.counts.checkpoints,
        "ok": report.ok,
        "seconds": [round(s, 4) for s in seconds],
        "median_seconds": round(median, 4),
        "events_per_second": round(rate),
        "chain_events_per_second": round(events / chain_median),
        "target": TARGET_EVENTS_PER_SECOND,
        "meets_target": rate >= TARGET_EVENTS_PER_SECOND,
        "build_seconds": round(built, 1),
    }


@click.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(tempfile.gettempdir()) / "etg-bench-verify",
    show_default=True,
    help="Where the benchmark log is written once and reused (the system's temporary folder).",
)
@click.option("--rounds", type=click.IntRange(min=1), default=DEFAULT_ROUNDS, show_default=True)
@click.option("--seats", type=click.IntRange(1, 7), default=DEFAULT_SEATS, show_default=True)
@click.option("--repeats", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def main(directory: Path, rounds: int, seats: int, repeats: int, as_json: bool) -> None:
    """Measure etg verify's events per second (median of --repeats runs)."""
    figures = bench_verify(directory, rounds, seats=seats, repeats=repeats)
    if as_json:
        click.echo(json.dumps(figures))
        return
    verdict = "meets" if figures["meets_target"] else "MISSES"
    click.echo(
        f"etg verify: {figures['events_per_second']:,} events/s (median of {repeats}: "
        f"{figures['median_seconds']} s for {figures['events']:,} events, "
        f"{figures['rounds']:,} rounds, {figures['checkpoints']:,} checkpoints); "
        f"{verdict} the {figures['target']:,}/s target. verify_chain alone: "
        f"{figures['chain_events_per_second']:,} events/s. Log: {figures['log']}"
        + (f" (written in {figures['build_seconds']} s)" if figures["build_seconds"] else "")
    )


if __name__ == "__main__":
    main()
