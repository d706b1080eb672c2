"""End to end at an Ultimate Texas Hold 'Em table (58 Pa. Code 653a): the real server
process, two terminals over mutual TLS, the real log.

The test starts ``python -m game_server`` with the shipped UTH Rules Submission (short
countdowns), connects two terminals and the operator with their own certificates and plays
whole rounds: T1 wagers Ante, Blind and Trips and plays 4x before the flop; T2 wagers Ante
and Blind, checks to the river and there plays 1x or folds (653a.12(a)-(c)). Bad input gets
declared errors naming the paragraph. After a clean stop the log verifies: every round
replays through the UTH engine and every card is the committed deck's.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from game_table import check_log, greet, players, short_table
from game_table import raw_view as view_of
from game_table import wait_stadium_betting as wait_betting
from test_server_e2e import server  # the server process, as the other e2e tests run it

from tools.amp_client import AmpClient, AmpError

ANTE = 500
WAGERS = {
    "T1": {"ante": ANTE, "blind": ANTE, "trips": ANTE},
    "T2": {"ante": ANTE, "blind": ANTE},
}


@pytest.fixture()
def table(tmp_path: Path) -> dict[str, Path]:
    return short_table(tmp_path, "uth.toml")


def hello(port: int, certs: Path, who: str) -> AmpClient:
    return greet(port, certs, who, "e2e-uth")


def decide(name: str, view: dict[str, Any]) -> tuple[str, int]:
    """T1 plays 4x before the flop; T2 checks to the river, then plays 1x with a pair or
    better using a hole card... simply: plays 1x when the view says its hand is a pair or
    better, else folds."""
    legal = {item["action"]: item for item in view["uth"]["legal"]}
    if name == "T1" and "bet" in legal and 4 in legal["bet"].get("multiples", []):
        return "bet", 4
    if "check" in legal:
        return "check", 0
    mine = next(s for s in view["uth"]["seats"] if s["mine"])
    strong = mine["hand"] is not None and mine["hand"]["category"] != "high_card"
    if "bet" in legal and strong:
        return "bet", 1
    return "fold", 0


def play_round(clients: dict[str, AmpClient], tag: str) -> dict[str, dict[str, Any]]:
    for name, client in clients.items():
        wait_betting(client)
        placed = json.loads(
            client.call("PlaceWagers", request_id=f"{name}-{tag}", wagers=WAGERS[name])["view"]
        )
        mine = next(s for s in placed["uth"]["seats"] if s["mine"])
        assert mine["wagers"] == WAGERS[name]
    round_id = placed["round"]
    done: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 90
    step = 0
    while len(done) < len(clients):
        assert time.monotonic() < deadline, "the round did not finish"
        for name, client in clients.items():
            if name in done:
                continue
            view = view_of(client)
            if view["round"] != round_id or view["phase"] == "complete":
                done[name] = view
                continue
            if view["actions"]:
                action, multiple = decide(name, view)
                step += 1
                try:
                    client.call(
                        "Act",
                        request_id=f"{name}-{tag}-{step}",
                        action=action,
                        hand=0,
                        amount=multiple,
                    )
                except AmpError as exc:
                    # The street's shared countdown may decide first.
                    assert exc.code in ("NOT_YOUR_TURN", "ROUND_CLOSED", "ILLEGAL_ACTION"), exc
        time.sleep(0.1)
    return done


def test_two_terminals_play_whole_uth_rounds_over_mutual_tls(table: dict[str, Path]) -> None:
    """Two terminals wager, decide on every street, see their settlements with the paytable
    lines; credits in every view equal the operator's meters; the log verifies."""
    with server(table) as (_process, port):
        operator, clients = players(port, table["certs"], WAGERS, 50_000, hello)
        for n in range(2):
            play_round(clients, f"r{n}")
            meters = json.loads(operator.call("ReadMeters")["meters"])
            for name, client in clients.items():
                view = view_of(client)
                assert view["credits"] == meters["wallets"][name]
                wagers = {s["wager"] for s in view["settlements"]}
                assert {"ante", "blind"} <= wagers, view["settlements"]
                assert ("trips" in wagers) is (name == "T1")
                lines = [s["line"] for s in view["settlements"] if s["stake"]]
                assert lines and all(lines), lines
        assert meters["games_played"] == 2 and meters["in_play"] == 0
        rules = json.loads(clients["T1"].call("GetRules")["rules"])
        assert "Hold" in rules["game"]
        recall = json.loads(clients["T2"].call("GetRecall")["recall"])
        assert [g["round"] for g in recall["games"]][:2] == [2, 1]
        for client in (operator, *clients.values()):
            client.close()
    check_log(table, 2)


def test_bad_uth_input_gets_declared_errors_naming_the_paragraph(
    table: dict[str, Path],
) -> None:
    """A Blind not equal to the Ante, a Progressive amount the table does not offer, a
    Play wager of the wrong multiple, and insurance: each a declared error with the
    paragraph; the credits are untouched by every refusal."""
    with server(table) as (_process, port):
        operator = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=20_000, reference="e2e")
        t1 = hello(port, table["certs"], "T1")
        wait_betting(t1)
        refusals = [
            ({"ante": ANTE, "blind": 2 * ANTE}, "653a"),
            ({"ante": ANTE, "blind": ANTE, "progressive": 300}, "653a.12(d)"),
        ]
        for wagers, paragraph in refusals:
            with pytest.raises(AmpError) as refused:
                t1.call("PlaceWagers", request_id=f"bad-{len(wagers)}", wagers=wagers)
            assert refused.value.code in ("BAD_REQUEST", "BET_OUT_OF_LIMITS")
            assert paragraph in refused.value.description, refused.value.description
            assert view_of(t1)["credits"] == 20_000
        t1.call("PlaceWagers", request_id="ok", wagers={"ante": ANTE, "blind": ANTE})
        view = t1.wait_view(lambda v: bool(v["actions"]), timeout=20)
        with pytest.raises(AmpError) as wrong:
            t1.call("Act", request_id="x2", action="bet", hand=0, amount=2)
        assert wrong.value.code == "ILLEGAL_ACTION" and "653a" in wrong.value.description
        with pytest.raises(AmpError) as insurance:
            t1.call("AnswerInsurance", request_id="ins", choice="insurance", amount=100)
        assert "653a" in insurance.value.description
        assert view_of(t1)["credits"] == view["credits"]
