"""The holes an attack on the console found, tried again against the real processes: ``etg
console`` (a subprocess, its scrypt runs counted from outside by ``counting_console.py``) and
a real table server over mutual TLS, from plain HTTPS clients, many connections at once.

1. Sign-ins sent at once: forty tries of one name (or of forty names from one address) are
   checked at most five times, and the right password or one-time code among them does not
   sign in once the lock is reached.
2. The audit log rewritten with its hashes recomputed, cut short, or stripped of its
   signatures fails ``etg console audit`` (the real command).
3. A POST's fields and CSRF token in the address's query string are refused, audited, and
   move no money.

Each test tries from its own loopback address (127.0.0.2, ...), as the guard also locks an
address.
"""

from __future__ import annotations

import http.client
import json
import re
import shutil
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner
from console_process import ROOT, start_table_server, stop, wait_for_line

from game_server.console.accounts import AccountBook
from game_server.console.audit import GENESIS
from game_server.console.roles import Role
from game_server.console.sessions import MAX_FAILURES
from game_server.console.totp import STEP_SECONDS, totp
from game_server.keys import init_keys
from game_server.net.pki import init_pki
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient
from tools.cli import main

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"
#: Tries sent at once in a burst (the attack's forty).
BURST = 40


@dataclass
class Answer:
    """One HTTP answer."""

    status: int
    cookies: list[str]
    location: str
    body: str

    @property
    def signed_in(self) -> bool:
        return any(re.match(r"__Host-etg=[0-9a-f]{64};", c) for c in self.cookies)


@dataclass
class Floor:
    """The running console and table server of the module."""

    folder: Path
    certs: Path
    host: str
    port: int
    server_port: int
    audit: Path
    counts: Path
    supervisor_secret: bytes

    def scrypt_runs(self) -> int:
        """How many scrypt runs the console process has started so far."""
        return self.counts.stat().st_size if self.counts.exists() else 0

    def audit_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.audit.read_text().splitlines()]

    def connect(self, source: str) -> http.client.HTTPSConnection:
        """A TLS connection to the console from the loopback address ``source``, handshake
        done."""
        context = ssl.create_default_context(cafile=str(self.certs / "ca.pem"))
        connection = http.client.HTTPSConnection(
            self.host, self.port, context=context, timeout=60, source_address=(source, 0)
        )
        connection.connect()
        return connection

    def ask(
        self,
        connection: http.client.HTTPSConnection,
        method: str,
        path: str,
        fields: dict[str, str] | None = None,
        cookies: dict[str, str] | None = None,
    ) -> Answer:
        headers = {"Host": f"{self.host}:{self.port}"}
        body = None
        if fields is not None:
            body = urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return Answer(
            response.status,
            response.headers.get_all("Set-Cookie") or [],
            response.headers.get("Location") or "",
            text,
        )

    def once(self, source: str, method: str, path: str, **kwargs: Any) -> Answer:
        connection = self.connect(source)
        try:
            return self.ask(connection, method, path, **kwargs)
        finally:
            connection.close()

    def login_token(self, source: str) -> str:
        """The sign-in form's token (its cookie's value: a double submit)."""
        answer = self.once(source, "GET", "/login")
        [token] = [c.split(";")[0].split("=", 1)[1] for c in answer.cookies if "-login=" in c]
        return token

    def sign_ins_at_once(
        self, source: str, name: str, tries: list[tuple[str, str]]
    ) -> list[Answer]:
        """Post every (password, code) of ``tries`` for ``name`` at the same moment, each on
        its own connection (all handshakes done first, then released together)."""
        token = self.login_token(source)
        connections = [self.connect(source) for _ in tries]
        start = threading.Barrier(len(tries))

        def one(k: int) -> Answer:
            password, code = tries[k]
            fields = {"csrf": token, "name": name, "password": password, "code": code}
            start.wait()
            return self.ask(
                connections[k],
                "POST",
                "/login",
                fields=fields,
                cookies={"__Host-etg-login": token},
            )

        try:
            with ThreadPoolExecutor(len(tries)) as pool:
                return list(pool.map(one, range(len(tries))))
        finally:
            for connection in connections:
                connection.close()

    def wallet(self, terminal: str) -> int:
        client = AmpClient(self.server_port, self.certs, "operator")
        try:
            client.call("Hello", version=PROTOCOL_VERSION, software="attack test")
            meters = json.loads(client.call("ReadMeters")["meters"])
        finally:
            client.close()
        return int(meters["wallets"].get(terminal, 0))


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    folder = tmp_path_factory.mktemp("console-attacks")
    certs = folder / "certs"
    init_pki(certs, terminals=2)
    init_keys(certs)
    made = CliRunner().invoke(main, ["certs", "add-console", str(certs)])
    assert made.exit_code == 0, made.output
    server, port = start_table_server(folder, certs)
    console = None
    try:
        accounts = AccountBook(folder / "console-accounts.json")  # production scrypt cost
        for name, role in (("ann", Role.ATTENDANT), ("rush", Role.ATTENDANT)):
            accounts.add(name, role, PASSWORD)
        secret = accounts.add("sue", Role.SUPERVISOR, PASSWORD).totp_secret
        (folder / "servers.toml").write_text(
            f'[[server]]\nname = "pit-1"\naddress = "127.0.0.1:{port}"\nlog = "table.db"\n'
        )
        counts = folder / "scrypt-runs"
        out = folder / "console.out"
        console = subprocess.Popen(
            [
                sys.executable, str(Path(__file__).with_name("counting_console.py")),
                str(counts),
                "console", "--certs", str(certs), "--servers", str(folder / "servers.toml"),
                "--port", "0",
            ],
            cwd=ROOT,
            stdout=out.open("wb"),
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        found = wait_for_line(out, r"console listening on https://([0-9.]+):(\d+)/", console)
        wait_for_line(out, r"console connected to pit-1", console)
        yield Floor(
            folder,
            certs,
            found[1],
            int(found[2]),
            port,
            folder / "console-audit.jsonl",
            counts,
            secret or b"",
        )
    finally:
        if console is not None:
            stop(console)
        stop(server)


def _checked_before(floor: Floor, name: str) -> int:
    """Wrong tries of ``name`` checked before its first sign-in, by the audit log."""
    count = 0
    for line in floor.audit_lines():
        if line["person"] != name or line["what"] != "sign-in":
            continue
        if line["outcome"] == "done":
            return count
        if line["detail"].startswith("wrong"):
            count += 1
    return count


def _until_locked(floor: Floor, source: str, name: str, wrong: list[tuple[str, str]]) -> None:
    """Bursts of wrong tries until the console answers that the name is locked."""
    for _burst in range(2 * MAX_FAILURES):
        answers = floor.sign_ins_at_once(source, name, wrong)
        assert not any(a.signed_in for a in answers)
        if any("too many failed sign-ins" in a.body for a in answers):
            return
    raise AssertionError(f"{name} was never locked")


def _burst(right: tuple[str, str], wrong: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [*wrong[: len(wrong) // 2], right, *wrong[len(wrong) // 2 :]]


def test_forty_sign_ins_at_once_check_five_passwords_at_most_and_the_lock_holds(
    floor: Floor,
) -> None:
    """The attack: 40 sign-ins of one name posted at the same moment, 39 wrong passwords and
    the right one. At most five passwords are checked (scrypt runs counted in the process),
    and the right one signs in only if it was checked before five failures. Once the name
    is locked, the right password among 39 wrong ones does not sign in and costs nothing."""
    source = "127.0.0.2"
    before = floor.scrypt_runs()
    wrong = [(f"wrong password {k}", "") for k in range(BURST - 1)]
    answers = floor.sign_ins_at_once(source, "rush", _burst((PASSWORD, ""), wrong))
    first_burst = floor.scrypt_runs() - before
    assert first_burst <= MAX_FAILURES, f"{first_burst} passwords checked in one burst"
    assert all(a.status in (303, 403) for a in answers)
    signed = [a for a in answers if a.signed_in]
    assert len(signed) <= 1
    if signed:
        assert _checked_before(floor, "rush") < MAX_FAILURES
    _until_locked(floor, source, "rush", wrong)
    locked_at = floor.scrypt_runs()
    answers = floor.sign_ins_at_once(source, "rush", _burst((PASSWORD, ""), wrong))
    assert not any(a.signed_in for a in answers)
    assert all(a.status == 403 and "too many failed sign-ins" in a.body for a in answers)
    assert floor.scrypt_runs() == locked_at, "a try during the lock runs no scrypt"
    assert floor.scrypt_runs() - before <= MAX_FAILURES + len(signed)
    lines = [a for a in floor.audit_lines() if a["person"] == "rush"]
    assert [a["what"] for a in lines].count("sign-in locked") == 1


def test_wrong_one_time_codes_at_once_are_checked_five_times_at_most(floor: Floor) -> None:
    """The same with a supervisor's one-time codes: the right password with 29 wrong codes
    and the right one, at the same moment. At most five checks; once locked, the right
    password with a fresh right code does not sign in."""
    source = "127.0.0.3"
    secret = floor.supervisor_secret
    before = floor.scrypt_runs()
    now = time.time()
    good = totp(secret, now)
    wrong = [(PASSWORD, f"{(int(good) + k) % 10**6:06d}") for k in range(1, 30)]
    answers = floor.sign_ins_at_once(source, "sue", _burst((PASSWORD, good), wrong))
    assert floor.scrypt_runs() - before <= MAX_FAILURES
    signed = [a for a in answers if a.signed_in]
    if signed:
        assert _checked_before(floor, "sue") < MAX_FAILURES
    _until_locked(floor, source, "sue", wrong)
    locked_at = floor.scrypt_runs()
    fresh = totp(secret, now + STEP_SECONDS)  # a step not used yet, within the drift
    answers = floor.sign_ins_at_once(source, "sue", _burst((PASSWORD, fresh), wrong))
    assert not any(a.signed_in for a in answers)
    assert all("too many failed sign-ins" in a.body for a in answers)
    assert floor.scrypt_runs() == locked_at
    assert floor.scrypt_runs() - before <= MAX_FAILURES + len(signed)


def test_forty_names_at_once_from_one_address_check_five_at_most(floor: Floor) -> None:
    """Forty names tried at the same moment from one address: at most five checks (and the
    unknown name's stand-in hash, made once); the rest are refused for the address."""
    source = "127.0.0.4"
    before = floor.scrypt_runs()
    token = floor.login_token(source)
    connections = [floor.connect(source) for _ in range(BURST)]
    start = threading.Barrier(BURST)

    def one(k: int) -> Answer:
        fields = {"csrf": token, "name": f"guess{k}", "password": "wrong password", "code": ""}
        start.wait()
        return floor.ask(
            connections[k], "POST", "/login", fields=fields, cookies={"__Host-etg-login": token}
        )

    with ThreadPoolExecutor(BURST) as pool:
        answers = list(pool.map(one, range(BURST)))
    for connection in connections:
        connection.close()
    assert floor.scrypt_runs() - before <= MAX_FAILURES + 1
    refused = [a for a in answers if f"the address {source}" in a.body]
    assert len(refused) >= BURST - MAX_FAILURES
    assert not any(a.signed_in for a in answers)


def _signed_in_session(floor: Floor, source: str, name: str) -> dict[str, str]:
    token = floor.login_token(source)
    answer = floor.once(
        source,
        "POST",
        "/login",
        fields={"csrf": token, "name": name, "password": PASSWORD, "code": ""},
        cookies={"__Host-etg-login": token},
    )
    assert answer.signed_in, answer.body[:500]
    [session] = [c.split(";")[0].split("=", 1)[1] for c in answer.cookies if "etg=" in c]
    return {"__Host-etg": session}


def test_a_post_with_its_token_or_fields_in_the_address_is_refused_and_moves_no_money(
    floor: Floor,
) -> None:
    """The attack: ``POST /action/cash?csrf=...&amount=1`` credited $1. Now a POST with
    anything in its address is refused (400, the sentence), audited with the fields' names
    and not the token, and T1's credits do not move; the same form with every field in its
    body credits $1.00. The sign-in form's fields in the address are refused too."""
    source = "127.0.0.5"
    cookies = _signed_in_session(floor, source, "ann")
    page = floor.once(source, "GET", "/terminal/pit-1/T1", cookies=cookies)
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.body)
    assert found, page.body[:500]
    token = found[1]
    before = floor.wallet("T1")
    rest = {"server": "pit-1", "terminal": "T1", "kind": "in", "reference": "slip q1"}
    attacks = [
        (f"/action/cash?csrf={token}&amount=1", rest),
        ("/action/cash?amount=1", {**rest, "csrf": token, "amount": "2"}),
        (f"/action/cash?csrf={token}", {**rest, "amount": "3"}),
        (f"/action/cash?{urlencode({**rest, 'csrf': token, 'amount': '4'})}", {}),
    ]
    for path, fields in attacks:
        answer = floor.once(source, "POST", path, fields=fields, cookies=cookies)
        assert answer.status == 400, (path, answer.status, answer.body[:300])
        assert "never in its address" in answer.body
    assert floor.wallet("T1") == before, "no money moved"
    refusals = [a for a in floor.audit_lines() if a["what"].startswith("refused: form fields")]
    assert [a["person"] for a in refusals[-4:]] == ["ann"] * 4
    assert refusals[-4]["what"] == "refused: form fields in the address (amount, csrf)"
    assert token not in floor.audit.read_text()
    good = floor.once(
        source, "POST", "/action/cash", fields={**rest, "csrf": token, "amount": "1.00"},
        cookies=cookies,
    )  # fmt: skip
    assert good.status == 303
    assert floor.wallet("T1") == before + 100
    login_token = floor.login_token(source)
    query = urlencode({"csrf": login_token, "name": "ann", "password": PASSWORD})
    signing = floor.once(
        source, "POST", f"/login?{query}", cookies={"__Host-etg-login": login_token}
    )
    assert signing.status == 400 and not signing.signed_in


def _rechain(path: Path, lines: list[dict[str, Any]], *, strip: bool = False) -> None:
    """Write ``lines`` back as an attacker without the key would: numbered again, every
    hash recomputed by the published formula, the signatures kept (or stripped)."""
    import hashlib

    prev, texts = GENESIS, []
    for number, original in enumerate(lines, start=1):
        line = {k: v for k, v in original.items() if k not in ("hash", "sig")}
        if strip:
            line.pop("key", None)
        line.update(n=number, prev=prev)
        canonical = json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        prev = hashlib.sha256(prev.encode() + canonical.encode()).hexdigest()
        line["hash"] = prev
        if not strip and "sig" in original:
            line["sig"] = original["sig"]
        texts.append(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n")
    path.write_text("".join(texts))


def _audit(floor: Floor, copy: Path) -> subprocess.CompletedProcess[str]:
    """``etg console audit COPY --key certs/console-audit.pub``, the real command."""
    return subprocess.run(
        [
            sys.executable, "-m", "tools", "console", "audit", str(copy),
            "--key", str(floor.certs / "console-audit.pub"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip


def test_the_console_audit_log_rewritten_cut_or_unsigned_does_not_prove(
    floor: Floor, tmp_path: Path
) -> None:
    """The log the running console wrote (signed with the key ``etg certs add-console``
    made) proves; a line's person changed with every later hash recomputed, ten lines
    deleted and the chain recomputed, the last ten lines cut, or every signature stripped
    (the head removed): each fails ``etg console audit`` (exit 1) with its sentence."""
    for _k in range(12):  # refusals the console audits, so the log has lines enough
        assert floor.once("127.0.0.6", "POST", "/logout", fields={}).status == 403
    head = floor.audit.with_name(floor.audit.name + ".head")
    assert head.exists(), "the console keeps a signed head beside its audit log"
    copy = tmp_path / "console-audit.jsonl"
    shutil.copyfile(head, tmp_path / "console-audit.jsonl.head")  # the head first: never ahead
    shutil.copyfile(floor.audit, copy)
    lines = [json.loads(t) for t in copy.read_text().splitlines()]
    assert len(lines) > 20
    assert all("sig" in line for line in lines), "every line the console wrote is signed"
    assert (floor.certs / "console-audit.key").stat().st_mode & 0o777 == 0o600
    proven = _audit(floor, copy)
    assert proven.returncode == 0, proven.stderr
    assert f"{len(lines)} line(s), the chain holds, every line signed by key" in proven.stdout

    changed = [dict(line) for line in lines]
    target = next(k for k, line in enumerate(changed) if line["person"] == "ann")
    changed[target]["person"] = "bob"
    _rechain(copy, changed)
    rewritten = _audit(floor, copy)
    assert rewritten.returncode == 1
    assert f"line {target + 1}'s signature does not verify" in rewritten.stderr

    _rechain(copy, lines[:5] + lines[15:])
    deleted = _audit(floor, copy)
    assert deleted.returncode == 1 and "line 6's signature does not verify" in deleted.stderr

    _rechain(copy, lines[:-10])
    cut = _audit(floor, copy)
    assert cut.returncode == 1
    assert f"names line {len(lines)}: 10 line(s) were cut from the end" in cut.stderr

    _rechain(copy, lines, strip=True)
    (tmp_path / "console-audit.jsonl.head").unlink()
    unsigned = _audit(floor, copy)
    assert unsigned.returncode == 1
    assert "chained but NOT signed" in unsigned.stderr and "holds" not in unsigned.stderr
