"""End to end: ``etg faults``, the short form, through the real command.

Five times the real server is killed with SIGKILL at a random moment (a fixed seed) while
three bot terminals play over mutual TLS, the operator credits and cashes out, and every
reader of the live log runs in a loop (the stock ``sqlite3`` CLI read-write among them);
each time it is started again and proves its log against the anchors. Then every command a
client was answered must be in the log, every wallet where its terminal was last told, and
the log must verify against its anchor stream.

This is the campaign that failed while the server dropped SQLite's lock on its live log:
the CLI deleted the ``-wal`` under it, and acknowledged credits were gone after the next
kill (``docs/durability.md``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.faults_readers import RAW_KINDS, TOOL_KINDS

ROOT = Path(__file__).resolve().parents[2]
SQLITE3 = shutil.which("sqlite3")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        SQLITE3 is None and not os.environ.get("ETG_REQUIRE_SQLITE3"),
        reason="Debian's sqlite3 CLI is not installed (make packages)",
    ),
]


def test_five_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    """5 kills, 3 terminals: every kill restarted, 0 acknowledged commands lost, none done
    twice (every command whose answer a kill lost is sent again with its first request id),
    every wallet as told, the log verified against its anchors, and every kind
    of reader ran (the sqlite3 CLI read-write at least once without failing)."""
    assert SQLITE3 is not None, "ETG_REQUIRE_SQLITE3=1 but sqlite3 is not installed"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "tools", "faults", "--kills", "5", "--seed", "7"),
            *("--terminals", "3", "--seconds-between", "2,4", "--tmpdir", str(tmp_path)),
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    result = json.loads(done.stdout)
    why = {k: result[k] for k in ("problem", "start_refused", "lost", "doubled", "mismatches")}
    why.update(verify=result["verify_failure"], readers=result["reader_failures"])
    assert done.returncode == 0, (done.stderr[-3000:], why)
    assert result["ok"] and result["start_refused"] is None and result["problem"] is None
    assert result["kills"] == result["restarts"] == 5
    assert result["lost"] == [] and result["mismatches"] == [] and result["doubled"] == []
    assert result["verified"] and result["verify_failure"] is None
    acknowledged = result["acknowledged"]
    assert acknowledged.get("CashIn", 0) >= 3 and acknowledged.get("PlaceWagers", 0) >= 1
    readers = result["readers"]
    assert result["missing_readers"] == []
    for kind in (*RAW_KINDS, *TOOL_KINDS):
        assert readers[kind]["runs"] >= 1 and readers[kind]["failed"] == 0, kind
    assert readers["sqlite3-cli"]["ok"] >= 1, "the read-write CLI never read the live log"
    assert result["server_exit"] == 0 and result["lock_lost"] == 0
