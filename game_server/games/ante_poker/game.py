"""What a game of the ante-versus-dealer poker family is to the platform, written once:
:class:`AntePokerGame`.

Each of these games is played at the fully automated electronic table on numbered seats (the
seated stadium table, :mod:`game_server.table.seated`), one freshly shuffled deck a round;
its main wager is the Ante with what the Ante brings (its par sheet names them together);
its meters are its rules'; a round a kill interrupted is replayed from the log with the
table's id (:func:`~game_server.table.seated.resume_seated_round`).

Entry point: :class:`AntePokerGame`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from game_server.config import TableConfig
from game_server.games.api import MainWager
from game_server.games.base import GameBase
from game_server.recall.rounds import LoggedRound
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.table.seated import SeatedSession, resume_seated_round
from game_server.table.session import TableBook

__all__ = ["AntePokerGame"]


class AntePokerGame(GameBase):
    """A game of the family declares, besides :class:`GameBase`'s parts, its par sheet's main
    wager: :attr:`base_wager` (the Ante and what it brings together, as a simulation's report
    names them), :attr:`base_title`, :attr:`base_section` and :attr:`base_covers`."""

    table_types = frozenset({TableType.FULLY_AUTOMATED})
    #: The main wager's name in a simulation's report (``"ante+bet"``).
    base_wager: str
    #: What the par sheet calls it (``"Caribbean Stud Poker (Ante and Bet)"``).
    base_title: str
    #: The regulation it cites.
    base_section: str
    #: The wagers it covers (their own figures are its parts).
    base_covers: tuple[str, ...]

    def meters(self, config: TableConfig) -> Mapping[str, MeterSpec]:
        """Its rules' progressive meters."""
        meters: Mapping[str, MeterSpec] = config.rules.meters()
        return meters

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        """The round replayed from the log with the table's id, the deck in use its source."""
        replay = self.replay_at_table
        assert replay is not None, f"{self.title} declares replay_at_table"
        assert isinstance(session, SeatedSession), "the family's sessions are seated"
        return resume_seated_round(session, logged, seats, replay)

    def main_wager(self, config: TableConfig) -> MainWager:
        """The Ante with what it brings, between the Ante's limits."""
        ante: Any = config.rules.ante_limits
        return MainWager(
            wager=self.base_wager,
            title=self.base_title,
            section=self.base_section,
            initial="Ante",
            minimum=ante.minimum,
            maximum=ante.maximum,
            covered=self.base_covers,
        )
