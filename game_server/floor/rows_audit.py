"""``etg verify DB --store URL``'s comparison of the log with the floor store's copy of it,
row by row, both ways.

The store's copy is believed only where it is the log's: every event the store holds of the
log must be the log's event at that seq (every column: the hash covers the content, and a
row edited past the store's triggers keeps its old hash), every checkpoint the log's at that
number, and the store may lack only the log's last events (not shipped yet: a warning).
A row the store holds that the log lacks, a row that differs, or a gap is a failure naming
the first seq (or checkpoint) where they part.

Entry point: :class:`StoreRowsAudit` (what :func:`game_server.recall.verify.verify_log` runs
as its ``store`` check).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from game_server.eventlog.reader import EventLogReader
from game_server.eventlog.records import Checkpoint, EventRow
from game_server.eventlog.schema import EVENT_COLUMNS
from game_server.floor.store import FloorStore, redacted
from game_server.recall.verify_report import MeterAuditResult

#: The columns of an event row, by index, as a difference names them.
COLUMNS: Final = tuple(name.strip() for name in EVENT_COLUMNS.split(","))
#: Rows read from the store at a time.
BATCH: Final = 5_000


def _store_rows(conn: Any, log_id: str) -> Iterator[EventRow]:
    after = 0
    while True:
        rows = conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM floor.events WHERE log_id = %s AND seq > %s "
            "ORDER BY seq LIMIT %s",
            (log_id, after, BATCH),
        ).fetchall()
        if not rows:
            return
        yield from (tuple(row) for row in rows)
        after = rows[-1][0]


def _difference(ours: EventRow, theirs: EventRow) -> str:
    differ = [COLUMNS[i] for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    return (
        f"the floor store's event {ours[0]} is not the log's: {', '.join(differ)} differ(s) "
        f"(the log's hash {ours[7][:16]}..., the store's {theirs[7][:16]}...): the store's "
        "copy was changed, or the log was"
    )


def compare_events(
    log: Iterator[EventRow], store: Iterator[EventRow]
) -> tuple[list[tuple[int | None, str]], list[tuple[int | None, str]], int]:
    """Walk the log's rows and the store's side by side; ``(failures, warnings, compared)``
    with the first place they part (one failure at most: after it nothing lines up)."""
    compared = 0
    ours = next(log, None)
    theirs = next(store, None)
    while ours is not None and theirs is not None:
        if ours[0] != theirs[0]:
            if theirs[0] > ours[0]:
                return (
                    [
                        (
                            ours[0],
                            f"the floor store lacks the log's event {ours[0]} but holds "
                            f"event {theirs[0]}: a gap in the store's copy",
                        )
                    ],
                    [],
                    compared,
                )
            return (
                [
                    (
                        theirs[0],
                        f"the floor store holds an event {theirs[0]} the log does "
                        "not: the log was cut back, or the store's row was forged",
                    )
                ],
                [],
                compared,
            )
        if tuple(ours) != tuple(theirs):
            return [(ours[0], _difference(ours, theirs))], [], compared
        compared += 1
        ours, theirs = next(log, None), next(store, None)
    if theirs is not None:
        return (
            [
                (
                    theirs[0],
                    f"the floor store holds event {theirs[0]} beyond the log's end: the "
                    "log was cut back, or the store's row was forged",
                )
            ],
            [],
            compared,
        )
    if ours is not None:
        missing = 1 + sum(1 for _ in log)
        return (
            [],
            [
                (
                    ours[0],
                    f"the floor store holds the log up to seq {ours[0] - 1}: the "
                    f"{missing} event(s) after it are not shipped yet",
                )
            ],
            compared,
        )
    return [], [], compared


def compare_checkpoints(
    log: list[Checkpoint], store: list[Checkpoint]
) -> list[tuple[int | None, str]]:
    """Every checkpoint the store holds of the log must be the log's at that number."""
    ours = {cp.number: cp for cp in log}
    for cp in store:
        held = ours.get(cp.number)
        if held is None:
            return [
                (
                    cp.seq,
                    f"the floor store holds checkpoint #{cp.number} (seq {cp.seq}), "
                    "which the log does not: cut back, or forged in the store",
                )
            ]
        if held != cp:
            return [
                (
                    cp.seq,
                    f"the floor store's checkpoint #{cp.number} (seq {cp.seq}) is not "
                    "the log's: changed in the store, or forged",
                )
            ]
    return []


class StoreRowsAudit:
    """The log against its copy in the floor store at ``url`` (an investigator's URL), read
    on :meth:`audit` after the log's snapshot was taken."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._store: FloorStore | None = None

    def __repr__(self) -> str:
        return f"StoreRowsAudit({redacted(self._url)!r})"

    def audit(self, reader: EventLogReader) -> MeterAuditResult:
        """Compare (inside the log's snapshot).

        Raises:
            FloorError: the store cannot be reached or read (unusable input).
        """
        if self._store is None or self._store.broken:
            self._store = FloorStore.connect(self._url)
        result = MeterAuditResult()
        with self._store.snapshot("reading the log's copy") as conn:
            failures, warnings, compared = compare_events(
                reader.iter_rows(), _store_rows(conn, reader.log_id)
            )
            stored = [
                Checkpoint.from_row(tuple(row), reader.log_id)
                for row in conn.execute(
                    "SELECT number, seq, hash, time, reason, key_id, signature, meta "
                    "FROM floor.checkpoints WHERE log_id = %s ORDER BY number",
                    (reader.log_id,),
                )
            ]
        result.failures += failures + compare_checkpoints(reader.checkpoints(), stored)
        result.warnings += warnings
        result.checked = compared
        return result

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
