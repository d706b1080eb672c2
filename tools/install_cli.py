"""``etg install server DIR`` and ``etg install terminal DIR``: the systemd units of a floor
install, written (never enabled) from the templates in ``tools/install_templates/``.

- ``server``: ``etg-server.service`` (the table server: a dedicated user, the log folder and
  the anchor stream's folder its only writable paths, restarted after a crash with a start
  limit), ``etg-backup.service`` (``etg backup``: a proven copy of the log and its anchors)
  and ``etg-backup.timer`` (when it runs).
- ``terminal``: ``etg-kiosk.service`` (cage, a Wayland kiosk compositor, running only the
  terminal, fullscreen, on tty1, started again when it exits) and ``etg-kiosk.pam`` (its
  login session, for ``/etc/pam.d/etg-kiosk``).

Every path written into a unit must be absolute and plain (letters, digits and ``._@+-/``),
so that it means the same to systemd as to the shell; other arguments are quoted as systemd
reads them. Nothing is overwritten without ``--force``. The steps around the units (the
user, the folders, the certificates, ``systemctl``) are in docs/install.md, and printed.

Entry point: the click group :data:`install`.
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import sys
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from string import Template
from typing import Final

import click

#: A path systemd and the shell read alike: absolute, no spaces, quotes or specifiers.
PLAIN_PATH: Final = re.compile(r"/[A-Za-z0-9._@+/-]*")
#: A system user name (Debian's adduser rule, without capitals).
USER_NAME: Final = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
#: Users a unit must not run as: root (every privilege) and nobody (shared by whatever else
#: drops privileges to it; systemd-analyze verify warns "Special user nobody configured").
SHARED_USERS: Final = frozenset({"root", "nobody"})
#: Characters a systemd command-line word may hold unquoted.
_PLAIN_WORD: Final = re.compile(r"[A-Za-z0-9._@+/:,=\[\]-]+")
#: A systemd calendar expression's characters (e.g. ``hourly``, ``*-*-* *:00/30:00``).
CALENDAR: Final = re.compile(r"[A-Za-z0-9*:,./~ -]{1,64}")

SERVER_UNITS: Final = ("etg-server.service", "etg-backup.service", "etg-backup.timer")
TERMINAL_FILES: Final = ("etg-kiosk.service", "etg-kiosk.pam")


class InstallError(click.ClickException):
    """An option that cannot go into a unit, or a file not overwritten; the message names
    it. Exit status 2, as every refused ``etg`` command."""

    exit_code = 2


def _template(name: str) -> Template:
    text = resources.files("tools").joinpath("install_templates", name).read_text("utf-8")
    return Template(text)


def plain_path(value: Path | str, option: str) -> str:
    """``value`` as text, if it is an absolute plain path (:data:`PLAIN_PATH`).

    Raises:
        InstallError: it is relative, or holds a space, a quote, ``%``, ``$`` or ``\\``.
    """
    text = str(value)
    if not PLAIN_PATH.fullmatch(text) or "/../" in f"{text}/":
        raise InstallError(
            f"{option} {text!r}: a unit needs an absolute path of letters, digits and ._@+-/ "
            "only (no spaces, quotes, '..', '%' or '$')"
        )
    return text


def systemd_word(value: str) -> str:
    """One command-line argument as systemd's ``ExecStart=`` reads it: as is when plain,
    else double-quoted with ``\\`` and ``"`` escaped; ``%`` (a specifier) and ``$`` (a
    variable) are doubled.

    Raises:
        InstallError: it holds a control character (a newline would end the setting).
    """
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise InstallError(f"{value!r} holds a control character; it cannot go into a unit")
    if _PLAIN_WORD.fullmatch(value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("%", "%%").replace("$", "$$") + '"'


def command_line(words: Iterable[str]) -> str:
    """An ``ExecStart=`` value: each word by :func:`systemd_word`."""
    return " ".join(systemd_word(word) for word in words)


def _unique(paths: Iterable[str]) -> str:
    return " ".join(dict.fromkeys(paths))


def _version() -> str:
    from tools.version import version_line

    return version_line()


def default_etg() -> Path | None:
    """The ``etg`` beside the running Python (the virtual environment's), or on PATH."""
    beside = Path(sys.executable).parent / "etg"
    if beside.is_file():
        return beside.absolute()
    found = shutil.which("etg")
    return None if found is None else Path(found).absolute()


def write_files(folder: Path, contents: Mapping[str, str], force: bool) -> list[Path]:
    """Write each file (mode 0644) into ``folder``; refuse an existing one without ``force``.

    Raises:
        InstallError: a file exists and ``force`` is False; the folder cannot be written.
    """
    paths = [folder / name for name in contents]
    if not force:
        for path in paths:
            if path.exists() or path.is_symlink():
                raise InstallError(f"{path} exists; not overwritten (--force replaces it)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for path in paths:
            path.write_text(contents[path.name], encoding="utf-8")
            path.chmod(0o644)
    except OSError as exc:
        raise InstallError(f"cannot write into {folder}: {exc.strerror or exc}") from None
    return paths


def _missing(paths: Mapping[str, str]) -> None:
    for option, path in paths.items():
        if not Path(path).exists():
            click.echo(f"note: {option} {path} does not exist yet (etg help install)", err=True)


def _etg(etg: Path | None) -> str:
    chosen = etg or default_etg()
    if chosen is None:
        raise InstallError("no etg found beside this Python or on PATH: give --etg PATH")
    return plain_path(chosen, "--etg")


# --------------------------------------------------------------------------------------------
# etg install server


def server_units(
    *,
    etg: str,
    user: str,
    config: str,
    certs: str,
    db: str,
    anchors: str,
    backups: str,
    floor: str | None,
    interface: str,
    port: int,
    tables: int,
    store: str | None,
    every: str,
    keep: int,
) -> dict[str, str]:
    """The three server units' text (arguments checked by the command)."""
    log_dir = str(Path(db).parent)
    anchors_dir = str(Path(anchors).parent)
    serve = [etg, "serve", "--config", config, "--db", db, "--certs", certs]
    serve += ["--anchors", anchors]
    serve += [] if floor is None else ["--floor", floor]
    serve += ["--interface", interface, "--port", str(port)]
    serve += [] if tables == 1 else ["--tables", str(tables)]
    serve += [] if store is None else ["--store", store]
    backup = [etg, "backup", db, backups, "--anchors", anchors, "--key", certs]
    backup += ["--keep", str(keep)]
    inputs = [config, certs] + ([] if floor is None else [floor])
    common = {"version": _version(), "user": user, "db": db, "config": config, "every": every}
    return {
        "etg-server.service": _template("etg-server.service").substitute(
            common,
            exec_start=command_line(serve),
            writable=_unique([log_dir, anchors_dir]),
            mounts=_unique([*inputs, log_dir, anchors_dir]),
        ),
        "etg-backup.service": _template("etg-backup.service").substitute(
            common,
            exec_start=command_line(backup),
            writable=_unique([backups, log_dir]),
            mounts=_unique([certs, log_dir, anchors_dir, backups]),
        ),
        "etg-backup.timer": _template("etg-backup.timer").substitute(common),
    }


def _interface(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an IP address (e.g. 0.0.0.0)") from None


def _user(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not USER_NAME.fullmatch(value):
        raise click.BadParameter(f"{value!r} is not a system user name (e.g. etg)")
    if value in SHARED_USERS:
        raise click.BadParameter(
            f"{value!r} is not a dedicated user: the unit needs a user of its own "
            "(useradd --system, etg help install), not root's or nobody's"
        )
    return value


_PATH = click.Path(path_type=Path)

_ETG = click.option(
    "--etg",
    type=_PATH,
    default=None,
    help="The installed etg command (default: the one beside this Python, e.g. /opt/etg/bin/etg).",
)
_FORCE = click.option("--force", is_flag=True, help="Replace files that exist in DIR.")


@click.group("install")
def install() -> None:
    """Write the systemd units of a floor install into a folder (never enabling them):
    'server' for a table server, 'terminal' for a kiosk terminal. See 'etg help install'."""


@install.command("server")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@_ETG
@click.option("--user", default="etg", show_default=True, callback=_user, help="Its user.")
@click.option(
    "--config",
    type=_PATH,
    default=Path("/etc/etg/table.toml"),
    show_default=True,
    help="The table's Rules Submission.",
)
@click.option(
    "--certs",
    type=_PATH,
    default=Path("/etc/etg/certs"),
    show_default=True,
    help="The table's keys and certificates (etg certs init).",
)
@click.option(
    "--floor",
    "floor_path",
    type=_PATH,
    default=None,
    help="The floor file: seats, revocations, limits (default: none, T1..T7 on seats 1..7).",
)
@click.option(
    "--db",
    type=_PATH,
    default=Path("/var/lib/etg/log/table.db"),
    show_default=True,
    help="The event log; its folder is the server's writable path.",
)
@click.option(
    "--anchors",
    type=_PATH,
    default=Path("/var/lib/etg/anchors/anchors.jsonl"),
    show_default=True,
    help="The anchor stream: mount another disk (or a share of another machine) on its folder.",
)
@click.option(
    "--backups",
    type=_PATH,
    default=Path("/var/backups/etg"),
    show_default=True,
    help="Where etg backup puts its copies: another disk or machine.",
)
@click.option(
    "--interface",
    default="0.0.0.0",
    show_default=True,
    callback=_interface,
    help="The address the server listens on (the floor network's).",
)
@click.option(
    "--port",
    type=click.IntRange(1024, 65535),
    default=7400,
    show_default=True,
    help="Its TLS port (the server runs without privileges: 1024 or above).",
)
@click.option(
    "--tables",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Tables the server hosts (etg serve --tables).",
)
@click.option(
    "--store",
    default=None,
    metavar="URL",
    help="The floor store's shipping URL (etg serve --store), without its password "
    "(read from ~/.pgpass of the user).",
)
@click.option(
    "--backup-every",
    "every",
    default="hourly",
    show_default=True,
    help="When the backup timer runs: a systemd calendar expression (OnCalendar=).",
)
@click.option(
    "--keep",
    type=click.IntRange(min=1),
    default=48,
    show_default=True,
    help="Proven backups kept (etg backup --keep).",
)
@_FORCE
def install_server(
    folder: Path,
    etg: Path | None,
    user: str,
    config: Path,
    certs: Path,
    floor_path: Path | None,
    db: Path,
    anchors: Path,
    backups: Path,
    interface: str,
    port: int,
    tables: int,
    store: str | None,
    every: str,
    keep: int,
    force: bool,
) -> None:
    """Write etg-server.service, etg-backup.service and etg-backup.timer into DIR (e.g.
    /etc/systemd/system), not enabled."""
    if not CALENDAR.fullmatch(every):
        raise click.BadParameter(
            f"{every!r} is not a calendar expression (e.g. hourly, *:0/30)",
            param_hint="'--backup-every'",
        )
    if store is not None:
        from urllib.parse import urlsplit

        if urlsplit(store).password:
            raise click.BadParameter(
                "a unit file is readable by every user: leave the password out of the URL "
                "and put it in ~/.pgpass of the server's user",
                param_hint="'--store'",
            )
    paths = {
        "--config": plain_path(config, "--config"),
        "--certs": plain_path(certs, "--certs"),
        "--db": plain_path(db, "--db"),
        "--anchors": plain_path(anchors, "--anchors"),
        "--backups": plain_path(backups, "--backups"),
    }
    if floor_path is not None:
        paths["--floor"] = plain_path(floor_path, "--floor")
    contents = server_units(
        etg=_etg(etg),
        user=user,
        config=paths["--config"],
        certs=paths["--certs"],
        db=paths["--db"],
        anchors=paths["--anchors"],
        backups=paths["--backups"],
        floor=paths.get("--floor"),
        interface=interface,
        port=port,
        tables=tables,
        store=store,
        every=every,
        keep=keep,
    )
    for path in write_files(folder, contents, force):
        click.echo(f"wrote {path}")
    _missing({k: v for k, v in paths.items() if k in ("--config", "--certs", "--floor")})
    click.echo("then: systemctl daemon-reload")
    click.echo("      systemctl enable --now etg-server.service etg-backup.timer")


# --------------------------------------------------------------------------------------------
# etg install terminal


def terminal_files(
    *,
    etg: str,
    cage: str,
    user: str,
    terminal: str,
    server: str,
    hostname: str | None,
    certs: str,
    volume: int,
) -> dict[str, str]:
    """The kiosk unit's and its PAM file's text (arguments checked by the command)."""
    cert = f"{certs}/{terminal}.pem"
    run = [cage, "--", etg, "terminal", "--kiosk", "--server", server]
    run += ["--cert", cert, "--key", f"{certs}/{terminal}.key", "--ca", f"{certs}/ca.pem"]
    run += [] if hostname is None else ["--hostname", hostname]
    run += ["--volume", str(volume)]
    values = {"version": _version(), "user": user, "terminal": terminal, "cert": cert}
    return {
        "etg-kiosk.service": _template("etg-kiosk.service").substitute(
            values, exec_start=command_line(run)
        ),
        "etg-kiosk.pam": _template("etg-kiosk.pam").substitute(values),
    }


def _server(ctx: click.Context, param: click.Parameter, value: str) -> str:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r} is not HOST:PORT, e.g. table-7.floor:7400")
    if not _PLAIN_WORD.fullmatch(value):
        raise click.BadParameter(f"{value!r}: a host name or address, then :PORT")
    return value


def _terminal_id(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from game_server.net.pki import InvalidTerminalId, check_terminal_id

    try:
        return check_terminal_id(value)
    except InvalidTerminalId as exc:
        raise click.BadParameter(str(exc)) from None


@install.command("terminal")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--id",
    "terminal",
    required=True,
    callback=_terminal_id,
    help="The terminal's id, e.g. T9 (its certificate's name).",
)
@click.option(
    "--server",
    required=True,
    callback=_server,
    metavar="HOST:PORT",
    help="The table server.",
)
@click.option(
    "--hostname", default=None, help="The name on the server's certificate (default: HOST)."
)
@click.option(
    "--certs",
    type=_PATH,
    default=Path("/etc/etg/terminal"),
    show_default=True,
    help="The terminal's certificates folder (etg certs request --dir): ID.key, ID.pem, ca.pem.",
)
@_ETG
@click.option(
    "--cage",
    type=_PATH,
    default=Path("/usr/bin/cage"),
    show_default=True,
    help="The cage compositor (Debian's cage package).",
)
@click.option(
    "--user",
    default="etg-kiosk",
    show_default=True,
    callback=_user,
    help="The kiosk's user (owns the terminal's key).",
)
@click.option(
    "--volume",
    type=click.IntRange(0, 100),
    default=60,
    show_default=True,
    help="Sound volume, 0 to 100.",
)
@_FORCE
def install_terminal(
    folder: Path,
    terminal: str,
    server: str,
    hostname: str | None,
    certs: Path,
    etg: Path | None,
    cage: Path,
    user: str,
    volume: int,
    force: bool,
) -> None:
    """Write etg-kiosk.service (cage running only the terminal, fullscreen, on tty1) and
    etg-kiosk.pam (its session, for /etc/pam.d/etg-kiosk) into DIR, not enabled."""
    if hostname is not None and not _PLAIN_WORD.fullmatch(hostname):
        raise click.BadParameter(f"{hostname!r} is not a host name", param_hint="'--hostname'")
    contents = terminal_files(
        etg=_etg(etg),
        cage=plain_path(cage, "--cage"),
        user=user,
        terminal=terminal,
        server=server,
        hostname=hostname,
        certs=plain_path(certs, "--certs"),
        volume=volume,
    )
    for path in write_files(folder, contents, force):
        click.echo(f"wrote {path}")
    _missing({"--cage": str(cage)})
    click.echo(f"then: install -m 0644 {folder / 'etg-kiosk.pam'} /etc/pam.d/etg-kiosk")
    click.echo("      systemctl daemon-reload && systemctl enable etg-kiosk.service")
    click.echo("      systemctl set-default graphical.target")
