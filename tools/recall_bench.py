"""``etg bench log``'s recall figure: ``etg recall list --last 10 --terminal X`` (and the other
recall paths) timed on a realistic log of 1,000,000 events.

:func:`build_bench_log` plays real rounds at four tables through the live table's session and
bulk-inserts the log's own planned rows (a fixture, cached between runs by
:func:`cached_bench_log`); :func:`bench_recall` times the commands on it and returns figures
(it asserts nothing). Also ``python -m tools.recall_cli bench [--events N] [--walk] [--cache
DIR]``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from game_server.eventlog import EventLogReader
from game_server.recall.query import list_rounds
from tools.recall_cli import recall

#: Tables of the benchmark log; the odd ones offer Lucky Aces.
BENCH_TABLES: Final = ("BJ-01", "BJ-02", "BJ-03", "BJ-04")
#: Seats (terminals) per table.
BENCH_SEATS: Final = 5
#: The terminal the benchmark recalls (plays at BJ-03, which offers Lucky Aces).
BENCH_TERMINAL: Final = "BJ-03-T2"
#: A terminal at a table without Lucky Aces: ``--wager lucky_aces`` scans all its history.
BENCH_TERMINAL_NO_SIDE: Final = "BJ-02-T1"
#: Rows per transaction while building.
_BULK_ROWS: Final = 50_000
_BUILD_FORMAT: Final = 1


class _StepClock:
    """A fake clock: every reading is ``step`` later than the one before."""

    def __init__(self, start: datetime, step: timedelta) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


class _BulkSink:
    """An event sink for :class:`~game_server.table.session.TableSession` that plans rows
    with the log's own :func:`~game_server.eventlog.plan_step` and checkpoint message, and
    inserts them in big transactions on a raw connection (a benchmark fixture only)."""

    def __init__(
        self, conn: sqlite3.Connection, key: Any, log_id: str, meta: str, clock: _StepClock
    ) -> None:
        from game_server.eventlog import GENESIS_HASH, ChainHead
        from game_server.keys import key_id

        self.conn = conn
        self.key = key
        self.kid = key_id(key)
        self.log_id = log_id
        self.meta = meta
        self.clock = clock
        self.head = ChainHead(0, GENESIS_HASH)
        self.number = 0
        self.rows: list[Any] = []
        self.checkpoints: list[tuple[int, int, str, str, str, str, str, str]] = []

    def append(self, step: Sequence[Any], *, checkpoint: str | None = None) -> Sequence[object]:
        from game_server.eventlog import ChainHead, checkpoint_message, format_time, plan_step

        moment = format_time(self.clock())
        rows = plan_step(self.head, moment, step)
        if rows:
            self.head = ChainHead(rows[-1][0], rows[-1][7])
        self.rows.extend(rows)
        if checkpoint is not None:
            self.number += 1
            message = checkpoint_message(
                log_id=self.log_id,
                number=self.number,
                seq=self.head.seq,
                hash=self.head.hash,
                time=moment,
                reason=checkpoint,
                key_id=self.kid,
                meta=self.meta,
            )
            signature = self.key.sign(message).hex()
            self.checkpoints.append(
                (self.number, self.head.seq, self.head.hash, moment, checkpoint, self.kid,
                 signature, self.meta)
            )  # fmt: skip
        if len(self.rows) >= _BULK_ROWS:
            self.flush()
        return rows

    def flush(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self.rows)
        self.conn.executemany(
            "INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self.checkpoints
        )
        self.conn.execute("COMMIT")
        self.rows.clear()
        self.checkpoints.clear()


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def build_bench_log(
    path: Path,
    keys_dir: Path,
    events: int = 1_000_000,
    seed: int = 5,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Build a realistic log of about ``events`` events: real rounds, bulk-inserted.

    Four tables (:data:`BENCH_TABLES`) of the example config's game (the fully automated
    Blackjack table, Lucky Aces at BJ-01 and BJ-03) of five terminals each play in turn
    through the game's bots at the live table's own session (:meth:`Game.busy_table
    <game_server.games.api.Game.busy_table>`): sealed, committed and revealed shoes, wallets,
    ``round_started`` / ``round_closed`` with balances, a signed checkpoint per round close.
    Each seat sits out a round now and then, 3% of decisions are the countdown's, some
    players take insurance. Steps are 0.75 s apart from 2026-01-01. The rows are planned by
    the log's own ``plan_step`` and inserted in transactions of 50,000 rows on a raw
    connection (``synchronous=OFF``: a fixture, rebuilt if interrupted); the log is then
    opened by ``EventLog.create_or_open`` (which rechecks its tail) and closed with a signed
    shutdown checkpoint. ``tools.bench_log``'s builder was not reused: its synthetic rounds
    are not decodable records (no ``table_opened``, partial bodies), which recall needs.

    Returns:
        The number of rounds played.
    """
    from game_server import games
    from game_server.config import example_config_path, load_config
    from game_server.eventlog import EventLog
    from game_server.keys import key_id, load_public_key, load_sealing_key, load_signing_key
    from game_server.table.session import SealedShoes, simulation_seeds

    tmp = path.with_name(path.name + ".building")
    _remove_db(tmp)
    clock = _StepClock(datetime(2026, 1, 1, tzinfo=UTC), timedelta(milliseconds=750))
    log = EventLog.create_or_open(tmp, keys_dir, clock)
    log_id = log.log_id
    meta = log.store.state.meta_digest()  # what every checkpoint signs (schema 4)
    log.close(checkpoint=False)
    signing_key = load_signing_key(keys_dir)
    sealing_key = load_sealing_key(keys_dir)
    kid = key_id(load_public_key(keys_dir))
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    sink = _BulkSink(conn, signing_key, log_id, meta, clock)
    base = load_config(example_config_path())
    game = games.game_for(base)
    rng = random.Random(seed)
    tables = []
    for index, table_id in enumerate(BENCH_TABLES):
        config = dataclasses.replace(base, table_id=table_id)
        shoes = SealedShoes(config, simulation_seeds(seed + index, table_id), sealing_key, kid)
        seats = {f"{table_id}-T{seat}": seat for seat in range(1, BENCH_SEATS + 1)}
        tables.append(game.busy_table(config, sink, shoes, seats, index))
    rounds = 0
    while sink.head.seq < events:
        tables[rounds % len(tables)].play_round(rng.random)
        rounds += 1
        if progress is not None and rounds % 1000 == 0:
            progress(sink.head.seq)
    for table in tables:
        table.close()
    sink.flush()
    conn.close()
    EventLog.create_or_open(tmp, keys_dir, clock).close()
    _remove_db(path)
    os.replace(tmp, path)
    return rounds


def cached_bench_log(cache_dir: Path, events: int) -> tuple[Path, Path, float | None]:
    """The benchmark log of about ``events`` events in ``cache_dir`` (built if missing):
    ``(log, key directory, seconds spent building or None if cached)``."""
    from game_server.eventlog import SCHEMA_VERSION
    from game_server.keys import init_keys

    cache_dir.mkdir(parents=True, exist_ok=True)
    keys_dir = cache_dir / "keys"
    path = cache_dir / f"recall-{events}-f{_BUILD_FORMAT}-s{SCHEMA_VERSION}.db"
    if not (keys_dir / "log-signing.key").exists():
        init_keys(keys_dir, force=True)
        _remove_db(path)
    if path.exists():
        return path, keys_dir, None
    start = time.perf_counter()
    build_bench_log(path, keys_dir, events)
    return path, keys_dir, time.perf_counter() - start


def _median_ms(action: Callable[[], object], calls: int) -> tuple[float, float]:
    """``(median, first)`` wall time of ``calls`` calls of ``action``, in milliseconds."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), times[0]


def bench_recall(
    tmpdir: str | os.PathLike[str],
    *,
    events: int = 1_000_000,
    calls: int = 21,
    cache_dir: str | os.PathLike[str] | None = None,
    compare_walk: bool = False,
) -> dict[str, Any]:
    """Measure recall on a log of ``events`` events; returns figures, asserts nothing.

    The headline figure ``list_ms`` is the median wall time of the whole command ``etg
    recall list DB --last 10 --terminal BJ-03-T2`` run in-process through click (open the
    log read-only, query, summarise, format), over ``calls`` runs; target < 100 ms.
    ``details`` adds the query alone on an open reader, the first run, a fresh Python
    process (interpreter start and imports included), the ``--wager`` / ``--min-payout``
    scans (common, and never matching: the worst case), and ``show`` of the terminal's last
    round (with ``compare_walk``, also ``rounds.load_round``, which walks the log).

    Args:
        tmpdir: Where the log is built and kept if ``cache_dir`` is None.
        events: Size of the log.
        calls: Runs per figure (medians).
        cache_dir: Keep the log here between runs (built once, reused).
        compare_walk: Also time ``load_round`` (reads the log from its start: seconds).
    """
    cache = Path(cache_dir) if cache_dir is not None else Path(tmpdir)
    path, _, built_s = cached_bench_log(cache, events)
    db = str(path)
    terminal = ["--terminal", BENCH_TERMINAL]
    list_ms, first_ms = _median_ms(_command("list", db, "--last", "10", *terminal), calls)
    json_ms, _ = _median_ms(_command("list", db, "--last", "10", *terminal, "--json"), calls)
    reading = _reader_figures(path, calls, compare_walk)
    latest = reading.pop("latest")
    show_ms, _ = _median_ms(
        _command("show", db, str(latest.round_id), "--table", latest.table_id), calls
    )
    few = max(3, calls // 4)
    scan_ms = _scan_figures(db, few)
    process_ms = _process_ms(db, few)
    return {
        "list_ms": list_ms,
        "details": {
            "command": f"etg recall list {db} --last 10 --terminal {BENCH_TERMINAL}",
            "list_first_run_ms": first_ms,
            "list_json_ms": json_ms,
            "list_query_only_ms": reading["list_query_only_ms"],
            "list_fresh_process_ms": process_ms,
            "show_ms": show_ms,
            "fetch_round_ms": reading["fetch_round_ms"],
            "load_round_walk_ms": reading["load_round_walk_ms"],
            **scan_ms,
            "log_events": reading["log_events"],
            "log_rounds": reading["log_rounds"],
            "log_bytes": path.stat().st_size,
            "built_s": built_s,
            "calls": calls,
            "sqlite": sqlite3.sqlite_version,
            "python": sys.version.split()[0],
        },
    }


def _command(*args: str) -> Callable[[], None]:
    """``etg recall ARGS`` run in-process through click (refused: an error)."""
    from click.testing import CliRunner

    runner = CliRunner()

    def run() -> None:
        result = runner.invoke(recall, list(args))
        if result.exit_code != 0:
            raise RuntimeError(f"recall {' '.join(args)} failed: {result.output}")

    return run


def _reader_figures(path: Path, calls: int, compare_walk: bool) -> dict[str, Any]:
    """On an open reader: the list query alone, ``fetch_round`` (and with ``compare_walk``
    ``load_round``) of the bench terminal's latest round, the log's size; and that round
    (``latest``)."""
    from game_server.recall.query import fetch_round
    from game_server.recall.rounds import load_round

    with EventLogReader.open(path) as reader:
        query_ms, _ = _median_ms(
            lambda: list_rounds(reader, last=10, terminal=BENCH_TERMINAL), calls
        )
        latest = list_rounds(reader, last=1, terminal=BENCH_TERMINAL)[0]
        events_in_log = reader.max_seq()
        rounds_in_log = _count_kind(reader, "round_started")
        fetch_ms, _ = _median_ms(
            lambda: fetch_round(reader, latest.table_id, latest.round_id), calls
        )
        walk_ms = None
        if compare_walk:
            walk_ms, _ = _median_ms(lambda: load_round(reader, latest.table_id, latest.round_id), 1)
    return {
        "latest": latest,
        "list_query_only_ms": query_ms,
        "fetch_round_ms": fetch_ms,
        "load_round_walk_ms": walk_ms,
        "log_events": events_in_log,
        "log_rounds": rounds_in_log,
    }


def _scan_figures(db: str, calls: int) -> dict[str, float]:
    """The ``--wager`` and ``--min-payout`` scans (common, and never matching: the worst
    case), each the median of ``calls`` runs."""
    terminal = ["--terminal", BENCH_TERMINAL]
    scans = {
        "wager_common_ms": ("--wager", "lucky_aces", *terminal),
        "wager_absent_for_terminal_ms": (
            "--wager", "lucky_aces", "--terminal", BENCH_TERMINAL_NO_SIDE
        ),
        "wager_insurance_any_table_ms": ("--wager", "insurance"),
        "min_payout_2500_ms": ("--min-payout", "2500", *terminal),
        "min_payout_never_any_table_ms": ("--min-payout", "100000000"),
    }  # fmt: skip
    return {
        name: _median_ms(_command("list", db, "--last", "10", *args), calls)[0]
        for name, args in scans.items()
    }


def _count_kind(reader: EventLogReader, kind: str) -> int:
    from game_server.recall.query import _rows

    return int(_rows(reader, "SELECT count(*) FROM events WHERE kind = ?", [kind])[0][0])


def _process_ms(db: str, runs: int) -> float:
    """Median wall time of the list command in a fresh interpreter (start-up included)."""
    code = (
        "from tools.recall_cli import recall; "
        f"recall(['list', {db!r}, '--last', '10', '--terminal', {BENCH_TERMINAL!r}])"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, check=True
        )
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str]) -> None:
    """``python -m tools.recall_cli bench [--events N] [--walk] [--cache DIR]``: print the
    figures as JSON."""
    events = 1_000_000
    if "--events" in argv:
        events = int(argv[argv.index("--events") + 1])
    cache = argv[argv.index("--cache") + 1] if "--cache" in argv else None
    default_cache = os.path.join(tempfile.gettempdir(), "etg-bench-recall")
    figures = bench_recall(
        default_cache,
        events=events,
        cache_dir=cache,
        compare_walk="--walk" in argv,
    )
    print(json.dumps(figures, indent=2))
