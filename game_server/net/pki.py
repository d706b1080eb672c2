"""The table's private PKI: one CA, the server, each terminal and the operator tools.

Mutual TLS protects every link and each terminal and operator tool has its own certificate
(docs/design.md "Network"). This module makes and reads those certificates with the
``cryptography`` library only; :mod:`game_server.net.tls` turns them into Twisted options.

Entry points:

- :func:`init_pki` creates a private CA and its certificates in one directory::

      ca.pem, ca.key                the CA "ETG Table CA" (ECDSA P-256, 10 years)
      server.pem, server.key        the table server (serverAuth; localhost, 127.0.0.1, ::1
                                    and the given host names)
      operator.pem, operator.key    the operator tools (clientAuth; CN=operator, OU=operator)
      terminals/T1.pem, T1.key ...  one per terminal (clientAuth; CN=T1, OU=terminal)

  Certificates are mode 0644, private keys 0600, directories 0700. Leaves are valid for
  2 years (never beyond the CA), with random 159-bit serial numbers.
- :func:`add_terminal` issues one more terminal certificate from the existing CA;
  :func:`terminal_certificate_for` one for a key the terminal made itself (enrollment,
  :mod:`game_server.net.enroll`).
- :func:`~game_server.net.identity.peer_identity` reads who a client certificate names
  (:class:`~game_server.net.identity.Identity`), and
  :class:`~game_server.net.identity.RevocationList` holds the serial numbers and ids the
  config revokes (:mod:`game_server.net.identity`).

ECDSA P-256 is used throughout: every TLS 1.3 implementation supports it for client
authentication (Ed25519 client certificates are not accepted by every peer library).

Every failure is a :class:`PkiError` subclass whose message names the file or the value and
says what to do.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Final, NamedTuple

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from shared.errors import ETGError

#: Common name of the CA certificate.
CA_NAME: Final = "ETG Table CA"
#: Organization of every certificate.
ORGANIZATION: Final = "ETG"
#: Common name of the server certificate; its organizational unit is :data:`SERVER_UNIT`.
SERVER_NAME: Final = "ETG table server"
SERVER_UNIT: Final = "server"
#: Common name and organizational unit of the operator console's HTTPS certificate.
CONSOLE_NAME: Final = "ETG operator console"
CONSOLE_UNIT: Final = "console"
#: Common name (the id) of the operator certificate.
OPERATOR_ID: Final = "operator"
#: Names every server certificate carries besides the ones given to :func:`init_pki`.
DEFAULT_SERVER_NAMES: Final = ("localhost", "127.0.0.1", "::1")

CA_VALIDITY: Final = dt.timedelta(days=3653)
LEAF_VALIDITY: Final = dt.timedelta(days=731)
#: Certificates start this long before "now", so a peer whose clock is a little behind
#: accepts a certificate issued a moment ago.
CLOCK_SKEW: Final = dt.timedelta(minutes=5)

#: What a terminal id may look like (it is also a file name).
TERMINAL_ID_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: Most terminals :func:`init_pki` creates in one go (more than one server seats,
#: :data:`game_server.net.floor.MAX_TERMINALS`).
MAX_TERMINALS: Final = 9_999

RESERVED_IDS: Final = frozenset({OPERATOR_ID, SERVER_UNIT, CONSOLE_UNIT, "ca"})
_DNS_LABEL: Final = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_PRIVATE_MODE: Final = 0o600
_PUBLIC_MODE: Final = 0o644
_DIR_MODE: Final = 0o700
_CURVE: Final = ec.SECP256R1


class Role(StrEnum):
    """What a client certificate is for: its organizational unit (OU)."""

    TERMINAL = "terminal"
    OPERATOR = "operator"


# --------------------------------------------------------------------------------------------
# Errors


class PkiError(ETGError):
    """Base of every error about the table's certificates.

    Attributes:
        path: The file concerned, if any.
    """

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class PkiFileExists(PkiError):
    """A file that :func:`init_pki` or :func:`add_terminal` refuses to overwrite."""


class TerminalExists(PkiFileExists):
    """:func:`add_terminal` for a terminal id that already has a certificate."""


class PkiFileMissing(PkiError):
    """A certificate or key file that does not exist."""


class PkiFileUnreadable(PkiError):
    """A file or directory that cannot be read or written (permissions, I/O error)."""


class PkiFileMalformed(PkiError):
    """A file whose content is not a certificate or key of the expected kind."""


class PkiKeyExposed(PkiError):
    """A private key file that users other than its owner can access."""


class InvalidRequest(PkiError, ValueError):
    """An argument that cannot be made into a certificate."""


class InvalidTerminalId(InvalidRequest):
    """A terminal id that is not 1 to 32 letters, digits, ``_`` or ``-``, or is reserved."""


class InvalidHostname(InvalidRequest):
    """A server host name that is neither a DNS name nor an IP address."""


class InvalidRevocation(InvalidRequest):
    """A revocation entry that is not a hexadecimal serial number or a valid id."""


class CertificateWithoutRole(PkiError):
    """A certificate that does not name a terminal or the operator (no or unknown OU/CN)."""


# --------------------------------------------------------------------------------------------
# Files


class CertAndKey(NamedTuple):
    """A certificate file and its private key file."""

    certificate: Path
    key: Path


@dataclass(frozen=True)
class PkiLayout:
    """Where each file lives in a PKI directory; the one place that knows the names.

    Attributes:
        directory: The PKI directory (``certs/`` in deployments).
    """

    directory: Path

    @property
    def ca(self) -> CertAndKey:
        """The CA certificate and key (keep ``ca.key`` offline once the table is set up)."""
        return CertAndKey(self.directory / "ca.pem", self.directory / "ca.key")

    @property
    def server(self) -> CertAndKey:
        """The server certificate and key."""
        return CertAndKey(self.directory / "server.pem", self.directory / "server.key")

    @property
    def operator(self) -> CertAndKey:
        """The operator tools' certificate and key."""
        return CertAndKey(self.directory / "operator.pem", self.directory / "operator.key")

    @property
    def console(self) -> CertAndKey:
        """The operator console's HTTPS certificate and key (:func:`add_console`)."""
        return CertAndKey(self.directory / "console.pem", self.directory / "console.key")

    @property
    def terminals_dir(self) -> Path:
        """The directory of the terminal certificates."""
        return self.directory / "terminals"

    def terminal(self, terminal_id: str) -> CertAndKey:
        """The certificate and key of one terminal (after :func:`check_terminal_id`)."""
        check_terminal_id(terminal_id)
        return CertAndKey(
            self.terminals_dir / f"{terminal_id}.pem", self.terminals_dir / f"{terminal_id}.key"
        )

    def terminal_ids(self) -> list[str]:
        """The ids of the terminals that have a certificate or key file, sorted."""
        if not self.terminals_dir.is_dir():
            return []
        ids = {
            path.stem
            for path in self.terminals_dir.iterdir()
            if path.suffix in (".pem", ".key")
            and TERMINAL_ID_RE.fullmatch(path.stem)
            and path.stem.lower() not in RESERVED_IDS
        }
        return sorted(ids)


@dataclass(frozen=True)
class PkiFiles:
    """What :func:`init_pki` wrote.

    Attributes:
        ca: The CA certificate and key.
        server: The server certificate and key.
        operator: The operator certificate and key.
        terminals: Each terminal's certificate and key, by terminal id, in order.
    """

    ca: CertAndKey
    server: CertAndKey
    operator: CertAndKey
    terminals: Mapping[str, CertAndKey] = field(default_factory=dict)

    def paths(self) -> list[Path]:
        """Every file, certificates before their keys, the CA first."""
        pairs = [self.ca, self.server, self.operator, *self.terminals.values()]
        return [path for pair in pairs for path in pair]


# --------------------------------------------------------------------------------------------
# Validation


def check_terminal_id(terminal_id: str) -> str:
    """Return ``terminal_id`` if it can name a terminal, else raise.

    Raises:
        InvalidTerminalId: it is not 1 to 32 of ``A-Z a-z 0-9 _ -``, or is reserved
            (``operator``, ``server``, ``ca``).
    """
    if not isinstance(terminal_id, str) or not TERMINAL_ID_RE.fullmatch(terminal_id):
        raise InvalidTerminalId(
            f"{terminal_id!r} is not a terminal id: use 1 to 32 letters, digits, '_' or '-' "
            "(e.g. T7)"
        )
    if terminal_id.lower() in RESERVED_IDS:
        raise InvalidTerminalId(
            f"{terminal_id!r} is reserved and cannot name a terminal; choose another id"
        )
    return terminal_id


def _san_entry(name: str) -> x509.GeneralName:
    """An IP address or DNS name for the server certificate's subjectAltName."""
    text = name.strip()
    with contextlib.suppress(ValueError):
        return x509.IPAddress(ipaddress.ip_address(text))
    labels = text.rstrip(".").split(".")
    if (
        not text
        or len(text) > 253
        or not text.isascii()
        or not all(_DNS_LABEL.fullmatch(label) for label in labels)
    ):
        raise InvalidHostname(
            f"{name!r} is neither a DNS host name nor an IP address; give the name terminals "
            "connect to (e.g. table-7.casino.lan or 10.0.0.7; internationalised names in "
            "their xn-- form)"
        )
    return x509.DNSName(text.rstrip(".").lower())


def _server_names(hostnames: Sequence[str]) -> list[x509.GeneralName]:
    if isinstance(hostnames, str):
        raise InvalidHostname(f"give the host names as a list, not the string {hostnames!r}")
    names: list[x509.GeneralName] = []
    for name in (*DEFAULT_SERVER_NAMES, *hostnames):
        entry = _san_entry(name)
        if entry not in names:
            names.append(entry)
    return names


# --------------------------------------------------------------------------------------------
# Issuing


def _now(now: dt.datetime | None) -> dt.datetime:
    if now is None:
        return dt.datetime.now(dt.UTC)
    if now.tzinfo is None:
        raise InvalidRequest("give 'now' as an aware datetime (e.g. datetime.now(UTC))")
    return now.astimezone(dt.UTC)


def _name(common: str, unit: str | None = None) -> x509.Name:
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, ORGANIZATION)]
    if unit is not None:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit))
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common))
    return x509.Name(attributes)


def _key_usage(*, signer: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=signer,
        crl_sign=signer,
        encipher_only=False,
        decipher_only=False,
    )


def _make_ca(now: dt.datetime) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(_CURVE())
    subject = _name(CA_NAME)
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(now + CA_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(signer=True), critical=True)
        .add_extension(ski, critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    return key, cert


def _issue(
    ca_key: ec.EllipticCurvePrivateKey,
    ca_cert: x509.Certificate,
    subject: x509.Name,
    usage: x509.ObjectIdentifier,
    now: dt.datetime,
    names: Sequence[x509.GeneralName] = (),
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A new key and a leaf certificate for it, signed by the CA."""
    key = ec.generate_private_key(_CURVE())
    return key, _leaf(ca_key, ca_cert, subject, usage, now, key.public_key(), names)


def _leaf(
    ca_key: ec.EllipticCurvePrivateKey,
    ca_cert: x509.Certificate,
    subject: x509.Name,
    usage: x509.ObjectIdentifier,
    now: dt.datetime,
    public: ec.EllipticCurvePublicKey,
    names: Sequence[x509.GeneralName] = (),
) -> x509.Certificate:
    """A leaf certificate for ``public``, signed by the CA."""
    ca_ski = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    not_after = min(now + LEAF_VALIDITY, ca_cert.not_valid_after_utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_cert.subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(signer=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski),
            critical=False,
        )
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(list(names)), critical=False)
    return builder.sign(ca_key, hashes.SHA256())


def _terminal(
    ca_key: ec.EllipticCurvePrivateKey,
    ca_cert: x509.Certificate,
    terminal_id: str,
    now: dt.datetime,
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    subject = _name(terminal_id, Role.TERMINAL.value)
    return _issue(ca_key, ca_cert, subject, ExtendedKeyUsageOID.CLIENT_AUTH, now)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(Encoding.PEM)


def init_pki(
    directory: str | os.PathLike[str],
    *,
    terminals: int,
    hostnames: Sequence[str] = (),
    force: bool = False,
    now: dt.datetime | None = None,
) -> PkiFiles:
    """Create a private CA and the certificates of the server, the operator and terminals.

    Nothing is written until every argument is checked and, without ``force``, no file of
    the layout exists. Each file is written to a temporary file, flushed and moved into
    place, so a crash never leaves half a key. Directories are created with mode 0700.

    Args:
        directory: The PKI directory (``certs/`` in deployments).
        terminals: How many terminal certificates to issue, ``T1`` to ``Tn`` (0 to
            :data:`MAX_TERMINALS`).
        hostnames: DNS names or IP addresses of the server besides localhost, 127.0.0.1
            and ::1.
        force: Replace existing files. Every certificate of the old CA then stops working.
        now: The time of issue (an aware datetime); default the current time.

    Returns:
        The paths written.

    Raises:
        InvalidRequest: ``terminals`` is out of range, or ``now`` is naive.
        InvalidHostname: a host name is neither a DNS name nor an IP address.
        PkiFileExists: a file exists and ``force`` is False.
        PkiFileUnreadable: a directory or file cannot be written.
    """
    if isinstance(terminals, bool) or not 0 <= terminals <= MAX_TERMINALS:
        raise InvalidRequest(
            f"the number of terminals must be 0 to {MAX_TERMINALS}, not {terminals!r}; add "
            "more later with `etg certs add-terminal`"
        )
    issued_at = _now(now)
    names = _server_names(hostnames)
    layout = PkiLayout(Path(directory))
    ids = [f"T{n}" for n in range(1, terminals + 1)]
    files = PkiFiles(
        ca=layout.ca,
        server=layout.server,
        operator=layout.operator,
        terminals={tid: layout.terminal(tid) for tid in ids},
    )
    if not force:
        for path in files.paths():
            _refuse_existing(path)
    _make_dir(layout.directory)
    _make_dir(layout.terminals_dir)

    ca_key, ca_cert = _make_ca(issued_at)
    server = _issue(
        ca_key,
        ca_cert,
        _name(SERVER_NAME, SERVER_UNIT),
        ExtendedKeyUsageOID.SERVER_AUTH,
        issued_at,
        names,
    )
    operator = _issue(
        ca_key,
        ca_cert,
        _name(OPERATOR_ID, Role.OPERATOR.value),
        ExtendedKeyUsageOID.CLIENT_AUTH,
        issued_at,
    )
    issued = [(files.ca, (ca_key, ca_cert)), (files.server, server), (files.operator, operator)]
    issued += [(files.terminals[tid], _terminal(ca_key, ca_cert, tid, issued_at)) for tid in ids]
    for pair, (key, cert) in issued:
        _write_file(pair.certificate, _cert_pem(cert), _PUBLIC_MODE, force)
        _write_file(pair.key, _key_pem(key), _PRIVATE_MODE, force)
    return files


def add_terminal(
    directory: str | os.PathLike[str], terminal_id: str, *, now: dt.datetime | None = None
) -> CertAndKey:
    """Issue a certificate for one more terminal from the CA made by :func:`init_pki`.

    Args:
        directory: The PKI directory.
        terminal_id: The new terminal's id (1 to 32 letters, digits, ``_`` or ``-``).
        now: The time of issue (an aware datetime); default the current time.

    Returns:
        The new certificate and key files (``terminals/<id>.pem`` and ``.key``).

    Raises:
        InvalidTerminalId: the id is not valid or is reserved.
        TerminalExists: the terminal (in any letter case) already has a file.
        PkiFileMissing: the CA certificate or key is not there.
        PkiKeyExposed: the CA key is readable by others than its owner.
        PkiFileMalformed: the CA files are not an ECDSA CA certificate and its key.
    """
    check_terminal_id(terminal_id)
    issued_at = _now(now)
    layout = PkiLayout(Path(directory))
    existing = {tid.lower(): tid for tid in layout.terminal_ids()}
    if terminal_id.lower() in existing:
        other = existing[terminal_id.lower()]
        path = layout.terminal(other).certificate
        raise TerminalExists(
            f"the terminal {other} already has a certificate ({path}); choose another id, or "
            f"revoke {other} in the config and remove its files first",
            path,
        )
    ca_key, ca_cert = _load_ca(layout)
    pair = layout.terminal(terminal_id)
    for path in pair:
        _refuse_existing(path)
    _make_dir(layout.terminals_dir)
    key, cert = _terminal(ca_key, ca_cert, terminal_id, issued_at)
    _write_file(pair.certificate, _cert_pem(cert), _PUBLIC_MODE, force=False)
    _write_file(pair.key, _key_pem(key), _PRIVATE_MODE, force=False)
    return pair


def terminal_certificate_for(
    directory: str | os.PathLike[str],
    terminal_id: str,
    public: ec.EllipticCurvePublicKey,
    *,
    now: dt.datetime | None = None,
) -> x509.Certificate:
    """A terminal certificate from the CA in ``directory`` for a key made on the terminal
    (its certificate request, :mod:`game_server.net.enroll`): the private key never comes
    here. Nothing is written.

    Raises:
        InvalidTerminalId: the id is not valid or is reserved.
        PkiFileMissing, PkiKeyExposed, PkiFileMalformed: the CA files (see
            :func:`add_terminal`).
    """
    check_terminal_id(terminal_id)
    ca_key, ca_cert = _load_ca(PkiLayout(Path(directory)))
    subject = _name(terminal_id, Role.TERMINAL.value)
    usage = ExtendedKeyUsageOID.CLIENT_AUTH
    return _leaf(ca_key, ca_cert, subject, usage, _now(now), public)


def key_matches(key: ec.EllipticCurvePrivateKey, certificate: x509.Certificate) -> bool:
    """Whether ``key`` is the private key of ``certificate``."""
    spki = (Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return key.public_key().public_bytes(*spki) == certificate.public_key().public_bytes(*spki)


def _load_ca(layout: PkiLayout) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """The CA's key and certificate, checked to belong together."""
    ca_cert = load_certificate(layout.ca.certificate, "CA certificate")
    ca_key = load_private_key(layout.ca.key, "CA key")
    if not key_matches(ca_key, ca_cert):
        raise PkiFileMalformed(
            f"the CA key {layout.ca.key} does not belong to the CA certificate "
            f"{layout.ca.certificate}; restore both from the same backup",
            layout.ca.key,
        )
    return ca_key, ca_cert


def add_console(
    directory: str | os.PathLike[str],
    *,
    hostnames: Sequence[str] = (),
    force: bool = False,
    now: dt.datetime | None = None,
) -> CertAndKey:
    """Issue the operator console's HTTPS certificate from the CA made by :func:`init_pki`:
    ``console.pem`` and ``console.key`` (serverAuth, CN "ETG operator console", OU
    ``console``; localhost, 127.0.0.1, ::1 and ``hostnames``). It is the console's own: a
    console host never holds the table server's key. Browsers trust it once ``ca.pem`` is
    installed as a trusted authority on the floor's machines.

    Raises:
        InvalidHostname: a host name is neither a DNS name nor an IP address.
        PkiFileExists: the files exist and ``force`` is False.
        PkiFileMissing: the CA certificate or key is not there.
        PkiKeyExposed: the CA key is readable by others than its owner.
        PkiFileMalformed: the CA files are not an ECDSA CA certificate and its key.
    """
    issued_at = _now(now)
    names = _server_names(hostnames)
    layout = PkiLayout(Path(directory))
    pair = layout.console
    if not force:
        for path in pair:
            _refuse_existing(path)
    ca_key, ca_cert = _load_ca(layout)
    key, cert = _issue(
        ca_key,
        ca_cert,
        _name(CONSOLE_NAME, CONSOLE_UNIT),
        ExtendedKeyUsageOID.SERVER_AUTH,
        issued_at,
        names,
    )
    _write_file(pair.certificate, _cert_pem(cert), _PUBLIC_MODE, force)
    _write_file(pair.key, _key_pem(key), _PRIVATE_MODE, force)
    return pair


# --------------------------------------------------------------------------------------------
# Reading and writing files


def _missing(path: Path, what: str) -> str:
    where = f"{path}" if path.parent.is_dir() else f"{path} (no directory {path.parent})"
    return (
        f"no {what} at {where}; create the table's certificates with `etg certs init`, or "
        "give the directory that holds them"
    )


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise PkiFileMissing(_missing(path, what), path) from None
    except IsADirectoryError:
        raise PkiFileMalformed(f"the {what} {path} is a directory, not a file", path) from None
    except OSError as exc:
        raise PkiFileUnreadable(
            f"cannot read the {what} {path}: {exc.strerror or exc}; check the file's owner "
            "and permissions",
            path,
        ) from None


def load_certificate(path: str | os.PathLike[str], what: str = "certificate") -> x509.Certificate:
    """Load one PEM certificate.

    Args:
        path: The file.
        what: What the file is, for messages (``"CA certificate"``).

    Raises:
        PkiFileMissing: no such file.
        PkiFileUnreadable: it cannot be read.
        PkiFileMalformed: it is not a PEM certificate.
    """
    file = Path(path)
    data = _read(file, what)
    try:
        return x509.load_pem_x509_certificate(data)
    except ValueError as exc:
        raise PkiFileMalformed(
            f"the {what} {file} is not a PEM certificate ({exc}); restore it from the backup "
            "or issue it again",
            file,
        ) from None


def load_private_key(
    path: str | os.PathLike[str], what: str = "private key"
) -> ec.EllipticCurvePrivateKey:
    """Load an unencrypted PEM ECDSA private key that only its owner can access.

    Args:
        path: The file.
        what: What the file is, for messages (``"server key"``).

    Raises:
        PkiFileMissing: no such file.
        PkiKeyExposed: group or other users have any access to it (fix: ``chmod 600``).
        PkiFileUnreadable: it cannot be read.
        PkiFileMalformed: it is not an unencrypted PEM EC private key.
    """
    file = Path(path)
    try:
        info = file.stat()
    except FileNotFoundError:
        raise PkiFileMissing(_missing(file, what), file) from None
    except OSError as exc:
        raise PkiFileUnreadable(
            f"cannot read the {what} {file}: {exc.strerror or exc}", file
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise PkiFileMalformed(f"the {what} {file} is not a regular file", file)
    if info.st_mode & 0o077:
        raise PkiKeyExposed(
            f"the {what} {file} can be accessed by users other than its owner (mode "
            f"{stat.S_IMODE(info.st_mode):04o}); run `chmod 600 {file}`, and issue a new "
            "certificate if others could have read it",
            file,
        )
    data = _read(file, what)
    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise PkiFileMalformed(
            f"the {what} {file} is not an unencrypted PEM private key ({exc}); restore it "
            "from the backup or issue the certificate again",
            file,
        ) from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise PkiFileMalformed(
            f"the {what} {file} holds a {type(key).__name__}; it must be an ECDSA key made "
            "by `etg certs`",
            file,
        )
    return key


def _refuse_existing(path: Path) -> None:
    if path.exists() or path.is_symlink():
        raise PkiFileExists(
            f"{path} already exists; refusing to overwrite it (certificates issued with the "
            "old files would stop working). Move it away first, or pass --force "
            "(force=True) if you really mean to replace the table's certificates.",
            path,
        )


def _make_dir(folder: Path) -> None:
    try:
        folder.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
    except OSError as exc:
        raise PkiFileUnreadable(
            f"cannot create the directory {folder}: {exc.strerror or exc}", folder
        ) from None


def _write_file(path: Path, data: bytes, mode: int, force: bool) -> None:
    """Write ``data`` to ``path`` with exactly ``mode``, atomically; never overwrite unless
    ``force``."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.fchmod(fd, mode)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if the path appeared meanwhile: never overwrite
            except FileExistsError:
                raise PkiFileExists(
                    f"{path} appeared while the certificates were being written; not overwritten",
                    path,
                ) from None
            finally:
                tmp.unlink(missing_ok=True)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise PkiFileUnreadable(f"cannot write {path}: {exc.strerror or exc}", path) from None
