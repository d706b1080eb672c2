"""One High Card table's session (a TableBook: every step logged, then folded) and the
resumption of a round the log left unfinished."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from game_server.recall.rounds import LoggedRound
from game_server.rules.meters import MeterBank
from game_server.table.events import TableOpened
from game_server.table.ledger import Ledger
from game_server.table.recovery import RecoveryError, replayed, round_started
from game_server.table.session import (
    SOFTWARE,
    EventSink,
    NoRoundOpen,
    SealedShoes,
    TableBook,
    UnknownTerminal,
)

from .rules import DEALER, HIGH_CARD, CardDealt, HighCardRound, Phase, RoundCompleted, replay


class HighCardSession(TableBook):
    """Terminals hold seats; a round is wagers, then one step that deals, settles and
    closes it."""

    def __init__(
        self,
        config: Any,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> None:
        self.config, self.rules, self.sink, self.shoes = config, config.rules, sink, shoes
        self.seats = dict(seats)
        self.terminal_of = {seat: terminal for terminal, seat in seats.items()}
        self.ledger = Ledger()
        self._config_hash = config.config_hash()
        self.round: HighCardRound | None = None
        self.round_id = self.shoe_number = 0
        self.shoe = None
        self._salt = b""
        self.failed: BaseException | None = None

    def open(self) -> list[Any]:
        return self._log([(None, TableOpened(self.config.to_dict(), self._config_hash, SOFTWARE))])

    def _seat(self, terminal: str) -> int:
        self._check_not_failed()
        if terminal not in self.seats:
            raise UnknownTerminal(f"terminal {terminal!r} holds no seat at this table")
        return self.seats[terminal]

    def _in_play(self, terminal: str) -> bool:
        return self.round is not None and self.seats.get(terminal) in self.round.wagers

    def _new_round(self) -> HighCardRound:
        return HighCardRound(self.rules)

    def _places(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        seats = tuple(sorted(self.terminal_of))
        return seats, tuple(self.terminal_of[s] for s in seats)

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> list[Any]:
        seat = self._seat(terminal)
        if self.round is None:
            raise NoRoundOpen("no round is open: wait for the next betting window")
        self.check_units(wagers)
        self._afford(terminal, sum(wagers.values()), "the wager")
        return self._log([(terminal, ev) for ev in self.round.place_wagers(seat, wagers)])

    def dealt(self) -> bool:
        return self.round is not None and self.round.phase is not Phase.BETTING

    def deal(self) -> list[Any]:
        assert self.round is not None and self.shoe is not None
        events = self.round.deal(self.shoe)
        items = [
            (
                None
                if type(ev) is RoundCompleted or ev.seat == DEALER
                else self.terminal_of[ev.seat],
                ev,
            )
            for ev in events
        ]
        return self._log_closing(items, [self.terminal_of[s] for s in sorted(self.terminal_of)])

    def pending(self) -> tuple[str, ...]:
        return ()  # nobody decides anything

    def countdown(self, terminal: str) -> list[Any]:
        return []


def resume_round(
    session: HighCardSession, logged: LoggedRound, seats: Mapping[str, int]
) -> StrEnum:
    """A round is unfinished only while betting (the deal closes it in the same step)."""
    started = round_started(logged, seats)
    events = [item.event for item in logged.engine_events()]
    game = replayed(started, lambda: replay(session.rules, events))
    if game.phase is not Phase.BETTING or any(type(e) is CardDealt for e in events):
        raise RecoveryError(f"round {started.round} was dealt but not closed")
    session.round = game
    return game.phase


__all__ = ["HIGH_CARD", "HighCardSession", "resume_round"]
