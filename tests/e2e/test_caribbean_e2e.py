"""End to end at a Caribbean Stud Poker table (58 Pa. Code 639a, 639b.1): the real server
process (``python -m game_server``) with the shipped Rules Submission (short countdowns), two
terminals and the operator over mutual TLS with their own certificates, the real log.

Whole rounds: T1 places the Ante and the Progressive Payout Wager (qualifying for the
Must-Hit-By Mystery Bonus) and always makes the Bet Wager; T2 places the Ante and folds; the
credits in every view equal the operator's meters; bad input gets declared errors naming the
paragraph; a SIGKILL after the deal resumes the round on restart; the log verifies.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from game_table import check_log, greet, players, short_table
from game_table import raw_view as view_of
from game_table import wait_stadium_betting as wait_betting
from test_server_e2e import server

from tools.amp_client import AmpClient, AmpError

ANTE = 500
WAGERS = {"T1": {"ante": ANTE, "progressive": 100}, "T2": {"ante": ANTE}}
CHOICE = {"T1": "bet", "T2": "fold"}

pytestmark = pytest.mark.slow


@pytest.fixture()
def table(tmp_path: Path) -> dict[str, Path]:
    return short_table(tmp_path, "caribbean.toml")


def hello(port: int, certs: Path, who: str) -> AmpClient:
    return greet(port, certs, who, "e2e-caribbean")


def place(clients: dict[str, AmpClient], tag: str) -> int:
    round_id = 0
    for name, client in clients.items():
        wait_betting(client)
        view = json.loads(
            client.call("PlaceWagers", request_id=f"{name}-{tag}", wagers=WAGERS[name])["view"]
        )
        round_id = view["round"]
    return round_id


def finish(clients: dict[str, AmpClient], round_id: int, tag: str) -> dict[str, dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 60
    while len(done) < len(clients):
        assert time.monotonic() < deadline, "the round did not finish"
        for name, client in clients.items():
            if name in done:
                continue
            view = view_of(client)
            if view["round"] != round_id or view["phase"] == "complete":
                done[name] = view
            elif view["actions"]:
                assert view["dealer"]["cards"][1:] == [None] * 4  # hole cards never sent
                try:
                    client.call(
                        "Act", request_id=f"act-{name}-{tag}", action=CHOICE[name], hand=0, amount=0
                    )
                except AmpError as exc:  # the shared countdown may fold first
                    assert exc.code in ("NOT_YOUR_TURN", "ROUND_CLOSED", "ILLEGAL_ACTION"), exc
        time.sleep(0.1)
    return done


def test_two_terminals_play_whole_caribbean_rounds_over_mutual_tls(
    table: dict[str, Path],
) -> None:
    """Two rounds: T1's Ante, Bet and Progressive settle with their lines, T2's fold loses
    its Ante; credits equal the meters; the Must-Hit-By meter is shown, its trigger never;
    the log verifies."""
    with server(table) as (_process, port):
        operator, clients = players(port, table["certs"], WAGERS, 50_000, hello)
        for n in range(2):
            finish(clients, place(clients, f"r{n}"), f"r{n}")
            meters = json.loads(operator.call("ReadMeters")["meters"])
            for name, client in clients.items():
                view = view_of(client)
                assert view["credits"] == meters["wallets"][name]
                settled = {s["wager"]: s for s in view["settlements"]}
                assert "ante" in settled and all(s["line"] for s in view["settlements"])
                if name == "T2":
                    assert settled["ante"]["line"] == "Fold (639a.1)" and "bet" not in settled
                else:
                    assert {"ante", "bet", "progressive"} <= set(settled)
                assert "must_hit_by" in view["progressive_meters"] and "trigger" not in json.dumps(
                    view
                )
        assert meters["games_played"] == 2 and meters["in_play"] == 0
        rules = json.loads(clients["T1"].call("GetRules")["rules"])
        assert rules["game"] == "Caribbean Stud Poker"
        recall = json.loads(clients["T1"].call("GetRecall")["recall"])
        assert [g["round"] for g in recall["games"]][:2] == [2, 1]
        for client in (operator, *clients.values()):
            client.close()
    check_log(table, 2)


def test_bad_caribbean_input_is_refused_naming_the_paragraph(table: dict[str, Path]) -> None:
    """A Progressive Payout without an Ante, a Progressive amount not offered, a Bet other
    than twice the Ante: declared errors naming the paragraph, credits untouched."""
    with server(table) as (_process, port):
        operator = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=20_000, reference="e2e")
        t1 = hello(port, table["certs"], "T1")
        wait_betting(t1)
        for i, (wagers, paragraph) in enumerate(
            [({"progressive": 100}, "639b.1(a)"), ({"ante": ANTE, "progressive": 300}, "639a.7")]
        ):
            with pytest.raises(AmpError) as refused:
                t1.call("PlaceWagers", request_id=f"bad-{i}", wagers=wagers)
            assert paragraph in refused.value.description, refused.value.description
            assert view_of(t1)["credits"] == 20_000
        t1.call("PlaceWagers", request_id="ok", wagers={"ante": ANTE})
        view = t1.wait_view(lambda v: bool(v["actions"]), timeout=20)
        with pytest.raises(AmpError) as wrong:
            t1.call("Act", request_id="x3", action="bet", hand=0, amount=3 * ANTE)
        assert "twice the Ante" in wrong.value.description and "639a" in wrong.value.description
        assert view_of(t1)["credits"] == view["credits"]


def test_kill_9_after_the_deal_resumes_the_caribbean_round(table: dict[str, Path]) -> None:
    """SIGKILL after the deal: the restarted server resumes the round from the log with the
    same cards, the players finish it, credits equal the meters, the log verifies."""
    with server(table) as (process, port):
        operator, clients = players(port, table["certs"], WAGERS, 9_000, hello)
        round_id = place(clients, "k")
        before = clients["T1"].wait_view(lambda v: bool(v["actions"]), timeout=20)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    with server(table) as (_process, port):
        clients = {name: hello(port, table["certs"], name) for name in WAGERS}
        after = view_of(clients["T1"])
        assert after["round"] == round_id
        mine = next(s for s in after["seats"] if s["mine"])["hands"]
        assert mine == next(s for s in before["seats"] if s["mine"])["hands"]
        finish(clients, round_id, "after")
        operator = hello(port, table["certs"], "operator")
        meters = json.loads(operator.call("ReadMeters")["meters"])
        for name in WAGERS:
            assert view_of(clients[name])["credits"] == meters["wallets"][name]
        assert meters["in_play"] == 0 and meters["games_played"] >= 1
        for client in (operator, *clients.values()):
            client.close()
    check_log(table, 1)
