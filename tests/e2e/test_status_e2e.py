"""``etg status`` (:mod:`tools.status`) against the real server: every item ok, then each
alarm a monitoring system must see (the server down, a table out of service, the anchor lag,
an old, failed or missing backup), and bad options refused."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from test_server_e2e import ROOT, hello, play_round, server
from test_server_e2e import table as table  # the fixture

from game_server.eventlog import EventLogReader
from tools.backup import take_backup
from tools.cli import main
from tools.status import Where, collect


def _status(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools", "status", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def _where(table: dict[str, Path], port: int, **changes: object) -> Where:
    folder = table["db"].parent
    values: dict[str, object] = {
        "server": ("127.0.0.1", port),
        "certs": table["certs"],
        "hostname": "localhost",
        "db": table["db"],
        "anchors": folder / "anchors.jsonl",
        "backups": folder / "backups",
        **changes,
    }
    return Where(**values)  # type: ignore[arg-type]


def test_every_item_ok_then_each_alarm(table: dict[str, Path]) -> None:
    """A played round, a backup: six items ok, exit 0, the JSON with the figures. Then:
    a table out of service, an event past the anchor lag limit, a backup older than the
    limit, the server stopped: each an ALARM (exit 1) while the other items still say
    where they are."""
    folder = table["db"].parent
    anchors = folder / "anchors.jsonl"
    certs = table["certs"]
    with server(table, "--anchors", str(anchors)) as (_process, port):
        operator, _ = hello(port, certs, "operator")
        operator.call("CashIn", request_id="in", terminal="T1", amount=5_000, reference="s")
        t1, _ = hello(port, certs, "T1")
        play_round({"T1": t1}, {"T1": 500})
        take_backup(table["db"], folder / "backups", key=certs, anchors=anchors)
        args = ["--server", f"127.0.0.1:{port}", "--certs", str(certs), "--hostname"]
        args += ["localhost", "--db", str(table["db"]), "--anchors", str(anchors)]
        args += ["--backups", str(folder / "backups")]
        done = _status(*args)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert [line.split()[:2] for line in lines] == [
            ["server", "ok"],
            ["table", "ok"],
            ["lock", "ok"],
            ["log", "ok"],
            ["anchors", "ok"],
            ["backup", "ok"],
        ], lines
        assert lines[1].startswith(
            "table    ok     BJ-01: open, games 1, 1 of 7 terminal(s) online"
        )
        shown = json.loads(_status(*args, "--json").stdout)
        items = {item["item"]: item for item in shown["items"]}
        with EventLogReader.open(table["db"]) as reader:
            last_seq = reader.max_seq()
        assert shown["ok"] is True
        assert items["log"]["last_seq"] == last_seq
        assert items["anchors"]["checkpoint_seq"] <= last_seq
        assert items["backup"]["verified"] is True and items["backup"]["last_seq"] <= last_seq

        operator.call(
            "SetTableState",
            request_id="oos",
            state="out-of-service",
            reason="card reader",
        )
        operator.call("CashIn", request_id="in-2", terminal="T2", amount=100, reference="s")
        later = collect(
            _where(table, port, anchor_lag_limit=0.0),
            clock=lambda: dt.datetime.now(dt.UTC) + dt.timedelta(hours=3),
        )
        by_item = {item.item: item for item in later}
        assert not by_item["table"].ok and "out-of-service (card reader)" in by_item["table"].text
        assert not by_item["anchors"].ok and "past the limit of 0 s" in by_item["anchors"].text
        assert by_item["anchors"].figures["lag_events"] >= 1
        assert not by_item["backup"].ok and "older than 2 h" in by_item["backup"].text
        assert by_item["server"].ok and by_item["log"].ok
        for client in (operator, t1):
            client.close()
    down = _status(*args)
    assert down.returncode == 1
    assert down.stdout.splitlines()[0].startswith("server   ALARM  down: cannot connect")
    assert [line.split()[0] for line in down.stdout.splitlines()] == [
        "server",
        "log",
        "anchors",
        "backup",
    ]


def test_a_missing_or_failed_backup_is_an_alarm(table: dict[str, Path], tmp_path: Path) -> None:
    """No backup of the log in the folder, then one that failed its proof: ALARM."""
    certs = table["certs"]
    with server(table, "--anchors", str(tmp_path / "anchors.jsonl")) as (_process, port):
        where = _where(table, port, backups=tmp_path / "none", anchors=None)
        [*_, none] = collect(where)
        assert (none.item, none.ok) == ("backup", False) and "no backup" in none.text
    edited = tmp_path / "other.jsonl"
    lines = (tmp_path / "anchors.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    last["hash"] = "1" * 64
    edited.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")
    made = take_backup(table["db"], tmp_path / "b", key=certs, anchors=edited)
    assert not made.ok
    where = _where(table, 1, backups=tmp_path / "b", anchors=None)
    [*_, failed] = collect(where)
    assert not failed.ok and "FAILED its proof" in failed.text


def test_bad_options_are_refused(table: dict[str, Path], tmp_path: Path) -> None:
    """--anchors without --db, a folder without the operator's certificate: exit 2."""
    runner = CliRunner()
    alone = runner.invoke(
        main, ["status", "--certs", str(table["certs"]), "--anchors", str(tmp_path / "a")]
    )
    assert alone.exit_code == 2 and "give --db too" in alone.output
    empty = runner.invoke(main, ["status", "--certs", str(tmp_path)])
    assert empty.exit_code == 2 and f"there is no {tmp_path / 'ca.pem'}" in empty.output
    bad = runner.invoke(main, ["status", "--server", "nowhere", "--certs", str(table["certs"])])
    assert bad.exit_code == 2 and "is not HOST:PORT" in bad.output
