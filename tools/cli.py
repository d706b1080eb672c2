"""The ``etg`` command: one click group, one subcommand per job.

Entry point: :func:`main` (the ``etg`` console script; ``python -m tools`` runs it too). This
module only parses options and prints; the work is in the platform (:mod:`game_server.sim`,
the simulator), the games (their drivers, bots and console stories, through
:mod:`game_server.games`) and :mod:`tools.bench`.

A product error (a Rules Submission that does not load, a refused wager, a failed RNG health
test) is printed to stderr as one line per problem, without a traceback, and the command
exits with status 2, the status click uses for a usage error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from game_server.config import (
    ConfigError,
    TableConfig,
    example_config_path,
    load_config,
)
from game_server.games import game_for
from shared.errors import ETGError, MoneyError
from shared.money import parse_money
from tools.certs_cli import (
    HOSTNAME_OPTION,
    TERMINALS_OPTION,
    add_console,
    add_terminal,
    list_certs,
)
from tools.enroll_cli import request as request_command
from tools.enroll_cli import sign as sign_command

#: Exit status of every refused command (bad options, a bad Rules Submission, ...).
EXIT_ERROR = 2


def _fail(lines: list[str]) -> NoReturn:
    for line in lines:
        click.echo(f"etg: error: {line}", err=True)
    raise click.exceptions.Exit(EXIT_ERROR)


def error_lines(exc: ETGError) -> list[str]:
    """One line per problem of a product error, for stderr.

    Args:
        exc: The error.

    Returns:
        ``"source: problem"`` per problem of a :class:`ConfigError`; otherwise the message's
        non-empty lines.
    """
    if isinstance(exc, ConfigError):
        return [f"{exc.source}: {problem}" for problem in exc.problems]
    return [line.strip() for line in str(exc).splitlines() if line.strip()] or [repr(exc)]


class _Etg(click.Group):
    """The group that turns product errors into messages and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ETGError as exc:
            _fail(error_lines(exc))


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from tools.version import version_line

        click.echo(version_line())
        ctx.exit()


@click.group(cls=_Etg, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and the commit it was built from, and exit.",
)
def main() -> None:
    """Fully automated electronic table games: operator and investigator tools."""


def _load(path: Path | None) -> TableConfig:
    return load_config(example_config_path() if path is None else path)


def _check_seats(config: TableConfig, seats: int) -> None:
    if seats > config.rules.seats:
        raise click.BadParameter(
            f"the table {config.table_id} has {config.rules.seats} seats, not {seats}",
            param_hint="'--seats'",
        )


def _money(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_money(value)
    except MoneyError as exc:
        raise click.BadParameter(str(exc)) from None


_CONFIG = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The table's Rules Submission (TOML). Default: the example fully automated table.",
)


@main.command()
@_CONFIG
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=100_000,
    show_default=True,
    help="Rounds to play.",
)
@click.option(
    "--seats",
    type=click.IntRange(1, 10),
    default=None,
    help="Seats played.  [default: the game's (Blackjack 7; Ultimate Texas Hold 'Em all its "
    "seats)]",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Simulation seed.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes; the result does not depend on it.",
)
@click.option(
    "--chunk-rounds",
    type=click.IntRange(min=1),
    default=None,
    help="Rounds per chunk (each chunk is its own table and shoes). Default 10,000. "
    "Changing it changes the result for a seed.",
)
@click.option(
    "--wager",
    callback=_money,
    default=None,
    help="Blackjack wager (the Ante at an Ultimate Texas Hold 'Em table) in dollars, e.g. "
    "25.00. Default: the table minimum.",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the complete event log of the rounds to this new SQLite file, exactly "
    "as the live table writes it (one worker; slower: every step is synced to disk). The log "
    "is marked as a simulation's; an existing log is refused.",
)
@click.option(
    "--anchors",
    "anchors_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="With --log: also keep every signed checkpoint in this anchor stream (JSON lines), "
    "for etg verify --anchors.",
)
@click.option(
    "--certs",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("certs"),
    show_default=True,
    help="With --log: the keys made by 'etg certs init' (log signing, shoe sealing).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def sim(
    config_path: Path | None,
    rounds: int,
    seats: int | None,
    seed: int,
    workers: int,
    chunk_rounds: int | None,
    wager: int | None,
    log_path: Path | None,
    anchors_path: Path | None,
    certs: Path,
    as_json: bool,
) -> None:
    """Play many rounds with the game's bots and report the return to player of each wager.

    Every seat places the main wager and every side wager the table offers, at its minimum,
    and plays by the game's strategy (Blackjack: basic strategy; Ultimate Texas Hold 'Em:
    the strategy of its rules package, each of its wagers and ante+blind+play reported).
    The result depends only on the config, --rounds, --seats, --seed, --wager and
    --chunk-rounds, not on --workers.
    """
    from game_server.sim import CHUNK_ROUNDS, format_report, run_sim
    from tools.sim import sim_spec

    config = _load(config_path)
    game = game_for(config)
    if seats is None:
        seats = game.sim_seats(config)
    _check_seats(config, seats)
    if anchors_path is not None and log_path is None:
        raise click.BadParameter("--anchors keeps the checkpoints of a log: give --log too")
    if log_path is not None:
        _logged_sim(
            config, log_path, anchors_path, certs, rounds, seats, seed, workers, wager, as_json
        )
        return
    spec = sim_spec(
        config,
        seats=seats,
        seed=seed,
        rounds=rounds,
        chunk_rounds=chunk_rounds or CHUNK_ROUNDS,
        main_wager=wager,
    )
    show_progress = not as_json and sys.stderr.isatty() and rounds > spec.chunk_rounds
    if show_progress:
        with click.progressbar(length=rounds, label="Simulating", file=sys.stderr) as bar:
            result = run_sim(spec, workers, progress=bar.update)
    else:
        result = run_sim(spec, workers)
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    click.echo(format_report(result, game.sim_title(config, rounds, seats, seed)))


def _logged_sim(
    config: TableConfig,
    log_path: Path,
    anchors_path: Path | None,
    certs: Path,
    rounds: int,
    seats: int,
    seed: int,
    workers: int,
    wager: int | None,
    as_json: bool,
) -> None:
    from game_server.sim import SimResult, format_report
    from game_server.simlog import logged_rounds, run_logged_sim

    if workers != 1:
        raise click.BadParameter("a log has one writer: use --workers 1 with --log")
    if wager is not None:
        raise click.BadParameter("--wager is not available with --log (the table minimum)")
    if sys.stderr.isatty() and not as_json:
        with click.progressbar(length=rounds, label="Simulating", file=sys.stderr) as bar:
            run_logged_sim(
                config,
                log_path,
                certs,
                rounds=rounds,
                seats=seats,
                seed=seed,
                progress=lambda done: bar.update(1),
                anchors=anchors_path,
            )
    else:
        run_logged_sim(
            config,
            log_path,
            certs,
            rounds=rounds,
            seats=seats,
            seed=seed,
            anchors=anchors_path,
        )
    game = game_for(config)
    result = SimResult()
    for events in logged_rounds(log_path):
        game.tally(events, result)
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    places = "seats" if game.seated(config) else "terminals"
    click.echo(format_report(result, f"{rounds:,} logged rounds at {seats} {places} -> {log_path}"))


@main.group()
def certs() -> None:
    """Keys and certificates of the table (never committed; private files mode 0600)."""


@certs.command("init")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@TERMINALS_OPTION
@HOSTNAME_OPTION
@click.option(
    "--force",
    is_flag=True,
    help="Replace keys and certificates that already exist (old logs then need the old "
    "public key to verify; every certificate of the old CA stops working).",
)
def certs_init(directory: Path, terminals: int, hostnames: tuple[str, ...], force: bool) -> None:
    """Create the log-signing key (Ed25519), the shoe-sealing key (AES-256) and the table's
    TLS certificates (a private CA, the server, the operator, terminals T1..TN) in DIRECTORY."""
    from game_server.keys import init_keys
    from tools.certs_cli import check_init_free, init_tls

    if not force:
        check_init_free(directory, terminals)
    for path in init_tls(directory, terminals, hostnames, force):
        click.echo(f"wrote {path}")
    made = init_keys(directory, force=force)
    for path in (made.signing_key, made.public_key, made.sealing_key):
        click.echo(f"wrote {path}")


certs.add_command(add_terminal)
certs.add_command(list_certs)
certs.add_command(add_console)
certs.add_command(request_command)
certs.add_command(sign_command)


@main.command()
@_CONFIG
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=None,
    help="Rounds to play (console: 10; --live: until Ctrl-C).",
)
@click.option(
    "--seats",
    type=click.IntRange(1, 7),
    default=3,
    show_default=True,
    help="Seats with a basic-strategy bot in the console story (not with --live).",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Deal deterministic test shoes from this seed. Default: fresh certified shoes "
    "seeded from the OS entropy source.",
)
@click.option(
    "--delay",
    type=click.FloatRange(min=0),
    default=0.25,
    show_default=True,
    help="Seconds between two lines of the table's story.",
)
@click.option(
    "--live",
    is_flag=True,
    help="The real thing: the table server and player terminals (windows with a display, "
    "headless basic-strategy bots with screenshots without one).",
)
@click.option(
    "--terminals",
    type=click.IntRange(1, 7),
    default=2,
    show_default=True,
    help="With --live: how many player terminals (T1, T2, ...) to start.",
)
@click.option(
    "--data",
    "data_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("data/demo"),
    show_default=True,
    help="With --live: where certificates, the log and screenshots are kept.",
)
def demo(
    config_path: Path | None,
    rounds: int | None,
    seats: int,
    seed: int | None,
    delay: float,
    live: bool,
    terminals: int,
    data_dir: Path,
) -> None:
    """A table to watch: --live runs the server and terminals; otherwise a console story."""
    if live:
        from tools.live_demo import run_live_demo

        run_live_demo(data_dir, terminals, rounds, click.echo, rules=config_path)
        return
    import time

    config = _load(config_path)
    _check_seats(config, seats)
    game_for(config).console_demo(
        config,
        rounds=rounds or 10,
        seats=seats,
        seed=seed,
        delay=delay,
        echo=click.echo,
        sleep=time.sleep,
    )


@main.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=7,
    show_default=True,
    help="Interleaved repetitions of each measurement; the figures are medians.",
)
@click.option(
    "--quick",
    is_flag=True,
    help="Fewer rounds per measurement (a rough figure in a few seconds).",
)
@click.option(
    "--record",
    is_flag=True,
    help="Append the figures, with the commit measured, to docs/bench-history.jsonl.",
)
@click.pass_context
def bench(ctx: click.Context, as_json: bool, repeats: int, quick: bool, record: bool) -> None:
    """Measure the engine, a full table and the shuffle against their peers (no pass/fail).

    'etg bench log' measures the event log instead; 'etg bench work' counts the work of a
    round (CI's guard).
    """
    if ctx.invoked_subcommand is not None:
        return
    from tools.bench import BenchSizes, format_bench, record_history, run_bench

    sizes = BenchSizes(quick=quick)
    progress = None if as_json or not sys.stderr.isatty() else _progress_to_stderr
    figures = run_bench(sizes, repeats=repeats, progress=progress)
    if record:
        path = record_history(figures, quick=quick)
        click.echo(f"recorded in {path.name}", err=True)
    if as_json:
        click.echo(json.dumps(figures))
    else:
        click.echo(format_bench(figures))


def _progress_to_stderr(text: str) -> None:
    click.echo(text, err=True)


@bench.command("work")
@click.option(
    "--record",
    is_flag=True,
    help="Write the counts and their budgets (25% headroom) to tests/bench_budget.json.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def bench_work_command(record: bool, as_json: bool) -> None:
    """Count the work of a seeded round (function calls and lines run), not its time.

    The counts CI compares with the budget in tests/bench_budget.json: a change that makes a
    round do much more work fails there even on a busy machine. Exits 1 when a count is over
    its budget. --record sets the budget from the counts measured now.
    """
    from tools import bench_work

    if record:
        data = bench_work.record()
        counts = {name: case["recorded"] for name, case in data["cases"].items()}
        over: list[str] = []
    else:
        counts = bench_work.measure()
        over = bench_work.over_budget(counts, bench_work.load_budget())
    if as_json:
        click.echo(json.dumps({"counts": counts, "over_budget": over}))
    else:
        for name, measured in counts.items():
            click.echo(f"{name:20} {measured['calls']:>8,} calls {measured['lines']:>9,} lines")
        for sentence in over:
            click.echo(f"OVER BUDGET: {sentence}")
    if over:
        raise SystemExit(1)


@bench.command("log")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--quick", is_flag=True, help="Smaller logs (a rough figure in seconds).")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Scratch directory on the disk the server would use (default: a temporary one).",
)
def bench_log_command(as_json: bool, quick: bool, directory: Path | None) -> None:
    """Durable appends against a bare sqlite3 loop, etg verify's speed, recall latency.

    The three figures of the [log] targets, each measured against its peer in the same run:
    appends in steps of 20 with synchronous=FULL over a bare sqlite3 loop with the same
    pragmas; the whole of etg verify (chain, signatures, shoes, replay, ledger) on a logged
    simulation; etg recall list --last 10 --terminal X on a log of 1,000,000 events. The big
    logs are built once and cached in the temporary directory.
    """
    import tempfile

    from tools.bench_log import bench_log
    from tools.bench_verify import bench_verify
    from tools.recall_cli import bench_recall

    with tempfile.TemporaryDirectory(prefix="etg-bench-log-", dir=directory) as scratch:
        if quick:
            appends = bench_log(
                scratch, events=4_000, repeats=3, verify_events=50_000, recall_events=100_000
            )
        else:
            appends = bench_log(scratch)
        cache = Path(tempfile.gettempdir())
        verify = bench_verify(cache / "etg-bench-verify", rounds=300 if quick else 2_000)
        recall = bench_recall(
            scratch, events=100_000 if quick else 1_000_000, cache_dir=cache / "etg-bench-recall"
        )
    figures = {
        "append_ratio": appends["append_ratio"],
        "verify_events_per_s": verify["events_per_second"],
        "recall_list_ms": recall["list_ms"],
        "details": {"appends": appends, "verify": verify, "recall": recall},
    }
    if as_json:
        click.echo(json.dumps(figures, default=str))
        return
    click.echo(f"append_ratio         {figures['append_ratio']:.3f}   (target >= 0.90)")
    click.echo(f"verify_events_per_s  {figures['verify_events_per_s']:,}   (target >= 50,000)")
    click.echo(f"recall_list_ms       {figures['recall_list_ms']:.2f}   (target < 100)")


@bench.command("floor")
@click.option(
    "--floor",
    "floor_dir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    required=True,
    help="A local floor made by 'etg floor up DIR' (a scratch database is made there).",
)
@click.option(
    "--events",
    type=click.IntRange(min=100),
    default=20_000,
    show_default=True,
    help="Events in the log that is written and then shipped.",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Repetitions of each measurement; the figures are medians.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench_floor_command(floor_dir: Path, events: int, repeats: int, as_json: bool) -> None:
    """Events shipped to the floor store per second, against events the server's own
    logging path writes per second in the same run; and a contribution's latency to a meter
    linked across the floor, against the same contribution to a server's own meter
    (medians)."""
    import tempfile

    from tools.bench_floor import bench_floor, bench_linked_meter

    with tempfile.TemporaryDirectory(prefix="etg-bench-floor-") as scratch:
        figures = bench_floor(floor_dir, Path(scratch), events=events, repeats=repeats)
        figures["linked_meter"] = meter = bench_linked_meter(
            floor_dir, Path(scratch), repeats=max(repeats, 3)
        )
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(f"logged_per_s   {figures['logged_per_s']:,.0f}   (EventLog.append, steps of 20)")
    click.echo(f"shipped_per_s  {figures['shipped_per_s']:,.0f}   (a whole log, from nothing)")
    click.echo(f"ratio          {figures['ratio']:.2f}   (shipped / logged, median)")
    click.echo(
        f"linked meter contribution  p50 {meter['linked_p50_ms']:.2f} ms  p99 "
        f"{meter['linked_p99_ms']:.2f} ms   (one store transaction, "
        f"{meter['contributions']:,} per run)"
    )
    click.echo(
        f"local meter contribution   p50 {meter['local_p50_ms']:.4f} ms  p99 "
        f"{meter['local_p99_ms']:.4f} ms   (MeterBank.contribute; p99 ratio "
        f"{meter['p99_ratio']:,.0f})"
    )


@bench.command("terminal")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--quick", is_flag=True, help="Fewer repetitions (a rough figure in seconds).")
def bench_terminal_command(as_json: bool, quick: bool) -> None:
    """Terminal frame time while cards animate, idle CPU and start to attract, at 1920x1080.

    Each against its peer in the same run: a full-window blit, the same app redrawing every
    frame, and a bare pygame window start-up. Runs headless (SDL dummy drivers).
    """
    from tools.bench_terminal import TerminalBenchSizes, bench_terminal, format_bench_terminal

    sizes = TerminalBenchSizes.quick() if quick else TerminalBenchSizes()
    progress = None if as_json or not sys.stderr.isatty() else _progress_to_stderr
    figures = bench_terminal(sizes, progress=progress)
    if as_json:
        click.echo(json.dumps(figures))
    else:
        click.echo(format_bench_terminal(figures))


def _register_subgroups() -> None:
    """Command groups that live in their own modules."""
    from game_server.cli import serve_command
    from terminal_client.cli import terminal
    from tools.backup import backup_command, restore_command
    from tools.console_cli import console, operator
    from tools.faults import faults_command
    from tools.floor_cli import floor, report
    from tools.install_cli import install
    from tools.loadtest import loadtest
    from tools.math_cli import math_command
    from tools.par_cli import par_command
    from tools.recall_cli import recall
    from tools.receipt_cli import receipt
    from tools.rng_lab import rng
    from tools.status import status_command
    from tools.strategy_cli import strategy_command
    from tools.verify_cli import verify

    main.add_command(serve_command)
    main.add_command(terminal)
    main.add_command(loadtest)
    main.add_command(faults_command)
    main.add_command(math_command)
    main.add_command(par_command)
    main.add_command(strategy_command)
    main.add_command(rng)
    main.add_command(recall)
    main.add_command(receipt)
    main.add_command(verify)
    main.add_command(console)
    main.add_command(operator)
    main.add_command(floor)
    main.add_command(report)
    main.add_command(backup_command)
    main.add_command(restore_command)
    main.add_command(status_command)
    main.add_command(install)


_register_subgroups()


if __name__ == "__main__":  # pragma: no cover
    main(prog_name="etg")
