"""The floor store believes nothing unsigned: the three attacks of a hostile insider, each
against a real PostgreSQL (and, for the first, the real server process).

1. A checkpoint forged into another server's log: refused from another server's shipping
   role; one written past every check (the database's superuser, triggers off) is named
   and ignored, and the genuine server starts again on its log.
2. A whole log forged under another server's key: refused from another server's role; one
   written past every check is left out and named by recall, the report and the floor's
   own verification.
3. An edit by the store's owner: the floor admin owns nothing and can neither disable a
   trigger nor grant itself UPDATE; an edit past the triggers fails ``etg verify --store``
   and ``etg floor verify``, each naming the row.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from floor_helpers import StoreUrls, log_rows
from test_floor_e2e import Operator, hello, register, start_server
from test_floor_e2e import table as table  # the fixture

from game_server.config import load_config
from game_server.eventlog import EventLogReader
from game_server.eventlog.chain import GENESIS_HASH, row_hash
from game_server.floor.store import FloorStore
from game_server.keys import key_id, load_public_key
from game_server.simlog import run_logged_sim

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "game_server/games/blackjack/configs/fully-automated-blackjack.toml"


def etg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools", *args], cwd=ROOT, capture_output=True, text=True
    )


def _past_the_checks(url: str, *statements: tuple[str, tuple[object, ...]]) -> None:
    """Run ``statements`` as the database's superuser with every trigger off (what only the
    superuser, or an owner of the tables, can do)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        for sql, params in statements:
            conn.execute(sql, params)


def _ship(store: StoreUrls, db: Path, certs: Path, server: str) -> str:
    public = load_public_key(certs)
    shipper = FloorStore.connect(store.register(public, server))
    try:
        log_id, rows, checkpoints = log_rows(db)
        with EventLogReader.open(db) as reader:
            shipper.claim(log_id, key_id(public))
            shipper.ship_state(log_id, reader.meta(), reader.applied_migrations())
        shipper.ingest(log_id, rows, checkpoints)
    finally:
        shipper.close()
    return log_id


_CHECKPOINT = (
    "INSERT INTO floor.checkpoints (log_id, number, seq, hash, time, reason, key_id, "
    "signature, meta) VALUES (%s, %s, %s, %s, '2026-12-01T00:00:00.000000Z', 'forged', %s, "
    "repeat('00', 64), repeat('cd', 32))"
)


@pytest.mark.slow
def test_a_forged_checkpoint_is_refused_or_ignored_and_the_server_ships_and_restarts(
    table: dict[str, Path], store: StoreUrls
) -> None:
    """Attack 1: BJ-02's shipping role inserting a checkpoint into BJ-01's log is refused by
    the database while BJ-01 plays and ships on; a checkpoint written past every check is
    named in an ALARM line and ignored when BJ-01 starts again, and ``etg verify --store``
    names it."""
    register(store, table["certs"])
    mallory = store.register(Ed25519PrivateKey.generate().public_key(), "BJ-02")
    victim = key_id(load_public_key(table["certs"]))
    server = start_server(table, store.servers["BJ-01"])
    try:
        operator = Operator(server.port(), table["certs"], "trust")
        shipped = operator.wait_shipped()
        with EventLogReader.open(table["db"]) as reader:
            log_id = reader.log_id
        with (
            psycopg.connect(mallory, autocommit=True) as conn,
            pytest.raises(psycopg.Error, match="that log is not this server's"),
        ):
            conn.execute(_CHECKPOINT, (log_id, 1, 12, "ab" * 32, victim))
        after = operator.wait_shipped()
        operator.finish()
        assert after["alarm"] is None and after["shipped_seq"] >= shipped["shipped_seq"]
    finally:
        assert server.stop() == 0, server.output()
    _, rows, checkpoints = log_rows(table["db"])
    forged = checkpoints[-1].number + 1
    _past_the_checks(store.superuser, (_CHECKPOINT, (log_id, forged, len(rows), "ab" * 32, victim)))
    again = start_server(table, store.servers["BJ-01"])
    try:
        # It serves: the forged row is no reason to refuse the genuine log.
        client, _ = hello(again.port(), table["certs"], "operator")
        client.close()
    finally:
        assert again.stop() == 0, again.output()
    assert f"ALARM: the floor store holds checkpoint #{forged}" in again.output()
    assert "it is not believed (ignored)" in again.output()
    checked = etg("verify", str(table["db"]), "--key", str(table["certs"]), "--store",
                  store.investigator)  # fmt: skip
    assert checked.returncode == 1, checked.stdout
    assert f"checkpoint #{forged}" in checked.stderr  # not believed as an anchor
    assert f"the floor store's checkpoint #{forged} (seq {len(rows)}) is not the log's" in (
        checked.stdout
    )


def _sim_log(folder: Path, seed: int) -> tuple[Path, Path]:
    certs = folder / "certs"
    from game_server.keys import init_keys

    init_keys(certs)
    db = folder / "table.db"
    run_logged_sim(load_config(CONFIG), db, certs, rounds=6, seats=2, seed=seed)
    return db, certs


def test_a_log_forged_under_another_servers_key_is_refused_or_left_out_and_named(
    store: StoreUrls, tmp_path: Path
) -> None:
    """Attack 2: BJ-02's role claiming a new log with BJ-01's key is refused; a log written
    past every check under BJ-01's key, its events chained again around a credit of
    $999,999.00 and its checkpoint unsigned, is left out and named by ``etg recall list
    --store`` and ``etg report --store`` (which go on with the genuine logs) and fails
    ``etg floor verify``; ``etg floor logs`` says its server did not claim it."""
    db, certs = _sim_log(tmp_path / "bj01", 1)
    log_id = _ship(store, db, certs, "BJ-01")
    victim = key_id(load_public_key(certs))
    mallory = FloorStore.connect(store.register(Ed25519PrivateKey.generate().public_key(), "BJ-02"))
    try:
        with pytest.raises(Exception, match="not bound to this connection's role"):
            mallory.claim("forged-log", victim)
    finally:
        mallory.close()
    _, rows, _ = log_rows(db)
    forged, prev = [], GENESIS_HASH
    for row in rows[:40]:
        body = row[6]
        if row[5] == "credits_in":
            payload = json.loads(body)
            payload["amount"], payload["balance"] = 99_999_900, 99_999_900
            body = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        edited = (*row[:6], body, "")
        prev = row_hash(prev, edited)
        forged.append((*row[:6], body, prev))
    _past_the_checks(
        store.superuser,
        ("INSERT INTO floor.logs (log_id, key_id) VALUES ('forged-log', %s)", (victim,)),
        *(
            (
                "INSERT INTO floor.events (log_id, seq, time, table_id, round_id, terminal, "
                "kind, body, hash) VALUES ('forged-log', %s, %s, %s, %s, %s, %s, %s, %s)",
                tuple(row),
            )
            for row in forged
        ),
        (_CHECKPOINT, ("forged-log", 1, len(forged), prev, victim)),
    )
    listed = etg("recall", "list", "--store", store.investigator, "--last", "100", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "log forged-log of server BJ-01 does not verify" in listed.stderr
    rounds = json.loads(listed.stdout)
    assert rounds and {entry["server"] for entry in rounds} == {"BJ-01"}
    genuine = json.loads(etg("recall", "list", str(db), "--last", "100", "--json").stdout)
    assert [(r["table"], r["round"]) for r in rounds] == [(r["table"], r["round"]) for r in genuine]
    report = etg("report", "--store", store.investigator, "--since", "2000-01-01",
                 "--until", "2100-01-01")  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert "log forged-log of server BJ-01 does not verify" in report.stderr
    assert "999,999" not in report.stdout
    proven = etg("floor", "verify", "--store", store.investigator)
    assert proven.returncode == 1
    assert "forged-log  FAILED" in proven.stdout and f"{log_id}  VERIFIED" in proven.stdout
    logs = etg("floor", "logs", "--store", store.investigator)
    line = next(x for x in logs.stdout.splitlines() if "forged-log" in x)
    assert "NOT CLAIMED BY ITS SERVER" in line


def test_the_owners_edit_is_impossible_for_the_admin_and_fails_verification(
    store: StoreUrls, tmp_path: Path
) -> None:
    """Attack 3: the floor admin can disable no trigger and give itself no UPDATE (it owns
    nothing); three rows edited past the triggers (the superuser) fail ``etg verify DB
    --store`` and ``etg floor verify``, each naming the first edited row."""
    db, certs = _sim_log(tmp_path / "bj01", 2)
    log_id = _ship(store, db, certs, "BJ-01")
    with psycopg.connect(store.admin, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("ALTER TABLE floor.events DISABLE TRIGGER events_no_change")
        conn.execute("GRANT UPDATE ON floor.events TO etg_floor_admin")  # grants nothing
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE floor.events SET body = body WHERE seq = 1")
    _, rows, _ = log_rows(db)
    edited = [row[0] for row in rows if row[5] == "credits_in"][:3]
    _past_the_checks(
        store.superuser,
        *(
            (
                "UPDATE floor.events SET body = replace(body, '\"amount\":', '\"amount\":9') "
                "WHERE log_id = %s AND seq = %s",
                (log_id, seq),
            )
            for seq in edited
        ),
    )
    checked = etg("verify", str(db), "--key", str(certs), "--store", store.investigator)
    assert checked.returncode == 1, checked.stdout
    assert f"the floor store's event {edited[0]} is not the log's: body differ" in checked.stdout
    proven = etg("floor", "verify", "--store", store.investigator)
    assert proven.returncode == 1
    assert f"{log_id}  FAILED at seq {edited[0]}" in proven.stdout
