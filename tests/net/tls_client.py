"""A Twisted TLS client for the network tests, run as a subprocess.

Usage: ``python tests/net/tls_client.py CA CERT KEY PORT HOSTNAME``.

It connects to 127.0.0.1:PORT with :func:`game_server.net.tls.client_tls_options` (the
server verified against CA and HOSTNAME), and prints ``GOT <first line>`` and exits 0 when
the server greets it, or prints ``FAILED <reason>`` and exits 1. It gives up after 10 s.
"""

from __future__ import annotations

import sys

from twisted.internet import reactor
from twisted.internet.endpoints import SSL4ClientEndpoint, connectProtocol
from twisted.internet.protocol import Protocol
from twisted.python.failure import Failure

from game_server.net.tls import client_tls_options

TIMEOUT_SECONDS = 10.0
outcome: list[str] = []


def finish(line: str) -> None:
    if not outcome:
        outcome.append(line)
        print(line, flush=True)
        reactor.stop()


class FirstLine(Protocol):
    """Reports the server's first line, or why the connection ended without one."""

    buffer = b""

    def dataReceived(self, data: bytes) -> None:
        self.buffer += data
        if b"\n" in self.buffer:
            finish("GOT " + self.buffer.split(b"\n")[0].decode())
            self.transport.loseConnection()

    def connectionLost(self, reason: Failure = None) -> None:  # type: ignore[assignment]
        finish(f"FAILED {reason.getErrorMessage() if reason else 'connection lost'}")


def main() -> int:
    ca, cert, key, port, hostname = sys.argv[1:6]
    options = client_tls_options(ca, cert, key, hostname=hostname)
    endpoint = SSL4ClientEndpoint(reactor, "127.0.0.1", int(port), options, timeout=5)
    connecting = connectProtocol(endpoint, FirstLine())
    connecting.addErrback(lambda failure: finish(f"FAILED {failure.getErrorMessage()}"))
    reactor.callLater(TIMEOUT_SECONDS, finish, "FAILED timeout")
    reactor.run()
    return 0 if outcome and outcome[0].startswith("GOT ") else 1


if __name__ == "__main__":
    sys.exit(main())
