"""Benchmark of the event log: durable appends, chain verification, recall latency.

Entry point: :func:`bench_log`, which returns a dict of figures and asserts nothing (docs/design.md
"Tests": benchmarks are not timed tests). Run ``python -m tools.bench_log [--quick]`` to print
them as JSON. Figures and their targets:

- ``append_ratio`` (target >= 0.90, issue 22): events per second through
  :meth:`~game_server.eventlog.EventLog.append` (steps of ``step`` events, one durable
  transaction each: WAL, ``synchronous=FULL``) over events per second of a bare ``sqlite3``
  loop that does only ``BEGIN IMMEDIATE; executemany(INSERT ...); COMMIT`` with the same
  pragmas, the same step size, the same precomputed rows, into the same ``events`` table with
  the same indexes but no triggers: the ceiling set by the disk's sync and SQLite's B-trees.
  In each of ``repeats`` repetitions the writers run side by side on fresh files, taking turns
  every 25 steps in a rotating order (so that the disk's changing speed hits all alike); the
  ratio is the median of the per-repetition ratios. ``details`` also gives the ratio against
  a bare table with no index at all (what the five recall indexes cost) and against the bare
  loop on the table with its triggers too (``append_ratio_vs_triggers``: the insert trigger
  that refuses any seq but last + 1 runs a query per row; that figure is what the writer's
  Python costs alone, the headline also counts the trigger as the log's own cost).
  ``behind_vs_bare`` is the server's write path beside them: the same steps through an
  EventLog that commits behind (:meth:`~game_server.eventlog.EventLog.write_behind`), every
  block of steps planned as fast as the caller can and durable once ``write_through``
  returns, so that the steps planned during a commit share the next one. It is not the same
  work as the bare loop's (fewer syncs): it says how many steps a second the log takes from a
  server, not the target's ratio; ``behind_steps_per_transaction`` says how they grouped.
- ``money_moved_ms`` (in ``details``, with ``plain_append_ms`` and ``money_vs_plain``): what
  a cash in, cash out or credit costs the writer since each is answered only once its own
  signed checkpoint is in the anchor stream (issue 32): :func:`bench_money`.
- ``verify_events_per_s`` (target >= 50,000): :func:`~game_server.eventlog.verify_chain` over
  a log of ``verify_events`` events with a signed round-close checkpoint every round (~50
  events), median of ``repeats`` runs.
- ``recent_rounds_ms`` (target < 100): ``recent_rounds(terminal=..., limit=10)`` on a log of
  ``recall_events`` events, median of 21 calls on one reader; ``details`` adds the first call
  on a fresh reader, a table filter and a time window in the middle of the log.

The big logs are built once by a bulk path and cached (``cache_dir``, by default
``<system temp>/etg-bench-log``): the log is created by ``EventLog.create_or_open`` (same
schema, migrations and triggers), its rows are planned by the same pure
:func:`~game_server.eventlog.plan_step` one round at a time (one time per round, 30 s apart)
and inserted by ``executemany`` in transactions of 50,000 rows on a raw connection, with a
checkpoint signed by :func:`~game_server.eventlog.checkpoint_message` after every round;
finally ``EventLog.create_or_open`` checks its tail and ``close`` signs a shutdown
checkpoint. The file is built under a temporary name and renamed when complete.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from game_server.eventlog import (
    MONEY_MOVED,
    SCHEMA_VERSION,
    AnchorFile,
    ChainHead,
    EventLog,
    EventLogReader,
    EventRow,
    NewEvent,
    checkpoint_message,
    format_time,
    plan_step,
    system_clock,
    verify_chain,
)
from game_server.keys import init_keys, key_id, load_public_key, load_signing_key

#: Rows per transaction when building a big log.
BULK_ROWS: Final = 50_000
#: Seconds between two rounds in a built log.
ROUND_SECONDS: Final = 30
#: The terminal the recall figure asks about.
RECALL_TERMINAL: Final = "term-3"
#: Tables of a built log.
TABLES: Final = ("T1", "T2")
_BUILD_FORMAT: Final = 1


def round_events(table_id: str, round_id: int, rng: random.Random) -> list[NewEvent]:
    """A plausible Blackjack round: 3 to 7 seated terminals, about 30 to 60 events.

    Args:
        table_id: The table.
        round_id: The round.
        rng: Chooses the seats and cards (benchmark data only).
    """
    seats = sorted(rng.sample(range(1, 8), rng.randint(3, 7)))
    out: list[NewEvent] = []

    def add(terminal: str | None, body: dict[str, Any]) -> None:
        out.append(NewEvent(table_id, round_id, terminal, body))

    add(None, {"kind": "round_started", "v": 1, "round": round_id, "seats": seats})
    for seat in seats:
        add(
            f"term-{seat}",
            {"kind": "wager_placed", "v": 1, "seat": seat, "hand": 0, "wager": "main",
             "amount": 100 * rng.randint(1, 50)},
        )  # fmt: skip
    position = rng.randint(0, 200)
    for _ in range(2):
        for seat in [*seats, 0]:
            card = rng.choice("23456789TJQKA") + rng.choice("CDHS")
            terminal = None if seat == 0 else f"term-{seat}"
            add(
                terminal,
                {"kind": "card_dealt", "v": 1, "seat": seat, "hand": 0, "card": card,
                 "position": position, "face_up": True},
            )  # fmt: skip
            position += 1
    for seat in seats:
        for _ in range(rng.randint(1, 3)):
            add(
                f"term-{seat}",
                {"kind": "decision", "v": 1, "seat": seat, "hand": 0, "action": "hit",
                 "amount": 0, "auto": False},
            )  # fmt: skip
    add(None, {"kind": "hole_card_revealed", "v": 1, "card": "KS"})
    for seat in seats:
        add(
            f"term-{seat}",
            {"kind": "wager_settled", "v": 1, "seat": seat, "hand": 0, "wager": "main",
             "outcome": rng.choice(["won", "lost", "pushed"]), "paid": 100},
        )  # fmt: skip
    add(None, {"kind": "round_closed", "v": 1, "round": round_id})
    return out


def _event_stream(seed: int) -> Iterator[tuple[int, list[NewEvent]]]:
    """Rounds forever, alternating tables: (round index, events)."""
    rng = random.Random(seed)
    index = 0
    while True:
        table = TABLES[index % len(TABLES)]
        yield index, round_events(table, index // len(TABLES) + 1, rng)
        index += 1


def _steps(events: int, step: int, seed: int = 1) -> list[list[NewEvent]]:
    flat: list[NewEvent] = []
    for _, round_ in _event_stream(seed):
        flat.extend(round_)
        if len(flat) >= events:
            break
    flat = flat[:events]
    return [flat[i : i + step] for i in range(0, len(flat), step)]


# -- durable appends -------------------------------------------------------------------------


def _open_bare(path: Path, ddl: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    for sql in ddl:
        conn.execute(sql)
    return conn


_BARE_INSERT: Final = (
    "INSERT INTO events (seq, time, table_id, round_id, terminal, kind, body, hash) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def _schema_ddl(log_path: Path) -> tuple[list[str], list[str], list[str]]:
    """The CREATE statements of ``events`` and its indexes (no triggers), of a bare
    ``events`` table with no index, and of ``events`` with its indexes and triggers."""
    conn = sqlite3.connect(log_path)
    try:
        table = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'"
        ).fetchone()[0]
        indexes = [
            sql
            for (sql,) in conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' "
                "AND sql IS NOT NULL"
            )
        ]
        triggers = [
            sql
            for (sql,) in conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"
            )
        ]
    finally:
        conn.close()
    return [table, *indexes], [table], [table, *indexes, *triggers]


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def bench_appends(
    tmpdir: Path, keys_dir: Path, events: int, step: int, repeats: int, block: int = 25
) -> dict[str, Any]:
    """Durable appends through EventLog against the bare sqlite3 loops (see module doc).

    Within a repetition the four writers run side by side on four fresh files, taking
    turns every ``block`` steps (the order rotating each block), so that a change in the
    disk's speed during the run (other load on the machine) hits all alike.
    """
    steps = _steps(events, step)
    rows: list[list[EventRow]] = []
    head = ChainHead(0, "00" * 32)
    moment = format_time(system_clock())
    for events_ in steps:
        planned = plan_step(head, moment, events_)
        rows.append(planned)
        head = ChainHead(planned[-1][0], planned[-1][7])
    probe = tmpdir / "schema-probe.db"
    EventLog.create_or_open(probe, keys_dir, system_clock).close(checkpoint=False)
    same_schema, no_index, with_triggers = _schema_ddl(probe)
    _remove_db(probe)
    rates: dict[str, list[float]] = {
        "ours": [],
        "bare": [],
        "min": [],
        "triggers": [],
        "behind": [],
    }
    grouped: list[float] = []
    clock = time.perf_counter
    for rep in range(repeats):
        paths = {name: tmpdir / f"append-{rep}-{name}.db" for name in rates}
        log = EventLog.create_or_open(paths["ours"], keys_dir, system_clock)
        behind = EventLog.create_or_open(paths["behind"], keys_dir, system_clock)
        bare = _open_bare(paths["bare"], same_schema)
        bare_min = _open_bare(paths["min"], no_index)
        bare_triggers = _open_bare(paths["triggers"], with_triggers)
        bare_of = {"bare": bare, "min": bare_min, "triggers": bare_triggers}
        spent = dict.fromkeys(rates, 0.0)
        order = list(rates)
        try:
            for first in range(0, len(steps), block):
                order = order[1:] + order[:1]
                for name in order:
                    start = clock()
                    if name == "ours":
                        for events_ in steps[first : first + block]:
                            log.append(events_)
                    elif name == "behind":
                        # No reactor here: the commit thread's wake-ups are not needed, the
                        # results are settled by write_through, on this thread.
                        behind.write_behind(lambda _settle: None)
                        for events_ in steps[first : first + block]:
                            behind.append(events_)
                        behind.write_through()
                    else:
                        conn = bare_of[name]
                        for chunk in rows[first : first + block]:
                            conn.execute("BEGIN IMMEDIATE")
                            conn.executemany(_BARE_INSERT, chunk)
                            conn.execute("COMMIT")
                    spent[name] += clock() - start
        finally:
            log.close(checkpoint=False)
            meters = behind.commit_meters()
            if meters["transactions"]:
                grouped.append(meters["writes"] / meters["transactions"])
            behind.close(checkpoint=False)
            for conn in bare_of.values():
                conn.close()
            for path in paths.values():
                _remove_db(path)
        for name in rates:
            rates[name].append(events / spent[name])
    ratios = [o / b for o, b in zip(rates["ours"], rates["bare"], strict=True)]
    ratios_min = [o / b for o, b in zip(rates["ours"], rates["min"], strict=True)]
    ratios_triggers = [o / b for o, b in zip(rates["ours"], rates["triggers"], strict=True)]
    ratios_behind = [o / b for o, b in zip(rates["behind"], rates["bare"], strict=True)]
    return {
        "append_ratio": statistics.median(ratios),
        "ours_events_per_s": statistics.median(rates["ours"]),
        "bare_events_per_s": statistics.median(rates["bare"]),
        "bare_no_index_events_per_s": statistics.median(rates["min"]),
        "append_ratio_vs_no_index": statistics.median(ratios_min),
        "bare_triggers_events_per_s": statistics.median(rates["triggers"]),
        "append_ratio_vs_triggers": statistics.median(ratios_triggers),
        "ours_steps_per_s": statistics.median(rates["ours"]) / step,
        "bare_steps_per_s": statistics.median(rates["bare"]) / step,
        "append_ratios": ratios,
        "behind_events_per_s": statistics.median(rates["behind"]),
        "behind_vs_bare": statistics.median(ratios_behind),
        "behind_steps_per_transaction": statistics.median(grouped) if grouped else None,
    }


def bench_money(tmpdir: Path, keys_dir: Path, moves: int = 200) -> dict[str, Any]:
    """What a money movement costs the writer: an append of one event with its own signed
    ``money-moved`` checkpoint, published to an anchor file (one ``fdatasync``) before it
    returns, against the same append with no checkpoint, alternating one of each so that the
    disk's changing speed hits both alike. Medians in ms; the server answers a cash in, a
    cash out or a credit only after the former (:data:`~game_server.eventlog.MONEY_MOVED`).
    """
    path = tmpdir / "money.db"
    anchors = AnchorFile(tmpdir / "money-anchors.jsonl")
    log = EventLog.create_or_open(path, keys_dir, system_clock, anchors=anchors)
    money: list[float] = []
    plain: list[float] = []
    clock = time.perf_counter
    try:
        for number in range(1, moves + 1):
            event = [NewEvent("T1", None, "T1", {"kind": "credits_in", "v": 1, "n": number})]
            start = clock()
            log.append(event, checkpoint=MONEY_MOVED)
            money.append(clock() - start)
            start = clock()
            log.append(event)
            plain.append(clock() - start)
    finally:
        log.close(checkpoint=False)
        anchors.close()
        _remove_db(path)
        (tmpdir / "money-anchors.jsonl").unlink(missing_ok=True)
    money_ms = statistics.median(money) * 1000
    plain_ms = statistics.median(plain) * 1000
    return {
        "money_moved_ms": money_ms,
        "plain_append_ms": plain_ms,
        "money_vs_plain": money_ms / plain_ms,
        "money_moves": moves,
    }


# -- big logs, built once ----------------------------------------------------------------------


def build_log(path: Path, keys_dir: Path, events: int, seed: int = 7) -> None:
    """Build a log of about ``events`` events (whole rounds) by the bulk path (module doc)."""
    tmp = path.with_name(path.name + ".building")
    _remove_db(tmp)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    log = EventLog.create_or_open(tmp, keys_dir, lambda: start)
    log_id = log.log_id
    meta = log.store.state.meta_digest()  # what every checkpoint signs (schema 4)
    log.close(checkpoint=False)
    key = load_signing_key(keys_dir)
    kid = key_id(key)
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")  # a benchmark fixture, rebuilt if interrupted
    head = ChainHead(0, "00" * 32)
    pending: list[EventRow] = []
    checkpoints: list[tuple[int, int, str, str, str, str, str, str]] = []

    def flush() -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", pending)
        conn.executemany("INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?)", checkpoints)
        conn.execute("COMMIT")
        pending.clear()
        checkpoints.clear()

    number = 0
    for index, round_ in _event_stream(seed):
        if head.seq >= events:
            break
        moment = format_time(start + timedelta(seconds=ROUND_SECONDS * index))
        planned = plan_step(head, moment, round_)
        head = ChainHead(planned[-1][0], planned[-1][7])
        pending.extend(planned)
        number += 1
        message = checkpoint_message(
            log_id=log_id,
            number=number,
            seq=head.seq,
            hash=head.hash,
            time=moment,
            reason="round-close",
            key_id=kid,
            meta=meta,
        )
        signature = key.sign(message).hex()
        checkpoints.append(
            (number, head.seq, head.hash, moment, "round-close", kid, signature, meta)
        )
        if len(pending) >= BULK_ROWS:
            flush()
    if pending:
        flush()
    conn.close()
    end = start + timedelta(seconds=ROUND_SECONDS * (number + 1))
    EventLog.create_or_open(tmp, keys_dir, lambda: end).close()
    _remove_db(path)
    os.replace(tmp, path)


def cached_log(cache_dir: Path, events: int) -> tuple[Path, Path]:
    """The cached log of ``events`` events and its key directory, built if missing."""
    keys_dir = cache_dir / "keys"
    if not (keys_dir / "log-signing.key").exists():
        init_keys(keys_dir, force=True)
    path = cache_dir / f"log-{events}-f{_BUILD_FORMAT}-s{SCHEMA_VERSION}.db"
    if not path.exists():
        build_log(path, keys_dir, events)
    return path, keys_dir


def bench_verify(path: Path, keys_dir: Path, repeats: int) -> dict[str, Any]:
    """verify_chain events per second on the log at ``path``."""
    public = load_public_key(keys_dir)
    rates: list[float] = []
    report = None
    for _ in range(repeats):
        with EventLogReader.open(path) as reader:
            start = time.perf_counter()
            report = verify_chain(reader, public)
            elapsed = time.perf_counter() - start
        rates.append(report.events / elapsed)
    assert report is not None
    return {
        "verify_events_per_s": statistics.median(rates),
        "verify_log_events": report.events,
        "verify_log_checkpoints": report.checkpoints,
        "verify_ok": report.ok,
    }


def bench_recall(path: Path, calls: int = 21) -> dict[str, Any]:
    """recent_rounds latency in milliseconds on the log at ``path``."""

    def timed(reader: EventLogReader, **kwargs: Any) -> tuple[float, int]:
        start = time.perf_counter()
        spans = reader.recent_rounds(**kwargs)
        return (time.perf_counter() - start) * 1000, len(spans)

    with EventLogReader.open(path) as reader:
        first_ms, _ = timed(reader, terminal=RECALL_TERMINAL, limit=10)
        ms = [timed(reader, terminal=RECALL_TERMINAL, limit=10)[0] for _ in range(calls)]
        table_ms = [timed(reader, table=TABLES[0], limit=10)[0] for _ in range(calls)]
        last = reader.event(reader.max_seq())
        assert last is not None
        end = datetime.fromisoformat(last.time[:-1]).replace(tzinfo=UTC)
        middle = end - (end - datetime(2025, 1, 1, tzinfo=UTC)) / 2
        window = {"since": middle - timedelta(hours=2), "until": middle}
        window_ms = [
            timed(reader, terminal=RECALL_TERMINAL, limit=10, **window)[0] for _ in range(calls)
        ]
        rounds = timed(reader, terminal=RECALL_TERMINAL, limit=10, **window)[1]
        events = reader.max_seq()
    return {
        "recent_rounds_ms": statistics.median(ms),
        "recent_rounds_first_call_ms": first_ms,
        "recent_rounds_table_ms": statistics.median(table_ms),
        "recent_rounds_window_ms": statistics.median(window_ms),
        "recent_rounds_window_found": rounds,
        "recall_log_events": events,
    }


def bench_log(
    tmpdir: str | os.PathLike[str],
    events: int = 20_000,
    step: int = 20,
    repeats: int = 5,
    *,
    verify_events: int = 200_000,
    recall_events: int = 1_000_000,
    cache_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Measure the event log's figures (module docstring) and return them; asserts nothing.

    Args:
        tmpdir: Scratch directory for the append runs (on the disk the server would use: the
            figures depend on its sync latency).
        events: Events appended per side per repetition.
        step: Events per append (one engine step, one transaction).
        repeats: Repetitions of the append and verify measurements.
        verify_events: Size of the log verified.
        recall_events: Size of the log queried.
        cache_dir: Where the big logs are cached (default ``<temp>/etg-bench-log``).

    Returns:
        ``{"append_ratio", "verify_events_per_s", "recent_rounds_ms", "details": {...}}``.
    """
    scratch = Path(tmpdir)
    scratch.mkdir(parents=True, exist_ok=True)
    cache = Path(cache_dir) if cache_dir is not None else Path(_default_cache())
    cache.mkdir(parents=True, exist_ok=True)
    keys_dir = scratch / "keys"
    if not (keys_dir / "log-signing.key").exists():
        init_keys(keys_dir, force=True)
    appends = bench_appends(scratch, keys_dir, events, step, repeats)
    money = bench_money(scratch, keys_dir)
    verify_path, verify_keys = cached_log(cache, verify_events)
    verify = bench_verify(verify_path, verify_keys, repeats)
    recall_path, _ = cached_log(cache, recall_events)
    recall = bench_recall(recall_path)
    return {
        "append_ratio": appends["append_ratio"],
        "verify_events_per_s": verify["verify_events_per_s"],
        "recent_rounds_ms": recall["recent_rounds_ms"],
        "details": {
            **{k: v for k, v in appends.items() if k != "append_ratio"},
            **money,
            **{k: v for k, v in verify.items() if k != "verify_events_per_s"},
            **{k: v for k, v in recall.items() if k != "recent_rounds_ms"},
            "events": events,
            "step": step,
            "repeats": repeats,
            "sqlite": sqlite3.sqlite_version,
            "python": sys.version.split()[0],
        },
    }


def _default_cache() -> str:
    import tempfile

    return os.path.join(tempfile.gettempdir(), "etg-bench-log")


if __name__ == "__main__":
    import tempfile

    quick = "--quick" in sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="etg-bench-log-") as scratch:
        figures = (
            bench_log(scratch, events=4_000, repeats=3, verify_events=50_000, recall_events=100_000)
            if quick
            else bench_log(scratch)
        )
    print(json.dumps(figures, indent=2))
