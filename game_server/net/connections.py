"""The table server's connections, counted and capped: before Hello by address and in all,
after the TLS handshake by certificate id, and after Hello indexed by terminal.

:class:`ConnectionBook` is a part of :class:`~game_server.net.server.TableServerFactory` (a
mixin; the factory holds the attributes); :class:`GatedTLSFactory` is the server's TLS with
the caps before Hello checked first, at accept, before any TLS is built. Refusals at accept
are logged once a minute per address (:class:`~game_server.net.admission.RefusalLog`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twisted.internet.interfaces import IProtocolFactory, IReactorTime
from twisted.logger import Logger
from twisted.protocols.tls import TLSMemoryBIOFactory

from game_server.net.admission import (
    FIRST_REFUSAL,
    RefusalLog,
    Waiting,
    describe_peer,
    host_of,
)
from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity
from game_server.net.pki import Role
from game_server.net.wire import identity_key

if TYPE_CHECKING:
    from game_server.net.server import TableServerFactory, TerminalProtocol

#: The server's log lines keep its namespace (what operators and tests look for).
log = Logger(namespace="game_server.net.server")


class ConnectionBook:
    """The connections of the server, before and after Hello (a part of
    :class:`~game_server.net.server.TableServerFactory`, which holds the attributes)."""

    floor: FloorConfig
    clock: IReactorTime
    connections: list[Any]
    _by_terminal: dict[str, list[TerminalProtocol]]
    _hello_count: int
    _before_hello: Waiting[TerminalProtocol]
    _refusals: RefusalLog
    _refusals_call: Any
    _by_identity: dict[tuple[Role, str], set[TerminalProtocol]]

    def may_connect(self, peer: Any) -> bool:
        """Whether a connection from ``peer`` (an ``IAddress``) just accepted may stay, by
        the caps before Hello (:class:`GatedTLSFactory` asks before it builds any TLS); a
        refusal is logged once a minute per address. Nothing is counted yet: the
        connection is counted by :meth:`admit` as it is made."""
        why = self._before_hello.refusal(host_of(peer))
        if why is not None:
            self._turned_away(peer, why)
        return why is None

    def admit(self, connection: TerminalProtocol) -> bool:
        """Count a new connection before its Hello: False (the refusal logged, once a
        minute per address) when its address holds ``unauthenticated_per_address`` such
        connections already or the server ``unauthenticated_connections``."""
        peer = connection.peer()
        why = self._before_hello.add(connection, host_of(peer))
        if why is not None:
            self._turned_away(peer, why)
        return why is None

    def refused_handshake(self, peer: Any, reason: str, detail: str) -> None:
        """The TLS layer refused ``peer``'s handshake for ``reason`` (no certificate, another
        CA, revoked, expired...): logged as a refusal at accept, the first of its address and
        reason at once and the others in one line a minute."""
        self._turned_away(peer, f"its TLS handshake was refused ({reason}: {detail})", reason)

    def _turned_away(self, peer: Any, why: str, kind: str = "cap") -> None:
        """Log a refusal at accept: the first of its address and ``kind`` at once, the others
        counted and logged in one line a minute (a timer runs while any is remembered)."""
        if self._refusals.refused(host_of(peer), why, self._now(), kind):
            log.warn(
                FIRST_REFUSAL,
                peer=describe_peer(peer),
                why=why,
                address=host_of(peer),
            )
        self._log_refusals_later()

    def _now(self) -> float:
        clock: Any = self.clock  # zope interfaces confuse mypy's method binding
        return float(clock.seconds())

    def _log_refusals_later(self) -> None:
        """Run :meth:`_log_refusals` when the next line is due, a second from now at the
        soonest (many addresses due one after the other are looked at together)."""
        if self._refusals_call is not None:
            return
        due = self._refusals.next_due()
        if due is None:
            return
        clock: Any = self.clock
        self._refusals_call = clock.callLater(max(1.0, due - self._now()), self._log_refusals)

    def _log_refusals(self) -> None:
        self._refusals_call = None
        self._refusals.log_due(self._now(), log)
        self._log_refusals_later()

    def count_identity(self, connection: TerminalProtocol, identity: Identity) -> str | None:
        """Count ``connection`` against its certificate's id: None if it may stay, else why
        it is refused (the id holds ``connections_per_identity`` connections already)."""
        if connection.counted_as is not None:
            if identity_key(connection.counted_as) == identity_key(identity):
                return None
            return f"its certificate changed from {connection.counted_as.id} to {identity.id}"
        held = self._by_identity.setdefault(identity_key(identity), set())
        cap = self.floor.limits.connections_per_identity
        if len(held) >= cap:
            return (
                f"{identity.id} already holds {len(held)} connections, the most "
                f"[floor.limits] connections_per_identity allows"
            )
        held.add(connection)
        connection.counted_as = identity
        return None

    def open_connections(self) -> int:
        """Connections open now: those before Hello and those counted against an id."""
        counted = set().union(*self._by_identity.values())
        return len(set(self._before_hello) | counted | set(self.connections))

    def remember(self, connection: TerminalProtocol) -> None:
        """A connection completed ``Hello``: it gets the views from now on. An older
        connection of the same terminal (a reconnect before TCP noticed the old one was gone)
        is closed, so one terminal has one connection. The operator certificate may hold
        several (the operator's console and a script of ``etg operator`` at once, up to
        ``connections_per_identity``): a new one replaces none."""
        self._before_hello.discard(connection)
        identity = connection.identity
        replaces = identity is not None and identity.role is Role.TERMINAL
        for other in list(self.connections):
            if other is not connection and replaces and other.identity == identity:
                self.connections.remove(other)
                self._unindex(other)
                other.drop("replaced by a new connection of the same terminal")
        if connection not in self.connections:
            self.connections.append(connection)
            self._hello_count += 1
            connection.hello_order = self._hello_count
            if replaces and identity is not None:
                self._by_terminal.setdefault(identity.id, []).append(connection)

    def _unindex(self, connection: TerminalProtocol) -> None:
        """Take ``connection`` out of the index of terminal connections."""
        if connection.identity is None:
            return
        held = self._by_terminal.get(connection.identity.id)
        if held is not None and connection in held:
            held.remove(connection)
            if not held:
                del self._by_terminal[connection.identity.id]

    def forget(self, connection: TerminalProtocol) -> None:
        """A connection closed (its terminal keeps its seat and wagers)."""
        if connection in self.connections:
            self.connections.remove(connection)
        self._unindex(connection)
        self._before_hello.discard(connection)
        if connection.counted_as is not None:
            held = self._by_identity.get(identity_key(connection.counted_as), set())
            held.discard(connection)
            if not held:
                self._by_identity.pop(identity_key(connection.counted_as), None)


class GatedTLSFactory(TLSMemoryBIOFactory):
    """The server's TLS, with the caps before Hello checked first: a connection over
    ``unauthenticated_per_address`` or ``unauthenticated_connections`` is closed as it is
    accepted, before any TLS state is made for it (``buildProtocol`` returns None, and
    Twisted closes the socket), and its refusal logged once a minute per address
    (:meth:`TableServerFactory.may_connect`). What ``listenSSL`` would wrap around the
    factory; a worker adopts the sockets handed over by its front through it too.

    Args:
        options: The server's TLS options (:func:`~game_server.net.tls.server_tls_options`).
        server: The factory whose caps decide.
        wrapped: What builds the protocol under TLS (default ``server``; a worker's
            builder of :class:`~game_server.net.workers.WorkerProtocol`).
    """

    def __init__(
        self,
        options: Any,
        server: TableServerFactory,
        wrapped: IProtocolFactory | None = None,
    ) -> None:
        builder: Any = server if wrapped is None else wrapped  # zope confuses mypy
        super().__init__(options, False, builder)
        self.server = server

    def buildProtocol(self, addr: Any) -> Any:
        if not self.server.may_connect(addr):
            return None
        return super().buildProtocol(addr)
