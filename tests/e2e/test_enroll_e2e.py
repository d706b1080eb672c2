"""End to end: a new terminal enrolls and plays over mutual TLS with a key that never left it.

``etg certs request T3`` in the terminal's own folder, ``etg certs sign`` on the server's,
the certificate and ``ca.pem`` copied back: the real server (``test_server_e2e.py``'s
helpers) seats T3 over mutual TLS with those files. Replacing the certificate: revoked by
its serial in the floor file, a new request signed, the old certificate is refused at the
handshake and the new one accepted.
"""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import sys
from pathlib import Path

from test_server_e2e import ROOT, _try_hello, hello, server, verified
from test_server_e2e import table as table  # the fixture

from game_server.net.pki import load_certificate
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient


def _etg(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "tools", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _context(folder: Path, terminal: str) -> ssl.SSLContext:
    """The terminal's TLS 1.3 context from its own folder (as ``etg terminal --cert --key
    --ca`` reads them)."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(folder / "ca.pem"))
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(folder / f"{terminal}.pem", folder / f"{terminal}.key")
    return context


def _enroll(terminal: Path, certs: Path, *floor: str) -> str:
    """Request on the terminal, sign on the server, copy the two public files back; the
    fingerprint both printed."""
    requested = _etg("certs", "request", "T3", "--dir", str(terminal))
    signed = _etg("certs", "sign", str(terminal / "T3.csr"), "--certs", str(certs), *floor)
    [mark] = [line for line in requested.stdout.splitlines() if "fingerprint" in line]
    assert mark in signed.stdout
    shutil.copyfile(certs / "terminals" / "T3.pem", terminal / "T3.pem")
    shutil.copyfile(certs / "ca.pem", terminal / "ca.pem")
    return mark


def test_a_terminal_enrolls_and_plays_with_a_key_that_never_left_it(
    table: dict[str, Path], tmp_path: Path
) -> None:
    """T3's key is made in its folder and nowhere else; the signed certificate seats it at
    the real server over mutual TLS (seat 3), where the operator credits it; a second
    request for T3 is refused while the certificate is valid."""
    certs = table["certs"]
    terminal = tmp_path / "terminal-T3"
    _enroll(terminal, certs)
    key = (terminal / "T3.key").read_bytes()
    assert not (certs / "terminals" / "T3.key").exists()
    assert all(key not in p.read_bytes() for p in certs.rglob("*") if p.is_file())
    with server(table) as (_process, port):
        operator, _ = hello(port, certs, "operator")
        operator.call("CashIn", request_id="in-T3", terminal="T3", amount=2_500, reference="e")
        raw = AmpClient.__new__(AmpClient)  # AmpClient's protocol, the terminal's own files
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        raw.sock = _context(terminal, "T3").wrap_socket(sock, server_hostname="localhost")
        raw.buffer, raw.tag, raw.pushed = b"", 0, []
        answer = raw.call("Hello", version=PROTOCOL_VERSION, software="enrolled")
        assert answer["seat"] == "3"
        assert json.loads(answer["view"])["credits"] == 2_500
        raw.close()
        operator.close()
    again = subprocess.run(
        [sys.executable, "-m", "tools", "certs", "request", "T3", "--dir", str(tmp_path / "b")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert again.returncode == 0
    request = str(tmp_path / "b" / "T3.csr")
    refused = subprocess.run(
        [sys.executable, "-m", "tools", "certs", "sign", request, "--certs", str(certs)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert refused.returncode == 2 and "T3 already has a certificate" in refused.stderr
    assert verified(table).ok


def test_a_replaced_certificate_is_refused_and_its_successor_accepted(
    table: dict[str, Path], tmp_path: Path
) -> None:
    """The kiosk of T3 is replaced: its certificate is revoked by serial in the floor file,
    the new machine's request is signed (with --floor), and the running server refuses the
    old certificate at the handshake and accepts the new one."""
    certs = table["certs"]
    old = tmp_path / "old-kiosk"
    _enroll(old, certs)
    serial = format(load_certificate(old / "T3.pem").serial_number, "x")
    floor = tmp_path / "floor.toml"
    floor.write_text(
        "[floor]\n[floor.terminals]\nT1 = 1\nT2 = 2\nT3 = 3\n"
        f'[floor.revoked]\nserials = ["{serial}"]\n'
    )
    new = tmp_path / "new-kiosk"
    _enroll(new, certs, "--floor", str(floor))
    assert (certs / "terminals" / "replaced" / f"T3-{serial}.pem").exists()
    with server(table, "--floor", str(floor)) as (_process, port):
        assert _try_hello(port, _context(old, "T3")) == "refused"
        assert _try_hello(port, _context(new, "T3")) == "accepted"
    assert verified(table).ok
