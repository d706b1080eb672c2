"""The live round machine: countdowns and table states around a :class:`TableSession`.

:class:`RoundMachine` implements :class:`~game_server.table.api.TableMachine`. Its states and
every transition are declared in ONE table, :data:`TRANSITIONS` (Automat's
``TypeMachineBuilder``; STYLE.md "State machines are declared"); ``docs/round-machine.md`` is
generated from it by :func:`transition_table_markdown`.

How a round runs:

* ``open()``: a round is started at once (``RoundStarted`` logged) and the table is *idle*;
  the betting window (``timers.betting_seconds``) starts at the FIRST wager. When it closes
  the round is dealt; a round with no wager is never dealt. Where the Rules Submission
  allows it (``timers.deal_when_all_bet``) it closes as soon as every player at the table
  has wagered (:mod:`game_server.table.pace`).
* *insurance*: when the dealer shows an ace, each seat answers within
  ``timers.insurance_seconds``; at the timeout every seat that has not answered is declined
  by the countdown (``auto=True``). When all have answered play moves on at once.
* *deciding*: a countdown of ``timers.decision_seconds`` for the hand to act; each decision
  restarts it for the next hand; at zero the machine makes the round's countdown default,
  ``BlackjackRound.countdown_action()`` (stand, or hit a hard 11 or less where the Rules
  Submission says so; 58 Pa. Code 633b.5(p)(2), (z)), logged with ``auto=True``.
* *between*: the round completed; after ``next_round_delay`` seconds the next round starts.

``close()`` and ``out_of_service()`` take effect between rounds: a round in play always
finishes (players may still act; what they leave, the countdowns do), and only then does the
table close or go out of service. While such a stop is pending, new wagers are refused and
:attr:`RoundMachine.state` already reports the coming state. An unexpected error in a timer
callback takes the table out of service at once (a *fault*); ``open()`` later resumes the
round where the engine left it.

Save, then send: every session call logs its step before it returns; the steps an input
produced are handed to the listeners after the whole input (and the transitions it caused)
is done, so a listener building views sees the new countdown.

Entry point: :class:`RoundMachine`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from automat import TypeMachineBuilder
from twisted.internet.defer import Deferred
from twisted.logger import Logger

from game_server.games.blackjack.info import blackjack_rules_for
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import RoundCompleted, WagerSettled
from game_server.games.blackjack.rules.round import BlackjackRound, Phase
from game_server.games.blackjack.session import TableSession
from game_server.rules.errors import RulesError
from game_server.table.api import (
    DelayedCall,
    ReactorTime,
    TableClosed,
    TableListener,
    TableOutOfService,
    TableState,
)
from game_server.table.events import CreditsOut
from game_server.table.pace import all_in
from game_server.table.session import LogWriteFailed, TableError
from game_server.table.steps import StepGate

log = Logger(namespace="game_server.games.blackjack.machine")

#: How many completed rounds' results each terminal can see again after a reconnect.
HISTORY_ROUNDS = 10

#: The answers of :meth:`RoundMachine.answer_insurance`.
INSURANCE_CHOICES = ("insurance", "decline", "even-money")


class UnknownInsuranceChoice(TableError):
    """An insurance answer that is not one of ``insurance``, ``decline``, ``even-money``."""


class PositionNotOffered(TableError):
    """A player position chosen at a table that has none to choose (633b.5(l) is the
    three-position hybrid table's)."""


class UnknownAction(RulesError):
    """An ``Act`` whose action is not a Blackjack decision."""


def parse_action(action: str) -> Action:
    """The Blackjack decision an ``Act`` command names: hit, stand, double, split, surrender
    or press (the hybrid tables' machines read theirs the same way).

    Raises:
        UnknownAction: any other name; the message lists the decisions.
    """
    try:
        return Action(action)
    except ValueError:
        choices = ", ".join(a.value for a in Action)
        raise UnknownAction(f"{action!r} is not an action; one of {choices}") from None


# --------------------------------------------------------------------------- the inputs


class RoundInputs(Protocol):
    """Every input of the round machine.

    The first eight come from outside (operator, terminals, timers); the last four are facts
    a transition posts about where the engine left the round, and Automat runs them right
    after the transition that posted them.
    """

    def open(self) -> None: ...

    def close(self) -> None: ...

    def out_of_service(self, reason: str) -> None: ...

    def fault(self, reason: str) -> None: ...

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> None: ...

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None: ...

    def act(self, terminal: str, action: Action, hand: int, amount: int | None) -> None: ...

    def countdown_expired(self) -> None: ...

    def pause_over(self) -> None: ...

    def wager_placed(self) -> None: ...

    def insurance_offered(self) -> None: ...

    def decision_due(self) -> None: ...

    def round_completed(self) -> None: ...


# ----------------------------------------------------------------------------- the core


@dataclass
class RoundResult:
    """One completed round as the terminals' history shows it."""

    round: int
    dealer: tuple[str, ...]
    dealer_total: int
    settlements: tuple[tuple[str, WagerSettled], ...]


@dataclass
class TableCore:
    """The machine's data: the session, the reactor, the countdown and what to send."""

    session: TableSession
    reactor: ReactorTime
    next_round_delay: float
    where: str = "closed"
    stop: TableState | None = None
    stop_reason: str = ""
    countdown: str | None = None
    deadline: float | None = None
    call: DelayedCall | None = None
    expire: Callable[[str], None] = field(default=lambda kind: None)
    outbox: list[list[Any]] = field(default_factory=list)
    game: BlackjackRound | None = None
    game_id: int | None = None
    settlements: list[tuple[str, WagerSettled]] = field(default_factory=list)
    history: deque[RoundResult] = field(default_factory=lambda: deque(maxlen=HISTORY_ROUNDS))
    #: The terminals that placed wagers on the open round (game_server.table.pace).
    bet_in: set[str] = field(default_factory=set)

    def step(self, events: list[Any]) -> list[Any]:
        """Keep a logged step for the listeners and note this round's settlements."""
        self.outbox.append(events)
        terminal_of = self.session.terminal_of
        for ev in events:
            if type(ev) is WagerSettled:
                self.settlements.append((terminal_of[ev.seat], ev))
            elif type(ev) is RoundCompleted:
                self.history.append(
                    RoundResult(
                        self.session.round_id,
                        tuple(str(c) for c in ev.dealer_cards),
                        ev.dealer_total,
                        tuple(self.settlements),
                    )
                )
        return events

    def start_round(self) -> None:
        # start_round logs each of its records (ShoeRevealed, ShoeCommitted, RoundStarted)
        # as a step of its own: send them the same way.
        for ev in self.session.start_round():
            self.step([ev])
        self.game = self.session.round
        self.game_id = self.session.round_id
        self.settlements = []
        self.bet_in = set()

    def start_countdown(self, kind: str, seconds: float) -> None:
        self.cancel_countdown()
        self.countdown = kind
        self.deadline = self.reactor.seconds() + seconds
        self.call = self.reactor.callLater(seconds, self.expire, kind)

    def cancel_countdown(self) -> None:
        if self.call is not None and self.call.active():
            self.call.cancel()
        self.call = None
        self.countdown = None
        self.deadline = None


# ------------------------------------------------------------------------- behaviours
# Each behaviour is ``(inputs, core, *input arguments)``. A behaviour that may be refused
# (engine errors, credits) runs in a self-loop and posts a fact input only once it succeeded,
# so a refusal never moves the machine (Automat sets the new state before it runs a behaviour).


def _route(inputs: RoundInputs, core: TableCore) -> None:
    """Post the fact input that says where the engine left the round."""
    game = core.session.round
    if game is None:
        if core.game is not None:
            inputs.round_completed()
    elif game.phase is Phase.INSURANCE:
        inputs.insurance_offered()
    elif game.phase is Phase.PLAYING:
        inputs.decision_due()
    elif game.seats:
        inputs.wager_placed()


def _nothing(inputs: RoundInputs, core: TableCore, *args: Any) -> None:
    """The input changes nothing in this state."""


def _resume(inputs: RoundInputs, core: TableCore) -> None:
    """Open (or return to service): start a round unless one is open, and pick it up where
    the engine left it."""
    core.stop = None
    if core.session.round is None:
        core.start_round()
    else:
        core.game = core.session.round
        core.game_id = core.session.round_id
    _route(inputs, core)


def _cancel_stop(inputs: RoundInputs, core: TableCore) -> None:
    """``open()`` while a round plays withdraws a pending close or out-of-service."""
    core.stop = None


def _refuse_closed(inputs: RoundInputs, core: TableCore, *args: Any) -> None:
    raise TableClosed("the table is closed: wagers and decisions wait until it opens")


def _refuse_out_of_service(inputs: RoundInputs, core: TableCore, *args: Any) -> None:
    raise TableOutOfService(
        f"the table is out of service ({core.stop_reason}): wagers and decisions wait until "
        "the operator returns it to service"
    )


def _place(inputs: RoundInputs, core: TableCore, terminal: str, wagers: Mapping[str, int]) -> None:
    if core.stop is TableState.OUT_OF_SERVICE:
        _refuse_out_of_service(inputs, core)
    if core.stop is TableState.CLOSED:
        raise TableClosed("the table closes after this round: no new wagers")
    core.step(core.session.place_wagers(terminal, wagers))
    core.bet_in.add(terminal)
    inputs.wager_placed()


def _all_in(core: TableCore) -> bool:
    """Every player at the table has wagered and the Rules Submission lets the betting
    window end then (``[timers] deal_when_all_bet``; :mod:`game_server.table.pace`)."""
    session = core.session
    return session.config.timers.deal_when_all_bet and all_in(
        session.terminal_of.values(), core.bet_in, session.balance
    )


def _answer(inputs: RoundInputs, core: TableCore, terminal: str, choice: str, amount: int) -> None:
    session = core.session
    if choice == "insurance":
        core.step(session.insure(terminal, amount))
    elif choice == "decline":
        core.step(session.decline_insurance(terminal))
    elif choice == "even-money":
        core.step(session.take_even_money(terminal))
    else:
        raise UnknownInsuranceChoice(
            f"insurance answer {choice!r} is not one of {', '.join(INSURANCE_CHOICES)}"
        )
    _route(inputs, core)


def _act(
    inputs: RoundInputs,
    core: TableCore,
    terminal: str,
    action: Action,
    hand: int,
    amount: int | None,
) -> None:
    core.step(core.session.act(terminal, action, hand, amount=amount))
    _route(inputs, core)


def _open_betting(inputs: RoundInputs, core: TableCore) -> None:
    """The first wager opens the betting window, and deals at once when it is every
    player's (see _deal_when_all_in)."""
    core.start_countdown("betting", core.session.config.timers.betting_seconds)
    _deal_when_all_in(inputs, core)


def _deal_when_all_in(inputs: RoundInputs, core: TableCore) -> None:
    """Another wager closes the window if every player has wagered and the Rules
    Submission allows it (``[timers] deal_when_all_bet``, game_server.table.pace)."""
    if _all_in(core):
        _deal(inputs, core)


def _deal(inputs: RoundInputs, core: TableCore) -> None:
    """The betting window closed (it only runs once a wager is placed)."""
    core.cancel_countdown()
    core.step(core.session.deal())
    _route(inputs, core)


def _open_insurance(inputs: RoundInputs, core: TableCore) -> None:
    core.start_countdown("insurance", core.session.config.timers.insurance_seconds)


def _decline_unanswered(inputs: RoundInputs, core: TableCore) -> None:
    """The insurance window closed: the countdown declines for every seat still silent."""
    core.cancel_countdown()
    session = core.session
    game = session.round
    assert game is not None
    for seat in game.pending_insurance:
        if session.round is not game or game.phase is not Phase.INSURANCE:
            break
        core.step(session.decline_insurance(session.terminal_of[seat], auto=True))
    _route(inputs, core)


def _start_decision(inputs: RoundInputs, core: TableCore) -> None:
    core.start_countdown("decision", core.session.config.timers.decision_seconds)


def _countdown_acts(inputs: RoundInputs, core: TableCore) -> None:
    """633b.5(p)(2), (z): the decision countdown ran out; the round's default acts."""
    core.cancel_countdown()
    session = core.session
    game = session.round
    assert game is not None
    hand = game.to_act
    assert hand is not None
    action = game.countdown_action()
    core.step(session.act(session.terminal_of[hand.seat], action, hand.index, auto=True))
    _route(inputs, core)


def _finish_round(inputs: RoundInputs, core: TableCore) -> None:
    """The round settled: stop if a stop is pending, else start the pause before the next."""
    core.cancel_countdown()
    if core.stop is TableState.CLOSED:
        inputs.close()
    elif core.stop is TableState.OUT_OF_SERVICE:
        inputs.out_of_service(core.stop_reason)
    elif core.next_round_delay <= 0:
        inputs.pause_over()
    else:
        core.start_countdown("next-round", core.next_round_delay)


def _next_round(inputs: RoundInputs, core: TableCore) -> None:
    core.cancel_countdown()
    core.start_round()


def _request_close(inputs: RoundInputs, core: TableCore) -> None:
    if core.stop is None:
        core.stop = TableState.CLOSED


def _request_out_of_service(inputs: RoundInputs, core: TableCore, reason: str) -> None:
    core.stop = TableState.OUT_OF_SERVICE
    core.stop_reason = reason


def _note_reason(inputs: RoundInputs, core: TableCore, reason: str) -> None:
    """Out of service already: keep the newest reason."""
    core.stop_reason = reason


def _stop(inputs: RoundInputs, core: TableCore) -> None:
    core.cancel_countdown()
    core.stop = None


def _stop_out_of_service(inputs: RoundInputs, core: TableCore, reason: str) -> None:
    core.cancel_countdown()
    core.stop = None
    core.stop_reason = reason
    log.warn(
        "table {table} is out of service: {reason}",
        table=core.session.config.table_id,
        reason=reason,
    )


# ------------------------------------------------------------------- the transition table

CLOSED = "closed"
IDLE = "idle"
BETTING = "betting"
INSURANCE = "insurance"
DECIDING = "deciding"
BETWEEN = "between"
OUT_OF_SERVICE = "out_of_service"

STATES = (CLOSED, IDLE, BETTING, INSURANCE, DECIDING, BETWEEN, OUT_OF_SERVICE)
_IN_PLAY = (BETTING, INSURANCE, DECIDING)
_OPEN = (IDLE, *_IN_PLAY, BETWEEN)

#: (state, input, new state, behaviour): the whole machine. An input a state does not list is
#: refused by Automat (``NoTransition``) before any code runs; refusals a terminal can cause
#: are declared as behaviours that raise a :class:`TableError`.
TRANSITIONS: tuple[tuple[str, str, str, Callable[..., None]], ...] = (
    # closed: nothing is dealt
    (CLOSED, "open", IDLE, _resume),
    (CLOSED, "close", CLOSED, _nothing),
    (CLOSED, "out_of_service", OUT_OF_SERVICE, _stop_out_of_service),
    (CLOSED, "place_wagers", CLOSED, _refuse_closed),
    (CLOSED, "answer_insurance", CLOSED, _refuse_closed),
    (CLOSED, "act", CLOSED, _refuse_closed),
    # idle: a round is open for wagers; the betting window starts at the first one
    (IDLE, "open", IDLE, _nothing),
    (IDLE, "close", CLOSED, _stop),
    (IDLE, "out_of_service", OUT_OF_SERVICE, _stop_out_of_service),
    (IDLE, "place_wagers", IDLE, _place),
    (IDLE, "answer_insurance", IDLE, _answer),
    (IDLE, "act", IDLE, _act),
    (IDLE, "wager_placed", BETTING, _open_betting),
    (IDLE, "insurance_offered", INSURANCE, _open_insurance),
    (IDLE, "decision_due", DECIDING, _start_decision),
    # betting: the window runs; it deals when it closes
    (BETTING, "place_wagers", BETTING, _place),
    (BETTING, "wager_placed", BETTING, _deal_when_all_in),
    (BETTING, "countdown_expired", BETTING, _deal),
    (BETTING, "insurance_offered", INSURANCE, _open_insurance),
    (BETTING, "decision_due", DECIDING, _start_decision),
    (BETTING, "round_completed", BETWEEN, _finish_round),
    # insurance: every seat answers, or the countdown declines for it
    (INSURANCE, "answer_insurance", INSURANCE, _answer),
    (INSURANCE, "insurance_offered", INSURANCE, _nothing),
    (INSURANCE, "countdown_expired", INSURANCE, _decline_unanswered),
    (INSURANCE, "decision_due", DECIDING, _start_decision),
    (INSURANCE, "round_completed", BETWEEN, _finish_round),
    # deciding: a countdown per decision; at zero the countdown default acts
    (DECIDING, "act", DECIDING, _act),
    (DECIDING, "decision_due", DECIDING, _start_decision),
    (DECIDING, "countdown_expired", DECIDING, _countdown_acts),
    (DECIDING, "round_completed", BETWEEN, _finish_round),
    # between: the round settled; the next starts after the pause (or the table stops)
    (BETWEEN, "open", BETWEEN, _cancel_stop),
    (BETWEEN, "pause_over", IDLE, _next_round),
    (BETWEEN, "close", CLOSED, _stop),
    (BETWEEN, "out_of_service", OUT_OF_SERVICE, _stop_out_of_service),
    (BETWEEN, "place_wagers", BETWEEN, _place),
    (BETWEEN, "answer_insurance", BETWEEN, _answer),
    (BETWEEN, "act", BETWEEN, _act),
    # out of service: nothing is dealt until the operator opens the table again
    (OUT_OF_SERVICE, "open", IDLE, _resume),
    (OUT_OF_SERVICE, "close", CLOSED, _stop),
    (OUT_OF_SERVICE, "out_of_service", OUT_OF_SERVICE, _note_reason),
    (OUT_OF_SERVICE, "place_wagers", OUT_OF_SERVICE, _refuse_out_of_service),
    (OUT_OF_SERVICE, "answer_insurance", OUT_OF_SERVICE, _refuse_out_of_service),
    (OUT_OF_SERVICE, "act", OUT_OF_SERVICE, _refuse_out_of_service),
    (OUT_OF_SERVICE, "fault", OUT_OF_SERVICE, _note_reason),
    # a round in play always finishes: close and out-of-service wait for its end
    *((state, "open", state, _cancel_stop) for state in _IN_PLAY),
    *((state, "close", state, _request_close) for state in _IN_PLAY),
    *((state, "out_of_service", state, _request_out_of_service) for state in _IN_PLAY),
    (INSURANCE, "place_wagers", INSURANCE, _place),
    (INSURANCE, "act", INSURANCE, _act),
    (DECIDING, "place_wagers", DECIDING, _place),
    (DECIDING, "answer_insurance", DECIDING, _answer),
    (BETTING, "answer_insurance", BETTING, _answer),
    (BETTING, "act", BETTING, _act),
    # an unexpected error in a timer callback: out of service at once
    *((state, "fault", OUT_OF_SERVICE, _stop_out_of_service) for state in (CLOSED, *_OPEN)),
)


def _build() -> Callable[[TableCore], RoundInputs]:
    builder = TypeMachineBuilder(RoundInputs, TableCore)
    states = {name: builder.state(name) for name in STATES}
    for source, name, target, behaviour in TRANSITIONS:
        registrar: Any = states[source].upon(getattr(RoundInputs, name)).to(states[target])
        registrar(_entering(target, behaviour))
    return builder.build()


def _entering(target: str, behaviour: Callable[..., None]) -> Callable[..., None]:
    def run(inputs: RoundInputs, core: TableCore, *args: Any) -> None:
        core.where = target
        behaviour(inputs, core, *args)

    run.__name__ = behaviour.__name__
    return run


_machine_factory = _build()


def transition_table_markdown() -> str:
    """The transition table as Markdown (``docs/round-machine.md`` is this text)."""
    lines = ["| state | input | new state | what it does |", "|---|---|---|---|"]
    for source, name, target, behaviour in TRANSITIONS:
        doc = " ".join((behaviour.__doc__ or "").split()) or behaviour.__name__.strip("_")
        lines.append(f"| {source} | {name} | {target} | {doc.split(': ')[0].split('. ')[0]} |")
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------- the machine


class RoundMachine:
    """The live table (:class:`~game_server.table.api.TableMachine`) over a session.

    Args:
        session: the table's session (its log is written before anything is sent).
        reactor: the clock of the countdowns (the reactor; ``task.Clock`` in tests).
        next_round_delay: seconds between a round's settlement and the next round.
    """

    def __init__(
        self, session: TableSession, reactor: ReactorTime, next_round_delay: float = 0.0
    ) -> None:
        self._core = TableCore(session, reactor, next_round_delay)
        self._core.expire = self._expire
        self._machine = _machine_factory(self._core)
        #: The table's steps one at a time, in order (a step may wait on the floor store).
        self._gate = StepGate()
        self._listeners: list[TableListener] = []
        #: Each terminal's ``recent`` view part and the newest round it was made after.
        self._recent: dict[str, tuple[RoundResult | None, list[dict[str, Any]]]] = {}

    # ----------------------------------------------------------------- reading

    @property
    def session(self) -> TableSession:
        return self._core.session

    @property
    def state(self) -> TableState:
        """What the table does with new rounds (a pending stop is already reported)."""
        core = self._core
        if core.where == CLOSED:
            return TableState.CLOSED
        if core.where == OUT_OF_SERVICE:
            return TableState.OUT_OF_SERVICE
        return core.stop if core.stop is not None else TableState.OPEN

    @property
    def machine_state(self) -> str:
        """The round machine's state: one of :data:`STATES`."""
        return self._core.where

    @property
    def reason(self) -> str | None:
        """Why the table is out of service (None unless it is)."""
        core = self._core
        return core.stop_reason if core.where == OUT_OF_SERVICE else None

    @property
    def countdown(self) -> str | None:
        """What the running countdown is for: betting, insurance, decision or next-round."""
        return self._core.countdown

    def deadline(self) -> float | None:
        """Reactor seconds when the running countdown ends (None when none runs)."""
        return self._core.deadline

    def seconds_left(self) -> float | None:
        deadline = self._core.deadline
        if deadline is None:
            return None
        return max(0.0, deadline - self._core.reactor.seconds())

    @property
    def game(self) -> BlackjackRound | None:
        """The round in play, or the last completed one (for the results screen)."""
        return self._core.game

    @property
    def game_id(self) -> int | None:
        return self._core.game_id

    def settlements(self, terminal: str) -> list[WagerSettled]:
        """This terminal's settlements of the round shown by :attr:`game`."""
        return [ev for who, ev in self._core.settlements if who == terminal]

    def recent_view(
        self, terminal: str, build: Callable[[list[RoundResult]], list[dict[str, Any]]]
    ) -> list[dict[str, Any]]:
        """The part of ``terminal``'s view that shows its last rounds, ``build`` of
        :meth:`recent_results`, made once per completed round: it changes only when one
        completes, and every view of the steps between shares it (a view is never changed
        once built)."""
        history = self._core.history
        newest = history[-1] if history else None
        kept = self._recent.get(terminal)
        if kept is not None and kept[0] is newest:
            return kept[1]
        shown = build(self.recent_results(terminal))
        self._recent[terminal] = (newest, shown)
        return shown

    def recent_results(self, terminal: str) -> list[RoundResult]:
        """The last completed rounds (newest first) in which ``terminal`` had a settlement."""
        out = []
        for result in reversed(self._core.history):
            mine = tuple((who, ev) for who, ev in result.settlements if who == terminal)
            if mine:
                out.append(RoundResult(result.round, result.dealer, result.dealer_total, mine))
        return out

    def view(self, terminal: str) -> dict[str, Any]:
        """The terminal's view, after any step of the table that waits on the floor store
        (a Deferred then)."""
        from game_server.games.blackjack.views import view_for

        return cast(dict[str, Any], self._gate.run(view_for, self, terminal))

    def views(self, terminals: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The views of ``terminals`` at once, what every terminal sees built once and shared
        (:func:`~game_server.games.blackjack.views.views_for`)."""
        from game_server.games.blackjack.views import views_for

        return cast(dict[str, dict[str, Any]], self._gate.run(views_for, self, terminals))

    def rules(self, terminal: str) -> dict[str, Any]:
        """The rules screen's content for this table (every terminal sees the same)."""
        return blackjack_rules_for(self._core.session.config)

    def meters(self) -> dict[str, Any]:
        """The never-reset meters (605a.5(d)) and wallets, integer cents, JSON-ready."""
        session = self._core.session
        shown = session.meters.snapshot()  # a linked meter the store cannot give: unavailable
        return {
            "table": session.config.table_id,
            "state": str(self.state),
            "reason": self.reason,
            **session.ledger.report(),
            "progressives": {
                meter_id: shown[meter_id] for meter_id in session.meter_specs if meter_id in shown
            },
        }

    # ------------------------------------------------------------------ inputs

    def open(self) -> None:
        self._run(self._machine.open)

    def close(self) -> None:
        """Close the table; a round in play finishes first."""
        self._run(self._machine.close)

    def out_of_service(self, reason: str) -> None:
        """Stop dealing new rounds; a round in play is finished (players may still act, the
        countdowns act for them otherwise), then the table is out of service."""
        self._run(self._machine.out_of_service, reason)

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        if position is not None:
            raise PositionNotOffered(
                f"this {self._core.session.config.table_type} table seats each terminal at "
                "its own seat: a player position is chosen only at the three-position hybrid "
                "table (58 Pa. Code 633b.5(l))"
            )
        self._run(self._machine.place_wagers, terminal, wagers)

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None:
        """``choice`` is ``insurance`` (``amount`` cents), ``decline`` or ``even-money``."""
        self._run(self._machine.answer_insurance, terminal, choice, amount)

    def parse_action(self, terminal: str, action: str) -> Action:
        """The Blackjack decision an ``Act`` command names (:func:`parse_action`)."""
        return parse_action(action)

    def act(self, terminal: str, action: Action, hand: int, amount: int | None) -> None:
        self._run(self._machine.act, terminal, action, hand, amount)

    def cash_in(self, terminal: str, amount: int, reference: str) -> int:
        """Add credits; returns the terminal's new balance."""

        def step() -> int:
            self._send_after(self._core.session.cash_in, terminal, amount, reference)
            return self._core.session.balance(terminal)

        return cast(int, self._gate.run(step))

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> int:
        """Pay credits out (all when ``amount`` is None); returns the amount paid. Refused
        while the terminal has wagers in play."""

        def step() -> int:
            events = self._send_after(self._core.session.cash_out, terminal, amount, reference)
            return sum(ev.amount for ev in events if type(ev) is CreditsOut)

        return cast(int, self._gate.run(step))

    def add_listener(self, listener: TableListener) -> None:
        self._listeners.append(listener)

    def fault(self, reason: str) -> None:
        """Out of service at once, the round in play left as it is (the event log cannot be
        written, or a countdown failed); ``open()`` later resumes it. The terminals are sent
        their views (an empty step) so that they show it at once."""
        self._core.outbox.append([])
        self._run(self._machine.fault, reason)

    def replace_session(self, session: TableSession) -> None:
        """Take over ``session``, rebuilt from the log after a failed write (the old one may
        be ahead of what was saved). Only while the table is out of service or closed."""
        core = self._core
        if core.where not in (OUT_OF_SERVICE, CLOSED):
            raise TableError("a table's session is replaced only while it is out of service")
        core.session = session
        core.game = session.round
        core.game_id = session.round_id if session.round is not None else None
        core.settlements = []

    # ---------------------------------------------------------------- plumbing

    def _send_after(self, call: Callable[..., list[Any]], *args: Any) -> list[Any]:
        return cast(list[Any], self._gate.run(self._send_after_now, call, *args))

    def _send_after_now(self, call: Callable[..., list[Any]], *args: Any) -> list[Any]:
        try:
            events = call(*args)
        except LogWriteFailed as exc:
            self.fault(str(exc))
            raise
        self._core.outbox.append(events)
        self._flush()
        return events

    def _run(self, input_: Callable[..., None], *args: Any) -> None:
        """Run one input as the table's next step (the gate: a step of this table that
        waits on the floor store finishes first; the answer is then a Deferred)."""
        return cast(None, self._gate.run(self._run_now, input_, *args))

    def _run_now(self, input_: Callable[..., None], *args: Any) -> None:
        try:
            input_(*args)
        except LogWriteFailed as exc:
            if input_ != self._machine.fault:
                self._flush()
                self.fault(str(exc))
            raise
        finally:
            self._flush()

    def _flush(self) -> None:
        """Then send: hand each logged step to every listener; a listener's error is logged."""
        outbox = self._core.outbox
        while outbox:
            events = outbox.pop(0)
            for listener in list(self._listeners):
                try:
                    listener.step_logged(events)
                except Exception:
                    log.failure("listener {listener} failed on a logged step", listener=listener)

    def _expire(self, kind: str) -> None:
        """A countdown ran out (called by the reactor: never raises into it; its step may
        wait on the floor store while the reactor serves the other tables)."""
        waiting = self._gate.run(self._expire_now, kind)
        if isinstance(waiting, Deferred):
            waiting.addErrback(lambda fault: log.failure("the {kind} countdown", fault, kind=kind))

    def _expire_now(self, kind: str) -> None:
        core = self._core
        core.call = None
        try:
            if kind == "next-round":
                self._run(self._machine.pause_over)
            else:
                self._run(self._machine.countdown_expired)
        except LogWriteFailed as error:
            log.error("table {table}: {reason}", table=core.session.config.table_id, reason=error)
        except Exception as error:
            log.failure("the {kind} countdown failed; the table goes out of service", kind=kind)
            try:
                self._run(self._machine.fault, f"error in the {kind} countdown: {error}")
            except Exception:
                log.failure("the table could not be taken out of service")
