"""``etg status``: is the table server up, what state is each table in, how far is the log,
its anchors and its last backup, one line per item (or JSON), for a monitoring system.

Each item is read where it lives, so that one broken part does not hide the others:

- ``server`` and one ``table`` item per table: the operator's ``ReadMeters`` over mutual
  TLS (the operator certificate), which carries each table's state and reason, the
  terminals seated and online, whether the server holds SQLite's lock on its log (a
  ``lock`` item) and, with ``etg serve --store``, the shipping to the floor store (a
  ``store`` item);
- ``log``: the event log opened read-only: its last sequence number and when it was written;
- ``anchors``: the anchor stream's last checkpoint of this log against the log's end: how
  many events are not yet anchored, and how long ago the first of them was logged (the
  anchor lag);
- ``backup``: the newest ``backup.json`` of this log in the backup folder (``etg backup``):
  when, how far, proven or not.

An item is ``ok`` or ``ALARM``: the server does not answer; a table is out of service; the
server lost SQLite's lock on its log (another program opened it read-write); the
store refuses the log or lags past the server's limit; the anchor lag passes
``--anchor-lag-limit``; the newest backup failed its proof or is older than
``--backup-age-limit``; a file cannot be read. The exit status is 0 when every item is ok, 1
when any is an alarm (a monitoring system's check), 2 for bad options.

Entry points: :func:`collect` (the items) and the click command :func:`status_command`.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import click

from shared.errors import ETGError

#: The anchor lag (seconds) past which ``anchors`` is an alarm, by default.
ANCHOR_LAG_LIMIT: Final = 300.0
#: The age (hours) of the newest backup past which ``backup`` is an alarm, by default
#: (the backup timer runs hourly: two hours is one missed run).
BACKUP_AGE_LIMIT: Final = 2.0
#: Seconds to connect to the server and get its answer.
TIMEOUT: Final = 5.0
#: Bytes read from the end of the anchor stream to find this log's last anchor.
TAIL_BYTES: Final = 256 * 1024


@dataclass
class Item:
    """One line of the status.

    Attributes:
        item: What it is: ``server``, ``table``, ``store``, ``log``, ``anchors``, ``backup``.
        ok: False: an alarm.
        text: The line's sentence.
        figures: What a monitoring system reads (``--json``).
    """

    item: str
    ok: bool
    text: str
    figures: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        """``server   ok     up at ...``."""
        return f"{self.item:<8} {'ok' if self.ok else 'ALARM':<6} {self.text}"

    def to_json(self) -> dict[str, Any]:
        """The item for ``--json``."""
        return {"item": self.item, "ok": self.ok, "text": self.text, **self.figures}


@dataclass(frozen=True)
class Where:
    """Where ``etg status`` looks.

    Attributes:
        server: ``(host, port)`` of the table server.
        certs: The folder with ``ca.pem`` and ``operator.pem``/``.key``.
        hostname: The name on the server's certificate.
        db: The event log (None: no ``log`` item, no ``anchors`` item).
        anchors: The anchor stream (None: no ``anchors`` item).
        backups: The backup folder (None: no ``backup`` item).
        anchor_lag_limit: Seconds.
        backup_age_limit: Hours.
    """

    server: tuple[str, int]
    certs: Path
    hostname: str
    db: Path | None = None
    anchors: Path | None = None
    backups: Path | None = None
    anchor_lag_limit: float = ANCHOR_LAG_LIMIT
    backup_age_limit: float = BACKUP_AGE_LIMIT


def _ago(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.1f} h ago"


# --------------------------------------------------------------------------------------------
# The server


def server_items(where: Where) -> list[Item]:
    """``server``, one ``table`` per table, and ``store`` when the server ships to one."""
    from shared.protocol import PROTOCOL_VERSION
    from tools.amp_client import AmpClient, AmpError

    host, port = where.server
    address = f"{host}:{port}"
    started = time.perf_counter()
    try:
        client = AmpClient(
            port, where.certs, "operator", TIMEOUT, host=host, hostname=where.hostname
        )
    except (OSError, ValueError) as exc:
        return [Item("server", False, f"down: cannot connect to {address}: {exc}", {"up": False})]
    try:
        client.call("Hello", version=PROTOCOL_VERSION, software="etg status")
        meters = json.loads(client.call("ReadMeters")["meters"])
    except (AmpError, OSError, ConnectionError, ValueError, KeyError) as exc:
        return [Item("server", False, f"down: {address} did not answer: {exc}", {"up": False})]
    finally:
        client.close()
    ms = (time.perf_counter() - started) * 1000
    items = [Item("server", True, f"up at {address} (answered in {ms:.0f} ms)", {"up": True})]
    floor = meters.get("floor") or {}
    online = set(floor.get("online", []))
    seated: dict[str, str] = floor.get("tables") or {}
    tables = meters.get("tables") or {meters.get("table", "?"): meters}
    for table, figures in sorted(tables.items()):
        state = str(figures.get("state", "?"))
        reason = figures.get("reason")
        members = [t for t in floor.get("terminals", {}) if not seated or seated.get(t) == table]
        here = sorted(online.intersection(members))
        text = f"{table}: {state}" + (f" ({reason})" if reason else "")
        text += f", games {figures.get('games_played', 0):,}, {len(here)} of "
        text += f"{len(members)} terminal(s) online"
        items.append(
            Item(
                "table",
                state != "out-of-service",
                text,
                {
                    "table": table,
                    "state": state,
                    "reason": reason,
                    "games_played": figures.get("games_played"),
                    "online": here,
                },
            )
        )
    lock = (meters.get("event_log") or {}).get("lock")
    if isinstance(lock, dict):
        items.append(_lock_item(lock))
    shipping = meters.get("store_shipping")
    if isinstance(shipping, dict):
        alarm = shipping.get("alarm")
        text = (
            f"{shipping.get('store', 'the floor store')}: shipped to seq "
            f"{shipping.get('shipped_seq', '?')}, {shipping.get('events_behind', '?')} event(s) "
            f"behind, lag {shipping.get('lag_ms', 0) / 1000:.1f} s"
        ) + (f"; {alarm}" if alarm else "")
        items.append(Item("store", alarm is None, text, {"store_shipping": shipping}))
    return items


def _lock_item(lock: dict[str, Any]) -> Item:
    """``lock``: whether the server holds SQLite's lock on its log
    (:mod:`game_server.eventlog.locks`); lost, the log takes no writes."""
    held = lock.get("held")
    if held is False:
        text = f"the server lost SQLite's lock on its event log: {lock.get('reason', '?')}"
    elif held is None:
        text = "SQLite's lock on the event log cannot be checked on this system (no /proc/locks)"
    else:
        text = f"the server holds SQLite's lock on its event log ({lock.get('checks', 0):,} checks)"
    return Item("lock", held is not False, text, {"lock": lock})


# --------------------------------------------------------------------------------------------
# The log and its anchors


def log_items(where: Where, now: dt.datetime) -> list[Item]:
    """``log`` and, with an anchor stream, ``anchors``."""
    from game_server.eventlog import EventLogReader
    from game_server.eventlog.records import parse_time

    assert where.db is not None
    try:
        with EventLogReader.open(where.db) as reader, reader.snapshot():
            last_seq = reader.max_seq()
            last = reader.event(last_seq) if last_seq else None
            log_id = reader.log_id
            anchor = None if where.anchors is None else _last_anchor(where.anchors, log_id)
            anchored_seq = 0 if anchor is None else anchor.seq
            first_open = reader.event(anchored_seq + 1)
            unanchored_checkpoints = reader.checkpoints_after(
                0 if anchor is None else anchor.number, limit=1000
            )
    except ETGError as exc:
        return [Item("log", False, f"{where.db}: {exc}", {})]
    when = (
        "" if last is None else f", written {_ago((now - parse_time(last.time)).total_seconds())}"
    )
    items = [
        Item(
            "log",
            True,
            f"last seq {last_seq:,}{when} ({where.db})",
            {"last_seq": last_seq, "last_time": None if last is None else last.time},
        )
    ]
    if where.anchors is None:
        return items
    lag_events = max(0, last_seq - anchored_seq)
    lag = 0.0 if first_open is None else (now - parse_time(first_open.time)).total_seconds()
    text = f"lag {lag_events:,} event(s), {lag:.0f} s " + (
        "(no checkpoint of this log anchored yet)"
        if anchor is None
        else f"(checkpoint #{anchor.number} at seq {anchor.seq:,})"
    )
    if unanchored_checkpoints:
        text += f"; the stream lacks {len(unanchored_checkpoints)} newer checkpoint(s) of the log"
    ok = lag <= where.anchor_lag_limit
    if not ok:
        text += f"; past the limit of {where.anchor_lag_limit:.0f} s"
    figures = {
        "lag_events": lag_events,
        "lag_seconds": round(lag, 3),
        "checkpoint": None if anchor is None else anchor.number,
        "checkpoint_seq": anchored_seq,
    }
    return [*items, Item("anchors", ok, text, figures)]


def _last_anchor(path: Path, log_id: str) -> Any:
    """The last checkpoint of ``log_id`` in the anchor stream (its tail is read first)."""
    from game_server.eventlog import AnchorFile
    from game_server.eventlog.anchors import AnchorError, last_anchor
    from game_server.eventlog.records import Checkpoint

    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - TAIL_BYTES))
            tail = file.read()
    except FileNotFoundError:
        return None  # the server makes it with the log's first checkpoint
    except OSError as exc:
        raise AnchorError(f"cannot read the anchor stream {path}: {exc.strerror or exc}") from None
    lines = tail.split(b"\n")[1:-1] if size > TAIL_BYTES else tail.split(b"\n")[:-1]
    for line in reversed(lines):
        try:
            checkpoint = Checkpoint.from_json(json.loads(line))
        except (ValueError, UnicodeDecodeError):
            continue  # the full read below says which line is damaged
        if checkpoint.log_id == log_id:
            return checkpoint
    return last_anchor(AnchorFile(path).anchors(log_id))


# --------------------------------------------------------------------------------------------
# The backups


def backup_item(where: Where, now: dt.datetime, last_seq: int | None) -> Item:
    """``backup``: the newest backup of the log in the backup folder."""
    from tools.backup import latest_backup

    assert where.backups is not None
    stem = None if where.db is None else where.db.stem
    newest = latest_backup(where.backups, stem)
    if newest is None:
        return Item("backup", False, f"no backup of this log in {where.backups}", {})
    manifest = newest.manifest
    finished = str(manifest.get("finished") or manifest.get("started"))
    try:
        age = (now - dt.datetime.fromisoformat(finished.replace("Z", "+00:00"))).total_seconds()
    except ValueError:
        return Item("backup", False, f"{newest.folder}: backup.json has no usable time", {})
    seq = manifest.get("last_seq")
    text = f"{finished} ({_ago(age)}): last seq {seq:,}" if isinstance(seq, int) else finished
    if isinstance(seq, int) and last_seq is not None:
        text += f", {max(0, last_seq - seq):,} event(s) behind the log"
    text += ", " + ("verified" if newest.ok else "FAILED its proof") + f" ({newest.folder})"
    too_old = age > where.backup_age_limit * 3600
    if too_old:
        text += f"; older than {where.backup_age_limit:g} h"
    figures = {
        "folder": str(newest.folder),
        "finished": finished,
        "age_seconds": round(age, 1),
        "last_seq": seq,
        "verified": newest.ok,
    }
    return Item("backup", newest.ok and not too_old, text, figures)


def collect(where: Where, clock: Callable[[], dt.datetime] | None = None) -> list[Item]:
    """Every item, in the order they are printed."""
    now = (clock or (lambda: dt.datetime.now(dt.UTC)))()
    items = server_items(where)
    last_seq = None
    if where.db is not None:
        logged = log_items(where, now)
        items += logged
        last_seq = logged[0].figures.get("last_seq")
    if where.backups is not None:
        items.append(backup_item(where, now, last_seq))
    return items


# --------------------------------------------------------------------------------------------
# The command


def _server(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r} is not HOST:PORT, e.g. 127.0.0.1:7400")
    return host.strip("[]"), int(port)


@click.command("status")
@click.option(
    "--server",
    default="127.0.0.1:7400",
    show_default=True,
    callback=_server,
    metavar="HOST:PORT",
    help="The table server.",
)
@click.option(
    "--certs",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("certs"),
    show_default=True,
    help="The certificates folder: ca.pem and operator.pem/.key.",
)
@click.option(
    "--hostname", default=None, help="The name on the server's certificate (default: HOST)."
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The server's event log (read-only): its last seq, and with --anchors the lag.",
)
@click.option(
    "--anchors",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The server's anchor stream (with --db).",
)
@click.option(
    "--backups",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The folder etg backup writes to: the newest backup of the log.",
)
@click.option(
    "--anchor-lag-limit",
    type=click.FloatRange(min=0),
    default=ANCHOR_LAG_LIMIT,
    show_default=True,
    help="Seconds an event may wait for its anchored checkpoint before it is an alarm.",
)
@click.option(
    "--backup-age-limit",
    type=click.FloatRange(min=0, min_open=True),
    default=BACKUP_AGE_LIMIT,
    show_default=True,
    help="Hours since the newest backup before it is an alarm.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def status_command(
    server: tuple[str, int],
    certs: Path,
    hostname: str | None,
    db: Path | None,
    anchors: Path | None,
    backups: Path | None,
    anchor_lag_limit: float,
    backup_age_limit: float,
    as_json: bool,
) -> None:
    """Whether the table server is up, each table's state, the log's last seq, the anchor
    lag and the last backup: one line per item, 'ok' or 'ALARM'.

    Exits 0 when every item is ok, 1 when any is an alarm (for a monitoring system's check).
    """
    if anchors is not None and db is None:
        raise click.BadParameter("the anchor lag is measured against the log: give --db too")
    for name in ("ca.pem", "operator.pem", "operator.key"):
        if not (certs / name).is_file():
            raise click.BadParameter(
                f"there is no {certs / name}: give the certificates folder of the table "
                "(etg status connects as the operator)",
                param_hint="'--certs'",
            )
    where = Where(
        server=server,
        certs=certs,
        hostname=hostname or server[0],
        db=db,
        anchors=anchors,
        backups=backups,
        anchor_lag_limit=anchor_lag_limit,
        backup_age_limit=backup_age_limit,
    )
    items = collect(where)
    ok = all(item.ok for item in items)
    if as_json:
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        click.echo(json.dumps({"ok": ok, "checked": now, "items": [i.to_json() for i in items]}))
    else:
        for item in items:
            click.echo(item.line())
    raise click.exceptions.Exit(0 if ok else 1)
