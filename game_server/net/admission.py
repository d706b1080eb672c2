"""Who may open a connection before it says Hello, and how refusals are logged.

A peer without a certificate can open TCP connections and hold each until the Hello deadline
(``[floor.limits] hello_seconds``). Two caps bound what such peers hold
(``[floor.limits]``): ``unauthenticated_connections`` over every address, and
``unauthenticated_per_address`` from one source address, so that one address cannot take
every place and lock the operator and the terminals out. A connection over either is refused
as soon as it is accepted, before any TLS is built for it.

Two places hold connections before Hello, each with its own :class:`Waiting`, so that each
cap holds in the process that accepts: the table server
(:class:`~game_server.net.server.TableServerFactory`, from accept until Hello; a worker of
``etg serve --workers`` counts the sockets its front hands over from when it adopts them) and
the front of ``etg serve --workers`` (:class:`~game_server.net.workers.Front`, from accept
until the ClientHello arrives and the socket is handed over; both its caps are its
workers' together).

Connections that said Hello are not capped per address: each is counted against its
certificate's id (``connections_per_identity``), a certificate is issued by the table's CA
and can be revoked, and one address legitimately carries many ids (the operator's
workstation, ``etg loadtest``'s terminals, terminals behind one router).

A flood of refused connections must not flood the server's log: :class:`RefusalLog` lets the
first refusal of an address be logged at once, then counts the others and gives one line a
minute per address (:data:`REFUSALS_LOGGED_EVERY`) with how many there were.

Both classes are pure: addresses and times are passed in (``now``: seconds of any monotonic
clock, the reactor's in the server). Entry points: :class:`Waiting`, :class:`RefusalLog`,
:func:`host_of` (what the caps count by).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from game_server.net.floor import NetLimits

if TYPE_CHECKING:
    from twisted.logger import Logger

#: Seconds between two log lines about the refused connections of one address.
REFUSALS_LOGGED_EVERY: Final = 60.0
#: The log line of the first refusal of an address (Twisted's format: ``peer`` as
#: :func:`describe_peer` gives it, ``address`` as :func:`host_of`).
FIRST_REFUSAL: Final = (
    "refusing a connection from {peer}: {why}; further refusals of {address} are counted "
    "and logged once a minute"
)
#: The log line of the refusals of an address counted since its last line (:class:`Refusals`).
MORE_REFUSALS: Final = (
    "refused {count} more connection(s) from {address} in the last {seconds:.0f} s (the last "
    "because {why})"
)

_C = TypeVar("_C", bound=Hashable)


def host_of(peer: object) -> str:
    """What the caps per address count a peer by: the host of its address (Twisted's
    ``IPv4Address`` or ``IPv6Address``), as the kernel gave it; a peer without one (a UNIX
    socket, a transport already gone) counts as ``"an unknown address"``, all together."""
    host = getattr(peer, "host", None)
    return "an unknown address" if host is None else str(host)


def describe_peer(peer: object) -> str:
    """A peer's address (an ``IAddress``) for the log, as :func:`describe_address`."""
    host = getattr(peer, "host", None)
    return (
        "an unknown peer" if host is None else describe_address(host, getattr(peer, "port", None))
    )


def describe_address(host: str, port: object) -> str:
    """An address and port for the log: ``10.0.4.7:51234``, ``[fd00::7]:51234``."""
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


class Waiting(Generic[_C]):
    """Connections that have not said Hello (or sent their ClientHello), by source address,
    under the two caps of ``[floor.limits]``.

    Args:
        limits: The floor's limits: ``unauthenticated_connections`` over every address,
            ``unauthenticated_per_address`` from one.
        waiting_for: What the connections have not done yet, for the refusal's sentence
            ("said Hello", "sent their ClientHello").
        workers: The worker processes the connections go to: the front of ``etg serve
            --workers`` holds for its workers together what each would hold (both caps
            times ``workers``; e.g. the operator's console opens one connection per worker
            at once).
    """

    def __init__(self, limits: NetLimits, waiting_for: str = "said Hello", workers: int = 1):
        self.total = limits.unauthenticated_connections * workers
        self.per_address = limits.unauthenticated_per_address * workers
        self._waiting_for = waiting_for
        self._together = f" ({workers} workers together)" if workers > 1 else ""
        self._address_of: dict[_C, str] = {}
        self._from: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._address_of)

    def __contains__(self, connection: object) -> bool:
        return connection in self._address_of

    def __iter__(self) -> Iterator[_C]:
        return iter(self._address_of)

    def from_address(self, address: str) -> int:
        """The connections of ``address`` held now."""
        return self._from.get(address, 0)

    def refusal(self, address: str) -> str | None:
        """Why one more connection from ``address`` is refused (None: it may wait). The
        total first: a full total is refused with the sentence it always had."""
        if len(self) >= self.total:
            return (
                f"{len(self)} connections have not {self._waiting_for} yet, the most "
                f"[floor.limits] unauthenticated_connections allows{self._together}"
            )
        held = self.from_address(address)
        if held >= self.per_address:
            return (
                f"{address} already holds {held} connections that have not {self._waiting_for}, "
                f"the most [floor.limits] unauthenticated_per_address allows{self._together}"
            )
        return None

    def add(self, connection: _C, address: str) -> str | None:
        """Hold ``connection`` of ``address`` unless a cap refuses it; None, or why not."""
        if connection in self._address_of:
            return None
        why = self.refusal(address)
        if why is None:
            self._address_of[connection] = address
            self._from[address] = self.from_address(address) + 1
        return why

    def discard(self, connection: _C) -> None:
        """``connection`` said Hello, was handed over or closed (nothing if not held)."""
        address = self._address_of.pop(connection, None)
        if address is None:
            return
        left = self._from[address] - 1
        if left:
            self._from[address] = left
        else:
            del self._from[address]


@dataclass(frozen=True)
class Refusals:
    """One line for the log: ``count`` connections of ``address`` refused, not logged one by
    one, in the last ``seconds``; ``why`` the last one was."""

    address: str
    count: int
    seconds: float
    why: str


@dataclass
class _Minute:
    since: float
    count: int = 0
    why: str = ""


class RefusalLog:
    """Which refused connections are logged: of each address and kind of refusal (a cap, a
    handshake with no certificate, another CA's...) the first at once, then at most one line
    a minute (``every`` seconds) saying how many more were refused. Each kind of refusal an
    address meets is seen in the log at once; the kinds are few, so the memory stays bounded.

    The caller logs the first refusal when :meth:`refused` says so, and asks :meth:`due`
    for the lines of the counted ones (the server on a timer at :meth:`next_due`, the front
    at every turn of its loop). Two lines about one address are ``every`` seconds apart at
    least, and every refusal is in one of them.
    """

    def __init__(self, every: float = REFUSALS_LOGGED_EVERY) -> None:
        self.every = every
        self._minutes: dict[tuple[str, str], _Minute] = {}

    def refused(self, address: str, why: str, now: float, kind: str = "") -> bool:
        """A connection of ``address`` was refused (``why``, of ``kind``): True if it is to be
        logged now (the first of its kind for ``every`` seconds); else it is counted for
        :meth:`due`."""
        minute = self._minutes.get((address, kind))
        if minute is None or (minute.count == 0 and now >= minute.since + self.every):
            self._minutes[address, kind] = _Minute(now)
            return True
        minute.count += 1
        minute.why = why
        return False

    def due(self, now: float) -> list[Refusals]:
        """The lines whose minute has passed: the addresses with refusals counted since their
        last line, each with how many. An address whose minute passed with none counted is
        forgotten (its next refusal is logged at once)."""
        lines: list[Refusals] = []
        for key, minute in list(self._minutes.items()):
            if now < minute.since + self.every:
                continue
            if minute.count:
                lines.append(Refusals(key[0], minute.count, now - minute.since, minute.why))
                self._minutes[key] = _Minute(now)
            else:
                del self._minutes[key]
        return lines

    def next_due(self) -> float | None:
        """When :meth:`due` next has something to do (None: no address is remembered)."""
        return min((m.since + self.every for m in self._minutes.values()), default=None)

    def log_due(self, now: float, log: Logger) -> None:
        """Write to ``log`` the line of each address and kind whose minute has passed with
        refusals counted (:meth:`due`)."""
        for line in self.due(now):
            log.warn(
                MORE_REFUSALS,
                count=line.count,
                address=line.address,
                seconds=line.seconds,
                why=line.why,
            )
