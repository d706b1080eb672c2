"""``etg recall``: game recall from an event log, for an operator or an investigator.

- ``etg recall list DB``: the most recent rounds, newest first (default the last 10: the
  current game and the nine before it, AGCO Standards 13.1.1 / GLI-11 "Game Recall"), one
  line each: table, round, start and end time (UTC), terminals, total wagered, total paid,
  the biggest single win and its paytable line, complete or interrupted.
- ``etg recall show DB ROUND``: the round's full history in the order it was played
  (standards-gli.md section 3): every wager, every card with its place in the shoe, every
  decision with its time and whether the player or the countdown made it, the peek, every
  settlement with its paytable line, each terminal's credits at the start and end, and the
  meter changes of the round.

Both open the log through :class:`~game_server.eventlog.EventLogReader`, a read-only
connection: recall never writes to the log. A file that is not an event log, a missing file,
a log newer than this code, an unknown or ambiguous round: one ``etg: error:`` line on stderr
and exit status 2.

The queries are in :mod:`game_server.recall.query`, the timeline in
:mod:`game_server.recall.timeline`; this module parses options and prints. The lead
registers :data:`recall` with ``main.add_command(recall)``.

:func:`bench_recall` measures ``etg recall list --last 10 --terminal X`` (and the other
paths) on a realistic log of 1,000,000 events (``python -m tools.recall_cli bench``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final, NoReturn

import click

from game_server.eventlog import EventLogReader, EventSource
from game_server.recall.query import (
    DEFAULT_LAST,
    RecallError,
    RoundSummary,
    fetch_round,
    find_table,
    list_rounds,
    parse_time_arg,
    recall_round,
    shoe_reveal,
)
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline, build_timeline, format_timeline, short_time
from shared.errors import ETGError
from shared.money import format_money

#: Exit status of a refused command (the status click uses for a usage error).
EXIT_ERROR: Final = 2


def _fail(exc: BaseException) -> NoReturn:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [repr(exc)]
    for line in lines:
        click.echo(f"etg: error: {line}", err=True)
    raise click.exceptions.Exit(EXIT_ERROR)


@contextmanager
def _reading(db: Path, immutable: bool = False) -> Iterator[EventLogReader]:
    """The log at ``db``, read-only; a product error becomes one line and exit status 2."""
    try:
        with EventLogReader.open(db, immutable=immutable) as reader:
            yield reader
    except ETGError as exc:
        _fail(exc)


def _time(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime | None:
    """``--since``/``--until``: ISO 8601, naive = UTC; a date alone is its midnight, or for
    ``--until`` the midnight that ends it (:func:`~game_server.recall.query.parse_time_arg`)."""
    if value is None:
        return None
    try:
        return parse_time_arg(value, end_of_day=param.name == "until")
    except RecallError as exc:
        raise click.BadParameter(str(exc)) from None


_DB = click.argument("db", type=click.Path(dir_okay=True, path_type=Path), required=False)
_STORE = click.option(
    "--store",
    default=None,
    metavar="URL",
    help="Read every table log of the floor store instead of one file (the investigator's "
    "URL: etg floor url DIR --role investigator).",
)
_SERVER = click.option("--server", default=None, help="With --store: only the logs of this server.")


def _one_source(db: Path | None, store: str | None, server: str | None) -> None:
    """Exactly one of DB and --store; --server only with --store."""
    if (db is None) == (store is None):
        raise click.UsageError("give the log file DB, or --store URL (not both)")
    if server is not None and store is None:
        raise click.UsageError("--server needs --store")


@contextmanager
def _floor(store: str, server: str | None) -> Iterator[Any]:
    """The store's table logs (of ``server``), read as an investigator."""
    from game_server.floor.source import FloorLogs

    try:
        with FloorLogs.connect(store) as logs:
            sources = logs.sources(server)
            for refused in logs.refused:  # named, never folded
                click.echo(f"etg recall: {refused.sentence()}", err=True)
            yield sources
    except ETGError as exc:
        _fail(exc)


_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (integer cents).")
_IMMUTABLE = click.option(
    "--immutable",
    is_flag=True,
    help="For a copy kept as evidence that nothing writes to: take no locks and create no "
    "-wal/-shm files beside it (never for a live log; refused if its -wal holds data).",
)


@click.group("recall", context_settings={"help_option_names": ["-h", "--help"]})
def recall() -> None:
    """Game recall: list past rounds and show one round in full (the log is only read)."""


@recall.command("list")
@_DB
@click.option(
    "--last",
    type=click.IntRange(min=1),
    default=DEFAULT_LAST,
    show_default=True,
    help="At most this many rounds, newest first.",
)
@click.option("--table", default=None, help="Only rounds of this table.")
@click.option("--terminal", default=None, help="Only rounds this terminal took part in.")
@click.option(
    "--since",
    callback=_time,
    default=None,
    metavar="TIME",
    help="Only rounds with an event at or after TIME (ISO 8601, UTC if no zone; a date "
    "alone is its midnight).",
)
@click.option(
    "--until",
    callback=_time,
    default=None,
    metavar="TIME",
    help="Only rounds with an event before TIME (a date alone includes that day).",
)
@click.option(
    "--wager",
    default=None,
    metavar="NAME",
    help="Only rounds where this wager was placed (ante, lucky_aces, insurance, "
    "double, ...). Scans back through the log's wagers until --last rounds qualify.",
)
@click.option(
    "--min-payout",
    type=click.IntRange(min=0),
    default=None,
    metavar="CENTS",
    help="Only rounds where a single wager paid at least CENTS (stake included).",
)
@_STORE
@_SERVER
@_IMMUTABLE
@_JSON
def list_command(
    db: Path | None,
    last: int,
    table: str | None,
    terminal: str | None,
    since: datetime | None,
    until: datetime | None,
    wager: str | None,
    min_payout: int | None,
    store: str | None,
    server: str | None,
    immutable: bool,
    as_json: bool,
) -> None:
    """The most recent rounds of the log at DB (or of every table log of the floor store,
    with --store), newest first, one line each."""
    _one_source(db, store, server)
    if store is not None:
        from game_server.floor.recall import floor_rounds

        with _floor(store, server) as sources:
            found = floor_rounds(
                sources,
                last=last,
                terminal=terminal,
                table=table,
                since=since,
                until=until,
                wager=wager,
                min_payout=min_payout,
            )
        _print_rounds([f.summary for f in found], as_json, [f.server for f in found])
        return
    assert db is not None
    with _reading(db, immutable) as reader:
        rounds = list_rounds(
            reader,
            last=last,
            terminal=terminal,
            table=table,
            since=since,
            until=until,
            wager=wager,
            min_payout=min_payout,
        )
    _print_rounds(rounds, as_json)


def _print_rounds(
    rounds: Sequence[RoundSummary], as_json: bool, servers: Sequence[str] | None = None
) -> None:
    if as_json:
        items = [summary.to_json() for summary in rounds]
        if servers is not None:
            items = [{"server": name, **item} for name, item in zip(servers, items, strict=True)]
        click.echo(json.dumps(items))
        return
    if not rounds:
        click.echo("no rounds match")
        return
    for line in format_round_list(rounds, servers):
        click.echo(line)


def format_round_list(
    rounds: Sequence[RoundSummary], servers: Sequence[str] | None = None
) -> list[str]:
    """The text of ``etg recall list``: a header and one aligned line per round (with the
    server whose log holds it first, when ``servers`` names them: ``--store``)."""
    header: tuple[str, ...] = (
        "table",
        "round",
        "start (UTC)",
        "end (UTC)",
        "terminals",
        "wagered",
        "paid",
        "biggest win",
        "status",
    )
    right = {1, 5, 6}
    rows: list[tuple[str, ...]] = [header]
    for item in rounds:
        win = item.biggest_win
        best = "-"
        if win is not None:
            best = f"{format_money(win.paid)} {win.line}" + (
                f" ({win.terminal})" if win.terminal else ""
            )
        rows.append(
            (
                item.table_id,
                str(item.round_id),
                short_time(item.start),
                short_time(item.end),
                ",".join(item.terminals) or "-",
                format_money(item.wagered),
                format_money(item.paid),
                best,
                item.status,
            )
        )
    if servers is not None:
        rows = [("server", *rows[0])] + [
            (name, *row) for name, row in zip(servers, rows[1:], strict=True)
        ]
        right = {i + 1 for i in right}
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def _db_and_round(places: tuple[str, ...], store: str | None) -> tuple[Path | None, int]:
    """``DB ROUND`` (one file), or ``ROUND`` alone (with ``--store``)."""
    if store is None and len(places) != 2:
        raise click.UsageError("give the log file DB and the ROUND (or --store URL and ROUND)")
    if store is not None and len(places) != 1:
        raise click.UsageError("with --store give the ROUND only (not the log file DB)")
    try:
        round_id = int(places[-1])
    except ValueError:
        round_id = -1
    if round_id < 0:
        raise click.BadParameter(f"{places[-1]!r} is not a round number", param_hint="ROUND")
    return (Path(places[0]) if store is None else None), round_id


def _show(
    source: EventSource,
    table_id: str,
    round_id: int,
    png: Path | None,
    frames: Path | None,
    terminal: str | None,
    size: tuple[int, int],
) -> Timeline:
    """The timeline of one round of ``source``, and its pictures if asked for."""
    with source.snapshot():
        logged = fetch_round(source, table_id, round_id)
        if logged is None:
            raise RecallError(f"there is no round {round_id} of table {table_id}")
        timeline = build_timeline(logged, revealed=shoe_reveal(source, logged))
        if png is None and frames is None:
            return timeline
        from game_server.recall.pictures import seated
        from tools.recall_pictures import write_pictures

        who = seated(logged, terminal)[1]
        # The receipt's QR code is drawn from a log file; the floor store's pictures have none.
        receipt = (
            _picture_receipt(source, logged, who) if isinstance(source, EventLogReader) else None
        )
    write_pictures(
        logged, timeline, png=png, frames=frames, terminal=who, size=size, receipt=receipt
    )
    if frames is not None:
        click.echo(f"wrote {len(timeline.entries)} pictures into {frames}", err=True)
    if png is not None:
        click.echo(f"wrote {png}", err=True)
    return timeline


def _size(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, int]:
    """``--size WxH`` of recall pictures (:func:`tools.recall_pictures.parse_size`)."""
    from game_server.recall.pictures import RecallPictureError
    from tools.recall_pictures import parse_size

    try:
        return parse_size(value)
    except RecallPictureError as exc:
        raise click.BadParameter(str(exc)) from None


@recall.command("show")
@click.argument("places", nargs=-1, metavar="[DB] ROUND")
@click.option("--table", default=None, help="The table (needed if several played ROUND).")
@click.option(
    "--png",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Also draw the round's final table, as the terminal showed it, into FILE (PNG).",
)
@click.option(
    "--frames",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Also draw one picture per event of the round: DIR/event-0001.png ... (DIR is "
    "created if missing).",
)
@click.option(
    "--terminal",
    default=None,
    help="Whose view the pictures show (default: the first terminal with a wager).",
)
@click.option(
    "--size",
    callback=_size,
    default="1920x1080",
    show_default=True,
    metavar="WxH",
    help="Size of the pictures in pixels.",
)
@_STORE
@_SERVER
@_IMMUTABLE
@_JSON
def show_command(
    places: tuple[str, ...],
    table: str | None,
    png: Path | None,
    frames: Path | None,
    terminal: str | None,
    size: tuple[int, int],
    store: str | None,
    server: str | None,
    immutable: bool,
    as_json: bool,
) -> None:
    """Round ROUND of the log at DB (or of the floor store's log that holds it, with
    --store), step by step in the order it was played.

    With --png or --frames it also draws the table as the terminal showed it, with the
    terminal's own drawing code; the files written are listed on stderr.
    """
    db, round_id = _db_and_round(places, store)
    _one_source(db, store, server)
    if store is not None:
        from game_server.floor.recall import floor_round

        with _floor(store, server) as sources:
            try:
                source, table_id = floor_round(sources, round_id, table)
            except ETGError as exc:
                _fail(exc)
            click.echo(f"server {source.server}, log {source.log_id}", err=True)
            timeline = _show(source, table_id, round_id, png, frames, terminal, size)
    else:
        assert db is not None
        with _reading(db, immutable) as reader:
            if png is None and frames is None:
                timeline = recall_round(reader, round_id, table)
            else:
                table_id = find_table(reader, round_id, table)
                timeline = _show(reader, table_id, round_id, png, frames, terminal, size)
    if as_json:
        click.echo(json.dumps(timeline.to_json(), ensure_ascii=False))
        return
    for line in format_timeline(timeline):
        click.echo(line)


def _picture_receipt(
    reader: EventLogReader, logged: LoggedRound, terminal: str
) -> dict[str, Any] | None:
    """The receipt of ``terminal``'s game drawn into its recall pictures (None: the round
    has no shoe commitment in the log, or the terminal is not among its players)."""
    from game_server.recall.receipt import build_receipt

    try:
        return build_receipt(reader, logged, terminal)
    except RecallError:
        return None


@recall.command("receipt")
@_DB
@click.argument("round_id", metavar="ROUND", type=click.IntRange(min=0))
@click.option("--table", default=None, help="The table (needed if several played ROUND).")
@click.option(
    "--terminal",
    default=None,
    help="Whose receipt: that terminal's cards and the table's (default: every card).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Write the receipt into FILE instead of printing it.",
)
@click.option("--qr", is_flag=True, help="Also print the receipt's QR code (on stderr).")
@_IMMUTABLE
def receipt_command(
    db: Path,
    round_id: int,
    table: str | None,
    terminal: str | None,
    out: Path | None,
    qr: bool,
    immutable: bool,
) -> None:
    """The game receipt of round ROUND: its cards with their positions in the shoe, the
    shoe's commitment and (once the shoe is retired) its reveal, as JSON that anyone can
    check with tools/verify_receipt.py or 'etg receipt verify' (docs/shoe-spec.md)."""
    from game_server.recall.receipt import build_receipt

    with _reading(db, immutable) as reader:
        try:
            with reader.snapshot():
                table_id = find_table(reader, round_id, table)
                logged = fetch_round(reader, table_id, round_id)
                if logged is None:  # pragma: no cover - find_table saw it in this snapshot
                    raise RecallError(f"there is no round {round_id} of table {table_id}")
                receipt = build_receipt(reader, logged, terminal)
        except ETGError as exc:
            _fail(exc)
    text = json.dumps(receipt, ensure_ascii=False, indent=2) + "\n"
    if out is None:
        click.echo(text, nl=False)
    else:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            _fail(RecallError(f"cannot write the receipt to {out}: {exc.strerror or exc}"))
        click.echo(f"wrote {out}", err=True)
    if receipt["reveal"] is None:
        click.echo(
            f"shoe {receipt['game']['shoe']['number']} is not retired yet: the receipt holds "
            "no reveal, ask for it again once the shoe is retired",
            err=True,
        )
    if qr:
        import io

        import segno

        buffer = io.StringIO()
        segno.make(receipt["qr"], error="m").terminal(out=buffer, compact=True)
        click.echo(buffer.getvalue(), err=True, nl=False)
        click.echo(receipt["qr"], err=True)


# -- benchmark ---------------------------------------------------------------------------------

#: Tables of the benchmark log; the odd ones offer Lucky Aces.
BENCH_TABLES: Final = ("BJ-01", "BJ-02", "BJ-03", "BJ-04")
#: Seats (terminals) per table.
BENCH_SEATS: Final = 5
#: The terminal the benchmark recalls (plays at BJ-03, which offers Lucky Aces).
BENCH_TERMINAL: Final = "BJ-03-T2"
#: A terminal at a table without Lucky Aces: ``--wager lucky_aces`` scans all its history.
BENCH_TERMINAL_NO_SIDE: Final = "BJ-02-T1"
#: Rows per transaction while building.
_BULK_ROWS: Final = 50_000
_BUILD_FORMAT: Final = 1


class _StepClock:
    """A fake clock: every reading is ``step`` later than the one before."""

    def __init__(self, start: datetime, step: timedelta) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


class _BulkSink:
    """An event sink for :class:`~game_server.table.session.TableSession` that plans rows
    with the log's own :func:`~game_server.eventlog.plan_step` and checkpoint message, and
    inserts them in big transactions on a raw connection (a benchmark fixture only)."""

    def __init__(
        self, conn: sqlite3.Connection, key: Any, log_id: str, meta: str, clock: _StepClock
    ) -> None:
        from game_server.eventlog import GENESIS_HASH, ChainHead
        from game_server.keys import key_id

        self.conn = conn
        self.key = key
        self.kid = key_id(key)
        self.log_id = log_id
        self.meta = meta
        self.clock = clock
        self.head = ChainHead(0, GENESIS_HASH)
        self.number = 0
        self.rows: list[Any] = []
        self.checkpoints: list[tuple[int, int, str, str, str, str, str, str]] = []

    def append(self, step: Sequence[Any], *, checkpoint: str | None = None) -> Sequence[object]:
        from game_server.eventlog import ChainHead, checkpoint_message, format_time, plan_step

        moment = format_time(self.clock())
        rows = plan_step(self.head, moment, step)
        if rows:
            self.head = ChainHead(rows[-1][0], rows[-1][7])
        self.rows.extend(rows)
        if checkpoint is not None:
            self.number += 1
            message = checkpoint_message(
                log_id=self.log_id,
                number=self.number,
                seq=self.head.seq,
                hash=self.head.hash,
                time=moment,
                reason=checkpoint,
                key_id=self.kid,
                meta=self.meta,
            )
            signature = self.key.sign(message).hex()
            self.checkpoints.append(
                (self.number, self.head.seq, self.head.hash, moment, checkpoint, self.kid,
                 signature, self.meta)
            )  # fmt: skip
        if len(self.rows) >= _BULK_ROWS:
            self.flush()
        return rows

    def flush(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self.rows)
        self.conn.executemany(
            "INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self.checkpoints
        )
        self.conn.execute("COMMIT")
        self.rows.clear()
        self.checkpoints.clear()


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def build_bench_log(
    path: Path,
    keys_dir: Path,
    events: int = 1_000_000,
    seed: int = 5,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Build a realistic log of about ``events`` events: real rounds, bulk-inserted.

    Four tables (:data:`BENCH_TABLES`) of the example config's game (the fully automated
    Blackjack table, Lucky Aces at BJ-01 and BJ-03) of five terminals each play in turn
    through the game's bots at the live table's own session (:meth:`Game.busy_table
    <game_server.games.api.Game.busy_table>`): sealed, committed and revealed shoes, wallets,
    ``round_started`` / ``round_closed`` with balances, a signed checkpoint per round close.
    Each seat sits out a round now and then, 3% of decisions are the countdown's, some
    players take insurance. Steps are 0.75 s apart from 2026-01-01. The rows are planned by
    the log's own ``plan_step`` and inserted in transactions of 50,000 rows on a raw
    connection (``synchronous=OFF``: a fixture, rebuilt if interrupted); the log is then
    opened by ``EventLog.create_or_open`` (which rechecks its tail) and closed with a signed
    shutdown checkpoint. ``tools.bench_log``'s builder was not reused: its synthetic rounds
    are not decodable records (no ``table_opened``, partial bodies), which recall needs.

    Returns:
        The number of rounds played.
    """
    from game_server import games
    from game_server.config import example_config_path, load_config
    from game_server.eventlog import EventLog
    from game_server.keys import key_id, load_public_key, load_sealing_key, load_signing_key
    from game_server.table.session import SealedShoes, simulation_seeds

    tmp = path.with_name(path.name + ".building")
    _remove_db(tmp)
    clock = _StepClock(datetime(2026, 1, 1, tzinfo=UTC), timedelta(milliseconds=750))
    log = EventLog.create_or_open(tmp, keys_dir, clock)
    log_id = log.log_id
    meta = log.store.state.meta_digest()  # what every checkpoint signs (schema 4)
    log.close(checkpoint=False)
    signing_key = load_signing_key(keys_dir)
    sealing_key = load_sealing_key(keys_dir)
    kid = key_id(load_public_key(keys_dir))
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    sink = _BulkSink(conn, signing_key, log_id, meta, clock)
    base = load_config(example_config_path())
    game = games.game_for(base)
    rng = random.Random(seed)
    tables = []
    for index, table_id in enumerate(BENCH_TABLES):
        config = dataclasses.replace(base, table_id=table_id)
        shoes = SealedShoes(config, simulation_seeds(seed + index, table_id), sealing_key, kid)
        seats = {f"{table_id}-T{seat}": seat for seat in range(1, BENCH_SEATS + 1)}
        tables.append(game.busy_table(config, sink, shoes, seats, index))
    rounds = 0
    while sink.head.seq < events:
        tables[rounds % len(tables)].play_round(rng.random)
        rounds += 1
        if progress is not None and rounds % 1000 == 0:
            progress(sink.head.seq)
    for table in tables:
        table.close()
    sink.flush()
    conn.close()
    EventLog.create_or_open(tmp, keys_dir, clock).close()
    _remove_db(path)
    os.replace(tmp, path)
    return rounds


def cached_bench_log(cache_dir: Path, events: int) -> tuple[Path, Path, float | None]:
    """The benchmark log of about ``events`` events in ``cache_dir`` (built if missing):
    ``(log, key directory, seconds spent building or None if cached)``."""
    from game_server.eventlog import SCHEMA_VERSION
    from game_server.keys import init_keys

    cache_dir.mkdir(parents=True, exist_ok=True)
    keys_dir = cache_dir / "keys"
    path = cache_dir / f"recall-{events}-f{_BUILD_FORMAT}-s{SCHEMA_VERSION}.db"
    if not (keys_dir / "log-signing.key").exists():
        init_keys(keys_dir, force=True)
        _remove_db(path)
    if path.exists():
        return path, keys_dir, None
    start = time.perf_counter()
    build_bench_log(path, keys_dir, events)
    return path, keys_dir, time.perf_counter() - start


def _median_ms(action: Callable[[], object], calls: int) -> tuple[float, float]:
    """``(median, first)`` wall time of ``calls`` calls of ``action``, in milliseconds."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), times[0]


def bench_recall(
    tmpdir: str | os.PathLike[str],
    *,
    events: int = 1_000_000,
    calls: int = 21,
    cache_dir: str | os.PathLike[str] | None = None,
    compare_walk: bool = False,
) -> dict[str, Any]:
    """Measure recall on a log of ``events`` events; returns figures, asserts nothing.

    The headline figure ``list_ms`` is the median wall time of the whole command ``etg
    recall list DB --last 10 --terminal BJ-03-T2`` run in-process through click (open the
    log read-only, query, summarise, format), over ``calls`` runs; target < 100 ms.
    ``details`` adds the query alone on an open reader, the first run, a fresh Python
    process (interpreter start and imports included), the ``--wager`` / ``--min-payout``
    scans (common, and never matching: the worst case), and ``show`` of the terminal's last
    round (with ``compare_walk``, also ``rounds.load_round``, which walks the log).

    Args:
        tmpdir: Where the log is built and kept if ``cache_dir`` is None.
        events: Size of the log.
        calls: Runs per figure (medians).
        cache_dir: Keep the log here between runs (built once, reused).
        compare_walk: Also time ``load_round`` (reads the log from its start: seconds).
    """
    from click.testing import CliRunner

    from game_server.recall.query import fetch_round
    from game_server.recall.rounds import load_round

    cache = Path(cache_dir) if cache_dir is not None else Path(tmpdir)
    path, _, built_s = cached_bench_log(cache, events)
    db = str(path)
    runner = CliRunner()

    def cli(*args: str) -> Callable[[], None]:
        def run() -> None:
            result = runner.invoke(recall, list(args))
            if result.exit_code != 0:
                raise RuntimeError(f"recall {' '.join(args)} failed: {result.output}")

        return run

    terminal = ["--terminal", BENCH_TERMINAL]
    list_ms, first_ms = _median_ms(cli("list", db, "--last", "10", *terminal), calls)
    json_ms, _ = _median_ms(cli("list", db, "--last", "10", *terminal, "--json"), calls)
    with EventLogReader.open(path) as reader:
        query_ms, _ = _median_ms(
            lambda: list_rounds(reader, last=10, terminal=BENCH_TERMINAL), calls
        )
        latest = list_rounds(reader, last=1, terminal=BENCH_TERMINAL)[0]
        events_in_log = reader.max_seq()
        rounds_in_log = _count_kind(reader, "round_started")
        fetch_ms, _ = _median_ms(
            lambda: fetch_round(reader, latest.table_id, latest.round_id), calls
        )
        walk_ms = None
        if compare_walk:
            walk_ms, _ = _median_ms(lambda: load_round(reader, latest.table_id, latest.round_id), 1)
    show_ms, _ = _median_ms(
        cli("show", db, str(latest.round_id), "--table", latest.table_id), calls
    )
    few = max(3, calls // 4)
    scans = {
        "wager_common_ms": ("--wager", "lucky_aces", *terminal),
        "wager_absent_for_terminal_ms": (
            "--wager", "lucky_aces", "--terminal", BENCH_TERMINAL_NO_SIDE
        ),
        "wager_insurance_any_table_ms": ("--wager", "insurance"),
        "min_payout_2500_ms": ("--min-payout", "2500", *terminal),
        "min_payout_never_any_table_ms": ("--min-payout", "100000000"),
    }  # fmt: skip
    scan_ms = {
        name: _median_ms(cli("list", db, "--last", "10", *args), few)[0]
        for name, args in scans.items()
    }
    process_ms = _process_ms(db, few)
    return {
        "list_ms": list_ms,
        "details": {
            "command": f"etg recall list {db} --last 10 --terminal {BENCH_TERMINAL}",
            "list_first_run_ms": first_ms,
            "list_json_ms": json_ms,
            "list_query_only_ms": query_ms,
            "list_fresh_process_ms": process_ms,
            "show_ms": show_ms,
            "fetch_round_ms": fetch_ms,
            "load_round_walk_ms": walk_ms,
            **scan_ms,
            "log_events": events_in_log,
            "log_rounds": rounds_in_log,
            "log_bytes": path.stat().st_size,
            "built_s": built_s,
            "calls": calls,
            "sqlite": sqlite3.sqlite_version,
            "python": sys.version.split()[0],
        },
    }


def _count_kind(reader: EventLogReader, kind: str) -> int:
    from game_server.recall.query import _rows

    return int(_rows(reader, "SELECT count(*) FROM events WHERE kind = ?", [kind])[0][0])


def _process_ms(db: str, runs: int) -> float:
    """Median wall time of the list command in a fresh interpreter (start-up included)."""
    code = (
        "from tools.recall_cli import recall; "
        f"recall(['list', {db!r}, '--last', '10', '--terminal', {BENCH_TERMINAL!r}])"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, check=True
        )
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _main(argv: list[str]) -> None:
    """``python -m tools.recall_cli bench [--events N] [--walk] [--cache DIR]``."""
    if not argv or argv[0] != "bench":
        recall(argv)
        return
    events = 1_000_000
    if "--events" in argv:
        events = int(argv[argv.index("--events") + 1])
    cache = argv[argv.index("--cache") + 1] if "--cache" in argv else None
    default_cache = os.path.join(tempfile.gettempdir(), "etg-bench-recall")
    figures = bench_recall(
        default_cache,
        events=events,
        cache_dir=cache,
        compare_walk="--walk" in argv,
    )
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    _main(sys.argv[1:])
