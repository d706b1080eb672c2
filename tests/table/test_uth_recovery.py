"""Crash recovery of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a): the table resumes
from its log exactly where it stopped.

A scripted game (three terminals; T1 with every wager, T2 with Ante, Blind and Trips, both
deciding by the strategy; T3 leaves every decision to the countdown) runs under
:class:`UthMachine` on a real event log. The run is stopped at chosen appends (an append that
never happens: the process is gone), the table is recovered from the log by
:func:`open_tables` (as ``etg serve`` does) and the script plays on: the whole log must equal
the log of an uninterrupted run with the same seed, verify, and conserve credits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from crash_log import Crash, Sink, events, verified_fold
from twisted.internet.task import Clock

from game_server.config import example_path, load_config
from game_server.eventlog import EventLog, system_clock
from game_server.games.uth.machine import UthMachine, UthState
from game_server.games.uth.rules import strategy
from game_server.games.uth.rules.game import Action
from game_server.games.uth.session import UthLedger, UthSession
from game_server.keys import init_keys
from game_server.table.recovery import RecoveryReport, SeatingChanged, open_tables
from game_server.table.session import simulation_seeds

CONFIG = load_config(example_path("uth.toml"))
SEED = 3
ROUNDS = 6
TERMINALS = {"T1": 1, "T2": 2, "T3": 5}
WAGERS = {
    "T1": {
        "ante": 500,
        "blind": 500,
        "trips": 500,
        "progressive": 100,
        "five_card_player": 100,
        "five_card_dealer": 500,
    },
    "T2": {"ante": 1_000, "blind": 1_000, "trips": 500},
    "T3": {"ante": 500, "blind": 500},
}
#: A script that has not finished after this many inputs is stuck.
MAX_INPUTS = 2_000
_NAMES = {Action.CHECK: "check", Action.PLAY: "bet", Action.FOLD: "fold"}


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("certs")
    init_keys(path)
    return path


def open_table(
    db: Path, certs: Path, terminals: dict[str, int] | None = None
) -> tuple[UthSession, RecoveryReport, EventLog]:
    log, tables = open_tables(
        [CONFIG],
        db,
        certs,
        lambda _: TERMINALS if terminals is None else terminals,
        clock=system_clock,
        seeds=lambda table: simulation_seeds(SEED, table.table_id),
    )
    session, report = tables[0]
    assert isinstance(session, UthSession)
    return session, report, log


def next_input(machine: UthMachine, clock: Clock) -> None:
    """One input of the script, chosen from the table's state alone (so that a recovered
    table continues the same game)."""
    session = machine.session
    where = machine.machine_state
    if where is UthState.BETTING:
        game = session.round
        for terminal, wagers in WAGERS.items():
            if session.balance(terminal) < 50_000:
                machine.cash_in(terminal, 100_000, "script")
                return
            if game is not None and TERMINALS[terminal] not in game.seats:
                machine.place_wagers(terminal, wagers)
                return
    elif where is UthState.DECIDING:
        pending = [t for t in session.pending() if t != "T3"]
        game = session.round
        if pending and game is not None:
            terminal = pending[0]
            action, multiple = strategy.decide(game, TERMINALS[terminal])
            machine.act(terminal, _NAMES[action], 0, multiple)
            return
    clock.advance(max(1.0, machine.seconds_left() or 1.0))


def play(session: UthSession, rounds: int = ROUNDS) -> UthMachine:
    """Run the script until ``rounds`` rounds are completed."""
    clock = Clock()
    machine = UthMachine(session, clock)
    machine.open()
    for _ in range(MAX_INPUTS):
        if session.ledger.games_played >= rounds:
            return machine
        next_input(machine, clock)
        if isinstance(session.sink, Sink) and session.sink.crashed:
            raise Crash
        assert machine.machine_state is not UthState.OUT_OF_SERVICE, "the table failed"
    raise AssertionError(f"{rounds} rounds not played in {MAX_INPUTS} inputs")


def check_log(db: Path, certs: Path) -> UthLedger:
    return verified_fold(db, certs, UthLedger())


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> dict[str, Any]:
    """An uninterrupted run: its log and the number of appends."""
    db = tmp_path_factory.mktemp("ref") / "ref.db"
    session, report, log = open_table(db, certs)
    assert report.opened
    sink = Sink(log)
    session.sink = sink
    play(session)
    log.close()
    return {"events": events(db), "appends": sink.appends, "db": db}


def crash_limits(appends: int) -> list[int]:
    """Every third append of the run (each step of several rounds is hit)."""
    return list(range(2, appends, 3))


def test_the_script_reaches_every_step(reference: dict[str, Any], certs: Path) -> None:
    """The reference run has decisions by players and by the countdown on every street, Play
    Wagers, folds and meter contributions; it verifies and conserves credits."""
    logged = [body for *_, body in reference["events"]]
    assert sum(b["kind"] == "uth_round_completed" for b in logged) == ROUNDS
    decisions = [b for b in logged if b["kind"] == "uth_decision"]
    assert {d["street"] for d in decisions if d["auto"]} == {"preflop", "flop", "river"}
    assert any(not d["auto"] and d["action"] == "play" for d in decisions)
    assert any(b["kind"] == "meter_contributed" for b in logged)
    assert check_log(reference["db"], certs).games_played == ROUNDS


def test_recovery_resumes_exactly_where_it_stopped(
    reference: dict[str, Any], certs: Path, tmp_path: Path
) -> None:
    """Stopped at every third append of six rounds, recovered, played on: the log is the
    uninterrupted run's, it verifies, and every credit is where the log says."""
    phases: set[str] = set()
    for limit in crash_limits(reference["appends"]):
        db = tmp_path / f"crash-{limit}.db"
        session, _, log = open_table(db, certs)
        session.sink = Sink(log, limit)
        with pytest.raises(Crash):
            play(session)
        log.close(checkpoint=False)  # the process is gone: no shutdown checkpoint
        stopped = session.round_id
        del session

        recovered, report, log = open_table(db, certs)
        assert not report.opened, "a restart with the same Rules Submission logs nothing"
        assert report.wallets == check_log(db, certs).wallets
        if report.interrupted_round is not None:
            assert recovered.round is not None
            assert report.interrupted_round == recovered.round_id == stopped
            phases.add(str(report.phase))
        play(recovered)
        log.close()
        assert events(db) == reference["events"], f"the run stopped at append {limit} differs"
        assert check_log(db, certs).games_played == ROUNDS
    # Crashes hit a round in betting and on each street.
    assert {"betting", "preflop", "flop", "river"} <= phases, phases


def test_a_dealt_round_resumes_with_its_cards_and_the_deck_after_them(
    certs: Path, tmp_path: Path
) -> None:
    """The resumed round is the logged one (its seats, their cards, who still decides) and
    its next community card is the deck's next card."""
    db = tmp_path / "mid.db"
    session, _, log = open_table(db, certs)
    clock = Clock()
    machine = UthMachine(session, clock)
    machine.open()
    for _ in range(MAX_INPUTS):
        if session.dealt() and session.round is not None and session.round.board:
            break
        next_input(machine, clock)
    before = {t: machine.view(t) for t in TERMINALS}
    assert session.shoe is not None
    position = session.shoe.position
    log.close(checkpoint=False)

    recovered, report, log = open_table(db, certs)
    assert report.interrupted_round == session.round_id
    assert str(report.phase) == "flop"
    assert recovered.shoe is not None and recovered.shoe.position == position
    assert recovered.pending() == session.pending()
    resumed = UthMachine(recovered, Clock())
    resumed.open()
    for terminal in TERMINALS:
        after = resumed.view(terminal)
        for key in ("round", "phase", "uth", "to_act", "actions", "credits"):
            assert after[key] == before[terminal][key], (terminal, key)
    assert recovered.round is not None and recovered.round._source is recovered.shoe
    log.close()


def test_a_round_resumes_only_with_its_seating(certs: Path, tmp_path: Path) -> None:
    """A terminal moved to another seat while its round is unfinished: refused."""
    db = tmp_path / "seats.db"
    session, _, log = open_table(db, certs)
    clock = Clock()
    machine = UthMachine(session, clock)
    machine.open()
    for _ in range(MAX_INPUTS):
        if session.dealt():
            break
        next_input(machine, clock)
    log.close(checkpoint=False)
    with pytest.raises(SeatingChanged, match="T1 at seat 1"):
        open_table(db, certs, {"T1": 2, "T2": 1, "T3": 5})
