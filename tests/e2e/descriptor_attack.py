"""The descriptor attack of issue 13 against the real server process, as a function and a
command.

A table server (``python -m game_server``) runs with its descriptors limited
(``RLIMIT_NOFILE`` set in the child before it starts). An attacker opens many TLS
connections with a valid certificate (T3: issued by the table's CA, but holding no seat),
completes each handshake and then does nothing: it never says Hello, never reads, never
answers close_notify. While the connections are held, the seated terminal T1 connects,
says Hello and asks for its view. The server's open descriptors (``/proc/PID/fd``) are
counted before, under the attack, and after the Hello deadline plus the close grace.

Run it by hand for the figures (defaults: 300 connections, 200 descriptors, the server's
own limits, counted again 45 s after the attack)::

    python tests/e2e/descriptor_attack.py [--connections N] [--nofile N] [--after S]
        [--hello-seconds S] [--server-root DIR]

``--server-root`` runs another checkout's server (e.g. the code before the fix).
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))

from game_server.config import example_config_path  # noqa: E402
from game_server.keys import init_keys  # noqa: E402
from game_server.net.pki import init_pki  # noqa: E402
from shared.protocol import PROTOCOL_VERSION  # noqa: E402
from tools.amp_client import AmpClient, tls_context  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_server_e2e import listening_port, stop  # noqa: E402

#: Seconds a handshake of the attacker may take (one stuck in the listen backlog of a server
#: out of descriptors never completes).
HANDSHAKE_TIMEOUT = 5.0
#: Handshakes the attacker runs at once.
PARALLEL = 50


@dataclass
class AttackResult:
    """Descriptors of the server process and what the attacker and T1 got."""

    baseline: int
    under_attack: int
    after: int
    after_seconds: float
    handshakes: int
    connections: int
    terminal_served: bool
    terminal_error: str
    server_output: list[str]

    def describe(self) -> str:
        return (
            f"server descriptors: {self.baseline} before, {self.under_attack} under attack "
            f"({self.handshakes} of {self.connections} handshakes completed), {self.after} "
            f"{self.after_seconds:g} s after; seated T1 "
            + ("served (Hello and GetView)" if self.terminal_served else "NOT served: ")
            + self.terminal_error
        )


def descriptors(pid: int) -> int:
    """The open file descriptors of process ``pid``."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def make_table(directory: Path, hello_seconds: float | None) -> dict[str, Path]:
    """Certificates (T1-T3, T3 without a seat), the log keys, the example Rules Submission
    and a floor.toml seating T1 and T2 (with ``hello_seconds`` when given)."""
    certs = directory / "certs"
    init_pki(certs, terminals=3)
    init_keys(certs)
    floor = directory / "floor.toml"
    text = "[floor]\n[floor.terminals]\nT1 = 1\nT2 = 2\n"
    if hello_seconds is not None:
        text += f"[floor.limits]\nhello_seconds = {hello_seconds}\n"
    floor.write_text(text, encoding="utf-8")
    return {"certs": certs, "floor": floor, "db": directory / "table.db"}


def _limit_descriptors(nofile: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return limit


@contextmanager
def running_server(
    table: dict[str, Path], nofile: int, output: list[str], root: Path = ROOT
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``python -m game_server`` from ``root`` with at most ``nofile`` descriptors; its pid
    and port. Its output lines are added to ``output``. Always stopped at the end."""
    command = [sys.executable, "-m", "game_server", "--config", str(example_config_path())]
    command += ["--db", str(table["db"]), "--certs", str(table["certs"])]
    command += ["--floor", str(table["floor"]), "--port", "0"]
    process = subprocess.Popen(
        command,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_limit_descriptors(nofile),
    )
    try:
        port = listening_port(process)
        # Keep reading its output, so that its log lines never block it on a full pipe.
        threading.Thread(target=output.extend, args=(process.stdout,), daemon=True).start()
        yield process, port
    finally:
        stop(process)


def _idle_connection(port: int, context: ssl.SSLContext) -> ssl.SSLSocket | None:
    """One completed TLS handshake that then does nothing (None if it did not complete)."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=HANDSHAKE_TIMEOUT)
    try:
        return context.wrap_socket(raw, server_hostname="localhost")
    except (OSError, ssl.SSLError):
        raw.close()
        return None


def _serve_terminal(port: int, certs: Path) -> str:
    """T1 says Hello and asks for its view; "" if served, else what went wrong."""
    try:
        client = AmpClient(port, certs, "T1", timeout=HANDSHAKE_TIMEOUT)
        try:
            hello = client.call("Hello", version=PROTOCOL_VERSION, software="attack test")
            view = client.call("GetView")
        finally:
            client.close()
    except (OSError, ssl.SSLError, ConnectionError) as exc:
        return f"{type(exc).__name__}: {exc}"
    if hello.get("identity") != "T1" or '"phase"' not in view.get("view", ""):
        return f"unexpected answers {hello!r} {view!r}"
    return ""


def attack(
    table: dict[str, Path],
    *,
    connections: int,
    nofile: int,
    after_seconds: float,
    root: Path = ROOT,
) -> AttackResult:
    """Run the attack once (see the module docstring) and count the server's descriptors."""
    context = tls_context(table["certs"], "T3")
    held: list[ssl.SSLSocket] = []
    output: list[str] = []
    with running_server(table, nofile, output, root) as (process, port):
        time.sleep(0.5)
        baseline = descriptors(process.pid)
        try:
            with ThreadPoolExecutor(PARALLEL) as pool:
                opened = list(
                    pool.map(lambda _: _idle_connection(port, context), range(connections))
                )
            held = [s for s in opened if s is not None]
            time.sleep(1.0)  # the server refuses the excess at once: let it
            under_attack = descriptors(process.pid)
            problem = _serve_terminal(port, table["certs"])
            time.sleep(after_seconds)
            after = descriptors(process.pid)
        finally:
            for sock in held:
                with suppress(OSError):
                    sock.close()
    return AttackResult(
        baseline=baseline,
        under_attack=under_attack,
        after=after,
        after_seconds=after_seconds,
        handshakes=len(held),
        connections=connections,
        terminal_served=not problem,
        terminal_error=problem,
        server_output=output,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=300)
    parser.add_argument("--nofile", type=int, default=200)
    parser.add_argument("--after", type=float, default=45.0, help="seconds to wait, then count")
    parser.add_argument("--hello-seconds", type=float, default=None)
    parser.add_argument("--server-root", type=Path, default=ROOT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        table = make_table(Path(directory), args.hello_seconds)
        result = attack(
            table,
            connections=args.connections,
            nofile=args.nofile,
            after_seconds=args.after,
            root=args.server_root.resolve(),
        )
    print(result.describe())


if __name__ == "__main__":
    main()
