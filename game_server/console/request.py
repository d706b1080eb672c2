"""Reading one request of the console and writing its answer.

A POST's fields are read from its body only (:func:`read_form`, then :func:`arg`), never from
its address; a request is refused with :class:`Refused` (a status, a sentence, and what to
audit); a role's permission is checked by :func:`need`; an answer is a page
(:func:`page`), a redirect, a picture, or written later by :func:`finish`.

Used by :mod:`game_server.console.web` (the pipeline that orders these checks) and by the
handlers beside it (:mod:`~game_server.console.signin`, :mod:`~game_server.console.actions`,
:mod:`~game_server.console.background`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import unquote, urlsplit
from weakref import WeakKeyDictionary

from twisted.logger import Logger
from twisted.web.http import parse_qs
from twisted.web.server import Request

from game_server.console import pages
from game_server.console.audit import AuditError, AuditLog
from game_server.console.html import Markup
from game_server.console.pages import Viewer
from game_server.console.roles import PERMISSIONS, Permission
from game_server.console.sessions import Session

log = Logger()

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
#: What a token looks like (:func:`~game_server.console.sessions.new_token`).
TOKEN: Final = re.compile(r"[0-9a-f]{64}")


class Refused(Exception):
    """A request refused with a status and a sentence (audited when ``audit``)."""

    def __init__(self, status: int, text: str, *, audit: str | None = None) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.audit = audit


def segments(request: Request) -> list[str]:
    """The request's path, split at ``/`` and unquoted."""
    path = request.path.decode("ascii", "replace")
    return [unquote(part) for part in path.split("/")[1:]]


#: Each POST's fields, read from its body by :func:`read_form` (never from its address).
_FORMS: WeakKeyDictionary[Request, dict[bytes, list[bytes]]] = WeakKeyDictionary()
_FIELD_NAME: Final = re.compile(r"[a-z_]{1,16}")


def read_form(request: Request) -> None:
    """Read a POST's fields from its body, for :func:`arg`.

    Raises:
        Refused: the address carries a query string (fields or a token: refused whatever
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
        raise Refused(
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
        raise Refused(413, "the request is too large")
    kind = (request.getHeader(b"content-type") or b"").split(b";")[0].strip().lower()
    if body and kind != FORM_TYPE:
        shown_kind = kind.decode("ascii", "replace")[:60] or "none"
        raise Refused(
            415,
            f"a form is sent as {FORM_TYPE.decode()}, as a browser sends it; this request's "
            f"body is {shown_kind}: send the form from the console's page",
            audit="refused: a body that is not a form",
        )
    if body.count(b"&") >= MAX_FIELDS:
        raise Refused(400, f"a form has at most {MAX_FIELDS} fields")
    _FORMS[request] = parse_qs(body, 1)


def _fields(request: Request) -> Mapping[bytes, list[bytes]]:
    """Where a request's fields are read: a POST's body (never its address), a GET's query."""
    if request.method == b"POST":
        return _FORMS.get(request, {})
    fields: Mapping[bytes, list[bytes]] = request.args
    return fields


def arg(request: Request, name: str) -> str:
    """The field ``name`` of the request (:func:`_fields`), stripped; "" when absent."""
    values = _fields(request).get(name.encode())
    if not values:
        return ""
    try:
        return str(values[0].decode("utf-8")).strip()
    except UnicodeDecodeError:
        raise Refused(400, f"{name} is not UTF-8 text") from None


def back_to(value: str) -> str:
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


def number_arg(text: str, what: str) -> int:
    """``text`` as a whole number (at most 12 digits), else refused naming ``what``."""
    if not text.isdigit() or len(text) > 12:
        raise Refused(400, f"{what} {text!r} is not a number")
    return int(text)


def client_address(request: Request) -> str:
    """The address the request came from ("" when unknown)."""
    peer = request.getClientAddress()
    return str(getattr(peer, "host", "") or "")


def set_cookie(request: Request, name: bytes, value: bytes, max_age: int | None = None) -> None:
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


def png(request: Request, data: bytes) -> bytes:
    """Answer with a PNG picture, kept by the browser for five minutes."""
    request.setHeader(b"content-type", b"image/png")
    request.setHeader(b"cache-control", b"private, max-age=300")
    return data


def finish(request: Request, body: bytes) -> None:
    """Write ``body`` and finish, unless the browser went away meanwhile."""
    if request.finished or getattr(request, "_disconnected", False):
        return
    if body:
        request.write(body)
    request.finish()


def redirect(request: Request, where: str) -> bytes:
    """Answer with a redirect to ``where`` (303: the browser then GETs it)."""
    request.setResponseCode(303)
    request.setHeader(b"location", where.encode("ascii"))
    return b""


def viewer(session: Session) -> Viewer:
    """Who a page is drawn for."""
    return Viewer(session.person, session.role, session.csrf)


def page(request: Request, session: Session, title: str, body: Markup, **kwargs: Any) -> bytes:
    """Answer with a whole page: ``body`` in the layout, with the session's messages (told
    once)."""
    request.setHeader(b"content-type", b"text/html; charset=utf-8")
    messages, session.messages = session.messages, []
    return pages.layout(title, viewer(session), body, messages=messages, **kwargs)


def permissions_of(session: Session) -> frozenset[Permission]:
    """What the session's role may do."""
    return PERMISSIONS[session.role]


def need(session: Session, permission: Permission) -> None:
    """Refuse (403, audited) unless the session's role has ``permission``."""
    if permission not in permissions_of(session):
        raise Refused(
            403,
            f"a{'n' if session.role.value[0] in 'aeiou' else ''} {session.role.value} may "
            f"not {permission.value}",
            audit=f"refused: {permission.name.lower()}",
        )


def audit_request(
    audit: AuditLog, request: Request, session: Session | None, what: str, **fields: Any
) -> None:
    """Write ``what`` to the console's audit log with the session's person and role and the
    request's address.

    Raises:
        AuditError: the audit log cannot be written (logged here too).
    """
    try:
        audit.write(
            what,
            person="" if session is None else session.person,
            role="" if session is None else session.role.value,
            address=client_address(request),
            **fields,
        )
    except AuditError:
        log.failure("the audit log cannot be written")
        raise
