"""What the crash-recovery tests of every table share: an event log whose append after a
given count "crashes" (the process is gone before the write), the log's events without what
legitimately differs between two runs, and a verified fold of the whole log."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar

from game_server.eventlog import EventLog, EventLogReader, NewEvent
from game_server.keys import load_public_key, load_sealing_key
from game_server.recall.verify import verify_log
from game_server.rules.events import from_dict
from game_server.table.ledger import Ledger

L = TypeVar("L", bound=Ledger)


class Crash(Exception):
    """The process dies before this append reaches the log."""


class Sink:
    """The event log, counting appends; the append after ``limit`` of them crashes. A
    countdown's callback swallows the exception (the machine goes out of service), so the
    scripts look at ``crashed`` after every input."""

    def __init__(self, log: EventLog, limit: int | None = None) -> None:
        self.log = log
        self.limit = limit
        self.appends = 0
        self.crashed = False

    def append(self, step: Sequence[NewEvent], *, checkpoint: str | None = None) -> Any:
        if self.limit is not None and self.appends >= self.limit:
            self.crashed = True
            raise Crash
        stored = self.log.append(step, checkpoint=checkpoint)
        self.appends += 1
        return stored


def events(db: Path) -> list[tuple[str, int | None, str | None, dict[str, Any]]]:
    """The log's events without what legitimately differs between two runs (the random
    nonce of each sealed seed; the times are not compared)."""
    out = []
    with closing(EventLogReader.open(db)) as reader:
        for stored in reader.iter_events():
            body = dict(stored.body)
            body.pop("sealed_seed", None)
            out.append((stored.table_id, stored.round_id, stored.terminal, body))
    return out


def verified_fold(db: Path, certs: Path, ledger: L) -> L:
    """The log verifies (chain, shoes, replay, ledger) and folds into ``ledger`` with every
    credit conserved; returns it."""
    with closing(EventLogReader.open(db)) as reader:
        report = verify_log(reader, load_public_key(certs), sealing_key=load_sealing_key(certs))
        assert report.ok, [f.reason for f in report.failures]
        for stored in reader.iter_events():
            ledger.apply(stored.terminal, from_dict(stored.body))
    assert ledger.conserved()
    return ledger
