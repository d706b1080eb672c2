"""Signed-in sessions and the sign-in guard of the console.

A session is a random 256-bit id in a cookie (``__Host-etg``: Secure, HttpOnly,
SameSite=Strict, path ``/``, no domain: the browser sends it only over HTTPS, only to this
host, never with a request another site starts, and no script can read it), kept server side
with the person, their role and the session's CSRF token (another random 256 bits, in every
form; a POST without it is refused). A session ends after :data:`IDLE_SECONDS` without a
request, :data:`MAX_SECONDS` after sign-in, at sign-out, or when the account is removed.

Failed sign-ins are rate limited (:class:`LoginGuard`): more than :data:`MAX_FAILURES`
failures within :data:`WINDOW_SECONDS` for one account name, or from one address, refuse
every further try of that name or from that address (even with the right password) until
the oldest of them is older than the window. Every failure and every refusal is written to
the audit log by the web layer.

Entry points: :class:`Sessions`, :class:`Session`, :class:`LoginGuard`.
"""

from __future__ import annotations

import hmac
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from game_server.console.roles import Role

#: Seconds without a request after which a session ends.
IDLE_SECONDS: Final = 15 * 60
#: Seconds after sign-in after which a session ends whatever happens.
MAX_SECONDS: Final = 12 * 60 * 60
#: Failed sign-ins allowed within the window, per name and per address.
MAX_FAILURES: Final = 5
WINDOW_SECONDS: Final = 15 * 60
#: The session cookie and the sign-in form's cookie (``__Host-``: secure, host-only, path /).
COOKIE: Final = b"__Host-etg"
LOGIN_COOKIE: Final = b"__Host-etg-login"


def new_token() -> str:
    """256 random bits from the operating system, as hex."""
    return os.urandom(32).hex()


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two tokens."""
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass
class Session:
    """One signed-in person."""

    id: str
    person: str
    role: Role
    csrf: str
    address: str
    started: float
    seen: float
    messages: list[str] = field(default_factory=list)


class Sessions:
    """The open sessions, on an injected clock."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._open: dict[str, Session] = {}

    def create(self, person: str, role: Role, address: str) -> Session:
        now = self._clock()
        session = Session(new_token(), person, role, new_token(), address, now, now)
        self._open[session.id] = session
        return session

    def get(self, session_id: str, *, touch: bool = True) -> Session | None:
        """The session, if it is open (ended ones are forgotten); ``touch`` counts this as
        a request (the idle time starts again)."""
        session = self._open.get(session_id)
        if session is None:
            return None
        now = self._clock()
        if now - session.seen > IDLE_SECONDS or now - session.started > MAX_SECONDS:
            del self._open[session_id]
            return None
        if touch:
            session.seen = now
        return session

    def end(self, session_id: str) -> None:
        self._open.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._open)


class LoginGuard:
    """Failed sign-ins per account name and per address, in a sliding window."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._failures: dict[tuple[str, str], deque[float]] = {}

    def _recent(self, key: tuple[str, str]) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        horizon = self._clock() - WINDOW_SECONDS
        while times and times[0] <= horizon:
            times.popleft()
        return times

    def refusal(self, name: str, address: str) -> str | None:
        """Why a sign-in of ``name`` from ``address`` is refused now, or None."""
        for key, what in (
            (("name", name), f"the account {name!r}"),
            (("address", address), f"the address {address}"),
        ):
            times = self._recent(key)
            if len(times) >= MAX_FAILURES:
                wait = int(times[0] + WINDOW_SECONDS - self._clock()) + 1
                return (
                    f"too many failed sign-ins for {what} ({len(times)} in "
                    f"{WINDOW_SECONDS // 60} minutes); try again in {-(-wait // 60)} minute(s)"
                )
        return None

    def failed(self, name: str, address: str) -> bool:
        """Count a failure; whether it locks the name or the address from now on."""
        now = self._clock()
        locked = False
        for key in (("name", name), ("address", address)):
            times = self._recent(key)
            times.append(now)
            locked = locked or len(times) == MAX_FAILURES
        return locked

    def succeeded(self, name: str) -> None:
        """A good sign-in clears the name's failures (not the address's)."""
        self._failures.pop(("name", name), None)
