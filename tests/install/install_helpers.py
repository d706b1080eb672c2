"""Helpers of the install kit's tests: the tools they need (systemd-analyze, Xvfb), a fake
virtual environment whose ``etg`` runs this checkout, and reading a unit file.

Without a tool the tests that need it are skipped, unless ``ETG_REQUIRE_SYSTEMD=1`` or
``ETG_REQUIRE_XVFB=1`` (set by ``.ci/run``, which installs them): then they fail, so that CI
never passes without running them.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: The environment variable that turns a missing tool into a failure, per tool.
REQUIRE = {"systemd-analyze": "ETG_REQUIRE_SYSTEMD", "Xvfb": "ETG_REQUIRE_XVFB"}
PACKAGE = {"systemd-analyze": "systemd", "Xvfb": "xvfb"}


def require(tool: str) -> str:
    """The tool's path; skip (or fail, under its ``ETG_REQUIRE_...=1``) when it is missing."""
    found = shutil.which(tool)
    if found is not None:
        return found
    message = f"{tool} is not installed: apt-get install {PACKAGE[tool]} (make packages)"
    if os.environ.get(REQUIRE[tool]) == "1":
        pytest.fail(f"{message}; {REQUIRE[tool]}=1 says this machine must have it")
    pytest.skip(message)


def fake_venv(folder: Path) -> Path:
    """``folder/bin/etg``: an executable that runs this checkout's ``etg`` (what a unit's
    ExecStart names must exist for systemd-analyze verify)."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    etg = bin_dir / "etg"
    etg.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m tools "$@"\n')
    etg.chmod(0o755)
    return etg


def analyze_verify(*units: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify`` of the units (without man pages: none are installed in a
    container)."""
    return subprocess.run(
        [require("systemd-analyze"), "verify", "--man=no", *map(str, units)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings(unit: Path) -> dict[str, list[str]]:
    """Each ``Key=value`` of a unit file, values in order (comments and sections dropped)."""
    found: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        found.setdefault(key, []).append(value)
    return found


def exec_start(unit: Path) -> list[str]:
    """The unit's ``ExecStart=`` as argv (the installer writes plain paths; a quoted word is
    read as systemd reads it, ``%%`` as ``%``)."""
    [line] = settings(unit)["ExecStart"]
    return [word.replace("%%", "%").replace("$$", "$") for word in shlex.split(line)]
