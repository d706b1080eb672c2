"""Real processes for the console's end-to-end tests: a table server (``python -m
game_server``) and ``etg console``, each started as a subprocess whose output is a file, waited
for by the line it prints, and stopped with SIGTERM.

Used by ``test_console_browser.py`` (in a browser) and ``test_console_attacks.py`` (plain
HTTPS clients).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from game_server.config import example_config_path

ROOT = Path(__file__).resolve().parents[2]


def wait_for_line(path: Path, pattern: str, process: subprocess.Popen[bytes]) -> re.Match[str]:
    """The first match of ``pattern`` in the process's output file ``path`` (60 s at most;
    fails at once if the process ends)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(pattern, path.read_text(errors="replace")) if path.exists() else None
        if found:
            return found
        if process.poll() is not None:
            raise AssertionError(f"{path.name}: the process ended:\n{path.read_text()[-3000:]}")
        time.sleep(0.1)
    raise AssertionError(f"{path.name}: no line matching {pattern!r}:\n{path.read_text()[-3000:]}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_table_server(
    folder: Path, certs: Path, timers: int | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """The example table (its betting, insurance and decision timers set to ``timers``
    seconds, if given) on a free port, its log ``folder/table.db``; the process and its port."""
    text = example_config_path().read_text()
    if timers is not None:
        for timer in ("betting_seconds", "insurance_seconds", "decision_seconds"):
            text = re.sub(rf"^{timer} = \d+", f"{timer} = {timers}", text, flags=re.M)
    (folder / "table.toml").write_text(text)
    out = folder / "server.out"
    server = subprocess.Popen(
        [
            sys.executable, "-m", "game_server",
            "--config", str(folder / "table.toml"),
            "--db", str(folder / "table.db"),
            "--certs", str(certs),
            "--port", "0",
            "--next-round-delay", "0.2",
        ],
        cwd=ROOT,
        stdout=out.open("wb"),
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        port = int(wait_for_line(out, r"listening on 127\.0\.0\.1:(\d+)", server)[1])
    except BaseException:
        stop(server)
        raise
    return server, port
