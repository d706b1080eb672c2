"""``etg serve`` / ``python -m game_server``: run one table server.

Example::

    etg certs init certs --terminals 2
    etg serve --config game_server/games/blackjack/configs/fully-automated-blackjack.toml \\
              --db data/BJ-01.db --certs certs
"""

from __future__ import annotations

from pathlib import Path

import click

from game_server.config import example_config_path, load_config
from game_server.net.floor import MAX_TABLES
from shared.errors import ETGError


@click.command("serve")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The table's Rules Submission (TOML). Default: the example fully automated table.",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The table's event log (created if missing, recovered if not).",
)
@click.option(
    "--certs",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("certs"),
    show_default=True,
    help="Keys and certificates made by 'etg certs init'.",
)
@click.option(
    "--floor",
    "floor_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Terminal seats, revocations, port and limits (TOML). Default: T1..Tn on seats 1..n.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="Port (0: any free).")
@click.option("--interface", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--tables",
    type=click.IntRange(1, MAX_TABLES),
    default=1,
    show_default=True,
    help="Host this many copies of the table (ids <id>-1..<id>-K) in one process.",
)
@click.option(
    "--anchors",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Anchor stream: every signed checkpoint is also appended to this JSON-lines file as it "
    "is made, and the log is proven against it at start. Keep it on another disk or machine: "
    "without it a log cut back to one of its own checkpoints cannot be detected.",
)
@click.option(
    "--store",
    default=None,
    metavar="URL",
    help="The floor store (PostgreSQL, the shipping role), e.g. the URL 'etg floor up' prints: "
    "every event and signed checkpoint is shipped there as it is logged, and the log is "
    "proven against the checkpoints it holds at start. See README 'A casino floor'.",
)
@click.option(
    "--store-lag-limit",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds of shipping lag past which the operator is alarmed (the log and ReadMeters).",
)
@click.option(
    "--change-config",
    "change_reason",
    default=None,
    metavar="REASON",
    help="State an intended change of the Rules Submission or of the tables against those the "
    "log was written by (logged with REASON). Without it such a log is refused.",
)
@click.option(
    "--next-round-delay",
    type=click.FloatRange(min=0),
    default=3.0,
    show_default=True,
    help="Seconds between the end of a round and the next one.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Run the tables in this many processes behind the one port (one per core; tables "
    "sharing a local meter stay together). Each keeps its own log, <db stem>.worker-<k>.db. "
    "1: one process, the log --db. See game_server.net.workers.",
)
def serve_command(
    config_path: Path | None,
    db: Path,
    certs: Path,
    floor_path: Path | None,
    port: int | None,
    interface: str,
    tables: int,
    anchors: Path | None,
    store: str | None,
    store_lag_limit: float,
    change_reason: str | None,
    next_round_delay: float,
    workers: int,
) -> None:
    """Run the authoritative table server: mutual TLS 1.3, AMP, the event log."""
    from game_server.net.floor import load_floor
    from game_server.net.service import default_floor, serve

    if change_reason is not None and not change_reason.strip():
        raise click.BadParameter("say why the change is made", param_hint="'--change-config'")
    try:
        if workers > 1:  # --- etg serve --workers (issue 22): game_server.net.workers
            from game_server.net.workers import WorkerSpec, serve_workers

            spec = WorkerSpec(
                config=None if config_path is None else str(config_path),
                db=str(db),
                certs=str(certs),
                floor=None if floor_path is None else str(floor_path),
                tables=tables,
                anchors=None if anchors is None else str(anchors),
                change_reason=change_reason,
                next_round_delay=next_round_delay,
                workers=workers,
            )
            raise SystemExit(serve_workers(spec, port=port, interface=interface, store=store))
        from game_server.net.workers import refuse_worker_logs

        refuse_worker_logs(db)
        config = load_config(example_config_path() if config_path is None else config_path)
        floor = (
            default_floor(config, tables=tables) if floor_path is None else load_floor(floor_path)
        )
        serve(
            config,
            db,
            certs,
            floor,
            port=port,
            interface=interface,
            next_round_delay=next_round_delay,
            tables=tables,
            anchors=anchors,
            change_reason=change_reason,
            store=store,
            store_lag_limit=store_lag_limit,
        )
    except ETGError as exc:
        for line in str(exc).splitlines() or [type(exc).__name__]:
            click.echo(f"etg serve: error: {line}", err=True)
        raise SystemExit(2) from None
