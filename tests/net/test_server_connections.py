"""The table server's connections end, over real TLS in memory (issue 13, item 1).

Each test runs the real :class:`TableServerFactory` behind Twisted's TLS layer
(``TLSMemoryBIOFactory`` with this table's certificates) on in-memory transports and a fake
clock. The socket under TLS is a :class:`Socket` that records how it was told to close.
A hostile peer *stalls*: it reads nothing more, so it never answers the server's TLS
close_notify; after a completed handshake ``loseConnection()`` alone then leaves the socket
open for ever (the descriptor leak the attack found). Every drop must end with the socket
closed: at once for a peer that answers close_notify, after :data:`CLOSE_GRACE_SECONDS` by
``abortConnection()`` for one that does not. The caps on connections per certificate id
and before Hello refuse the excess at once, with a log line that says why.
"""

from __future__ import annotations

import struct
from typing import Any

from fakes import FakeMachine
from net_helpers import Pki, messages
from twisted.internet import task
from twisted.internet.address import IPv4Address
from twisted.internet.protocol import Factory, Protocol
from twisted.protocols import amp
from twisted.protocols.tls import TLSMemoryBIOFactory
from twisted.test import iosim

from game_server.net.floor import FloorConfig, NetLimits
from game_server.net.server import CLOSE_GRACE_SECONDS, GatedTLSFactory, TableServerFactory
from game_server.net.tls import client_tls_options, server_tls_options
from shared import protocol as p

FLOOR = FloorConfig(terminals={"T1": 1, "T2": 2})
LIMITS = FLOOR.limits


class Socket(iosim.FakeTransport):  # type: ignore[misc]  # Twisted's test helpers are untyped
    """The server's TCP socket: records whether it was closed gently or aborted."""

    aborted = False

    def abortConnection(self) -> None:
        self.aborted = True
        super().abortConnection()

    @property
    def closed(self) -> bool:
        """Whether the server told the socket to close (``loseConnection`` or abort)."""
        return bool(self.disconnecting)


class Held:
    """A stand-in transport that keeps what is written to it."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


class Link:
    """One client connection: the client's AMP, the server's protocol, the pump."""

    def __init__(self, client: Any, server: Any, pump: iosim.IOPump) -> None:
        self.tls_client, self.tls_server, self.pump = client, server, pump

    @property
    def amp(self) -> Any:
        return self.tls_client.wrappedProtocol

    @property
    def server(self) -> Any:
        """The server's :class:`TerminalProtocol` (under TLS)."""
        return self.tls_server.wrappedProtocol

    @property
    def socket(self) -> Socket:
        return self.pump.serverIO  # type: ignore[no-any-return]

    def call(self, command: type[amp.Command], **kwargs: Any) -> Any:
        results: list[Any] = []
        self.amp.callRemote(command, **kwargs).addBoth(results.append)
        self.pump.flush()
        assert results, f"{command.__name__} got no answer"
        return results[0]

    def hello(self) -> Any:
        return self.call(p.Hello, version=p.PROTOCOL_VERSION, software="test 1")

    def stall(self) -> None:
        """The peer reads nothing more (it never answers the server's close_notify)."""
        self.pump.clientIO.bufferReceived = lambda data: None


class TlsTable:
    """A server factory on a fake machine and clock, behind real TLS, in memory."""

    def __init__(self, pki: Pki, floor: FloorConfig = FLOOR) -> None:
        self.pki = pki
        self.clock = task.Clock()
        self.machine = FakeMachine()
        self.factory = TableServerFactory(self.machine, floor, self.clock)
        options = server_tls_options(pki.directory, floor.revocations)
        self.tls = TLSMemoryBIOFactory(options, False, self.factory, clock=self.clock)
        self.links: list[Link] = []

    def connect(self, who: str | None, host: str = "127.0.0.1") -> Link:
        """A client from ``host`` with ``who``'s certificate ("T1", "operator"), or None: a
        peer that opens TCP and never starts TLS."""
        address = IPv4Address("TCP", host, 40000 + len(self.links))
        client_factory: Any
        if who is None:
            client_factory = Factory.forProtocol(Protocol)
        else:
            files = self.pki.files.operator if who == "operator" else self.pki.terminal(who)
            options = client_tls_options(self.pki.ca, files.certificate, files.key)
            client_factory = TLSMemoryBIOFactory(
                options, True, Factory.forProtocol(amp.AMP), clock=self.clock
            )
        client, server, pump = iosim.connectedServerAndClient(
            lambda: self.tls.buildProtocol(address),
            lambda: client_factory.buildProtocol(address),
            serverTransportFactory=lambda protocol: Socket(
                protocol, isServer=True, peerAddress=address
            ),
            clock=self.clock,
        )
        link = Link(client, server, pump)
        self.links.append(link)
        return link

    def advance(self, seconds: float) -> None:
        """Let time pass, then move what is left to move on every link."""
        self.clock.advance(seconds)
        for link in self.links:
            link.pump.flush()


# --------------------------------------------------------------------------------------------
# Every drop closes the socket


def test_a_stalled_peer_loses_its_socket_after_the_hello_deadline(
    pki: Pki, logged: list[dict[str, Any]]
) -> None:
    """A peer that completes the handshake with a valid certificate and then says nothing
    is dropped at the Hello deadline; it never answers close_notify, so the socket is
    aborted after the grace period (before the fix it stayed open for ever)."""
    table = TlsTable(pki)
    idle = table.connect("T1")
    assert idle.tls_server._handshakeDone
    idle.stall()
    table.advance(LIMITS.hello_seconds - 1)
    assert not idle.socket.closed
    table.advance(1)
    assert any("no Hello within 30 s" in t for t in messages(logged))
    assert not idle.socket.closed, "close_notify is sent first: the grace has not passed"
    table.advance(CLOSE_GRACE_SECONDS)
    assert idle.socket.closed and idle.socket.aborted
    assert table.factory.open_connections() == 0
    assert table.clock.getDelayedCalls() == []


def test_a_peer_that_never_starts_tls_is_closed_at_the_hello_deadline(pki: Pki) -> None:
    """A peer that opens TCP and sends nothing is closed at the Hello deadline."""
    table = TlsTable(pki)
    silent = table.connect(None)
    table.advance(LIMITS.hello_seconds - 1)
    assert not silent.socket.closed
    table.advance(1)
    assert silent.socket.closed
    assert table.factory.open_connections() == 0


def test_a_peer_that_answers_close_notify_is_closed_without_the_abort(pki: Pki) -> None:
    """A well-behaved peer answers the server's close_notify: the socket closes at once
    and the abort timer is cancelled."""
    table = TlsTable(pki)
    polite = table.connect("T1")
    table.advance(LIMITS.hello_seconds)
    assert polite.socket.closed and not polite.socket.aborted
    assert table.clock.getDelayedCalls() == []
    assert table.factory.open_connections() == 0


def test_a_flood_drop_closes_the_socket(pki: Pki, logged: list[dict[str, Any]]) -> None:
    """A terminal that floods commands is dropped as a flood; it reads nothing, and the
    socket is aborted after the grace period."""
    tight = FloorConfig(terminals={"T1": 1}, limits=NetLimits(commands_per_second=5, burst=4))
    table = TlsTable(pki, tight)
    flooder = table.connect("T1")
    flooder.hello()
    flooder.stall()
    for _ in range(5 * tight.limits.burst):
        flooder.amp.callRemote(p.GetView).addErrback(lambda _f: None)
    flooder.pump.flush()
    assert any("flood" in t for t in messages(logged))
    assert not flooder.socket.aborted
    table.advance(CLOSE_GRACE_SECONDS)
    assert flooder.socket.closed and flooder.socket.aborted
    assert table.factory.open_connections() == 0


def test_a_replaced_connection_loses_its_socket(pki: Pki) -> None:
    """When T1 says Hello on a new connection, its old connection (whose peer is gone and
    never answers) is dropped and its socket aborted after the grace; the new one stays."""
    table = TlsTable(pki)
    old = table.connect("T1")
    old.hello()
    old.stall()
    new = table.connect("T1")
    new.hello()
    assert not old.socket.closed
    table.advance(CLOSE_GRACE_SECONDS)
    assert old.socket.aborted
    assert not new.socket.closed
    assert table.factory.connections == [new.server]
    assert new.call(p.GetView)["view"]["terminal"] == "T1"


def test_half_a_box_after_hello_is_dropped_at_the_box_deadline(
    pki: Pki, logged: list[dict[str, Any]]
) -> None:
    """After Hello, a peer that sends half a command box and stalls (or trickles a byte at a
    time) is dropped box_seconds after the box's first byte, and its socket closed."""
    table = TlsTable(pki)
    staller = table.connect("T1")
    staller.hello()
    staller.stall()
    # A key, then a value announced as 1,000 bytes of which one comes...
    staller.tls_client.write(struct.pack("!H", 8) + b"_command" + struct.pack("!H", 1000) + b"G")
    staller.pump.flush()
    for _ in range(int(LIMITS.box_seconds) - 1):
        table.advance(1)
        staller.tls_client.write(b"x")  # ...and then a byte a second: a trickle buys no time
        staller.pump.flush()
    assert not staller.socket.closed
    table.advance(1)
    assert any("half a command box" in t for t in messages(logged))
    table.advance(CLOSE_GRACE_SECONDS)
    assert staller.socket.aborted


def test_a_box_that_arrives_in_pieces_in_time_is_answered(pki: Pki) -> None:
    """A box split over several reads that completes within box_seconds is answered, and no
    deadline is left running after it."""
    table = TlsTable(pki)
    link = table.connect("T1")
    link.hello()
    answers: list[Any] = []
    tls, held = link.amp.transport, Held()
    link.amp.transport = held  # keep the box the client writes...
    link.amp.callRemote(p.GetView).addBoth(answers.append)
    link.amp.transport = tls
    box = b"".join(held.written)
    for piece in (box[:7], box[7:20], box[20:]):  # ...and send it in three TLS records
        link.tls_client.write(piece)
        link.pump.flush()
        table.advance(LIMITS.box_seconds / 4)
    assert isinstance(answers[0], dict) and answers[0]["view"]["terminal"] == "T1"
    assert table.clock.getDelayedCalls() == []
    table.advance(LIMITS.box_seconds * 10)
    assert not link.socket.closed


# --------------------------------------------------------------------------------------------
# Caps


def test_connections_per_identity_over_the_cap_are_refused_at_the_handshake(
    pki: Pki, logged: list[dict[str, Any]]
) -> None:
    """With connections_per_identity = 2, a third connection with T3's certificate (a valid
    certificate without a seat) is refused as soon as its handshake names it, without a
    wait; another id is not affected, and a closed connection frees its place."""
    floor = FloorConfig(terminals={"T1": 1}, limits=NetLimits(connections_per_identity=2))
    table = TlsTable(pki, floor)
    first, second = table.connect("T3"), table.connect("T3")
    third = table.connect("T3")
    assert third.socket.aborted and not first.socket.closed and not second.socket.closed
    refusals = [t for t in messages(logged) if "refusing a connection" in t]
    assert refusals and "T3" in refusals[0] and "connections_per_identity" in refusals[0]
    assert not table.connect("T1").socket.closed
    first.tls_client.loseConnection()
    table.advance(0)
    assert not table.connect("T3").socket.closed


def test_unauthenticated_connections_over_the_cap_are_refused_at_once(
    pki: Pki, logged: list[dict[str, Any]]
) -> None:
    """With unauthenticated_connections = 3, a fourth connection before Hello is refused as
    soon as it is accepted, with a log line; once one of them says Hello, a new one is
    accepted."""
    floor = FloorConfig(terminals={"T1": 1}, limits=NetLimits(unauthenticated_connections=3))
    table = TlsTable(pki, floor)
    silent = [table.connect(None), table.connect(None)]
    terminal = table.connect("T1")
    refused = table.connect(None)
    assert refused.socket.aborted
    assert not any(link.socket.closed for link in (*silent, terminal))
    refusals = [t for t in messages(logged) if "refusing a connection" in t]
    assert refusals and "unauthenticated_connections" in refusals[0]
    assert terminal.hello()["identity"] == "T1"
    assert not table.connect(None).socket.closed


def test_one_address_over_its_cap_is_refused_while_another_address_gets_in(
    pki: Pki, logged: list[dict[str, Any]]
) -> None:
    """With unauthenticated_per_address = 2, a third connection before Hello from 10.0.0.9
    is refused as soon as it is accepted, with a line naming the key, while T1 and the
    operator connecting from 10.0.0.1 say Hello; once one of 10.0.0.9's closes, it may
    connect again."""
    floor = FloorConfig(terminals={"T1": 1}, limits=NetLimits(unauthenticated_per_address=2))
    table = TlsTable(pki, floor)
    held = [table.connect(None, "10.0.0.9"), table.connect(None, "10.0.0.9")]
    refused = table.connect(None, "10.0.0.9")
    assert refused.socket.aborted
    assert not any(link.socket.closed for link in held)
    refusals = [t for t in messages(logged) if "refusing a connection" in t]
    assert refusals == [
        "refusing a connection from 10.0.0.9:40002: 10.0.0.9 already holds 2 connections "
        "that have not said Hello, the most [floor.limits] unauthenticated_per_address "
        "allows; further refusals of 10.0.0.9 are counted and logged once a minute"
    ]
    assert table.connect("T1", "10.0.0.1").hello()["identity"] == "T1"
    assert table.connect("operator", "10.0.0.1").hello()["role"] == "operator"
    held[0].tls_client.transport.loseConnection()
    table.advance(0)
    assert not table.connect(None, "10.0.0.9").socket.closed


def test_the_refusals_of_a_flood_are_logged_once_a_minute_per_address(
    pki: Pki, logged: list[dict[str, Any]]
) -> None:
    """50 connections from 10.0.0.9 over its cap, a second apart, at the server's gate: one
    line at once and nothing more for a minute (no line at all for each refused connection),
    then one line with how many more were refused; another address over its cap gets its
    own line at once. Once the flood stops, so does the timer."""
    limits = NetLimits(hello_seconds=600, unauthenticated_per_address=1)
    table = TlsTable(pki, FloorConfig(terminals={"T1": 1}, limits=limits))
    gate = GatedTLSFactory(server_tls_options(pki.directory), table.factory)
    table.connect(None, "10.0.0.9")
    table.connect(None, "10.0.0.7")
    before = len(logged)
    for n in range(50):
        assert gate.buildProtocol(IPv4Address("TCP", "10.0.0.9", 41000 + n)) is None
        table.advance(1)
    lines = messages(logged[before:])
    assert len(lines) == 1 and lines[0].startswith("refusing a connection from 10.0.0.9:41000: ")
    assert gate.buildProtocol(IPv4Address("TCP", "10.0.0.7", 42000)) is None
    assert messages(logged[before:])[-1].startswith("refusing a connection from 10.0.0.7:42000")
    table.advance(10)
    assert messages(logged[before:])[2:] == [
        "refused 49 more connection(s) from 10.0.0.9 in the last 60 s (the last because "
        "10.0.0.9 already holds 1 connections that have not said Hello, the most "
        "[floor.limits] unauthenticated_per_address allows)"
    ]
    table.advance(120)
    assert len(logged) == before + 3
    for link in table.links:
        link.tls_client.transport.loseConnection()
    table.advance(0)
    assert table.clock.getDelayedCalls() == []


def test_the_gate_closes_a_connection_over_the_caps_before_any_tls(
    pki: Pki, logged: list[dict[str, Any]]
) -> None:
    """GatedTLSFactory (what the server listens with, and a worker adopts sockets through)
    builds nothing for a connection of an address at its cap: Twisted closes the socket at
    accept, and no TLS connection or protocol exists for it. Another address is served."""
    floor = FloorConfig(terminals={"T1": 1}, limits=NetLimits(unauthenticated_per_address=1))
    table = TlsTable(pki, floor)
    table.connect(None, "10.0.0.9")
    gate = GatedTLSFactory(server_tls_options(pki.directory), table.factory)
    assert gate.buildProtocol(IPv4Address("TCP", "10.0.0.9", 41000)) is None
    assert gate.buildProtocol(IPv4Address("TCP", "10.0.0.9", 41001)) is None
    refusals = [t for t in messages(logged) if "refusing a connection" in t]
    assert len(refusals) == 1 and "10.0.0.9:41000" in refusals[0]
    built = gate.buildProtocol(IPv4Address("TCP", "10.0.0.1", 41002))
    assert isinstance(built.wrappedProtocol, type(table.links[0].server))
