"""``etg verify`` against the attacks that used to pass it (issue [hardening]): a log cut back
to a round-close checkpoint (found only with the anchor stream), an index rebuilt so that a
terminal's recall misses a round (found by the full integrity_check), and the meta and
migrations tables edited (found by the checkpoints' signature over them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from verify_helpers import copy_log, drop_triggers, make_keys, make_log, raw, restore_triggers

from tools.recall_cli import recall
from tools.verify_cli import verify

#: Enough rounds to cut 50 of them off and keep some.
ROUNDS = 60


@pytest.fixture(scope="module")
def anchored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A clean log of 60 one-seat rounds, its keys and its anchor stream."""
    directory = tmp_path_factory.mktemp("anchored")
    certs = make_keys(directory / "certs")
    db = make_log(directory, certs, rounds=ROUNDS, seats=1)
    return db, certs, directory / "anchors.jsonl"


def verify_cli(*args: str | Path) -> Result:
    return CliRunner().invoke(verify, [str(a) for a in args])


def cut_back(db: Path, rounds: int) -> tuple[int, int]:
    """Remove the last ``rounds`` rounds the way the attack did: drop the triggers, delete
    every event after the round-close checkpoint ``rounds`` closes back, and every later
    checkpoint, then recreate the triggers. Returns (the checkpoint kept, seq the log ends)."""
    conn = raw(db)
    drop_triggers(conn)
    closes = [
        (number, seq)
        for number, seq in conn.execute(
            "SELECT number, seq FROM checkpoints WHERE reason = 'round-close' ORDER BY number"
        )
    ]
    number, seq = closes[-1 - rounds]
    conn.execute("DELETE FROM events WHERE seq > ?", (seq,))
    conn.execute("DELETE FROM checkpoints WHERE number > ?", (number,))
    restore_triggers(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return number, seq


@pytest.mark.parametrize("rounds", [1, 50])
def test_a_log_cut_back_to_a_checkpoint_fails_only_against_its_anchors(
    anchored: tuple[Path, Path, Path], tmp_path: Path, rounds: int
) -> None:
    """The attack: the last 1 (or 50) rounds removed with their checkpoints. Alone the cut
    log verifies (exit 0, with the warning that a cut-back tail cannot be detected); with
    --anchors it fails (exit 1), naming the first anchored checkpoint the log lacks."""
    db, certs, anchors = anchored
    copy = copy_log(db, tmp_path / "cut.db")
    kept, ends = cut_back(copy, rounds)
    alone = verify_cli(copy, "--key", certs)
    assert alone.exit_code == 0, alone.output
    assert "none given: a cut-back tail cannot be detected" in alone.output
    result = verify_cli(copy, "--key", certs, "--anchors", anchors, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    first = report["first_failure"]
    assert first["check"] == "anchors" and first["seq"] == ends + 1
    assert f"truncated: anchored checkpoint #{kept + 1} " in first["reason"]
    lacking = [f["reason"] for f in report["failures"] if "lacks" in f["reason"]]
    assert len(lacking) == rounds + 1  # the round closes cut off, and the shutdown
    assert f"lacks anchored checkpoint #{kept + 1} " in lacking[0]
    human = verify_cli(copy, "--key", certs, "--anchors", anchors)
    assert human.exit_code == 1 and "FAILED" in human.output
    assert f"anchored checkpoint #{kept + 1}" in human.output


def test_an_anchor_stream_that_is_not_there_is_unusable_input(
    anchored: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """--anchors naming no file is refused (exit 2), never taken as "no anchors"."""
    db, certs, _ = anchored
    result = verify_cli(db, "--key", certs, "--anchors", tmp_path / "missing.jsonl")
    assert result.exit_code == 2
    assert "no anchor stream at" in result.output


def _relabel_index(db: Path, round_id: int, terminal: str) -> None:
    """Rebuild the terminal index as if one round's events were another terminal's, leaving
    every row of the table (and so the chain) as it was: the index's definition is swapped
    for an expression while it is rebuilt, then put back."""
    conn = raw(db)
    (original,) = conn.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'events_terminal'"
    ).fetchone()
    fake = (
        "CREATE INDEX events_terminal ON events (CASE WHEN round_id = "
        f"{round_id} AND terminal IS NOT NULL THEN '{terminal}' ELSE terminal END, time)"
    )
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events_terminal'", (fake,))
    conn.close()
    conn = raw(db)
    conn.execute("REINDEX events_terminal")
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events_terminal'", (original,))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def test_an_index_relabelling_a_round_hides_it_from_recall_and_fails_verify(
    anchored: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The index attack: the terminal index rebuilt with round 5 labelled T9. Every row still
    chains, but `etg recall list --terminal T1` no longer lists round 5; the full
    integrity_check of `etg verify` finds the index out of step with its table."""
    db, certs, anchors = anchored
    copy = copy_log(db, tmp_path / "index.db")

    def rounds_of(path: Path) -> list[int]:
        listed = CliRunner().invoke(
            recall, ["list", str(path), "--terminal", "T1", "--last", "100", "--json"]
        )
        assert listed.exit_code == 0, listed.output
        return sorted(row["round"] for row in json.loads(listed.stdout))

    assert 5 in rounds_of(copy)
    _relabel_index(copy, 5, "T9")
    assert 5 not in rounds_of(copy)  # the hole: recall silently misses the round
    result = verify_cli(copy, "--key", certs, "--anchors", anchors, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["first_failure"]["check"] == "file"
    assert "events_terminal" in report["first_failure"]["reason"]
    human = verify_cli(copy, "--key", certs, "--anchors", anchors)
    assert "of which integrity_check" in human.output


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE meta SET value = '2019-06-01T00:00:00.000000Z' WHERE key = 'created_at'",
        "UPDATE meta SET value = 'table' WHERE key = 'log_kind'",
        "DELETE FROM migrations WHERE name = '0004-checkpoint-meta'",
    ],
)
def test_an_edit_of_meta_or_migrations_fails_verify(
    anchored: tuple[Path, Path, Path], tmp_path: Path, edit: str
) -> None:
    """The meta and migrations tables are under the signature: an edit of either (triggers
    dropped first and put back) fails the meta check at the newest checkpoint's seq."""
    db, certs, anchors = anchored
    copy = copy_log(db, tmp_path / "meta.db")
    conn = raw(copy)
    drop_triggers(conn)
    conn.execute(edit)
    restore_triggers(conn)
    conn.close()
    result = verify_cli(copy, "--key", certs, "--anchors", anchors, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [f["check"] for f in report["failures"]] == ["meta"]
    assert "differs from what checkpoint" in report["failures"][0]["reason"]
