"""One-time codes for the console's second factor: TOTP (RFC 6238) over HOTP (RFC 4226).

A supervisor signs in with a password and the 6-digit code an authenticator app shows for
the secret given when the account was made (``otpauth://`` URI, base32 secret). Codes are
HMAC-SHA-1 over the 30-second step count since the Unix epoch, as every authenticator app
computes them (RFC 6238 section 4; the RFC's SHA-256 and SHA-512 variants are here too, for
its test vectors). A code is accepted for the step it names and one step either side (clock
drift, RFC 6238 section 5.2), and each step at most once per account (a code seen on a
shoulder cannot be used again: :meth:`TotpVerifier.check`).

Pure but for :func:`new_secret` (``os.urandom``). Entry points: :func:`hotp`, :func:`totp`,
:func:`new_secret`, :func:`otpauth_uri`, :class:`TotpVerifier`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import struct
from typing import Final
from urllib.parse import quote, urlencode

#: Seconds of one step (RFC 6238's default X).
STEP_SECONDS: Final = 30
#: Digits of a code (what authenticator apps show).
DIGITS: Final = 6
#: Bytes of a new secret: 160 bits, the HMAC-SHA-1 block's recommended key length (RFC 4226
#: section 4, R6).
SECRET_BYTES: Final = 20
#: Steps either side of now a code may name.
DRIFT_STEPS: Final = 1

_ALGORITHMS: Final = {"sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}


def hotp(key: bytes, counter: int, digits: int = DIGITS, algorithm: str = "sha1") -> str:
    """The HOTP value of ``counter`` (RFC 4226 section 5.3): HMAC, dynamic truncation,
    ``digits`` decimal digits with leading zeros.

    Raises:
        ValueError: a negative counter, digits outside 6 to 10, or an unknown algorithm.
    """
    if counter < 0 or not 0 <= counter < 1 << 64:
        raise ValueError(f"a HOTP counter is 0 to 2**64 - 1, got {counter}")
    if not 6 <= digits <= 10:
        raise ValueError(f"a code has 6 to 10 digits, got {digits}")
    digest_of = _ALGORITHMS.get(algorithm)
    if digest_of is None:
        raise ValueError(f"{algorithm!r} is not sha1, sha256 or sha512")
    mac = hmac.new(key, struct.pack(">Q", counter), digest_of).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


def step_of(unix_time: float, step: int = STEP_SECONDS, t0: int = 0) -> int:
    """The step count T = floor((time - T0) / X) of RFC 6238 section 4.2."""
    return int((unix_time - t0) // step)


def totp(
    key: bytes,
    unix_time: float,
    *,
    step: int = STEP_SECONDS,
    digits: int = DIGITS,
    algorithm: str = "sha1",
) -> str:
    """The TOTP code at ``unix_time`` (RFC 6238 section 4.2)."""
    return hotp(key, step_of(unix_time, step), digits, algorithm)


def new_secret() -> bytes:
    """A new random secret of :data:`SECRET_BYTES` bytes from the operating system."""
    return os.urandom(SECRET_BYTES)


def secret_text(secret: bytes) -> str:
    """The secret as authenticator apps take it typed in: base32 without padding."""
    return base64.b32encode(secret).decode("ascii").rstrip("=")


def secret_from_text(text: str) -> bytes:
    """A secret from its base32 text (case, spaces and missing padding forgiven).

    Raises:
        ValueError: text that is not base32.
    """
    cleaned = text.replace(" ", "").upper()
    try:
        return base64.b32decode(cleaned + "=" * (-len(cleaned) % 8))
    except ValueError as exc:
        raise ValueError(f"the TOTP secret is not base32 text: {exc}") from None


def otpauth_uri(secret: bytes, account: str, issuer: str = "ETG console") -> str:
    """The ``otpauth://totp/...`` URI an authenticator app reads (from a QR code)."""
    label = quote(f"{issuer}:{account}", safe="")
    query = urlencode(
        {
            "secret": secret_text(secret),
            "issuer": issuer,
            "algorithm": "SHA1",
            "digits": DIGITS,
            "period": STEP_SECONDS,
        }
    )
    return f"otpauth://totp/{label}?{query}"


class TotpVerifier:
    """Checks codes and refuses a step already used by the same account."""

    def __init__(self) -> None:
        self._last_step: dict[str, int] = {}

    def check(self, account: str, secret: bytes, code: str, unix_time: float) -> bool:
        """Whether ``code`` is the account's code within :data:`DRIFT_STEPS` of now, for a
        step later than the last one it used (compared in constant time)."""
        code = code.strip().replace(" ", "")
        if len(code) != DIGITS or not code.isdigit():
            return False
        now = step_of(unix_time)
        last = self._last_step.get(account, -1)
        matched = None
        for step in range(now - DRIFT_STEPS, now + DRIFT_STEPS + 1):
            if hmac.compare_digest(hotp(secret, step), code) and step > last:
                matched = step
        if matched is None:
            return False
        self._last_step[account] = matched
        return True
