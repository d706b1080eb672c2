"""etg sim --log at the hybrid tables (58 Pa. Code 633b.5): the rounds go through the hybrid
table session and the log is as complete and as signed as the fully automated table's."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from game_server import simlog
from game_server.config import example_path, load_config
from game_server.eventlog import EventLogReader, verify_chain
from game_server.games.blackjack.sim import table_wagers
from game_server.games.hybrid.rules.events import Hybrid3WagerPlaced
from game_server.games.hybrid.session import HybridSession
from game_server.keys import init_keys, load_public_key
from game_server.rules.events import from_dict
from game_server.simlog import SIM_CREDITS, run_logged_sim
from game_server.table.events import CreditsIn, RoundClosed, RoundStarted
from game_server.table.ledger import Ledger
from tools.cli import main

THREE = example_path("hybrid-three-position.toml")
NO_HOLE = example_path("hybrid-no-hole-card.toml")
TERMINALS = ("T1", "T2", "T3", "T4", "T5")


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("keys")
    init_keys(directory)
    return directory


def stored(db: Path) -> list[tuple[str | None, Any]]:
    """Every logged event with its terminal, in log order."""
    with closing(EventLogReader.open(db)) as reader:
        return [(e.terminal, from_dict(e.body)) for e in reader.iter_events()]


def check_log(db: Path, keys: Path, rounds: int) -> Ledger:
    """The chain and every checkpoint verify; there are ``rounds`` rounds, each closing with
    every terminal's credits equal to the fold of the log up to it; credits are conserved.
    Returns the fold of the whole log."""
    with closing(EventLogReader.open(db)) as reader:
        chain = verify_chain(reader, load_public_key(keys))
        assert chain.ok, chain.reason
    ledger = Ledger()
    closed = 0
    for terminal, ev in stored(db):
        ledger.apply(terminal, ev)
        if type(ev) is RoundClosed:
            closed += 1
            assert ev.terminals == TERMINALS
            assert ev.balances == tuple(ledger.wallets.get(t, 0) for t in TERMINALS)
            assert ledger.conserved()
    assert closed == rounds
    assert ledger.games_played == rounds
    assert ledger.conserved() and ledger.in_play == 0
    return ledger


@pytest.mark.parametrize("path", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_a_logged_hybrid_sim_folds_to_every_round_close(
    path: Path, keys: Path, tmp_path: Path
) -> None:
    """633b.5(l): five basic-strategy terminals play 60 rounds through the hybrid table session;
    the signed log verifies, every RoundClosed balance is the fold of the events before it,
    credits are conserved and the refold equals the session's own wallets."""
    config = load_config(path)
    db = tmp_path / "sim.db"
    session = run_logged_sim(config, db, keys, rounds=60, seats=len(TERMINALS), seed=4)
    assert isinstance(session, HybridSession)
    ledger = check_log(db, keys, 60)
    assert ledger.wallets == session.ledger.wallets
    events = stored(db)
    started = [ev for _, ev in events if type(ev) is RoundStarted]
    assert [ev.round for ev in started] == list(range(1, 61))
    assert started[0].balances == (SIM_CREDITS,) * len(TERMINALS)
    kinds = [type(ev).__name__ for _, ev in events]
    assert kinds.count("ShoeCommitted") == kinds.count("ShoeRevealed") >= 1
    cash_ins = [ev for _, ev in events if type(ev) is CreditsIn]
    assert len(cash_ins) >= len(TERMINALS)


def test_three_position_terminals_share_positions(keys: Path, tmp_path: Path) -> None:
    """633b.5(l): terminal Tn plays position (n - 1) % 3 + 1, so T1 and T4 share position 1
    and T2 and T5 position 2; each places the Buzzer Beater the table offers."""
    db = tmp_path / "sim.db"
    run_logged_sim(load_config(THREE), db, keys, rounds=5, seats=len(TERMINALS), seed=9)
    placed = [ev for _, ev in stored(db) if type(ev) is Hybrid3WagerPlaced]
    positions = {ev.player: ev.position for ev in placed}
    assert positions == {"T1": 1, "T2": 2, "T3": 3, "T4": 1, "T5": 2}
    assert {ev.wager for ev in placed} >= {"blackjack", "buzzer_beater"}


def test_top_ups_keep_the_terminals_playing(
    keys: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A terminal whose credits run below ten stakes is topped up before it joins, as at the
    fully automated table; the top-up is logged as a cash-in and the log still folds."""
    db = tmp_path / "sim.db"
    config = load_config(NO_HOLE)
    stake = sum(table_wagers(config.rules).values())
    monkeypatch.setattr(simlog, "SIM_CREDITS", 12 * stake)
    run_logged_sim(config, db, keys, rounds=40, seats=2, seed=1)
    references = [ev.reference for _, ev in stored(db) if type(ev) is CreditsIn]
    assert "sim top-up" in references
    with closing(EventLogReader.open(db)) as reader:
        assert verify_chain(reader, load_public_key(keys)).ok
    ledger = Ledger()
    ledger.apply_all(stored(db))
    assert ledger.conserved() and ledger.games_played == 40


@pytest.mark.parametrize("path", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_etg_sim_log_plays_a_hybrid_table_end_to_end(
    path: Path, keys: Path, tmp_path: Path
) -> None:
    """etg sim --config HYBRID --log DB --rounds 50 --certs DIR writes a verifiable log of
    exactly 50 rounds and reports the wagers it logged (the three-position table's too)."""
    db = tmp_path / "x.db"
    args = ["sim", "--config", str(path), "--log", str(db), "--rounds", "50"]
    result = CliRunner().invoke(main, [*args, "--seats", "5", "--certs", str(keys), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["rounds"] == 50
    assert report["wagers"]["blackjack"]["wagered"] > 0
    check_log(db, keys, 50)
