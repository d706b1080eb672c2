"""Opening a log: a file that is not ours or is newer is refused with nothing written; the
signing key must be present, private, well-formed and the log's own."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eventlog_helpers import FakeClock, fill, raw

from game_server.eventlog import (
    EventLog,
    EventLogReader,
    LogKeyError,
    LogNotFound,
    NotAnEventLog,
    SchemaTooNew,
)
from game_server.keys import KeyFiles, init_keys


def _snapshot(path: Path) -> tuple[bytes, int, list[str]]:
    """The file's bytes, its modification time, and which companion files exist."""
    companions = [s for s in ("-wal", "-shm", "-journal") if Path(f"{path}{s}").exists()]
    return path.read_bytes(), path.stat().st_mtime_ns, companions


def _assert_refused_untouched(
    path: Path, signing_key: Ed25519PrivateKey, error: type[Exception], match: str
) -> None:
    """The writer and an immutable reader refuse the file without changing it, not even by a
    -wal or -shm file beside it; a plain reader refuses it and leaves its bytes as they
    were."""
    before = _snapshot(path)
    with pytest.raises(error, match=match):
        EventLog.create_or_open(path, signing_key, FakeClock())
    with pytest.raises(error, match=match):
        EventLogReader.open(path, immutable=True)
    assert _snapshot(path) == before
    with pytest.raises(error, match=match):
        EventLogReader.open(path)
    assert path.read_bytes() == before[0]


def test_a_text_file_is_not_an_event_log(tmp_path: Path, signing_key: Ed25519PrivateKey) -> None:
    """A file that is not SQLite at all is refused and left exactly as it was."""
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 10)
    _assert_refused_untouched(path, signing_key, NotAnEventLog, "not a SQLite database")


def test_another_applications_database_is_not_an_event_log(
    tmp_path: Path, signing_key: Ed25519PrivateKey
) -> None:
    """A SQLite database of someone else (even one with an events table) is refused, and
    neither its bytes, its time nor its journal mode are touched."""
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")
    conn.execute("INSERT INTO events (what) VALUES ('birthday')")
    conn.commit()
    conn.close()
    _assert_refused_untouched(path, signing_key, NotAnEventLog, "another application")
    assert raw(path).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_database_marked_by_another_application_is_refused_from_its_header(
    tmp_path: Path, signing_key: Ed25519PrivateKey
) -> None:
    """A SQLite file whose header carries another application id is refused."""
    path = tmp_path / "marked.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    _assert_refused_untouched(path, signing_key, NotAnEventLog, "0x4d2")


def test_a_directory_is_not_an_event_log(tmp_path: Path, signing_key: Ed25519PrivateKey) -> None:
    """A directory given as the log path is refused."""
    with pytest.raises(NotAnEventLog, match="directory"):
        EventLog.create_or_open(tmp_path, signing_key, FakeClock())


def test_an_empty_file_becomes_a_new_log(tmp_path: Path, signing_key: Ed25519PrivateKey) -> None:
    """An empty file (e.g. made by touch) is taken as the place for a new log; the reader
    refuses it until then."""
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(NotAnEventLog, match="empty"):
        EventLogReader.open(path)
    EventLog.create_or_open(path, signing_key, FakeClock()).close()
    with EventLogReader.open(path) as reader:
        assert reader.schema_version == 4


def test_a_missing_log_is_not_found_by_the_reader(tmp_path: Path) -> None:
    """The reader never creates a log."""
    with pytest.raises(LogNotFound, match="no event log"):
        EventLogReader.open(tmp_path / "absent.db")
    assert not (tmp_path / "absent.db").exists()


def test_a_newer_schema_is_refused_with_nothing_written(
    open_log: Callable[..., EventLog], db_path: Path, signing_key: Ed25519PrivateKey
) -> None:
    """A log that a newer ETG migrated (a migration this code does not know, schema 5) is
    refused by the writer and the reader, and left exactly as it was."""
    fill(open_log(), 2)
    conn = raw(db_path)  # the newer ETG's migration, through the triggers it is allowed past
    conn.execute("BEGIN")
    conn.execute("INSERT INTO migrations VALUES ('0005-future', '2030-01-01T00:00:00.000000Z')")
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    conn.execute("PRAGMA user_version = 5")
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _assert_refused_untouched(db_path, signing_key, SchemaTooNew, "schema version 5")


def test_an_unknown_migration_name_is_a_newer_schema(
    open_log: Callable[..., EventLog], db_path: Path, signing_key: Ed25519PrivateKey
) -> None:
    """Even at the same version number, a migration name this code does not know means the
    log is not one it understands."""
    open_log().close()
    conn = raw(db_path)
    conn.execute("INSERT INTO migrations VALUES ('0003b-hotfix', '2030-01-01T00:00:00.000000Z')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _assert_refused_untouched(db_path, signing_key, SchemaTooNew, "0003b-hotfix")


def test_a_missing_key_file_is_a_log_key_error_and_creates_nothing(
    tmp_path: Path, db_path: Path
) -> None:
    """Pointing at a key directory with no key names the file and how to create it; no log
    file is created."""
    missing = r"no log-signing key at .*nowhere/log-signing\.key.*etg certs"
    with pytest.raises(LogKeyError, match=missing):
        EventLog.create_or_open(db_path, tmp_path / "nowhere", FakeClock())
    assert not db_path.exists()


def test_an_exposed_key_file_is_refused_with_the_fix(key_files: KeyFiles, db_path: Path) -> None:
    """A private key others can read is refused, saying chmod 600."""
    os.chmod(key_files.signing_key, 0o644)
    with pytest.raises(LogKeyError, match="chmod 600"):
        EventLog.create_or_open(db_path, key_files.signing_key.parent, FakeClock())
    assert not db_path.exists()


def test_an_unreadable_key_file_is_a_log_key_error(
    key_files: KeyFiles, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key file that cannot be read (here: the read fails with a permission error, as for
    a file owned by another user) is refused, naming the file."""
    real = Path.read_bytes

    def refuse(self: Path) -> bytes:
        if self == key_files.signing_key:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(LogKeyError, match=r"cannot read .*log-signing\.key.*Permission denied"):
        EventLog.create_or_open(db_path, key_files.signing_key, FakeClock())


def test_a_malformed_key_file_is_a_log_key_error(key_files: KeyFiles, db_path: Path) -> None:
    """A key file that is not a PEM private key is refused, naming the file."""
    key_files.signing_key.write_text("-----BEGIN PRIVATE KEY-----\nnope\n")
    with pytest.raises(LogKeyError, match="not an unencrypted PEM private key"):
        EventLog.create_or_open(db_path, key_files.signing_key, FakeClock())


def test_a_key_object_of_the_wrong_type_is_a_log_key_error(db_path: Path) -> None:
    """Only an Ed25519 private key (or a path to one) signs a log."""
    with pytest.raises(LogKeyError, match="Ed25519"):
        EventLog.create_or_open(db_path, b"secret", FakeClock())  # type: ignore[arg-type]


def test_another_servers_key_is_refused_naming_both_keys(
    open_log: Callable[..., EventLog], db_path: Path, tmp_path: Path
) -> None:
    """A log whose checkpoints were signed with key A cannot be opened for writing with key
    B: the error names both fingerprints, and nothing is appended."""
    first = open_log()
    fill(first, 2)
    first.close(checkpoint=False)  # its bytes are read below: never beside a live connection
    other = init_keys(tmp_path / "other-certs")
    before = _snapshot(db_path)[0]
    with pytest.raises(LogKeyError, match=r"signed with key [0-9a-f]{16}, but the key given is"):
        EventLog.create_or_open(db_path, other.signing_key.parent, FakeClock())
    with EventLogReader.open(db_path) as reader:
        assert reader.max_seq() == 20
        assert len(reader.checkpoints()) == 2
    assert len(before) > 0


def test_reopening_continues_the_chain(open_log: Callable[..., EventLog], db_path: Path) -> None:
    """A log closed and opened again appends after its head, numbering checkpoints on."""
    first = open_log()
    fill(first, 2)
    head = first.head
    first.close()
    again = open_log()
    assert again.head == head
    stored = fill(again, 1, first_round=3)
    assert stored[0].seq == head.seq + 1
    assert again.last_checkpoint is not None and again.last_checkpoint.number == 4
