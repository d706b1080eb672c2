"""A small blocking AMP client over stdlib TLS: operator scripts, the live demo and the
end-to-end tests of the real server.

It speaks the AMP box format directly (2-byte lengths, key/value pairs, an empty key to end
a box), so its users need no reactor; server-pushed ViewUpdate boxes are kept in ``pushed``.
"""

from __future__ import annotations

import json
import socket
import ssl
import struct
import time
from pathlib import Path
from typing import Any


class AmpError(Exception):
    """A declared error answered by the server: ``code`` and ``description``."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(f"{code}: {description}")
        self.code = code
        self.description = description


def tls_context(certs: Path, who: str) -> ssl.SSLContext:
    """A TLS 1.3 client context with the certificate of ``who`` ("operator" or "T1")."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(certs / "ca.pem"))
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    if who == "operator":
        context.load_cert_chain(certs / "operator.pem", certs / "operator.key")
    else:
        context.load_cert_chain(
            certs / "terminals" / f"{who}.pem", certs / "terminals" / f"{who}.key"
        )
    return context


class AmpClient:
    """One TLS connection speaking AMP to the table server at ``host``:``port``, whose
    certificate must name ``hostname``; ``route`` (a terminal or table id) is sent as the
    TLS server name instead of ``hostname`` (``etg serve --workers``)."""

    def __init__(
        self,
        port: int,
        certs: Path,
        who: str,
        timeout: float = 10.0,
        *,
        host: str = "127.0.0.1",
        hostname: str = "localhost",
        route: str | None = None,
    ) -> None:
        raw = socket.create_connection((host, port), timeout=timeout)
        context = tls_context(certs, who)
        if route is None:
            self.sock = context.wrap_socket(raw, server_hostname=hostname)
        else:
            # The TLS server name is the route (a server of several workers hands the
            # connection to the one serving it); the certificate must still name hostname.
            context.check_hostname = False
            self.sock = context.wrap_socket(raw, server_hostname=route)
            peer: Any = self.sock.getpeercert() or {}
            names = {str(value) for _, value in peer.get("subjectAltName", ())}
            if hostname not in names:
                self.sock.close()
                raise ssl.SSLCertVerificationError(
                    f"the server's certificate names {sorted(names)}, not {hostname!r}"
                )
        self.buffer = b""
        self.tag = 0
        self.pushed: list[dict[str, Any]] = []

    def close(self) -> None:
        self.sock.close()

    def _send(self, box: dict[str, bytes]) -> None:
        data = b""
        for key, value in box.items():
            k = key.encode()
            data += struct.pack("!H", len(k)) + k + struct.pack("!H", len(value)) + value
        self.sock.sendall(data + b"\x00\x00")

    def _read_box(self) -> dict[str, bytes]:
        box: dict[str, bytes] = {}
        while True:
            key = self._read(self._read_length())
            if not key:
                return box
            box[key.decode()] = self._read(self._read_length())

    def _read_length(self) -> int:
        value: int = struct.unpack("!H", self._read(2))[0]
        return value

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def call(self, command: str, **arguments: Any) -> dict[str, Any]:
        """Send a command and wait for its answer (keeping pushed views); raise AmpError."""
        self.tag += 1
        tag = str(self.tag).encode()
        box = {"_command": command.encode(), "_ask": tag}
        for key, value in arguments.items():
            if isinstance(value, dict | list):
                box[key] = json.dumps(value).encode()
            else:
                box[key] = str(value).encode()
        self._send(box)
        while True:
            answer = self._read_box()
            if answer.get("_command") == b"ViewUpdate":
                self.pushed.append(json.loads(answer["view"]))
                continue
            if answer.get("_answer") == tag:
                return {k: v.decode() for k, v in answer.items() if not k.startswith("_")}
            if answer.get("_error") == tag:
                raise AmpError(
                    answer["_error_code"].decode(), answer["_error_description"].decode()
                )

    def wait_view(self, predicate: Any, timeout: float = 30.0) -> dict[str, Any]:
        """Read pushed views until one satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for view in self.pushed:
                if predicate(view):
                    self.pushed.clear()
                    return view
            self.pushed.clear()
            self.sock.settimeout(max(0.1, deadline - time.monotonic()))
            box = self._read_box()
            if box.get("_command") == b"ViewUpdate":
                self.pushed.append(json.loads(box["view"]))
        raise TimeoutError("no view matched in time")
