"""End to end: the stock sqlite3 CLI opened read-write on a live log loses no credit.

The sequence an investigator ran against the real server: with ``etg serve`` running a
Blackjack table (its recall reader opened after its writer), Debian's ``sqlite3`` CLI opens
the live log with its default read-write open, counts the events and exits; the operator
credits a terminal; the server is killed with SIGKILL and started again. Before, the
server's own header check had dropped SQLite's lock, the CLI checkpointed and deleted the
``-wal`` under the server, and the acknowledged credit was gone after the restart while
``etg verify --anchors`` still passed. Now the server keeps its lock, the ``-wal`` stays,
and the credit is in the log, anchored.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_server_e2e import hello, server
from test_server_e2e import table as table  # the fixture

from game_server.eventlog import AnchorFile, EventLogReader
from game_server.eventlog.locks import shared_lock_holders
from game_server.keys import load_public_key
from game_server.recall.verify import verify_log

SQLITE3 = shutil.which("sqlite3")

pytestmark = pytest.mark.skipif(
    SQLITE3 is None and not os.environ.get("ETG_REQUIRE_SQLITE3"),
    reason="Debian's sqlite3 CLI is not installed (make packages)",
)


def test_a_read_write_sqlite3_cli_on_the_live_log_loses_no_acknowledged_credit(
    table: dict[str, Path], tmp_path: Path
) -> None:
    """The stock CLI's read-write open and exit leave the server's lock and -wal in place;
    a credit answered after it survives kill -9 and a restart, and the log verifies against
    its anchors with the credit covered by an anchored checkpoint."""
    assert SQLITE3 is not None, "ETG_REQUIRE_SQLITE3=1 but sqlite3 is not installed"
    db, anchors = table["db"], tmp_path / "anchors.jsonl"
    with server(table, "--anchors", str(anchors)) as (process, port):
        assert process.pid in shared_lock_holders(db)
        looked = subprocess.run(
            [SQLITE3, str(db), "select count(*) from events"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert looked.returncode == 0, looked.stderr
        assert int(looked.stdout) > 0
        assert Path(f"{db}-wal").exists(), "the CLI deleted the live log's -wal"
        assert process.pid in shared_lock_holders(db)
        operator, _ = hello(port, table["certs"], "operator")
        answer = operator.call(
            "CashIn",
            request_id="slip-50",
            terminal="T2",
            amount=5_000,
            reference="slip 50",
            person="ann",
            role="attendant",
        )
        operator.close()
        assert answer["balance"] == "5000"
        process.kill()
        process.wait(timeout=30)
    with server(table, "--anchors", str(anchors)) as (process, port):
        operator, _ = hello(port, table["certs"], "operator")
        operator.close()
    with EventLogReader.open(db) as reader:
        credits = [
            e for e in reader.events_of_kind("credits_in") if e.body["reference"] == "slip 50"
        ]
        assert len(credits) == 1
        covering = [
            cp
            for cp in AnchorFile(anchors).anchors(reader.log_id)
            if cp.seq >= credits[0].seq and cp.reason == "money-moved"
        ]
        assert covering, "no anchored checkpoint covers the acknowledged credit"
        report = verify_log(reader, load_public_key(table["certs"]), anchors=AnchorFile(anchors))
    assert report.ok, report.first_failure
