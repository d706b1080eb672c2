"""End to end: the real server process, real TLS clients on loopback, the real log.

Each test starts ``python -m game_server`` on an ephemeral port with short countdowns, drives
it with terminal and operator certificates over mutual TLS, stops it, and proves the log with
``verify_log``. Every process is stopped in a ``finally``; every wait is bounded.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import ssl
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from game_server.config import example_config_path
from game_server.eventlog import EventLogReader
from game_server.keys import init_keys, load_public_key
from game_server.net.pki import init_pki
from game_server.recall.verify import verify_log
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient, AmpError, tls_context

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def table(tmp_path: Path) -> dict[str, Path]:
    certs = tmp_path / "certs"
    init_pki(certs, terminals=2)
    init_keys(certs)
    text = example_config_path().read_text()
    for timer in ("betting_seconds", "insurance_seconds", "decision_seconds"):
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    config = tmp_path / "table.toml"
    config.write_text(text)
    return {"certs": certs, "config": config, "db": tmp_path / "table.db"}


def listening_port(process: subprocess.Popen[str]) -> int:
    """Read the server's output up to the line that says where it listens; its port."""
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if found:
            return int(found.group(1))
    raise AssertionError("the server did not start")


def stop(process: subprocess.Popen[Any]) -> None:
    """SIGTERM the process (a server, a terminal, an X server) if it still runs; SIGKILL it
    after 10 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def server_command(table: dict[str, Path], *extra: str) -> list[str]:
    """The command line that starts the real server on ``table``'s config, log and
    certificates, on a free port, with a short pause between rounds."""
    return [
        sys.executable,
        "-m",
        "game_server",
        "--config",
        str(table["config"]),
        "--db",
        str(table["db"]),
        "--certs",
        str(table["certs"]),
        "--port",
        "0",
        "--next-round-delay",
        "0.2",
        *extra,
    ]


@contextmanager
def server(table: dict[str, Path], *extra: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    process = subprocess.Popen(
        server_command(table, *extra),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process, listening_port(process)
    finally:
        stop(process)


def hello(port: int, certs: Path, who: str) -> tuple[AmpClient, dict[str, Any]]:
    client = AmpClient(port, certs, who)
    answer = client.call("Hello", version=PROTOCOL_VERSION, software="e2e")
    return client, answer


def play_round(terminals: dict[str, AmpClient], bets: dict[str, int]) -> dict[str, Any]:
    """Wager, then stand on every hand when it is ours, until every seat has its results."""
    views: dict[str, Any] = {}
    for name, bet in bets.items():
        views[name] = json.loads(
            terminals[name].call(
                "PlaceWagers", request_id=f"{name}-bet-{id(bets)}", wagers={"blackjack": bet}
            )["view"]
        )
    round_id = views[next(iter(bets))]["round"]
    done: dict[str, Any] = {}
    for _ in range(200):
        for name, client in terminals.items():
            if name in done:
                continue
            view = client.wait_view(lambda v: True, timeout=20)
            if view["round"] != round_id or view["phase"] == "complete":
                done[name] = view
                continue
            if view["actions"] and view["to_act"]:
                hand = view["to_act"]["hand"]
                try:
                    client.call(
                        "Act",
                        request_id=f"{name}-{round_id}-{hand}-{len(view['seats'])}",
                        action="stand",
                        hand=hand,
                        amount=0,
                    )
                except AmpError as exc:
                    assert exc.code in ("NOT_YOUR_TURN", "ROUND_CLOSED"), exc
        if len(done) == len(terminals):
            return done
    raise AssertionError("the round did not finish")


def verified(table: dict[str, Path]) -> Any:
    with EventLogReader.open(table["db"]) as reader:
        return verify_log(reader, load_public_key(table["certs"]))


def test_a_round_over_mutual_tls_settles_and_the_log_verifies(table: dict[str, Path]) -> None:
    """Two terminals and the operator connect with their certificates; the operator cashes
    them in, both wager and stand, the round settles, credits match the meters, and after a
    clean stop the log verifies."""
    with server(table) as (_process, port):
        operator, answer = hello(port, table["certs"], "operator")
        assert answer["role"] == "operator"
        for name in ("T1", "T2"):
            operator.call(
                "CashIn", request_id=f"in-{name}", terminal=name, amount=10_000, reference="e2e"
            )
        t1, a1 = hello(port, table["certs"], "T1")
        t2, a2 = hello(port, table["certs"], "T2")
        assert (a1["seat"], a2["seat"]) == ("1", "2")
        assert json.loads(a1["view"])["credits"] == 10_000
        play_round({"T1": t1, "T2": t2}, {"T1": 500, "T2": 1_000})
        meters = json.loads(operator.call("ReadMeters")["meters"])
        view = json.loads(t1.call("GetView")["view"])
        assert meters["games_played"] >= 1
        assert view["credits"] == meters["wallets"]["T1"]
        assert view["recent"], "the settled round is in the terminal's recent results"
        for client in (operator, t1, t2):
            client.close()
    report = verified(table)
    assert report.ok, report.first_failure


def test_bad_requests_get_declared_errors(table: dict[str, Path]) -> None:
    """A wrong protocol version, a terminal calling an operator command, the operator placing
    a wager, a bet over the limit and a bet over the credits each get their declared error."""
    with server(table) as (_process, port):
        client = AmpClient(port, table["certs"], "T1")
        with pytest.raises(AmpError) as wrong:
            client.call("Hello", version=99, software="old")
        assert wrong.value.code == "VERSION_MISMATCH"
        client.close()
        operator, _ = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=1_000, reference="e2e")
        t1, _ = hello(port, table["certs"], "T1")
        with pytest.raises(AmpError) as unauthorized:
            t1.call("CashIn", request_id="steal", terminal="T1", amount=1, reference="x")
        assert unauthorized.value.code == "UNAUTHORIZED"
        with pytest.raises(AmpError) as operator_bet:
            operator.call("PlaceWagers", request_id="op", wagers={"blackjack": 500})
        assert operator_bet.value.code == "UNAUTHORIZED"
        with pytest.raises(AmpError) as limit:
            t1.call("PlaceWagers", request_id="big", wagers={"blackjack": 1_000_000})
        assert limit.value.code == "BET_OUT_OF_LIMITS" and "maximum" in limit.value.description
        with pytest.raises(AmpError) as credits:
            t1.call("PlaceWagers", request_id="poor", wagers={"blackjack": 5_000})
        assert credits.value.code == "INSUFFICIENT_CREDITS"
        retry = t1.call("PlaceWagers", request_id="ok", wagers={"blackjack": 500})
        again = t1.call("PlaceWagers", request_id="ok", wagers={"blackjack": 500})
        assert again == retry  # a retry gets the first answer and changes nothing
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert meters["wallets"]["T1"] == 500


def test_kill_9_mid_round_then_restart_resumes_the_round(table: dict[str, Path]) -> None:
    """SIGKILL of the server after the deal: on restart the round resumes from the log, the
    terminal reconnects to the same round and finishes it, credits are conserved and the log
    verifies."""
    with server(table) as (process, port):
        operator, _ = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=10_000, reference="e2e")
        t1, _ = hello(port, table["certs"], "T1")
        t1.call("PlaceWagers", request_id="bet", wagers={"blackjack": 500})
        dealt = t1.wait_view(lambda v: v["phase"] in ("playing", "insurance", "complete"))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    with server(table) as (_process, port):
        t1, answer = hello(port, table["certs"], "T1")
        view = json.loads(answer["view"])
        # A round settled by the deal itself (a Blackjack, a dealer Blackjack) may already
        # have made way for the next one before the kill; any other round must be resumed.
        resumable = {dealt["round"]}
        if dealt["phase"] == "complete":
            resumable.add(dealt["round"] + 1)
        assert view["round"] in resumable
        operator, _ = hello(port, table["certs"], "operator")
        for _ in range(100):
            view = json.loads(t1.call("GetView")["view"])
            if view["round"] != dealt["round"] or view["phase"] == "complete":
                break
            if view["actions"] and view["to_act"]:
                t1.call(
                    "Act", request_id=f"a{_}", action="stand", hand=view["to_act"]["hand"], amount=0
                )
            else:
                t1.wait_view(lambda v: True, timeout=20)
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert meters["wallets"]["T1"] == view["credits"] or view["round"] != dealt["round"]
    report = verified(table)
    assert report.ok, report.first_failure


def _try_hello(port: int, context: ssl.SSLContext) -> str:
    """Connect with ``context`` and send Hello; the outcome as a word."""
    try:
        with (
            socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
            context.wrap_socket(raw, server_hostname="localhost") as sock,
        ):
            client = AmpClient.__new__(AmpClient)
            client.sock, client.buffer, client.tag, client.pushed = sock, b"", 0, []
            client.call("Hello", version=PROTOCOL_VERSION, software="e2e")
            return "accepted"
    except (ssl.SSLError, ConnectionError, OSError):
        return "refused"


def test_the_real_server_refuses_bad_certificates_at_the_handshake(
    table: dict[str, Path], tmp_path: Path
) -> None:
    """No client certificate, a certificate of another CA, a revoked terminal (from the floor
    file) and a TLS 1.2 client are refused by the running server, and each refusal is logged
    with its reason; a good certificate is accepted."""
    floor = tmp_path / "floor.toml"
    floor.write_text(
        "[floor]\nport = 7400\n[floor.terminals]\nT1 = 1\nT2 = 2\n"
        '[floor.revoked]\nserials = []\nterminals = ["T2"]\n'
    )
    other = tmp_path / "other-ca"
    init_pki(other, terminals=1)
    certs = table["certs"]
    with server(table, "--floor", str(floor)) as (process, port):
        assert _try_hello(port, tls_context(certs, "T1")) == "accepted"
        no_cert = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        no_cert.minimum_version = ssl.TLSVersion.TLSv1_3
        assert _try_hello(port, no_cert) == "refused"
        foreign = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        foreign.minimum_version = ssl.TLSVersion.TLSv1_3
        foreign.load_cert_chain(other / "terminals" / "T1.pem", other / "terminals" / "T1.key")
        assert _try_hello(port, foreign) == "refused"
        assert _try_hello(port, tls_context(certs, "T2")) == "refused"
        old = tls_context(certs, "T1")
        old.minimum_version = ssl.TLSVersion.TLSv1_2
        old.maximum_version = ssl.TLSVersion.TLSv1_2
        assert _try_hello(port, old) == "refused"
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=10)
    for reason in ("no-certificate", "unknown-ca", "revoked", "tls-version"):
        assert reason in output, f"the refusal {reason} was not logged"


def test_one_server_hosts_several_tables(table: dict[str, Path], tmp_path: Path) -> None:
    """etg serve --tables 2: T1 sits at seat 1 of the first table and T8 at seat 1 of the
    second; each plays its own round, and the shared log of both tables verifies."""
    certs = tmp_path / "certs8"
    init_pki(certs, terminals=8)
    init_keys(certs)
    table = {**table, "certs": certs}
    with server(table, "--tables", "2") as (_process, port):
        operator, _ = hello(port, certs, "operator")
        for name in ("T1", "T8"):
            operator.call(
                "CashIn", request_id=f"in-{name}", terminal=name, amount=5_000, reference="e2e"
            )
        t1, a1 = hello(port, certs, "T1")
        t8, a8 = hello(port, certs, "T8")
        v1, v8 = json.loads(a1["view"]), json.loads(a8["view"])
        assert (a1["seat"], a8["seat"]) == ("1", "1")
        assert (v1["table"], v8["table"]) == ("BJ-01-1", "BJ-01-2")
        play_round({"T1": t1}, {"T1": 500})
        play_round({"T8": t8}, {"T8": 500})
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert set(meters["tables"]) == {"BJ-01-1", "BJ-01-2"}
        assert meters["games_played"] >= 2
    with EventLogReader.open(table["db"]) as reader:
        report = verify_log(reader, load_public_key(certs))
    assert report.ok, report.first_failure
