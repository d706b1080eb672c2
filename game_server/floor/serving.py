"""What ``etg serve --store URL`` adds to a table server: the proof against the store at
start, the shipper beside the log, its alarm lines in the server's log and its meters in the
operator's ``ReadMeters``.

Entry points: :func:`prove_at_start` (before the log is opened), :func:`linked_meters`
(each table's view of the meters its Rules Submission links across the floor, given to the
recovery) and :func:`start_shipping` (after; returns the
:class:`~game_server.floor.shipper.Shipper`, whose ``meters`` the server adds to
``ReadMeters`` as ``store_shipping`` and whose ``stop`` it calls after closing the log).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from game_server.config import TableConfig
from game_server.floor.anchors import prove_against_store
from game_server.floor.meters import LinkedMeterClient, TableMeters
from game_server.floor.shipper import Shipper
from game_server.floor.store import check_url, redacted
from game_server.games import game_for
from game_server.rules.meters import MeterBank

log = Logger()

#: Seconds between two looks at the shipper's alarm and status.
WATCH_EVERY: Final = 2.0


def prove_at_start(db: str | os.PathLike[str], public_key: Ed25519PublicKey, url: str) -> None:
    """Prove the log against the checkpoints the store holds of it; a store that cannot be
    reached is a warning (see :func:`~game_server.floor.anchors.prove_against_store`).

    Raises:
        ChainBroken: the log was cut back or rewritten since the store received it.
        StoreUnavailable: ``url`` is not a PostgreSQL URL (a typo stops the server; a store
            that does not answer does not).
    """
    check_url(url)
    if not Path(db).exists():
        return  # a new log: nothing to prove

    def refused(sentence: str) -> None:
        log.error("ALARM: {sentence}", sentence=sentence)

    warning = prove_against_store(db, public_key, url, refused)
    if warning is not None:
        log.warn("{warning}", warning=warning)
    else:
        log.info("event log {db} proven against the floor store {url}", db=db, url=redacted(url))


def linked_meters(
    url: str,
) -> tuple[Callable[[TableConfig, MeterBank, Callable[[], int]], MeterBank], Callable[[], None]]:
    """Each table's meters for :func:`~game_server.table.recovery.open_tables`: a table
    whose Rules Submission names ``[linked_meters]`` gets a
    :class:`~game_server.floor.meters.TableMeters` on its own connection to the store, whose
    statements run in its own worker thread while the reactor serves the other tables
    (:mod:`game_server.table.steps`), its linked meters opened in the store (or, while it
    cannot be reached, when it next can; unavailable until then). Returns the maker and
    what closes every table's connection (at stop)."""
    clients: dict[str, LinkedMeterClient] = {}

    def make(config: TableConfig, bank: MeterBank, round_of: Callable[[], int]) -> MeterBank:
        stated = config.linked_meters
        assert stated is not None
        # A table rebuilt by the operator's reopen keeps its connection.
        client = clients.setdefault(config.table_id, LinkedMeterClient(url))
        meters = TableMeters(
            bank,
            client,
            frozenset(stated.meters),
            config.table_id,
            round_of,
            stated.share_window_ms,
        )
        specs = game_for(config).meters(config)
        for meter_id in stated.meters:
            meters.link(meter_id, specs[meter_id])
            down = meters.unavailable(meter_id)
            if down is not None:
                log.warn("table {table}: {down}", table=config.table_id, down=down)
        return meters

    def close() -> None:
        for client in clients.values():
            client.close()

    return make, close


def start_shipping(
    reactor: Any, db: str | os.PathLike[str], url: str, key_id: str, lag_limit: float
) -> Shipper:
    """Start shipping the log ``db`` to the store at ``url``, and log the shipper's alarm
    and status lines every :data:`WATCH_EVERY` seconds from the reactor."""
    shipper = Shipper(db, url, key_id, lag_limit=lag_limit)
    shipper.start()

    def watch() -> None:
        for level, text in shipper.watch():
            getattr(log, level)("{text}", text=text)

    watcher = LoopingCall(watch)
    watcher.clock = reactor
    watcher.start(WATCH_EVERY, now=False)

    def stop_watching() -> None:
        if watcher.running:
            watcher.stop()

    reactor.addSystemEventTrigger("before", "shutdown", stop_watching)
    log.info(
        "shipping the event log to the floor store {url} (lag alarm past {limit:.0f} s)",
        url=shipper.shown,
        limit=lag_limit,
    )
    return shipper
