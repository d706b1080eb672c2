"""The console's web application in-process, for tests: a fake clock, a fake server link,
fake requests and a real log read through the real source (no browser, no sockets).

Used by the console's own tests (``test_web.py``) and by the secrecy test of every exit
(``tests/games/test_secrecy_every_exit.py``).
"""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet import task
from twisted.internet.address import IPv4Address
from twisted.protocols import amp
from twisted.python.failure import Failure
from twisted.web.http import parse_qs
from twisted.web.server import NOT_DONE_YET
from twisted.web.test.requesthelper import DummyRequest

from game_server.console.accounts import AccountBook
from game_server.console.audit import AuditLog
from game_server.console.links import LinkState
from game_server.console.reports import ShiftClock
from game_server.console.roles import Role
from game_server.console.settings import ServerEntry
from game_server.console.source import ServersOnlySource
from game_server.console.web import ConsoleApp
from game_server.keys import load_public_key


class MetersLink:
    """A server link that answers ``ReadMeters`` with the meters it is given and records
    every other command (answered by ``answer``)."""

    def __init__(self, name: str, meters: dict[str, Any] | None = None) -> None:
        self.name = name
        self.calls: list[tuple[type[amp.Command], dict[str, Any]]] = []
        self.state = LinkState(True, meters or {}, None)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def call(self, command: type[amp.Command], **arguments: Any) -> Any:
        self.calls.append((command, arguments))
        raise NotImplementedError(f"{command.__name__} is not answered by this fake")


class HeldPool:
    """A thread pool that runs nothing until the test says so: each job (a sign-in's
    scrypt) is held in ``jobs``, so the test decides what has been checked when."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Callable[[bool, Any], None], Callable[..., Any], tuple[Any, ...]]]
        self.jobs = []
        self.ran = 0

    def callInThreadWithCallback(
        self, on_result: Callable[[bool, Any], None], work: Callable[..., Any], *args: Any
    ) -> None:
        self.jobs.append((on_result, work, args))

    def run_all(self) -> int:
        """Run every held job (in order) and hand its answer back; how many ran."""
        count = 0
        while self.jobs:
            on_result, work, args = self.jobs.pop(0)
            self.ran += 1
            count += 1
            try:
                answer = work(*args)
            except Exception as exc:  # handed back as a failure, as a real pool does
                on_result(False, Failure(exc))
            else:
                on_result(True, answer)
        return count


class Reactor(task.Clock):
    """A fake clock that is also the reactor of the sign-in's thread hand-off."""

    def __init__(self) -> None:
        super().__init__()
        self.pool = HeldPool()

    def getThreadPool(self) -> HeldPool:
        return self.pool

    def callFromThread(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        f(*args, **kwargs)


class Console:
    """The app on a fake clock with a fake link and the recall tests' log."""

    def __init__(self, folder: Path, db: Path, work: Path, link: Any) -> None:
        self.clock = Reactor()
        self.clock.advance(1_800_000_000)
        self.link = link
        entry = ServerEntry("pit-1", "127.0.0.1", 7400, "localhost", db)
        shifts = ShiftClock([dt.time(6), dt.time(14), dt.time(22)], dt.UTC)
        source = ServersOnlySource([entry], load_public_key(folder), shifts)
        self.accounts = AccountBook(work / "accounts.json", scrypt_n=2**10)
        for role in Role:
            self.accounts.add(role.value, role, "correct horse battery")
        self.audit_path = work / "audit.jsonl"
        self.audit_key = Ed25519PrivateKey.generate()
        self.audit = AuditLog(self.audit_path, self.clock.seconds, self.audit_key)
        self.app = ConsoleApp(
            self.clock,
            [self.link],  # type: ignore[list-item]
            source,
            self.accounts,
            self.audit,
            shifts,
            pictures=lambda *args: b"\x89PNG fake",
        )

    def session(self, role: Role) -> Any:
        return self.app.sessions.create(role.value, role, "10.0.0.9")

    def request(
        self,
        method: str,
        path: str,
        role: Role | None = None,
        form: dict[str, str] | None = None,
        *,
        csrf: bool = True,
        origin: str | None = None,
    ) -> Request:
        """Ask ``path`` as a browser would: a GET's ``form`` in the query string, a POST's in
        its body (with the session's CSRF token unless ``csrf`` is False); a query string
        written in ``path`` stays in the address, for either."""
        session = None if role is None else self.session(role)
        fields = dict(form or {})
        if method == "POST" and session is not None and csrf:
            fields.setdefault("csrf", session.csrf)
        query = ""
        if "?" in path:
            path, query = path.split("?", 1)
        if method != "POST":
            query = "&".join(part for part in (query, urlencode(fields)) if part)
            fields = {}
        cookies = {} if session is None else {b"__Host-etg": session.id.encode()}
        request = Request(method, path, cookies, query=query, body=fields)
        if origin is not None:
            request.requestHeaders.setRawHeaders(b"origin", [origin.encode()])
        request.requestHeaders.setRawHeaders(b"host", [b"console.floor:8443"])
        self.handle(request)
        request.session = session
        return request

    def handle(self, request: Request) -> Request:
        """Serve ``request`` (its answer written, unless it is still being worked on)."""
        result = self.app.handle(request)
        if result is not NOT_DONE_YET:
            request.write(result)
            request.finish()
        return request

    def sign_in(
        self, name: str, password: str, code: str = "", address: str = "10.0.0.9"
    ) -> Request:
        """Post the sign-in form (with its cookie's token) from ``address``; its answer is
        written once the held scrypt runs (``clock.pool.run_all()``) or at once if the try
        is refused before it is checked."""
        token = "5" * 64
        request = Request(
            "POST",
            "/login",
            {b"__Host-etg-login": token.encode()},
            body={"csrf": token, "name": name, "password": password, "code": code},
        )
        request.client = IPv4Address("TCP", address, 50_000)
        return self.handle(request)

    def audit_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.audit_path.read_text().splitlines()]


class Request(DummyRequest):
    """DummyRequest with a method, a path, a query string, a form body and cookies, as
    twisted.web parses them (a POST's ``args`` hold its query and its body's fields)."""

    def __init__(
        self,
        method: str,
        path: str,
        cookies: dict[bytes, bytes] | None = None,
        *,
        query: str = "",
        body: dict[str, str] | None = None,
    ):
        super().__init__([part for part in path.split("/")[1:]])
        self.method = method.encode()
        self.path = path.encode()
        self.uri = self.path + (b"?" + query.encode() if query else b"")
        data = urlencode(body or {}).encode()
        self.content = io.BytesIO(data)
        if data:
            kind = b"application/x-www-form-urlencoded"
            self.requestHeaders.setRawHeaders(b"content-type", [kind])
        self.args = parse_qs(query.encode(), 1)
        if method == "POST":
            for key, values in parse_qs(data, 1).items():
                self.args[key] = values
        self.received_cookies = cookies or {}
        self.cookies_set: list[tuple[bytes, bytes, dict[str, Any]]] = []
        self.session: Any = None

    def getCookie(self, name: bytes) -> bytes | None:
        return self.received_cookies.get(name)

    def addCookie(self, name: bytes, value: bytes, **options: Any) -> None:
        self.cookies_set.append((name, value, options))

    @property
    def body(self) -> str:
        return b"".join(self.written).decode("utf-8", "replace")

    @property
    def status(self) -> int:
        return self.responseCode or 200
