"""Signed-in sessions and the sign-in guard of the console.

A session is a random 256-bit id in a cookie (``__Host-etg``: Secure, HttpOnly,
SameSite=Strict, path ``/``, no domain: the browser sends it only over HTTPS, only to this
host, never with a request another site starts, and no script can read it), kept server side
with the person, their role and the session's CSRF token (another random 256 bits, in every
form; a POST without it is refused). A session ends after :data:`IDLE_SECONDS` without a
request, :data:`MAX_SECONDS` after sign-in, at sign-out, or when the account is removed.

Failed sign-ins are rate limited (:class:`LoginGuard`): :data:`MAX_FAILURES` failed tries
within :data:`WINDOW_SECONDS` for one account name, or from one address, refuse every
further try of that name or from that address (even with the right password, and whether
the password or the one-time code was wrong) until the oldest of them is older than the
window. A refused try costs no scrypt.

The guard holds however many tries arrive at once (40 posted together were all checked, and
the right password among them signed in, when a failure was counted only after its scrypt):

- a try is counted as failed when it is *begun* (:meth:`LoginGuard.begin`), before its
  password is checked, and taken back only if it signs in (:meth:`LoginGuard.succeeded`);
  so at most :data:`MAX_FAILURES` checks per name and per address can ever be running or
  done within a window, however the requests interleave;
- one try per account name runs at a time: a second try of a name whose first is still
  being checked is refused at once (not queued: a queue would let one client hold requests
  and memory open), and that refusal is not counted (the first try's outcome counts).

Every failure and every refusal is written to the audit log by the web layer. The guard is
only ever used from the reactor's thread (the scrypt runs in a worker thread; its answer
comes back to the reactor), so it needs no lock.

Entry points: :class:`Sessions`, :class:`Session`, :class:`LoginGuard`, :class:`Attempt`.
"""

from __future__ import annotations

import hmac
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from game_server.console.roles import Role
from shared.errors import ETGError

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


class SignInRefused(ETGError):
    """A sign-in try refused before it is checked; the message is the sentence to show."""


@dataclass(frozen=True)
class Attempt:
    """One sign-in try being checked (:meth:`LoginGuard.begin`).

    Attributes:
        name: The account name tried.
        address: Where it came from.
        at: When it was begun (its failure's time in the window).
        locks: Whether it was the last try allowed (its failure locks the name or address).
    """

    name: str
    address: str
    at: float
    locks: bool


class LoginGuard:
    """Sign-in tries per account name and per address, in a sliding window, counted before
    they are checked (see the module docstring)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._failures: dict[tuple[str, str], deque[float]] = {}
        self._checking: set[str] = set()

    def _recent(self, key: tuple[str, str]) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        horizon = self._clock() - WINDOW_SECONDS
        while times and times[0] <= horizon:
            times.popleft()
        if not times:
            del self._failures[key]
        return times

    def locked(self, name: str, address: str) -> str | None:
        """Why ``name`` or ``address`` is locked now (too many failed tries), or None."""
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

    def refusal(self, name: str, address: str) -> str | None:
        """Why a sign-in of ``name`` from ``address`` may not begin now, or None: the name
        or the address is locked, or a try of the name is being checked."""
        locked = self.locked(name, address)
        if locked is not None:
            return locked
        if name in self._checking:
            return (
                f"a sign-in for {name!r} is being checked already; wait for its answer, then "
                "try again"
            )
        return None

    def can_begin(self, name: str, address: str) -> bool:
        return self.refusal(name, address) is None

    def begin(self, name: str, address: str) -> Attempt:
        """Begin a try: count it as failed now, before its password is checked, and hold
        the name until :meth:`succeeded` or :meth:`failed`.

        Raises:
            SignInRefused: :meth:`refusal` names why it may not begin (nothing is counted).
        """
        refused = self.refusal(name, address)
        if refused is not None:
            raise SignInRefused(refused)
        now = self._clock()
        locks = False
        for key in (("name", name), ("address", address)):
            times = self._failures.setdefault(key, deque())
            times.append(now)
            locks = locks or len(times) == MAX_FAILURES
        self._checking.add(name)
        return Attempt(name, address, now, locks)

    def failed(self, attempt: Attempt) -> bool:
        """The try failed (it stays counted); whether it locked the name or the address."""
        self._checking.discard(attempt.name)
        return attempt.locks and self.locked(attempt.name, attempt.address) is not None

    def succeeded(self, attempt: Attempt) -> None:
        """The try signed in: the name's failures are cleared (not the address's), and this
        try no longer counts against the address."""
        self._checking.discard(attempt.name)
        self._failures.pop(("name", attempt.name), None)
        times = self._failures.get(("address", attempt.address))
        if times is not None and attempt.at in times:
            times.remove(attempt.at)
