"""Fixtures of the network tests: a PKI in a temporary directory and a real TLS echo server
(``tls_echo_server.py``) in a subprocess on 127.0.0.1, always killed at the end."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from net_helpers import HERE, ROOT, WAIT_SECONDS, EchoServer, Pki, no_role_certificate, read_line
from twisted.logger import globalLogPublisher

from game_server.net.pki import add_terminal, init_pki, load_certificate


@pytest.fixture
def logged() -> Iterator[list[dict[str, Any]]]:
    """Every Twisted log event emitted during the test (their text: ``messages``)."""
    events: list[dict[str, Any]] = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """Terminals T1-T3 and the operator; T9 expired a year ago; another CA's T1."""
    directory = tmp_path_factory.mktemp("pki") / "certs"
    files = init_pki(directory, terminals=3)
    three_years_ago = dt.datetime.now(dt.UTC) - dt.timedelta(days=3 * 365)
    expired = add_terminal(directory, "T9", now=three_years_ago)
    other = init_pki(tmp_path_factory.mktemp("other") / "certs", terminals=1)
    serial = load_certificate(files.terminals["T2"].certificate).serial_number
    return Pki(
        directory=directory,
        files=files,
        other_ca_terminal=other.terminals["T1"],
        expired_terminal=expired,
        no_role=no_role_certificate(directory),
        revoked_serial_of=f"{serial:X}",
    )


@pytest.fixture(scope="session")
def echo_server(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EchoServer]:
    """The echo server with T3 revoked by id and T2 by serial number (upper-case hex)."""
    work = tmp_path_factory.mktemp("server")
    log_path, refusals_path = work / "server.log", work / "refusals.jsonl"
    stderr = (work / "stderr.txt").open("w", encoding="utf-8")
    args = [str(pki.directory), str(log_path), str(refusals_path)]
    args += ["--revoke-id", "T3", "--revoke-serial", pki.revoked_serial_of]
    process = subprocess.Popen(
        [sys.executable, str(HERE / "tls_echo_server.py"), *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    try:
        line = read_line(process, WAIT_SECONDS)
        if not line.startswith("PORT "):
            stderr.flush()
            message = (work / "stderr.txt").read_text(encoding="utf-8")
            raise AssertionError(f"the echo server did not start: {line!r}\n{message}")
        yield EchoServer(int(line.split()[1]), log_path, refusals_path, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        if process.stdout is not None:
            process.stdout.close()
        stderr.close()
