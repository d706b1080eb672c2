"""The console's people (scrypt passwords, TOTP secrets for supervisors), its chained audit
log, its sessions and the sign-in guard (issue 21: failed sign-ins rate limited)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from game_server.console.accounts import (
    MIN_PASSWORD,
    AccountBook,
    AccountError,
    check_password,
    hash_password,
)
from game_server.console.audit import GENESIS, AuditError, AuditLog, head_path, verify_audit
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
from game_server.keys import key_id

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

KEY = Ed25519PrivateKey.generate()


def _audit(path: Path, key: Ed25519PrivateKey = KEY) -> AuditLog:
    return AuditLog(path, Clock(), key)


def _written(path: Path, count: int) -> list[dict[str, Any]]:
    log = _audit(path)
    for k in range(count):
        log.write("cash-in", person="ann", role="attendant", detail=f"slip {k}")
    log.close()
    return [json.loads(t) for t in path.read_text().splitlines()]


def _rechain(path: Path, lines: list[dict[str, Any]], *, strip: bool = False) -> None:
    """Write ``lines`` back as an attacker without the key would: numbered again, every
    hash recomputed by the published formula, the signatures kept (or stripped)."""
    prev, texts = GENESIS, []
    for number, line in enumerate(lines, start=1):
        line = {k: v for k, v in line.items() if k not in ("hash", "sig")}
        signature = lines[number - 1].get("sig")
        if strip:
            line.pop("key", None)
        line.update(n=number, prev=prev)
        canonical = json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        prev = hashlib.sha256(prev.encode() + canonical.encode()).hexdigest()
        line["hash"] = prev
        if signature is not None and not strip:
            line["sig"] = signature
        texts.append(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n")
    path.write_text("".join(texts))


def test_the_audit_log_chains_and_signs_every_line_and_reopens_where_it_ended(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    log = _audit(path)
    log.write("sign-in", person="ann", role="attendant", address="10.0.0.5")
    log.write("cash-in", person="ann", role="attendant", target="pit-1 T1", request_id="r1")
    log.close()
    log = _audit(path)
    line = log.write("sign-out", person="ann", role="attendant")
    log.close()
    assert line["n"] == 3 and line["key"] == key_id(KEY) and len(line["sig"]) == 128
    found = verify_audit(path, KEY.public_key())
    assert (found.lines, found.problem, found.head_line, found.proven) == (3, None, 3, True)
    assert found.verdict() == (
        f"3 line(s), the chain holds, every line signed by key {key_id(KEY)}, and the signed "
        "head names line 3"
    )
    assert [json.loads(t)["what"] for t in path.read_text().splitlines()] == [
        "sign-in",
        "cash-in",
        "sign-out",
    ]
    assert os.stat(path).st_mode & 0o777 == 0o600


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
    _written(path, 4)
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
    found = verify_audit(path, KEY.public_key())
    assert found.problem == problem
    assert found.lines == int(problem.split()[1]) - 1
    with pytest.raises(AuditError, match="does not prove"):
        _audit(path)


def test_a_line_rewritten_with_every_later_hash_recomputed_fails_at_its_signature(
    tmp_path: Path,
) -> None:
    """The attack on the unsigned chain: line 5's person changed and the hashes after it
    recomputed. Its signature (over the old hash) no longer verifies."""
    path = tmp_path / "audit.jsonl"
    lines = _written(path, 12)
    lines[4]["person"] = "bob"
    _rechain(path, lines)
    found = verify_audit(path, KEY.public_key())
    assert found.problem is not None and found.lines == 4
    assert found.problem.startswith("line 5's signature does not verify")


def test_lines_removed_with_the_chain_recomputed_fail_at_the_first_renumbered_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    lines = _written(path, 14)
    _rechain(path, lines[:3] + lines[13:])
    found = verify_audit(path, KEY.public_key())
    assert found.lines == 3
    assert (found.problem or "").startswith("line 4's signature does not verify")


def test_a_cut_at_the_end_fails_against_the_signed_head(tmp_path: Path) -> None:
    """The last three lines cut: every line left verifies, but the head names line 10."""
    path = tmp_path / "audit.jsonl"
    _written(path, 10)
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:7]))
    found = verify_audit(path, KEY.public_key())
    assert found.problem == (
        "the log ends at line 7 but its signed head names line 10: 3 line(s) were cut from the end"
    )
    with pytest.raises(AuditError, match="does not prove"):
        _audit(path)


def test_a_removed_or_forged_head_is_named(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    _written(path, 3)
    head = head_path(path)
    saved = head.read_text()
    forged = json.loads(saved)
    forged["n"] = 2
    head.write_text(json.dumps(forged))
    assert "is not signed by the key" in (verify_audit(path, KEY.public_key()).problem or "")
    head.unlink()
    assert "signed head audit.jsonl.head is missing" in (
        verify_audit(path, KEY.public_key()).problem or ""
    )


def test_signatures_stripped_never_read_as_a_chain_that_holds(tmp_path: Path) -> None:
    """Every signature and key stripped and the chain recomputed, to pass the log off as an
    old unsigned one: its head still names signed lines; without the head, it is read as
    unsigned, which does not prove."""
    path = tmp_path / "audit.jsonl"
    lines = _written(path, 5)
    lines[2]["person"] = "bob"
    _rechain(path, lines, strip=True)
    found = verify_audit(path, KEY.public_key())
    assert found.problem == (
        "its signed head names line 5 with another hash: the log was rewritten from that line "
        "or before"
    )
    head_path(path).unlink()
    found = verify_audit(path, KEY.public_key())
    assert (found.problem, found.unsigned, found.proven) == (None, 5, False)
    assert "chained but NOT signed" in found.verdict()


def test_another_key_or_no_key_does_not_prove_a_signed_log(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    _written(path, 2)
    other = Ed25519PrivateKey.generate().public_key()
    assert "line 1 names the key" in (verify_audit(path, other).problem or "")
    assert "give the console's audit public key" in (verify_audit(path, None).problem or "")


def test_an_older_unsigned_log_is_read_as_unsigned_and_continued_signed(tmp_path: Path) -> None:
    """A log of format 1 (chained, no key) is reported as unsigned, never as holding; the
    console continues it, and its first signed line covers the lines before it."""
    path = tmp_path / "audit.jsonl"
    lines = _written(path, 4)
    head_path(path).unlink()
    _rechain(path, lines, strip=True)
    found = verify_audit(path, None)
    assert (found.lines, found.problem, found.unsigned, found.proven) == (4, None, 4, False)
    assert found.verdict().startswith("4 line(s), chained but NOT signed (written before")
    log = _audit(path)
    assert log.continues_unsigned
    log.write("console started")
    log.close()
    found = verify_audit(path, KEY.public_key())
    assert (found.lines, found.unsigned, found.proven) == (5, 4, True)
    assert "lines 1 to 4 were written unsigned" in found.verdict()
    lines = [json.loads(t) for t in path.read_text().splitlines()]
    lines[1]["person"] = "bob"
    _rechain(path, lines)
    assert "line 5's signature does not verify" in (
        verify_audit(path, KEY.public_key()).problem or ""
    )


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
