"""What the table's AMP server (:mod:`game_server.net.server`) keeps beside its connections:
the declared error each of the machine's refusals becomes, the first answer to each request id
(:class:`AnswerBook`, with the request ids the event log says took effect before this server
started: :class:`Applied`), each connection's command rate (:class:`TokenBucket`), the
largest box a client may send, and which method answers each command.

Entry points: :func:`declared`, :class:`AnswerBook`, :class:`Applied`, :class:`TokenBucket`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.protocols import amp

from game_server.net.identity import Identity
from game_server.net.pki import Role
from game_server.rules import errors as rules
from game_server.table import session
from game_server.table.api import BettingClosed, NotInRound
from game_server.table.requests import ANSWERS_KEPT as ANSWERS_KEPT
from game_server.table.requests import TERMINAL_ANSWERS_KEPT as TERMINAL_ANSWERS_KEPT
from game_server.table.requests import is_terminal_request
from shared.errors import ETGError, MoneyError
from shared.protocol import (
    Act,
    AnswerInsurance,
    BadRequest,
    BetOutOfLimits,
    CashIn,
    CashOut,
    GetRecall,
    GetRules,
    GetView,
    Hello,
    IllegalAction,
    InsufficientCredits,
    NotYourTurn,
    PlaceWagers,
    ProtocolError,
    ReadMeters,
    RequestCashOut,
    RoundClosed,
    SetTableState,
    SetTerminalAccess,
    TableUnavailable,
    Unauthorized,
)

# Request ids remembered per client (:mod:`game_server.table.requests` says why these
# bounds suffice): the operator certificate's last :data:`ANSWERS_KEPT`, each terminal's
# last :data:`TERMINAL_ANSWERS_KEPT`. They hold across restarts too: a server rebuilds the
# last ones of each client from the event log's ``request_applied`` records at start
# (:mod:`game_server.net.applied`). Imported here from there, for the server and its tests.

#: Largest command box a client may send (all keys and values with their length prefixes).
#: Client boxes are small (the largest is a few wagers); views only go the other way.
MAX_BOX_BYTES: Final = 16 * 1024

#: The machine's refusals and the declared error each becomes, most specific first.
DOMAIN_ERRORS: Final[tuple[tuple[type[Exception], type[ProtocolError]], ...]] = (
    (rules.BetOutOfLimits, BetOutOfLimits),
    (BettingClosed, RoundClosed),
    (NotInRound, NotYourTurn),
    (rules.WagerNotOffered, BadRequest),
    (rules.WagerError, BadRequest),
    (rules.SeatError, BadRequest),
    (rules.WrongPhase, RoundClosed),
    (rules.NotYourTurn, NotYourTurn),
    (rules.ActionNotAllowed, IllegalAction),
    (rules.IllegalAction, IllegalAction),
    (rules.RulesError, BadRequest),
    (session.LogWriteFailed, TableUnavailable),
    (session.InsufficientCredits, InsufficientCredits),
    (session.NoRoundOpen, RoundClosed),
    (session.UnknownTerminal, Unauthorized),
    (session.TableError, BadRequest),
    (MoneyError, BadRequest),
)


def declared(error: Exception) -> ProtocolError | None:
    """The declared AMP error for one of the machine's refusals (same sentence), or None
    if the exception is not a refusal (a bug: the caller logs it and drops the connection)."""
    if isinstance(error, ProtocolError):
        return error
    for domain, wire in DOMAIN_ERRORS:
        if isinstance(error, domain):
            return wire(str(error))
    return None


@dataclass(frozen=True)
class Applied:
    """A request id that took effect, as the event log tells it (its ``request_applied``
    record, :mod:`game_server.net.applied`), for a retry whose first answer this server
    never gave or no longer holds: the retry is answered from it and the state now, and the
    command is never run again.

    Attributes:
        client: The certificate id that sent it.
        request_id: The client's id of the command.
        command: The AMP command's name (``CashIn``).
        seq: Where the log holds its record (None: known from this process only, a command
            that took effect and then failed without a declared error).
        time: When it was logged (UTC text; "" when ``seq`` is None).
        moved: ``(amount, balance)`` of the ``credits_in`` or ``credits_out`` of its step (a
            cash in or out: the amount moved and the balance it left), else None.
        logged: Whether the log holds the operator's record of it with who asked
            (``operator_action`` done, ``terminal_access``): the answer's ``logged``.
    """

    client: str
    request_id: str
    command: str
    seq: int | None = None
    time: str = ""
    moved: tuple[int, int] | None = None
    logged: bool = False

    def sentence(self) -> str:
        """What the answer's ``already`` says."""
        where = "" if self.seq is None else f" (logged at seq {self.seq}, {self.time})"
        return (
            f"request {self.request_id!r} of {self.client} ({self.command}) already took "
            f"effect{where}; it was not run again, and this answer is rebuilt from the log and "
            "the table as it is now"
        )


@dataclass(frozen=True)
class Outcome:
    """The first answer to one request id: a response, or a declared error to raise again;
    or, for a request id that took effect with no answer at hand (before a restart), what
    the log says it did (``applied``: the server answers a retry from it and the state now,
    :meth:`TerminalProtocol._once <game_server.net.server.TerminalProtocol._once>`)."""

    command: bytes
    response: Mapping[str, Any] | None = None
    error: type[ProtocolError] | None = None
    message: str = ""
    applied: Applied | None = None

    def replay(self) -> dict[str, Any]:
        if self.error is not None:
            raise self.error(self.message)
        assert self.response is not None
        return dict(self.response)


class AnswerBook:
    """The last outcomes of each client, by request id (oldest dropped): ``kept`` of an
    operator tool's (:data:`ANSWERS_KEPT`), ``terminal_kept`` of a terminal's
    (:data:`TERMINAL_ANSWERS_KEPT`); and the requests still in flight (run, their answer
    waiting on the event log's commit or the floor store), which a retry waits for instead
    of running the command again."""

    def __init__(
        self, kept: int = ANSWERS_KEPT, terminal_kept: int = TERMINAL_ANSWERS_KEPT
    ) -> None:
        self._kept = kept
        self._terminal_kept = terminal_kept
        self._books: dict[str, OrderedDict[str, Outcome]] = {}
        self._in_flight: dict[tuple[str, str], tuple[bytes, list[Deferred[dict[str, Any]]]]] = {}

    def get(self, client: str, request_id: str) -> Outcome | None:
        return self._books.get(client, OrderedDict()).get(request_id)

    def begin(self, client: str, request_id: str, command: bytes) -> None:
        """``client``'s ``request_id`` ran and its answer is on its way (see :meth:`join`)."""
        self._in_flight[(client, request_id)] = (command, [])

    def in_flight(self, client: str, request_id: str) -> bytes | None:
        """The command of ``client``'s ``request_id`` if it is in flight, else None."""
        entry = self._in_flight.get((client, request_id))
        return None if entry is None else entry[0]

    def join(self, client: str, request_id: str) -> Deferred[dict[str, Any]]:
        """For a retry of a request in flight: a Deferred of its first answer (or of its
        declared error) once it is known."""
        waiting: Deferred[dict[str, Any]] = Deferred()
        self._in_flight[(client, request_id)][1].append(waiting)
        return waiting

    def abandon(self, client: str, request_id: str, error: Exception) -> None:
        """The request in flight failed without a declared answer: its retries get
        ``error`` (and the next retry runs it again)."""
        entry = self._in_flight.pop((client, request_id), None)
        for waiting in entry[1] if entry is not None else ():
            waiting.errback(error)

    def put(self, client: str, request_id: str, outcome: Outcome, *, terminal: bool) -> None:
        """Keep ``outcome`` as the answer of ``client``'s ``request_id`` (``terminal``: the
        client is a terminal, which keeps fewer)."""
        book = self._books.setdefault(client, OrderedDict())
        book[request_id] = outcome
        kept = self._terminal_kept if terminal else self._kept
        while len(book) > kept:
            book.popitem(last=False)
        entry = self._in_flight.pop((client, request_id), None)
        for waiting in entry[1] if entry is not None else ():
            try:
                waiting.callback(outcome.replay())
            except ProtocolError as exc:
                waiting.errback(exc)

    def remember_applied(self, applied: Iterable[Applied]) -> int:
        """Take in what the event log says took effect (in log order): each request id that
        this book holds no answer of (none, or a refusal: a commit reported failed whose
        step reached the log after all) is kept as ``applied``, within the same bounds per
        client as the answers. At start the book is empty; after the log was proven again
        (the operator's reopen) it corrects what memory got wrong.

        Returns:
            How many request ids it took in.
        """
        taken = 0
        for each in applied:
            command = each.command.encode("ascii")
            first = self.get(each.client, each.request_id)
            if first is not None and first.command == command and first.error is None:
                continue
            book = self._books.setdefault(each.client, OrderedDict())
            book[each.request_id] = Outcome(command, applied=each)
            kept = self._terminal_kept if is_terminal_request(each.command) else self._kept
            while len(book) > kept:
                book.popitem(last=False)
            taken += 1
        return taken

    def __len__(self) -> int:
        return sum(len(book) for book in self._books.values())


class BoxTooLarge(ETGError):
    """A client box over :data:`MAX_BOX_BYTES`."""


class TokenBucket:
    """Commands per second with a burst, on an injected clock."""

    def __init__(self, clock: IReactorTime, rate: float, burst: int) -> None:
        # Typed Any: without zope's plugin mypy mis-binds interface methods.
        self._clock: Any = clock
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._at = self.now()

    def now(self) -> float:
        """The clock's time in seconds."""
        return float(self._clock.seconds())

    def take(self) -> bool:
        """Take a token if there is one; refill first. Whether the command may run."""
        now = self.now()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    @property
    def full(self) -> bool:
        """Whether the bucket refilled completely (the client paused)."""
        return self._tokens >= self.burst - 1


def no_delay(transport: Any) -> None:
    """Send small boxes at once (TCP_NODELAY). A server answer that follows a pushed view
    otherwise waits for the client's delayed ACK (about 40 ms on Linux): measured by
    ``etg loadtest`` as a 45 ms PlaceWagers at a full table, 10 ms with this."""
    for candidate in (transport, getattr(transport, "transport", None)):
        set_no_delay = getattr(candidate, "setTcpNoDelay", None)
        if set_no_delay is not None:
            set_no_delay(True)
            return


def wallet(meters: Mapping[str, Any], terminal: str) -> int:
    """A terminal's balance from :meth:`TableMachine.meters` (``{"wallets": {id: cents}}``)."""
    wallets = meters.get("wallets")
    balance = wallets.get(terminal, 0) if isinstance(wallets, Mapping) else 0
    return balance if type(balance) is int else 0


RESPONDERS: Final[dict[bytes, tuple[type[amp.Command], str]]] = {
    Hello.commandName: (Hello, "hello"),
    PlaceWagers.commandName: (PlaceWagers, "place_wagers"),
    Act.commandName: (Act, "act"),
    AnswerInsurance.commandName: (AnswerInsurance, "answer_insurance"),
    RequestCashOut.commandName: (RequestCashOut, "request_cash_out"),
    GetView.commandName: (GetView, "get_view"),
    GetRules.commandName: (GetRules, "get_rules"),
    GetRecall.commandName: (GetRecall, "get_recall"),
    CashIn.commandName: (CashIn, "cash_in"),
    CashOut.commandName: (CashOut, "cash_out"),
    SetTableState.commandName: (SetTableState, "set_table_state"),
    SetTerminalAccess.commandName: (SetTerminalAccess, "set_terminal_access"),
    ReadMeters.commandName: (ReadMeters, "read_meters"),
}


def missing_arguments(name: bytes, box: Mapping[bytes, bytes]) -> list[str]:
    """The required arguments of command ``name`` that ``box`` lacks (none for a command
    this protocol does not have: AMP answers that itself). AMP would raise a bare
    ``KeyError`` while parsing, an undeclared error that drops the connection; a client
    that left one out gets a ``BAD_REQUEST`` naming it instead."""
    entry = RESPONDERS.get(name)
    if entry is None:
        return []
    return [
        key.decode("ascii")
        for key, argument in entry[0].arguments
        if not argument.optional and key not in box
    ]


#: The commands of a terminal, and of the operator tools.
TERMINAL_COMMANDS: Final = frozenset(
    c.commandName
    for c in (PlaceWagers, Act, AnswerInsurance, RequestCashOut, GetView, GetRules, GetRecall)
)
OPERATOR_COMMANDS: Final = frozenset(
    c.commandName for c in (CashIn, CashOut, SetTableState, SetTerminalAccess, ReadMeters)
)
INSURANCE_CHOICES: Final = ("insurance", "decline", "even-money")


def identity_key(identity: Identity) -> tuple[Role, str]:
    """What ``connections_per_identity`` counts by: the certificate's role and id (every
    certificate issued to one terminal counts together)."""
    return identity.role, identity.id
