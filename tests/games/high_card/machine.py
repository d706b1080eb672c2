"""The live High Card table: the platform's stadium machine (the betting window, the pause
between rounds, close and out of service) with the game's inputs and its view."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import StrEnum
from typing import Any, ClassVar

from twisted.logger import Logger

from game_server.rules.errors import ActionNotAllowed
from game_server.table import api as table_api
from game_server.table.api import ReactorTime, whole_seconds
from game_server.table.stadium import OPERATOR, StadiumMachine

from .rules import DEALER, HIGH_CARD, CardDealt, WagerSettled
from .session import HighCardSession

log = Logger(namespace="high_card.machine")


class State(StrEnum):
    CLOSED = "closed"
    BETTING = "betting"
    NEXT_ROUND = "next-round"
    OUT_OF_SERVICE = "out-of-service"


class BettingClosed(table_api.BettingClosed):
    """A wager outside the betting window."""


class HighCardMachine(StadiumMachine[HighCardSession, State]):
    _ACCEPTS: ClassVar = {
        State.CLOSED: OPERATOR,
        State.BETTING: OPERATOR | {"place_wagers", "expired"},
        State.NEXT_ROUND: OPERATOR | {"pause_over"},
        State.OUT_OF_SERVICE: OPERATOR,
    }
    _CLOSED, _BETTING = State.CLOSED, State.BETTING
    _BETWEEN, _OUT_OF_SERVICE = State.NEXT_ROUND, State.OUT_OF_SERVICE

    def __init__(
        self, session: HighCardSession, clock: ReactorTime, next_round_delay: float
    ) -> None:
        super().__init__(session, clock, next_round_delay, log)
        self.last: dict[str, list[Any]] = {}  # each terminal's cards and settlements, last round
        self._listeners.append(self)

    def step_logged(self, events: Any, terminals: Any = None) -> None:
        if any(type(ev) is CardDealt for ev in events):
            self.last = {"cards": [ev for ev in events if type(ev) is CardDealt]}
            self.last["settled"] = [ev for ev in events if type(ev) is WagerSettled]

    # The platform's inputs.
    def parse_action(self, terminal: str, action: str) -> Any:
        raise ActionNotAllowed("High Card has no decisions: place a wager and watch the cards")

    def act(self, terminal: str, action: Any, hand: int, amount: int | None) -> None:
        self.parse_action(terminal, str(action))

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None:
        raise ActionNotAllowed("High Card offers no insurance")

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        if position is not None:
            raise ActionNotAllowed("a High Card terminal plays its own seat")
        self._run("place_wagers", self._place, terminal, wagers)

    def _place(self, terminal: str, wagers: Mapping[str, int]) -> None:
        self._refuse_bets_while_stopping()
        self._log(self.session.place_wagers(terminal, wagers))

    def _not_accepted(self, name: str) -> Exception:  # type: ignore[override]
        if name == "place_wagers":
            return BettingClosed("no more bets: wait for the next betting window")
        return super()._not_accepted(name)

    def _route_dealt(self) -> None:  # the deal closes the round: never dealt and open
        raise AssertionError("a High Card round closes when it is dealt")

    def _act_for_silent(self, where: State) -> None:
        return None

    def _wagered(self) -> bool:
        return self.session.round is not None and bool(self.session.round.wagers)

    def _terminals(self) -> Collection[str]:
        return self.session.seats

    def rules(self, terminal: str) -> dict[str, Any]:
        from .game import GAME

        return GAME.rules_document(self.session.config)

    def view(self, terminal: str) -> dict[str, Any]:
        """The common view (docs/adding-a-game.md) with ``"game": "high_card"``."""
        session = self.session
        seat = session._seat(terminal)
        game = session.round
        limits = session.rules.limits
        wagers = {} if game is None else game.wagers
        cards = {ev.seat: str(ev.card) for ev in self.last.get("cards", [])}
        settled = [ev for ev in self.last.get("settled", []) if ev.seat == seat]
        shown = wagers if game is not None else {s: 0 for s in cards if s != DEALER}
        countdown = None
        if self.countdown is not None:
            countdown = {
                "for": self.countdown,
                "seconds_left": whole_seconds(self.seconds_left()),
                "then": None,
            }
        return {
            "v": 1,
            "game": HIGH_CARD,
            "table": session.config.table_id,
            "state": str(self.state),
            "machine": str(self.machine_state),
            "reason": self.reason,
            "round": session.round_id,
            "phase": "betting" if game is not None else "complete",
            "terminal": terminal,
            "seat": seat,
            "credits": session.balance(terminal),
            "limits": {HIGH_CARD: {"min": limits.minimum, "max": limits.maximum}},
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
            ],
            "dealer": {"cards": [cards[DEALER]] if DEALER in cards and game is None else []},
            "seats": [
                {
                    "seat": s,
                    "mine": s == seat,
                    "wagers": {HIGH_CARD: wagers[s]} if s in wagers else {},
                    "hands": [{"cards": [cards[s]] if s in cards and game is None else []}],
                }
                for s in sorted(shown)
            ],
        }
