"""``etg console`` as a real process, with every scrypt it runs counted, for the attack tests.

``python tests/console/counting_console.py COUNTS console --servers FILE ...``: the same
``etg`` command, but each scrypt the console's accounts run (a sign-in's password check, or
the unknown name's stand-in hash) first appends one byte to the file ``COUNTS``. So a test
counts the password checks the process really ran, from outside it, whatever the console
itself logs or answers. Nothing else is changed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from game_server.console import accounts
from tools.cli import main

_REAL = accounts.Scrypt


class CountingScrypt:
    """cryptography's Scrypt, each derive or verify counted before it runs."""

    def __init__(self, counts: int, **arguments: Any) -> None:
        self._counts = counts
        self._kdf = _REAL(**arguments)

    def derive(self, data: bytes) -> bytes:
        os.write(self._counts, b".")
        return self._kdf.derive(data)

    def verify(self, data: bytes, expected: bytes) -> None:
        os.write(self._counts, b".")
        self._kdf.verify(data, expected)


if __name__ == "__main__":
    descriptor = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    accounts.Scrypt = lambda **arguments: CountingScrypt(descriptor, **arguments)  # type: ignore[misc,assignment]
    main(args=sys.argv[2:], prog_name="etg")
