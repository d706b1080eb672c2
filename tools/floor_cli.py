"""``etg floor``: the floor store (PostgreSQL) the table servers ship their logs to.

Registered on the ``etg`` group by :mod:`tools.cli`; the work is in :mod:`game_server.floor`.

- ``etg floor up DIR [--port P] [--user NAME]``: make and start a local floor cluster in DIR
  with its roles and schema, and print the URL of each role;
- ``etg floor down DIR``: stop it;
- ``etg floor url DIR [--role R]``: print one role's URL (for ``--store "$(...)"``);
- ``etg floor register --store ADMIN_URL --key PUB --server NAME``: register a server's
  log-signing public key (a log is taken only if its checkpoints' key is registered);
- ``etg floor migrate --store ADMIN_URL``: apply the pending schema migrations to a store;
- ``etg floor logs --store URL [--json]``: every log the store holds, and how far;
- ``etg floor meters --store URL [--verify] [--json]``: every linked meter the store holds,
  and with ``--verify`` every meter's whole history walked by the rules' arithmetic (exit 1
  when one does not follow).

Product errors are printed as ``etg: error: ...`` with exit status 2 (by the ``etg`` group).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

#: The login roles of the store (game_server.floor.names.ROLES) and what each is for; each
#: table server ships as a role of its own, made by etg floor register.
_ROLE_USE = {
    "investigator": "etg verify --store, etg floor logs, etg floor meters, etg floor verify",
    "admin": "etg floor register",
}


@click.group("floor")
def floor() -> None:
    """The floor store: PostgreSQL as the floor's system of record (README "A casino
    floor")."""


@floor.command("up")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="TCP port (first time).")
@click.option(
    "--user",
    default=None,
    help="When run as root: the unprivileged account PostgreSQL runs as (default postgres).",
)
def up(directory: Path, port: int | None, user: str | None) -> None:
    """Make (the first time) and start a local floor cluster in DIRECTORY: initdb, the roles,
    the database etg_floor and its schema; print each role's URL."""
    from game_server.floor.cluster import DATABASE, floor_up
    from game_server.floor.schema import SCHEMA_VERSION

    made, applied = floor_up(directory, port=port, user=user)
    done = f"; migrations applied now: {', '.join(applied)}" if applied else ""
    click.echo(
        f"floor store up in {made.directory}: PostgreSQL on 127.0.0.1:{made.port}, database "
        f"{DATABASE}, schema version {SCHEMA_VERSION}{done}"
    )
    for role in _ROLE_USE:
        click.echo(f"  {role:<12}  {made.url(role)}  ({_ROLE_USE[role]})")
    click.echo(
        f"register each table server (its own shipping role): etg floor register --floor "
        f"{directory} --server NAME --key CERTS"
    )
    click.echo(f"stop it with: etg floor down {directory}")


@floor.command("down")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def down(directory: Path) -> None:
    """Stop the local floor cluster in DIRECTORY (committed work is kept)."""
    from game_server.floor.cluster import floor_down

    if floor_down(directory):
        click.echo(f"floor store in {directory} stopped")
    else:
        click.echo(f"floor store in {directory} was not running")


@floor.command("url")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--role",
    type=click.Choice(sorted(_ROLE_USE)),
    default=None,
    help="Whose URL: the investigators' or the floor admin's.",
)
@click.option("--server", default=None, help="A registered table server's shipping URL.")
def url(directory: Path, role: str | None, server: str | None) -> None:
    """Print the URL of ROLE, or of the registered SERVER's shipping role, on the local floor
    in DIRECTORY."""
    from game_server.floor.cluster import LocalFloor

    if (role is None) == (server is None):
        raise click.UsageError("give --role or --server (one of them)")
    floor_ = LocalFloor.load(directory)
    click.echo(floor_.url(role) if role is not None else floor_.server_url(str(server)))


_STORE = click.option(
    "--store", "store_url", required=True, metavar="URL", help="The floor store's URL."
)


@floor.command("register")
@click.option("--store", "store_url", default=None, metavar="URL", help="The admin's URL.")
@click.option(
    "--floor",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A local floor (etg floor up): keeps the server's password there (etg floor url).",
)
@click.option(
    "--key",
    type=click.Path(path_type=Path),
    required=True,
    help="The server's log-signing public key: the .pub file, or its certs directory.",
)
@click.option("--server", required=True, help="The server's name on the floor, e.g. bank-03.")
def register(store_url: str | None, directory: Path | None, key: Path, server: str) -> None:
    """Register a table server with the store (the floor admin): its log-signing public key
    and its own shipping role, bound to that key; print the URL it ships with (etg serve
    --store), its password included: give it to that server only."""
    import secrets

    from game_server.floor.store import FloorStore, server_url
    from game_server.keys import key_id, load_public_key

    public = load_public_key(key)
    if (store_url is None) == (directory is None):
        raise click.UsageError("give --store (the admin's URL) or --floor (a local floor)")
    if directory is not None:
        from game_server.floor.cluster import LocalFloor, register_server

        shipping = register_server(LocalFloor.load(directory), public, server)
    else:
        password = secrets.token_urlsafe(24)
        store = FloorStore.connect(str(store_url))
        try:
            role = store.register_server(public, server, password)
        finally:
            store.close()
        shipping = server_url(str(store_url), role, password)
    click.echo(f"key {key_id(public)} registered for the server {server.strip()}", err=True)
    click.echo(shipping)


@floor.command("migrate")
@_STORE
def migrate_command(store_url: str) -> None:
    """Apply the pending schema migrations to the store: the database superuser's URL (the
    migrations run as the role that owns the store, which no day-to-day role may act as;
    the roles must exist: etg floor up makes them on a local floor)."""
    import psycopg

    from game_server.floor.errors import StoreUnavailable
    from game_server.floor.schema import SCHEMA_VERSION, migrate
    from game_server.floor.store import redacted

    try:
        with psycopg.connect(store_url, autocommit=True, connect_timeout=10) as conn:
            applied = migrate(conn)
    except psycopg.Error as exc:
        raise StoreUnavailable(
            f"cannot migrate the floor store {redacted(store_url)}: {exc}"
        ) from None
    said = ", ".join(applied) if applied else "none (up to date)"
    click.echo(f"schema version {SCHEMA_VERSION}; migrations applied now: {said}")


@floor.command("logs")
@_STORE
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def logs(store_url: str, as_json: bool) -> None:
    """Every log the store holds: its server and key, its last event and checkpoint, and
    whether the key's own shipping role claimed it (an investigator's or the admin's URL;
    etg floor verify proves each)."""
    from game_server.floor.store import FloorStore

    store = FloorStore.connect(store_url)
    try:
        found = store.logs()
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    if not found:
        click.echo("the store holds no log yet")
        return
    for entry in found:
        odd = ""
        if entry["claimed_by"] != entry["shipping_role"]:
            odd = (
                f"  NOT CLAIMED BY ITS SERVER: claimed by {entry['claimed_by']}, the key's "
                f"shipping role is {entry['shipping_role'] or 'none'}"
            )
        click.echo(
            f"{entry['server']:<12} {entry['log_id']}  key {entry['key_id']}  "
            f"{entry['log_kind'] or '?':<10} seq {entry['last_seq']:>9,}  checkpoint "
            f"#{entry['last_checkpoint']} (seq {entry['last_checkpoint_seq']:,})  last event "
            f"{entry['last_event_time'] or '-'}{odd}"
        )


@floor.command("verify")
@_STORE
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def verify_command(store_url: str, as_json: bool) -> None:
    """Prove every log and linked meter the store holds, with no SQLite file at hand (for an
    investigator whose table server is gone): each log's events chained from the first and
    each checkpoint signed by the key the log was claimed with; each linked meter's whole
    history by the rules' arithmetic. Exit 1 naming each that does not hold, 0 when all do
    (an investigator's or the admin's URL)."""
    from game_server.floor.meter_audit import check_history, read_meters
    from game_server.floor.source import FloorLogs
    from game_server.floor.store import FloorStore

    results: list[dict[str, Any]] = []
    with FloorLogs.connect(store_url) as floor_logs:
        for stored in floor_logs.logs():
            refused = floor_logs.verify(stored)
            results.append(
                {
                    "log_id": stored.log_id,
                    "server": stored.server,
                    "ok": refused is None,
                    "seq": None if refused is None else refused.seq,
                    "reason": None if refused is None else refused.reason,
                }
            )
    store = FloorStore.connect(store_url)
    try:
        held = read_meters(store, None)
    finally:
        store.close()
    meter_results = [
        {"meter": meter_id, "problems": [p.reason for p in check_history(held[meter_id])]}
        for meter_id in sorted(held)
    ]
    failed = sum(not r["ok"] for r in results) + sum(bool(m["problems"]) for m in meter_results)
    if as_json:
        click.echo(json.dumps({"ok": failed == 0, "logs": results, "meters": meter_results}))
    else:
        for r in results:
            where = "" if r["seq"] is None else f" at seq {r['seq']}"
            verdict = "VERIFIED" if r["ok"] else f"FAILED{where}: {r['reason']}"
            click.echo(f"log   {r['server']:<12} {r['log_id']}  {verdict}")
        for m in meter_results:
            verdict = "VERIFIED" if not m["problems"] else "FAILED: " + "; ".join(m["problems"])
            click.echo(f"meter {m['meter']:<24} {verdict}")
        click.echo(
            f"{len(results)} log(s), {len(meter_results)} linked meter(s): "
            + ("every one holds" if not failed else f"{failed} do not hold")
        )
    if failed:
        raise click.exceptions.Exit(1)


@floor.command("meters")
@_STORE
@click.option(
    "--verify",
    "check",
    is_flag=True,
    help="Walk every meter's whole history by the rules' arithmetic (seq from 1 with no gap, "
    "opened at its seed, each contribution, award and reseed as the rules give it, every row "
    "balanced); exit 1 when one does not follow.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def meters(store_url: str, check: bool, as_json: bool) -> None:
    """Every linked meter (605a.8) the store holds, as its last step stands (an
    investigator's or the admin's URL). ``etg verify DB --store URL`` checks a log's
    records of them."""
    from game_server.floor.meter_audit import check_history, read_meters
    from game_server.floor.store import FloorStore
    from shared.money import MILLICENTS_PER_CENT, format_money

    store = FloorStore.connect(store_url)
    try:
        held = read_meters(store, None)
    finally:
        store.close()
    found = []
    for meter_id in sorted(held):
        meter = held[meter_id]
        last = meter.steps[-1] if meter.steps else None
        entry: dict[str, Any] = {
            "meter": meter_id,
            "name": meter.spec.name,
            "seq": 0 if last is None else last.seq,
            "amount_millicents": None if last is None else last.amount,
            "reserve_millicents": None if last is None else last.reserve,
            "wagered": None if last is None else last.wagered,
            "paid": None if last is None else last.paid,
            "hits": None if last is None else last.hits,
        }
        if check:
            entry["problems"] = [problem.reason for problem in check_history(meter)]
        found.append(entry)
    failed = sum(len(entry.get("problems", ())) for entry in found)
    if as_json:
        click.echo(json.dumps(found, indent=2))
    elif not found:
        click.echo("the store holds no linked meter yet")
    for entry in found if not as_json else ():
        amount = entry["amount_millicents"]
        shown = "-" if amount is None else format_money(amount // MILLICENTS_PER_CENT)
        verdict = ""
        if check:
            verdict = "  FAILED" if entry["problems"] else "  history VERIFIED"
        click.echo(
            f"{entry['meter']:<24}  {entry['name']:<24}  seq {entry['seq']:>9,}  amount "
            f"{shown}  wagered {format_money(entry['wagered'] or 0)}  paid "
            f"{format_money(entry['paid'] or 0)}  hits {entry['hits'] or 0}{verdict}"
        )
        for reason in entry.get("problems", ()):
            click.echo(f"    {reason}")
    if failed:
        raise click.exceptions.Exit(1)


def _when(ctx: click.Context, param: click.Parameter, value: str) -> Any:
    """``--since``/``--until``: ISO 8601 (UTC if no zone; a date alone is its midnight, or
    for ``--until`` the midnight that ends it)."""
    from game_server.recall.query import RecallError, parse_time_arg

    try:
        return parse_time_arg(value, end_of_day=param.name == "until")
    except RecallError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("report")
@click.option(
    "--store",
    "store_url",
    required=True,
    metavar="URL",
    help="The floor store, read as an investigator (etg floor url DIR --role investigator).",
)
@click.option("--since", required=True, callback=_when, metavar="TIME", help="From TIME.")
@click.option(
    "--until",
    required=True,
    callback=_when,
    metavar="TIME",
    help="To TIME (a date alone includes that day).",
)
@click.option(
    "--shifts",
    default="06:00,14:00,22:00",
    show_default=True,
    metavar="HH:MM,...",
    help="The local start of each shift of a gaming day, in order.",
)
@click.option(
    "--timezone", default="UTC", show_default=True, help="The shifts' time zone (IANA name)."
)
@click.option("--server", default=None, help="Only the tables of this server.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (integer cents).")
def report(
    store_url: str,
    since: Any,
    until: Any,
    shifts: str,
    timezone: str,
    server: str | None,
    as_csv: bool,
) -> None:
    """The 605a.5(d) figures of every table of the floor per shift over [--since, --until):
    drop, coin in, wins, hold, the meters' contributions and awards (from the floor store)."""
    import datetime as dt
    import zoneinfo

    from game_server.console.reports import ShiftClock, report_csv
    from game_server.floor.report import floor_report, format_report
    from game_server.floor.source import FloorLogs

    try:
        starts = [dt.time.fromisoformat(part.strip()) for part in shifts.split(",")]
    except ValueError:
        raise click.BadParameter(
            f"{shifts!r}: give the shifts' local start times as HH:MM,HH:MM,...",
            param_hint="--shifts",
        ) from None
    if not starts or starts != sorted(set(starts)):
        raise click.BadParameter(
            f"{shifts!r}: each start time once, in order", param_hint="--shifts"
        )
    try:
        zone = zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise click.BadParameter(
            f"{timezone!r} is not an IANA time zone (e.g. America/New_York)",
            param_hint="--timezone",
        ) from None
    if until <= since:
        raise click.BadParameter("--until must be after --since", param_hint="--until")
    with FloorLogs.connect(store_url) as logs:
        sources = logs.sources(server)
        for refused in logs.refused:  # named, never folded into a figure
            click.echo(f"etg report: {refused.sentence()}", err=True)
        rows = floor_report(
            sources, ShiftClock(starts, zone), since, until, dt.datetime.now(dt.UTC)
        )
    if as_csv:
        click.echo(report_csv(rows), nl=False)
        return
    if not rows:
        click.echo("no table played in those shifts")
        return
    for line in format_report(rows):
        click.echo(line)
