"""Service wiring: one table server process from its config, floor file, keys and log.

:func:`serve` is what ``etg serve`` and ``python -m game_server`` run. On start it first
binds its port (:func:`listen_first`: a port in use stops it in one line before the log is
opened or created), then runs the DRBG known-answer self-test (a failure stops the server:
docs/design.md "RNG and shoe"), proves the event log (its whole chain from the last checkpoint of
the anchor stream, or from the first event) and recovers the tables from it
(:func:`game_server.table.recovery.open_tables`: wallets, meters, the current shoe and any
interrupted round come back from the log; a log of other tables or rules is refused unless
the change is stated), starts the round machines, and listens with mutual TLS 1.3. Ctrl-C or
SIGTERM stops the reactor and the log is closed with a signed shutdown checkpoint. Before it
answers anything, the server reads from the log the last request ids of each client that took
effect (:mod:`game_server.net.applied`): a client that resends a command whose answer the last
stop lost is told it already took effect, and it does not run again.

When the log cannot be written (a full disk, a failed device, an anchor stream that cannot
be written), every table goes out of service with the log's sentence as its reason, in the
terminals' views and the operator's ``ReadMeters``; the operator's ``SetTableState open``
then proves the log again and rebuilds every table from it in the running process
(:func:`~game_server.table.recovery.reload_tables`), or is refused with a sentence.

Entry points: :func:`serve`, :func:`default_floor`, :func:`listen_first`.
"""

from __future__ import annotations

import errno
import socket
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from twisted.internet import reactor as _reactor
from twisted.internet.task import LoopingCall
from twisted.logger import Logger, globalLogBeginner, textFileLogObserver

from game_server.config import TableConfig
from game_server.eventlog import AnchorFile, EventLogReader, system_clock
from game_server.eventlog.locks import CHECK_SECONDS
from game_server.games import game_for
from game_server.keys import load_public_key
from game_server.net.access import revoked_terminals
from game_server.net.applied import applied_in
from game_server.net.floor import FloorConfig, descriptors_needed, raise_descriptor_limit
from game_server.net.identity import RevocationList
from game_server.net.server import GatedTLSFactory, TableServerFactory
from game_server.net.tls import Refusal, server_tls_options
from game_server.recall.terminal import terminal_recall
from game_server.rng import self_test
from game_server.rng.entropy import EntropySource
from game_server.table.api import HostedTable, TableMachine, TableState
from game_server.table.recovery import LinkMeters, open_tables, reload_tables
from game_server.table.router import TableRouter
from game_server.table.session import SeedSource, TableBook, production_seeds
from shared.errors import ETGError

log = Logger()

#: Connections the kernel queues for the server before it accepts them (Twisted's default).
LISTEN_BACKLOG: Final = 50


class PortUnavailable(ETGError):
    """The server cannot listen on its port: in use, not allowed, or no such address."""


class LinkedMetersNeedStore(ETGError):
    """A Rules Submission links meters across the floor and the server has no store."""


class LinkedMeterMix(ETGError):
    """A table links a meter across the floor and shares a local meter with another table of
    its server (refused at start: :func:`refuse_linked_and_shared`)."""


def refuse_linked_and_shared(configs: Sequence[TableConfig]) -> None:
    """Refuse a table that links a meter across the floor (605a.8, ``[linked_meters]``) and
    shares another, local, meter with a second table of this server.

    The server's bank of local meters records a change when the step makes it, before the
    step's log write; a step of a linked table then waits on the floor store, and may fail
    with it, after the other table's steps have seen (and built on) its local change. Each
    of such a table's meters must be either linked or its own.

    Raises:
        LinkedMeterMix: the sentence names the table, the local meter, the tables sharing it
            and the ways out.
    """
    meters = {c.table_id: game_for(c).meters(c) for c in configs}
    for config in configs:
        stated = config.linked_meters
        if stated is None:
            continue
        for meter_id in meters[config.table_id]:
            if meter_id in stated.meters:
                continue
            others = [t for t, ids in meters.items() if t != config.table_id and meter_id in ids]
            if others:
                raise LinkedMeterMix(
                    f"table {config.table_id} links meter(s) {', '.join(stated.meters)} across "
                    f"the floor (605a.8, [linked_meters]) and shares its local meter "
                    f"{meter_id} with table(s) {', '.join(others)} of this server: a step that "
                    "waits on the floor store must not change a meter another table of the "
                    f"server reads. Link {meter_id} too (add it to [linked_meters] meters), "
                    "remove its `meter` id so that each table keeps its own, or serve the "
                    "tables from separate servers"
                )


def listen_first(interface: str, port: int) -> socket.socket:
    """Bind and listen on ``interface``:``port`` before anything else is done, so that a
    port in use stops the server before it opens (or creates) its log.

    Returns:
        The listening socket, non-blocking, for ``reactor.adoptStreamPort``.

    Raises:
        PortUnavailable: the port is in use, or cannot be listened on (the message says
            which, in one line).
    """
    family = socket.AF_INET6 if ":" in interface else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        # As Twisted's listenTCP does: a restart need not wait for TIME_WAIT to pass.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((interface, port))
        listener.listen(LISTEN_BACKLOG)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailable(
                f"port {port} is in use on {interface} (another table server?); stop it, or "
                "choose another port with --port or [floor] port"
            ) from None
        raise PortUnavailable(f"cannot listen on {interface}:{port}: {exc.strerror}") from None
    listener.setblocking(False)
    return listener


def table_configs(config: TableConfig, tables: int) -> list[TableConfig]:
    """The configs of the tables a server hosts: the file's table, or ``tables`` copies of it
    named ``<id>-1`` .. ``<id>-K`` (the same Rules Submission at every table)."""
    if tables == 1:
        return [config]
    return [replace(config, table_id=f"{config.table_id}-{k}") for k in range(1, tables + 1)]


def default_floor(config: TableConfig, port: int = 7400, tables: int = 1) -> FloorConfig:
    """Terminals ``T1``..``Tn`` on seats 1..n of each table in turn (what ``etg certs init
    --terminals n`` issues): with K tables, T1..T7 at the first, T8..T14 at the second..."""
    seats = config.rules.seats
    names = [c.table_id for c in table_configs(config, tables)]
    terminals = {f"T{i}": (i - 1) % seats + 1 for i in range(1, seats * tables + 1)}
    placed = {f"T{i}": names[(i - 1) // seats] for i in range(1, seats * tables + 1)}
    return FloorConfig(terminals=terminals, port=port, tables=placed if tables > 1 else {})


def machine_for(session: TableBook, reactor: Any, next_round_delay: float) -> HostedTable:
    """The round machine of a recovered table, as its game builds it
    (:meth:`~game_server.games.api.Game.machine`: the countdowns and table states of its
    rounds)."""
    return game_for(session.config).machine(session, reactor, next_round_delay)


def _fault(machine: HostedTable, reason: str) -> None:
    """Out of service at once (a machine already out of service keeps its first reason)."""
    if machine.state is not TableState.OUT_OF_SERVICE:
        machine.fault(reason)


def serve(
    config: TableConfig,
    db: Path,
    certs: Path,
    floor: FloorConfig,
    *,
    port: int | None = None,
    interface: str = "127.0.0.1",
    next_round_delay: float = 3.0,
    tables: int = 1,
    anchors: Path | None = None,
    change_reason: str | None = None,
    store: str | None = None,
    store_lag_limit: float = 60.0,
    hosted: Collection[str] | None = None,
    accept: Callable[[Any, TableServerFactory, Any], str] | None = None,
) -> None:
    """Run the table server until the process is stopped (``tables`` copies of the table
    when more than one; they share the event log, each event naming its table).

    Args:
        anchors: The anchor stream (JSON lines) every checkpoint is also written to; keep it
            on another disk or machine. None: a cut-back log cannot be detected (a warning).
        change_reason: The operator's statement of an intended change of the tables or their
            Rules Submissions against the log (``--change-config``).
        store: The floor store's URL (``--store``): the log is proven against the
            checkpoints it holds at start, and shipped to it as it is written
            (:mod:`game_server.floor`); None: the log stays on this machine only.
        store_lag_limit: Seconds of shipping lag past which the operator is alarmed.
        hosted: The tables of the ``tables`` this process runs (None: all of them): a
            worker of ``etg serve --workers`` (:mod:`game_server.net.workers`).
        accept: Where connections come from instead of a port of its own (a worker's):
            called with the reactor, the server's factory and the TLS options once the
            tables are up; returns what the log line says.

    Raises:
        LinkedMetersNeedStore: the Rules Submission names ``[linked_meters]`` and no store
            is given (raised before anything else).
        LinkedMeterMix: a table links a meter across the floor and shares a local one with
            another table of the server (raised before anything but the above).
        DescriptorLimit: the process may not open the descriptors its floor needs (its
            soft limit is raised to its hard limit first:
            :func:`~game_server.net.floor.raise_descriptor_limit`).
        PortUnavailable: the port is in use (or cannot be listened on); raised before the
            log is opened or its folder made.
    """
    if config.linked_meters is not None and store is None:
        raise LinkedMetersNeedStore(
            f"the Rules Submission links meter(s) {', '.join(config.linked_meters.meters)} "
            "across the floor (605a.8, [linked_meters]): they live in the floor store, so "
            "the server needs it: give --store URL (or remove [linked_meters] to keep the "
            "meters this server's)"
        )
    configs = table_configs(config, tables)
    if hosted is not None:
        configs = [c for c in configs if c.table_id in hosted]
    refuse_linked_and_shared(configs)
    terminals = len(floor.terminals)
    raise_descriptor_limit(descriptors_needed(floor), f"a server of {terminals} terminal(s)")
    listener = (
        None
        if accept is not None
        else listen_first(interface, floor.port if port is None else port)
    )
    db.parent.mkdir(parents=True, exist_ok=True)
    reactor: Any = _reactor
    observer: Any = textFileLogObserver(sys.stdout)  # an ILogObserver (zope, untyped)
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    self_test()
    entropy = EntropySource()

    def seats(table: TableConfig) -> Mapping[str, int]:
        return floor.seats_at(table.table_id if tables > 1 else None)

    def seeds(table: TableConfig) -> SeedSource:
        return production_seeds(entropy, table.table_id)

    linked: LinkMeters | None = None
    close_meters: Callable[[], None] | None = None
    if store is not None:
        from game_server.floor.serving import linked_meters, prove_at_start

        prove_at_start(db, load_public_key(certs), store)
        if config.linked_meters is not None:
            linked, close_meters = linked_meters(store)
    elif anchors is None:
        log.warn(
            "no anchor stream (--anchors): a log cut back to one of its own checkpoints "
            "cannot be detected; on a floor keep one on another disk or machine"
        )
    started = time.perf_counter()
    event_log, opened = open_tables(
        configs,
        db,
        certs,
        seats,
        clock=system_clock,
        seeds=seeds,
        anchors=None if anchors is None else AnchorFile(anchors),
        change_reason=change_reason,
        linked=linked,
    )
    log.info(
        "event log {db} proven and {count} table(s) recovered in {seconds:.2f} s (last seq {seq})",
        db=db,
        count=len(opened),
        seconds=time.perf_counter() - started,
        seq=event_log.head.seq,
    )
    machines: dict[str, HostedTable] = {}
    for session, report in opened:
        table_id = session.config.table_id
        log.info("table {table}: {report}", table=table_id, report=report.describe())
        machines[table_id] = machine_for(session, reactor, next_round_delay)
    machine: TableMachine = (
        next(iter(machines.values())) if tables == 1 else TableRouter(machines, floor.tables)
    )
    reader = EventLogReader.open(db)

    # Whether the log failed since the tables were last built from it: a failed write puts
    # every table out of service, also those whose own sessions saw no error.
    log_failed = [False]

    def out_of_service(error: Exception) -> None:
        log_failed[0] = True
        reason = f"the event log cannot be written: {error}"
        log.error("every table goes out of service: {reason}", reason=reason)
        reactor.callLater(0, show_what_is_logged, reason)

    def show_what_is_logged(reason: str) -> None:
        """Every table out of service, then (the log commits behind: a table may hold steps
        planned after the last commit, never saved) each shown as its log holds it."""
        with factory.views_held():
            for each in machines.values():
                _fault(each, reason)
            try:
                logged = reload_tables(
                    configs, event_log, db, certs, seats, seeds=seeds, linked=linked, resume=False
                )
                for session, _ in logged:
                    machines[session.config.table_id].replace_session(session)
            except Exception:
                log.failure("the tables could not be read back from the log; they show memory")
        factory.step_logged(())

    def reopen() -> None:
        if (
            not log_failed[0]
            and event_log.failed is None
            and not any(m.session.failed for m in machines.values())
        ):
            return
        # The rebuild commits on this thread (EventLog.resume writes through first): it reads
        # the log's file for what it writes.
        try:
            rebuilt = reload_tables(
                configs, event_log, db, certs, seats, seeds=seeds, linked=linked
            )
            for session, _ in rebuilt:
                machines[session.config.table_id].replace_session(session)
            # A commit reported failed may have reached the log after all (EventLog.resume):
            # its request ids took effect, whatever memory answered.
            factory.answers.remember_applied(applied_in(reader))
            log_failed[0] = False
            log.info("the event log is proven again; every table was rebuilt from it")
        finally:
            if event_log.failed is None and not event_log.closed:
                event_log.write_behind(reactor.callFromThread)

    event_log.on_failure(out_of_service)
    # Commit on the log's own thread, every step planned meanwhile in one transaction; the
    # factory holds each answer and view until what it shows is durable.
    event_log.write_behind(reactor.callFromThread)
    # Prove, now and every few seconds, that this process holds SQLite's lock on the log (a
    # descriptor of the file closed by anything but SQLite drops it, and another process
    # may then delete the -wal under the server): a loss fails the log as a failed write.
    lock_lost = event_log.check_lock()
    if lock_lost is not None:
        raise lock_lost
    lock_watch = LoopingCall(event_log.check_lock)
    lock_watch.clock = reactor
    lock_watch.start(CHECK_SECONDS, now=False)

    revoked = revoked_terminals(reader.events_of_kind("terminal_access"))
    if revoked:
        log.info(
            "terminal(s) revoked by the operator, refused: {ids}", ids=", ".join(sorted(revoked))
        )

    def refused(peer: Any, refusal: Refusal) -> None:
        # As a refusal at accept: the first of an address at once, then once a minute, so
        # a client without a valid certificate cannot flood the log at its connect rate.
        factory.refused_handshake(peer, refusal.reason.value, refusal.detail)

    options = server_tls_options(certs, floor.revocations, on_refused=refused, log_refusals=False)

    def revocations_changed(revocations: RevocationList) -> None:
        options.revocations = revocations

    shipper = None
    if store is not None:
        from game_server.floor.serving import start_shipping

        shipper = start_shipping(reactor, db, store, event_log.key_id, store_lag_limit)
    factory = TableServerFactory(
        machine,
        floor,
        reactor,
        recall=lambda terminal: terminal_recall(reader, terminal),
        reopen=reopen,
        tables=machines,
        revoked=revoked,
        on_revocations=revocations_changed,
        server_meters={
            "event_log": event_log.commit_meters,
            **({} if shipper is None else {"store_shipping": shipper.meters}),
        },
        when_written=event_log.when_written,
    )
    options.revocations = factory.floor.revocations
    # What each client's last request ids did, from the log: a retry of one whose answer the
    # last stop lost is answered so, and never runs again.
    remembered = factory.answers.remember_applied(applied_in(reader))
    log.info(
        "{count} request id(s) that took effect read from the log (their retries are not run "
        "again)",
        count=remembered,
    )
    if listener is None:  # a worker: its connections are handed over (game_server.net.workers)
        assert accept is not None
        where = accept(reactor, factory, options)
        log.info("table {table} serving as {where}", table=", ".join(machines), where=where)
    else:
        # What listenSSL does, on the socket bound before the log was opened, with the caps
        # before Hello checked at accept, before any TLS is built.
        # Typed Any: without zope's plugin mypy sees no provider of Twisted's interfaces.
        wrap: Any = GatedTLSFactory
        tls_factory = wrap(options, factory)
        listening = reactor.adoptStreamPort(listener.fileno(), listener.family, tls_factory)
        listener.close()  # the reactor listens on its own copy
        log.info(
            "table {table} listening on {host}:{port} (TLS 1.3, client certificates required)",
            table=", ".join(machines),
            host=interface,
            port=listening.getHost().port,
        )

    def shutdown() -> None:
        log.info("stopping: closing the event log with a signed checkpoint")
        if lock_watch.running:
            lock_watch.stop()
        reader.close()
        event_log.close()
        if close_meters is not None:
            close_meters()
        if shipper is not None and not shipper.stop(timeout=10.0):
            log.warn("the floor store does not hold the whole log yet: the next start ships it")

    reactor.addSystemEventTrigger("before", "shutdown", shutdown)
    machine.open()
    reactor.run()
