"""etg recall list / show: game recall from the event log (standards-gli.md section 3).

One small log (``recall_logs.build_log``: two tables, known times, countdown decisions,
insurance, in-round top-ups, an interrupted round) is written once per module through the
live table's session; every expectation is recomputed here from the raw events, not taken
from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from logged_records import unseal_bodies
from recall_logs import START, TABLES, build_log, round_start

from game_server.eventlog import EventLogReader, format_time
from game_server.keys import init_keys
from game_server.recall.query import fetch_round, parse_time_arg
from game_server.recall.rounds import load_round, walk
from game_server.recall.timeline import build_timeline
from tools.recall_cli import recall

ROUNDS = 12


@dataclass
class Expected:
    """One round as the test computes it from the raw rows."""

    table: str
    round: int
    seqs: list[int] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    terminals: list[str | None] = field(default_factory=list)

    def of_kind(self, kind: str) -> Iterator[tuple[str | None, str, dict[str, Any]]]:
        for terminal, time, body in zip(self.terminals, self.times, self.events, strict=True):
            if body["kind"] == kind:
                yield terminal, time, body

    @property
    def wagered(self) -> int:
        return sum(body["amount"] for _, _, body in self.of_kind("wager_placed"))

    @property
    def paid(self) -> int:
        return sum(body["paid"] for _, _, body in self.of_kind("wager_settled"))


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test log (module docstring of recall_logs); its directory holds nothing else."""
    keys = tmp_path_factory.mktemp("keys")
    init_keys(keys, force=True)
    db = tmp_path_factory.mktemp("log") / "tables.db"
    build_log(db, keys, rounds=ROUNDS)
    return db


@pytest.fixture(scope="module")
def rounds(log: Path) -> dict[tuple[str, int], Expected]:
    """Every round of the log, from a plain scan of its rows, in log order."""
    found: dict[tuple[str, int], Expected] = {}
    with EventLogReader.open(log) as reader:
        for stored in reader.iter_events():
            if stored.round_id is None:
                continue
            key = (stored.table_id, stored.round_id)
            item = found.setdefault(key, Expected(*key))
            item.seqs.append(stored.seq)
            item.times.append(stored.time)
            item.events.append(dict(stored.body))
            item.terminals.append(stored.terminal)
    for item in found.values():  # the hole cards the log holds sealed, from each close
        item.events = unseal_bodies(item.events)
    return found


def run(*args: str) -> Result:
    return CliRunner().invoke(recall, [str(a) for a in args])


def listed(*args: str) -> list[dict[str, Any]]:
    result = run("list", *args, "--json")
    assert result.exit_code == 0, result.output
    data: list[dict[str, Any]] = json.loads(result.stdout)
    return data


def keys_of(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(row["table"], row["round"]) for row in rows]


def newest_first(rounds: dict[tuple[str, int], Expected], keep: Any) -> list[tuple[str, int]]:
    chosen = [r for r in rounds.values() if keep(r)]
    chosen.sort(key=lambda r: r.seqs[-1], reverse=True)
    return [(r.table, r.round) for r in chosen]


# -- list ------------------------------------------------------------------------------------


def test_list_shows_rounds_newest_first_with_totals(
    log: Path, rounds: dict[tuple[str, int], Expected]
) -> None:
    """Every round, newest first; wagered / paid equal the sums of wager_placed amounts and
    wager_settled payouts; the biggest win is the settlement that paid the most; the
    interrupted last round says so; the default is the last 10 rounds."""
    rows = listed(str(log), "--last", "100")
    assert keys_of(rows) == newest_first(rounds, lambda r: True)
    for row in rows:
        expected = rounds[(row["table"], row["round"])]
        assert row["wagered"] == expected.wagered
        assert row["paid"] == expected.paid
        assert row["start"] == expected.times[0] and row["end"] == expected.times[-1]
        assert row["terminals"] == sorted({t for t in expected.terminals if t})
        wins = [b for _, _, b in expected.of_kind("wager_settled") if b["paid"] > b["stake"]]
        if wins:
            best = max(wins, key=lambda b: b["paid"])
            assert row["biggest_win"]["paid"] == best["paid"]
            assert row["biggest_win"]["line"] == best["line"]
        else:
            assert row["biggest_win"] is None
        complete = any(b["kind"] == "round_completed" for b in expected.events)
        assert row["complete"] is complete
    assert rows[0]["status"] == "interrupted" and rows[0]["table"] == "BJ-02"
    assert all(row["status"] == "complete" for row in rows[1:])
    assert sum(row["wagered"] for row in rows) == sum(r.wagered for r in rounds.values())

    assert len(listed(str(log))) == 10
    text = run("list", log, "--last", "3")
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[0].split()[:2] == ["table", "round"]
    first = rows[0]
    assert lines[1].split()[:2] == [first["table"], str(first["round"])]
    assert "interrupted" in lines[1]
    second = rows[1]
    if second["biggest_win"]:
        assert second["biggest_win"]["line"] in lines[2]


def test_list_filters_by_terminal_and_table(
    log: Path, rounds: dict[tuple[str, int], Expected]
) -> None:
    """--terminal keeps the rounds with an event of that terminal; --table one table's."""
    for terminal in ("A2", "B1"):
        rows = listed(str(log), "--last", "100", "--terminal", terminal)
        assert keys_of(rows) == newest_first(rounds, lambda r, t=terminal: t in r.terminals)
        assert rows and all(terminal in row["terminals"] for row in rows)
    rows = listed(str(log), "--last", "100", "--table", "BJ-01")
    assert keys_of(rows) == newest_first(rounds, lambda r: r.table == "BJ-01")
    assert listed(str(log), "--table", "BJ-01", "--terminal", "B1") == []
    assert listed(str(log), "--terminal", "nobody") == []


def test_list_filters_by_time_window(log: Path, rounds: dict[tuple[str, int], Expected]) -> None:
    """--since/--until keep rounds with an event in [since, until); ISO 8601 with Z, an
    offset, a naive time (UTC) or a date alone (--until: the whole day) all work."""
    since, until = round_start(0, 4), round_start(0, 6)
    low, high = format_time(since), format_time(until)
    expected = newest_first(rounds, lambda r: any(low <= t < high for t in r.times))
    assert len(expected) == 4  # rounds 4 and 5 of both tables
    for a, b in (
        (since.strftime("%Y-%m-%dT%H:%M:%SZ"), until.strftime("%Y-%m-%dT%H:%M:%SZ")),
        (since.strftime("%Y-%m-%dT%H:%M:%S"), until.strftime("%Y-%m-%dT%H:%M:%S")),
        (
            (since + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S+01:00"),
            (until + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S+01:00"),
        ),
    ):
        assert keys_of(listed(str(log), "--last", "100", "--since", a, "--until", b)) == expected
    day = START.date().isoformat()
    everything = newest_first(rounds, lambda r: True)
    both = ("--last", "100", "--since", day, "--until", day)
    assert keys_of(listed(str(log), *both)) == everything
    assert listed(str(log), "--until", day) != []
    assert listed(str(log), "--since", (START + timedelta(days=1)).date().isoformat()) == []
    assert listed(str(log), "--until", (START - timedelta(days=1)).date().isoformat()) == []
    assert parse_time_arg(day, end_of_day=True) == parse_time_arg(day) + timedelta(days=1)


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "29/11/2026", "15:00Z"])
def test_list_refuses_a_bad_time(log: Path, bad: str) -> None:
    """A TIME that is not ISO 8601: a usage error naming the option, exit status 2."""
    result = run("list", log, "--since", bad)
    assert result.exit_code == 2
    assert "--since" in result.stderr and "ISO 8601" in result.stderr


def test_list_filters_by_wager_and_payout(
    log: Path, rounds: dict[tuple[str, int], Expected]
) -> None:
    """--wager keeps rounds where that wager was placed (by --terminal, if given);
    --min-payout rounds with one settlement paying at least CENTS; both: both."""

    def placed(r: Expected, wager: str, terminal: str | None = None) -> bool:
        return any(
            b["wager"] == wager and (terminal is None or t == terminal)
            for t, _, b in r.of_kind("wager_placed")
        )

    def pays(r: Expected, cents: int) -> bool:
        return any(b["paid"] >= cents for _, _, b in r.of_kind("wager_settled"))

    lucky = listed(str(log), "--last", "100", "--wager", "lucky_aces")
    assert keys_of(lucky) == newest_first(rounds, lambda r: placed(r, "lucky_aces"))
    assert lucky and {row["table"] for row in lucky} == {"BJ-01"}
    assert len(lucky) < len([r for r in rounds.values() if r.table == "BJ-01"])
    for terminal in ("A1", "A3"):
        rows = listed(str(log), "--last", "100", "--wager", "lucky_aces", "--terminal", terminal)
        assert keys_of(rows) == newest_first(
            rounds, lambda r, t=terminal: placed(r, "lucky_aces", t)
        )
    insured = listed(str(log), "--last", "100", "--wager", "insurance")
    assert insured and keys_of(insured) == newest_first(rounds, lambda r: placed(r, "insurance"))
    assert listed(str(log), "--wager", "lucky_aces", "--table", "BJ-02") == []
    assert len(listed(str(log), "--wager", "blackjack", "--last", "3")) == 3

    payouts = sorted({b["paid"] for r in rounds.values() for _, _, b in r.of_kind("wager_settled")})
    for cents in (payouts[-1], payouts[len(payouts) // 2], 1):
        rows = listed(str(log), "--last", "100", "--min-payout", str(cents))
        assert keys_of(rows) == newest_first(rounds, lambda r, c=cents: pays(r, c))
    assert listed(str(log), "--min-payout", str(payouts[-1] + 1)) == []
    rows = listed(str(log), "--last", "100", "--min-payout", "1000", "--wager", "lucky_aces")
    assert keys_of(rows) == newest_first(
        rounds, lambda r: pays(r, 1000) and placed(r, "lucky_aces")
    )


# -- show ------------------------------------------------------------------------------------


def _round_with(rounds: dict[tuple[str, int], Expected], table: str, need: Any) -> Expected:
    for item in rounds.values():
        if item.table == table and need(item):
            return item
    raise AssertionError("the test log has no such round")


def test_show_lists_every_step_in_log_order(
    log: Path, rounds: dict[tuple[str, int], Expected]
) -> None:
    """show: every event in seq order; every card with its shoe position (the hole card
    face down until revealed); decisions by the player and by the countdown, with their
    time; the peek; each settlement with its paytable line and amount."""
    for key in [("BJ-01", n) for n in range(1, ROUNDS + 1)] + [("BJ-02", 4)]:
        expected = rounds[key]
        data = json.loads(run("show", log, key[1], "--table", key[0], "--json").stdout)
        text = run("show", log, key[1], "--table", key[0]).stdout
        timeline = data["timeline"]
        assert [e["seq"] for e in timeline] == expected.seqs
        assert [e["kind"] for e in timeline] == [b["kind"] for b in expected.events]
        for entry, time in zip(timeline, expected.times, strict=True):
            assert entry["time"] == time and entry["time"][11:26] in text
        for entry, (_, _, body) in zip(
            [e for e in timeline if e["kind"] == "card_dealt"],
            expected.of_kind("card_dealt"),
            strict=True,
        ):
            assert entry["position"] == body["position"]
            assert f"(shoe position {body['position']})" in entry["text"]
            if body["face_up"]:
                assert entry["card"] == body["card"]
            else:
                assert entry["text"].startswith("dealer hole card (face down)")
        revealed = list(expected.of_kind("hole_card_revealed"))
        for _, _, body in revealed:
            assert "hole card revealed" in text and f"(shoe position {body['position']})" in text
        for entry in (e for e in timeline if e["kind"] == "decision"):
            assert entry["by"] == ("countdown" if entry["auto"] else "player")
            assert ("by the countdown" if entry["auto"] else "by the player") in entry["text"]
            assert entry["text"] in text
        for entry, (_, _, body) in zip(
            [e for e in timeline if e["kind"] == "wager_settled"],
            expected.of_kind("wager_settled"),
            strict=True,
        ):
            assert (entry["line"], entry["paid"], entry["stake"]) == (
                body["line"],
                body["paid"],
                body["stake"],
            )
            assert body["line"] in entry["text"] and entry["text"] in text
        peeks = [e for e in timeline if e["kind"] == "dealer_peeked"]
        assert len(peeks) == len(list(expected.of_kind("dealer_peeked")))
        assert all(e["text"].startswith("dealer peeks for Blackjack") for e in peeks)
    decisions = [
        b for r in rounds.values() for _, _, b in r.of_kind("decision") if r.table == "BJ-01"
    ]
    assert {b["auto"] for b in decisions} == {True, False}  # the log has both kinds


def test_show_credits_and_meters_match_the_log_and_a_fold(
    log: Path, rounds: dict[tuple[str, int], Expected]
) -> None:
    """Credits at start and end equal round_started / round_closed AND the test's own fold
    (start - wagers + payouts + credits in - out); the meters are the round's sums."""
    checked_top_up = False
    for (table, number), expected in rounds.items():
        if not any(b["kind"] == "round_closed" for b in expected.events):
            continue
        data = json.loads(run("show", log, number, "--table", table, "--json").stdout)
        (_, _, started) = next(expected.of_kind("round_started"))
        (_, _, closed) = next(expected.of_kind("round_closed"))
        fold = dict(zip(started["terminals"], started["balances"], strict=True))
        for terminal, _, body in zip(
            expected.terminals, expected.times, expected.events, strict=True
        ):
            kind = body["kind"]
            if kind == "wager_placed":
                fold[terminal] -= body["amount"]
            elif kind == "wager_settled":
                fold[terminal] += body["paid"]
            elif kind == "credits_in":
                fold[body["terminal"]] += body["amount"]
                checked_top_up = True
            elif kind == "credits_out":
                fold[body["terminal"]] -= body["amount"]
        ends = dict(zip(closed["terminals"], closed["balances"], strict=True))
        assert fold == ends
        for terminal, start in zip(started["terminals"], started["balances"], strict=True):
            credits = data["credits"][terminal]
            assert credits["start"] == start
            assert credits["end"] == ends[terminal] == credits["folded_end"]
        meters: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for _, _, body in expected.of_kind("wager_placed"):
            meters[body["wager"]]["wagered"] += body["amount"]
        for _, _, body in expected.of_kind("wager_settled"):
            meters[body["wager"]]["paid"] += body["paid"]
        for wager, sums in meters.items():
            shown = data["meters"]["wagers"][wager]
            assert (shown["wagered"], shown["paid"]) == (sums["wagered"], sums["paid"])
        assert set(data["meters"]["wagers"]) == set(meters)
        assert data["meters"]["games_played"] == 1
        assert data["problems"] == []
    assert checked_top_up  # a round with a credits_in inside it was checked


def test_show_interrupted_round_hides_the_unrevealed_hole_card(
    log: Path, rounds: dict[tuple[str, int], Expected]
) -> None:
    """The dealt but unfinished round: 'interrupted', no end credits, and the face-down
    card's value is in neither the text nor the JSON."""
    number = max(n for t, n in rounds if t == "BJ-02")
    expected = rounds[("BJ-02", number)]
    result = run("show", log, number)  # only BJ-02 has this round id: no --table needed
    assert result.exit_code == 0, result.output
    assert "interrupted" in result.stdout.splitlines()[0]
    data = json.loads(run("show", log, number, "--json").stdout)
    assert data["status"] == "interrupted" and data["complete"] is False
    hole = [e for e in data["timeline"] if e["kind"] == "card_dealt" and not e["face_up"]]
    assert len(hole) == 1 and hole[0]["card"] is None
    (dealt,) = [b for _, _, b in expected.of_kind("card_dealt") if not b["face_up"]]
    assert dealt["card"] is None  # the log itself holds it sealed while the round is in play
    (line,) = [x for x in result.stdout.splitlines() if "hole card" in x]
    assert line.rstrip().endswith(
        f"dealer hole card (face down) (shoe position {dealt['position']})"
    )
    for credits in data["credits"].values():
        assert credits["end"] is None
        assert credits["folded_end"] == credits["start"] - credits["wagered"]


def test_show_json_shape(log: Path) -> None:
    """show --json: the documented keys; money in integer cents."""
    data = json.loads(run("show", log, 2, "--table", "BJ-01", "--json").stdout)
    assert {"table", "round", "shoe", "credits", "timeline", "meters"} <= set(data)
    assert data["table"] == "BJ-01" and data["round"] == 2
    assert {"number", "commitment", "committed_seq", "revealed_seq"} <= set(data["shoe"])
    assert len(data["shoe"]["commitment"]) == 64
    assert data["config_hash"] and data["start"] <= data["end"]
    for credits in data["credits"].values():
        assert all(type(credits[k]) is int for k in ("start", "end", "wagered", "paid"))
    for entry in data["timeline"]:
        assert {"seq", "time", "who", "kind", "text"} <= set(entry)
        for name in ("amount", "stake", "paid"):
            if name in entry:
                assert type(entry[name]) is int
    for meter in data["meters"]["wagers"].values():
        assert all(type(v) is int for v in meter.values())
    rows = listed(str(log), "--last", "2")
    assert {"table", "round", "start", "end", "terminals", "wagered", "paid", "biggest_win",
            "complete"} <= set(rows[0])  # fmt: skip
    assert all(type(row["wagered"]) is int and type(row["paid"]) is int for row in rows)


def test_show_header_names_shoe_commitment_config_and_times(log: Path) -> None:
    """The header: table, round, status, start/end, shoe number and commitment, config
    hash; the credits table names every seated terminal."""
    data = json.loads(run("show", log, 3, "--table", "BJ-01", "--json").stdout)
    lines = run("show", log, 3, "--table", "BJ-01").stdout.splitlines()
    assert lines[0].startswith("Table BJ-01  round 3  complete")
    assert data["shoe"]["commitment"] in "\n".join(lines[:4])
    assert data["config_hash"] in "\n".join(lines[:5])
    for terminal in TABLES["BJ-01"]:
        assert any(line.strip().startswith(terminal) for line in lines[5:10])


def test_unknown_and_ambiguous_rounds(log: Path) -> None:
    """An unknown round: one error line listing the nearest rounds, exit 2. A round id both
    tables used, without --table: an error asking for --table."""
    result = run("show", log, 500)
    assert result.exit_code == 2
    assert result.stderr.startswith("etg: error: there is no round 500")
    assert f"BJ-02 {ROUNDS + 1}" in result.stderr and len(result.stderr.splitlines()) == 1
    result = run("show", log, 3)
    assert result.exit_code == 2
    assert "--table" in result.stderr and "BJ-01" in result.stderr and "BJ-02" in result.stderr
    result = run("show", log, 3, "--table", "BJ-09")
    assert result.exit_code == 2 and "no table 'BJ-09'" in result.stderr
    assert run("show", log, ROUNDS + 1, "--table", "BJ-01").exit_code == 2


# -- the fast loader and the timeline ------------------------------------------------------------


def test_fetch_round_equals_load_round_for_every_round(log: Path) -> None:
    """The indexed single-round loader returns exactly what rounds.load_round (a walk of the
    log) returns, for every round; the timeline has one entry per event."""
    with EventLogReader.open(log) as reader:
        logged = list(walk(reader.iter_events()))
        assert len(logged) == 2 * ROUNDS + 1
        for item in logged:
            fast = fetch_round(reader, item.table_id, item.round_id)
            assert fast == load_round(reader, item.table_id, item.round_id)
            assert fast is not None and fast.events == item.events
            timeline = build_timeline(fast)
            assert [e.seq for e in timeline.entries] == [e.seq for e in item.events]
        assert fetch_round(reader, "BJ-01", 999) is None


# -- errors and read-only ------------------------------------------------------------------------


def _snapshot(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def test_refuses_files_that_are_not_logs_without_touching_them(tmp_path: Path) -> None:
    """A text file, an empty file, a missing file, another SQLite database: one error line,
    exit 2, the file unchanged."""
    text = tmp_path / "notes.txt"
    text.write_text("not a log\n" * 20)
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    for path in (text, empty, other):
        before = _snapshot(path)
        for args in (("list", path), ("show", path, 1)):
            result = run(*args)
            assert result.exit_code == 2
            assert result.stderr.startswith("etg: error: ")
            assert len(result.stderr.splitlines()) == 1
            assert "not an ETG event log" in result.stderr
        assert _snapshot(path) == before
    missing = run("list", tmp_path / "nowhere.db")
    assert missing.exit_code == 2 and "there is no event log" in missing.stderr
    assert not (tmp_path / "nowhere.db").exists()


def test_refuses_a_log_newer_than_the_code(log: Path, tmp_path: Path) -> None:
    """A log of a newer schema: one error line naming the versions, exit 2, unchanged."""
    newer = tmp_path / "newer.db"
    shutil.copy(log, newer)
    conn = sqlite3.connect(newer)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    before = _snapshot(newer)
    for args in (("list", newer), ("show", newer, 1, "--table", "BJ-01")):
        result = run(*args)
        assert result.exit_code == 2
        assert len(result.stderr.splitlines()) == 1
        assert "schema version 99" in result.stderr and "newer" in result.stderr
    assert _snapshot(newer) == before


def test_recall_never_writes_the_log(log: Path, tmp_path: Path) -> None:
    """Every command leaves the database file's bytes and mtime as they were; with
    --immutable (an evidence copy) not even -wal/-shm files appear beside it."""
    copy_dir = tmp_path / "evidence"
    copy_dir.mkdir()
    copy = copy_dir / "tables.db"
    shutil.copy(log, copy)
    for db, extra in ((log, ()), (copy, ("--immutable",))):
        before = _snapshot(db)
        listing = sorted(p.name for p in db.parent.iterdir())
        for args in (
            ("list", db),
            ("list", db, "--json", "--wager", "lucky_aces"),
            ("list", db, "--min-payout", "1000", "--terminal", "A1"),
            ("show", db, 2, "--table", "BJ-01"),
            ("show", db, 2, "--table", "BJ-02", "--json"),
            ("show", db, 999),
        ):
            result = run(*args, *extra)
            assert result.exit_code in (0, 2), result.output
        assert _snapshot(db) == before
        if extra:
            assert sorted(p.name for p in db.parent.iterdir()) == listing
