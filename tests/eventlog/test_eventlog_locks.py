"""SQLite's lock on a live log: nothing of ours drops it, and the writer proves it holds it.

POSIX advisory locks belong to a process and a file: closing any descriptor of the file
drops every lock the process holds on it (SQLite's "How To Corrupt An SQLite Database File",
section 2.2). These tests read the kernel's own table (``/proc/locks``) to see the lock, and
drop it on purpose the way a plain ``open()``/``close()`` of the database file does, to prove
that the writer finds out and fails closed.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from eventlog_helpers import fill, round_step

from game_server.eventlog import (
    EventLog,
    EventLogError,
    EventLogReader,
    LockLost,
    LogOutOfService,
)
from game_server.eventlog.locks import shared_lock_holders

pytestmark = pytest.mark.skipif(
    not Path("/proc/locks").exists(), reason="the kernel's lock table (/proc/locks) is Linux's"
)

WAIT = 30.0


def drop_locks_as_a_plain_open_does(path: Path) -> None:
    """What the old header check did (``open()``, read, ``close()``): the close drops
    every POSIX lock of this process on the file, SQLite's included."""
    with path.open("rb") as file:  # the bug, on purpose
        file.read(100)


def test_opening_readers_beside_the_writer_keeps_the_writers_lock(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """The writer holds SQLite's SHARED lock on its file; opening (and closing) readers of
    the same file in the same process, as the server does for recall and shipping, leaves it
    held: no header or anything else of the file is read but through SQLite."""
    log = open_log()
    fill(log, 2)
    assert os.getpid() in shared_lock_holders(db_path)
    for _ in range(3):
        with EventLogReader.open(db_path) as reader:
            assert reader.max_seq() == 20
    assert os.getpid() in shared_lock_holders(db_path)
    assert log.check_lock() is None
    assert log.commit_meters()["lock"]["held"] is True


def test_a_lost_lock_is_found_when_a_reader_opens_and_fails_the_log_closed(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """A descriptor of the live log closed by something other than SQLite drops the lock;
    the next reader opened in the process tells the writer, which takes no more appends
    (fail closed, as a failed write) and says why; resume() takes the lock again with a new
    connection, proves the log and goes on."""
    log = open_log()
    failures: list[EventLogError] = []
    log.on_failure(failures.append)
    fill(log, 1)
    drop_locks_as_a_plain_open_does(db_path)
    assert os.getpid() not in shared_lock_holders(db_path)
    with EventLogReader.open(db_path):
        pass
    assert len(failures) == 1 and isinstance(failures[0], LockLost)
    assert "no longer holds SQLite's lock" in str(failures[0])
    assert log.commit_meters()["lock"]["held"] is False
    with pytest.raises(LogOutOfService):
        log.append(round_step(2))
    log.resume()
    assert os.getpid() in shared_lock_holders(db_path)
    assert log.check_lock() is None
    log.append(round_step(2), checkpoint="round-close")
    assert log.head.seq == 20


def test_a_write_made_through_after_the_lock_was_lost_is_refused_as_unsafe(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """Writing through (no commit thread), the append that follows a lost lock raises
    LockLost: its caller never acknowledges it."""
    log = open_log()
    fill(log, 1)
    drop_locks_as_a_plain_open_does(db_path)
    with pytest.raises(LockLost):
        log.append(round_step(2), checkpoint="money-moved")
    assert isinstance(log.failed, LockLost)


def test_a_commit_after_the_lock_was_lost_is_not_acknowledged(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """Writing behind: the commit thread checks the lock after every commit; the waiter of a
    write committed once the lock was gone is told LockLost, not success, and the log goes
    out of service."""
    log = open_log()
    woken: list[Callable[[], None]] = []
    ready = threading.Event()

    def wake(call: Callable[[], None]) -> None:
        woken.append(call)
        ready.set()

    log.write_behind(wake)
    drop_locks_as_a_plain_open_does(db_path)
    told: list[EventLogError | None] = []
    log.append(round_step(1), checkpoint="money-moved")
    assert log.when_written(told.append)
    assert ready.wait(WAIT)
    while not told:
        for call in list(woken):
            woken.remove(call)
            call()
    assert len(told) == 1 and isinstance(told[0], LockLost)
    assert isinstance(log.failed, LockLost)
    log.write_through()


def test_the_periodic_check_finds_a_deleted_wal_file(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """After another process checkpointed the log and deleted its -wal and -shm files (what
    a stock sqlite3 opened read-write does at exit once the lock is gone), the writer's check
    names the deleted files."""
    log = open_log()
    fill(log, 1)
    drop_locks_as_a_plain_open_does(db_path)
    script = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "c.execute('select count(*) from events').fetchone(); c.close()"
    )
    subprocess.run([sys.executable, "-c", script, str(db_path)], check=True, timeout=60)
    assert not Path(f"{db_path}-wal").exists()
    lost = log.check_lock()
    assert isinstance(lost, LockLost)
    assert "-wal" in str(lost) and "deleted" in str(lost)


def test_a_read_write_connection_of_another_process_keeps_the_wal_while_the_lock_is_held(
    open_log: Callable[..., EventLog], db_path: Path
) -> None:
    """The same other process, while the writer holds its lock: the -wal stays (the other
    connection knows it is not the last), and what the writer commits next is seen by a
    new connection of a third process."""
    log = open_log()
    fill(log, 1)
    EventLogReader.open(db_path).close()
    script = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "print(c.execute('select count(*) from events').fetchone()[0]); c.close()"
    )
    seen = subprocess.run(
        [sys.executable, "-c", script, str(db_path)], capture_output=True, text=True, timeout=60
    )
    assert seen.stdout.strip() == "10"
    assert Path(f"{db_path}-wal").exists()
    log.append(round_step(2), checkpoint="money-moved")
    again = subprocess.run(
        [sys.executable, "-c", script, str(db_path)], capture_output=True, text=True, timeout=60
    )
    assert again.stdout.strip() == "20"
    assert log.check_lock() is None
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as conn:
        assert conn.execute("select count(*) from checkpoints").fetchone()[0] == 2
