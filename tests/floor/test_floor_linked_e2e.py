"""605a.8 end to end: two real table servers (``python -m game_server --store URL``), each
with its own table, keys and log, share one linked Blazing 7's meter through a real
PostgreSQL started by ``etg floor up``'s code. Terminals play over mutual TLS at both; the
first round of each is dealt from a shoe whose seed was found by search (``seeded_server``:
the real server, shoes from a fixed test seed) so that both win the meter's 100% at once and
share it in the store. Then the store is SIGKILLed mid-round: that round finishes, the next
linked wager is refused with a sentence, the view and ``ReadMeters`` show the meter
unavailable, and the base game goes on. At the end the meter, every award and every wallet
fold to the same totals from either side (each log's ``Ledger`` fold and the store's meter
rows), and both logs pass ``etg verify --store`` (their linked records against the store's
rows, and the store's history of the meter by the rules' arithmetic)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from floor_helpers import ServerProcess, StoreUrls, cluster_processes, signal_cluster, wait_gone

from game_server.config import example_config_path
from game_server.eventlog import EventLogReader
from game_server.floor.cluster import LocalFloor, floor_up
from game_server.games.blackjack.game import BlackjackGame
from game_server.keys import init_keys, load_public_key
from game_server.net.pki import init_pki
from game_server.recall.rounds import decode
from tools.amp_client import AmpClient, AmpError

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
sys.path.insert(0, str(Path(__file__).parents[1]))
from linked_tables import BLAZING, METER, linked_section
from test_server_e2e import hello

ROOT = Path(__file__).resolve().parents[2]
#: Seeds whose first shoe deals seat 1 two sevens and the dealer a seven up, all of one suit
#: (Blazing 7's "Three 7's Same Suit", 100% of the meter, 633b.9(f) Paytable A, with the
#: dealer's up card as the third seven, 633b.9(h)), found by searching simulation seeds.
SEEDS = {"BJ-A": 13825, "BJ-B": 40902}
LINKED = BLAZING + linked_section(share_window_ms=1000)


def make_table(base: Path, table_id: str) -> dict[str, Path]:
    certs = base / "certs"
    init_pki(certs, terminals=1)
    init_keys(certs)
    text = example_config_path().read_text()
    text = re.sub(r'^id = "BJ-01"', f'id = "{table_id}"', text, flags=re.M)
    text = re.sub(r'^shuffle = "cut-card"', 'shuffle = "every-round"', text, flags=re.M)
    text = re.sub(r"^cut_card = \d+.*$", "", text, flags=re.M)
    for timer in ("betting_seconds", "insurance_seconds", "decision_seconds"):
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    config = base / "table.toml"
    config.write_text(text + LINKED)
    return {"certs": certs, "config": config, "db": base / "table.db"}


def start(table: dict[str, Path], store: str, seed: int) -> ServerProcess:
    """The real server on ``table``, its shoes from ``seed`` (:mod:`seeded_server`)."""
    args = ["--config", str(table["config"]), "--db", str(table["db"])]
    args += ["--certs", str(table["certs"]), "--port", "0", "--next-round-delay", "0.2"]
    env = {**os.environ, "ETG_TEST_SHOE_SEED": str(seed), "PYTHONPATH": str(ROOT)}
    launcher = str(Path(__file__).with_name("seeded_server.py"))
    return ServerProcess([*args, "--store", store], ROOT, (launcher,), env)


class Side:
    """One server, its operator and its terminal T1."""

    def __init__(self, table_id: str, table: dict[str, Path], server: ServerProcess) -> None:
        self.id, self.table, self.server = table_id, table, server
        port = server.port()
        self.operator, _ = hello(port, table["certs"], "operator")
        self.t1, answer = hello(port, table["certs"], "T1")
        self.view: dict[str, Any] = json.loads(answer["view"])
        self.calls = 0

    def call(self, client: AmpClient, command: str, **kw: Any) -> dict[str, Any]:
        self.calls += 1
        return client.call(command, request_id=f"{self.id}-{self.calls}", **kw)

    def meters(self) -> dict[str, Any]:
        return dict(json.loads(self.call(self.operator, "ReadMeters")["meters"]))

    def wait(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30) -> None:
        if not predicate(self.view):
            self.view = self.t1.wait_view(predicate, timeout=timeout)

    def place(self, wagers: dict[str, int]) -> int:
        self.wait(lambda v: v["phase"] == "betting" and not any(s.get("mine") for s in v["seats"]))
        self.view = json.loads(self.call(self.t1, "PlaceWagers", wagers=wagers)["view"])
        return int(self.view["round"])

    def dealt(self, round_id: int) -> None:
        self.wait(lambda v: v["round"] != round_id or bool(v["to_act"]))

    def finish(self, round_id: int) -> None:
        """Stand on each of T1's hands until the round is over."""
        while True:
            self.wait(
                lambda v: (
                    v["round"] != round_id or v["phase"] in (None, "complete") or bool(v["to_act"])
                )
            )
            if self.view["round"] != round_id or self.view["phase"] in (None, "complete"):
                return
            hand = self.view["to_act"]["hand"]
            try:
                self.view = json.loads(
                    self.call(self.t1, "Act", action="stand", hand=hand, amount=0)["view"]
                )
            except AmpError:
                self.view = json.loads(self.call(self.t1, "GetView")["view"])


def both(sides: list[Side], work: Callable[[Side], Any]) -> list[Any]:
    """Run ``work`` at both sides at once (threads); re-raise the first failure."""
    results: list[Any] = [None, None]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = work(sides[i])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    if errors:
        raise errors[0]
    return results


def log_fold(db: Path) -> tuple[dict[str, int], list[Any]]:
    """The log's wallets (the Ledger fold) and its linked meter records, in order."""
    ledger = BlackjackGame().new_ledger()
    linked = []
    with EventLogReader.open(db) as reader:
        for stored in reader.iter_events():
            try:
                ev = decode(stored)
            except Exception:
                continue
            ledger.apply(stored.terminal, ev)
            if stored.kind.startswith("linked_meter_"):
                linked.append((stored.table_id, stored.round_id, ev))
    return dict(ledger.wallets), linked


def etg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.mark.slow
def test_two_servers_share_one_linked_meter_through_the_floor_store(
    own_linked_floor: LocalFloor, tmp_path: Path
) -> None:
    store = StoreUrls.of(own_linked_floor, "etg_floor")
    tables = {t: make_table(tmp_path / t, t) for t in SEEDS}
    urls = {t: store.register(load_public_key(table["certs"]), t) for t, table in tables.items()}
    servers = {t: start(tables[t], urls[t], SEEDS[t]) for t in SEEDS}
    try:
        sides = [Side(t, tables[t], servers[t]) for t in SEEDS]
        for side in sides:
            side.call(side.operator, "CashIn", terminal="T1", amount=100_000, reference="e2e")
        wagers = {"blackjack": 500, "blazing_7s": 100}
        # Round 1 at both: three suited sevens each; both stand at once: one award, shared.
        rounds = both(sides, lambda s: s.place(wagers))
        both(sides, lambda s: s.dealt(rounds[sides.index(s)]))
        gate = threading.Barrier(2)
        both(sides, lambda s: (gate.wait(30), s.finish(rounds[sides.index(s)])))
        # Two more rounds feeding the meter from both servers at once.
        for _ in range(2):
            both(sides, lambda s: s.finish(s.place(wagers)))
        shown = sides[0].meters()["progressives"][METER]
        assert shown["linked"] == "floor" and shown["hits"] == 1
        # The store SIGKILLed mid-round (after the deal: the contributions are in).
        rounds = both(sides, lambda s: s.place(wagers))
        both(sides, lambda s: s.dealt(rounds[sides.index(s)]))
        pids = cluster_processes(own_linked_floor)
        signal_cluster(own_linked_floor, signal.SIGKILL)
        wait_gone(pids)
        both(sides, lambda s: s.finish(rounds[sides.index(s)]))
        for side in sides:
            side.wait(lambda v: v["phase"] == "betting")
            with pytest.raises(AmpError, match="linked meter floor:blazing7s is unavailable"):
                side.call(side.t1, "PlaceWagers", wagers=wagers)
            side.view = json.loads(side.call(side.t1, "GetView")["view"])
            meter = next(m for m in side.view["meters"] if m["wager"] == "blazing_7s")
            assert meter["amount"] is None and "unavailable" in meter["unavailable"]
            assert "unavailable" in side.meters()["progressives"][METER]
        rounds = both(sides, lambda s: s.place({"blackjack": 500}))  # the base game goes on
        both(sides, lambda s: s.finish(rounds[sides.index(s)]))
        live = {s.id: s.meters()["wallets"] for s in sides}
    finally:
        for server in servers.values():
            server.stop()
    floor_up(own_linked_floor.directory)
    with psycopg.connect(store.investigator) as conn:
        steps = conn.execute(
            "SELECT seq, kind, table_id, round_id, step, wager, increment, share, winners, "
            "amount, paid, contributed, reserved, house_funded, reserve "
            "FROM floor.meter_steps WHERE meter_id = %s ORDER BY seq",
            (METER,),
        ).fetchall()
    folds = {t: log_fold(tables[t]["db"]) for t in SEEDS}
    # Every wallet: the live server's, its log's Ledger fold.
    for t, (wallets, _) in folds.items():
        assert wallets == live[t], t
    # Every contribution and award of either log is the store's row of that sequence number.
    by_seq = {row[0]: row for row in steps}
    contributed = awarded = 0
    paid_by_logs = 0
    for _, linked in folds.values():
        for table_id, round_id, ev in linked:
            row = by_seq[ev.store_seq]
            assert row[2:4] == (table_id, round_id) or row[1] == "awarded"
            if type(ev).__name__ == "LinkedMeterContributed":
                assert (row[1], row[4], row[5], row[6], row[9]) == (
                    "contributed",
                    ev.step,
                    ev.wager,
                    ev.increment,
                    ev.amount,
                )
                contributed += 1
            else:
                assert (row[1], row[7], row[8], row[9]) == (
                    "awarded",
                    ev.share,
                    ev.winners,
                    ev.amount,
                )
                paid_by_logs += ev.share * len(ev.places)
                awarded += 1
    kinds = [row[1] for row in steps]
    assert kinds.count("contributed") == contributed == 8  # 4 rounds x 2 servers
    assert awarded == 2 and kinds.count("awarded") == 1  # one award, shared by both
    last = steps[-1]
    assert last[10] == paid_by_logs > 0
    # The meter balances in the store: everything in is in the meter, the reserve, or paid.
    assert last[11] + last[12] + last[13] == last[9] + last[14] + 1000 * last[10]
    for t in SEEDS:
        key = str(tables[t]["certs"] / "log-signing.pub")
        done = etg("verify", str(tables[t]["db"]), "--key", key, "--store", store.investigator)
        assert done.returncode == 0, done.stdout + done.stderr
        # Every linked record of the log is the store's (5 each: 4 contributions, 1 award).
        assert "linked meters: 5 record(s) of this log checked" in done.stdout


@pytest.fixture
def own_linked_floor(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from test_floor_e2e import own_floor

    yield from own_floor.__wrapped__()  # type: ignore[attr-defined]
