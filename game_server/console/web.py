"""The console's web application: routes, sign-in, sessions, CSRF, roles, actions, live events.

Every request gets the security headers (:data:`SECURITY_HEADERS`: a content security policy
that allows only this origin's script, style and images, and no framing; ``nosniff``; no
referrer; HSTS). Then, in order:

1. ``/static/...`` and ``/login`` need no session (the sign-in form carries its own CSRF
   token, bound to a cookie: a double submit);
2. a POST whose ``Origin`` is another site is refused as a cross-site request (CSRF) and
   audited;
3. every other page needs a session (else: a GET goes to ``/login``; a POST is refused and
   audited: a form another site submits carries no cookie, SameSite=Strict);
4. a POST's fields, its CSRF token among them, are read from its body only
   (``application/x-www-form-urlencoded``, what a browser's form sends): a POST with anything
   in its address's query string is refused and audited, whatever it carries, because an
   address is kept in access logs, proxies and the browser's history (:func:`_read_form`);
   the sign-in form is read the same way;
5. a POST must carry the session's CSRF token (else refused, audited);
6. the route's :class:`~game_server.console.roles.Permission` must be the role's (else 403
   with the sentence, audited);
7. actions go to the table server over its AMP link with the person and role; the outcome is
   audited (with the request id, the same as in the table's event log) and told on the next
   page.

Slow work runs in worker threads, one pool each, so the reactor keeps serving: recall
pictures (pygame, given as :class:`Pictures` by ``tools``, which may import the terminal's
renderers), log verification, meter reports.

Entry points: :class:`ConsoleApp` (``app.resource()`` for a ``Site``), :class:`Pictures`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final, Protocol
from urllib.parse import unquote, urlsplit
from weakref import WeakKeyDictionary

from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool
from twisted.web.http import parse_qs
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Request

from game_server.console import pages
from game_server.console.accounts import AccountBook
from game_server.console.audit import AuditError, AuditLog
from game_server.console.floorview import (
    ServerView,
    TableView,
    build_floor,
    find_table,
    find_terminal,
    live_values,
    shape,
)
from game_server.console.html import Markup, html
from game_server.console.links import NotConnected, ServerLink
from game_server.console.pages import Viewer
from game_server.console.reports import ReportRow, ShiftClock, report_csv
from game_server.console.roles import PERMISSIONS, SECOND_FACTOR, Permission
from game_server.console.sessions import (
    COOKIE,
    LOGIN_COOKIE,
    LoginGuard,
    Session,
    Sessions,
    SignInRefused,
    new_token,
    same,
)
from game_server.console.source import FloorSource, RoundQuery
from game_server.console.totp import TotpVerifier
from game_server.recall.query import RecallError, parse_time_arg
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline
from game_server.recall.verify import VerifyReport
from shared.errors import ETGError, MoneyError
from shared.money import format_money, parse_money
from shared.protocol import CashIn, CashOut, SetTableState, SetTerminalAccess

log = Logger()

#: Headers of every response.
SECURITY_HEADERS: Final = {
    b"content-security-policy": (
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        b"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    b"x-content-type-options": b"nosniff",
    b"x-frame-options": b"DENY",
    b"referrer-policy": b"same-origin",
    b"strict-transport-security": b"max-age=31536000",
    b"cross-origin-opener-policy": b"same-origin",
    b"cross-origin-resource-policy": b"same-origin",
    b"server": b"ETG console",
}
#: The static files (``game_server/console/static``) and their types.
STATIC: Final = {
    "console.css": b"text/css; charset=utf-8",
    "console.js": b"text/javascript; charset=utf-8",
}
#: Picture sizes a page may ask for.
PICTURE_SIZES: Final = {"480x270": (480, 270), "960x540": (960, 540), "1920x1080": (1920, 1080)}
#: Pictures kept drawn (by round, its last event, terminal and size).
PICTURES_KEPT: Final = 64
#: Seconds between two comments that keep an idle event stream open.
KEEPALIVE_SECONDS: Final = 15.0
#: Seconds the floor waits after a reading before it is rebuilt (readings coalesce).
REBUILD_DELAY: Final = 0.2
#: The largest request body read (a form is far smaller).
MAX_BODY: Final = 16 * 1024
#: The one kind of body a POST's fields are read from (what a browser's form sends).
FORM_TYPE: Final = b"application/x-www-form-urlencoded"
#: The most fields a form may carry (the console's forms have fewer than ten).
MAX_FIELDS: Final = 32
#: Why a POST with fields in its address is refused.
FIELDS_IN_ADDRESS: Final = (
    "a form's fields and its security token go in the request's body, never in its address "
    "(an address is kept in access logs and the browser's history, and the token with it); "
    "nothing was done: send the form again from the console's page"
)
#: What refuses a change of limits (issue 21: within the Rules Submission).
LIMITS_REFUSAL: Final = (
    "a table's limits are part of its Rules Submission, which the server proves at start and "
    "logs with every round: change the file and restart the server with `etg serve "
    "--change-config REASON` (logged as rules_change_stated); the console cannot change "
    "them while the table runs"
)


class Pictures(Protocol):
    """Draws a logged round as the terminal showed it (``tools.recall_pictures``); runs in a
    worker thread."""

    def __call__(
        self,
        logged: LoggedRound,
        timeline: Timeline,
        terminal: str | None,
        size: tuple[int, int],
    ) -> bytes: ...


class _Refused(Exception):
    """A request refused with a status and a sentence (audited when ``audit``)."""

    def __init__(self, status: int, text: str, *, audit: str | None = None) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.audit = audit


@dataclass
class VerifyJob:
    """One verification started from the verify page."""

    id: str
    server: str
    person: str
    started: str
    status: str = "running"
    report: VerifyReport | None = None
    problem: str | None = None


#: What a token looks like (:func:`~game_server.console.sessions.new_token`).
_TOKEN: Final = re.compile(r"[0-9a-f]{64}")


def _segments(request: Request) -> list[str]:
    path = request.path.decode("ascii", "replace")
    return [unquote(part) for part in path.split("/")[1:]]


#: Each POST's fields, read from its body by :func:`_read_form` (never from its address).
_FORMS: WeakKeyDictionary[Request, dict[bytes, list[bytes]]] = WeakKeyDictionary()
_FIELD_NAME: Final = re.compile(r"[a-z_]{1,16}")


def _read_form(request: Request) -> None:
    """Read a POST's fields from its body, for :func:`_arg`.

    Raises:
        _Refused: the address carries a query string (fields or a token: refused whatever
            they are, audited without their values), the body is not a form, or it is too
            large or has too many fields.
    """
    query = urlsplit(request.uri or b"").query
    if query:
        names = parse_qs(query, 1)
        shown = sorted(
            n if _FIELD_NAME.fullmatch(n) else "(other)"
            for n in (k.decode("ascii", "replace") for k in names)
        )
        raise _Refused(
            400,
            FIELDS_IN_ADDRESS,
            audit=f"refused: form fields in the address ({', '.join(shown) or 'a query'})",
        )
    content = request.content
    body = b""
    if content is not None:
        content.seek(0)
        body = content.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        raise _Refused(413, "the request is too large")
    kind = (request.getHeader(b"content-type") or b"").split(b";")[0].strip().lower()
    if body and kind != FORM_TYPE:
        shown_kind = kind.decode("ascii", "replace")[:60] or "none"
        raise _Refused(
            415,
            f"a form is sent as {FORM_TYPE.decode()}, as a browser sends it; this request's "
            f"body is {shown_kind}: send the form from the console's page",
            audit="refused: a body that is not a form",
        )
    if body.count(b"&") >= MAX_FIELDS:
        raise _Refused(400, f"a form has at most {MAX_FIELDS} fields")
    _FORMS[request] = parse_qs(body, 1)


def _fields(request: Request) -> Mapping[bytes, list[bytes]]:
    """Where a request's fields are read: a POST's body (never its address), a GET's query."""
    if request.method == b"POST":
        return _FORMS.get(request, {})
    fields: Mapping[bytes, list[bytes]] = request.args
    return fields


def _arg(request: Request, name: str) -> str:
    values = _fields(request).get(name.encode())
    if not values:
        return ""
    try:
        return str(values[0].decode("utf-8")).strip()
    except UnicodeDecodeError:
        raise _Refused(400, f"{name} is not UTF-8 text") from None


def _back(value: str) -> str:
    """Where to go after an action: a path of this site (printable ASCII, no spaces), else
    the floor."""
    if (
        not value.startswith("/")
        or value.startswith("//")
        or "\\" in value
        or not all("!" <= c <= "~" for c in value)
        or urlsplit(value).netloc
    ):
        return "/"
    return value


class ConsoleApp:
    """The console (see the module docstring).

    Args:
        reactor: The reactor.
        links: One AMP link per table server (started by :meth:`start`).
        source: Where logs are read.
        accounts: The people.
        audit: The console's audit log.
        shifts: The floor's shifts (reports).
        pictures: Draws recall pictures (None: the pages show none).
    """

    def __init__(
        self,
        reactor: Any,
        links: Sequence[ServerLink],
        source: FloorSource,
        accounts: AccountBook,
        audit: AuditLog,
        shifts: ShiftClock,
        pictures: Pictures | None = None,
    ) -> None:
        self.reactor = reactor
        self.links = {link.name: link for link in links}
        self.source = source
        self.accounts = accounts
        self.audit = audit
        self.shifts = shifts
        self.pictures = pictures
        clock = reactor.seconds
        self.sessions = Sessions(clock)
        self.guard = LoginGuard(clock)
        self.totp = TotpVerifier()
        self.floor: list[ServerView] = []
        self._values: dict[str, str] = {}
        self._shape = ""
        self._streams: dict[Request, str] = {}
        self._rebuild: Any = None
        self._keepalive = LoopingCall(self._ping)
        self._keepalive.clock = reactor
        self._pools = {
            name: ThreadPool(1, 1, f"console-{name}") for name in ("pictures", "verify", "reports")
        }
        self._picture_cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self.jobs: OrderedDict[str, VerifyJob] = OrderedDict()
        self._static = {
            name: resources.files("game_server.console").joinpath("static", name).read_bytes()
            for name in STATIC
        }

    # ---------------------------------------------------------------------------- lifecycle

    def start(self) -> None:
        for pool in self._pools.values():
            pool.start()
        for link in self.links.values():
            link.start()
        self._keepalive.start(KEEPALIVE_SECONDS, now=False)

    def stop(self) -> None:
        if self._keepalive.running:
            self._keepalive.stop()
        for link in self.links.values():
            link.stop()
        for request in list(self._streams):
            self._end_stream(request)
        for pool in self._pools.values():
            pool.stop()

    def link_changed(self, link: ServerLink) -> None:
        """A link read its meters or changed state: rebuild the floor soon."""
        if self._rebuild is None or not self._rebuild.active():
            self._rebuild = self.reactor.callLater(REBUILD_DELAY, self.rebuild)

    def rebuild(self) -> None:
        """Build the floor from the links and the logs; push it if anything changed."""
        self.floor = build_floor(list(self.links.values()), self.source)
        values, floor_shape = live_values(self.floor), shape(self.floor)
        if values != self._values or floor_shape != self._shape:
            self._values, self._shape = values, floor_shape
            self._push()

    # ------------------------------------------------------------------------------ serving

    def resource(self) -> Resource:
        return _Root(self)

    def handle(self, request: Request) -> bytes | int:
        for name, value in SECURITY_HEADERS.items():
            request.setHeader(name, value)
        request.setHeader(b"cache-control", b"no-store")
        parts = _segments(request)
        method = request.method
        session: Session | None = None
        try:
            if parts[0] == "static" and len(parts) == 2 and method == b"GET":
                return self._static_file(request, parts[1])
            if parts == ["favicon.ico"]:
                raise _Refused(404, "no icon")
            length = request.getHeader(b"content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                raise _Refused(413, "the request is too large")
            if method == b"POST":
                self._check_origin(request)
            if parts == ["login"]:
                return self._login(request)
            session = self._session(request)
            if session is None:
                if method == b"POST":
                    raise _Refused(
                        403,
                        "sign in first (a form sent without the session, e.g. from another site)",
                        audit="refused: no session (possible cross-site request)",
                    )
                return self._redirect(request, "/login")
            if method == b"POST":
                _read_form(request)
                if not same(_arg(request, "csrf"), session.csrf):
                    raise _Refused(
                        403,
                        "the form's security token is missing or wrong (a cross-site request?); "
                        "reload the page and try again",
                        audit="refused: CSRF token missing or wrong",
                    )
                return self._post(request, session, parts)
            if method in (b"GET", b"HEAD"):
                return self._get(request, session, parts)
            raise _Refused(405, "this method is not served")
        except _Refused as refused:
            return self._refused(request, session, refused)

    def _refused(self, request: Request, session: Session | None, refused: _Refused) -> bytes:
        request.setResponseCode(refused.status)
        if refused.audit is not None:
            self._audit(
                request,
                session,
                refused.audit,
                target=request.path.decode("ascii", "replace"),
                outcome="refused",
                detail=refused.text,
            )
        viewer = None if session is None else self._viewer(session)
        titles = {
            400: "Bad request",
            403: "Refused",
            404: "Not found",
            413: "Too large",
            415: "Not a form",
        }
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        return pages.message_page(titles.get(refused.status, "Refused"), refused.text, viewer)

    def _audit(
        self,
        request: Request,
        session: Session | None,
        what: str,
        **fields: Any,
    ) -> None:
        try:
            self.audit.write(
                what,
                person="" if session is None else session.person,
                role="" if session is None else session.role.value,
                address=_address(request),
                **fields,
            )
        except AuditError:
            log.failure("the audit log cannot be written")
            raise

    def _static_file(self, request: Request, name: str) -> bytes:
        kind = STATIC.get(name)
        if kind is None:
            raise _Refused(404, "no such file")
        request.setHeader(b"content-type", kind)
        request.setHeader(b"cache-control", b"max-age=300")
        return self._static[name]

    def _check_origin(self, request: Request) -> None:
        origin = request.getHeader(b"origin")
        if origin is None:
            return
        host = request.getHeader(b"host") or b""
        if origin.decode("ascii", "replace") != f"https://{host.decode('ascii', 'replace')}":
            shown = origin.decode("ascii", "replace")
            raise _Refused(
                403,
                "a form sent from another site is refused (cross-site request forgery)",
                audit=f"refused: cross-site request from {shown}",
            )

    def _fresh_accounts(self) -> None:
        """Take in ``etg console user`` changes made while the console runs."""
        try:
            self.accounts.refresh()
        except ETGError as exc:
            log.error("the accounts file cannot be used; nobody may sign in: {why}", why=str(exc))

    def _session(self, request: Request, *, touch: bool = True) -> Session | None:
        cookie = request.getCookie(COOKIE)
        if not cookie:
            return None
        self._fresh_accounts()
        session = self.sessions.get(cookie.decode("ascii", "replace"), touch=touch)
        if session is not None and self.accounts.get(session.person) is None:
            self.sessions.end(session.id)
            return None
        return session

    def _viewer(self, session: Session) -> Viewer:
        return Viewer(session.person, session.role, session.csrf)

    def _page(
        self, request: Request, session: Session, title: str, body: Markup, **kwargs: Any
    ) -> bytes:
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        messages, session.messages = session.messages, []
        return pages.layout(title, self._viewer(session), body, messages=messages, **kwargs)

    def _redirect(self, request: Request, where: str) -> bytes:
        request.setResponseCode(303)
        request.setHeader(b"location", where.encode("ascii"))
        return b""

    def _need(self, request: Request, session: Session, permission: Permission) -> None:
        if permission not in _permissions(session):
            raise _Refused(
                403,
                f"a{'n' if session.role.value[0] in 'aeiou' else ''} {session.role.value} may "
                f"not {permission.value}",
                audit=f"refused: {permission.name.lower()}",
            )

    # ------------------------------------------------------------------------------ sign in

    def _login(self, request: Request) -> bytes | int:
        if request.method == b"GET":
            # The form's token is the cookie's: another tab or a stray request (a favicon)
            # that fetches the form again must not make the first form's token stale.
            kept = (request.getCookie(LOGIN_COOKIE) or b"").decode("ascii", "replace")
            token = kept if _TOKEN.fullmatch(kept) else new_token()
            _cookie(request, LOGIN_COOKIE, token.encode(), max_age=900)
            request.setHeader(b"content-type", b"text/html; charset=utf-8")
            return pages.login_page(token)
        if request.method != b"POST":
            raise _Refused(405, "sign in with the form")
        _read_form(request)
        cookie = (request.getCookie(LOGIN_COOKIE) or b"").decode("ascii", "replace")
        if not cookie or not same(_arg(request, "csrf"), cookie):
            raise _Refused(
                403,
                "the sign-in form's security token is missing or wrong; reload the page",
                audit="refused: sign-in without the form's CSRF token",
            )
        name, password, code = (_arg(request, k) for k in ("name", "password", "code"))
        self._fresh_accounts()
        address = _address(request)
        try:
            # Counted as failed before scrypt runs: however many tries arrive at once, at
            # most MAX_FAILURES are ever checked (sessions.py).
            attempt = self.guard.begin(name, address)
        except SignInRefused as refused:
            self.audit.write(
                "sign-in", person=name, address=address, outcome="refused", detail=str(refused)
            )
            return self._login_again(request, str(refused))
        try:
            signing: Deferred[Any] = deferToThreadPool(
                self.reactor, self.reactor.getThreadPool(), self.accounts.sign_in, name, password
            )
        except BaseException:
            self.guard.failed(attempt)  # never leave the name held by a try that never ran
            raise

        def checked(account: Any) -> None:
            problem = None
            if account is None:
                problem = "wrong name or password"
            elif account.role in SECOND_FACTOR:
                secret = account.totp_secret
                if secret is None or not self.totp.check(
                    name, secret, code, self.reactor.seconds()
                ):
                    problem = "wrong or missing one-time code"
            if problem is not None:
                now_locked = self.guard.failed(attempt)
                self.audit.write(
                    "sign-in", person=name, address=address, outcome="refused", detail=problem
                )
                if now_locked:
                    self.audit.write(
                        "sign-in locked",
                        person=name,
                        address=address,
                        outcome="refused",
                        detail=self.guard.locked(name, address) or "",
                    )
                _finish(request, self._login_again(request, "wrong name, password or code"))
                return
            self.guard.succeeded(attempt)
            session = self.sessions.create(account.name, account.role, address)
            _cookie(request, COOKIE, session.id.encode())
            _cookie(request, LOGIN_COOKIE, b"", max_age=0)
            self.audit.write(
                "sign-in", person=account.name, role=account.role.value, address=address
            )
            _finish(request, self._redirect(request, "/"))

        def failed(failure: Failure) -> None:
            # The scrypt or the answer broke: the name is free again, the try stays counted.
            self.guard.failed(attempt)
            log.failure("a sign-in failed", failure)
            request.setResponseCode(500)
            _finish(request, pages.message_page("Error", "the sign-in failed; try again", None))

        signing.addCallback(checked)
        signing.addErrback(failed)
        return NOT_DONE_YET

    def _login_again(self, request: Request, problem: str) -> bytes:
        request.setResponseCode(403)
        token = new_token()
        _cookie(request, LOGIN_COOKIE, token.encode(), max_age=900)
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        return pages.login_page(token, problem)

    # ---------------------------------------------------------------------------------- GET

    def _get(self, request: Request, session: Session, parts: list[str]) -> bytes | int:
        match parts:
            case [""]:
                self._need(request, session, Permission.FLOOR)
                if not self.floor:
                    self.rebuild()
                body = pages.floor_page(self._viewer(session), self.floor, self.source.describe())
                return self._page(request, session, "The floor", body, shape=self._shape)
            case ["events"]:
                self._need(request, session, Permission.FLOOR)
                return self._stream(request, session)
            case ["table", server, table]:
                self._need(request, session, Permission.FLOOR)
                return self._table_page(request, session, server, table)
            case ["table", server, table, "round"]:
                self._need(request, session, Permission.ROUND_IN_PLAY)
                request.setHeader(b"content-type", b"text/html; charset=utf-8")
                return self._round_fragment(server, table).encode("utf-8")
            case ["shoes", server, table]:
                self._need(request, session, Permission.SHOES)
                return self._shoes_page(request, session, server, table)
            case ["terminal", server, terminal]:
                self._need(request, session, Permission.FLOOR)
                return self._terminal_page(request, session, server, terminal)
            case ["round", server, table, number]:
                self._need(request, session, Permission.RECALL)
                return self._round_page(request, session, server, table, _int(number, "round"))
            case ["picture", server, table, number]:
                self._need(request, session, Permission.RECALL)
                return self._picture(request, server, table, _int(number, "round"))
            case ["recall"]:
                self._need(request, session, Permission.RECALL)
                return self._recall_page(request, session)
            case ["verify"]:
                self._need(request, session, Permission.VERIFY)
                jobs = list(reversed(self.jobs.values()))
                body = pages.verify_page(self._viewer(session), self.source.servers(), jobs)
                return self._page(request, session, "Verify a log", body)
            case ["verify", job_id]:
                self._need(request, session, Permission.VERIFY)
                return self._verify_job(request, session, job_id)
            case ["reports"] | ["reports.csv"] | ["reports", "print"]:
                self._need(request, session, Permission.REPORTS)
                return self._report(request, session, parts)
        raise _Refused(404, "there is no such page")

    def _need_table(self, server: str, table: str) -> TableView:
        if not self.floor:
            self.rebuild()
        view = find_table(self.floor, server, table)
        if view is None:
            raise _Refused(404, f"the console knows no table {table!r} on a server {server!r}")
        return view

    def _table_page(self, request: Request, session: Session, server: str, table: str) -> bytes:
        view = self._need_table(server, table)
        fragment = None
        if Permission.ROUND_IN_PLAY in _permissions(session):
            fragment = self._round_fragment(server, table)
        body = pages.table_page(self._viewer(session), view, fragment)
        return self._page(request, session, f"Table {table}", body)

    def _shoes_page(self, request: Request, session: Session, server: str, table: str) -> bytes:
        view = self._need_table(server, table)
        try:
            shoes = self.source.shoes(server, table)
        except ETGError as exc:
            raise _Refused(404, f"the log cannot be read: {exc}") from None
        body = pages.shoes_page(self._viewer(session), view, shoes)
        return self._page(request, session, f"Shoes of table {table}", body)

    def _round_fragment(self, server: str, table: str) -> Markup:
        try:
            last = self.source.last_round(server, table)
            if last is None:
                return Markup("<p>No round yet.</p>")
            _logged, timeline = self.source.round(server, table, last.round_id)
        except ETGError as exc:
            return html('<p class="error">The log cannot be read: {}</p>', str(exc))
        return pages.timeline_html(timeline, live=True)

    def _terminal_page(
        self, request: Request, session: Session, server: str, terminal: str
    ) -> bytes:
        if not self.floor:
            self.rebuild()
        view = find_terminal(self.floor, server, terminal)
        if view is None:
            raise _Refused(404, f"the console knows no terminal {terminal!r} on {server!r}")
        games = None
        if Permission.RECALL in _permissions(session):
            try:
                games = self.source.rounds(
                    RoundQuery(server=server, table=view.table, terminal=terminal, last=10)
                )
            except ETGError as exc:
                session.messages.append(f"the log cannot be read: {exc}")
                games = []
        body = pages.terminal_page(self._viewer(session), view, games)
        return self._page(request, session, f"Terminal {terminal}", body)

    def _round_page(
        self, request: Request, session: Session, server: str, table: str, number: int
    ) -> bytes:
        terminal = _arg(request, "terminal") or None
        try:
            logged, timeline = self.source.round(server, table, number)
        except ETGError as exc:
            raise _Refused(404, str(exc)) from None
        last_seq = logged.events[-1].seq if logged.events else 0
        body = pages.round_page(self._viewer(session), server, timeline, terminal, last_seq)
        return self._page(request, session, f"Round {number} of table {table}", body)

    def _picture(self, request: Request, server: str, table: str, number: int) -> bytes | int:
        if self.pictures is None:
            raise _Refused(404, "this console draws no pictures")
        size_text = _arg(request, "size") or "960x540"
        size = PICTURE_SIZES.get(size_text)
        if size is None:
            raise _Refused(400, f"a picture is one of {', '.join(PICTURE_SIZES)}")
        terminal = _arg(request, "terminal") or None
        try:
            logged, timeline = self.source.round(server, table, number)
        except ETGError as exc:
            raise _Refused(404, str(exc)) from None
        if terminal is not None and terminal not in timeline.credits:
            raise _Refused(400, f"terminal {terminal!r} did not play round {number}")
        last_seq = logged.events[-1].seq if logged.events else 0
        key = (server, table, number, last_seq, terminal, size)
        kept = self._picture_cache.get(key)
        if kept is not None:
            self._picture_cache.move_to_end(key)
            return _png(request, kept)
        drawing: Deferred[bytes] = deferToThreadPool(
            self.reactor, self._pools["pictures"], self.pictures, logged, timeline, terminal, size
        )

        def drawn(data: bytes) -> None:
            self._picture_cache[key] = data
            while len(self._picture_cache) > PICTURES_KEPT:
                self._picture_cache.popitem(last=False)
            _finish(request, _png(request, data))

        def failed(failure: Failure) -> None:
            log.failure(
                "drawing round {round} of {table} failed", failure, round=number, table=table
            )
            request.setResponseCode(500)
            request.setHeader(b"content-type", b"text/plain; charset=utf-8")
            _finish(
                request, f"the picture could not be drawn: {failure.getErrorMessage()}".encode()
            )

        drawing.addCallbacks(drawn, failed)
        return NOT_DONE_YET

    def _recall_page(self, request: Request, session: Session) -> bytes:
        names = ("server", "table", "terminal", "since", "until", "wager", "min_payout")
        form = {name: _arg(request, name) for name in names}
        found = problem = None
        if any(form.values()) or request.args:
            try:
                query = RoundQuery(
                    server=form["server"] or None,
                    table=form["table"] or None,
                    terminal=form["terminal"] or None,
                    since=parse_time_arg(form["since"]) if form["since"] else None,
                    until=(
                        parse_time_arg(form["until"], end_of_day=True) if form["until"] else None
                    ),
                    wager=form["wager"] or None,
                    min_payout=parse_money(form["min_payout"]) if form["min_payout"] else None,
                )
                if query.server is not None and query.server not in self.source.servers():
                    raise RecallError(f"the console reads no log of a server {query.server!r}")
                found = self.source.rounds(query)
            except (RecallError, MoneyError, ETGError) as exc:
                problem = str(exc)
        body = pages.recall_page(self._viewer(session), self.source.servers(), form, found, problem)
        return self._page(request, session, "Recall", body)

    def _verify_job(self, request: Request, session: Session, job_id: str) -> bytes:
        job = self.jobs.get(job_id)
        if job is None:
            raise _Refused(404, "no such verification")
        if job.status == "running":
            body = html(
                "<p>Verifying the log of {} (started {} by {}); this page shows the report "
                'when it is done.</p><p><a href="/verify/{}">Refresh</a></p>',
                job.server,
                job.started,
                job.person,
                job.id,
            )
            request.setHeader(b"refresh", b"2")
        elif job.report is not None:
            body = pages.verify_report_html(job.report)
        else:
            body = html('<p class="error">The log could not be verified: {}</p>', job.problem)
        return self._page(request, session, f"Verification of {job.server}", body)

    def _report(self, request: Request, session: Session, parts: list[str]) -> bytes | int:
        servers = self.source.servers()
        now = dt.datetime.fromtimestamp(self.reactor.seconds(), dt.UTC)
        current = self.shifts.shift_at(now)
        server = _arg(request, "server") or (servers[0] if servers else "")
        problem = None
        try:
            day = (
                dt.date.fromisoformat(_arg(request, "day")) if _arg(request, "day") else current.day
            )
            number = (
                _int(_arg(request, "shift"), "shift") if _arg(request, "shift") else current.number
            )
            shift = self.shifts.shift(day, number)
        except (ValueError, _Refused) as exc:
            problem, day, number, shift = str(exc), current.day, current.number, None
        if server not in servers:
            problem = problem or f"the console reads no log of a server {server!r}"
        viewer = self._viewer(session)
        day_shifts = self.shifts.shifts_of(day)
        if problem is not None or shift is None or not (request.args or parts != ["reports"]):
            body = pages.report_page(
                viewer, servers, server, day, number, day_shifts, None, None, problem
            )
            return self._page(request, session, "Meter reports", body)
        folding: Deferred[list[ReportRow]] = deferToThreadPool(
            self.reactor, self._pools["reports"], self.source.shift_report, server, shift, now
        )
        chosen = shift

        def done(rows: list[ReportRow]) -> None:
            if parts == ["reports.csv"]:
                request.setHeader(b"content-type", b"text/csv; charset=utf-8")
                name = f"etg-report-{server}-{chosen.day.isoformat()}-shift{chosen.number}.csv"
                request.setHeader(b"content-disposition", f'attachment; filename="{name}"'.encode())
                self._audit(
                    request, session, "report downloaded", target=f"{server} {chosen.label}"
                )
                _finish(request, report_csv(rows).encode("utf-8"))
            elif parts == ["reports", "print"]:
                printed = now.strftime("%Y-%m-%d %H:%M")
                body = pages.printable_report(chosen, server, rows, printed)
                _finish(request, self._page(request, session, "Meter report", body, printable=True))
            else:
                body = pages.report_page(
                    viewer, servers, server, day, number, day_shifts, chosen, rows, None
                )
                _finish(request, self._page(request, session, "Meter reports", body))

        def failed(failure: Failure) -> None:
            log.failure("the report of {server} failed", failure, server=server)
            body = pages.report_page(
                viewer,
                servers,
                server,
                day,
                number,
                day_shifts,
                None,
                None,
                f"the report could not be made: {failure.getErrorMessage()}",
            )
            _finish(request, self._page(request, session, "Meter reports", body))

        folding.addCallbacks(done, failed)
        return NOT_DONE_YET

    # --------------------------------------------------------------------------------- POST

    def _post(self, request: Request, session: Session, parts: list[str]) -> bytes | int:
        match parts:
            case ["logout"]:
                self.sessions.end(session.id)
                self._audit(request, session, "sign-out")
                _cookie(request, COOKIE, b"", max_age=0)
                return self._redirect(request, "/login")
            case ["action", "cash"]:
                self._need(request, session, Permission.CASH)
                return self._cash(request, session)
            case ["action", "table-state"]:
                return self._table_state(request, session)
            case ["action", "access"]:
                self._need(request, session, Permission.REVOKE)
                return self._access(request, session)
            case ["action", "limits"]:
                self._need(request, session, Permission.LIMITS)
                self._audit(
                    request,
                    session,
                    "limits",
                    target=f"{_arg(request, 'server')} {_arg(request, 'table')}",
                    outcome="refused",
                    detail=LIMITS_REFUSAL,
                    asked=_arg(request, "change")[:200],
                )
                session.messages.append(f"Refused: {LIMITS_REFUSAL}.")
                return self._redirect(request, _back(_arg(request, "back")))
            case ["action", "verify"]:
                self._need(request, session, Permission.VERIFY)
                return self._start_verify(request, session)
        raise _Refused(404, "there is no such action")

    def _link(self, server: str) -> ServerLink:
        link = self.links.get(server)
        if link is None:
            raise _Refused(404, f"the console knows no server {server!r}")
        return link

    def _send(
        self,
        request: Request,
        session: Session,
        server: str,
        what: str,
        target: str,
        command: type[amp.Command],
        arguments: dict[str, Any],
        done: Callable[[dict[str, Any]], str],
    ) -> int:
        """Send an action to ``server`` with the person and role; audit and tell its
        outcome, then go back."""
        link = self._link(server)
        back = _back(_arg(request, "back"))
        request_id = new_token()[:32]
        arguments = {
            **arguments,
            "request_id": request_id,
            "person": session.person,
            "role": session.role.value,
        }
        sent = link.call(command, **arguments)
        detail = {k: v for k, v in arguments.items() if k not in ("person", "role", "request_id")}

        def answered(answer: dict[str, Any]) -> None:
            sentence = done(answer)
            logged = answer.get("logged")
            if logged != 1:
                sentence += (
                    " (the server did not log who asked: an older server, or its log failed)"
                )
            self._audit(
                request,
                session,
                what,
                target=target,
                detail=sentence,
                server=server,
                request_id=request_id,
                arguments=detail,
            )
            session.messages.append(sentence)
            self.rebuild()
            _finish(request, self._redirect(request, back))

        def refused(failure: Failure) -> None:
            error = failure.value
            if isinstance(error, amp.RemoteAmpError):
                why = f"{error.description}"
            elif isinstance(error, NotConnected):
                why = str(error)
            else:
                why = failure.getErrorMessage() or type(error).__name__
            self._audit(
                request,
                session,
                what,
                target=target,
                outcome="refused",
                detail=why,
                server=server,
                request_id=request_id,
                arguments=detail,
            )
            session.messages.append(f"Refused: {why}")
            _finish(request, self._redirect(request, back))

        sent.addCallbacks(answered, refused)
        return NOT_DONE_YET

    def _cash(self, request: Request, session: Session) -> bytes | int:
        server, terminal = _arg(request, "server"), _arg(request, "terminal")
        kind, reference = _arg(request, "kind"), _arg(request, "reference")
        back = _back(_arg(request, "back"))
        amount_text = _arg(request, "amount")
        try:
            if kind not in ("in", "out"):
                raise MoneyError(f"{kind!r} is neither a cash in nor a cash out")
            if not reference:
                raise MoneyError("a cash in or out needs a reference (the slip or voucher)")
            amount = 0 if kind == "out" and amount_text in ("", "all") else parse_money(amount_text)
            if kind == "in" and amount <= 0:
                raise MoneyError("a cash in is more than $0.00")
        except MoneyError as exc:
            return self._bad_input(request, session, f"cash-{kind}", terminal, str(exc), back)
        if kind == "in":
            return self._send(
                request,
                session,
                server,
                "cash-in",
                f"{server} {terminal}",
                CashIn,
                {"terminal": terminal, "amount": amount, "reference": reference},
                lambda a: (
                    f"Cash in of {format_money(amount)} to {terminal}: its credits are now "
                    f"{format_money(a['balance'])}."
                ),
            )
        return self._send(
            request,
            session,
            server,
            "cash-out",
            f"{server} {terminal}",
            CashOut,
            {"terminal": terminal, "amount": amount, "reference": reference},
            lambda a: (
                f"Cash out of {format_money(a['paid'])} from {terminal}: its credits are now "
                f"{format_money(a['balance'])}."
            ),
        )

    def _bad_input(
        self, request: Request, session: Session, what: str, target: str, why: str, back: str
    ) -> bytes:
        self._audit(request, session, what, target=target, outcome="refused", detail=why)
        session.messages.append(f"Refused: {why}")
        return self._redirect(request, back)

    def _table_state(self, request: Request, session: Session) -> bytes | int:
        server, table = _arg(request, "server"), _arg(request, "table")
        state, reason = _arg(request, "state"), _arg(request, "reason")
        back = _back(_arg(request, "back"))
        permissions = _permissions(session)
        if Permission.TABLE_STATE not in permissions:
            view = self._need_table(server, table)
            if not (
                Permission.REOPEN_AFTER_FAULT in permissions and state == "open" and view.faulted
            ):
                self._need(request, session, Permission.TABLE_STATE)
        if state not in ("open", "close", "out-of-service"):
            return self._bad_input(
                request, session, "table-state", table, f"{state!r} is not a table state", back
            )
        if not reason:
            return self._bad_input(
                request,
                session,
                state,
                f"{server} {table}",
                "a change of the table's state needs a reason",
                back,
            )
        return self._send(
            request,
            session,
            server,
            state,
            f"{server} {table}",
            SetTableState,
            {"state": state, "reason": reason, "table": table},
            lambda a: (
                f"Table {table} is now {a['state']}"
                + (
                    " (a round in play finishes first)."
                    if a["state"] == "open" and state != "open"
                    else "."
                )
            ),
        )

    def _access(self, request: Request, session: Session) -> bytes | int:
        server, terminal = _arg(request, "server"), _arg(request, "terminal")
        access, reason = _arg(request, "access"), _arg(request, "reason")
        back = _back(_arg(request, "back"))
        if access not in ("revoke", "reinstate"):
            return self._bad_input(
                request,
                session,
                "terminal-access",
                terminal,
                f"{access!r} is neither revoke nor reinstate",
                back,
            )
        if not reason:
            return self._bad_input(
                request,
                session,
                f"{access}-terminal",
                terminal,
                f"to {access} a terminal needs a reason",
                back,
            )
        return self._send(
            request,
            session,
            server,
            f"{access}-terminal",
            f"{server} {terminal}",
            SetTerminalAccess,
            {"terminal": terminal, "access": access, "reason": reason},
            lambda a: (
                f"Terminal {terminal} {'revoked' if access == 'revoke' else 'reinstated'}; "
                f"revoked now: {', '.join(a['revoked']) or 'none'}."
            ),
        )

    def _start_verify(self, request: Request, session: Session) -> bytes:
        server = _arg(request, "server")
        if server not in self.source.servers():
            raise _Refused(404, f"the console reads no log of a server {server!r}")
        started = dt.datetime.fromtimestamp(self.reactor.seconds(), dt.UTC)
        job = VerifyJob(
            new_token()[:16], server, session.person, started.strftime("%Y-%m-%d %H:%M:%S UTC")
        )
        self.jobs[job.id] = job
        while len(self.jobs) > 20:
            self.jobs.popitem(last=False)
        self._audit(request, session, "verify", target=server, detail="started", job=job.id)
        verifying: Deferred[VerifyReport] = deferToThreadPool(
            self.reactor, self._pools["verify"], self.source.verify, server
        )

        def done(report: VerifyReport) -> None:
            job.report, job.status = report, "proven" if report.ok else "FAILED"

        def failed(failure: Failure) -> None:
            job.problem, job.status = failure.getErrorMessage(), "could not be read"

        verifying.addCallbacks(done, failed)
        return self._redirect(request, f"/verify/{job.id}")

    # -------------------------------------------------------------------------- live events

    def _stream(self, request: Request, session: Session) -> int:
        request.setHeader(b"content-type", b"text/event-stream; charset=utf-8")
        request.setHeader(b"cache-control", b"no-store")
        if not self.floor:
            self.rebuild()
        request.write(b"retry: 3000\n\n" + self._event())
        self._streams[request] = session.id
        request.notifyFinish().addBoth(lambda _: self._streams.pop(request, None))
        return NOT_DONE_YET

    def _event(self) -> bytes:
        data = json.dumps({"shape": self._shape, "values": self._values}, separators=(",", ":"))
        return b"data: " + data.encode("utf-8") + b"\n\n"

    def _push(self) -> None:
        event = self._event()
        for request, session_id in list(self._streams.items()):
            if self.sessions.get(session_id, touch=False) is None:
                self._end_stream(request)
            else:
                request.write(event)

    def _ping(self) -> None:
        for request, session_id in list(self._streams.items()):
            if self.sessions.get(session_id, touch=False) is None:
                self._end_stream(request)
            else:
                request.write(b": keep-alive\n\n")

    def _end_stream(self, request: Request) -> None:
        self._streams.pop(request, None)
        _finish(request, b"")


def _permissions(session: Session) -> frozenset[Permission]:
    return PERMISSIONS[session.role]


def _int(text: str, what: str) -> int:
    if not text.isdigit() or len(text) > 12:
        raise _Refused(400, f"{what} {text!r} is not a number")
    return int(text)


def _address(request: Request) -> str:
    peer = request.getClientAddress()
    return str(getattr(peer, "host", "") or "")


def _cookie(request: Request, name: bytes, value: bytes, max_age: int | None = None) -> None:
    """Set a cookie only this host gets, over HTTPS, never with a request another site
    starts, out of scripts' reach (Secure, HttpOnly, SameSite=Strict, path /: what the
    ``__Host-`` prefix requires). ``max_age`` 0 deletes it; None: until the browser closes."""
    request.addCookie(
        name,
        value,
        path=b"/",
        secure=True,
        httpOnly=True,
        sameSite=b"strict",
        max_age=None if max_age is None else str(max_age).encode(),
    )


def _png(request: Request, data: bytes) -> bytes:
    request.setHeader(b"content-type", b"image/png")
    request.setHeader(b"cache-control", b"private, max-age=300")
    return data


def _finish(request: Request, body: bytes) -> None:
    """Write ``body`` and finish, unless the browser went away meanwhile."""
    if request.finished or getattr(request, "_disconnected", False):
        return
    if body:
        request.write(body)
    request.finish()


class _Root(Resource):
    """The one resource of the site: every path goes to :meth:`ConsoleApp.handle`."""

    isLeaf = True

    def __init__(self, app: ConsoleApp) -> None:
        super().__init__()
        self.app = app

    def render(self, request: Request) -> bytes | int:
        return self.app.handle(request)
