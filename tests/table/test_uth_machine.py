"""The Ultimate Texas Hold 'Em round machine (58 Pa. Code 653a) on a fake clock: the betting
window, one shared decision countdown per street whose default the engine gives (check
preflop and on the flop, fold at the river), and decisions through the unchanged AMP ``Act``
command."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import pytest
from twisted.internet import task
from twisted.protocols import amp
from twisted.python.failure import Failure
from twisted.test import iosim

from game_server.config import example_path, load_config
from game_server.games.uth.machine import BettingClosed, NoInsurance, UthMachine, UthState
from game_server.games.uth.rules.events import UthDecision, UthRoundCompleted, UthWagerSettled
from game_server.games.uth.session import UnknownDecision, UthSession
from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity
from game_server.net.pki import Role
from game_server.net.server import TableServerFactory
from game_server.rules.errors import ActionNotAllowed
from game_server.table.api import TableMachine, TableState
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from shared import protocol as p

CONFIG = load_config(example_path("uth.toml"))
SEATS = {"T1": 1, "T2": 3}
BET = {"ante": 500, "blind": 500}
BETTING = CONFIG.timers.betting_seconds
DECISION = CONFIG.timers.decision_seconds


class Recorder:
    """A listener that keeps every logged step (a recording fake, not a mock)."""

    def __init__(self) -> None:
        self.steps: list[list[Any]] = []

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        self.steps.append(list(events))

    def events(self, kind: type) -> list[Any]:
        return [ev for step in self.steps for ev in step if type(ev) is kind]


def table(seed: int = 5) -> tuple[UthMachine, task.Clock, Recorder]:
    shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), bytes(32), "k")
    session = UthSession(CONFIG, MemorySink(), shoes, SEATS)
    session.open()
    clock = task.Clock()
    machine = UthMachine(session, clock)
    recorder = Recorder()
    machine.add_listener(recorder)
    for terminal in SEATS:
        machine.cash_in(terminal, 100_000, "test")
    machine.open()
    return machine, clock, recorder


def dealt(seed: int = 5) -> tuple[UthMachine, task.Clock, Recorder]:
    machine, clock, recorder = table(seed)
    for terminal in SEATS:
        machine.place_wagers(terminal, BET)
    clock.advance(BETTING)
    assert machine.machine_state is UthState.DECIDING
    return machine, clock, recorder


def test_the_machine_is_a_table_machine() -> None:
    """The unchanged AMP server serves it: it has every operation of TableMachine."""
    machine, _, _ = table()
    served: TableMachine = machine
    assert served.state is TableState.OPEN
    for name in ("place_wagers", "act", "answer_insurance", "view", "rules", "meters"):
        assert callable(getattr(machine, name))


def test_countdowns_check_preflop_and_flop_and_fold_at_the_river() -> None:
    """Nobody decides: each street's shared countdown acts for every seat with the engine's
    default, logged as the countdown's (``auto``): check, check, fold; the folded Antes and
    Blinds are lost and the next round opens."""
    machine, clock, recorder = dealt()
    countdown = machine.view("T1")["countdown"]
    assert countdown == {"for": "decision", "seconds_left": DECISION, "then": "check"}
    clock.advance(DECISION - 1)
    assert recorder.events(UthDecision) == []  # not before the countdown ends
    clock.advance(1)
    assert machine.view("T1")["phase"] == "flop"
    clock.advance(DECISION)
    assert machine.view("T2")["phase"] == "river"
    assert machine.view("T2")["countdown"]["then"] == "fold"
    clock.advance(DECISION)
    decisions = [(d.seat, d.street, d.action, d.auto) for d in recorder.events(UthDecision)]
    assert decisions == [
        (1, "preflop", "check", True),
        (3, "preflop", "check", True),
        (1, "flop", "check", True),
        (3, "flop", "check", True),
        (1, "river", "fold", True),
        (3, "river", "fold", True),
    ]
    assert len(recorder.events(UthRoundCompleted)) == 1
    settled = {(s.seat, s.wager): s.outcome for s in recorder.events(UthWagerSettled)}
    assert settled == {(1, "ante"): "lost", (1, "blind"): "lost", (3, "ante"): "lost",
                       (3, "blind"): "lost"}  # fmt: skip
    assert machine.machine_state is UthState.BETTING  # next round at once (no delay)
    assert machine.session.balance("T1") == 99_000


def test_a_seat_that_decides_is_never_overridden_by_the_countdown() -> None:
    """T1 bets 4 times the Ante before the flop through the Act action name; the countdown
    then acts only for T2, and T1 has no decision left on the later streets."""
    machine, clock, recorder = dealt()
    machine.act("T1", "bet", 0, 4)
    assert machine.view("T1")["actions"] == []
    assert machine.session.round is not None
    assert machine.session.round.seats[1].wagers["play"] == 2_000
    for _ in range(3):
        clock.advance(DECISION)
    mine = [(d.street, d.action, d.multiple, d.auto) for d in recorder.events(UthDecision)
            if d.seat == 1]  # fmt: skip
    assert mine == [("preflop", "play", 4, False)]
    theirs = [d.action for d in recorder.events(UthDecision) if d.seat == 3]
    assert theirs == ["check", "check", "fold"]
    assert len(recorder.events(UthRoundCompleted)) == 1


def test_a_street_ends_when_every_seat_has_decided() -> None:
    """The flop comes as soon as both seats decided, with a fresh countdown."""
    machine, clock, _ = dealt()
    clock.advance(DECISION - 3)
    machine.act("T1", "check", 0, 0)
    assert machine.view("T1")["phase"] == "preflop"
    machine.act("T2", "check", 0, 0)
    view = machine.view("T1")
    assert view["phase"] == "flop" and len(view["uth"]["board"]) == 3
    assert view["countdown"]["seconds_left"] == DECISION


def test_action_names_and_multiples() -> None:
    """ "play" is "bet"; a bet with amount 0 plays the largest multiple allowed; a fold before
    the river, a multiple with check, and a Blackjack action are refused."""
    machine, _, recorder = dealt()
    with pytest.raises(ActionNotAllowed, match="fold only after the turn and river"):
        machine.act("T1", "fold", 0, 0)
    with pytest.raises(ActionNotAllowed, match="takes no Play multiple"):
        machine.act("T1", "check", 0, 2)
    with pytest.raises(UnknownDecision, match="not an Ultimate Texas Hold 'Em decision"):
        machine.act("T1", "hit", 0, 0)
    with pytest.raises(ActionNotAllowed, match="3 or 4 times the Ante"):
        machine.act("T1", "bet", 0, 2)
    machine.act("T1", "bet", 0, 0)
    machine.act("T2", "PLAY", 0, 3)
    plays = [(d.seat, d.multiple) for d in recorder.events(UthDecision)]
    assert plays == [(1, 4), (3, 3)]


def test_insurance_is_refused_and_no_bets_after_the_deal() -> None:
    machine, _, _ = dealt()
    with pytest.raises(NoInsurance, match="no insurance"):
        machine.answer_insurance("T1", "insurance", 100)
    with pytest.raises(BettingClosed, match="no more bets"):
        machine.place_wagers("T1", {"trips": 500})
    with pytest.raises(ActionNotAllowed, match="no player position"):
        machine.place_wagers("T1", BET, 2)


def test_an_empty_betting_window_starts_again_without_dealing() -> None:
    machine, clock, _ = table()
    clock.advance(BETTING)
    clock.advance(BETTING)
    assert machine.machine_state is UthState.BETTING
    assert machine.session.round is not None and not machine.session.dealt()
    assert machine.countdown == "betting"
    assert machine.session.round_id == 1


def test_close_waits_for_the_round_in_play() -> None:
    """close() with wagers in play: the countdowns finish the round, then the table closes."""
    machine, clock, recorder = dealt()
    machine.close()
    assert machine.state is TableState.CLOSED and machine.machine_state is UthState.DECIDING
    for _ in range(3):
        clock.advance(DECISION)
    assert len(recorder.events(UthRoundCompleted)) == 1
    assert machine.machine_state is UthState.CLOSED


# ----------------------------------------------------------------- through the AMP server


class Client(amp.AMP):
    @p.ViewUpdate.responder
    def view_update(self, view: Any) -> dict[str, Any]:
        return {}


def call(client: Client, pump: iosim.IOPump, command: type[amp.Command], **kw: Any) -> Any:
    results: list[Any] = []
    client.callRemote(command, **kw).addBoth(results.append)
    pump.flush()
    return results[0]


def test_the_unchanged_act_command_carries_a_uth_decision() -> None:
    """The AMP server asks the machine to parse the action: "bet" with the multiple as the
    amount reaches the engine; "hit" is a declared BadRequest; insurance IllegalAction."""
    machine, clock, recorder = dealt()
    floor = FloorConfig(terminals=SEATS)
    identity = Identity(Role.TERMINAL, "T1", 0x11)
    factory = TableServerFactory(machine, floor, clock, lambda transport: identity)
    server = factory.buildProtocol(None)
    client, _, pump = iosim.connectedServerAndClient(lambda: server, Client)
    call(client, pump, p.Hello, version=p.PROTOCOL_VERSION, software="test")
    answer = call(client, pump, p.Act, request_id="1", action="bet", hand=0, amount=3)
    assert not isinstance(answer, Failure), answer
    assert answer["view"]["game"] == "uth"
    assert answer["view"]["uth"]["seats"][0]["play_multiple"] == 3
    refused = call(client, pump, p.Act, request_id="2", action="hit", hand=0, amount=0)
    assert isinstance(refused, Failure) and refused.check(p.BadRequest)
    insurance = call(client, pump, p.AnswerInsurance, request_id="3", choice="decline", amount=0)
    assert isinstance(insurance, Failure) and insurance.check(p.IllegalAction)
    assert [(d.seat, d.multiple) for d in recorder.events(UthDecision)] == [(1, 3)]


def test_a_server_of_several_uth_tables_routes_decisions_to_each_terminals_table() -> None:
    """``etg serve --tables 2``: the router has each terminal's table parse its decision,
    and each terminal's Act reaches its own table."""
    import dataclasses

    from game_server.table.router import TableRouter

    clock = task.Clock()
    machines = {}
    recorders = {}
    for k, terminal in ((1, "T1"), (2, "T2")):
        config = dataclasses.replace(CONFIG, table_id=f"UTH-01-{k}")
        shoes = SealedShoes(config, simulation_seeds(k, config.table_id), bytes(32), "k")
        session = UthSession(config, MemorySink(), shoes, {terminal: 1})
        session.open()
        machine = UthMachine(session, clock)
        recorders[terminal] = Recorder()
        machine.add_listener(recorders[terminal])
        machine.cash_in(terminal, 100_000, "test")
        machine.open()
        machine.place_wagers(terminal, BET)
        machines[config.table_id] = machine
    clock.advance(BETTING)
    router = TableRouter(machines, {"T1": "UTH-01-1", "T2": "UTH-01-2"})
    floor = FloorConfig(terminals={"T1": 1, "T2": 1}, tables=router.table_of)
    identities = {
        "T1": Identity(Role.TERMINAL, "T1", 0x11),
        "T2": Identity(Role.TERMINAL, "T2", 0x22),
    }
    for terminal, multiple in (("T1", 4), ("T2", 3)):
        identity = identities[terminal]
        factory = TableServerFactory(router, floor, clock, lambda transport, i=identity: i)
        server = factory.buildProtocol(None)
        client, _, pump = iosim.connectedServerAndClient(lambda s=server: s, Client)
        call(client, pump, p.Hello, version=p.PROTOCOL_VERSION, software="test")
        answer = call(client, pump, p.Act, request_id="1", action="bet", hand=0, amount=multiple)
        assert not isinstance(answer, Failure), answer
    assert [d.multiple for d in recorders["T1"].events(UthDecision)] == [4]
    assert [d.multiple for d in recorders["T2"].events(UthDecision)] == [3]
