"""Recall pictures of a Caribbean Stud Poker table (58 Pa. Code 639a): the view a terminal had
after each event of a logged round (:func:`caribbean_round_views`).

Entry point: :func:`caribbean_round_views`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from game_server.games.caribbean.machine import CaribbeanMachine
from game_server.games.caribbean.session import CaribbeanLedger, CaribbeanSession
from game_server.recall.pictures import engine_states, folded, no_shoe, seated
from game_server.recall.rounds import LoggedRound
from game_server.table.api import DelayedCall
from game_server.table.session import MemorySink, SealedShoes

__all__ = ["caribbean_round_views"]

#: What a recall view says of the live table: nothing (it was not running).
_NOT_LIVE = {"state": None, "machine": None, "reason": None, "countdown": None}


class _NoClock:
    """The stand-in machine's clock: a recall picture never runs a countdown."""

    def seconds(self) -> float:
        return 0.0

    def callLater(self, delay: float, callable: Callable[..., Any], *args: Any) -> DelayedCall:
        raise AssertionError("a recall picture runs no countdown")  # pragma: no cover


def caribbean_round_views(logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
    """The views at a Caribbean Stud Poker table: the live machine's own view
    (:meth:`CaribbeanMachine.view`, which never shows the dealer's hole cards before the
    showdown or another seat's cards) of a stand-in session holding the replayed round, the
    machine fed the logged events one by one as its listener is at the live table. An event
    inside an engine step shows the table as it was before that step; the live table's state
    and countdown are not shown (None)."""
    seats, terminal = seated(logged, terminal)
    states = engine_states(logged)
    shoes = SealedShoes(logged.config, no_shoe, b"", "recall")
    session = CaribbeanSession(logged.config, MemorySink(), shoes, seats)
    session.round_id = logged.round_id
    session.ledger = ledger = CaribbeanLedger()
    machine = CaribbeanMachine(session, _NoClock())
    views: list[dict[str, Any]] = []
    for item, _, end in folded(logged, ledger, states, forward=False):
        session.round = states[end]
        machine.results.step_logged([item.event])
        views.append({**machine.view(terminal), **_NOT_LIVE})
    return views
