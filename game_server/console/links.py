"""The console's AMP connections to the table servers, as the operator, over mutual TLS.

One :class:`ServerLink` per server of the servers file: it connects with the operator
certificate (:func:`game_server.net.tls.client_tls_options`, TLS 1.3, the server's
certificate checked against the CA and its host name), says ``Hello``, then reads the
server's meters (``ReadMeters``) every :data:`POLL_SECONDS` and tells the console when they
changed (the floor page is live from these readings: the server pushes views to terminals
only). A lost or refused connection is retried after 1, 2, 4 ... at most
:data:`MAX_BACKOFF_SECONDS` seconds; meanwhile the server is shown unreachable, with why.

Actions (credit, cash out, table state, terminal access) go over the same connection with a
new request id each and the person and role (:data:`shared.protocol._WHO`); the answer's
``logged`` says whether the server wrote them into the table's log.

Entry points: :class:`ServerLink`, :class:`LinkState`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from twisted.internet.defer import Deferred, fail
from twisted.internet.endpoints import SSL4ClientEndpoint, connectProtocol
from twisted.internet.interfaces import IOpenSSLClientConnectionCreator
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.python.failure import Failure

from game_server.console.settings import ServerEntry
from shared.errors import ETGError
from shared.protocol import PROTOCOL_VERSION, Hello, ReadMeters

log = Logger()

#: Seconds between two meter readings of a connected server.
POLL_SECONDS: Final = 1.0
#: Longest wait before trying a lost server again.
MAX_BACKOFF_SECONDS: Final = 30.0
#: Seconds a connection (TCP, TLS and Hello) may take.
CONNECT_SECONDS: Final = 10.0
#: What the console says it is in ``Hello``.
SOFTWARE: Final = "etg console"


class NotConnected(ETGError):
    """An action for a server the console is not connected to."""


@dataclass(frozen=True)
class LinkState:
    """What the console knows of one server now.

    Attributes:
        connected: The connection said Hello and reads meters.
        meters: The last ``ReadMeters`` answer (None before the first).
        problem: Why it is not connected (or the last reading failed), else None.
    """

    connected: bool
    meters: dict[str, Any] | None
    problem: str | None


class _Client(amp.AMP):
    def __init__(self, lost: Callable[[Failure], None]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Twisted's AMP is unannotated
        self._lost = lost

    def connectionLost(self, reason: Failure) -> None:  # type: ignore[override]  # unannotated
        super().connectionLost(reason)  # type: ignore[no-untyped-call]  # unannotated
        self._lost(reason)


def _why(failure: Failure) -> str:
    value = failure.value
    if isinstance(value, amp.RemoteAmpError):
        return f"{value.errorCode.decode('ascii', 'replace')}: {value.description}"
    return str(value) or type(value).__name__


class ServerLink:
    """The console's connection to one table server (see the module docstring).

    Args:
        reactor: The reactor (tests: a real one on loopback).
        server: The server's entry of the servers file.
        tls: The operator's client TLS options for this server's host name.
        changed: Told after every reading or change of state.
    """

    def __init__(
        self,
        reactor: Any,
        server: ServerEntry,
        tls: IOpenSSLClientConnectionCreator,
        changed: Callable[[ServerLink], None],
    ) -> None:
        self.reactor = reactor
        self.server = server
        self._tls = tls
        self._changed = changed
        self._protocol: _Client | None = None
        self._poll: LoopingCall | None = None
        self._retry: Any = None
        self._backoff = 1.0
        self._stopped = False
        self.state = LinkState(False, None, "not connected yet")

    @property
    def name(self) -> str:
        return self.server.name

    def start(self) -> None:
        self._stopped = False
        self._connect()

    def stop(self) -> None:
        """Disconnect and stop retrying."""
        self._stopped = True
        if self._retry is not None and self._retry.active():
            self._retry.cancel()
        self._stop_polling()
        self._hang_up()

    def _set(self, state: LinkState) -> None:
        self.state = state
        self._changed(self)

    def _connect(self) -> None:
        self._retry = None
        endpoint = SSL4ClientEndpoint(  # type: ignore[no-untyped-call]  # unannotated
            self.reactor, self.server.host, self.server.port, self._tls, timeout=CONNECT_SECONDS
        )
        protocol = _Client(self._lost)
        connecting: Deferred[Any] = connectProtocol(endpoint, protocol)  # type: ignore[no-untyped-call]  # unannotated
        connecting.addCallback(lambda _: self._hello(protocol))
        connecting.addErrback(self._failed)

    def _hello(self, protocol: _Client) -> Deferred[Any]:
        self._protocol = protocol
        asked: Deferred[Any] = protocol.callRemote(  # type: ignore[no-untyped-call]  # unannotated
            Hello, version=PROTOCOL_VERSION, software=SOFTWARE
        )
        asked.addTimeout(CONNECT_SECONDS, self.reactor)
        return asked.addCallback(self._said_hello)

    def _said_hello(self, answer: dict[str, Any]) -> None:
        if answer.get("role") != "operator":
            raise NotConnected(f"the server took the certificate for {answer.get('role')!r}")
        self._backoff = 1.0
        log.info("console connected to {server}", server=self.name)
        self._poll = LoopingCall(self._read)
        self._poll.clock = self.reactor
        self._poll.start(POLL_SECONDS, now=True)

    def _failed(self, failure: Failure) -> None:
        why = _why(failure)
        log.warn("console cannot reach {server}: {why}", server=self.name, why=why)
        if not self._hang_up():
            self._schedule(why)

    def _hang_up(self) -> bool:
        """Close the connection if there is one (its loss then schedules the retry)."""
        transport: Any = None if self._protocol is None else self._protocol.transport
        if transport is None:
            return False
        transport.loseConnection()
        return True

    def _lost(self, reason: Failure) -> None:
        self._protocol = None
        self._stop_polling()
        self._schedule(f"connection lost: {reason.getErrorMessage()}")

    def _schedule(self, why: str) -> None:
        self._set(LinkState(False, self.state.meters, why))
        if self._stopped or self._retry is not None:
            return
        self._retry = self.reactor.callLater(self._backoff, self._connect)
        self._backoff = min(self._backoff * 2, MAX_BACKOFF_SECONDS)

    def _stop_polling(self) -> None:
        if self._poll is not None and self._poll.running:
            self._poll.stop()
        self._poll = None

    def _read(self) -> Deferred[Any] | None:
        protocol = self._protocol
        if protocol is None:
            return None
        asked: Deferred[Any] = protocol.callRemote(ReadMeters)  # type: ignore[no-untyped-call]  # unannotated
        asked.addTimeout(CONNECT_SECONDS, self.reactor)

        def read(answer: dict[str, Any]) -> None:
            self._set(LinkState(True, answer["meters"], None))

        def failed(failure: Failure) -> None:
            self._set(LinkState(True, self.state.meters, f"reading meters: {_why(failure)}"))

        return asked.addCallbacks(read, failed)

    def call(self, command: type[amp.Command], **arguments: Any) -> Deferred[dict[str, Any]]:
        """Send an operator command with a new request id (when the command takes one);
        after it, read the meters again before answering, so the next page shows its
        effect.

        Returns:
            The answer; a declared error fails it with :class:`amp.RemoteAmpError`, no
            connection with :class:`NotConnected`.
        """
        protocol = self._protocol
        if protocol is None or not self.state.connected:
            return fail(NotConnected(f"{self.name} is not connected: {self.state.problem}"))
        names = [name for name, _ in command.arguments]
        if b"request_id" in names and "request_id" not in arguments:
            arguments["request_id"] = uuid.uuid4().hex
        asked: Deferred[dict[str, Any]] = protocol.callRemote(command, **arguments)  # type: ignore[no-untyped-call]  # unannotated
        asked.addTimeout(CONNECT_SECONDS, self.reactor)

        def after(answer: dict[str, Any]) -> Any:
            reading = self._read()
            if reading is None:
                return answer
            return reading.addCallback(lambda _: answer)

        return asked.addCallback(after)
