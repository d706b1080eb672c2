"""End to end: ``etg serve --tables 2 --workers 2``, the tables in two worker processes
behind one port (:mod:`game_server.net.workers`).

Each test starts the real server (the front and its workers) on an ephemeral port with short
countdowns, drives it over mutual TLS with terminal and operator certificates (each naming
its route as the TLS server name), stops it, and proves each worker's log with
``etg verify``. Every process is stopped in a ``finally``; every wait is bounded.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from address_attack import Attacker, client_hello, operator_served, probe, terminal_served
from test_server_e2e import ROOT, play_round, server_command, stop

from game_server.config import example_config_path
from game_server.keys import init_keys
from game_server.net.pki import init_pki
from game_server.net.workers import worker_path
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient, AmpError

pytestmark = pytest.mark.slow

#: Terminals of the first table (T1..T7) and of the second (T8..T14), by the default floor.
FIRST, SECOND = "T1", "T8"


@pytest.fixture()
def floor(tmp_path: Path) -> dict[str, Path]:
    certs = tmp_path / "certs"
    init_pki(certs, terminals=14)
    init_keys(certs)
    text = example_config_path().read_text()
    for timer in ("betting_seconds", "insurance_seconds", "decision_seconds"):
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    config = tmp_path / "table.toml"
    config.write_text(text)
    return {"certs": certs, "config": config, "db": tmp_path / "table.db", "out": tmp_path}


class Server:
    """The running front: its process, port and output (read by a thread-free poll)."""

    def __init__(self, process: subprocess.Popen[str], out: Path) -> None:
        self.process = process
        self.out = out

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text())
            if found:
                return found
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no {pattern!r} in the server's output:\n{self.text()[-3000:]}")

    @property
    def port(self) -> int:
        return int(self.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))

    def worker_pid(self, worker: int) -> int:
        pids = re.findall(rf"worker {worker} \(pid (\d+)\) starting", self.text())
        return int(pids[-1])


@contextmanager
def serving(floor: dict[str, Path], *extra: str) -> Iterator[Server]:
    out = floor["out"] / f"server-{time.monotonic_ns()}.out"
    with out.open("w") as sink:
        process = subprocess.Popen(
            server_command(floor, "--tables", "2", "--workers", "2", *extra),
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        yield Server(process, out)
    finally:
        stop(process)


def connect(port: int, certs: Path, who: str, route: str) -> tuple[AmpClient, dict[str, Any]]:
    client = AmpClient(port, certs, who, route=route)
    return client, client.call("Hello", version=PROTOCOL_VERSION, software="e2e")


def meters(operator: AmpClient) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(operator.call("ReadMeters")["meters"])
    return found


def conserved(found: dict[str, Any]) -> bool:
    """Every cent cashed in is in a wallet, in play, cashed out or the house's result."""
    held = sum(found["wallets"].values()) + found["in_play"]
    return bool(found["credits_in"] == held + found["credits_out"] + found["house_result"])


def verify_logs(floor: dict[str, Path]) -> None:
    """``etg verify`` proves each worker's log (and there is no one-process log)."""
    assert not floor["db"].exists()
    for index in (0, 1):
        log = worker_path(floor["db"], index)
        result = subprocess.run(
            [sys.executable, "-m", "tools.cli", "verify", str(log), "--key", str(floor["certs"])],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert result.returncode == 0, result.stdout + result.stderr


def etg_operator(port: int, certs: Path, *command: str) -> subprocess.CompletedProcess[str]:
    server = ["--certs", str(certs), "--server", f"127.0.0.1:{port}", "--hostname", "localhost"]
    return subprocess.run(
        [sys.executable, "-m", "tools.cli", "operator", *server, *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_two_workers_play_rounds_at_both_tables_and_their_logs_verify(
    floor: dict[str, Path],
) -> None:
    """T1 (table BJ-01-1, worker 1) and T8 (table BJ-01-2, worker 2) are cashed in by the
    operator through each worker, play two rounds each over one port; every worker's meters
    conserve the credits, each terminal's view matches its wallet, and after SIGTERM both
    logs verify."""
    certs = floor["certs"]
    with serving(floor) as server:
        port = server.port
        op1, answer = connect(port, certs, "operator", "BJ-01-1")
        op2, _ = connect(port, certs, "operator", "BJ-01-2")
        assert answer["role"] == "operator"
        op1.call("CashIn", request_id="in-1", terminal=FIRST, amount=10_000, reference="e2e")
        op2.call("CashIn", request_id="in-8", terminal=SECOND, amount=10_000, reference="e2e")
        t1, a1 = connect(port, certs, FIRST, FIRST)
        t8, a8 = connect(port, certs, SECOND, SECOND)
        assert json.loads(a1["view"])["table"] == "BJ-01-1"
        assert json.loads(a8["view"])["table"] == "BJ-01-2"
        for _ in range(2):
            play_round({FIRST: t1}, {FIRST: 500})
            play_round({SECOND: t8}, {SECOND: 1_000})
        first, second = meters(op1), meters(op2)
        assert set(first["tables"]) == {"BJ-01-1"} and set(second["tables"]) == {"BJ-01-2"}
        assert first["games_played"] >= 2 and second["games_played"] >= 2
        assert conserved(first) and conserved(second)
        assert first["credits_in"] == second["credits_in"] == 10_000
        assert json.loads(t1.call("GetView")["view"])["credits"] == first["wallets"][FIRST]
        assert json.loads(t8.call("GetView")["view"])["credits"] == second["wallets"][SECOND]
        for client in (op1, op2, t1, t8):
            client.close()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == 0
    assert "stopped" in server.text()
    verify_logs(floor)


def test_a_misrouted_or_unknown_certificate_is_refused_with_a_sentence(
    floor: dict[str, Path], tmp_path: Path
) -> None:
    """A terminal naming another terminal's route lands on the wrong worker and is refused
    with where its table is served; an operator naming no table is refused with which worker
    serves which table; an operator command for another worker's terminal says where it
    sits; ``etg operator`` reaches the worker of the terminal it names; a certificate of
    another CA fails the handshake."""
    certs = floor["certs"]
    other = tmp_path / "other-ca"
    init_pki(other, terminals=1)
    with serving(floor) as server:
        port = server.port
        with pytest.raises(AmpError) as misrouted:
            connect(port, certs, SECOND, FIRST)
        assert misrouted.value.code == "UNAUTHORIZED"
        assert "T8 sits at table BJ-01-2, served by worker 2" in misrouted.value.description
        with pytest.raises(AmpError) as unrouted:
            connect(port, certs, "operator", "operator")
        assert unrouted.value.code == "UNAUTHORIZED"
        assert "worker 1 serves BJ-01-1; worker 2 serves BJ-01-2" in unrouted.value.description
        op1, _ = connect(port, certs, "operator", "BJ-01-1")
        with pytest.raises(AmpError) as elsewhere:
            op1.call("CashIn", request_id="x", terminal=SECOND, amount=100, reference="e2e")
        assert elsewhere.value.code == "BAD_REQUEST"
        assert "served by worker 2" in elsewhere.value.description
        # etg operator reaches the worker of the terminal it names, and says why without one.
        credit = etg_operator(port, certs, "credit", SECOND, "1.00", "--reference", "e2e")
        assert credit.returncode == 0 and "T8: credited $1.00" in credit.stdout, credit.stderr
        meters_all = etg_operator(port, certs, "meters")
        assert meters_all.returncode == 1 and "worker 2 serves BJ-01-2" in meters_all.stderr
        with pytest.raises((ssl.SSLError, ConnectionError, AmpError)):
            stranger = AmpClient(port, other, FIRST, route=FIRST)
            stranger.call("Hello", version=PROTOCOL_VERSION, software="e2e")
        server.wait_for("TLS handshake was refused")
    assert "refused terminal T8" in server.text()


def test_a_worker_killed_mid_round_is_restarted_and_its_round_resumes(
    floor: dict[str, Path],
) -> None:
    """SIGKILL of worker 2 after T8's deal: the front logs it and starts it again, the table
    recovers from its log, T8 reconnects to the same round and finishes it; T1 at worker 1
    keeps its connection throughout; credits are conserved and both logs verify."""
    certs = floor["certs"]
    with serving(floor) as server:
        port = server.port
        op2, _ = connect(port, certs, "operator", "BJ-01-2")
        op2.call("CashIn", request_id="in-8", terminal=SECOND, amount=10_000, reference="e2e")
        op2.close()
        t1, _ = connect(port, certs, FIRST, FIRST)
        t8, _ = connect(port, certs, SECOND, SECOND)
        t8.call("PlaceWagers", request_id="bet", wagers={"blackjack": 500})
        dealt = t8.wait_view(lambda v: v["phase"] in ("playing", "insurance", "complete"))
        os.kill(server.worker_pid(2), signal.SIGKILL)
        server.wait_for(r"worker 2 \(tables BJ-01-2\) exited with status -9; restarting")
        server.wait_for(r"worker 2 ready", timeout=60)
        t8 = None
        for _ in range(50):  # the restarted worker adopts connections once its log is up
            try:
                t8, answer = connect(port, certs, SECOND, SECOND)
                break
            except (AmpError, ConnectionError, ssl.SSLError, OSError):
                time.sleep(0.2)
        assert t8 is not None, "T8 could not reconnect"
        view = json.loads(answer["view"])
        resumable = {dealt["round"]} | (
            {dealt["round"] + 1} if dealt["phase"] == "complete" else set()
        )
        assert view["round"] in resumable
        for step in range(100):
            view = json.loads(t8.call("GetView")["view"])
            if view["round"] != dealt["round"] or view["phase"] == "complete":
                break
            if view["actions"] and view["to_act"]:
                hand = view["to_act"]["hand"]
                t8.call("Act", request_id=f"a{step}", action="stand", hand=hand, amount=0)
            else:
                t8.wait_view(lambda v: True, timeout=20)
        assert view["phase"] == "complete" or view["round"] != dealt["round"]
        assert json.loads(t1.call("GetView")["view"])["table"] == "BJ-01-1"  # still connected
        op2, _ = connect(port, certs, "operator", "BJ-01-2")
        found = meters(op2)
        assert conserved(found) and found["credits_in"] == 10_000
        assert json.loads(t8.call("GetView")["view"])["credits"] == found["wallets"][SECOND]
        for client in (op2, t1, t8):
            client.close()
    verify_logs(floor)


def test_workers_stop_when_their_front_is_killed(floor: dict[str, Path]) -> None:
    """SIGKILL of the front (it cannot stop its workers): each worker sees its channel
    close, stops and closes its log; both logs verify."""
    with serving(floor) as server:
        assert server.port
        workers = [server.worker_pid(1), server.worker_pid(2)]
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(0.2)
        assert not any(alive(pid) for pid in workers), "a worker outlived its front"
    assert server.text().count("the front process is gone; stopping") == 2
    verify_logs(floor)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie of a killed parent counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_the_front_drops_connections_that_send_no_client_hello(
    floor: dict[str, Path], tmp_path: Path
) -> None:
    """Before a worker gets it, a connection must send its ClientHello within
    ``hello_seconds``; over ``unauthenticated_connections`` per worker waiting at once, a
    new one is closed at accept. Each drop is logged; a terminal still plays afterwards."""
    limits = tmp_path / "floor.toml"
    limits.write_text(
        "[floor]\nport = 7400\n[floor.terminals]\nT1 = 1\nT8 = 1\n"
        '[floor.tables]\nT1 = "BJ-01-1"\nT8 = "BJ-01-2"\n'
        "[floor.limits]\nhello_seconds = 1\nunauthenticated_connections = 1\n"
    )
    with serving(floor, "--floor", str(limits)) as server:
        port = server.port
        silent = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(2)]
        time.sleep(0.3)  # both are waiting for their ClientHello
        third = socket.create_connection(("127.0.0.1", port), timeout=10)
        assert third.recv(1) == b"", "a third waiting connection is closed at once"
        server.wait_for("2 connections have not sent their ClientHello yet")
        for sock in silent:
            assert sock.recv(1) == b"", "a silent connection is dropped after hello_seconds"
        server.wait_for(r"no whole ClientHello within 1 s")
        t8, answer = connect(port, floor["certs"], SECOND, SECOND)
        assert json.loads(answer["view"])["table"] == "BJ-01-2"
        for sock in [*silent, third, t8.sock]:
            sock.close()


def test_one_address_locks_neither_the_front_nor_a_worker_out(
    floor: dict[str, Path], tmp_path: Path
) -> None:
    """With two workers each cap before Hello holds in the process that holds the connection:
    200 silent connections from 127.0.0.2 wait at the front, which keeps 16 of them (8 per
    worker) and closes the rest at accept; 72 connections from 127.0.0.3 that send a
    ClientHello naming BJ-01-1 and then stall are handed to worker 1, which keeps 8 and
    closes the rest as it adopts them. Meanwhile, for 6 s, the operator of BJ-01-1, T1 (its
    terminal) and T8 (worker 2's), connecting from 127.0.0.1, are served every time, and
    each process logs its refusals of an address in one line.

    Before the caps per address, the front's one cap (64 per worker) was full of the silent
    connections and refused everyone else."""
    limits = tmp_path / "floor.toml"
    limits.write_text(
        "[floor]\nport = 7400\n[floor.terminals]\nT1 = 1\nT8 = 1\n"
        '[floor.tables]\nT1 = "BJ-01-1"\nT8 = "BJ-01-2"\n'
        "[floor.limits]\nhello_seconds = 2\n"
    )
    certs = floor["certs"]
    with serving(floor, "--floor", str(limits)) as server:
        port = server.port
        silent = Attacker(port, 200, reopen_seconds=1.0, source="127.0.0.2")
        stalled = Attacker(
            port, 72, first=client_hello("BJ-01-1"), reopen_seconds=1.0, source="127.0.0.3"
        )
        with silent.holding(), stalled.holding():
            tries, problems = probe(
                6.0,
                0.5,
                [
                    lambda: operator_served(port, certs, route="BJ-01-1"),
                    lambda: terminal_served(port, certs, FIRST, route=FIRST),
                    lambda: terminal_served(port, certs, SECOND, route=SECOND),
                ],
            )
        described = "\n".join([silent.describe(), stalled.describe(), *problems[:5]])
        assert tries >= 9 and not problems, described
        assert silent.refused > 200 and stalled.refused > 72, described
        assert silent.dropped >= 16 and stalled.dropped >= 8, described
        lines = server.text().splitlines()
    front = [line for line in lines if "[game_server.net.workers#warn] refusing" in line]
    workers = [line for line in lines if "[game_server.net.server#warn] refusing" in line]
    # One line per address and process (the front may also have turned away a burst of
    # 127.0.0.3's connections before their ClientHello was read).
    for process in (front, workers):
        for source in ("127.0.0.2", "127.0.0.3"):
            assert len([line for line in process if f"from {source}:" in line]) <= 1, process
    (silent_line,) = [line for line in front if "from 127.0.0.2:" in line]
    assert "127.0.0.2 already holds 16 connections that have not sent their" in silent_line
    (stalled_line,) = [line for line in workers if "from 127.0.0.3:" in line]
    assert "127.0.0.3 already holds 8 connections that have not said Hello" in stalled_line
