"""Recall pictures of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a): the Hold 'Em view
a terminal had after each event of a logged round (:func:`uth_round_views`).

Entry point: :func:`uth_round_views`.
"""

from __future__ import annotations

from typing import Any

from game_server.games.uth.machine import UthResults
from game_server.games.uth.session import UthLedger, UthSession
from game_server.games.uth.views import uth_view_for
from game_server.recall.pictures import engine_states, folded, no_shoe, seated
from game_server.recall.rounds import LoggedRound
from game_server.table.session import MemorySink, SealedShoes

__all__ = ["uth_round_views"]


def uth_round_views(logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
    """The views at an Ultimate Texas Hold 'Em table (58 Pa. Code 653a): the Hold 'Em view
    (:func:`~game_server.games.uth.views.uth_view_for`) of a stand-in session holding the
    replayed round, its settlements and draws kept by the live table's own listener
    (:class:`~game_server.games.uth.machine.UthResults`) fed the logged events one by one. An
    event inside an engine step shows the table as it was before that step."""
    seats, terminal = seated(logged, terminal)
    states = engine_states(logged)
    shoes = SealedShoes(logged.config, no_shoe, b"", "recall")
    session = UthSession(logged.config, MemorySink(), shoes, seats)
    session.round_id = logged.round_id
    session.ledger = ledger = UthLedger()
    results = UthResults(session)
    views: list[dict[str, Any]] = []
    for item, _, end in folded(logged, ledger, states, forward=False):
        session.round = states[end]
        results.step_logged([item.event])
        views.append(uth_view_for(session, terminal, results=results))
    return views
