"""Architecture: no file is opened, read, copied or hashed but where it was decided.

Closing any descriptor of a database file drops every POSIX lock the process holds on it,
SQLite's among them (SQLite's "How To Corrupt An SQLite Database File", section 2.2; see
:mod:`game_server.eventlog.locks`). So a log, a store or a backup database is opened only
through SQLite, and every plain file access of the product (``open()``, ``Path.open``,
``read_bytes``/``read_text``/``write_*``, ``os.open``/``os.fdopen``/``io.open``,
``shutil.copy*``) is listed below with why it never touches a database file that a
connection of the process may hold. A new one fails this test until it is decided here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("game_server", "tools", "shared", "terminal_client")
MODES = re.compile(r"[rwaxbt+]{1,3}\Z")

NOT_A_DATABASE = "not a database file"
KEYS = "keys and certificates (PEM, raw key files), never a database file"
SETTINGS = "a TOML, JSON or text settings file of the operator's, never a database file"
ANCHORS = "the anchor stream (JSON lines), never a database file"
AUDIT = "the console's audit log (JSON lines), never a database file"
PROC = "a file of /proc (the kernel's tables), never a database file"
OUTPUT = "a file the command writes (a report, a picture, a receipt), never a database file"
NEW_FILE = (
    "creates a new file with O_EXCL (refused when it exists): never a file a connection holds"
)
DIRECTORY = "a directory's descriptor, to sync the directory"
BACKUP_COPY = (
    "the backup's own copy in `etg backup`/`etg restore`, a process of its own with no "
    "connection to that file open (the live log is copied through SQLite's online backup)"
)

#: (file, enclosing function) -> why its plain file access never touches a database file a
#: connection of the process may hold.
DECIDED: dict[tuple[str, str], str] = {
    ("game_server/config.py", "load_config"): SETTINGS,
    ("game_server/console/accounts.py", "AccountBook._load"): SETTINGS,
    ("game_server/console/accounts.py", "AccountBook._save"): SETTINGS,
    ("game_server/console/audit.py", "AuditLog.__init__"): AUDIT,
    ("game_server/console/audit.py", "AuditLog.tail"): AUDIT,
    ("game_server/console/audit.py", "AuditLog._write_head"): AUDIT + " (its signed head)",
    ("game_server/console/audit.py", "_read_head"): AUDIT + " (its signed head)",
    ("game_server/console/audit.py", "verify_audit"): AUDIT,
    ("game_server/console/audit.py", "was_signed"): AUDIT,
    ("game_server/console/settings.py", "load_settings"): SETTINGS,
    ("game_server/console/web.py", "ConsoleApp.__init__"): "the console's packaged static files",
    ("game_server/eventlog/anchors.py", "AnchorFile._open"): ANCHORS,
    ("game_server/eventlog/anchors.py", "AnchorFile.read"): ANCHORS,
    ("game_server/eventlog/anchors.py", "_whole_lines_size"): ANCHORS,
    ("game_server/eventlog/locks.py", "_shared_locks"): PROC,
    ("game_server/eventlog/locks.py", "_holds_through"): PROC,
    ("game_server/eventlog/sqlite_store.py", "_create_private"): NEW_FILE
    + " (the log's file made mode 0600 before SQLite opens it)",
    ("game_server/eventlog/sqlite_store.py", "_sync_directory"): DIRECTORY,
    ("game_server/floor/cluster.py", "LocalFloor.load"): SETTINGS,
    ("game_server/floor/cluster.py", "LocalFloor.save"): SETTINGS,
    ("game_server/floor/cluster.py", "_initdb"): "PostgreSQL's password and configuration files",
    ("game_server/floor/shipper.py", "Cursor.__init__"): "the shipper's cursor (JSON)",
    ("game_server/floor/shipper.py", "Cursor.save"): "the shipper's cursor (JSON)",
    ("game_server/games/caribbean/math.py", "_examples"): SETTINGS,
    ("game_server/keys.py", "_read"): KEYS,
    ("game_server/keys.py", "_write_file"): KEYS,
    ("game_server/net/floor.py", "load_floor"): SETTINGS,
    ("game_server/net/pki.py", "_read"): KEYS,
    ("game_server/net/pki.py", "_write_file"): KEYS,
    ("terminal_client/net/tls.py", "_read"): KEYS,
    ("terminal_client/sound.py", "_quiet_stderr"): "/dev/null",
    ("tools/cli.py", "install_guide"): "the install guide (Markdown the wheel carries, or "
    "docs/install.md in a checkout), never a database",
    ("tools/backup.py", "_anchor_lines"): ANCHORS + " (its copy in a backup)",
    ("tools/backup.py", "_copy_private"): BACKUP_COPY,
    ("tools/backup.py", "_fsync_dir"): DIRECTORY,
    ("tools/backup.py", "_locked"): "the backup folder's lock file",
    ("tools/backup.py", "_whole_lines"): ANCHORS,
    ("tools/backup.py", "_write_private"): ANCHORS + " (its copy in the backup)",
    ("tools/backup.py", "backups"): "a backup's backup.json",
    ("tools/backup.py", "load_backup"): "a backup's backup.json",
    ("tools/backup.py", "sha256_file"): BACKUP_COPY,
    ("tools/backup.py", "take_backup"): KEYS,
    ("game_server/games/blackjack/gen_charts.py", "main"): (
        "writes the generated chart module, a Python source file"
    ),
    ("game_server/games/generated.py", "write_or_check"): (
        "reads and writes a game's generated data module, a Python source file"
    ),
    ("tools/bench.py", "record_history"): OUTPUT,
    ("tools/bench_verify.py", "build_log"): SETTINGS,
    ("tools/bench_work.py", "load_budget"): SETTINGS,
    ("tools/bench_work.py", "record"): SETTINGS,
    ("tools/console_cli.py", "audit_command"): AUDIT,
    ("tools/console_cli.py", "draw_picture"): OUTPUT,
    ("tools/enroll_cli.py", "sign"): KEYS,
    ("tools/faults.py", "Server.lock_losses"): "a process's output file",
    ("tools/faults.py", "console_files"): SETTINGS,
    ("tools/faults_readers.py", "ConsoleReader.start"): "a process's output file",
    ("tools/faults_readers.py", "Readers._write"): OUTPUT,
    ("tools/faults_readers.py", "_wait_line"): "a process's output file",
    ("tools/install_cli.py", "_template"): "the install kit's unit templates",
    ("tools/install_cli.py", "write_files"): OUTPUT,
    ("tools/live_demo.py", "_start"): "a process's output file",
    ("tools/live_demo.py", "_wait_port"): "a process's output file",
    ("tools/live_demo.py", "hold"): "the demo's lock file",
    ("tools/live_demo.py", "prepare"): SETTINGS,
    ("tools/live_demo.py", "run_live_demo"): OUTPUT,
    ("tools/loadtest_server.py", "_wait_port"): "a process's output file",
    ("tools/loadtest_server.py", "cpu_seconds"): PROC,
    ("tools/loadtest_server.py", "peak_rss_mb"): PROC,
    ("tools/loadtest_server.py", "prepare"): SETTINGS,
    ("tools/loadtest_server.py", "server_pids"): PROC,
    ("tools/loadtest_server.py", "start_server"): "a process's output file",
    ("tools/par_cli.py", "par_command"): OUTPUT,
    ("tools/recall_cli.py", "receipt_command"): OUTPUT,
    ("tools/rng_lab.py", "_discard_stdout"): "/dev/null",
    ("tools/rng_lab.py", "report"): OUTPUT,
    ("tools/rng_lab.py", "run_report"): OUTPUT,
    ("tools/rng_tests.py", "_key_files"): KEYS,
    ("tools/rng_tests.py", "rngtest_section"): OUTPUT,
    ("tools/screens.py", "write_screens"): OUTPUT,
    ("tools/sizes.py", "long_ones"): "the project's own Python sources, to measure them",
    ("tools/status.py", "_last_anchor"): ANCHORS,
    ("tools/verify_receipt.py", "load_receipt"): "a receipt (JSON)",
    ("tools/version.py", "_read_build_info"): SETTINGS,
}


def _plain_access(call: ast.Call) -> str | None:
    """What plain file access ``call`` is, or None."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        return "open()"
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value.id if isinstance(func.value, ast.Name) else None
    if owner in ("os", "io") and func.attr in ("open", "fdopen"):
        return f"{owner}.{func.attr}()"
    if owner == "shutil" and func.attr.startswith(("copy", "move")):
        return f"shutil.{func.attr}()"
    if func.attr in ("read_bytes", "read_text", "write_bytes", "write_text"):
        return f".{func.attr}()"
    if func.attr == "open":
        modes = [
            a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        if any(MODES.match(m) for m in modes) or any(
            k.arg in ("encoding", "mode") for k in call.keywords
        ):
            return "Path.open()"
    return None


class _Finder(ast.NodeVisitor):
    """Collects the plain file accesses of one module with their enclosing function."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.names: list[str] = []
        self.found: list[tuple[str, str, str, int]] = []

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.names.append(node.name)
        self.generic_visit(node)
        self.names.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Call(self, node: ast.Call) -> None:
        access = _plain_access(node)
        if access is not None:
            where = ".".join(self.names) or "<module>"
            self.found.append((self.file, where, access, node.lineno))
        self.generic_visit(node)


def plain_accesses() -> Iterator[tuple[str, str, str, int]]:
    """``(file, enclosing function, access, line)`` of every plain file access."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            finder = _Finder(path.relative_to(ROOT).as_posix())
            finder.visit(ast.parse(path.read_text(), filename=str(path)))
            yield from finder.found


def test_every_plain_file_access_is_decided() -> None:
    """Every plain open, read, write, copy or hash of a file in the product is listed in
    DECIDED with why it never touches a database file; none is new."""
    new = [
        f"{file}:{line} {where}: {access}"
        for file, where, access, line in plain_accesses()
        if (file, where) not in DECIDED
    ]
    assert not new, (
        "a plain file access not yet decided (a database file is opened only through SQLite, "
        "game_server.eventlog.locks; if this file is never a database, add it to DECIDED with "
        "why):\n" + "\n".join(new)
    )


def test_every_decision_still_names_a_place() -> None:
    """No entry of DECIDED is stale (a moved or removed access leaves no blanket pass)."""
    seen = {(file, where) for file, where, _, _ in plain_accesses()}
    assert not sorted(set(DECIDED) - seen)


def test_the_scan_finds_a_plain_open_of_a_log() -> None:
    """The scan itself sees the forms it is for (so that an empty result means something)."""
    source = (
        "def check(path):\n"
        "    with path.open('rb') as f:\n"
        "        f.read(100)\n"
        "    open(path).close()\n"
        "    shutil.copyfile(path, 'x')\n"
        "    path.read_bytes()\n"
    )
    calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]
    kinds = sorted(k for k in map(_plain_access, calls) if k is not None)
    assert kinds == [".read_bytes()", "Path.open()", "open()", "shutil.copyfile()"]
