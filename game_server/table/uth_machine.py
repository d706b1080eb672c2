"""The live round machine of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a).

:class:`UthMachine` runs the windows and countdowns around a
:class:`~game_server.table.uth_session.UthSession`, as
:class:`~game_server.table.hybrid_machine.HybridMachine` does around a hybrid table, and
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
  (:meth:`~game_server.rules.uth.game.UthRound.countdown_action`: check preflop and on the
  flop, fold at the river), logged with ``auto=True``. The decision that ends the river also
  settles the round (in the session, one step).
* *next-round*: the round settled; the next round starts after ``next_round_delay`` seconds.

Decisions arrive through the existing ``Act`` command, whose wire format is unchanged: its
``action`` string is parsed HERE (:meth:`UthMachine.parse_action`, used by the AMP server
for a table that has it): ``"check"``, ``"bet"`` (or ``"play"``) and ``"fold"``; ``amount``
is the Play Wager's multiple of the Ante (4 or 3 preflop, 2 on the flop, 1 at the river; 0
for check and fold; a ``bet`` with amount 0 plays the largest multiple allowed); ``hand`` is
0. ``AnswerInsurance`` is refused: there is no insurance in Ultimate Texas Hold 'Em.

``close()`` and ``out_of_service()`` take effect at once when no wager is in play, else when
the round in play has settled (the countdowns act for the players who leave it). The
states, and the inputs each accepts, are declared in ONE table, :data:`ACCEPTS`; an input a
state does not accept is refused before any code runs.

Save, then send: every session call logs its step before it returns; the steps an input
produced are handed to the listeners once the input is done.

Entry point: :class:`UthMachine`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from enum import StrEnum
from typing import Any

from twisted.logger import Logger

from game_server.rules.errors import ActionNotAllowed
from game_server.rules.uth.events import UthSettlementStarted, UthWagerSettled
from game_server.rules.uth.game import MULTIPLES, Action, UthRound
from game_server.table.api import TableListener, TableState
from game_server.table.events import CreditsOut, RoundStarted
from game_server.table.info import rules_for
from game_server.table.machine import (
    DelayedCall,
    ReactorTime,
    TableClosed,
    TableOutOfService,
)
from game_server.table.session import TableError
from game_server.table.uth_session import UthSession, parse_decision

log = Logger(namespace="game_server.table.uth_machine")

__all__ = [
    "ACCEPTS",
    "BettingClosed",
    "NoInsurance",
    "UthMachine",
    "UthResults",
    "UthState",
]


class BettingClosed(TableError):
    """Wagers outside the betting window: wait for the next round's window (653a.7)."""


class NoInsurance(ActionNotAllowed):
    """An insurance answer at an Ultimate Texas Hold 'Em table, which offers none."""


class UthState(StrEnum):
    """Where the Ultimate Texas Hold 'Em round machine is."""

    CLOSED = "closed"
    BETTING = "betting"
    DECIDING = "deciding"
    NEXT_ROUND = "next-round"
    OUT_OF_SERVICE = "out-of-service"


_OPERATOR = frozenset({"open", "close", "out_of_service", "cash_in", "cash_out"})

#: The inputs each state accepts; any other is refused before it changes anything. The
#: countdown inputs are the machine's own: ``expired`` in the two windows, ``pause_over``
#: between rounds.
ACCEPTS: Mapping[UthState, frozenset[str]] = {
    UthState.CLOSED: _OPERATOR,
    UthState.BETTING: _OPERATOR | {"place_wagers", "expired"},
    UthState.DECIDING: _OPERATOR | {"act", "expired"},
    UthState.NEXT_ROUND: _OPERATOR | {"pause_over"},
    UthState.OUT_OF_SERVICE: _OPERATOR,
}


class UthResults:
    """A :class:`~game_server.table.api.TableListener` that keeps each terminal's
    settlements of its last round with any, and the last round's engine (its showdown stays
    on the screen between rounds). Pass it to
    :func:`~game_server.table.uth_views.uth_view_for`."""

    def __init__(self, session: UthSession) -> None:
        self.session = session
        self.round: int | None = None
        self.settlements: dict[str, tuple[int | None, list[UthWagerSettled]]] = {}
        #: The round in play, or the last one (the session forgets it when it closes).
        self.game: UthRound | None = None
        self.game_round: int | None = None
        #: The Magic Card and Lucky Bonus draws of each round settled, by round id.
        self.draws: dict[int | None, UthSettlementStarted] = {}

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        for ev in events:
            if type(ev) is RoundStarted:
                self.round = ev.round
        game = self.session.round
        if game is not None:
            self.game, self.game_round = game, self.session.round_id
        for ev in events:
            if type(ev) is UthSettlementStarted:
                self.draws = {self.round: ev}
            if type(ev) is UthWagerSettled:
                terminal = self.session.terminal_of.get(ev.seat)
                if terminal is None:
                    continue
                held = self.settlements.get(terminal)
                if held is None or held[0] != self.round:
                    held = self.settlements[terminal] = (self.round, [])
                held[1].append(ev)

    def of(self, terminal: str) -> list[dict[str, Any]]:
        """This terminal's settlements of its last round with any, as the view shows them."""
        round_id, settled = self.settlements.get(terminal, (None, []))
        return [
            {
                "round": round_id,
                "wager": ev.wager,
                "stake": ev.stake,
                "paid": ev.paid,
                "from_meter": ev.from_meter,
                "outcome": ev.outcome,
                "line": ev.line,
            }
            for ev in settled
        ]


class UthMachine:
    """The live Ultimate Texas Hold 'Em table over a :class:`UthSession`.

    Args:
        session: the table's session (its log is written before anything is sent).
        clock: the clock of the countdowns (the reactor; ``task.Clock`` in tests).
        next_round_delay: seconds between a round's settlement and the next betting window.
    """

    def __init__(
        self, session: UthSession, clock: ReactorTime, next_round_delay: float = 0.0
    ) -> None:
        self.session = session
        self._clock = clock
        self._next_round_delay = next_round_delay
        self._where = UthState.CLOSED
        self._stop: TableState | None = None
        self._stop_reason = ""
        self._countdown: str | None = None
        self._deadline: float | None = None
        self._call: DelayedCall | None = None
        self._street: tuple[int, str] | None = None
        self._outbox: list[list[Any]] = []
        self._listeners: list[TableListener] = []
        self.results = UthResults(session)
        self._listeners.append(self.results)

    # -------------------------------------------------------------------- reading

    @property
    def state(self) -> TableState:
        """What the table does with new rounds (a pending stop is already reported)."""
        if self._where is UthState.CLOSED:
            return TableState.CLOSED
        if self._where is UthState.OUT_OF_SERVICE:
            return TableState.OUT_OF_SERVICE
        return self._stop if self._stop is not None else TableState.OPEN

    @property
    def machine_state(self) -> UthState:
        return self._where

    @property
    def countdown(self) -> str | None:
        """What the running countdown is for: betting, decision or next-round."""
        return self._countdown

    def deadline(self) -> float | None:
        return self._deadline

    def seconds_left(self) -> float | None:
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - self._clock.seconds())

    def pending(self) -> tuple[str, ...]:
        """The terminals the current street waits for."""
        return self.session.pending()

    @staticmethod
    def parse_action(action: str) -> Action:
        """The engine's decision for an ``Act`` command's ``action`` ("check", "bet" or
        "play", "fold"); the AMP server calls it for a table that has it."""
        return parse_decision(action)

    def view(self, terminal: str) -> dict[str, Any]:
        """The terminal's view (:func:`~game_server.table.uth_views.uth_view_for`)."""
        from game_server.table.uth_views import uth_view_for

        self.session._seat(terminal)
        return uth_view_for(self, terminal, results=self.results)

    def rules(self, terminal: str) -> dict[str, Any]:
        """The rules screen's content for this table (every terminal sees the same)."""
        return rules_for(self.session.config)

    def meters(self) -> dict[str, Any]:
        """The never-reset meters (605a.5(d)), wallets and progressive meters, JSON-ready."""
        ledger = self.session.ledger
        return {
            "table": self.session.config.table_id,
            "games_played": ledger.games_played,
            "progressive_paid": ledger.progressive_paid,
            "credits_in": ledger.credits_in,
            "credits_out": ledger.credits_out,
            "in_play": ledger.in_play,
            "house_result": ledger.house_result,
            "wallets": dict(sorted(ledger.wallets.items())),
            "wagers": {
                name: {
                    "placed": m.placed,
                    "wagered": m.wagered,
                    "settled": m.settled,
                    "paid": m.paid,
                    "won": m.won,
                }
                for name, m in sorted(ledger.meters.items())
            },
            "progressives": {
                meter_id: self.session.meters.meter(meter_id).snapshot()
                for meter_id in self.session.meter_specs
                if meter_id in self.session.meters
            },
        }

    def settlements(self, terminal: str) -> list[dict[str, Any]]:
        return self.results.of(terminal)

    def add_listener(self, listener: TableListener) -> None:
        self._listeners.append(listener)

    # --------------------------------------------------------------------- inputs

    def open(self) -> None:
        """Open the table (or return it to service, or withdraw a pending stop)."""
        self._run("open", self._open)

    def close(self) -> None:
        """Close the table; a round with wagers in play settles first."""
        self._run("close", self._request_stop, TableState.CLOSED, "")

    def out_of_service(self, reason: str) -> None:
        """Stop dealing; a round with wagers in play settles first (the countdowns act for
        the players who leave it), then the table is out of service."""
        self._run("out_of_service", self._request_stop, TableState.OUT_OF_SERVICE, reason)

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        """Place the terminal's wagers in the betting window; ``position`` is refused (a
        player position is chosen only at a three-position hybrid table)."""
        if position is not None:
            raise ActionNotAllowed(
                "an Ultimate Texas Hold 'Em terminal plays its own seat: there is no player "
                "position to choose (58 Pa. Code 653a.2)"
            )
        self._run("place_wagers", self._place, terminal, wagers)

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None:
        """Refused: Ultimate Texas Hold 'Em offers no insurance."""
        self.session._seat(terminal)
        raise NoInsurance(
            "Ultimate Texas Hold 'Em offers no insurance; decide with check, bet or fold "
            "(58 Pa. Code 653a.12)"
        )

    def act(self, terminal: str, action: Action | str, hand: int, amount: int | None) -> None:
        """A decision: ``action`` "check", "bet" ("play") or "fold" (or an engine
        :class:`~game_server.rules.uth.game.Action`); ``amount`` the Play multiple."""
        self._run("act", self._act, terminal, parse_decision(action), amount or 0)

    def cash_in(self, terminal: str, amount: int, reference: str) -> int:
        """Add credits; returns the terminal's new balance."""
        self._run("cash_in", self._book, self.session.cash_in, terminal, amount, reference)
        return self.session.balance(terminal)

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> int:
        """Pay credits out (all when ``amount`` is None); returns the amount paid. Refused
        while the terminal has wagers in play."""
        paid: list[int] = []

        def book() -> None:
            events = self.session.cash_out(terminal, amount, reference)
            self._log(events)
            paid.extend(ev.amount for ev in events if type(ev) is CreditsOut)

        self._run("cash_out", book)
        return sum(paid)

    # ---------------------------------------------------------------- behaviours

    def _refuse(self, name: str) -> None:
        where = self._where
        if name in ACCEPTS[where]:
            return
        if where is UthState.CLOSED:
            raise TableClosed("the table is closed: wagers and decisions wait until it opens")
        if where is UthState.OUT_OF_SERVICE:
            raise TableOutOfService(
                f"the table is out of service ({self._stop_reason}): wagers and decisions "
                "wait until the operator returns it to service"
            )
        if name == "place_wagers":
            raise BettingClosed(
                "no more bets: this round's cards are dealt or the round is over; bet in the "
                "next betting window (653a.7)"
            )
        raise TableError(f"{name} is not accepted while the table is {where}")

    def _open(self) -> None:
        self._stop = None
        if self._where in (UthState.CLOSED, UthState.OUT_OF_SERVICE):
            if self.session.round is None:
                self._start_round()
            self._route()

    def _request_stop(self, stop: TableState, reason: str) -> None:
        idle = self._where is UthState.NEXT_ROUND or (
            self._where is UthState.BETTING and not self._wagered()
        )
        if self._where in (UthState.CLOSED, UthState.OUT_OF_SERVICE) or idle:
            self._halt(stop, reason)
        elif stop is TableState.OUT_OF_SERVICE or self._stop is None:
            self._stop, self._stop_reason = stop, reason

    def _place(self, terminal: str, wagers: Mapping[str, int]) -> None:
        if self._stop is TableState.OUT_OF_SERVICE:
            raise TableOutOfService("the table goes out of service after this round: no new bets")
        if self._stop is TableState.CLOSED:
            raise TableClosed("the table closes after this round: no new bets")
        self._log(self.session.place_wagers(terminal, wagers))

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

    def _book(self, call: Callable[..., list[Any]], *args: Any) -> None:
        self._log(call(*args))

    def _expired(self) -> None:
        """The running countdown ran out: deal, or the countdown action for the silent."""
        session = self.session
        where = self._where
        self._cancel_countdown()
        self._street = None
        if where is UthState.BETTING:
            if self._wagered():
                self._log(session.deal())
            else:
                self._start_countdown("betting", session.config.timers.betting_seconds)
                return
        elif where is UthState.DECIDING:
            # Check preflop and on the flop, fold at the river (UthRound.countdown_action).
            for terminal in session.pending():
                if terminal in session.pending():
                    self._log(session.countdown(terminal))
        self._route()

    def _pause_over(self) -> None:
        self._cancel_countdown()
        self._start_round()
        self._route()

    # ------------------------------------------------------------------- routing

    def _route(self) -> None:
        """Move to where the engine left the round, starting the countdown a street needs."""
        session = self.session
        game = session.round
        if game is None:
            self._round_over()
        elif not session.dealt():
            if self._where is not UthState.BETTING or self._countdown is None:
                self._where = UthState.BETTING
                self._start_countdown("betting", session.config.timers.betting_seconds)
        else:
            street = (session.round_id, str(game.phase))
            if street != self._street and game.phase in MULTIPLES:
                self._street = street
                self._where = UthState.DECIDING
                self._start_countdown("decision", session.config.timers.decision_seconds)

    def _round_over(self) -> None:
        self._cancel_countdown()
        self._street = None
        self._where = UthState.NEXT_ROUND
        if self._stop is not None:
            self._halt(self._stop, self._stop_reason)
        elif self._next_round_delay <= 0:
            self._start_round()
            self._route()
        else:
            self._start_countdown("next-round", self._next_round_delay)

    def _halt(self, stop: TableState, reason: str) -> None:
        self._cancel_countdown()
        self._street = None
        self._stop = None
        if stop is TableState.CLOSED:
            self._where = UthState.CLOSED
            return
        self._where = UthState.OUT_OF_SERVICE
        self._stop_reason = reason
        log.warn(
            "table {table} is out of service: {reason}",
            table=self.session.config.table_id,
            reason=reason,
        )

    def _start_round(self) -> None:
        for ev in self.session.start_round():
            self._log([ev])

    def _wagered(self) -> bool:
        game = self.session.round
        return game is not None and bool(game.seats)

    # ----------------------------------------------------------------- plumbing

    def _log(self, events: list[Any]) -> None:
        self._outbox.append(events)

    def _start_countdown(self, kind: str, seconds: float) -> None:
        self._cancel_countdown()
        self._countdown = kind
        self._deadline = self._clock.seconds() + seconds
        self._call = self._clock.callLater(seconds, self._expire, kind)

    def _cancel_countdown(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        self._countdown = None
        self._deadline = None

    def _run(self, name: str, behaviour: Callable[..., None], *args: Any) -> None:
        """Refuse the input or run it; then send every step it logged."""
        try:
            self._refuse(name)
            behaviour(*args)
        finally:
            self._flush()

    def _flush(self) -> None:
        """Then send: hand each logged step to every listener; a listener's error is logged."""
        terminals = tuple(sorted(self.session.seats))
        while self._outbox:
            events = self._outbox.pop(0)
            for listener in list(self._listeners):
                try:
                    listener.step_logged(events, terminals)
                except Exception:
                    log.failure("listener {listener} failed on a logged step", listener=listener)

    def _expire(self, kind: str) -> None:
        """A countdown ran out (called by the clock: never raises into it)."""
        self._call = None
        try:
            if kind == "next-round":
                self._run("pause_over", self._pause_over)
            else:
                self._run("expired", self._expired)
        except Exception as error:
            log.failure("the {kind} countdown failed; the table goes out of service", kind=kind)
            try:
                self._run(
                    "out_of_service",
                    self._halt,
                    TableState.OUT_OF_SERVICE,
                    f"error in the {kind} countdown: {error}",
                )
            except Exception:
                log.failure("the table could not be taken out of service")
