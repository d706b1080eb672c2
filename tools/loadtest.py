"""``etg loadtest``: N basic-strategy terminal bots against a real table server over mutual TLS.

Entry points: the click command :func:`loadtest` (``etg loadtest``; also ``python -m
tools.loadtest``) and :func:`run_loadtest`, which does the work and returns a
:class:`LoadtestResult`. It is a benchmark: it prints figures and asserts nothing.

One run:

1. A temporary directory gets a PKI with N terminal certificates, the log keys and the
   example Rules Submission with every countdown at 3 seconds; the server's log and its
   anchor stream are written there too (``table.db``, ``anchors.jsonl``).
2. ``python -m game_server`` starts on an ephemeral port with ``--tables ceil(N/7)`` (T1..T7
   at the first table, T8..T14 at the second, ...) and ``--next-round-delay 0.2``.
3. In this process one Twisted reactor runs the operator and N terminal bots, each over its
   own TLS 1.3 connection with its own client certificate. The operator cashes in every
   terminal; each bot then says ``Hello`` and, on every view it receives, does what its
   game's bot says (:meth:`~game_server.games.api.Game.wire_bot`; at the example Blackjack
   table: wagers the table minimum once per round, declines insurance, and plays basic
   strategy when it has legal actions). Every ``PlaceWagers`` and ``Act`` is timed from
   sending to its answer (the answer carries the updated view): the action-to-update latency.
4. The run stops when R rounds have completed (over all tables, counted from the views) or
   at the time limit; the server's CPU time and peak RSS are read from ``/proc`` and the
   server is stopped (SIGTERM, then SIGKILL after 10 s), always, also on errors.

With ``--floor DIR`` (a local floor made by ``etg floor up DIR``) the server also ships its
log to a new store database of that floor (``etg serve --store``, its key registered first;
the database is dropped at the end), and the report adds the shipping figures the operator's
``ReadMeters`` gave at the end of the run: events logged and shipped per second over the
run (and their ratio), and the lag from logged to committed in the store (p50, p99, max).

Declared AMP errors are counted by code; ``NOT_YOUR_TURN``, ``ROUND_CLOSED`` and
``RATE_LIMITED`` are expected races with the countdowns, any other code is counted as
unexpected (reported, not fatal). The operator paces its cash-ins under the server's rate
limit (``[floor.limits]``, a burst then 20 a second, mirrored by a token bucket of its own
a little slower than the server's): the server drops a connection refused
:data:`~game_server.net.server.FLOOD_FACTOR` x burst times without a pause as a flood, and an
operator that ran into the limit and retried used to be dropped so half way through the
cash-ins (on a quiet machine, where the server answers a cash-in within a few
milliseconds), every later cash-in then failing with ``ConnectionDone``. A refusal all the
same is retried and counted (``cash_in_retries``); a lost operator connection stops the run
(``stopped_by``) instead of failing each cash-in left.
Latencies are those of answered commands only. The run's clock starts when the operator
connects, so ``duration_s`` includes the cash-in ramp (about N/18 s for N terminals); the
rounds of a run that stops before the ramp is over were played by fewer bots
(``terminals_playing``, and the report says so): at 1,000 terminals ask for 2,000 rounds.
Since the ramp takes most of a short run (55 of the 75 s of 1,000 terminals and 2,000
rounds), the commands sent once every bot plays are also given apart (``full_load``: their
latencies and how long the run was at full load); ask for more rounds for a longer one.

With ``--workers N`` the server runs ``etg serve --workers N`` (its tables in N processes
behind one port): one operator connection per worker, routed to a table of it, cashes in
that worker's terminals, so the ramp is about N times shorter (compare rounds per second
over runs long enough for the ramp not to count); the server's CPU and peak RSS are summed
over the front and its workers, and each worker's own command times and log commits are
given apart (``worker_figures``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from game_server.net.floor import MAX_TABLES, MAX_TERMINALS, SEATS, raise_descriptor_limit
from shared.errors import ETGError

if TYPE_CHECKING:
    from game_server.games.api import WireBot

#: The repository root: the server subprocess runs from here.
ROOT: Final = Path(__file__).resolve().parents[1]
#: Seats per table: terminal i sits at table ceil(i / 7).
SEATS_PER_TABLE: Final = len(SEATS)
#: Credits the operator cashes in to every terminal, in cents ($1,000).
CASH_IN_CENTS: Final = 100_000
#: Seconds the server may take to print its port.
START_TIMEOUT: Final = 60.0
#: Seconds the server may take to exit after SIGTERM before it is killed.
STOP_TIMEOUT: Final = 10.0
#: Targets printed beside the figures (issue 22: at 1,000 terminals).
TARGET_P99_MS: Final = 50.0
TARGET_RSS_MB: Final = 500.0
#: The operator's pace against the server's rate limit (a little under it: the two buckets
#: start a moment apart, and Hello takes a token).
OPERATOR_PACE: Final = 0.9
#: Descriptors the bots' process keeps beside its connections (certificate files, stdio).
BOT_RESERVED_DESCRIPTORS: Final = 64
#: Declared errors that are races with the countdowns, not faults of the bots.
EXPECTED_CODES: Final = frozenset({"NOT_YOUR_TURN", "ROUND_CLOSED", "RATE_LIMITED"})
#: Exit status when the server did not start or no round completed.
EXIT_FAILED: Final = 1

_LISTENING: Final = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
_TIMERS: Final = ("betting_seconds", "insurance_seconds", "decision_seconds")


class LoadtestError(Exception):
    """The run could not be made: the server did not start, or died."""


@dataclass
class LoadtestResult:
    """The figures of one run (JSON-ready through :meth:`to_json`)."""

    terminals: int
    tables: int
    rounds_target: int
    workers: int = 1
    rounds: int = 0
    duration_s: float = 0.0
    rounds_per_s: float = 0.0
    latency_ms: dict[str, float | None] = field(default_factory=dict)
    latency_samples: int = 0
    latency_by_command_ms: dict[str, dict[str, float | None]] = field(default_factory=dict)
    commands_sent: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    unexpected_errors: int = 0
    disconnects: int = 0
    cash_in_retries: int = 0
    #: Bots playing when the run stopped: fewer than ``terminals`` when the rounds were
    #: reached during the cash-in ramp (about N/18 s): then ask for more rounds.
    terminals_playing: int = 0
    games_played_meter: int | None = None
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    server_cpu_percent: float = 0.0
    client_cpu_percent: float = 0.0
    server_peak_rss_mb: float = 0.0
    client_peak_rss_mb: float = 0.0
    store: dict[str, Any] | None = None
    #: The latencies of the commands sent once every bot was playing (the cash-in ramp
    #: over): ``latency_ms``, ``samples`` and ``seconds`` at full load; None when the run
    #: stopped before the last bot played. ``latency_ms`` above counts the ramp too.
    full_load: dict[str, Any] | None = None
    #: The server's own measure of each timed command, from its arrival to its answer
    #: (``ReadMeters`` ``"commands"``: p50/p99 in ms, within 8%): what the server adds to
    #: ``latency_ms``; the rest is the network and the bots' own process.
    server_latency_ms: dict[str, dict[str, float | None]] = field(default_factory=dict)
    #: The event log's commit thread over the run (``ReadMeters`` ``"event_log"``).
    log_commits: dict[str, Any] | None = None
    #: With ``--workers``: each worker's ``server_latency_ms`` and ``log_commits``, in the
    #: workers' order (the two fields above are then empty: quantiles of several workers
    #: cannot be merged from their summaries), or ``{"error": ...}`` for one that did not
    #: answer.
    worker_figures: list[dict[str, Any]] = field(default_factory=list)
    stopped_by: str = ""
    targets: dict[str, float] = field(
        default_factory=lambda: {"p99_ms": TARGET_P99_MS, "rss_mb": TARGET_RSS_MB}
    )

    @property
    def ok(self) -> bool:
        """Whether the run completed: at least one round was played."""
        return self.rounds > 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------------------------
# Pure helpers (tested without a server)


def tables_for(terminals: int) -> int:
    """How many tables seat ``terminals`` terminals, seven a table."""
    return max(1, math.ceil(terminals / SEATS_PER_TABLE))


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of an ascending, non-empty list."""
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def full_load_figures(run: _Run) -> dict[str, Any] | None:
    """The run's latencies once every bot played (see :attr:`LoadtestResult.full_load`)."""
    if run.full_at is None:
        return None
    end = run.stopped_at if run.stopped_at is not None else time.perf_counter()
    return {
        "latency_ms": latency_summary(run.full_latencies),
        "samples": len(run.full_latencies),
        "seconds": round(max(end - run.full_at, 0.0), 3),
    }


def latency_summary(seconds: list[float]) -> dict[str, float | None]:
    """p50/p95/p99/max in milliseconds (None without samples)."""
    if not seconds:
        return {"p50": None, "p95": None, "p99": None, "max": None}
    ms = sorted(s * 1000.0 for s in seconds)
    return {
        "p50": round(percentile(ms, 0.50), 3),
        "p95": round(percentile(ms, 0.95), 3),
        "p99": round(percentile(ms, 0.99), 3),
        "max": round(ms[-1], 3),
    }


# --------------------------------------------------------------------------------------------
# The server subprocess


def prepare(directory: Path, terminals: int) -> tuple[Path, Path]:
    """Certificates, log keys and the short-timer config in ``directory``: (certs, config)."""
    from game_server.config import example_config_path
    from game_server.keys import init_keys
    from game_server.net.pki import init_pki

    certs = directory / "certs"
    init_pki(certs, terminals=terminals)
    init_keys(certs)
    text = example_config_path().read_text()
    for timer in _TIMERS:
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    config = directory / "table.toml"
    config.write_text(text)
    return certs, config


def start_server(
    directory: Path,
    certs: Path,
    config: Path,
    tables: int,
    store: str | None = None,
    *,
    workers: int = 1,
    port: int = 0,
    output: Path | None = None,
) -> tuple[subprocess.Popen[bytes], int, Path]:
    """Start ``python -m game_server``; its output goes to a file (a pipe could fill up and
    block it). Returns the process, its port and the output file. The caller stops it.

    ``port`` 0 is a free one; ``etg faults`` restarts the server on the port of its first
    start, each start's output in a file of its own (``output``, default
    ``directory/server.out``).
    """
    out = directory / "server.out" if output is None else output
    command = [
        sys.executable,
        "-m",
        "game_server",
        "--config",
        str(config),
        "--db",
        str(directory / "table.db"),
        "--anchors",
        str(directory / "anchors.jsonl"),  # as a floor server keeps them (etg backup copies them)
        "--certs",
        str(certs),
        "--port",
        str(port),
        "--next-round-delay",
        "0.2",
    ]
    if tables > 1:
        command += ["--tables", str(tables)]
    if store is not None:
        command += ["--store", store]
    if workers > 1:
        command += ["--workers", str(workers)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    with out.open("wb") as sink:
        # Its own session and process group: the bots' process and the server are counted
        # (CPU, RSS) and signalled apart.
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    return process, _wait_port(process, out), out


def _wait_port(process: subprocess.Popen[bytes], out: Path) -> int:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        found = _LISTENING.search(out.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    stop_server(process)
    tail = out.read_text(errors="replace").strip().splitlines()[-10:]
    raise LoadtestError("the server did not start:\n" + "\n".join(tail))


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within :data:`STOP_TIMEOUT` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from ``/proc/<pid>/stat``."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pids(pid: int) -> list[int]:
    """The server's processes: ``pid`` and its children (the workers of ``--workers``)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [pid, *(int(child) for child in children)]


def server_cpu_seconds(pids: list[int]) -> float:
    """:func:`cpu_seconds` summed over ``pids`` (a process gone meanwhile counts 0)."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


def peak_rss_mb(pid: int) -> float:
    """VmHWM (the peak resident set) of a process, from ``/proc/<pid>/status``, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


# --------------------------------------------------------------------------------------------
# The bots (one reactor)


class _Run:
    """The shared state of the bots: counters, latencies and the stop condition."""

    def __init__(self, rounds: int, bot: Callable[[], WireBot], terminals: int = 0) -> None:
        self.rounds = rounds
        #: How many bots play once the cash-in ramp is over (0: not known, so no full-load
        #: figures).
        self.terminals = terminals
        #: Makes each terminal's bot (its game's, Game.wire_bot).
        self.bot = bot
        self.latencies: list[float] = []
        self.by_command: dict[str, list[float]] = {}
        self.sent = 0
        self.errors: Counter[str] = Counter()
        self.unexpected = 0
        self.disconnects = 0
        self.cash_in_retries = 0
        #: Bots whose Hello was answered (all of them once the cash-in ramp is over).
        self.playing = 0
        #: When the last bot's Hello was answered (``time.perf_counter``), and when the run
        #: was asked to stop: the run at full load lies between them. The timed commands
        #: sent from ``full_at`` on are kept apart too (``full_latencies``).
        self.full_at: float | None = None
        self.stopped_at: float | None = None
        self.full_latencies: list[float] = []
        self.completed: set[tuple[str, Any]] = set()
        self.stopped_by = ""
        self.stopping = False
        self.meters: Any = None
        #: With several workers: each worker's meters (None for one that did not answer).
        self.worker_meters: list[Any] = []
        self._ids = count(1)

    def request_id(self, who: str) -> str:
        return f"lt-{who}-{next(self._ids)}"

    def error(self, failure: Any) -> str:
        from twisted.internet.error import ConnectError, ConnectionDone, ConnectionLost
        from twisted.protocols import amp

        from shared.protocol import DOMAIN_ERRORS

        exc = failure.value
        if self.stopping and isinstance(exc, (ConnectionDone, ConnectionLost, ConnectError)):
            # Commands in flight, and connections being made, when the run stopped: not
            # errors (the reactor's stop closes them).
            return "STOPPED"
        if type(exc) in DOMAIN_ERRORS:
            code = DOMAIN_ERRORS[type(exc)].decode()
        elif isinstance(exc, amp.RemoteAmpError):
            code = exc.errorCode.decode(errors="replace")
        else:
            code = type(exc).__name__
        self.errors[code] += 1
        if code not in EXPECTED_CODES:
            self.unexpected += 1
        return code

    def joined(self, bot: Any, view: dict[str, Any]) -> None:
        """A bot's Hello was answered: it plays from ``view`` on."""
        self.playing += 1
        if self.playing == self.terminals:
            self.full_at = time.perf_counter()
        bot.got(view)

    def seen(self, view: dict[str, Any]) -> None:
        if view.get("phase") == "complete" and view.get("round") is not None:
            self.completed.add((str(view.get("table")), view["round"]))


def run_bots(
    port: int,
    certs: Path,
    terminals: int,
    run: _Run,
    seconds: float,
    on_tick: Any,
    operators: list[tuple[str | None, list[str]]] | None = None,
) -> float:
    """Run the reactor with the operator and the bots until ``run`` says stop or ``seconds``
    pass. ``on_tick()`` is called every half second (returns a reason to stop, or None).
    ``operators``: one operator connection per route (a table of each worker of
    ``etg serve --workers``) with the terminals it cashes in; default one for all.
    Returns the duration in seconds, from the operator's connection to the stop."""
    from twisted.internet import defer, task
    from twisted.internet import reactor as _reactor
    from twisted.internet.endpoints import SSL4ClientEndpoint, connectProtocol
    from twisted.internet.protocol import connectionDone
    from twisted.protocols import amp
    from twisted.python.failure import Failure

    from game_server.net.floor import NetLimits
    from game_server.net.pki import PkiLayout
    from game_server.net.tls import client_tls_options
    from game_server.net.wire import TokenBucket
    from shared.protocol import (
        PROTOCOL_VERSION,
        Act,
        AnswerInsurance,
        CashIn,
        Hello,
        PlaceWagers,
        RateLimited,
        ReadMeters,
        ViewUpdate,
    )

    # What a bot's step names (Game.wire_bot), as the AMP command that sends it.
    _COMMANDS: dict[str, type[amp.Command]] = {
        "place_wagers": PlaceWagers,
        "answer_insurance": AnswerInsurance,
        "act": Act,
    }
    reactor: Any = _reactor
    layout = PkiLayout(certs)
    ca = layout.ca.certificate
    started = time.perf_counter()
    bots: list[Bot] = []
    operator_box: list[Any] = []

    def stop(reason: str) -> None:
        if run.stopping:
            return
        run.stopping = True
        run.stopped_by = reason
        run.stopped_at = time.perf_counter()
        if operator_box:
            # Every operator's meters (one per worker, in the workers' order); games_played
            # summed over them, and each worker's own figures kept.
            read = [op.callRemote(ReadMeters) for op in operator_box]

            def merged(results: list[Any]) -> None:
                found = [m for m in results if m is not None]
                if len(results) == 1:
                    run.meters = found[0] if found else None
                elif found:
                    run.meters = {"games_played": sum(m["games_played"] for m in found)}
                    run.worker_meters = results

            for d in read:
                d.addCallback(lambda answer: answer["meters"])
                d.addErrback(lambda _f: None)
            gathered = defer.gatherResults(read)
            gathered.addCallback(merged)
            gathered.addBoth(lambda _r: reactor.stop())
            reactor.callLater(3.0, lambda: reactor.running and reactor.stop())
        else:
            reactor.stop()

    def check() -> None:
        if run.stopping:
            return
        if len(run.completed) >= run.rounds:
            stop("rounds")
            return
        reason = on_tick()
        if reason:
            stop(reason)

    def connect(cert: Path, key: Path, protocol: amp.AMP, route: str | None = None) -> Any:
        options = client_tls_options(ca, cert, key, route=route)
        endpoint = SSL4ClientEndpoint(reactor, "127.0.0.1", port, options, timeout=30)  # type: ignore[no-untyped-call]  # unannotated
        return connectProtocol(endpoint, protocol)  # type: ignore[no-untyped-call]  # unannotated

    class Bot(amp.AMP):
        def __init__(self, name: str) -> None:
            super().__init__()  # type: ignore[no-untyped-call]  # unannotated
            self.name = name
            self.latest: dict[str, Any] | None = None
            self.busy = False
            self.bot = run.bot()

        def connectionLost(self, reason: Failure = connectionDone) -> None:
            if not run.stopping:
                run.disconnects += 1
            super().connectionLost(reason)  # type: ignore[no-untyped-call]  # unannotated

        @ViewUpdate.responder
        def view_update(self, view: dict[str, Any]) -> dict[str, Any]:
            self.got(view)
            return {}

        def got(self, view: dict[str, Any]) -> None:
            run.seen(view)
            self.latest = view
            if not self.busy:
                self.play()

        def play(self) -> None:
            view, self.latest = self.latest, None
            if view is None or run.stopping:
                return
            step = self.bot.next_step(view)
            if step is not None:
                self.send(
                    _COMMANDS[step.command],
                    timed=step.timed,
                    request_id=run.request_id(self.name),
                    **step.arguments,
                )

        def send(self, command: type[amp.Command], timed: bool, **kwargs: Any) -> None:
            self.busy = True
            run.sent += 1
            at = time.perf_counter()
            d = self.callRemote(command, **kwargs)  # type: ignore[no-untyped-call]  # unannotated

            def answered(answer: dict[str, Any]) -> None:
                if timed:
                    elapsed = time.perf_counter() - at
                    run.latencies.append(elapsed)
                    run.by_command.setdefault(command.__name__, []).append(elapsed)
                    full_at = run.full_at
                    if full_at is not None and at >= full_at:
                        run.full_latencies.append(elapsed)
                self.busy = False
                self.got(answer["view"])

            def failed(failure: Any) -> None:
                run.error(failure)
                self.busy = False
                # Wait for the next view rather than retrying on the same one.
                if self.latest is not None:
                    self.play()

            d.addCallbacks(answered, failed)

    def start_bot(name: str) -> None:
        files = layout.terminal(name)
        bot = Bot(name)
        bots.append(bot)
        d = connect(files.certificate, files.key, bot)
        d.addCallback(
            lambda proto: proto.callRemote(Hello, version=PROTOCOL_VERSION, software="etg-loadtest")
        )
        d.addCallback(lambda answer: run.joined(bot, answer["view"]))
        d.addErrback(lambda failure: run.error(failure))

    class Operator(amp.AMP):
        connected = True

        def connectionLost(self, reason: Failure = connectionDone) -> None:
            self.connected = False
            if not run.stopping:
                run.disconnects += 1
                run.error(reason)
                stop("the operator's connection was lost: " + reason.getErrorMessage())
            super().connectionLost(reason)  # type: ignore[no-untyped-call]  # unannotated

    limits = NetLimits()  # the server runs without a floor file: the default limits
    rate = limits.commands_per_second * OPERATOR_PACE

    def cash_in_all(operator: Operator, names: list[str]) -> Any:
        operator_box.append(operator)
        # Each operator connection has the server's rate limit of its own.
        pace = TokenBucket(reactor, rate, limits.burst - 2)  # Hello took one of the server's

        def next_one(_ignored: Any = None, attempt: int = 0) -> Any:
            if not names or run.stopping:
                return None
            if not pace.take():  # under the server's rate limit, never into it
                return task.deferLater(reactor, 1.0 / rate, next_one, None, attempt)
            name = names[0]
            d = operator.callRemote(  # type: ignore[no-untyped-call]  # unannotated
                CashIn,
                request_id=run.request_id("op"),
                terminal=name,
                amount=CASH_IN_CENTS,
                reference="loadtest",
            )

            def done(_answer: Any) -> Any:
                names.pop(0)
                start_bot(name)
                return next_one()

            def refused(failure: Any) -> Any:
                if isinstance(failure.value, RateLimited) and attempt < 100:
                    # Refused all the same (the buckets drifted): wait a token and retry.
                    run.cash_in_retries += 1
                    return task.deferLater(reactor, 1.0 / rate, next_one, None, attempt + 1)
                if not operator.connected:
                    return None  # the operator's connection is gone: the run stops
                run.error(failure)
                names.pop(0)  # this terminal cannot play; go on with the others
                return next_one()

            d.addCallbacks(done, refused)
            return d

        return next_one()

    def operator_failed(failure: Any) -> None:
        run.error(failure)
        stop("operator failed: " + failure.getErrorMessage())

    def greet_and_cash_in(names: list[str]) -> Callable[[Operator], Any]:
        def hello(op: Operator) -> Any:
            said = op.callRemote(Hello, version=PROTOCOL_VERSION, software="etg-loadtest")  # type: ignore[no-untyped-call]  # unannotated
            return said.addCallback(lambda _answer: cash_in_all(op, names))

        return hello

    operator_files = layout.operator
    everyone = [f"T{i}" for i in range(1, terminals + 1)]
    for route, names in operators or [(None, everyone)]:
        d = connect(operator_files.certificate, operator_files.key, Operator(), route)  # type: ignore[no-untyped-call]  # unannotated

        d.addCallback(greet_and_cash_in(names))
        d.addErrback(operator_failed)
    signal.signal(signal.SIGTERM, lambda _n, _f: reactor.callFromThread(stop, "SIGTERM"))
    signal.signal(signal.SIGINT, lambda _n, _f: reactor.callFromThread(stop, "SIGINT"))
    ticker = task.LoopingCall(check)
    ticker.start(0.5, now=False)
    reactor.callLater(seconds, stop, "time limit")
    reactor.run(installSignalHandlers=False)
    return time.perf_counter() - started


def run_loadtest(
    terminals: int,
    rounds: int,
    seconds: float,
    tmpdir: Path | None = None,
    floor: Path | None = None,
    *,
    workers: int = 1,
) -> LoadtestResult:
    """Run the whole load test (certs, server, bots, figures); the server is always stopped.

    The reactor runs once per process: call this once per process. ``tmpdir`` is where
    the run's temporary directory (certificates, config, the server's event log) is made
    (default: the system's; ``/dev/shm`` takes the disk's fsync out of the figures).
    ``floor``: the folder of a local floor (``etg floor up``) the server ships its log to.
    ``workers``: run the server with ``--workers`` (its CPU and peak RSS are then the sums
    over the front and its workers; one operator connection per worker cashes in).

    Raises:
        LoadtestError: more terminals than one server seats, or the server did not start.
    """
    from game_server.config import load_config
    from game_server.games import game_for

    if terminals > MAX_TERMINALS:
        raise LoadtestError(too_many(terminals))
    # The bots hold a connection each (the server raises its own limit as it starts).
    raise_descriptor_limit(
        terminals + BOT_RESERVED_DESCRIPTORS, f"the bots' process of {terminals} terminals"
    )
    tables = tables_for(terminals)
    result = LoadtestResult(
        terminals=terminals, tables=tables, rounds_target=rounds, workers=workers
    )
    with tempfile.TemporaryDirectory(prefix="etg-loadtest-", dir=tmpdir) as tmp:
        directory = Path(tmp)
        certs, config_path = prepare(directory, terminals)
        config = load_config(config_path)
        game = game_for(config)
        run = _Run(rounds, lambda: game.wire_bot(config), terminals)
        operators = worker_operators(config, tables, terminals, workers)
        store = None if floor is None else _scratch_store(floor, certs)
        process, port, _out = start_server(
            directory,
            certs,
            config_path,
            tables,
            None if store is None else store[1],
            workers=workers,
        )
        try:
            pids = server_pids(process.pid)
            cpu_start = server_cpu_seconds(pids)

            def tick() -> str | None:
                return "server exited" if process.poll() is not None else None

            client_start = time.process_time()
            duration = run_bots(port, certs, terminals, run, seconds, tick, operators)
            result.client_cpu_s = round(time.process_time() - client_start, 3)
            result.client_peak_rss_mb = round(
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1
            )
            if process.poll() is None:
                result.server_cpu_s = round(server_cpu_seconds(pids) - cpu_start, 3)
                result.server_peak_rss_mb = round(sum(_peak(pid) for pid in pids), 1)
        finally:
            stop_server(process)
            if floor is not None and store is not None:
                from game_server.floor.cluster import LocalFloor, drop_store

                drop_store(LocalFloor.load(floor), store[0])
    result.rounds = len(run.completed)
    result.duration_s = round(duration, 3)
    result.rounds_per_s = round(result.rounds / duration, 3) if duration > 0 else 0.0
    result.latency_ms = latency_summary(run.latencies)
    result.latency_samples = len(run.latencies)
    result.full_load = full_load_figures(run)
    result.latency_by_command_ms = {
        name: latency_summary(values) for name, values in sorted(run.by_command.items())
    }
    result.commands_sent = run.sent
    result.errors = dict(sorted(run.errors.items()))
    result.unexpected_errors = run.unexpected
    result.disconnects = run.disconnects
    result.cash_in_retries = run.cash_in_retries
    result.terminals_playing = run.playing
    if isinstance(run.meters, dict) and isinstance(run.meters.get("games_played"), int):
        result.games_played_meter = run.meters["games_played"]
    result.server_cpu_percent = (
        round(100.0 * result.server_cpu_s / duration, 1) if duration > 0 else 0.0
    )
    result.client_cpu_percent = (
        round(100.0 * result.client_cpu_s / duration, 1) if duration > 0 else 0.0
    )
    result.stopped_by = run.stopped_by
    if isinstance(run.meters, dict):
        result.server_latency_ms, result.log_commits = server_figures(run.meters)
    result.worker_figures = [worker_figures(meters) for meters in run.worker_meters]
    if store is not None and isinstance(run.meters, dict):
        result.store = shipping_figures(run.meters.get("store_shipping"), duration)
    return result


def server_figures(
    meters: dict[str, Any],
) -> tuple[dict[str, dict[str, float | None]], dict[str, Any] | None]:
    """The server's own figures from its ``ReadMeters``: each timed command's (``PlaceWagers``,
    ``Act``) p50/p99 from arrival to answer, and the log's commit thread's figures."""

    def ms(figures: dict[str, Any], key: str) -> float | None:
        value = figures.get(key)
        return None if not isinstance(value, int) else value / 1000.0

    commands = meters.get("commands")
    timed: dict[str, dict[str, float | None]] = {}
    if isinstance(commands, dict):
        for name in ("PlaceWagers", "Act"):
            figures = commands.get(name)
            if isinstance(figures, dict):
                timed[name] = {"p50": ms(figures, "p50_us"), "p99": ms(figures, "p99_us")}
    commits = meters.get("event_log")
    if not isinstance(commits, dict):
        return timed, None
    found = commits.get("commit")
    summary: dict[str, Any] = found if isinstance(found, dict) else {}
    transactions = commits.get("transactions") or 0
    return timed, {
        "writing_behind": commits.get("writing_behind"),
        "transactions": transactions,
        "writes": commits.get("writes"),
        "writes_per_transaction": (
            round(commits.get("writes", 0) / transactions, 2) if transactions else None
        ),
        "commit_p50_ms": ms(summary, "p50_us"),
        "commit_p99_ms": ms(summary, "p99_us"),
    }


def worker_figures(meters: Any) -> dict[str, Any]:
    """One worker's :func:`server_figures` as ``server_latency_ms`` and ``log_commits``."""
    if not isinstance(meters, dict):
        return {"error": "the worker gave no meters"}
    timed, commits = server_figures(meters)
    return {"server_latency_ms": timed, "log_commits": commits}


def worker_operators(
    config: Any, tables: int, terminals: int, workers: int
) -> list[tuple[str | None, list[str]]] | None:
    """With ``--workers``, one operator connection per worker: a table of the worker as its
    route, and the terminals of the worker's tables (T1..T7 at the first table...)."""
    if workers == 1:
        return None
    from game_server.net.service import table_configs
    from game_server.net.workers import placement

    configs = table_configs(config, tables)
    index = {c.table_id: k for k, c in enumerate(configs)}
    found: list[tuple[str | None, list[str]]] = []
    for share in placement(configs, workers):
        names = [
            f"T{i}"
            for i in range(1, terminals + 1)
            if (i - 1) // SEATS_PER_TABLE in {index[t] for t in share}
        ]
        found.append((share[0], names))
    return found


def _peak(pid: int) -> float:
    try:
        return peak_rss_mb(pid)
    except OSError:
        return 0.0


def _scratch_store(floor: Path, certs: Path) -> tuple[str, str]:
    """A new store database on the local floor, the run's key registered: (name, URL)."""
    from game_server.floor.cluster import LocalFloor, scratch_store
    from game_server.keys import load_public_key

    return scratch_store(LocalFloor.load(floor), load_public_key(certs), "loadtest", "loadtest")


def shipping_figures(shipping: Any, duration: float) -> dict[str, Any]:
    """The shipping figures of a run from the ``store_shipping`` meters read at its end:
    events logged and shipped per second over ``duration`` and their ratio, and the lag."""
    if not isinstance(shipping, dict) or duration <= 0:
        return {"error": "the server gave no store_shipping meters"}
    logged, shipped = int(shipping["logged_seq"]), int(shipping["events_shipped"])
    return {
        "events_logged": logged,
        "events_shipped": shipped,
        "logged_per_s": round(logged / duration, 1),
        "shipped_per_s": round(shipped / duration, 1),
        "shipped_to_logged": round(shipped / logged, 3) if logged else None,
        "events_behind_at_end": int(shipping["events_behind"]),
        "lag_p50_ms": shipping["lag_p50_ms"],
        "lag_p99_ms": shipping["lag_p99_ms"],
        "lag_max_ms": shipping["lag_max_ms"],
        "alarm": shipping["alarm"],
    }


def _server_rows(
    prefix: str,
    timed: dict[str, dict[str, float | None]],
    commits: dict[str, Any] | None,
) -> list[tuple[str, str]]:
    """The report's rows of one server's (or worker's) own figures: each timed command from
    arrival to answer, and its log's commits."""
    rows = [
        (f"  {prefix}{name} in the server", f"{fig['p50']:.1f} / {fig['p99']:.1f} ms")
        for name, fig in timed.items()
        if fig["p50"] is not None and fig["p99"] is not None
    ]
    if commits and commits.get("transactions"):
        rows.append(
            (
                f"{prefix}log commits",
                f"{commits['transactions']} transactions, "
                f"{commits['writes_per_transaction']} steps each, "
                f"p50/p99 {commits['commit_p50_ms']} / {commits['commit_p99_ms']} ms",
            )
        )
    return rows


def _full_load_rows(full: dict[str, Any] | None, terminals: int) -> list[tuple[str, str]]:
    """The report's rows of the latencies once every bot played (the ramp left out)."""
    if full is None:
        return [("at full load", f"never: the run stopped before all {terminals} bots played")]
    lat = full["latency_ms"]
    if lat["p99"] is None:
        return [("at full load", f"no answer timed in its {full['seconds']:.1f} s")]
    mark = "  ok" if lat["p99"] <= TARGET_P99_MS else "  MISSED"
    return [
        (
            "at full load",
            f"{full['seconds']:.1f} s, {full['samples']} answers timed (all {terminals} "
            "bots playing)",
        ),
        ("  latency p50 / p95", f"{lat['p50']:.1f} / {lat['p95']:.1f} ms"),
        ("  latency p99", f"{lat['p99']:.1f} ms   target <= {TARGET_P99_MS:g} ms{mark}"),
    ]


def format_report(result: LoadtestResult) -> str:
    """A small table of the figures, with the targets beside them."""
    lat = result.latency_ms

    def ms(key: str) -> str:
        value = lat.get(key)
        return "-" if value is None else f"{value:.1f} ms"

    p99 = lat.get("p99")
    p99_mark = "" if p99 is None else ("  ok" if p99 <= TARGET_P99_MS else "  MISSED")
    rss_mark = "  ok" if result.server_peak_rss_mb <= TARGET_RSS_MB else "  MISSED"
    errors = ", ".join(f"{k} {v}" for k, v in result.errors.items()) or "none"
    rows = [
        (
            "terminals",
            f"{result.terminals}"
            + (
                ""
                if result.terminals_playing >= result.terminals
                else f" ({result.terminals_playing} playing at the end: the rounds were reached "
                "during the cash-in ramp; ask for more rounds)"
            ),
        ),
        ("tables", f"{result.tables}"),
        ("server workers", f"{result.workers}"),
        ("rounds completed", f"{result.rounds} of {result.rounds_target} ({result.stopped_by})"),
        ("duration", f"{result.duration_s:.1f} s"),
        ("rounds/s", f"{result.rounds_per_s:.2f}"),
        ("latency p50", ms("p50")),
        ("latency p95", ms("p95")),
        ("latency p99", f"{ms('p99')}   target <= {TARGET_P99_MS:g} ms{p99_mark}"),
        ("latency max", ms("max")),
        *(
            (f"  {name} p50/p99", f"{fig['p50']:.1f} / {fig['p99']:.1f} ms")
            for name, fig in result.latency_by_command_ms.items()
            if fig["p50"] is not None and fig["p99"] is not None
        ),
        *_server_rows("", result.server_latency_ms, result.log_commits),
        *_full_load_rows(result.full_load, result.terminals),
        *(
            row
            for k, figures in enumerate(result.worker_figures, start=1)
            for row in (
                [(f"worker {k}", figures["error"])]
                if "error" in figures
                else _server_rows(
                    f"worker {k}: ", figures["server_latency_ms"], figures["log_commits"]
                )
            )
        ),
        ("commands sent", f"{result.commands_sent}"),
        ("errors", f"{errors} (unexpected {result.unexpected_errors})"),
        ("disconnects", f"{result.disconnects}"),
        ("cash-in retries", f"{result.cash_in_retries} (the operator's rate limit)"),
        (
            "bots' CPU",
            f"{result.client_cpu_s:.2f} s ({result.client_cpu_percent:.1f}% of a core; the "
            "loadtest's own process)",
        ),
        ("bots' peak RSS", f"{result.client_peak_rss_mb:.1f} MB"),
        (
            "server CPU",
            f"{result.server_cpu_s:.2f} s ({result.server_cpu_percent:.1f}% of a core; its own "
            "process group)",
        ),
        (
            "server peak RSS",
            f"{result.server_peak_rss_mb:.1f} MB   target <= {TARGET_RSS_MB:g} MB{rss_mark}",
        ),
    ]
    store = result.store
    if store is not None and "error" not in store:
        rows += [
            (
                "events logged/s",
                f"{store['logged_per_s']:.1f} ({store['events_logged']} in the run)",
            ),
            (
                "events shipped/s",
                f"{store['shipped_per_s']:.1f} (ratio to logged {store['shipped_to_logged']}, "
                f"{store['events_behind_at_end']} behind at the end)",
            ),
            (
                "shipping lag",
                f"p50 {store['lag_p50_ms']} ms, p99 {store['lag_p99_ms']} ms, "
                f"max {store['lag_max_ms']} ms",
            ),
            ("shipping alarm", str(store["alarm"] or "none")),
        ]
    elif store is not None:
        rows.append(("floor store", store["error"]))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def too_many(terminals: int) -> str:
    """Why ``terminals`` is more than one server seats (``etg serve --tables`` at most)."""
    return (
        f"{terminals} terminals need {tables_for(terminals)} tables, but one server hosts at "
        f"most {MAX_TABLES} tables of {SEATS_PER_TABLE} seats ({MAX_TERMINALS} terminals)"
    )


def _terminals(ctx: click.Context, param: click.Parameter, value: int) -> int:
    if value > MAX_TERMINALS:
        raise click.BadParameter(too_many(value))
    return value


@click.command("loadtest")
@click.option(
    "--terminals",
    type=click.IntRange(min=1),
    default=7,
    show_default=True,
    callback=_terminals,
    help=f"Bots, at most {MAX_TERMINALS} (seven at each of up to {MAX_TABLES} tables).",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Stop after this many completed rounds (over all tables).",
)
@click.option(
    "--seconds",
    type=click.FloatRange(min=1),
    default=300.0,
    show_default=True,
    help="Stop after this many seconds at the latest.",
)
@click.option(
    "--tmpdir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Where to make the run's temporary directory (the server's log is written there).",
)
@click.option(
    "--floor",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="A local floor (etg floor up DIR): the server ships its log to a new store database "
    "there, and the shipping rate and lag are reported.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_TABLES),
    default=1,
    show_default=True,
    help="Run the server with etg serve --workers N (CPU and RSS summed over its processes).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
def loadtest(
    terminals: int,
    rounds: int,
    seconds: float,
    tmpdir: Path | None,
    floor: Path | None,
    workers: int,
    as_json: bool,
) -> None:
    """Load-test a real table server: N basic-strategy bots over mutual TLS (ceil(N/7)
    tables); prints latency, throughput, server CPU and peak RSS (and, with --floor, the
    shipping to the floor store)."""
    try:
        result = run_loadtest(terminals, rounds, seconds, tmpdir, floor, workers=workers)
    except (LoadtestError, ETGError) as exc:
        click.echo(f"etg loadtest: error: {exc}", err=True)
        raise SystemExit(EXIT_FAILED) from None
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(format_report(result))
    if not result.ok:
        click.echo("etg loadtest: error: no round completed", err=True)
        raise SystemExit(EXIT_FAILED)


if __name__ == "__main__":
    loadtest(prog_name="etg loadtest")
