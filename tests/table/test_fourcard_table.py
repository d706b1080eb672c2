"""The live Four Card Poker table (58 Pa. Code 641a, 641b.1): the machine's countdowns (a
silent seat folds), what each terminal may see (nothing hidden sent early: every view of a
whole game scanned), the log verified with credits conserved, and crash recovery that
resumes exactly where the table stopped.

A scripted game (T1 with every wager by the strategy; T2 with an Ante and Aces Up by the
strategy; T3 with an Ante, leaving its decision to the countdown) runs under
:class:`FourCardMachine` on a real event log; stopped at every third append, recovered by
:func:`open_tables` (as ``etg serve`` does) and played on, the whole log must equal the
uninterrupted run's, verify and conserve credits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from crash_log import Crash, Sink, events, verified_fold
from twisted.internet.task import Clock

from game_server.config import example_path, load_config
from game_server.eventlog import EventLog, system_clock
from game_server.games.fourcard.machine import FourCardMachine, State
from game_server.games.fourcard.rules import strategy
from game_server.games.fourcard.rules.events import DEALER, FourCardDealerRevealed
from game_server.games.fourcard.session import FourCardLedger, FourCardSession
from game_server.keys import init_keys
from game_server.table.api import BettingClosed, NotInRound
from game_server.table.recovery import RecoveryReport, open_tables
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from tools.cli import main

CONFIG = load_config(example_path("fourcard.toml"))
SEED = 5
ROUNDS = 6
TERMINALS = {"T1": 1, "T2": 2, "T3": 4}
WAGERS = {
    "T1": {"ante": 500, "aces_up": 100, "four_card_progressive": 100, "five_card_progressive": 500},
    "T2": {"ante": 1_000, "aces_up": 500},
    "T3": {"ante": 500},
}
MAX_INPUTS = 2_000


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("certs")
    init_keys(path)
    return path


def open_table(db: Path, certs: Path) -> tuple[FourCardSession, RecoveryReport, EventLog]:
    log, tables = open_tables(
        [CONFIG],
        db,
        certs,
        lambda _: TERMINALS,
        clock=system_clock,
        seeds=lambda table: simulation_seeds(SEED, table.table_id),
    )
    session, report = tables[0]
    assert isinstance(session, FourCardSession)
    return session, report, log


def next_input(machine: FourCardMachine, clock: Clock) -> None:
    """One input chosen from the table's state alone (a recovered table plays on alike)."""
    session = machine.session
    where = machine.machine_state
    if where is State.BETTING:
        game = session.round
        for terminal, wagers in WAGERS.items():
            if session.balance(terminal) < 20_000:
                machine.cash_in(terminal, 50_000, "script")
                return
            if game is not None and TERMINALS[terminal] not in game.seats:
                machine.place_wagers(terminal, wagers)
                return
    elif where is State.DECIDING:
        pending = [t for t in session.pending() if t != "T3"]
        game = session.round
        if pending and game is not None:
            terminal = pending[0]
            _, multiple = strategy.decide(game, TERMINALS[terminal])
            machine.act(terminal, f"play{multiple}" if multiple else "fold", 0, None)
            return
    clock.advance(max(1.0, machine.seconds_left() or 1.0))


def play(session: FourCardSession, rounds: int = ROUNDS) -> FourCardMachine:
    clock = Clock()
    machine = FourCardMachine(session, clock)
    machine.open()
    for _ in range(MAX_INPUTS):
        if session.ledger.games_played >= rounds:
            return machine
        next_input(machine, clock)
        if isinstance(session.sink, Sink) and session.sink.crashed:
            raise Crash
        assert machine.machine_state is not State.OUT_OF_SERVICE, "the table failed"
    raise AssertionError(f"{rounds} rounds not played in {MAX_INPUTS} inputs")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> dict[str, Any]:
    db = tmp_path_factory.mktemp("ref") / "ref.db"
    session, report, log = open_table(db, certs)
    assert report.opened
    sink = Sink(log)
    session.sink = sink
    play(session)
    log.close()
    return {"events": events(db), "appends": sink.appends, "db": db}


def test_the_script_plays_every_step_and_the_log_verifies(
    reference: dict[str, Any], certs: Path
) -> None:
    """Whole rounds with plays and folds by the players and folds by the countdown, the
    meters fed; the log verifies (chain, shoes, replay, ledger) and conserves credits."""
    logged = [body for *_, body in reference["events"]]
    assert sum(b["kind"] == "fourcard_round_completed" for b in logged) == ROUNDS
    decisions = [b for b in logged if b["kind"] == "fourcard_decision"]
    assert any(d["auto"] and d["action"] == "fold" for d in decisions)  # T3, by the countdown
    assert any(not d["auto"] and d["action"] == "play" for d in decisions)
    assert any(b["kind"] == "meter_contributed" for b in logged)
    assert any(b["kind"] == "mystery_trigger_drawn" for b in logged)
    ledger = verified_fold(reference["db"], certs, FourCardLedger())
    assert ledger.games_played == ROUNDS


def test_recovery_resumes_exactly_where_it_stopped(
    reference: dict[str, Any], certs: Path, tmp_path: Path
) -> None:
    phases: set[str] = set()
    for limit in range(2, reference["appends"], 3):
        db = tmp_path / f"crash-{limit}.db"
        session, _, log = open_table(db, certs)
        session.sink = Sink(log, limit)
        with pytest.raises(Crash):
            play(session)
        log.close(checkpoint=False)
        stopped = session.round_id
        del session

        recovered, report, log = open_table(db, certs)
        assert not report.opened
        assert report.wallets == verified_fold(db, certs, FourCardLedger()).wallets
        if report.interrupted_round is not None:
            assert recovered.round is not None
            assert report.interrupted_round == recovered.round_id == stopped
            phases.add(str(report.phase))
        play(recovered)
        log.close()
        assert events(db) == reference["events"], f"the run stopped at append {limit} differs"
    assert {"betting", "deciding"} <= phases, phases


def machine_with_views() -> tuple[FourCardMachine, Clock, list[dict[str, dict[str, Any]]]]:
    shoes = SealedShoes(CONFIG, simulation_seeds(11, CONFIG.table_id), bytes(32), "k")
    session = FourCardSession(CONFIG, MemorySink(), shoes, TERMINALS)
    session.open()
    clock = Clock()
    machine = FourCardMachine(session, clock, next_round_delay=3.0)
    views: list[dict[str, dict[str, Any]]] = []

    class Snap:
        def step_logged(self, events: Any, terminals: Any = None) -> None:
            views.append({t: json.loads(json.dumps(machine.view(t))) for t in TERMINALS})

    machine.add_listener(Snap())
    for terminal in TERMINALS:
        machine.cash_in(terminal, 100_000, "test")
    machine.open()
    return machine, clock, views


def test_no_view_shows_a_card_before_its_terminal_may_know_it() -> None:
    """Every view after every step of three rounds: the dealer's five face-down cards appear
    in no view until the dealer is revealed, another seat's cards in no view ever."""
    machine, clock, views = machine_with_views()
    session = machine.session
    rounds: list[Any] = []
    for _ in range(3):
        for terminal, wagers in WAGERS.items():
            machine.place_wagers(terminal, wagers)
        clock.advance(CONFIG.timers.betting_seconds)
        game = session.round
        assert game is not None
        rounds.append((len(views), game, session.round_id))
        machine.act("T1", "play3", 0, None)
        clock.advance(CONFIG.timers.decision_seconds)  # T2 and T3 fold by the countdown
        clock.advance(3.0)
    scanned = 0
    for start, game, round_id in rounds:
        hidden_dealer = {f'"{c}"' for c in game.dealer[1:]}
        for index in range(start - 1, len(views)):
            step = views[index]
            if step["T1"]["round"] != round_id:
                break
            revealed = any(v["fourcard"]["dealer_hand"] for v in step.values())
            for terminal, view in step.items():
                text = json.dumps(view)
                others = {
                    f'"{c}"'
                    for seat, state in game.seats.items()
                    if seat != TERMINALS[terminal]
                    for c in state.cards
                }
                mine = {f'"{c}"' for c in game.seats[TERMINALS[terminal]].cards}
                assert not any(
                    c in text for c in others - mine - hidden_dealer - {f'"{game.dealer[0]}"'}
                ), (index, terminal)
                if not revealed:
                    assert not any(c in text for c in hidden_dealer - mine), (index, terminal)
                scanned += 1
    assert scanned > 30
    shown = [v["T2"] for v in views if v["T2"]["fourcard"]["dealer_hand"]]
    assert shown and all(
        len(v["dealer"]["cards"]) == 6 and None not in v["dealer"]["cards"] for v in shown
    )
    deciding = [v["T2"] for v in views if v["T2"]["machine"] == "deciding"]
    assert deciding and all(v["dealer"]["cards"][1:] == [None] * 5 for v in deciding)


def test_a_silent_seat_folds_when_the_countdown_ends_and_inputs_out_of_turn_are_refused() -> None:
    machine, clock, _ = machine_with_views()
    for terminal, wagers in WAGERS.items():
        machine.place_wagers(terminal, wagers)
    with pytest.raises(BettingClosed.__mro__[0]):
        clock.advance(CONFIG.timers.betting_seconds)
        machine.place_wagers("T1", WAGERS["T1"])
    view = machine.view("T3")
    assert view["actions"] == ["fold", "play1", "play2", "play3"]
    assert view["countdown"]["for"] == "decision" and view["countdown"]["then"] == "fold"
    assert view["dealer"]["cards"][0] is not None and view["dealer"]["cards"][1:] == [None] * 5
    machine.act("T1", "play2", 0, None)
    machine.act("T2", "fold", 0, None)
    clock.advance(CONFIG.timers.decision_seconds)
    folded = [s for s in machine.settlements("T3") if s["wager"] == "ante"]
    assert folded and folded[0]["paid"] == 0 and folded[0]["line"].startswith("Fold")
    with pytest.raises(NotInRound):
        machine.act("T3", "play1", 0, None)


def sim_log(tmp_path: Path, rounds: int, seats: int, seed: int) -> tuple[Path, FourCardLedger]:
    """``etg sim --log`` on the example table; the log verified and folded."""
    runner = CliRunner()
    assert runner.invoke(main, ["certs", "init", str(tmp_path / "k")]).exit_code == 0
    db = tmp_path / "sim.db"
    config = str(example_path("fourcard.toml"))
    args = ["--rounds", str(rounds), "--seats", str(seats), "--seed", str(seed), "--json"]
    log = ["--log", str(db), "--certs", str(tmp_path / "k")]
    result = runner.invoke(main, ["sim", "--config", config, *args, *log])
    assert result.exit_code == 0, result.output
    return db, verified_fold(db, tmp_path / "k", FourCardLedger())


def test_etg_sim_log_writes_a_log_that_verifies(tmp_path: Path) -> None:
    _, ledger = sim_log(tmp_path, 15, 3, 2)
    assert ledger.games_played == 15


def test_a_logged_round_with_envy_bonuses_verifies(tmp_path: Path) -> None:
    """641a.1: in round 20 of this seed (six seats, every wager at its minimum) seat 3's best
    four cards are a straight flush: its Four-Card Progressive pays the line, the five other
    seats are paid the Four-Card Envy Bonus, seat 3 none; the log verifies (replay included)."""
    db, ledger = sim_log(tmp_path, 20, 6, 6)
    assert ledger.games_played == 20
    envy = [body for _, _, _, body in events(db) if body.get("wager") == "four_card_envy"]
    assert sorted(b["seat"] for b in envy) == [1, 2, 4, 5, 6]
    assert {b["line"] for b in envy} == {
        "Four-Card Envy Bonus: Straight Flush at seat 3 $10.00 (641a.1)"
    }
    assert all((b["stake"], b["paid"], b["outcome"]) == (0, 1000, "won") for b in envy)


_ = (DEALER, FourCardDealerRevealed)
