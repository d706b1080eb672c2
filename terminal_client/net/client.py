"""The terminal's AMP client: one reconnecting connection to the table server.

:class:`TerminalClient` keeps a connection up with Twisted's ``ClientService`` (exponential
back-off: by default from 0.5 s, growing 1.5 times per attempt to 10 s). On each connection
it sends :class:`~shared.protocol.Hello` with :data:`~shared.protocol.PROTOCOL_VERSION`, applies the
answer's view to the :class:`~terminal_client.model.TerminalModel`, then resends every intent
that had no answer yet, with its first request id (the server answers a retry once and changes
nothing). ``ViewUpdate`` pushes go to the model as they arrive.

Intents (:meth:`~TerminalClient.place_wagers`, :meth:`~TerminalClient.act`,
:meth:`~TerminalClient.answer_insurance`, :meth:`~TerminalClient.cash_out`) carry a fresh
request id (``uuid4().hex``); the model refuses a second one of the same kind while the first
awaits its answer, and any while the terminal is not connected. A declared error reaches the
model with the server's code and sentence. ``VersionMismatch`` (or a view of another version)
stops the reconnecting for good: the terminal needs an update.

Entry point: :class:`TerminalClient`; for TLS see :mod:`terminal_client.net.tls`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, Final

from OpenSSL import SSL
from service_identity import VerificationError
from twisted.application.internet import ClientService, backoffPolicy
from twisted.internet import error
from twisted.internet.defer import CancelledError, Deferred, succeed
from twisted.internet.interfaces import IProtocol, IProtocolFactory, IReactorTime
from twisted.internet.protocol import Factory, connectionDone
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.python.failure import Failure

from shared.protocol import (
    DOMAIN_ERRORS,
    PROTOCOL_VERSION,
    Act,
    AnswerInsurance,
    GetRecall,
    GetRules,
    Hello,
    PlaceWagers,
    RequestCashOut,
    Unauthorized,
    VersionMismatch,
    ViewUpdate,
)
from terminal_client.model import ConnectionState, Document, Intent, IntentKind, TerminalModel

log = Logger()

#: What this terminal tells the server it runs.
SOFTWARE: Final = "etg-terminal 0.1.0"

#: The command each kind of intent sends.
_COMMANDS: Final[Mapping[IntentKind, type[amp.Command]]] = {
    IntentKind.PLACE_WAGERS: PlaceWagers,
    IntentKind.ACT: Act,
    IntentKind.INSURANCE: AnswerInsurance,
    IntentKind.CASH_OUT: RequestCashOut,
}

#: The command that fetches each on-demand document, and its answer's key.
_DOCUMENTS: Final[Mapping[Document, tuple[type[amp.Command], str]]] = {
    Document.RULES: (GetRules, "rules"),
    Document.RECALL: (GetRecall, "recall"),
}

#: How a refused TLS handshake ends a connection: OpenSSL refused a certificate (ours, or
#: the server's as not from our CA), or the server's certificate names another host.
_TLS_REFUSALS: Final = (SSL.Error, VerificationError)

#: How a failed connection attempt begins its message (the reason follows after ": ").
UNREACHABLE: Final = "cannot reach the table server"

#: The code of a refusal that is not one of the protocol's declared errors.
UNDECLARED: Final = "PROTOCOL_ERROR"


def default_retry_policy() -> Callable[[int], float]:
    """Back off from 0.5 s to at most 10 s (plus up to 1 s of jitter) between attempts."""
    return backoffPolicy(initialDelay=0.5, maxDelay=10)


class _TerminalProtocol(amp.AMP):
    """One connection: tells its client when it opens and closes, takes view pushes."""

    def __init__(self, client: TerminalClient) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Twisted's AMP is unannotated
        self._client = client

    def connectionMade(self) -> None:
        super().connectionMade()  # type: ignore[no-untyped-call]  # unannotated
        self._client._connection_made(self)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        super().connectionLost(reason)  # type: ignore[no-untyped-call]  # unannotated
        self._client._connection_lost(self, reason)

    @ViewUpdate.responder
    def view_update(self, view: Any) -> dict[str, Any]:
        self._client.model.apply_view(view)
        self._client._check_version()
        return {}


class _Factory(Factory):
    def __init__(self, client: TerminalClient) -> None:
        self._client = client

    def buildProtocol(self, addr: Any) -> _TerminalProtocol:
        return _TerminalProtocol(self._client)


class _WatchedEndpoint:
    """An endpoint that tells the client why a connection attempt failed."""

    def __init__(self, endpoint: Any, failed: Callable[[Failure], None]) -> None:
        self._endpoint = endpoint
        self._failed = failed

    def connect(self, factory: IProtocolFactory) -> Deferred[IProtocol]:
        def failed(failure: Failure) -> Failure:
            self._failed(failure)
            return failure

        connecting: Deferred[IProtocol] = self._endpoint.connect(factory)
        return connecting.addErrback(failed)


class TerminalClient:
    """The terminal's reconnecting connection to the table server (see the module doc).

    Args:
        endpoint: Where the server is: an ``IStreamClientEndpoint`` (TLS in production,
            :func:`terminal_client.net.tls.tls_endpoint`; in-memory in tests).
        model: The model this client feeds; the screens read it.
        clock: The reactor (tests: ``task.Clock``) for the back-off delays.
        retry_policy: Seconds to wait before attempt *n* (default
            :func:`default_retry_policy`).
        software: What the terminal tells the server it runs.
        new_request_id: Makes request ids (default ``uuid4().hex``).
    """

    def __init__(
        self,
        endpoint: Any,
        model: TerminalModel,
        clock: IReactorTime,
        *,
        retry_policy: Callable[[int], float] | None = None,
        software: str = SOFTWARE,
        new_request_id: Callable[[], str] = lambda: uuid.uuid4().hex,
    ) -> None:
        self.model = model
        self._clock: Any = clock  # zope interfaces confuse mypy's method binding
        self._policy = retry_policy or default_retry_policy()
        self._software = software
        self._new_request_id = new_request_id
        self._protocol: _TerminalProtocol | None = None
        self._refusal: tuple[ConnectionState, str] | None = None
        self._stopped = False
        watched: Any = _WatchedEndpoint(endpoint, self._attempt_failed)
        factory: Any = _Factory(self)  # zope interfaces are invisible to mypy
        self._service = ClientService(
            watched,
            factory,
            retryPolicy=self._retry_delay,
            clock=clock,
        )

    # ----------------------------------------------------------------------------------------
    # Running

    def start(self) -> None:
        """Connect, and reconnect whenever the connection drops (until :meth:`stop`)."""
        self._stopped = False
        self.model.apply_connection(ConnectionState.CONNECTING, "connecting to the table")
        self._service.startService()

    def stop(self) -> Deferred[None]:
        """Close the connection and stop reconnecting; fires when closed."""
        self._stopped = True
        if not self._service.running:
            return succeed(None)
        return self._service.stopService()

    @property
    def running(self) -> bool:
        """True while the client connects or reconnects."""
        return bool(self._service.running)

    # ----------------------------------------------------------------------------------------
    # Intents

    def place_wagers(self, wagers: Mapping[str, int], position: int | None = None) -> Intent | None:
        """Place wagers for the open round (``{"blackjack": 2500}`` cents); ``position``
        (1 to 3) is the player position chosen at a three-position hybrid table (58 Pa. Code
        633b.5(l)) and is sent only when given. Returns the intent sent, or ``None`` when one
        is already waiting or the terminal is offline."""
        if position is None:
            return self._intend(IntentKind.PLACE_WAGERS, wagers=dict(wagers))
        return self._intend(IntentKind.PLACE_WAGERS, wagers=dict(wagers), position=position)

    def act(self, action: str, hand: int, amount: int = 0) -> Intent | None:
        """A decision on one of this terminal's hands (``amount``: a double for less)."""
        return self._intend(IntentKind.ACT, action=action, hand=hand, amount=amount)

    def answer_insurance(self, choice: str, amount: int = 0) -> Intent | None:
        """Answer the insurance offer: ``"insurance"`` (with ``amount``), ``"decline"`` or
        ``"even-money"``."""
        return self._intend(IntentKind.INSURANCE, choice=choice, amount=amount)

    def cash_out(self) -> Intent | None:
        """Ask for a cash out of all credits."""
        return self._intend(IntentKind.CASH_OUT)

    def request_rules(self) -> bool:
        """Ask for the rules and paytables (the rules screen); False when not sent."""
        return self._request(Document.RULES)

    def request_recall(self) -> bool:
        """Ask for this terminal's last games (the recall screen); False when not sent."""
        return self._request(Document.RECALL)

    def _request(self, which: Document) -> bool:
        protocol = self._protocol
        if protocol is None or not self.model.apply_document_requested(which):
            return False
        command, key = _DOCUMENTS[which]
        asking: Deferred[Any] = protocol.callRemote(command)  # type: ignore[no-untyped-call]
        asking.addCallbacks(
            lambda answer: self.model.apply_document(which, answer[key]),
            lambda failure: self._document_refused(which, failure),
        )
        return True

    def _document_refused(self, which: Document, failure: Failure) -> None:
        if _is(failure, error.ConnectionClosed, amp.ProtocolSwitched):
            message = "the connection to the table server was lost; try again"
        elif type(failure.value) in DOMAIN_ERRORS:
            message = str(failure.value)
        else:
            log.failure("{which} request failed", failure, which=which)
            message = f"the table server could not answer: {failure.value}"
        self.model.apply_document_error(which, message)
        self._check_version()

    def _intend(self, kind: IntentKind, **arguments: Any) -> Intent | None:
        intent = Intent.make(kind, self._new_request_id(), **arguments)
        if not self.model.apply_sent(intent):
            return None
        self._send(intent)
        return intent

    def _send(self, intent: Intent) -> None:
        protocol = self._protocol
        if protocol is None:
            return  # sent again after the next Hello
        sending: Deferred[Any] = protocol.callRemote(  # type: ignore[no-untyped-call]
            _COMMANDS[intent.kind], request_id=intent.request_id, **intent.arguments
        )
        sending.addCallbacks(
            self._answered,
            self._refused,
            callbackArgs=(intent,),
            errbackArgs=(intent,),
        )

    def _answered(self, answer: dict[str, Any], intent: Intent) -> None:
        self.model.apply_answer(intent.request_id, answer["view"])
        self._check_version()

    def _refused(self, failure: Failure, intent: Intent) -> None:
        if _is(failure, error.ConnectionClosed, amp.ProtocolSwitched):
            return  # no answer: still pending, resent after the next Hello
        code = DOMAIN_ERRORS.get(type(failure.value))  # type: ignore[arg-type]
        if code is None:
            log.failure(
                "{kind} {request_id} failed",
                failure,
                kind=intent.kind,
                request_id=intent.request_id,
            )
            self.model.apply_error(
                UNDECLARED, f"the table server could not answer: {failure.value}", intent.request_id
            )
            return
        self.model.apply_error(code.decode("ascii"), str(failure.value), intent.request_id)
        self._check_version()

    # ----------------------------------------------------------------------------------------
    # Connections

    def _connection_made(self, protocol: _TerminalProtocol) -> None:
        self._protocol = None  # not usable for intents until Hello is answered
        self._refusal = None
        hello: Deferred[Any] = protocol.callRemote(  # type: ignore[no-untyped-call]
            Hello, version=PROTOCOL_VERSION, software=self._software
        )
        hello.addCallbacks(
            self._hello_answered,
            self._hello_refused,
            callbackArgs=(protocol,),
            errbackArgs=(protocol,),
        )

    def _hello_answered(self, answer: dict[str, Any], protocol: _TerminalProtocol) -> None:
        if protocol.transport is None or protocol.transport.disconnecting:
            return
        self.model.apply_connection(ConnectionState.CONNECTED)
        self.model.apply_view(answer["view"])
        if self._check_version():
            return
        self._protocol = protocol
        for intent in self.model.pending:
            self._send(intent)

    def _hello_refused(self, failure: Failure, protocol: _TerminalProtocol) -> None:
        if _is(failure, error.ConnectionClosed, amp.ProtocolSwitched):
            return
        if _is(failure, VersionMismatch):
            self.model.apply_error("VERSION_MISMATCH", str(failure.value))
            self._check_version()
            return
        if _is(failure, Unauthorized):
            self._refusal = (
                ConnectionState.CERTIFICATE_REFUSED,
                f"the table server refused this terminal: {failure.value}",
            )
        else:
            self._refusal = (
                ConnectionState.LOST,
                f"the table server did not accept Hello: {failure.value}",
            )
        self.model.apply_connection(*self._refusal)
        transport: Any = protocol.transport
        if transport is not None:
            transport.loseConnection()

    def _connection_lost(self, protocol: _TerminalProtocol, reason: Failure) -> None:
        if self._protocol is protocol:
            self._protocol = None
        if self._stopped:
            return
        if self._refusal is not None:
            state, message = self._refusal
        elif _is(reason, *_TLS_REFUSALS):
            state, message = _certificate_refused(reason)
        else:
            state, message = ConnectionState.LOST, "the connection to the table server was lost"
        self.model.apply_connection(state, message)

    def _attempt_failed(self, failure: Failure) -> None:
        if self._stopped or _is(failure, CancelledError):
            return
        if _is(failure, *_TLS_REFUSALS):
            self.model.apply_connection(*_certificate_refused(failure))
        else:
            self.model.apply_connection(ConnectionState.LOST, f"{UNREACHABLE}: {failure.value}")

    def _retry_delay(self, attempt: int) -> float:
        delay = self._policy(attempt)
        self.model.apply_retry_at(self._clock.seconds() + delay)
        return delay

    def _check_version(self) -> bool:
        """Stop for good when the model says the terminal needs an update."""
        if not self.model.needs_update:
            return False
        if not self._stopped:
            log.error("stopping: {why}", why=self.model.connection.message)
            self.stop()
        return True


def _certificate_refused(failure: Failure) -> tuple[ConnectionState, str]:
    return (
        ConnectionState.CERTIFICATE_REFUSED,
        "the TLS handshake failed: the server refused this terminal's certificate or its own "
        f"is not from our CA ({failure.value})",
    )


def _is(failure: Failure, *errors: type[BaseException]) -> bool:
    """Whether ``failure`` holds one of ``errors``."""
    return failure.check(*errors) is not None  # type: ignore[no-untyped-call]  # unannotated
