"""The shipper: one log to the store in order, whole and once, with a durable cursor; the
lag as a meter and an alarm; the store's refusals as an alarm. Real PostgreSQL, real logs,
the shipper's own thread."""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from floor_helpers import StoreUrls, log_rows, round_step, store_rows, write_log

from game_server.eventlog import EventLog, system_clock
from game_server.floor.cluster import LocalFloor, connect, create_store
from game_server.floor.errors import StoreRefused, StoreUnavailable
from game_server.floor.shipper import Cursor, Shipper, cursor_path
from game_server.floor.store import FloorStore
from game_server.keys import KeyFiles, load_public_key
from shared.protocol import Json

sys.path.insert(0, str(Path(__file__).parents[1] / "eventlog"))
from test_eventlog_witness import cut_back

#: How long a test waits for the shipper before it fails.
WAIT = 30.0


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def shippers() -> Iterator[list[Shipper]]:
    """Shippers a test starts; each is stopped at the end."""
    started: list[Shipper] = []
    yield started
    for shipper in started:
        shipper.stop(timeout=5)


def start(shippers: list[Shipper], db: Path, url: str, key: str, **options: object) -> Shipper:
    shipper = Shipper(db, url, key, poll=0.02, **options)  # type: ignore[arg-type]
    shippers.append(shipper)
    shipper.start()
    return shipper


def test_a_log_written_while_it_ships_arrives_whole_in_order_and_once(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls, shippers: list[Shipper]
) -> None:
    """The table appends 200 rounds while the shipper runs; when it stops the store holds
    exactly the log, the cursor says so, and the meters counted every event once."""
    db = tmp_path / "t.db"
    log = EventLog.create_or_open(db, certs.signing_key, system_clock)
    shipper = start(shippers, db, store.shipper, registered, batch=37)
    for r in range(1, 201):
        log.append(round_step(r, 5), checkpoint="round-close")
        if r % 50 == 0:
            time.sleep(0.05)
    log.close()
    wait_for(lambda: shipper.meters()["shipped_checkpoint"] == 201, "the shutdown checkpoint")
    assert shipper.stop()
    log_id, rows, checkpoints = log_rows(db)
    assert store_rows(store.investigator, log_id) == (rows, checkpoints)
    meters = shipper.meters()
    assert meters["events_shipped"] == len(rows) == 1_000
    assert meters["checkpoints_shipped"] == 201
    assert (meters["shipped_seq"], meters["logged_seq"], meters["events_behind"]) == (1000, 1000, 0)
    assert meters["lag_ms"] == 0 and meters["alarm"] is None and meters["last_error"] is None
    assert 0 <= meters["lag_p50_ms"] <= meters["lag_p99_ms"] <= meters["lag_max_ms"] < 30_000
    assert Json().fromString(Json().toString(meters)) == meters  # ReadMeters carries it
    cursor = json.loads(cursor_path(db).read_text())
    assert cursor["log_id"] == log_id
    assert cursor["stores"][cursor["last_store"]] == {"seq": 1000, "checkpoint": 201}


def test_a_restarted_shipper_resumes_where_the_store_ends(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls, shippers: list[Shipper]
) -> None:
    """Stopped and started again after more rounds, it ships only the new rows."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 10, clock=system_clock)
    first = start(shippers, db, store.shipper, registered)
    wait_for(lambda: first.meters()["shipped_checkpoint"] == 11, "the first 11 checkpoints")
    assert first.stop()
    write_log(db, certs.signing_key, 5, first_round=11, clock=system_clock)
    second = start(shippers, db, store.shipper, registered)
    wait_for(lambda: second.meters()["shipped_checkpoint"] == 17, "the reopened log")
    assert second.meters()["events_shipped"] == 25
    log_id, rows, checkpoints = log_rows(db)
    assert store_rows(store.investigator, log_id) == (rows, checkpoints)


@pytest.mark.parametrize("damage", ["deleted", "garbage", "another log's"])
def test_a_lost_or_damaged_cursor_costs_nothing(
    tmp_path: Path,
    certs: KeyFiles,
    registered: str,
    store: StoreUrls,
    shippers: list[Shipper],
    damage: str,
) -> None:
    """Without a usable cursor the shipper takes the store's end (said once if the file
    could not be used) and the store still holds every row once."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 4, clock=system_clock)
    first = start(shippers, db, store.shipper, registered)
    wait_for(lambda: first.meters()["shipped_checkpoint"] == 5, "the log")
    assert first.stop()
    path = cursor_path(db)
    if damage == "deleted":
        path.unlink()
    elif damage == "garbage":
        path.write_text('{"log_id": ')
    else:
        path.write_text(json.dumps({"log_id": "another", "stores": {}}))
    write_log(db, certs.signing_key, 2, first_round=5, clock=system_clock)
    second = start(shippers, db, store.shipper, registered)
    wait_for(lambda: second.meters()["shipped_checkpoint"] == 8, "the new rows")
    notes = second.watch()
    if damage != "deleted":
        assert any("shipping cursor" in text and "ignored" in text for _, text in notes), notes
    assert second.meters()["events_shipped"] == 10
    log_id, rows, checkpoints = log_rows(db)
    assert store_rows(store.investigator, log_id) == (rows, checkpoints)


def test_a_store_restored_from_a_backup_gets_the_rows_it_lost_again(
    tmp_path: Path,
    certs: KeyFiles,
    registered: str,
    store: StoreUrls,
    shippers: list[Shipper],
    pg_floor: LocalFloor,
) -> None:
    """A cursor ahead of the store (the same store id, fewer rows): said, and shipped
    again from the store's end."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 6, clock=system_clock)
    first = start(shippers, db, store.shipper, registered)
    wait_for(lambda: first.meters()["shipped_checkpoint"] == 7, "the log")
    assert first.stop()
    # "Restore" an empty backup of the store: a new database given the old store's id.
    name = f"r_{uuid.uuid4().hex[:16]}"
    create_store(pg_floor, name)
    restored = StoreUrls.of(pg_floor, name)
    old = FloorStore.connect(store.investigator)
    old_id = old.store_id
    old.close()
    with connect(pg_floor, "superuser", name) as conn:
        conn.execute("ALTER TABLE floor.meta DISABLE TRIGGER USER")
        conn.execute("UPDATE floor.meta SET value = %s WHERE key = 'store_id'", (old_id,))
        conn.execute("ALTER TABLE floor.meta ENABLE TRIGGER USER")
    second = start(
        shippers, db, restored.register(load_public_key(certs.public_key), "BJ-01"), registered
    )
    wait_for(lambda: second.meters()["events_shipped"] == 30, "the rows again")
    notes = [text for _, text in second.watch()]
    said = "up to seq 0 (checkpoint #0) but had taken it up to seq 30"
    assert any(said in note for note in notes), notes
    log_id, rows, checkpoints = log_rows(db)
    assert store_rows(restored.investigator, log_id) == (rows, checkpoints)


class Outage:
    """A store connection that fails while ``down`` is set (a recording fake around the
    real connect)."""

    def __init__(self) -> None:
        self.down = threading.Event()
        self.attempts = 0

    def __call__(self, url: str) -> FloorStore:
        self.attempts += 1
        if self.down.is_set():
            raise StoreUnavailable("cannot connect to the floor store: connection refused")
        return FloorStore.connect(url)


def test_an_unreachable_store_is_an_alarm_past_the_lag_limit_and_over_when_it_is_back(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls, shippers: list[Shipper]
) -> None:
    """While the store cannot be reached the table goes on logging; the lag grows from the
    oldest unshipped event, past the limit it is an alarm (one line, and in the meters with
    the cause), and when the store is back everything is shipped and the alarm ends."""
    db = tmp_path / "t.db"
    outage = Outage()
    outage.down.set()
    log = EventLog.create_or_open(db, certs.signing_key, system_clock)
    shipper = start(
        shippers, db, store.shipper, registered, lag_limit=0.3, connect=outage, status_every=3600
    )
    for r in range(1, 4):
        log.append(round_step(r), checkpoint="round-close")
    shipper.wake()
    wait_for(
        lambda: shipper.lag() > 0.4 and shipper.meters()["logged_seq"] == 15,
        "the lag to pass the limit with every event seen",
    )
    meters = shipper.meters()
    assert meters["connected"] is False and meters["shipped_seq"] == 0
    assert meters["logged_seq"] == 15 and meters["events_behind"] == 15
    assert meters["lag_ms"] > 300
    assert "s behind (limit 0.3 s): cannot connect" in meters["alarm"]
    assert "connection refused" in meters["alarm"]
    notes = shipper.watch()
    assert [level for level, _ in notes] == ["warn", "error"], notes
    assert notes[1][1].startswith("ALARM: shipping to the floor store")
    assert shipper.watch() == []  # said once
    outage.down.clear()
    shipper.wake()
    wait_for(lambda: shipper.meters()["shipped_checkpoint"] == 3, "the store to catch up")
    wait_for(lambda: shipper.lag() == 0, "the lag to end")
    notes = shipper.watch()
    assert any(level == "info" and "shipping again from seq 1" in text for level, text in notes)
    assert any(text.startswith("alarm over") for _, text in notes)
    assert shipper.meters()["alarm"] is None
    log.close()


def test_stopping_while_the_store_is_down_does_not_hang(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls
) -> None:
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 2, clock=system_clock)
    outage = Outage()
    outage.down.set()
    shipper = Shipper(db, store.shipper, registered, connect=outage)
    shipper.start()
    wait_for(lambda: outage.attempts >= 1, "a connection attempt")
    began = time.monotonic()
    assert shipper.stop(timeout=5) is False
    assert time.monotonic() - began < 2


def test_a_log_cut_back_since_it_was_shipped_is_refused_as_an_alarm(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls, shippers: list[Shipper]
) -> None:
    """The store holds more of the log than the file: the shipper refuses to go on and the
    operator is alarmed at once, naming the cut."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 8, clock=system_clock)
    first = start(shippers, db, store.shipper, registered)
    wait_for(lambda: first.meters()["shipped_checkpoint"] == 9, "the log")
    assert first.stop()
    cut_back(db, 4)
    second = start(shippers, db, store.shipper, registered)
    wait_for(lambda: second.meters()["alarm"] is not None, "the refusal")
    alarm = second.meters()["alarm"]
    assert "refuses this log" in alarm
    assert "holds this log up to seq 40, but the log ends at seq 20: the log was cut back" in alarm
    assert [level for level, _ in second.watch()] == ["error", "error"]


def test_the_cursor_is_replaced_atomically_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "t.db.shipped"
    cursor = Cursor(path, "L1")
    assert cursor.get("S1") is None and cursor.last() is None and cursor.problem is None
    cursor.save("S1", 10, 2)
    cursor.save("S2", 4, 1)
    again = Cursor(path, "L1")
    assert again.get("S1") == (10, 2) and again.last() == ("S2", 4, 1)
    assert not path.with_name("t.db.shipped.new").exists()
    assert path.stat().st_mode & 0o777 == 0o600
    assert Cursor(path, "L2").get("S1") is None


def test_the_cursor_is_written_at_most_once_a_cursor_period_and_at_stop(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls, shippers: list[Shipper]
) -> None:
    """Each write is synced: while shipping it is written once per period, not per batch
    (two fsyncs a batch on the table's disk), and always when the shipper stops."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 20, clock=system_clock)
    shipper = start(shippers, db, store.shipper, registered, batch=10, cursor_every=3600)
    wait_for(lambda: shipper.meters()["shipped_checkpoint"] == 21, "the log")
    first = json.loads(cursor_path(db).read_text())  # the first batch, then nothing
    assert first["stores"][first["last_store"]]["seq"] == 10
    assert shipper.stop()
    last = json.loads(cursor_path(db).read_text())
    assert last["stores"][last["last_store"]] == {"seq": 100, "checkpoint": 21}


def test_an_alarm_that_changes_kind_is_said_again(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls, shippers: list[Shipper]
) -> None:
    """A lag alarm (the store away) that becomes a refusal is a second ALARM line; each
    failure is said once, not once per attempt."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 2, clock=system_clock)
    refusing = threading.Event()

    def connect(url: str) -> FloorStore:
        if refusing.is_set():
            raise StoreRefused("the log was rewritten")
        raise StoreUnavailable("cannot connect: connection refused")

    shipper = start(shippers, db, store.shipper, registered, lag_limit=0.1, connect=connect)
    wait_for(lambda: shipper.meters()["alarm"] is not None, "the lag alarm")
    time.sleep(1.2)  # a few attempts more
    first = shipper.watch()
    assert [level for level, _ in first] == ["warn", "error"], first
    assert "connection refused" in first[0][1] and first[1][1].startswith("ALARM: shipping to")
    refusing.set()
    shipper.wake()
    wait_for(lambda: "refuses this log" in (shipper.meters()["alarm"] or ""), "the refusal")
    second = shipper.watch()
    assert [level for level, _ in second] == ["error", "error"], second
    assert "the log was rewritten" in second[0][1]
    assert second[1][1].startswith("ALARM: the floor store") and "refuses" in second[1][1]
    assert shipper.watch() == []
