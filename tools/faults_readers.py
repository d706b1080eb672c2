"""The readers of ``etg faults``: programs that look at the live log while the server writes
it and is killed, each run kept with its outcome.

Two loops run the whole campaign, each on a thread of its own:

- the raw readers, each a process of its own: Debian's stock ``sqlite3`` CLI with its
  default open (read-write: the program of the incident, which deleted the ``-wal`` under
  the server) and with ``-readonly``, and Python's ``sqlite3`` module with its defaults
  (read-write too); each counts the events and exits;
- the product's readers: ``etg recall list``, ``etg verify --anchors``, ``etg backup`` (a
  proven copy), ``etg status`` and the operator console's pages, fetched over HTTPS with an
  investigator's session (:class:`ConsoleReader`).

Each run is judged (:func:`judge`): ``ok``; ``expected``, a failure of a kind the moment
explains (the server is being restarted: ``etg status`` says it does not answer; the log is
being recovered after a kill: SQLite answers "database is locked"); or ``FAILED``, which
fails the campaign.

Entry points: :class:`Readers`, :func:`reader_commands`, :class:`ConsoleReader`, :func:`judge`.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode, urlsplit

#: Seconds a reader may run before it counts as FAILED (``etg verify`` of a long campaign's
#: log takes a while).
READER_TIMEOUT: Final = 180.0
#: Seconds between two runs of the raw readers, and of the product's.
RAW_PAUSE: Final = 0.2
TOOLS_PAUSE: Final = 0.5
#: What the raw readers ask of the log.
COUNT: Final = "select count(*) from events"
#: Python's sqlite3 with its defaults (read-write, the journal mode the file has).
PYTHON_DEFAULT_OPEN: Final = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1])\n"
    f"print(c.execute({COUNT!r}).fetchone()[0])\n"
    "c.close()\n"
)
#: The raw readers' kinds and the product's, in the order each loop runs them.
RAW_KINDS: Final = ("sqlite3-cli", "sqlite3-cli-readonly", "python-sqlite3")
TOOL_KINDS: Final = ("recall", "verify", "backup", "status", "console")
#: The console's pages an investigator reads (server ``faults``, table ``BJ-01``).
CONSOLE_PAGES: Final = ("/", "/recall", "/table/faults/BJ-01", "/terminal/faults/T1")
#: Items of ``etg status`` that are alarms while the server is down or starting.
DOWN_ITEMS: Final = frozenset({"server", "table"})
#: The console's line once it listens.
LISTENING: Final = r"console listening on (https://[0-9.]+:\d+)/"
#: SQLite's answer while another connection holds the log's lock to recover it.
LOCKED: Final = re.compile(r"database is locked|database table is locked", re.I)

_ROOT: Final = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ReaderRun:
    """One run of a reader.

    Attributes:
        kind: Which reader (:data:`RAW_KINDS`, :data:`TOOL_KINDS`).
        at: When it started, seconds from the campaign's start.
        seconds: How long it ran.
        returncode: Its exit status (None: it did not end, or the console's pages).
        outcome: ``ok``, ``expected`` or ``FAILED``.
        why: For a failure, what it said (its last lines).
        said: The last lines of what it printed (every run's, for the record).
    """

    kind: str
    at: float
    seconds: float
    returncode: int | None
    outcome: str
    why: str = ""
    said: str = ""

    def describe(self) -> str:
        """``verify at 12.3 s (exit 1): ...``."""
        return f"{self.kind} at {self.at:.1f} s (exit {self.returncode}): {self.why}"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "kind": self.kind,
            "at": round(self.at, 2),
            "seconds": round(self.seconds, 2),
            "returncode": self.returncode,
            "outcome": self.outcome,
            "why": self.why,
            "said": self.said,
        }


def reader_commands(folder: Path, certs: Path, port: int) -> dict[str, list[str]]:
    """The command line of each reader of a process of its own, by kind; a kind whose
    program is not installed (the ``sqlite3`` CLI) is left out."""
    db, anchors = str(folder / "table.db"), str(folder / "anchors.jsonl")
    etg = [sys.executable, "-m", "tools"]
    commands = {
        "python-sqlite3": [sys.executable, "-c", PYTHON_DEFAULT_OPEN, db],
        "recall": [*etg, "recall", "list", db, "--last", "5", "--json"],
        "verify": [*etg, "verify", db, "--key", str(certs), "--anchors", anchors, "--json"],
        "backup": [
            *etg, "backup", db, str(folder / "backups"), "--anchors", anchors,
            "--key", str(certs), "--keep", "2", "--json",
        ],
        "status": [
            *etg, "status", "--server", f"127.0.0.1:{port}", "--certs", str(certs),
            "--db", db, "--anchors", anchors, "--json",
        ],
    }  # fmt: skip
    cli = shutil.which("sqlite3")
    if cli is not None:
        commands["sqlite3-cli"] = [cli, db, COUNT]
        commands["sqlite3-cli-readonly"] = [cli, "-readonly", db, COUNT]
    return commands


def _tail(text: str, lines: int = 4) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:] if line.strip())


def judge(kind: str, returncode: int, stdout: str, stderr: str) -> tuple[str, str]:
    """The outcome of one run of a reader of a process of its own, and why.

    Returns:
        ``("ok", "")``; ``("expected", why)`` for a failure of a kind the moment explains;
        or ``("FAILED", what it said)``.
    """
    said = _tail(stderr) or _tail(stdout)
    if returncode == 0:
        if kind in RAW_KINDS and not stdout.strip().isdigit():
            return "FAILED", f"no count of events: {said}"
        return "ok", ""
    if kind in RAW_KINDS and LOCKED.search(stderr + stdout):
        return "expected", "locked while the server recovers the log"
    if kind == "status" and returncode == 1:
        alarms = _status_alarms(stdout)
        if alarms is not None and alarms and alarms <= DOWN_ITEMS:
            return "expected", "the server does not answer (killed or starting)"
    return "FAILED", said or f"exit status {returncode} without a word"


def _status_alarms(stdout: str) -> set[str] | None:
    """The items ``etg status --json`` gave as alarms, or None if its output is not that."""
    try:
        shown = json.loads(stdout)
    except ValueError:
        return None
    items = shown.get("items") if isinstance(shown, dict) else shown
    if not isinstance(items, list):
        return None
    return {str(item.get("item")) for item in items if isinstance(item, dict) and not item["ok"]}


class Readers:
    """The two loops of readers (see the module docstring) and every run's outcome.

    Args:
        commands: :func:`reader_commands`.
        console: The console's pages, or None (not read).
        stop: Set when the campaign ends: each loop ends after its current run.
        record: Where every run is written as a JSON line as it ends (None: nowhere).
        clock: Seconds (``time.monotonic``).
    """

    def __init__(
        self,
        commands: Mapping[str, Sequence[str]],
        console: ConsoleReader | None,
        stop: threading.Event,
        record: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.commands = dict(commands)
        self.console = console
        self.stop = stop
        self.clock = clock
        self.record = record
        self.began = clock()
        self.runs: list[ReaderRun] = []
        self._lock = threading.Lock()
        kinds = (*RAW_KINDS, *TOOL_KINDS)
        self.kinds = [k for k in kinds if k in self.commands or (k == "console" and console)]
        self.missing = [k for k in kinds if k not in self.kinds]

    def loops(self) -> list[Callable[[], None]]:
        """The two loops, each to run on a thread of its own."""
        raw = [k for k in RAW_KINDS if k in self.kinds]
        tools = [k for k in TOOL_KINDS if k in self.kinds]
        return [lambda: self._loop(raw, RAW_PAUSE), lambda: self._loop(tools, TOOLS_PAUSE)]

    def _loop(self, kinds: Sequence[str], pause: float) -> None:
        while kinds and not self.stop.is_set():
            for kind in kinds:
                if self.stop.is_set():
                    return
                try:
                    run = self.run(kind)
                except Exception as exc:  # a reader that cannot even be started fails too
                    at = self.clock() - self.began
                    run = ReaderRun(kind, at, 0.0, None, "FAILED", f"not run: {exc!r}")
                with self._lock:
                    self.runs.append(run)
                    self._write(run)
                self.stop.wait(pause)

    def _write(self, run: ReaderRun) -> None:
        """Append ``run`` to the record (kept with a failed campaign's scratch folder)."""
        if self.record is not None:
            with self.record.open("a", encoding="utf-8") as out:
                out.write(json.dumps(run.to_json()) + "\n")

    def run(self, kind: str) -> ReaderRun:
        """Run one reader once."""
        at = self.clock() - self.began
        if kind == "console":
            assert self.console is not None
            outcome, why = self.console.read()
            return ReaderRun(kind, at, self.clock() - self.began - at, None, outcome, why)
        env = {**os.environ, "PYTHONPATH": str(_ROOT)}
        try:
            done = subprocess.run(
                self.commands[kind],
                capture_output=True,
                text=True,
                timeout=READER_TIMEOUT,
                cwd=_ROOT,
                env=env,
            )
        except subprocess.TimeoutExpired:
            took = self.clock() - self.began - at
            return ReaderRun(kind, at, took, None, "FAILED", f"still running after {took:.0f} s")
        outcome, why = judge(kind, done.returncode, done.stdout, done.stderr)
        took = self.clock() - self.began - at
        said = _tail(done.stdout or done.stderr, 2)[:300]
        return ReaderRun(kind, at, took, done.returncode, outcome, why, said)

    def never_ran(self) -> list[str]:
        """The kinds of reader that have not run yet."""
        with self._lock:
            ran = {run.kind for run in self.runs}
        return [kind for kind in self.kinds if kind not in ran]

    def every_kind_ran(self) -> bool:
        """Whether each kind of reader has run at least once."""
        return not self.never_ran()

    def figures(self) -> dict[str, dict[str, Any]]:
        """Per kind: runs, ok, FAILED, and the expected failures by why."""
        found: dict[str, dict[str, Any]] = {}
        with self._lock:
            runs = list(self.runs)
        for kind in self.kinds:
            mine = [run for run in runs if run.kind == kind]
            expected = Counter(run.why for run in mine if run.outcome == "expected")
            found[kind] = {
                "runs": len(mine),
                "ok": sum(run.outcome == "ok" for run in mine),
                "expected": dict(expected),
                "failed": sum(run.outcome == "FAILED" for run in mine),
            }
        return found


@dataclass
class ConsoleReader:
    """The operator console (``etg console``), started once for the campaign, and an
    investigator reading its pages over HTTPS with a session of their own.

    Attributes:
        process: The console's process.
        url: Its address (``https://127.0.0.1:PORT``).
        context: TLS 1.3 trusting the table's CA (the console's certificate is from it).
        person: The investigator's name.
        password: Their password.
        cookie: The session's cookie once signed in.
        fetched: Pages fetched.
    """

    process: subprocess.Popen[bytes]
    url: str
    context: ssl.SSLContext
    person: str
    password: str
    cookie: str | None = None
    fetched: int = 0
    statuses: Counter[int] = field(default_factory=Counter)

    @classmethod
    def start(
        cls, folder: Path, certs: Path, servers: Path, person: str, password: str
    ) -> ConsoleReader:
        """Start ``etg console`` on a free port and wait until it listens.

        Raises:
            RuntimeError: it did not start (its last lines say why).
        """
        output = folder / "console.out"
        env = {
            **os.environ,
            "PYTHONPATH": str(_ROOT),
            "SDL_VIDEODRIVER": "dummy",
            "SDL_AUDIODRIVER": "dummy",
        }
        command = [
            sys.executable, "-m", "tools", "console", "--certs", str(certs),
            "--servers", str(servers), "--port", "0",
        ]  # fmt: skip
        with output.open("wb") as sink:
            process = subprocess.Popen(
                command, cwd=_ROOT, stdout=sink, stderr=subprocess.STDOUT, env=env
            )
        context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        reader = cls(process, "", context, person, password)
        try:
            reader.url = _wait_line(
                output, r"console listening on (https://[0-9.]+:\d+)/", process
            )[1]
        except RuntimeError:
            reader.stop()
            raise
        return reader

    def stop(self) -> None:
        """SIGTERM the console (SIGKILL after 10 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def _request(
        self, method: str, path: str, form: Mapping[str, str] | None = None, cookie: str = ""
    ) -> tuple[int, dict[str, str], str]:
        """One request: (status, the cookies it set, the body)."""
        address = urlsplit(self.url)
        conn = http.client.HTTPSConnection(
            address.hostname or "127.0.0.1", address.port, context=self.context, timeout=60
        )
        headers = {"Cookie": cookie} if cookie else {}
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
            cookies = {}
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    pair = value.split(";", 1)[0]
                    key, _, kept = pair.partition("=")
                    cookies[key.strip()] = kept.strip()
            return response.status, cookies, text
        finally:
            conn.close()

    def sign_in(self) -> str | None:
        """Sign in with the form (its CSRF token bound to a cookie); None when refused."""
        status, cookies, page = self._request("GET", "/login")
        token = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
        login = next((f"{k}={v}" for k, v in cookies.items() if k.endswith("login")), "")
        if status != 200 or token is None or not login:
            return f"the sign-in form: status {status}"
        form = {"name": self.person, "password": self.password, "csrf": token[1], "code": ""}
        status, cookies, _ = self._request("POST", "/login", form, login)
        session = next(((k, v) for k, v in cookies.items() if v and not k.endswith("login")), None)
        if status != 303 or session is None:
            return f"signing in: status {status}"
        self.cookie = f"{session[0]}={session[1]}"
        return None

    def read(self) -> tuple[str, str]:
        """Sign in if needed and fetch every page of :data:`CONSOLE_PAGES`: ``("ok", "")``
        when each answered 200, else ``("FAILED", what happened)``."""
        try:
            if self.cookie is None:
                refused = self.sign_in()
                if refused is not None:
                    return "FAILED", refused
            for page in CONSOLE_PAGES:
                status, _, text = self._request("GET", page, cookie=self.cookie or "")
                self.fetched += 1
                self.statuses[status] += 1
                if status != 200:
                    self.cookie = None if status == 303 else self.cookie
                    return "FAILED", f"GET {page}: status {status}: {_tail(text, 2)[:300]}"
        except (OSError, http.client.HTTPException) as exc:
            return "FAILED", f"the console did not answer: {exc!r}"
        return "ok", ""


def _wait_line(
    path: Path, pattern: str, process: subprocess.Popen[bytes], timeout: float = 60.0
) -> re.Match[str]:
    """Wait for a line of a process's output file matching ``pattern``.

    Raises:
        RuntimeError: the process ended, or no such line came in time.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, path.read_text(errors="replace")) if path.exists() else None
        if found is not None:
            return found
        if process.poll() is not None:
            break
        time.sleep(0.1)
    tail = _tail(path.read_text(errors="replace") if path.exists() else "", 10)
    raise RuntimeError(f"{path.name}: no line matching {pattern!r}: {tail}")
