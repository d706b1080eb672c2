"""The live War table: the seated stadium machine (the betting window, the pause between
rounds, close and out of service) with War's refusals and view."""

from __future__ import annotations

from typing import Any, ClassVar

from twisted.logger import Logger

from game_server.rules.errors import ActionNotAllowed
from game_server.table.api import BettingClosed, ReactorTime, whole_seconds
from game_server.table.seated import SeatedMachine

from .rules import WAR
from .session import WarSession

log = Logger(namespace="war.machine")


class WarMachine(SeatedMachine[WarSession]):
    _DECIDING_PHASES: ClassVar = frozenset()
    _OWN_SEAT: ClassVar = "a War terminal plays its own seat"
    _NO_INSURANCE: ClassVar = (ActionNotAllowed, "War offers no insurance")
    _BETTING_CLOSED: ClassVar = (BettingClosed, "no more bets: wait for the next betting window")

    def __init__(self, session: WarSession, clock: ReactorTime, next_round_delay: float) -> None:
        super().__init__(session, clock, next_round_delay, log)

    def parse_action(self, terminal: str, action: str) -> Any:
        raise ActionNotAllowed("War has no decisions: place a wager and watch the cards")

    def act(self, terminal: str, action: Any, hand: int, amount: int | None) -> None:
        self.parse_action(terminal, str(action))

    def rules(self, terminal: str) -> dict[str, Any]:
        from .game import GAME

        return GAME.rules_document(self.session.config)

    def view(self, terminal: str) -> dict[str, Any]:
        """The common view (docs/adding-a-game.md) with ``"game": "war"``."""
        session, seat = self.session, self.session._seat(terminal)
        game = session.round or session.last
        dealer = None if game is None else game.dealer  # dealt last: the round is settled
        seats = {} if game is None else game.seats
        settled = [] if game is None else game.settled
        limits = session.rules.limits
        countdown = None
        if self.countdown is not None:
            countdown = {
                "for": self.countdown,
                "seconds_left": whole_seconds(self.seconds_left()),
                "then": None,
            }
        return {
            "v": 1,
            "game": WAR,
            "table": session.config.table_id,
            "state": str(self.state),
            "machine": str(self.machine_state),
            "reason": self.reason,
            "round": session.round_id,
            "phase": "betting" if dealer is None else "complete",
            "terminal": terminal,
            "seat": seat,
            "credits": session.balance(terminal),
            "limits": {WAR: {"min": limits.minimum, "max": limits.maximum}},
            "chips": list(session.config.chip_denominations),
            "countdown": countdown,
            "to_act": None,
            "actions": [],
            "settlements": [
                {
                    "wager": ev.wager,
                    "hand": 0,
                    "stake": ev.stake,
                    "paid": ev.paid,
                    "outcome": ev.outcome,
                    "line": ev.line,
                }
                for ev in settled
                if ev.seat == seat
            ],
            "dealer": {"cards": [] if dealer is None else [str(dealer)]},
            "seats": [
                {
                    "seat": s,
                    "mine": s == seat,
                    "wagers": dict(state.wagers),
                    "hands": [{"cards": [str(state.card)] if state.card else []}],
                }
                for s, state in sorted(seats.items())
            ],
        }
