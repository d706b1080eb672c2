"""War, the test-only game of issue 39's experiment: a new game written as a declaration over
the platform's bases (``GameBase``, the seated stadium session and machine). It plays live
under its machine on a real log that verifies with credits conserved, resumes a round a
kill left in its betting window, and goes through the simulator and recall, none of its code
forwarding to its own parts."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from twisted.internet.task import Clock
from war import game as war_module
from war.game import GAME, WarGame
from war.machine import WarMachine
from war.session import WarSession

from game_server.config import load_config
from game_server.eventlog import EventLog, EventLogReader, system_clock
from game_server.games import game_for
from game_server.keys import init_keys, load_public_key
from game_server.recall.query import fetch_round
from game_server.recall.terminal import terminal_recall
from game_server.recall.timeline import build_timeline
from game_server.recall.verify import verify_log
from game_server.sim import run_sim
from game_server.table.api import BettingClosed
from game_server.table.recovery import open_tables
from game_server.table.session import simulation_seeds
from tools.sim import sim_spec

CONFIG = Path(war_module.__file__).with_name("war.toml")
SEATS = {"T1": 1, "T2": 3}
CASH_IN = 10_000

pytestmark = pytest.mark.usefixtures("war")


def open_table(db: Path, keys: Path) -> tuple[WarSession, object, EventLog]:
    log, tables = open_tables(
        [load_config(CONFIG)],
        db,
        keys,
        lambda _: SEATS,
        clock=system_clock,
        seeds=lambda table: simulation_seeds(3, table.table_id),
    )
    session, report = tables[0]
    assert isinstance(session, WarSession)
    return session, report, log


def play_round(machine: WarMachine, clock: Clock) -> None:
    machine.place_wagers("T1", {"war": 500})
    machine.place_wagers("T2", {"war": 1_000})
    clock.advance(machine.session.config.timers.betting_seconds)  # the deal closes the round


def test_its_game_class_declares_and_forwards_nothing() -> None:
    """Its only method is the rules it shows (its own knowledge); every other part of the
    contract is a declared class attribute that GameBase forwards to."""
    tree = ast.parse(inspect.getsource(WarGame))
    methods = [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    assert methods == ["rules_document"]


def test_it_plays_live_resumes_after_a_kill_and_its_log_verifies(tmp_path: Path) -> None:
    """Three rounds under its machine (the seated stadium machine: the betting window, the
    deal, the pause), a wager refused once the window closed; then the process is gone with
    a round in its betting window, the table reopened resumes that round and plays it; the
    whole log verifies and each wallet is its cash in plus what its wagers won."""
    keys = tmp_path / "keys"
    init_keys(keys)
    db = tmp_path / "war.db"
    session, _, log = open_table(db, keys)
    clock = Clock()
    machine = WarMachine(session, clock, next_round_delay=1.0)
    for terminal in SEATS:
        machine.cash_in(terminal, CASH_IN, "test")
    machine.open()
    for _ in range(3):
        play_round(machine, clock)
        view = machine.view("T2")  # the round dealt, its result shown in the pause
        assert view["phase"] == "complete" and view["seats"][1]["wagers"] == {"war": 1_000}
        assert [s["stake"] for s in view["settlements"]] == [1_000]
        assert len(view["dealer"]["cards"]) == 1
        clock.advance(1.0)  # the pause between rounds
    assert machine.view("T2")["phase"] == "betting"
    machine.place_wagers("T1", {"war": 500})  # round 4, left in its window by the kill
    log.close(checkpoint=False)

    resumed, report, log = open_table(db, keys)
    assert report.interrupted_round == resumed.round_id == 4 and str(report.phase) == "betting"
    clock = Clock()
    machine = WarMachine(resumed, clock, next_round_delay=1.0)
    machine.open()
    machine.place_wagers("T2", {"war": 1_000})
    clock.advance(resumed.config.timers.betting_seconds)
    with pytest.raises(BettingClosed):
        machine.place_wagers("T1", {"war": 500})
    resumed.retire_shoe()  # its seed revealed: every card checks against its shoe
    log.close()

    with EventLogReader.open(db) as reader:
        proof = verify_log(reader, load_public_key(keys))
        settled = [e for e in reader.iter_events() if e.kind == "war_wager_settled"]
    assert proof.ok, proof.first_failure
    assert proof.counts.rounds_replayed == 4 and proof.counts.cards_checked == 4 * 3
    for terminal in SEATS:
        won = sum(e.body["paid"] - e.body["stake"] for e in settled if e.terminal == terminal)
        assert resumed.balance(terminal) == CASH_IN + won, f"{terminal}'s credits"


def test_sim_and_recall_tell_it_by_its_records_roles(tmp_path: Path) -> None:
    """etg sim plays it through its driver (a fair game but for the ties, which push); recall
    tells each record by its role (the platform's sentences) and gives each terminal its
    games."""
    config = load_config(CONFIG)
    assert game_for(config) is GAME
    result = run_sim(sim_spec(config, seats=5, seed=7, rounds=3_000, chunk_rounds=1_000))
    stats = result.wagers["war"]
    assert result.rounds == 3_000 and stats.wagered == 5 * 3_000 * 500
    assert abs(stats.paid - stats.wagered) < 0.05 * stats.wagered

    keys = tmp_path / "keys"
    init_keys(keys)
    db = tmp_path / "war.db"
    session, _, log = open_table(db, keys)
    for terminal in SEATS:
        session.cash_in(terminal, CASH_IN, "test")
    session.start_round()
    session.place_wagers("T2", {"war": 1_000})
    session.deal()
    log.close()
    with EventLogReader.open(db) as reader:
        logged = fetch_round(reader, config.table_id, 1)
        assert logged is not None
        timeline = build_timeline(logged)
        recalled = terminal_recall(reader, "T2")
    texts = [e.text for e in timeline.entries]
    assert "seat 3 (T2) places War $10.00" in texts
    assert any(t.startswith("dealer is dealt ") for t in texts)
    assert any(t.startswith("seat 3 (T2) War: ") for t in texts)
    assert timeline.complete and not timeline.problems
    assert [g["wagers"] for g in recalled["games"]] == [{"war": 1_000}]
