"""The staff's actions from the console: cash in and out, a table's state, a terminal's access,
and the refused change of limits.

Each action is checked (the role's permission, the form's values), then sent to its table
server over the server's AMP link with the person and role (:meth:`Actions.send`); its
outcome, the server's answer or its refusal, is audited with the request id the table's
event log holds too, and told on the next page.

Entry point: :class:`Actions`, called by :class:`~game_server.console.web.ConsoleApp` for
each ``POST /action/...``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from twisted.protocols import amp
from twisted.python.failure import Failure
from twisted.web.server import NOT_DONE_YET, Request

from game_server.console.audit import AuditLog
from game_server.console.floorview import TableView
from game_server.console.links import NotConnected, ServerLink
from game_server.console.request import (
    Refused,
    arg,
    audit_request,
    back_to,
    finish,
    need,
    permissions_of,
    redirect,
)
from game_server.console.roles import Permission
from game_server.console.sessions import Session, new_token
from shared.errors import MoneyError
from shared.money import format_money, parse_money
from shared.protocol import CashIn, CashOut, SetTableState, SetTerminalAccess

#: What refuses a change of limits (issue 21: within the Rules Submission).
LIMITS_REFUSAL: Final = (
    "a table's limits are part of its Rules Submission, which the server proves at start and "
    "logs with every round: change the file and restart the server with `etg serve "
    "--change-config REASON` (logged as rules_change_stated); the console cannot change "
    "them while the table runs"
)


class Actions:
    """The console's actions (see the module docstring).

    Args:
        links: The AMP link of each table server, by its name.
        audit: The console's audit log.
        rebuild: Rebuilds the floor (after an action the server answered).
        need_table: The floor's view of a table (refused when the console knows none).
    """

    def __init__(
        self,
        links: Mapping[str, ServerLink],
        audit: AuditLog,
        rebuild: Callable[[], None],
        need_table: Callable[[str, str], TableView],
    ) -> None:
        self.links = links
        self.audit = audit
        self.rebuild = rebuild
        self.need_table = need_table

    def _audit(self, request: Request, session: Session, what: str, **fields: Any) -> None:
        audit_request(self.audit, request, session, what, **fields)

    def limits(self, request: Request, session: Session) -> bytes:
        """A change of limits: refused (they are the Rules Submission's), audited, told."""
        self._audit(
            request,
            session,
            "limits",
            target=f"{arg(request, 'server')} {arg(request, 'table')}",
            outcome="refused",
            detail=LIMITS_REFUSAL,
            asked=arg(request, "change")[:200],
        )
        session.messages.append(f"Refused: {LIMITS_REFUSAL}.")
        return redirect(request, back_to(arg(request, "back")))

    def link(self, server: str) -> ServerLink:
        link = self.links.get(server)
        if link is None:
            raise Refused(404, f"the console knows no server {server!r}")
        return link

    def send(
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
        link = self.link(server)
        back = back_to(arg(request, "back"))
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
            finish(request, redirect(request, back))

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
            finish(request, redirect(request, back))

        sent.addCallbacks(answered, refused)
        return NOT_DONE_YET

    def cash(self, request: Request, session: Session) -> bytes | int:
        server, terminal = arg(request, "server"), arg(request, "terminal")
        kind, reference = arg(request, "kind"), arg(request, "reference")
        back = back_to(arg(request, "back"))
        amount_text = arg(request, "amount")
        try:
            if kind not in ("in", "out"):
                raise MoneyError(f"{kind!r} is neither a cash in nor a cash out")
            if not reference:
                raise MoneyError("a cash in or out needs a reference (the slip or voucher)")
            amount = 0 if kind == "out" and amount_text in ("", "all") else parse_money(amount_text)
            if kind == "in" and amount <= 0:
                raise MoneyError("a cash in is more than $0.00")
        except MoneyError as exc:
            return self.bad_input(request, session, f"cash-{kind}", terminal, str(exc), back)
        if kind == "in":
            return self.send(
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
        return self.send(
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

    def bad_input(
        self, request: Request, session: Session, what: str, target: str, why: str, back: str
    ) -> bytes:
        self._audit(request, session, what, target=target, outcome="refused", detail=why)
        session.messages.append(f"Refused: {why}")
        return redirect(request, back)

    def table_state(self, request: Request, session: Session) -> bytes | int:
        server, table = arg(request, "server"), arg(request, "table")
        state, reason = arg(request, "state"), arg(request, "reason")
        back = back_to(arg(request, "back"))
        permissions = permissions_of(session)
        if Permission.TABLE_STATE not in permissions:
            view = self.need_table(server, table)
            if not (
                Permission.REOPEN_AFTER_FAULT in permissions and state == "open" and view.faulted
            ):
                need(session, Permission.TABLE_STATE)
        if state not in ("open", "close", "out-of-service"):
            return self.bad_input(
                request, session, "table-state", table, f"{state!r} is not a table state", back
            )
        if not reason:
            return self.bad_input(
                request,
                session,
                state,
                f"{server} {table}",
                "a change of the table's state needs a reason",
                back,
            )
        return self.send(
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

    def access(self, request: Request, session: Session) -> bytes | int:
        server, terminal = arg(request, "server"), arg(request, "terminal")
        access, reason = arg(request, "access"), arg(request, "reason")
        back = back_to(arg(request, "back"))
        if access not in ("revoke", "reinstate"):
            return self.bad_input(
                request,
                session,
                "terminal-access",
                terminal,
                f"{access!r} is neither revoke nor reinstate",
                back,
            )
        if not reason:
            return self.bad_input(
                request,
                session,
                f"{access}-terminal",
                terminal,
                f"to {access} a terminal needs a reason",
                back,
            )
        return self.send(
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
