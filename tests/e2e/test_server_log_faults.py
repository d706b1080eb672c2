"""The real server when its event log cannot be written (issue [hardening] case 5), and the
start-up checks of the log (cases 2, 6 and the one log, one table set rule).

A full disk is made by the kernel, not by a fake: the server process runs with SIGXFSZ
ignored, and the test lowers its file size limit (``RLIMIT_FSIZE``, through ``prlimit`` from
outside the process) to below the size of its log files, so that every write SQLite makes to
them fails as on a full disk; raising the limit again is "space freed".
"""

from __future__ import annotations

import json
import re
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from game_server.eventlog import AnchorFile, EventLogReader
from game_server.keys import load_public_key
from game_server.recall.verify import verify_log
from game_server.table.ledger import Ledger
from tools.amp_client import AmpError

sys.path.insert(0, str(Path(__file__).parent))
from test_server_e2e import ROOT, hello, play_round, server_command
from test_server_e2e import table as table  # the fixture

pytestmark = pytest.mark.slow


def _ignore_file_size_signal() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


@contextmanager
def running(table: dict[str, Path], *extra: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """The server on the table's log with its anchor stream; its output read by a thread (a
    pipe is not a file: the size limit does not stop its log lines)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "game_server",
            "--config",
            str(table["config"]),
            "--db",
            str(table["db"]),
            "--certs",
            str(table["certs"]),
            "--anchors",
            str(table["db"].with_suffix(".anchors")),
            "--port",
            "0",
            "--next-round-delay",
            "0.2",
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_ignore_file_size_signal,
    )
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if "listening on" in line:
                found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        found.wait(30)
        port = next(
            (
                int(m.group(1))
                for m in map(re.compile(r"listening on [\d.]+:(\d+)").search, lines)
                if m
            ),
            None,
        )
        assert port is not None, "".join(lines)
        process.lines = lines  # type: ignore[attr-defined]
        yield process, port
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def file_size_limit(pid: int, limit: int) -> None:
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))


def refused(call: object, code: str) -> str:
    """Run ``call`` and return the sentence of the declared error it must raise."""
    with pytest.raises(AmpError) as error:
        call()  # type: ignore[operator]
    assert error.value.code == code, error.value
    return str(error.value)


def test_a_full_disk_takes_the_table_out_of_service_and_an_operator_reopens_it(
    table: dict[str, Path],
) -> None:
    """Case 5. With the disk full, a wager is refused as TABLE_UNAVAILABLE with a sentence
    (not an undeclared internal error, the connection kept); the view and ReadMeters say out
    of service and why; no credit moves (a cash in is refused too); the operator's open is
    refused while the log cannot be written. Once space is freed the open rebuilds the table
    from its log without a restart, the refused wager was never taken, play goes on, and the
    log verifies with every credit conserved."""
    with running(table) as (process, port):
        operator, _ = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in-1", terminal="T1", amount=10_000, reference="x")
        t1, _ = hello(port, table["certs"], "T1")
        file_size_limit(process.pid, 4096)  # far below the log's size: every write fails
        sentence = refused(
            lambda: t1.call("PlaceWagers", request_id="w1", wagers={"blackjack": 500}),
            "TABLE_UNAVAILABLE",
        )
        assert "event log did not store a step" in sentence
        view = json.loads(t1.call("GetView")["view"])  # the same connection still answers
        assert view["state"] == "out-of-service"
        assert "event log" in view["reason"]
        # The table is shown as its log holds it, not as memory held it: the server had
        # taken the wager before its commit failed (the log commits behind).
        assert view["credits"] == 10_000
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert meters["state"] == "out-of-service" and "event log" in meters["reason"]
        assert meters["wallets"]["T1"] == 10_000
        refused(
            lambda: operator.call(
                "CashIn", request_id="in-2", terminal="T1", amount=500, reference="x"
            ),
            "TABLE_UNAVAILABLE",
        )
        again = refused(
            lambda: operator.call("SetTableState", request_id="open-1", state="open", reason=""),
            "TABLE_UNAVAILABLE",
        )
        assert "cannot reopen yet" in again
        file_size_limit(process.pid, resource.RLIM_INFINITY)  # space freed
        answer = operator.call("SetTableState", request_id="open-2", state="open", reason="")
        assert answer["state"] == "open"
        view = json.loads(t1.call("GetView")["view"])
        assert view["state"] == "open" and view["reason"] is None
        assert view["credits"] == 10_000  # the refused wager was never taken
        placed = json.loads(
            t1.call("PlaceWagers", request_id="w2", wagers={"blackjack": 500})["view"]
        )
        assert placed["credits"] == 9_500
        # The reopened log commits on its own thread again, and this step went through it.
        commits = json.loads(operator.call("ReadMeters")["meters"])["event_log"]
        assert commits["writing_behind"] and commits["transactions"] >= 1
        assert any("rebuilt from it" in line for line in process.lines)  # type: ignore[attr-defined]
    with EventLogReader.open(table["db"]) as reader:
        report = verify_log(
            reader,
            load_public_key(table["certs"]),
            anchors=AnchorFile(table["db"].with_suffix(".anchors")),
        )
        assert report.ok, report.failures
        ledger = Ledger()
        for stored in reader.iter_events():
            from game_server.rules.events import from_dict

            ledger.apply(stored.terminal, from_dict(stored.body))
    assert ledger.conserved()
    assert ledger.credits_in == 10_000


def test_the_server_refuses_a_log_corrupted_in_the_middle_naming_the_seq(
    table: dict[str, Path],
) -> None:
    """Case 6. A byte of an old event changed (its row rewritten with the triggers dropped):
    the server proves the whole chain at start and refuses to open the log, naming the first
    failing seq, instead of appending and signing on top of it."""
    import sqlite3

    with running(table) as (_, port):
        operator, _ = hello(port, table["certs"], "operator")
        for n in range(30):
            operator.call("CashIn", request_id=f"in-{n}", terminal="T1", amount=100, reference="x")
    conn = sqlite3.connect(table["db"])
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")]
    for name in names:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE events SET body = replace(body, '\"x\"', '\"y\"') WHERE seq = 10")
    conn.commit()
    conn.close()
    done = subprocess.run(
        server_command(table),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "does not verify from seq 10" in done.stderr
    assert "listening" not in done.stdout


def test_a_log_of_another_rules_submission_is_refused_unless_the_change_is_stated(
    table: dict[str, Path], tmp_path: Path
) -> None:
    """One log, one table set: the server given another Rules Submission than its log's
    refuses to start, with a sentence, writing nothing; a stated change (--change-config) is
    refused too while a round is unfinished, even one with no wager (the server opens a round
    as it starts: the first run waits for it, so the log always ends in it); once that round
    is played out under the logged rules and the server stopped between rounds, the stated
    change starts and is in the log."""
    with running(table) as (_, port):
        t1, answer = hello(port, table["certs"], "T1")
        opened: dict[str, Any] = json.loads(answer["view"])
        if opened["round"] is None or opened["phase"] != "betting":
            opened = t1.wait_view(lambda v: v["round"] is not None and v["phase"] == "betting")
    first_round = opened["round"]

    def contents() -> tuple[int, int]:
        with EventLogReader.open(table["db"]) as reader:
            return reader.max_seq(), len(reader.checkpoints())

    before = contents()
    other = tmp_path / "other.toml"
    other.write_text(
        table["config"].read_text().replace("decision_seconds = 3", "decision_seconds = 4")
    )

    def serve(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        args = [sys.executable, "-m", "game_server", "--config", str(config)]
        args += ["--db", str(table["db"]), "--certs", str(table["certs"]), "--port", "0"]
        return subprocess.run([*args, *extra], cwd=ROOT, capture_output=True, text=True, timeout=60)

    done = serve(other)
    assert done.returncode == 2
    assert "was not written by the tables given" in done.stderr
    assert "--change-config" in done.stderr
    assert contents() == before
    done = serve(other, "--change-config", "longer decisions approved")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"round {first_round} of table BJ-01 is unfinished" in done.stderr
    assert "restart with that Rules Submission to finish it" in done.stderr
    assert contents() == before
    # The logged rules finish the round; a long pause keeps the table between rounds.
    with running(table, "--next-round-delay", "60") as (_, port):
        operator, _ = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in-1", terminal="T1", amount=10_000, reference="x")
        t1, _ = hello(port, table["certs"], "T1")
        views = play_round({"T1": t1}, {"T1": 500})
        assert views["T1"]["round"] == first_round and views["T1"]["phase"] == "complete"
    with running({**table, "config": other}, "--change-config", "longer decisions approved"):
        pass
    with EventLogReader.open(table["db"]) as reader:
        stated = reader.events_of_kind("rules_change_stated")
        report = verify_log(reader, load_public_key(table["certs"]))
    assert [s.body["reason"] for s in stated] == ["longer decisions approved"]
    assert report.ok, report.failures
