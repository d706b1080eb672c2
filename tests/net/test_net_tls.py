"""Mutual TLS 1.3 over real sockets on 127.0.0.1 (docs/design.md "Network").

The server is ``tls_echo_server.py`` in a subprocess (see ``conftest.py``) with T3 revoked
by id and T2 by serial number. Most clients are Python's :mod:`ssl` module, so the server's
behaviour is checked against an independent TLS implementation; ``tls_client.py`` checks
:func:`game_server.net.tls.client_tls_options`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from net_helpers import HERE, ROOT, WAIT_SECONDS, EchoServer, Pki

from game_server.net.identity import RevocationList
from game_server.net.pki import CertAndKey, init_pki
from game_server.net.tls import (
    NotAuthenticated,
    Refusal,
    RefusalReason,
    identity_of,
    server_tls_options,
)

TIMEOUT_SECONDS = 5.0


@dataclass
class Outcome:
    """What a stdlib TLS client saw."""

    port: int
    lines: list[str]
    error: Exception | None
    session: ssl.SSLSession | None = None
    reused: bool = False


def _client_context(
    pki: Pki, client: CertAndKey | None, maximum: ssl.TLSVersion | None = None
) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(pki.ca)
    if client is not None:
        context.load_cert_chain(client.certificate, client.key)
    if maximum is not None:
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.maximum_version = maximum
    return context


def _connect(
    server: EchoServer,
    pki: Pki,
    client: CertAndKey | None,
    *,
    maximum: ssl.TLSVersion | None = None,
    context: ssl.SSLContext | None = None,
    session: ssl.SSLSession | None = None,
) -> Outcome:
    """Connect, send ``ping``, and read until the greeting and the echo arrive or it fails."""
    context = context or _client_context(pki, client, maximum)
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT_SECONDS)
    port = raw.getsockname()[1]
    received = b""
    try:
        with context.wrap_socket(raw, server_hostname="localhost", session=session) as tls:
            tls.sendall(b"ping\n")
            while received.count(b"\n") < 2:
                chunk = tls.recv(4096)
                if not chunk:
                    break
                received += chunk
            return Outcome(
                port, received.decode().splitlines(), None, tls.session, bool(tls.session_reused)
            )
    except (ssl.SSLError, OSError) as exc:
        return Outcome(port, received.decode().splitlines(), exc)
    finally:
        raw.close()


def _assert_refused(outcome: Outcome, server: EchoServer, reason: RefusalReason) -> None:
    assert outcome.lines == []
    assert outcome.error is not None
    event = server.refusal_logged(outcome.port)
    assert event["reason"] == reason.value, event
    assert event["log_level"]["name"] == "warn"
    assert event["log_namespace"] == "game_server.net.tls"
    assert server.received_from(outcome.port) == []


def test_a_terminal_certificate_is_accepted_and_identified(
    echo_server: EchoServer, pki: Pki
) -> None:
    """T1's own certificate completes the handshake; the server knows it as terminal T1."""
    outcome = _connect(echo_server, pki, pki.terminal("T1"))
    assert outcome.error is None
    assert outcome.lines == ["hello terminal T1", "ping"]
    assert echo_server.received_from(outcome.port) != []


def test_the_operator_certificate_is_identified_as_the_operator(
    echo_server: EchoServer, pki: Pki
) -> None:
    """The operator tools' certificate authenticates the operator role."""
    outcome = _connect(echo_server, pki, pki.files.operator)
    assert outcome.lines == ["hello operator operator", "ping"]


def test_a_client_without_a_certificate_is_refused(echo_server: EchoServer, pki: Pki) -> None:
    """No client certificate: the handshake fails and the log says no-certificate."""
    _assert_refused(_connect(echo_server, pki, None), echo_server, RefusalReason.NO_CERTIFICATE)


def test_a_certificate_from_another_ca_is_refused(echo_server: EchoServer, pki: Pki) -> None:
    """A terminal certificate of another table's CA is refused as unknown-ca."""
    outcome = _connect(echo_server, pki, pki.other_ca_terminal)
    _assert_refused(outcome, echo_server, RefusalReason.UNKNOWN_CA)


@pytest.mark.parametrize(("terminal", "why"), [("T3", "id T3"), ("T2", "serial")])
def test_a_revoked_terminal_is_refused_at_the_handshake(
    echo_server: EchoServer, pki: Pki, terminal: str, why: str
) -> None:
    """A terminal revoked by id (T3) or serial number (T2) fails the handshake; not one byte
    of its application data reaches the server."""
    outcome = _connect(echo_server, pki, pki.terminal(terminal))
    _assert_refused(outcome, echo_server, RefusalReason.REVOKED)
    event = echo_server.refusal_logged(outcome.port)
    assert why in event["detail"]
    assert event["subject"].endswith(f"CN={terminal}") or f"CN={terminal}" in event["subject"]


def test_a_tls_1_2_client_is_refused(echo_server: EchoServer, pki: Pki) -> None:
    """A client limited to TLS 1.2 is refused during the handshake as tls-version."""
    outcome = _connect(echo_server, pki, pki.terminal("T1"), maximum=ssl.TLSVersion.TLSv1_2)
    assert isinstance(outcome.error, ssl.SSLError)
    assert "PROTOCOL_VERSION" in str(outcome.error).upper()
    _assert_refused(outcome, echo_server, RefusalReason.TLS_VERSION)


def test_an_expired_certificate_is_refused(echo_server: EchoServer, pki: Pki) -> None:
    """T9's certificate expired a year ago: refused as expired."""
    outcome = _connect(echo_server, pki, pki.expired_terminal)
    _assert_refused(outcome, echo_server, RefusalReason.EXPIRED)


def test_the_server_certificate_is_not_a_client_certificate(
    echo_server: EchoServer, pki: Pki
) -> None:
    """The server's own certificate (serverAuth only) cannot log in as a client."""
    outcome = _connect(echo_server, pki, pki.files.server)
    _assert_refused(outcome, echo_server, RefusalReason.NOT_CLIENT_CERTIFICATE)


def test_a_certificate_without_a_role_is_refused(echo_server: EchoServer, pki: Pki) -> None:
    """A certificate of our CA without OU terminal/operator is refused as no-role."""
    outcome = _connect(echo_server, pki, pki.no_role)
    _assert_refused(outcome, echo_server, RefusalReason.NO_ROLE)


def test_a_peer_that_does_not_speak_tls_is_logged(echo_server: EchoServer) -> None:
    """Plain HTTP to the TLS port is a failed handshake, logged like the others."""
    with socket.create_connection(("127.0.0.1", echo_server.port), TIMEOUT_SECONDS) as raw:
        port = raw.getsockname()[1]
        raw.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert raw.recv(100) == b""
    event = echo_server.refusal_logged(port)
    assert event["reason"] == RefusalReason.HANDSHAKE_FAILED.value


def test_a_peer_that_hangs_up_mid_handshake_is_logged(echo_server: EchoServer) -> None:
    """A TCP connection closed before any TLS message is logged as disconnected."""
    with socket.create_connection(("127.0.0.1", echo_server.port), TIMEOUT_SECONDS) as raw:
        port = raw.getsockname()[1]
    event = echo_server.refusal_logged(port)
    assert event["reason"] == RefusalReason.DISCONNECTED.value


def test_a_session_is_never_resumed(echo_server: EchoServer, pki: Pki) -> None:
    """A second connection offering the first one's session gets a full handshake (so the
    certificate and the revocation list are checked every time)."""
    context = _client_context(pki, pki.terminal("T1"))
    first = _connect(echo_server, pki, None, context=context)
    assert first.error is None
    assert first.session is not None
    second = _connect(echo_server, pki, None, context=context, session=first.session)
    assert second.lines == ["hello terminal T1", "ping"]
    assert second.reused is False


def test_every_refusal_reaches_the_on_refused_hook(echo_server: EchoServer, pki: Pki) -> None:
    """The hook gets the peer's address and the same reason the log records."""
    outcome = _connect(echo_server, pki, pki.terminal("T3"))
    logged = echo_server.refusal_logged(outcome.port)
    hooked = [r for r in echo_server.refusals() if r["port"] == outcome.port]
    assert len(hooked) == 1
    assert hooked[0]["reason"] == logged["reason"] == RefusalReason.REVOKED.value
    assert hooked[0]["serial"] is not None


# --------------------------------------------------------------------------------------------
# The Twisted client side


def _twisted_client(pki: Pki, client: CertAndKey, port: int, hostname: str) -> str:
    result = subprocess.run(
        [
            sys.executable,
            str(HERE / "tls_client.py"),
            str(pki.ca),
            str(client.certificate),
            str(client.key),
            str(port),
            hostname,
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    return result.stdout.strip() or result.stderr.strip()


def test_client_options_connect_a_terminal(echo_server: EchoServer, pki: Pki) -> None:
    """client_tls_options with T1's files and the server name 127.0.0.1 connects and is
    greeted as T1 (the server certificate names the loopback address)."""
    line = _twisted_client(pki, pki.terminal("T1"), echo_server.port, "127.0.0.1")
    assert line == "GOT hello terminal T1"


def test_client_options_refuse_a_server_with_another_name(
    echo_server: EchoServer, pki: Pki
) -> None:
    """The client refuses a server whose certificate does not name the host it dialled."""

    def hang_ups() -> int:
        return sum(
            e.get("reason") == RefusalReason.DISCONNECTED.value for e in echo_server.events()
        )

    before = hang_ups()
    line = _twisted_client(pki, pki.terminal("T1"), echo_server.port, "table-9.example")
    assert line.startswith("FAILED"), line
    assert "table-9.example" in line
    deadline = time.monotonic() + WAIT_SECONDS
    while hang_ups() == before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert hang_ups() == before + 1, "the server logs the client's hang-up as a refusal"


@pytest.fixture
def tls12_server(pki: Pki) -> Iterator[int]:
    """A stdlib TLS server with our server certificate that speaks TLS 1.2 at most."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki.files.server.certificate, pki.files.server.key)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(TIMEOUT_SECONDS)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn, contextlib.suppress(ssl.SSLError, OSError):
            context.wrap_socket(conn, server_side=True).close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        thread.join(TIMEOUT_SECONDS)


def test_client_options_refuse_a_tls_1_2_server(tls12_server: int, pki: Pki) -> None:
    """A terminal never talks to a server that cannot do TLS 1.3."""
    line = _twisted_client(pki, pki.terminal("T1"), tls12_server, "localhost")
    assert line.startswith("FAILED")


# --------------------------------------------------------------------------------------------
# In-process checks


def test_server_options_need_the_server_files(tmp_path: Path) -> None:
    """A directory without the PKI is a clear error, not a Twisted traceback."""
    from game_server.net.pki import PkiFileMissing

    with pytest.raises(PkiFileMissing, match="etg certs init"):
        server_tls_options(tmp_path)


def test_server_options_refuse_a_server_certificate_of_another_ca(tmp_path: Path, pki: Pki) -> None:
    """A server.pem copied from another table does not start with this table's CA."""
    from game_server.net.pki import PkiFileMalformed

    other = init_pki(tmp_path / "other", terminals=0)
    (tmp_path / "other" / "ca.pem").write_bytes(pki.ca.read_bytes())
    with pytest.raises(PkiFileMalformed, match="not issued by the CA"):
        server_tls_options(other.ca.certificate.parent, RevocationList())


def test_identity_of_a_transport_without_a_certificate_is_refused() -> None:
    """Asking who is on a connection before the handshake is an error, not None."""

    class Plain:
        def getPeerCertificate(self) -> None:
            return None

    with pytest.raises(NotAuthenticated):
        identity_of(Plain())
    with pytest.raises(NotAuthenticated):
        identity_of(object())


def test_a_refusal_is_a_frozen_record() -> None:
    """Refusals are values (for the event log): equal by content, immutable."""
    one = Refusal(RefusalReason.REVOKED, "x", "CN=T3", 5)
    assert one == Refusal(RefusalReason.REVOKED, "x", "CN=T3", 5)
    with pytest.raises(AttributeError):
        one.reason = RefusalReason.EXPIRED  # type: ignore[misc]


def test_a_closed_connection_leaves_no_state_behind(pki: Pki) -> None:
    """The server keeps nothing per connection once Twisted drops it (a long-running table
    accepts many connections)."""

    class FakeTLSProtocol:
        connection: object = None

    options = server_tls_options(pki.directory)
    protocol = FakeTLSProtocol()
    protocol.connection = options.serverConnectionForTLS(protocol)
    gone = weakref.ref(protocol.connection)
    del protocol
    gc.collect()
    assert gone() is None
