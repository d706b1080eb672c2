"""The live round machine of a hybrid table in stadium play (58 Pa. Code 633b.5).

:class:`HybridMachine` runs the windows and countdowns around a
:class:`~game_server.games.hybrid.session.HybridSession`, as
:class:`~game_server.games.blackjack.machine.RoundMachine` does around the fully automated table. In
stadium play every player decides for himself, so the machine keeps ONE shared countdown per
step of the round instead of one per hand:

* *betting*: a window of ``timers.betting_seconds`` opens when the table opens and after each
  round. When it ends the round is dealt if at least one terminal joined; otherwise a new
  window opens on the same (empty) round.
* *insurance*: while any player still owes an answer to the insurance offer, a window of
  ``timers.insurance_seconds`` runs; when it ends every silent player is declined by the
  countdown (``auto=True``).
* *deciding*: while any player owes a decision, a countdown of ``timers.decision_seconds``
  runs. A player who acts meanwhile is never overridden. When it ends every pending player
  gets the countdown default (633b.5(p)(2), (z)), logged with ``auto=True``: at the
  three-position table ``finish()`` stands every hand still to act and the round settles; at
  the no-hole-card table ``countdown(terminal)`` acts for each pending player, and the
  countdown restarts while players remain pending. The no-hole-card table starts a fresh
  countdown for each new community-card step; the three-position table has one for its play.
* *between*: the round settled; the next round starts after ``next_round_delay`` seconds.

What every stadium table shares is :class:`~game_server.table.stadium.StadiumMachine`'s:
``close()`` and ``out_of_service()`` wait for the round in play to settle (meanwhile joins are
refused), an unexpected error in a timer callback takes the table out of service, and the
steps an input logged are sent once it is done (save, then send).

The states, and the inputs each accepts, are declared in ONE table, :data:`ACCEPTS`; an input
a state does not accept is refused before any code runs. Where the round goes next is read
from the engine in one place, :meth:`HybridMachine._route` (the dealt round's steps in
:meth:`HybridMachine._route_dealt`).

Entry point: :class:`HybridMachine`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import StrEnum
from typing import Any

from twisted.logger import Logger

from game_server.games.blackjack.machine import (
    INSURANCE_CHOICES,
    UnknownInsuranceChoice,
    parse_action,
)
from game_server.games.blackjack.rules.actions import Action
from game_server.games.hybrid.info import hybrid_rules_for
from game_server.games.hybrid.session import HybridSession
from game_server.table import api as table_api
from game_server.table.api import ReactorTime, TableClosed, TableOutOfService
from game_server.table.session import TableError
from game_server.table.stadium import OPERATOR, StadiumMachine

log = Logger(namespace="game_server.games.hybrid.machine")

__all__ = [
    "ACCEPTS",
    "BettingClosed",
    "HybridMachine",
    "HybridState",
    "TableClosed",
    "TableOutOfService",
    "UnknownInsuranceChoice",
]


class BettingClosed(table_api.BettingClosed):
    """A join outside the betting window (633b.5(k)): wait for the next round's window."""


class HybridState(StrEnum):
    """Where the hybrid round machine is."""

    CLOSED = "closed"
    BETTING = "betting"
    INSURANCE = "insurance"
    DECIDING = "deciding"
    BETWEEN = "between"
    OUT_OF_SERVICE = "out_of_service"


_PLAY = frozenset({"answer_insurance", "act"})

#: The inputs each state accepts; any other is refused before it changes anything. (The
#: countdown inputs are the machine's own: ``expired`` in the three windows, ``pause_over``
#: between rounds.) In the closed states a terminal's wager or decision is refused with
#: :class:`TableClosed` / :class:`TableOutOfService`.
ACCEPTS: Mapping[HybridState, frozenset[str]] = {
    HybridState.CLOSED: OPERATOR,
    HybridState.BETTING: OPERATOR | _PLAY | {"join", "expired"},
    HybridState.INSURANCE: OPERATOR | _PLAY | {"expired"},
    HybridState.DECIDING: OPERATOR | _PLAY | {"expired"},
    HybridState.BETWEEN: OPERATOR | {"pause_over"},
    HybridState.OUT_OF_SERVICE: OPERATOR,
}

# ------------------------------------------------------------ reading the engine by terminal


def _step_of(session: HybridSession) -> tuple[int, str, int]:
    """What names one step of the round for its shared countdown: the round, the window, and
    (no-hole-card table) how many community cards are out."""
    kind = "insurance" if session.pending_insurance() else "decision"
    return (session.round_id, kind, session.community_dealt())


# ------------------------------------------------------------------------------ the machine


class HybridMachine(StadiumMachine[HybridSession, HybridState]):
    """The live hybrid table in stadium play over a :class:`HybridSession`.

    Args:
        session: the table's session (its log is written before anything is sent).
        clock: the clock of the countdowns (the reactor; ``task.Clock`` in tests).
        next_round_delay: seconds between a round's settlement and the next betting window.
    """

    _ACCEPTS = ACCEPTS
    _CLOSED = HybridState.CLOSED
    _BETTING = HybridState.BETTING
    _BETWEEN = HybridState.BETWEEN
    _OUT_OF_SERVICE = HybridState.OUT_OF_SERVICE
    _TABLE_NOUN = "hybrid table"

    def __init__(
        self, session: HybridSession, clock: ReactorTime, next_round_delay: float = 0.0
    ) -> None:
        super().__init__(session, clock, next_round_delay, log)
        from game_server.games.hybrid.views import HybridResults

        # Each terminal's settlements, kept for its view once the engine let them go.
        self.results = HybridResults(session)
        self._listeners.append(self.results)

    # -------------------------------------------------------------------- reading

    def view(self, terminal: str) -> dict[str, Any]:
        """The terminal's view (:func:`~game_server.games.hybrid.views.hybrid_view_for`)."""
        from game_server.games.hybrid.views import hybrid_view_for

        self.session._seat(terminal)
        return hybrid_view_for(self, terminal, results=self.results)

    def rules(self, terminal: str) -> dict[str, Any]:
        """The rules screen's content for this table (every terminal sees the same)."""
        return hybrid_rules_for(self.session.config)

    # --------------------------------------------------------------------- inputs

    def join(self, terminal: str, wagers: Mapping[str, int], position: int | None = None) -> None:
        """Join the open round with ``wagers`` (at the three-position table at ``position``
        1, 2 or 3, 633b.5(l)); only during the betting window (633b.5(k))."""
        self._run("join", self._join, terminal, wagers, position)

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        """:meth:`join` under the name every table answers to
        (:class:`~game_server.table.api.TableMachine`)."""
        self.join(terminal, wagers, position)

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None:
        """``choice`` is ``insurance`` (``amount`` cents), ``decline`` or ``even-money``."""
        self._run("answer_insurance", self._answer, terminal, choice, amount)

    def parse_action(self, terminal: str, action: str) -> Action:
        """The Blackjack decision an ``Act`` command names
        (:func:`~game_server.games.blackjack.machine.parse_action`)."""
        return parse_action(action)

    def act(self, terminal: str, action: Action, hand: int, amount: int | None = None) -> None:
        """A player's decision on one of his hands (``amount``: a double down's)."""
        self._run("act", self._act, terminal, action, hand, amount)

    # ---------------------------------------------------------------- behaviours

    def _not_accepted(self, name: str) -> TableError:
        if name == "join":
            return BettingClosed(
                "no more bets: this round's cards are dealt or the round is over; join in the "
                "next betting window (58 Pa. Code 633b.5(k))"
            )
        return super()._not_accepted(name)

    def _join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> None:
        self._refuse_bets_while_stopping()
        self._log(self.session.join(terminal, wagers, position))
        self._took_bet(terminal)

    def _answer(self, terminal: str, choice: str, amount: int) -> None:
        session = self.session
        if choice == "insurance":
            self._log(session.insure(terminal, amount))
        elif choice == "decline":
            self._log(session.decline_insurance(terminal))
        elif choice == "even-money":
            self._log(session.take_even_money(terminal))
        else:
            raise UnknownInsuranceChoice(
                f"insurance answer {choice!r} is not one of {', '.join(INSURANCE_CHOICES)}"
            )
        self._route()

    def _act(self, terminal: str, action: Action, hand: int, amount: int | None) -> None:
        self._log(self.session.act(terminal, action, hand, amount=amount))
        self._route()

    def _act_for_silent(self, where: HybridState) -> None:
        """The insurance window or the decision countdown ran out: the countdown default for
        whoever is silent."""
        session = self.session
        if where is HybridState.INSURANCE:
            # 633b.5(z), 633a.8: silence declines insurance (and even money).
            for terminal in session.pending_insurance():
                if terminal in session.pending_insurance():
                    self._log(session.decline_insurance(terminal, auto=True))
        elif where is HybridState.DECIDING:
            # 633b.5(p)(2), (z): every pending player gets the countdown's default.
            if session.finishes_at_once:
                self._log(session.finish())
            else:
                self._count_down_pending()

    # ------------------------------------------------------------------- routing

    def _route_dealt(self) -> None:
        """Move to where the engine left the dealt round, starting the countdown a new step
        (the insurance offer, the decisions) needs; a round nobody owes anything settles."""
        session = self.session
        if not session.pending() and session.finishes_at_once:
            # Nobody owes anything but the round is open: settle it.
            self._log(session.finish())
            self._route()
        else:
            step = _step_of(session)
            if step != self._step:
                self._step = step
                timers = session.config.timers
                if step[1] == "insurance":
                    self._where = HybridState.INSURANCE
                    self._start_countdown("insurance", timers.insurance_seconds)
                else:
                    self._where = HybridState.DECIDING
                    self._start_countdown("decision", timers.decision_seconds)

    def _wagered(self) -> bool:
        """Whether any terminal joined the open round."""
        game = self.session.round
        return game is not None and bool(game.engine.players)

    def _terminals(self) -> Collection[str]:
        return self.session.terminals
