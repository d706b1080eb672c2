"""Terminal access changed through the operator's console: revocations that outlive a start.

``SetTerminalAccess`` (the console's "revoke a terminal") logs a
:class:`~game_server.table.events.TerminalAccess` record in the table's event log before it
takes effect, so a restarted server refuses the terminal still: :func:`revoked_terminals`
folds those records (in log order, the last word on each terminal wins) into the ids
``etg serve`` refuses beside ``floor.toml``'s ``[floor.revoked]``.

Entry point: :func:`revoked_terminals`.
"""

from __future__ import annotations

from collections.abc import Iterable

from game_server.eventlog import StoredEvent
from game_server.rules.events import from_dict
from game_server.table.events import TerminalAccess


def revoked_terminals(events: Iterable[StoredEvent]) -> set[str]:
    """The terminal ids revoked after the ``terminal_access`` events ``events`` (in log
    order, e.g. ``reader.events_of_kind("terminal_access")``); other kinds are ignored.

    Raises:
        EventDecodeError: a ``terminal_access`` body this build cannot read.
    """
    revoked: set[str] = set()
    for stored in events:
        if stored.kind != TerminalAccess.kind:  # type: ignore[attr-defined]  # set by @event
            continue
        record = from_dict(stored.body)
        if record.access == "revoked":
            revoked.add(record.terminal)
        else:
            revoked.discard(record.terminal)
    return revoked
