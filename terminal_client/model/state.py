"""What this terminal knows: the last view, the connection, intents awaiting an answer.

:class:`TerminalModel` changes only through its ``apply_*`` methods, which the network client
calls with what the server said (a view, an answer, a declared error) or with what happened
to the connection. Everything the screens read is derived from the server's last view and
exposed as frozen dataclasses: credits are always the server's, never a local guess.

An :class:`Intent` is a command sent to the server and not yet answered, kept by its request
id: a button shows "waiting" while one of its kind is pending, a second press is refused
(:meth:`TerminalModel.apply_sent` returns False), and the client resends the pending intents
with the same request ids after a reconnect (the server answers a retry once).

Entry points: :class:`TerminalModel`, :class:`ConnectionState`, :class:`Intent`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, Protocol

from terminal_client.model.documents import Recall, Rules, parse_recall, parse_rules
from terminal_client.model.view import (
    Countdown,
    GameView,
    Hand,
    InsuranceOffer,
    MalformedView,
    RoundResult,
    Seat,
    Settlement,
    View,
    ViewVersionError,
    WagerLimits,
    parse_shoe,
    phase_name,
)

#: What the terminal says when the server speaks a newer protocol or view version.
NEEDS_UPDATE_TEXT: Final = "this terminal needs an update"

#: The wire code of a protocol version refusal (shared.protocol.DOMAIN_ERRORS).
VERSION_MISMATCH_CODE: Final = "VERSION_MISMATCH"


class ConnectionState(StrEnum):
    """Where the terminal's connection to the table server is."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    LOST = "lost"
    CERTIFICATE_REFUSED = "certificate-refused"
    NEEDS_UPDATE = "needs-update"


@dataclass(frozen=True)
class Connection:
    """The connection's state, why (for the screen), and when the next attempt starts
    (``retry_at``, in the reactor's seconds; ``None`` when no retry is scheduled)."""

    state: ConnectionState
    message: str = ""
    retry_at: float | None = None

    def retry_in(self, now: float) -> int | None:
        """Whole seconds until the next connection attempt (rounded up), or ``None``."""
        if self.retry_at is None:
            return None
        return max(0, math.ceil(self.retry_at - now))


class IntentKind(StrEnum):
    """The commands a terminal sends; one of each kind may await its answer at a time."""

    PLACE_WAGERS = "place-wagers"
    ACT = "act"
    INSURANCE = "insurance"
    CASH_OUT = "cash-out"


@dataclass(frozen=True)
class Intent:
    """A command sent (or to be resent) with its request id and its arguments."""

    kind: IntentKind
    request_id: str
    arguments: Mapping[str, Any]

    @classmethod
    def make(cls, kind: IntentKind, request_id: str, **arguments: Any) -> Intent:
        """An intent with read-only arguments."""
        return cls(kind, request_id, MappingProxyType(dict(arguments)))


class Document(StrEnum):
    """What a terminal asks the server for on demand (not pushed with every view)."""

    RULES = "rules"
    RECALL = "recall"


@dataclass(frozen=True)
class DocumentState:
    """A document's last copy, whether a request for it is out, and why the last one failed."""

    value: Rules | Recall | None = None
    waiting: bool = False
    error: str | None = None


@dataclass(frozen=True)
class ErrorNotice:
    """A refusal to show: the server's code and sentence. ``serial`` grows with each one,
    so a screen can tell a new notice from the one it already showed."""

    code: str
    message: str
    serial: int
    request_id: str | None = None


#: Seconds the last round's results stay on the betting screen at least
#: (``etg terminal --results-seconds``).
RESULTS_SECONDS: Final = 8.0


class ModelGame(Protocol):
    """What the model and the shared screens read of the view's game: its names and texts
    (documented with :class:`terminal_client.games.api.TerminalGame`, which extends it). The
    whole contract is what the registry gives for a model (:func:`terminal_client.games.of`):
    the model names no more of it, so that the contract, which names the model, is not named
    back."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def main_wager(self) -> str | None: ...

    @property
    def wager_titles(self) -> Mapping[str, str]: ...

    @property
    def main_rules(self) -> tuple[str, ...]: ...

    @property
    def felt_lines(self) -> tuple[str, ...]: ...


class TerminalModel:
    """The terminal's knowledge, updated only from server messages (see the module doc).

    Args:
        results_seconds: How long the last round's results stay in view at least once the
            next round takes bets (then until this terminal's first wager of it).
    """

    def __init__(self, results_seconds: float = RESULTS_SECONDS) -> None:
        self.results_seconds = results_seconds
        self._last_settled: Any = None
        self._view: View | None = None
        self._game_view: GameView | None = None
        self._game: ModelGame | None = None
        self._connection = Connection(ConnectionState.CONNECTING)
        self._pending: dict[str, Intent] = {}
        self._error: ErrorNotice | None = None
        self._errors = 0
        self._documents: dict[Document, DocumentState] = {d: DocumentState() for d in Document}
        self._accepted: dict[IntentKind, Intent] = {}
        self._revision = 0
        self._ever_connected = False

    @property
    def revision(self) -> int:
        """A number that grows with every change of what the model holds (a view, an answer,
        a refusal, a document, the connection): the app redraws when it has moved."""
        return self._revision

    # ----------------------------------------------------------------------------------------
    # Changes (only from what the server said or the connection did)

    def apply_view(self, data: Any) -> None:
        """Take a view the server sent. A view of another version puts the terminal in
        :attr:`ConnectionState.NEEDS_UPDATE`; a malformed one is an error notice and the
        last good view stays. The view's game reads it
        (:func:`terminal_client.games.for_view`): :attr:`game_view` holds what it read and
        :attr:`view` the common part every table shares, with the table's shoe every view
        carries (:func:`~terminal_client.model.view.parse_shoe`, read here for every game)."""
        from terminal_client import games  # the registry at call time: it sits below the model

        self._revision += 1
        try:
            game = games.for_view(data)
            read = game.parse_view(data)
            shoe = parse_shoe(data.get("shoe"))
            view = read.view if shoe == read.view.shoe else replace(read.view, shoe=shoe)
            self._view, self._game_view, self._game = view, read, game
            if view.phase == "complete" and view.settlements:
                self._last_settled = data
        except ViewVersionError as exc:
            self._needs_update(str(exc))
        except MalformedView as exc:
            self._notice("MALFORMED_VIEW", str(exc))

    def apply_answer(self, request_id: str, data: Any) -> None:
        """The server answered the intent ``request_id`` with a view (it took it)."""
        self._revision += 1
        intent = self._pending.pop(request_id, None)
        if intent is not None:
            self._accepted[intent.kind] = intent
        self._error = None
        self.apply_view(data)

    def accepted(self, kind: IntentKind) -> Intent | None:
        """The last intent of ``kind`` the server took (the last bet placed, with its
        position at a three-position table): what REBET and the next round's betting offer
        again."""
        return self._accepted.get(kind)

    def apply_error(self, code: str, message: str, request_id: str | None = None) -> None:
        """The server refused something with a declared error (``code`` as on the wire,
        e.g. ``"BET_OUT_OF_LIMITS"``) and its sentence; ``request_id`` is no longer pending."""
        self._revision += 1
        if request_id is not None:
            self._pending.pop(request_id, None)
        if code == VERSION_MISMATCH_CODE:
            self._needs_update(message)
        else:
            self._notice(code, message, request_id)

    def apply_sent(self, intent: Intent) -> bool:
        """Record an intent about to be sent; False (and nothing recorded) when one of the
        same kind still awaits its answer or when the terminal is not connected."""
        if self._connection.state is not ConnectionState.CONNECTED or self.is_waiting(intent.kind):
            return False
        self._revision += 1
        self._pending[intent.request_id] = intent
        self._error = None
        return True

    def apply_document_requested(self, which: Document) -> bool:
        """A request for ``which`` is about to be sent; False (nothing recorded) when one is
        already out or the terminal is not connected."""
        state = self._documents[which]
        if self._connection.state is not ConnectionState.CONNECTED or state.waiting:
            return False
        self._revision += 1
        self._documents[which] = DocumentState(state.value, waiting=True)
        return True

    def apply_document(self, which: Document, data: Any) -> None:
        """The server answered a request for ``which``. A document of another version puts
        the terminal in :attr:`ConnectionState.NEEDS_UPDATE`; a malformed one keeps the last
        good copy and records why."""
        self._revision += 1
        state = self._documents[which]
        try:
            value: Rules | Recall = (
                parse_rules(data) if which is Document.RULES else parse_recall(data)
            )
        except ViewVersionError as exc:
            self._documents[which] = DocumentState(state.value, error=str(exc))
            self._needs_update(str(exc))
            return
        except MalformedView as exc:
            self._documents[which] = DocumentState(state.value, error=str(exc))
            return
        self._documents[which] = DocumentState(value)

    def apply_document_error(self, which: Document, message: str) -> None:
        """The server refused a request for ``which`` (or the connection dropped first)."""
        self._revision += 1
        self._documents[which] = DocumentState(self._documents[which].value, error=message)

    def apply_connection(self, state: ConnectionState, message: str = "") -> None:
        """The connection changed. Once the terminal needs an update it stays so."""
        self._revision += 1
        if self._connection.state is ConnectionState.NEEDS_UPDATE:
            return
        if state is ConnectionState.NEEDS_UPDATE:
            self._needs_update(message)
            return
        if state is ConnectionState.CONNECTED:
            self._ever_connected = True
        self._connection = Connection(state, message)

    def apply_retry_at(self, when: float) -> None:
        """The next connection attempt starts at ``when`` (reactor seconds)."""
        self._revision += 1
        if self._connection.state in (ConnectionState.CONNECTED, ConnectionState.NEEDS_UPDATE):
            return
        self._connection = Connection(self._connection.state, self._connection.message, when)

    def _needs_update(self, why: str) -> None:
        self._connection = Connection(ConnectionState.NEEDS_UPDATE, f"{NEEDS_UPDATE_TEXT}: {why}")

    def _notice(self, code: str, message: str, request_id: str | None = None) -> None:
        self._errors += 1
        self._error = ErrorNotice(code, message, self._errors, request_id)

    # ----------------------------------------------------------------------------------------
    # Connection and intents

    @property
    def connection(self) -> Connection:
        """The connection's state, message and next retry."""
        return self._connection

    @property
    def ever_connected(self) -> bool:
        """True once the table answered at least once: a terminal that never reached it is
        still connecting, not one that lost its connection."""
        return self._ever_connected

    @property
    def needs_update(self) -> bool:
        """True when the server speaks another protocol or view version."""
        return self._connection.state is ConnectionState.NEEDS_UPDATE

    @property
    def pending(self) -> tuple[Intent, ...]:
        """Intents sent and not yet answered, oldest first."""
        return tuple(self._pending.values())

    def is_waiting(self, kind: IntentKind) -> bool:
        """True while an intent of ``kind`` awaits its answer (the button shows waiting)."""
        return any(intent.kind is kind for intent in self._pending.values())

    def document(self, which: Document) -> DocumentState:
        """The last copy of ``which`` (rules, recall), and whether a request is out."""
        return self._documents[which]

    @property
    def rules(self) -> Rules | None:
        """The game rules and paytables as the server last sent them."""
        value = self._documents[Document.RULES].value
        return value if isinstance(value, Rules) else None

    @property
    def recall(self) -> Recall | None:
        """This terminal's last games as the server last sent them."""
        value = self._documents[Document.RECALL].value
        return value if isinstance(value, Recall) else None

    @property
    def last_error(self) -> ErrorNotice | None:
        """The last refusal, until the next answered or newly sent intent."""
        return self._error

    # ----------------------------------------------------------------------------------------
    # What the screens show, from the last view

    @property
    def view(self) -> View | None:
        """The last view the server sent (``None`` before the first)."""
        return self._view

    @property
    def game_view(self) -> GameView | None:
        """The last view as its game read it (its cards and whatever else its screens
        draw); None before the first view."""
        return self._game_view

    @property
    def game(self) -> ModelGame:
        """The game of the last view (:mod:`terminal_client.games`; the generic game before
        the first view)."""
        if self._game is None:
            from terminal_client import games

            return games.for_view(None)
        return self._game

    @property
    def credits(self) -> int | None:
        """The server's credits for this terminal in cents (``None`` before a view)."""
        return None if self._view is None else self._view.credits

    @property
    def seat_number(self) -> int | None:
        """This terminal's seat at the table."""
        return None if self._view is None else self._view.seat

    @property
    def my_seat(self) -> Seat | None:
        """This terminal's seat in the current round (``None`` when it has no wager)."""
        return None if self._view is None else self._view.my_seat

    @property
    def in_round(self) -> bool:
        """Whether this terminal has wagers in the round (joined it, as its game reads the
        view)."""
        return self._game_view is not None and self._game_view.joined

    @property
    def my_hands(self) -> tuple[Hand, ...]:
        """This terminal's hands in the current round."""
        seat = self.my_seat
        return () if seat is None else seat.hands

    @property
    def my_turn(self) -> bool:
        """True when one of this terminal's hands is to act."""
        return self._view is not None and self._view.my_turn

    @property
    def hand_to_act(self) -> int | None:
        """The index of this terminal's hand to act, when it is its turn."""
        if self._view is None or not self._view.my_turn or self._view.to_act is None:
            return None
        return self._view.to_act[1]

    @property
    def legal_actions(self) -> frozenset[str]:
        """The actions the server allows this terminal's hand now (empty when not its turn)."""
        return frozenset() if self._view is None else self._view.actions

    @property
    def table_actions(self) -> frozenset[str]:
        """Every decision the table offers (a button each, lit when legal): as the server's
        view says; from a server that does not say, hit, stand, double down and split, the
        Press where TriLux Deluxe is offered, and whatever is legal now."""
        view = self._view
        if view is None:
            return frozenset()
        if view.table_actions is not None:
            return view.table_actions | view.actions
        press = {"press"} if "trilux" in view.limits else set()
        return frozenset({"hit", "stand", "double", "split", *press}) | view.actions

    @property
    def countdown(self) -> Countdown | None:
        """The running countdown: ``kind``, ``seconds_left`` and what it does at zero."""
        return None if self._view is None else self._view.countdown

    @property
    def insurance(self) -> InsuranceOffer | None:
        """The insurance offer to this terminal, if one is open."""
        return None if self._view is None else self._view.insurance

    @property
    def results(self) -> tuple[Settlement, ...]:
        """This round's settlements of this terminal's wagers."""
        return () if self._view is None else self._view.settlements

    @property
    def last_settled(self) -> Any:
        """The view of the last round this terminal had wagers settled in, as the server sent
        it (None before one): the betting screen shows its results until this terminal's
        first wager of the next round."""
        return self._last_settled

    @property
    def recent(self) -> tuple[RoundResult, ...]:
        """This terminal's last completed rounds, newest first as the server sends them."""
        return () if self._view is None else self._view.recent

    @property
    def limits(self) -> Mapping[str, WagerLimits]:
        """Each wager's minimum and maximum stake in cents."""
        return MappingProxyType({}) if self._view is None else self._view.limits

    @property
    def chips(self) -> tuple[int, ...]:
        """The chip denominations in cents."""
        return () if self._view is None else self._view.chips

    @property
    def phase(self) -> str | None:
        """The round's phase as the server names it (``"betting"``, ...), if a round is on."""
        return None if self._view is None else self._view.phase

    @property
    def phase_name(self) -> str:
        """The phase as the screens name it (the table state when it is not open)."""
        if self._view is not None and self._view.state not in (None, "open"):
            return phase_name(self._view.state)
        return phase_name(self.phase)
