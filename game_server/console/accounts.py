"""The console's people: names, roles, scrypt password hashes and supervisors' TOTP secrets.

One JSON file (``etg console user add/list/remove``), mode 0600 because it holds the one-time
code secrets: a file that others can read is refused, as a private key is
(:mod:`game_server.net.pki`). It is written whole to a temporary file and renamed over the
old one, so a crash never leaves half a file.

Passwords are hashed with scrypt (``cryptography``), N = 2**15, r = 8, p = 3 (32 MiB: one of
OWASP's Password Storage Cheat Sheet's scrypt settings), a 16-byte random salt, 32 bytes out;
the parameters are stored with each hash, so they can be raised later without invalidating
the old ones. A password is 12 to 256 characters. A sign-in with an unknown name costs the
same scrypt as a known one (no timing tells which names exist).

Entry points: :class:`AccountBook`, :class:`Account`, :func:`hash_password`,
:func:`check_password`.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import hmac
import json
import os
import re
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidKey
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from game_server.console.roles import SECOND_FACTOR, Role
from game_server.console.totp import new_secret, secret_from_text, secret_text
from shared.errors import ETGError

#: scrypt's cost parameters for new hashes.
SCRYPT_N: Final = 2**15
SCRYPT_R: Final = 8
SCRYPT_P: Final = 3
SALT_BYTES: Final = 16
HASH_BYTES: Final = 32
#: Password length in characters (NIST SP 800-63B allows at least 64; a floor needs 12+).
MIN_PASSWORD: Final = 12
MAX_PASSWORD: Final = 256
#: What an account name may look like (it is also what the table's log records).
NAME_RE: Final = re.compile(r"[a-z][a-z0-9._-]{0,31}")
_FORMAT: Final = 1
_PRIVATE: Final = 0o600


class AccountError(ETGError):
    """A refused account operation or an unusable accounts file; the message says why."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, *, n: int = SCRYPT_N, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$salt$hash`` (base64) of ``password``.

    Raises:
        AccountError: a password shorter than :data:`MIN_PASSWORD` or longer than
            :data:`MAX_PASSWORD` characters.
    """
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(
            f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters, got {len(password)}"
        )
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    key = Scrypt(salt=salt, length=HASH_BYTES, n=n, r=SCRYPT_R, p=SCRYPT_P).derive(
        password.encode("utf-8")
    )
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(key)}"


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` hashes to ``stored`` (constant-time comparison by scrypt)."""
    try:
        name, n, r, p, salt, key = stored.split("$")
        if name != "scrypt":
            return False
        kdf = Scrypt(salt=base64.b64decode(salt), length=HASH_BYTES, n=int(n), r=int(r), p=int(p))
        kdf.verify(password.encode("utf-8")[: MAX_PASSWORD * 4], base64.b64decode(key))
    except (InvalidKey, ValueError):
        return False
    return True


_DUMMY_ONCE = threading.Lock()


def _dummy() -> str:
    """What an unknown name's sign-in is checked against, so it costs a real scrypt. Made
    once (under a lock: sign-ins run in several worker threads at once)."""
    with _DUMMY_ONCE:
        return _dummy_hash()


@functools.cache
def _dummy_hash() -> str:
    return hash_password("x" * MIN_PASSWORD, salt=b"\0" * SALT_BYTES)


@dataclass(frozen=True)
class Account:
    """One person.

    Attributes:
        name: The sign-in name (what the table's log records as the person).
        role: Their role.
        password: The scrypt hash (:func:`hash_password`).
        totp: The one-time code secret (base32), for the roles that need a second factor.
        created: When the account was made (UTC, ISO 8601).
    """

    name: str
    role: Role
    password: str
    totp: str | None
    created: str

    @property
    def totp_secret(self) -> bytes | None:
        return None if self.totp is None else secret_from_text(self.totp)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role.value,
            "password": self.password,
            "totp": self.totp,
            "created": self.created,
        }


class AccountBook:
    """The accounts file: load, add, remove, check a sign-in.

    Args:
        path: The JSON file (created by the first :meth:`add`).
        scrypt_n: scrypt's N for new passwords (tests lower it; checks use each hash's own).
    """

    def __init__(self, path: Path, *, scrypt_n: int = SCRYPT_N) -> None:
        self.path = path
        self.scrypt_n = scrypt_n
        self._stamp = self._file_stamp()
        self._accounts = self._load()

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            found = self.path.stat()
        except FileNotFoundError:
            return None
        return found.st_mtime_ns, found.st_size

    def refresh(self) -> None:
        """Read the file again if it changed since it was read (``etg console user add`` or
        ``remove`` while the console runs): a removed person's sessions end at their next
        request. A file that became unusable leaves no account at all (fail closed) until it
        is mended; the error is raised for the caller to log.

        Raises:
            AccountError: the file changed and cannot be used.
        """
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            self._accounts = self._load()
        except AccountError:
            self._accounts = {}
            raise

    def _load(self) -> dict[str, Account]:
        path = self.path
        if not path.exists():
            return {}
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise AccountError(
                f"{path} can be read by others (mode {mode:o}); it holds the one-time code "
                f"secrets: chmod 600 {path}"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != _FORMAT:
                raise ValueError(f"format {data.get('format')!r}, not {_FORMAT}")
            accounts = {}
            for item in data["accounts"]:
                account = Account(
                    name=item["name"],
                    role=Role(item["role"]),
                    password=item["password"],
                    totp=item["totp"],
                    created=item["created"],
                )
                accounts[account.name] = account
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise AccountError(f"{path} is not a console accounts file: {exc}") from None
        return accounts

    def _save(self) -> None:
        data = {"format": _FORMAT, "accounts": [a.to_json() for a in self]}
        text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".new")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, _PRIVATE)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, _PRIVATE)
        os.replace(temporary, self.path)
        self._stamp = self._file_stamp()

    def __iter__(self) -> Iterator[Account]:
        return iter(sorted(self._accounts.values(), key=lambda a: a.name))

    def __len__(self) -> int:
        return len(self._accounts)

    def get(self, name: str) -> Account | None:
        return self._accounts.get(name)

    def add(
        self, name: str, role: Role, password: str, *, now: dt.datetime | None = None
    ) -> Account:
        """Add a person; a supervisor gets a new one-time code secret (shown once by the
        command). The file is written before this returns.

        Raises:
            AccountError: a bad name, an existing name, or a bad password.
        """
        if not NAME_RE.fullmatch(name):
            raise AccountError(
                f"{name!r} is not an account name: 1 to 32 of a-z 0-9 . _ -, starting with a letter"
            )
        if name in self._accounts:
            raise AccountError(f"there is already an account {name!r}; remove it first")
        created = (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
        secret = secret_text(new_secret()) if role in SECOND_FACTOR else None
        account = Account(name, role, hash_password(password, n=self.scrypt_n), secret, created)
        self._accounts[name] = account
        self._save()
        return account

    def remove(self, name: str) -> Account:
        """Remove a person (their open sessions end at their next request).

        Raises:
            AccountError: no such account.
        """
        account = self._accounts.pop(name, None)
        if account is None:
            raise AccountError(f"there is no account {name!r}")
        self._save()
        return account

    def sign_in(self, name: str, password: str) -> Account | None:
        """The account if ``password`` is its password, else None; an unknown name costs
        the same scrypt."""
        account = self._accounts.get(name)
        if account is None:
            check_password(password, _dummy())
            return None
        if not check_password(password, account.password):
            return None
        return account if hmac.compare_digest(account.name, name) else None
