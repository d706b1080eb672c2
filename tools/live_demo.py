"""``etg demo --live``: the real table server and real terminals on one laptop.

:func:`run_live_demo` makes the certificates and keys under the data folder if missing,
writes a demo table config with short countdowns, starts ``python -m game_server`` on a free
port, credits every terminal with demo money through the operator certificate (a small
blocking AMP client over stdlib TLS), then starts the terminals: windows side by side when
a display is available (``DISPLAY`` or ``WAYLAND_DISPLAY``; :func:`window_places`), each
titled with its terminal and table (T1 is the visitor's to play, the others are played by
bots), otherwise headless terminals (``SDL_VIDEODRIVER=dummy``) all played by bots
(``--autoplay``; every window too with ``--bots``). The bots stake every wager the table
offers and save a PNG of their screen into the table's ``screenshots/`` every few rounds and
of the last round. Each settled round is printed from the event log, read-only, once a
second, with each wager's title (and at the table without a hole card each player's own
dealer hand). It stops after ``rounds`` rounds (or on Ctrl-C); the terminals and the server
always get SIGTERM, then SIGKILL after 5 seconds.

Each Rules Submission keeps its own folder under the data folder (``<data>/<config name>/``:
its demo config, event log, anchor stream, process logs and screenshots; the certificates are
shared in ``<data>/certs``), so that two tables never write into one log, and a demo holds a
lock on its folder while it runs: a second demo of the same table is refused with a sentence
instead of writing a second table's money into the first one's log.

Entry points: :func:`run_live_demo`, :func:`demo_live` (click), ``python -m tools.live_demo``.
"""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Final

import click

from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient, AmpError

#: Demo money credited to each terminal, in cents.
DEMO_CREDITS: Final = 100_000

#: The demo's countdowns, in whole seconds.
DEMO_TIMERS: Final = {"betting_seconds": 6, "insurance_seconds": 5, "decision_seconds": 10}

#: Seconds a stopped process gets between SIGTERM and SIGKILL.
STOP_GRACE: Final = 5.0

_ROOT: Final = Path(__file__).resolve().parents[1]


# Setting up ---------------------------------------------------------------------------------


def has_display(env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """True when a window can be opened (``DISPLAY`` or ``WAYLAND_DISPLAY`` is set)."""
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


class DemoBusy(click.ClickException):
    """Another demo runs on the same table folder."""


def table_folder(data_dir: Path, rules: Path | None) -> Path:
    """The folder of one Rules Submission's demo data: ``<data>/<config file name>``."""
    from game_server.config import example_config_path

    return data_dir / (example_config_path() if rules is None else rules).stem


def hold(folder: Path) -> Any:
    """Lock ``folder`` for this demo (released when the process ends).

    Raises:
        DemoBusy: another demo holds it.
    """
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    lock = (folder / "demo.lock").open("a+")
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "another process"
        lock.close()
        raise DemoBusy(
            f"another demo is running on {folder} ({holder}); stop it first, or give this one "
            "another --data folder"
        ) from None
    lock.seek(0)
    lock.truncate()
    lock.write(f"pid {os.getpid()}\n")
    lock.flush()
    return lock


def prepare(
    data_dir: Path,
    terminals: int,
    rules: Path | None = None,
    *,
    deal_when_all_bet: bool = True,
    echo: Callable[[str], Any] | None = None,
) -> tuple[Path, Path]:
    """Make the certificates, keys (if missing) under ``data_dir`` and the demo config in the
    table's folder (:func:`table_folder`): ``rules`` (default: the shipped fully automated
    table) with the demo's countdowns, dealt as soon as every player has wagered (unless
    ``deal_when_all_bet`` is false: then the Rules Submission's own setting holds). When the
    last run stopped mid-round under another file, that file is kept for this run (said
    to ``echo``): the server refuses to change the rules of an unfinished round.

    Returns:
        The certificates folder and the config file.
    """
    from game_server.config import example_config_path
    from game_server.keys import SIGNING_KEY_FILE, init_keys
    from game_server.net.pki import add_terminal, init_pki

    certs = data_dir / "certs"
    data_dir.mkdir(parents=True, exist_ok=True)
    if not (certs / "ca.pem").exists():
        init_pki(certs, terminals=terminals)
    for n in range(1, terminals + 1):
        if not (certs / "terminals" / f"T{n}.pem").exists():
            add_terminal(certs, f"T{n}")
    if not (certs / SIGNING_KEY_FILE).exists():
        init_keys(certs)
    text = (example_config_path() if rules is None else rules).read_text()
    for timer, seconds in DEMO_TIMERS.items():
        text = re.sub(rf"^{timer} = \d+", f"{timer} = {seconds}", text, flags=re.M)
    if deal_when_all_bet:  # a demo player alone at the table is dealt as he presses DEAL
        text, stated = re.subn(
            r"^deal_when_all_bet = \w+", "deal_when_all_bet = true", text, flags=re.M
        )
        if not stated:
            text = re.sub(
                r"^\[timers\][^\n]*$", r"\g<0>\ndeal_when_all_bet = true", text, flags=re.M
            )
    folder = table_folder(data_dir, rules)
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "demo.toml"
    if config.exists() and config.read_text() != text and unfinished_round(folder / "demo.db"):
        # The server finishes a round under the Rules Submission it started with (it refuses
        # a change mid-round): this run keeps the last run's; the next run takes the new one.
        if echo is not None:
            echo("the last run stopped mid-round: this run finishes it under the last run's rules")
        return certs, config
    config.write_text(text)
    return certs, config


def unfinished_round(db: Path) -> bool:
    """Whether the demo log ``db`` ends in an unfinished round (false without a log)."""
    if not db.exists():
        return False
    from collections import deque
    from contextlib import closing

    from game_server.eventlog import EventLogReader
    from game_server.recall.rounds import walk

    with closing(EventLogReader.open(db)) as reader:
        last = deque(walk(reader.iter_events()), maxlen=1)
    return bool(last) and not last[0].complete


def _start(args: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[Any]:
    with log.open("ab") as out:
        return subprocess.Popen(
            args,
            cwd=_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # Ctrl-C reaches only us; we stop the children
        )


def _wait_port(process: subprocess.Popen[Any], log: Path, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    tail = log.read_text(errors="replace").strip().splitlines()[-5:]
    raise click.ClickException("the table server did not start: " + " / ".join(tail))


def stop(processes: list[subprocess.Popen[Any]], grace: float = STOP_GRACE) -> None:
    """SIGTERM every process still running, then SIGKILL any left after ``grace`` seconds."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# Telling the rounds -------------------------------------------------------------------------


def _money(cents: int) -> str:
    return f"{cents / 100:,.2f}"


def _cards(cards: Any) -> str:
    return " ".join(str(c) for c in cards)


def round_lines(events: list[Any]) -> list[str]:
    """The lines of a settled round from its settlement, dealer-hand and round-end events
    (the round's last events): the dealer's cards, then each wager with its title, outcome
    and money. At the table without a hole card (633b.5(y)) every player has his own dealer
    hand: the round's line gives the shared up card and each player's dealer hand comes
    before his wagers."""
    from game_server.recall.timeline import wager_title

    settled_kinds, completed_kinds, own_hand_kinds = _kinds()
    lines: list[str] = []
    completed = next((e for e in events if e.kind in completed_kinds), None)
    if completed is None:
        return lines
    own = {e.terminal: e.body for e in events if e.kind in own_hand_kinds}
    body = completed.body
    dealer = _cards(body.get("dealer_cards", ()))
    shown = body.get("dealer_hand", body.get("dealer_total"))
    board = _cards(body.get("board", ()))
    on_board = f", board {board}" if board else ""
    if own:
        head = (
            f"round {completed.round_id}: dealer's up card {dealer}; each player's own dealer hand"
        )
    else:
        head = f"round {completed.round_id}: dealer {dealer} ({shown}){on_board}"
    lines.append(head.rstrip())
    for event in events:
        if event.kind not in settled_kinds:
            continue
        b = event.body
        who = event.terminal or f"seat {b.get('seat')}"
        hand = own.pop(who, None)
        if hand is not None:
            lines.append(
                f"  {who} dealer hand {_cards(hand['dealer_cards'])} ({hand['dealer_total']})"
            )
        net = b["paid"] - b["stake"]
        which = f" hand {b['hand'] + 1}" if "hand" in b else ""
        lines.append(
            f"  {who}{which} {wager_title(b['wager'])}: {b['outcome']} "
            f"stake {_money(b['stake'])} paid {_money(b['paid'])} (net {'+' if net >= 0 else '-'}"
            f"{_money(abs(net))}) - {b['line']}"
        )
    return lines


def _kinds() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The kinds of every game's settlements and round completions, and of a player's own
    dealer hand (a record of a ``seat`` with ``dealer_cards``: at the hybrid table without a
    hole card each player has one, 633b.5(y)(4))."""
    from game_server.games import games
    from game_server.recall.rounds import completed_kinds
    from game_server.rules.events import EVENT_TYPES, kind_of
    from game_server.table.ledger import SETTLED, wager_roles

    games()  # loading the games registers their records
    settled = frozenset(kind_of(cls) for cls, role in wager_roles().items() if role == SETTLED)
    completed = frozenset(kind_of(cls) for cls in completed_kinds())
    own = frozenset(
        kind
        for kind, cls in EVENT_TYPES.items()
        if {"seat", "dealer_cards"} <= set(getattr(cls, "_fields", ()))
    )
    return settled, completed, own


class LogFollower:
    """Reads the demo log read-only and returns each round as it settles."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.reader: Any = None
        self.next_seq = 1
        #: The id of the last round that settled (the demo waits for its screenshots).
        self.last_round: int | None = None
        self._pending: list[Any] = []

    def start_at_end(self) -> None:
        """Skip what the log held before this run (a data folder is reused)."""
        reader = self._open()
        if reader is not None:
            self.next_seq = reader.max_seq() + 1

    def _open(self) -> Any:
        if self.reader is None and self.db.exists():
            from game_server.eventlog import EventLogReader
            from game_server.eventlog.errors import EventLogError

            try:
                self.reader = EventLogReader.open(self.db)
            except EventLogError:
                return None
        return self.reader

    def poll(self) -> list[list[str]]:
        """The lines of every round settled since the last poll."""
        reader = self._open()
        if reader is None:
            return []
        rounds: list[list[str]] = []
        settled, completed, own = _kinds()
        for event in reader.iter_events(self.next_seq):
            self.next_seq = event.seq + 1
            if event.kind in settled or event.kind in completed or event.kind in own:
                self._pending.append(event)
            if event.kind in completed:
                rounds.append(round_lines(self._pending))
                self._pending = []
                self.last_round = event.round_id
        return rounds

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
            self.reader = None


# The demo -----------------------------------------------------------------------------------


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _refuse_bad_input(terminals: int, rules: Path | None) -> None:
    """Refuse a table the demo cannot seat, and check the Rules Submission as given before
    anything is made: a wrong path or a misspelt wager is said of the user's own file, and
    no folder is left behind."""
    if not 1 <= terminals <= 7:
        raise click.BadParameter("the demo table has 7 seats", param_hint="'--terminals'")
    if rules is not None:
        from game_server.config import load_config

        load_config(rules)


def run_live_demo(
    data_dir: Path,
    terminals: int,
    rounds: int | None,
    echo: Callable[[str], Any],
    *,
    headless: bool | None = None,
    every: int | None = None,
    rules: Path | None = None,
    bots: bool = False,
    screens: bool = False,
    keep_credits: bool = False,
    deal_when_all_bet: bool = True,
) -> int:
    """Run the live demo (see the module doc) until ``rounds`` rounds settled or Ctrl-C.

    Args:
        data_dir: Where the certificates and keys go, and each table's folder (config, log,
            anchor stream, process logs and screenshots).
        terminals: How many terminals (1 to 7, the table's seats).
        rounds: Stop after this many settled rounds; ``None``: until Ctrl-C.
        echo: Prints one line.
        headless: Force bot-driven terminals without windows (default: when no display).
        every: Rounds between two screenshots of a headless terminal (default 5, or
            ``rounds`` when fewer).
        rules: The table's Rules Submission (default: the shipped fully automated table;
            the hybrid tables' examples run too).
        bots: Bot-played terminals with screenshots in windows too (headless ones always
            are).
        screens: The bots also keep their latest betting, play and results screens
            (``<terminal>-betting.png`` ...).
        keep_credits: Each terminal keeps the credits it had at the end of the last run
            (only one without credits is given the demo money); by default every run
            starts each terminal at :data:`DEMO_CREDITS`.
        deal_when_all_bet: The table deals as soon as every player has wagered (false:
            as the Rules Submission says; the pictures of ``docs/screens`` keep each
            betting window's countdown, in which a bot's bet is pictured).

    Returns:
        The number of rounds that settled.
    """
    _refuse_bad_input(terminals, rules)
    data_dir = data_dir.resolve()
    headless = not has_display() if headless is None else headless
    every = every or min(5, rounds or 5)
    folder = table_folder(data_dir, rules)
    lock = hold(folder)
    certs, config = prepare(
        data_dir, terminals, rules, deal_when_all_bet=deal_when_all_bet, echo=echo
    )
    logs, shots, db = _demo_files(folder, echo)
    processes: list[subprocess.Popen[Any]] = []
    follower = LogFollower(db)
    settled = 0
    old_handlers = _stop_on_signals()
    try:
        server_log = logs / "server.log"
        server_log.write_bytes(b"")
        server = _start(_server_command(config, db, certs, folder), server_log)
        processes.append(server)  # stopped below, even if it never listens
        port = _wait_port(server, server_log)
        echo(f"table server listening on 127.0.0.1:{port} (log: {server_log})")
        follower.start_at_end()
        _credit_terminals(port, certs, terminals, keep_credits, echo)
        robots = bot_terminals(terminals, headless, bots)
        play = ["--autoplay", "--screenshots", str(shots), "--every", str(every)]
        play += ["--every-screen"] if screens else []
        processes += _start_terminals(port, certs, terminals, robots, play, headless, logs)
        how = _how_played(headless, robots, terminals, shots)
        echo(f"started {terminals} terminal(s) ({how}); Ctrl-C stops the demo")
        for _ in _settled_rounds(follower, rounds, server, server_log, echo):
            settled += 1
        if robots and follower.last_round is not None:
            _wait_screenshots(shots, robots, follower.last_round)
        echo(f"{settled} round(s) settled; stopping")
    except KeyboardInterrupt:
        echo(f"interrupted after {settled} round(s); stopping")
    finally:
        _tidy_up(follower, processes, lock, old_handlers)
    return settled


def _tidy_up(
    follower: LogFollower,
    processes: list[subprocess.Popen[Any]],
    lock: Any,
    old_handlers: dict[int, Any],
) -> None:
    """Stop following the log, stop the terminals and then the server (the first of
    ``processes``), let the table folder go and put the signal handlers back."""
    follower.close()
    stop(processes[1:])
    stop(processes[:1])
    lock.close()
    for number, handler in old_handlers.items():
        signal.signal(number, handler)


def _demo_files(folder: Path, echo: Callable[[str], Any]) -> tuple[Path, Path, Path]:
    """The table folder's process logs (made), screenshots and event log, the log said to
    go on when a run before left one."""
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    db = folder / "demo.db"
    echo(f"demo data in {folder}" + (" (its event log goes on)" if db.exists() else ""))
    return logs, folder / "screenshots", db


def _wallets(operator: AmpClient) -> dict[str, int]:
    """Each terminal's credits at the demo's table, from the operator's ``ReadMeters``."""
    import json

    meters = json.loads(operator.call("ReadMeters")["meters"])
    tables = meters.get("tables")
    table = next(iter(tables.values())) if isinstance(tables, dict) and tables else meters
    return {str(k): int(v) for k, v in dict(table.get("wallets", {})).items()}


def credit_terminals(operator: AmpClient, terminals: int, keep: bool) -> str:
    """Give T1..T<terminals> the demo's money through the operator, each cash in and cash
    out logged: every run starts each terminal at :data:`DEMO_CREDITS` (what the last run
    left is cashed out first; they piled up run after run), or with ``keep`` each keeps
    what it had and only one without credits gets the demo money. Returns the line that
    says what was done. A terminal whose last round is still to be settled keeps its
    credits (the server refuses a cash out while wagers are in play)."""
    wallets = _wallets(operator)
    credited: list[str] = []
    kept: list[str] = []
    for n in range(1, terminals + 1):
        name = f"T{n}"
        balance = wallets.get(name, 0)
        if balance > 0 and keep:
            kept.append(name)
            continue
        if balance > 0:
            try:
                operator.call(
                    "CashOut",
                    request_id=f"demo-{uuid.uuid4().hex}",
                    terminal=name,
                    amount=0,
                    reference="live demo: a new run starts from the demo money",
                )
            except AmpError:
                kept.append(name)
                continue
        operator.call(
            "CashIn",
            request_id=f"demo-{uuid.uuid4().hex}",
            terminal=name,
            amount=DEMO_CREDITS,
            reference="live demo",
        )
        credited.append(name)
    said = []
    if credited:
        who = credited[0] if len(credited) == 1 else f"each of {', '.join(credited)}"
        said.append(f"credited {_money(DEMO_CREDITS)} to {who}")
    if kept:
        said.append(f"{', '.join(kept)} kept the credits of the last run")
    return "; ".join(said)


def _server_command(config: Path, db: Path, certs: Path, folder: Path) -> list[str]:
    """The table server's command line: the demo's table, log, keys and anchor stream, a
    port of the system's choosing, two seconds between rounds."""
    return [
        sys.executable,
        "-m",
        "game_server",
        "--config",
        str(config),
        "--db",
        str(db),
        "--certs",
        str(certs),
        "--anchors",
        str(folder / "anchors.jsonl"),
        "--change-config",
        "live demo: the Rules Submission was edited since the last run",
        "--port",
        "0",
        "--next-round-delay",
        "2",
    ]


def _credit_terminals(
    port: int, certs: Path, terminals: int, keep: bool, echo: Callable[[str], Any]
) -> None:
    """The operator gives T1..T<terminals> the demo's money (:func:`credit_terminals`) and
    the line that says what was done is echoed."""
    operator = AmpClient(port, certs, "operator")
    try:
        operator.call("Hello", version=PROTOCOL_VERSION, software="etg-live-demo")
        echo(credit_terminals(operator, terminals, keep))
    finally:
        operator.close()


def _settled_rounds(
    follower: LogFollower,
    rounds: int | None,
    server: subprocess.Popen[Any],
    server_log: Path,
    echo: Callable[[str], Any],
) -> Iterator[None]:
    """Each round the log settles (its lines echoed), until ``rounds`` have (None: until
    stopped); the log is looked at every second.

    Raises:
        click.ClickException: the table server stopped.
    """
    settled = 0
    while rounds is None or settled < rounds:
        for lines in follower.poll():
            for line in lines:
                echo(line)
            settled += 1
            yield
            if rounds is not None and settled >= rounds:
                return
        if server.poll() is not None:
            raise click.ClickException(f"the table server stopped; see {server_log}")
        time.sleep(1.0)


def _start_terminals(
    port: int,
    certs: Path,
    terminals: int,
    robots: Collection[int],
    play: list[str],
    headless: bool,
    logs: Path,
) -> list[subprocess.Popen[Any]]:
    """Start terminals T1..T``terminals``: headless (SDL's dummy drivers) or in windows side
    by side; those in ``robots`` played by bots with ``play``'s options."""
    env = dict(os.environ)
    places: list[list[str]] = [[] for _ in range(terminals)]
    if headless:
        env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    else:
        places = [
            ["--position", f"{x},{y}", "--size", f"{w}x{h}"]
            for x, y, w, h in window_places(terminals, desktop_size())
        ]
    started: list[subprocess.Popen[Any]] = []
    for n in range(1, terminals + 1):
        name = f"T{n}"
        extra = play if n in robots else []
        command = [
            sys.executable,
            "-m",
            "terminal_client",
            "--server",
            f"127.0.0.1:{port}",
            "--hostname",
            "localhost",
            "--cert",
            str(certs / "terminals" / f"{name}.pem"),
            "--key",
            str(certs / "terminals" / f"{name}.key"),
            "--ca",
            str(certs / "ca.pem"),
            *extra,
            *places[n - 1],
        ]
        started.append(_start(command, logs / f"{name}.log", env))
    return started


def _how_played(headless: bool, robots: Collection[int], terminals: int, shots: Path) -> str:
    """How the demo's terminals are played, for its start line."""
    if headless:
        return f"headless bots, screenshots in {shots}"
    if len(robots) == terminals:
        return f"windows side by side played by bots, screenshots in {shots}"
    how = "windows side by side: T1 is yours to play"
    return how + (", the others bots'" if robots else "")


def _stop_on_signals() -> dict[int, Any]:
    """Ctrl-C and SIGTERM stop the demo (even if SIGINT was ignored), from the main thread;
    the handlers they replace are returned, to put back."""
    old_handlers: dict[int, Any] = {}
    if _main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            old_handlers[signum] = signal.signal(signum, _raise_interrupt)
    return old_handlers


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def bot_terminals(terminals: int, headless: bool, bots: bool) -> list[int]:
    """The numbers of the terminals played by bots: T1's window is the visitor's to play
    and every other terminal is a bot's, so that each side wager the table offers is seen
    played; without a display (or with ``bots``) all of them."""
    return [n for n in range(1, terminals + 1) if headless or bots or n > 1]


def _wait_screenshots(shots: Path, robots: list[int], last: int, timeout: float = 15.0) -> None:
    """Give each bot (T<n> for n in ``robots``) a moment to save the screenshot of round
    ``last`` (the round the demo stops after: its results show once the dealer's cards have
    landed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all((shots / f"T{n}-round{last}.png").exists() for n in robots):
            return
        time.sleep(0.2)


def desktop_size() -> tuple[int, int]:
    """The size of the screen the demo's windows open on (1920x1080 if SDL cannot tell)."""
    import pygame

    try:
        pygame.display.init()
        sizes = pygame.display.get_desktop_sizes()
    except pygame.error:
        sizes = []
    finally:
        pygame.display.quit()
    return sizes[0] if sizes and min(sizes[0]) >= 320 else (1920, 1080)


#: Room left above each window for its title bar, and between two windows, in pixels.
TITLE_BAR: Final = 32
GAP: Final = 8


def window_places(count: int, desktop: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """Where the demo's ``count`` terminal windows go on a screen of ``desktop`` pixels:
    (x, y, width, height) of each, side by side in a grid (two windows: one row), each
    16:9, as large as its cell allows up to 1280x720 and at least 640x360, none over
    another while the screen has room."""
    columns = count if count <= 2 else math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    cell_w, cell_h = desktop[0] // columns, desktop[1] // rows
    width = min(1280, cell_w - GAP, (cell_h - TITLE_BAR - GAP) * 16 // 9)
    width = max(640, width)
    height = width * 9 // 16
    return [
        (
            (i % columns) * cell_w + (cell_w - width) // 2,
            (i // columns) * cell_h + TITLE_BAR,
            width,
            height,
        )
        for i in range(count)
    ]


@click.command("demo-live")
@click.option(
    "--data",
    "data_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("data/demo"),
    show_default=True,
    help="Certificates and keys, and one folder per Rules Submission (its config, event log, "
    "anchor stream, process logs and screenshots).",
)
@click.option("--terminals", type=click.IntRange(1, 7), default=2, show_default=True)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many settled rounds (default: run until Ctrl-C).",
)
@click.option(
    "--headless",
    is_flag=True,
    help="Bot-played terminals without windows, even when a display is available.",
)
@click.option(
    "--every",
    type=click.IntRange(min=1),
    default=None,
    help="Rounds between two screenshots of a headless terminal (default 5).",
)
@click.option(
    "--bots",
    is_flag=True,
    help="Bot-played terminals with screenshots, in windows too.",
)
@click.option(
    "--config",
    "rules",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The table's Rules Submission (default: the shipped fully automated table), e.g. "
    "one of the shipped example configs in the games' configs folders.",
)
@click.option(
    "--keep-credits",
    is_flag=True,
    help="Each terminal keeps the credits of the last run (default: every run starts at the "
    "demo money).",
)
def demo_live(
    data_dir: Path,
    terminals: int,
    rounds: int | None,
    headless: bool,
    every: int | None,
    bots: bool,
    rules: Path | None,
    keep_credits: bool,
) -> None:
    """The real table server and terminals on this machine; each settled round printed."""
    from game_server.config import ConfigError

    try:
        run_live_demo(
            data_dir,
            terminals,
            rounds,
            click.echo,
            headless=True if headless else None,
            every=every,
            rules=rules,
            bots=bots,
            keep_credits=keep_credits,
        )
    except ConfigError as exc:
        raise click.ClickException(
            "; ".join(f"{exc.source}: {problem}" for problem in exc.problems)
        ) from None


if __name__ == "__main__":
    demo_live(prog_name="python -m tools.live_demo")
