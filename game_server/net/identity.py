"""Who a client certificate of the table's PKI names (:class:`Identity`, read by
:func:`peer_identity`), and the certificates the floor revokes (:class:`RevocationList`).
The certificates themselves are made and read by :mod:`game_server.net.pki`.

Entry points: :func:`peer_identity`, :class:`Identity`, :class:`RevocationList`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography import x509
from cryptography.x509.oid import NameOID

from game_server.net.pki import (
    OPERATOR_ID,
    RESERVED_IDS,
    TERMINAL_ID_RE,
    CertificateWithoutRole,
    InvalidRevocation,
    Role,
)


@dataclass(frozen=True)
class Identity:
    """Who an authenticated client certificate names.

    Attributes:
        role: :attr:`Role.TERMINAL` or :attr:`Role.OPERATOR` (a ``str``).
        id: The terminal id (``"T1"``) or ``"operator"``.
        serial: The certificate's serial number.
    """

    role: Role
    id: str
    serial: int

    @property
    def serial_hex(self) -> str:
        """The serial number as lowercase hex digits, the form the config revokes."""
        return format(self.serial, "x")

    def __str__(self) -> str:
        return f"{self.role.value} {self.id} (serial {self.serial_hex})"


def _single(name: x509.Name, oid: x509.ObjectIdentifier) -> str | None:
    values = name.get_attributes_for_oid(oid)
    if len(values) != 1:
        return None
    value = values[0].value
    return value if isinstance(value, str) else None


def common_name(cert: x509.Certificate) -> str | None:
    """The certificate's one subject common name (CN), or None if it has none or several."""
    return _single(cert.subject, NameOID.COMMON_NAME)


def peer_identity(cert: x509.Certificate) -> Identity:
    """Who a client certificate names: its role (OU) and id (CN).

    This reads the names only; the TLS handshake has already checked that our CA issued the
    certificate.

    Args:
        cert: A terminal or operator certificate.

    Returns:
        The role, id and serial number.

    Raises:
        CertificateWithoutRole: the subject has no single OU ``terminal``/``operator`` and a
            matching CN (e.g. the server certificate, or a certificate from another tool).
    """
    unit = _single(cert.subject, NameOID.ORGANIZATIONAL_UNIT_NAME)
    name = common_name(cert)
    subject = cert.subject.rfc4514_string()
    if unit not in (Role.TERMINAL.value, Role.OPERATOR.value) or name is None:
        raise CertificateWithoutRole(
            f"the certificate {subject!r} (serial {cert.serial_number:x}) names no role: a "
            "client certificate has exactly one OU, 'terminal' or 'operator', and one CN. "
            "Issue the terminal's certificate with `etg certs add-terminal`."
        )
    role = Role(unit)
    if role is Role.OPERATOR and name != OPERATOR_ID:
        raise CertificateWithoutRole(
            f"the operator certificate {subject!r} must have CN={OPERATOR_ID}"
        )
    if role is Role.TERMINAL and (
        not TERMINAL_ID_RE.fullmatch(name) or name.lower() in RESERVED_IDS
    ):
        raise CertificateWithoutRole(
            f"the terminal certificate {subject!r} has CN={name!r}, which is not a terminal id"
        )
    return Identity(role=role, id=name, serial=cert.serial_number)


def parse_serial(text: str) -> int:
    """A certificate serial number written in hex (``5f3a...``, ``0x5F3A...`` or
    ``5F:3A:...``, the form ``openssl x509 -serial`` prints).

    Raises:
        InvalidRevocation: the text is not hexadecimal digits.
    """
    digits = text.strip().lower().removeprefix("0x").replace(":", "")
    if not digits or not re.fullmatch(r"[0-9a-f]+", digits):
        raise InvalidRevocation(
            f"{text!r} is not a certificate serial number; write it in hex as `etg certs` "
            "prints it (e.g. '5f3a09c2...')"
        )
    return int(digits, 16)


@dataclass(frozen=True)
class RevocationList:
    """Certificates the table no longer accepts, from the config.

    A certificate is revoked if its serial number is listed, or if its CN (the terminal id,
    or ``operator``) is. Revoking by id refuses every certificate of that id, including one
    issued later; revoke by serial number to replace a single lost certificate.

    Attributes:
        serials: Revoked serial numbers.
        ids: Revoked terminal ids (and/or ``operator``).
    """

    serials: frozenset[int] = frozenset()
    ids: frozenset[str] = frozenset()

    @classmethod
    def from_config(
        cls, serials: Iterable[str | int] = (), ids: Iterable[str] = ()
    ) -> RevocationList:
        """Build the list from the config's strings.

        Args:
            serials: Serial numbers, as ints or hex text (see :func:`parse_serial`).
            ids: Terminal ids, or ``operator``.

        Raises:
            InvalidRevocation: an entry is neither.
        """
        numbers = frozenset(s if isinstance(s, int) else parse_serial(s) for s in serials)
        names = frozenset(ids)
        for name in names:
            if not TERMINAL_ID_RE.fullmatch(name):
                raise InvalidRevocation(
                    f"{name!r} is not a terminal id to revoke (1 to 32 letters, digits, _ or -)"
                )
        return cls(serials=numbers, ids=names)

    def reason(self, cert: x509.Certificate) -> str | None:
        """Which entry revokes the certificate (``"serial 5f3a..."`` or ``"id T3"``), or None
        if it is not revoked."""
        if cert.serial_number in self.serials:
            return f"serial {cert.serial_number:x}"
        name = common_name(cert)
        if name is not None and name in self.ids:
            return f"id {name}"
        return None

    def is_revoked(self, cert: x509.Certificate) -> bool:
        """Whether the table refuses this certificate."""
        return self.reason(cert) is not None
