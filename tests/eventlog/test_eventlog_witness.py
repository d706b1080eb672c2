"""What an attack on a copy of the log found, and what now finds it (issue [hardening]):
a log cut back to a checkpoint (the anchor stream), edited ``meta`` and ``migrations`` (signed
by every checkpoint), a byte corrupted in the middle (proven whole at open), a world-readable
file (0600), and a simulation written into a table's log (the log's kind)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from eventlog_helpers import FakeClock, drop_triggers, fill, raw

from game_server.eventlog import (
    SIMULATION_LOG,
    TRIGGERS,
    AnchorFile,
    AnchorStreamDamaged,
    AnchorWriteFailed,
    ChainBroken,
    EventLog,
    EventLogReader,
    LogKindMismatch,
    check_anchors,
    verify_chain,
)


def cut_back(db: Path, to_checkpoint: int) -> int:
    """What a hostile insider does to hide the last rounds: drop the triggers, delete every
    event after checkpoint ``to_checkpoint`` and every later checkpoint, recreate the
    triggers. Returns the seq the log now ends at."""
    conn = raw(db)
    drop_triggers(conn)
    (seq,) = conn.execute(
        "SELECT seq FROM checkpoints WHERE number = ?", (to_checkpoint,)
    ).fetchone()
    conn.execute("DELETE FROM events WHERE seq > ?", (seq,))
    conn.execute("DELETE FROM checkpoints WHERE number > ?", (to_checkpoint,))
    for sql in TRIGGERS.values():
        conn.execute(sql)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return int(seq)


def anchored_log(
    open_log: Callable[..., EventLog], tmp_path: Path, rounds: int = 60
) -> tuple[Path, AnchorFile]:
    anchors = AnchorFile(tmp_path / "anchors.jsonl")
    log = open_log(anchors=anchors)
    fill(log, rounds)
    log.close()
    anchors.close()
    return tmp_path / "anchors.jsonl", anchors


@pytest.mark.parametrize("removed", [1, 50])
def test_a_log_cut_back_to_a_checkpoint_is_refused_with_anchors(
    open_log: Callable[..., EventLog],
    db_path: Path,
    tmp_path: Path,
    public_key: Ed25519PublicKey,
    removed: int,
) -> None:
    """Without anchors a log cut back to a round-close checkpoint still verifies (the hole
    the attack found); with the anchor stream the writer refuses it at open, naming the first
    anchored checkpoint it lacks, and verify_chain fails naming the truncation."""
    _, anchors = anchored_log(open_log, tmp_path)
    with EventLogReader.open(db_path) as reader:
        total = reader.checkpoints()[-1].number  # 60 round closes + the shutdown
    keep = total - 1 - removed
    ends = cut_back(db_path, keep)
    with EventLogReader.open(db_path) as reader:
        assert verify_chain(reader, public_key).ok  # the hole, without a witness
        report = verify_chain(reader, public_key, anchors=anchors.anchors(reader.log_id))
        lacking = check_anchors(anchors.anchors(reader.log_id), reader.checkpoints())
    assert not report.ok
    assert report.first_bad_seq == ends + 1
    assert "truncated" in (report.reason or "")
    assert [a.number for a, _ in lacking] == list(range(keep + 1, total + 1))
    with pytest.raises(ChainBroken, match=f"lacks anchored checkpoint #{keep + 1} "):
        open_log(anchors=anchors)


def test_a_cut_back_log_written_again_contradicts_its_anchors(
    open_log: Callable[..., EventLog], db_path: Path, tmp_path: Path
) -> None:
    """A log cut back and then appended to again (by a server given no anchors) holds
    checkpoints with the anchored numbers but other content: refused, naming the first."""
    _, anchors = anchored_log(open_log, tmp_path, rounds=10)
    cut_back(db_path, 5)
    log = open_log()  # no witness: the cut is not seen
    fill(log, 3, first_round=6)
    log.close()
    with pytest.raises(ChainBroken, match=r"checkpoint #6 .* contradicts anchored checkpoint #6"):
        open_log(anchors=anchors)


def test_every_checkpoint_is_anchored_as_it_is_made_and_missed_ones_caught_up(
    open_log: Callable[..., EventLog], db_path: Path, tmp_path: Path
) -> None:
    """Each checkpoint reaches the anchor stream after its commit; checkpoints the stream
    missed (a crash between the two) are published when the log is next opened, in order."""
    path = tmp_path / "anchors.jsonl"
    anchors = AnchorFile(path)
    log = open_log(anchors=anchors)
    fill(log, 4)
    with EventLogReader.open(db_path) as reader:
        assert anchors.anchors(log.log_id) == reader.checkpoints()
    log.close(checkpoint=False)
    anchors.close()
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]) + lines[2][:30])  # 2 whole lines, a third cut short
    anchors = AnchorFile(path)
    assert [cp.number for cp in anchors.anchors(log.log_id)] == [1, 2]
    reopened = open_log(anchors=anchors)
    with EventLogReader.open(db_path) as reader:
        assert anchors.anchors(reopened.log_id) == reader.checkpoints()


def test_a_damaged_anchor_line_is_refused_not_skipped(tmp_path: Path) -> None:
    """A complete line of the anchor stream that is not a checkpoint means the stream was
    edited: reading it is refused with the line number."""
    path = tmp_path / "anchors.jsonl"
    path.write_text('{"number": 1}\n')
    with pytest.raises(AnchorStreamDamaged, match="line 1 of the anchor stream"):
        AnchorFile(path).read()


def test_an_anchor_stream_that_cannot_be_written_is_an_error_after_the_commit(
    open_log: Callable[..., EventLog], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the anchor stream's disk is full the append raises AnchorWriteFailed, but the
    step is in the log (it was committed first); the next open catches the stream up."""
    path = tmp_path / "anchors.jsonl"
    log = open_log(anchors=AnchorFile(path))
    fill(log, 1)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("game_server.eventlog.anchors.os.fdatasync", full)
    with pytest.raises(AnchorWriteFailed, match=r"is in the log .* No space left"):
        fill(log, 1, first_round=2)
    monkeypatch.undo()
    assert log.head.seq == 20
    log.close(checkpoint=False)
    reopened = open_log(anchors=AnchorFile(path))
    assert [cp.number for cp in AnchorFile(path).anchors(reopened.log_id)] == [1, 2]


def test_checkpoints_published_together_take_one_sync_and_a_refusal_names_them_all(
    open_log: Callable[..., EventLog],
    db_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``publish_all`` (a commit's checkpoints, or the ones a stream missed) appends a line
    for each, in order, and syncs the stream once; when the sync fails, the error names the
    range of checkpoints the stream may lack."""
    log = open_log()
    fill(log, 4)
    log.close(checkpoint=False)
    with EventLogReader.open(db_path) as reader:
        held = reader.checkpoints()
    assert len(held) >= 3
    syncs: list[int] = []
    real_sync = os.fdatasync
    monkeypatch.setattr(
        "game_server.eventlog.anchors.os.fdatasync", lambda fd: syncs.append(fd) or real_sync(fd)
    )
    anchors = AnchorFile(tmp_path / "anchors.jsonl")
    anchors.publish_all(held[:1])
    anchors.publish_all(held[1:])
    anchors.publish_all([])
    assert len(syncs) == 2
    assert anchors.anchors(log.log_id) == held

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("game_server.eventlog.anchors.os.fdatasync", full)
    first, last = held[1], held[-1]
    with pytest.raises(
        AnchorWriteFailed,
        match=rf"^checkpoints #{first.number}-#{last.number} \(seq {first.seq}-{last.seq}\) "
        r"are in the log .* No space left",
    ):
        AnchorFile(tmp_path / "other.jsonl").publish_all(held[1:])


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE meta SET value = '2020-01-01T00:00:00.000000Z' WHERE key = 'created_at'",
        "INSERT INTO meta VALUES ('note', 'added by hand')",
        "UPDATE migrations SET applied_at = '2020-01-01T00:00:00.000000Z' "
        "WHERE name = '0001-events'",
    ],
)
def test_an_edit_of_meta_or_migrations_is_refused_by_the_writer(
    open_log: Callable[..., EventLog], db_path: Path, edit: str
) -> None:
    """The meta and migrations tables are signed by every checkpoint: an edit (triggers
    dropped first) is refused when the log is opened for writing."""
    fill(open_log(), 2)
    conn = raw(db_path)
    drop_triggers(conn)
    conn.execute(edit)
    conn.close()
    with pytest.raises(ChainBroken, match="meta or migrations table differs"):
        open_log()


def test_a_corrupted_byte_in_the_middle_is_found_at_open(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """Opening a log recomputes its whole chain (no anchors: from the first event), so a row
    changed in the middle of a long log is refused with its seq, not written on top of."""
    fill(open_log(), 300)  # 3,000 events, far more than the 1,000 once checked
    conn = raw(db_path)
    drop_triggers(conn)
    conn.execute("UPDATE events SET body = replace(body, 'AS', 'KS') WHERE seq = 1234")
    for sql in TRIGGERS.values():
        conn.execute(sql)
    conn.close()
    with pytest.raises(ChainBroken, match="from seq 1234") as refused:
        open_log()
    assert refused.value.seq == 1234


def test_with_anchors_the_open_proves_only_what_follows_the_last_anchor(
    open_log: Callable[..., EventLog], db_path: Path, tmp_path: Path
) -> None:
    """With an anchor stream the open starts from the last anchored checkpoint (which must
    match the log's hash at its seq): a change after it is refused at its seq."""
    _, anchors = anchored_log(open_log, tmp_path, rounds=5)
    log = open_log(anchors=anchors)
    fill(log, 3, first_round=6, checkpoint_every=0)  # 30 events after the last anchor
    log.close(checkpoint=False)
    conn = raw(db_path)
    drop_triggers(conn)
    conn.execute("UPDATE events SET body = replace(body, 'AS', 'KS') WHERE seq = 70")
    conn.close()
    with pytest.raises(ChainBroken, match="from seq 70"):
        open_log(anchors=anchors)


def test_a_new_log_and_its_wal_are_readable_by_the_owner_only(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """The game history is not world-readable: the database and its -wal file are 0600."""
    log = open_log()
    fill(log, 1)
    for path in (db_path, Path(f"{db_path}-wal")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    log.close()


def test_a_simulation_never_writes_to_a_tables_log_nor_a_table_to_a_simulations(
    tmp_path: Path, signing_key: Ed25519PrivateKey, db_path: Path
) -> None:
    """The log records which kind of writer created it: a simulation refuses a table's log
    and a table server refuses a simulation's, with nothing written."""
    EventLog.create_or_open(db_path, signing_key, FakeClock()).close()
    before = db_path.read_bytes()
    with pytest.raises(LogKindMismatch, match="table server's log"):
        EventLog.create_or_open(db_path, signing_key, FakeClock(), kind=SIMULATION_LOG)
    assert db_path.read_bytes() == before
    sim = tmp_path / "sim.db"
    EventLog.create_or_open(sim, signing_key, FakeClock(), kind=SIMULATION_LOG).close()
    with pytest.raises(LogKindMismatch, match="log of a simulation"):
        EventLog.create_or_open(sim, signing_key, FakeClock())
    with EventLogReader.open(sim) as reader:
        assert reader.meta()["log_kind"] == "simulation"
