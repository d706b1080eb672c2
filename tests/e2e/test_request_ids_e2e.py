"""End to end: a request id retried after kill -9 and a restart takes effect once.

A client that lost its connection before the answer cannot tell whether its command ran;
it sends it again with its first request id once the server is back (the terminal resends
every pending intent so, ``terminal_client.net.client``). The server used to keep what each
request id did in memory only, so a command that a kill caught between its commit and its
answer ran a second time after the restart: a CashIn credited twice ($7.00, then $14.00), a
hit dealt a card nobody asked for. Now every command's first step is logged with the
client's request id (``request_applied``), the server rebuilds what it needs of them from
the log at start, and a retry of one is answered with ``already`` and changes nothing.

Each test runs the real server (``python -m game_server``) on a real log, kills it with
SIGKILL once the first answer came (so the command is committed), starts it again on the
same log and retries with the same id.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from test_server_e2e import hello, server
from test_server_e2e import table as table  # the fixture

from game_server.eventlog import AnchorFile, EventLogReader
from game_server.keys import load_public_key, load_sealing_key
from game_server.recall.verify import verify_log
from tools.amp_client import AmpClient, AmpError

#: Rounds played at most until T1 is dealt a hand it can hit without reaching 21.
ROUNDS: int = 40


def _verified(table: dict[str, Path], anchors: Path) -> Any:
    with EventLogReader.open(table["db"]) as reader:
        return verify_log(
            reader,
            load_public_key(table["certs"]),
            sealing_key=load_sealing_key(table["certs"]),
            anchors=AnchorFile(anchors),
        )


def _kill(process: Any) -> None:
    process.kill()
    process.wait(timeout=30)


def test_a_cash_in_retried_after_kill_9_credits_once(
    table: dict[str, Path], tmp_path: Path
) -> None:
    """A CashIn of $7.00 answered, the server killed with SIGKILL and started again, the
    same CashIn sent again with its first request id: T1 still holds $7.00 (not $14.00), the
    retry is answered with the first answer's balance and says it already took effect, and
    the log holds one credit and verifies against its anchors."""
    anchors = tmp_path / "anchors.jsonl"
    cash_in = {
        "request_id": "slip-7",
        "terminal": "T1",
        "amount": 700,
        "reference": "slip 7",
        "person": "ann",
        "role": "attendant",
    }
    with server(table, "--anchors", str(anchors)) as (process, port):
        operator, _ = hello(port, table["certs"], "operator")
        first = operator.call("CashIn", **cash_in)
        assert first["balance"] == "700" and "already" not in first
        _kill(process)  # answered, so committed and anchored
    with server(table, "--anchors", str(anchors)) as (process, port):
        operator, _ = hello(port, table["certs"], "operator")
        retry = operator.call("CashIn", **cash_in)
        meters = json.loads(operator.call("ReadMeters")["meters"])
        with_new_id = operator.call("CashIn", **{**cash_in, "request_id": "slip-8"})
        operator.close()
    assert meters["wallets"]["T1"] == 700, "the retry credited T1 a second time"
    assert retry["balance"] == "700" and retry["logged"] == "1"
    assert "slip-7" in retry["already"] and "took effect" in retry["already"]
    assert with_new_id["balance"] == "1400" and "already" not in with_new_id
    with EventLogReader.open(table["db"]) as reader:
        credits = [e for e in reader.events_of_kind("credits_in") if e.body["reference"]]
        applied = [e.body for e in reader.events_of_kind("request_applied")]
    assert [c.body["balance"] for c in credits] == [700, 1400]
    assert [(a["client"], a["request_id"]) for a in applied] == [
        ("operator", "slip-7"),
        ("operator", "slip-8"),
    ]
    report = _verified(table, anchors)
    assert report.ok, report.first_failure


def _mine(view: dict[str, Any]) -> dict[str, Any] | None:
    return next((seat for seat in view["seats"] if seat.get("mine")), None)


def _current(t1: AmpClient) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(t1.call("GetView")["view"])
    return view


def _moved_on(round_id: int, view: dict[str, Any]) -> bool:
    """Whether ``view`` is past the betting window of round ``round_id``."""
    return bool(view["round"] != round_id or view["phase"] != "betting")


def _wagered(t1: AmpClient, number: int) -> dict[str, Any]:
    """T1's $5 wager in the next betting window; the answer's view."""
    for attempt in range(3):
        if _current(t1)["phase"] != "betting":
            t1.wait_view(lambda v: v["phase"] == "betting", timeout=60)
        try:
            answer = t1.call(
                "PlaceWagers", request_id=f"bet-{number}-{attempt}", wagers={"blackjack": 500}
            )
        except AmpError as refused:
            assert refused.code == "ROUND_CLOSED", refused  # the window closed meanwhile
            continue
        t1.pushed.clear()  # the answer is the table now
        view: dict[str, Any] = json.loads(answer["view"])
        return view
    raise AssertionError("T1 could not wager in three betting windows")


def _dealt_a_hand_to_hit(t1: AmpClient) -> dict[str, Any]:
    """Play rounds (a $5 wager, declining insurance, standing) until T1 is to act on a hand
    of 10 or less: a hit cannot end it, so T1 is still to act after one. That view."""
    for number in range(ROUNDS):
        round_id = _wagered(t1, number)["round"]
        for _ in range(50):
            view = t1.wait_view(partial(_moved_on, round_id), timeout=30)
            if view["round"] != round_id or view["phase"] == "complete":
                break
            if view["insurance"] is not None:
                t1.call("AnswerInsurance", request_id=f"ins-{number}", choice="decline", amount=0)
                continue
            if view["actions"]:
                at = view["to_act"]["hand"]
                hand = _mine(view)["hands"][at]  # type: ignore[index]
                if at == 0 and hand["total"] <= 10 and "hit" in view["actions"]:
                    return view
                t1.call(
                    "Act",
                    request_id=f"stand-{number}-{at}-{len(hand['cards'])}",
                    action="stand",
                    hand=at,
                    amount=0,
                )
    raise AssertionError(f"T1 was never dealt a hand of 10 or less in {ROUNDS} rounds")


def test_a_hit_retried_after_kill_9_deals_one_card(table: dict[str, Path], tmp_path: Path) -> None:
    """T1 hits a hand of 10 or less and is answered (the decision is committed); the server
    is killed with SIGKILL and started again; T1 sends the hit again with its first request
    id, as the terminal does after reconnecting: its hand still has the three cards of one
    hit, the answer is the view as it is now and says the hit already took effect, the log
    holds one hit, and the log verifies against its anchors once the round is finished."""
    anchors = tmp_path / "anchors.jsonl"
    hit = {"request_id": "hit-once", "action": "hit", "hand": 0, "amount": 0}
    with server(table, "--anchors", str(anchors)) as (process, port):
        operator, _ = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="fund", terminal="T1", amount=50_000, reference="e2e")
        operator.close()
        t1, _ = hello(port, table["certs"], "T1")
        dealt = _dealt_a_hand_to_hit(t1)
        first = json.loads(t1.call("Act", **hit)["view"])
        cards = _mine(first)["hands"][0]["cards"]  # type: ignore[index]
        assert len(cards) == 3 and first["round"] == dealt["round"]
        _kill(process)  # answered, so committed
    with server(table, "--anchors", str(anchors)) as (process, port):
        t1, _ = hello(port, table["certs"], "T1")
        answer = t1.call("Act", **hit)
        retried = json.loads(answer["view"])
        now = _current(t1)
        for _ in range(20):  # finish the round: stand on whatever is left to act
            if now["round"] != dealt["round"] or now["phase"] == "complete":
                break
            if now["actions"]:
                hand = now["to_act"]["hand"]
                t1.call("Act", request_id=f"end-{hand}", action="stand", hand=hand, amount=0)
            now = t1.wait_view(lambda v: True, timeout=30)
    assert retried["round"] == dealt["round"]
    assert _mine(retried)["hands"][0]["cards"] == cards, "the retry dealt another card"  # type: ignore[index]
    assert "hit-once" in answer["already"] and "took effect" in answer["already"]
    with EventLogReader.open(table["db"]) as reader:
        hits = [
            e
            for e in reader.events_of_kind("decision")
            if e.round_id == dealt["round"] and e.terminal == "T1" and e.body["action"] == "hit"
        ]
    assert len(hits) == 1, f"{len(hits)} hits logged for one Act"
    report = _verified(table, anchors)
    assert report.ok, report.first_failure
