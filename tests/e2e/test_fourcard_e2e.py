"""End to end at a Four Card Poker table (58 Pa. Code 641a, 641b.1): the real server process,
two terminals and the operator over mutual TLS, the real log.

T1 wagers the Ante, Aces Up and both progressive wagers and decides by the simple strategy;
T2 wagers the Ante and leaves its decision to the countdown (it folds). Bad input gets
declared errors naming the paragraph. The server is then SIGKILLed after a deal and
restarted: the round resumes from the log and finishes. The log verifies: every round
replays through the engine and every card is the committed deck's.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from game_table import greet, players, short_table, verified
from game_table import raw_view as view_of
from game_table import wait_stadium_betting as wait_betting
from test_server_e2e import server  # the server process, as the other e2e tests run it

from terminal_client.games.fourcard.game import simple_strategy
from tools.amp_client import AmpClient, AmpError

WAGERS = {
    "T1": {"ante": 500, "aces_up": 100, "four_card_progressive": 100, "five_card_progressive": 100},
    "T2": {"ante": 500},
}


@pytest.fixture()
def table(tmp_path: Path) -> dict[str, Path]:
    return short_table(tmp_path, "fourcard.toml")


def hello(port: int, certs: Path, who: str) -> AmpClient:
    return greet(port, certs, who, "e2e-fourcard")


def finish(clients: dict[str, AmpClient], round_id: int, tag: str) -> dict[str, dict[str, Any]]:
    """T1 decides by the strategy; T2 waits for the countdown; until both see the round done."""
    done: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 60
    while len(done) < len(clients):
        assert time.monotonic() < deadline, "the round did not finish"
        for name, client in clients.items():
            view = view_of(client)
            if view["round"] != round_id or view["phase"] == "complete":
                done[name] = view
                continue
            if name == "T1" and view["actions"]:
                mine = next(s for s in view["seats"] if s["mine"])
                choice = simple_strategy(mine["hands"][0]["cards"])
                try:
                    client.call("Act", request_id=f"T1-act-{tag}", action=choice, hand=0, amount=0)
                except AmpError as exc:
                    assert exc.code in ("NOT_YOUR_TURN", "ROUND_CLOSED", "ILLEGAL_ACTION"), exc
        time.sleep(0.1)
    return done


def place(clients: dict[str, AmpClient], tag: str) -> int:
    round_id = 0
    for name, client in clients.items():
        wait_betting(client)
        placed = json.loads(
            client.call("PlaceWagers", request_id=f"{name}-{tag}", wagers=WAGERS[name])["view"]
        )
        mine = next(s for s in placed["seats"] if s["mine"])
        assert mine["wagers"] == WAGERS[name]
        round_id = placed["round"]
    return round_id


@pytest.mark.slow
def test_whole_rounds_over_mutual_tls_then_sigkill_and_resume(table: dict[str, Path]) -> None:
    with server(table) as (_process, port):
        operator, clients = players(port, table["certs"], WAGERS, 50_000, hello)
        for n in range(2):
            round_id = place(clients, f"r{n}")
            finish(clients, round_id, f"r{n}")
            meters = json.loads(operator.call("ReadMeters")["meters"])
            for name, client in clients.items():
                view = view_of(client)
                assert view["credits"] == meters["wallets"][name]
                settled = {s["wager"]: s for s in view["settlements"]}
                assert "ante" in settled and all(s["line"] for s in view["settlements"])
                if name == "T2":
                    assert settled["ante"]["line"].startswith("Fold")  # by the countdown
                else:
                    assert {"aces_up", "four_card_progressive", "five_card_progressive"} <= set(
                        settled
                    )
            assert {m["wager"] for m in view_of(clients["T1"])["meters"]} >= {"must_hit_by"}
        assert meters["games_played"] == 2 and meters["in_play"] == 0
        rules = json.loads(clients["T1"].call("GetRules")["rules"])
        assert rules["game"] == "Four Card Poker"
        recall = json.loads(clients["T1"].call("GetRecall")["recall"])
        assert [g["round"] for g in recall["games"]][:2] == [2, 1]

    with server(table) as (process, port):
        clients = {name: hello(port, table["certs"], name) for name in WAGERS}
        round_id = place(clients, "kill")
        clients["T1"].wait_view(lambda v: v["machine"] == "deciding", timeout=20)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    with server(table) as (_process, port):
        clients = {name: hello(port, table["certs"], name) for name in WAGERS}
        view = view_of(clients["T1"])
        assert view["round"] == round_id and view["phase"] == "deciding"
        assert len(next(s for s in view["seats"] if s["mine"])["hands"][0]["cards"]) == 5
        done = finish(clients, round_id, "resumed")
        operator = hello(port, table["certs"], "operator")
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert meters["wallets"]["T1"] == done["T1"]["credits"] or done["T1"]["round"] != round_id
    report = verified(table)
    assert report.ok, report.first_failure
    assert report.counts.rounds_replayed >= 3


def test_bad_input_gets_declared_errors_naming_the_paragraph(table: dict[str, Path]) -> None:
    """A progressive without the Ante, a progressive amount not offered, a Play of 4 times
    the Ante, insurance: each refused with its reason; the credits untouched."""
    with server(table) as (_process, port):
        operator = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=20_000, reference="e2e")
        t1 = hello(port, table["certs"], "T1")
        wait_betting(t1)
        refusals = [
            ({"aces_up": 100, "four_card_progressive": 100}, "641b.1"),
            ({"ante": 500, "five_card_progressive": 300}, "fixed amount"),
        ]
        for n, (wagers, words) in enumerate(refusals):
            with pytest.raises(AmpError) as refused:
                t1.call("PlaceWagers", request_id=f"bad-{n}", wagers=wagers)
            assert words in refused.value.description, refused.value.description
            assert view_of(t1)["credits"] == 20_000
        t1.call("PlaceWagers", request_id="ok", wagers={"ante": 500})
        view = t1.wait_view(lambda v: bool(v["actions"]), timeout=20)
        with pytest.raises(AmpError) as wrong:
            t1.call("Act", request_id="x4", action="play", hand=0, amount=4)
        assert "1, 2 or 3 times the Ante, not 4" in wrong.value.description
        with pytest.raises(AmpError) as insurance:
            t1.call("AnswerInsurance", request_id="ins", choice="insurance", amount=100)
        assert "no insurance" in insurance.value.description
        assert view_of(t1)["credits"] == view["credits"]
