"""Helpers of the network tests: the test PKI, the echo server handle, certificate makers."""

from __future__ import annotations

import datetime as dt
import json
import selectors
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from twisted.logger import formatEvent

from game_server.net.pki import (
    CertAndKey,
    PkiFiles,
    PkiLayout,
    load_certificate,
    load_private_key,
)

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
#: Longest wait for the server to start or for one of its log records.
WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class Pki:
    """The table's PKI for the TLS tests, plus certificates the server must refuse."""

    directory: Path
    files: PkiFiles
    other_ca_terminal: CertAndKey
    expired_terminal: CertAndKey
    no_role: CertAndKey
    revoked_serial_of: str

    @property
    def ca(self) -> Path:
        return self.files.ca.certificate

    def terminal(self, terminal_id: str) -> CertAndKey:
        return PkiLayout(self.directory).terminal(terminal_id)


def no_role_certificate(directory: Path) -> CertAndKey:
    """A client certificate our CA issued that names no role (no OU)."""
    layout = PkiLayout(directory)
    ca_cert = load_certificate(layout.ca.certificate)
    ca_key = load_private_key(layout.ca.key)
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "T5")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    out = directory / "extra"
    out.mkdir(mode=0o700, exist_ok=True)
    pair = CertAndKey(out / "norole.pem", out / "norole.key")
    pair.certificate.write_bytes(cert.public_bytes(Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    pair.key.chmod(0o600)
    return pair


@dataclass
class EchoServer:
    """The running ``tls_echo_server.py``: its port and what it logged."""

    port: int
    log_path: Path
    refusals_path: Path
    process: subprocess.Popen[str]

    def events(self) -> list[dict[str, Any]]:
        """Every :mod:`twisted.logger` event the server has written so far."""
        text = self.log_path.read_text(encoding="utf-8") if self.log_path.exists() else ""
        return [json.loads(record) for record in text.split("\x1e") if record.strip()]

    def refusals(self) -> list[dict[str, Any]]:
        """Every call of the server's ``on_refused`` hook so far."""
        if not self.refusals_path.exists():
            return []
        lines = self.refusals_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def refusal_logged(self, client_port: int) -> dict[str, Any]:
        """The server's log record of the refused handshake from ``client_port``."""
        wanted = f"127.0.0.1:{client_port}"
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            for event in self.events():
                if event.get("peer") == wanted and "reason" in event:
                    return event
            time.sleep(0.02)
        raise AssertionError(f"no refusal logged for {wanted}; log: {self.events()}")

    def received_from(self, client_port: int) -> list[dict[str, Any]]:
        """The server's records of application data received from ``client_port``."""
        return [e for e in self.events() if e.get("size") and e.get("port") == client_port]


def messages(events: list[dict[str, Any]]) -> list[str]:
    """The text of Twisted log events (from the ``logged`` fixture)."""
    return [formatEvent(event) for event in events]


def read_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            return ""
    return process.stdout.readline()
