"""The lockout attack of one address against the real server process, as functions and a
command.

A peer without any certificate opens many TCP connections to the table server from one
address and holds them idle: it sends nothing (or one TLS ClientHello, then nothing), and
reopens each connection the server closes (refused at once, or dropped at the Hello
deadline) after a short pause. Before the caps per address, the server's one cap on
connections before Hello (``unauthenticated_connections``, 64) was full with the attacker's
connections, and every new connection was refused: the operator and a terminal that had to
reconnect were locked out.

On Linux every address of 127.0.0.0/8 is on the loopback interface: the attacker binds its
sockets to :data:`ATTACKER` (127.0.0.2), while the operator and the terminals connect from
127.0.0.1 as usual, so the server sees two addresses.

Run it by hand for the figures (defaults: 80 connections held for 8 s, the server's own
limits but a Hello deadline of 2 s)::

    python tests/e2e/address_attack.py [--connections N] [--seconds S]
        [--hello-seconds S] [--server-root DIR]

``--server-root`` runs another checkout's server (e.g. the code before the caps per address).
"""

from __future__ import annotations

import argparse
import selectors
import socket
import ssl
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))

from shared.protocol import PROTOCOL_VERSION  # noqa: E402
from tools.amp_client import AmpClient, AmpError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from descriptor_attack import make_table, running_server  # noqa: E402

#: The attacker's source address (the operator and the terminals use 127.0.0.1).
ATTACKER = "127.0.0.2"
#: A connection the server closes within this many seconds of its opening was refused at
#: once (not dropped at the Hello deadline).
AT_ONCE_SECONDS = 1.0
#: Seconds the operator's and a terminal's connection, handshake and answer may take.
CLIENT_TIMEOUT = 5.0


def client_hello(server_name: str) -> bytes:
    """The bytes of a TLS 1.3 ClientHello naming ``server_name`` (sent by an attacker that
    starts a handshake and never finishes it)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=server_name)
    with suppress(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


@dataclass
class _Slot:
    """One of the attacker's connections: its socket, since when, and whether it is open."""

    sock: socket.socket | None = None
    since: float = 0.0
    connected: bool = False
    reopen_at: float = 0.0


@dataclass
class Attacker:
    """Holds ``connections`` idle connections from ``source`` to ``port`` (see the module
    docstring) on a thread of its own until stopped, never blocking on one (its
    connects are non-blocking), so that it sees each close within a few milliseconds. One
    the server drops at the Hello deadline is opened again at once (to take its place back);
    one refused at once is opened again ``reopen_seconds`` later.

    Attributes:
        first: Bytes sent on each connection once it is open (nothing: a silent peer).
        opened: Connections opened.
        refused: Connections the server closed within :data:`AT_ONCE_SECONDS`.
        dropped: Connections the server closed later (the Hello deadline).
        failed: Connection attempts that failed (refused or timed out by the kernel).
    """

    port: int
    connections: int
    first: bytes = b""
    source: str = ATTACKER
    reopen_seconds: float = 0.5
    opened: int = 0
    refused: int = 0
    dropped: int = 0
    failed: int = 0
    _stopping: bool = False
    _thread: threading.Thread | None = None

    def _connect(self, slot: _Slot, selector: selectors.BaseSelector, now: float) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((self.source, 0))
        except OSError:
            sock.close()
            self.failed += 1
            slot.reopen_at = now + self.reopen_seconds
            return
        sock.connect_ex(("127.0.0.1", self.port))
        slot.sock, slot.since, slot.connected = sock, now, False
        selector.register(sock, selectors.EVENT_WRITE, slot)

    def _close(self, slot: _Slot, selector: selectors.BaseSelector, reopen_at: float) -> None:
        assert slot.sock is not None
        selector.unregister(slot.sock)
        slot.sock.close()
        slot.sock, slot.reopen_at = None, reopen_at

    def _ready(self, slot: _Slot, selector: selectors.BaseSelector, now: float) -> None:
        sock = slot.sock
        assert sock is not None
        if not slot.connected:
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                self.failed += 1
                self._close(slot, selector, now + self.reopen_seconds)
                return
            with suppress(OSError):
                sock.send(self.first)  # a ClientHello fits the socket's buffer
            self.opened += 1
            slot.since, slot.connected = now, True
            selector.modify(sock, selectors.EVENT_READ, slot)
            return
        try:
            if sock.recv(65536):
                return  # the server's TLS flight: never answered
        except BlockingIOError:
            return
        except OSError:
            pass
        if now - slot.since < AT_ONCE_SECONDS:
            self.refused += 1
            self._close(slot, selector, now + self.reopen_seconds)
        else:
            self.dropped += 1
            self._close(slot, selector, now)

    def _run(self) -> None:
        slots = [_Slot() for _ in range(self.connections)]
        with selectors.DefaultSelector() as selector:
            while not self._stopping:
                now = time.monotonic()
                for slot in slots:
                    if slot.sock is None and slot.reopen_at <= now:
                        self._connect(slot, selector, now)
                    elif not slot.connected and slot.sock and now - slot.since > CLIENT_TIMEOUT:
                        self.failed += 1
                        self._close(slot, selector, now)
                for key, _ in selector.select(0.02):
                    self._ready(key.data, selector, time.monotonic())
            for slot in slots:
                if slot.sock is not None:
                    slot.sock.close()

    @contextmanager
    def holding(self, settle_seconds: float = 1.0) -> Iterator[Attacker]:
        """Attack from entering until leaving; ``settle_seconds`` to open every connection
        first."""
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        try:
            time.sleep(settle_seconds)
            yield self
        finally:
            self._stopping = True
            self._thread.join(timeout=10)

    def describe(self) -> str:
        return (
            f"the attacker at {self.source} holding {self.connections} connections opened "
            f"{self.opened}: {self.refused} refused at once, {self.dropped} dropped later, "
            f"{self.failed} attempts failed"
        )


def operator_served(port: int, certs: Path, route: str | None = None) -> str:
    """The operator connects from 127.0.0.1, says Hello and reads the meters: "" if served,
    else what went wrong."""
    return _served(port, certs, "operator", "ReadMeters", route)


def terminal_served(port: int, certs: Path, who: str = "T1", route: str | None = None) -> str:
    """A seated terminal connects from 127.0.0.1, says Hello and asks for its view: "" if
    served, else what went wrong."""
    return _served(port, certs, who, "GetView", route)


def _served(port: int, certs: Path, who: str, command: str, route: str | None) -> str:
    try:
        client = AmpClient(port, certs, who, timeout=CLIENT_TIMEOUT, route=route)
        try:
            hello = client.call("Hello", version=PROTOCOL_VERSION, software="address attack")
            client.call(command)
        finally:
            client.close()
    except (OSError, ssl.SSLError, ConnectionError, AmpError) as exc:
        return f"{who}: {type(exc).__name__}: {exc}"
    if hello.get("identity") != who:
        return f"{who}: unexpected Hello answer {hello!r}"
    return ""


@dataclass
class LockoutResult:
    """What the operator and a terminal got while one address held its connections."""

    attacker: Attacker
    tries: int
    problems: list[str]
    server_output: list[str]

    def describe(self) -> str:
        served = self.tries - len(self.problems)
        lines = [self.attacker.describe(), f"operator and T1 served {served} of {self.tries}"]
        return "\n".join(lines + self.problems[:5])


def probe(seconds: float, every: float, checks: list[Callable[[], str]]) -> tuple[int, list[str]]:
    """Run each of ``checks`` in turn every ``every`` seconds for ``seconds``; how many ran
    and what went wrong."""
    tries, problems = 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        problem = checks[tries % len(checks)]()
        tries += 1
        if problem:
            problems.append(problem)
        time.sleep(every)
    return tries, problems


def lockout(
    table: dict[str, Path], *, connections: int, seconds: float, root: Path = ROOT
) -> LockoutResult:
    """Start the server of ``table``, attack it from :data:`ATTACKER` with ``connections``
    silent connections for ``seconds``, and meanwhile connect the operator and T1 from
    127.0.0.1 in turn, every half second."""
    output: list[str] = []
    with running_server(table, 4096, output, root) as (_process, port):
        attacker = Attacker(port, connections)
        with attacker.holding():
            tries, problems = probe(
                seconds,
                0.5,
                [
                    lambda: operator_served(port, table["certs"]),
                    lambda: terminal_served(port, table["certs"]),
                ],
            )
        time.sleep(0.5)  # the server's last lines
    return LockoutResult(attacker, tries, problems, output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=80)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--hello-seconds", type=float, default=2.0)
    parser.add_argument("--server-root", type=Path, default=ROOT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        table = make_table(Path(directory), args.hello_seconds)
        result = lockout(
            table,
            connections=args.connections,
            seconds=args.seconds,
            root=args.server_root.resolve(),
        )
    print(result.describe())
    refusals = [
        line
        for line in result.server_output
        if f"refusing a connection from {ATTACKER}:" in line
        or f"more connection(s) from {ATTACKER} " in line
    ]
    print(f"server log lines about refusing {ATTACKER}: {len(refusals)}")
    for line in refusals[:5]:
        print("  " + line.rstrip())


if __name__ == "__main__":
    main()
