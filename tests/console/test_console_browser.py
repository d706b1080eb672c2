"""The operator's console in a real browser: Debian's Chromium, headless, driven by
Playwright (its ``executable_path`` set to the system's binary: nothing is downloaded),
against the real console process and the real table server over mutual TLS (issue 21's
"done when").

One floor for the module: certificates, a table server (``python -m game_server``) that has
played a round, three accounts (attendant, supervisor with a one-time code, investigator)
and ``etg console``. Chromium trusts the console's certificate by its public key
(``--ignore-certificate-errors-spki-list``): the page is a secure context, as on a floor
where ``ca.pem`` is installed.

Without Chromium (or Playwright) these tests skip, unless ``ETG_REQUIRE_BROWSER=1`` (set by
``.ci/run``), where they fail. With ``ETG_CONSOLE_SCREENS=DIR`` they also write the floor,
table, terminal and recall pages' screenshots into DIR (``docs/screens``).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from console_process import ROOT, start_table_server, stop, wait_for_line
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from game_server.console.accounts import AccountBook
from game_server.console.roles import Role
from game_server.console.totp import totp
from game_server.keys import init_keys
from game_server.net.pki import add_console, init_pki, load_certificate
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Chromium's switches: no sandbox (root in CI), no GPU, nothing fetched from the network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "correct horse battery"
WAIT_MS = 20_000
#: The people of the floor: Ann the attendant, Sam the supervisor, Ivy the investigator.
NAMES = {Role.ATTENDANT: "ann", Role.SUPERVISOR: "sam", Role.INVESTIGATOR: "ivy"}


def _need_browser() -> Any:
    """Playwright's sync API, or skip (fail when ETG_REQUIRE_BROWSER=1)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    problem = None
    if sync_playwright is None:
        problem = "Playwright for Python is not installed (pip install playwright)"
    elif CHROMIUM is None:
        problem = "Debian's chromium is not installed (apt-get install chromium)"
    if problem is not None:
        if os.environ.get("ETG_REQUIRE_BROWSER") == "1":
            pytest.fail(f"ETG_REQUIRE_BROWSER=1 but {problem}")
        pytest.skip(problem)
    return sync_playwright


@dataclass
class Floor:
    """The running floor of the module."""

    folder: Path
    certs: Path
    server_port: int
    url: str
    audit: Path
    supervisor_secret: bytes
    spki: str

    def operator(self) -> AmpClient:
        client = AmpClient(self.server_port, self.certs, "operator")
        client.call("Hello", version=PROTOCOL_VERSION, software="browser test")
        return client

    def meters(self) -> dict[str, Any]:
        client = self.operator()
        try:
            return json.loads(client.call("ReadMeters")["meters"])
        finally:
            client.close()

    def audit_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.audit.read_text().splitlines()]


def _play_a_round(port: int, certs: Path) -> None:
    """The operator credits T1, T1 wagers, and the countdowns settle the round."""
    operator = AmpClient(port, certs, "operator")
    operator.call("Hello", version=PROTOCOL_VERSION, software="browser test")
    operator.call("CashIn", request_id="seed", terminal="T1", amount=20_000, reference="float")
    operator.close()
    t1 = AmpClient(port, certs, "T1")
    t1.call("Hello", version=PROTOCOL_VERSION, software="browser test")
    view = json.loads(t1.call("PlaceWagers", request_id="w1", wagers={"blackjack": 1_000})["view"])
    played = view["round"]
    t1.wait_view(lambda v: v["round"] != played or v["phase"] == "complete", timeout=60)
    t1.close()


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    _need_browser()
    folder = tmp_path_factory.mktemp("console-floor")
    certs = folder / "certs"
    init_pki(certs, terminals=2)
    init_keys(certs)
    add_console(certs)  # the certificate only: the console makes its audit key at its start
    server, port = start_table_server(folder, certs, timers=3)
    console = None
    try:
        _play_a_round(port, certs)
        accounts = AccountBook(folder / "console-accounts.json", scrypt_n=2**12)
        for role, name in NAMES.items():
            accounts.add(name, role, PASSWORD)
        accounts.add("burst", Role.ATTENDANT, PASSWORD)
        secret = accounts.get(NAMES[Role.SUPERVISOR]).totp_secret  # type: ignore[union-attr]
        (folder / "servers.toml").write_text(
            '[console]\nshifts = ["06:00", "14:00", "22:00"]\n'
            f'[[server]]\nname = "pit-1"\naddress = "127.0.0.1:{port}"\nlog = "table.db"\n'
        )
        console_out = folder / "console.out"
        console = subprocess.Popen(
            [
                sys.executable, "-m", "tools", "console",
                "--certs", str(certs),
                "--servers", str(folder / "servers.toml"),
                "--port", "0",
            ],
            cwd=ROOT,
            stdout=console_out.open("wb"),
            stderr=subprocess.STDOUT,
            env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
        )  # fmt: skip
        found = wait_for_line(console_out, r"console listening on (https://[0-9.]+:\d+)/", console)
        wait_for_line(console_out, r"console connected to pit-1", console)
        public = load_certificate(certs / "console.pem").public_key()
        der = public.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
        spki = base64.b64encode(hashlib.sha256(der).digest()).decode()
        yield Floor(
            folder, certs, port, found[1], folder / "console-audit.jsonl", secret or b"", spki
        )
    finally:
        if console is not None:
            stop(console)
        stop(server)


@pytest.fixture(scope="module")
def browser(floor: Floor) -> Iterator[Any]:
    sync_playwright = _need_browser()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[*CHROMIUM_ARGS, f"--ignore-certificate-errors-spki-list={floor.spki}"],
        )
        try:
            yield launched
        finally:
            launched.close()


def _signed_in(browser: Any, floor: Floor, role: Role) -> Any:
    """A new browser context (its own cookies) signed in as the person of ``role``; its
    page."""
    name = NAMES[role]
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto(floor.url + "/")
    assert page.url.endswith("/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    if role is Role.SUPERVISOR:
        page.fill("input[name=code]", _next_code(floor.supervisor_secret))
    page.click("button[type=submit]")
    page.wait_for_url(floor.url + "/")
    return page


_USED_STEPS: list[int] = []


def _next_code(secret: bytes) -> str:
    """A code the console has not seen yet: it takes each 30-second step once (a replayed
    code is refused), and one step ahead of its clock at most."""
    step = max(int(time.time() // 30), (_USED_STEPS or [-1])[-1] + 1)
    while step > int(time.time() // 30) + 1:
        time.sleep(1)
    _USED_STEPS.append(step)
    return totp(secret, step * 30)


def _screen(page: Any, name: str) -> None:
    folder = os.environ.get("ETG_CONSOLE_SCREENS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"console-{name}.png"), full_page=True)


def _nav(page: Any) -> list[str]:
    return page.locator("nav a").all_inner_texts()


def test_each_role_signs_in_and_sees_only_what_it_may(browser: Any, floor: Floor) -> None:
    """Attendant: the floor and money forms, no recall, no table state. Supervisor (password
    and one-time code): the table's state, revocation, the round in play, reports, no money
    forms, no recall. Investigator: recall, verify, reports, pictures, no form that changes
    anything. A forbidden page answers 403 with the sentence."""
    attendant = _signed_in(browser, floor, Role.ATTENDANT)
    assert _nav(attendant) == ["Floor"]
    attendant.goto(floor.url + "/terminal/pit-1/T1")
    assert attendant.locator("form:has(input[name=kind][value=in])").count() == 1
    assert attendant.locator("img").count() == 0, "no game pictures for an attendant"
    attendant.goto(floor.url + "/table/pit-1/BJ-01")
    assert attendant.locator("select[name=state]").count() == 0
    assert attendant.locator("[data-fragment]").count() == 0, "no round in play"
    response = attendant.goto(floor.url + "/recall")
    assert response.status == 403
    assert "an attendant may not recall past games" in attendant.inner_text("main")

    supervisor = _signed_in(browser, floor, Role.SUPERVISOR)
    assert _nav(supervisor) == ["Floor", "Reports"]
    supervisor.goto(floor.url + "/table/pit-1/BJ-01")
    assert supervisor.locator("select[name=state]").count() == 1
    assert supervisor.locator("input[name=access][value=revoke]").count() == 7  # T1..T7
    assert "round 2: in play" in supervisor.inner_text("[data-fragment]")
    supervisor.goto(floor.url + "/terminal/pit-1/T1")
    assert supervisor.locator("input[name=kind]").count() == 0
    assert supervisor.goto(floor.url + "/verify").status == 403

    investigator = _signed_in(browser, floor, Role.INVESTIGATOR)
    assert _nav(investigator) == ["Floor", "Recall", "Verify", "Reports"]
    investigator.goto(floor.url + "/terminal/pit-1/T1")
    assert investigator.locator("main form.action").count() == 0
    assert investigator.locator("img").count() >= 1
    investigator.goto(floor.url + "/table/pit-1/BJ-01")
    assert investigator.locator("main form.action").count() == 0
    for page in (attendant, supervisor, investigator):
        page.context.close()


def test_an_attendant_credits_a_terminal_and_its_credits_change_live(
    browser: Any, floor: Floor
) -> None:
    """The floor page is open; the attendant credits T2 with $75.00 on the terminal page:
    the server's wallet holds it, the terminal page says so, and the floor page's cell
    changes by itself (server-sent events), without a reload."""
    before = floor.meters()["wallets"].get("T2", 0)
    watcher = _signed_in(browser, floor, Role.ATTENDANT)
    cell = watcher.locator('[data-live="pit-1|T2|credits"]')
    assert cell.inner_text().startswith(f"${before / 100:,.2f}")
    page = _signed_in(browser, floor, Role.ATTENDANT)
    page.goto(floor.url + "/terminal/pit-1/T2")
    form = page.locator("form:has(input[name=kind][value=in])")
    form.locator("input[name=amount]").fill("75.00")
    form.locator("input[name=reference]").fill("slip 1001")
    form.locator("button").click()
    expected = f"${(before + 7_500) / 100:,.2f}"
    page.wait_for_url(floor.url + "/terminal/pit-1/T2")
    assert f"its credits are now {expected}" in page.inner_text("p.message")
    assert page.locator('[data-live="pit-1|T2|credits"]').inner_text().startswith(expected)
    assert floor.meters()["wallets"]["T2"] == before + 7_500
    live = "([key, text]) => document.querySelector(`[data-live='${key}']`).textContent"
    watcher.wait_for_function(f"{live}.startsWith(text)", arg=["pit-1|T2|credits", expected])
    _screen(watcher, "floor")
    _screen(page, "terminal")
    line = [a for a in floor.audit_lines() if a["what"] == "cash-in"][-1]
    assert (line["person"], line["role"], line["outcome"], line["target"]) == (
        "ann",
        "attendant",
        "done",
        "pit-1 T2",
    )
    for each in (watcher, page):
        each.context.close()


def test_an_investigator_recalls_a_game_opens_its_picture_verifies_and_downloads_the_report(
    browser: Any, floor: Floor
) -> None:
    """Recall search by terminal finds the round T1 played; its page shows the timeline and
    the picture the terminal's renderers drew (a real PNG of 960x540); the log verifies;
    the shift's report downloads as CSV with the table's row."""
    page = _signed_in(browser, floor, Role.INVESTIGATOR)
    page.goto(floor.url + "/recall")
    page.fill("input[name=terminal]", "T1")
    page.click("form.search button")
    page.locator("table tbody tr").first.wait_for()
    assert "complete" in page.inner_text("table tbody")
    _screen(page, "recall")
    page.locator("table tbody tr td a").first.click()
    picture = page.locator("figure.recall img")
    # Functions, not expressions: the console's CSP refuses eval, which expressions need.
    page.wait_for_function("() => document.querySelector('figure.recall img').naturalWidth > 0")
    assert picture.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [960, 540]
    assert "seat 1 (T1) wagers $10.00 on Blackjack" in page.inner_text("table.timeline")
    _screen(page, "round")
    page.goto(floor.url + "/terminal/pit-1/T1")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.games img')].every(i => i.naturalWidth === 480)"
    )
    _screen(page, "terminal-games")

    page.goto(floor.url + "/verify")
    page.click("text=Verify the log of pit-1")
    page.wait_for_selector("p.verdict", timeout=60_000)
    assert page.inner_text("p.verdict") == "the log is proven unchanged"

    page.goto(floor.url + "/reports")
    page.click("form.search button")
    page.wait_for_selector("table.report")
    assert "BJ-01" in page.inner_text("table.report")
    with page.expect_download() as download:
        page.click("text=CSV")
    lines = Path(download.value.path()).read_text().splitlines()
    assert lines[0].startswith("server,table,gaming_day,shift")
    assert lines[1].startswith("pit-1,BJ-01,")
    page.goto(floor.url + "/reports/print?" + page.url.split("?", 1)[1])
    assert page.locator("nav").count() == 0 and page.locator("table.report").count() == 1
    page.context.close()


def test_a_supervisor_closes_the_table_and_opens_it_again(browser: Any, floor: Floor) -> None:
    """The supervisor (password and code) closes the table with a reason: the server's
    table is closed, the page says so, the table's log names the supervisor; then opens it."""
    page = _signed_in(browser, floor, Role.SUPERVISOR)
    page.goto(floor.url + "/table/pit-1/BJ-01")
    _screen(page, "table")
    page.select_option("select[name=state]", "close")
    page.fill("form:has(select[name=state]) input[name=reason]", "end of the shift")
    page.click("text=Set the table's state")
    page.wait_for_function(
        "() => document.querySelector('[data-live=\"pit-1|BJ-01|state\"]').textContent === 'closed'"
    )
    assert floor.meters()["state"] == "closed"
    assert floor.meters()["floor"]["set_by"]["BJ-01"] == {
        "action": "close",
        "person": "sam",
        "role": "supervisor",
        "reason": "end of the shift",
    }
    page.select_option("select[name=state]", "open")
    page.fill("form:has(select[name=state]) input[name=reason]", "start of the shift")
    page.click("text=Set the table's state")
    page.wait_for_function(
        "() => document.querySelector('[data-live=\"pit-1|BJ-01|state\"]').textContent === 'open'"
    )
    # The table's shoes (docs/shoe-spec.md): the one in use, its commitment, no reveal yet.
    page.click("text=Shoes: commitments and reveals")
    page.wait_for_selector("code.commitment")
    newest = page.locator("tr[data-shoe]").first
    commitment = newest.locator("code.commitment").inner_text()
    assert re.fullmatch("[0-9a-f]{64}", commitment), commitment
    assert "in use: revealed when it is retired" in newest.inner_text()
    _screen(page, "shoes")
    page.context.close()


def test_a_csrf_attempt_and_an_attendant_calling_a_supervisor_action_are_refused_and_logged(
    browser: Any, floor: Floor
) -> None:
    """From the attendant's own page: a cash in posted with a forged token, and a close of
    the table with the right token (a supervisor's action); from a page of another origin:
    a form posted to the console. All three are refused with 403, logged in the audit log,
    and the table's state and credits do not change."""
    page = _signed_in(browser, floor, Role.ATTENDANT)
    page.goto(floor.url + "/terminal/pit-1/T1")
    before = floor.meters()
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    post = """async ([path, body]) => (await fetch(path,
        {method: "POST", body: new URLSearchParams(body), redirect: "manual"})).status"""
    forged = {
        "csrf": "0" * 64,
        "server": "pit-1",
        "terminal": "T1",
        "kind": "in",
        "amount": "999",
        "reference": "x",
    }
    assert page.evaluate(post, ["/action/cash", forged]) == 403
    close = {"csrf": token, "server": "pit-1", "table": "BJ-01", "state": "close", "reason": "mine"}
    assert page.evaluate(post, ["/action/table-state", close]) == 403
    other = page.context.new_page()
    other.set_content(
        f'<form method="post" action="{floor.url}/action/cash"><input name="server" value="pit-1">'
        '<input name="terminal" value="T1"><input name="kind" value="in">'
        '<input name="amount" value="500"><input name="reference" value="x"></form>'
    )
    with other.expect_navigation():
        other.evaluate("document.forms[0].submit()")
    assert "refused" in other.inner_text("body").lower()
    after = floor.meters()
    assert (after["state"], after["wallets"]) == (before["state"], before["wallets"])
    refusals = [a["what"] for a in floor.audit_lines() if a["outcome"] == "refused"]
    assert "refused: CSRF token missing or wrong" in refusals
    assert "refused: table_state" in refusals
    assert any(r.startswith("refused: cross-site request") for r in refusals)
    page.context.close()


def test_the_console_speaks_tls_1_3_only(floor: Floor) -> None:
    """A TLS 1.2 client is refused at the handshake; a TLS 1.3 one that trusts our CA gets
    the sign-in page over the console's own certificate."""
    host, port = floor.url.removeprefix("https://").split(":")
    old = ssl.create_default_context(cafile=str(floor.certs / "ca.pem"))
    old.maximum_version = ssl.TLSVersion.TLSv1_2
    with (
        socket.create_connection((host, int(port)), timeout=10) as raw,
        pytest.raises(ssl.SSLError),
    ):
        old.wrap_socket(raw, server_hostname="localhost")
    new = ssl.create_default_context(cafile=str(floor.certs / "ca.pem"))
    new.minimum_version = ssl.TLSVersion.TLSv1_3
    with (
        socket.create_connection((host, int(port)), timeout=10) as raw,
        new.wrap_socket(raw, server_hostname="localhost") as tls,
    ):
        assert tls.version() == "TLSv1.3"
        assert (("organizationalUnitName", "console"),) in tls.getpeercert()["subject"]
        tls.sendall(b"GET /login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := tls.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200")
    assert b"__Host-etg-login=" in answer and b"Secure; HttpOnly; SameSite=strict" in answer


def test_a_burst_of_wrong_passwords_locks_the_sign_in_and_is_logged(
    browser: Any, floor: Floor
) -> None:
    """Five wrong passwords for one account lock it: the sixth try is refused even with the
    right password. Every failure and the lock are in the audit log. (Last in the module: it
    also locks the address.)"""
    context = browser.new_context()
    page = context.new_page()
    for attempt in range(6):
        page.goto(floor.url + "/login")
        page.fill("input[name=name]", "burst")
        page.fill("input[name=password]", PASSWORD if attempt == 5 else f"wrong password {attempt}")
        page.click("button[type=submit]")
    assert "too many failed sign-ins" in page.inner_text("p.error")
    assert page.url.endswith("/login")
    lines = [a for a in floor.audit_lines() if a["person"] == "burst"]
    assert [a["outcome"] for a in lines if a["what"] == "sign-in"] == ["refused"] * 6
    assert [a["what"] for a in lines].count("sign-in locked") == 1
    assert "try again in" in lines[-1]["detail"]
    context.close()
    assert dt.datetime.now(dt.UTC)  # the console's clock is the machine's
