"""Crash recovery of the hybrid tables (58 Pa. Code 633b.5): the table resumes from its log
exactly where it stopped.

A scripted stadium game (three terminals, a state-driven script: join, decline or take
insurance, hit to 12, stand) runs under :class:`HybridMachine` on a real event log. The run
is stopped at chosen appends (an append that never happens: the process is gone), the table is
recovered from the log by :func:`open_tables` (as ``etg serve`` does) and the script plays on:
the whole log must equal the log of an uninterrupted run with the same seed, verify, and
conserve credits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from crash_log import Crash, Sink, events, verified_fold
from twisted.internet.task import Clock

from game_server.config import TableConfig, example_path, load_config
from game_server.eventlog import EventLog, system_clock
from game_server.games.blackjack.rules.actions import Action
from game_server.games.hybrid.machine import HybridMachine, HybridState
from game_server.games.hybrid.rules import no_hole_card, three_position
from game_server.games.hybrid.session import HybridSession
from game_server.keys import init_keys
from game_server.table.ledger import Ledger
from game_server.table.recovery import RecoveryReport, SeatingChanged, open_tables
from game_server.table.session import simulation_seeds

THREE = load_config(example_path("hybrid-three-position.toml"))
NO_HOLE = load_config(example_path("hybrid-no-hole-card.toml"))
BOTH = pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
SEED = 3
ROUNDS = 6
TERMINALS = {"T1": 1, "T2": 2, "T3": 3}
POSITIONS = {"T1": 1, "T2": 3, "T3": 3}
BET = {"blackjack": 1_000}


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("certs")
    init_keys(path)
    return path


def open_table(
    config: TableConfig, db: Path, certs: Path, terminals: dict[str, int] | None = None
) -> tuple[HybridSession, RecoveryReport, EventLog]:
    log, tables = open_tables(
        [config],
        db,
        certs,
        lambda _: TERMINALS if terminals is None else terminals,
        clock=system_clock,
        seeds=lambda table: simulation_seeds(SEED, table.table_id),
    )
    session, report = tables[0]
    assert isinstance(session, HybridSession)
    return session, report, log


def next_input(machine: HybridMachine, clock: Clock) -> None:
    """One input of the script, chosen from the table's state alone (so that a recovered
    table continues the same game)."""
    session = machine.session
    where = machine.machine_state
    if where is HybridState.BETTING:
        for terminal in TERMINALS:
            if session.balance(terminal) < 50_000:
                machine.cash_in(terminal, 100_000, "script")
                return
            if not machine.view(terminal)["joined"]:
                three = session.config.table_type == "hybrid"
                machine.place_wagers(terminal, BET, POSITIONS[terminal] if three else None)
                return
    elif where is HybridState.INSURANCE:
        terminal = session.pending_insurance()[0]
        if terminal == "T2" and machine.view(terminal)["insurance"]["can_insure"]:
            machine.answer_insurance(terminal, "insurance", 500)
        else:
            machine.answer_insurance(terminal, "decline", 0)
        return
    elif where is HybridState.DECIDING:
        pending = [t for t in session.pending() if session.to_act(t) is not None]
        if pending and pending[0] != "T3":  # T3 leaves his decisions to the countdown
            terminal = pending[0]
            view = machine.view(terminal)
            hand = view["to_act"]["hand"]
            total = view["hybrid"]["hands"][hand]["total"]
            hit = total < 12 and "hit" in view["actions"]
            machine.act(terminal, Action.HIT if hit else Action.STAND, hand, None)
            return
    clock.advance(max(1.0, machine.seconds_left() or 1.0))


def play(config: TableConfig, session: HybridSession, rounds: int = ROUNDS) -> HybridMachine:
    """Run the script until ``rounds`` rounds are completed."""
    clock = Clock()
    machine = HybridMachine(session, clock)
    machine.open()
    while session.ledger.games_played < rounds:
        next_input(machine, clock)
        if isinstance(session.sink, Sink) and session.sink.crashed:
            raise Crash
    return machine


def check_log(db: Path, certs: Path) -> Ledger:
    return verified_fold(db, certs, Ledger())


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> dict[str, Any]:
    """An uninterrupted run per table type: its log and the number of appends."""
    out: dict[str, Any] = {}
    for config in (THREE, NO_HOLE):
        db = tmp_path_factory.mktemp("ref") / "ref.db"
        session, report, log = open_table(config, db, certs)
        assert report.opened
        sink = Sink(log)
        session.sink = sink
        play(config, session)
        log.close()
        out[str(config.table_type)] = {"events": events(db), "appends": sink.appends}
    return out


def crash_limits(appends: int) -> list[int]:
    """Every third append of the run (each phase of several rounds is hit)."""
    return list(range(2, appends, 3))


@BOTH
def test_the_script_reaches_every_phase(config: TableConfig, references: dict[str, Any]) -> None:
    """The reference run has insurance answers, decisions, countdown decisions and several
    rounds, so that the crash points below fall in each of them."""
    logged = [body["kind"] for *_, body in references[str(config.table_type)]["events"]]
    assert logged.count("round_completed") == ROUNDS
    decisions = [
        body
        for *_, body in references[str(config.table_type)]["events"]
        if body["kind"] in ("decision", "hybrid3_decision")
    ]
    assert any(d.get("auto") for d in decisions) and any(not d.get("auto") for d in decisions)
    assert crash_limits(references[str(config.table_type)]["appends"])


@BOTH
def test_recovery_resumes_exactly_where_it_stopped(
    config: TableConfig, references: dict[str, Any], certs: Path, tmp_path: Path
) -> None:
    """Stopped at every third append of six rounds, recovered, played on: the log is the
    uninterrupted run's, it verifies, and every credit is where the log says."""
    reference = references[str(config.table_type)]
    phases: set[str] = set()
    for limit in crash_limits(reference["appends"]):
        db = tmp_path / f"crash-{limit}.db"
        session, _, log = open_table(config, db, certs)
        session.sink = Sink(log, limit)
        with pytest.raises(Crash):
            play(config, session)
        log.close(checkpoint=False)  # the process is gone: no shutdown checkpoint
        stopped = session.round_id
        del session

        recovered, report, log = open_table(config, db, certs)
        assert not report.opened, "a restart with the same Rules Submission logs nothing"
        assert report.wallets == check_log(db, certs).wallets
        if report.interrupted_round is not None:
            assert recovered.round is not None
            assert report.interrupted_round == recovered.round_id == stopped
            phases.add(str(report.phase))
        play(config, recovered)
        log.close()
        assert events(db) == reference["events"], f"the run stopped at append {limit} differs"
        assert check_log(db, certs).games_played == ROUNDS
    # Crashes hit a round in betting and after the deal (decisions or insurance).
    assert "betting" in phases and len(phases) >= 2, phases


@BOTH
def test_a_dealt_round_resumes_with_its_cards_and_the_shoe_after_them(
    config: TableConfig, certs: Path, tmp_path: Path
) -> None:
    """The resumed round is the logged one (its players, their cards, whose turn it is) and
    its next community card is the shoe's next card."""
    db = tmp_path / "mid.db"
    session, _, log = open_table(config, db, certs)
    clock = Clock()
    machine = HybridMachine(session, clock)
    machine.open()
    while not (session.dealt() and session.pending()):
        next_input(machine, clock)
    before = {t: machine.view(t) for t in TERMINALS}
    assert session.shoe is not None
    position = session.shoe.position
    log.close(checkpoint=False)

    recovered, report, log = open_table(config, db, certs)
    assert report.interrupted_round == session.round_id
    assert recovered.shoe is not None and recovered.shoe.position == position
    assert recovered.pending() == session.pending()
    resumed = HybridMachine(recovered, Clock())
    resumed.open()
    for terminal in TERMINALS:
        after = resumed.view(terminal)
        for key in ("round", "joined", "hybrid", "to_act", "actions", "insurance", "credits"):
            assert after[key] == before[terminal][key], (terminal, key)
    engine = recovered.round.engine if recovered.round is not None else None
    assert isinstance(engine, three_position.ThreePositionRound | no_hole_card.NoHoleCardRound)
    assert engine._source is recovered.shoe
    log.close()


def test_a_player_of_the_interrupted_round_must_still_be_a_terminal_of_the_table(
    certs: Path, tmp_path: Path
) -> None:
    """Recovery refuses a floor without a terminal that has a wager in the unfinished round
    (its credits and decisions are in that round): restart with that floor, finish it."""
    db = tmp_path / "floor.db"
    session, _, log = open_table(THREE, db, certs)
    clock = Clock()
    machine = HybridMachine(session, clock)
    machine.open()
    while not session.dealt():
        next_input(machine, clock)
    log.close(checkpoint=False)
    with pytest.raises(SeatingChanged, match="T3"):
        open_table(THREE, db, certs, terminals={"T1": 1, "T2": 2})
    _, report, log = open_table(THREE, db, certs)
    assert report.interrupted_round == 1
    log.close()
