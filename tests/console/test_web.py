"""The console's web application in-process (no browser, no sockets): every route against
every role, the security headers, CSRF and cross-site refusals, the attendant's reopen rule,
escaping, and what each refusal writes to the audit log.

The table server is a recording fake link (its ``ReadMeters`` answer is set by the test);
the logs are ``tests/recall/recall_logs.py``'s two tables (BJ-01, BJ-02) read through the
real :class:`~game_server.console.source.ServersOnlySource`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from html import escape
from pathlib import Path
from typing import Any

import pytest
from twisted.internet.defer import fail, succeed
from twisted.protocols import amp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recall"))
from console_harness import Console, Request
from recall_logs import build_log

from game_server.console.accounts import AccountBook
from game_server.console.links import LinkState
from game_server.console.reports import ShiftClock
from game_server.console.roles import Permission, Role, may
from game_server.console.sessions import MAX_FAILURES
from game_server.console.settings import ServerEntry
from game_server.console.source import ServersOnlySource
from game_server.console.totp import totp
from game_server.console.web import SECURITY_HEADERS
from game_server.keys import init_keys, load_public_key
from shared import protocol as p

HOSTILE = '<script>alert("x")</script>'


def _table_meters(table: str, wallets: dict[str, int], state: str = "open") -> dict[str, Any]:
    return {
        "table": table,
        "state": state,
        "reason": HOSTILE if state == "out-of-service" else "",
        "games_played": 3,
        "credits_in": 10_000,
        "credits_out": 0,
        "progressive_paid": 0,
        "in_play": 0,
        "house_result": 0,
        "wallets": wallets,
        "wagers": {
            "blackjack": {"placed": 3, "wagered": 1_500, "settled": 1_500, "paid": 1_000, "won": 1}
        },
    }


class FakeLink:
    """A server link that records the commands sent and answers them."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[tuple[type[amp.Command], dict[str, Any]]] = []
        self.error: Exception | None = None
        self.set_meters()

    def set_meters(self, state_a: str = "open", set_by: dict[str, Any] | None = None) -> None:
        meters = {
            "tables": {
                "BJ-01": _table_meters("BJ-01", {"A1": 5_000, "A2": 0, "A3": 700}, state_a),
                "BJ-02": _table_meters("BJ-02", {"B1": 100, "B2": 0}),
            },
            "floor": {
                "terminals": {"A1": 1, "A2": 2, "A3": 3, "B1": 2, "B2": 5},
                "tables": {
                    "A1": "BJ-01",
                    "A2": "BJ-01",
                    "A3": "BJ-01",
                    "B1": "BJ-02",
                    "B2": "BJ-02",
                },
                "revoked": [],
                "online": ["A1"],
                "set_by": set_by or {},
            },
        }
        self.state = LinkState(True, meters, None)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def call(self, command: type[amp.Command], **arguments: Any) -> Any:
        self.calls.append((command, arguments))
        if self.error is not None:
            return fail(self.error)
        answers = {
            p.CashIn: {"balance": 12_345, "logged": 1},
            p.CashOut: {"paid": 100, "balance": 0, "logged": 1},
            p.SetTableState: {"state": arguments.get("state", "open"), "logged": 1},
            p.SetTerminalAccess: {"revoked": ["A2"], "logged": 1},
        }
        return succeed(answers[command])


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("console-web")
    init_keys(folder)
    db = folder / "table.db"
    build_log(db, folder)
    return folder, db


@pytest.fixture
def console(logs: tuple[Path, Path], tmp_path: Path) -> Console:
    return Console(*logs, tmp_path, FakeLink("pit-1"))


#: Every route, how it is asked, and the permission it needs.
ROUTES = [
    ("GET", "/", {}, Permission.FLOOR),
    ("GET", "/events", {}, Permission.FLOOR),
    ("GET", "/table/pit-1/BJ-01", {}, Permission.FLOOR),
    ("GET", "/terminal/pit-1/A1", {}, Permission.FLOOR),
    ("GET", "/table/pit-1/BJ-01/round", {}, Permission.ROUND_IN_PLAY),
    ("GET", "/round/pit-1/BJ-01/1", {}, Permission.RECALL),
    ("GET", "/picture/pit-1/BJ-01/1?size=480x270", {}, Permission.RECALL),
    ("GET", "/recall?terminal=A1", {}, Permission.RECALL),
    ("GET", "/verify", {}, Permission.VERIFY),
    ("GET", "/shoes/pit-1/BJ-02", {}, Permission.SHOES),
    ("GET", "/reports?server=pit-1&day=2026-11-29&shift=2", {}, Permission.REPORTS),
    ("GET", "/reports.csv?server=pit-1&day=2026-11-29&shift=2", {}, Permission.REPORTS),
    (
        "POST",
        "/action/cash",
        {"server": "pit-1", "terminal": "A1", "kind": "in", "amount": "50", "reference": "s1"},
        Permission.CASH,
    ),
    (
        "POST",
        "/action/table-state",
        {"server": "pit-1", "table": "BJ-01", "state": "close", "reason": "end of day"},
        Permission.TABLE_STATE,
    ),
    (
        "POST",
        "/action/access",
        {"server": "pit-1", "terminal": "A2", "access": "revoke", "reason": "tampered"},
        Permission.REVOKE,
    ),
    (
        "POST",
        "/action/limits",
        {"server": "pit-1", "table": "BJ-01", "change": "max 2000"},
        Permission.LIMITS,
    ),
    ("POST", "/action/verify", {"server": "pit-1"}, Permission.VERIFY),
]


@pytest.mark.parametrize("role", list(Role))
@pytest.mark.parametrize(("method", "path", "form", "permission"), ROUTES)
def test_every_route_is_served_to_the_roles_that_may_and_refused_and_audited_for_others(
    console: Console,
    role: Role,
    method: str,
    path: str,
    form: dict[str, str],
    permission: Permission,
) -> None:
    """A role with the route's permission is served (a page, a stream, a redirect after an
    action); any other role gets 403 with the sentence, the audit log names the refusal and
    no command reaches the table server."""
    request = console.request(method, path, role, form)
    if may(role, permission):
        assert request.status in (200, 303), request.body[:300]
        return
    assert request.status == 403
    assert f"may not {escape(permission.value)}" in request.body
    last = console.audit_lines()[-1]
    assert (last["person"], last["role"], last["outcome"]) == (role.value, role.value, "refused")
    assert last["what"] == f"refused: {permission.name.lower()}"
    assert console.link.calls == []


def test_every_response_carries_the_security_headers(console: Console) -> None:
    """The CSP (only this origin's script, style and images; no framing), nosniff, HSTS...
    on a page, a refusal and the sign-in form alike."""
    for request in (
        console.request("GET", "/", Role.ATTENDANT),
        console.request("GET", "/recall", Role.ATTENDANT),
        console.request("GET", "/login"),
    ):
        for name, value in SECURITY_HEADERS.items():
            assert request.responseHeaders.getRawHeaders(name) == [value]
    csp = SECURITY_HEADERS[b"content-security-policy"]
    assert b"script-src 'self'" in csp and b"frame-ancestors 'none'" in csp
    assert b"unsafe-inline" not in csp


def test_the_pages_write_no_inline_script_or_style(console: Console) -> None:
    for role in Role:
        body = console.request("GET", "/table/pit-1/BJ-01", role).body
        assert "<script>" not in body and "<style" not in body and " style=" not in body
        assert "onclick" not in body


def test_a_post_without_the_csrf_token_is_refused_and_audited(console: Console) -> None:
    request = console.request(
        "POST",
        "/action/cash",
        Role.ATTENDANT,
        {"server": "pit-1", "terminal": "A1", "kind": "in", "amount": "50", "reference": "x"},
        csrf=False,
    )
    assert request.status == 403
    assert "security token" in request.body
    assert console.audit_lines()[-1]["what"] == "refused: CSRF token missing or wrong"
    assert console.link.calls == []


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/action/cash?csrf={csrf}&amount=1", {"server": "pit-1", "terminal": "A1", "kind": "in"}),
        ("/action/cash?amount=1", {"server": "pit-1", "terminal": "A1", "kind": "in"}),
        ("/action/cash?csrf={csrf}", {"server": "pit-1", "terminal": "A1", "amount": "1"}),
        ("/logout?csrf={csrf}", {}),
    ],
)
def test_a_post_with_fields_or_its_token_in_the_address_is_refused_and_audited(
    console: Console, path: str, form: dict[str, str]
) -> None:
    """A POST reads its fields and its CSRF token from its body only: anything in the query
    string is refused with the sentence (the body's own right token does not help), the
    refusal is audited with the fields' names and never their values, and nothing is sent."""
    session = console.session(Role.ATTENDANT)
    form = {"kind": "in", "reference": "slip 9", "amount": "2", "csrf": session.csrf, **form}
    request = Request(
        "POST",
        path.split("?")[0],
        {b"__Host-etg": session.id.encode()},
        query=path.split("?")[1].format(csrf=session.csrf),
        body=form,
    )
    console.handle(request)
    assert request.status == 400
    assert "never in its address" in request.body
    line = console.audit_lines()[-1]
    assert line["what"].startswith("refused: form fields in the address (")
    assert (line["person"], line["outcome"]) == ("attendant", "refused")
    assert session.csrf not in json.dumps(line)
    assert console.link.calls == []
    assert console.app.sessions.get(session.id) is session, "not signed out"


def test_the_sign_in_takes_its_fields_from_the_body_only(console: Console) -> None:
    """The sign-in form's token, name and password in the address are refused before any
    password is checked."""
    form = console.request("GET", "/login")
    [(name, token, _options)] = form.cookies_set
    query = f"csrf={token.decode()}&name=attendant&password=correct+horse+battery"
    request = Request("POST", "/login", {name: token}, query=query)
    console.handle(request)
    assert request.status == 400
    assert console.audit_lines()[-1]["what"] == (
        "refused: form fields in the address (csrf, name, password)"
    )
    assert len(console.app.sessions) == 0


def test_a_post_whose_body_is_not_a_form_is_refused(console: Console) -> None:
    session = console.session(Role.ATTENDANT)
    request = Request("POST", "/action/cash", {b"__Host-etg": session.id.encode()})
    request.content.write(json.dumps({"csrf": session.csrf, "amount": "1"}).encode())
    request.requestHeaders.setRawHeaders(b"content-type", [b"application/json"])
    console.handle(request)
    assert request.status == 415
    assert "application/x-www-form-urlencoded" in request.body
    assert console.audit_lines()[-1]["what"] == "refused: a body that is not a form"
    assert console.link.calls == []


def test_a_form_field_of_any_language_is_read_from_the_body(console: Console) -> None:
    """UTF-8 in a field (a reason in Spanish) reaches the server as typed."""
    request = console.request(
        "POST",
        "/action/table-state",
        Role.SUPERVISOR,
        {"server": "pit-1", "table": "BJ-01", "state": "close", "reason": "fin del día"},
    )
    assert request.status == 303
    assert console.link.calls[-1][1]["reason"] == "fin del día"


def test_a_post_from_another_origin_is_refused_and_audited(console: Console) -> None:
    """Even with the session's token, a form another site posts is refused."""
    request = console.request(
        "POST",
        "/action/table-state",
        Role.SUPERVISOR,
        {"server": "pit-1", "table": "BJ-01", "state": "close", "reason": "r"},
        origin="https://evil.example",
    )
    assert request.status == 403
    assert (
        console.audit_lines()[-1]["what"] == "refused: cross-site request from https://evil.example"
    )
    assert console.link.calls == []


def test_a_post_without_a_session_is_refused_and_audited(console: Console) -> None:
    request = console.request("POST", "/action/cash", None, {"server": "pit-1"})
    assert request.status == 403
    assert console.audit_lines()[-1]["what"] == "refused: no session (possible cross-site request)"


def test_a_page_without_a_session_goes_to_the_sign_in(console: Console) -> None:
    request = console.request("GET", "/table/pit-1/BJ-01")
    assert request.status == 303
    assert request.responseHeaders.getRawHeaders(b"location") == [b"/login"]


def test_the_sign_in_form_sets_a_strict_secure_cookie_and_keeps_its_token(console: Console) -> None:
    first = console.request("GET", "/login")
    [(name, token, options)] = first.cookies_set
    assert name == b"__Host-etg-login"
    assert options["secure"] and options["httpOnly"] and options["sameSite"] == b"strict"
    assert token.decode() in first.body
    again = Request("GET", "/login", {name: token})
    console.app.handle(again)
    assert again.cookies_set[0][1] == token, "a second fetch keeps the first form's token"


PASSWORD = "correct horse battery"


def _signed_in(request: Request) -> bool:
    return any(name == b"__Host-etg" and value for name, value, _ in request.cookies_set)


def _burst(
    console: Console, name: str, right: tuple[str, str], wrong: list[tuple[str, str]]
) -> list[Request]:
    """Post the tries of ``wrong`` and, in their middle, ``right``, before any is checked."""
    tries = [*wrong[: len(wrong) // 2], right, *wrong[len(wrong) // 2 :]]
    return [console.sign_in(name, password, code) for password, code in tries]


def test_sign_ins_sent_at_once_are_counted_before_any_password_is_checked(
    console: Console,
) -> None:
    """Forty tries of one name arrive before any scrypt has answered: the first is checked,
    the other 39 are refused at once (one try per name at a time) and cost no scrypt; five
    such bursts lock the name, after which the right password, sent among 39 wrong ones, is
    refused and nothing more is checked. Five scrypt runs in all, and no sign-in."""
    pool = console.clock.pool
    wrong = [(f"wrong password {k}", "") for k in range(39)]
    for burst in range(1, MAX_FAILURES + 2):
        tries = _burst(console, "attendant", (PASSWORD, ""), wrong)
        held = 1 if burst <= MAX_FAILURES else 0
        assert len(pool.jobs) == held, f"burst {burst}"
        refused = [t for t in tries if t.finished]
        assert len(refused) == 40 - held
        # The fifth try, still being checked, already counts: the name is locked.
        sentence = "being checked already" if burst < MAX_FAILURES else "too many failed"
        assert all(t.status == 403 and sentence in t.body for t in refused), burst
        pool.run_all()
        assert not any(_signed_in(t) for t in tries)
    assert pool.ran == MAX_FAILURES
    assert len(console.app.sessions) == 0
    lines = [a for a in console.audit_lines() if a["what"] == "sign-in locked"]
    assert [a["person"] for a in lines] == ["attendant"]


def test_wrong_one_time_codes_sent_at_once_lock_the_name_like_wrong_passwords(
    console: Console,
) -> None:
    """A supervisor's right password with 29 wrong one-time codes, all at once, five times:
    five checks, then the name is locked, and the right password with the right code is
    refused without a scrypt."""
    pool = console.clock.pool
    secret = console.accounts.get("supervisor").totp_secret  # type: ignore[union-attr]
    assert secret is not None
    good = totp(secret, console.clock.seconds())
    wrong = [(PASSWORD, f"{(int(good) + k) % 10**6:06d}") for k in range(1, 30)]
    for _burst_number in range(MAX_FAILURES):
        assert len(_burst(console, "supervisor", (PASSWORD, good), wrong)) == 30
        pool.run_all()
    assert pool.ran == MAX_FAILURES
    right = console.sign_in("supervisor", PASSWORD, good)
    assert right.status == 403 and "too many failed sign-ins" in right.body
    assert (pool.jobs, pool.ran, len(console.app.sessions)) == ([], MAX_FAILURES, 0)


def test_tries_of_many_names_from_one_address_at_once_are_bounded(console: Console) -> None:
    """Forty names tried at once from one address: five are checked, 35 refused at once
    (the address is locked by the tries still being checked); another address is not."""
    pool = console.clock.pool
    tries = [console.sign_in(f"user{k}", "wrong password", address="10.0.0.7") for k in range(40)]
    assert len(pool.jobs) == MAX_FAILURES
    assert all("the address 10.0.0.7" in t.body for t in tries[MAX_FAILURES:])
    pool.run_all()
    other = console.sign_in("attendant", PASSWORD, address="10.0.0.8")
    pool.run_all()
    assert _signed_in(other)


def test_a_good_sign_in_frees_the_name_and_gives_its_try_back_to_the_address(
    console: Console,
) -> None:
    """Four wrong tries from one address, then the right password: signed in; the address
    holds four failures, not five, and another name from it may still try."""
    pool = console.clock.pool
    for k in range(MAX_FAILURES - 1):
        console.sign_in("attendant", f"wrong password {k}")
        pool.run_all()
    good = console.sign_in("attendant", PASSWORD)
    pool.run_all()
    assert _signed_in(good) and good.status == 303
    console.sign_in("investigator", PASSWORD)
    assert len(pool.jobs) == 1, "the address is not locked"


def test_an_action_goes_to_the_server_with_the_person_and_role_and_is_audited(
    console: Console,
) -> None:
    request = console.request(
        "POST",
        "/action/cash",
        Role.ATTENDANT,
        {
            "server": "pit-1",
            "terminal": "A1",
            "kind": "in",
            "amount": "123.45",
            "reference": "s7",
            "back": "/terminal/pit-1/A1",
        },
    )
    assert request.status == 303
    assert request.responseHeaders.getRawHeaders(b"location") == [b"/terminal/pit-1/A1"]
    [(command, arguments)] = console.link.calls
    assert command is p.CashIn
    assert {k: arguments[k] for k in ("terminal", "amount", "reference", "person", "role")} == {
        "terminal": "A1",
        "amount": 12_345,
        "reference": "s7",
        "person": "attendant",
        "role": "attendant",
    }
    line = console.audit_lines()[-1]
    assert (line["what"], line["outcome"], line["request_id"]) == (
        "cash-in",
        "done",
        arguments["request_id"],
    )
    assert request.session.messages == ["Cash in of $123.45 to A1: its credits are now $123.45."]


def test_a_refused_action_is_audited_with_the_servers_sentence(console: Console) -> None:
    console.link.error = amp.RemoteAmpError(b"INSUFFICIENT_CREDITS", "terminal A2 holds $0.00")
    request = console.request(
        "POST",
        "/action/cash",
        Role.ATTENDANT,
        {"server": "pit-1", "terminal": "A2", "kind": "out", "amount": "", "reference": "s8"},
    )
    assert request.status == 303
    line = console.audit_lines()[-1]
    assert (line["what"], line["outcome"], line["detail"]) == (
        "cash-out",
        "refused",
        "terminal A2 holds $0.00",
    )
    assert request.session.messages == ["Refused: terminal A2 holds $0.00"]


@pytest.mark.parametrize(
    ("form", "problem"),
    [
        ({"kind": "in", "amount": "-5", "reference": "r"}, "not an amount"),
        ({"kind": "in", "amount": "0", "reference": "r"}, "more than $0.00"),
        ({"kind": "in", "amount": "1.234", "reference": "r"}, "not an amount"),
        ({"kind": "in", "amount": "10", "reference": ""}, "needs a reference"),
        ({"kind": "sideways", "amount": "10", "reference": "r"}, "neither a cash in"),
    ],
)
def test_bad_cash_input_is_refused_with_a_sentence_and_nothing_is_sent(
    console: Console, form: dict[str, str], problem: str
) -> None:
    request = console.request(
        "POST", "/action/cash", Role.ATTENDANT, {"server": "pit-1", "terminal": "A1", **form}
    )
    assert request.status == 303
    assert problem in request.session.messages[0]
    assert console.link.calls == []
    assert console.audit_lines()[-1]["outcome"] == "refused"


def test_an_attendant_may_reopen_a_table_out_of_service_by_a_fault_only(console: Console) -> None:
    """Out of service with no operator's state change since the server started: a fault; the
    attendant's reopen goes through. Taken out of service by a supervisor: refused."""
    reopen = {"server": "pit-1", "table": "BJ-01", "state": "open", "reason": "disk replaced"}
    console.link.set_meters("out-of-service")
    console.app.rebuild()
    page = console.request("GET", "/table/pit-1/BJ-01", Role.ATTENDANT).body
    assert "Reopen after the fault" in page
    assert console.request("POST", "/action/table-state", Role.ATTENDANT, reopen).status == 303
    assert console.link.calls[-1][1]["state"] == "open"
    console.link.calls.clear()
    set_by = {
        "BJ-01": {
            "action": "out-of-service",
            "person": "supervisor",
            "role": "supervisor",
            "reason": "x",
        }
    }
    console.link.set_meters("out-of-service", set_by)
    console.app.rebuild()
    assert "Reopen" not in console.request("GET", "/table/pit-1/BJ-01", Role.ATTENDANT).body
    assert console.request("POST", "/action/table-state", Role.ATTENDANT, reopen).status == 403
    assert (
        console.request(
            "POST", "/action/table-state", Role.ATTENDANT, {**reopen, "state": "close"}
        ).status
        == 403
    )
    assert console.link.calls == []


def test_values_from_the_server_and_the_log_are_escaped(console: Console) -> None:
    """A reason that is markup (here a script tag) is shown as text on the floor."""
    console.link.set_meters("out-of-service")
    console.app.rebuild()
    body = console.request("GET", "/", Role.INVESTIGATOR).body
    assert HOSTILE not in body
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in body


def test_an_action_goes_back_only_to_a_page_of_this_site(console: Console) -> None:
    for back in (
        "https://evil.example/",
        "//evil.example/x",
        "/\\evil",
        "/x\r\nSet-Cookie: a=b",
        "/é",
    ):
        request = console.request(
            "POST",
            "/action/limits",
            Role.SUPERVISOR,
            {"server": "pit-1", "table": "BJ-01", "change": "x", "back": back},
        )
        assert request.responseHeaders.getRawHeaders(b"location") == [b"/"]


def test_a_change_of_limits_is_refused_with_the_reason_and_audited(console: Console) -> None:
    request = console.request(
        "POST",
        "/action/limits",
        Role.SUPERVISOR,
        {"server": "pit-1", "table": "BJ-01", "change": "max $2,000"},
    )
    assert "Rules Submission" in request.session.messages[0]
    line = console.audit_lines()[-1]
    assert (line["what"], line["outcome"], line["asked"]) == ("limits", "refused", "max $2,000")
    assert console.link.calls == []


def test_the_attendant_sees_no_cards_and_the_investigator_no_money_forms(console: Console) -> None:
    attendant = console.request("GET", "/table/pit-1/BJ-01", Role.ATTENDANT).body
    assert "round in play" not in attendant and "dealt" not in attendant
    cash_form = '<input type="hidden" name="kind"'
    terminal = console.request("GET", "/terminal/pit-1/A1", Role.ATTENDANT).body
    assert cash_form in terminal and "/picture/" not in terminal
    investigator = console.request("GET", "/terminal/pit-1/A1", Role.INVESTIGATOR).body
    assert cash_form not in investigator and "/picture/" in investigator
    supervisor = console.request("GET", "/terminal/pit-1/A1", Role.SUPERVISOR).body
    assert cash_form not in supervisor
    table = console.request("GET", "/table/pit-1/BJ-01", Role.SUPERVISOR).body
    assert "Set the table&#x27;s state" in table and "round 12 closed" in table


def test_several_servers_each_on_the_floor_each_action_to_its_own_server(
    logs: tuple[Path, Path], tmp_path: Path
) -> None:
    """Two table servers (each with its own log): the floor shows both; an action on a
    terminal of the second goes to the second server only; recall across every server
    finds the rounds of both logs, each named with its server."""
    folder, db = logs
    second = tmp_path / "second.db"
    build_log(second, folder, rounds=3, seed=9)
    console = Console(folder, db, tmp_path, FakeLink("pit-1"))
    other = FakeLink("pit-2")
    console.app.links["pit-2"] = other  # type: ignore[assignment]
    shifts = ShiftClock([dt.time(6)], dt.UTC)
    entries = [
        ServerEntry("pit-1", "127.0.0.1", 7400, "localhost", db),
        ServerEntry("pit-2", "127.0.0.1", 7401, "localhost", second),
    ]
    console.app.source = ServersOnlySource(entries, load_public_key(folder), shifts)
    console.app.rebuild()
    floor = console.request("GET", "/", Role.ATTENDANT).body
    assert "Server pit-1" in floor and "Server pit-2" in floor
    assert 'href="/terminal/pit-2/B1"' in floor
    request = console.request(
        "POST",
        "/action/cash",
        Role.ATTENDANT,
        {"server": "pit-2", "terminal": "B1", "kind": "in", "amount": "20", "reference": "s"},
    )
    assert request.status == 303
    assert console.link.calls == []
    assert [(c, a["terminal"]) for c, a in other.calls] == [(p.CashIn, "B1")]
    found = console.request("GET", "/recall?table=BJ-02", Role.INVESTIGATOR).body
    assert "<td>pit-1</td>" in found and "<td>pit-2</td>" in found
    far = FakeLink("pit-3")  # on another machine: no log given, live and actions only
    console.app.links["pit-3"] = far  # type: ignore[assignment]
    console.app.rebuild()
    floor = console.request("GET", "/", Role.ATTENDANT).body
    assert "Server pit-3" in floor and 'href="/terminal/pit-3/B1"' in floor
    assert "log:" not in floor
    assert "pit-3" not in console.request("GET", "/verify", Role.INVESTIGATOR).body
    unknown = console.request(
        "POST",
        "/action/cash",
        Role.ATTENDANT,
        {"server": "pit-9", "terminal": "B1", "kind": "in", "amount": "20", "reference": "s"},
    )
    assert unknown.status == 404


def test_a_person_removed_while_the_console_runs_is_signed_out_at_the_next_request(
    console: Console,
) -> None:
    """``etg console user remove`` edits the file; the running console reads it again and
    the removed person's session ends (their next page goes to the sign-in)."""
    session = console.session(Role.ATTENDANT)
    cookies = {b"__Host-etg": session.id.encode()}
    first = Request("GET", "/", cookies)
    console.app.handle(first)
    assert first.status == 200
    AccountBook(console.accounts.path).remove("attendant")
    again = Request("GET", "/", cookies)
    console.app.handle(again)
    assert again.status == 303
    assert again.responseHeaders.getRawHeaders(b"location") == [b"/login"]


def _log_bodies(db: Path, kind: str, table: str) -> list[dict[str, Any]]:
    from game_server.eventlog import EventLogReader

    with EventLogReader.open(db, immutable=True) as reader:
        return [
            dict(e.body) for e in reader.iter_events() if e.kind == kind and e.table_id == table
        ]


@pytest.fixture(scope="module")
def retired_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A log of table BJ-01 with two shoes, both retired (revealed) at its end."""
    from tests.recall.verify_helpers import make_keys, make_log

    folder = tmp_path_factory.mktemp("console-shoes")
    keys = make_keys(folder / "certs")
    return keys, make_log(folder, keys)


@pytest.mark.parametrize(
    ("log", "table", "retired"),
    [("in use", "BJ-01", 0), ("in use", "BJ-02", 0), ("retired", "BJ-01", 2)],
)
def test_the_shoes_page_lists_each_shoes_commitment_and_reveal_and_no_secret_before(
    logs: tuple[Path, Path],
    retired_log: tuple[Path, Path],
    tmp_path: Path,
    log: str,
    table: str,
    retired: int,
) -> None:
    """docs/shoe-spec.md: every shoe of the table, newest first, with the commitment the
    log holds; a retired one with the seed material and salt its shoe_revealed holds; a shoe
    in use "in use" and none of the secrets sealed in its commitment."""
    from game_server.keys import load_sealing_key, unseal
    from game_server.table.session import seal_context

    folder, db = logs if log == "in use" else retired_log
    console = Console(folder, db, tmp_path, FakeLink("pit-1"))
    committed = _log_bodies(db, "shoe_committed", table)
    revealed = {b["shoe"]: b for b in _log_bodies(db, "shoe_revealed", table)}
    assert committed and len(revealed) == retired
    page = console.request("GET", f"/shoes/pit-1/{table}", Role.INVESTIGATOR)
    assert page.status == 200
    body = page.body
    shown = [int(n) for n in re.findall(r'<tr data-shoe="(\d+)">', body)]
    assert shown == [b["shoe"] for b in reversed(committed)][:20]
    rows = dict(zip(shown, re.split(r'<tr data-shoe="\d+">', body)[1:], strict=True))
    key = load_sealing_key(folder)
    for shoe in committed:
        row = rows[shoe["shoe"]]
        assert f'<code class="commitment">{shoe["commitment"]}</code>' in row
        reveal = revealed.get(shoe["shoe"])
        if reveal is not None:
            for name in ("entropy_input", "nonce", "personalization", "salt"):
                assert f"<dt>{name}</dt><dd><code>{reveal[name]}</code></dd>" in row
            assert "in use" not in row
            continue
        assert "in use: revealed when it is retired" in row
        secret = json.loads(
            unseal(key, bytes.fromhex(shoe["sealed_seed"]), seal_context(table, shoe["shoe"]))
        )
        for value in (secret["salt"], secret["seed"]["entropy_input"], secret["seed"]["nonce"]):
            assert value not in body


def test_the_table_page_links_its_shoes_for_the_roles_that_may(console: Console) -> None:
    link = '<a href="/shoes/pit-1/BJ-01">'
    for role in Role:
        page = console.request("GET", "/table/pit-1/BJ-01", role)
        assert (link in page.body) == may(role, Permission.SHOES), role
    assert not may(Role.ATTENDANT, Permission.SHOES)
    unknown = console.request("GET", "/shoes/pit-1/NOPE", Role.SUPERVISOR)
    assert unknown.status == 404
    assert "knows no table" in unknown.body
