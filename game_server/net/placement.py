"""Which worker serves which table, and the logs that bind them (``etg serve --workers``).

Pure but for :func:`check_logs`, which reads the logs found. The placement of tables on
workers is a pure function of the tables and the count (:func:`placement`); tables that share
a local (server) meter are placed on one worker (:func:`meter_groups`). At start the front
refuses a layout that would move a table away from the log that holds its credits
(:func:`check_logs`). Used by :mod:`game_server.net.workers`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

from game_server.config import TableConfig
from game_server.games import game_for
from game_server.net.floor import FloorConfig
from shared.errors import ETGError


class WorkersError(ETGError):
    """The tables cannot be served over the workers asked for; the sentence says why."""


def meter_groups(configs: Sequence[TableConfig]) -> list[list[str]]:
    """The tables that must share a process: those linked, directly or through others, by a
    local meter id (one not linked across the floor by ``[linked_meters]``), in the order
    of ``configs``; a table with no shared meter is a group of its own."""
    owner: dict[str, str] = {}
    parent = {c.table_id: c.table_id for c in configs}

    def root(table: str) -> str:
        while parent[table] != table:
            parent[table] = parent[parent[table]]
            table = parent[table]
        return table

    for config in configs:
        floor_wide = set() if config.linked_meters is None else set(config.linked_meters.meters)
        for meter_id in game_for(config).meters(config):
            if meter_id in floor_wide:
                continue
            first = owner.setdefault(meter_id, config.table_id)
            parent[root(config.table_id)] = root(first)
    groups: dict[str, list[str]] = {}
    for config in configs:
        groups.setdefault(root(config.table_id), []).append(config.table_id)
    return list(groups.values())


def placement(configs: Sequence[TableConfig], workers: int) -> tuple[tuple[str, ...], ...]:
    """The tables of each of ``workers`` workers: the meter groups (:func:`meter_groups`),
    largest first, each to the worker with the fewest tables so far (the lowest number on a
    tie). The same tables and count always give the same placement.

    Raises:
        WorkersError: fewer groups than workers (a worker would have no table).
    """
    if workers < 1:
        raise WorkersError(f"{workers} workers: at least 1")
    groups = meter_groups(configs)
    if len(groups) < workers:
        raise WorkersError(
            f"{workers} workers for {len(configs)} table(s) that form {len(groups)} group(s) "
            "a process must keep together (tables sharing a local meter share its process): "
            f"use --workers {len(groups)} or fewer, or more tables (--tables)"
        )
    shares: list[list[str]] = [[] for _ in range(workers)]
    for group in sorted(groups, key=len, reverse=True):  # a stable sort: ties keep order
        min(shares, key=len).extend(group)
    order = {c.table_id: i for i, c in enumerate(configs)}
    return tuple(tuple(sorted(share, key=order.__getitem__)) for share in shares)


def worker_floor(floor: FloorConfig, tables: Collection[str]) -> FloorConfig:
    """The floor file as one worker sees it: the terminals of its ``tables`` only."""
    seated = {t: s for t, s in floor.terminals.items() if floor.tables.get(t) in tables}
    return replace(
        floor,
        terminals=seated,
        tables={t: floor.tables[t] for t in seated},
    )


def routes(floor: FloorConfig, shares: Sequence[Collection[str]]) -> dict[str, int]:
    """Route name -> worker index: every table id and every terminal id of the floor."""
    found: dict[str, int] = {}
    for index, share in enumerate(shares):
        for table in share:
            found[table] = index
    for terminal, table in floor.tables.items():
        if table in found:
            found.setdefault(terminal, found[table])
    return found


def worker_path(path: Path, index: int) -> Path:
    """Worker ``index``'s file (counted from 0) beside ``path``: ``x.db`` -> ``x.worker-1.db``."""
    return path.with_name(f"{path.stem}.worker-{index + 1}{path.suffix}")


def refuse_worker_logs(db: Path) -> None:
    """A one-process server (``--workers 1``) refuses to start beside the logs of a
    server of workers (:func:`check_logs`), which hold its tables' credits."""
    check_logs(db, [()])


def check_logs(db: Path, shares: Sequence[Collection[str]]) -> None:
    """Refuse a start that would move a table away from the log holding its credits.

    With one worker (``shares`` of one) no ``<db>.worker-<k>`` log may exist; with several,
    ``db`` itself (a one-process server's log) may not, no log of a worker beyond the count
    may, and each worker's log may hold only tables placed on that worker.

    Raises:
        WorkersError: the sentence names the log and the way out.
    """
    from game_server.eventlog import EventLogReader
    from game_server.table.recovery import logged_tables

    workers = len(shares)
    found = sorted(db.parent.glob(f"{db.stem}.worker-*{db.suffix}")) if db.parent.is_dir() else []
    if workers == 1:
        if found:
            raise WorkersError(
                f"the logs {', '.join(p.name for p in found)} beside {db} were written by a "
                f"server of {len(found)} worker(s): serve them with --workers {len(found)}"
            )
        return
    if db.exists():
        raise WorkersError(
            f"{db} is the log of a one-process server: its tables' credits and rounds are "
            "there. Serve it with --workers 1 (cash every terminal out first to move the "
            "tables to workers' logs), or give another --db"
        )
    known = {worker_path(db, k) for k in range(workers)}
    extra = [p.name for p in found if p not in known]
    if extra:
        raise WorkersError(
            f"the log(s) {', '.join(extra)} belong to a server of more workers than "
            f"{workers}: serve them with the same --workers as before"
        )
    placed = {table: k for k, share in enumerate(shares) for table in share}
    for k in range(workers):
        path = worker_path(db, k)
        if not path.exists():
            continue
        with EventLogReader.open(path) as reader:
            logged = logged_tables(reader)
        moved = sorted(t for t in logged if t in placed and placed[t] != k)
        if moved:
            raise WorkersError(
                f"{path.name} holds table(s) {', '.join(moved)}, which --workers {workers} "
                "would place on another worker: serve these logs with the --workers and "
                "tables that wrote them"
            )
