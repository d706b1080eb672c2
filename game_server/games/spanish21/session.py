"""One Spanish 21 table's game flow: Blackjack's table session over the Spanish 21 engine.

:class:`Spanish21Session` is the Blackjack package's
:class:`~game_server.games.blackjack.session.TableSession` (sealed shoes, one logged step per
input, wallets, the progressive meters a config names, among them Match the Dealer's (635b.1(d),
(j)), whose wagers feed it when the cards are dealt and whose wins it pays) with the
:class:`~game_server.games.spanish21.rules.round.Spanish21Round` as its round and the rescue
as one more decision.

Entry points: :class:`Spanish21Session`, :func:`resume_round`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.session import TableSession
from game_server.games.spanish21.rules.round import Spanish21Action, Spanish21Round, replay
from game_server.recall.rounds import LoggedRound
from game_server.table.recovery import RecoveryError, replayed, round_started

__all__ = ["Spanish21Session", "resume_round"]


class Spanish21Session(TableSession):
    """The game flow of one Spanish 21 table, writing every step to its sink."""

    round: Spanish21Round | None

    def _new_round(self) -> Spanish21Round:
        return Spanish21Round(self.config.rules)

    def act(
        self,
        terminal: str,
        action: Spanish21Action | Action,
        hand: int,
        *,
        amount: int | None = None,
        auto: bool = False,
    ) -> list[Any]:
        """A decision on one of the terminal's hands: Blackjack's (doubles and splits are
        debited) or the rescue (635a.10), which stakes nothing."""
        if action == Spanish21Action.RESCUE:
            seat = self._seat(terminal)
            game = self._open_round()
            assert isinstance(game, Spanish21Round)
            return self._log_engine(game.rescue(seat, hand, auto=auto))
        return super().act(terminal, Action(str(action)), hand, amount=amount, auto=auto)


def resume_round(
    session: Spanish21Session, logged_round: LoggedRound, seats: Mapping[str, int]
) -> StrEnum:
    """Make the interrupted round the session's open round: replayed through the engine, the
    shoe in use its card source (crash recovery)."""
    started = round_started(logged_round, seats)
    engine = [item.event for item in logged_round.engine_events()]
    game = replayed(started, lambda: replay(session.config.rules, engine))
    if game.phase is Phase.COMPLETE:
        raise RecoveryError(f"round {started.round} replays complete but was not closed")
    if game.phase is not Phase.BETTING:
        if session.shoe is None:
            raise RecoveryError(f"round {started.round} was dealt but no shoe is in use")
        game.resume_from(session.shoe)
    session.round = game
    return game.phase
