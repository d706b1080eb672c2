"""End to end: ``etg backup`` during ``etg loadtest``, and a server restored from it.

``etg loadtest`` runs seven bots against a real server (its log and anchor stream in a
temporary folder under ``--tmpdir``); while they play, ``etg backup`` copies the live log
and its anchors twice and proves each copy. The load test finishes without an unexpected
error. ``etg restore`` puts the second backup in a new place, a server started there proves
the log, recovers the table (the games and the wallets of the backup), deals a new round
to a terminal, and after a clean stop the log verifies against its anchors.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_server_e2e import ROOT, hello, play_round, server

from game_server.eventlog import AnchorFile, EventLogReader
from game_server.keys import load_public_key
from game_server.recall.verify import verify_log
from tools.amp_client import AmpError


def _etg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def _anchored(path: Path) -> int:
    """Round closes anchored so far (each cash in has an anchored checkpoint of its own)."""
    try:
        return path.read_bytes().count(b'"reason":"round-close"')
    except FileNotFoundError:
        return 0


@pytest.mark.slow
def test_a_backup_taken_during_a_loadtest_verifies_and_a_restored_server_recovers(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / "loadtest"
    scratch.mkdir()
    loadtest = subprocess.Popen(
        [
            *(sys.executable, "-m", "tools", "loadtest", "--terminals", "7"),
            *("--rounds", "100000", "--seconds", "40", "--tmpdir", str(scratch), "--json"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    kept = tmp_path / "kept"
    dest = tmp_path / "backups"
    taken: list[dict[str, object]] = []
    try:
        deadline = time.monotonic() + 60
        run = None
        while run is None and time.monotonic() < deadline:
            found = list(scratch.glob("etg-loadtest-*/anchors.jsonl"))
            run = found[0].parent if found else None
            time.sleep(0.2)
        assert run is not None, "the load test's server made no anchor stream"
        shutil.copytree(run / "certs", kept / "certs")  # the server's keys, kept apart
        shutil.copyfile(run / "table.toml", kept / "table.toml")
        for rounds in (3, 6):
            while _anchored(run / "anchors.jsonl") < rounds and loadtest.poll() is None:
                time.sleep(0.2)
            done = _etg(
                *("backup", str(run / "table.db"), str(dest), "--anchors"),
                *(str(run / "anchors.jsonl"), "--key", str(kept / "certs"), "--json"),
            )
            assert done.returncode == 0, done.stdout + done.stderr
            taken.append(json.loads(done.stdout))
        assert loadtest.poll() is None, "the load test ended before both backups"
    finally:
        out, err = loadtest.communicate(timeout=180)
    assert loadtest.returncode == 0, err
    result = json.loads(out)
    assert result["unexpected_errors"] == 0 and result["rounds"] >= 6, result
    first, second = taken
    assert first["verified"] is True and second["verified"] is True
    assert int(first["last_seq"]) < int(second["last_seq"])  # type: ignore[call-overload]

    restored = tmp_path / "restored"
    back = _etg(
        *("restore", str(second["folder"]), "--db", str(restored / "table.db")),
        *("--anchors", str(restored / "anchors.jsonl"), "--key", str(kept / "certs")),
    )
    assert back.returncode == 0, back.stdout + back.stderr
    with EventLogReader.open(restored / "table.db") as reader:
        backed_up = reader.max_seq()
    assert backed_up == second["last_seq"]
    table = {"certs": kept / "certs", "config": kept / "table.toml", "db": restored / "table.db"}
    with server(table, "--anchors", str(restored / "anchors.jsonl")) as (_process, port):
        operator, _ = hello(port, kept / "certs", "operator")
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert meters["state"] == "open" and meters["games_played"] >= 3
        operator.call("CashIn", request_id="after", terminal="T1", amount=5_000, reference="r")
        t1, answer = hello(port, kept / "certs", "T1")
        recovered = json.loads(answer["view"])
        if recovered["phase"] not in (None, "complete"):
            # The backup caught a round in play (T1's wager placed): the restored table
            # finishes it (its countdowns act for the absent players) before the next.
            t1.wait_view(
                lambda v: v["round"] != recovered["round"] or v["phase"] == "complete",
                timeout=90,
            )
        for _ in range(100):  # until the next betting window opens
            try:
                play_round({"T1": t1}, {"T1": 500})
                break
            except AmpError as exc:
                assert exc.code == "ROUND_CLOSED", exc
                time.sleep(0.1)
        after = json.loads(operator.call("ReadMeters")["meters"])
        assert after["games_played"] > meters["games_played"]
        for client in (operator, t1):
            client.close()
    with EventLogReader.open(restored / "table.db") as reader:
        assert reader.max_seq() > backed_up
        report = verify_log(
            reader,
            load_public_key(kept / "certs"),
            anchors=AnchorFile(restored / "anchors.jsonl"),
        )
    assert report.ok, report.first_failure
    assert report.anchors is not None and report.anchors > 0
