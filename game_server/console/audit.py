"""The console's own audit log: every sign-in, refusal and action, append-only and chained.

One JSON object per line, appended and synced to disk before the console answers. Each line
carries its number ``n``, the time, who (``person``, ``role``, the browser's ``address``),
``what`` happened, to which ``target``, the ``outcome`` (``done``, ``refused``, ``failed``)
and a ``detail`` sentence, and ``hash = SHA-256(prev || canonical JSON of the line without
its hash)`` with ``prev`` the hash of the line before (64 zeros for the first), as the table's
event log chains its rows (:mod:`game_server.eventlog.chain`). A line changed, removed or
inserted breaks the chain at that line (:func:`verify_audit`, ``etg console audit FILE``);
the console proves the file when it opens it and refuses to append to a broken one. A cut at
the end is caught only against a copy kept elsewhere, as for the event log's anchors.

The audit log records what the console did; the table's event log records what the table did,
with the same person and role (``operator_action``), so the two can be held against each other
(the request id is in both).

Entry points: :class:`AuditLog`, :func:`verify_audit`.
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

from shared.errors import ETGError

#: ``prev`` of the first line.
GENESIS: Final = "0" * 64


class AuditError(ETGError):
    """An audit log that cannot be opened, written, or does not prove."""


def _canonical(line: dict[str, Any]) -> bytes:
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _hash(prev: str, line: dict[str, Any]) -> str:
    return hashlib.sha256(prev.encode("ascii") + _canonical(line)).hexdigest()


@dataclass(frozen=True)
class AuditCheck:
    """What :func:`verify_audit` found: ``lines`` read, the first ``problem`` (None: the
    chain holds) and the hash of the last line."""

    lines: int
    problem: str | None
    head: str


def verify_audit(path: Path) -> AuditCheck:
    """Prove the audit log's chain line by line.

    Raises:
        AuditError: the file cannot be read.
    """
    prev, count = GENESIS, 0
    try:
        with path.open("r", encoding="utf-8") as file:
            for number, text in enumerate(file, start=1):
                try:
                    line = json.loads(text)
                    stated = line.pop("hash")
                except (ValueError, KeyError, AttributeError, TypeError):
                    return AuditCheck(count, f"line {number} is not an audit line", prev)
                if line.get("n") != number:
                    return AuditCheck(
                        count, f"line {number} says it is line {line.get('n')!r}", prev
                    )
                if line.get("prev") != prev:
                    return AuditCheck(
                        count, f"line {number} does not follow line {number - 1}", prev
                    )
                if _hash(prev, line) != stated:
                    return AuditCheck(
                        count, f"line {number} was changed after it was written", prev
                    )
                prev, count = stated, number
    except FileNotFoundError:
        return AuditCheck(0, None, GENESIS)
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{path}: cannot be read: {exc}") from None
    return AuditCheck(count, None, prev)


class AuditLog:
    """The append-only audit file (see the module docstring).

    Args:
        path: The file (created if missing, mode 0600).
        clock: Seconds since the epoch (the reactor's, in tests a fake).

    Raises:
        AuditError: the file does not prove (it is not appended to).
    """

    def __init__(self, path: Path, clock: Callable[[], float]) -> None:
        self.path = path
        self._clock = clock
        found = verify_audit(path)
        if found.problem is not None:
            raise AuditError(
                f"{path}: the audit log does not prove ({found.problem}); keep it as evidence "
                "and start a new one"
            )
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
        """Append one line and sync it; returns it (with its hash).

        Raises:
            AuditError: it could not be written (the caller refuses the action).
        """
        moment = dt.datetime.fromtimestamp(self._clock(), dt.UTC)
        line: dict[str, Any] = {
            "n": self._n + 1,
            "time": moment.isoformat(timespec="microseconds").replace("+00:00", "Z"),
            "person": person,
            "role": role,
            "address": address,
            "what": what,
            "target": target,
            "outcome": outcome,
            "detail": detail,
            **extra,
            "prev": self._prev,
        }
        digest = _hash(self._prev, line)
        data = _canonical({**line, "hash": digest}) + b"\n"
        try:
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(f"wrote {written} of {len(data)} bytes")
            os.fsync(self._fd)
        except OSError as exc:
            raise AuditError(f"{self.path}: the audit line could not be written: {exc}") from None
        self._n, self._prev = self._n + 1, digest
        return {**line, "hash": digest}

    def tail(self, count: int) -> list[dict[str, Any]]:
        """The last ``count`` lines, newest first (the audit page)."""
        with self.path.open("r", encoding="utf-8") as file:
            lines = file.readlines()[-count:]
        return [json.loads(text) for text in reversed(lines)]
