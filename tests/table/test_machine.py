"""The round machine: windows and countdowns on a fake clock over a MemorySink session.

No real time passes: every countdown is driven by ``twisted.internet.task.Clock``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from logged_records import logged_steps
from twisted.internet.task import Clock

from game_server.config import example_config_path, load_config
from game_server.games.blackjack.machine import (
    RoundMachine,
    TableClosed,
    TableOutOfService,
    transition_table_markdown,
)
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import Decision
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.session import TableSession
from game_server.rules.errors import NotYourTurn, WrongPhase
from game_server.rules.events import from_dict, to_dict
from game_server.table.api import TableState
from game_server.table.session import MemorySink, SealedShoes, TableError, simulation_seeds

KEY = bytes(range(32))
CONFIG = load_config(example_config_path())
TIMERS = CONFIG.timers
BET = {"blackjack": 1_000}


class RecordingListener:
    """Appends every step it is told about."""

    def __init__(self) -> None:
        self.steps: list[list[Any]] = []

    def step_logged(self, events: Sequence[Any]) -> None:
        self.steps.append(list(events))


class BrokenListener:
    def step_logged(self, events: Sequence[Any]) -> None:
        raise RuntimeError("this listener always fails")


def make_table(
    seed: int = 5, terminals: int = 3, delay: float = 0.0
) -> tuple[RoundMachine, Clock, MemorySink]:
    sink = MemorySink()
    shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), KEY, "test-key")
    session = TableSession(CONFIG, sink, shoes, {f"T{i}": i for i in range(1, terminals + 1)})
    session.open()
    clock = Clock()
    machine = RoundMachine(session, clock, next_round_delay=delay)
    for i in range(1, terminals + 1):
        machine.cash_in(f"T{i}", 1_000_000, "test")
    return machine, clock, sink


def decisions(sink: MemorySink, start: int = 0) -> list[Decision]:
    return [
        ev
        for step in sink.steps[start:]
        for ev in (from_dict(e.body) for e in step)
        if type(ev) is Decision
    ]


def bet_all(machine: RoundMachine, terminals: int = 3) -> None:
    for i in range(1, terminals + 1):
        machine.place_wagers(f"T{i}", BET)


def run_out(machine: RoundMachine, clock: Clock, start: int | None = None) -> None:
    """Advance the clock a second at a time until round ``start`` (default: the round in
    play) completes."""
    start = machine.session.round_id if start is None else start
    limit = 10_000
    for _ in range(limit):
        if machine.session.round_id != start or machine.session.round is None:
            return
        clock.advance(1)
    raise AssertionError("the round did not complete by countdown")


def until(machine: RoundMachine, clock: Clock, state: str, rounds: int = 200) -> None:
    """Play rounds unattended until a round reaches ``state`` (insurance or deciding)."""
    for _ in range(rounds):
        start = machine.session.round_id
        bet_all(machine)
        clock.advance(TIMERS.betting_seconds)
        if machine.machine_state == state:
            return
        run_out(machine, clock, start)
    raise AssertionError(f"no round reached {state}")


def test_betting_window_deals_only_with_wagers() -> None:
    """An open table with no wager never deals; the betting window starts at the first wager
    and the round is dealt exactly when it closes."""
    machine, clock, _ = make_table()
    machine.open()
    assert machine.machine_state == "idle" and machine.countdown is None
    clock.advance(10 * TIMERS.betting_seconds)
    game = machine.session.round
    assert game is not None and game.phase is Phase.BETTING and game.dealer == []
    machine.place_wagers("T1", BET)
    assert machine.countdown == "betting"
    assert machine.deadline() == clock.seconds() + TIMERS.betting_seconds
    clock.advance(TIMERS.betting_seconds - 0.01)
    machine.place_wagers("T2", BET)
    assert game.phase is Phase.BETTING and game.dealer == []
    clock.advance(0.01)
    assert game.dealer, "the window closed: the round is dealt"
    assert sorted(game.seats) == [1, 2]


def test_insurance_timeout_declines_with_auto() -> None:
    """When the insurance window closes, every seat that has not answered is declined by the
    countdown (logged auto=True); a seat that answered keeps its answer."""
    machine, clock, sink = make_table(seed=11)
    machine.open()
    until(machine, clock, "insurance")
    assert machine.countdown == "insurance"
    machine.answer_insurance("T1", "decline", 0)
    steps = len(sink.steps)
    clock.advance(TIMERS.insurance_seconds - 0.01)
    assert len(sink.steps) == steps, "nothing happens before the window closes"
    clock.advance(0.01)
    answers = [d for d in decisions(sink, steps - 1) if d.action == "no-insurance"]
    assert [(d.seat, d.auto) for d in answers] == [(1, False), (2, True), (3, True)]
    assert machine.machine_state != "insurance"


def test_answering_all_insurance_moves_on_at_once() -> None:
    """When every seat has answered the insurance offer, play moves on without waiting for
    the window; an unknown answer is refused."""
    machine, clock, _ = make_table(seed=11)
    machine.open()
    until(machine, clock, "insurance")
    with pytest.raises(TableError, match="not one of"):
        machine.answer_insurance("T1", "maybe", 0)
    for terminal in ("T1", "T2", "T3"):
        machine.answer_insurance(terminal, "decline", 0)
    assert machine.machine_state in ("deciding", "idle")
    assert machine.countdown != "insurance"


def test_decision_countdown_acts_with_countdown_default() -> None:
    """633b.5(p)(2), (z): when decision_seconds pass without a decision, the machine makes the
    round's countdown default for the hand to act, logged auto=True, and not a moment before."""
    machine, clock, sink = make_table()
    machine.open()
    until(machine, clock, "deciding")
    game = machine.session.round
    assert game is not None
    hand = game.to_act
    assert hand is not None
    expected = game.countdown_action()
    steps = len(sink.steps)
    clock.advance(TIMERS.decision_seconds - 0.01)
    assert len(sink.steps) == steps
    clock.advance(0.01)
    made = decisions(sink, steps)
    assert made[0] == Decision(hand.seat, hand.index, str(expected), 0, True)


def test_act_restarts_the_countdown() -> None:
    """A decision cancels the running countdown and starts a full one for the next hand; a
    decision for a hand that is not to act is refused by the engine."""
    machine, clock, sink = make_table(seed=3)
    machine.open()
    for _ in range(50):
        until(machine, clock, "deciding")
        game = machine.session.round
        assert game is not None and game.to_act is not None
        hand = game.to_act
        other = "T3" if hand.seat != 3 else "T1"
        with pytest.raises(NotYourTurn):
            machine.act(other, Action.STAND, 0, None)
        clock.advance(TIMERS.decision_seconds - 1)
        machine.act(f"T{hand.seat}", Action.STAND, hand.index, None)
        if machine.machine_state == "deciding":
            assert machine.deadline() == clock.seconds() + TIMERS.decision_seconds
            steps = len(sink.steps)
            clock.advance(TIMERS.decision_seconds - 0.01)
            assert len(sink.steps) == steps, "the old countdown was cancelled"
            return
        run_out(machine, clock)
    raise AssertionError("no round left a second hand to act")


def test_rounds_follow_one_another_after_the_pause() -> None:
    """When a round completes the next round starts after next_round_delay seconds."""
    machine, clock, _ = make_table(delay=3)
    machine.open()
    first = machine.session.round_id
    bet_all(machine)
    clock.advance(TIMERS.betting_seconds)
    if machine.session.round_id == first:
        while machine.machine_state != "between":
            clock.advance(1)
    if machine.machine_state == "between":
        assert machine.countdown == "next-round"
        with pytest.raises(TableError):
            machine.place_wagers("T1", BET)
        clock.advance(3)
    assert machine.machine_state == "idle"
    assert machine.session.round_id == first + 1


def test_close_lets_the_round_finish() -> None:
    """close() during a round in play stops new wagers, lets the round finish by its
    countdowns, and then the table is closed and deals nothing more."""
    machine, clock, _ = make_table()
    machine.open()
    until(machine, clock, "deciding")
    machine.close()
    assert machine.state is TableState.CLOSED
    assert machine.machine_state == "deciding"
    game = machine.session.round
    run_out(machine, clock)
    assert game is not None and game.phase is Phase.COMPLETE
    assert machine.machine_state == "closed" and machine.session.round is None
    with pytest.raises(TableClosed):
        machine.place_wagers("T1", BET)
    clock.advance(1_000)
    assert machine.session.round is None
    machine.open()
    assert machine.machine_state == "idle" and machine.state is TableState.OPEN


def test_close_during_betting_refuses_new_wagers_but_deals() -> None:
    """A round with wagers is in play: close() refuses further wagers, the round is dealt and
    played out, then the table closes."""
    machine, clock, _ = make_table()
    machine.open()
    machine.place_wagers("T1", BET)
    machine.close()
    with pytest.raises(TableClosed, match="closes after this round"):
        machine.place_wagers("T2", BET)
    start = machine.session.round_id
    clock.advance(TIMERS.betting_seconds)
    run_out(machine, clock, start)
    assert machine.machine_state == "closed"


def test_out_of_service() -> None:
    """out_of_service() stops dealing new rounds: an idle table goes out of service at once,
    a round in play is finished by its countdowns first; open() returns it to service."""
    machine, clock, _ = make_table()
    machine.open()
    machine.out_of_service("door open")
    assert machine.state is TableState.OUT_OF_SERVICE
    with pytest.raises(TableOutOfService, match="door open"):
        machine.place_wagers("T1", BET)
    machine.open()
    until(machine, clock, "deciding")
    machine.out_of_service("bill validator")
    assert machine.state is TableState.OUT_OF_SERVICE
    run_out(machine, clock)
    assert machine.machine_state == "out_of_service"
    clock.advance(1_000)
    machine.open()
    assert machine.machine_state == "idle"


def test_timer_error_takes_the_table_out_of_service() -> None:
    """An unexpected error in a countdown does not reach the reactor: it is logged and the
    table goes out of service."""
    machine, clock, _ = make_table()
    machine.open()
    machine.place_wagers("T1", BET)

    def broken() -> list[Any]:
        raise RuntimeError("shoe jammed")

    machine.session.deal = broken  # type: ignore[method-assign]
    clock.advance(TIMERS.betting_seconds)
    assert machine.state is TableState.OUT_OF_SERVICE
    assert machine.countdown is None and not clock.getDelayedCalls()


def test_listeners_get_every_step_after_it_is_logged() -> None:
    """Every logged step, timer-driven ones included, is handed to each listener after the
    session logged it, in log order; a failing listener does not stop the table."""
    machine, clock, sink = make_table()
    broken, recorder = BrokenListener(), RecordingListener()
    machine.add_listener(broken)
    machine.add_listener(recorder)
    first_step = len(sink.steps)
    machine.open()
    for _ in range(5):
        start = machine.session.round_id
        bet_all(machine)
        clock.advance(TIMERS.betting_seconds)
        run_out(machine, clock, start)
    machine.cash_out("T1", 500, "voucher")
    # The records themselves: the log holds each hole card sealed until its round closes.
    logged = [[to_dict(ev) for _, ev in step] for step in logged_steps(sink)[first_step:]]
    assert [[to_dict(ev) for ev in step] for step in recorder.steps] == logged
    assert machine.session.round_id == 6


def test_unattended_table_completes_rounds_and_conserves_money() -> None:
    """With nobody acting after their wagers, rounds complete by the countdowns alone, every
    decision is the countdown's (auto=True), and credits are conserved."""
    machine, clock, sink = make_table(seed=21)
    machine.open()
    for _ in range(40):
        start = machine.session.round_id
        bet_all(machine)
        clock.advance(TIMERS.betting_seconds)
        run_out(machine, clock, start)
    ledger = machine.session.ledger
    assert ledger.games_played == 40
    assert ledger.conserved() and ledger.in_play == 0
    made = decisions(sink)
    assert made and all(d.auto for d in made)


def test_wrong_phase_and_cash_out_in_play_are_refused() -> None:
    """A wager after the deal is refused by the engine (WrongPhase); cash out is refused while
    the terminal has wagers in play and pays out between rounds."""
    machine, clock, _ = make_table()
    machine.open()
    until(machine, clock, "deciding")
    with pytest.raises(WrongPhase):
        machine.place_wagers("T1", BET)
    with pytest.raises(TableError, match="wagers in play"):
        machine.cash_out("T1", None, "v")
    run_out(machine, clock)
    held = machine.session.balance("T2")
    assert machine.cash_out("T2", None, "v") == held
    assert machine.session.balance("T2") == 0


def test_meters_are_json_ready_integers() -> None:
    """meters() gives games played, credits in and out, wallets and per-wager meters as
    integer cents that encode as JSON."""
    machine, clock, _ = make_table()
    machine.open()
    start = machine.session.round_id
    bet_all(machine)
    clock.advance(TIMERS.betting_seconds)
    run_out(machine, clock, start)
    meters = json.loads(json.dumps(machine.meters()))
    assert meters["games_played"] == 1
    assert meters["credits_in"] == 3_000_000
    assert meters["wagers"]["blackjack"]["placed"] >= 3
    assert sum(meters["wallets"].values()) + meters["house_result"] == 3_000_000


def test_docs_diagram_is_the_transition_table() -> None:
    """docs/round-machine.md holds the machine's current transition table."""
    from pathlib import Path

    doc = Path(__file__).parents[2] / "docs" / "round-machine.md"
    assert transition_table_markdown() in doc.read_text(encoding="utf-8")
