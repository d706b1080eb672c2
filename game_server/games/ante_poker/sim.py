"""``etg sim --log`` of the ante-versus-dealer poker family: the bots' rounds through the live
table's session, written once (:func:`play_logged`).

Entry point: :func:`play_logged`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from game_server import simlog
from game_server.table.seated import SeatedSession

__all__ = ["play_logged"]

SessionT = TypeVar("SessionT", bound=SeatedSession[Any])


def play_logged(
    session: SessionT,
    wagers: Mapping[str, int],
    *,
    rounds: int,
    most: int,
    decide: Callable[[SessionT, str], None],
    progress: Callable[[int], None] | None = None,
) -> SessionT:
    """Open ``session`` and play ``rounds`` rounds: each of its terminals topped up with the
    logged simulation's play money (:data:`game_server.simlog.SIM_CREDITS`, as every game's)
    while it holds less than ``most`` (a round's most), places ``wagers``; the
    deal; then ``decide(session, terminal)`` for the first terminal still to decide until
    none is; the last deck retired at the end so that every card and draw verifies."""
    session.open()
    for done in range(rounds):
        session.start_round()
        for terminal in session.seats:
            if session.balance(terminal) < most:
                session.cash_in(terminal, simlog.SIM_CREDITS, "sim top-up")
            session.place_wagers(terminal, wagers)
        session.deal()
        while session.round is not None and session.pending():
            decide(session, session.pending()[0])
        if progress is not None:
            progress(done + 1)
    session.retire_shoe()
    return session
