"""One War table's session, on the seated stadium table's session."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar

from game_server.recall.rounds import LoggedRound
from game_server.table.ledger import Ledger
from game_server.table.seated import SeatedSession, resume_seated_round

from .rules import Phase, WarCompleted, WarRound, replay


class WarSession(SeatedSession[WarRound]):
    _COMPLETED: ClassVar = WarCompleted
    _BETTING: ClassVar = Phase.BETTING
    _SETTLED: ClassVar = frozenset({Phase.COMPLETE})

    def __init__(self, config: Any, sink: Any, shoes: Any, seats: Any, meters: Any) -> None:
        super().__init__(config, config.rules, sink, shoes, seats, meters, Ledger())
        self.last: WarRound | None = None  # the round last dealt, for the view

    def _new_round(self) -> WarRound:
        return WarRound(self.rules, self.config.table_id)

    def deal(self) -> list[Any]:
        game = self.last = self._open_round()
        assert self.shoe is not None
        return self._log_engine(game.deal(self.shoe))

    def countdown(self, terminal: str) -> list[Any]:
        return []  # nobody decides anything

    def _resume_source(self, game: WarRound, shoe: Any) -> None:
        return None  # its deal is handed the shoe


def resume_round(session: WarSession, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
    return resume_seated_round(session, logged, seats, replay)
