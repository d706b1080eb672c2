"""The terminal's TLS: TLS 1.3 only, our CA as the only trust root, the terminal's own
certificate and key, and the server's name checked against its certificate.

Entry points: :func:`terminal_tls_options`, :func:`tls_endpoint`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding, load_pem_private_key
from cryptography.x509.oid import NameOID
from twisted.internet.endpoints import HostnameEndpoint, wrapClientTLS
from twisted.internet.interfaces import IOpenSSLClientConnectionCreator
from twisted.internet.ssl import Certificate, TLSVersion, optionsForClientTLS

from shared.errors import ETGError
from shared.protocol import RoutedClientTLS


class TerminalTlsError(ETGError):
    """A certificate or key file of the terminal is missing or unusable."""


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise TerminalTlsError(
            f"cannot read the {what} {path}: {exc.strerror}; copy the terminal's files made "
            "by `etg certs` into place"
        ) from None


def terminal_tls_options(
    ca_path: str | os.PathLike[str],
    cert_path: str | os.PathLike[str],
    key_path: str | os.PathLike[str],
    hostname: str = "localhost",
) -> IOpenSSLClientConnectionCreator:
    """TLS options of this terminal: TLS 1.3 only, trusting only the CA at ``ca_path``,
    presenting ``cert_path`` with ``key_path``, checking the server's certificate names
    ``hostname``, and sending the terminal's id (its certificate's CN) as the TLS server name
    (:class:`~shared.protocol.RoutedClientTLS`).

    Raises:
        TerminalTlsError: a file is missing or malformed, or the key is not the
            certificate's.
    """
    ca_pem = _read(Path(ca_path), "CA certificate")
    cert_pem = _read(Path(cert_path), "terminal certificate")
    key_pem = _read(Path(key_path), "terminal key")
    try:
        x509.load_pem_x509_certificate(ca_pem)
        certificate = x509.load_pem_x509_certificate(cert_pem)
        key: Any = load_pem_private_key(key_pem, password=None)
    except (ValueError, TypeError) as exc:
        raise TerminalTlsError(f"a terminal TLS file is malformed: {exc}") from None
    if certificate.public_key() != key.public_key():
        raise TerminalTlsError(
            f"the key {key_path} does not belong to the certificate {cert_path}; copy both "
            "files of the same pair"
        )
    trust = Certificate.loadPEM(x509.load_pem_x509_certificate(ca_pem).public_bytes(Encoding.PEM))
    options = optionsForClientTLS(
        hostname,
        trustRoot=trust,
        # pyOpenSSL takes cryptography objects (its own X509 and PKey are deprecated).
        extraCertificateOptions={
            "privateKey": key,
            "certificate": certificate,
            "raiseMinimumTo": TLSVersion.TLSv1_3,
            "lowerMaximumSecurityTo": TLSVersion.TLSv1_3,
        },
    )
    # The terminal names itself as the TLS server name: a server running its tables in
    # several processes hands the connection to the one serving this terminal's table.
    names = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    name = names[0].value if len(names) == 1 else None
    if not isinstance(name, str):
        raise TerminalTlsError(f"the terminal certificate {cert_path} names no terminal (CN)")
    try:
        routed: IOpenSSLClientConnectionCreator = RoutedClientTLS(options, name)  # type: ignore[assignment]  # zope
        return routed
    except ValueError as exc:
        raise TerminalTlsError(f"the terminal certificate {cert_path}: {exc}") from None


def tls_endpoint(
    reactor: Any, host: str, port: int, options: IOpenSSLClientConnectionCreator
) -> Any:
    """The table server at ``host``:``port`` over TLS with ``options``, for
    :class:`~terminal_client.net.client.TerminalClient`."""
    endpoint: Any = HostnameEndpoint(reactor, host, port)
    return wrapClientTLS(options, endpoint)
