"""High Card, the test-only game written only through the Game contract (docs/adding-a-game.md),
played over the real server by a real terminal that does not know it (its generic fallback
screen), with its log verified; and the same game through the platform's simulator, recall
and verify without the network.

The game registers itself in the tests (the ``high_card`` fixture; the server process by
``python -m high_card.serve``), never through the product's entry points.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from high_card.game import GAME, HighCardGame

from game_server.config import ConfigError, load_config, parse_config
from game_server.eventlog import EventLog, EventLogReader
from game_server.games import game_for
from game_server.games.api import NotOffered
from game_server.keys import init_keys, key_id, load_public_key, load_sealing_key
from game_server.net.pki import init_pki
from game_server.recall.query import fetch_round
from game_server.recall.terminal import terminal_recall
from game_server.recall.timeline import build_timeline
from game_server.recall.verify import verify_log
from game_server.sim import run_sim
from game_server.table.session import SealedShoes, simulation_seeds
from shared.protocol import PROTOCOL_VERSION
from terminal_client.model.documents import parse_recall
from tools.amp_client import AmpClient
from tools.sim import sim_spec

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CONFIG = HERE / "high_card" / "high_card.toml"
CASH_IN = 10_000
ROUNDS = 3

pytestmark = pytest.mark.usefixtures("high_card")


def env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)]),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
    }


def serve(config: Path, db: Path, certs: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [sys.executable, "-m", "high_card.serve", "--config", str(config), "--db", str(db),
         "--certs", str(certs), "--port", "0", "--next-round-delay", "0.2"],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if found:
            return process, int(found.group(1))
    process.wait(timeout=10)
    raise AssertionError("the server did not start")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.slow
def test_high_card_is_played_over_the_real_server_on_the_fallback_screen(tmp_path: Path) -> None:
    """The real server deals High Card (registered as an installed game would be); a real
    terminal that has no High Card package plays three rounds by touch on its generic
    fallback screen (the wager button at the table minimum); the log verifies, each wager is
    settled, credits are conserved, and the terminal's recall of it reads as a generic game."""
    certs = tmp_path / "certs"
    init_pki(certs, terminals=1)
    init_keys(certs)
    db = tmp_path / "hc.db"
    process, port = serve(CONFIG, db, certs)
    try:
        operator = AmpClient(port, certs, "operator")
        operator.call("Hello", version=PROTOCOL_VERSION, software="e2e")
        operator.call("CashIn", request_id="in-T1", terminal="T1", amount=CASH_IN, reference="e2e")
        operator.close()
        done = subprocess.run(
            [sys.executable, str(HERE / "fallback_terminal.py"), "--port", str(port),
             "--certs", str(certs), "--rounds", str(ROUNDS), "--timeout", "60"],
            cwd=ROOT, env=env(), capture_output=True, text=True, timeout=90,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        terminal = AmpClient(port, certs, "T1")
        terminal.call("Hello", version=PROTOCOL_VERSION, software="e2e")
        recall = parse_recall(json.loads(terminal.call("GetRecall")["recall"]))
        terminal.close()
    finally:
        stop(process)

    assert report["screens"] == ["FallbackScreen"]
    assert report["title"] == "High Card"  # the view names the game; no package draws it
    assert len(report["rounds"]) == ROUNDS and report["taps"] == ["button:wager-high_card"] * ROUNDS
    assert report["start_credits"] == CASH_IN

    with EventLogReader.open(db) as reader:
        events = list(reader.iter_events())
        proof = verify_log(reader, load_public_key(certs))
    assert proof.ok, proof.first_failure
    placed = [e for e in events if e.kind == "high_card_wager_placed"]
    settled = [e for e in events if e.kind == "high_card_wager_settled"]
    assert [e.terminal for e in placed] == ["T1"] * ROUNDS
    assert {e.round_id for e in placed} == {e.round_id for e in settled} == set(report["rounds"])
    assert all(e.body["amount"] == 500 for e in placed)
    assert [f"high_card:{e.body['outcome']}:{e.body['paid']}" for e in settled] == [
        row for shown in report["shown"] for row in shown
    ], "the fallback screen showed the settlements the log holds"
    net = sum(e.body["paid"] - e.body["stake"] for e in settled)
    closed = [e for e in events if e.kind == "round_closed" and "T1" in e.body["terminals"]]
    end = closed[-1].body["balances"][closed[-1].body["terminals"].index("T1")]
    assert end == CASH_IN + net == report["final_credits"], "credits are not conserved"
    assert recall.games and {g.game for g in recall.games} == {"high_card"}
    assert [g.round for g in recall.games] == sorted(report["rounds"], reverse=True)
    assert all(len(g.hands) == 1 and len(g.dealer_cards) == 1 for g in recall.games)


def test_a_config_names_each_problem(tmp_path: Path) -> None:
    """Its Rules Submission is checked by its own section: every problem is listed."""
    text = (
        CONFIG.read_text()
        .replace('max = "100.00"', 'max = "1.00"')
        .replace("seats = 3", "seats = 9")
    )
    with pytest.raises(ConfigError) as error:
        parse_config(text)
    assert "table.seats: 9 is not within 1..7" in str(error.value)
    assert "limits.max: the maximum is below the minimum" in str(error.value)


def test_sim_recall_and_verify_play_it_through_the_session(
    tmp_path: Path, high_card: HighCardGame
) -> None:
    """etg sim plays it through its driver (every seat the minimum; a fair game but for the
    ties: the house edge is 0), the session writes a log that recall and verify read, and
    verify checks each of its cards against the shoe and replays each round."""
    config = load_config(CONFIG)
    assert game_for(config) is GAME
    result = run_sim(sim_spec(config, seats=3, seed=7, rounds=3_000, chunk_rounds=1_000))
    stats = result.wagers["high_card"]
    assert result.rounds == 3_000 and stats.wagered == 3 * 3_000 * 500
    assert abs(stats.paid - stats.wagered) < 0.05 * stats.wagered
    with pytest.raises(NotOffered, match="etg sim --log does not play High Card"):
        GAME.logged_sim(config, None, None, rounds=1, seats=1)  # type: ignore[arg-type]

    keys = tmp_path / "keys"
    init_keys(keys)
    db = tmp_path / "hc.db"
    log = EventLog.create_or_open(db, keys, lambda: datetime.now(UTC))
    shoes = SealedShoes(
        config,
        simulation_seeds(3, config.table_id),
        load_sealing_key(keys),
        key_id(load_public_key(keys)),
    )
    session = GAME.open_session(config, log, shoes, {"T1": 1, "T2": 2}, None)
    session.open()
    for terminal in ("T1", "T2"):
        session.cash_in(terminal, 5_000, "test")
    for _ in range(4):
        session.start_round()
        session.place_wagers("T1", {"high_card": 500})
        session.place_wagers("T2", {"high_card": 1_000})
        session.deal()
    session.retire_shoe()
    log.close()

    with EventLogReader.open(db) as reader:
        proof = verify_log(reader, load_public_key(keys))
        logged = fetch_round(reader, config.table_id, 2)
        assert logged is not None
        timeline = build_timeline(logged)
        recalled = terminal_recall(reader, "T2")
    assert proof.ok, proof.first_failure
    assert proof.counts.rounds_replayed == 4 and proof.counts.cards_checked == 4 * 3
    assert timeline.complete and not timeline.problems
    assert [e.who for e in timeline.entries if e.kind == "high_card_card_dealt"] == [
        "T1",
        "T2",
        "dealer",
    ]
    assert [g["round"] for g in recalled["games"]] == [4, 3, 2, 1]
    assert all(g["wagers"] == {"high_card": 1_000} for g in recalled["games"])


def test_a_game_that_never_calls_the_guard_is_guarded_at_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The player-edge guard is the platform's, at the one place every Rules Submission is
    built: a game whose ``optional_returns`` names a wager returning 100% or more is refused
    at load though its own config code never asks (High Card's does not)."""
    from game_server.rules.returns import WagerReturn

    generous = WagerReturn(
        wager="even_money_plus",
        title="Even Money Plus",
        section="(a test wager)",
        paytable="Paytable A",
        reading="",
        setting="high_card.even_money_plus",
        method="exact",
        counted="every deal",
        stake=100,
        lines=(),
        fixed=1.02,
        at_reset=1.02,
        long_run=1.02,
    )
    assert load_config(CONFIG).table_id
    monkeypatch.setattr(HighCardGame, "optional_returns", lambda self, config: [generous])
    with pytest.raises(ConfigError, match=r"high_card.even_money_plus: Even Money Plus.*102\.00%"):
        load_config(CONFIG)
