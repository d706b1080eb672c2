"""``etg serve`` checks its port before it touches the log (issue 13, item 9).

On a port in use the server used to create the log database, log the Rules Submission and
then die with a 40-line traceback. Now it listens first: one line, a non-zero exit, and no
file or folder made.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from game_server.config import example_config_path
from game_server.keys import init_keys
from game_server.net.pki import init_pki

ROOT = Path(__file__).resolve().parents[2]


def test_serve_on_a_port_in_use_says_so_in_one_line_before_touching_the_log(
    tmp_path: Path,
) -> None:
    """With the port held by another socket, ``python -m game_server`` prints one line
    naming the port, exits non-zero, and creates neither the log nor its folder."""
    certs = tmp_path / "certs"
    init_pki(certs, terminals=1)
    init_keys(certs)
    db = tmp_path / "data" / "table.db"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        command = [sys.executable, "-m", "game_server", "--config", str(example_config_path())]
        command += ["--db", str(db), "--certs", str(certs), "--port", str(port)]
        done = subprocess.run(
            command,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode != 0
    assert len(lines) == 1, lines
    assert f"port {port} is in use" in lines[0]
    assert not db.parent.exists()


def test_serve_without_its_keys_says_so_in_one_line_before_any_warning(tmp_path: Path) -> None:
    """Issue 37, item 7: with the certificates folder missing, ``etg serve`` printed an
    unrelated warning (no anchor stream) before the sentence that says what is wrong. Now
    the keys are read first: one line, naming the missing key; no log folder made."""
    db = tmp_path / "data" / "table.db"
    command = [sys.executable, "-m", "game_server", "--config", str(example_config_path())]
    command += ["--db", str(db), "--certs", str(tmp_path / "nocerts"), "--port", "0"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode != 0
    assert len(lines) == 1, lines
    assert "no shoe-sealing key at" in lines[0] and "anchor" not in lines[0]
    assert not db.parent.exists()
