"""Proof that this process holds SQLite's lock on the log it writes.

SQLite on Unix locks a database file with POSIX advisory locks, and those belong to a
process and a file: closing *any* descriptor of the file in the process drops all of them,
SQLite's included (SQLite's "How To Corrupt An SQLite Database File", section 2.2). A writer
in WAL mode holds a SHARED lock on the database file for as long as its connection is open.
While it holds it, no connection of another process can believe itself the last one: without
it, a stock ``sqlite3`` CLI opened read-write on the live log checkpoints the ``-wal`` file
and deletes it (and ``-shm``) when it exits, and every commit of the writer after that goes
to a deleted file: acknowledged, and lost at the next crash. SQLite never takes the lock
again by itself (it believes it still holds it).

So the code never opens a database file but through SQLite (the architecture test holds
every plain ``open()`` to a list of decided places), and the writer proves that it holds the
lock: :class:`LockGuard` reads what the kernel says of SQLite's own descriptor of the file,
``/proc/self/fdinfo/<fd>``, whose ``lock:`` lines are the POSIX locks this process holds
through it. Reading it opens no descriptor of the database, and costs the same whatever
else the machine locks (about 10 µs; the kernel's whole table, ``/proc/locks``, grows with
every lock of every process: 270 µs at 400 locks). ``F_GETLK`` would not do: on a descriptor
of our own it reports no lock of ours and its close would drop the lock; asked from another
process, it names only one holder of a shared lock, maybe not us. The guard also looks at
the process's descriptors (``/proc/self/fd``): one that still points at the log's ``-wal``
or ``-shm`` after another process deleted it means commits since then are in a file nobody
else can see.

The writer checks at open, after every open of a reader in the process
(:func:`check_live`, called by :meth:`~game_server.eventlog.reader.EventLogReader.open`), and
the server every :data:`CHECK_SECONDS`; a lost lock takes the log out of service (fail
closed, as a failed write) and is an ALARM in ``etg status``.

Where ``/proc/self/fdinfo`` does not exist (not Linux) the lock cannot be proven: the guard
says so (``held`` None) and never fails the log for it.

Entry points: :class:`LockGuard`, :func:`check_live`.
"""

from __future__ import annotations

import os
import re
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from game_server.eventlog.errors import EventLogError

#: The kernel's table of every file lock of the machine.
PROC_LOCKS: Final = Path("/proc/locks")
#: This process's open descriptors.
PROC_FDS: Final = Path("/proc/self/fd")
#: What the kernel says of each of them (position, flags, the locks held through it).
PROC_FDINFO: Final = Path("/proc/self/fdinfo")
#: The first byte of SQLite's SHARED lock range on a database file (``PENDING_BYTE + 2``,
#: ``os_unix.c``): a reader's and a WAL writer's lock starts here.
SHARED_FIRST: Final = 0x40000000 + 2
#: Seconds between the server's checks.
CHECK_SECONDS: Final = 5.0


class LockLost(EventLogError):
    """This process no longer holds SQLite's lock on the log it writes (or another process
    deleted its ``-wal`` file): commits may no longer be seen by any other process."""


def _shared_locks() -> list[tuple[int, int]] | None:
    """``(process, inode)`` of every POSIX lock at SQLite's SHARED range in the kernel's
    table; None when the table cannot be read."""
    try:
        text = PROC_LOCKS.read_text()
    except OSError:
        return None
    found: list[tuple[int, int]] = []
    for line in text.splitlines():
        parts = line.split()
        # "1: POSIX  ADVISORY  READ 1234 fe:00:2147109 1073741826 1073742335"; a waiter's
        # line has "->" after the number and holds nothing.
        if len(parts) < 8 or parts[1] != "POSIX":
            continue
        try:
            owner = int(parts[4])
            inode = int(parts[5].rsplit(":", 1)[1])
            start = int(parts[6])
        except (ValueError, IndexError):
            continue
        if start == SHARED_FIRST:
            found.append((owner, inode))
    return found


def shared_lock_holders(path: str | os.PathLike[str]) -> set[int]:
    """The processes that hold SQLite's SHARED lock on the database file ``path`` (every
    open connection of a WAL database holds it), read from the kernel's table without
    opening the file; empty where the table cannot be read.

    The inode alone is matched (with the lock's range): on an overlay file system the device
    the kernel names is the lower one's, not what ``stat()`` gives.
    """
    inode = os.stat(path).st_ino
    return {owner for owner, held in _shared_locks() or () if held == inode}


def _descriptors_of(inode: int, device: int) -> list[int]:
    """This process's descriptors open on the file ``(device, inode)`` (a ``stat`` of each
    ``/proc/self/fd`` link follows it to the file without opening it)."""
    found: list[int] = []
    try:
        names = os.listdir(PROC_FDS)
    except OSError:
        return found
    for name in names:
        try:
            info = os.stat(PROC_FDS / name)
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor among them)
        if info.st_ino == inode and info.st_dev == device:
            found.append(int(name))
    return found


def _holds_through(fd: int, inode: int) -> bool:
    """Whether the kernel lists SQLite's SHARED lock among this process's locks held through
    descriptor ``fd`` of the file ``inode`` (False when ``fd`` is now another file)."""
    try:
        info = os.open(f"/proc/self/fdinfo/{fd}", os.O_RDONLY)
    except OSError:
        return False
    try:
        text = os.read(info, 8192)
    except OSError:
        return False
    finally:
        os.close(info)
    # "ino:\t2146765\n" ... "lock:\t1: POSIX  ADVISORY  READ 11804 fe:00:2146765 1073741826
    # 1073742335\n": the descriptor's file, then each lock held through it.
    return b"ino:\t%d\n" % inode in text and _SHARED_LINE.search(text) is not None


#: A POSIX lock line of ``fdinfo`` at SQLite's SHARED range.
_SHARED_LINE: Final = re.compile(rb"^lock:.* POSIX .* %d \d+$" % SHARED_FIRST, re.MULTILINE)


def _deleted_files(path: Path) -> list[str]:
    """Which of the log, its ``-wal`` and ``-shm`` this process holds open though deleted."""
    names = {f"{path}{suffix} (deleted)": suffix or "database" for suffix in ("", "-wal", "-shm")}
    found: list[str] = []
    try:
        fds = os.listdir(PROC_FDS)
    except OSError:
        return found
    for fd in fds:
        try:
            target = os.readlink(PROC_FDS / fd)
        except OSError:
            continue
        if target in names:
            found.append(names[target])
    return sorted(set(found))


class LockGuard:
    """Proves that this process holds SQLite's SHARED lock on the database file ``path``.

    Args:
        path: The database file the writer has open (resolved once: a later rename of a
            folder does not change what is checked).

    Attributes:
        lost: Why the lock is gone, once a check found it gone (it stays lost: SQLite never
            takes it again by itself; the writer reconnects).
        checks: How many checks were made.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.realpath(path))
        info = self.path.stat()
        self._inode, self._device = info.st_ino, info.st_dev
        self.lost: LockLost | None = None
        self.checks = 0
        self.supported = PROC_FDINFO.exists()
        #: The descriptors SQLite holds the file through (found again when they change).
        self._fds = _descriptors_of(self._inode, self._device) if self.supported else []
        self._listeners: list[Callable[[LockLost], None]] = []
        self._mutex = threading.Lock()
        _LIVE.add(self)

    def on_lost(self, listener: Callable[[LockLost], None]) -> None:
        """Call ``listener`` (from the thread that checked) when a check finds the lock gone."""
        self._listeners.append(listener)

    @property
    def listeners(self) -> list[Callable[[LockLost], None]]:
        """Who is told (a writer that reconnects hands them to its new guard)."""
        return list(self._listeners)

    def check(self, *, descriptors: bool = True) -> LockLost | None:
        """Look now; return why the lock is gone (listeners told, once), or None.

        Args:
            descriptors: Also look for deleted files among this process's descriptors (a
                walk of ``/proc/self/fd``: the periodic check). Without it, only the locks
                held through SQLite's descriptor (about 10 µs: the commit thread's check
                after every commit).
        """
        with self._mutex:
            if self.lost is not None:
                return self.lost
            self.checks += 1
            problem = self._problem(descriptors)
            if problem is None:
                return None
            self.lost = LockLost(
                f"this process no longer holds SQLite's lock on {self.path} ({problem}): "
                "another process may checkpoint and delete the log's -wal file under it, and "
                "what is committed after that would be lost. The log takes no more writes; "
                "look for a program that opened the log read-write (open it read-only: "
                "sqlite3 -readonly), then reopen the table or restart the server, which proves "
                "the log again."
            )
            listeners = list(self._listeners)
        for listener in listeners:
            listener(self.lost)
        return self.lost

    def _problem(self, descriptors: bool) -> str | None:
        deleted = _deleted_files(self.path) if descriptors else []
        if deleted:
            return (
                f"another process deleted its {' and '.join(deleted)} file(s) while this one "
                "had them open"
            )
        if self.supported and not self._holds():
            return (
                "the kernel lists no SHARED lock of this process on it: a descriptor of the "
                "file was closed in this process by something other than SQLite"
            )
        return None

    def _holds(self) -> bool:
        if any(_holds_through(fd, self._inode) for fd in self._fds):
            return True
        # SQLite may hold it through another connection's descriptor: look at them all.
        self._fds = _descriptors_of(self._inode, self._device)
        return any(_holds_through(fd, self._inode) for fd in self._fds)

    def summary(self) -> dict[str, Any]:
        """For the server's meters: ``held`` (True, False, or None where it cannot be
        checked), ``checks`` and, when lost, ``reason``."""
        held: bool | None = None if not self.supported else self.lost is None
        if self.lost is not None:
            held = False
        return {
            "held": held,
            "checks": self.checks,
            **({} if self.lost is None else {"reason": str(self.lost)}),
        }

    def close(self) -> None:
        """The writer closed its connection: nothing to check any more."""
        _LIVE.discard(self)


_LIVE: weakref.WeakSet[LockGuard] = weakref.WeakSet()


def check_live() -> None:
    """Check every guard of the process (a reader was just opened: had anything closed a
    descriptor of a log file, its writer is told now, not at the next periodic check)."""
    for guard in list(_LIVE):
        guard.check()
