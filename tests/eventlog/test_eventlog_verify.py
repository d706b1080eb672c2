"""verify_chain: a clean log verifies, and each way of tampering with the file is found at the
right sequence number, with a reason."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from eventlog_helpers import FakeClock, copy_log, drop_triggers, fill, raw

from game_server.eventlog import (
    GENESIS_HASH,
    ChainBroken,
    ChainReport,
    Checkpoint,
    EventLog,
    EventLogReader,
    LogDamaged,
    checkpoint_message,
    row_hash,
    verify_chain,
)
from game_server.keys import key_id

ROUNDS = 10
PER_ROUND = 10  # a checkpoint at seq 10, 20, ..., 100, then the shutdown one at 100


@pytest.fixture
def closed_log(open_log: Callable[..., EventLog], db_path: Path) -> Path:
    """A log of 10 rounds of 10 events, a round-close checkpoint after each, closed cleanly."""
    log = open_log()
    fill(log, ROUNDS, PER_ROUND)
    log.close()
    return db_path


def _verify(path: Path, public_key: Ed25519PublicKey, **kwargs: object) -> ChainReport:
    with EventLogReader.open(path) as reader:
        return verify_chain(reader, public_key, **kwargs)  # type: ignore[arg-type]


def _rehash_from(conn: object, seq: int) -> None:
    """What a careful tamperer does after changing row ``seq``: recompute every stored hash
    from there on so that the chain links again."""
    import sqlite3

    assert isinstance(conn, sqlite3.Connection)
    prev = (
        GENESIS_HASH
        if seq == 1
        else conn.execute("SELECT hash FROM events WHERE seq = ?", (seq - 1,)).fetchone()[0]
    )
    rows = conn.execute("SELECT * FROM events WHERE seq >= ? ORDER BY seq", (seq,)).fetchall()
    for row in rows:
        prev = row_hash(prev, row)
        conn.execute("UPDATE events SET hash = ? WHERE seq = ?", (prev, row[0]))


def test_a_clean_log_verifies(closed_log: Path, public_key: Ed25519PublicKey) -> None:
    """Every row chains, every checkpoint verifies, the log ends with the shutdown
    checkpoint, and progress is told as batches finish."""
    seen: list[tuple[int, int]] = []
    report = _verify(closed_log, public_key, progress=lambda d, t: seen.append((d, t)), batch=30)
    assert report.ok, report.problems
    assert (report.events, report.last_seq) == (100, 100)
    assert (report.checkpoints, report.valid_checkpoints) == (11, 11)
    assert (report.last_proven_seq, report.unproven_events) == (100, 0)
    assert report.ends_with_checkpoint
    assert report.first_bad_seq is None and report.reason is None
    assert report.key_id == key_id(public_key)
    assert seen == [(30, 100), (60, 100), (90, 100), (100, 100)]
    with EventLogReader.open(closed_log) as reader:
        assert report.head_hash == reader.event(100).hash  # type: ignore[union-attr]


def test_an_empty_log_verifies(
    open_log: Callable[..., EventLog], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """A log with no events and only its shutdown checkpoint (at seq 0) verifies."""
    open_log().close()
    report = _verify(db_path, public_key)
    assert report.ok and report.events == 0 and report.ends_with_checkpoint


def test_a_row_edited_after_dropping_the_triggers_is_found_at_its_seq(
    closed_log: Path, public_key: Ed25519PublicKey
) -> None:
    """An UPDATE of one body (the stored hash left as it was) fails at exactly that seq,
    and the writer refuses to open the log."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("UPDATE events SET body = replace(body, '\"AS\"', '\"KS\"') WHERE seq = 37")
    report = _verify(closed_log, public_key)
    assert not report.ok
    assert report.first_bad_seq == 37
    assert "stored hash does not match" in (report.reason or "")
    assert report.problem_count == 1  # the chain carries on from the stored hash


def test_a_row_edited_with_every_later_hash_recomputed_fails_at_the_next_checkpoint(
    closed_log: Path, public_key: Ed25519PublicKey
) -> None:
    """A tamperer who recomputes the chain after the edit makes it link again, but the next
    signed checkpoint (seq 40) no longer matches: that is where it fails."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("UPDATE events SET terminal = 'term-9' WHERE seq = 37")
    _rehash_from(conn, 37)
    report = _verify(closed_log, public_key)
    assert report.first_bad_seq == 40
    assert "checkpoint #4" in (report.reason or "")
    assert "changed after it was signed" in (report.reason or "")


def test_a_deleted_row_is_found_at_its_seq(closed_log: Path, public_key: Ed25519PublicKey) -> None:
    """DELETE of one row (after dropping the triggers) shows as event 55 missing."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("DELETE FROM events WHERE seq = 55")
    report = _verify(closed_log, public_key)
    assert report.first_bad_seq == 55
    assert "event 55 is missing" in (report.reason or "")
    assert report.problem_count == 1


def test_two_swapped_rows_are_found_at_the_lower_seq(
    closed_log: Path, public_key: Ed25519PublicKey
) -> None:
    """Rows 63 and 64 exchange their content (each keeping its seq): found at 63."""
    conn = raw(closed_log)
    drop_triggers(conn)
    a = conn.execute("SELECT * FROM events WHERE seq = 63").fetchone()
    b = conn.execute("SELECT * FROM events WHERE seq = 64").fetchone()
    columns = "time = ?, table_id = ?, round_id = ?, terminal = ?, kind = ?, body = ?, hash = ?"
    conn.execute(f"UPDATE events SET {columns} WHERE seq = 63", (*b[1:],))
    conn.execute(f"UPDATE events SET {columns} WHERE seq = 64", (*a[1:],))
    report = _verify(closed_log, public_key)
    assert report.first_bad_seq == 63


def test_a_truncation_that_removes_checkpointed_rows_is_found(
    closed_log: Path, public_key: Ed25519PublicKey, signing_key: Ed25519PrivateKey
) -> None:
    """The last 25 rows removed (the checkpoints that covered them kept): the log is
    truncated after seq 75, and the writer refuses to open it."""
    copy = copy_log(closed_log, closed_log.with_name("copy.db"))
    conn = raw(copy)
    drop_triggers(conn)
    conn.execute("DELETE FROM events WHERE seq > 75")
    conn.close()
    report = _verify(copy, public_key)
    assert report.first_bad_seq == 76
    assert "truncated" in (report.reason or "")
    assert "up to seq 100" in (report.reason or "")
    with pytest.raises(ChainBroken, match="truncated") as broken:
        EventLog.create_or_open(copy, signing_key, FakeClock())
    assert broken.value.seq == 76


def test_a_truncation_with_its_checkpoints_needs_an_anchor(
    closed_log: Path, public_key: Ed25519PublicKey
) -> None:
    """Rows after seq 70 removed together with the checkpoints covering them leave a shorter
    log that verifies on its own (the file holds no proof of what is gone), but a checkpoint
    kept elsewhere (an anchor) shows the truncation."""
    with EventLogReader.open(closed_log) as reader:
        last = reader.checkpoints()[-1]
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("DELETE FROM events WHERE seq > 70")
    conn.execute("DELETE FROM checkpoints WHERE seq > 70")
    alone = _verify(closed_log, public_key)
    assert alone.ok and alone.last_seq == 70
    anchored = _verify(closed_log, public_key, anchors=[last])
    assert anchored.first_bad_seq == 71
    assert "truncated" in (anchored.reason or "")


def test_unsigned_tail_is_reported_as_unproven(
    open_log: Callable[..., EventLog], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """Events after the last checkpoint (a crash before the round closed) verify as a chain
    but are reported as unproven, and the log does not end with a checkpoint."""
    log = open_log()
    fill(log, 3, PER_ROUND)
    fill(log, 2, PER_ROUND, checkpoint_every=0, first_round=4)
    report = _verify(db_path, public_key)
    assert report.ok
    assert (report.last_proven_seq, report.unproven_events) == (30, 20)
    assert not report.ends_with_checkpoint


def test_a_file_cut_short_is_refused_as_damaged(
    closed_log: Path, public_key: Ed25519PublicKey, signing_key: Ed25519PrivateKey
) -> None:
    """A copy of the database file with its last pages cut off cannot be read as a log:
    the reader and the writer both say it is damaged, and the writer leaves it as it is."""
    size = closed_log.stat().st_size
    for keep in (size // 2, size - 4096):
        copy = copy_log(closed_log, closed_log.with_name(f"cut-{keep}.db"))
        os.truncate(copy, keep)
        before = copy.read_bytes()
        with pytest.raises(LogDamaged, match="damaged"):
            _verify(copy, public_key)
        with pytest.raises(LogDamaged):
            EventLog.create_or_open(copy, signing_key, FakeClock())
        assert copy.read_bytes() == before


def test_a_damaged_page_is_reported_from_where_reading_stops(
    open_log: Callable[..., EventLog], db_path: Path, public_key: Ed25519PublicKey
) -> None:
    """A page of the events table overwritten with garbage: verification reports that
    events cannot be read from the first one it could not reach."""
    log = open_log()
    fill(log, 40, 20, checkpoint_every=4)
    log.close()
    conn = raw(db_path)
    # A leaf page of the events table that holds rows 200 and later.
    page = conn.execute(
        "SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' "
        "ORDER BY pageno LIMIT 1 OFFSET 5"
    ).fetchone()
    conn.close()
    if page is None:  # pragma: no cover - SQLite built without dbstat
        pytest.skip("this SQLite has no dbstat table")
    with db_path.open("r+b") as file:
        file.seek((page[0] - 1) * 4096)
        file.write(b"\xff" * 4096)
    report = _verify(db_path, public_key)
    assert not report.ok
    assert report.first_bad_seq is not None and 1 < report.first_bad_seq <= 800
    assert report.events == report.first_bad_seq - 1  # every row before the damage checked
    assert report.problem_count == 1
    assert f"events from seq {report.first_bad_seq} on cannot be read" in (report.reason or "")


def _forge(cp: Checkpoint, key: Ed25519PrivateKey, **changes: object) -> tuple[object, ...]:
    fields = {
        "log_id": cp.log_id,
        "number": cp.number,
        "seq": cp.seq,
        "hash": cp.hash,
        "time": cp.time,
        "reason": cp.reason,
        "key_id": cp.key_id,
        "meta": cp.meta,
    }
    fields.update(changes)
    signature = key.sign(checkpoint_message(**fields)).hex()  # type: ignore[arg-type]
    return (
        fields["number"],
        fields["seq"],
        fields["hash"],
        fields["time"],
        fields["reason"],
        fields["key_id"],
        signature,
        fields["meta"],
    )


def test_a_checkpoint_signed_with_another_key_is_found(
    closed_log: Path, public_key: Ed25519PublicKey
) -> None:
    """A checkpoint appended by someone with another key (the triggers allow a next
    checkpoint) names that key; one that claims our key id but is signed with another does
    not verify. Both are reported at their seq."""
    with EventLogReader.open(closed_log) as reader:
        last = reader.checkpoints()[-1]
    intruder = Ed25519PrivateKey.generate()
    conn = raw(closed_log)
    conn.execute(
        "INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        _forge(last, intruder, number=last.number + 1, key_id=key_id(intruder), seq=50,
               hash=conn.execute("SELECT hash FROM events WHERE seq = 50").fetchone()[0]),
    )  # fmt: skip
    conn.execute(
        "INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        _forge(last, intruder, number=last.number + 2),
    )
    report = _verify(closed_log, public_key)
    assert [p.seq for p in report.problems] == [50, 100]
    assert f"signed by key {key_id(intruder)}" in report.problems[0].reason
    assert "does not verify" in report.problems[1].reason
    assert report.valid_checkpoints == 11


def test_verifying_with_the_wrong_public_key_fails_every_checkpoint(
    closed_log: Path,
) -> None:
    """The investigator's key must be the log's: with another one no checkpoint counts."""
    other = Ed25519PrivateKey.generate().public_key()
    report = _verify(closed_log, other)
    assert report.problem_count == 11
    assert report.first_bad_seq == 10
    assert report.valid_checkpoints == 0 and report.unproven_events == 100


def test_a_deleted_checkpoint_shows_as_a_gap_in_numbers(
    closed_log: Path, public_key: Ed25519PublicKey
) -> None:
    """Removing checkpoint #5 (seq 50) from the middle leaves a gap in the signed numbers."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("DELETE FROM checkpoints WHERE number = 5")
    report = _verify(closed_log, public_key)
    assert report.first_bad_seq == 60
    assert "checkpoint number 5 is missing" in (report.reason or "")


def test_an_altered_checkpoint_does_not_verify(
    closed_log: Path, public_key: Ed25519PublicKey, signing_key: Ed25519PrivateKey
) -> None:
    """A checkpoint whose reason was edited no longer verifies; the writer refuses to open a
    log whose newest checkpoint was altered."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("UPDATE checkpoints SET reason = 'round-close' WHERE reason = 'shutdown'")
    report = _verify(closed_log, public_key)
    assert report.first_bad_seq == 100
    assert "does not verify" in (report.reason or "")
    with pytest.raises(ChainBroken, match="does not verify") as broken:
        EventLog.create_or_open(closed_log, signing_key, FakeClock())
    assert broken.value.seq == 100


def test_a_non_canonical_body_is_found_even_when_rehashed(
    closed_log: Path, public_key: Ed25519PublicKey
) -> None:
    """A body rewritten as equivalent but non-canonical JSON, hashes recomputed over the new
    text: independent verifiers hash the canonical form, so this is reported at its seq."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("UPDATE events SET body = replace(body, ',', ', ') WHERE seq = 100")
    _rehash_from(conn, 100)
    report = _verify(closed_log, public_key)
    assert report.first_bad_seq == 100
    assert any("not the canonical JSON" in p.reason for p in report.problems)


def test_the_writer_refuses_a_log_whose_tail_does_not_chain(
    closed_log: Path, signing_key: Ed25519PrivateKey
) -> None:
    """Opening for writing recomputes the last events: an edited row among them is named."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("UPDATE events SET round_id = 99 WHERE seq = 93")
    with pytest.raises(ChainBroken, match="event 93") as broken:
        EventLog.create_or_open(closed_log, signing_key, FakeClock())
    assert broken.value.seq == 93


def test_the_writer_refuses_a_log_with_a_hole_in_its_tail(
    closed_log: Path, signing_key: Ed25519PrivateKey
) -> None:
    """A deleted row among the last events is named when the writer opens the log."""
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("DELETE FROM events WHERE seq = 90")
    with pytest.raises(ChainBroken, match="event 90 is missing"):
        EventLog.create_or_open(closed_log, signing_key, FakeClock())


def test_the_hash_definition_is_what_the_module_documents(closed_log: Path) -> None:
    """Recomputing row 1 from scratch, as an independent verifier would, gives its hash."""
    with EventLogReader.open(closed_log) as reader:
        first = reader.event(1)
    assert first is not None
    entry = (
        '{"body":' + first.body_json + ',"kind":"card_dealt","round":1,"seq":1,"table":"T1",'
        '"terminal":null,"time":"' + first.time + '"}'
    )
    assert first.hash == hashlib.sha256(bytes(32) + entry.encode("utf-8")).hexdigest()


def test_the_lowest_problems_are_kept_when_there_are_too_many(
    closed_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With more problems than the report lists, every one is counted and the listed ones
    are those with the lowest seqs (so first_bad_seq stays right)."""
    from game_server.eventlog import verify as verify_module

    monkeypatch.setattr(verify_module, "MAX_PROBLEMS", 3)
    conn = raw(closed_log)
    drop_triggers(conn)
    conn.execute("UPDATE events SET terminal = 'x' WHERE seq = 2")
    other = Ed25519PrivateKey.generate().public_key()  # all 11 checkpoints fail too
    report = _verify(closed_log, other)
    assert report.problem_count == 12
    assert [p.seq for p in report.problems] == [2, 10, 20]
    assert report.first_bad_seq == 2
