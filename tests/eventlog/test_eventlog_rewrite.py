"""The writer stores today exactly the bytes it stored before: every event of the logs in
``tests/fixtures/pre_move`` (written by older code), appended again through
:meth:`EventLog.append` step by step with the clock reading each step's stored time, gives
the same rows, column for column: the same canonical bodies, entries and chain hashes."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from game_server.eventlog import EventLog, EventLogReader, EventRow, NewEvent, verify_chain

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pre_move"
LOGS = sorted(FIXTURES.glob("*.db"))


def _rows(path: Path) -> list[EventRow]:
    with EventLogReader.open(path, immutable=True) as reader:
        return list(reader.iter_rows())


def test_there_are_logs_to_rewrite() -> None:
    """The fixtures are there (a missing folder would make the test below pass on nothing)."""
    assert len(LOGS) >= 7


@pytest.mark.parametrize("fixture", LOGS, ids=[path.stem for path in LOGS])
def test_appending_a_logged_history_again_stores_the_same_bytes(
    fixture: Path, tmp_path: Path
) -> None:
    """Each run of events sharing one time is one append at that time; the rows stored are
    those of the old log, byte for byte, and the new log verifies."""
    old = _rows(fixture)
    assert old, f"{fixture.name} holds no events"
    now = [datetime(2025, 1, 1, tzinfo=UTC)]
    key = Ed25519PrivateKey.generate()
    log = EventLog.create_or_open(tmp_path / "again.db", key, lambda: now[0])
    try:
        for time, step in itertools.groupby(old, key=lambda row: row[1]):
            now[0] = datetime.fromisoformat(time[:-1]).replace(tzinfo=UTC)
            events = [
                NewEvent(table, round_id, terminal, json.loads(body))
                for _, _, table, round_id, terminal, _, body, _ in step
            ]
            log.append(events)
    finally:
        log.close()
    assert _rows(tmp_path / "again.db") == old
    with EventLogReader.open(tmp_path / "again.db") as reader:
        assert verify_chain(reader, key.public_key()).ok
