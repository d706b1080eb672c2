"""What ``etg --version`` says: the package's version and the git commit it was built from.

A lab, an operator and a bug report need to know which code runs on a machine, not only the
version number. The commit comes from one of two places:

- a wheel (or an sdist) carries it in ``tools/build_info.json``, written at build time by
  the build backend (``build_support/etg_build.py``) from ``git rev-parse HEAD`` of the tree
  it was built from; a tree without git writes ``"commit": null``, and ``etg --version``
  then says the commit is unknown;
- a source checkout (``make``'s editable install) asks git at the moment ``--version`` is
  asked, so the answer follows every commit and says when tracked files are modified.

This module imports only the standard library: the build backend loads it by its file path,
in an isolated build environment where nothing else of the project is importable.

Entry points: :func:`version_line`; :func:`build_commit`, :func:`git_commit` and
:func:`build_info_text` for the build backend.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: The file, in the ``tools`` package, that carries the commit of a built package.
BUILD_INFO: Final = "build_info.json"
#: How long git may take to answer, in seconds.
GIT_TIMEOUT: Final = 10.0


@dataclass(frozen=True)
class Commit:
    """The commit a package was built from.

    Attributes:
        hash: The full commit hash (40 hex digits), or None when it is not known.
        modified: Whether tracked files differed from that commit.
        source: ``"git"`` (asked now, in a checkout), ``"build"`` (written when the
            package was built) or ``"unknown"``.
    """

    hash: str | None
    modified: bool = False
    source: str = "unknown"

    def text(self) -> str:
        """``commit 92040f5...`` (and ``, with uncommitted changes``), or why it is unknown."""
        if self.hash is None:
            return "commit unknown: built from a tree without git"
        return f"commit {self.hash}" + (", with uncommitted changes" if self.modified else "")


def git_commit(root: Path) -> Commit | None:
    """The commit checked out at ``root`` (a git working tree's top), or None when ``root``
    is not one or git cannot answer.

    Only ``root`` itself is asked (``root/.git`` must exist), never a repository around it:
    a package installed in a virtual environment inside some other checkout is not that
    checkout's code.
    """
    if not (root / ".git").exists():
        return None
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args],
                capture_output=True,
                text=True,
                timeout=GIT_TIMEOUT,
                env=env,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    head = git("rev-parse", "--verify", "HEAD")
    if head is None or len(head.strip()) != 40:
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    return Commit(head.strip(), modified=bool(status and status.strip()), source="git")


def build_info_text(commit: Commit | None) -> str:
    """The content of :data:`BUILD_INFO` for a build from ``commit`` (None: no git)."""
    data = {
        "commit": None if commit is None else commit.hash,
        "modified": False if commit is None else commit.modified,
    }
    return json.dumps(data, sort_keys=True) + "\n"


def _read_build_info(path: Path) -> Commit | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    commit = data.get("commit")
    if commit is not None and not (isinstance(commit, str) and len(commit) == 40):
        return None
    return Commit(commit, modified=data.get("modified") is True, source="build")


def build_commit(package: Path | None = None) -> Commit:
    """The commit of the running code: git's answer in a source checkout, else the one
    written into the package when it was built, else unknown.

    Args:
        package: The ``tools`` package folder (default: this module's).
    """
    folder = Path(__file__).resolve().parent if package is None else package
    in_checkout = git_commit(folder.parent)
    if in_checkout is not None:
        return in_checkout
    built = _read_build_info(folder / BUILD_INFO)
    return built if built is not None else Commit(None)


def version_line() -> str:
    """``etg 0.1.0 (commit 92040f5...)``: what ``etg --version`` prints."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("etg")
    except PackageNotFoundError:  # run from a tree that was never installed
        number = "(not installed)"
    return f"etg {number} ({build_commit().text()})"
