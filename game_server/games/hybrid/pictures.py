"""Recall pictures of a hybrid table (58 Pa. Code 633b.5): the view a terminal had after each
event of a logged round, the player's position or shared cards, the community box with his
own use of each card, his dealer hand (:func:`hybrid_round_views`).

Entry point: :func:`hybrid_round_views`.
"""

from __future__ import annotations

from typing import Any, Final

from game_server.games.blackjack.rules.events import WagerSettled
from game_server.games.blackjack.views import settlement_view
from game_server.games.hybrid.rules.events import Hybrid3WagerSettled
from game_server.games.hybrid.session import HybridSession
from game_server.games.hybrid.views import hybrid_view_for
from game_server.recall.pictures import (
    RecallPictureError,
    default_terminal,
    engine_states,
    folded,
    no_shoe,
)
from game_server.recall.rounds import LoggedRound
from game_server.table.ledger import Ledger
from game_server.table.session import MemorySink, SealedShoes

__all__ = ["hybrid_round_views"]

#: The settlements of both hybrid engines (the three-position table has its own record).
_SETTLED: Final = (WagerSettled, Hybrid3WagerSettled)


def hybrid_round_views(logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
    """The views at a hybrid table (58 Pa. Code 633b.5): the hybrid view
    (:func:`~game_server.games.hybrid.views.hybrid_view_for`) of a stand-in session holding
    the replayed round. An event inside an engine step shows the table as it was before that
    step (the step's cards appear with its last event)."""
    players: list[str] = []
    for item in logged.engine_events():
        who = item.stored.terminal
        if who is not None and who not in players:
            players.append(who)
    if terminal is None:
        terminal = default_terminal(logged)
    if terminal not in players:
        raise RecallPictureError(
            f"terminal {terminal!r} played no hand in round {logged.round_id} of table "
            f"{logged.table_id}; its players are: {', '.join(players) or 'none'}"
        )
    states = engine_states(logged)
    started = logged.started
    shoes = SealedShoes(logged.config, no_shoe, b"", "recall")
    terminals = players if started is None else [*started.terminals, *players]
    session = HybridSession(logged.config, MemorySink(), shoes, terminals)
    session.round_id = logged.round_id
    session.ledger = ledger = Ledger()
    # The no-hole-card table numbers its players; each player's events name his terminal.
    numbers = {
        item.event.seat: item.stored.terminal
        for item in logged.engine_events()
        if item.stored.terminal is not None and isinstance(getattr(item.event, "seat", None), int)
    }
    settlements: list[dict[str, Any]] = []
    views: list[dict[str, Any]] = []
    for item, _, end in folded(logged, ledger, states, forward=False):
        if type(item.event) in _SETTLED and item.stored.terminal == terminal:
            settlements.append({"round": logged.round_id, **settlement_view(item.event)})
        session.resume(states[end], numbers)
        view = hybrid_view_for(session, terminal)
        view["settlements"] = list(settlements)
        views.append(view)
    return views
