"""Signing in to the console: the form, the tries' guard, the password and the one-time code.

``GET /login`` gives the form with a CSRF token bound to a cookie (a double submit);
``POST /login`` checks that token, takes a try from the :class:`~game_server.console.sessions.
LoginGuard` (counted as failed before the password is checked, so that tries sent at once are
checked five times at most), checks the password (scrypt) in a worker thread and a
supervisor's one-time code (:data:`~game_server.console.roles.SECOND_FACTOR`), then opens a
session. Every refusal and every sign-in is audited.

Entry point: :class:`SignIn`, whose :meth:`SignIn.render` serves ``/login``.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.server import NOT_DONE_YET, Request

from game_server.console import pages
from game_server.console.accounts import AccountBook
from game_server.console.audit import AuditLog
from game_server.console.request import (
    TOKEN,
    Refused,
    arg,
    client_address,
    finish,
    read_form,
    redirect,
    set_cookie,
)
from game_server.console.roles import SECOND_FACTOR
from game_server.console.sessions import (
    COOKIE,
    LOGIN_COOKIE,
    Attempt,
    LoginGuard,
    Sessions,
    SignInRefused,
    new_token,
    same,
)
from game_server.console.totp import TotpVerifier
from shared.errors import ETGError

log = Logger()


def refresh_accounts(accounts: AccountBook) -> None:
    """Take in ``etg console user`` changes made while the console runs."""
    try:
        accounts.refresh()
    except ETGError as exc:
        log.error("the accounts file cannot be used; nobody may sign in: {why}", why=str(exc))


class SignIn:
    """The sign-in of the console (see the module docstring).

    Args:
        reactor: The reactor (its clock, and its thread pool for the password's check).
        accounts: The people.
        audit: The console's audit log.
        sessions: Where a signed-in person's session is opened.
    """

    def __init__(
        self, reactor: Any, accounts: AccountBook, audit: AuditLog, sessions: Sessions
    ) -> None:
        self.reactor = reactor
        self.accounts = accounts
        self.audit = audit
        self.sessions = sessions
        self.guard = LoginGuard(reactor.seconds)
        self.totp = TotpVerifier()

    def render(self, request: Request) -> bytes | int:
        """Serve ``/login``: the form (GET) or a try (POST)."""
        if request.method == b"GET":
            return self._form(request)
        if request.method != b"POST":
            raise Refused(405, "sign in with the form")
        read_form(request)
        cookie = (request.getCookie(LOGIN_COOKIE) or b"").decode("ascii", "replace")
        if not cookie or not same(arg(request, "csrf"), cookie):
            raise Refused(
                403,
                "the sign-in form's security token is missing or wrong; reload the page",
                audit="refused: sign-in without the form's CSRF token",
            )
        name, password, code = (arg(request, k) for k in ("name", "password", "code"))
        refresh_accounts(self.accounts)
        address = client_address(request)
        try:
            # Counted as failed before scrypt runs: however many tries arrive at once, at
            # most MAX_FAILURES are ever checked (sessions.py).
            attempt = self.guard.begin(name, address)
        except SignInRefused as refused:
            self.audit.write(
                "sign-in", person=name, address=address, outcome="refused", detail=str(refused)
            )
            return self.again(request, str(refused))
        try:
            signing: Deferred[Any] = deferToThreadPool(
                self.reactor, self.reactor.getThreadPool(), self.accounts.sign_in, name, password
            )
        except BaseException:
            self.guard.failed(attempt)  # never leave the name held by a try that never ran
            raise
        signing.addCallback(self._checked, request, attempt, name, code, address)
        signing.addErrback(self._failed, request, attempt)
        return NOT_DONE_YET

    def again(self, request: Request, problem: str) -> bytes:
        """The form again (403), with a fresh token and the sentence ``problem``."""
        request.setResponseCode(403)
        token = new_token()
        set_cookie(request, LOGIN_COOKIE, token.encode(), max_age=900)
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        return pages.login_page(token, problem)

    def _form(self, request: Request) -> bytes:
        # The form's token is the cookie's: another tab or a stray request (a favicon)
        # that fetches the form again must not make the first form's token stale.
        kept = (request.getCookie(LOGIN_COOKIE) or b"").decode("ascii", "replace")
        token = kept if TOKEN.fullmatch(kept) else new_token()
        set_cookie(request, LOGIN_COOKIE, token.encode(), max_age=900)
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        return pages.login_page(token)

    def _problem(self, account: Any, name: str, code: str) -> str | None:
        """What is wrong with a try whose password check answered ``account`` (None: right)."""
        if account is None:
            return "wrong name or password"
        if account.role in SECOND_FACTOR:
            secret = account.totp_secret
            if secret is None or not self.totp.check(name, secret, code, self.reactor.seconds()):
                return "wrong or missing one-time code"
        return None

    def _checked(
        self,
        account: Any,
        request: Request,
        attempt: Attempt,
        name: str,
        code: str,
        address: str,
    ) -> None:
        """The password was checked: refuse the try (and audit a lock it makes), or open a
        session and go to the floor."""
        problem = self._problem(account, name, code)
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
            finish(request, self.again(request, "wrong name, password or code"))
            return
        self.guard.succeeded(attempt)
        session = self.sessions.create(account.name, account.role, address)
        set_cookie(request, COOKIE, session.id.encode())
        set_cookie(request, LOGIN_COOKIE, b"", max_age=0)
        self.audit.write("sign-in", person=account.name, role=account.role.value, address=address)
        finish(request, redirect(request, "/"))

    def _failed(self, failure: Failure, request: Request, attempt: Attempt) -> None:
        # The scrypt or the answer broke: the name is free again, the try stays counted.
        self.guard.failed(attempt)
        log.failure("a sign-in failed", failure)
        request.setResponseCode(500)
        finish(request, pages.message_page("Error", "the sign-in failed; try again", None))
