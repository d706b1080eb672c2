"""The live round machine of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a).

:class:`UthMachine` runs the windows and countdowns around a
:class:`~game_server.games.uth.session.UthSession`, as
:class:`~game_server.games.hybrid.machine.HybridMachine` does around a hybrid table, and
satisfies :class:`~game_server.table.api.TableMachine` so the unchanged AMP server serves it.

The choice made here: ONE decision countdown per street, SHARED by every seat (as the hybrid
tables' stadium play). Every seat decides the same street at the same time, in any order
(the engine opens a street for all seats at once and deals the next cards when all have
decided), so one countdown per street is what the players see; a per-seat countdown would
only let the last seat's clock hold up the street again. The steps:

* *betting*: a window of ``timers.betting_seconds`` opens when the table opens and after
  each round. When it ends the cards are dealt if at least one seat placed an Ante; otherwise
  a new window opens on the same (empty) round.
* *deciding*: when a street opens (preflop, flop, river) a countdown of
  ``timers.decision_seconds`` starts. A seat that decides meanwhile is never overridden;
  when every seat has decided the next cards come at once and the next street's countdown
  starts. When it runs out every seat still to decide gets the engine's countdown action
  (:meth:`~game_server.games.uth.rules.game.UthRound.countdown_action`: check preflop and on the
  flop, fold at the river), logged with ``auto=True``. The decision that ends the river also
  settles the round (in the session, one step).
* *next-round*: the round settled; the next round starts after ``next_round_delay`` seconds.

Decisions arrive through the existing ``Act`` command, whose wire format is unchanged: its
``action`` string is parsed HERE (:meth:`UthMachine.parse_action`, used by the AMP server
for a table that has it): ``"check"``, ``"bet"`` (or ``"play"``) and ``"fold"``; ``amount``
is the Play Wager's multiple of the Ante (4 or 3 preflop, 2 on the flop, 1 at the river; 0
for check and fold; a ``bet`` with amount 0 plays the largest multiple allowed); ``hand`` is
0. ``AnswerInsurance`` is refused: there is no insurance in Ultimate Texas Hold 'Em.

The states, and the inputs each accepts, are declared in ONE table, :data:`ACCEPTS`; an input
a state does not accept is refused before any code runs. What every stadium table shares is
:class:`~game_server.table.stadium.StadiumMachine`'s: ``close()`` and ``out_of_service()``
wait for the round in play to settle (the countdowns act for the players who leave it), and
the steps an input logged are sent once it is done (save, then send).

Entry point: :class:`UthMachine`.
"""

from __future__ import annotations

from typing import Any

from twisted.logger import Logger

from game_server.games.ante_poker.results import SeatResults
from game_server.games.uth.info import uth_rules_for
from game_server.games.uth.rules.events import UthSettlementStarted, UthWagerSettled
from game_server.games.uth.rules.game import MULTIPLES, Action
from game_server.games.uth.session import UthSession, parse_decision
from game_server.rules.errors import ActionNotAllowed
from game_server.table import api as table_api
from game_server.table.api import ReactorTime
from game_server.table.seated import SEATED_ACCEPTS, SeatedMachine, SeatedState

log = Logger(namespace="game_server.games.uth.machine")

__all__ = [
    "ACCEPTS",
    "BettingClosed",
    "NoInsurance",
    "UthMachine",
    "UthResults",
    "UthState",
]


class BettingClosed(table_api.BettingClosed):
    """Wagers outside the betting window: wait for the next round's window (653a.7)."""


class NoInsurance(ActionNotAllowed):
    """An insurance answer at an Ultimate Texas Hold 'Em table, which offers none."""


#: Where the Ultimate Texas Hold 'Em round machine is: the seated stadium tables' states.
UthState = SeatedState

#: The inputs each state accepts; any other is refused before it changes anything. The
#: countdown inputs are the machine's own: ``expired`` in the two windows, ``pause_over``
#: between rounds.
ACCEPTS = SEATED_ACCEPTS


class UthResults(SeatResults):
    """Each terminal's settlements of its last round with any, the last round's engine, and
    the Magic Card and Lucky Bonus draws of the round settled. Pass it to
    :func:`~game_server.games.uth.views.uth_view_for`."""

    settled_kinds = (UthWagerSettled,)

    def __init__(self, session: UthSession) -> None:
        super().__init__(session)
        #: The Magic Card and Lucky Bonus draws of each round settled, by round id.
        self.draws: dict[int | None, UthSettlementStarted] = {}

    def saw(self, ev: Any) -> None:
        if type(ev) is UthSettlementStarted:
            self.draws = {self.round: ev}


class UthMachine(SeatedMachine[UthSession]):
    """The live Ultimate Texas Hold 'Em table over a :class:`UthSession`.

    Args:
        session: the table's session (its log is written before anything is sent).
        clock: the clock of the countdowns (the reactor; ``task.Clock`` in tests).
        next_round_delay: seconds between a round's settlement and the next betting window.
    """

    #: A countdown per street: preflop, flop, river.
    _DECIDING_PHASES = frozenset(MULTIPLES)
    #: A player position is chosen only at a three-position hybrid table.
    _OWN_SEAT = (
        "an Ultimate Texas Hold 'Em terminal plays its own seat: there is no player "
        "position to choose (58 Pa. Code 653a.2)"
    )
    _NO_INSURANCE = (
        NoInsurance,
        "Ultimate Texas Hold 'Em offers no insurance; decide with check, bet or fold "
        "(58 Pa. Code 653a.12)",
    )
    _BETTING_CLOSED = (
        BettingClosed,
        "no more bets: this round's cards are dealt or the round is over; bet in the next "
        "betting window (653a.7)",
    )

    def __init__(
        self, session: UthSession, clock: ReactorTime, next_round_delay: float = 0.0
    ) -> None:
        super().__init__(session, clock, next_round_delay, log)
        self.results = UthResults(session)
        self._listeners.append(self.results)

    # -------------------------------------------------------------------- reading

    def parse_action(self, terminal: str, action: str) -> Action:
        """The engine's decision for an ``Act`` command's ``action`` ("check", "bet" or
        "play", "fold")."""
        return parse_decision(action)

    def view(self, terminal: str) -> dict[str, Any]:
        """The terminal's view (:func:`~game_server.games.uth.views.uth_view_for`)."""
        from game_server.games.uth.views import uth_view_for

        self.session._seat(terminal)
        return uth_view_for(self, terminal, results=self.results)

    def rules(self, terminal: str) -> dict[str, Any]:
        """The rules screen's content for this table (every terminal sees the same)."""
        return uth_rules_for(self.session.config)

    def meters(self) -> dict[str, Any]:
        """The never-reset meters (605a.5(d)), wallets and progressive meters, JSON-ready."""
        meters = super().meters()
        meters["progressives"] = {
            meter_id: self.session.meters.meter(meter_id).snapshot()
            for meter_id in self.session.meter_specs
            if meter_id in self.session.meters
        }
        return meters

    def settlements(self, terminal: str) -> list[dict[str, Any]]:
        return self.results.of(terminal)

    # --------------------------------------------------------------------- inputs

    def act(self, terminal: str, action: Action | str, hand: int, amount: int | None) -> None:
        """A decision: ``action`` "check", "bet" ("play") or "fold" (or an engine
        :class:`~game_server.games.uth.rules.game.Action`); ``amount`` the Play multiple."""
        self._run("act", self._act, terminal, parse_decision(action), amount or 0)

    # ---------------------------------------------------------------- behaviours

    def _act(self, terminal: str, action: Action, multiple: int) -> None:
        if action is Action.PLAY and multiple == 0:
            game = self.session.round
            seat = self.session.seats.get(terminal)
            allowed = () if game is None or seat is None else game.legal_plays(seat)
            multiple = max(allowed, default=0)
        elif action is not Action.PLAY and multiple:
            raise ActionNotAllowed(
                f"{action.value} takes no Play multiple; send amount 0 (the multiple is for bet)"
            )
        self._log(self.session.decide(terminal, action, multiple))
        self._route()
