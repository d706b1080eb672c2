"""The console's own audit log: every sign-in, refusal and action, append-only, chained and
signed with the console's key.

One JSON object per line, appended and synced to disk before the console answers. Each line
carries its number ``n``, the time, who (``person``, ``role``, the browser's ``address``),
``what`` happened, to which ``target``, the ``outcome`` (``done``, ``refused``, ``failed``),
a ``detail`` sentence, and (format :data:`AUDIT_FORMAT`)::

    prev = hash of the line before (64 zeros for the first)
    key  = key id of the console's audit key (game_server.keys.key_id)
    hash = hex SHA-256(prev || canonical JSON of the line without "hash" and "sig")
    sig  = hex Ed25519(console-audit.key, b"etg-console-audit/line/v1\n" || hash)

as the table's event log chains its rows and signs its head (:mod:`game_server.eventlog.chain`).
The key is the console's own (``console-audit.key`` beside ``console.pem``, made by ``etg
certs add-console`` or by the console's first start: :func:`game_server.keys.init_audit_key`).
After every line the console also rewrites the **signed head**, ``FILE.head`` (to a
temporary file, then renamed)::

    {"format": "etg-console-audit/head/v1", "n": ..., "hash": ..., "key": ..., "time": ...,
     "sig": hex Ed25519(key, b"etg-console-audit/head/v1\n" || canonical JSON of the four)}

:func:`verify_audit` (``etg console audit FILE --key console-audit.pub``) proves, line by
line, the number, the chain, the hash and the signature, then holds the log against its
head. So, without the key:

- a line changed, removed or inserted, even with every later hash recomputed, fails at the
  first line whose signature no longer matches;
- a cut at the end fails against the head (it names a later line), and a head removed is
  reported (the console always writes one);
- signatures stripped to pass the log off as an old unsigned one leave it "not signed",
  never "the chain holds", and a head that names signed lines.

What remains undetectable without a copy kept elsewhere: someone who can write the
console's files but has no key can cut the end of the log back to a point where they saved
a copy of the head then, and restore that head; or remove the log and its head together
(an empty log). Someone who holds ``console-audit.key`` (root on the console's machine, or
the console's user) can rewrite the whole log and its head undetectably: the signature
proves the lines were written by the holder of the key, not that nobody else held it. Keep
``etg console audit``'s last line (the head's line number and hash) with the shift's papers,
or copy the log off the machine, to catch those too. The table's event log, signed by the
server's own key, holds every action with the same person, role and request id
(``operator_action``), so an action rewritten here still disagrees with the table's log.

A log written before the console signed (format 1: no ``key``, no ``sig``) is still read:
its lines are reported as chained but **unsigned**, which proves nothing, and the console
continues it with signed lines, the first of which signs the chain of every line before it
as it was then.

The console proves the file with its own key when it opens it and refuses to append to one
that does not prove.

Entry points: :class:`AuditLog`, :func:`verify_audit`, :class:`AuditCheck`,
:func:`was_signed`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from game_server.keys import key_id
from shared.errors import ETGError

#: ``prev`` of the first line.
GENESIS: Final = "0" * 64
#: The format of the lines this module writes (format 1: chained, unsigned).
AUDIT_FORMAT: Final = "etg-console-audit/v2: sha256(prev || canonical line); ed25519 per line"
#: The prefix of each line's signed message, and of the head's.
LINE_DOMAIN: Final = b"etg-console-audit/line/v1\n"
HEAD_DOMAIN: Final = b"etg-console-audit/head/v1\n"
HEAD_FORMAT: Final = "etg-console-audit/head/v1"
#: Fields of a line that its hash does not cover.
_UNHASHED: Final = ("hash", "sig")


class AuditError(ETGError):
    """An audit log that cannot be opened, written, or does not prove."""


def _canonical(line: dict[str, Any]) -> bytes:
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _hash(prev: str, line: dict[str, Any]) -> str:
    return hashlib.sha256(prev.encode("ascii") + _canonical(line)).hexdigest()


def head_path(path: Path) -> Path:
    """Where the signed head of the audit log ``path`` is kept."""
    return path.with_name(path.name + ".head")


def _head_message(head: dict[str, Any]) -> bytes:
    fields = {k: head.get(k) for k in ("hash", "key", "n", "time")}
    return HEAD_DOMAIN + _canonical(fields)


def _verifies(key: Ed25519PublicKey, signature: Any, message: bytes) -> bool:
    try:
        key.verify(bytes.fromhex(str(signature)), message)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class AuditCheck:
    """What :func:`verify_audit` found.

    Attributes:
        lines: Lines read that prove (all of them when ``problem`` is None).
        problem: The first thing that does not prove (None: none).
        head: The hash of the last line that proves.
        unsigned: How many lines, from the first, were written unsigned (format 1).
        key: The key id the signed lines name (None: no signed line).
        head_line: The line the signed head names (None: no head file).
    """

    lines: int
    problem: str | None
    head: str
    unsigned: int = 0
    key: str | None = None
    head_line: int | None = None

    @property
    def proven(self) -> bool:
        """Whether every line is proven: the chain holds, and every line is signed or
        covered by the signature of a later one."""
        return self.problem is None and (self.lines == 0 or self.unsigned < self.lines)

    def verdict(self) -> str:
        """The sentence ``etg console audit`` prints."""
        if self.problem is not None:
            return f"{self.lines} line(s) prove; then {self.problem}"
        if self.lines == 0:
            return "no line yet"
        if self.unsigned == self.lines:
            return (
                f"{self.lines} line(s), chained but NOT signed (written before the console "
                "signed its audit log): whoever could write the file could have rewritten "
                "them and recomputed the chain, so they prove nothing by themselves; hold "
                "them against the tables' event logs and a copy kept elsewhere"
            )
        signed = f"signed by key {self.key}, and the signed head names line {self.head_line}"
        if self.unsigned:
            return (
                f"{self.lines} line(s), the chain holds; lines {self.unsigned + 1} to "
                f"{self.lines} are {signed}; lines 1 to {self.unsigned} were written unsigned, "
                f"before the console signed its log: line {self.unsigned + 1}'s signature "
                "covers them as they were when it was written"
            )
        return f"{self.lines} line(s), the chain holds, every line {signed}"


def _read_head(path: Path) -> dict[str, Any] | None:
    """The head file's object; None when there is none.

    Raises:
        AuditError: it cannot be read.
    """
    try:
        text = head_path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{head_path(path)}: cannot be read: {exc}") from None
    try:
        head = json.loads(text)
    except ValueError:
        return {}
    return head if isinstance(head, dict) else {}


def was_signed(path: Path) -> bool:
    """Whether the audit log ``path`` was ever signed: it has a signed line, or a head.

    Raises:
        AuditError: it cannot be read.
    """
    if head_path(path).exists():
        return True
    try:
        with path.open("r", encoding="utf-8") as file:
            return any('"sig":' in text for text in file)
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{path}: cannot be read: {exc}") from None


def verify_audit(path: Path, key: Ed25519PublicKey | None) -> AuditCheck:
    """Prove the audit log line by line with the console's public ``key``, then hold it
    against its signed head (see the module docstring).

    Args:
        path: The audit log.
        key: The console's audit public key (None: only an unsigned log can be read; a
            signed line is then a problem that asks for the key).

    Raises:
        AuditError: the file or its head cannot be read.
    """
    prev, count, unsigned, signer = GENESIS, 0, 0, None
    hashes: dict[int, str] = {}
    given = None if key is None else key_id(key)

    def stop(problem: str) -> AuditCheck:
        return AuditCheck(count, problem, prev, unsigned, signer)

    try:
        with path.open("r", encoding="utf-8") as file:
            for number, text in enumerate(file, start=1):
                try:
                    line = json.loads(text)
                    stated = line.pop("hash")
                    signature = line.pop("sig", None)
                except (ValueError, KeyError, AttributeError, TypeError):
                    return stop(f"line {number} is not an audit line")
                if not text.endswith("\n"):
                    return stop(f"line {number} was cut short (no end of line)")
                if line.get("n") != number:
                    return stop(f"line {number} says it is line {line.get('n')!r}")
                if line.get("prev") != prev:
                    return stop(f"line {number} does not follow line {number - 1}")
                if _hash(prev, line) != stated:
                    return stop(f"line {number} was changed after it was written")
                if signature is None and "key" not in line:
                    if signer is not None:
                        return stop(
                            f"line {number} is not signed, after signed lines: it was written "
                            "or rewritten without the console's key"
                        )
                    unsigned = number
                else:
                    if key is None:
                        return stop(
                            f"line {number} is signed: give the console's audit public key "
                            "(console-audit.pub, --key) to prove it"
                        )
                    if line.get("key") != given:
                        return stop(
                            f"line {number} names the key {line.get('key')!r}, not the key "
                            f"given ({given}): give the key that signed it"
                        )
                    if not _verifies(key, signature, LINE_DOMAIN + str(stated).encode()):
                        return stop(
                            f"line {number}'s signature does not verify: the line was changed "
                            "and the chain recomputed after it was signed, or lines before it "
                            "were removed or added"
                        )
                    signer = given
                prev, count = stated, number
                hashes[number] = stated
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{path}: cannot be read: {exc}") from None
    head = _read_head(path)
    if head is None:
        if signer is not None:
            return stop(
                f"its signed head {head_path(path).name} is missing (the console writes it "
                "with every line): lines cut from the end could not be told; restore it "
                "from the backup, or keep the log as evidence"
            )
        return AuditCheck(count, None, prev, unsigned, signer)
    named = head.get("n")
    if (
        key is None
        or head.get("format") != HEAD_FORMAT
        or head.get("key") != given
        or not isinstance(named, int)
        or not _verifies(key, head.get("sig"), _head_message(head))
    ):
        what = "cannot be proven without the key" if key is None else "is not signed by the key"
        return stop(f"its head {head_path(path).name} {what}")
    if named > count:
        return stop(
            f"the log ends at line {count} but its signed head names line {named}: "
            f"{named - count} line(s) were cut from the end"
        )
    if named > 0 and hashes.get(named) != head.get("hash"):
        return stop(
            f"its signed head names line {named} with another hash: the log was rewritten "
            "from that line or before"
        )
    if named > 0 and named > unsigned and signer is None:
        return stop(f"its signed head names line {named}, but no line is signed")
    return AuditCheck(count, None, prev, unsigned, signer, named)


class AuditLog:
    """The append-only, signed audit file (see the module docstring).

    Args:
        path: The file (created if missing, mode 0600); its head beside it.
        clock: Seconds since the epoch (the reactor's, in tests a fake).
        key: The console's audit key (:func:`game_server.keys.load_audit_key`): every line
            and the head are signed with it.

    Raises:
        AuditError: the file does not prove with this key (it is not appended to).
    """

    def __init__(self, path: Path, clock: Callable[[], float], key: Ed25519PrivateKey) -> None:
        self.path = path
        self._clock = clock
        self._key = key
        self.key_id = key_id(key)
        found = verify_audit(path, key.public_key())
        if found.problem is not None:
            raise AuditError(
                f"{path}: the audit log does not prove with the console's key "
                f"{self.key_id} ({found.problem}); keep it (and {head_path(path).name}) as "
                "evidence, move them away and start a new one"
            )
        #: Lines 1 to ``unsigned`` were written unsigned, by an older console.
        self.unsigned = found.unsigned
        #: Whether the next line is the first signed one after unsigned ones.
        self.continues_unsigned = 0 < found.unsigned == found.lines
        self._n, self._prev = found.lines, found.head
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def close(self) -> None:
        os.close(self._fd)

    def write(
        self,
        what: str,
        *,
        person: str = "",
        role: str = "",
        address: str = "",
        target: str = "",
        outcome: str = "done",
        detail: str = "",
        **extra: Any,
    ) -> dict[str, Any]:
        """Append one signed line and sync it, then its head; returns the line.

        Raises:
            AuditError: it could not be written (the caller refuses the action).
        """
        moment = dt.datetime.fromtimestamp(self._clock(), dt.UTC)
        time = moment.isoformat(timespec="microseconds").replace("+00:00", "Z")
        line: dict[str, Any] = {
            "n": self._n + 1,
            "time": time,
            "person": person,
            "role": role,
            "address": address,
            "what": what,
            "target": target,
            "outcome": outcome,
            "detail": detail,
            **{k: v for k, v in extra.items() if k not in ("key", "prev", *_UNHASHED)},
            "key": self.key_id,
            "prev": self._prev,
        }
        digest = _hash(self._prev, line)
        signature = self._key.sign(LINE_DOMAIN + digest.encode()).hex()
        written_line = {**line, "hash": digest, "sig": signature}
        data = _canonical(written_line) + b"\n"
        try:
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(f"wrote {written} of {len(data)} bytes")
            os.fsync(self._fd)
            self._n, self._prev = self._n + 1, digest
            self._write_head(time)
        except OSError as exc:
            raise AuditError(f"{self.path}: the audit line could not be written: {exc}") from None
        return written_line

    def _write_head(self, time: str) -> None:
        head: dict[str, Any] = {"hash": self._prev, "key": self.key_id, "n": self._n, "time": time}
        head = {"format": HEAD_FORMAT, **head, "sig": self._key.sign(_head_message(head)).hex()}
        final = head_path(self.path)
        temporary = final.with_name(f".{final.name}.{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(descriptor, _canonical(head) + b"\n")
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, final)

    def tail(self, count: int) -> list[dict[str, Any]]:
        """The last ``count`` lines, newest first (the audit page)."""
        with self.path.open("r", encoding="utf-8") as file:
            lines = file.readlines()[-count:]
        return [json.loads(text) for text in reversed(lines)]
