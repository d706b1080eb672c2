"""``etg backup DB DEST`` and ``etg restore BACKUP``: a proven copy of a live event log, and
a log put back from one.

A table's SQLite log is its authority; a copy of it somewhere else is what survives the
loss of its disk. :func:`take_backup` makes that copy while the server writes:

1. the anchor stream is copied first, whole lines only: every checkpoint in it was
   committed to the log before it was appended, so the log copied next holds all of them;
2. the log is copied with SQLite's online backup API in one step, inside one read
   transaction: a consistent state of the log, while the server (in WAL mode) keeps
   writing;
3. the copy is proven as ``etg verify COPY --evidence --anchors ANCHORS`` proves it
   (opened immutable; SQLite's full integrity check, the chain, every checkpoint against
   the log-signing key, the anchors, every shoe and round);
4. only then the folder ``DEST/<log name>-<UTC time>/`` appears (written as a hidden
   ``.partial`` folder and renamed), with the log, ``anchors.jsonl``, the log-signing public
   key and ``backup.json`` (what was copied: the log's size and SHA-256, the anchor stream's
   lines, bytes, SHA-256 and last checkpoint of the log; the seconds it took, the verdict).
   A copy that fails is kept as ``<name>.FAILED`` for investigation and the command exits 1.

``--keep N`` then removes the oldest proven backups of that log beyond N (a log only grows,
so the newest holds everything the older ones do); failed ones are never removed. One
backup runs at a time per folder (a lock file).

:func:`restore_backup` proves a backup again (:func:`prove_backup`: the log's checksum, the
anchor stream against what ``backup.json`` records, ``etg verify``) and copies its log and
anchor stream to where the server will find them, refusing to overwrite anything.
A server started there proves the log and recovers its tables; the events logged after the
backup are not in it (docs/install.md, "Restoring a log").

Entry points: :func:`take_backup`, :func:`restore_backup`, :func:`prove_backup`,
:func:`latest_backup` (for
``etg status``), and the click commands :func:`backup_command`, :func:`restore_command`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import click

from game_server.eventlog import AnchorError, AnchorFile, Checkpoint, EventLogReader
from game_server.eventlog.anchors import last_anchor
from game_server.eventlog.schema import read_only_uri
from game_server.keys import PUBLIC_KEY_FILE, load_public_key
from game_server.recall.verify import VerifyReport, verify_log
from shared.errors import ETGError

#: What every backup folder holds besides the log itself.
MANIFEST: Final = "backup.json"
ANCHORS: Final = "anchors.jsonl"
#: The suffix of a copy that failed its proof (kept, never removed by ``--keep``).
FAILED: Final = ".FAILED"
#: The lock file in DEST while a backup runs.
LOCK: Final = ".etg-backup.lock"
#: Bytes read at a time when copying or hashing a file.
CHUNK: Final = 1 << 20
#: Exit status: proven; the copy failed its proof; unusable input.
EXIT_OK, EXIT_FAILED, EXIT_UNUSABLE = 0, 1, 2


class BackupError(ETGError):
    """A backup or restore that cannot be done; the message says what to do."""


@dataclass(frozen=True)
class Backup:
    """One backup folder and what its ``backup.json`` says.

    Attributes:
        folder: ``DEST/<log name>-<time>`` (or ``...FAILED``).
        manifest: The parsed ``backup.json``.
    """

    folder: Path
    manifest: dict[str, Any]

    @property
    def ok(self) -> bool:
        """Whether the copy was proven."""
        return self.manifest.get("verified") is True

    @property
    def log(self) -> Path:
        """The copy of the log."""
        return self.folder / str(self.manifest["log_file"])

    @property
    def anchors(self) -> Path | None:
        """The copy of the anchor stream, if the backup has one."""
        return self.folder / ANCHORS if self.manifest.get("anchors") is not None else None


# --------------------------------------------------------------------------------------------
# Files


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _stamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%SZ")


def _iso(moment: dt.datetime) -> str:
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file of mode 0600 and sync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy_private(source: Path, target: Path) -> None:
    """Copy a file to a new file of mode 0600 (never overwriting) and sync it."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with source.open("rb") as src:
            while chunk := src.read(CHUNK):
                os.write(fd, chunk)
        os.fsync(fd)
    finally:
        os.close(fd)


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _public_key_file(key: Path) -> Path:
    return key / PUBLIC_KEY_FILE if key.is_dir() else key


def _whole_lines(path: Path) -> bytes:
    """The anchor stream up to its last newline (a line being appended is left out; a
    stream not made yet is empty)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise BackupError(f"cannot read the anchor stream {path}: {exc.strerror or exc}") from None
    return data[: data.rfind(b"\n") + 1]


@contextlib.contextmanager
def _locked(dest: Path) -> Iterator[None]:
    """Hold ``DEST/.etg-backup.lock`` (one backup at a time in a folder)."""
    fd = os.open(dest / LOCK, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BackupError(
                f"another backup is running into {dest} (it holds {dest / LOCK}); wait for it"
            ) from None
        yield
    finally:
        os.close(fd)


def _log_id(db: Path) -> tuple[str, bool]:
    """The log's id, and whether it has a signed checkpoint (it must be an ETG event log)."""
    with EventLogReader.open(db) as reader:
        return reader.log_id, bool(reader.checkpoints_after(0, limit=1))


# --------------------------------------------------------------------------------------------
# Backup


def _copy_log(db: Path, target: Path) -> None:
    """SQLite's online backup of ``db`` into the new file ``target``, in one step (one read
    transaction: one consistent state of the log; a WAL writer is not blocked)."""
    source = sqlite3.connect(read_only_uri(db), uri=True)
    try:
        copy = sqlite3.connect(target)
        try:
            # SQLite syncs the copy when the backup commits (never a plain open() of a
            # database file: game_server.eventlog.locks).
            copy.execute("PRAGMA synchronous = FULL")
            source.backup(copy)
        finally:
            copy.close()
    except sqlite3.Error as exc:
        raise BackupError(f"SQLite could not copy {db}: {exc}") from None
    finally:
        source.close()
    os.chmod(target, 0o600)


def prove(log: Path, key: Path, anchors: Path | None) -> VerifyReport:
    """``etg verify LOG --evidence --key KEY [--anchors ANCHORS]``: the copy opened
    immutable, every check of :func:`game_server.recall.verify.verify_log`."""
    public = load_public_key(key)
    with EventLogReader.open(log, immutable=True) as reader:
        source = None if anchors is None else AnchorFile(anchors)
        return verify_log(reader, public, anchors=source)


def _folder_name(dest: Path, stem: str, moment: dt.datetime) -> str:
    name = f"{stem}-{_stamp(moment)}"
    taken = {p.name.removesuffix(FAILED) for p in dest.iterdir()}
    number = 1
    while name in taken:
        number += 1
        name = f"{stem}-{_stamp(moment)}-{number}"
    return name


def take_backup(
    db: Path,
    dest: Path,
    *,
    key: Path,
    anchors: Path | None = None,
    keep: int | None = None,
    clock: Callable[[], dt.datetime] = _now,
) -> Backup:
    """Copy the live log ``db`` (and its anchor stream) into a new folder of ``dest`` and
    prove the copy (module doc).

    Args:
        db: The server's event log.
        dest: The backup folder (made mode 0700 if missing); on another disk or machine.
        key: The log-signing public key (file, or the certificates folder holding it).
        anchors: The server's anchor stream (``etg serve --anchors``).
        keep: Keep this many proven backups of the log, removing the oldest (None: all).
        clock: The current time (tests).

    Returns:
        The backup; ``ok`` is False when the copy failed its proof (then it is kept as
        ``<name>.FAILED``).

    Raises:
        BackupError: the log, the anchor stream, the key or DEST cannot be used.
        ETGError: the log is not an event log (its own error).
    """
    db = Path(db)
    if keep is not None and keep < 1:
        raise BackupError("--keep must keep at least 1 backup")
    load_public_key(key)  # a missing or bad key is refused before anything is copied
    log_id, checkpointed = _log_id(db)
    # The server makes its anchor stream with the log's first checkpoint: a log without
    # one has no stream yet.
    if anchors is not None and not anchors.is_file() and (anchors.exists() or checkpointed):
        raise BackupError(
            f"there is no anchor stream at {anchors}, and the log has signed checkpoints: "
            "check the path (the server's --anchors)"
        )
    try:
        dest.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"cannot make the backup folder {dest}: {exc.strerror}") from None
    with _locked(dest):
        for stale in dest.glob(f".{db.stem}-*.partial"):  # a backup that crashed
            shutil.rmtree(stale, ignore_errors=True)
        started = clock()
        name = _folder_name(dest, db.stem, started)
        partial = dest / f".{name}.partial"
        partial.mkdir(mode=0o700)
        manifest: dict[str, Any] = {
            "source": str(db.absolute()),
            "log_id": log_id,
            "log_file": db.name,
            "started": _iso(started),
        }
        begin = time.perf_counter()
        if anchors is not None:
            lines = _whole_lines(anchors)
            _write_private(partial / ANCHORS, lines)
            manifest["anchors"] = {
                "source": str(anchors.absolute()),
                "lines": lines.count(b"\n"),
                "bytes": len(lines),
                "sha256": hashlib.sha256(lines).hexdigest(),
            }
        else:
            manifest["anchors"] = None
        copy = partial / db.name
        _copy_log(db, copy)
        manifest["copy_seconds"] = round(time.perf_counter() - begin, 3)
        shutil.copyfile(_public_key_file(key), partial / PUBLIC_KEY_FILE)
        manifest["bytes"] = copy.stat().st_size
        manifest["sha256"] = sha256_file(copy)
        begin = time.perf_counter()
        report = prove(copy, key, partial / ANCHORS if anchors is not None else None)
        manifest["verify_seconds"] = round(time.perf_counter() - begin, 3)
        if anchors is not None:
            # The proof read the copy whole: its last checkpoint of this log is recorded
            # for etg restore to compare with (with the lines and the checksum).
            anchored = last_anchor(AnchorFile(partial / ANCHORS).anchors(log_id))
            manifest["anchors"]["last_checkpoint"] = _anchor_record(anchored)
        manifest["verified"] = report.ok
        manifest["verify"] = _summary(report)
        with EventLogReader.open(copy, immutable=True) as reader:
            manifest["last_seq"] = reader.max_seq()
            last = reader.checkpoints()[-1:] if report.ok else []
            manifest["last_checkpoint"] = (
                {"number": last[0].number, "seq": last[0].seq, "time": last[0].time}
                if last
                else None
            )
        manifest["finished"] = _iso(clock())
        from tools.version import version_line

        manifest["etg"] = version_line()
        _write_private(partial / MANIFEST, json.dumps(manifest, indent=2).encode() + b"\n")
        final = dest / (name if report.ok else name + FAILED)
        os.rename(partial, final)
        _fsync_dir(dest)
        made = Backup(final, manifest)
        if report.ok and keep is not None:
            _prune(dest, db.stem, keep)
    return made


def _anchor_record(checkpoint: Checkpoint | None) -> dict[str, Any] | None:
    """What ``backup.json`` records of the last anchored checkpoint of the log."""
    if checkpoint is None:
        return None
    return {"number": checkpoint.number, "seq": checkpoint.seq, "hash": checkpoint.hash}


def _summary(report: VerifyReport) -> dict[str, Any]:
    counts = report.counts
    first = report.first_failure
    return {
        "events": counts.events,
        "rounds": counts.rounds,
        "checkpoints": counts.checkpoints,
        "anchored_checkpoints": report.anchors,
        "first_failure": None
        if first is None
        else {"seq": first.seq, "check": first.check, "reason": first.reason},
        "warnings": len(report.warnings),
    }


def backups(dest: Path, stem: str | None = None) -> list[Backup]:
    """The backups in ``dest`` (of the log named ``stem``, or all), oldest first; folders
    without a readable ``backup.json`` are left out."""
    found = []
    if not dest.is_dir():
        return []
    for folder in sorted(dest.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        try:
            manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(manifest, dict) or "log_file" not in manifest:
            continue
        if stem is None or Path(str(manifest["log_file"])).stem == stem:
            found.append(Backup(folder, manifest))
    return sorted(found, key=lambda b: str(b.manifest.get("started", "")))


def latest_backup(dest: Path, stem: str | None = None) -> Backup | None:
    """The newest backup in ``dest`` (proven or not), or None."""
    found = backups(dest, stem)
    return found[-1] if found else None


def _prune(dest: Path, stem: str, keep: int) -> None:
    proven = [b for b in backups(dest, stem) if b.ok and not b.folder.name.endswith(FAILED)]
    for old in proven[: max(0, len(proven) - keep)]:
        shutil.rmtree(old.folder)


# --------------------------------------------------------------------------------------------
# Restore


@dataclass(frozen=True)
class Restored:
    """What :func:`restore_backup` wrote.

    Attributes:
        db: The restored log.
        anchors: The restored anchor stream, if any.
        backup: The backup it came from.
        report: The proof of the backup before it was copied.
        notes: What the proof could not compare (an older ``backup.json``), one sentence
            each.
    """

    db: Path
    anchors: Path | None
    backup: Backup
    report: VerifyReport
    notes: tuple[str, ...] = ()


def load_backup(folder: Path) -> Backup:
    """Read a backup folder's ``backup.json``.

    Raises:
        BackupError: it is not a backup folder made by ``etg backup``.
    """
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackupError(
            f"{folder} is not a backup made by etg backup (it has no {MANIFEST})"
        ) from None
    except (OSError, ValueError) as exc:
        raise BackupError(f"cannot read {folder / MANIFEST}: {exc}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("log_file"), str):
        raise BackupError(f"{folder / MANIFEST} is not the manifest of a backup")
    return Backup(folder, manifest)


def _anchor_lines(path: Path) -> bytes:
    """The bytes of a backup's copy of the anchor stream.

    Raises:
        BackupError: it is missing or cannot be read.
    """
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise BackupError(
            f"{path} is missing, but {MANIFEST} records an anchor stream: the backup lost it; "
            "restore another backup"
        ) from None
    except OSError as exc:
        raise BackupError(f"cannot read {path}: {exc.strerror or exc}") from None


def _named(record: Any) -> str:
    """``#5 (seq 120)`` of a recorded checkpoint, or ``none``."""
    if not isinstance(record, dict):
        return "none"
    return f"#{record.get('number')} (seq {record.get('seq')})"


def check_anchor_copy(backup: Backup) -> tuple[str, ...]:
    """Compare the backup's ``anchors.jsonl`` with what its ``backup.json`` records: the
    number of lines, the last anchored checkpoint of the log and the SHA-256 (a backup taken
    before etg recorded the last two: the lines only, and a note that says so).

    Returns:
        The notes: what could not be compared, one sentence each.

    Raises:
        BackupError: the copy is missing, shorter or longer than recorded, or changed.
    """
    recorded = backup.manifest.get("anchors")
    if recorded is None:
        return ()
    path = backup.folder / ANCHORS
    if not isinstance(recorded, dict) or not isinstance(recorded.get("lines"), int):
        raise BackupError(
            f"{backup.folder / MANIFEST} records an anchor stream without its number of "
            "lines, so the copy cannot be checked: restore another backup"
        )
    data = _anchor_lines(path)
    lines, expected = data.count(b"\n"), recorded["lines"]
    if lines != expected or (data and not data.endswith(b"\n")):
        raise BackupError(
            f"{path} holds {lines:,} line(s), but {MANIFEST} records {expected:,}: the anchor "
            "stream was cut or added to since the backup was taken; restore another backup"
        )
    if "sha256" not in recorded:
        return (
            f"{MANIFEST} of this backup records only the anchor stream's {expected:,} lines "
            "(it was taken before etg backup recorded the stream's checksum and last "
            "checkpoint), so the lines and the number of anchored checkpoints were compared, "
            "and a line replaced by another is found only where the proof fails on it",
        )
    last = recorded.get("last_checkpoint")
    try:
        held = _anchor_record(
            last_anchor(AnchorFile(path).anchors(str(backup.manifest.get("log_id"))))
        )
    except AnchorError as exc:
        raise BackupError(f"{exc}; restore another backup") from None
    if held != last:
        raise BackupError(
            f"the last checkpoint of the log in {path} is {_named(held)}, but {MANIFEST} "
            f"records {_named(last)}: the anchor stream was cut or changed since the backup "
            "was taken; restore another backup"
        )
    if hashlib.sha256(data).hexdigest() != recorded["sha256"]:
        raise BackupError(
            f"{path} does not match the checksum in {MANIFEST}: the anchor stream was changed "
            "since the backup was taken; restore another backup"
        )
    return ()


def prove_backup(backup: Backup, key: Path) -> tuple[VerifyReport, tuple[str, ...]]:
    """A backup's own proof: its log against the checksum, its anchor stream against what
    ``backup.json`` records (:func:`check_anchor_copy`), then ``etg verify --evidence
    --anchors``, whose count of anchored checkpoints must be the one recorded.

    Returns:
        The proof, and the notes of what could not be compared.

    Raises:
        BackupError: the log or the anchor stream changed since the backup was taken, or
            the copy does not verify now.
    """
    if sha256_file(backup.log) != backup.manifest.get("sha256"):
        raise BackupError(
            f"{backup.log} does not match the checksum in {MANIFEST}: the copy changed since "
            "it was taken; restore another backup"
        )
    notes = check_anchor_copy(backup)
    report = prove(backup.log, key, backup.anchors)
    if not report.ok:
        first = report.first_failure
        raise BackupError(
            f"{backup.log} does not verify now"
            + ("" if first is None else f" (seq {first.seq}: {first.reason})")
            + "; restore another backup"
        )
    verify = backup.manifest.get("verify")
    recorded = verify.get("anchored_checkpoints") if isinstance(verify, dict) else None
    if backup.anchors is not None and recorded is not None and report.anchors != recorded:
        raise BackupError(
            f"the proof found {report.anchors or 0:,} anchored checkpoint(s) of the log in "
            f"{backup.anchors}, but {MANIFEST} records {recorded:,}: the anchor stream was cut "
            "or changed since the backup was taken; restore another backup"
        )
    return report, notes


def restore_backup(folder: Path, db: Path, *, key: Path, anchors: Path | None = None) -> Restored:
    """Prove the backup in ``folder`` again and copy its log to ``db`` (and its anchor
    stream to ``anchors``), never overwriting.

    Raises:
        BackupError: not a backup; it failed its proof (then or now) or its checksum; its
            anchor stream is not the one ``backup.json`` records (:func:`prove_backup`); a
            target exists (move the old log and anchors aside first: they are evidence of
            what the backup lacks); the backup has no anchor stream but ``anchors`` is
            given, or the other way round.
    """
    backup = load_backup(folder)
    if not backup.ok:
        raise BackupError(f"{folder} failed its proof when it was taken; restore another backup")
    if (backup.anchors is None) != (anchors is None):
        have = "has no anchor stream" if backup.anchors is None else "has an anchor stream"
        raise BackupError(
            f"the backup {have}: give --anchors exactly when it has one (the server's "
            "--anchors path)"
        )
    targets = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    targets += [] if anchors is None else [anchors]
    for target in targets:
        if target.exists() or target.is_symlink():
            raise BackupError(
                f"{target} exists; refusing to overwrite it. Move the old log, its -wal/-shm "
                "files and its anchor stream aside first (keep them: they show what the "
                "backup lacks)"
            )
    report, notes = prove_backup(backup, key)
    copies = [(backup.log, db)]
    if backup.anchors is not None and anchors is not None:
        copies.append((backup.anchors, anchors))
    for kept, into in copies:
        into.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = into.with_name(f".{into.name}.restoring")
        tmp.unlink(missing_ok=True)
        _copy_private(kept, tmp)
        os.link(tmp, into)  # fails rather than overwrite a file that appeared meanwhile
        tmp.unlink()
        _fsync_dir(into.parent)
    return Restored(db, anchors, backup, report, notes)


# --------------------------------------------------------------------------------------------
# Commands

_KEY = click.option(
    "--key",
    type=click.Path(path_type=Path),
    default=Path("certs/log-signing.pub"),
    show_default=True,
    help="The log-signing public key: the .pub file, or the certs directory holding it.",
)


def _describe(backup: Backup) -> list[str]:
    m = backup.manifest
    verify = m.get("verify", {})
    anchored = verify.get("anchored_checkpoints")
    lines = [
        f"copied {m['source']} ({m['bytes']:,} bytes, {verify.get('events', 0):,} events, "
        f"last seq {m.get('last_seq')}) in {m['copy_seconds']:.2f} s",
        f"proven in {m['verify_seconds']:.2f} s: "
        + ("VERIFIED" if backup.ok else "FAILED")
        + (f" ({anchored:,} anchored checkpoints checked)" if anchored is not None else "")
        + ("" if m.get("anchors") else " (no anchor stream given: a cut-back tail not checked)"),
    ]
    first = verify.get("first_failure")
    if first:
        lines.append(f"first failure at seq {first['seq']} [{first['check']}]: {first['reason']}")
    lines.append(f"wrote {backup.folder}")
    return lines


@click.command("backup")
@click.argument("db", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--anchors",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The server's anchor stream (etg serve --anchors): copied, and the copy of the log "
    "is proven against it.",
)
@_KEY
@click.option(
    "--keep",
    type=click.IntRange(min=1),
    default=None,
    help="Keep the newest N proven backups of this log in DEST, removing older ones "
    "(default: keep all).",
)
@click.option("--json", "as_json", is_flag=True, help="Print backup.json instead.")
def backup_command(
    db: Path, dest: Path, anchors: Path | None, key: Path, keep: int | None, as_json: bool
) -> None:
    """Copy the event log DB, while its server writes, into a new folder of DEST, with its
    anchor stream, and prove the copy (etg verify --evidence --anchors).

    Exits 0 when the copy is proven, 1 when it fails its proof (kept as <name>.FAILED), 2
    when the log, the anchors, the key or DEST cannot be used.
    """
    try:
        made = take_backup(db, dest, key=key, anchors=anchors, keep=keep)
    except ETGError as exc:
        for line in str(exc).splitlines():
            click.echo(f"etg backup: error: {line}", err=True)
        raise click.exceptions.Exit(EXIT_UNUSABLE) from None
    if as_json:
        click.echo(json.dumps({"folder": str(made.folder), **made.manifest}, indent=2))
    else:
        for line in _describe(made):
            click.echo(line)
    raise click.exceptions.Exit(EXIT_OK if made.ok else EXIT_FAILED)


@click.command("restore")
@click.argument("folder", metavar="BACKUP", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where the server's log goes (the path etg serve --db is given; must not exist).",
)
@click.option(
    "--anchors",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where the server's anchor stream goes (etg serve --anchors; must not exist). "
    "Required when the backup has one.",
)
@_KEY
def restore_command(folder: Path, db: Path, anchors: Path | None, key: Path) -> None:
    """Put a log back from a BACKUP folder made by etg backup: prove it again, then copy its
    log and anchor stream into place (nothing is overwritten).

    Start the server on it as before: it proves the log and recovers every table. The
    events logged after the backup are not in the restored log.
    """
    try:
        done = restore_backup(folder, db, key=key, anchors=anchors)
    except ETGError as exc:
        for line in str(exc).splitlines():
            click.echo(f"etg restore: error: {line}", err=True)
        raise click.exceptions.Exit(EXIT_UNUSABLE) from None
    m = done.backup.manifest
    click.echo(f"{folder}: VERIFIED ({done.report.counts.events:,} events)")
    click.echo(f"restored {done.db} (last seq {m.get('last_seq')}, taken {m.get('started')})")
    for note in done.notes:
        click.echo(f"note: {note}")
    if done.anchors is not None:
        recorded = m["anchors"]
        click.echo(f"restored {done.anchors} ({recorded['lines']:,} lines, as {MANIFEST} records)")
    click.echo(
        "start the server with --db "
        + str(done.db)
        + ("" if done.anchors is None else f" --anchors {done.anchors}")
        + ": events logged after the backup are not in this log"
    )
