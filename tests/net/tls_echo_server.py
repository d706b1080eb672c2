"""A tiny TLS echo server for the network tests, run as a subprocess.

Usage: ``python tests/net/tls_echo_server.py PKI_DIR LOG REFUSALS [--revoke-id ID]...
[--revoke-serial HEX]...``.

It listens on 127.0.0.1 on an ephemeral port with
:func:`game_server.net.tls.server_tls_options` and prints ``PORT <n>`` (flushed) once
listening. After a handshake it greets the client with ``hello <role> <id>`` (from
:func:`game_server.net.tls.identity_of`) and then echoes what it receives. Its
:mod:`twisted.logger` events go to LOG as JSON records (one per ``\\x1e``-separated record);
each call of the ``on_refused`` hook appends one JSON line to REFUSALS. Every received
chunk of application data is logged (``received``), so a test can tell that a refused
client never got a byte through. It stops by itself after 60 s or when its parent dies.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from twisted.internet import reactor, task
from twisted.internet.interfaces import IAddress, IHandshakeListener
from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger, globalLogBeginner, jsonFileLogObserver
from zope.interface import implementer

from game_server.net.identity import RevocationList
from game_server.net.tls import Refusal, identity_of, server_tls_options

log = Logger(namespace="tls_echo_server")
LIFETIME_SECONDS = 60.0


@implementer(IHandshakeListener)
class Greeter(Protocol):
    """Greets the authenticated peer, then echoes."""

    def handshakeCompleted(self) -> None:
        who = identity_of(self.transport)
        log.info("greeting {role} {id}", role=who.role.value, id=who.id)
        self.transport.write(f"hello {who.role.value} {who.id}\n".encode())

    def dataReceived(self, data: bytes) -> None:
        peer = self.transport.getPeer()
        log.info("received {size} bytes from {port}", size=len(data), port=peer.port)
        self.transport.write(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pki")
    parser.add_argument("log")
    parser.add_argument("refusals")
    parser.add_argument("--revoke-id", action="append", default=[])
    parser.add_argument("--revoke-serial", action="append", default=[])
    args = parser.parse_args()

    log_file = open(args.log, "a", encoding="utf-8")  # noqa: SIM115 (open for the run)
    globalLogBeginner.beginLoggingTo([jsonFileLogObserver(log_file)], redirectStandardIO=False)

    def on_refused(peer: IAddress | None, refusal: Refusal) -> None:
        record: dict[str, Any] = {
            "port": getattr(peer, "port", None),
            "reason": refusal.reason.value,
            "detail": refusal.detail,
            "serial": refusal.serial,
        }
        with open(args.refusals, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")

    revocations = RevocationList.from_config(serials=args.revoke_serial, ids=args.revoke_id)
    options = server_tls_options(args.pki, revocations, on_refused=on_refused)
    port = reactor.listenSSL(0, Factory.forProtocol(Greeter), options, interface="127.0.0.1")

    parent = os.getppid()

    def watch_parent() -> None:
        if os.getppid() != parent:
            reactor.stop()

    task.LoopingCall(watch_parent).start(0.5)
    reactor.callLater(LIFETIME_SECONDS, reactor.stop)
    print(f"PORT {port.getHost().port}", flush=True)
    reactor.run()


if __name__ == "__main__":
    main()
