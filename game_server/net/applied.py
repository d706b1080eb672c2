"""The request ids the event log says took effect, read back for the server's answer book.

Every state-changing command a client sends (a terminal's ``PlaceWagers``, ``Act``,
``AnswerInsurance``, ``RequestCashOut``; the operator's ``CashIn``, ``CashOut``,
``SetTableState``, ``SetTerminalAccess``) logs its request id with the first step it logs, in
the same transaction (``request_applied``: :mod:`game_server.table.requests`). A server
reads them back when it starts, and again when the operator reopens its tables after a
failed write (:func:`~game_server.table.recovery.reload_tables`), into its
:class:`~game_server.net.wire.AnswerBook`: a client that resends a command whose answer a
crash lost gets an answer that says it already took effect, and the command does not run a
second time (the terminal resends every pending intent with its first request id after it
reconnects).

Each client's last ids are kept, as many as the book keeps of its answers
(:data:`~game_server.table.requests.TERMINAL_ANSWERS_KEPT` of a terminal,
:data:`~game_server.table.requests.ANSWERS_KEPT` of an operator's certificate); with each, what
the answer is rebuilt from: the amount and balance of a cash in's or cash out's
``credits_in`` / ``credits_out`` (the record just before it, in its step), and whether the
operator's ``operator_action`` of it was logged.

Entry points: :func:`applied_in` (a log), :func:`read_applied` (its records).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from game_server.eventlog import EventLogReader, StoredEvent
from game_server.net.wire import Applied
from game_server.table.requests import ANSWERS_KEPT, TERMINAL_ANSWERS_KEPT, is_terminal_request

#: The kinds read: the request records, and what their answers are rebuilt from.
KINDS: Final = ("request_applied", "operator_action", "credits_in", "credits_out")


def read_applied(
    events: Iterable[StoredEvent],
    *,
    kept: int = ANSWERS_KEPT,
    terminal_kept: int = TERMINAL_ANSWERS_KEPT,
) -> list[Applied]:
    """The last request ids of each client that took effect, in log order.

    Args:
        events: The log's events of :data:`KINDS` (others are skipped), in log order.
        kept: How many of an operator certificate's are kept.
        terminal_kept: How many of a terminal's are kept.
    """
    terminals: dict[str, OrderedDict[str, Applied]] = {}
    operators: dict[str, OrderedDict[str, Applied]] = {}
    moved: StoredEvent | None = None
    action: StoredEvent | None = None
    for stored in events:
        kind = stored.kind
        if kind in ("credits_in", "credits_out"):
            moved = stored
        elif kind == "request_applied":
            body = stored.body
            client, request_id, command = body["client"], body["request_id"], body["command"]
            count = body["events"]
            if not all(isinstance(v, str) for v in (client, request_id, command)) or not (
                type(count) is int and count >= 0
            ):
                continue  # not one this build writes (etg verify names it)
            step = range(stored.seq - count, stored.seq)  # the records before it
            credit = None
            if moved is not None and moved.seq in step:
                credit = (int(moved.body["amount"]), int(moved.body["balance"]))
            # The operator's action is the first step of a state change (then in this step),
            # and follows a cash in or out in a step of its own; a terminal's access is the
            # first step of SetTerminalAccess.
            logged = command == "SetTerminalAccess" or (
                action is not None
                and action.seq in step
                and action.body["request_id"] == request_id
            )
            terminal = is_terminal_request(command)
            book = (terminals if terminal else operators).setdefault(client, OrderedDict())
            book.pop(request_id, None)
            book[request_id] = Applied(
                client, request_id, command, stored.seq, stored.time, credit, logged
            )
            while len(book) > (terminal_kept if terminal else kept):
                book.popitem(last=False)
        elif kind == "operator_action" and not stored.body["refused"]:
            action = stored
            # Logged after a cash in or out, in a step of its own: its answer says
            # ``logged`` once it is.
            request_id = stored.body["request_id"]
            for book in operators.values():
                found = book.get(request_id)
                if found is not None:
                    book[request_id] = replace(found, logged=True)
    every = [
        each
        for books in (terminals, operators)
        for book in books.values()
        for each in book.values()
    ]
    return sorted(every, key=lambda each: each.seq or 0)


def applied_in(reader: EventLogReader) -> list[Applied]:
    """:func:`read_applied` of a log (one read through the ``events_kind`` index).

    Raises:
        LogDamaged: SQLite cannot read the log.
    """
    with reader.snapshot():
        return read_applied(reader.iter_events_of_kind(*KINDS))
