"""Service wiring: one table server process from its config, floor file, keys and log.

:func:`serve` is what ``etg serve`` and ``python -m game_server`` run. On start it runs the
DRBG known-answer self-test (a failure stops the server: DESIGN.md "RNG and shoe"), opens or
recovers the table from its event log (:func:`game_server.table.recovery.open_table`:
wallets, meters, the current shoe and any interrupted round come back from the log), starts
the round machine, and listens with mutual TLS 1.3. Ctrl-C or SIGTERM stops the reactor and
the log is closed with a signed shutdown checkpoint.

Entry points: :func:`serve`, :func:`default_floor`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from twisted.internet import reactor as _reactor
from twisted.logger import Logger, globalLogBeginner, textFileLogObserver

from game_server.config import TableConfig
from game_server.eventlog import system_clock
from game_server.net.floor import FloorConfig
from game_server.net.server import TableServerFactory
from game_server.net.tls import Refusal, server_tls_options
from game_server.rng import self_test
from game_server.rng.entropy import EntropySource
from game_server.table.machine import RoundMachine
from game_server.table.recovery import open_table_reporting
from game_server.table.session import production_seeds

log = Logger()


def default_floor(config: TableConfig, port: int = 7400) -> FloorConfig:
    """Terminals ``T1``..``Tn`` on seats 1..n of the table (what ``etg certs init`` issues)."""
    return FloorConfig(
        terminals={f"T{seat}": seat for seat in range(1, config.rules.seats + 1)}, port=port
    )


def serve(
    config: TableConfig,
    db: Path,
    certs: Path,
    floor: FloorConfig,
    *,
    port: int | None = None,
    interface: str = "127.0.0.1",
    next_round_delay: float = 3.0,
) -> None:
    """Run the table server until the process is stopped."""
    reactor: Any = _reactor
    observer: Any = textFileLogObserver(sys.stdout)  # an ILogObserver (zope, untyped)
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    self_test()
    entropy = EntropySource()
    session, report = open_table_reporting(
        config,
        db,
        certs,
        floor.terminals,
        clock=system_clock,
        seeds=production_seeds(entropy, config.table_id),
    )
    log.info("table {table}: {report}", table=config.table_id, report=report.describe())
    machine = RoundMachine(session, reactor, next_round_delay=next_round_delay)
    factory = TableServerFactory(machine, floor, reactor)

    def refused(peer: Any, refusal: Refusal) -> None:
        log.warn("handshake refused from {peer}: {reason}", peer=peer, reason=refusal.reason)

    options = server_tls_options(certs, floor.revocations, on_refused=refused)
    listening = reactor.listenSSL(
        floor.port if port is None else port, factory, options, interface=interface
    )
    log.info(
        "table {table} listening on {host}:{port} (TLS 1.3, client certificates required)",
        table=config.table_id,
        host=interface,
        port=listening.getHost().port,
    )

    def shutdown() -> None:
        log.info("stopping: closing the event log with a signed checkpoint")
        session.sink.close()  # type: ignore[attr-defined]

    reactor.addSystemEventTrigger("before", "shutdown", shutdown)
    machine.open()
    reactor.run()
