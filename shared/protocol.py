"""The wire protocol between the table server and its terminals and operator tools.

Twisted AMP commands over mutual TLS (DESIGN.md "Network"). Every command declares its
arguments, its response and the domain errors it may answer with; anything undeclared is a
protocol error and the server drops the connection. Terminals send intents (never outcomes)
with a client-made ``request_id``: a retry after a reconnect gets the first answer and
changes nothing. The server sends each terminal its own view as versioned JSON in one
argument (under AMP's 64 KiB value limit), and never a card that is not yet revealed.

This is the only module of ``shared/`` that imports Twisted.

Entry points: the :class:`Hello` handshake and :data:`PROTOCOL_VERSION`; terminal commands
:class:`PlaceWagers`, :class:`Act`, :class:`AnswerInsurance`, :class:`GetView`, and the
read-only :class:`GetRules` and :class:`GetRecall`; the server's
:class:`ViewUpdate`; operator commands :class:`CashIn`, :class:`CashOut`, :class:`SetTableState`,
:class:`ReadMeters`.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Final

from twisted.protocols import amp

from shared.errors import ETGError

#: Bumped on every incompatible change; the server refuses a terminal that speaks another.
PROTOCOL_VERSION: Final = 2

#: AMP's limit for one value; a view must fit in it.
MAX_VALUE_BYTES: Final = amp.MAX_VALUE_LENGTH

#: A request id: 1 to 64 characters chosen by the client (a UUID is typical).
MAX_REQUEST_ID: Final = 64


class ProtocolError(ETGError):
    """Base of every error that crosses the wire as a declared AMP error."""


class VersionMismatch(ProtocolError):
    """The terminal speaks another protocol version; update the terminal software."""


class Unauthorized(ProtocolError):
    """The certificate does not allow this command (e.g. a terminal calling an operator
    command), or the terminal holds no seat at this table."""


class RateLimited(ProtocolError):
    """Too many commands in a short time; slow down and retry."""


class BadRequest(ProtocolError):
    """A malformed argument: a request id, a JSON value, an amount that is not cents."""


class BetOutOfLimits(ProtocolError):
    """A wager below the minimum, above the maximum, or not a multiple of the wager unit."""


class InsufficientCredits(ProtocolError):
    """A wager or cash out larger than the terminal's credits."""


class NotYourTurn(ProtocolError):
    """A decision for a seat or hand that is not the one to act."""


class RoundClosed(ProtocolError):
    """An action in a phase that does not take it: no more bets, no round open."""


class IllegalAction(ProtocolError):
    """A decision the rules do not allow for this hand."""


class TableUnavailable(ProtocolError):
    """The table is closed or out of service."""


#: Every declared error, with the code that names it on the wire.
DOMAIN_ERRORS: Final[dict[type[Exception], bytes]] = {
    VersionMismatch: b"VERSION_MISMATCH",
    Unauthorized: b"UNAUTHORIZED",
    RateLimited: b"RATE_LIMITED",
    BadRequest: b"BAD_REQUEST",
    BetOutOfLimits: b"BET_OUT_OF_LIMITS",
    InsufficientCredits: b"INSUFFICIENT_CREDITS",
    NotYourTurn: b"NOT_YOUR_TURN",
    RoundClosed: b"ROUND_CLOSED",
    IllegalAction: b"ILLEGAL_ACTION",
    TableUnavailable: b"TABLE_UNAVAILABLE",
}


class Json(amp.Argument):
    """A JSON object argument (UTF-8, no floats), at most :data:`MAX_VALUE_BYTES` encoded."""

    def toString(self, inObject: Any) -> bytes:
        data = json.dumps(inObject, sort_keys=True, separators=(",", ":")).encode("utf-8")
        if len(data) > MAX_VALUE_BYTES:
            raise BadRequest(f"a JSON value of {len(data)} bytes is over the AMP limit")
        return data

    def fromString(self, inString: bytes) -> Any:
        try:
            return json.loads(inString.decode("utf-8"), parse_float=_no_float)
        except (UnicodeDecodeError, ValueError) as exc:
            raise BadRequest(f"not a JSON value: {exc}") from None


def _no_float(text: str) -> Any:
    raise ValueError(f"numbers are integers only, got {text}")


_TERMINAL_ERRORS: Final = {k: v for k, v in DOMAIN_ERRORS.items() if k is not VersionMismatch}


class _Command(amp.Command):
    errors = _TERMINAL_ERRORS


class Hello(_Command):
    """The first command of every connection: the client's protocol version. The server
    answers with who the certificate says the client is and, for a terminal, its seat and
    its current view (with recent results after a reconnect)."""

    arguments: ClassVar = [(b"version", amp.Integer()), (b"software", amp.Unicode())]
    response: ClassVar = [
        (b"version", amp.Integer()),
        (b"role", amp.Unicode()),
        (b"identity", amp.Unicode()),
        (b"seat", amp.Integer()),
        (b"view", Json()),
    ]
    errors: ClassVar = DOMAIN_ERRORS


class PlaceWagers(_Command):
    """Place this terminal's wagers for the open round: ``{"blackjack": 2500, ...}`` cents.

    ``position`` is the position the player chooses at a three-position hybrid table, 1 to 3
    (58 Pa. Code 633b.5(l)); absent at every other table. (Version 2 added it.)"""

    arguments: ClassVar = [
        (b"request_id", amp.Unicode()),
        (b"wagers", Json()),
        (b"position", amp.Integer(optional=True)),
    ]
    response: ClassVar = [(b"view", Json())]


class Act(_Command):
    """A decision on one of this terminal's hands: hit, stand, double, split, surrender.
    ``amount`` is a double down for less (0: the full original wager)."""

    arguments: ClassVar = [
        (b"request_id", amp.Unicode()),
        (b"action", amp.Unicode()),
        (b"hand", amp.Integer()),
        (b"amount", amp.Integer()),
    ]
    response: ClassVar = [(b"view", Json())]


class AnswerInsurance(_Command):
    """Answer the insurance offer: ``"insurance"`` (with ``amount``), ``"decline"`` or
    ``"even-money"``."""

    arguments: ClassVar = [
        (b"request_id", amp.Unicode()),
        (b"choice", amp.Unicode()),
        (b"amount", amp.Integer()),
    ]
    response: ClassVar = [(b"view", Json())]


class RequestCashOut(_Command):
    """The player asks for a cash out of all credits (paid when no wager is in play)."""

    arguments: ClassVar = [(b"request_id", amp.Unicode())]
    response: ClassVar = [(b"view", Json())]


class GetView(_Command):
    """The terminal's current view (after a reconnect, or to resynchronise)."""

    arguments: ClassVar = []
    response: ClassVar = [(b"view", Json())]


class GetRules(_Command):
    """The game rules and every offered wager's paytable, as the rules screen shows them
    (58 Pa. Code 633b.5(c)(2)); read-only, built by the server from the config in force."""

    arguments: ClassVar = []
    response: ClassVar = [(b"rules", Json())]


class GetRecall(_Command):
    """Game recall at the terminal: this terminal's current game and the 9 before it, from
    the event log; read-only."""

    arguments: ClassVar = []
    response: ClassVar = [(b"recall", Json())]


class ViewUpdate(_Command):
    """Server to terminal: the terminal's new view, sent after each logged step."""

    arguments: ClassVar = [(b"view", Json())]
    requiresAnswer = False


class CashIn(_Command):
    """Operator: add credits to a terminal's wallet."""

    arguments: ClassVar = [
        (b"request_id", amp.Unicode()),
        (b"terminal", amp.Unicode()),
        (b"amount", amp.Integer()),
        (b"reference", amp.Unicode()),
    ]
    response: ClassVar = [(b"balance", amp.Integer())]


class CashOut(_Command):
    """Operator: pay out a terminal's credits (``amount`` 0: all of them)."""

    arguments: ClassVar = [
        (b"request_id", amp.Unicode()),
        (b"terminal", amp.Unicode()),
        (b"amount", amp.Integer()),
        (b"reference", amp.Unicode()),
    ]
    response: ClassVar = [(b"paid", amp.Integer()), (b"balance", amp.Integer())]


class SetTableState(_Command):
    """Operator: ``"open"``, ``"close"`` or ``"out-of-service"`` (with a reason)."""

    arguments: ClassVar = [
        (b"request_id", amp.Unicode()),
        (b"state", amp.Unicode()),
        (b"reason", amp.Unicode()),
    ]
    response: ClassVar = [(b"state", amp.Unicode())]


class ReadMeters(_Command):
    """Operator: the never-reset meters per wager and per table, and each wallet."""

    arguments: ClassVar = []
    response: ClassVar = [(b"meters", Json())]


TERMINAL_COMMANDS: Final = (
    Hello,
    PlaceWagers,
    Act,
    AnswerInsurance,
    RequestCashOut,
    GetView,
    GetRules,
    GetRecall,
)
OPERATOR_COMMANDS: Final = (Hello, CashIn, CashOut, SetTableState, ReadMeters)


def check_request_id(request_id: str) -> str:
    """Refuse a request id that is empty, too long or not printable ASCII."""
    if (
        not 1 <= len(request_id) <= MAX_REQUEST_ID
        or not request_id.isascii()
        or not (request_id.isprintable())
    ):
        raise BadRequest(
            f"a request id is 1 to {MAX_REQUEST_ID} printable ASCII characters, "
            f"got {request_id[:80]!r}"
        )
    return request_id
