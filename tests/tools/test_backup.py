"""``etg backup`` and ``etg restore`` (:mod:`tools.backup`): consistent copies of a log
while its writer appends, proven against the key and the anchors; failures kept and
reported; restores that prove again, compare the anchor stream with what backup.json
records (refusing one cut or changed since), and never overwrite."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from game_server.config import example_config_path
from game_server.eventlog import AnchorFile, EventLog, EventLogReader, system_clock
from game_server.keys import init_keys
from tools.backup import (
    ANCHORS,
    FAILED,
    LOCK,
    MANIFEST,
    BackupError,
    backups,
    latest_backup,
    restore_backup,
    take_backup,
)
from tools.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def keys(tmp_path: Path) -> Path:
    folder = tmp_path / "certs"
    init_keys(folder)
    return folder


def _sim(folder: Path, keys: Path, rounds: int) -> subprocess.Popen[str]:
    """``etg sim --log`` writing a real table log (every step synced) and its anchors."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "tools", "sim", "--config", str(example_config_path())),
            *("--rounds", str(rounds), "--seats", "7", "--log", str(folder / "table.db")),
            *("--anchors", str(folder / "anchors.jsonl"), "--certs", str(keys), "--json"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture()
def logged(tmp_path: Path, keys: Path) -> Path:
    """A finished logged simulation of 30 rounds: ``table.db`` and ``anchors.jsonl``."""
    process = _sim(tmp_path, keys, 30)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return tmp_path


@pytest.mark.slow
def test_backups_taken_while_the_log_is_written_are_consistent_and_proven(
    tmp_path: Path, keys: Path
) -> None:
    """While ``etg sim --log`` appends (synced steps, a checkpoint and an anchor each
    round), backups are taken one after another: every copy is proven (the chain, every
    checkpoint, every anchor copied, every round replayed), holds the anchors it was
    proven with, and is private; at least two were taken mid-write (behind the final log)."""
    process = _sim(tmp_path, keys, 600)
    dest = tmp_path / "backups"
    taken = []
    try:
        while not (tmp_path / "anchors.jsonl").exists() and process.poll() is None:
            time.sleep(0.05)
        while process.poll() is None:
            made = take_backup(
                tmp_path / "table.db", dest, key=keys, anchors=tmp_path / "anchors.jsonl"
            )
            assert made.ok, made.manifest["verify"]
            taken.append(made)
    finally:
        _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    with EventLogReader.open(tmp_path / "table.db") as reader:
        final = reader.max_seq()
    behind = [b for b in taken if b.manifest["last_seq"] < final]
    assert len(behind) >= 2, [b.manifest["last_seq"] for b in taken]
    for made in taken:
        m = made.manifest
        assert m["verify"]["anchored_checkpoints"] == m["anchors"]["lines"] > 0
        assert m["last_checkpoint"]["seq"] <= m["last_seq"]
        assert stat.S_IMODE(made.folder.stat().st_mode) == 0o700
        for name in ("table.db", ANCHORS, MANIFEST):
            assert stat.S_IMODE((made.folder / name).stat().st_mode) == 0o600
        assert not (made.folder / "table.db-wal").exists()  # proven immutable, untouched
    assert [b.folder for b in backups(dest)] == [b.folder for b in taken]


def test_the_command_prints_the_proof_and_json(logged: Path, keys: Path) -> None:
    """``etg backup`` prints the copy, the proof and the folder, exit 0; ``--json`` prints
    backup.json with the folder."""
    runner = CliRunner()
    args = ["backup", str(logged / "table.db"), str(logged / "b"), "--key", str(keys)]
    args += ["--anchors", str(logged / "anchors.jsonl")]
    done = runner.invoke(main, args)
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith(f"copied {logged / 'table.db'} (")
    assert "VERIFIED" in lines[1] and "anchored checkpoints checked" in lines[1]
    assert lines[2].startswith(f"wrote {logged / 'b' / 'table-'}")
    shown = runner.invoke(main, [*args, "--json"])
    assert shown.exit_code == 0
    manifest = json.loads(shown.output)
    assert manifest["verified"] is True and Path(manifest["folder"]).is_dir()
    assert manifest["sha256"] and manifest["etg"].startswith("etg ")


def test_a_copy_that_fails_its_proof_is_kept_apart_and_exits_1(logged: Path, keys: Path) -> None:
    """An anchor stream that contradicts the log (a checkpoint's hash changed): the copy
    fails its proof, is kept as <name>.FAILED, exit 1 naming the anchor; --keep never
    removes it, and the newest backup is the failed one (etg status reports it)."""
    anchors = logged / "anchors.jsonl"
    lines = anchors.read_text().splitlines()
    last = json.loads(lines[-1])
    last["hash"] = "0" * 64
    edited = logged / "edited.jsonl"
    edited.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")
    runner = CliRunner()
    dest = logged / "b"
    args = ["backup", str(logged / "table.db"), str(dest), "--key", str(keys), "--keep", "1"]
    failed = runner.invoke(main, [*args, "--anchors", str(edited)])
    assert failed.exit_code == 1, failed.output
    assert "FAILED" in failed.output and "contradicts anchored checkpoint" in failed.output
    [kept] = [p for p in dest.iterdir() if p.name.endswith(FAILED)]
    assert latest_backup(dest, "table") is not None
    assert not latest_backup(dest, "table").ok  # type: ignore[union-attr]
    for _ in range(2):
        assert runner.invoke(main, [*args, "--anchors", str(anchors)]).exit_code == 0
    names = sorted(p.name for p in dest.iterdir() if not p.name.startswith("."))
    assert len(names) == 2 and kept.name in names  # one proven kept, the failed one too


def test_unusable_input_is_refused_before_anything_is_written(
    logged: Path, keys: Path, tmp_path: Path
) -> None:
    """No log, a file that is not a log, a missing key, a missing anchor stream for a log
    with checkpoints: exit 2 with a sentence, no backup folder made."""
    runner = CliRunner()
    dest = tmp_path / "never"
    not_a_log = tmp_path / "x.db"
    not_a_log.write_bytes(b"not sqlite" * 20)
    cases = [
        (["backup", str(tmp_path / "none.db"), str(dest), "--key", str(keys)], "no event log"),
        (["backup", str(not_a_log), str(dest), "--key", str(keys)], "not an ETG event log"),
        (
            ["backup", str(logged / "table.db"), str(dest), "--key", str(tmp_path / "no.pub")],
            "log-signing public key",
        ),
        (
            [
                *("backup", str(logged / "table.db"), str(dest), "--key", str(keys)),
                *("--anchors", str(tmp_path / "missing.jsonl")),
            ],
            "there is no anchor stream",
        ),
    ]
    for args, words in cases:
        done = runner.invoke(main, args)
        assert done.exit_code == 2, done.output
        assert words in done.output
    assert not dest.exists()


def test_a_log_without_checkpoints_is_backed_up_before_its_anchor_stream_exists(
    tmp_path: Path, keys: Path
) -> None:
    """A server makes its anchor stream with the first checkpoint: before it, the backup
    copies an empty stream and proves the copy."""
    log = EventLog.create_or_open(tmp_path / "t.db", keys, system_clock)
    log.close(checkpoint=False)
    made = take_backup(tmp_path / "t.db", tmp_path / "b", key=keys, anchors=tmp_path / "a.jsonl")
    assert made.ok and made.manifest["anchors"]["lines"] == 0
    assert (made.folder / ANCHORS).read_bytes() == b""


def test_one_backup_at_a_time_per_folder(logged: Path, keys: Path) -> None:
    """A second backup into a folder whose lock is held is refused at once."""
    dest = logged / "b"
    dest.mkdir()
    fd = os.open(dest / LOCK, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(BackupError, match="another backup is running"):
            take_backup(logged / "table.db", dest, key=keys)
    finally:
        os.close(fd)
    assert take_backup(logged / "table.db", dest, key=keys).ok


def test_a_restore_proves_the_backup_again_and_never_overwrites(
    logged: Path, keys: Path, tmp_path: Path
) -> None:
    """The restored log and anchors are the backup's bytes, mode 0600; a target that exists,
    a backup without the --anchors it needs, a failed backup and a copy changed since are
    refused; ``etg restore`` says what it restored and how to start the server."""
    made = take_backup(
        logged / "table.db", logged / "b", key=keys, anchors=logged / "anchors.jsonl"
    )
    target = tmp_path / "restored"
    done = restore_backup(
        made.folder, target / "table.db", key=keys, anchors=target / "anchors.jsonl"
    )
    assert done.report.ok
    assert (target / "table.db").read_bytes() == (made.folder / "table.db").read_bytes()
    assert (target / "anchors.jsonl").read_bytes() == (made.folder / ANCHORS).read_bytes()
    assert stat.S_IMODE((target / "table.db").stat().st_mode) == 0o600
    with pytest.raises(BackupError, match="refusing to overwrite"):
        restore_backup(made.folder, target / "table.db", key=keys, anchors=tmp_path / "a2")
    with pytest.raises(BackupError, match="give --anchors exactly when it has one"):
        restore_backup(made.folder, tmp_path / "other.db", key=keys)
    runner = CliRunner()
    shown = runner.invoke(
        main,
        [
            *("restore", str(made.folder), "--db", str(tmp_path / "c" / "t.db")),
            *("--key", str(keys), "--anchors", str(tmp_path / "c" / "a.jsonl")),
        ],
    )
    assert shown.exit_code == 0, shown.output
    assert f"start the server with --db {tmp_path / 'c' / 't.db'} --anchors" in shown.output
    with (made.folder / "table.db").open("r+b") as copy:
        copy.seek(4096 * 3)
        copy.write(b"\x00" * 16)
    refused = runner.invoke(
        main,
        [
            *("restore", str(made.folder), "--db", str(tmp_path / "d.db")),
            *("--key", str(keys), "--anchors", str(tmp_path / "d.jsonl")),
        ],
    )
    assert refused.exit_code == 2 and "does not match the checksum" in refused.output
    assert not (tmp_path / "d.db").exists()
    failed = made.folder.with_name(made.folder.name + FAILED)
    made.folder.rename(failed)
    manifest = json.loads((failed / MANIFEST).read_text())
    manifest["verified"] = False
    (failed / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(BackupError, match="failed its proof when it was taken"):
        restore_backup(failed, tmp_path / "e.db", key=keys, anchors=tmp_path / "e.jsonl")
    with pytest.raises(BackupError, match="not a backup made by etg backup"):
        restore_backup(tmp_path, tmp_path / "f.db", key=keys)


# -- the anchor stream against backup.json --------------------------------------------------


def _etg(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The real ``etg`` command, a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "tools", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture()
def taken(logged: Path, keys: Path) -> Path:
    """A backup of the logged simulation with its anchor stream, by ``etg backup``."""
    done = _etg(
        *("backup", logged / "table.db", logged / "b", "--key", keys),
        *("--anchors", logged / "anchors.jsonl", "--json"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Path(json.loads(done.stdout)["folder"])


def test_backup_json_records_the_anchor_streams_lines_checksum_and_last_checkpoint(
    taken: Path,
) -> None:
    """backup.json records the copied stream's lines, bytes, SHA-256 and the last anchored
    checkpoint of the log (number, seq, hash), as the copy holds them."""
    manifest = json.loads((taken / MANIFEST).read_text())
    data = (taken / ANCHORS).read_bytes()
    recorded = manifest["anchors"]
    last = AnchorFile(taken / ANCHORS).anchors(manifest["log_id"])[-1]
    assert recorded["lines"] == data.count(b"\n") >= 5
    assert recorded["bytes"] == len(data)
    assert recorded["sha256"] == hashlib.sha256(data).hexdigest()
    assert recorded["last_checkpoint"] == {
        "number": last.number,
        "seq": last.seq,
        "hash": last.hash,
    }


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _cut_to_one_line(path: Path) -> None:
    path.write_bytes(_lines(path)[0])


def _emptied(path: Path) -> None:
    path.write_bytes(b"")


def _removed(path: Path) -> None:
    path.unlink()


def _last_line_replaced_by_the_first(path: Path) -> None:
    lines = _lines(path)
    path.write_bytes(b"".join([*lines[:-1], lines[0]]))


def _one_line_added(path: Path) -> None:
    path.write_bytes(path.read_bytes() + _lines(path)[0])


def _a_byte_changed(path: Path) -> None:
    """A space in the last line (json reads the same checkpoint; the bytes differ)."""
    lines = _lines(path)
    path.write_bytes(b"".join([*lines[:-1], lines[-1].replace(b":", b": ", 1)]))


CUTS = {
    "cut to one line": (_cut_to_one_line, "holds 1 line(s), but backup.json records"),
    "emptied": (_emptied, "holds 0 line(s), but backup.json records"),
    "removed": (_removed, "is missing, but backup.json records an anchor stream"),
    "one line added": (_one_line_added, "line(s), but backup.json records"),
    "the last line replaced by the first": (
        _last_line_replaced_by_the_first,
        "but backup.json records #",
    ),
    "a byte changed": (_a_byte_changed, "does not match the checksum in backup.json"),
}


@pytest.mark.parametrize("what", sorted(CUTS))
def test_a_restore_refuses_an_anchor_stream_cut_or_changed_since_the_backup(
    taken: Path, keys: Path, tmp_path: Path, what: str
) -> None:
    """``etg restore`` of a backup whose anchors.jsonl is not what backup.json records
    (shorter, longer, missing, a line replaced, a byte changed) exits 2 with a sentence
    and restores nothing; the backup as taken restores."""
    change, sentence = CUTS[what]
    broken = tmp_path / "broken"
    shutil.copytree(taken, broken)
    change(broken / ANCHORS)
    target = tmp_path / "restored"
    args = ["--db", target / "table.db", "--anchors", target / "anchors.jsonl", "--key", keys]
    refused = _etg("restore", broken, *args)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "Traceback" not in refused.stderr
    assert sentence in refused.stderr and "restore another backup" in refused.stderr
    assert not target.exists()
    done = _etg("restore", taken, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "lines, as backup.json records" in done.stdout and "note:" not in done.stdout


def test_an_older_backup_json_is_checked_by_its_lines_and_says_so(
    taken: Path, keys: Path, tmp_path: Path
) -> None:
    """A backup taken before backup.json recorded the stream's checksum and last
    checkpoint (its line count only): a stream cut short is refused, and one as taken
    restores with a note saying what could not be compared."""
    manifest = json.loads((taken / MANIFEST).read_text())
    anchors = manifest["anchors"]
    manifest["anchors"] = {"source": anchors["source"], "lines": anchors["lines"]}
    (taken / MANIFEST).write_text(json.dumps(manifest, indent=2))
    cut = tmp_path / "cut"
    shutil.copytree(taken, cut)
    _cut_to_one_line(cut / ANCHORS)
    target = tmp_path / "restored"
    args = ["--db", target / "table.db", "--anchors", target / "anchors.jsonl", "--key", keys]
    refused = _etg("restore", cut, *args)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"holds 1 line(s), but backup.json records {anchors['lines']}" in refused.stderr
    done = _etg("restore", taken, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: backup.json of this backup records only the anchor stream's" in done.stdout


def test_the_proof_counts_the_anchored_checkpoints_backup_json_records(
    taken: Path, keys: Path, tmp_path: Path
) -> None:
    """Where an older backup.json's line count was edited to agree with a cut stream, the
    backup's proof still finds fewer anchored checkpoints of the log than it recorded when
    the backup was taken, and the restore is refused."""
    manifest = json.loads((taken / MANIFEST).read_text())
    manifest["anchors"] = {"source": manifest["anchors"]["source"], "lines": 1}
    (taken / MANIFEST).write_text(json.dumps(manifest, indent=2))
    _cut_to_one_line(taken / ANCHORS)
    with pytest.raises(BackupError, match="the proof found 1 anchored checkpoint"):
        restore_backup(taken, tmp_path / "r" / "t.db", key=keys, anchors=tmp_path / "r" / "a")
    assert not (tmp_path / "r").exists()
