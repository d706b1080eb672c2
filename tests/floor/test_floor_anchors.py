"""The floor store as an anchor stream: a synchronous, fail-closed sink for ``EventLog``
and a source for the proof at open and for verification, alone or joined with a file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from floor_helpers import StepClock, StoreUrls, count, log_rows, round_step

from game_server.eventlog import (
    AnchorError,
    AnchorFile,
    AnchorWriteFailed,
    ChainBroken,
    EventLog,
    EventLogReader,
    LogOutOfService,
    verify_chain,
)
from game_server.floor.anchors import JoinedAnchors, StoreAnchors, prove_against_store
from game_server.keys import KeyFiles, load_public_key

sys.path.insert(0, str(Path(__file__).parents[1] / "eventlog"))
from test_eventlog_witness import cut_back

UNREACHABLE = "postgresql://etg_shipper:x@127.0.0.1:1/etg_floor"


def anchored(db: Path, key: Path, url: str, rounds: int, first: int = 1) -> None:
    anchors = StoreAnchors(url)
    log = EventLog.create_or_open(db, key, StepClock(), anchors=anchors)
    for r in range(first, first + rounds):
        log.append(round_step(r), checkpoint="round-close")
    log.close()
    anchors.close()


def test_each_checkpoint_is_in_the_store_when_append_returns(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls
) -> None:
    """Published synchronously, before its events are shipped: the store then holds every
    checkpoint of the log and none of its events; the events shipped later agree."""
    db = tmp_path / "t.db"
    anchors = StoreAnchors(store.shipper)
    log = EventLog.create_or_open(db, certs.signing_key, StepClock(), anchors=anchors)
    for r in range(1, 4):
        log.append(round_step(r), checkpoint="round-close")
        assert [cp.number for cp in anchors.anchors(log.log_id)] == list(range(1, r + 1))
    log.close()
    log_id, _, checkpoints = log_rows(db)
    assert anchors.anchors(log_id) == checkpoints  # the shutdown checkpoint too
    assert count(store.investigator, "events", log_id) == 0
    anchors.close()


def test_the_open_and_verification_catch_a_log_cut_back_below_the_stores_anchors(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls
) -> None:
    db = tmp_path / "t.db"
    anchored(db, certs.signing_key, store.shipper, 6)
    cut_back(db, 3)
    anchors = StoreAnchors(store.investigator)
    with pytest.raises(ChainBroken, match="lacks anchored checkpoint #4"):
        EventLog.create_or_open(
            db, certs.signing_key, StepClock(), anchors=StoreAnchors(store.shipper)
        )
    with pytest.raises(ChainBroken, match="lacks anchored checkpoint #4"):
        prove_against_store(db, load_public_key(certs.public_key), store.shipper)
    with EventLogReader.open(db) as reader:
        assert verify_chain(reader, load_public_key(certs.public_key)).ok  # alone: the hole
        report = verify_chain(
            reader, load_public_key(certs.public_key), anchors=anchors.anchors(reader.log_id)
        )
    assert not report.ok and "truncated" in (report.reason or "")
    assert report.first_bad_seq == 16
    anchors.close()


def test_a_store_that_cannot_be_reached_stops_an_anchored_open_but_only_warns_a_server(
    tmp_path: Path, certs: KeyFiles
) -> None:
    """As the anchor stream of ``EventLog`` it must be readable to open the log; the proof
    ``etg serve --store`` makes at start only warns (shipping catches a cut later)."""
    db = tmp_path / "t.db"
    log = EventLog.create_or_open(db, certs.signing_key, StepClock())
    log.close()
    anchors = StoreAnchors(UNREACHABLE)
    with pytest.raises(AnchorError, match="the floor store's checkpoints cannot be read"):
        EventLog.create_or_open(db, certs.signing_key, StepClock(), anchors=anchors)
    assert (
        prove_against_store(db, load_public_key(certs.public_key), UNREACHABLE) or ""
    ).startswith("the log could not be proven against the floor store")


def test_a_publish_refused_by_the_store_is_a_failed_anchor_write(
    tmp_path: Path, certs: KeyFiles, store: StoreUrls
) -> None:
    """Fail-closed like the anchor file: the server's key is not registered, so the first
    checkpoint cannot be anchored; the step is in the log, the log takes no more appends
    (out of service until resumed), and says why."""
    db = tmp_path / "t.db"
    log = EventLog.create_or_open(
        db, certs.signing_key, StepClock(), anchors=StoreAnchors(store.shipper)
    )
    with pytest.raises(AnchorWriteFailed, match="is not registered with the store"):
        log.append(round_step(1), checkpoint="round-close")
    with pytest.raises(LogOutOfService):
        log.append(round_step(2))
    log.close()


def test_joined_anchors_are_the_union_of_a_file_and_the_store(
    tmp_path: Path, certs: KeyFiles, registered: str, store: StoreUrls
) -> None:
    db = tmp_path / "t.db"
    anchored(db, certs.signing_key, store.shipper, 2)
    file = AnchorFile(tmp_path / "anchors.jsonl")
    log = EventLog.create_or_open(db, certs.signing_key, StepClock(), anchors=file)
    log.append(round_step(3), checkpoint="round-close")
    log.close()
    file.close()
    log_id, _, checkpoints = log_rows(db)
    store_anchors = StoreAnchors(store.investigator)
    joined = JoinedAnchors(file, store_anchors).anchors(log_id)
    store_anchors.close()
    assert [cp.number for cp in joined] == [cp.number for cp in checkpoints]
    assert joined == checkpoints
