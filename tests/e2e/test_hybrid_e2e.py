"""End to end at the hybrid tables (58 Pa. Code 633b.5): the real server process, three
terminals over mutual TLS, the real log.

Each test starts ``python -m game_server`` with a hybrid Rules Submission (the shipped
example with short countdowns), connects three terminals and the operator with their own
certificates, and plays whole rounds in stadium play: at the three-position table two
terminals share a position and decide differently on the same cards (633b.5(l), (p)(2),
(q)); at the no-hole-card table three players decide differently on the one set of cards
(633b.5(y), (aa)). Each test ends with the log verified (chain, shoes, replay of every round
through its table's engine, ledger).
"""

from __future__ import annotations

import json
import re
import signal
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from test_server_e2e import server  # the server process, as the other e2e tests run it

from game_server.config import example_path
from game_server.eventlog import EventLogReader
from game_server.keys import init_keys, load_public_key, load_sealing_key
from game_server.net.pki import init_pki
from game_server.recall.rounds import walk
from game_server.recall.verify import verify_log
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient, AmpError

ROOT = Path(__file__).resolve().parents[2]
TERMINALS = ("T1", "T2", "T3")
#: Three-position table: T2 and T3 share position 3 (633b.5(l)).
POSITIONS = {"T1": 1, "T2": 3, "T3": 3}
BET = 1_000
TABLES = pytest.mark.parametrize(
    "kind", ["hybrid-three-position", "hybrid-no-hole-card"], ids=["three-position", "no-hole"]
)


@pytest.fixture()
def table(tmp_path: Path, kind: str) -> dict[str, Any]:
    certs = tmp_path / "certs"
    init_pki(certs, terminals=3)
    init_keys(certs)
    text = (example_path(f"{kind}.toml")).read_text()
    for timer in ("betting_seconds", "insurance_seconds", "decision_seconds"):
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    config = tmp_path / "table.toml"
    config.write_text(text)
    return {
        "certs": certs,
        "config": config,
        "db": tmp_path / "table.db",
        "three": kind == "hybrid-three-position",
    }


def hello(port: int, certs: Path, who: str) -> tuple[AmpClient, dict[str, Any]]:
    client = AmpClient(port, certs, who)
    return client, client.call("Hello", version=PROTOCOL_VERSION, software="e2e-hybrid")


def view_of(client: AmpClient) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(client.call("GetView")["view"])
    return view


def join(table: dict[str, Any], clients: dict[str, AmpClient], tag: str) -> int:
    """Every terminal joins the open round (waiting for a betting window); its round id."""
    rounds = set()
    for name, client in clients.items():
        for _ in range(100):
            view = view_of(client)
            if view["machine"] == "betting" and not view["joined"]:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"{name} saw no betting window")
        arguments: dict[str, Any] = {"request_id": f"{name}-{tag}", "wagers": {"blackjack": BET}}
        if table["three"]:
            arguments["position"] = POSITIONS[name]
        placed = json.loads(client.call("PlaceWagers", **arguments)["view"])
        assert placed["joined"] and placed["wagers"] == {"blackjack": BET}
        rounds.add(placed["round"])
    assert len(rounds) == 1, "every terminal joined the same round"
    return rounds.pop()


def decide(name: str, view: dict[str, Any]) -> str:
    """Each terminal's own way of playing, so that players decide differently on the same
    cards: T1 hits to 17, T2 stands at once, T3 hits to 13."""
    hand = view["hybrid"]["hands"][view["to_act"]["hand"]]
    target = {"T1": 17, "T2": 0, "T3": 13}[name]
    return "hit" if hand["total"] < target and "hit" in view["actions"] else "stand"


def play_round(table: dict[str, Any], clients: dict[str, AmpClient], tag: str) -> dict[str, Any]:
    """Join, answer insurance (decline), decide, until the round is over for every terminal;
    each terminal's final view of the round."""
    round_id = join(table, clients, tag)
    done: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 60
    acted = 0
    while len(done) < len(clients):
        assert time.monotonic() < deadline, "the round did not finish"
        for name, client in clients.items():
            if name in done:
                continue
            view = view_of(client)
            if view["round"] != round_id or view["phase"] == "complete":
                done[name] = view
                continue
            try:
                if view["insurance"] is not None:
                    client.call(
                        "AnswerInsurance",
                        request_id=f"{name}-{tag}-ins",
                        choice="decline",
                        amount=0,
                    )
                elif view["to_act"] is not None and view["actions"]:
                    acted += 1
                    client.call(
                        "Act",
                        request_id=f"{name}-{tag}-{acted}",
                        action=decide(name, view),
                        hand=view["to_act"]["hand"],
                        amount=0,
                    )
            except AmpError as exc:
                # The shared countdown may act first (633b.5(p)(2), (z)).
                assert exc.code in ("NOT_YOUR_TURN", "ROUND_CLOSED", "ILLEGAL_ACTION"), exc
        time.sleep(0.1)
    return done


def check_log(table: dict[str, Any]) -> list[Any]:
    """The log verifies; the rounds it holds."""
    with closing(EventLogReader.open(table["db"])) as reader:
        report = verify_log(
            reader,
            load_public_key(table["certs"]),
            sealing_key=load_sealing_key(table["certs"]),
        )
        assert report.ok, report.first_failure
        assert report.counts.rounds_replayed >= 1
        return [r for r in walk(reader.iter_events()) if r.complete]


@TABLES
def test_three_terminals_play_whole_rounds_over_mutual_tls(table: dict[str, Any]) -> None:
    """Three terminals join each round (at the three-position table two of them at the same
    position), decide differently, and each sees his own settlements; the credits in every
    view equal the operator's meters, and after a clean stop the log verifies and replays."""
    with server(table) as (_process, port):
        operator, answer = hello(port, table["certs"], "operator")
        assert answer["role"] == "operator"
        for name in TERMINALS:
            operator.call(
                "CashIn", request_id=f"in-{name}", terminal=name, amount=50_000, reference="e2e"
            )
        clients = {name: hello(port, table["certs"], name)[0] for name in TERMINALS}
        for n in range(3):
            final = play_round(table, clients, f"r{n}")
            meters = json.loads(operator.call("ReadMeters")["meters"])
            for name in final:
                again = view_of(clients[name])
                assert again["credits"] == meters["wallets"][name]
                assert again["settlements"], f"{name} sees the settlements of its last round"
        assert meters["games_played"] == 3
        assert meters["in_play"] == 0
        assert sum(meters["wallets"].values()) + meters["house_result"] == 3 * 50_000
        for client in (operator, *clients.values()):
            client.close()
    rounds = check_log(table)
    assert len(rounds) == 3
    for logged in rounds:
        assert {item.stored.terminal for item in logged.events} >= set(TERMINALS)


def test_bad_input_at_the_hybrid_tables_gets_declared_errors(tmp_path: Path) -> None:
    """A position outside 1-3 (633b.5(l)), a missing position at the three-position table,
    and a wager once the cards are dealt (633b.5(k)) are each refused with a declared error
    naming the paragraph; the credits are untouched."""
    table = {
        "certs": tmp_path / "certs",
        "config": tmp_path / "table.toml",
        "db": tmp_path / "table.db",
        "three": True,
    }
    init_pki(table["certs"], terminals=3)
    init_keys(table["certs"])
    text = (example_path("hybrid-three-position.toml")).read_text()
    table["config"].write_text(
        re.sub(r"^betting_seconds = \d+", "betting_seconds = 3", text, flags=re.M)
    )
    with server(table) as (_process, port):
        operator, _ = hello(port, table["certs"], "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=10_000, reference="e2e")
        operator.call("CashIn", request_id="in2", terminal="T2", amount=10_000, reference="e2e")
        t1, _ = hello(port, table["certs"], "T1")
        t2, _ = hello(port, table["certs"], "T2")
        for bad, words in ((4, "633b.5(l)"), (0, "633b.5(l)")):
            with pytest.raises(AmpError) as refused:
                t1.call(
                    "PlaceWagers", request_id=f"p{bad}", wagers={"blackjack": BET}, position=bad
                )
            assert refused.value.code == "BAD_REQUEST" and words in refused.value.description
        with pytest.raises(AmpError) as missing:
            t1.call("PlaceWagers", request_id="none", wagers={"blackjack": BET})
        assert missing.value.code == "BAD_REQUEST" and "633b.5(l)" in missing.value.description
        placed = json.loads(
            t1.call("PlaceWagers", request_id="ok", wagers={"blackjack": BET}, position=2)["view"]
        )
        dealt = t1.wait_view(lambda v: v["round"] == placed["round"] and v["phase"] != "betting")
        assert dealt["hybrid"]["position"] == 2
        if dealt["phase"] != "complete":
            with pytest.raises(AmpError) as late:
                t2.call("PlaceWagers", request_id="late", wagers={"blackjack": BET}, position=1)
            assert late.value.code == "ROUND_CLOSED" and "633b.5(k)" in late.value.description
            assert view_of(t2)["credits"] == 10_000
    check_log(table)


def test_kill_9_mid_round_then_restart_resumes_the_hybrid_round(tmp_path: Path) -> None:
    """SIGKILL of a three-position table's server after the deal: on restart the round
    resumes from the log with its players and cards, they finish it, and the log verifies."""
    table = {
        "certs": tmp_path / "certs",
        "config": tmp_path / "table.toml",
        "db": tmp_path / "table.db",
        "three": True,
    }
    init_pki(table["certs"], terminals=3)
    init_keys(table["certs"])
    text = (example_path("hybrid-three-position.toml")).read_text()
    for timer in ("betting_seconds", "insurance_seconds"):
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    table["config"].write_text(text)
    with server(table) as (process, port):
        operator, _ = hello(port, table["certs"], "operator")
        for name in TERMINALS:
            operator.call(
                "CashIn", request_id=f"in-{name}", terminal=name, amount=9_000, reference="e2e"
            )
        clients = {name: hello(port, table["certs"], name)[0] for name in TERMINALS}
        round_id = join(table, clients, "k")
        before = clients["T1"].wait_view(
            lambda v: v["round"] == round_id and v["machine"] in ("deciding", "between"),
            timeout=20,
        )
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    with server(table) as (_process, port):
        clients = {name: hello(port, table["certs"], name)[0] for name in TERMINALS}
        after = view_of(clients["T1"])
        if before["machine"] == "deciding":
            assert after["round"] == round_id
            assert after["hybrid"]["position"] == before["hybrid"]["position"]
            assert after["hybrid"]["positions"] == before["hybrid"]["positions"]
        final = play_round_after_restart(clients, round_id)
        operator, _ = hello(port, table["certs"], "operator")
        meters = json.loads(operator.call("ReadMeters")["meters"])
        for name in TERMINALS:
            assert view_of(clients[name])["credits"] == meters["wallets"][name], final
        assert meters["in_play"] == 0 and meters["games_played"] >= 1
    check_log(table)


def play_round_after_restart(clients: dict[str, AmpClient], round_id: int) -> dict[str, Any]:
    """Stand on every hand of the resumed round until it is over for every terminal."""
    done: dict[str, Any] = {}
    deadline = time.monotonic() + 60
    while len(done) < len(clients):
        assert time.monotonic() < deadline, "the resumed round did not finish"
        for name, client in clients.items():
            view = view_of(client)
            if view["round"] != round_id or view["phase"] == "complete":
                done[name] = view
            elif view["to_act"] is not None and "stand" in view["actions"]:
                try:
                    client.call(
                        "Act",
                        request_id=f"{name}-after-{time.monotonic_ns()}",
                        action="stand",
                        hand=view["to_act"]["hand"],
                        amount=0,
                    )
                except AmpError as exc:
                    assert exc.code in ("NOT_YOUR_TURN", "ROUND_CLOSED"), exc
        time.sleep(0.1)
    return done
