"""The console's people (scrypt passwords, TOTP secrets for supervisors), its chained audit
log, its sessions and the sign-in guard (issue 21: failed sign-ins rate limited)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from game_server.console.accounts import (
    MIN_PASSWORD,
    AccountBook,
    AccountError,
    check_password,
    hash_password,
)
from game_server.console.audit import AuditError, AuditLog, verify_audit
from game_server.console.roles import PERMISSIONS, Permission, Role, may
from game_server.console.sessions import (
    IDLE_SECONDS,
    MAX_FAILURES,
    MAX_SECONDS,
    WINDOW_SECONDS,
    LoginGuard,
    Sessions,
    SignInRefused,
)

PASSWORD = "correct horse battery"
#: Cheap scrypt for tests (the stored hash carries its own N; production uses 2**15).
CHEAP = 2**10


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


# -- accounts --------------------------------------------------------------------------------


def test_a_password_hash_checks_only_its_password_and_carries_its_parameters() -> None:
    """scrypt$N$r$p$salt$hash: the right password checks, a wrong one or a damaged hash does
    not; two hashes of one password differ (random salts)."""
    stored = hash_password(PASSWORD, n=CHEAP)
    assert stored.startswith(f"scrypt${CHEAP}$8$3$")
    assert check_password(PASSWORD, stored)
    assert not check_password(PASSWORD + "!", stored)
    assert not check_password(PASSWORD, stored.replace("scrypt", "bcrypt"))
    assert not check_password(PASSWORD, "scrypt$x$8$3$AA==$AA==")
    assert hash_password(PASSWORD, n=CHEAP) != stored


def test_the_book_adds_lists_signs_in_and_removes(tmp_path: Path) -> None:
    """Accounts persist in a 0600 file; a supervisor gets a TOTP secret, others none; sign-in
    needs the right name and password; a removed person cannot sign in."""
    path = tmp_path / "accounts.json"
    book = AccountBook(path, scrypt_n=CHEAP)
    sam = book.add("sam", Role.SUPERVISOR, PASSWORD)
    ann = book.add("ann", Role.ATTENDANT, PASSWORD)
    assert sam.totp is not None and len(sam.totp_secret or b"") == 20
    assert ann.totp is None
    assert os.stat(path).st_mode & 0o777 == 0o600
    again = AccountBook(path)
    assert [a.name for a in again] == ["ann", "sam"]
    assert again.sign_in("sam", PASSWORD) == sam
    assert again.sign_in("sam", "wrong password!") is None
    assert again.sign_in("nobody", PASSWORD) is None
    again.remove("ann")
    assert AccountBook(path).sign_in("ann", PASSWORD) is None
    assert PASSWORD not in path.read_text(), "no password in clear"


@pytest.mark.parametrize(
    ("name", "password", "problem"),
    [
        ("Sam", PASSWORD, "not an account name"),
        ("1sam", PASSWORD, "not an account name"),
        ("sam smith", PASSWORD, "not an account name"),
        ("sam", "x" * (MIN_PASSWORD - 1), "a password is"),
    ],
)
def test_bad_names_and_short_passwords_are_refused(
    tmp_path: Path, name: str, password: str, problem: str
) -> None:
    with pytest.raises(AccountError, match=problem):
        AccountBook(tmp_path / "a.json", scrypt_n=CHEAP).add(name, Role.ATTENDANT, password)


def test_a_second_account_of_one_name_and_removing_a_stranger_are_refused(tmp_path: Path) -> None:
    book = AccountBook(tmp_path / "a.json", scrypt_n=CHEAP)
    book.add("ann", Role.ATTENDANT, PASSWORD)
    with pytest.raises(AccountError, match="already an account"):
        book.add("ann", Role.SUPERVISOR, PASSWORD)
    with pytest.raises(AccountError, match="no account"):
        book.remove("bob")


def test_an_accounts_file_others_can_read_is_refused(tmp_path: Path) -> None:
    """It holds the one-time code secrets: mode 0644 is refused with the chmod to run."""
    path = tmp_path / "a.json"
    AccountBook(path, scrypt_n=CHEAP).add("sam", Role.SUPERVISOR, PASSWORD)
    path.chmod(0o644)
    with pytest.raises(AccountError, match="chmod 600"):
        AccountBook(path)


def test_a_damaged_accounts_file_is_refused_with_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"format": 1, "accounts": [{"name": "x"}]}))
    path.chmod(0o600)
    with pytest.raises(AccountError, match="not a console accounts file"):
        AccountBook(path)


def test_the_roles_permissions_are_those_of_the_issue() -> None:
    """Attendant: credits and reopening after a fault; supervisor: the table's state,
    revocation, limits, not credits; investigator: read only; the table's shoes to the
    supervisor and the investigator."""
    assert may(Role.ATTENDANT, Permission.CASH)
    assert may(Role.ATTENDANT, Permission.REOPEN_AFTER_FAULT)
    assert not may(Role.ATTENDANT, Permission.TABLE_STATE)
    assert not may(Role.ATTENDANT, Permission.ROUND_IN_PLAY)
    assert not may(Role.ATTENDANT, Permission.RECALL)
    for permission in (Permission.TABLE_STATE, Permission.REVOKE, Permission.LIMITS):
        assert may(Role.SUPERVISOR, permission)
        assert not may(Role.INVESTIGATOR, permission)
    assert not may(Role.SUPERVISOR, Permission.CASH)
    assert PERMISSIONS[Role.INVESTIGATOR] == {
        Permission.FLOOR,
        Permission.ROUND_IN_PLAY,
        Permission.RECALL,
        Permission.VERIFY,
        Permission.REPORTS,
        Permission.SHOES,
    }
    # [provable]: the shoes' commitments and reveals, to the roles that see the round in play.
    assert may(Role.SUPERVISOR, Permission.SHOES)
    assert not may(Role.ATTENDANT, Permission.SHOES)


# -- the audit log ---------------------------------------------------------------------------


def _audit(path: Path) -> AuditLog:
    return AuditLog(path, Clock())


def test_the_audit_log_chains_every_line_and_reopens_where_it_ended(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = _audit(path)
    log.write("sign-in", person="ann", role="attendant", address="10.0.0.5")
    log.write("cash-in", person="ann", role="attendant", target="pit-1 T1", request_id="r1")
    log.close()
    log = _audit(path)
    line = log.write("sign-out", person="ann", role="attendant")
    log.close()
    assert line["n"] == 3
    found = verify_audit(path)
    assert (found.lines, found.problem) == (3, None)
    assert [json.loads(t)["what"] for t in path.read_text().splitlines()] == [
        "sign-in",
        "cash-in",
        "sign-out",
    ]


@pytest.mark.parametrize(
    ("tamper", "problem"),
    [
        ("change", "line 2 was changed after it was written"),
        ("remove", "line 2 says it is line 3"),
        ("insert", "line 3 says it is line 2"),
        ("garbage", "line 2 is not an audit line"),
    ],
)
def test_a_tampered_audit_log_is_named_at_its_line_and_not_appended_to(
    tmp_path: Path, tamper: str, problem: str
) -> None:
    """A changed, removed or inserted line breaks the chain at that line; the console
    refuses to append to it."""
    path = tmp_path / "audit.jsonl"
    log = _audit(path)
    for k in range(4):
        log.write("cash-in", person="ann", detail=f"slip {k}")
    log.close()
    lines = path.read_text().splitlines()
    if tamper == "change":
        lines[1] = lines[1].replace("slip 1", "slip 9")
    elif tamper == "remove":
        del lines[1]
    elif tamper == "insert":
        lines.insert(2, lines[1])
    else:
        lines[1] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    found = verify_audit(path)
    assert found.problem == problem
    assert found.lines == int(problem.split()[1]) - 1
    with pytest.raises(AuditError, match="does not prove"):
        _audit(path)


# -- sessions and the guard ------------------------------------------------------------------


def test_a_session_ends_after_idle_time_and_after_its_maximum() -> None:
    clock = Clock()
    sessions = Sessions(clock)
    session = sessions.create("ann", Role.ATTENDANT, "10.0.0.5")
    assert len(session.id) == 64 and len(session.csrf) == 64 and session.id != session.csrf
    clock.now += IDLE_SECONDS - 1
    assert sessions.get(session.id) is session
    clock.now += IDLE_SECONDS - 1
    assert sessions.get(session.id, touch=False) is session
    clock.now += 2
    assert sessions.get(session.id) is None, "idle too long (the event stream does not touch)"
    busy = sessions.create("ann", Role.ATTENDANT, "10.0.0.5")
    for _ in range(MAX_SECONDS // (IDLE_SECONDS // 2)):
        clock.now += IDLE_SECONDS // 2
        sessions.get(busy.id)
    clock.now += 1
    assert sessions.get(busy.id) is None, "past the maximum however busy"


def test_the_guard_locks_a_name_after_a_burst_and_frees_it_after_the_window() -> None:
    clock = Clock()
    guard = LoginGuard(clock)
    for k in range(MAX_FAILURES):
        assert guard.refusal("ann", f"10.0.0.{k}") is None
        locked = guard.failed(guard.begin("ann", f"10.0.0.{k}"))
    assert locked, "the fifth failure locks"
    assert "the account 'ann'" in (guard.refusal("ann", "10.0.0.99") or "")
    with pytest.raises(SignInRefused, match="too many failed sign-ins"):
        guard.begin("ann", "10.0.0.99")
    assert guard.refusal("bob", "10.0.0.99") is None, "another name from another address"
    clock.now += WINDOW_SECONDS + 1
    assert guard.refusal("ann", "10.0.0.99") is None


def test_the_guard_locks_an_address_trying_many_names() -> None:
    clock = Clock()
    guard = LoginGuard(clock)
    for k in range(MAX_FAILURES):
        guard.failed(guard.begin(f"user{k}", "10.0.0.7"))
    assert "the address 10.0.0.7" in (guard.refusal("someone", "10.0.0.7") or "")


def test_the_guard_counts_a_try_when_it_begins_not_when_it_is_answered() -> None:
    """Tries still being checked count: five begun from one address (none answered yet)
    lock it; a second try of a name being checked is refused and not counted; a try that
    signs in is taken back from the address and clears the name."""
    clock = Clock()
    guard = LoginGuard(clock)
    attempts = [guard.begin(f"user{k}", "10.0.0.7") for k in range(MAX_FAILURES)]
    assert "the address 10.0.0.7" in (guard.refusal("user9", "10.0.0.7") or "")
    assert [a.locks for a in attempts] == [False] * (MAX_FAILURES - 1) + [True]
    assert "being checked already" in (guard.refusal("user0", "10.0.0.8") or "")
    guard.succeeded(attempts[0])
    assert guard.refusal("user0", "10.0.0.8") is None, "the name is free again"
    assert guard.refusal("user9", "10.0.0.7") is None, "four failures: not locked"
    assert not guard.failed(attempts[1]), "not the try that reached the limit"
    ann = guard.begin("ann", "10.0.0.7")
    assert guard.failed(ann), "the fifth failure of the address locks it"
