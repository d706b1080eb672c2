"""Helpers of the floor store tests: the URLs of a test store, logs written by the real
writer, and reading back what a store holds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from game_server.eventlog import EventLog, EventLogReader, EventRow, NewEvent, system_clock
from game_server.eventlog.records import Checkpoint, Clock
from game_server.floor.cluster import LocalFloor


@dataclass(frozen=True)
class StoreUrls:
    """The URLs of one test store database, per role."""

    admin: str
    shipper: str
    investigator: str
    superuser: str

    @classmethod
    def of(cls, floor: LocalFloor, database: str) -> StoreUrls:
        return cls(
            floor.url("admin", database),
            floor.url("shipper", database),
            floor.url("investigator", database),
            floor.url("superuser", database),
        )


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


def live_clock() -> datetime:
    """The system clock (shipper tests measure lag against the wall clock)."""
    return system_clock()
