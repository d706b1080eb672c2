"""Ingest into the floor store: a log arrives whole and once; a gap, a fork, a rewrite, a
tampered row, a bad signature and a second log claiming an id are refused, both by the
ingest code and (for everything but the Ed25519 signature) by the database itself when the
ingest code is bypassed."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from floor_helpers import StepClock, StoreUrls, log_rows, store_rows, write_log
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_server.eventlog import EventLog, EventLogReader, NewEvent
from game_server.eventlog.chain import checkpoint_message
from game_server.eventlog.records import Checkpoint
from game_server.floor.errors import StoreRefused
from game_server.floor.store import FloorStore
from game_server.keys import KeyFiles, key_id

sys.path.insert(0, str(Path(__file__).parents[1] / "eventlog"))
from eventlog_helpers import drop_triggers, raw


@pytest.fixture
def shipper(store: StoreUrls) -> Iterator[FloorStore]:
    """A connection of the shipping role."""
    connection = FloorStore.connect(store.shipper)
    yield connection
    connection.close()


def ship_all(store: FloorStore, db: Path, key: str) -> str:
    log_id, rows, checkpoints = log_rows(db)
    store.claim(log_id, key)
    store.ingest(log_id, rows, checkpoints)
    return log_id


def test_a_log_is_stored_exactly_and_shipping_it_again_doubles_nothing(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    """Every event and checkpoint arrives byte for byte; the same rows shipped again, whole
    or overlapping, are skipped (at least once, stored once)."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 20)
    log_id, rows, checkpoints = log_rows(db)
    shipper.claim(log_id, registered)
    shipper.ingest(log_id, rows[:50], [cp for cp in checkpoints if cp.seq <= 50])
    shipper.ingest(log_id, rows, checkpoints)
    shipper.ingest(log_id, rows[30:], checkpoints[5:])
    shipper.claim(log_id, registered)
    assert store_rows(store.investigator, log_id) == (rows, checkpoints)
    head = shipper.head(log_id)
    assert head is not None
    assert (head.seq, head.hash, head.checkpoint) == (100, rows[-1][7], 21)
    assert shipper.checkpoints(log_id, after=19) == checkpoints[19:]


def test_a_gap_is_refused_and_nothing_of_the_batch_is_kept(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 4)
    log_id, rows, _ = log_rows(db)
    shipper.claim(log_id, registered)
    shipper.ingest(log_id, rows[:5], [])
    with pytest.raises(StoreRefused, match=f"event 8 of log {log_id} arrives before event 7"):
        shipper.ingest(log_id, rows[5:6] + rows[7:], [])
    assert len(store_rows(store.investigator, log_id)[0]) == 5  # event 6 was rolled back too
    _, checkpoints = log_rows(db)[1:]
    with pytest.raises(StoreRefused, match=r"checkpoint 3 of log .* after checkpoint 0: a gap"):
        shipper.ingest(log_id, [], checkpoints[2:3])


def test_a_fork_is_refused(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore
) -> None:
    """Two copies of one log written on after the copy (a file copied to a second server)
    share the id and key: the second to ship its own event is refused as a fork, also a
    checkpoint with a number the store holds."""
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    write_log(first, certs.signing_key, 3)
    second.write_bytes(first.read_bytes())
    write_log(first, certs.signing_key, 2, first_round=4)
    write_log(second, certs.signing_key, 2, first_round=14)
    log_id = ship_all(shipper, first, registered)
    _, rows, checkpoints = log_rows(second)
    with pytest.raises(StoreRefused, match=f"log {log_id} already holds a different event 16"):
        shipper.ingest(log_id, rows, [])
    with pytest.raises(StoreRefused, match=r"already holds a different checkpoint 5 .* rewrite"):
        shipper.ingest(log_id, [], [cp for cp in checkpoints if cp.number == 5])


def test_a_second_log_claiming_an_id_with_another_key_is_refused(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 1)
    log_id = ship_all(shipper, db, registered)
    other = Ed25519PrivateKey.generate()
    second = FloorStore.connect(store.register(other.public_key(), "BJ-02"))
    other_id = key_id(other.public_key())
    try:
        with pytest.raises(StoreRefused, match=f"a second log claims the id {log_id}"):
            second.claim(log_id, other_id)
        with pytest.raises(StoreRefused, match="not bound to this connection's role"):
            shipper.claim(log_id, other_id)  # nor may BJ-01 claim with BJ-02's key
    finally:
        second.close()


def test_an_unregistered_key_is_refused_with_what_to_do(
    tmp_path: Path, certs: KeyFiles, shipper: FloorStore
) -> None:
    db = tmp_path / "t.db"
    log_id = write_log(db, certs.signing_key, 1)
    with pytest.raises(StoreRefused, match=r"is not registered with the store.*etg floor register"):
        shipper.claim(log_id, "0123456789abcdef")


def test_a_row_tampered_in_the_local_log_is_refused(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    """A payout edited in the SQLite file (triggers dropped, hash left as it was) does not
    chain: the store refuses it and keeps the log up to the event before."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 4)
    conn = raw(db)
    drop_triggers(conn)
    conn.execute("UPDATE events SET body = replace(body, '\"AS\"', '\"KS\"') WHERE seq = 12")
    conn.close()
    log_id, rows, _ = log_rows(db)
    shipper.claim(log_id, registered)
    with pytest.raises(StoreRefused, match=f"event 12 of log {log_id} does not chain on event 11"):
        shipper.ingest(log_id, rows, [])
    shipper.ingest(log_id, rows[:11], [])
    assert len(store_rows(store.investigator, log_id)[0]) == 11


def test_a_body_that_is_not_canonical_is_refused_before_it_is_sent(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore
) -> None:
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 1)
    log_id, rows, _ = log_rows(db)
    spaced = (*rows[0][:6], rows[0][6].replace(",", ", "), rows[0][7])
    shipper.claim(log_id, registered)
    with pytest.raises(StoreRefused, match=r"event 1 .* not the canonical JSON"):
        shipper.ingest(log_id, [spaced], [])


def test_a_checkpoint_whose_signature_does_not_verify_is_refused(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    """A flipped signature bit, a checkpoint signed by another key, and one of another log."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 2)
    log_id, rows, checkpoints = log_rows(db)
    shipper.claim(log_id, registered)
    shipper.ingest(log_id, rows, [])
    first = checkpoints[0]
    flipped = Checkpoint(**{**first.__dict__, "signature": _flip(first.signature)})
    with pytest.raises(StoreRefused, match="signature does not verify with the registered key"):
        shipper.ingest(log_id, [], [flipped])
    forger = Ed25519PrivateKey.generate()
    forged = _signed(first, forger)
    with pytest.raises(StoreRefused, match=f"signed with key {key_id(forger)}, which is not"):
        shipper.ingest(log_id, [], [forged])
    moved = Checkpoint(**{**first.__dict__, "log_id": "another"})
    with pytest.raises(StoreRefused, match="names the log another"):
        shipper.ingest(log_id, [], [moved])
    assert store_rows(store.investigator, log_id)[1] == []


def _flip(signature: str) -> str:
    return f"{int(signature[0], 16) ^ 1:x}{signature[1:]}"


def _signed(cp: Checkpoint, key: Ed25519PrivateKey) -> Checkpoint:
    fields = {**cp.__dict__, "key_id": key_id(key)}
    message = checkpoint_message(**{k: v for k, v in fields.items() if k != "signature"})
    return Checkpoint(**{**fields, "signature": key.sign(message).hex()})


def _insert(url: str, log_id: str, row: tuple[object, ...]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO floor.events (log_id, seq, time, table_id, round_id, terminal, kind,"
            " body, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (log_id, *row),
        )


def test_the_database_refuses_on_its_own_what_a_rogue_shipper_sends_around_the_code(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    """With the shipping role's own SQL, bypassing the ingest code: a tampered row, a gap, a
    changed copy of a stored row, a checkpoint that contradicts the chain or is signed by
    another key than the log's, and events of a log never claimed are all refused."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 3)
    log_id, rows, checkpoints = log_rows(db)
    shipper.claim(log_id, registered)
    shipper.ingest(log_id, rows[:5], checkpoints[:1])
    tampered = (*rows[5][:6], rows[5][6].replace('"AS"', '"KS"'), rows[5][7])
    for row, said in (
        (tampered, "does not chain on event 5"),
        (rows[6], "arrives before event 6: a gap"),
        ((*rows[4][:1], "2030-01-01T00:00:00.000000Z", *rows[4][2:]), "a fork or a rewrite"),
    ):
        with pytest.raises(psycopg.Error, match=said):
            _insert(store.shipper, log_id, row)
    with pytest.raises(psycopg.Error, match="event of log nobody: that log is not this server"):
        _insert(store.shipper, "nobody", rows[0])
    bad = checkpoints[1]
    with psycopg.connect(store.shipper, autocommit=True) as conn:
        for number, hash_, key, said in (
            (2, "ab" * 32, bad.key_id, "does not match the chain the store holds at seq 5"),
            (2, bad.hash, "0123456789abcdef", "signed with key 0123456789abcdef, but the log"),
        ):
            with pytest.raises(psycopg.Error, match=said):
                conn.execute(
                    "INSERT INTO floor.checkpoints (log_id, number, seq, hash, time, reason,"
                    " key_id, signature) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (log_id, number, 5, hash_, bad.time, bad.reason, key, bad.signature),
                )
    assert store_rows(store.investigator, log_id) == (rows[:5], checkpoints[:1])


def test_a_checkpoint_may_arrive_before_its_events_which_must_then_agree_with_it(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    """The synchronous anchor path stores a checkpoint before the shipper brings its
    events; an event that contradicts it is then refused."""
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    write_log(first, certs.signing_key, 1)
    second.write_bytes(first.read_bytes())
    write_log(first, certs.signing_key, 1, first_round=2)
    write_log(second, certs.signing_key, 1, first_round=9)
    log_id, rows, checkpoints = log_rows(first)
    _, other_rows, _ = log_rows(second)
    shipper.claim(log_id, registered)
    shipper.ingest(log_id, [], checkpoints)  # every checkpoint, no event yet
    with pytest.raises(StoreRefused, match=r"event 10 .* contradicts a checkpoint"):
        shipper.ingest(log_id, other_rows, [])
    shipper.ingest(log_id, rows, [])
    assert store_rows(store.investigator, log_id) == (rows, checkpoints)


texts = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(table=texts, terminal=st.none() | texts, note=texts)
def test_the_stores_chain_check_agrees_with_the_logs_on_any_text(
    tmp_path_factory: pytest.TempPathFactory,
    certs: KeyFiles,
    registered: str,
    shipper: FloorStore,
    table: str,
    terminal: str | None,
    note: str,
) -> None:
    """Table ids, terminals and bodies with quotes, backslashes, control characters and any
    Unicode (PostgreSQL's to_json escapes exactly as the log's canonical JSON; only NUL,
    which PostgreSQL text cannot hold, is left out) chain the same in the store."""
    db = tmp_path_factory.mktemp("any") / "t.db"
    log = EventLog.create_or_open(db, certs.signing_key, StepClock())
    log.append(
        [
            NewEvent(table, 1, terminal, {"kind": "note", "text": note}),
            NewEvent(table, None, None, {"kind": 'k"\\\n\té', "x": [1, "é"]}),
        ],
        checkpoint="round-close",
    )
    log.close()
    ship_all(shipper, db, registered)


def test_the_meta_state_is_kept_and_checked(
    tmp_path: Path, certs: KeyFiles, registered: str, shipper: FloorStore, store: StoreUrls
) -> None:
    """The log's meta and migrations are stored under the digest a v2 checkpoint signs; a
    meta naming another log is refused."""
    db = tmp_path / "t.db"
    write_log(db, certs.signing_key, 1)
    with EventLogReader.open(db) as reader:
        log_id, meta, migrations = reader.log_id, reader.meta(), reader.applied_migrations()
        checkpoint = reader.checkpoints()[0]
    shipper.claim(log_id, registered)
    digest = shipper.ship_state(log_id, meta, migrations)
    assert digest == checkpoint.meta
    assert shipper.ship_state(log_id, meta, migrations) == digest
    with psycopg.connect(store.investigator) as conn:
        (document,) = conn.execute("SELECT document FROM floor.log_states").fetchone()  # type: ignore[misc]
    assert json.loads(document)["meta"]["log_kind"] == "table"
    with pytest.raises(StoreRefused, match="names another log id"):
        shipper.ship_state(log_id, {**meta, "log_id": "x"}, migrations)
