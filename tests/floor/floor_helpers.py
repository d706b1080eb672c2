"""Helpers of the floor store tests: the URLs of a test store, logs written by the real
writer, and reading back what a store holds."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from game_server.eventlog import EventLog, EventLogReader, EventRow, NewEvent
from game_server.eventlog.records import Checkpoint, Clock
from game_server.floor.cluster import LocalFloor, postgres_installed
from game_server.floor.store import FloorStore, server_url

#: Set to 1 by .ci/run: a missing PostgreSQL fails the floor tests instead of skipping them.
REQUIRE = "ETG_REQUIRE_POSTGRES"


def require_postgres() -> None:
    """Skip (or, under ``ETG_REQUIRE_POSTGRES=1``, fail) when PostgreSQL is not installed."""
    if postgres_installed():
        return
    message = (
        "PostgreSQL (initdb, pg_ctl, postgres) is not installed: apt-get install postgresql "
        "(make packages)"
    )
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{message}; {REQUIRE}=1 says this machine must have it")
    pytest.skip(message)


#: One password per server name for the whole test session: a shipping role is the
#: cluster's (every test database shares it), and registering a server sets its password.
_PASSWORDS: dict[str, str] = {}


class StoreUrls:
    """The URLs of one test store database, per role, and of each server registered in it
    (each ships as a role of its own, bound to its key).

    Attributes:
        admin: The floor admin's URL (registers servers).
        investigator: The investigator's (reads).
        superuser: The cluster's superuser (migrates; a hostile owner in the tests).
        servers: Each registered server's shipping URL, by name.
    """

    def __init__(self, floor: LocalFloor, database: str) -> None:
        self.admin = floor.url("admin", database)
        self.investigator = floor.url("investigator", database)
        self.superuser = floor.url("superuser", database)
        self.database = database
        self.servers: dict[str, str] = {}

    @classmethod
    def of(cls, floor: LocalFloor, database: str) -> StoreUrls:
        return cls(floor, database)

    def register(self, public_key: Ed25519PublicKey, server: str) -> str:
        """Register ``server`` with ``public_key`` (as the floor admin); its shipping URL."""
        password = _PASSWORDS.setdefault(server, secrets.token_urlsafe(24))
        admin = FloorStore.connect(self.admin)
        try:
            role = admin.register_server(public_key, server, password)
        finally:
            admin.close()
        self.servers[server] = server_url(self.admin, role, password)
        return self.servers[server]

    @property
    def shipper(self) -> str:
        """The shipping URL of the one server registered (a server of its own, with a new
        key, when none is: a test of the linked meters)."""
        if not self.servers:
            self.register(Ed25519PrivateKey.generate().public_key(), "METERS-TEST")
        if len(self.servers) > 1:
            raise AssertionError(f"servers {sorted(self.servers)}: name one (store.servers)")
        return next(iter(self.servers.values()))


class StepClock:
    """A fake clock: each call returns the next millisecond after ``start``."""

    def __init__(self, start: datetime = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        current = self.now
        self.now += timedelta(milliseconds=1)
        return current


def round_step(round_id: int, count: int = 5, table: str = "BJ-01") -> list[NewEvent]:
    """One step of ``count`` events of a round (the first one without a terminal)."""
    return [
        NewEvent(
            table,
            round_id,
            None if i == 0 else f"T{i}",
            {"kind": "card_dealt", "v": 1, "round": round_id, "i": i, "card": "AS", "note": "é"},
        )
        for i in range(count)
    ]


def write_log(
    path: Path,
    key: Path,
    rounds: int,
    *,
    per_round: int = 5,
    first_round: int = 1,
    clock: Clock | None = None,
    close: bool = True,
) -> str:
    """Append ``rounds`` rounds (one step and a round-close checkpoint each) to the log at
    ``path`` with the real writer; returns the log id."""
    log = EventLog.create_or_open(path, key, clock or StepClock())
    try:
        for r in range(first_round, first_round + rounds):
            log.append(round_step(r, per_round), checkpoint="round-close")
        return log.log_id
    finally:
        log.close(checkpoint=close)


def log_rows(path: Path) -> tuple[str, list[EventRow], list[Checkpoint]]:
    """The log's id, every event row and every checkpoint."""
    with EventLogReader.open(path) as reader:
        return reader.log_id, list(reader.iter_rows()), reader.checkpoints()


def store_rows(url: str, log_id: str) -> tuple[list[EventRow], list[Checkpoint]]:
    """Every event row and checkpoint of ``log_id`` the store holds (an investigator's or
    the superuser's URL)."""
    with psycopg.connect(url) as conn:
        events = conn.execute(
            "SELECT seq, time, table_id, round_id, terminal, kind, body, hash FROM floor.events "
            "WHERE log_id = %s ORDER BY seq",
            (log_id,),
        ).fetchall()
        checkpoints = conn.execute(
            "SELECT number, seq, hash, time, reason, key_id, signature, meta "
            "FROM floor.checkpoints WHERE log_id = %s ORDER BY number",
            (log_id,),
        ).fetchall()
    return [tuple(row) for row in events], [  # type: ignore[misc]
        Checkpoint.from_row(tuple(row), log_id) for row in checkpoints
    ]


def count(url: str, table: str, log_id: str) -> int:
    """Rows of ``floor.<table>`` of ``log_id``."""
    with psycopg.connect(url) as conn:
        row: Any = conn.execute(
            f"SELECT count(*) FROM floor.{table} WHERE log_id = %s", (log_id,)
        ).fetchone()
    return int(row[0])


class ServerProcess:
    """A real table server (``python -m game_server``) whose output is read by a thread, so
    that a chatty server never blocks on a full pipe; ``lines`` keeps every line."""

    def __init__(
        self,
        args: list[str],
        cwd: Path,
        command: tuple[str, ...] = ("-m", "game_server"),
        env: dict[str, str] | None = None,
    ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *command, *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._port: queue.Queue[int | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if found:
                self._port.put(int(found.group(1)))
        self._port.put(None)

    def port(self, timeout: float = 60.0) -> int:
        """The port it listens on (raises if it exited first, with its output)."""
        port = self._port.get(timeout=timeout)
        if port is None:
            raise AssertionError("the server did not start:\n" + "".join(self.lines))
        return port

    def output(self) -> str:
        return "".join(self.lines)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> int:
        """SIGTERM (a clean stop: shutdown checkpoint, shipped); SIGKILL after 30 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=10)
        return self.process.returncode


def cluster_processes(floor: LocalFloor) -> list[int]:
    """The pids of the cluster's postmaster and its children."""
    pid_file = floor.data / "postmaster.pid"
    try:
        postmaster = int(pid_file.read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return []
    pids = [postmaster]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == postmaster:
                pids.append(int(entry.name))
    return pids


def signal_cluster(floor: LocalFloor, signum: int) -> None:
    """Send ``signum`` to every process of the cluster (SIGKILL: a crash of the database
    server; SIGSTOP/SIGCONT: a hang and its end)."""
    for pid in cluster_processes(floor):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def wait_gone(pids: list[int], timeout: float = 20.0) -> None:
    """Wait until every process of ``pids`` has exited and been reaped (``pg_ctl`` takes a
    postmaster that is a zombie for a running one)."""
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        if time.monotonic() > deadline:
            raise AssertionError(f"processes {pids} did not exit")
        time.sleep(0.05)
