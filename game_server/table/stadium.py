"""What every round machine in stadium play shares: shared countdowns, the operator's inputs,
refusal before any code runs, and save-then-send (58 Pa. Code 633b.5 for the hybrid tables).

In stadium play every player decides for himself, so a machine keeps ONE shared countdown per
step of the round instead of one per hand. :class:`StadiumMachine` is the plumbing around a
table's session that does not depend on the game:

* *reading*: :attr:`~StadiumMachine.state`, :attr:`~StadiumMachine.machine_state`,
  :attr:`~StadiumMachine.countdown`, :meth:`~StadiumMachine.deadline`,
  :meth:`~StadiumMachine.seconds_left`, :meth:`~StadiumMachine.pending` and
  :meth:`~StadiumMachine.meters`;
* *the operator's inputs*: ``open()``, ``close()``, ``out_of_service()``, ``cash_in()`` and
  ``cash_out()``. ``close()`` and ``out_of_service()`` take effect at once when no wager is in
  play, else when the round in play has settled (what the players leave, the countdowns do);
  meanwhile new wagers are refused;
* *the countdowns*: the betting window (``timers.betting_seconds``) opens when the table opens
  and after each round; when it ends the round is dealt if at least one terminal wagered,
  otherwise a new window opens on the same (empty) round. Where the Rules Submission allows
  it (``timers.deal_when_all_bet``) the window ends as soon as every player at the table
  has wagered (:meth:`StadiumMachine._took_bet`, :mod:`game_server.table.pace`). After a
  round settles the next one starts after ``next_round_delay`` seconds. The clock calls
  :meth:`StadiumMachine._expire`, which never raises into it: an unexpected error in a
  countdown takes the table out of service;
* *refusal*: the states, and the inputs each accepts, are declared in ONE table (the
  subclass's ``ACCEPTS``); an input a state does not accept is refused before any code runs;
* *save, then send*: every session call logs its step before it returns; the steps an input
  produced (and the transitions it caused) are handed to the listeners once the input is done.

A subclass provides its state enum and the members that play the four common roles
(``_CLOSED``, ``_BETTING``, ``_BETWEEN`` the pause between rounds, ``_OUT_OF_SERVICE``), its
``_ACCEPTS`` table, its ``log`` (whose namespace names the table's module) and, when its log
calls it more than a "table", ``_TABLE_NOUN``, and the methods
that read its game: ``_route_dealt`` (where a dealt round goes next), ``_act_for_silent``
(the countdown default when a step's countdown runs out), ``_wagered`` (whether anyone bet
on the open round), ``_terminals`` (who the listeners send to), ``_not_accepted`` (its own
refusals, e.g. a bet outside the betting window), and the game's own inputs and views.

Entry point: :class:`StadiumMachine`; the games that play in stadium style subclass it (their
:meth:`Game.machine <game_server.games.api.Game.machine>`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar

from twisted.logger import Logger

from game_server.config import TableConfig
from game_server.table.api import (
    DelayedCall,
    ReactorTime,
    TableClosed,
    TableListener,
    TableOutOfService,
    TableState,
)
from game_server.table.events import CreditsOut
from game_server.table.ledger import Ledger
from game_server.table.pace import all_in
from game_server.table.session import LogWriteFailed, TableError

__all__ = ["OPERATOR", "StadiumMachine", "StadiumSession"]

#: The operator's inputs, which every state accepts.
OPERATOR = frozenset({"open", "close", "out_of_service", "cash_in", "cash_out"})


class StadiumSession(Protocol):
    """What a stadium machine reads and calls of its table's session (a
    :class:`~game_server.table.session.TableBook` with rounds that deal once)."""

    @property
    def config(self) -> TableConfig: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def round(self) -> object | None: ...

    def start_round(self) -> list[Any]: ...

    def dealt(self) -> bool: ...

    def deal(self) -> list[Any]: ...

    def pending(self) -> tuple[str, ...]: ...

    def countdown(self, terminal: str) -> list[Any]: ...

    def balance(self, terminal: str) -> int: ...

    def cash_in(self, terminal: str, amount: int, reference: str) -> list[Any]: ...

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> list[Any]: ...


SessionT = TypeVar("SessionT", bound=StadiumSession)
StateT = TypeVar("StateT", bound=StrEnum)


class StadiumMachine(Generic[SessionT, StateT]):
    """The live table in stadium play over a session: the plumbing every game shares.

    Args:
        session: the table's session (its log is written before anything is sent).
        clock: the clock of the countdowns (the reactor; ``task.Clock`` in tests).
        next_round_delay: seconds between a round's settlement and the next betting window.
        log: the subclass module's logger (its namespace names the table).
    """

    #: The inputs each state accepts (the subclass module's ``ACCEPTS``).
    _ACCEPTS: Mapping[StateT, frozenset[str]]
    #: The closed state, where the machine starts.
    _CLOSED: StateT
    #: The betting window.
    _BETTING: StateT
    #: The pause between a settled round and the next.
    _BETWEEN: StateT
    #: Out of service.
    _OUT_OF_SERVICE: StateT
    #: How the log names the table ("table", "hybrid table").
    _TABLE_NOUN = "table"

    def __init__(
        self, session: SessionT, clock: ReactorTime, next_round_delay: float, log: Logger
    ) -> None:
        self.session = session
        self._clock = clock
        self._next_round_delay = next_round_delay
        self._logger = log
        self._where = self._CLOSED
        self._stop: TableState | None = None
        self._stop_reason = ""
        self._countdown: str | None = None
        self._deadline: float | None = None
        self._call: DelayedCall | None = None
        #: What names the step of the round the running countdown belongs to.
        self._step: tuple[object, ...] | None = None
        self._outbox: list[list[Any]] = []
        self._listeners: list[TableListener] = []
        #: The terminals that placed wagers on the open round (the pace's "all in").
        self._bet_in: set[str] = set()

    # -------------------------------------------------------------------- reading

    @property
    def state(self) -> TableState:
        """What the table does with new rounds (a pending stop is already reported)."""
        if self._where is self._CLOSED:
            return TableState.CLOSED
        if self._where is self._OUT_OF_SERVICE:
            return TableState.OUT_OF_SERVICE
        return self._stop if self._stop is not None else TableState.OPEN

    @property
    def machine_state(self) -> StateT:
        return self._where

    @property
    def countdown(self) -> str | None:
        """What the running countdown is for: betting, decision or next-round, or a window
        of the table's own (the hybrid tables' insurance)."""
        return self._countdown

    def deadline(self) -> float | None:
        """Clock seconds when the running countdown ends (None when none runs)."""
        return self._deadline

    def seconds_left(self) -> float | None:
        """Seconds until the running countdown ends (None when none runs)."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - self._clock.seconds())

    def wagered(self) -> bool:
        """Whether anyone placed a wager on the open round: only then does the betting
        countdown deal when it runs out (with nobody's wager it starts over)."""
        return self._wagered()

    @property
    def reason(self) -> str | None:
        """Why the table is out of service (None unless it is)."""
        return self._stop_reason if self._where is self._OUT_OF_SERVICE else None

    def pending(self) -> tuple[str, ...]:
        """The terminals the round in play waits for (at a table that plays by streets, the
        current street)."""
        return self.session.pending()

    def meters(self) -> dict[str, Any]:
        """The never-reset meters (605a.5(d)) and wallets, integer cents, JSON-ready."""
        return {
            "table": self.session.config.table_id,
            "state": str(self.state),
            "reason": self.reason,
            **self.session.ledger.report(),
        }

    def add_listener(self, listener: TableListener) -> None:
        self._listeners.append(listener)

    def fault(self, reason: str) -> None:
        """Out of service at once, the round in play left as it is (the event log cannot be
        written); ``open()`` later resumes it. The terminals are sent their views (an empty
        step) so that they show it at once."""
        self._outbox.append([])
        try:
            self._halt(TableState.OUT_OF_SERVICE, reason)
        finally:
            self._flush()

    def replace_session(self, session: SessionT) -> None:
        """Take over ``session``, rebuilt from the log after a failed write (the old one may
        be ahead of what was saved). Only while the table is out of service or closed."""
        if self._where not in (self._OUT_OF_SERVICE, self._CLOSED):
            raise TableError("a table's session is replaced only while it is out of service")
        self.session = session

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

    # ------------------------------------------------------- what a subclass provides

    def _route_dealt(self) -> None:
        """Move to where the engine left a dealt round, starting the countdown a new step
        needs."""
        raise NotImplementedError

    def _act_for_silent(self, where: StateT) -> None:
        """The countdown of a dealt round's step ran out in ``where``: the countdown default
        for whoever is silent."""
        raise NotImplementedError

    def _wagered(self) -> bool:
        """Whether anyone has wagers on the open round."""
        raise NotImplementedError

    def _terminals(self) -> Collection[str]:
        """The terminals of the table (each logged step is sent for them)."""
        raise NotImplementedError

    def _not_accepted(self, name: str) -> TableError:
        """The error for an input the open table's state does not accept."""
        return TableError(f"{name} is not accepted while the table is {self._where}")

    # ---------------------------------------------------------------- behaviours

    def _refuse(self, name: str) -> None:
        """Refuse an input the state does not accept, before it changes anything."""
        where = self._where
        if name in self._ACCEPTS[where]:
            return
        if where is self._CLOSED:
            raise TableClosed("the table is closed: wagers and decisions wait until it opens")
        if where is self._OUT_OF_SERVICE:
            raise TableOutOfService(
                f"the table is out of service ({self._stop_reason}): wagers and decisions "
                "wait until the operator returns it to service"
            )
        raise self._not_accepted(name)

    def _refuse_bets_while_stopping(self) -> None:
        """No new bets once the table closes or goes out of service after this round."""
        if self._stop is TableState.OUT_OF_SERVICE:
            raise TableOutOfService("the table goes out of service after this round: no new bets")
        if self._stop is TableState.CLOSED:
            raise TableClosed("the table closes after this round: no new bets")

    def _open(self) -> None:
        self._stop = None
        if self._where in (self._CLOSED, self._OUT_OF_SERVICE):
            if self.session.round is None:
                self._start_round()
            self._route()

    def _request_stop(self, stop: TableState, reason: str) -> None:
        idle = self._where is self._BETWEEN or (
            self._where is self._BETTING and not self._wagered()
        )
        if self._where in (self._CLOSED, self._OUT_OF_SERVICE) or idle:
            self._halt(stop, reason)
        elif stop is TableState.OUT_OF_SERVICE or self._stop is None:
            self._stop, self._stop_reason = stop, reason

    def _book(self, call: Callable[..., list[Any]], *args: Any) -> None:
        self._log(call(*args))

    def _expired(self) -> None:
        """The running countdown ran out: deal (a new window when nobody bet), or the
        countdown default for whoever is silent (:meth:`_act_for_silent`)."""
        session = self.session
        where = self._where
        self._cancel_countdown()
        self._step = None
        if where is self._BETTING:
            if self._wagered():
                self._log(session.deal())
            else:
                self._start_countdown("betting", session.config.timers.betting_seconds)
                return
        else:
            self._act_for_silent(where)
        self._route()

    def _count_down_pending(self) -> None:
        """The countdown acts for each terminal still pending (each its own logged step;
        one the countdown settled on the way is skipped)."""
        session = self.session
        for terminal in session.pending():
            if terminal in session.pending():
                self._log(session.countdown(terminal))

    def _pause_over(self) -> None:
        self._cancel_countdown()
        self._start_round()
        self._route()

    # ------------------------------------------------------------------- routing

    def _route(self) -> None:
        """Move to where the engine left the round, starting the countdown a new step needs
        (the steps of a dealt round: :meth:`_route_dealt`)."""
        session = self.session
        if session.round is None:
            self._round_over()
        elif not session.dealt():
            if self._where is not self._BETTING or self._countdown is None:
                self._where = self._BETTING
                self._start_countdown("betting", session.config.timers.betting_seconds)
        else:
            self._route_dealt()

    def _round_over(self) -> None:
        self._cancel_countdown()
        self._step = None
        self._where = self._BETWEEN
        if self._stop is not None:
            self._halt(self._stop, self._stop_reason)
        elif self._next_round_delay <= 0:
            self._start_round()
            self._route()
        else:
            self._start_countdown("next-round", self._next_round_delay)

    def _halt(self, stop: TableState, reason: str) -> None:
        self._cancel_countdown()
        self._step = None
        self._stop = None
        if stop is TableState.CLOSED:
            self._where = self._CLOSED
            return
        self._where = self._OUT_OF_SERVICE
        self._stop_reason = reason
        self._logger.warn(
            f"{self._TABLE_NOUN} {{table}} is out of service: {{reason}}",
            table=self.session.config.table_id,
            reason=reason,
        )

    def _start_round(self) -> None:
        # start_round logs each of its records as a step of its own: send them the same way.
        self._bet_in = set()
        for ev in self.session.start_round():
            self._log([ev])

    def _took_bet(self, terminal: str) -> None:
        """``terminal`` placed wagers on the open round: when the Rules Submission allows
        it (``[timers] deal_when_all_bet``) and every player at the table has wagered
        (:func:`~game_server.table.pace.all_in`), the betting window ends now and the round
        is dealt, as when its countdown runs out."""
        self._bet_in.add(terminal)
        session = self.session
        if (
            self._where is self._BETTING
            and session.config.timers.deal_when_all_bet
            and not session.dealt()
            and all_in(self._terminals(), self._bet_in, session.balance)
        ):
            self._cancel_countdown()
            self._step = None
            self._log(session.deal())
            self._route()

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
        """Refuse the input or run it; then send every step it logged. A step the log did
        not store takes the table out of service at once."""
        try:
            self._refuse(name)
            behaviour(*args)
        except LogWriteFailed as exc:
            self._flush()
            self.fault(str(exc))
            raise
        finally:
            self._flush()

    def _flush(self) -> None:
        """Then send: hand each logged step to every listener; a listener's error is logged."""
        terminals = tuple(sorted(self._terminals()))
        while self._outbox:
            events = self._outbox.pop(0)
            for listener in list(self._listeners):
                try:
                    listener.step_logged(events, terminals)
                except Exception:
                    self._logger.failure(
                        "listener {listener} failed on a logged step", listener=listener
                    )

    def _expire(self, kind: str) -> None:
        """A countdown ran out (called by the clock: never raises into it)."""
        self._call = None
        try:
            if kind == "next-round":
                self._run("pause_over", self._pause_over)
            else:
                self._run("expired", self._expired)
        except LogWriteFailed:
            pass  # out of service already, with the log's sentence as the reason
        except Exception as error:
            self._logger.failure(
                "the {kind} countdown failed; the table goes out of service", kind=kind
            )
            try:
                self._run(
                    "out_of_service",
                    self._halt,
                    TableState.OUT_OF_SERVICE,
                    f"error in the {kind} countdown: {error}",
                )
            except Exception:
                self._logger.failure(f"the {self._TABLE_NOUN} could not be taken out of service")
