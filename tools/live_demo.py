"""``etg demo --live``: the real table server and real terminals on one laptop.

:func:`run_live_demo` makes the certificates and keys under the data folder if missing,
writes a demo table config with short countdowns, starts ``python -m game_server`` on a free
port, credits every terminal with demo money through the operator certificate (a small
blocking AMP client over stdlib TLS), then starts the terminals: windows when a display is
available (``DISPLAY`` or ``WAYLAND_DISPLAY``), otherwise headless terminals
(``SDL_VIDEODRIVER=dummy``) played by bots (``--autoplay``) that save a PNG of their screen
into the table's ``screenshots/`` every few rounds. Each settled round is printed from the
event log, read-only, once a second. It stops after ``rounds`` rounds (or on Ctrl-C); the
terminals and the server always get SIGTERM, then SIGKILL after 5 seconds.

Each Rules Submission keeps its own folder under the data folder (``<data>/<config name>/``:
its demo config, event log, anchor stream, process logs and screenshots; the certificates are
shared in ``<data>/certs``), so that two tables never write into one log, and a demo holds a
lock on its folder while it runs: a second demo of the same table is refused with a sentence
instead of writing a second table's money into the first one's log.

Entry points: :func:`run_live_demo`, :func:`demo_live` (click), ``python -m tools.live_demo``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, Final

import click

from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient

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


def prepare(data_dir: Path, terminals: int, rules: Path | None = None) -> tuple[Path, Path]:
    """Make the certificates, keys (if missing) under ``data_dir`` and the demo config in the
    table's folder (:func:`table_folder`): ``rules`` (default: the shipped fully automated
    table) with the demo's countdowns.

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
    folder = table_folder(data_dir, rules)
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "demo.toml"
    config.write_text(text)
    return certs, config


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


def round_lines(events: list[Any]) -> list[str]:
    """The lines of a settled round from its ``wager_settled`` and ``round_completed``
    events (the round's last events)."""
    lines: list[str] = []
    completed = next((e for e in events if e.kind in _COMPLETED), None)
    if completed is None:
        return lines
    body = completed.body
    dealer = " ".join(str(c) for c in body.get("dealer_cards", ()))
    shown = body.get("dealer_hand", body.get("dealer_total"))
    board = " ".join(str(c) for c in body.get("board", ()))
    on_board = f", board {board}" if board else ""
    lines.append(f"round {completed.round_id}: dealer {dealer} ({shown}){on_board}".rstrip())
    for event in events:
        if event.kind not in _SETTLED:
            continue
        b = event.body
        net = b["paid"] - b["stake"]
        who = event.terminal or f"seat {b.get('seat')}"
        hand = f" hand {b['hand'] + 1}" if "hand" in b else ""
        lines.append(
            f"  {who}{hand} {b['wager']}: {b['outcome']} "
            f"stake {_money(b['stake'])} paid {_money(b['paid'])} (net {'+' if net >= 0 else '-'}"
            f"{_money(abs(net))}) - {b['line']}"
        )
    return lines


#: The settlement and round-end events of every table type and game (the three-position
#: hybrid table and Ultimate Texas Hold 'Em have their own).
_SETTLED: Final = ("wager_settled", "hybrid3_wager_settled", "uth_wager_settled")
_COMPLETED: Final = ("round_completed", "uth_round_completed")


class LogFollower:
    """Reads the demo log read-only and returns each round as it settles."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.reader: Any = None
        self.next_seq = 1
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
        for event in reader.iter_events(self.next_seq):
            self.next_seq = event.seq + 1
            if event.kind in (*_SETTLED, *_COMPLETED):
                self._pending.append(event)
            if event.kind in _COMPLETED:
                rounds.append(round_lines(self._pending))
                self._pending = []
        return rounds

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
            self.reader = None


# The demo -----------------------------------------------------------------------------------


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_live_demo(
    data_dir: Path,
    terminals: int,
    rounds: int | None,
    echo: Callable[[str], Any],
    *,
    headless: bool | None = None,
    every: int | None = None,
    rules: Path | None = None,
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

    Returns:
        The number of rounds that settled.
    """
    if not 1 <= terminals <= 7:
        raise click.BadParameter("the demo table has 7 seats", param_hint="'--terminals'")
    data_dir = data_dir.resolve()
    headless = not has_display() if headless is None else headless
    every = every or min(5, rounds or 5)
    folder = table_folder(data_dir, rules)
    lock = hold(folder)
    certs, config = prepare(data_dir, terminals, rules)
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    shots = folder / "screenshots"
    db = folder / "demo.db"
    reused = db.exists()
    echo(f"demo data in {folder}" + (" (its event log goes on)" if reused else ""))
    processes: list[subprocess.Popen[Any]] = []
    follower = LogFollower(db)
    settled = 0
    old_handlers: dict[int, Any] = {}
    if _main_thread():  # Ctrl-C and SIGTERM stop the demo (even if SIGINT was ignored)
        for signum in (signal.SIGINT, signal.SIGTERM):
            old_handlers[signum] = signal.signal(signum, _raise_interrupt)
    try:
        server_log = logs / "server.log"
        server_log.write_bytes(b"")
        server = _start(
            [
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
            ],
            server_log,
        )
        processes.append(server)
        port = _wait_port(server, server_log)
        echo(f"table server listening on 127.0.0.1:{port} (log: {server_log})")
        follower.start_at_end()
        operator = AmpClient(port, certs, "operator")
        try:
            operator.call("Hello", version=PROTOCOL_VERSION, software="etg-live-demo")
            for n in range(1, terminals + 1):
                operator.call(
                    "CashIn",
                    request_id=f"demo-{uuid.uuid4().hex}",
                    terminal=f"T{n}",
                    amount=DEMO_CREDITS,
                    reference="live demo",
                )
        finally:
            operator.close()
        echo(f"credited {_money(DEMO_CREDITS)} to each of T1..T{terminals}")
        env = dict(os.environ)
        extra: list[str] = []
        if headless:
            env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
            extra = ["--autoplay", "--screenshots", str(shots), "--every", str(every)]
        for n in range(1, terminals + 1):
            name = f"T{n}"
            processes.append(
                _start(
                    [
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
                    ],
                    logs / f"{name}.log",
                    env,
                )
            )
        how = f"headless bots, screenshots in {shots}" if headless else "windows"
        echo(f"started {terminals} terminal(s) ({how}); Ctrl-C stops the demo")
        while rounds is None or settled < rounds:
            for lines in follower.poll():
                for line in lines:
                    echo(line)
                settled += 1
                if rounds is not None and settled >= rounds:
                    break
            if rounds is not None and settled >= rounds:
                break
            if server.poll() is not None:
                raise click.ClickException(f"the table server stopped; see {server_log}")
            time.sleep(1.0)
        if headless:
            _wait_screenshots(shots, terminals)
        echo(f"{settled} round(s) settled; stopping")
    except KeyboardInterrupt:
        echo(f"interrupted after {settled} round(s); stopping")
    finally:
        follower.close()
        stop(processes[1:])  # the terminals first, then the server
        stop(processes[:1])
        lock.close()
        for number, handler in old_handlers.items():
            signal.signal(number, handler)
    return settled


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _wait_screenshots(shots: Path, terminals: int, timeout: float = 5.0) -> None:
    """Give each headless terminal a moment to save the screenshot of the last round."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(any(shots.glob(f"T{n}-round*.png")) for n in range(1, terminals + 1)):
            return
        time.sleep(0.2)


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
    "--config",
    "rules",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The table's Rules Submission (default: the shipped fully automated table), e.g. "
    "game_server/configs/hybrid-three-position.toml.",
)
def demo_live(
    data_dir: Path,
    terminals: int,
    rounds: int | None,
    headless: bool,
    every: int | None,
    rules: Path | None,
) -> None:
    """The real table server and terminals on this machine; each settled round printed."""
    run_live_demo(
        data_dir,
        terminals,
        rounds,
        click.echo,
        headless=True if headless else None,
        every=every,
        rules=rules,
    )


if __name__ == "__main__":
    demo_live(prog_name="python -m tools.live_demo")
