"""End to end with the real processes: ``python -m game_server --store URL`` shipping to a
real PostgreSQL while an operator cashes in and a terminal plays; the server SIGKILLed at
random moments, the database server hung (SIGSTOP) and crashed (SIGKILL) under it, and down
when the server starts. After every fault the store holds exactly the log: nothing lost,
nothing doubled; play never waited for the store; ``etg verify --store`` proves the log and
catches it cut back."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from floor_helpers import (
    ServerProcess,
    StoreUrls,
    cluster_processes,
    log_rows,
    signal_cluster,
    store_rows,
    wait_gone,
)

from game_server.floor.cluster import LocalFloor, floor_down, floor_up
from game_server.keys import load_public_key
from tools.amp_client import AmpError

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
sys.path.insert(0, str(Path(__file__).parents[1] / "eventlog"))
from test_eventlog_witness import cut_back
from test_server_e2e import hello
from test_server_e2e import table as table  # the fixture

ROOT = Path(__file__).resolve().parents[2]


def register(store: StoreUrls, certs: Path) -> None:
    """The server BJ-01 registered (its key, its own shipping role: ``store.shipper``)."""
    store.register(load_public_key(certs), "BJ-01")


def start_server(table: dict[str, Path], store: str | None, *extra: str) -> ServerProcess:
    """The server on the table's log, shipping to ``store`` (None: without ``--store``)."""
    return ServerProcess(
        [
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
            *([] if store is None else ["--store", store]),
            *extra,
        ],
        ROOT,
    )


class Operator:
    """The operator, in a thread: cashes in T1 and T2 about 15 times a second, under the
    connection's rate limit (the log grows by one event each, every answer timed), and
    reads the meters between cash-ins (one operator connection: a second one would replace
    it)."""

    def __init__(self, port: int, certs: Path, tag: str) -> None:
        self.port, self.certs, self.tag = port, certs, tag
        self.stop = threading.Event()
        self.done = 0
        self.slowest = 0.0
        self.shipping: dict[str, Any] = {}
        self.read = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            operator, _ = hello(self.port, self.certs, "operator")
            for n in range(1_000_000):
                if self.stop.is_set():
                    return
                time.sleep(1 / 15)
                began = time.monotonic()
                try:
                    if n % 4 == 0:
                        self.shipping = json.loads(operator.call("ReadMeters")["meters"])[
                            "store_shipping"
                        ]
                        self.read.set()
                        continue
                    operator.call(
                        "CashIn",
                        request_id=f"{self.tag}-{n}",
                        terminal="T1" if n % 2 else "T2",
                        amount=100,
                        reference="floor e2e",
                    )
                    self.done += 1
                except AmpError as exc:
                    assert exc.code == "RATE_LIMITED", exc
                    time.sleep(0.5)
                    continue
                finally:
                    self.slowest = max(self.slowest, time.monotonic() - began)
        except (ConnectionError, OSError, TimeoutError):
            return  # the server was killed under it

    def meters(self) -> dict[str, Any]:
        """The shipping meters of a reading taken after this call."""
        self.read.clear()
        assert self.read.wait(10), "the operator read no meters"
        return self.shipping

    def wait_shipped(self, timeout: float = 60) -> dict[str, Any]:
        """Wait until the store holds everything logged and no alarm stands."""
        deadline = time.monotonic() + timeout
        while (m := self.meters())["events_behind"] or m["alarm"] is not None:
            assert time.monotonic() < deadline, m
        return m

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(timeout=15)


class Bot:
    """Terminal T1 playing in a thread until stopped: the minimum wager when betting, stand
    when it is to act (the :class:`Operator` keeps it in credits). A declared error (a race
    with a countdown) is answered by looking at the view again."""

    def __init__(self, port: int, certs: Path, tag: str) -> None:
        self.stop = threading.Event()
        self.wagered = 0  # rounds it has placed a wager in
        self.thread = threading.Thread(target=self.run, args=(port, certs, tag), daemon=True)
        self.thread.start()

    def run(self, port: int, certs: Path, tag: str) -> None:
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            t1, answer = hello(port, certs, "T1")
            view = json.loads(answer["view"])
            for step in range(1_000_000):
                if self.stop.is_set():
                    return
                try:
                    mine = any(seat.get("mine") for seat in view["seats"])
                    if view["phase"] == "betting" and not mine and view["credits"] >= 500:
                        answer = t1.call(
                            "PlaceWagers", request_id=f"{tag}-w{step}", wagers={"blackjack": 500}
                        )
                        self.wagered += 1
                    elif view["actions"] and view["to_act"]:
                        answer = t1.call(
                            "Act",
                            request_id=f"{tag}-a{step}",
                            action="stand",
                            hand=view["to_act"]["hand"],
                            amount=0,
                        )
                    else:
                        view = t1.wait_view(lambda v: True, timeout=10)
                        continue
                    view = json.loads(answer["view"])
                except AmpError:
                    view = json.loads(t1.call("GetView")["view"])

    def wait_wagered(self, rounds: int, timeout: float = 90) -> None:
        """Wait until it has wagered in ``rounds`` rounds (a loaded machine plays slower)."""
        deadline = time.monotonic() + timeout
        while self.wagered < rounds:
            assert time.monotonic() < deadline, f"{self.wagered} of {rounds} rounds wagered"
            time.sleep(0.2)

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(timeout=30)


def assert_store_holds_the_log(store: StoreUrls, db: Path) -> tuple[int, int]:
    """The store holds every event and checkpoint of the log, byte for byte, once."""
    log_id, rows, checkpoints = log_rows(db)
    held_rows, held_checkpoints = store_rows(store.investigator, log_id)
    assert [r[0] for r in held_rows] == list(range(1, len(rows) + 1))
    assert held_rows == rows
    assert held_checkpoints == checkpoints
    return len(rows), len(checkpoints)


def etg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_a_server_ships_as_it_plays_and_verify_uses_the_store_as_anchors(
    table: dict[str, Path], store: StoreUrls
) -> None:
    """The server proves, plays, ships; ReadMeters shows the shipping; after a clean stop
    the store holds the whole log (the shutdown checkpoint too); ``etg verify --store``
    passes, and fails once the log is cut back on its own machine, and the server refuses
    to start on it."""
    register(store, table["certs"])
    server = start_server(table, store.shipper)
    try:
        port = server.port()
        operator = Operator(port, table["certs"], "s")
        bot = Bot(port, table["certs"], "s")
        bot.wait_wagered(3)  # two rounds closed and a third begun, whatever the machine's load
        bot.finish()
        m = operator.wait_shipped()
        operator.finish()
        assert m["connected"] is True and m["alarm"] is None and m["shipped_seq"] > 20
        assert m["shipped_seq"] == m["logged_seq"] and m["events_shipped"] == m["shipped_seq"]
        assert str(m["store"]).startswith("postgresql://etg_ship_bj_01@127.0.0.1:")
        assert "@" not in str(m["store"]).split("@", 1)[1]  # no password in the meters
    finally:
        assert server.stop() == 0, server.output()
    assert "shipping the event log to the floor store" in server.output()
    _, checkpoints = assert_store_holds_the_log(store, table["db"])
    assert checkpoints >= 3, "round closes and the shutdown checkpoint were shipped"
    key = str(table["certs"])
    ok = etg("verify", str(table["db"]), "--key", key, "--store", store.investigator)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"{checkpoints} anchored checkpoint(s) of this log checked" in ok.stdout
    kept = checkpoints - 2
    cut_back(table["db"], kept)
    plain = etg("verify", str(table["db"]), "--key", key)
    assert plain.returncode == 0  # on its own the cut-back log still verifies: the hole
    cut = etg("verify", str(table["db"]), "--key", key, "--store", store.investigator)
    assert cut.returncode == 1, cut.stdout
    assert f"the log lacks anchored checkpoint #{kept + 1}" in cut.stdout
    refused = start_server(table, store.shipper)
    assert refused.process.wait(timeout=60) == 2
    assert f"lacks anchored checkpoint #{kept + 1}" in refused.output()
    unreachable = etg(
        "verify", str(table["db"]), "--key", key, "--store", "postgresql://nobody@127.0.0.1:1/x"
    )
    assert unreachable.returncode == 2
    assert "cannot connect to the floor store postgresql://nobody@127.0.0.1:1/x" in (
        unreachable.stderr
    )


KILLS = 8


@pytest.mark.slow
def test_sigkill_of_the_server_at_random_moments_loses_and_doubles_nothing(
    table: dict[str, Path], store: StoreUrls
) -> None:
    """Eight SIGKILLs of the shipping server at random moments (1 to 8 s after start) of
    play and cash-ins (mid append, mid shipping transaction, between a commit and the
    cursor), each followed by a restart: the store ends holding exactly the log, each row
    once."""
    register(store, table["certs"])
    rng = random.Random(20261201)
    for kill in range(KILLS):
        server = start_server(table, store.shipper)
        try:
            port = server.port()
            operator = Operator(port, table["certs"], f"k{kill}")
            bot = Bot(port, table["certs"], f"k{kill}")
            time.sleep(rng.uniform(1.0, 8.0))
        finally:
            server.kill()
        operator.finish()
        bot.finish()
    server = start_server(table, store.shipper)
    try:
        operator = Operator(server.port(), table["certs"], "end")
        operator.wait_shipped()
        operator.finish()
    finally:
        assert server.stop() == 0
    events, checkpoints = assert_store_holds_the_log(store, table["db"])
    # Work was done under the kills (how many rounds closed, and so how many checkpoints,
    # depends on the machine's load: the last stop's shutdown checkpoint is the one sure).
    assert events > 100 and checkpoints >= 1


@pytest.fixture
def own_floor() -> Iterator[LocalFloor]:
    """A floor cluster of its own, for a test that crashes and hangs it."""
    base = Path(tempfile.mkdtemp(prefix="etg-floor-fault-"))
    base.chmod(0o755)
    try:
        floor, _ = floor_up(base / "floor")
        yield floor
    finally:
        signal_cluster(LocalFloor.load(base / "floor"), signal.SIGCONT)
        floor_down(base / "floor")
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
def test_the_database_down_at_start_hung_and_crashed_never_stops_play(
    table: dict[str, Path], own_floor: LocalFloor
) -> None:
    """The store is down when the server starts (it starts, saying so), then comes up; then
    its server is hung with SIGSTOP for 4 s and SIGKILLed twice at random moments of
    shipping. Cash-ins are answered at once all along; past the 1 s lag limit the operator
    sees the alarm in ReadMeters and the server's log; every time the database is back the
    store catches up, and at the end it holds exactly the log."""
    store = StoreUrls.of(own_floor, "etg_floor")
    register(store, table["certs"])
    first = start_server(table, None)  # the log exists before the store is first used
    first.port()
    time.sleep(0.5)
    assert first.stop() == 0
    floor_down(own_floor.directory)
    server = start_server(table, store.shipper, "--store-lag-limit", "1")
    rng = random.Random(515)
    try:
        port = server.port()
        assert "could not be proven against the floor store" in server.output()
        operator = Operator(port, table["certs"], "c")
        bot = Bot(port, table["certs"], "b")
        time.sleep(1.5)
        alarm = operator.meters()["alarm"]
        assert alarm is not None and "s behind (limit 1 s): cannot connect" in alarm, alarm
        floor_up(own_floor.directory)
        operator.wait_shipped()
        # A hung database server: the shipping thread waits, play does not.
        signal_cluster(own_floor, signal.SIGSTOP)
        time.sleep(4)
        hung = operator.meters()
        assert hung["alarm"] is not None and hung["lag_ms"] > 1_000, hung
        signal_cluster(own_floor, signal.SIGCONT)
        operator.wait_shipped()
        for crash in range(2):
            time.sleep(rng.uniform(0.2, 1.5))
            pids = cluster_processes(own_floor)
            signal_cluster(own_floor, signal.SIGKILL)
            wait_gone(pids)
            time.sleep(1.5)
            assert operator.meters()["alarm"] is not None, f"crash {crash}"
            floor_up(own_floor.directory)
            operator.wait_shipped()
        operator.finish()
        bot.finish()
        assert operator.done > 50, "the operator's cash-ins went on through every fault"
        assert operator.slowest < 2.0, f"a command waited {operator.slowest:.1f} s for the store"
    finally:
        assert server.stop() == 0
    output = server.output()
    assert "ALARM: shipping to the floor store" in output
    assert "alarm over" in output
    assert_store_holds_the_log(store, table["db"])
