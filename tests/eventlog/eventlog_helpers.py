"""Helpers of the event log tests: a recording fake clock, steps of events, a log filler,
and what a tamperer does with a raw connection."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from game_server.eventlog import EventLog, NewEvent, StoredEvent

START = datetime(2025, 3, 1, 18, 0, 0, tzinfo=UTC)


class FakeClock:
    """A recording fake clock: each call returns the next millisecond after START and
    records it."""

    def __init__(self, start: datetime = START, step: timedelta = timedelta(milliseconds=1)):
        self.now = start
        self.step = step
        self.calls: list[datetime] = []

    def __call__(self) -> datetime:
        self.calls.append(self.now)
        current = self.now
        self.now += self.step
        return current


def round_step(
    round_id: int, count: int = 10, table: str = "T1", terminals: int = 3, kind: str = "card_dealt"
) -> list[NewEvent]:
    """One step of ``count`` events of round ``round_id``, spread over ``terminals``
    terminals (event 0 has no terminal, like a dealer card)."""
    return [
        NewEvent(
            table,
            round_id,
            None if i == 0 else f"term-{i % terminals}",
            {"kind": kind, "v": 1, "round": round_id, "i": i, "card": "AS", "note": "é"},
        )
        for i in range(count)
    ]


def fill(
    log: EventLog,
    rounds: int,
    per_round: int = 10,
    checkpoint_every: int = 1,
    table: str = "T1",
    first_round: int = 1,
) -> list[StoredEvent]:
    """Append ``rounds`` rounds (one step each, round ids from ``first_round``), with a
    round-close checkpoint every ``checkpoint_every`` rounds (0: never)."""
    stored: list[StoredEvent] = []
    for r in range(rounds):
        close = checkpoint_every and (r + 1) % checkpoint_every == 0
        stored += log.append(
            round_step(first_round + r, per_round, table),
            checkpoint="round-close" if close else None,
        )
    return stored


def raw(path: Path) -> sqlite3.Connection:
    """A plain read-write connection, as someone with the file in hand would open it."""
    return sqlite3.connect(path, isolation_level=None)


def drop_triggers(conn: sqlite3.Connection) -> None:
    """What a tamperer does first."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")]
    for name in names:
        conn.execute(f"DROP TRIGGER {name}")


def copy_log(src: Path, dst: Path) -> Path:
    """Copy a closed log (its WAL folded in) to ``dst``."""
    shutil.copyfile(src, dst)
    return dst
