"""The tables of one floor file over several processes behind one port (``etg serve --workers``).

One Python process runs one core. ``etg serve --workers N`` splits the server's tables over
N worker processes, each of them the ordinary table server (:func:`game_server.net.service.
serve`) for its share of the tables, with its own event log, behind the one port of a small
front process that accepts the connections and supervises the workers.

Why the front routes by the TLS server name and passes the socket (issue 22): with mutual
TLS the process that completes the handshake is the one that learns who the client is, and
TLS state cannot be handed to another process. The front therefore never speaks TLS. It
accepts a connection, reads its ClientHello with ``MSG_PEEK`` (nothing is consumed), takes
the server name (SNI) the client sent, and passes the raw socket to the worker serving that
name with ``SCM_RIGHTS`` (:func:`socket.send_fds`). The worker adopts the socket (Twisted's
``adoptStreamConnection``) and does the whole handshake and authentication itself, exactly
as a one-process server does: **the certificate decides, the name only routes**. A client
that names the wrong terminal or table lands on a worker that refuses it at ``Hello`` with a
sentence saying where its table is served. A terminal names itself (its certificate's id,
:class:`shared.protocol.RoutedClientTLS`): it needs no new setting. The alternatives were
weighed in ``docs/decisions.md``: workers sharing the port with ``SO_REUSEPORT`` get
connections at random and would forward (proxy) every misrouted one, byte by byte, for its
whole life; a front that terminated TLS would proxy every byte and do every handshake on one
core, the bottleneck the workers are meant to remove.

The caps on connections before Hello (``[floor.limits] unauthenticated_connections`` and
``unauthenticated_per_address``, :mod:`game_server.net.admission`) hold in each process that
holds a connection: the front closes one over its caps (each cap times the workers) at
accept, and a worker closes a handed-over socket over its own caps as it adopts it, before
any TLS; each logs the refusals of an address once a minute.

What stays per worker:

- **The event log.** Worker k writes ``<db stem>.worker-<k><suffix>`` (and its anchor stream
  ``<anchors stem>.worker-<k><suffix>``); ``etg verify`` proves each. The placement of tables
  on workers is a pure function of the tables and N (:func:`placement`), and at start the
  front refuses a layout that would move a table away from the log that holds its credits
  (:func:`check_logs`), e.g. another N over the same logs, or the one-process log.
- **Meters.** Tables that share a local (server) meter are placed on one worker: a
  :class:`~game_server.rules.meters.MeterBank` lives in one process. Meters linked across the
  floor live in the floor store, but ``--store`` is refused with ``--workers`` for now (each
  worker would ship its own log to the store under the one signing key; not built).
- **The operator.** Each worker answers the operator for its own tables (credits, table
  state, terminal access, ``ReadMeters``). An operator tool names the table (or a terminal)
  it means as its server name (``client_tls_options(..., route=...)``); one that names no
  table of the worker it reached is refused at ``Hello`` with a sentence listing which
  tables each worker serves. A whole-floor view takes one connection per worker.

Supervision: a worker that exits is logged and started again; its tables recover from its
log as after any crash (an interrupted round resumes). A worker that fails before it was
ever ready with status 2 (a refusal: the log, the keys, the config) stops the server with
its sentence. SIGTERM or SIGINT to the front stops every worker with SIGTERM (each closes
its log with a signed checkpoint), then the front.

Entry points: :func:`serve_workers` (``etg serve --workers N``), :func:`placement`,
:func:`server_name`; ``python -m game_server.net.workers`` is a worker (started by the front).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from twisted.internet.interfaces import IReadDescriptor
from twisted.internet.protocol import Factory
from twisted.logger import Logger, globalLogBeginner, textFileLogObserver
from zope.interface import implementer  # type: ignore[import-untyped]  # ships no hints

from game_server.config import TableConfig
from game_server.net.admission import (
    FIRST_REFUSAL,
    RefusalLog,
    Waiting,
    describe_address,
)
from game_server.net.client_hello import MAX_HELLO_BYTES, Incomplete, server_name
from game_server.net.floor import FloorConfig, NetLimits
from game_server.net.pki import PkiError, Role
from game_server.net.placement import (
    WorkersError,
    check_logs,
    meter_groups,
    placement,
    refuse_worker_logs,
    routes,
    worker_floor,
    worker_path,
)
from game_server.net.server import GatedTLSFactory, TableServerFactory, TerminalProtocol
from shared.errors import ETGError
from shared.protocol import BadRequest, Unauthorized

log = Logger()

__all__ = [
    "Front",
    "Incomplete",
    "WorkerPlace",
    "WorkerSpec",
    "WorkersError",
    "check_logs",
    "meter_groups",
    "placement",
    "refuse_worker_logs",
    "routes",
    "serve_workers",
    "server_name",
    "worker_floor",
    "worker_path",
]

#: Seconds between the restarts of one worker (a worker that dies at once is not spun).
RESTART_DELAY: Final = 1.0
#: Starts in a row that fail before the worker is ready, after which the server stops.
MAX_FAILED_STARTS: Final = 3
#: Seconds a worker has to close its log and exit after SIGTERM before it is killed.
STOP_TIMEOUT: Final = 15.0
#: What the front's channel to a worker says when the worker is ready.
READY: Final = b"ready"


# --------------------------------------------------------------------------------------------
# A worker: its share of the floor and the sockets the front hands over


@dataclass(frozen=True)
class WorkerPlace:
    """Where a worker stands: its number, every worker's tables, the whole floor file."""

    index: int
    shares: tuple[tuple[str, ...], ...]
    floor: FloorConfig

    @property
    def tables(self) -> tuple[str, ...]:
        """This worker's tables."""
        return self.shares[self.index]

    def worker_of(self, table: str) -> int | None:
        """The worker serving ``table`` (counted from 0), or None."""
        return next((k for k, share in enumerate(self.shares) if table in share), None)

    def served(self) -> str:
        """Which worker serves which tables, for a sentence."""
        return "; ".join(
            f"worker {k + 1} serves {', '.join(share)}" for k, share in enumerate(self.shares)
        )

    def refusal(self, role: Role, identity: str, route: str) -> str | None:
        """Why a client of ``role`` and ``identity`` that named ``route`` cannot be served by
        this worker (None: it can; a terminal seated nowhere is left to ``Hello``)."""
        if role is Role.TERMINAL:
            table = self.floor.tables.get(identity)
            if table is None or table in self.tables:
                return None
            worker = self.worker_of(table)
            return (
                f"terminal {identity} sits at table {table}, served by worker "
                f"{'?' if worker is None else worker + 1} of this server, but its TLS server "
                f"name {route!r} routed it to worker {self.index + 1}: a terminal names its "
                "own id as its server name (update the terminal software)"
            )
        mine = set(self.tables) | {
            t for t, table in self.floor.tables.items() if table in self.tables
        }
        if route in mine:
            return None
        return (
            f"this server runs its tables in {len(self.shares)} worker processes and the "
            "operator reaches the tables of one at a time: name a table (or a terminal) as "
            f"the TLS server name (route); the name {route!r} names none. {self.served()}"
        )


class WorkerProtocol(TerminalProtocol):
    """A connection handed over by the front: :class:`TerminalProtocol` whose ``Hello`` first
    refuses a client whose certificate belongs to another worker's tables, or an operator
    whose route names no table of this worker (:meth:`WorkerPlace.refusal`)."""

    def __init__(self, factory: TableServerFactory, place: WorkerPlace, route: str) -> None:
        super().__init__(factory)
        self.place = place
        self.route = route

    def hello(self, version: int, software: str) -> Any:
        try:
            identity = self.factory.identify(self.transport)
        except PkiError:
            identity = None  # the server's Hello refuses it with its sentence
        if identity is not None:
            why = self.place.refusal(identity.role, identity.id, self.route)
            if why is not None:
                log.warn("refused {identity}: {why}", identity=str(identity), why=why)
                raise Unauthorized(why)
        return super().hello(version, software)

    def _seated(self, terminal: str) -> str:
        """An operator command naming a terminal of another worker's table says where."""
        table = self.place.floor.tables.get(terminal)
        if table is not None and table not in self.place.tables:
            worker = self.place.worker_of(table)
            raise BadRequest(
                f"terminal {terminal} sits at table {table}, served by worker "
                f"{'?' if worker is None else worker + 1} of this server; this connection "
                f"reaches worker {self.place.index + 1}: name {table} (or {terminal}) as "
                "the route"
            )
        return super()._seated(terminal)


class _WorkerFactory(Factory):
    """Builds a :class:`WorkerProtocol` on the server's factory for each adopted socket."""

    def __init__(self, factory: TableServerFactory, place: WorkerPlace) -> None:
        self.factory = factory
        self.place = place
        #: The route of the socket being adopted (adoption builds its protocol at once).
        self.route = ""

    def buildProtocol(self, addr: Any) -> WorkerProtocol:
        return WorkerProtocol(self.factory, self.place, self.route)


@implementer(IReadDescriptor)
class _Handoff:
    """Reads the front's channel: one socket per message with its route; adopts each."""

    def __init__(self, reactor: Any, channel: socket.socket, adopt: Callable[[int, str], None]):
        self.reactor = reactor
        self.channel = channel
        self.adopt = adopt

    def fileno(self) -> int:
        return self.channel.fileno()

    def logPrefix(self) -> str:
        return "handoff"

    def connectionLost(self, reason: Any) -> None:
        """Nothing to do: the channel closes with the process."""

    def doRead(self) -> None:
        while True:
            try:
                data, fds, _flags, _address = socket.recv_fds(self.channel, 256, 16)
            except BlockingIOError:
                return
            except OSError as exc:
                data, fds = b"", []
                log.error("the channel from the front failed: {error}", error=exc.strerror)
            if not data and not fds:
                log.warn("the front process is gone; stopping")
                self.reactor.removeReader(self)
                if self.reactor.running:
                    self.reactor.stop()
                return
            route = data.decode("ascii", errors="replace")
            for fd in fds:
                try:
                    self.adopt(fd, route)
                except Exception:
                    log.failure("the connection handed over could not be adopted")
                finally:
                    os.close(fd)


def accept_from_front(
    channel: socket.socket, family: int, place: WorkerPlace, workers: int
) -> Callable[[Any, TableServerFactory, Any], str]:
    """The ``accept`` of :func:`~game_server.net.service.serve` in a worker: the sockets come
    from the front over ``channel``; each is adopted by the reactor with TLS (the handshake
    and authentication happen here), through the worker's own caps before Hello
    (:class:`~game_server.net.server.GatedTLSFactory`: one over them is closed as it is
    adopted). The worker tells the front it is ready once its reactor runs."""

    def accept(reactor: Any, factory: TableServerFactory, options: Any) -> str:
        builder = _WorkerFactory(factory, place)
        wrap: Any = GatedTLSFactory  # typed Any: zope interfaces confuse mypy
        tls = wrap(options, factory, builder)

        def adopt(fd: int, route: str) -> None:
            builder.route = route
            reactor.adoptStreamConnection(fd, family, tls)

        channel.setblocking(False)
        reactor.addReader(_Handoff(reactor, channel, adopt))
        reactor.callWhenRunning(channel.send, READY)
        return f"worker {place.index + 1} of {workers}, handed connections by the front"

    return accept


@dataclass(frozen=True)
class WorkerSpec:
    """What the front tells a worker it starts (``etg serve``'s options and its number)."""

    config: str | None
    db: str
    certs: str
    floor: str | None
    tables: int
    anchors: str | None
    change_reason: str | None
    next_round_delay: float
    workers: int
    index: int = 0
    channel: int = -1
    family: int = socket.AF_INET

    def to_json(self) -> str:
        return json.dumps(self.__dict__)

    @classmethod
    def from_json(cls, text: str) -> WorkerSpec:
        return cls(**json.loads(text))


def load_floor_tables(
    spec: WorkerSpec,
) -> tuple[TableConfig, FloorConfig, list[TableConfig]]:
    """The Rules Submission, the floor file and the tables, as ``etg serve`` reads them."""
    from game_server.config import example_config_path, load_config
    from game_server.net.floor import load_floor
    from game_server.net.service import default_floor, table_configs

    config = load_config(example_config_path() if spec.config is None else Path(spec.config))
    floor = (
        default_floor(config, tables=spec.tables)
        if spec.floor is None
        else load_floor(Path(spec.floor))
    )
    return config, floor, table_configs(config, spec.tables)


def run_worker(spec: WorkerSpec) -> None:
    """Serve worker ``spec.index``'s tables until stopped (see the module docstring)."""
    from game_server.net.service import serve

    config, floor, configs = load_floor_tables(spec)
    shares = placement(configs, spec.workers)
    place = WorkerPlace(spec.index, shares, floor)
    channel = socket.socket(fileno=spec.channel)
    anchors = None if spec.anchors is None else worker_path(Path(spec.anchors), spec.index)
    serve(
        config,
        worker_path(Path(spec.db), spec.index),
        Path(spec.certs),
        worker_floor(floor, place.tables),
        next_round_delay=spec.next_round_delay,
        tables=spec.tables,
        anchors=anchors,
        change_reason=spec.change_reason,
        hosted=place.tables,
        accept=accept_from_front(channel, spec.family, place, spec.workers),
    )


def main(argv: Sequence[str]) -> int:
    """``python -m game_server.net.workers SPEC``: one worker (the front starts it)."""
    spec = WorkerSpec.from_json(argv[0])
    try:
        run_worker(spec)
    except ETGError as exc:
        for line in str(exc).splitlines() or [type(exc).__name__]:
            print(f"etg serve: error: worker {spec.index + 1}: {line}", file=sys.stderr)
        return 2
    return 0


# --------------------------------------------------------------------------------------------
# The front: accept, read the server name, hand the socket over; supervise the workers


@dataclass
class _Worker:
    """The front's record of one worker process."""

    index: int
    tables: tuple[str, ...]
    process: subprocess.Popen[bytes] | None = None
    channel: socket.socket | None = None
    ready: bool = False
    ever_ready: bool = False
    failed_starts: int = 0
    restart_at: float | None = None


@dataclass
class _Waiting:
    """An accepted connection whose ClientHello is not whole yet."""

    conn: socket.socket
    peer: str
    deadline: float
    retry_at: float = 0.0


@dataclass
class Front:
    """The front process (see the module docstring): :meth:`run` until SIGTERM or SIGINT.

    Args:
        listener: The listening socket (:func:`~game_server.net.service.listen_first`).
        spec: The workers' options (their number is set per worker).
        shares: Each worker's tables (:func:`placement`).
        routes: Route name -> worker (:func:`routes`).
        limits: The floor's limits: a connection has ``hello_seconds`` to send its
            ClientHello; the front holds at most ``unauthenticated_connections`` of them
            waiting for it per worker, ``unauthenticated_per_address`` per worker from one
            address (:class:`~game_server.net.admission.Waiting`), and closes one more at
            accept, logging the refusals once a minute per address.
        describe: What the listening line names (the tables).
        clock: Seconds of a monotonic clock, for the connections' deadlines and the
            refusals' minutes (tests: a fake).
    """

    listener: socket.socket
    spec: WorkerSpec
    shares: tuple[tuple[str, ...], ...]
    routes: Mapping[str, int]
    limits: NetLimits
    describe: str
    clock: Callable[[], float] = field(default=time.monotonic)
    workers: list[_Worker] = field(default_factory=list)
    _waiting: dict[int, _Waiting] = field(default_factory=dict)
    _stopping: bool = False
    _listening_said: bool = False

    def __post_init__(self) -> None:
        self.hello_seconds = self.limits.hello_seconds
        self._held: Waiting[socket.socket] = Waiting(
            self.limits, "sent their ClientHello", workers=len(self.shares)
        )
        self._refusals = RefusalLog()
        self._refusals_looked_at = 0.0
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.listener, selectors.EVENT_READ, None)

    def run(self) -> int:
        """Start the workers, route connections and supervise until stopped; the exit status
        (0, or 2 when a worker could not start)."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._stop_signal)
        self.workers = [_Worker(k, share) for k, share in enumerate(self.shares)]
        for worker in self.workers:
            self._start(worker)
        status = 0
        try:
            while not self._stopping:
                self._turn()
                failed = self._supervise()
                if failed is not None:
                    status = failed
                    break
        finally:
            self._stop_all()
        return status

    def _stop_signal(self, signum: int, _frame: Any) -> None:
        if not self._stopping:
            log.info("{signal}: stopping the workers", signal=signal.Signals(signum).name)
        self._stopping = True

    # ---------------------------------------------------------------------- connections

    def _turn(self) -> None:
        now = self.clock()
        retries = [w.retry_at for w in self._waiting.values() if w.retry_at]
        timeout = max(0.0, min([0.2, *(r - now for r in retries)]))
        for key, _ in self._selector.select(timeout):
            if key.data is None:
                self._accept()
            elif isinstance(key.data, _Worker):
                self._from_worker(key.data)
            else:
                self._peek(key.data)
        now = self.clock()
        for waiting in list(self._waiting.values()):
            if waiting.retry_at and waiting.retry_at <= now:
                waiting.retry_at = 0.0
                self._selector.register(waiting.conn, selectors.EVENT_READ, waiting)
            if waiting.deadline <= now:
                log.warn(
                    "dropping the connection of {peer}: no whole ClientHello within {seconds:g} s",
                    peer=waiting.peer,
                    seconds=self.hello_seconds,
                )
                self._close(waiting)
        if now >= self._refusals_looked_at + 1.0:  # the lines due, looked at once a second
            self._refusals_looked_at = now
            self._log_refusals(now)

    def _log_refusals(self, now: float) -> None:
        self._refusals.log_due(now, log)

    def _accept(self) -> None:
        while True:
            try:
                conn, address = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. out of file descriptors: keep serving the others
                log.error("accept failed: {error}", error=exc.strerror)
                return
            host = str(address[0])
            peer = describe_address(host, address[1])
            why = self._held.add(conn, host)
            if why is not None:
                conn.close()
                if self._refusals.refused(host, why, self.clock()):
                    log.warn(FIRST_REFUSAL, peer=peer, why=why, address=host)
                continue
            conn.setblocking(False)
            waiting = _Waiting(conn, peer, self.clock() + self.hello_seconds)
            self._waiting[conn.fileno()] = waiting
            self._selector.register(conn, selectors.EVENT_READ, waiting)

    def _peek(self, waiting: _Waiting) -> None:
        try:
            data = waiting.conn.recv(MAX_HELLO_BYTES + 64, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(waiting)
            return
        try:
            name = server_name(data)
        except Incomplete:
            # The rest is on its way: look again shortly (a peek leaves the socket readable).
            self._selector.unregister(waiting.conn)
            waiting.retry_at = self.clock() + 0.01
            return
        self._hand(waiting, name)

    def _hand(self, waiting: _Waiting, name: str | None) -> None:
        """Pass the socket, not a byte of it read, to the worker ``name`` routes to."""
        worker = self.workers[self.routes.get(name or "", 0)]
        channel = worker.channel
        try:
            if channel is None:
                log.warn(
                    "dropping the connection of {peer} ({name}): worker {worker} is restarting",
                    peer=waiting.peer,
                    name=name,
                    worker=worker.index + 1,
                )
            else:
                socket.send_fds(channel, [(name or "-").encode("ascii")], [waiting.conn.fileno()])
        except OSError as exc:
            log.warn(
                "dropping the connection of {peer}: it could not be handed to worker "
                "{worker}: {error}",
                peer=waiting.peer,
                worker=worker.index + 1,
                error=exc.strerror,
            )
        self._close(waiting)

    def _close(self, waiting: _Waiting) -> None:
        self._waiting.pop(waiting.conn.fileno(), None)
        self._held.discard(waiting.conn)
        if not waiting.retry_at:
            self._selector.unregister(waiting.conn)
        waiting.conn.close()

    # -------------------------------------------------------------------------- workers

    def _start(self, worker: _Worker) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        spec = replace(
            self.spec, index=worker.index, channel=theirs.fileno(), family=self.listener.family
        )
        worker.process = subprocess.Popen(
            [sys.executable, "-m", "game_server.net.workers", spec.to_json()],
            pass_fds=(theirs.fileno(),),
            process_group=0,  # Ctrl-C reaches the front, which stops the workers in order
        )
        theirs.close()
        ours.setblocking(False)
        worker.channel, worker.ready, worker.restart_at = ours, False, None
        self._selector.register(ours, selectors.EVENT_READ, worker)
        log.info(
            "worker {worker} (pid {pid}) starting: table(s) {tables}",
            worker=worker.index + 1,
            pid=worker.process.pid,
            tables=", ".join(worker.tables),
        )

    def _from_worker(self, worker: _Worker) -> None:
        assert worker.channel is not None
        try:
            message = worker.channel.recv(64)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            message = b""
        if message == READY:
            worker.ready = worker.ever_ready = True
            worker.failed_starts = 0
            log.info("worker {worker} ready", worker=worker.index + 1)
            if not self._listening_said and all(w.ready for w in self.workers):
                self._listening_said = True
                host, port = self.listener.getsockname()[:2]
                log.info(
                    "table {table} listening on {host}:{port} (TLS 1.3, client certificates "
                    "required; {count} worker processes)",
                    table=self.describe,
                    host=host,
                    port=port,
                    count=len(self.workers),
                )
        elif not message:  # the worker is gone; _supervise reads its status
            self._drop_channel(worker)

    def _drop_channel(self, worker: _Worker) -> None:
        if worker.channel is not None:
            self._selector.unregister(worker.channel)
            worker.channel.close()
            worker.channel = None

    def _supervise(self) -> int | None:
        """Restart a worker that exited; the exit status when the server must stop."""
        now = time.monotonic()
        for worker in self.workers:
            process = worker.process
            if process is not None and process.poll() is not None:
                status = process.returncode
                worker.process = None
                self._drop_channel(worker)
                if not worker.ready:
                    worker.failed_starts += 1
                    if (status == 2 and not worker.ever_ready) or (
                        worker.failed_starts >= MAX_FAILED_STARTS
                    ):
                        log.error(
                            "worker {worker} could not start (status {status}); stopping",
                            worker=worker.index + 1,
                            status=status,
                        )
                        return 2
                log.error(
                    "worker {worker} (tables {tables}) exited with status {status}; "
                    "restarting it in {delay:g} s: its tables recover from its log",
                    worker=worker.index + 1,
                    tables=", ".join(worker.tables),
                    status=status,
                    delay=RESTART_DELAY,
                )
                worker.ready = False
                worker.restart_at = now + RESTART_DELAY
            if (
                worker.process is None
                and worker.restart_at is not None
                and worker.restart_at <= now
            ):
                self._start(worker)
        return None

    def _stop_all(self) -> None:
        for waiting in list(self._waiting.values()):
            self._close(waiting)
        running = [w.process for w in self.workers if w.process is not None]
        for process in running:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for process in running:
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.error("worker pid {pid} did not stop; killing it", pid=process.pid)
                process.kill()
                process.wait()
        for worker in self.workers:
            self._drop_channel(worker)
        self.listener.close()
        log.info("stopped")


def serve_workers(
    spec: WorkerSpec,
    *,
    port: int | None,
    interface: str,
    store: str | None,
) -> int:
    """``etg serve --workers N`` (N > 1): check, bind the port, run the front until stopped.

    Returns:
        The exit status: 0 after SIGTERM or SIGINT, 2 when a worker could not start.

    Raises:
        WorkersError: ``--store`` was given, or the tables cannot be placed on the
            workers, or the logs beside ``--db`` were written by another layout.
        PortUnavailable: the port is in use (before any log is touched).
    """
    from game_server.net.service import listen_first

    if store is not None:
        raise WorkersError(
            "--store with --workers is not built yet (each worker would ship its own log "
            "under the one signing key): serve a floor-store server with --workers 1"
        )
    config, floor, configs = load_floor_tables(spec)
    if config.linked_meters is not None:
        raise WorkersError(
            "the Rules Submission links meters across the floor ([linked_meters]), which "
            "needs --store: serve it with --workers 1"
        )
    shares = placement(configs, spec.workers)
    for index, share in enumerate(shares):
        if not any(floor.tables.get(t) in share for t in floor.terminals):
            raise WorkersError(
                f"worker {index + 1} would serve table(s) {', '.join(share)}, where the floor "
                "file seats no terminal ([floor.tables]); seat terminals there or use fewer "
                "workers"
            )
    check_logs(Path(spec.db), shares)
    listener = listen_first(interface, floor.port if port is None else port)
    observer: Any = textFileLogObserver(sys.stdout)  # an ILogObserver (zope, untyped)
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    front = Front(
        listener,
        spec,
        shares,
        routes(floor, shares),
        limits=floor.limits,
        describe=", ".join(c.table_id for c in configs),
    )
    return front.run()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
