"""The live round machine of a hybrid table in stadium play (58 Pa. Code 633b.5).

:class:`HybridMachine` runs the windows and countdowns around a
:class:`~game_server.table.hybrid_session.HybridSession`, as
:class:`~game_server.table.machine.RoundMachine` does around the fully automated table. In
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

``close()`` and ``out_of_service()`` take effect at once when no wager is in play, else when
the round in play has settled (what the players leave, the countdowns do); meanwhile joins
are refused. An unexpected error in a timer callback takes the table out of service.

The states, and the inputs each accepts, are declared in ONE table, :data:`ACCEPTS`; an input
a state does not accept is refused before any code runs. Where the round goes next is read
from the engine in one place, :meth:`HybridMachine._route`.

Save, then send: every session call logs its step before it returns; the steps an input
produced are handed to the listeners once the input (and the transitions it caused) is done.

Entry point: :class:`HybridMachine`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from twisted.logger import Logger

from game_server.rules.blackjack.actions import Action
from game_server.table.api import TableListener, TableState
from game_server.table.events import CreditsOut
from game_server.table.hybrid_info import hybrid_rules_for
from game_server.table.hybrid_session import HybridSession
from game_server.table.machine import (
    INSURANCE_CHOICES,
    DelayedCall,
    ReactorTime,
    TableClosed,
    TableOutOfService,
    UnknownInsuranceChoice,
)
from game_server.table.session import TableError

log = Logger(namespace="game_server.table.hybrid_machine")

__all__ = [
    "ACCEPTS",
    "BettingClosed",
    "HybridMachine",
    "HybridState",
    "TableClosed",
    "TableOutOfService",
    "UnknownInsuranceChoice",
]


class BettingClosed(TableError):
    """A join outside the betting window (633b.5(k)): wait for the next round's window."""


class HybridState(StrEnum):
    """Where the hybrid round machine is."""

    CLOSED = "closed"
    BETTING = "betting"
    INSURANCE = "insurance"
    DECIDING = "deciding"
    BETWEEN = "between"
    OUT_OF_SERVICE = "out_of_service"


_OPERATOR = frozenset({"open", "close", "out_of_service", "cash_in", "cash_out"})
_PLAY = frozenset({"answer_insurance", "act"})

#: The inputs each state accepts; any other is refused before it changes anything. (The
#: countdown inputs are the machine's own: ``expired`` in the three windows, ``pause_over``
#: between rounds.) In the closed states a terminal's wager or decision is refused with
#: :class:`TableClosed` / :class:`TableOutOfService`.
ACCEPTS: Mapping[HybridState, frozenset[str]] = {
    HybridState.CLOSED: _OPERATOR,
    HybridState.BETTING: _OPERATOR | _PLAY | {"join", "expired"},
    HybridState.INSURANCE: _OPERATOR | _PLAY | {"expired"},
    HybridState.DECIDING: _OPERATOR | _PLAY | {"expired"},
    HybridState.BETWEEN: _OPERATOR | {"pause_over"},
    HybridState.OUT_OF_SERVICE: _OPERATOR,
}

# ------------------------------------------------------------ reading the engine by terminal


def _step_of(session: HybridSession) -> tuple[int, str, int]:
    """What names one step of the round for its shared countdown: the round, the window, and
    (no-hole-card table) how many community cards are out."""
    kind = "insurance" if session.pending_insurance() else "decision"
    return (session.round_id, kind, session.community_dealt())


# ------------------------------------------------------------------------------ the machine


class HybridMachine:
    """The live hybrid table in stadium play over a :class:`HybridSession`.

    Args:
        session: the table's session (its log is written before anything is sent).
        clock: the clock of the countdowns (the reactor; ``task.Clock`` in tests).
        next_round_delay: seconds between a round's settlement and the next betting window.
    """

    def __init__(
        self, session: HybridSession, clock: ReactorTime, next_round_delay: float = 0.0
    ) -> None:
        self.session = session
        self._clock = clock
        self._next_round_delay = next_round_delay
        self._where = HybridState.CLOSED
        self._stop: TableState | None = None
        self._stop_reason = ""
        self._countdown: str | None = None
        self._deadline: float | None = None
        self._call: DelayedCall | None = None
        self._step: tuple[int, str, int] | None = None
        self._outbox: list[list[Any]] = []
        self._listeners: list[TableListener] = []
        from game_server.table.hybrid_views import HybridResults

        # Each terminal's settlements, kept for its view once the engine let them go.
        self.results = HybridResults(session)
        self._listeners.append(self.results)

    # -------------------------------------------------------------------- reading

    @property
    def state(self) -> TableState:
        """What the table does with new rounds (a pending stop is already reported)."""
        if self._where is HybridState.CLOSED:
            return TableState.CLOSED
        if self._where is HybridState.OUT_OF_SERVICE:
            return TableState.OUT_OF_SERVICE
        return self._stop if self._stop is not None else TableState.OPEN

    @property
    def machine_state(self) -> HybridState:
        return self._where

    @property
    def countdown(self) -> str | None:
        """What the running countdown is for: betting, insurance, decision or next-round."""
        return self._countdown

    def deadline(self) -> float | None:
        """Clock seconds when the running countdown ends (None when none runs)."""
        return self._deadline

    def seconds_left(self) -> float | None:
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - self._clock.seconds())

    def pending(self) -> tuple[str, ...]:
        """The terminals the round in play waits for."""
        return self.session.pending()

    def view(self, terminal: str) -> dict[str, Any]:
        """The terminal's view (:func:`~game_server.table.hybrid_views.hybrid_view_for`)."""
        from game_server.table.hybrid_views import hybrid_view_for

        self.session._seat(terminal)
        return hybrid_view_for(self, terminal, results=self.results)

    def rules(self, terminal: str) -> dict[str, Any]:
        """The rules screen's content for this table (every terminal sees the same)."""
        return hybrid_rules_for(self.session.config)

    def meters(self) -> dict[str, Any]:
        """The never-reset meters (605a.5(d)) and wallets, integer cents, JSON-ready."""
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
        }

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

    def act(self, terminal: str, action: Action, hand: int, amount: int | None = None) -> None:
        """A player's decision on one of his hands (``amount``: a double down's)."""
        self._run("act", self._act, terminal, action, hand, amount)

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
        """Refuse an input the state does not accept, before it changes anything."""
        where = self._where
        if name in ACCEPTS[where]:
            return
        if where is HybridState.CLOSED:
            raise TableClosed("the table is closed: wagers and decisions wait until it opens")
        if where is HybridState.OUT_OF_SERVICE:
            raise TableOutOfService(
                f"the table is out of service ({self._stop_reason}): wagers and decisions "
                "wait until the operator returns it to service"
            )
        if name == "join":
            raise BettingClosed(
                "no more bets: this round's cards are dealt or the round is over; join in the "
                "next betting window (58 Pa. Code 633b.5(k))"
            )
        raise TableError(f"{name} is not accepted while the table is {where}")

    def _open(self) -> None:
        self._stop = None
        if self._where in (HybridState.CLOSED, HybridState.OUT_OF_SERVICE):
            if self.session.round is None:
                self._start_round()
            self._route()

    def _request_stop(self, stop: TableState, reason: str) -> None:
        idle = self._where is HybridState.BETWEEN or (
            self._where is HybridState.BETTING and not self._joined()
        )
        if self._where in (HybridState.CLOSED, HybridState.OUT_OF_SERVICE) or idle:
            self._halt(stop, reason)
        elif stop is TableState.OUT_OF_SERVICE or self._stop is None:
            self._stop, self._stop_reason = stop, reason

    def _join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> None:
        if self._stop is TableState.OUT_OF_SERVICE:
            raise TableOutOfService("the table goes out of service after this round: no new bets")
        if self._stop is TableState.CLOSED:
            raise TableClosed("the table closes after this round: no new bets")
        self._log(self.session.join(terminal, wagers, position))

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

    def _book(self, call: Callable[..., list[Any]], *args: Any) -> None:
        self._log(call(*args))

    def _expired(self) -> None:
        """The running countdown ran out: the countdown default for whoever is silent."""
        session = self.session
        where = self._where
        self._cancel_countdown()
        self._step = None
        if where is HybridState.BETTING:
            if self._joined():
                self._log(session.deal())
            else:
                self._start_countdown("betting", session.config.timers.betting_seconds)
                return
        elif where is HybridState.INSURANCE:
            # 633b.5(z), 633a.8: silence declines insurance (and even money).
            for terminal in session.pending_insurance():
                if terminal in session.pending_insurance():
                    self._log(session.decline_insurance(terminal, auto=True))
        elif where is HybridState.DECIDING:
            # 633b.5(p)(2), (z): every pending player gets the countdown's default.
            if session.finishes_at_once:
                self._log(session.finish())
            else:
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
        """Move to where the engine left the round, starting the countdown a new step needs."""
        session = self.session
        if session.round is None:
            self._round_over()
        elif not session.dealt():
            if self._where is not HybridState.BETTING or self._countdown is None:
                self._where = HybridState.BETTING
                self._start_countdown("betting", session.config.timers.betting_seconds)
        elif not session.pending() and session.finishes_at_once:
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

    def _round_over(self) -> None:
        self._cancel_countdown()
        self._step = None
        self._where = HybridState.BETWEEN
        if self._stop is not None:
            self._halt(self._stop, self._stop_reason)
        elif self._next_round_delay <= 0:
            self._start_round()
            self._route()
        else:
            self._where = HybridState.BETWEEN
            self._start_countdown("next-round", self._next_round_delay)

    def _halt(self, stop: TableState, reason: str) -> None:
        self._cancel_countdown()
        self._step = None
        self._stop = None
        if stop is TableState.CLOSED:
            self._where = HybridState.CLOSED
            return
        self._where = HybridState.OUT_OF_SERVICE
        self._stop_reason = reason
        log.warn(
            "hybrid table {table} is out of service: {reason}",
            table=self.session.config.table_id,
            reason=reason,
        )

    def _start_round(self) -> None:
        # start_round logs each of its records as a step of its own: send them the same way.
        for ev in self.session.start_round():
            self._log([ev])

    def _joined(self) -> bool:
        game = self.session.round
        return game is not None and bool(game.engine.players)

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
        terminals = tuple(sorted(self.session.terminals))
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
                log.failure("the hybrid table could not be taken out of service")
