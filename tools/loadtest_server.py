"""The table server of a load test (and of ``etg faults``): its files, its process, and its
CPU time and peak memory read from ``/proc``.

:func:`prepare` makes the certificates, the log keys and the example Rules Submission with
every countdown at 3 seconds; :func:`start_server` starts ``python -m game_server`` in a
process group of its own (so that its CPU and memory are counted apart from the bots') and
waits for its port; :func:`stop_server` stops it (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

#: The repository root: the server subprocess runs from here.
ROOT: Final = Path(__file__).resolve().parents[1]
#: Seconds the server may take to print its port.
START_TIMEOUT: Final = 60.0
#: Seconds the server may take to exit after SIGTERM before it is killed.
STOP_TIMEOUT: Final = 10.0

_LISTENING: Final = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
_TIMERS: Final = ("betting_seconds", "insurance_seconds", "decision_seconds")


class LoadtestError(Exception):
    """The run could not be made: the server did not start, or died."""


def prepare(directory: Path, terminals: int) -> tuple[Path, Path]:
    """Certificates, log keys and the short-timer config in ``directory``: (certs, config)."""
    from game_server.config import example_config_path
    from game_server.keys import init_keys
    from game_server.net.pki import init_pki

    certs = directory / "certs"
    init_pki(certs, terminals=terminals)
    init_keys(certs)
    text = example_config_path().read_text()
    for timer in _TIMERS:
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    config = directory / "table.toml"
    config.write_text(text)
    return certs, config


def start_server(
    directory: Path,
    certs: Path,
    config: Path,
    tables: int,
    store: str | None = None,
    *,
    workers: int = 1,
    port: int = 0,
    output: Path | None = None,
) -> tuple[subprocess.Popen[bytes], int, Path]:
    """Start ``python -m game_server``; its output goes to a file (a pipe could fill up and
    block it). Returns the process, its port and the output file. The caller stops it.

    ``port`` 0 is a free one; ``etg faults`` restarts the server on the port of its first
    start, each start's output in a file of its own (``output``, default
    ``directory/server.out``).
    """
    out = directory / "server.out" if output is None else output
    command = [
        sys.executable,
        "-m",
        "game_server",
        "--config",
        str(config),
        "--db",
        str(directory / "table.db"),
        "--anchors",
        str(directory / "anchors.jsonl"),  # as a floor server keeps them (etg backup copies them)
        "--certs",
        str(certs),
        "--port",
        str(port),
        "--next-round-delay",
        "0.2",
    ]
    if tables > 1:
        command += ["--tables", str(tables)]
    if store is not None:
        command += ["--store", store]
    if workers > 1:
        command += ["--workers", str(workers)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    with out.open("wb") as sink:
        # Its own session and process group: the bots' process and the server are counted
        # (CPU, RSS) and signalled apart.
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    return process, _wait_port(process, out), out


def _wait_port(process: subprocess.Popen[bytes], out: Path) -> int:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        found = _LISTENING.search(out.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    stop_server(process)
    tail = out.read_text(errors="replace").strip().splitlines()[-10:]
    raise LoadtestError("the server did not start:\n" + "\n".join(tail))


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within :data:`STOP_TIMEOUT` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from ``/proc/<pid>/stat``."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pids(pid: int) -> list[int]:
    """The server's processes: ``pid`` and its children (the workers of ``--workers``)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [pid, *(int(child) for child in children)]


def server_cpu_seconds(pids: list[int]) -> float:
    """:func:`cpu_seconds` summed over ``pids`` (a process gone meanwhile counts 0)."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


def peak_rss_mb(pid: int) -> float:
    """VmHWM (the peak resident set) of a process, from ``/proc/<pid>/status``, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def peak(pid: int) -> float:
    """:func:`peak_rss_mb`, 0 for a process gone meanwhile."""
    try:
        return peak_rss_mb(pid)
    except OSError:
        return 0.0
