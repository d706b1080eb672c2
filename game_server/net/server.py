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
4. runs at most once per ``request_id`` of its client, across reconnections and restarts
   (:mod:`game_server.net.once`: the kept answers, the request id carried into the event
   log, and ``already`` for a retry of one whose answer a crash lost).

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

After each logged step every connected terminal of the table that stepped is pushed its own
view as ``ViewUpdate`` (save then send; :mod:`game_server.net.pushes`).

Connections are bounded (``[floor.limits]``; issue 13; :mod:`game_server.net.connections`):
more than ``unauthenticated_connections`` before their Hello, or more than
``unauthenticated_per_address`` of them from one source address, and the new one is closed
at accept, before any TLS is built for it (:class:`GatedTLSFactory`); the refusals of an
address are logged once a minute. More than ``connections_per_identity`` with one certificate id
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
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeVar

from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IHandshakeListener, IReactorTime
from twisted.internet.protocol import Factory, connectionDone
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.protocols.policies import TimeoutMixin
from twisted.python.failure import Failure
from zope.interface import implementer  # type: ignore[import-untyped]  # ships no hints

from game_server.durations import Durations
from game_server.net.admission import (
    RefusalLog,
    Waiting,
    describe_peer,
)
from game_server.net.connections import ConnectionBook, GatedTLSFactory
from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity, RevocationList
from game_server.net.once import OncePerRequest
from game_server.net.operator import OperatorCommands, OperatorFloor
from game_server.net.pki import PkiError, Role
from game_server.net.pushes import ViewPushes
from game_server.net.tls import identity_of
from game_server.net.wire import (
    INSURANCE_CHOICES,
    MAX_BOX_BYTES,
    OPERATOR_COMMANDS,
    RESPONDERS,
    TERMINAL_COMMANDS,
    AnswerBook,
    BoxTooLarge,
    TokenBucket,
    declared,
    missing_arguments,
    no_delay,
)
from game_server.table.api import HostedTable, TableMachine, TableState
from game_server.table.secrecy import redact_view
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
)

log = Logger()

__all__ = [
    "CLOSE_GRACE_SECONDS",
    "FLOOD_FACTOR",
    "GatedTLSFactory",
    "TableServerFactory",
    "TerminalProtocol",
]

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
class TerminalProtocol(OncePerRequest, OperatorCommands, amp.AMP, TimeoutMixin):
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
                    'wagers are a JSON object of wager name to cents, e.g. {"<wager>": 2500}'
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


class TableServerFactory(OperatorFloor, ConnectionBook, ViewPushes, Factory):
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
