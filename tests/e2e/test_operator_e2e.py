"""End to end: operator actions with who asked, and revocations, on the real server's log.

The real server process over mutual TLS (``test_server_e2e.py``'s helpers): a cash in named
to a person while a round is open is logged in that round and the log still verifies, recall
shows the sentence; a terminal revoked through ``SetTerminalAccess`` is refused at the TLS
handshake, still after a restart (the revocation is folded from the log), until reinstated.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_server_e2e import ROOT, _try_hello, hello, server, verified
from test_server_e2e import table as table  # the fixture

from game_server.eventlog import EventLogReader
from game_server.recall.query import fetch_round, recall_round
from tools.amp_client import tls_context
from tools.recall_pictures import write_pictures


def test_an_action_named_to_a_person_mid_round_is_in_the_round_and_verifies(
    table: dict[str, Path],
) -> None:
    """T1 wagers (the round opens), the operator cashes T2 in for alice (attendant) while
    the round is open: the record carries the round's id, the round settles, the log
    verifies, and recall tells the action in words."""
    with server(table) as (_process, port):
        operator, _ = hello(port, table["certs"], "operator")
        answer = operator.call(
            "CashIn",
            request_id="in-T1",
            terminal="T1",
            amount=10_000,
            reference="slip 1",
            person="alice",
            role="attendant",
        )
        assert answer == {"balance": "10000", "logged": "1"}
        t1, _ = hello(port, table["certs"], "T1")
        view = json.loads(
            t1.call("PlaceWagers", request_id="w1", wagers={"blackjack": 500})["view"]
        )
        round_id = view["round"]
        operator.call(
            "CashIn",
            request_id="in-T2",
            terminal="T2",
            amount=2_500,
            reference="slip 2",
            person="alice",
            role="attendant",
        )
        t1.wait_view(lambda v: v["round"] != round_id or v["phase"] == "complete", timeout=60)
        for client in (operator, t1):
            client.close()
    report = verified(table)
    assert report.ok, report.first_failure
    with EventLogReader.open(table["db"]) as reader:
        [stored] = [
            e for e in reader.events_of_kind("operator_action") if e.body["request_id"] == "in-T2"
        ]
        assert stored.round_id == round_id
        timeline = recall_round(reader, round_id)
        logged = fetch_round(reader, timeline.table_id, round_id)
    texts = [entry.text for entry in timeline.entries]
    assert "cash-in of $25.00 to T2 (slip 2) by alice (attendant)" in texts
    assert logged is not None
    frames = write_pictures(logged, timeline, frames=table["db"].parent / "frames", size=(640, 360))
    assert len(frames) == len(timeline.entries)


def test_a_revoked_terminal_is_refused_after_a_restart_until_reinstated(
    table: dict[str, Path],
) -> None:
    """Revoke T2: its handshake is refused at once and after a restart; reinstated, it is
    accepted again. The log verifies."""
    certs = table["certs"]
    with server(table) as (_process, port):
        assert _try_hello(port, tls_context(certs, "T2")) == "accepted"
        operator, _ = hello(port, certs, "operator")
        answer = operator.call(
            "SetTerminalAccess",
            request_id="v1",
            terminal="T2",
            access="revoke",
            reason="tampered",
            person="bob",
            role="supervisor",
        )
        assert json.loads(answer["revoked"]) == ["T2"]
        assert _try_hello(port, tls_context(certs, "T2")) == "refused"
        operator.close()
    with server(table) as (_process, port):
        assert _try_hello(port, tls_context(certs, "T2")) == "refused"
        assert _try_hello(port, tls_context(certs, "T1")) == "accepted"
        operator, _ = hello(port, certs, "operator")
        operator.call(
            "SetTerminalAccess",
            request_id="v2",
            terminal="T2",
            access="reinstate",
            reason="checked",
            person="bob",
            role="supervisor",
        )
        assert _try_hello(port, tls_context(certs, "T2")) == "accepted"
        operator.close()
    assert verified(table).ok


def _operator(port: int, certs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tools", "operator", "--certs", str(certs)]
    command += ["--server", f"127.0.0.1:{port}", "--hostname", "localhost", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_etg_operator_does_the_consoles_actions_for_scripts(table: dict[str, Path]) -> None:
    """``etg operator``: credit, cash out (part, then all), meters, out of service, close,
    open, revoke and reinstate over the real server, each logged with the person and role;
    a refusal exits 1 with the server's sentence; a bad amount exits 2 before connecting."""
    certs = table["certs"]
    who = ("--person", "ann", "--role", "attendant")
    with server(table) as (_process, port):
        done = _operator(port, certs, *who, "credit", "T1", "150.00", "--reference", "slip 5")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "T1: credited $150.00, credits $150.00"
        done = _operator(port, certs, *who, "cash-out", "T1", "50", "--reference", "v 1")
        assert done.stdout.strip() == "T1: paid $50.00, credits $100.00"
        done = _operator(port, certs, *who, "cash-out", "T1", "--reference", "v 2")
        assert done.stdout.strip() == "T1: paid $100.00, credits $0.00"
        refused = _operator(port, certs, *who, "cash-out", "T1", "--reference", "v 3")
        assert refused.returncode == 1
        assert "holds $0.00" in refused.stderr or "is not a positive" in refused.stderr
        bad = _operator(port, certs, "credit", "T1", "12.345", "--reference", "x")
        assert bad.returncode == 2 and "not an amount of money" in bad.stderr
        boss = ("--person", "sam", "--role", "supervisor")
        for state in ("out-of-service", "close", "open"):
            done = _operator(port, certs, *boss, state, "--reason", f"{state} drill")
            assert done.returncode == 0, done.stderr
        meters = _operator(port, certs, "meters", "--json")
        figures = json.loads(meters.stdout)
        assert figures["credits_in"] == 15_000 and figures["credits_out"] == 15_000
        assert figures["floor"]["set_by"]["BJ-01"]["person"] == "sam"
        assert "T1: $0.00" in _operator(port, certs, "meters").stdout
        done = _operator(port, certs, *boss, "revoke", "T2", "--reason", "tampered")
        assert done.stdout.strip() == "T2: revoked; revoked at the server: T2"
        done = _operator(port, certs, *boss, "reinstate", "T2", "--reason", "checked")
        assert done.stdout.strip() == "T2: reinstated; revoked at the server: none"
    assert verified(table).ok
    with EventLogReader.open(table["db"]) as reader:
        actions = [e.body for e in reader.events_of_kind("operator_action")]
    assert [(a["action"], a["person"], a["amount"], bool(a["refused"])) for a in actions] == [
        ("cash-in", "ann", 15_000, False),
        ("cash-out", "ann", 5_000, False),
        ("cash-out", "ann", 10_000, False),
        ("cash-out", "ann", 0, True),
        ("out-of-service", "sam", 0, False),
        ("close", "sam", 0, False),
        ("open", "sam", 0, False),
    ]
