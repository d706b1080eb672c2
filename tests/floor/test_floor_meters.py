"""Linked progressive meters across servers (605a.8) held by the floor store.

The store's arithmetic is the rules' (:meth:`game_server.rules.meters.Meter.contribution`,
``award_shared``); each change is one transaction under the meter's row lock, idempotent by
(table, round, step); two processes (two servers' meter clients) feed the same meter at once,
win it at once (and share it equally), and keep going while the store is SIGKILLed; the
meter, every award and every contribution fold to the same totals from either side.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from floor_helpers import StoreUrls, cluster_processes, signal_cluster, wait_gone

from game_server.floor.cluster import LocalFloor, floor_up
from game_server.floor.errors import StoreRefused, StoreUnavailable
from game_server.floor.meters import LinkedMeterClient, TableMeters
from game_server.rules.meters import Meter, MeterActionError, MeterBank
from game_server.rules.wagers.base import MeterSpec
from game_server.table.ledger import Ledger

METER = "floor:linked-7s"
SPEC = MeterSpec("Linked 7s", seed=100_000, reseed=50_000, increment_bp=500, secondary_bp=125)
WORKER = Path(__file__).with_name("meter_worker.py")


@pytest.fixture
def client(store: StoreUrls) -> Any:
    made = LinkedMeterClient(store.shipper)
    made.open(METER, SPEC)
    yield made
    made.close()


def steps(store: StoreUrls) -> list[dict[str, Any]]:
    with psycopg.connect(store.investigator) as conn, conn.cursor() as cur:
        cur.execute("SELECT * FROM floor.meter_steps WHERE meter_id = %s ORDER BY seq", (METER,))
        names = [d.name for d in cur.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def folded(store: StoreUrls) -> Meter:
    """The meter folded here from the store's rows with the rules' own arithmetic."""
    meter = Meter.open(METER, SPEC).meter
    for row in steps(store)[1:]:
        if row["kind"] == "contributed":
            ev = meter.contribution(row["wager"], row["place"])
            assert (ev.increment, ev.secondary, ev.kept) == (
                row["increment"],
                row["secondary"],
                row["kept"],
            )
            meter = meter.contribute(row["wager"], row["place"]).meter
        elif row["kind"] == "awarded":
            places = [f"w{i}" for i in range(row["winners"])]
            step = meter.award_shared(row["percent"], places)
            assert step.paid == (row["share"],) * row["winners"]
            meter = step.meter  # awarded and reseeded, as the store's next row
        assert meter.balanced()
    last = steps(store)[-1]
    assert (meter.amount, meter.reserve, meter.paid, meter.wagered) == (
        last["amount"],
        last["reserve"],
        last["paid"],
        last["wagered"],
    )
    return meter


def test_a_contribution_is_the_rules_arithmetic_and_once_per_step(
    store: StoreUrls, client: LinkedMeterClient
) -> None:
    first = client.contribute(METER, "BJ-01", 7, "c:1", "T1", 2_501)
    assert (first.increment, first.secondary, first.kept) == (125_050, 31_262, 2_344_688)
    assert first.amount == 100_000_000 + 125_050 and first.store_seq == 2
    again = client.contribute(METER, "BJ-01", 7, "c:1", "T1", 2_501)
    assert again == first, "the same step is the same change"
    with pytest.raises(StoreRefused, match="already recorded as another change"):
        client.contribute(METER, "BJ-01", 7, "c:1", "T1", 900)
    with pytest.raises(StoreRefused, match="at least 1 cent"):
        client.contribute(METER, "BJ-01", 7, "c:2", "T1", 0)
    assert len(steps(store)) == 2
    folded(store)


def test_the_floor_refuses_a_meter_linked_with_another_spec(
    store: StoreUrls, client: LinkedMeterClient
) -> None:
    other = LinkedMeterClient(store.shipper)
    try:
        other.open(METER, SPEC)  # the same spec, another server
        with pytest.raises(StoreRefused, match="another specification"):
            other.open(METER, replace(SPEC, increment_bp=600))
        with pytest.raises(StoreRefused, match="no linked meter"):
            other.contribute("floor:nothing", "BJ-02", 1, "c:1", "T1", 100)
    finally:
        other.close()


def test_the_shipping_role_cannot_change_a_meter_by_hand(
    store: StoreUrls, client: LinkedMeterClient
) -> None:
    client.contribute(METER, "BJ-01", 1, "c:1", "T1", 100)
    for role in (store.shipper, store.investigator):
        with psycopg.connect(role, autocommit=True) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("UPDATE floor.meter_steps SET amount = 0")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SELECT floor.meter_lock(%s)", (METER,))
    with (
        psycopg.connect(store.superuser, autocommit=True) as conn,
        pytest.raises(psycopg.Error, match="append-only"),
    ):
        conn.execute("UPDATE floor.meter_steps SET amount = 0")


def test_a_win_pays_from_the_store_and_reseeds(store: StoreUrls, client: LinkedMeterClient) -> None:
    client.contribute(METER, "BJ-01", 1, "c:1", "T1", 10_000)
    won = client.award(METER, "BJ-01", 1, "a:1", 100, ["T1", "T3"])
    assert won.winners == 2 and won.places == ("T1", "T3")
    assert won.share == (100_000_000 + 500_000) // 1000 // 2
    assert client.award(METER, "BJ-01", 1, "a:1", 100, ["T1", "T3"]) == won
    meter = folded(store)
    assert meter.amount == 50_000_000 and meter.paid == 2 * won.share
    ledger = Ledger()
    ledger.apply(None, won)
    assert ledger.wallets == {"T1": won.share, "T3": won.share}
    assert ledger.progressive_paid == 2 * won.share


def run_workers(store: StoreUrls, mode: str, count: int, start_at: float) -> list[Any]:
    return [
        subprocess.Popen(
            [sys.executable, str(WORKER), store.shipper, table, mode, str(count), str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for table in ("BJ-A1", "BJ-B1")
    ]


def results(workers: list[Any]) -> list[list[dict[str, Any]]]:
    found = []
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        found.append([json.loads(line) for line in out.splitlines()])
    return found


def test_two_servers_feed_and_win_one_meter_at_once(
    store: StoreUrls, client: LinkedMeterClient
) -> None:
    fed = results(run_workers(store, "contribute", 150, time.time() + 1.0))
    seqs = sorted(ev["store_seq"] for side in fed for ev in side)
    assert seqs == list(range(2, 302)), "one order, no change lost or doubled"
    wins = results(run_workers(store, "award", 151, time.time() + 3.0))
    a, b = wins[0][0], wins[1][0]
    assert a["award"] == b["award"] and a["winners"] == b["winners"] == 2
    assert a["share"] == b["share"] > 0 and a["store_seq"] == b["store_seq"]
    meter = folded(store)
    wagered = sum(100 + r for r in range(1, 151)) * 2
    assert meter.wagered == wagered and meter.paid == 2 * a["share"]
    # Either side's records fold to the store's meter.
    for side in fed:
        for ev in side:
            row = steps(store)[ev["store_seq"] - 1]
            assert (row["increment"], row["amount"]) == (ev["increment"], ev["amount"])


@pytest.mark.slow
def test_the_store_killed_mid_transaction_loses_and_doubles_nothing(
    own_meter_floor: LocalFloor,
) -> None:
    store = StoreUrls.of(own_meter_floor, "etg_floor")
    opener = LinkedMeterClient(store.shipper)
    opener.open(METER, SPEC)
    opener.close()
    workers = run_workers(store, "contribute", 400, time.time() + 0.2)
    deadline = time.monotonic() + 60
    while len(steps(store)) < 100:  # both feeding it: kill it in the middle of their stream
        assert time.monotonic() < deadline, "the workers never fed the meter"
        time.sleep(0.02)
    pids = cluster_processes(own_meter_floor)
    signal_cluster(own_meter_floor, signal.SIGKILL)
    wait_gone(pids)
    time.sleep(1.0)
    floor_up(own_meter_floor.directory)
    fed = results(workers)
    assert [len(side) for side in fed] == [400, 400]
    assert sorted(ev["store_seq"] for side in fed for ev in side) == list(range(2, 802))
    meter = folded(store)
    assert meter.wagered == sum(100 + r for r in range(1, 401)) * 2


@pytest.fixture
def own_meter_floor(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from test_floor_e2e import own_floor

    yield from own_floor.__wrapped__()  # type: ignore[attr-defined]


def test_an_unreachable_store_makes_the_meter_unavailable_and_refuses_its_wagers(
    store: StoreUrls, client: LinkedMeterClient
) -> None:
    bank = MeterBank()
    meters = TableMeters(bank, client, frozenset({METER}), "BJ-01", lambda: 3)
    meters.link(METER, SPEC)
    meters.link("BJ-01:lucky:own", replace(SPEC, name="own"))
    step = meters.contribute(METER, 1_000, "T2")
    assert step.events[0].step == f"c:{METER}:T2:1" and step.meter.amount > 100_000_000
    assert meters.snapshot()[METER]["amount_millicents"] == step.meter.amount
    down = LinkedMeterClient("postgresql://etg_shipper@127.0.0.1:1/etg_floor")
    dead = TableMeters(bank, down, frozenset({METER}), "BJ-02", lambda: 1)
    dead._specs[METER] = SPEC
    with pytest.raises(StoreUnavailable, match="linked meter floor:linked-7s is unavailable"):
        dead.contribute(METER, 1_000, "T1")
    with pytest.raises(StoreUnavailable, match="its wager is refused until it is back"):
        dead.refuse_if_unavailable([METER])
    shown = dead.snapshot()[METER]
    assert "unavailable" in shown and "amount" not in shown
    dead.refuse_if_unavailable(["BJ-01:lucky:own"])  # a local meter goes on
    assert dead.contribute("BJ-01:lucky:own", 1_000, "T1").events[0].kind == "meter_contributed"


def test_an_award_to_no_place_is_refused_with_a_sentence(client: LinkedMeterClient) -> None:
    meters = TableMeters(MeterBank(), client, frozenset({METER}), "BJ-01", lambda: 4)
    meters.link(METER, SPEC)
    with pytest.raises(MeterActionError, match="an award needs at least one winner"):
        meters.award_shared(METER, 100, [])
    with pytest.raises(MeterActionError, match="name a place twice"):
        meters.award_shared(METER, 100, ["T1", "T1"])
    assert meters.meter(METER).hits == 0  # nothing reached the store


def test_a_payout_that_is_not_shared_is_paid_in_full_to_each_table(
    store: StoreUrls, client: LinkedMeterClient
) -> None:
    """A Blazing 7's 10% payout is paid in full to each winner (633b.9(e)(3) shares only
    the 100%): two tables winning it within the share window each get 10% of the meter as
    it stands, one after the other; two 100% claims in the window share one award."""
    first = TableMeters(MeterBank(), client, frozenset({METER}), "BJ-01", lambda: 7)
    other = LinkedMeterClient(store.shipper)
    second = TableMeters(MeterBank(), other, frozenset({METER}), "BJ-02", lambda: 9)
    first.link(METER, SPEC)
    second.link(METER, SPEC)
    amount = first.meter(METER).amount
    a = first.award(METER, 10, "T1").events[0]
    b = second.award(METER, 10, "T4").events[0]
    assert (a.winners, b.winners) == (1, 1) and a.award != b.award
    assert a.share == amount * 10 // 100_000
    assert b.share == a.amount * 10 // 100_000
    other.close()
