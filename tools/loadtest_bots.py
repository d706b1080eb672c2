"""The bots of a load test: one Twisted reactor runs the operator and N terminal bots, each
over its own TLS 1.3 connection with its own client certificate.

The operator (:class:`_Operator`, one connection per worker of ``etg serve --workers``) says
``Hello`` and cashes in its terminals, paced under the server's rate limit
(:class:`_CashIns`); each terminal's bot (:class:`_Bot`) then says ``Hello`` and, on every
view it receives, does what its game's bot says (:meth:`~game_server.games.api.Game.
wire_bot`), timing every command from sending to its answer. :class:`BotRun` counts what
happened and says when to stop; :class:`Fleet` wires them on the reactor.

Entry point: :func:`run_bots`.
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from twisted.internet import defer, task
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

if TYPE_CHECKING:
    from game_server.games.api import WireBot

#: Credits the operator cashes in to every terminal, in cents ($1,000).
CASH_IN_CENTS: Final = 100_000
#: The operator's pace against the server's rate limit (a little under it: the two buckets
#: start a moment apart, and Hello takes a token).
OPERATOR_PACE: Final = 0.9
#: Declared errors that are races with the countdowns, not faults of the bots.
EXPECTED_CODES: Final = frozenset({"NOT_YOUR_TURN", "ROUND_CLOSED", "RATE_LIMITED"})
#: What a bot's step names (Game.wire_bot), as the AMP command that sends it.
_COMMANDS: Final[dict[str, type[amp.Command]]] = {
    "place_wagers": PlaceWagers,
    "answer_insurance": AnswerInsurance,
    "act": Act,
}


class BotRun:
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


class _Bot(amp.AMP):
    """One terminal: plays every view it gets as its game's bot says, one command at a
    time, timing each from sending to its answer."""

    def __init__(self, run: BotRun, name: str) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # unannotated
        self.run = run
        self.name = name
        self.latest: dict[str, Any] | None = None
        self.busy = False
        self.bot = run.bot()

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        if not self.run.stopping:
            self.run.disconnects += 1
        super().connectionLost(reason)  # type: ignore[no-untyped-call]  # unannotated

    @ViewUpdate.responder
    def view_update(self, view: dict[str, Any]) -> dict[str, Any]:
        self.got(view)
        return {}

    def got(self, view: dict[str, Any]) -> None:
        self.run.seen(view)
        self.latest = view
        if not self.busy:
            self.play()

    def play(self) -> None:
        view, self.latest = self.latest, None
        if view is None or self.run.stopping:
            return
        step = self.bot.next_step(view)
        if step is not None:
            self.send(
                _COMMANDS[step.command],
                timed=step.timed,
                request_id=self.run.request_id(self.name),
                **step.arguments,
            )

    def send(self, command: type[amp.Command], timed: bool, **kwargs: Any) -> None:
        run = self.run
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


class _Operator(amp.AMP):
    """An operator connection: a lost one stops the run."""

    connected = True

    def __init__(self, fleet: Fleet) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # unannotated
        self.fleet = fleet

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.connected = False
        run = self.fleet.run
        if not run.stopping:
            run.disconnects += 1
            run.error(reason)
            self.fleet.stop("the operator's connection was lost: " + reason.getErrorMessage())
        super().connectionLost(reason)  # type: ignore[no-untyped-call]  # unannotated


class _CashIns:
    """One operator connection's cash-ins, one at a time, each terminal's bot started once
    its credits are in; paced by a bucket of its own under the server's rate limit (each
    operator connection has the server's limit of its own)."""

    def __init__(self, fleet: Fleet, operator: _Operator, names: list[str]) -> None:
        self.fleet = fleet
        self.operator = operator
        self.names = names
        self.pace = TokenBucket(fleet.reactor, fleet.rate, fleet.limits.burst - 2)  # Hello took one

    def next_one(self, _ignored: Any = None, attempt: int = 0) -> Any:
        fleet, run, names, rate = self.fleet, self.fleet.run, self.names, self.fleet.rate
        if not names or run.stopping:
            return None
        if not self.pace.take():  # under the server's rate limit, never into it
            return task.deferLater(fleet.reactor, 1.0 / rate, self.next_one, None, attempt)
        name = names[0]
        d = self.operator.callRemote(  # type: ignore[no-untyped-call]  # unannotated
            CashIn,
            request_id=run.request_id("op"),
            terminal=name,
            amount=CASH_IN_CENTS,
            reference="loadtest",
        )

        def done(_answer: Any) -> Any:
            names.pop(0)
            fleet.start_bot(name)
            return self.next_one()

        def refused(failure: Any) -> Any:
            if isinstance(failure.value, RateLimited) and attempt < 100:
                # Refused all the same (the buckets drifted): wait a token and retry.
                run.cash_in_retries += 1
                return task.deferLater(fleet.reactor, 1.0 / rate, self.next_one, None, attempt + 1)
            if not self.operator.connected:
                return None  # the operator's connection is gone: the run stops
            run.error(failure)
            names.pop(0)  # this terminal cannot play; go on with the others
            return self.next_one()

        d.addCallbacks(done, refused)
        return d


class Fleet:
    """The operator connections and the bots of one run, on ``reactor``.

    Args:
        reactor: The reactor they run on.
        port: The server's port (on 127.0.0.1).
        certs: The run's certificates (the CA, the operator's and every terminal's).
        run: Counts what happens and says when to stop.
        on_tick: Called every half second; returns a reason to stop, or None.
    """

    def __init__(
        self, reactor: Any, port: int, certs: Path, run: BotRun, on_tick: Callable[[], Any]
    ) -> None:
        self.reactor = reactor
        self.port = port
        self.run = run
        self.on_tick = on_tick
        self.layout = PkiLayout(certs)
        self.ca = self.layout.ca.certificate
        self.bots: list[_Bot] = []
        #: The operator connections that said Hello, in the workers' order.
        self.operators: list[_Operator] = []
        self.limits = NetLimits()  # the server runs without a floor file: the default limits
        self.rate = self.limits.commands_per_second * OPERATOR_PACE

    def connect(self, cert: Path, key: Path, protocol: amp.AMP, route: str | None = None) -> Any:
        options = client_tls_options(self.ca, cert, key, route=route)
        endpoint = SSL4ClientEndpoint(self.reactor, "127.0.0.1", self.port, options, timeout=30)  # type: ignore[no-untyped-call]  # unannotated
        return connectProtocol(endpoint, protocol)  # type: ignore[no-untyped-call]  # unannotated

    def start_operators(
        self, terminals: int, operators: list[tuple[str | None, list[str]]] | None
    ) -> None:
        """Connect each operator (one for all terminals by default) to say Hello and cash in
        its terminals."""
        operator_files = self.layout.operator
        everyone = [f"T{i}" for i in range(1, terminals + 1)]
        for route, names in operators or [(None, everyone)]:
            d = self.connect(operator_files.certificate, operator_files.key, _Operator(self), route)
            d.addCallback(self._greet_and_cash_in, names)
            d.addErrback(self._operator_failed)

    def _greet_and_cash_in(self, operator: _Operator, names: list[str]) -> Any:
        said = operator.callRemote(Hello, version=PROTOCOL_VERSION, software="etg-loadtest")  # type: ignore[no-untyped-call]  # unannotated
        return said.addCallback(lambda _answer: self._cash_in_all(operator, names))

    def _cash_in_all(self, operator: _Operator, names: list[str]) -> Any:
        self.operators.append(operator)
        return _CashIns(self, operator, names).next_one()

    def _operator_failed(self, failure: Any) -> None:
        self.run.error(failure)
        self.stop("operator failed: " + failure.getErrorMessage())

    def start_bot(self, name: str) -> None:
        """Connect terminal ``name``'s bot and say Hello: it plays from the view answered."""
        files = self.layout.terminal(name)
        bot = _Bot(self.run, name)
        self.bots.append(bot)
        d = self.connect(files.certificate, files.key, bot)
        d.addCallback(
            lambda proto: proto.callRemote(Hello, version=PROTOCOL_VERSION, software="etg-loadtest")
        )
        d.addCallback(lambda answer: self.run.joined(bot, answer["view"]))
        d.addErrback(lambda failure: self.run.error(failure))

    def check(self) -> None:
        """Every half second: stop once the rounds are played, or when ``on_tick`` says."""
        if self.run.stopping:
            return
        if len(self.run.completed) >= self.run.rounds:
            self.stop("rounds")
            return
        reason = self.on_tick()
        if reason:
            self.stop(reason)

    def stop(self, reason: str) -> None:
        """Stop the run (once): read the operators' meters, then stop the reactor."""
        run = self.run
        if run.stopping:
            return
        run.stopping = True
        run.stopped_by = reason
        run.stopped_at = time.perf_counter()
        if self.operators:
            self._read_meters_then_stop()
        else:
            self.reactor.stop()

    def _read_meters_then_stop(self) -> None:
        """Every operator's meters (one per worker, in the workers' order); games_played
        summed over them, and each worker's own figures kept. The reactor stops when they
        are read, or 3 s later."""
        reactor, run = self.reactor, self.run
        read = [op.callRemote(ReadMeters) for op in self.operators]  # type: ignore[no-untyped-call]  # unannotated

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


def run_bots(
    port: int,
    certs: Path,
    terminals: int,
    run: BotRun,
    seconds: float,
    on_tick: Any,
    operators: list[tuple[str | None, list[str]]] | None = None,
) -> float:
    """Run the reactor with the operator and the bots until ``run`` says stop or ``seconds``
    pass. ``on_tick()`` is called every half second (returns a reason to stop, or None).
    ``operators``: one operator connection per route (a table of each worker of
    ``etg serve --workers``) with the terminals it cashes in; default one for all.
    Returns the duration in seconds, from the operator's connection to the stop."""
    from twisted.internet import reactor as _reactor

    reactor: Any = _reactor
    fleet = Fleet(reactor, port, certs, run, on_tick)
    started = time.perf_counter()
    fleet.start_operators(terminals, operators)
    signal.signal(signal.SIGTERM, lambda _n, _f: reactor.callFromThread(fleet.stop, "SIGTERM"))
    signal.signal(signal.SIGINT, lambda _n, _f: reactor.callFromThread(fleet.stop, "SIGINT"))
    ticker = task.LoopingCall(fleet.check)
    ticker.start(0.5, now=False)
    reactor.callLater(seconds, fleet.stop, "time limit")
    reactor.run(installSignalHandlers=False)
    return time.perf_counter() - started
