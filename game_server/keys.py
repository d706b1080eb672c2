"""The server's own secrets: the log-signing key and the shoe-sealing key.

Entry points:

- :func:`init_keys` creates, in one directory (``certs/`` by default in deployments):

  ``log-signing.key``
      Ed25519 private key, PEM PKCS#8, unencrypted, mode 0600. Signs the event log's
      checkpoints (docs/design.md "Event log").
  ``log-signing.pub``
      Its public key, PEM SubjectPublicKeyInfo, mode 0644. What an investigator needs to
      verify a log (``etg verify``).
  ``shoe-sealing.key``
      32 random bytes (AES-256) from ``os.urandom``, as 64 hex digits and a newline, mode
      0600. Seals each shoe's seed in its ``ShoeCommitted`` event (docs/design.md "RNG and shoe").

- :func:`load_signing_key`, :func:`load_public_key`, :func:`load_sealing_key` read them
  back, refusing a private key file that anyone but its owner can access.
- :func:`init_audit_key` creates the operator console's own key, beside its certificate
  (``etg certs add-console``, or the console's first start):

  ``console-audit.key``
      Ed25519 private key, PEM PKCS#8, mode 0600. Signs every line of the console's audit
      log and its head (:mod:`game_server.console.audit`). The console's, never the table
      server's: a console host holds no log-signing key.
  ``console-audit.pub``
      Its public key, mode 0644: what ``etg console audit --key`` proves the log with.

  :func:`load_audit_key` and :func:`load_audit_public_key` read them back.
- :func:`key_id`: the short fingerprint that names a signing key in each checkpoint.
- :func:`seal` / :func:`unseal`: AES-256-GCM with a random 96-bit nonce in front of the
  ciphertext: ``blob = nonce (12 bytes) || ciphertext || tag (16 bytes)``.

Every failure is a :class:`KeyFileError` or :class:`SealError` subclass whose message names
the file and says what to do.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from shared.errors import ETGError

#: File names inside the key directory.
SIGNING_KEY_FILE: Final = "log-signing.key"
PUBLIC_KEY_FILE: Final = "log-signing.pub"
SEALING_KEY_FILE: Final = "shoe-sealing.key"
AUDIT_KEY_FILE: Final = "console-audit.key"
AUDIT_PUBLIC_FILE: Final = "console-audit.pub"

#: Bytes of the AES-256 sealing key, of the GCM nonce and of the GCM tag.
SEALING_KEY_BYTES: Final = 32
NONCE_BYTES: Final = 12
TAG_BYTES: Final = 16

#: Hex digits of a :func:`key_id` (64 bits of the SHA-256 of the raw public key).
KEY_ID_HEX_DIGITS: Final = 16

_PRIVATE_MODE: Final = 0o600
_PUBLIC_MODE: Final = 0o644


class KeyFileError(ETGError):
    """Base of every error about a key file.

    Attributes:
        path: The file concerned.
    """

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


class KeyFileMissing(KeyFileError):
    """A key file that does not exist."""


class KeyFileUnreadable(KeyFileError):
    """A key file that exists but cannot be read (permissions, I/O error)."""


class KeyFileMalformed(KeyFileError):
    """A key file whose content is not a key of the expected kind."""


class KeyFileExposed(KeyFileError):
    """A private key file that users other than its owner can access."""


class KeyFileExists(KeyFileError):
    """A key file that :func:`init_keys` refuses to overwrite."""


class SealError(ETGError, ValueError):
    """A sealing key of the wrong size, or a blob that cannot be sealed or unsealed."""


class UnsealFailed(SealError):
    """A sealed blob that does not open: wrong key, wrong associated data, or tampered."""


@dataclass(frozen=True)
class KeyFiles:
    """Where :func:`init_keys` wrote the keys."""

    signing_key: Path
    public_key: Path
    sealing_key: Path


def _missing(path: Path, what: str) -> str:
    where = (
        f"{path}"
        if path.parent.is_dir()
        else f"{path} (the directory {path.parent} does not exist)"
    )
    return (
        f"no {what} at {where}. To check or run an existing table, give the key of the "
        "server that wrote its log (etg verify --key FILE-OR-DIR, etg serve --certs DIR); "
        "only for a new table make new keys with `etg certs init DIR`"
    )


def init_keys(directory: str | os.PathLike[str], force: bool = False) -> KeyFiles:
    """Create the log-signing key pair and the shoe-sealing key in ``directory``.

    The directory is created (mode 0700) if it does not exist. Each file is written to a
    temporary file, flushed to disk and then moved into place, so a crash never leaves half a
    key.

    Args:
        directory: Where to write the three files.
        force: Replace existing key files. Without it, any existing one is an error and
            nothing is written.

    Returns:
        The paths of the three files.

    Raises:
        KeyFileExists: a key file exists and ``force`` is False.
        KeyFileUnreadable: the directory or a file cannot be written.
    """
    folder = Path(directory)
    files = KeyFiles(folder / SIGNING_KEY_FILE, folder / PUBLIC_KEY_FILE, folder / SEALING_KEY_FILE)
    if not force:
        for path in (files.signing_key, files.public_key, files.sealing_key):
            if path.exists() or path.is_symlink():
                raise KeyFileExists(
                    path,
                    f"{path} already exists; refusing to overwrite a key (logs signed or shoes "
                    "sealed with it could no longer be verified or unsealed). Move it away "
                    "first, or pass force=True if you really mean to replace it.",
                )
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise KeyFileUnreadable(
            folder, f"cannot create the key directory {folder}: {exc.strerror or exc}"
        ) from None
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    public_pem = private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    sealing = os.urandom(SEALING_KEY_BYTES).hex().encode("ascii") + b"\n"
    _write_file(files.signing_key, pem, _PRIVATE_MODE, force)
    _write_file(files.public_key, public_pem, _PUBLIC_MODE, force)
    _write_file(files.sealing_key, sealing, _PRIVATE_MODE, force)
    return files


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
                os.link(tmp, path)  # fails if path appeared meanwhile: never overwrite
            except FileExistsError:
                raise KeyFileExists(
                    path, f"{path} appeared while the keys were being created; not overwritten"
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
        raise KeyFileUnreadable(path, f"cannot write {path}: {exc.strerror or exc}") from None


def _resolve(path: str | os.PathLike[str], name: str) -> Path:
    """``path/name`` for a directory (or a path that names nothing, taken as the key
    directory unless it looks like a file of ours), else ``path`` itself."""
    candidate = Path(path)
    if candidate.is_dir():
        return candidate / name
    if not candidate.exists() and candidate.suffix not in (".key", ".pub", ".pem"):
        return candidate / name
    return candidate


def _read_private(path: Path, what: str, missing: str | None = None) -> bytes:
    """Read a private key file after checking it exists and only its owner can access it
    (``missing``: what to say when it does not exist, else :func:`_missing`'s sentence)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise KeyFileMissing(path, missing or _missing(path, what)) from None
    except OSError as exc:
        raise KeyFileUnreadable(
            path, f"cannot read the {what} {path}: {exc.strerror or exc}"
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise KeyFileMalformed(path, f"the {what} {path} is not a regular file")
    if info.st_mode & 0o077:
        raise KeyFileExposed(
            path,
            f"the {what} {path} can be accessed by users other than its owner (mode "
            f"{stat.S_IMODE(info.st_mode):04o}); a private key must be readable by its owner "
            f"only. Run `chmod 600 {path}` (and consider the key compromised if others could "
            "read it).",
        )
    return _read(path, what, missing)


def _read(path: Path, what: str, missing: str | None = None) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise KeyFileMissing(path, missing or _missing(path, what)) from None
    except IsADirectoryError:
        raise KeyFileMalformed(path, f"the {what} {path} is a directory, not a file") from None
    except OSError as exc:
        raise KeyFileUnreadable(
            path,
            f"cannot read the {what} {path}: {exc.strerror or exc}; check the file's owner "
            "and permissions",
        ) from None


def load_signing_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """Load the log-signing private key.

    Args:
        path: The key directory (then ``log-signing.key`` in it) or the key file itself.

    Raises:
        KeyFileMissing: no such file.
        KeyFileExposed: group or other users have any access to it (fix: ``chmod 600``).
        KeyFileUnreadable: it cannot be read.
        KeyFileMalformed: it is not an unencrypted PEM Ed25519 private key.
    """
    file = _resolve(path, SIGNING_KEY_FILE)
    what = "log-signing key"
    data = _read_private(file, what)
    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise KeyFileMalformed(
            file,
            f"the {what} {file} is not an unencrypted PEM private key ({exc}); recreate the "
            "keys or restore the file from the backup",
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileMalformed(
            file, f"the {what} {file} holds a {type(key).__name__}; it must be an Ed25519 key"
        )
    return key


def load_public_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """Load the log-signing public key (what an investigator verifies a log with).

    Args:
        path: The key directory (then ``log-signing.pub`` in it) or the file itself.

    Raises:
        KeyFileMissing: no such file.
        KeyFileUnreadable: it cannot be read.
        KeyFileMalformed: it is not a PEM Ed25519 public key.
    """
    file = _resolve(path, PUBLIC_KEY_FILE)
    what = "log-signing public key"
    data = _read(file, what)
    try:
        key = load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise KeyFileMalformed(file, f"the {what} {file} is not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileMalformed(
            file, f"the {what} {file} holds a {type(key).__name__}; it must be an Ed25519 key"
        )
    return key


def load_sealing_key(path: str | os.PathLike[str]) -> bytes:
    """Load the 32-byte shoe-sealing key.

    Args:
        path: The key directory (then ``shoe-sealing.key`` in it) or the file itself.

    Raises:
        KeyFileMissing: no such file.
        KeyFileExposed: group or other users have any access to it (fix: ``chmod 600``).
        KeyFileUnreadable: it cannot be read.
        KeyFileMalformed: it is not 64 hex digits.
    """
    file = _resolve(path, SEALING_KEY_FILE)
    what = "shoe-sealing key"
    data = _read_private(file, what)
    try:
        key = bytes.fromhex(data.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != SEALING_KEY_BYTES:
        raise KeyFileMalformed(
            file,
            f"the {what} {file} must hold {2 * SEALING_KEY_BYTES} hex digits (a 256-bit AES "
            "key); restore it from the backup: without it sealed shoe seeds cannot be opened",
        )
    return key


def _audit_missing(path: Path) -> str:
    return (
        f"no console audit key at {path}: make it with `etg certs add-console "
        f"{path.parent}` (the console also makes it at its first start, unless its audit "
        "log is already signed: then restore the key from the backup)"
    )


def init_audit_key(directory: str | os.PathLike[str]) -> list[Path]:
    """Make what is missing of the console's audit key pair in ``directory``:
    ``console-audit.key`` (0600) and ``console-audit.pub`` (0644). An existing key is never
    replaced (the audit log it signed could no longer be proven); a missing public half is
    written again from it.

    Returns:
        The files written (none when both were there).

    Raises:
        KeyFileExists: ``console-audit.pub`` is there without its key (the key was lost: a new
            one would not match the public key that proves the old log).
        KeyFileError: the key cannot be read, or a file cannot be written.
    """
    folder = Path(directory)
    private_file, public_file = folder / AUDIT_KEY_FILE, folder / AUDIT_PUBLIC_FILE
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise KeyFileUnreadable(
            folder, f"cannot create the key directory {folder}: {exc.strerror or exc}"
        ) from None
    written = []
    if private_file.exists() or private_file.is_symlink():
        private = load_audit_key(private_file)
    else:
        if public_file.exists() or public_file.is_symlink():
            raise KeyFileExists(
                public_file,
                f"{public_file} is there without its key {private_file.name}: restore the key "
                "from the backup; or, to start a new audit log, move the old log and its "
                "public key away (keep them: the key proves the old log) and try again",
            )
        private = Ed25519PrivateKey.generate()
        pem = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        _write_file(private_file, pem, _PRIVATE_MODE, False)
        written.append(private_file)
    if not (public_file.exists() or public_file.is_symlink()):
        public_pem = private.public_key().public_bytes(
            Encoding.PEM, PublicFormat.SubjectPublicKeyInfo
        )
        _write_file(public_file, public_pem, _PUBLIC_MODE, False)
        written.append(public_file)
    return written


def load_audit_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """Load the console's audit signing key.

    Args:
        path: The certificates folder (then ``console-audit.key`` in it) or the file.

    Raises:
        KeyFileMissing, KeyFileExposed, KeyFileUnreadable, KeyFileMalformed: as
            :func:`load_signing_key`.
    """
    file = _resolve(path, AUDIT_KEY_FILE)
    what = "console audit key"
    data = _read_private(file, what, _audit_missing(file))
    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise KeyFileMalformed(
            file,
            f"the {what} {file} is not an unencrypted PEM private key ({exc}); restore it "
            "from the backup",
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileMalformed(
            file, f"the {what} {file} holds a {type(key).__name__}; it must be an Ed25519 key"
        )
    return key


def load_audit_public_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """Load the console's audit public key (what ``etg console audit --key`` takes).

    Args:
        path: The certificates folder (then ``console-audit.pub`` in it) or the file.

    Raises:
        KeyFileMissing, KeyFileUnreadable, KeyFileMalformed: as :func:`load_public_key`.
    """
    file = _resolve(path, AUDIT_PUBLIC_FILE)
    what = "console audit public key"
    data = _read(file, what, _audit_missing(file))
    try:
        key = load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise KeyFileMalformed(file, f"the {what} {file} is not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileMalformed(
            file, f"the {what} {file} holds a {type(key).__name__}; it must be an Ed25519 key"
        )
    return key


def key_id(key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """The fingerprint that names a log-signing key: the first 16 hex digits of the SHA-256
    of its 32 raw public key bytes.

    Args:
        key: The public key, or the private key (its public half is used).
    """
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:KEY_ID_HEX_DIGITS]


def _aesgcm(key: bytes) -> AESGCM:
    if not isinstance(key, bytes) or len(key) != SEALING_KEY_BYTES:
        size = len(key) if isinstance(key, bytes) else type(key).__name__
        raise SealError(f"a sealing key is {SEALING_KEY_BYTES} bytes (AES-256), got {size}")
    return AESGCM(key)


def seal(key: bytes, plaintext: bytes, associated_data: bytes) -> bytes:
    """Encrypt and authenticate ``plaintext`` with AES-256-GCM.

    Args:
        key: The 32-byte sealing key.
        plaintext: What to seal.
        associated_data: Authenticated but not encrypted context (e.g. the table id and shoe
            number), needed again to unseal.

    Returns:
        ``nonce (12 random bytes) || ciphertext || tag (16 bytes)``.

    Raises:
        SealError: the key is not 32 bytes.
    """
    aead = _aesgcm(key)
    nonce = os.urandom(NONCE_BYTES)
    return nonce + aead.encrypt(nonce, plaintext, associated_data)


def unseal(key: bytes, blob: bytes, associated_data: bytes) -> bytes:
    """Open a blob made by :func:`seal`.

    Raises:
        SealError: the key is not 32 bytes.
        UnsealFailed: the blob is too short, or does not authenticate under this key and
            associated data (wrong key, wrong context, or changed).
    """
    aead = _aesgcm(key)
    if len(blob) < NONCE_BYTES + TAG_BYTES:
        raise UnsealFailed(
            f"a sealed blob is at least {NONCE_BYTES + TAG_BYTES} bytes, got {len(blob)}"
        )
    try:
        return aead.decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], associated_data)
    except InvalidTag:
        raise UnsealFailed(
            "the sealed blob does not open: wrong sealing key, wrong associated data, or the "
            "blob was changed"
        ) from None
