"""``etg console``: the operator's console as one process.

:func:`run_console` loads the servers file, the accounts and the audit log, the console's
HTTPS certificate (``console.pem``/``console.key``, ``etg certs add-console``) and the
operator's client certificate, connects to every table server (:mod:`.links`), and serves the
pages over HTTPS with TLS 1.3 only (:func:`https_tls_options`) until the process is stopped.

The log-signing public key (``log-signing.pub`` in the certificates folder) verifies logs.
Without the floor store each server's log is read where the console runs
(:class:`~game_server.console.source.ServersOnlySource`); ``--store URL`` (the same reads from
the floor store) is refused in this build (:data:`STORE_PENDING`).

Entry points: :func:`run_console`, :func:`build_app`, :func:`https_tls_options`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

from twisted.internet.ssl import CertificateOptions, TLSVersion
from twisted.logger import Logger, globalLogBeginner, textFileLogObserver
from twisted.web.server import Site

from game_server.console.accounts import AccountBook
from game_server.console.audit import AuditLog
from game_server.console.links import ServerLink
from game_server.console.reports import ShiftClock
from game_server.console.settings import ConsoleSettings
from game_server.console.source import ServersOnlySource
from game_server.console.web import ConsoleApp, Pictures
from game_server.keys import load_public_key
from game_server.net.pki import (
    PkiFileMalformed,
    PkiLayout,
    key_matches,
    load_certificate,
    load_private_key,
)
from game_server.net.tls import client_tls_options
from shared.errors import ETGError

log = Logger()

#: Why ``--store`` is refused in this build.
STORE_PENDING: Final = (
    "--store: the console does not read the floor store yet (floor-wide recall and reports "
    "come with it); it reads each server's own log (the servers file's log = ...)"
)


class ConsoleError(ETGError):
    """The console cannot start; the message says why."""


def https_tls_options(certs: Path) -> CertificateOptions:
    """The console's HTTPS options: its own certificate, TLS 1.3 only.

    Raises:
        PkiFileMissing: ``console.pem`` or ``console.key`` is missing (make them with
            ``etg certs add-console``).
        PkiKeyExposed: the key can be read by others.
        PkiFileMalformed: the key is not the certificate's.
    """
    layout = PkiLayout(certs)
    certificate = load_certificate(layout.console.certificate, "console certificate")
    key = load_private_key(layout.console.key, "console key")
    if not key_matches(key, certificate):
        raise PkiFileMalformed(
            f"{layout.console.key} is not the key of {layout.console.certificate}",
            layout.console.key,
        )
    # pyOpenSSL takes cryptography objects (its own X509 and PKey are deprecated).
    options: Any = CertificateOptions
    return options(  # type: ignore[no-any-return]
        privateKey=key,
        certificate=certificate,
        raiseMinimumTo=TLSVersion.TLSv1_3,
        lowerMaximumSecurityTo=TLSVersion.TLSv1_3,
    )


def build_app(
    reactor: Any,
    settings: ConsoleSettings,
    certs: Path,
    accounts: AccountBook,
    audit: AuditLog,
    pictures: Pictures | None,
) -> ConsoleApp:
    """The console application with one link per server (not yet started)."""
    layout = PkiLayout(certs)
    shifts = ShiftClock(settings.shifts, settings.timezone)
    source = ServersOnlySource(settings.servers, load_public_key(certs), shifts)
    links: list[ServerLink] = []
    app_ref: list[ConsoleApp] = []

    def changed(link: ServerLink) -> None:
        if app_ref:
            app_ref[0].link_changed(link)

    for server in settings.servers:
        tls = client_tls_options(layout.ca.certificate, *layout.operator, hostname=server.hostname)
        links.append(ServerLink(reactor, server, tls, changed))
    app = ConsoleApp(reactor, links, source, accounts, audit, shifts, pictures)
    app_ref.append(app)
    return app


def run_console(
    settings: ConsoleSettings,
    certs: Path,
    accounts_path: Path,
    audit_path: Path,
    *,
    port: int | None = None,
    interface: str = "127.0.0.1",
    pictures: Pictures | None = None,
) -> None:
    """Serve the console until the process is stopped.

    Raises:
        ConsoleError: no account yet.
        PkiError, KeyError: a certificate or key is missing or unusable.
        AuditError: the audit log does not prove.
    """
    from twisted.internet import reactor as _reactor

    reactor: Any = _reactor
    accounts = AccountBook(accounts_path)
    if len(accounts) == 0:
        raise ConsoleError(
            f"{accounts_path} holds no account: add one with `etg console user add NAME "
            "--role supervisor --accounts FILE`"
        )
    tls = https_tls_options(certs)
    audit = AuditLog(audit_path, reactor.seconds)
    app = build_app(reactor, settings, certs, accounts, audit, pictures)
    observer: Any = textFileLogObserver(sys.stdout)
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    site = Site(app.resource())  # type: ignore[no-untyped-call]  # unannotated
    site.displayTracebacks = False
    listening = reactor.listenSSL(
        settings.port if port is None else port, site, tls, interface=interface
    )
    address = listening.getHost()
    audit.write("console started", detail=f"https://{address.host}:{address.port}/")
    log.info(
        "console listening on https://{host}:{port}/ (TLS 1.3) for {count} server(s)",
        host=address.host,
        port=address.port,
        count=len(settings.servers),
    )
    app.start()

    def stop() -> None:
        app.stop()
        audit.write("console stopped")
        audit.close()

    reactor.addSystemEventTrigger("before", "shutdown", stop)
    reactor.run()
