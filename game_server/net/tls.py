"""Mutual TLS 1.3 for every link of the table, as Twisted connection creators.

docs/design.md "Network": Twisted AMP over TLS 1.3 with client certificates required. The files
come from :mod:`game_server.net.pki`.

Entry points:

- :func:`server_tls_options` for the table server (``listenSSL``, ``SSL4ServerEndpoint`` or
  ``TLSMemoryBIOFactory``): TLS 1.3 only, a client certificate from our CA required, the
  :class:`~game_server.net.pki.RevocationList` enforced inside the handshake (a revoked
  certificate fails the handshake; no application byte is read), no session resumption
  (every connection is verified in full). Every refused handshake is logged through
  :mod:`twisted.logger` as a :class:`Refusal` with its :class:`RefusalReason` and handed to
  an optional ``on_refused(peer, refusal)`` hook (for the event log).
- :func:`client_tls_options` for terminals and operator tools: TLS 1.3 only, the server
  verified against our CA and its host name, the given client certificate presented.
- :func:`identity_of` reads the authenticated peer of a connection (its transport).

How refusals are seen: OpenSSL calls the verify callback for the client's certificate (our CA
check, then revocation and role) and the info callback for alerts and for the end of each
handshake step. A handshake step that ends in OpenSSL's error state is a refusal; its
reason is the verify callback's finding, else the alert the peer sent, else the alert we sent
(``certificate_required``: no certificate; ``protocol_version``: not TLS 1.3), else a peer
that hung up or did not speak TLS.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding
from OpenSSL import SSL
from OpenSSL.crypto import X509
from twisted.internet.interfaces import (
    IAddress,
    IOpenSSLClientConnectionCreator,
    IOpenSSLServerConnectionCreator,
)
from twisted.internet.ssl import (
    Certificate,
    CertificateOptions,
    TLSVersion,
    optionsForClientTLS,
)
from twisted.logger import Logger
from zope.interface import implementer  # type: ignore[import-untyped]  # ships no hints

from game_server.net.identity import Identity, RevocationList, common_name, peer_identity
from game_server.net.pki import (
    CertificateWithoutRole,
    PkiError,
    PkiFileMalformed,
    PkiLayout,
    load_certificate,
    load_private_key,
)
from shared.protocol import RoutedClientTLS

log = Logger()

#: Called for every refused handshake: the peer's address (None if unknown) and why.
OnRefused = Callable[[IAddress | None, "Refusal"], object]

_TLS13: Final = TLSVersion.TLSv1_3
_VERIFY_FLAGS: Final = SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT | SSL.VERIFY_CLIENT_ONCE
_FATAL: Final = 2
_ALERT_PROTOCOL_VERSION: Final = 70
_ALERT_CERTIFICATE_REQUIRED: Final = 116

#: TLS alert descriptions (RFC 8446 section 6) by code, for messages.
ALERTS: Final = {
    0: "close_notify",
    10: "unexpected_message",
    20: "bad_record_mac",
    22: "record_overflow",
    40: "handshake_failure",
    42: "bad_certificate",
    43: "unsupported_certificate",
    44: "certificate_revoked",
    45: "certificate_expired",
    46: "certificate_unknown",
    47: "illegal_parameter",
    48: "unknown_ca",
    49: "access_denied",
    50: "decode_error",
    51: "decrypt_error",
    70: "protocol_version",
    71: "insufficient_security",
    80: "internal_error",
    86: "inappropriate_fallback",
    90: "user_canceled",
    109: "missing_extension",
    110: "unsupported_extension",
    112: "unrecognized_name",
    113: "bad_certificate_status_response",
    115: "unknown_psk_identity",
    116: "certificate_required",
    120: "no_application_protocol",
}

_CODES: Final = SSL.X509VerificationCodes
_UNKNOWN_CA_ERRORS: Final = frozenset(
    {
        _CODES.ERR_UNABLE_TO_GET_ISSUER_CERT,
        _CODES.ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
        _CODES.ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
        _CODES.ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
        _CODES.ERR_SELF_SIGNED_CERT_IN_CHAIN,
        _CODES.ERR_CERT_SIGNATURE_FAILURE,
        _CODES.ERR_CERT_UNTRUSTED,
    }
)
_EXPIRY_ERRORS: Final = frozenset({_CODES.ERR_CERT_HAS_EXPIRED, _CODES.ERR_CERT_NOT_YET_VALID})
_VERIFY_ERROR_NAMES: Final = {
    value: name for name, value in vars(_CODES).items() if name.startswith(("ERR_", "OK"))
}


class RefusalReason(StrEnum):
    """Why the server refused a TLS handshake (the value is what the log records)."""

    NO_CERTIFICATE = "no-certificate"
    """The client presented no certificate."""
    UNKNOWN_CA = "unknown-ca"
    """The client's certificate was not issued by this table's CA."""
    REVOKED = "revoked"
    """The certificate's serial number or id is on the revocation list."""
    TLS_VERSION = "tls-version"
    """The client does not speak TLS 1.3."""
    EXPIRED = "expired"
    """The certificate is outside its validity period."""
    NOT_CLIENT_CERTIFICATE = "not-a-client-certificate"
    """The certificate is not for client authentication (e.g. the server's own)."""
    NO_ROLE = "no-role"
    """The certificate names no terminal or operator."""
    BAD_CERTIFICATE = "bad-certificate"
    """Any other certificate problem."""
    PEER_ABORTED = "peer-aborted"
    """The client ended the handshake with an alert (e.g. it does not trust the server)."""
    DISCONNECTED = "disconnected"
    """The client hung up before the handshake finished."""
    HANDSHAKE_FAILED = "handshake-failed"
    """Anything else: no common parameters, a peer that does not speak TLS..."""


@dataclass(frozen=True)
class Refusal:
    """One refused TLS handshake.

    Attributes:
        reason: Why, as a :class:`RefusalReason`.
        detail: A sentence for the operator.
        subject: The offered certificate's subject (RFC 4514), if the client sent one.
        serial: The offered certificate's serial number, if the client sent one.
    """

    reason: RefusalReason
    detail: str
    subject: str | None = None
    serial: int | None = None


class NotAuthenticated(PkiError):
    """A connection with no verified client certificate (before or without a handshake)."""


class _Handshake:
    """What the callbacks learn about one server connection's handshake.

    It refers to Twisted's protocol weakly: the protocol holds the OpenSSL connection, which
    is this record's (weak) key, so a strong reference would keep both alive for ever.
    """

    __slots__ = ("finished", "peer_alert", "protocol", "refusal", "sent_alert")

    def __init__(self, protocol: object) -> None:
        self.protocol = weakref.ref(protocol)
        self.refusal: Refusal | None = None
        self.peer_alert: int | None = None
        self.sent_alert: int | None = None
        self.finished = False


def _alert_name(code: int) -> str:
    return ALERTS.get(code, f"alert {code}")


def _verify_refusal(errno: int, depth: int, cert: x509.Certificate) -> Refusal:
    """The refusal for an OpenSSL certificate verification error."""
    subject = cert.subject.rfc4514_string()
    serial = cert.serial_number
    error = _VERIFY_ERROR_NAMES.get(errno, str(errno))
    what = f"the certificate {subject!r}" + (f" (chain depth {depth})" if depth else "")
    if errno in _UNKNOWN_CA_ERRORS:
        reason = RefusalReason.UNKNOWN_CA
        detail = f"{what} was not issued by this table's CA ({error})"
    elif errno in _EXPIRY_ERRORS:
        reason = RefusalReason.EXPIRED
        detail = (
            f"{what} is outside its validity period ({error}); issue a new one with "
            "`etg certs add-terminal` or check the clocks"
        )
    elif errno == _CODES.ERR_INVALID_PURPOSE:
        reason = RefusalReason.NOT_CLIENT_CERTIFICATE
        detail = f"{what} is not a client certificate ({error})"
    else:
        reason = RefusalReason.BAD_CERTIFICATE
        detail = f"{what} failed verification ({error})"
    return Refusal(reason, detail, subject, serial)


def _describe(peer: IAddress | None) -> str:
    host = getattr(peer, "host", None)
    port = getattr(peer, "port", None)
    if host is None or port is None:
        return "an unknown peer" if peer is None else str(peer)
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


@implementer(IOpenSSLServerConnectionCreator)
class ServerTLSOptions:
    """The server's TLS connection creator (see :func:`server_tls_options`).

    Attributes:
        revocations: The revocation list in force. Assigning a new list applies to every
            later handshake; connections already open are not dropped by it.
    """

    def __init__(
        self,
        options: CertificateOptions,
        certificate: x509.Certificate,
        key: ec.EllipticCurvePrivateKey,
        revocations: RevocationList,
        on_refused: OnRefused | None = None,
        log_refusals: bool = True,
    ) -> None:
        self.revocations = revocations
        self._on_refused = on_refused
        self._log_refusals = log_refusals
        self._handshakes: weakref.WeakKeyDictionary[SSL.Connection, _Handshake] = (
            weakref.WeakKeyDictionary()
        )
        context = options.getContext()
        # The certificate goes in as a cryptography object (pyOpenSSL deprecates its X509).
        context.use_certificate(certificate)
        context.use_privatekey(key)
        context.check_privatekey()
        context.set_min_proto_version(SSL.TLS1_3_VERSION)
        context.set_max_proto_version(SSL.TLS1_3_VERSION)
        context.set_verify(_VERIFY_FLAGS, self._verify)
        context.set_info_callback(self._info)
        self._context = context

    def serverConnectionForTLS(self, tlsProtocol: Any) -> SSL.Connection:
        """Make the OpenSSL connection of one accepted TCP connection (Twisted calls this).

        Args:
            tlsProtocol: Twisted's ``TLSMemoryBIOProtocol`` of the connection.
        """
        connection = SSL.Connection(self._context, None)
        self._handshakes[connection] = _Handshake(tlsProtocol)
        return connection

    def _verify(
        self, connection: SSL.Connection, certificate: X509, errno: int, depth: int, ok: int
    ) -> bool:
        """OpenSSL's verify callback: our CA's verdict, then revocation and role (depth 0)."""
        state = self._handshakes.get(connection)
        try:
            cert = certificate.to_cryptography()
            if ok and depth != 0:
                return True
            found = _verify_refusal(errno, depth, cert) if not ok else self._check_leaf(cert)
            if found is None:
                return True
            refusal = found
        except Exception:
            log.failure("checking a client certificate failed; refusing it")
            refusal = Refusal(RefusalReason.BAD_CERTIFICATE, "the certificate could not be read")
        if state is not None and state.refusal is None:
            state.refusal = refusal
        return False

    def _check_leaf(self, cert: x509.Certificate) -> Refusal | None:
        subject = cert.subject.rfc4514_string()
        revoked = self.revocations.reason(cert)
        if revoked is not None:
            detail = f"the certificate {subject!r} is revoked ({revoked} is on the config's list)"
            return Refusal(RefusalReason.REVOKED, detail, subject, cert.serial_number)
        try:
            peer_identity(cert)
        except CertificateWithoutRole as exc:
            return Refusal(RefusalReason.NO_ROLE, str(exc), subject, cert.serial_number)
        return None

    def _info(self, connection: SSL.Connection, where: int, ret: int) -> None:
        """OpenSSL's info callback: remember alerts, report a handshake that failed."""
        try:
            state = self._handshakes.get(connection)
            if state is None or state.finished:
                return
            if where & SSL.SSL_CB_HANDSHAKE_DONE:
                state.finished = True
                self._accepted(connection, state)
            elif where & SSL.SSL_CB_ALERT:
                if ret >> 8 == _FATAL:
                    if where & SSL.SSL_CB_READ:
                        state.peer_alert = ret & 0xFF
                    else:
                        state.sent_alert = ret & 0xFF
            elif where & SSL.SSL_CB_EXIT and ret <= 0 and connection.get_state_string() == b"error":
                state.finished = True
                self._refused(state)
        except Exception:
            log.failure("the TLS info callback failed")

    def _peer(self, state: _Handshake) -> IAddress | None:
        transport = getattr(state.protocol(), "transport", None)
        get_peer = getattr(transport, "getPeer", None)
        return get_peer() if callable(get_peer) else None

    def _accepted(self, connection: SSL.Connection, state: _Handshake) -> None:
        cert = connection.get_peer_certificate(as_cryptography=True)
        log.info(
            "TLS 1.3 handshake with {peer} completed: {identity}",
            peer=_describe(self._peer(state)),
            identity="no certificate" if cert is None else str(peer_identity(cert)),
        )

    def _refused(self, state: _Handshake) -> None:
        refusal = state.refusal or self._reason_from_alerts(state)
        peer = self._peer(state)
        if self._log_refusals:
            log.warn(
                "refused a TLS handshake from {peer}: {reason}: {detail}",
                peer=_describe(peer),
                reason=refusal.reason.value,
                detail=refusal.detail,
                subject=refusal.subject,
                serial=None if refusal.serial is None else format(refusal.serial, "x"),
            )
        if self._on_refused is not None:
            try:
                self._on_refused(peer, refusal)
            except Exception:
                log.failure("the on_refused hook failed")

    def _reason_from_alerts(self, state: _Handshake) -> Refusal:
        if state.peer_alert is not None:
            return Refusal(
                RefusalReason.PEER_ABORTED,
                f"the client ended the handshake with the alert {_alert_name(state.peer_alert)} "
                "(e.g. it does not trust this server's certificate)",
            )
        transport = getattr(state.protocol(), "transport", None)
        if getattr(transport, "disconnected", False):
            return Refusal(
                RefusalReason.DISCONNECTED,
                "the client hung up before the handshake finished (a client does this when it "
                "rejects the server's certificate or name)",
            )
        sent = state.sent_alert
        if sent == _ALERT_CERTIFICATE_REQUIRED:
            return Refusal(
                RefusalReason.NO_CERTIFICATE,
                "the client presented no certificate; every terminal and operator tool needs "
                "its own (etg certs)",
            )
        if sent == _ALERT_PROTOCOL_VERSION:
            return Refusal(
                RefusalReason.TLS_VERSION, "the client does not offer TLS 1.3, the only version"
            )
        if sent is not None:
            return Refusal(
                RefusalReason.HANDSHAKE_FAILED, f"the handshake failed ({_alert_name(sent)})"
            )
        return Refusal(
            RefusalReason.HANDSHAKE_FAILED,
            "the peer did not complete a TLS handshake (not TLS, or a malformed message)",
        )


def _trust_root(ca: x509.Certificate) -> Certificate:
    return Certificate.loadPEM(ca.public_bytes(Encoding.PEM))


def _load_pair(
    ca: x509.Certificate, cert_path: Path, key_path: Path, what: str
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """Load a certificate and its key, checking they belong together and to the CA."""
    cert = load_certificate(cert_path, f"{what} certificate")
    key = load_private_key(key_path, f"{what} key")
    if cert.public_key() != key.public_key():
        raise PkiFileMalformed(
            f"the key {key_path} does not belong to the certificate {cert_path}; copy both "
            "files of the same pair",
            key_path,
        )
    try:
        cert.verify_directly_issued_by(ca)
    except (ValueError, TypeError, InvalidSignature):
        raise PkiFileMalformed(
            f"the {what} certificate {cert_path} was not issued by the CA certificate in use; "
            "copy the files made by the same `etg certs init`",
            cert_path,
        ) from None
    return cert, key


def server_tls_options(
    directory: str | os.PathLike[str],
    revocations: RevocationList | None = None,
    *,
    on_refused: OnRefused | None = None,
    log_refusals: bool = True,
) -> ServerTLSOptions:
    """The table server's TLS options: TLS 1.3 only, client certificates required.

    Args:
        directory: The PKI directory made by :func:`game_server.net.pki.init_pki`; the
            server reads ``ca.pem``, ``server.pem`` and ``server.key`` (never ``ca.key``).
        revocations: Certificates to refuse (from the config). Default: none.
        on_refused: Called with the peer's address and the :class:`Refusal` for every
            refused handshake, after it is logged (e.g. to record it in the event log). It
            runs inside OpenSSL's callback: it must not block; its exceptions are logged.
        log_refusals: Log every refused handshake here (False: ``on_refused`` logs them,
            as the table server does, once a minute per address).

    Returns:
        A connection creator for ``listenSSL``, ``SSL4ServerEndpoint`` or
        ``TLSMemoryBIOFactory``.

    Raises:
        PkiFileMissing: a file is missing.
        PkiKeyExposed: ``server.key`` can be read by others than its owner.
        PkiFileMalformed: a file is not what it should be, the key is not the
            certificate's, or the server certificate is not the CA's.
    """
    layout = PkiLayout(Path(directory))
    ca = load_certificate(layout.ca.certificate, "CA certificate")
    certificate, key = _load_pair(ca, *layout.server, "server")
    options = CertificateOptions(
        trustRoot=_trust_root(ca),
        raiseMinimumTo=_TLS13,
        lowerMaximumSecurityTo=_TLS13,
        enableSessions=False,
        enableSessionTickets=False,
    )
    return ServerTLSOptions(
        options, certificate, key, revocations or RevocationList(), on_refused, log_refusals
    )


def client_tls_options(
    ca_path: str | os.PathLike[str],
    cert_path: str | os.PathLike[str],
    key_path: str | os.PathLike[str],
    hostname: str = "localhost",
    route: str | None = None,
) -> IOpenSSLClientConnectionCreator:
    """TLS options of a terminal or an operator tool: TLS 1.3 only, our CA, our certificate.

    Args:
        ca_path: The CA certificate (``ca.pem``).
        cert_path: This client's certificate (``terminals/T1.pem`` or ``operator.pem``).
        key_path: Its private key (mode 0600).
        hostname: The server's name as in its certificate (a DNS name or an IP address).
        route: The TLS server name sent (:class:`~shared.protocol.RoutedClientTLS`): the
            terminal or table a server of several worker processes hands the connection
            to. Default: the certificate's id (a terminal's own; ``operator`` names no
            table, and a server of several workers refuses it with a sentence).

    Returns:
        An ``IOpenSSLClientConnectionCreator`` for ``connectSSL`` or
        ``SSL4ClientEndpoint``: the handshake fails unless the server's certificate was
        issued by the CA and names ``hostname``.

    Raises:
        PkiFileMissing: a file is missing.
        PkiKeyExposed: the key can be read by others than its owner.
        PkiFileMalformed: a file is not what it should be, the key is not the
            certificate's, or the certificate is not the CA's.
    """
    ca = load_certificate(ca_path, "CA certificate")
    certificate, key = _load_pair(ca, Path(cert_path), Path(key_path), "client")
    options = optionsForClientTLS(
        hostname,
        trustRoot=_trust_root(ca),
        # pyOpenSSL takes cryptography objects (its own X509 and PKey are deprecated).
        extraCertificateOptions={
            "privateKey": key,
            "certificate": certificate,
            "raiseMinimumTo": _TLS13,
            "lowerMaximumSecurityTo": _TLS13,
        },
    )
    name = route if route is not None else common_name(certificate)
    if name is None:
        raise PkiFileMalformed(
            f"the client certificate {cert_path} names no id (CN)", Path(cert_path)
        )
    routed: IOpenSSLClientConnectionCreator = RoutedClientTLS(options, name)  # type: ignore[assignment]  # zope
    return routed


def identity_of(transport: object) -> Identity:
    """The authenticated peer of a server connection.

    Args:
        transport: The protocol's transport (Twisted's TLS transport, which provides
            ``ISSLTransport.getPeerCertificate``), after the handshake completed.

    Returns:
        The role, id and serial number of the client's certificate.

    Raises:
        NotAuthenticated: the transport is not TLS, or no certificate was verified yet
            (before ``handshakeCompleted``).
        CertificateWithoutRole: the certificate names no terminal or operator.
    """
    get = getattr(transport, "getPeerCertificate", None)
    peer = get() if callable(get) else None
    if peer is None:
        raise NotAuthenticated(
            "the connection has no verified client certificate yet; ask for the identity "
            "after the TLS handshake completed (IHandshakeListener.handshakeCompleted)"
        )
    cert = peer.to_cryptography() if isinstance(peer, X509) else peer
    if not isinstance(cert, x509.Certificate):
        raise NotAuthenticated(f"the transport returned {type(peer).__name__}, not a certificate")
    return peer_identity(cert)
