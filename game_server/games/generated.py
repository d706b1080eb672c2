"""The steps every generator of a game's shipped data module shares (a strategy derived by
enumeration, ``python -m game_server.games.<game>.derive_strategy [--check]``): read
``--check``, time the derivation, report its progress, and write the module or compare it
with the one shipped.

Entry points: :func:`check_flag`, :func:`timed`, :func:`progress`, :func:`write_or_check`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

__all__ = ["check_flag", "progress", "timed", "write_or_check"]

_T = TypeVar("_T")


def check_flag(prog: str, argv: Sequence[str] | None) -> bool:
    """Whether ``--check`` was given: compare the module with a new derivation, write nothing."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    return bool(parser.parse_args(argv).check)


def timed(derive: Callable[[], _T]) -> tuple[_T, float, float]:
    """``derive()``'s result, and the wall and CPU seconds it took."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = derive()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def progress(units: str, every: int = 500) -> Callable[[int, int], None]:
    """A progress hook that prints ``done`` of ``total`` ``units`` to standard error, every
    ``every`` and at the end."""

    def report(done: int, total: int) -> None:
        if done % every == 0 or done == total:
            print(f"  {done:,} of {total:,} {units}", file=sys.stderr, flush=True)

    return report


def write_or_check(target: Path, text: str, check: bool) -> int:
    """Write the generated module ``text`` to ``target``; with ``check`` write nothing and
    say whether the shipped one is the same. The exit status: 1 when a check differs."""
    if check:
        same = target.read_text(encoding="utf-8") == text
        print("the module is up to date" if same else "the module DIFFERS from the derivation")
        return 0 if same else 1
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.name}")
    return 0
