"""Logs written before the games became packages still verify, recall and recover the same.

``tests/fixtures/pre_move/`` holds event logs written by the code of the branch point of
issue 15 (before any game moved behind the ``Game`` contract): one ``etg sim --log`` per kind
of table (the fully automated table with every side wager, both hybrid tables, Ultimate Texas
Hold 'Em) and, per kind, a table's own log whose last round was left unfinished. Beside them,
``expected.json`` records what that code said of each log: the ``etg verify`` report, every
round's recall timeline (JSON and text, as digests for the simulations' logs), each terminal's
recall, the logged Rules Submissions and their hashes, and for the unfinished rounds what
recovery reports, the rules document, each terminal's view and the meters of the recovered
table. The code of today must say exactly the same: the log format, the Rules Submission
hashes, recall and verification did not change (see the fixtures' README for how they were
made).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from twisted.internet.task import Clock

from game_server.config import TableConfig
from game_server.eventlog import EventLogReader, system_clock
from game_server.keys import load_public_key, load_sealing_key
from game_server.net.service import machine_for
from game_server.recall.rounds import walk
from game_server.recall.terminal import terminal_recall
from game_server.recall.timeline import REVEAL_LINE, build_timeline, format_timeline
from game_server.recall.verify import verify_log
from game_server.table.recovery import open_tables
from game_server.table.session import simulation_seeds

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pre_move"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
LOGS = sorted(EXPECTED)


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    """The fixtures' keys, copied with a private key's mode (git keeps only 0644)."""
    folder = tmp_path / "keys"
    shutil.copytree(FIXTURES / "keys", folder)
    folder.chmod(0o700)
    for private in ("log-signing.key", "shoe-sealing.key"):
        (folder / private).chmod(0o600)
    return folder


def _copy(name: str, tmp_path: Path) -> Path:
    """A copy of the fixture log: reading it must not leave files in the source tree."""
    db = tmp_path / name
    shutil.copy(FIXTURES / name, db)
    return db


def _observed(db: Path, keys: Path, digests: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    with closing(EventLogReader.open(db)) as reader:
        report = verify_log(reader, load_public_key(keys), sealing_key=load_sealing_key(keys))
        entry["verify"] = {
            "ok": report.ok,
            "counts": dataclasses.asdict(report.counts),
            "failures": [f.reason for f in report.failures],
            "warnings": [f.reason for f in report.warnings],
        }
        rounds = list(walk(reader.iter_events()))
        timelines = [build_timeline(r) for r in rounds]
        entry["timelines"] = [_without_reveal(t.to_json()) for t in timelines]
        entry["texts"] = [
            "\n".join(line for line in format_timeline(t) if not _is_reveal_line(line))
            for t in timelines
        ]
        terminals = sorted({t for r in rounds if r.started for t in r.started.terminals})
        entry["terminal_recall"] = {
            t: _before_receipts(terminal_recall(reader, t)) for t in terminals
        }
        configs = {r.table_id: r.config for r in rounds}
        entry["configs"] = {t: c.to_dict() for t, c in configs.items()}
        entry["config_hashes"] = {t: c.config_hash() for t, c in configs.items()}
    if digests:
        for key in ("timelines", "texts", "terminal_recall"):
            entry[key] = _digest(entry[key])
    # JSON turns tuples into lists and int keys into strings: compare as stored.
    return dict(json.loads(json.dumps(entry, sort_keys=True)))


#: What game recall added after these logs were written ([provable]: each game's shoe and its
#: receipt, tested in tests/recall/test_receipt.py).
ADDED_TO_RECALL = ("shoe", "receipt")


def _without_reveal(timeline: dict[str, Any]) -> dict[str, Any]:
    """The timeline as the code before [provable] made it: its shoe without the ``reveal``
    added since (tested in tests/recall/test_recall_show_reveal.py)."""
    if timeline["shoe"] is not None:
        assert "reveal" in timeline["shoe"]
        del timeline["shoe"]["reveal"]
    return timeline


def _is_reveal_line(line: str) -> bool:
    """The shoe's reveal line [provable] added to ``etg recall show``'s text."""
    return line.startswith(f"  {REVEAL_LINE}")


def _before_receipts(recall: dict[str, Any]) -> dict[str, Any]:
    """The recall document as the code before receipts made it (the added keys present, then
    left out of the comparison)."""
    for game in recall["games"]:
        assert all(key in game for key in ADDED_TO_RECALL), game
        for key in ADDED_TO_RECALL:
            del game[key]
    return recall


def _seating(db: Path) -> dict[str, dict[str, int]]:
    """Each table's terminals and seats as its last round started (stadium play: 1, 2, ...)."""
    seats: dict[str, dict[str, int]] = {}
    with closing(EventLogReader.open(db)) as reader:
        for logged in walk(reader.iter_events()):
            if logged.started is not None:
                pairs = zip(logged.started.seats, logged.started.terminals, strict=True)
                seats[logged.table_id] = {t: s for s, t in pairs}
    return {
        table: {t: (s if s else i + 1) for i, (t, s) in enumerate(sorted(m.items()))}
        for table, m in seats.items()
    }


def _recovered(db: Path, keys: Path, configs: Mapping[str, TableConfig]) -> dict[str, Any]:
    seating = _seating(db)
    log, tables = open_tables(
        list(configs.values()),
        db,
        keys,
        lambda config: seating[config.table_id],
        clock=system_clock,
        seeds=lambda config: simulation_seeds(99, config.table_id),
    )
    found: dict[str, Any] = {}
    try:
        for session, report in tables:
            terminals = sorted(seating[session.config.table_id])
            machine = machine_for(session, Clock(), 0.0)
            found[session.config.table_id] = {
                "describe": report.describe(),
                "phase": None if report.phase is None else str(report.phase),
                "interrupted_round": report.interrupted_round,
                "wallets": report.wallets,
                "shoe_position": report.shoe_position,
                "cards_checked": report.cards_checked,
                "rules": machine.rules(terminals[0]),
                "views": {t: machine.view(t) for t in terminals},
                "meters": machine.meters(),
            }
    finally:
        log.close()
    return dict(json.loads(json.dumps(found, sort_keys=True)))


@pytest.mark.parametrize("name", LOGS)
def test_a_log_written_before_the_move_verifies_and_recalls_the_same(
    name: str, tmp_path: Path, keys: Path
) -> None:
    """The verify report (every round replayed through today's engines, every card and
    balance checked), every round's recall timeline and text, each terminal's recall, and
    the logged Rules Submissions with their hashes are exactly what the code before the move
    gave for the same log."""
    expected = {k: v for k, v in EXPECTED[name].items() if k != "recover"}
    observed = _observed(_copy(name, tmp_path), keys, digests=not name.startswith("interrupted"))
    assert observed["verify"]["ok"], observed["verify"]["failures"]
    for key in expected:
        assert observed[key] == expected[key], f"{name}: {key} differs from before the move"


@pytest.mark.parametrize("name", [n for n in LOGS if "recover" in EXPECTED[n]])
def test_a_table_recovers_a_round_interrupted_before_the_move(
    name: str, tmp_path: Path, keys: Path
) -> None:
    """A table server given a log whose round was left unfinished by the code before the
    move resumes it where it stopped (replayed through today's engine: same phase, shoe
    position, wallets, views, rules document and meters)."""
    db = _copy(name, tmp_path)
    with closing(EventLogReader.open(db)) as reader:
        configs = {r.table_id: r.config for r in walk(reader.iter_events())}
    assert _recovered(db, keys, configs) == EXPECTED[name]["recover"]
