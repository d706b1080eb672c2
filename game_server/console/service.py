"""``etg console``: the operator's console as one process.

:func:`run_console` loads the servers file, the accounts and the audit log, the console's
HTTPS certificate (``console.pem``/``console.key``, ``etg certs add-console``), its audit key
(``console-audit.key``: :func:`audit_signing_key`) and the operator's client certificate,
connects to every table server (:mod:`.links`), and serves the pages over HTTPS with TLS 1.3
only (:func:`https_tls_options`) until the process is stopped.

The log-signing public key (``log-signing.pub`` in the certificates folder) verifies logs.
Without the floor store each server's log is read where the console runs
(:class:`~game_server.console.source.ServersOnlySource`); ``--store URL`` (the same reads from
the floor store) is refused in this build (:data:`STORE_PENDING`).

Entry points: :func:`run_console`, :func:`build_app`, :func:`https_tls_options`,
:func:`audit_signing_key`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.ssl import CertificateOptions, TLSVersion
from twisted.logger import Logger, globalLogBeginner, textFileLogObserver
from twisted.web.server import Site

from game_server.console.accounts import AccountBook
from game_server.console.audit import AuditLog, was_signed
from game_server.console.links import ServerLink
from game_server.console.reports import ShiftClock
from game_server.console.settings import ConsoleSettings
from game_server.console.source import ServersOnlySource
from game_server.console.web import ConsoleApp, Pictures
from game_server.keys import (
    AUDIT_KEY_FILE,
    AUDIT_PUBLIC_FILE,
    init_audit_key,
    load_audit_key,
    load_public_key,
)
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


def audit_signing_key(certs: Path, audit_path: Path) -> tuple[Ed25519PrivateKey, bool]:
    """The console's audit key from ``certs``, made now if there is none and the audit log
    was never signed (a certificates folder made before the console signed its log); the
    key and whether it was made. A missing public half is written again from the key.

    Raises:
        ConsoleError: there is no key but the log is signed: it was lost or moved (a new
            key could not continue the log).
        KeyFileError: the key is unusable (exposed, malformed, unreadable), or its public
            half is there without it.
    """
    private_file = certs / AUDIT_KEY_FILE
    if not (private_file.exists() or private_file.is_symlink()) and was_signed(audit_path):
        raise ConsoleError(
            f"{private_file} is missing but the audit log {audit_path} is signed: restore "
            "the key from the backup; a new key could not continue the log (or keep the "
            "log and its .head as evidence, move them away and start a new one)"
        )
    written = init_audit_key(certs)
    return load_audit_key(private_file), private_file in written


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
        ConsoleError: no account yet, or the audit key is lost.
        PkiError, KeyError: a certificate or key is missing or unusable.
        AuditError: the audit log does not prove with the console's key.
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
    audit_key, made = audit_signing_key(certs, audit_path)
    audit = AuditLog(audit_path, reactor.seconds, audit_key)
    app = build_app(reactor, settings, certs, accounts, audit, pictures)
    observer: Any = textFileLogObserver(sys.stdout)
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    site = Site(app.resource())  # type: ignore[no-untyped-call]  # unannotated
    site.displayTracebacks = False
    listening = reactor.listenSSL(
        settings.port if port is None else port, site, tls, interface=interface
    )
    address = listening.getHost()
    if made:
        log.info(
            "made the console's audit key {key} ({id}): it signs every line of the audit log; "
            "keep {pub} (and a copy of the key) where the log is checked",
            key=str(certs / AUDIT_KEY_FILE),
            id=audit.key_id,
            pub=str(certs / AUDIT_PUBLIC_FILE),
        )
        audit.write(
            "audit key made",
            detail=f"{AUDIT_KEY_FILE} (key {audit.key_id}) made: this line and every later "
            "one are signed with it",
        )
    if audit.continues_unsigned:
        audit.write(
            "audit log signed from here",
            detail=f"lines 1 to {audit.unsigned} were written unsigned by an older console; "
            f"this line's signature covers them as they are now (key {audit.key_id})",
        )
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
