"""Enrollment: a new terminal gets its certificate while its private key never leaves it.

``etg certs add-terminal`` makes a terminal's key on the table server, and someone must then
carry that private key to the kiosk. Enrollment turns it around (the usual PKCS#10 way):

1. On the terminal, :func:`request_certificate` (``etg certs request T9``) makes the key
   (ECDSA P-256, written mode 0600, never copied anywhere) and a certificate request
   ``T9.csr`` signed by it, naming ``CN=T9, OU=terminal``. Only the request travels.
2. On the table server, :func:`sign_request` (``etg certs sign T9.csr``) checks the request
   (its signature proves the requester holds the key; the key is P-256; the subject names a
   terminal id), refuses an id that already has a certificate unless that certificate is
   revoked (by its serial, in the floor file), and writes ``terminals/T9.pem`` issued by
   the table's CA. ``T9.pem`` and ``ca.pem`` (both public) travel back to the terminal.

Both ends print the request key's fingerprint (:func:`key_fingerprint`), so the operator can
compare the request that arrived with the one the terminal made. Revocation stays as it is
(``[floor.revoked]`` of the floor file, :mod:`game_server.net.floor`; the operator's
revocations in the log): a replaced certificate is kept under ``terminals/replaced/``.

Every refusal is a :class:`~game_server.net.pki.PkiError` subclass naming the file and what
to do.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from cryptography.x509.oid import NameOID

from game_server.net.identity import RevocationList

# The writing helpers are the PKI's own (atomic, exact modes, never overwriting).
from game_server.net.pki import (
    _CURVE,
    _PRIVATE_MODE,
    _PUBLIC_MODE,
    CertAndKey,
    InvalidTerminalId,
    PkiError,
    PkiFileMalformed,
    PkiFileUnreadable,
    PkiLayout,
    Role,
    TerminalExists,
    _cert_pem,
    _key_pem,
    _make_dir,
    _name,
    _read,
    _refuse_existing,
    _write_file,
    check_terminal_id,
    load_certificate,
    terminal_certificate_for,
)

#: The folder, under ``terminals/``, that keeps certificates replaced by a signed request.
REPLACED_DIR: Final = "replaced"
#: The largest request file read (a P-256 request is well under 1 KiB).
MAX_REQUEST_BYTES: Final = 16 * 1024


class RequestMalformed(PkiFileMalformed):
    """A certificate request that is not a usable terminal request."""


class AlreadyIssued(TerminalExists):
    """A request for a terminal id whose certificate is not revoked."""


class RevokedById(PkiError):
    """A request for a terminal id the floor file revokes by id (every certificate of it)."""


@dataclass(frozen=True)
class Request:
    """What :func:`request_certificate` wrote.

    Attributes:
        terminal_id: The terminal.
        key: The private key file (stays on the terminal).
        request: The certificate request file (goes to the table server).
        fingerprint: The key's fingerprint (:func:`key_fingerprint`).
    """

    terminal_id: str
    key: Path
    request: Path
    fingerprint: str


@dataclass(frozen=True)
class Signed:
    """What :func:`sign_request` wrote.

    Attributes:
        terminal_id: The terminal.
        certificate: ``terminals/<id>.pem`` in the certificates folder.
        serial: The new certificate's serial number.
        fingerprint: The key's fingerprint (:func:`key_fingerprint`).
        replaced: Where the revoked certificate it replaces was moved, if there was one.
    """

    terminal_id: str
    certificate: Path
    serial: int
    fingerprint: str
    replaced: Path | None = None


def key_fingerprint(public: ec.EllipticCurvePublicKey) -> str:
    """SHA-256 of the public key (DER SubjectPublicKeyInfo) as 16 groups of 4 hex digits,
    for a person to compare on the terminal's screen and the server's."""
    digest = hashlib.sha256(public.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo))
    text = digest.hexdigest()
    return " ".join(text[i : i + 4] for i in range(0, len(text), 4))


def request_files(folder: Path, terminal_id: str) -> CertAndKey:
    """Where a terminal's request lives: ``<folder>/<id>.csr`` and ``<folder>/<id>.key``
    (the certificate, once signed, goes beside them as ``<id>.pem``)."""
    check_terminal_id(terminal_id)
    return CertAndKey(folder / f"{terminal_id}.csr", folder / f"{terminal_id}.key")


def request_certificate(folder: str | os.PathLike[str], terminal_id: str) -> Request:
    """Make a terminal's private key and its certificate request in ``folder``.

    Args:
        folder: The terminal's certificates folder (made mode 0700 if missing).
        terminal_id: The terminal's id, e.g. ``T9`` (the seat it gets is the floor file's).

    Returns:
        The files written and the key's fingerprint.

    Raises:
        InvalidTerminalId: the id is not valid or is reserved.
        PkiFileExists: the key or the request already exists (a key is never replaced:
            move it away first if you really mean to start again).
        PkiFileUnreadable: the folder or a file cannot be written.
    """
    files = request_files(Path(folder), terminal_id)
    for path in (*files, Path(folder) / f"{terminal_id}.pem"):
        _refuse_existing(path)
    _make_dir(Path(folder))
    key = ec.generate_private_key(_CURVE())
    csr = (
        x509.CertificateSigningRequestBuilder()
        .subject_name(_name(terminal_id, Role.TERMINAL.value))
        .sign(key, hashes.SHA256())
    )
    _write_file(files.key, _key_pem(key), _PRIVATE_MODE, force=False)
    _write_file(files.certificate, csr.public_bytes(Encoding.PEM), _PUBLIC_MODE, force=False)
    return Request(terminal_id, files.key, files.certificate, key_fingerprint(key.public_key()))


def load_request(path: str | os.PathLike[str]) -> tuple[str, ec.EllipticCurvePublicKey]:
    """Read and check a terminal's certificate request.

    Returns:
        The terminal id it asks for and its public key.

    Raises:
        PkiFileMissing, PkiFileUnreadable: the file is not there or cannot be read.
        RequestMalformed: it is not a PEM request, its signature does not verify (the
            requester does not hold the key, or it was altered), its key is not ECDSA
            P-256, or its subject does not name one terminal id.
        InvalidTerminalId: the id it names is not valid or is reserved.
    """
    file = Path(path)
    data = _read(file, "certificate request")
    if len(data) > MAX_REQUEST_BYTES:
        raise RequestMalformed(
            f"{file} is {len(data):,} bytes, not a terminal's certificate request (made by "
            "`etg certs request` on the terminal)",
            file,
        )
    try:
        csr = x509.load_pem_x509_csr(data)
    except ValueError as exc:
        raise RequestMalformed(
            f"{file} is not a PEM certificate request ({exc}); make one on the terminal with "
            "`etg certs request ID`",
            file,
        ) from None
    if not csr.is_signature_valid:
        raise RequestMalformed(
            f"the signature of the request {file} does not verify: it was altered, or it was "
            "not made with the key it carries; make a new one on the terminal",
            file,
        )
    public = csr.public_key()
    if not isinstance(public, ec.EllipticCurvePublicKey) or not isinstance(
        public.curve, ec.SECP256R1
    ):
        raise RequestMalformed(
            f"the request {file} carries a {type(public).__name__}, not an ECDSA P-256 key; "
            "make the request with `etg certs request`",
            file,
        )
    names = csr.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    terminal_id = names[0].value if len(names) == 1 else None
    units = csr.subject.get_attributes_for_oid(NameOID.ORGANIZATIONAL_UNIT_NAME)
    if not isinstance(terminal_id, str) or any(u.value != Role.TERMINAL.value for u in units):
        raise RequestMalformed(
            f"the request {file} names {csr.subject.rfc4514_string()!r}, not one terminal "
            "(CN=<id>, OU=terminal)",
            file,
        )
    try:
        check_terminal_id(terminal_id)
    except InvalidTerminalId as exc:
        raise InvalidTerminalId(f"the request {file}: {exc}", file) from None
    return terminal_id, public


def sign_request(
    directory: str | os.PathLike[str],
    request: str | os.PathLike[str],
    revocations: RevocationList,
    *,
    now: dt.datetime | None = None,
) -> Signed:
    """Issue a terminal's certificate for its request from the CA in ``directory``.

    An id that already has a certificate (in any letter case) is refused unless that
    certificate's serial is in ``revocations``; then it is moved to
    ``terminals/replaced/<id>-<serial>.pem`` (with its key, if the server made it) and the
    new one takes its place. An id revoked by id is refused: the server would refuse the new
    certificate too.

    Args:
        directory: The table's certificates folder (``ca.pem``, ``ca.key``, ``terminals/``).
        request: The terminal's request file.
        revocations: The floor file's ``[floor.revoked]`` (empty without a floor file).
        now: The time of issue (an aware datetime); default the current time.

    Raises:
        RequestMalformed, InvalidTerminalId: see :func:`load_request`.
        AlreadyIssued: the id has a certificate that is not revoked, or the request reuses
            the key of the certificate it would replace.
        RevokedById: the floor file revokes the id itself.
        PkiError: the CA files cannot be used, or a file cannot be written.
    """
    terminal_id, public = load_request(request)
    layout = PkiLayout(Path(directory))
    if terminal_id in revocations.ids:
        raise RevokedById(
            f"{terminal_id} is revoked by id in the floor file ([floor.revoked] terminals): "
            f"the server refuses every certificate of {terminal_id}, a new one too. Revoke "
            "the old certificate by its serial instead (`etg certs list` shows it), remove "
            f"{terminal_id} from [floor.revoked] terminals, restart the server, and sign again"
        )
    existing = {tid.lower(): tid for tid in layout.terminal_ids()}
    old_id = existing.get(terminal_id.lower())
    old = None if old_id is None else _revoked_certificate(layout, old_id, public, revocations)
    certificate = terminal_certificate_for(layout.directory, terminal_id, public, now=now)
    replaced = None if old_id is None or old is None else _retire(layout, old_id, old)
    path = layout.terminal(terminal_id).certificate
    _make_dir(layout.terminals_dir)
    _write_file(path, _cert_pem(certificate), _PUBLIC_MODE, force=False)
    return Signed(
        terminal_id, path, certificate.serial_number, key_fingerprint(public), replaced=replaced
    )


def _revoked_certificate(
    layout: PkiLayout,
    terminal_id: str,
    public: ec.EllipticCurvePublicKey,
    revocations: RevocationList,
) -> x509.Certificate:
    """The certificate ``terminal_id`` holds, if it is revoked by serial and the request
    brings another key; else refuse."""
    pair = layout.terminal(terminal_id)
    if not pair.certificate.exists():
        raise AlreadyIssued(
            f"{pair.key} exists without its certificate {pair.certificate.name}; the id "
            f"{terminal_id} was issued here. Move the key away if that terminal is gone for "
            "good, then sign again",
            pair.key,
        )
    old = load_certificate(pair.certificate, f"certificate of {terminal_id}")
    serial = format(old.serial_number, "x")
    if old.serial_number not in revocations.serials:
        raise AlreadyIssued(
            f"{terminal_id} already has a certificate ({pair.certificate}, serial {serial}) "
            f'that is not revoked. To replace it, revoke it first: add "{serial}" to '
            "[floor.revoked] serials of the floor file, restart the server, and sign again "
            "with --floor FILE",
            pair.certificate,
        )
    if old.public_key() == public:
        raise AlreadyIssued(
            f"the request for {terminal_id} carries the key of its revoked certificate "
            f"(serial {serial}); make a new key on the terminal (`etg certs request`)",
            pair.certificate,
        )
    return old


def _retire(layout: PkiLayout, terminal_id: str, old: x509.Certificate) -> Path:
    """Move the revoked certificate of ``terminal_id`` (and its key, if the server made
    it) to ``terminals/replaced/<id>-<serial>.pem``."""
    pair = layout.terminal(terminal_id)
    folder = layout.terminals_dir / REPLACED_DIR
    _make_dir(folder)
    moved = folder / f"{terminal_id}-{old.serial_number:x}.pem"
    _refuse_existing(moved)
    try:
        os.replace(pair.certificate, moved)
        if pair.key.exists():
            os.replace(pair.key, moved.with_suffix(".key"))
    except OSError as exc:
        raise PkiFileUnreadable(
            f"cannot move the revoked certificate {pair.certificate} to {folder}: "
            f"{exc.strerror or exc}",
            pair.certificate,
        ) from None
    return moved
