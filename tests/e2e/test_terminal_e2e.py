"""End to end with a real terminal: the real server process, a real terminal over mutual TLS
played by touch events, and the real log as the judge.

The terminal runs in a subprocess (``tests/e2e/touch_terminal.py``; the reactor cannot be
restarted inside pytest): the real ``TerminalClient`` and ``TerminalApp`` frame tick under
``SDL_VIDEODRIVER=dummy``, driven by FINGERDOWN/FINGERUP events posted at the screens' own
targets. What it claims is then checked against the event log, which ``verify_log`` proves.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_server_e2e import server  # the server process, as the other e2e tests run it

from game_server.config import example_config_path
from game_server.eventlog import EventLogReader
from game_server.keys import init_keys, load_public_key
from game_server.net.pki import init_pki
from game_server.recall.verify import verify_log
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("touch_terminal.py")
CASH_IN = 10_000
ROUNDS = 3
ACTIONS = ("hit", "stand", "double", "split", "surrender")
TIMERS = {"betting_seconds": 3, "insurance_seconds": 5, "decision_seconds": 10}


@pytest.fixture()
def table(tmp_path: Path) -> dict[str, Path]:
    certs = tmp_path / "certs"
    init_pki(certs, terminals=2)
    init_keys(certs)
    text = example_config_path().read_text()
    for timer, seconds in TIMERS.items():
        text = re.sub(rf"^{timer} = \d+", f"{timer} = {seconds}", text, flags=re.M)
    config = tmp_path / "table.toml"
    config.write_text(text)
    return {"certs": certs, "config": config, "db": tmp_path / "table.db"}


def touch_terminal(port: int, certs: Path, rounds: int) -> dict[str, Any]:
    """Run the touch-driven terminal as T1 until ``rounds`` rounds settled; its report."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    args = ["--port", str(port), "--certs", str(certs), "--rounds", str(rounds)]
    try:
        done = subprocess.run(
            [sys.executable, str(SCRIPT), *args, "--terminal", "T1", "--timeout", "60"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"the terminal did not exit: {exc.stderr!r}") from None
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def test_a_terminal_plays_whole_rounds_by_touch_over_mutual_tls(table: dict[str, Path]) -> None:
    """A terminal credited by the operator plays three rounds only through touch events
    (chip, betting circle, DEAL, then the action buttons, declining insurance); the log
    shows each round settled with its wagers, exactly the wagers the terminal sent, credits
    conserved from the cash in to the end balance, and verifies."""
    with server(table) as (_process, port):
        operator = AmpClient(port, table["certs"], "operator")
        operator.call("Hello", version=PROTOCOL_VERSION, software="e2e")
        operator.call("CashIn", request_id="in-T1", terminal="T1", amount=CASH_IN, reference="e2e")
        operator.close()
        report = touch_terminal(port, table["certs"], ROUNDS)

    assert report["start_credits"] == CASH_IN
    assert len(report["rounds"]) == ROUNDS
    assert {"chip:500", "spot:main", "button:deal"} <= set(report["taps"])
    assert report["taps"].count("button:deal") == ROUNDS

    with EventLogReader.open(table["db"]) as reader:
        events = list(reader.iter_events())
        proof = verify_log(reader, load_public_key(table["certs"]))
    assert proof.ok, proof.first_failure

    mine = [e for e in events if e.terminal == "T1"]
    placed = [e for e in mine if e.kind == "wager_placed"]
    settled = [e for e in mine if e.kind == "wager_settled"]
    completed = {e.round_id for e in events if e.kind == "round_completed"}
    decisions = [e for e in mine if e.kind == "decision"]
    answers = [r for r in report["sent"] if r["kind"] in ("act", "insurance")]
    assert [e.body["auto"] for e in decisions] == [False] * len(answers), (
        "every decision of the terminal is one it tapped; none fell to a countdown"
    )
    assert [e.body["action"] for e in decisions if e.body["action"] in ACTIONS] == [
        r["action"] for r in answers if r["kind"] == "act"
    ]
    assert len(placed) == report["placed"], "the log holds other wagers than the terminal sent"
    assert {e.round_id for e in placed} == set(report["rounds"])
    assert {e.round_id for e in settled} == set(report["rounds"]) <= completed
    assert sum(e.body["amount"] for e in placed) == sum(e.body["stake"] for e in settled), (
        "every wager placed is settled for its stake"
    )
    cash_in = [e for e in events if e.kind == "credits_in" and e.body["terminal"] == "T1"]
    assert [e.body["amount"] for e in cash_in] == [CASH_IN]
    net = sum(e.body["paid"] - e.body["stake"] for e in settled)
    closed = [e for e in events if e.kind == "round_closed" and "T1" in e.body["terminals"]]
    end = closed[-1].body["balances"][closed[-1].body["terminals"].index("T1")]
    assert end == CASH_IN + net, "credits are not conserved"
    assert report["final_credits"] == end
