"""``etg loadtest``: N basic-strategy terminal bots against a real table server over mutual TLS.

Entry points: the click command :func:`loadtest` (``etg loadtest``; also ``python -m
tools.loadtest``) and :func:`run_loadtest`, which does the work and returns a
:class:`~tools.loadtest_figures.LoadtestResult`. It is a benchmark: it prints figures and
asserts nothing. The server's process is :mod:`tools.loadtest_server`, the bots
:mod:`tools.loadtest_bots`, the figures and their report :mod:`tools.loadtest_figures`.

One run:

1. A temporary directory gets a PKI with N terminal certificates, the log keys and the
   example Rules Submission with every countdown at 3 seconds; the server's log and its
   anchor stream are written there too (``table.db``, ``anchors.jsonl``).
2. ``python -m game_server`` starts on an ephemeral port with ``--tables ceil(N/7)`` (T1..T7
   at the first table, T8..T14 at the second, ...) and ``--next-round-delay 0.2``.
3. In this process one Twisted reactor runs the operator and N terminal bots, each over its
   own TLS 1.3 connection with its own client certificate. The operator cashes in every
   terminal; each bot then says ``Hello`` and, on every view it receives, does what its
   game's bot says (:meth:`~game_server.games.api.Game.wire_bot`; at the example Blackjack
   table: wagers the table minimum once per round, declines insurance, and plays basic
   strategy when it has legal actions). Every ``PlaceWagers`` and ``Act`` is timed from
   sending to its answer (the answer carries the updated view): the action-to-update latency.
4. The run stops when R rounds have completed (over all tables, counted from the views) or
   at the time limit; the server's CPU time and peak RSS are read from ``/proc`` and the
   server is stopped (SIGTERM, then SIGKILL after 10 s), always, also on errors.

With ``--floor DIR`` (a local floor made by ``etg floor up DIR``) the server also ships its
log to a new store database of that floor (``etg serve --store``, its key registered first;
the database is dropped at the end), and the report adds the shipping figures the operator's
``ReadMeters`` gave at the end of the run: events logged and shipped per second over the
run (and their ratio), and the lag from logged to committed in the store (p50, p99, max).

Declared AMP errors are counted by code; ``NOT_YOUR_TURN``, ``ROUND_CLOSED`` and
``RATE_LIMITED`` are expected races with the countdowns, any other code is counted as
unexpected (reported, not fatal). The operator paces its cash-ins under the server's rate
limit (``[floor.limits]``, a burst then 20 a second, mirrored by a token bucket of its own
a little slower than the server's): the server drops a connection refused
:data:`~game_server.net.server.FLOOD_FACTOR` x burst times without a pause as a flood, and an
operator that ran into the limit and retried used to be dropped so half way through the
cash-ins (on a quiet machine, where the server answers a cash-in within a few
milliseconds), every later cash-in then failing with ``ConnectionDone``. A refusal all the
same is retried and counted (``cash_in_retries``); a lost operator connection stops the run
(``stopped_by``) instead of failing each cash-in left.
Latencies are those of answered commands only. The run's clock starts when the operator
connects, so ``duration_s`` includes the cash-in ramp (about N/18 s for N terminals); the
rounds of a run that stops before the ramp is over were played by fewer bots
(``terminals_playing``, and the report says so): at 1,000 terminals ask for 2,000 rounds.
Since the ramp takes most of a short run (55 of the 75 s of 1,000 terminals and 2,000
rounds), the commands sent once every bot plays are also given apart (``full_load``: their
latencies and how long the run was at full load); ask for more rounds for a longer one.

With ``--workers N`` the server runs ``etg serve --workers N`` (its tables in N processes
behind one port): one operator connection per worker, routed to a table of it, cashes in
that worker's terminals, so the ramp is about N times shorter (compare rounds per second
over runs long enough for the ramp not to count); the server's CPU and peak RSS are summed
over the front and its workers, and each worker's own command times and log commits are
given apart (``worker_figures``).
"""

from __future__ import annotations

import json
import math
import resource
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from game_server.net.floor import MAX_TABLES, MAX_TERMINALS, SEATS, raise_descriptor_limit
from shared.errors import ETGError
from tools.loadtest_figures import (
    LoadtestResult,
    format_report,
    full_load_figures,
    latency_summary,
    server_figures,
    shipping_figures,
    worker_figures,
)
from tools.loadtest_server import (
    LoadtestError,
    peak,
    prepare,
    server_cpu_seconds,
    server_pids,
    start_server,
    stop_server,
)

if TYPE_CHECKING:
    from tools.loadtest_bots import BotRun

#: Seats per table: terminal i sits at table ceil(i / 7).
SEATS_PER_TABLE: Final = len(SEATS)
#: Descriptors the bots' process keeps beside its connections (certificate files, stdio).
BOT_RESERVED_DESCRIPTORS: Final = 64
#: Exit status when the server did not start or no round completed.
EXIT_FAILED: Final = 1


def tables_for(terminals: int) -> int:
    """How many tables seat ``terminals`` terminals, seven a table."""
    return max(1, math.ceil(terminals / SEATS_PER_TABLE))


def run_loadtest(
    terminals: int,
    rounds: int,
    seconds: float,
    tmpdir: Path | None = None,
    floor: Path | None = None,
    *,
    workers: int = 1,
) -> LoadtestResult:
    """Run the whole load test (certs, server, bots, figures); the server is always stopped.

    The reactor runs once per process: call this once per process. ``tmpdir`` is where
    the run's temporary directory (certificates, config, the server's event log) is made
    (default: the system's; ``/dev/shm`` takes the disk's fsync out of the figures).
    ``floor``: the folder of a local floor (``etg floor up``) the server ships its log to.
    ``workers``: run the server with ``--workers`` (its CPU and peak RSS are then the sums
    over the front and its workers; one operator connection per worker cashes in).

    Raises:
        LoadtestError: more terminals than one server seats, or the server did not start.
    """
    if terminals > MAX_TERMINALS:
        raise LoadtestError(too_many(terminals))
    # The bots hold a connection each (the server raises its own limit as it starts).
    raise_descriptor_limit(
        terminals + BOT_RESERVED_DESCRIPTORS, f"the bots' process of {terminals} terminals"
    )
    tables = tables_for(terminals)
    result = LoadtestResult(
        terminals=terminals, tables=tables, rounds_target=rounds, workers=workers
    )
    with tempfile.TemporaryDirectory(prefix="etg-loadtest-", dir=tmpdir) as tmp:
        run, duration, store = _play(Path(tmp), result, rounds, seconds, floor)
    _fold_figures(result, run, duration, store is not None)
    return result


def _play(
    directory: Path, result: LoadtestResult, rounds: int, seconds: float, floor: Path | None
) -> tuple[BotRun, float, tuple[str, str] | None]:
    """Make the run's files in ``directory``, start the server (shipping to a new store of
    ``floor``), play the bots against it, and stop it (and drop the store), always.
    Returns the bots' run, its duration and the store (name, URL) if any."""
    from game_server.config import load_config
    from game_server.games import game_for
    from tools.loadtest_bots import BotRun

    certs, config_path = prepare(directory, result.terminals)
    config = load_config(config_path)
    game = game_for(config)
    run = BotRun(rounds, lambda: game.wire_bot(config), result.terminals)
    operators = worker_operators(config, result.tables, result.terminals, result.workers)
    store = None if floor is None else _scratch_store(floor, certs)
    process, port, _out = start_server(
        directory,
        certs,
        config_path,
        result.tables,
        None if store is None else store[1],
        workers=result.workers,
    )
    try:
        duration = _measured(process, port, certs, run, seconds, operators, result)
    finally:
        stop_server(process)
        if floor is not None and store is not None:
            from game_server.floor.cluster import LocalFloor, drop_store

            drop_store(LocalFloor.load(floor), store[0])
    return run, duration, store


def _measured(
    process: subprocess.Popen[bytes],
    port: int,
    certs: Path,
    run: BotRun,
    seconds: float,
    operators: list[tuple[str | None, list[str]]] | None,
    result: LoadtestResult,
) -> float:
    """Run the bots against the server on ``port``, and count into ``result`` the CPU time
    and peak memory of the bots' process and of the server's processes over the run.
    Returns the run's duration."""
    from tools.loadtest_bots import run_bots

    pids = server_pids(process.pid)
    cpu_start = server_cpu_seconds(pids)

    def tick() -> str | None:
        return "server exited" if process.poll() is not None else None

    client_start = time.process_time()
    duration = run_bots(port, certs, result.terminals, run, seconds, tick, operators)
    result.client_cpu_s = round(time.process_time() - client_start, 3)
    result.client_peak_rss_mb = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1
    )
    if process.poll() is None:
        result.server_cpu_s = round(server_cpu_seconds(pids) - cpu_start, 3)
        result.server_peak_rss_mb = round(sum(peak(pid) for pid in pids), 1)
    return duration


def _fold_figures(result: LoadtestResult, run: BotRun, duration: float, shipped: bool) -> None:
    """The run's figures into ``result``: the bots' counts and latencies, the rates over
    ``duration``, and the server's own from its meters (the shipping's when ``shipped``)."""
    result.rounds = len(run.completed)
    result.duration_s = round(duration, 3)
    result.rounds_per_s = round(result.rounds / duration, 3) if duration > 0 else 0.0
    result.latency_ms = latency_summary(run.latencies)
    result.latency_samples = len(run.latencies)
    result.full_load = full_load_figures(run)
    result.latency_by_command_ms = {
        name: latency_summary(values) for name, values in sorted(run.by_command.items())
    }
    result.commands_sent = run.sent
    result.errors = dict(sorted(run.errors.items()))
    result.unexpected_errors = run.unexpected
    result.disconnects = run.disconnects
    result.cash_in_retries = run.cash_in_retries
    result.terminals_playing = run.playing
    if isinstance(run.meters, dict) and isinstance(run.meters.get("games_played"), int):
        result.games_played_meter = run.meters["games_played"]
    result.server_cpu_percent = (
        round(100.0 * result.server_cpu_s / duration, 1) if duration > 0 else 0.0
    )
    result.client_cpu_percent = (
        round(100.0 * result.client_cpu_s / duration, 1) if duration > 0 else 0.0
    )
    result.stopped_by = run.stopped_by
    if isinstance(run.meters, dict):
        result.server_latency_ms, result.log_commits = server_figures(run.meters)
    result.worker_figures = [worker_figures(meters) for meters in run.worker_meters]
    if shipped and isinstance(run.meters, dict):
        result.store = shipping_figures(run.meters.get("store_shipping"), duration)


def worker_operators(
    config: Any, tables: int, terminals: int, workers: int
) -> list[tuple[str | None, list[str]]] | None:
    """With ``--workers``, one operator connection per worker: a table of the worker as its
    route, and the terminals of the worker's tables (T1..T7 at the first table...)."""
    if workers == 1:
        return None
    from game_server.net.service import table_configs
    from game_server.net.workers import placement

    configs = table_configs(config, tables)
    index = {c.table_id: k for k, c in enumerate(configs)}
    found: list[tuple[str | None, list[str]]] = []
    for share in placement(configs, workers):
        names = [
            f"T{i}"
            for i in range(1, terminals + 1)
            if (i - 1) // SEATS_PER_TABLE in {index[t] for t in share}
        ]
        found.append((share[0], names))
    return found


def _scratch_store(floor: Path, certs: Path) -> tuple[str, str]:
    """A new store database on the local floor, the run's key registered: (name, URL)."""
    from game_server.floor.cluster import LocalFloor, scratch_store
    from game_server.keys import load_public_key

    return scratch_store(LocalFloor.load(floor), load_public_key(certs), "loadtest", "loadtest")


def too_many(terminals: int) -> str:
    """Why ``terminals`` is more than one server seats (``etg serve --tables`` at most)."""
    return (
        f"{terminals} terminals need {tables_for(terminals)} tables, but one server hosts at "
        f"most {MAX_TABLES} tables of {SEATS_PER_TABLE} seats ({MAX_TERMINALS} terminals)"
    )


def _terminals(ctx: click.Context, param: click.Parameter, value: int) -> int:
    if value > MAX_TERMINALS:
        raise click.BadParameter(too_many(value))
    return value


@click.command("loadtest")
@click.option(
    "--terminals",
    type=click.IntRange(min=1),
    default=7,
    show_default=True,
    callback=_terminals,
    help=f"Bots, at most {MAX_TERMINALS} (seven at each of up to {MAX_TABLES} tables).",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Stop after this many completed rounds (over all tables).",
)
@click.option(
    "--seconds",
    type=click.FloatRange(min=1),
    default=300.0,
    show_default=True,
    help="Stop after this many seconds at the latest.",
)
@click.option(
    "--tmpdir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Where to make the run's temporary directory (the server's log is written there).",
)
@click.option(
    "--floor",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="A local floor (etg floor up DIR): the server ships its log to a new store database "
    "there, and the shipping rate and lag are reported.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_TABLES),
    default=1,
    show_default=True,
    help="Run the server with etg serve --workers N (CPU and RSS summed over its processes).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
def loadtest(
    terminals: int,
    rounds: int,
    seconds: float,
    tmpdir: Path | None,
    floor: Path | None,
    workers: int,
    as_json: bool,
) -> None:
    """Load-test a real table server: N basic-strategy bots over mutual TLS (ceil(N/7)
    tables); prints latency, throughput, server CPU and peak RSS (and, with --floor, the
    shipping to the floor store)."""
    try:
        result = run_loadtest(terminals, rounds, seconds, tmpdir, floor, workers=workers)
    except (LoadtestError, ETGError) as exc:
        click.echo(f"etg loadtest: error: {exc}", err=True)
        raise SystemExit(EXIT_FAILED) from None
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(format_report(result))
    if not result.ok:
        click.echo("etg loadtest: error: no round completed", err=True)
        raise SystemExit(EXIT_FAILED)


if __name__ == "__main__":
    loadtest(prog_name="etg loadtest")
