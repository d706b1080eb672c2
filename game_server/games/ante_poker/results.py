"""What an ante-versus-dealer poker table's machine keeps of the last round for its views,
written once: :class:`SeatResults`.

Entry point: :class:`SeatResults`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, ClassVar

from game_server.table.events import RoundStarted

__all__ = ["SeatResults"]


class SeatResults:
    """A :class:`~game_server.table.api.TableListener` keeping each terminal's settlements of
    its last round with any (:meth:`of`, as a view shows them) and the last round's engine
    (:attr:`game`: its showdown stays on the screen between rounds). A table names its
    settlement records (:attr:`settled_kinds`) and may watch its other records
    (:meth:`saw`)."""

    #: The records that settle a wager (each names its ``seat``).
    settled_kinds: ClassVar[tuple[type, ...]]

    def __init__(self, session: Any) -> None:
        self.session = session
        #: The round the last ``round_started`` opened.
        self.round: int | None = None
        #: The round in play, or the last one (the session forgets it when it closes).
        self.game: Any = None
        #: ``game``'s round id.
        self.game_round: int | None = None
        self.settlements: dict[str, tuple[int | None, list[Any]]] = {}

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        for ev in events:
            if type(ev) is RoundStarted:
                self.round = ev.round
                self.started()
        game = self.session.round
        if game is not None:
            self.game, self.game_round = game, self.session.round_id
        for ev in events:
            self.saw(ev)
            if type(ev) in self.settled_kinds:
                terminal = self.session.terminal_of.get(ev.seat)
                if terminal is None:
                    continue
                held = self.settlements.get(terminal)
                if held is None or held[0] != self.round:
                    held = self.settlements[terminal] = (self.round, [])
                held[1].append(ev)

    def started(self) -> None:
        """A round started (what the table forgets of the last one)."""

    def saw(self, ev: Any) -> None:
        """One record of a step logged (what else the table keeps)."""

    def of(self, terminal: str) -> list[dict[str, Any]]:
        """This terminal's settlements of its last round with any, as the view shows them."""
        round_id, settled = self.settlements.get(terminal, (None, []))
        return [
            {
                "round": round_id,
                "wager": ev.wager,
                "hand": 0,
                "stake": ev.stake,
                "paid": ev.paid,
                "from_meter": ev.from_meter,
                "outcome": ev.outcome,
                "line": ev.line,
            }
            for ev in settled
        ]
