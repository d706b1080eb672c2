"""The hybrid round machine (58 Pa. Code 633b.5): stadium play on a fake clock.

Both hybrid table types run under :class:`HybridMachine` over a MemorySink session; every
countdown is driven by ``twisted.internet.task.Clock`` and a recording listener checks after
every logged step that the credits are conserved.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import pytest
from logged_records import logged_steps
from twisted.internet.task import Clock

from game_server.config import TableConfig, example_path, load_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import RoundCompleted
from game_server.games.hybrid.machine import (
    BettingClosed,
    HybridMachine,
    HybridState,
    TableClosed,
)
from game_server.games.hybrid.session import HybridSession
from game_server.rules.events import to_dict
from game_server.rules.wagers.base import TableType
from game_server.table.api import TableState
from game_server.table.session import MemorySink, SealedShoes, TableError, simulation_seeds

THREE = load_config(example_path("hybrid-three-position.toml"))
NO_HOLE = load_config(example_path("hybrid-no-hole-card.toml"))
BOTH = pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
KEY = bytes(range(32))
TERMINALS = ("T1", "T2", "T3")
POSITIONS = {"T1": 2, "T2": 2, "T3": 1}
BET = {"blackjack": 1_000}


class RecordingListener:
    """Appends every step it is told about and checks the credits are conserved then."""

    def __init__(self, session: HybridSession) -> None:
        self.session = session
        self.steps: list[list[Any]] = []
        self.terminals: list[Collection[str] | None] = []

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        assert self.session.ledger.conserved()
        self.steps.append(list(events))
        self.terminals.append(terminals)


def make_table(
    config: TableConfig, seed: int = 5, delay: float = 0.0
) -> tuple[HybridMachine, Clock, MemorySink, RecordingListener]:
    sink = MemorySink()
    shoes = SealedShoes(config, simulation_seeds(seed, config.table_id), KEY, "test-key")
    session = HybridSession(config, sink, shoes, TERMINALS)
    session.open()
    clock = Clock()
    machine = HybridMachine(session, clock, next_round_delay=delay)
    listener = RecordingListener(session)
    machine.add_listener(listener)
    for terminal in TERMINALS:
        machine.cash_in(terminal, 1_000_000, "test")
    return machine, clock, sink, listener


def join(machine: HybridMachine, terminal: str) -> None:
    three = machine.session.config.table_type == "hybrid"
    machine.join(terminal, BET, POSITIONS[terminal] if three else None)


def logged(sink: MemorySink, start: int = 0) -> list[tuple[str | None, Any]]:
    """The log's records from step ``start``, each round whole (its sealed cards filled)."""
    return [item for step in logged_steps(sink)[start:] for item in step]


def decisions(sink: MemorySink, start: int = 0) -> list[tuple[str | None, Any]]:
    """(terminal, decision) for every player decision logged from step ``start``."""
    return [(t, ev) for t, ev in logged(sink, start) if hasattr(ev, "auto")]


def run_out(machine: HybridMachine, clock: Clock, start: int) -> None:
    """Advance the clock a second at a time until round ``start`` completes."""
    for _ in range(10_000):
        if machine.session.round_id != start or machine.session.round is None:
            return
        clock.advance(1)
    raise AssertionError("the round did not complete by countdown")


def until(machine: HybridMachine, clock: Clock, state: HybridState) -> None:
    """Play rounds unattended (every terminal joins) until one reaches ``state``."""
    for _ in range(300):
        start = machine.session.round_id
        for terminal in TERMINALS:
            join(machine, terminal)
        clock.advance(machine.session.config.timers.betting_seconds)
        if machine.machine_state is state:
            return
        run_out(machine, clock, start)
    raise AssertionError(f"no round reached {state}")


@BOTH
def test_betting_window_reopens_when_nobody_joined(config: TableConfig) -> None:
    """The betting window opens with the table; when it ends with nobody joined nothing is
    dealt and a new window opens on the same round."""
    machine, clock, sink, _ = make_table(config)
    machine.open()
    seconds = config.timers.betting_seconds
    assert machine.machine_state is HybridState.BETTING and machine.countdown == "betting"
    assert machine.seconds_left() == seconds
    round_id, steps = machine.session.round_id, len(sink.steps)
    clock.advance(seconds)
    assert machine.machine_state is HybridState.BETTING and machine.countdown == "betting"
    assert machine.deadline() == clock.seconds() + seconds
    assert machine.session.round_id == round_id and len(sink.steps) == steps


@BOTH
def test_betting_window_deals_after_its_seconds(config: TableConfig) -> None:
    """633b.5(k): a round someone joined is dealt exactly when the betting window ends, and
    no more bets are taken after the deal."""
    machine, clock, sink, _ = make_table(config)
    machine.open()
    clock.advance(2)
    join(machine, "T1")
    steps = len(sink.steps)
    clock.advance(config.timers.betting_seconds - 3)
    assert machine.machine_state is HybridState.BETTING and len(sink.steps) == steps
    assert machine.seconds_left() == 1
    clock.advance(1)
    dealt = logged(sink, steps)
    assert dealt and dealt[0][0] is None  # the deal: the dealer's and the shared cards
    if machine.session.round_id == 1:
        assert machine.machine_state in (HybridState.INSURANCE, HybridState.DECIDING)
        with pytest.raises(BettingClosed):
            join(machine, "T2")
    else:  # settled in the deal (a dealer Blackjack): the next window is open
        assert machine.session.ledger.games_played == 1
        assert machine.machine_state is HybridState.BETTING


@BOTH
def test_silent_players_are_stood_by_the_countdown(config: TableConfig) -> None:
    """633b.5(p)(2), (z): players who never act get the countdown's default, logged with
    ``auto=True``, and the round completes; the credits are conserved throughout."""
    machine, clock, sink, _ = make_table(config)
    machine.open()
    start = len(sink.steps)
    for terminal in TERMINALS:
        join(machine, terminal)
    clock.advance(config.timers.betting_seconds)
    run_out(machine, clock, 1)
    made = decisions(sink, start)
    assert made and all(ev.auto for _, ev in made)
    assert any(type(ev) is RoundCompleted for _, ev in logged(sink, start))
    assert machine.session.ledger.games_played == 1
    assert machine.session.ledger.conserved()
    assert machine.machine_state is HybridState.BETTING and machine.session.round_id == 2


@BOTH
def test_a_player_who_acts_is_not_overridden(config: TableConfig) -> None:
    """Every player decides for himself: a stand before the countdown is logged as his own
    (not ``auto``), does not restart the others' shared countdown, and the countdown's default
    is never applied to his finished hand."""
    machine, clock, sink, _ = make_table(config)
    machine.open()
    until(machine, clock, HybridState.DECIDING)
    who = next(t for t in machine.pending() if machine.session.to_act(t) is not None)
    others = [t for t in machine.pending() if t != who]
    hand = machine.session.to_act(who)
    assert hand is not None
    clock.advance(1)
    deadline = machine.deadline()
    start = len(sink.steps)
    machine.act(who, Action.STAND, hand)
    mine = [(ev.action, ev.auto) for t, ev in decisions(sink, start) if t == who]
    assert mine == [("stand", False)]
    if machine.session.round is not None:
        assert who not in machine.pending()
        if others:
            assert machine.deadline() == deadline
    run_out(machine, clock, machine.session.round_id)
    mine = [(ev.action, ev.auto) for t, ev in decisions(sink, start) if t == who]
    assert mine == [("stand", False)]
    assert machine.session.ledger.conserved()


@BOTH
def test_insurance_window_declines_for_the_silent(config: TableConfig) -> None:
    """633b.5(z), 633a.8: when the insurance window ends every player who did not answer is
    declined by the countdown; an answer given in time stands."""
    machine, clock, sink, _ = make_table(config)
    machine.open()
    until(machine, clock, HybridState.INSURANCE)
    assert machine.countdown == "insurance"
    silent = set(machine.session.pending_insurance())
    answering = sorted(silent)[0]
    silent.discard(answering)
    start = len(sink.steps)
    machine.answer_insurance(answering, "decline", 0)
    clock.advance(config.timers.insurance_seconds)
    answers = [(t, ev) for t, ev in decisions(sink, start) if ev.action == "no-insurance"]
    assert (answering, False) in [(t, ev.auto) for t, ev in answers]
    assert {t for t, ev in answers if ev.auto} == silent
    assert not machine.session.pending_insurance()
    assert machine.session.ledger.conserved()


@BOTH
def test_a_new_round_starts_after_the_delay(config: TableConfig) -> None:
    """After a round settles the table pauses ``next_round_delay`` seconds, then opens the
    next round's betting window."""
    machine, clock, _, _ = make_table(config, delay=4)
    machine.open()
    join(machine, "T1")
    clock.advance(config.timers.betting_seconds)
    run_out(machine, clock, 1)
    assert machine.machine_state is HybridState.BETWEEN and machine.countdown == "next-round"
    assert machine.session.round is None
    clock.advance(3)
    assert machine.machine_state is HybridState.BETWEEN
    clock.advance(1)
    assert machine.machine_state is HybridState.BETTING and machine.countdown == "betting"
    assert machine.session.round_id == 2 and machine.session.round is not None


@BOTH
def test_listeners_are_told_after_each_step(config: TableConfig) -> None:
    """Every logged step is handed to the listeners, in order, with the table's terminals
    (the records themselves: the log holds the hole card sealed, its card null, until the
    round closes); the credits are conserved whenever a listener is told."""
    machine, clock, sink, listener = make_table(config)
    machine.open()
    for _ in range(3):
        start = machine.session.round_id
        for terminal in TERMINALS:
            join(machine, terminal)
        clock.advance(config.timers.betting_seconds)
        run_out(machine, clock, start)
    told = [[to_dict(ev) for ev in step] for step in listener.steps]
    # The records themselves: the log holds the hole card sealed until the round closes.
    whole = [[to_dict(ev) for _, ev in step] for step in logged_steps(sink)[1:]]
    assert told == whole  # [0]: TableOpened
    sealed = sum(1 for step in sink.steps for row in step if row.body.get("card", "") is None)
    hole_card = config.table_type is TableType.HYBRID  # the three-position table
    assert (sealed > 0) if hole_card else (sealed == 0)
    assert set(listener.terminals) == {TERMINALS}
    assert machine.session.ledger.games_played == 3


@BOTH
def test_cash_out_is_refused_with_wagers_in_play(config: TableConfig) -> None:
    """A terminal cannot cash out while its wagers are in play; after the round it can."""
    machine, clock, _, _ = make_table(config)
    machine.open()
    join(machine, "T1")
    with pytest.raises(TableError, match="wagers in play"):
        machine.cash_out("T1", None, "voucher")
    clock.advance(config.timers.betting_seconds)
    run_out(machine, clock, 1)
    balance = machine.session.balance("T1")
    assert machine.cash_out("T1", None, "voucher") == balance
    assert machine.session.balance("T1") == 0
    meters = machine.meters()
    assert meters["wallets"]["T1"] == 0 and meters["games_played"] == 1
    assert meters["credits_out"] == balance
    assert machine.session.ledger.conserved()


@BOTH
def test_close_waits_for_the_round_in_play(config: TableConfig) -> None:
    """Closing with wagers in play refuses new bets and lets the countdowns finish the
    round; an open table with nobody joined closes at once and reopens the window."""
    machine, clock, _, _ = make_table(config)
    machine.open()
    machine.close()
    assert machine.state is TableState.CLOSED and machine.countdown is None
    with pytest.raises(TableClosed):
        join(machine, "T1")
    machine.open()
    assert machine.machine_state is HybridState.BETTING
    join(machine, "T1")
    machine.close()
    assert machine.state is TableState.CLOSED
    assert machine.machine_state is HybridState.BETTING
    with pytest.raises(TableClosed):
        join(machine, "T2")
    clock.advance(config.timers.betting_seconds)
    run_out(machine, clock, 1)
    assert machine.machine_state is HybridState.CLOSED and machine.countdown is None
    assert machine.session.ledger.games_played == 1
    assert machine.session.round is None and not machine.session.pending()


def test_each_community_card_step_gets_a_fresh_countdown() -> None:
    """633b.5(aa): at the no-hole-card table, once every pending player has decided the next
    community card is dealt and the players it waits for get a fresh decision countdown."""
    machine, clock, _, _ = make_table(NO_HOLE)
    machine.open()
    for _ in range(100):
        until(machine, clock, HybridState.DECIDING)
        clock.advance(1)
        start = machine.session.round_id
        for terminal in machine.pending():
            hand = machine.session.to_act(terminal)
            assert hand is not None
            machine.act(terminal, Action.HIT, hand)
        if machine.session.round is not None and machine.pending():
            assert machine.machine_state is HybridState.DECIDING
            assert machine.seconds_left() == NO_HOLE.timers.decision_seconds
            return
        run_out(machine, clock, start)
    raise AssertionError("no round dealt a second decision step")


@BOTH
def test_a_countdown_error_takes_the_table_out_of_service(
    config: TableConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected error when the betting window ends takes the table out of service (no
    further countdown runs); opening it again resumes the round's betting window."""
    machine, clock, _, _ = make_table(config)
    machine.open()
    join(machine, "T1")

    def broken() -> list[Any]:
        raise RuntimeError("the shoe jammed")

    with monkeypatch.context() as patch:
        patch.setattr(machine.session, "deal", broken)
        clock.advance(config.timers.betting_seconds)
    assert machine.state is TableState.OUT_OF_SERVICE and machine.countdown is None
    with pytest.raises(TableError):
        join(machine, "T2")
    machine.open()
    assert machine.machine_state is HybridState.BETTING and machine.countdown == "betting"
    clock.advance(config.timers.betting_seconds)
    run_out(machine, clock, 1)
    assert machine.session.ledger.games_played == 1 and machine.session.ledger.conserved()
