"""The floor configuration of one table server: who sits where, who is revoked, how fast.

``floor.toml`` is the network side of a table (the game itself is in the table's Rules
Submission, :mod:`game_server.config`)::

    [floor]
    port = 7400

    [floor.terminals]          # terminal id (the certificate's CN) = seat, 1 to 7
    T1 = 1
    T2 = 2

    [floor.tables]             # only for a server hosting several tables (etg serve --tables)
    T1 = "BJ-01-1"
    T2 = "BJ-01-1"

    [floor.revoked]            # certificates the server refuses
    serials = ["5f3a09c2..."]  # hex, as `etg certs` prints them
    terminals = ["T9"]         # every certificate of these ids

    [floor.limits]             # every field optional; these are the defaults
    commands_per_second = 20   # per connection, with a burst
    burst = 40
    hello_seconds = 30         # to complete the TLS handshake and say Hello
    box_seconds = 10           # for a command box, from its first byte to its last
    connections_per_identity = 4     # open at once with one certificate id
    unauthenticated_connections = 64 # open at once before their Hello, in total
    unauthenticated_per_address = 8  # ...and from one source address

Entry points: :func:`load_floor` (a file) and :meth:`FloorConfig.from_mapping` (parsed TOML);
:data:`MAX_TABLES` (what one server hosts, and why) and :func:`raise_descriptor_limit`.
Every refusal is a :class:`FloorConfigError` whose message names the field.
"""

from __future__ import annotations

import os
import resource
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from game_server.net.identity import RevocationList
from game_server.net.pki import InvalidRevocation, InvalidTerminalId
from game_server.net.pki import check_terminal_id as _check_terminal_id
from shared.errors import ETGError

#: Seats of a Blackjack table, numbered from the dealer's left.
SEATS: Final = range(1, 8)
#: The port the server listens on when the file does not say.
DEFAULT_PORT: Final = 7400
#: Commands per second a connection may send when the file does not say.
DEFAULT_COMMANDS_PER_SECOND: Final = 20
#: Commands a connection may send at once when the file does not say.
DEFAULT_BURST: Final = 40
#: Seconds a new connection has to complete the TLS handshake and say Hello.
DEFAULT_HELLO_SECONDS: Final = 30.0
#: Seconds a command box may take from its first byte to its last (after Hello). A box is
#: at most 16 KiB: on a floor network it arrives in milliseconds.
DEFAULT_BOX_SECONDS: Final = 10.0
#: Connections one certificate id (a terminal, the operator) may hold open at once: one,
#: plus a few while a reconnect replaces a connection the server still thinks is alive.
DEFAULT_CONNECTIONS_PER_IDENTITY: Final = 4
#: Connections that have not (yet) said Hello, open at once over all peers.
DEFAULT_UNAUTHENTICATED_CONNECTIONS: Final = 64
#: Connections that have not (yet) said Hello, open at once from one source address (when
#: ``unauthenticated_connections`` is lower, that). A client says Hello within milliseconds
#: of connecting: eight leave room for a workstation opening the console and a few scripts
#: at once, and one peer without a certificate takes an eighth of the places at most.
DEFAULT_UNAUTHENTICATED_PER_ADDRESS: Final = 8
#: Tables one server process hosts at most (``etg serve --tables``, ``etg loadtest``).
#:
#: What bounds it, for 150 tables of 7 (1,050 terminals):
#:
#: - descriptors: one per terminal connection (two while a terminal's reconnect replaces its
#:   old one), plus the connections before Hello, the operator's, and the server's own files
#:   (:func:`descriptors_needed`: 2,216 here). A typical soft limit (``ulimit -n``) is 1,024:
#:   the server raises its soft limit to its hard limit at start, and refuses to start, naming
#:   the limit, if the hard limit is too low (:func:`raise_descriptor_limit`);
#: - memory: measured with ``etg loadtest`` (issue 22's note), 150 MB peak at 448 terminals
#:   after 1,500 rounds and 225 MB at 1,000 after 2,000 rounds; it grows with the answers
#:   kept for retries (:data:`~game_server.net.wire.TERMINAL_ANSWERS_KEPT` of each terminal,
#:   each with its view as about 2 KB of bytes): up to about 70 KB a terminal once each has
#:   sent that many commands;
#: - the event log: every table writes to one SQLite file through one writer, whose commit
#:   thread commits every step planned during the last commit in one transaction and one
#:   sync (:mod:`game_server.eventlog.writer`); a step's answer waits for its commit;
#: - one core: the process runs every table's steps, views and TLS on one reactor thread:
#:   about 31 to 34 ms of CPU per round (7 seats), so 1,000 terminals playing a round every
#:   7 s or so take about 56% of a core; beyond a core the latency of every table grows.
MAX_TABLES: Final = 150
#: Terminals one server process seats at most: every seat of :data:`MAX_TABLES` tables.
MAX_TERMINALS: Final = MAX_TABLES * len(SEATS)
#: Descriptors the server keeps for itself beside its connections: the event log and its
#: reader (database, WAL and shared memory each), the anchor stream, the listening socket,
#: the reactor's waker, the standard streams, a floor store's connections.
RESERVED_DESCRIPTORS: Final = 48


class FloorConfigError(ETGError):
    """A ``floor.toml`` that cannot be used; the message names the file and the field."""


class DescriptorLimit(ETGError):
    """The process may not open as many files (descriptors) as its floor needs."""


@dataclass(frozen=True)
class NetLimits:
    """The network layer's limits (``[floor.limits]``).

    Attributes:
        commands_per_second: Tokens added per second to each connection's bucket.
        burst: The bucket's size: commands a quiet connection may send at once.
        hello_seconds: A connection that has not completed the TLS handshake and said Hello
            this long after it was accepted is closed.
        box_seconds: After Hello, a command box that has not arrived whole this long after
            its first byte closes the connection (a peer that stalls or trickles).
        connections_per_identity: Connections one certificate id may hold open at once;
            one more is refused as soon as its TLS handshake names the certificate.
        unauthenticated_connections: Connections before their Hello, over all peers; one
            more is refused as soon as it is accepted.
        unauthenticated_per_address: Connections before their Hello from one source
            address; one more from that address is refused as soon as it is accepted. The
            floor file refuses a value above ``unauthenticated_connections``.
    """

    commands_per_second: float = DEFAULT_COMMANDS_PER_SECOND
    burst: int = DEFAULT_BURST
    hello_seconds: float = DEFAULT_HELLO_SECONDS
    box_seconds: float = DEFAULT_BOX_SECONDS
    connections_per_identity: int = DEFAULT_CONNECTIONS_PER_IDENTITY
    unauthenticated_connections: int = DEFAULT_UNAUTHENTICATED_CONNECTIONS
    unauthenticated_per_address: int = DEFAULT_UNAUTHENTICATED_PER_ADDRESS


@dataclass(frozen=True)
class FloorConfig:
    """Who sits where at this table, which certificates are refused, and the limits.

    Attributes:
        terminals: Terminal id -> seat (1 to 7, each seat of a table at most once).
        revocations: Certificates the server refuses.
        port: The TCP port of the TLS listener.
        limits: Per-connection rate limits.
        tables: For a server hosting several tables: terminal id -> table id (empty: every
            terminal sits at the one table of the server).
    """

    terminals: Mapping[str, int]
    revocations: RevocationList = field(default_factory=RevocationList)
    port: int = DEFAULT_PORT
    limits: NetLimits = field(default_factory=NetLimits)
    tables: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tables = dict(self.tables)
        if tables and set(tables) != set(self.terminals):
            raise FloorConfigError(
                "tables: every terminal needs a table, and only terminals with a seat have one"
            )
        groups: dict[str, dict[str, int]] = {}
        for terminal, seat in self.terminals.items():
            groups.setdefault(tables.get(terminal, ""), {})[terminal] = seat
        for table, members in groups.items():
            _check_terminals(members, f"terminals of table {table}" if table else "terminals")
        object.__setattr__(self, "terminals", MappingProxyType(dict(self.terminals)))
        object.__setattr__(self, "tables", MappingProxyType(tables))

    def seat_of(self, terminal: str) -> int | None:
        """The terminal's seat, or None if it holds none."""
        return self.terminals.get(terminal)

    def seats_at(self, table: str | None) -> dict[str, int]:
        """Terminal -> seat of one table (``None``: a one-table server's terminals)."""
        if table is None or not self.tables:
            return dict(self.terminals)
        return {t: s for t, s in self.terminals.items() if self.tables.get(t) == table}

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "floor.toml") -> FloorConfig:
        """Build the config from parsed TOML (the whole document, with its ``[floor]``).

        Raises:
            FloorConfigError: a field is missing, unknown or wrong; the message names it.
        """
        where = _Where(source)
        _only(data, {"floor"}, where, "")
        floor = _table(data.get("floor"), where, "[floor]", required=True)
        _only(floor, {"port", "terminals", "tables", "revoked", "limits"}, where, "[floor]")
        port = _integer(floor.get("port", DEFAULT_PORT), where, "[floor] port")
        if not 1 <= port <= 65535:
            raise where.error("[floor] port", f"{port} is not a TCP port (1 to 65535)")

        terminals_table = _table(floor.get("terminals"), where, "[floor.terminals]", required=True)
        terminals = {
            str(name): _integer(seat, where, f"[floor.terminals] {name}")
            for name, seat in terminals_table.items()
        }

        revoked = _table(floor.get("revoked", {}), where, "[floor.revoked]")
        _only(revoked, {"serials", "terminals"}, where, "[floor.revoked]")
        serials = _list(revoked.get("serials", []), where, "[floor.revoked] serials")
        revoked_ids = _list(revoked.get("terminals", []), where, "[floor.revoked] terminals")
        try:
            revocations = RevocationList.from_config(
                serials=[_serial(s, where) for s in serials],
                ids=[_text(i, where, "[floor.revoked] terminals") for i in revoked_ids],
            )
        except InvalidRevocation as exc:
            raise where.error("[floor.revoked]", str(exc)) from None

        limits = _limits(_table(floor.get("limits", {}), where, "[floor.limits]"), where)
        tables_table = _table(floor.get("tables", {}), where, "[floor.tables]")
        tables = {
            str(name): _text(table, where, f"[floor.tables] {name}")
            for name, table in tables_table.items()
        }
        groups: dict[str, dict[str, int]] = {}
        for name, seat in terminals.items():
            groups.setdefault(tables.get(name, ""), {})[name] = seat
        for table_id, members in groups.items():
            label = where.name("[floor.terminals]") + (f" (table {table_id})" if table_id else "")
            _check_terminals(members, label)
        if tables and set(tables) != set(terminals):
            raise where.error(
                "[floor.tables]", "every terminal of [floor.terminals] needs a table, and only they"
            )
        return cls(
            terminals=terminals,
            revocations=revocations,
            port=port,
            limits=limits,
            tables=tables,
        )


def _limits(table: Mapping[str, Any], where: _Where) -> NetLimits:
    """``[floor.limits]``: each field a positive number (the counts whole), default if absent;
    ``unauthenticated_per_address`` at most ``unauthenticated_connections`` (absent: its
    default, or the total when that is lower)."""
    defaults = NetLimits()
    numbers = ("commands_per_second", "hello_seconds", "box_seconds")
    counts = (
        "burst",
        "connections_per_identity",
        "unauthenticated_connections",
        "unauthenticated_per_address",
    )
    _only(table, {*numbers, *counts}, where, "[floor.limits]")
    values: dict[str, Any] = {}
    for name in numbers:
        value = table.get(name, getattr(defaults, name))
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise where.error(f"[floor.limits] {name}", f"{value!r} is not a positive number")
        values[name] = float(value)
    for name in counts:
        count = _integer(table.get(name, getattr(defaults, name)), where, f"[floor.limits] {name}")
        if count < 1:
            raise where.error(f"[floor.limits] {name}", f"{count} is not at least 1")
        values[name] = count
    total = values["unauthenticated_connections"]
    if "unauthenticated_per_address" not in table:
        values["unauthenticated_per_address"] = min(values["unauthenticated_per_address"], total)
    elif values["unauthenticated_per_address"] > total:
        raise where.error(
            "[floor.limits] unauthenticated_per_address",
            f"{values['unauthenticated_per_address']} is above unauthenticated_connections "
            f"({total}): one address could then hold every place before Hello; set it lower "
            f"(the default is {DEFAULT_UNAUTHENTICATED_PER_ADDRESS})",
        )
    return NetLimits(**values)


def descriptors_needed(floor: FloorConfig) -> int:
    """The descriptors a server of ``floor`` may hold at once: two per terminal (a reconnect
    holds the new connection while the old one closes), the connections before Hello, the
    operator's, and :data:`RESERVED_DESCRIPTORS`."""
    limits = floor.limits
    return (
        2 * len(floor.terminals)
        + limits.unauthenticated_connections
        + limits.connections_per_identity
        + RESERVED_DESCRIPTORS
    )


def raise_descriptor_limit(needed: int, what: str) -> int:
    """Make sure this process may open ``needed`` descriptors: its soft limit (``ulimit
    -n``) is raised to its hard limit (``ulimit -Hn``) when below ``needed``.

    Args:
        needed: The descriptors the process needs.
        what: What needs them, for the refusal ("a server of 1,050 terminals").

    Returns:
        The soft limit in force.

    Raises:
        DescriptorLimit: the hard limit is below ``needed``; the message names both limits.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return soft
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise DescriptorLimit(
            f"{what} needs up to {needed:,} open files (descriptors), but this process may "
            f"open at most {hard:,} (the hard limit, ulimit -Hn; the soft limit ulimit -n is "
            f"{soft:,}): raise the hard limit (LimitNOFILE= of the service, or "
            "/etc/security/limits.conf), or host fewer tables or terminals"
        )
    raised = needed if hard == resource.RLIM_INFINITY else hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    return raised


def load_floor(path: str | os.PathLike[str]) -> FloorConfig:
    """Read and check a ``floor.toml``.

    Raises:
        FloorConfigError: the file is missing, unreadable, not TOML, or a field is wrong.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FloorConfigError(
            f"{file}: no such file; write the table's floor.toml (see game_server.net.floor)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FloorConfigError(f"{file}: cannot be read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FloorConfigError(f"{file}: not valid TOML: {exc}") from None
    return FloorConfig.from_mapping(data, str(file))


# --------------------------------------------------------------------------------------------
# Checks


@dataclass(frozen=True)
class _Where:
    source: str

    def name(self, key: str) -> str:
        return f"{self.source}: {key}"

    def error(self, key: str, problem: str) -> FloorConfigError:
        return FloorConfigError(f"{self.source}: {key}: {problem}")


def _check_terminals(terminals: Mapping[str, int], where: str) -> None:
    if not terminals:
        raise FloorConfigError(f"{where}: no terminal holds a seat; add e.g. T1 = 1")
    taken: dict[int, str] = {}
    for name, seat in terminals.items():
        try:
            _check_terminal_id(name)
        except InvalidTerminalId as exc:
            raise FloorConfigError(f"{where} {name}: {exc}") from None
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in SEATS:
            raise FloorConfigError(
                f"{where} {name}: seat {seat!r} is not a seat of the table "
                f"({SEATS.start} to {SEATS.stop - 1})"
            )
        if seat in taken:
            raise FloorConfigError(
                f"{where} {name}: seat {seat} is already held by {taken[seat]}; "
                "each seat has one terminal"
            )
        taken[seat] = name


def _only(data: Mapping[str, Any], allowed: set[str], where: _Where, key: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise where.error(
            key or "top level",
            f"unknown field(s) {', '.join(unknown)}; expected {', '.join(sorted(allowed))}",
        )


def _table(value: Any, where: _Where, key: str, *, required: bool = False) -> Mapping[str, Any]:
    if value is None and required:
        raise where.error(key, "missing; the table is required")
    if not isinstance(value, Mapping):
        raise where.error(key, f"is a {type(value).__name__}, not a table")
    return value


def _integer(value: Any, where: _Where, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(key, f"{value!r} is not an integer")
    return value


def _list(value: Any, where: _Where, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise where.error(key, f"{value!r} is not a list")
    return value


def _text(value: Any, where: _Where, key: str) -> str:
    if not isinstance(value, str):
        raise where.error(key, f"{value!r} is not a string")
    return value


def _serial(value: Any, where: _Where) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise where.error("[floor.revoked] serials", f"{value!r} is not a serial number (hex text)")
    return value
