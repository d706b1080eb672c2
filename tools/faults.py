"""``etg faults``: a fault campaign proving that what the table acknowledged it kept.

The idea of Jepsen's checkers, against the real server: clients that keep their own record
of every command answered, a server killed with SIGKILL at random moments and restarted,
programs reading the live log the whole time, and at the end a check of every record
against the log. It reproduces the incident of a stock ``sqlite3`` CLI opened read-write on
the live log, which deleted the ``-wal`` under the server and lost acknowledged credits at
the next kill -9 (``game_server.eventlog.locks``; ``docs/durability.md``).

One campaign (:func:`run_campaign`):

1. A scratch folder gets certificates and keys, the example Blackjack Rules Submission with
   every countdown at 3 seconds (what ``etg loadtest`` prepares), an operator console with an
   investigator's account, and the real server (``python -m game_server --anchors``) on a
   free port.
2. K bot terminals, each with its own certificate, play rounds over mutual TLS, and an
   operator credits and cashes out terminals with unique references, each client keeping its
   own journal (:mod:`tools.faults_clients`). A client whose connection dropped before an
   answer sends that command again with its first request id once it is connected again, as
   the real terminal does.
3. Two threads read the live log in a loop the whole time: Debian's ``sqlite3`` CLI with its
   default (read-write) open and with ``-readonly``, Python's ``sqlite3`` with its defaults
   (each in a process of its own); and ``etg recall list``, ``etg verify --anchors``,
   ``etg backup``, ``etg status`` and the console's pages over HTTPS with a session. Every
   run is kept with its outcome: ok, a failure of an expected kind (:func:`judge`), or
   FAILED.
4. N times, after a random delay in ``--seconds-between`` (a ``random.Random`` of the
   seed), the server is killed with SIGKILL and started again on the same port; a start
   proves the log against its anchors, and a start refused ends the campaign FAILED with
   the server's words.
5. Then the clients stop wagering and moving credits, the terminals play out their hands and
   take a final view, the server is stopped cleanly, and the log (read-only) is checked:
   every acknowledged command in it, none that took effect twice, every wallet where its
   terminal was last told (:mod:`tools.faults_check`), and the whole log verified against
   its anchor stream (:func:`~game_server.recall.verify.verify_log`).

Exit status: 0 when nothing acknowledged was lost, nothing took effect twice, every wallet
was as told, every start
succeeded, the log verified and no reader failed unexpectedly; 1 otherwise; 2 for bad
options. The scratch folder is removed after a campaign that passed and kept (its path
printed) after one that failed, with every start's output (``server-<n>.out``) and every
reader's run and what it printed (``readers.jsonl``).

Entry points: the click command :func:`faults_command` (``etg faults``) and
:func:`run_campaign`, which returns a :class:`FaultsResult`.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import click

from shared.errors import ETGError
from tools.faults_check import Journal, Lost, Verdict, check, read_facts
from tools.faults_clients import OperatorScript, TerminalBot
from tools.faults_readers import ConsoleReader, ReaderRun, Readers, reader_commands
from tools.loadtest import LoadtestError, prepare, start_server, stop_server

#: Exit status: acknowledged means kept; something was lost or failed; bad options.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: Cents the operator credits every terminal with before play ($200).
FUND_CENTS: Final = 20_000
#: The chance that a terminal sits a round out (the operator's cash outs of it are refused
#: while it has wagers in play).
SIT_OUT: Final = 0.25
#: Seconds the terminals may take to play out their hands once asked to close.
SETTLE_TIMEOUT: Final = 120.0
#: Seconds after the last kill within which every kind of reader must have run once.
READERS_TIMEOUT: Final = 300.0
#: Seconds a client's thread may take to end once the campaign stops.
JOIN_TIMEOUT: Final = 30.0
#: What the server says when its lock on the log is gone (game_server.eventlog.locks).
LOCK_LOST: Final = "no longer holds SQLite's lock"


class FaultsError(Exception):
    """The campaign could not go on (a start refused, a client that failed, no settling)."""


@dataclass(frozen=True)
class Plan:
    """What one campaign does.

    Attributes:
        kills: How many times the server is killed (SIGKILL) and started again.
        seed: Seeds the delays between kills, the operator's choices and the rounds the
            terminals sit out (a stream of its own for each).
        terminals: How many bot terminals play (1 to 7: one table).
        between: The range of seconds the server runs before each kill.
        tmpdir: Where the scratch folder is made (None: the system's).
        console: Whether the console is started and its pages read.
    """

    kills: int
    seed: int
    terminals: int
    between: tuple[float, float]
    tmpdir: Path | None = None
    console: bool = True


@dataclass
class FaultsResult:
    """The figures of one campaign (JSON-ready through :meth:`to_json`)."""

    plan: Plan
    kills: int = 0
    restarts: int = 0
    start_refused: str | None = None
    problem: str | None = None
    verdict: Verdict | None = None
    readers: dict[str, dict[str, Any]] = field(default_factory=dict)
    reader_failures: list[ReaderRun] = field(default_factory=list)
    missing_readers: list[str] = field(default_factory=list)
    verified: bool = False
    verify_failure: str | None = None
    events: int = 0
    checkpoints: int = 0
    lock_lost: int = 0
    server_exit: int | None = None
    duration_s: float = 0.0
    folder: str | None = None

    @property
    def ok(self) -> bool:
        """Acknowledged means kept, and nothing else went wrong."""
        return (
            self.start_refused is None
            and self.problem is None
            and self.verdict is not None
            and self.verdict.ok
            and self.verified
            and not self.reader_failures
            and self.lock_lost == 0
            and self.restarts == self.kills == self.plan.kills
        )

    def to_json(self) -> dict[str, Any]:
        """The figures as one JSON object."""
        verdict = self.verdict
        return {
            "ok": self.ok,
            "seed": self.plan.seed,
            "kills_planned": self.plan.kills,
            "kills": self.kills,
            "restarts": self.restarts,
            "start_refused": self.start_refused,
            "problem": self.problem,
            "terminals": self.plan.terminals,
            "seconds_between": list(self.plan.between),
            "duration_s": self.duration_s,
            "acknowledged": {} if verdict is None else verdict.acknowledged,
            "acknowledged_total": 0 if verdict is None else sum(verdict.acknowledged.values()),
            "unknown": {} if verdict is None else verdict.unknown,
            "unknown_credits_in_log": 0 if verdict is None else verdict.unknown_in_log,
            "resent": 0 if verdict is None else verdict.resent,
            "resent_outcomes": {} if verdict is None else verdict.resent_outcomes,
            "already_in_log": 0 if verdict is None else verdict.already_in_log,
            "refused": {} if verdict is None else verdict.refused,
            "lost": [] if verdict is None else [lost.to_json() for lost in verdict.lost],
            "doubled": [] if verdict is None else verdict.doubled,
            "mismatches": [] if verdict is None else verdict.mismatches,
            "readers": self.readers,
            "reader_failures": [run.to_json() for run in self.reader_failures],
            "missing_readers": self.missing_readers,
            "verified": self.verified,
            "verify_failure": self.verify_failure,
            "events": self.events,
            "checkpoints": self.checkpoints,
            "lock_lost": self.lock_lost,
            "server_exit": self.server_exit,
            "folder": self.folder,
        }


# --------------------------------------------------------------------------------------------
# The scratch folder and the server


class Server:
    """The real server of the campaign: started, killed and started again on one port, each
    start's output in ``server-<n>.out``.

    Args:
        folder: The scratch folder (``table.db``, ``anchors.jsonl`` are there).
        certs: The certificates and keys.
        config: The Rules Submission.
    """

    def __init__(self, folder: Path, certs: Path, config: Path) -> None:
        self.folder = folder
        self.certs = certs
        self.config = config
        self.port = 0
        self.starts = 0
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start the server (on the first start's port after that) and wait until it
        listens; the seconds it took.

        Raises:
            FaultsError: it did not start (its last lines say why).
        """
        self.starts += 1
        output = self.folder / f"server-{self.starts}.out"
        began = time.monotonic()
        try:
            self.process, self.port, _ = start_server(
                self.folder, self.certs, self.config, 1, port=self.port, output=output
            )
        except LoadtestError as exc:
            raise FaultsError(f"start {self.starts} of the server was refused: {exc}") from None
        return time.monotonic() - began

    def kill(self) -> None:
        """SIGKILL, and wait for the process to be gone."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> int | None:
        """SIGTERM (a clean stop: the log's shutdown checkpoint); its exit status."""
        if self.process is None:
            return None
        stop_server(self.process)
        return self.process.returncode

    def lock_losses(self) -> int:
        """How many times a start's output says the server lost its lock on the log."""
        return sum(
            (self.folder / f"server-{n}.out").read_text(errors="replace").count(LOCK_LOST)
            for n in range(1, self.starts + 1)
            if (self.folder / f"server-{n}.out").exists()
        )


def scratch(folder: Path, terminals: int) -> tuple[Path, Path]:
    """Certificates (K terminals, the console's), keys and the short-countdown Rules
    Submission in ``folder``: (certs, config)."""
    from game_server.net.pki import add_console

    certs, config = prepare(folder, terminals)
    add_console(certs)
    return certs, config


def console_files(folder: Path, port: int, password: str) -> Path:
    """The console's servers file (the campaign's server, its log and anchors) and an
    investigator's account; the servers file's path."""
    from game_server.console.accounts import AccountBook
    from game_server.console.roles import Role

    servers = folder / "servers.toml"
    servers.write_text(
        '[console]\nshifts = ["06:00", "14:00", "22:00"]\n\n'
        f'[[server]]\nname = "faults"\naddress = "127.0.0.1:{port}"\n'
        'log = "table.db"\nanchors = "anchors.jsonl"\n'
    )
    AccountBook(folder / "console-accounts.json").add("ivy", Role.INVESTIGATOR, password)
    return servers


# --------------------------------------------------------------------------------------------
# The campaign


@dataclass
class _Cast:
    """Everything running during a campaign (stopped in :func:`_stop_all`)."""

    server: Server
    stop: threading.Event
    operator: OperatorScript
    bots: list[TerminalBot]
    threads: list[threading.Thread]
    readers: Readers
    console: ConsoleReader | None


def run_campaign(plan: Plan, say: Callable[[str], None] = lambda _line: None) -> FaultsResult:
    """Run one campaign (see the module docstring).

    Args:
        plan: What to do.
        say: Called with a line of progress (a kill, a restart, the end).

    Returns:
        The result; ``result.ok`` is the verdict.
    """
    result = FaultsResult(plan)
    began = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="etg-faults-", dir=plan.tmpdir))
    certs, config = scratch(folder, plan.terminals)
    server = Server(folder, certs, config)
    cast: _Cast | None = None
    try:
        server.start()
        say(f"server listening on 127.0.0.1:{server.port}; scratch folder {folder}")
        cast = _start(plan, server)
        _kill_loop(plan, cast, result, say)
        if result.start_refused is None:
            _settle(cast, say)
    except FaultsError as exc:
        result.problem = str(exc)
    finally:
        result.server_exit = _stop_all(cast, server)
    if cast is not None:
        _collect(cast, result)
        try:
            _check_log(folder, cast, result)
        except ETGError as exc:
            result.problem = result.problem or f"the log could not be checked: {exc}"
    result.duration_s = round(time.monotonic() - began, 1)
    if result.ok:
        shutil.rmtree(folder, ignore_errors=True)
    else:
        result.folder = str(folder)
    say(f"done in {result.duration_s:.0f} s: {'PASSED' if result.ok else 'FAILED'}")
    return result


def _start(plan: Plan, server: Server) -> _Cast:
    """Start the console, the clients and the readers against the running server; fund
    the terminals.

    Raises:
        FaultsError: the console did not start.
    """
    from game_server.config import load_config
    from game_server.games import game_for

    stop = threading.Event()
    connect = _connector(server)
    table = load_config(server.config)
    names = [f"T{i}" for i in range(1, plan.terminals + 1)]
    # One random stream per client, each drawn from the campaign's seed.
    operator = OperatorScript(connect, stop, names, f"{plan.seed}/operator", f"faults {plan.seed}")
    bots = [
        TerminalBot(
            name, connect, stop, game_for(table).wire_bot(table), SIT_OUT, f"{plan.seed}/{name}"
        )
        for name in names
    ]
    console = None
    if plan.console:
        password = secrets.token_urlsafe(18)
        servers = console_files(server.folder, server.port, password)
        try:
            console = ConsoleReader.start(server.folder, server.certs, servers, "ivy", password)
        except RuntimeError as exc:
            raise FaultsError(f"the console did not start: {exc}") from None
    commands = reader_commands(server.folder, server.certs, server.port)
    readers = Readers(commands, console, stop, server.folder / "readers.jsonl")
    cast = _Cast(server, stop, operator, bots, [], readers, console)
    operator.fund(FUND_CENTS)
    for target in (operator.run, *(bot.run for bot in bots), *readers.loops()):
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        cast.threads.append(thread)
    return cast


def _connector(server: Server) -> Callable[[str], Any]:
    """Opens a connection to the server's port with the certificate named."""
    from tools.amp_client import AmpClient

    def connect(who: str) -> AmpClient:
        return AmpClient(server.port, server.certs, who, timeout=30.0)

    return connect


def _kill_loop(plan: Plan, cast: _Cast, result: FaultsResult, say: Callable[[str], None]) -> None:
    """Kill the server ``plan.kills`` times after random delays, starting it again each
    time; then go on until every kind of reader has run at least once.

    Raises:
        FaultsError: a client failed, or a kind of reader never ran (within
            :data:`READERS_TIMEOUT` seconds after the last kill).
    """
    chance = random.Random(f"{plan.seed}/kills")
    for number in range(1, plan.kills + 1):
        delay = chance.uniform(*plan.between)
        _wait(cast, delay)
        cast.server.kill()
        result.kills += 1
        try:
            took = cast.server.start()
        except FaultsError as exc:
            result.start_refused = str(exc)
            say(f"kill {number}/{plan.kills} after {delay:.1f} s: {exc}")
            return
        result.restarts += 1
        say(f"kill {number}/{plan.kills} after {delay:.1f} s; listening again in {took:.1f} s")
    deadline = time.monotonic() + READERS_TIMEOUT
    while not cast.readers.every_kind_ran():
        if time.monotonic() > deadline:
            never = ", ".join(cast.readers.never_ran())
            raise FaultsError(f"these readers never ran: {never}")
        _wait(cast, 0.5)


def _wait(cast: _Cast, seconds: float) -> None:
    """Wait, failing at once if a client's thread ended with an error."""
    end = time.monotonic() + seconds
    while True:
        for client in (cast.operator, *cast.bots):
            if client.error is not None:
                raise FaultsError(f"the client {client.name} failed: {client.error!r}")
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.2))


def _settle(cast: _Cast, say: Callable[[str], None]) -> None:
    """Stop moving credits, then let the terminals play out what is in play and take their
    final views; read the server's wallets.

    Raises:
        FaultsError: a terminal did not settle in time.
    """
    cast.operator.closing.set()
    operator_thread = cast.threads[0]
    operator_thread.join(JOIN_TIMEOUT)
    cast.operator.resolve()  # its last commands whose answers were lost, answered first
    for bot in cast.bots:
        bot.closing.set()
    deadline = time.monotonic() + SETTLE_TIMEOUT
    for bot in cast.bots:
        if not bot.settled.wait(max(0.0, deadline - time.monotonic())):
            raise FaultsError(
                f"{bot.name} did not settle within {SETTLE_TIMEOUT:.0f} s (its last view: "
                f"{json.dumps(bot.view)[:300]})"
            )
    wallets = cast.operator.read_wallets()
    say(f"settled; the server's wallets: {wallets}")


def _stop_all(cast: _Cast | None, server: Server) -> int | None:
    """Stop the readers and clients, the console, then the server (cleanly); its exit
    status."""
    if cast is not None:
        cast.stop.set()
        for thread in cast.threads:
            thread.join(JOIN_TIMEOUT)
        cast.operator.close()
        if cast.console is not None:
            cast.console.stop()
    return server.stop()


def _collect(cast: _Cast, result: FaultsResult) -> None:
    """The readers' figures and the server's lock alarms."""
    result.readers = cast.readers.figures()
    result.reader_failures = [run for run in cast.readers.runs if run.outcome == "FAILED"]
    result.missing_readers = cast.readers.missing
    result.lock_lost = cast.server.lock_losses()


def _check_log(folder: Path, cast: _Cast, result: FaultsResult) -> None:
    """Every journal against the log; the log verified against its anchor stream."""
    from game_server.eventlog import AnchorFile, EventLogReader
    from game_server.keys import load_public_key, load_sealing_key
    from game_server.recall.verify import verify_log

    journals: list[Journal] = [cast.operator.journal, *(bot.journal for bot in cast.bots)]
    certs = cast.server.certs
    with EventLogReader.open(folder / "table.db") as reader:
        facts = read_facts(reader)
        report = verify_log(
            reader,
            load_public_key(certs),
            sealing_key=load_sealing_key(certs),
            anchors=AnchorFile(folder / "anchors.jsonl"),
        )
        result.events = reader.max_seq()
        result.checkpoints = len(reader.checkpoints())
    result.verdict = check(journals, facts, cast.operator.meters)
    result.verified = report.ok
    if report.first_failure is not None:
        first = report.first_failure
        result.verify_failure = f"seq {first.seq} [{first.check}]: {first.reason}"


# --------------------------------------------------------------------------------------------
# The report


def format_report(result: FaultsResult) -> str:
    """The campaign's figures and verdict, one line each."""
    verdict = result.verdict
    plan = result.plan
    rows: list[tuple[str, str]] = [
        ("verdict", "PASSED" if result.ok else "FAILED"),
        ("seed", str(plan.seed)),
        ("kills", f"{result.kills} of {plan.kills} (SIGKILL), {result.restarts} restarts"),
        ("terminals", str(plan.terminals)),
        ("duration", f"{result.duration_s:.0f} s"),
    ]
    if result.start_refused:
        rows.append(("start refused", result.start_refused))
    if result.problem:
        rows.append(("problem", result.problem))
    if verdict is not None:
        rows += _verdict_rows(verdict)
    rows.append(("log", f"{result.events} events, {result.checkpoints} checkpoints"))
    rows.append(
        ("verified", "yes, against its anchors" if result.verified else str(result.verify_failure))
    )
    rows.append(("lock lost", f"{result.lock_lost} times (the server's alarm)"))
    rows.append(("server exit", str(result.server_exit)))
    for kind, figures in result.readers.items():
        expected = ", ".join(f"{why} {n}" for why, n in figures["expected"].items())
        text = f"{figures['runs']} runs, {figures['ok']} ok, {figures['failed']} FAILED"
        rows.append((f"reader {kind}", text + (f"; expected: {expected}" if expected else "")))
    if result.missing_readers:
        rows.append(("readers not run", ", ".join(result.missing_readers)))
    rows += [("reader FAILED", run.describe()) for run in result.reader_failures[:5]]
    if result.folder:
        rows.append(("kept", result.folder))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def _verdict_rows(verdict: Verdict) -> list[tuple[str, str]]:
    def counts(figures: dict[str, int]) -> str:
        return ", ".join(f"{name} {n}" for name, n in figures.items()) or "none"

    rows = [
        (
            "acknowledged",
            f"{sum(verdict.acknowledged.values())}: {counts(verdict.acknowledged)}",
        ),
        (
            "unknown",
            f"{sum(verdict.unknown.values())}: {counts(verdict.unknown)} (credit movements "
            f"among them found in the log: {verdict.unknown_in_log})",
        ),
        (
            "sent again",
            f"{verdict.resent} with their first request ids: {counts(verdict.resent_outcomes)} "
            f"(answered already and found in the log: {verdict.already_in_log})",
        ),
        ("refused", counts(verdict.refused)),
        ("lost", str(len(verdict.lost))),
        ("done twice", str(len(verdict.doubled))),
    ]
    rows += [("LOST", _lost_line(lost)) for lost in verdict.lost[:10]]
    rows += [("TWICE", line) for line in verdict.doubled[:10]]
    rows += [("MISMATCH", line) for line in verdict.mismatches[:10]]
    return rows


def _lost_line(lost: Lost) -> str:
    sent = lost.ack.sent
    return f"{sent.client} {sent.command} {sent.request_id} {dict(sent.arguments)}: {lost.why}"


# --------------------------------------------------------------------------------------------
# The command


def _between(ctx: click.Context, param: click.Parameter, value: str) -> tuple[float, float]:
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*", value)
    if found is None:
        raise click.BadParameter(f"give two numbers of seconds A,B (e.g. 2,6), not {value!r}")
    low, high = float(found[1]), float(found[2])
    if not 0.5 <= low <= high <= 3600:
        raise click.BadParameter(f"{value!r}: A is at least 0.5 s and at most B, B at most 3600 s")
    return low, high


@click.command("faults")
@click.option(
    "--kills",
    type=click.IntRange(1, 10_000),
    default=5,
    show_default=True,
    help="How many times the server is killed with SIGKILL and started again.",
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="Seeds the delays between kills, the operator's choices and the rounds the terminals "
    "sit out.",
)
@click.option(
    "--terminals",
    type=click.IntRange(1, 7),
    default=3,
    show_default=True,
    help="Bot terminals playing (one table: at most 7).",
)
@click.option(
    "--seconds-between",
    "between",
    default="2,6",
    show_default=True,
    callback=_between,
    help="The range A,B of seconds the server runs before a kill.",
)
@click.option(
    "--tmpdir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Where to make the campaign's scratch folder.",
)
@click.option("--no-console", is_flag=True, help="Do not start the console nor read its pages.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
def faults_command(
    kills: int,
    seed: int,
    terminals: int,
    between: tuple[float, float],
    tmpdir: Path | None,
    no_console: bool,
    as_json: bool,
) -> None:
    """Kill the real server N times at random moments while bots play, an operator moves
    credits and programs read the live log; then check that every acknowledged command is
    in the log, every wallet is where its terminal was told, and the log verifies against
    its anchors. Exits 0 when so, 1 when not, 2 for bad options."""
    plan = Plan(kills, seed, terminals, between, tmpdir, console=not no_console)
    result = run_campaign(plan, say=lambda line: click.echo(f"etg faults: {line}", err=True))
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(format_report(result))
    raise SystemExit(EXIT_OK if result.ok else EXIT_FAILED)


if __name__ == "__main__":
    faults_command(prog_name="etg faults")
