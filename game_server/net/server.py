"""The table's AMP server: terminals and operator tools drive a :class:`TableMachine`.

One :class:`TerminalProtocol` per connection (mutual TLS; docs/design.md "Network", "One round,
as data" step 2). The peer is who its client certificate says
(:func:`game_server.net.tls.identity_of`), never what it claims. In order, every command box:

1. is counted against the connection's token bucket (``[floor.limits]``): over it the
   answer is ``RateLimited``; after :data:`FLOOD_FACTOR` x burst refusals without a pause
   the connection is logged and dropped;
2. must follow a successful ``Hello`` (else ``Unauthorized``); ``Hello`` with another
   protocol version is answered ``VersionMismatch`` and the connection dropped;
3. must suit the certificate: terminal commands for terminals holding a seat in
   ``floor.toml``, operator commands for the operator certificate (else ``Unauthorized``,
   logged). A terminal always acts for its own seat: commands take no seat argument.
4. runs at most once per ``request_id``: the first answer or declared error of the last
   :data:`~game_server.net.wire.TERMINAL_ANSWERS_KEPT` request ids of each terminal (the
   last :data:`~game_server.net.wire.ANSWERS_KEPT` of the operator) is kept, and a retry
   with the same id, on this or a later connection, gets it again and changes nothing.
   Across restarts too: the first step a command logs carries its client and request id
   into the event log in the same transaction (``request_applied``,
   :mod:`game_server.table.requests`), the server reads the last ones of each client back
   at start (:mod:`game_server.net.applied`), and a retry of one whose answer the crash
   lost is answered with ``already`` (the answer rebuilt from the log and the table now)
   and runs nothing.

An ``Act``'s ``action`` names a decision of the table's game, read by the machine
(:meth:`~game_server.table.api.TableMachine.parse_action`: "hit" or "stand" at a Blackjack
table, "check", "bet" or "fold" with the Play multiple as ``amount`` at an Ultimate Texas
Hold 'Em table); the wire format is the same. The machine's refusals become the protocol's
declared errors with the machine's sentence (:data:`~game_server.net.wire.DOMAIN_ERRORS`).
Anything undeclared is logged and the connection dropped. A box over
:data:`~game_server.net.wire.MAX_BOX_BYTES`, a malformed box, or an unknown command is logged
(the first two drop the connection; AMP answers ``UNHANDLED`` to the last). A terminal that
drops keeps its seat and wagers: the machine's countdowns act for it, and its next ``Hello``
returns its view.

After each logged step (:meth:`TableServerFactory.step_logged`, save then send) every
connected terminal of the table that stepped is pushed its own view as ``ViewUpdate``. The
views of one step are built together and what they share (the dealer's cards, the limits,
the shoe) is built once; each terminal's view is encoded once (:func:`~shared.protocol.encode_view`,
compiled JSON) however many of its connections get it: each terminal gets the bytes of its
own view built alone, and nothing of another seat's.

Connections are bounded (``[floor.limits]``; issue 13): more than
``unauthenticated_connections`` before their Hello, or more than
``unauthenticated_per_address`` of them from one source address
(:class:`~game_server.net.admission.Waiting`), and the new one is closed at accept, before
any TLS is built for it (:class:`GatedTLSFactory`); the refusals of an address are logged
once a minute (:class:`~game_server.net.admission.RefusalLog`), so a flood of connections
cannot flood the log. More than ``connections_per_identity`` with one certificate id
(counted from the TLS handshake), and the new one is refused at once with a log line. A
connection that has not completed the handshake and said Hello within ``hello_seconds``,
or that after Hello leaves a command box unfinished for ``box_seconds``, is dropped. Every
drop ends with the socket closed: the peer has :data:`CLOSE_GRACE_SECONDS` to answer TLS
close_notify, then the connection is aborted.

Entry point: :class:`TableServerFactory`, behind :class:`GatedTLSFactory`, e.g.
``reactor.listenTCP(floor.port, GatedTLSFactory(tls_options, TableServerFactory(machine,
floor, reactor)))``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Final, TypeVar, cast

from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IHandshakeListener, IProtocolFactory, IReactorTime
from twisted.internet.protocol import Factory, connectionDone
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.protocols.policies import TimeoutMixin
from twisted.protocols.tls import TLSMemoryBIOFactory
from twisted.python.failure import Failure
from zope.interface import implementer  # type: ignore[import-untyped]  # ships no hints

from game_server.durations import Durations
from game_server.net.admission import (
    FIRST_REFUSAL,
    MORE_REFUSALS,
    RefusalLog,
    Waiting,
    describe_peer,
    host_of,
)
from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity, RevocationList
from game_server.net.operator import OperatorCommands, OperatorFloor
from game_server.net.pki import PkiError, Role
from game_server.net.tls import identity_of
from game_server.net.wire import (
    INSURANCE_CHOICES,
    MAX_BOX_BYTES,
    OPERATOR_COMMANDS,
    RESPONDERS,
    TERMINAL_COMMANDS,
    AnswerBook,
    Applied,
    BoxTooLarge,
    Outcome,
    TokenBucket,
    declared,
    identity_key,
    missing_arguments,
    no_delay,
)
from game_server.table import requests
from game_server.table.api import HostedTable, TableMachine, TableState
from game_server.table.secrecy import redact_view
from game_server.table.session import LogWriteFailed, TableBook, out_of_service_reason
from game_server.table.steps import run_step
from shared.errors import ETGError
from shared.protocol import (
    DOMAIN_ERRORS as WIRE_CODES,
)
from shared.protocol import (
    MAX_VALUE_BYTES,
    PROTOCOL_VERSION,
    Act,
    AnswerInsurance,
    BadRequest,
    Hello,
    PlaceWagers,
    ProtocolError,
    RateLimited,
    RedactedView,
    RequestCashOut,
    TableUnavailable,
    Unauthorized,
    UnredactedView,
    VersionMismatch,
    ViewUpdate,
    check_request_id,
)

log = Logger()

_T = TypeVar("_T")

#: A connection refused this many times its burst without a pause is dropped as a flood.
FLOOD_FACTOR: Final = 3
#: What the log calls a connection before its ``Hello``.
UNIDENTIFIED: Final = "(before Hello)"

#: Seconds the peer of a dropped connection has to answer the server's TLS close_notify
#: before the socket is aborted. After a completed handshake ``loseConnection()`` only
#: sends close_notify and waits for the peer's: a dead or hostile peer never answers, and
#: without the abort its socket (a file descriptor) stays open for ever (Twisted issue
#: 7926, open: "TLSMemoryBIOProtocol.loseConnection does not work properly").
CLOSE_GRACE_SECONDS: Final = 5.0


@implementer(IHandshakeListener)
class TerminalProtocol(OperatorCommands, amp.AMP, TimeoutMixin):
    """One connection of a terminal or of the operator tools (see the module docstring).

    Its one deadline (Twisted's :class:`~twisted.protocols.policies.TimeoutMixin`) runs
    from the connection's start until Hello (``hello_seconds``), and after Hello from the
    first byte of each command box until its last (``box_seconds``). Every drop ends with
    the socket closed: a peer that does not answer close_notify within
    :data:`CLOSE_GRACE_SECONDS` is aborted.
    """

    def __init__(self, factory: TableServerFactory) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Twisted's AMP is unannotated
        self.factory = factory
        self.identity: Identity | None = None
        #: The certificate's identity this connection is counted against (from the TLS
        #: handshake, or at Hello), for ``connections_per_identity``.
        self.counted_as: Identity | None = None
        self.seat: int | None = None
        self.limits = factory.floor.limits
        self._bucket = TokenBucket(
            factory.clock, self.limits.commands_per_second, self.limits.burst
        )
        self._refused = 0
        self._box_bytes = 0
        self._unparsed = 0
        self._dropped = False
        #: When this connection said Hello, counted over the server (pushes go in this order).
        self.hello_order = 0
        self._waiting_for = ""
        self._abort_call: Any = None
        #: Refused by the caps before Hello as it was accepted (logged by the factory).
        self._refused_at_accept = False

    def callLater(self, period: float, func: Callable[[], object]) -> Any:
        """The deadline's clock: the factory's (tests: ``task.Clock``)."""
        return self.factory.clock.callLater(period, func)

    def connectionMade(self) -> None:
        """Count the connection before Hello, aborting it at once over the caps
        (``unauthenticated_per_address``, ``unauthenticated_connections``: the factory
        logs it); else start the Hello deadline: a peer that does not complete the TLS
        handshake and say Hello within ``hello_seconds`` is dropped.

        Behind :class:`GatedTLSFactory` a connection over the caps never gets here (it is
        closed at accept); this refusal is for a factory used without the gate."""
        super().connectionMade()  # type: ignore[no-untyped-call]  # unannotated
        no_delay(self.transport)
        if not self.factory.admit(self):
            self._dropped = self._refused_at_accept = True
            transport: Any = self.transport
            transport.abortConnection()
            return
        self._deadline("Hello", self.limits.hello_seconds)

    def handshakeCompleted(self) -> None:
        """The TLS handshake named the peer's certificate (``IHandshakeListener``): count
        the connection against its id, refusing it at once over ``connections_per_identity``.
        A certificate without a usable identity is left to Hello, which refuses it."""
        if self._dropped:
            return
        try:
            identity = self.factory.identify(self.transport)
        except PkiError:
            return
        self._count_as(identity)

    def _count_as(self, identity: Identity) -> bool:
        """Count this connection against ``identity``; refuse it if over the cap."""
        refusal = self.factory.count_identity(self, identity)
        if refusal is None:
            return True
        self.refuse(refusal)
        return False

    def _deadline(self, waiting_for: str, seconds: float | None) -> None:
        """Run the one deadline for ``waiting_for`` (None: stop it)."""
        self._waiting_for = waiting_for if seconds is not None else ""
        self.setTimeout(seconds)  # type: ignore[no-untyped-call]  # unannotated

    def timeoutConnection(self) -> None:
        """The deadline passed (TimeoutMixin): drop the connection."""
        if self._waiting_for == "Hello":
            self.drop("no Hello within {seconds:g} s of connecting", seconds=self.timeOut)
        else:
            self.drop(
                "half a command box for {seconds:g} s ({received} bytes of it)",
                seconds=self.timeOut,
                received=self._unparsed,
            )

    # ----------------------------------------------------------------------------------------
    # Who

    @property
    def dropped(self) -> bool:
        """Whether the server has dropped (or refused) this connection."""
        return self._dropped

    @property
    def who(self) -> str:
        """The peer's id for the log: the terminal id, ``operator``, or before ``Hello``."""
        return UNIDENTIFIED if self.identity is None else self.identity.id

    def _terminal(self) -> str:
        if self.identity is None or self.identity.role is not Role.TERMINAL:
            raise Unauthorized("this command is for terminals; the operator certificate cannot")
        return self.identity.id

    def peer(self) -> Any:
        """The peer's address (an ``IAddress``; None once the transport is gone)."""
        transport: Any = self.transport
        return transport.getPeer() if transport is not None else None

    def _peer(self) -> str:
        return describe_peer(self.peer())

    def refuse(self, why: str) -> None:
        """Log why and abort the connection at once (over a connection cap)."""
        if self._dropped:
            return
        self._dropped = True
        self._deadline("", None)
        log.warn("refusing a connection from {peer}: {why}", peer=self._peer(), why=why)
        transport: Any = self.transport
        if transport is not None:
            transport.abortConnection()

    def drop(self, why: str, *, amp_closes: bool = False, **fields: Any) -> None:
        """Log why and close the connection; ignore anything the peer still sends. A peer
        that has not answered close_notify after :data:`CLOSE_GRACE_SECONDS` is aborted.

        With ``amp_closes`` AMP closes the connection itself: after it sends a fatal
        error (closing first could lose the answer), or on a key over its limit.
        """
        if self._dropped:
            return
        self._dropped = True
        self._deadline("", None)
        log.warn("dropping the connection of {terminal}: " + why, terminal=self.who, **fields)
        self._abort_call = self.factory.clock.callLater(CLOSE_GRACE_SECONDS, self._abort)
        if amp_closes:
            return
        transport: Any = self.transport  # zope interfaces confuse mypy's method binding
        if transport is not None:
            transport.loseConnection()

    def _abort(self) -> None:
        self._abort_call = None
        log.warn(
            "aborting the connection of {terminal}: no answer to close_notify in {seconds:g} s",
            terminal=self.who,
            seconds=CLOSE_GRACE_SECONDS,
        )
        transport: Any = self.transport
        if transport is not None:
            transport.abortConnection()

    def push_view(self, view: RedactedView) -> None:
        """Send ``ViewUpdate`` with ``view`` already encoded: the box ``callRemote(ViewUpdate,
        view=view)`` sends (no answer asked, the same tag counted), without its work per call
        (the arguments' conversion, a Deferred). Nothing is sent on a lost connection.

        Raises:
            UnredactedView: ``view`` did not pass the redaction of face-down cards.
        """
        if not isinstance(view, RedactedView):
            raise UnredactedView(
                f"push_view was given a {type(view).__name__}: every view passes "
                "game_server.table.secrecy.redact_view first"
            )
        if self._failAllReason is not None:  # AMP's mark of a lost connection
            return
        if len(view) > MAX_VALUE_BYTES:
            raise BadRequest(f"a JSON value of {len(view)} bytes is over the AMP limit")
        self._nextTag()  # type: ignore[no-untyped-call]  # unannotated
        box = amp.AmpBox({amp.COMMAND: ViewUpdate.commandName, b"view": bytes(view)})  # type: ignore[no-untyped-call]  # unannotated
        sender: Any = self.boxSender
        sender.sendBox(box)

    # ----------------------------------------------------------------------------------------
    # Bytes and boxes

    def dataReceived(self, data: bytes) -> None:
        """Parse boxes; a malformed or oversized box is logged and drops the connection.
        After Hello, the first byte of a box starts the box deadline and its last stops it."""
        if self._dropped:
            return
        self._unparsed += len(data)
        try:
            super().dataReceived(data)  # type: ignore[no-untyped-call]  # unannotated
        except BoxTooLarge as exc:
            self.drop("{problem}", problem=str(exc))
        except Exception as exc:
            self.drop("a malformed box: {problem!r}", problem=exc)
        if self._dropped or self.identity is None:
            return
        if self._unparsed and not self._waiting_for:
            self._deadline("box", self.limits.box_seconds)
        elif not self._unparsed and self._waiting_for == "box":
            self._deadline("", None)

    def proto_init(self, string: bytes) -> str:
        # AMP's proto_init hands the first key to proto_key, which counts it.
        self._box_bytes = 0
        return super().proto_init(string)  # type: ignore[no-any-return,no-untyped-call]  # unannotated

    def proto_key(self, string: bytes) -> str:
        state = super().proto_key(self._count(string))  # type: ignore[no-untyped-call]  # unannotated
        if state == "init":  # the box is whole (and was dispatched)
            self._unparsed -= self._box_bytes
            self._box_bytes = 0
        return state  # type: ignore[no-any-return]  # unannotated

    def proto_value(self, string: bytes) -> str:
        return super().proto_value(self._count(string))  # type: ignore[no-any-return,no-untyped-call]  # unannotated

    def _count(self, string: bytes) -> bytes:
        self._box_bytes += 2 + len(string)
        if self._box_bytes > MAX_BOX_BYTES:
            raise BoxTooLarge(f"a box of more than {MAX_BOX_BYTES} bytes")
        return string

    def lengthLimitExceeded(self, length: int) -> None:
        """A key longer than AMP allows: logged, and AMP drops the connection."""
        self.drop("a key of {length} bytes: over AMP's limit", amp_closes=True, length=length)
        super().lengthLimitExceeded(length)  # type: ignore[no-untyped-call]  # unannotated

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self._deadline("", None)
        if self._abort_call is not None and self._abort_call.active():
            self._abort_call.cancel()
        self._abort_call = None
        if not self._refused_at_accept:  # its refusal is logged, once a minute per address
            log.info(
                "connection of {terminal} closed: {reason}",
                terminal=self.who,
                reason=reason.getErrorMessage(),
            )
        self.factory.forget(self)
        super().connectionLost(reason)  # type: ignore[no-untyped-call]  # unannotated

    # ----------------------------------------------------------------------------------------
    # Commands

    def dispatchCommand(self, box: amp.AmpBox) -> Deferred[Any]:
        """Rate limit, ``Hello`` first, role check; then run the responder (timed from here
        to its answer: ``ReadMeters`` ``"commands"``)."""
        name: bytes = box[amp.COMMAND]
        started = time.perf_counter()
        answer = self._dispatch(name, box)
        if name in RESPONDERS:  # a name a client made up is not a meter
            answer.addBoth(self.factory.timed, name, started)
        return answer

    def _dispatch(self, name: bytes, box: amp.AmpBox) -> Deferred[Any]:
        if not self._bucket.take():
            if self._bucket.full:
                self._refused = 0
            self._refused += 1
            limits = self.factory.floor.limits
            flood = self._refused >= FLOOD_FACTOR * limits.burst
            if flood:
                self.drop(
                    "a flood of {refused} refused commands",
                    amp_closes=True,
                    refused=self._refused,
                )
            return self._refuse(
                RateLimited(
                    f"more than {limits.commands_per_second:g} commands per second "
                    f"(burst {limits.burst}); slow down and retry"
                ),
                fatal=flood,
            )
        if self._bucket.full:
            self._refused = 0
        if name != Hello.commandName and self.identity is None:
            log.warn("{command} from {terminal} before Hello", command=name, terminal=self.who)
            return self._refuse(Unauthorized("send Hello first: the connection is not open yet"))
        role = None if self.identity is None else self.identity.role
        if name in OPERATOR_COMMANDS and role is Role.TERMINAL:
            log.warn(
                "operator command {command} from terminal {terminal} refused",
                command=name,
                terminal=self.who,
            )
            return self._refuse(
                Unauthorized(f"{name.decode('ascii')} needs the operator certificate")
            )
        if name in TERMINAL_COMMANDS and role is Role.OPERATOR:
            log.warn(
                "terminal command {command} from the operator refused",
                command=name,
                terminal=self.who,
            )
            return self._refuse(
                Unauthorized(f"{name.decode('ascii')} needs a terminal certificate")
            )
        missing = missing_arguments(name, box)
        if missing:
            return self._refuse(
                BadRequest(f"{name.decode('ascii')} needs the argument(s) {', '.join(missing)}")
            )
        answer: Deferred[Any] = super().dispatchCommand(box)  # type: ignore[no-untyped-call]  # unannotated
        return answer.addErrback(self._undeclared, name)

    def _refuse(self, error: ProtocolError, *, fatal: bool = False) -> Deferred[Any]:
        return fail(amp.RemoteAmpError(WIRE_CODES[type(error)], str(error), fatal))  # type: ignore[no-untyped-call]  # unannotated

    def _undeclared(self, failure: Failure, name: bytes) -> Failure:
        """Declared errors go back as they are (``VersionMismatch`` also drops the
        connection); anything else is logged and drops the connection."""
        error = failure.value
        if isinstance(error, amp.RemoteAmpError):
            if error.errorCode == WIRE_CODES[VersionMismatch]:
                error.fatal = True
                self.drop("another protocol version", amp_closes=True)
            elif error.errorCode == amp.UNHANDLED_ERROR_CODE:
                log.warn(
                    "unknown command {command} from {terminal}", command=name, terminal=self.who
                )
            return failure
        known = declared(error) if isinstance(error, Exception) else None
        if isinstance(known, ProtocolError) and type(known) in WIRE_CODES:
            # A declared error raised while AMP parsed the arguments (a JSON value).
            return Failure(amp.RemoteAmpError(WIRE_CODES[type(known)], str(known)))  # type: ignore[no-untyped-call]  # unannotated
        log.failure(
            "undeclared error answering {command} for {terminal}; dropping the connection",
            failure,
            command=name,
            terminal=self.who,
        )
        self.drop("an undeclared error answering {command}", amp_closes=True, command=name)
        return Failure(
            amp.RemoteAmpError(  # type: ignore[no-untyped-call]  # unannotated
                amp.UNKNOWN_ERROR_CODE, "an internal error; the connection is closed", True
            )
        )

    def locateResponder(self, name: bytes) -> Callable[[amp.AmpBox], Deferred[Any]] | None:
        """Only this protocol's commands (no StartTLS, no ``amp_*`` methods)."""
        entry = RESPONDERS.get(name)
        if entry is None:
            return None
        command, method = entry
        return self._wrapWithSerialization(getattr(self, method), command)  # type: ignore[no-any-return,no-untyped-call]  # unannotated

    def _once(
        self,
        command: bytes,
        request_id: str,
        run: Callable[[], dict[str, Any]],
        now: Callable[[Applied], dict[str, Any]] | None = None,
    ) -> Any:
        """Run a command at most once per request id of this client (see :class:`AnswerBook`).

        ``run`` runs as the client's request (:func:`game_server.table.requests.running`):
        the first step it logs carries the request id into the event log, in the same
        transaction. A retry of an id the log says took effect with no answer at hand (it
        ran before this server started) is answered by ``now`` (the terminal's view when
        None) with ``already`` saying so, and runs nothing (:meth:`_already`).
        """
        check_request_id(request_id)
        assert self.identity is not None
        book = self.factory.answers
        first = book.get(self.identity.id, request_id)
        flying = None if first is not None else book.in_flight(self.identity.id, request_id)
        if flying is not None:
            # A retry of a request whose answer waits on the log's commit: the same answer.
            if flying != command:
                raise BadRequest(
                    f"request id {request_id!r} was used for {flying.decode('ascii')}; use a "
                    "new id for each command"
                )
            log.info(
                "retry of {request_id} from {terminal} (in flight)",
                request_id=request_id,
                terminal=self.who,
            )
            return book.join(self.identity.id, request_id)
        if first is not None:
            if first.command != command:
                raise BadRequest(
                    f"request id {request_id!r} was used for {first.command.decode('ascii')}; "
                    "use a new id for each command"
                )
            log.info(
                "retry of {request_id} from {terminal}", request_id=request_id, terminal=self.who
            )
            if first.applied is not None:
                return self._already(first.applied, now)
            return first.replay()
        identity = self.identity
        terminal = identity.role is Role.TERMINAL
        name = command.decode("ascii")
        request: list[requests.Request] = []

        def as_request() -> dict[str, Any]:
            with requests.running(
                identity.id, request_id, name, identity.id if terminal else None
            ) as running:
                request.append(running)
                return run()

        def took_effect() -> None:
            """The command logged its step, then failed without a declared answer: a retry
            must not run it again."""
            if request and request[0].logged:
                book.remember_applied([Applied(identity.id, request_id, name)])

        def refused(exc: Exception) -> ProtocolError:
            known = declared(exc)
            if known is None:
                took_effect()
                raise exc
            book.put(
                identity.id,
                request_id,
                Outcome(command, None, type(known), str(known)),
                terminal=terminal,
            )
            log.info(
                "{command} {request_id} from {terminal} refused: {error}",
                command=command,
                request_id=request_id,
                terminal=self.who,
                error=str(known),
            )
            return known

        def answered(response: dict[str, Any]) -> dict[str, Any]:
            book.put(identity.id, request_id, Outcome(command, response), terminal=terminal)
            return response

        def failed(failure: Failure) -> Failure:
            error = failure.value
            if not isinstance(error, Exception):
                return failure
            try:
                return Failure(refused(error))  # type: ignore[no-untyped-call]  # unannotated
            except Exception:
                book.abandon(identity.id, request_id, error)
                took_effect()
                raise

        try:
            # A step of a table that links meters across the floor may wait on the floor
            # store: then the answer is a Deferred and the reactor serves the others.
            response = run_step(as_request)
        except Exception as exc:
            raise refused(exc) from None
        # Save, then send: the answer waits for the log's commit of what the step wrote.
        if isinstance(response, Deferred):
            response.addCallback(self.factory.after_written)
        else:
            response = self.factory.after_written(response)
        if isinstance(response, Deferred):
            book.begin(identity.id, request_id, command)
            return response.addCallbacks(answered, failed)
        return answered(response)

    def _already(self, applied: Applied, now: Callable[[Applied], dict[str, Any]] | None) -> Any:
        """The answer to a retry of a request id that took effect before this server started
        (or that failed after it took effect): nothing runs; the answer is rebuilt from what
        the log says it did and the state now (``now``; the terminal's view when None), with
        ``already`` saying so. Not kept: each retry gets the state of its own moment."""
        log.info(
            "{command} {request_id} from {terminal} already took effect (seq {seq}); not run again",
            command=applied.command,
            request_id=applied.request_id,
            terminal=self.who,
            seq=applied.seq,
        )

        def build() -> dict[str, Any]:
            answer = self._view() if now is None else now(applied)
            answer["already"] = applied.sentence()
            return answer

        answer = run_step(build)
        if isinstance(answer, Deferred):
            return answer.addCallback(self.factory.after_written)
        return self.factory.after_written(answer)

    def _call(self, operation: Callable[..., _T], *args: Any) -> _T:
        """Call the machine; its refusals become declared errors with the same sentence."""
        try:
            return operation(*args)
        except Exception as exc:
            known = declared(exc)
            if known is None:
                raise
            raise known from None

    def _view(self) -> dict[str, Any]:
        """This terminal's view for an answer, encoded at once: the answer kept for a retry
        (:class:`~game_server.net.wire.AnswerBook`, the last
        :data:`~game_server.net.wire.TERMINAL_ANSWERS_KEPT` of each terminal) holds its
        bytes, about a fifth of the memory of the view's objects, and a retry sends them
        again."""
        terminal = self._terminal()
        view = self._call(self.factory.view_for, terminal)
        return {"view": self.factory.redacted(terminal, view)}

    # Hello

    def hello(self, version: int, software: str) -> Any:
        if version != PROTOCOL_VERSION:
            log.warn(
                "{terminal} speaks protocol {version} ({software}), not {ours}",
                terminal=self.who,
                version=version,
                software=software,
                ours=PROTOCOL_VERSION,
            )
            raise VersionMismatch(
                f"the server speaks protocol {PROTOCOL_VERSION}, the client {version}; "
                "update the terminal software"
            )
        try:
            identity = self.factory.identify(self.transport)
        except PkiError as exc:
            log.warn(
                "refused a client without a usable certificate: {problem}",
                problem=str(exc),
                terminal=self.who,
            )
            raise Unauthorized(str(exc)) from None
        if self.identity is not None and self.identity != identity:
            raise Unauthorized("this connection already belongs to another identity")
        if not self._count_as(identity):
            raise Unauthorized(f"{identity.id} holds too many connections to this table")
        floor = self.factory.floor
        if identity.serial in floor.revocations.serials or identity.id in floor.revocations.ids:
            log.warn("refused revoked {identity}", identity=str(identity), terminal=identity.id)
            raise Unauthorized(f"the certificate of {identity.id} is revoked at this table")
        seat = 0
        view: Any = redact_view({}, None, identity.id)
        if identity.role is Role.TERMINAL:
            found = floor.seat_of(identity.id)
            if found is None:
                log.warn("refused {terminal}: it holds no seat in floor.toml", terminal=identity.id)
                raise Unauthorized(
                    f"terminal {identity.id} holds no seat at this table; add it to "
                    "[floor.terminals] of floor.toml"
                )
            seat = found
        self.identity, self.seat = identity, seat or None
        self._deadline("", None)
        if identity.role is Role.TERMINAL:
            view = self._view()["view"]
        self.factory.remember(self)
        log.info(
            "Hello from {terminal} ({role}, seat {seat}, {software})",
            terminal=identity.id,
            role=identity.role.value,
            seat=seat,
            software=software,
        )
        return self.factory.after_written(
            {
                "version": PROTOCOL_VERSION,
                "role": identity.role.value,
                "identity": identity.id,
                "seat": seat,
                "view": view,
            }
        )

    # Terminal commands

    def place_wagers(self, request_id: str, wagers: Any, position: int | None = None) -> Any:
        def run() -> dict[str, Any]:
            terminal = self._terminal()
            if not isinstance(wagers, dict) or not all(
                isinstance(k, str) and type(v) is int for k, v in wagers.items()
            ):
                raise BadRequest(
                    'wagers are a JSON object of wager name to cents, e.g. {"blackjack": 2500}'
                )
            machine = self.factory.machine
            if machine.state is not TableState.OPEN:
                raise TableUnavailable(
                    f"the table is {machine.state.value}; wagers are taken when it opens"
                )
            self._call(machine.place_wagers, terminal, dict(wagers), position)
            return self._view()

        return self._once(PlaceWagers.commandName, request_id, run)

    def act(self, request_id: str, action: str, hand: int, amount: int) -> Any:
        def run() -> dict[str, Any]:
            terminal = self._terminal()
            machine = self.factory.machine
            # The table's game reads the decision's name (Blackjack's hit, stand...; Ultimate
            # Texas Hold 'Em's check, bet, fold).
            decision = self._call(machine.parse_action, terminal, action)
            if hand < 0 or amount < 0:
                raise BadRequest(f"hand {hand} and amount {amount} cannot be negative")
            self._playing()
            self._call(machine.act, terminal, decision, hand, amount or None)
            return self._view()

        return self._once(Act.commandName, request_id, run)

    def answer_insurance(self, request_id: str, choice: str, amount: int) -> Any:
        def run() -> dict[str, Any]:
            terminal = self._terminal()
            if choice not in INSURANCE_CHOICES or amount < 0:
                raise BadRequest(
                    f"{choice!r} with {amount} is not an answer; one of "
                    f"{', '.join(INSURANCE_CHOICES)} with a non-negative amount"
                )
            self._playing()
            self._call(self.factory.machine.answer_insurance, terminal, choice, amount)
            return self._view()

        return self._once(AnswerInsurance.commandName, request_id, run)

    def request_cash_out(self, request_id: str) -> Any:
        def run() -> dict[str, Any]:
            terminal = self._terminal()
            reference = f"terminal {terminal} request {request_id}"
            self._call(self.factory.machine.cash_out, terminal, None, reference)
            return self._view()

        return self._once(RequestCashOut.commandName, request_id, run)

    def get_view(self) -> Any:
        view = run_step(self._view)
        if isinstance(view, Deferred):
            return view.addCallback(self.factory.after_written)
        return self.factory.after_written(view)

    def get_rules(self) -> dict[str, Any]:
        return {"rules": self._call(self.factory.machine.rules, self._terminal())}

    def get_recall(self) -> Any:
        recall = self.factory.recall
        if recall is None:
            raise TableUnavailable("game recall is not available: this server keeps no event log")
        terminal = self._terminal()

        def read(_: object = None) -> dict[str, Any]:
            assert recall is not None
            try:
                return {"recall": recall(terminal)}
            except ETGError as exc:
                log.failure("recall for {terminal} failed", terminal=terminal)
                raise TableUnavailable(f"game recall could not read the event log: {exc}") from None

        # The recall reads the log's file: what was played until now must be in it first.
        waited = self.factory.after_written(None)
        return waited.addCallback(read) if isinstance(waited, Deferred) else read()

    def _playing(self) -> None:
        state = self.factory.machine.state
        if state is TableState.OUT_OF_SERVICE:
            raise TableUnavailable("the table is out of service; the attendant has been told")


class TableServerFactory(OperatorFloor, Factory):
    """Builds a :class:`TerminalProtocol` per connection and pushes views after each step.

    It registers itself as a :class:`~game_server.table.api.TableListener` of ``machine``.

    Args:
        machine: The live table.
        floor: Seats, revocations and limits.
        clock: The reactor (tests: ``task.Clock``), for the rate limits.
        identify: Who a connection's peer is; default the TLS client certificate
            (:func:`~game_server.net.tls.identity_of`). Tests without TLS pass their own.
        recall: A terminal's game recall from the event log
            (:func:`~game_server.recall.terminal.terminal_recall` on a reader); None: the
            server keeps no log and answers ``GetRecall`` with ``TableUnavailable``.
        reopen: Called before the operator's ``SetTableState open``: after a failed log write
            it proves the log and rebuilds the tables from it
            (:func:`~game_server.table.recovery.reload_tables`), or raises a declared
            error saying why the table cannot open yet.
        tables: Each hosted table's machine by table id (what ``etg serve`` runs): operator
            actions are logged at the table they concern, with who asked
            (:class:`~game_server.table.events.OperatorAction`), and ``SetTableState`` may
            name one table. None: nothing is logged (tests on a fake machine).
        revoked: Terminal ids revoked by ``SetTerminalAccess`` before this start (folded from
            the log, :func:`game_server.net.access.revoked_terminals`), refused beside
            ``floor.toml``'s revocations.
        on_revocations: Told the revocation list in force after every change (the TLS
            options refuse the handshake of a revoked certificate from then on).
        server_meters: The server's own meters beside the tables' (name -> a function giving
            a JSON-ready dict), added to ``ReadMeters`` under each name: e.g. the shipping to
            the floor store (``store_shipping``).
        when_written: The event log's :meth:`~game_server.eventlog.log.EventLog.when_written`
            when it commits on its own thread: answers and views wait for it
            (:meth:`after_written`). None: every step is durable when it returns.
    """

    def __init__(
        self,
        machine: TableMachine,
        floor: FloorConfig,
        clock: IReactorTime,
        identify: Callable[[Any], Identity] = identity_of,
        recall: Callable[[str], dict[str, Any]] | None = None,
        reopen: Callable[[], None] | None = None,
        tables: Mapping[str, HostedTable] | None = None,
        revoked: Iterable[str] = (),
        on_revocations: Callable[[RevocationList], object] | None = None,
        server_meters: Mapping[str, Callable[[], dict[str, Any]]] | None = None,
        when_written: Callable[[Callable[[Any], None]], bool] | None = None,
    ) -> None:
        self.machine = machine
        self._when_written = when_written
        self._views_held = False
        #: Writing behind: the terminals of each table (None: every terminal) whose views are
        #: pushed at the end of this turn of the reactor, and that call.
        self._dirty: set[frozenset[str] | None] = set()
        self._dirty_call: Any = None
        #: By command: how long from its arrival to its answer (refusals too).
        self.command_times: dict[bytes, Durations] = {}
        self.recall = recall
        self.reopen = reopen
        self.tables: Mapping[str, HostedTable] = dict(tables or {})
        #: The revocations of ``floor.toml`` (the console cannot lift them).
        self.file_revocations = floor.revocations
        self._revoked = set(revoked)
        self._on_revocations = on_revocations
        self.floor = self._with_revocations(floor)
        #: Each table's last state change by the operator: action, person, role, reason.
        self.set_by: dict[str, dict[str, str]] = {}
        #: Views whose game showed a card its terminal may not see (masked before sending).
        self.views_masked = 0
        self.server_meters = {
            "commands": self.command_meters,
            "secrecy": lambda: {"views_masked": self.views_masked},
            **dict(server_meters or {}),
        }
        self.clock = clock
        self.identify = identify
        self.answers = AnswerBook()
        #: Connections that said Hello, in order (they are pushed views).
        self.connections: list[TerminalProtocol] = []
        #: The terminals' connections among them, by terminal id (the pushes of a step).
        self._by_terminal: dict[str, list[TerminalProtocol]] = {}
        self._hello_count = 0
        #: Connections that have not said Hello, by address, under the caps before Hello.
        self._before_hello: Waiting[TerminalProtocol] = Waiting(floor.limits)
        #: Which refusals at accept are logged (once a minute per address), and its timer.
        self._refusals = RefusalLog()
        self._refusals_call: Any = None
        self._by_identity: dict[tuple[Role, str], set[TerminalProtocol]] = {}
        machine.add_listener(self)

    def timed(self, result: _T, name: bytes, started: float) -> _T:
        """Count the time from a command's arrival (``started``) to its answer (a Deferred's
        callback: ``result`` passes through)."""
        times = self.command_times.get(name)
        if times is None:
            times = self.command_times[name] = Durations()
        times.add(time.perf_counter() - started)
        return result

    def command_meters(self) -> dict[str, Any]:
        """Each command's count and its time from arrival to answer (p50, p95, p99, max, in
        microseconds): what the server adds to a terminal's latency, the log's commit
        included."""
        return {
            name.decode("ascii"): times.summary()
            for name, times in sorted(self.command_times.items())
        }

    def buildProtocol(self, addr: Any) -> TerminalProtocol:
        return TerminalProtocol(self)

    def redacted(self, terminal: str, view: dict[str, Any]) -> RedactedView:
        """``view`` encoded for the wire through the one redaction of face-down cards
        (:func:`~game_server.table.secrecy.redact_view`, with the sight of the terminal's
        table): the only way a view reaches the wire (:class:`~shared.protocol.ViewJson`)."""
        book = self._book_of(terminal)
        return redact_view(
            view,
            getattr(book, "sight", None),
            terminal,
            getattr(book, "last_sight", None),
            self._view_masked,
        )

    def _view_masked(self, terminal: str, cards: list[str]) -> None:
        """A game's view showed cards its terminal may not see: masked; a bug to report."""
        self.views_masked += 1
        log.error(
            "the view of {terminal} showed {count} card(s) it may not see; masked before it "
            "was sent (a bug of its game's view)",
            terminal=terminal,
            count=len(cards),
        )

    def _book_of(self, terminal: str) -> Any:
        """The session of ``terminal``'s table (None for a fake machine without one)."""
        table = self.floor.tables.get(terminal, "")
        hosted = self.tables.get(table)
        return getattr(hosted if hosted is not None else self.machine, "session", None)

    def view_for(self, terminal: str) -> dict[str, Any]:
        """The view ``terminal`` is sent: its game's (:meth:`TableMachine.view`) and, from the
        platform for every game, its table's shoes (``"shoe"``:
        :meth:`~game_server.table.session.TableBook.public_shoe`: the commitment of the shoe
        in use and the reveal of the last one retired; never a secret of the shoe in use)."""
        return self._with_shoe(terminal, self.machine.view(terminal), {})

    def views_for(self, terminals: Sequence[str]) -> dict[str, dict[str, Any] | Exception]:
        """The view of each of ``terminals`` (as :meth:`view_for`), built together: a machine
        that builds several at once (``views(terminals)``, e.g. Blackjack's
        :meth:`~game_server.games.blackjack.machine.RoundMachine.views`) builds the parts
        every terminal of a table sees once and shares them between their views, as is the
        shoe of each table. A terminal whose view cannot be built gets its exception instead
        (alone when the machine builds one at a time; after a failed batch each is built
        again alone)."""
        views: dict[str, dict[str, Any] | Exception] = {}
        batch = getattr(self.machine, "views", None)
        if batch is not None and len(terminals) > 1:
            try:
                views.update(batch(terminals))
            except Exception:
                log.failure("the views of {count} terminals failed together", count=len(terminals))
                views.clear()
        shoes: dict[str, Any] = {}
        for terminal in terminals:
            try:
                view = views.get(terminal)
                if view is None:
                    view = self.machine.view(terminal)
                views[terminal] = self._with_shoe(terminal, cast(dict[str, Any], view), shoes)
            except Exception as exc:
                views[terminal] = exc
        return views

    def _with_shoe(
        self, terminal: str, view: dict[str, Any], shoes: dict[str, Any]
    ) -> dict[str, Any]:
        """``view`` with its table's shoes (``shoes``: each table's, once built)."""
        table = self.floor.tables.get(terminal, "")
        if table not in shoes:
            book = self._book_of(terminal)
            shoes[table] = book.public_shoe() if isinstance(book, TableBook) else _NO_SHOE
        if shoes[table] is not _NO_SHOE:
            view["shoe"] = shoes[table]
        return view

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
        for line in self._refusals.due(self._now()):
            log.warn(
                MORE_REFUSALS,
                count=line.count,
                address=line.address,
                seconds=line.seconds,
                why=line.why,
            )
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

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        """Push each connected terminal (of the table that logged, when ``terminals`` says)
        its new view, once the step is durable: at once when the log's append returned it
        durable; when the log commits behind, the views of every step logged in this turn of
        the reactor are built once, at its end (an input that logs several steps, the
        wagers of a table's terminals that arrive together), and sent once committed."""
        if self._when_written is None:
            self._push_views(terminals)
            return
        self._dirty.add(None if terminals is None else frozenset(terminals))
        if self._dirty_call is None:
            self._dirty_call = cast(Any, self.clock).callLater(0, self._push_dirty)

    def _push_dirty(self) -> None:
        """The views of the tables that logged a step since the last push, each table's as a
        step of its own: a table whose step waits on the floor store (a linked meter) is
        pushed once that step is done, from the state it left; the others go at once."""
        dirty, self._dirty, self._dirty_call = self._dirty, set(), None
        for terminals in [None] if None in dirty else dirty:
            pushed = run_step(self._push_views, terminals)
            if isinstance(pushed, Deferred):
                pushed.addErrback(lambda failure: log.failure("a view push failed", failure))

    @contextmanager
    def views_held(self) -> Iterator[None]:
        """No view is pushed meanwhile (the server replaces the tables' sessions with what
        the log holds after a failed commit, then pushes every terminal its view)."""
        self._views_held = True
        try:
            yield
        finally:
            self._views_held = False

    def _push_views(self, terminals: Collection[str] | None) -> None:
        if self._views_held:
            return
        pushes = self.after_written(self._views_of(terminals))
        if isinstance(pushes, Deferred):
            # Built now (this step's state), sent once the step is durable; never when its
            # commit failed (the table goes out of service and is rebuilt from the log).
            pushes.addCallbacks(self._send_views, lambda _: None)
        else:
            self._send_views(pushes)

    def after_written(self, value: _T) -> _T | Deferred[_T]:
        """``value`` once every write the event log planned so far is durable (save, then
        send, when the log commits on its own thread: :meth:`EventLog.write_behind
        <game_server.eventlog.log.EventLog.write_behind>`): ``value`` itself when nothing
        waits, else a Deferred of it, which fails with
        :class:`~game_server.table.session.LogWriteFailed` if the commit failed."""
        if self._when_written is None:
            return value
        done: Deferred[_T] = Deferred()

        def written(error: Exception | None) -> None:
            if error is None:
                done.callback(value)
            else:
                done.errback(LogWriteFailed(out_of_service_reason(error)))

        return done if self._when_written(written) else value

    def _terminal_connections(self, terminals: Collection[str] | None) -> list[TerminalProtocol]:
        """The terminals' connections that said Hello (every terminal's when None), in the
        order they said it."""
        if terminals is None:
            found = [
                c
                for c in self.connections
                if c.identity is not None and c.identity.role is Role.TERMINAL
            ]
        else:
            # By terminal id: a step of one table looks at its own terminals only, however
            # many the server holds.
            found = [c for t in terminals for c in self._by_terminal.get(t, ())]
            found.sort(key=lambda c: c.hello_order)
        return found

    def _views_of(
        self, terminals: Collection[str] | None
    ) -> list[tuple[TerminalProtocol, RedactedView]]:
        """Each connected terminal (of ``terminals``, if given) with its view now, encoded:
        built together (:meth:`views_for`), so that what the views share is built once, and
        each terminal's view encoded once (:func:`~shared.protocol.encode_view`) however many
        of its connections get it. A terminal whose view fails is logged and dropped."""
        connections = self._terminal_connections(terminals)
        ids = list(dict.fromkeys(c.identity.id for c in connections if c.identity is not None))
        views = self.views_for(ids)
        encoded: dict[str, RedactedView | None] = {}
        pushes: list[tuple[TerminalProtocol, RedactedView]] = []
        for connection in connections:
            terminal = cast(Identity, connection.identity).id
            if terminal not in encoded:
                view = views[terminal]
                try:
                    if isinstance(view, Exception):
                        raise view
                    encoded[terminal] = self.redacted(terminal, view)
                except Exception:
                    log.failure("the view of {terminal} failed; dropping it", terminal=terminal)
                    encoded[terminal] = None
            data = encoded[terminal]
            if data is None:
                connection.drop("the view could not be sent")
                continue
            pushes.append((connection, data))
        return pushes

    def _send_views(self, pushes: Sequence[tuple[TerminalProtocol, RedactedView]]) -> None:
        for connection, view in pushes:
            identity = connection.identity
            held = self._by_terminal.get(identity.id, ()) if identity is not None else ()
            if connection.dropped or connection not in held:
                continue  # closed meanwhile
            try:
                connection.push_view(view)
            except Exception:
                log.failure(
                    "pushing the view to {terminal} failed; dropping it", terminal=connection.who
                )
                connection.drop("the view could not be sent")


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


#: A table without shoes (a fake machine in the tests): its views carry no ``"shoe"``.
_NO_SHOE: Final = object()
