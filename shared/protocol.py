"""The wire protocol between the table server and its terminals and operator tools.

Twisted AMP commands over mutual TLS (docs/design.md "Network"). Every command declares its
arguments, its response and the domain errors it may answer with; anything undeclared is a
protocol error and the server drops the connection. Terminals send intents (never outcomes)
with a client-made ``request_id``: a retry after a reconnect gets the first answer and
changes nothing. The server sends each terminal its own view as versioned JSON in one
argument (under AMP's 64 KiB value limit), and never a card that is not yet revealed.
Argument values are read strictly (:class:`Integer`, :class:`Text`, :class:`Json`): a
malformed value is :class:`BadRequest` with a sentence that names its argument, never an
internal error (a box without a declared argument is malformed: the connection is dropped).

This is the only module of ``shared/`` that imports Twisted.

Entry points: the :class:`Hello` handshake and :data:`PROTOCOL_VERSION`; terminal commands
:class:`PlaceWagers`, :class:`Act`, :class:`AnswerInsurance`, :class:`GetView`, and the
read-only :class:`GetRules` and :class:`GetRecall`; the server's
:class:`ViewUpdate`; operator commands :class:`CashIn`, :class:`CashOut`, :class:`SetTableState`,
:class:`SetTerminalAccess`, :class:`ReadMeters`.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar, Final

import orjson
from twisted.internet.interfaces import IOpenSSLClientConnectionCreator
from twisted.protocols import amp
from zope.interface import implementer  # type: ignore[import-untyped]  # ships no hints

from shared.errors import ETGError

#: Bumped on every incompatible change; the server refuses a terminal that speaks another.
PROTOCOL_VERSION: Final = 2

#: AMP's limit for one value; a view must fit in it.
MAX_VALUE_BYTES: Final = amp.MAX_VALUE_LENGTH

#: Values a :class:`LargeJson` answer may take (1 MB): the operator's meters of a server at
#: its most tables (about 150 KB at 150 tables) with room to spare.
MAX_JSON_PIECES: Final = 16

#: A request id: 1 to 64 characters chosen by the client (a UUID is typical).
MAX_REQUEST_ID: Final = 64

#: Digits of an integer on the wire (an argument, or a number in a JSON value). Cents,
#: seats and hand numbers are far shorter; 18 digits stay within a signed 64-bit integer
#: (what SQLite stores).
MAX_INTEGER_DIGITS: Final = 18

#: Levels of nesting of a JSON value on the wire (a view is about six deep).
MAX_JSON_DEPTH: Final = 32


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


class _Named(amp.Argument):
    """An argument whose refusals (:class:`BadRequest`) start with the argument's name."""

    def fromBox(self, name: bytes, strings: Any, objects: Any, proto: Any) -> None:
        try:
            super().fromBox(name, strings, objects, proto)
        except BadRequest as exc:
            raise BadRequest(f"{name.decode('ascii', 'replace')}: {exc}") from None


class Integer(_Named):
    """An integer argument: an optional minus sign and at most :data:`MAX_INTEGER_DIGITS`
    digits; anything else is :class:`BadRequest` (AMP's own ``Integer`` takes any size,
    and Python refuses to convert more than 4,300 digits with a ValueError)."""

    def toString(self, inObject: int) -> bytes:
        return b"%d" % (inObject,)

    def fromString(self, inString: bytes) -> int:
        if _INTEGER.fullmatch(inString) is None:
            raise BadRequest(f"{_shown(inString)} is not an integer")
        _check_digits(inString.decode("ascii"))
        return int(inString)


class Text(_Named):
    """A text argument (UTF-8); bytes that are not UTF-8 are :class:`BadRequest`."""

    def toString(self, inObject: str) -> bytes:
        return inObject.encode("utf-8")

    def fromString(self, inString: bytes) -> str:
        try:
            return inString.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest(f"{_shown(inString)} is not UTF-8 text") from None


#: The wire's JSON encoder (one, reused: ``json.dumps`` with these options makes one a call).
_WIRE_JSON: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"))

#: What orjson writes like ``json``: sorted keys; a dataclass or a datetime is passed on to
#: ``default`` (none: refused, as ``json`` refuses it) instead of written by orjson's rules.
_ORJSON_OPTIONS: Final = (
    orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)


def json_text(value: Any) -> str:
    """``value`` as the wire writes JSON: sorted keys, no spaces, ASCII (``\\u`` escapes);
    the text of ``json.dumps(value, sort_keys=True, separators=(",", ":"))``."""
    return _WIRE_JSON.encode(value)


def json_bytes(value: Any) -> bytes:
    """``json_text(value)`` in UTF-8: the same bytes, written about ten times faster.

    orjson (compiled) writes them whenever its bytes are those: JSON with sorted keys and no
    spaces, which is ``json``'s for every wire value (integers, strings, booleans, null,
    lists and objects with string keys) whose text is printable ASCII. Otherwise ``json``
    writes them: a string with a character outside ASCII or DEL (``json`` escapes them,
    orjson does not), an integer beyond 64 bits, a non-string key, nesting over 255 deep,
    a lone surrogate, or a type orjson refuses (so is an error raised, ``json``'s). The wire
    holds no float (:class:`Json` refuses one on reading), where the two would differ
    (``1e+16`` against ``1e16``, ``NaN`` against ``null``), nor an enum or a UUID, which
    orjson writes by value where ``json`` refuses them; a test checks the bytes over
    generated values of every other kind.
    """
    try:
        data = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        pass
    else:
        if data.isascii() and b"\x7f" not in data:
            return data
    return json_text(value).encode("utf-8")


class EncodedJson(bytes):
    """A JSON value already encoded as :func:`json_bytes` does (UTF-8): :class:`Json` sends
    these bytes as they are. The server encodes each terminal's view once
    (:func:`encode_view`) and sends the same bytes to every connection of the terminal."""


def encode_view(view: dict[str, Any]) -> EncodedJson:
    """``view`` encoded for the wire (:func:`json_bytes`), to be sent as it is."""
    return EncodedJson(json_bytes(view))


class RedactedView(EncodedJson):
    """A terminal's view, encoded, after the one redaction of face-down cards
    (``game_server.table.secrecy.redact_view``, its only maker): what :class:`ViewJson`
    sends. A view that skipped the redaction (a dict, or bytes of another kind) is refused
    there, before anything is sent."""


class UnredactedView(TypeError):
    """A view given to the wire without the redaction of face-down cards."""


class Json(_Named):
    """A JSON argument (UTF-8), at most :data:`MAX_VALUE_BYTES` encoded, read strictly:
    integers of at most :data:`MAX_INTEGER_DIGITS` digits and no floats, each key once in
    an object (a repeated key is refused, not read as its last value), nested at most
    :data:`MAX_JSON_DEPTH` deep. Every refusal is :class:`BadRequest` with a sentence.
    A value given as :class:`EncodedJson` is sent as it is."""

    @staticmethod
    def encoded(value: Any) -> bytes:
        """``value`` in UTF-8 JSON (:func:`json_bytes`), or as it is if already encoded."""
        return value if isinstance(value, EncodedJson) else json_bytes(value)

    def toString(self, inObject: Any) -> bytes:
        data = self.encoded(inObject)
        if len(data) > MAX_VALUE_BYTES:
            raise BadRequest(f"a JSON value of {len(data)} bytes is over the AMP limit")
        return data

    def fromString(self, inString: bytes) -> Any:
        try:
            value = _DECODER.decode(inString.decode("utf-8"))
        except RecursionError:
            raise BadRequest(_too_deep()) from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise BadRequest(f"not a JSON value: {exc}") from None
        _check_depth(value)
        return value


class ViewJson(Json):
    """A terminal's view: sent only as a :class:`RedactedView` (what the one redaction of
    face-down cards returns); anything else is refused with :class:`UnredactedView` before a
    byte is sent. Read as :class:`Json` reads."""

    def toString(self, inObject: Any) -> bytes:
        if not isinstance(inObject, RedactedView):
            raise UnredactedView(
                f"a view of type {type(inObject).__name__} was given to the wire: every view "
                "passes game_server.table.secrecy.redact_view first"
            )
        return super().toString(inObject)


class LargeJson(Json):
    """A JSON answer that may be larger than one AMP value (the operator's meters of a
    server with many tables): its encoding is cut into values of at most
    :data:`MAX_VALUE_BYTES` under ``name``, ``name.2``, ``name.3``..., at most
    :data:`MAX_JSON_PIECES` of them, and read back joined, then as :class:`Json` reads it.
    An answer that fits in one value is sent exactly as :class:`Json` sends it."""

    def toBox(self, name: bytes, strings: Any, objects: Any, proto: Any) -> None:
        data = self.encoded(objects[name.decode("ascii")])
        if len(data) > MAX_VALUE_BYTES * MAX_JSON_PIECES:
            raise BadRequest(
                f"a JSON answer of {len(data)} bytes is over {MAX_JSON_PIECES} AMP values"
            )
        strings[name] = data[:MAX_VALUE_BYTES]
        for piece, start in enumerate(range(MAX_VALUE_BYTES, len(data), MAX_VALUE_BYTES), 2):
            strings[name + b".%d" % piece] = data[start : start + MAX_VALUE_BYTES]

    def fromBox(self, name: bytes, strings: Any, objects: Any, proto: Any) -> None:
        if name not in strings:
            raise BadRequest(f"{name.decode('ascii', 'replace')}: missing")
        parts = [strings.pop(name)]
        while (key := name + b".%d" % (len(parts) + 1)) in strings:
            if len(parts) == MAX_JSON_PIECES:
                raise BadRequest(
                    f"{name.decode('ascii', 'replace')}: over {MAX_JSON_PIECES} AMP values"
                )
            parts.append(strings.pop(key))
        try:
            objects[name.decode("ascii")] = self.fromString(b"".join(parts))
        except BadRequest as exc:
            raise BadRequest(f"{name.decode('ascii', 'replace')}: {exc}") from None


#: An integer as :class:`Integer` reads it.
_INTEGER: Final = re.compile(rb"-?[0-9]+")


def _shown(data: bytes) -> str:
    """Bytes for a message: at most 40 of them."""
    return repr(data[:40]) + (f" (and {len(data) - 40:,} bytes more)" if len(data) > 40 else "")


def _check_digits(text: str) -> None:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise BadRequest(
            f"an integer of {digits:,} digits; integers have at most {MAX_INTEGER_DIGITS}"
        )


def _json_integer(text: str) -> int:
    _check_digits(text)
    return int(text)


def _no_float(text: str) -> Any:
    raise BadRequest(f"numbers are integers only, got {text[:40]}")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _item in pairs:
            if key in seen:
                raise BadRequest(
                    f"the key {json.dumps(key)[:60]} is given twice in one object; "
                    "give each key once"
                )
            seen.add(key)
    return value


def _too_deep() -> str:
    return f"a JSON value nested more than {MAX_JSON_DEPTH} deep"


def _check_depth(value: Any) -> None:
    """Refuse a value nested deeper than :data:`MAX_JSON_DEPTH` (without recursion): a level
    at a time, only its objects and lists kept for the next (what a decoded value holds:
    ``dict`` and ``list``, no subclass), about a third of the time of a walk that visits
    every value one by one."""
    level = [value] if type(value) is dict or type(value) is list else []
    for _ in range(MAX_JSON_DEPTH):
        if not level:
            return
        below: list[Any] = []
        for item in level:
            below += [
                child
                for child in (item.values() if type(item) is dict else item)
                if type(child) is dict or type(child) is list
            ]
        level = below
    if level:
        raise BadRequest(_too_deep())


_DECODER: Final = json.JSONDecoder(
    parse_float=_no_float,
    parse_int=_json_integer,
    parse_constant=_no_float,
    object_pairs_hook=_unique_keys,
)


_TERMINAL_ERRORS: Final = {k: v for k, v in DOMAIN_ERRORS.items() if k is not VersionMismatch}


class _Command(amp.Command):
    errors = _TERMINAL_ERRORS


class Hello(_Command):
    """The first command of every connection: the client's protocol version. The server
    answers with who the certificate says the client is and, for a terminal, its seat and
    its current view (with recent results after a reconnect)."""

    arguments: ClassVar = [(b"version", Integer()), (b"software", Text())]
    response: ClassVar = [
        (b"version", Integer()),
        (b"role", Text()),
        (b"identity", Text()),
        (b"seat", Integer()),
        (b"view", ViewJson()),
    ]
    errors: ClassVar = DOMAIN_ERRORS


#: The optional answer of every command that changes something, to a retry of a request id
#: that took effect before the server restarted (its answer lost with the connection): the
#: server's sentence saying so; the command was not run again, and the rest of the answer is
#: rebuilt from the event log and the table as it is now (a terminal's view, the balance a
#: cash in left). Absent from every other answer. (An optional answer: no protocol version
#: change; an older client ignores it.)
_ALREADY: Final = [(b"already", Text(optional=True))]


class PlaceWagers(_Command):
    """Place this terminal's wagers for the open round: ``{"blackjack": 2500, ...}`` cents.

    ``position`` is the position the player chooses at a three-position hybrid table, 1 to 3
    (58 Pa. Code 633b.5(l)); absent at every other table. (Version 2 added it.)"""

    arguments: ClassVar = [
        (b"request_id", Text()),
        (b"wagers", Json()),
        (b"position", Integer(optional=True)),
    ]
    response: ClassVar = [(b"view", ViewJson()), *_ALREADY]


class Act(_Command):
    """A decision on one of this terminal's hands: hit, stand, double, split, surrender.
    ``amount`` is a double down for less (0: the full original wager)."""

    arguments: ClassVar = [
        (b"request_id", Text()),
        (b"action", Text()),
        (b"hand", Integer()),
        (b"amount", Integer()),
    ]
    response: ClassVar = [(b"view", ViewJson()), *_ALREADY]


class AnswerInsurance(_Command):
    """Answer the insurance offer: ``"insurance"`` (with ``amount``), ``"decline"`` or
    ``"even-money"``."""

    arguments: ClassVar = [
        (b"request_id", Text()),
        (b"choice", Text()),
        (b"amount", Integer()),
    ]
    response: ClassVar = [(b"view", ViewJson()), *_ALREADY]


class RequestCashOut(_Command):
    """The player asks for a cash out of all credits (paid when no wager is in play)."""

    arguments: ClassVar = [(b"request_id", Text())]
    response: ClassVar = [(b"view", ViewJson()), *_ALREADY]


class GetView(_Command):
    """The terminal's current view (after a reconnect, or to resynchronise)."""

    arguments: ClassVar = []
    response: ClassVar = [(b"view", ViewJson())]


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

    arguments: ClassVar = [(b"view", ViewJson())]
    requiresAnswer = False


#: The optional arguments of every operator command that changes something: who asked.
#: ``person`` is the person signed in to the operator's console (1 to 64 printable
#: characters), ``role`` their role there (``attendant``, ``supervisor``); both or neither. A
#: server that logs operator actions answers ``logged`` 1 once it has written the action,
#: with them, into the table's event log (``operator_action``); a server that does not (an
#: older one ignores both arguments) answers without ``logged``, and the console says so.
#: (Optional arguments and answers: no protocol version change.)
_WHO: Final = [(b"person", Text(optional=True)), (b"role", Text(optional=True))]
_LOGGED: Final = [(b"logged", Integer(optional=True))]


class CashIn(_Command):
    """Operator: add credits to a terminal's wallet (with ``person``/``role``, see
    :data:`_WHO`)."""

    arguments: ClassVar = [
        (b"request_id", Text()),
        (b"terminal", Text()),
        (b"amount", Integer()),
        (b"reference", Text()),
        *_WHO,
    ]
    response: ClassVar = [(b"balance", Integer()), *_LOGGED, *_ALREADY]


class CashOut(_Command):
    """Operator: pay out a terminal's credits (``amount`` 0: all of them)."""

    arguments: ClassVar = [
        (b"request_id", Text()),
        (b"terminal", Text()),
        (b"amount", Integer()),
        (b"reference", Text()),
        *_WHO,
    ]
    response: ClassVar = [(b"paid", Integer()), (b"balance", Integer()), *_LOGGED, *_ALREADY]


class SetTableState(_Command):
    """Operator: ``"open"``, ``"close"`` or ``"out-of-service"`` (with a reason). ``table``
    names one table of a server that hosts several; without it every table of the server."""

    arguments: ClassVar = [
        (b"request_id", Text()),
        (b"state", Text()),
        (b"reason", Text()),
        (b"table", Text(optional=True)),
        *_WHO,
    ]
    response: ClassVar = [(b"state", Text()), *_LOGGED, *_ALREADY]


class SetTerminalAccess(_Command):
    """Operator: ``access`` ``"revoke"`` a terminal's certificate id at this server (its
    connections are dropped, and it is refused from then on, across restarts, as if listed
    in ``floor.toml``'s ``[floor.revoked]``) or ``"reinstate"`` it, with a reason. The answer
    lists every terminal id revoked at the server now (``floor.toml``'s and the log's).
    (A new command: an older server answers it as unknown.)"""

    arguments: ClassVar = [
        (b"request_id", Text()),
        (b"terminal", Text()),
        (b"access", Text()),
        (b"reason", Text()),
        *_WHO,
    ]
    response: ClassVar = [(b"revoked", Json()), *_LOGGED, *_ALREADY]


class ReadMeters(_Command):
    """Operator: the never-reset meters per wager and per table, and each wallet."""

    arguments: ClassVar = []
    response: ClassVar = [(b"meters", LargeJson())]


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
OPERATOR_COMMANDS: Final = (Hello, CashIn, CashOut, SetTableState, SetTerminalAccess, ReadMeters)


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


# --------------------------------------------------------------------------------------------
# Routing: the TLS server name a client sends

#: The longest route a client names (a terminal id or a table id).
MAX_ROUTE: Final = 64
_ROUTE_RE: Final = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@implementer(IOpenSSLClientConnectionCreator)
class RoutedClientTLS:
    """A client's TLS options that send ``route`` as the TLS server name (SNI).

    A server that runs its tables in several processes behind one port
    (``etg serve --workers``) reads the server name of the ClientHello, before any TLS byte
    is consumed, to hand the connection to the process serving that terminal or table; the
    certificate, checked by that process, still decides who the client is. A terminal names
    itself (its certificate's id), an operator tool the table (or a terminal) it means. The
    server's certificate is still checked against the host name of ``options``: only the
    name sent changes. A one-process server ignores the name.

    Args:
        options: The client's TLS options (``optionsForClientTLS``).
        route: A terminal id or a table id: 1 to 64 letters, digits, ``_``, ``.`` or ``-``.

    Raises:
        ValueError: ``route`` is not such a name.
    """

    def __init__(self, options: Any, route: str) -> None:
        if not _ROUTE_RE.fullmatch(route):
            raise ValueError(
                f"{route!r} is not a route: a terminal or table id of 1 to {MAX_ROUTE} "
                "letters, digits, '_', '.' or '-'"
            )
        self._options = options
        self.route = route

    def clientConnectionForTLS(self, tlsProtocol: Any) -> Any:
        """The inner options' connection, its server name replaced before the handshake."""
        connection = self._options.clientConnectionForTLS(tlsProtocol)
        connection.set_tlsext_host_name(self.route.encode("ascii"))
        return connection
