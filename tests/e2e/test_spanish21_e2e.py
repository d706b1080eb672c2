"""End to end at a Spanish 21 table (58 Pa. Code 635a, 635b.1): the real server process, two
terminals and the operator over mutual TLS, the real log.

The test starts ``python -m game_server`` with the shipped Spanish 21 Rules Submission (short
countdowns). T1 wagers Spanish 21 and Match the Dealer and doubles down on its first decision,
then rescues the doubled hand when it may; T2 wagers Spanish 21 and stands. Every view is
scanned: the dealer's hole card is face down until the round turns it up, and nothing names a
face-down card. Bad input gets declared errors naming the paragraph, credits untouched. A
SIGKILL after the deal and a restart resume the round. Each time the log verifies: every
round replays through the Spanish 21 engine and every card is the committed shoe's.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from game_table import check_log, greet, players, raw_view, short_table
from test_server_e2e import server  # the server process, as the other e2e tests run it

from terminal_client import games as terminal_games
from tools.amp_client import AmpClient, AmpError

WAGERS = {"T1": {"blackjack": 1000, "match_the_dealer": 100}, "T2": {"blackjack": 500}}


@pytest.fixture()
def table(tmp_path: Path) -> dict[str, Path]:
    return short_table(
        tmp_path, "spanish21.toml", ("betting_seconds", "insurance_seconds", "decision_seconds")
    )


def hello(port: int, certs: Path, who: str) -> AmpClient:
    return greet(port, certs, who, "e2e-spanish21")


def scanned(view: dict[str, Any]) -> dict[str, Any]:
    """The view, checked: the hole card stays face down until it is revealed."""
    dealer = view["dealer"]
    if not dealer["hole_revealed"] and len(dealer["cards"]) > 1:
        assert dealer["cards"][1] == {"hidden": True} and dealer["total"] is None, dealer
    assert view["game"] == "spanish21"
    return view


def view_of(client: AmpClient) -> dict[str, Any]:
    return scanned(raw_view(client))


def wait_betting(client: AmpClient) -> None:
    for _ in range(200):
        view = view_of(client)
        if view["phase"] in (None, "betting") and view["state"] == "open":
            return
        time.sleep(0.05)
    raise AssertionError("no betting window")


def decide(name: str, view: dict[str, Any]) -> str:
    actions = view["actions"]
    if name == "T1" and "rescue" in actions:
        return "rescue"
    if name == "T1" and "double" in actions:
        return "double"
    return "stand" if "stand" in actions else actions[0]


def finish(clients: dict[str, AmpClient], round_id: int, tag: str) -> dict[str, dict[str, Any]]:
    """Decide every hand of the round until it is over for every terminal."""
    done: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 60
    step = 0
    while len(done) < len(clients):
        assert time.monotonic() < deadline, "the round did not finish"
        for name, client in clients.items():
            if name in done:
                continue
            view = view_of(client)
            if view["round"] != round_id or view["phase"] == "complete":
                done[name] = view
            elif view["insurance"] is not None:
                try:
                    client.call(
                        "AnswerInsurance",
                        request_id=f"{name}-{tag}-ins",
                        choice="decline",
                        amount=0,
                    )
                except AmpError as exc:
                    assert exc.code in ("ROUND_CLOSED", "NOT_YOUR_TURN", "ILLEGAL_ACTION"), exc
            elif view["actions"] and view["to_act"]:
                step += 1
                try:
                    client.call(
                        "Act",
                        request_id=f"{name}-{tag}-{step}",
                        action=decide(name, view),
                        hand=view["to_act"]["hand"],
                        amount=0,
                    )
                except AmpError as exc:  # the countdown may act first
                    assert exc.code in ("NOT_YOUR_TURN", "ROUND_CLOSED", "ILLEGAL_ACTION"), exc
        time.sleep(0.05)
    return done


def place(clients: dict[str, AmpClient], tag: str) -> int:
    round_id = 0
    for name, client in clients.items():
        wait_betting(client)
        placed = json.loads(
            client.call("PlaceWagers", request_id=f"{name}-{tag}", wagers=WAGERS[name])["view"]
        )
        round_id = placed["round"]
    return round_id


@pytest.mark.slow
def test_two_terminals_play_whole_spanish21_rounds_over_mutual_tls(
    table: dict[str, Path],
) -> None:
    """Whole rounds with Match the Dealer, doubles and rescues; the settlements carry the
    paytable lines; credits in every view equal the operator's meters; the log verifies."""
    with server(table) as (_process, port):
        operator, clients = players(port, table["certs"], WAGERS, 50_000, hello)
        for n in range(3):
            finish(clients, place(clients, f"r{n}"), f"r{n}")
            meters = json.loads(operator.call("ReadMeters")["meters"])
            for name, client in clients.items():
                view = view_of(client)
                assert view["credits"] == meters["wallets"][name]
                wagers = {s["wager"] for s in view["settlements"]}
                assert ("match_the_dealer" in wagers) is (name == "T1"), view["settlements"]
                assert all(s["line"] for s in view["settlements"])
        assert meters["in_play"] == 0 and meters["games_played"] == 3
        progressive = meters["progressives"]["S21-01:match_the_dealer:Match the Dealer Progressive"]
        assert progressive["amount"] == 100_000 + 3 * 15  # seeded $1,000, 15% of three $1
        rules = json.loads(clients["T1"].call("GetRules")["rules"])
        assert rules["game"] == "Spanish 21" and rules["wagers"][1]["paytable"] == "Paytable 1"
        recall = json.loads(clients["T1"].call("GetRecall")["recall"])
        assert [g["round"] for g in recall["games"]][:3] == [3, 2, 1]
        for recalled in recall["games"]:  # the terminal's recall screen reads each
            game = terminal_games.for_recall(recalled)
            assert game.name == "spanish21"
            assert game.parse_recalled(recalled).round == recalled["round"]
        for client in (operator, *clients.values()):
            client.close()
    check_log(table, 3)


def test_bad_spanish21_input_gets_declared_errors_naming_the_paragraph(
    table: dict[str, Path],
) -> None:
    """A Match the Dealer wager of $2 (635b.1(e)), an unknown decision, a rescue before any
    double (635a.10): each refused with its paragraph, the credits untouched."""
    with server(table) as (_process, port):
        operator = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=20_000, reference="e2e")
        t1 = hello(port, table["certs"], "T1")
        wait_betting(t1)
        with pytest.raises(AmpError) as refused:
            t1.call(
                "PlaceWagers",
                request_id="two",
                wagers={"blackjack": 1000, "match_the_dealer": 200},
            )
        assert "635b.1(e)" in refused.value.description, refused.value.description
        assert view_of(t1)["credits"] == 20_000
        t1.call("PlaceWagers", request_id="ok", wagers={"blackjack": 1000})
        view = scanned(
            t1.wait_view(lambda v: bool(v["actions"]) or v["phase"] == "complete", timeout=20)
        )
        if view["phase"] != "complete":
            with pytest.raises(AmpError) as rescue:
                t1.call("Act", request_id="r", action="rescue", hand=0, amount=0)
            assert "635a.10" in rescue.value.description, rescue.value.description
            with pytest.raises(AmpError) as unknown:
                t1.call("Act", request_id="u", action="press", hand=0, amount=0)
            assert "rescue" in unknown.value.description
            assert view_of(t1)["credits"] == view["credits"]


@pytest.mark.slow
def test_kill_9_mid_round_then_restart_resumes_the_spanish21_round(
    table: dict[str, Path],
) -> None:
    """SIGKILL after the deal: on restart the round resumes from the log with its cards, the
    terminals finish it, credits are conserved and the log verifies."""
    with server(table) as (process, port):
        operator, clients = players(port, table["certs"], WAGERS, 20_000, hello)
        round_id = place(clients, "k")
        before = scanned(
            clients["T1"].wait_view(lambda v: v["phase"] in ("playing", "complete"), timeout=20)
        )
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    with server(table) as (_process, port):
        clients = {name: hello(port, table["certs"], name) for name in WAGERS}
        after = view_of(clients["T1"])
        if before["phase"] == "playing":
            assert after["round"] == round_id and after["phase"] == "playing"
            assert after["seats"] == before["seats"]
            assert after["dealer"]["cards"][0] == before["dealer"]["cards"][0]
        finish(clients, round_id, "after")
        operator = hello(port, table["certs"], "operator")
        meters = json.loads(operator.call("ReadMeters")["meters"])
        for name in WAGERS:
            assert view_of(clients[name])["credits"] == meters["wallets"][name]
        assert meters["in_play"] == 0
    check_log(table, 1)
