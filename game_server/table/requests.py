"""Which client's request a table step is logged for: the request id goes into the log with
the first step the request logs, in the same transaction as what it did.

A client sends each state-changing command with a request id of its own and sends it again
with the same id when its connection dropped before the answer (the terminal resends every
pending intent after it reconnects). Whether the command ran must outlive the server: a
retry after a crash must not run it a second time. So the server runs each command inside
:func:`running`, and the table's one logging step
(:meth:`TableBook._log <game_server.table.session.TableBook._log>`) adds a
:class:`~game_server.table.events.RequestApplied` record to the first step logged meanwhile
(:func:`applied`): the step is written in one transaction, so the log holds either both what
the command did and its request id, or neither. Later steps of the same command (the
dealer's play after the last stand) are its consequences, which recovery resumes from the
log; the first is the one that decides whether it ran.

The record goes after the step's own records and before the round's closing records
(``cards_unsealed``, ``round_closed``), which must end a round (``etg verify``); its
``events`` counts the records before it. A step logged while the request is
:func:`paused` (the operator's refusal, noted in the log with its sentence) is not the
request's effect and carries none.

The request is kept in a :class:`contextvars.ContextVar`: a step that waits on the floor
store runs in a greenlet of its own (:mod:`game_server.table.steps`), and each greenlet
has its own context, so a request's record never goes to another request's step.

How long ids are remembered (:data:`TERMINAL_ANSWERS_KEPT`, :data:`ANSWERS_KEPT` per client)
is decided here too: the server's answer book, what it reads back from the log, and
``etg verify`` use the same bounds.

Entry points: :func:`running`, :func:`paused`, :func:`applied`, :func:`withdraw`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

from game_server.table.events import CardsUnsealed, RequestApplied, RoundClosed
from shared.protocol import OPERATOR_COMMANDS, TERMINAL_COMMANDS

#: The records that close a round and must end its last step (the request record goes
#: before them).
CLOSING: Final = frozenset({CardsUnsealed, RoundClosed})


def _requests(commands: Sequence[Any]) -> frozenset[str]:
    return frozenset(
        c.commandName.decode("ascii")
        for c in commands
        if any(name == b"request_id" for name, _ in c.arguments)
    )


#: The commands that change something (each carries a request id), by name: a terminal's
#: intents (``PlaceWagers``, ``Act``, ``AnswerInsurance``, ``RequestCashOut``) and the
#: operator's actions (``CashIn``, ``CashOut``, ``SetTableState``, ``SetTerminalAccess``).
TERMINAL_REQUESTS: Final = _requests(TERMINAL_COMMANDS)
OPERATOR_REQUESTS: Final = _requests(OPERATOR_COMMANDS)

#: Request ids remembered for an operator certificate (the server's answer book, and what it
#: reads back from the log at start): a retry of one of its last 256 commands gets its first
#: answer; an older id is run again as a new command. Every operator tool (the console,
#: ``etg operator``, scripts) shares the certificate and sends one command at a time; one
#: that sends a command again does so once it is connected again, so 256 leaves room for
#: every other operator command made meanwhile.
ANSWERS_KEPT: Final = 256
#: Request ids remembered per terminal. A terminal holds at most one intent of each kind
#: awaiting its answer (``terminal_client.model.state.TerminalModel.apply_sent``) and resends
#: those first thing after a reconnect: every id a retry can name is among its last four
#: commands, so 32 is several times what a retry can reach back for. Each answer kept in
#: memory holds its view's bytes (about 2 KB), so this bounds a server of 1,000 terminals at
#: about 70 MB of kept answers, where 256 reached about 560 MB (issue 22).
TERMINAL_ANSWERS_KEPT: Final = 32


def is_terminal_request(command: str) -> bool:
    """Whether ``command`` (an AMP command's name) is a terminal's intent."""
    return command in TERMINAL_REQUESTS


def kept_for(command: str) -> int:
    """How many request ids are remembered of a client that sends ``command``."""
    return TERMINAL_ANSWERS_KEPT if is_terminal_request(command) else ANSWERS_KEPT


@dataclass
class Request:
    """The request a command runs for, while it runs.

    Attributes:
        client: The certificate id of the client (a terminal id, ``operator``).
        request_id: The client's id of the command.
        command: The AMP command's name.
        terminal: The envelope's terminal of the record: the client's id for a terminal's
            command, None for the operator's.
        logged: Whether a step carried the request's record (the command took effect).
        paused: Whether steps logged now are not the request's effect (:func:`paused`).
    """

    client: str
    request_id: str
    command: str
    terminal: str | None
    logged: bool = False
    paused: bool = False


_CURRENT: ContextVar[Request | None] = ContextVar("etg_request", default=None)


@contextmanager
def running(client: str, request_id: str, command: str, terminal: str | None) -> Iterator[Request]:
    """Run a command for ``client``'s ``request_id``: the first step logged meanwhile carries
    its record. Yields the :class:`Request`, whose ``logged`` says afterwards whether the
    command took effect."""
    request = Request(client, request_id, command, terminal)
    token = _CURRENT.set(request)
    try:
        yield request
    finally:
        _CURRENT.reset(token)


@contextmanager
def paused() -> Iterator[None]:
    """Steps logged meanwhile are not the running request's effect (a refusal noted in the
    log): they carry no request record."""
    request = _CURRENT.get()
    if request is None:
        yield
        return
    before, request.paused = request.paused, True
    try:
        yield
    finally:
        request.paused = before


def applied(items: Sequence[tuple[str | None, Any]]) -> Sequence[tuple[str | None, Any]]:
    """The step as it is logged: ``items`` with the running request's record, when this is
    the first step the request logs; else ``items`` unchanged."""
    request = _CURRENT.get()
    if request is None or request.logged or request.paused or not items:
        return items
    request.logged = True
    cut = len(items)
    while cut and type(items[cut - 1][1]) in CLOSING:
        cut -= 1
    record = RequestApplied(request.client, request.request_id, request.command, cut)
    return [*items[:cut], (request.terminal, record), *items[cut:]]


def withdraw(carried: bool) -> None:
    """The step :func:`applied` gave was not written (``carried``: it held the request's
    record): the request has not taken effect yet."""
    request = _CURRENT.get()
    if carried and request is not None:
        request.logged = False
