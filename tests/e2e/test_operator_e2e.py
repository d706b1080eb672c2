"""End to end: operator actions with who asked, and revocations, on the real server's log.

The real server process over mutual TLS (``test_server_e2e.py``'s helpers): a cash in named
to a person while a round is open is logged in that round and the log still verifies, recall
shows the sentence; a terminal revoked through ``SetTerminalAccess`` is refused at the TLS
handshake, still after a restart (the revocation is folded from the log), until reinstated.
"""

from __future__ import annotations

import json
from pathlib import Path

from test_server_e2e import _try_hello, hello, server, verified
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
