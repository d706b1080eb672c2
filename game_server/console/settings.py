"""The console's servers file: which table servers it talks to, where their logs are, and
the floor's shifts.

::

    [console]                       # every field optional
    port = 8443                     # the HTTPS port (etg console --port overrides)
    shifts = ["06:00", "14:00", "22:00"]   # local start of each shift of a gaming day
    timezone = "America/New_York"   # the shifts' time zone (IANA name); default UTC
    certs = "../certs"              # the certificates folder (etg console --certs overrides;
                                    # etg console audit takes console-audit.pub from it)

    [[server]]
    name = "pit-1"                  # how the console names it (letters, digits, - _ .)
    address = "127.0.0.1:7400"      # host:port of its TLS listener
    hostname = "localhost"          # the name in its certificate (default: the host)
    log = "pit-1/table.db"          # its event log, read-only (relative to this file)
    anchors = "pit-1/anchors.jsonl" # optional: its anchor stream, for verification

Without the floor store each server's ``log`` must be readable where the console runs: the
same machine (SQLite's write-ahead log needs its readers on the writer's host; a network
mount does not do). A server given without ``log`` is still on the floor, live, and takes
actions; its recall, verification and reports need its log (or, to come, ``--store``).

Entry points: :func:`load_settings`, :class:`ConsoleSettings`, :class:`ServerEntry`.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from shared.errors import ETGError

DEFAULT_PORT: Final = 8443
DEFAULT_SHIFTS: Final = ("06:00", "14:00", "22:00")
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


class SettingsError(ETGError):
    """A servers file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class ServerEntry:
    """One table server.

    Attributes:
        name: The console's name for it (in URLs and the audit log).
        host: Its address.
        port: Its TLS port.
        hostname: The name its certificate carries (checked at the handshake).
        log: Its event log (None: read from the floor store).
        anchors: Its anchor stream, if the console should verify against it.
    """

    name: str
    host: str
    port: int
    hostname: str
    log: Path | None
    anchors: Path | None = None


@dataclass(frozen=True)
class ConsoleSettings:
    """The whole file.

    Attributes:
        servers: The table servers, in the file's order.
        port: The HTTPS port.
        shifts: The local start times of the shifts of a gaming day, in order.
        timezone: The shifts' time zone.
        certs: The certificates folder (relative paths from the file's folder), if named.
    """

    servers: tuple[ServerEntry, ...]
    port: int = DEFAULT_PORT
    shifts: tuple[dt.time, ...] = tuple(dt.time.fromisoformat(s) for s in DEFAULT_SHIFTS)
    timezone: dt.tzinfo = dt.UTC
    certs: Path | None = None

    def server(self, name: str) -> ServerEntry | None:
        return next((s for s in self.servers if s.name == name), None)


def _error(source: str, key: str, problem: str) -> SettingsError:
    return SettingsError(f"{source}: {key}: {problem}")


def settings_from_mapping(
    data: Mapping[str, Any], source: str = "servers.toml", base: Path | None = None
) -> ConsoleSettings:
    """The settings from parsed TOML; relative paths are taken from ``base``.

    Raises:
        SettingsError: a field is missing, unknown or wrong (the message names it).
    """
    base = base or Path(".")
    unknown = sorted(set(data) - {"console", "server"})
    if unknown:
        raise _error(source, "top level", f"unknown table(s) {', '.join(unknown)}")
    console = data.get("console", {})
    if not isinstance(console, Mapping):
        raise _error(source, "[console]", "is not a table")
    extra = sorted(set(console) - {"port", "shifts", "timezone", "certs"})
    if extra:
        raise _error(source, "[console]", f"unknown field(s) {', '.join(extra)}")
    port = console.get("port", DEFAULT_PORT)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise _error(source, "[console] port", f"{port!r} is not a TCP port")
    shifts = _shifts(console.get("shifts", list(DEFAULT_SHIFTS)), source)
    zone_name = console.get("timezone", "UTC")
    try:
        timezone: dt.tzinfo = zoneinfo.ZoneInfo(str(zone_name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise _error(
            source,
            "[console] timezone",
            f"{zone_name!r} is not a time zone (e.g. America/New_York)",
        ) from None
    certs = console.get("certs")
    if certs is not None and (not isinstance(certs, str) or not certs):
        raise _error(source, "[console] certs", f"{certs!r} is not a folder's path")
    raw = data.get("server", [])
    if not isinstance(raw, list) or not raw:
        raise _error(source, "[[server]]", "no server; add at least one [[server]] table")
    servers = []
    for k, item in enumerate(raw, start=1):
        servers.append(_server(item, f"[[server]] {k}", source, base))
    names = [s.name for s in servers]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise _error(source, "[[server]] name", f"{', '.join(twice)} named twice")
    return ConsoleSettings(
        tuple(servers), port, shifts, timezone, None if certs is None else base / certs
    )


def _shifts(value: Any, source: str) -> tuple[dt.time, ...]:
    key = "[console] shifts"
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise _error(source, key, 'a list of local times, e.g. ["06:00", "14:00", "22:00"]')
    try:
        times = tuple(dt.time.fromisoformat(v) for v in value)
    except ValueError as exc:
        raise _error(source, key, f"{exc}") from None
    if list(times) != sorted(set(times)):
        raise _error(source, key, "the shifts' start times are given once each, in order")
    return times


def _server(item: Any, key: str, source: str, base: Path) -> ServerEntry:
    if not isinstance(item, Mapping):
        raise _error(source, key, "is not a table")
    extra = sorted(set(item) - {"name", "address", "hostname", "log", "anchors"})
    if extra:
        raise _error(source, key, f"unknown field(s) {', '.join(extra)}")
    name = item.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise _error(source, f"{key} name", f"{name!r} is not a name (letters, digits, - _ .)")
    address = item.get("address")
    host, _, port_text = str(address).rpartition(":")
    if not isinstance(address, str) or not host or not port_text.isdigit():
        raise _error(source, f"{key} address", f"{address!r} is not host:port")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise _error(source, f"{key} address", f"{port} is not a TCP port")
    host = host.strip("[]")
    hostname = item.get("hostname", host)
    if not isinstance(hostname, str) or not hostname:
        raise _error(source, f"{key} hostname", f"{hostname!r} is not a host name")
    paths: dict[str, Path | None] = {}
    for field in ("log", "anchors"):
        value = item.get(field)
        if value is not None and not isinstance(value, str):
            raise _error(source, f"{key} {field}", f"{value!r} is not a path")
        paths[field] = None if value is None else base / value
    return ServerEntry(name, host, port, hostname, paths["log"], paths["anchors"])


def load_settings(path: Path) -> ConsoleSettings:
    """Read and check a servers file.

    Raises:
        SettingsError: missing, unreadable, not TOML, or a field is wrong.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError(f"{path}: no such file; write the console's servers file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    return settings_from_mapping(data, str(path), path.parent)
