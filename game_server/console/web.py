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
   address is kept in access logs, proxies and the browser's history
   (:func:`~game_server.console.request.read_form`); the sign-in form
   (:mod:`~game_server.console.signin`) is read the same way;
5. a POST must carry the session's CSRF token (else refused, audited);
6. the route's :class:`~game_server.console.roles.Permission` must be the role's (else 403
   with the sentence, audited);
7. actions (:mod:`~game_server.console.actions`) go to the table server over its AMP link
   with the person and role; the outcome is audited (with the request id, the same as in the
   table's event log) and told on the next page.

Slow work runs in worker threads, one pool each, so the reactor keeps serving
(:mod:`~game_server.console.background`): recall pictures (pygame, given as
:class:`~game_server.console.background.Pictures` by ``tools``, which may import the
terminal's renderers), log verification, meter reports. How a request is read and answered
(its form, cookies, refusals, pages) is :mod:`~game_server.console.request`.

Entry point: :class:`ConsoleApp` (``app.resource()`` for a ``Site``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any, Final

from twisted.internet.task import LoopingCall
from twisted.python.threadpool import ThreadPool
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Request

from game_server.console import pages, recall_pages
from game_server.console.accounts import AccountBook
from game_server.console.actions import Actions
from game_server.console.audit import AuditLog
from game_server.console.background import Drawings, Pictures, Reports, Verifications
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
from game_server.console.links import ServerLink
from game_server.console.reports import ShiftClock
from game_server.console.request import (
    MAX_BODY,
    Refused,
    arg,
    audit_request,
    finish,
    need,
    number_arg,
    page,
    permissions_of,
    read_form,
    redirect,
    segments,
    set_cookie,
    viewer,
)
from game_server.console.roles import Permission
from game_server.console.sessions import COOKIE, Session, Sessions, same
from game_server.console.signin import SignIn, refresh_accounts
from game_server.console.source import FloorSource, RoundQuery
from game_server.recall.query import RecallError, parse_time_arg
from shared.errors import ETGError, MoneyError
from shared.money import parse_money

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
#: Seconds between two comments that keep an idle event stream open.
KEEPALIVE_SECONDS: Final = 15.0
#: Seconds the floor waits after a reading before it is rebuilt (readings coalesce).
REBUILD_DELAY: Final = 0.2


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
        self.sessions = Sessions(reactor.seconds)
        self.signin = SignIn(reactor, accounts, audit, self.sessions)
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
        self.drawings = Drawings(reactor, self._pools["pictures"], source, pictures)
        self.verifications = Verifications(reactor, self._pools["verify"], source, audit)
        self.reports = Reports(reactor, self._pools["reports"], source, shifts, audit)
        self.actions = Actions(self.links, audit, self.rebuild, self._need_table)
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
        parts = segments(request)
        method = request.method
        session: Session | None = None
        try:
            if parts[0] == "static" and len(parts) == 2 and method == b"GET":
                return self._static_file(request, parts[1])
            if parts == ["favicon.ico"]:
                raise Refused(404, "no icon")
            length = request.getHeader(b"content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                raise Refused(413, "the request is too large")
            if method == b"POST":
                self._check_origin(request)
            if parts == ["login"]:
                return self.signin.render(request)
            session = self._session(request)
            if session is None:
                if method == b"POST":
                    raise Refused(
                        403,
                        "sign in first (a form sent without the session, e.g. from another site)",
                        audit="refused: no session (possible cross-site request)",
                    )
                return redirect(request, "/login")
            if method == b"POST":
                read_form(request)
                if not same(arg(request, "csrf"), session.csrf):
                    raise Refused(
                        403,
                        "the form's security token is missing or wrong (a cross-site request?); "
                        "reload the page and try again",
                        audit="refused: CSRF token missing or wrong",
                    )
                return self._post(request, session, parts)
            if method in (b"GET", b"HEAD"):
                return self._get(request, session, parts)
            raise Refused(405, "this method is not served")
        except Refused as refused:
            return self._refused(request, session, refused)

    def _refused(self, request: Request, session: Session | None, refused: Refused) -> bytes:
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
        shown_to = None if session is None else viewer(session)
        titles = {
            400: "Bad request",
            403: "Refused",
            404: "Not found",
            413: "Too large",
            415: "Not a form",
        }
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        return pages.message_page(titles.get(refused.status, "Refused"), refused.text, shown_to)

    def _audit(self, request: Request, session: Session | None, what: str, **fields: Any) -> None:
        audit_request(self.audit, request, session, what, **fields)

    def _static_file(self, request: Request, name: str) -> bytes:
        kind = STATIC.get(name)
        if kind is None:
            raise Refused(404, "no such file")
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
            raise Refused(
                403,
                "a form sent from another site is refused (cross-site request forgery)",
                audit=f"refused: cross-site request from {shown}",
            )

    def _session(self, request: Request, *, touch: bool = True) -> Session | None:
        cookie = request.getCookie(COOKIE)
        if not cookie:
            return None
        refresh_accounts(self.accounts)
        session = self.sessions.get(cookie.decode("ascii", "replace"), touch=touch)
        if session is not None and self.accounts.get(session.person) is None:
            self.sessions.end(session.id)
            return None
        return session

    # ---------------------------------------------------------------------------------- GET

    def _get(self, request: Request, session: Session, parts: list[str]) -> bytes | int:
        match parts:
            case [""]:
                need(session, Permission.FLOOR)
                if not self.floor:
                    self.rebuild()
                body = pages.floor_page(viewer(session), self.floor, self.source.describe())
                return page(request, session, "The floor", body, shape=self._shape)
            case ["events"]:
                need(session, Permission.FLOOR)
                return self._stream(request, session)
            case ["table", server, table]:
                need(session, Permission.FLOOR)
                return self._table_page(request, session, server, table)
            case ["table", server, table, "round"]:
                need(session, Permission.ROUND_IN_PLAY)
                request.setHeader(b"content-type", b"text/html; charset=utf-8")
                return self._round_fragment(server, table).encode("utf-8")
            case ["shoes", server, table]:
                need(session, Permission.SHOES)
                return self._shoes_page(request, session, server, table)
            case ["terminal", server, terminal]:
                need(session, Permission.FLOOR)
                return self._terminal_page(request, session, server, terminal)
            case ["round", server, table, number]:
                need(session, Permission.RECALL)
                return self._round_page(
                    request, session, server, table, number_arg(number, "round")
                )
            case ["picture", server, table, number]:
                need(session, Permission.RECALL)
                return self.drawings.answer(request, server, table, number_arg(number, "round"))
            case ["recall"]:
                need(session, Permission.RECALL)
                return self._recall_page(request, session)
            case ["verify"]:
                need(session, Permission.VERIFY)
                return self.verifications.list_page(request, session)
            case ["verify", job_id]:
                need(session, Permission.VERIFY)
                return self.verifications.job_page(request, session, job_id)
            case ["reports"] | ["reports.csv"] | ["reports", "print"]:
                need(session, Permission.REPORTS)
                return self.reports.answer(request, session, parts)
        raise Refused(404, "there is no such page")

    def _need_table(self, server: str, table: str) -> TableView:
        if not self.floor:
            self.rebuild()
        view = find_table(self.floor, server, table)
        if view is None:
            raise Refused(404, f"the console knows no table {table!r} on a server {server!r}")
        return view

    def _table_page(self, request: Request, session: Session, server: str, table: str) -> bytes:
        view = self._need_table(server, table)
        fragment = None
        if Permission.ROUND_IN_PLAY in permissions_of(session):
            fragment = self._round_fragment(server, table)
        body = pages.table_page(viewer(session), view, fragment)
        return page(request, session, f"Table {table}", body)

    def _shoes_page(self, request: Request, session: Session, server: str, table: str) -> bytes:
        view = self._need_table(server, table)
        try:
            shoes = self.source.shoes(server, table)
        except ETGError as exc:
            raise Refused(404, f"the log cannot be read: {exc}") from None
        body = pages.shoes_page(viewer(session), view, shoes)
        return page(request, session, f"Shoes of table {table}", body)

    def _round_fragment(self, server: str, table: str) -> Markup:
        try:
            last = self.source.last_round(server, table)
            if last is None:
                return Markup("<p>No round yet.</p>")
            _logged, timeline = self.source.round(server, table, last.round_id)
        except ETGError as exc:
            return html('<p class="error">The log cannot be read: {}</p>', str(exc))
        return recall_pages.timeline_html(timeline, live=True)

    def _terminal_page(
        self, request: Request, session: Session, server: str, terminal: str
    ) -> bytes:
        if not self.floor:
            self.rebuild()
        view = find_terminal(self.floor, server, terminal)
        if view is None:
            raise Refused(404, f"the console knows no terminal {terminal!r} on {server!r}")
        games = None
        if Permission.RECALL in permissions_of(session):
            try:
                games = self.source.rounds(
                    RoundQuery(server=server, table=view.table, terminal=terminal, last=10)
                )
            except ETGError as exc:
                session.messages.append(f"the log cannot be read: {exc}")
                games = []
        body = pages.terminal_page(viewer(session), view, games)
        return page(request, session, f"Terminal {terminal}", body)

    def _round_page(
        self, request: Request, session: Session, server: str, table: str, number: int
    ) -> bytes:
        terminal = arg(request, "terminal") or None
        try:
            logged, timeline = self.source.round(server, table, number)
        except ETGError as exc:
            raise Refused(404, str(exc)) from None
        last_seq = logged.events[-1].seq if logged.events else 0
        body = recall_pages.round_page(viewer(session), server, timeline, terminal, last_seq)
        return page(request, session, f"Round {number} of table {table}", body)

    def _recall_page(self, request: Request, session: Session) -> bytes:
        names = ("server", "table", "terminal", "since", "until", "wager", "min_payout")
        form = {name: arg(request, name) for name in names}
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
        body = recall_pages.recall_page(
            viewer(session), self.source.servers(), form, found, problem
        )
        return page(request, session, "Recall", body)

    # --------------------------------------------------------------------------------- POST

    def _post(self, request: Request, session: Session, parts: list[str]) -> bytes | int:
        match parts:
            case ["logout"]:
                self.sessions.end(session.id)
                self._audit(request, session, "sign-out")
                set_cookie(request, COOKIE, b"", max_age=0)
                return redirect(request, "/login")
            case ["action", "cash"]:
                need(session, Permission.CASH)
                return self.actions.cash(request, session)
            case ["action", "table-state"]:
                return self.actions.table_state(request, session)
            case ["action", "access"]:
                need(session, Permission.REVOKE)
                return self.actions.access(request, session)
            case ["action", "limits"]:
                need(session, Permission.LIMITS)
                return self.actions.limits(request, session)
            case ["action", "verify"]:
                need(session, Permission.VERIFY)
                return self.verifications.start(request, session)
        raise Refused(404, "there is no such action")

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
        finish(request, b"")


class _Root(Resource):
    """The one resource of the site: every path goes to :meth:`ConsoleApp.handle`."""

    isLeaf = True

    def __init__(self, app: ConsoleApp) -> None:
        super().__init__()
        self.app = app

    def render(self, request: Request) -> bytes | int:
        return self.app.handle(request)
