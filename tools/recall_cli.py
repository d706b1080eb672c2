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

Its benchmark (``python -m tools.recall_cli bench``, and ``etg bench log``) is
:mod:`tools.recall_bench`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
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


def _main(argv: list[str]) -> None:
    """``python -m tools.recall_cli [bench ...]``: ``etg recall``, or its benchmark
    (:func:`tools.recall_bench.main`)."""
    if not argv or argv[0] != "bench":
        recall(argv)
        return
    from tools.recall_bench import main

    main(argv)


if __name__ == "__main__":
    _main(sys.argv[1:])
