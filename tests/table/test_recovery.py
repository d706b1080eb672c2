"""Crash recovery: the table resumes from its log exactly where it stopped (GLI power loss,
9 NYCRR 5319.54, regs/notes/standards-gli.md section 4).

Unit tests stop a logged table at chosen steps (an append that never happens), drop the
session, recover it from the log and play on: the whole log must equal the log of an
uninterrupted table with the same seed and script. The fault test kills a real table process
with SIGKILL at random moments and restarts it each time.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from recovery_script import TERMINALS, next_input, play, script_strategy, small_shoe_config

from game_server.config import TableConfig, example_config_path, load_config
from game_server.eventlog import EventLog, EventLogReader, NewEvent, system_clock
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.session import TableSession
from game_server.keys import init_keys, key_id, load_public_key, load_sealing_key
from game_server.recall.rounds import walk
from game_server.recall.verify import verify_log
from game_server.rules.events import from_dict
from game_server.table.ledger import Ledger
from game_server.table.recovery import (
    ConfigChangedMidRound,
    RecoveryReport,
    SeatingChanged,
    ShoeUnprovable,
    TablesDiffer,
    open_table_reporting,
    recover_session,
)
from game_server.table.session import SealedShoes, simulation_seeds

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("recovery_worker.py")
SEED = 11
ROUNDS = 30
CONFIG = small_shoe_config()


class Crash(Exception):
    """The process dies before this append reaches the log."""


class Sink:
    """The event log, counting appends; the append after ``limit`` of them crashes."""

    def __init__(self, log: EventLog, limit: int | None = None) -> None:
        self.log = log
        self.limit = limit
        self.kinds: list[list[str]] = []

    def append(self, step: Sequence[NewEvent], *, checkpoint: str | None = None) -> Any:
        if self.limit is not None and len(self.kinds) >= self.limit:
            raise Crash
        stored = self.log.append(step, checkpoint=checkpoint)
        self.kinds.append([str(e.body["kind"]) for e in step])
        return stored


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("certs")
    init_keys(path)
    return path


def open_table(
    db: Path,
    certs: Path,
    config: TableConfig = CONFIG,
    seats: dict[str, int] | None = None,
    change: str | None = None,
) -> tuple[TableSession, RecoveryReport]:
    return open_table_reporting(
        config,
        db,
        certs,
        TERMINALS if seats is None else seats,
        clock=system_clock,
        seeds=simulation_seeds(SEED, config.table_id),
        change_reason=change,
    )


def log_of(session: TableSession) -> EventLog:
    sink = session.sink
    log = sink.log if isinstance(sink, Sink) else sink
    assert isinstance(log, EventLog)
    return log


def events(db: Path) -> list[tuple[str, int | None, str | None, dict[str, Any]]]:
    """The log's events without what legitimately differs between two runs (the random
    nonce of each sealed seed, the times)."""
    out = []
    with closing(EventLogReader.open(db)) as reader:
        for stored in reader.iter_events():
            body = dict(stored.body)
            body.pop("sealed_seed", None)
            out.append((stored.table_id, stored.round_id, stored.terminal, body))
    return out


def check_log(db: Path, certs: Path) -> Ledger:
    """The log verifies and conserves credits; returns its fold."""
    with closing(EventLogReader.open(db)) as reader:
        report = verify_log(reader, load_public_key(certs), sealing_key=load_sealing_key(certs))
        assert report.ok, [f.reason for f in report.failures]
        ledger = Ledger()
        for stored in reader.iter_events():
            ledger.apply(stored.terminal, from_dict(stored.body))
    assert ledger.conserved()
    assert ledger.credits_in == (
        ledger.credits_out + sum(ledger.wallets.values()) + ledger.in_play + ledger.house_result
    )
    return ledger


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> dict[str, Any]:
    """An uninterrupted run: its log, the kinds of each append, and the script's steps."""
    db = tmp_path_factory.mktemp("ref") / "ref.db"
    session, report = open_table(db, certs)
    assert report.opened and report.events == 0
    sink = Sink(log_of(session))
    session.sink = sink
    steps: list[tuple[str, int, Phase | None]] = []
    play(session, ROUNDS, lambda label: steps.append((label, len(sink.kinds), session.phase)))
    sink.log.close()
    return {"db": db, "kinds": sink.kinds, "steps": steps, "events": events(db)}


def crash_points(reference: dict[str, Any]) -> Iterator[tuple[str, int]]:
    """(name, appends before the crash) for each situation the tests stop the table in."""
    steps = reference["steps"]
    kinds = reference["kinds"]

    def first(name: str, found: Iterator[int]) -> tuple[str, int]:
        at = next(found, None)
        assert at is not None, f"the script never reaches {name}; change SEED"
        return name, at

    yield first("after wagers", (n for label, n, _ in steps if label == "wager"))
    yield first(
        "after the deal",
        (n for label, n, phase in steps if label == "deal" and phase is Phase.PLAYING),
    )
    yield first("in insurance", (n for _, n, phase in steps if phase is Phase.INSURANCE))
    yield first(
        "mid-decisions",
        (
            n
            for (label, n, phase), (after, _, _) in itertools.pairwise(steps)
            if label == "act" and phase is Phase.PLAYING and after == "act"
        ),
    )
    yield first(
        "between rounds", (n for label, n, phase in steps[5:] if label == "act" and phase is None)
    )
    yield first("after a shoe reveal", (n for label, n, _ in steps if label == "retire"))
    yield first(
        "right after a shoe change",
        (i + 1 for i, k in enumerate(kinds) if k == ["shoe_committed"] and i > 5),
    )
    yield first(
        "at the first round of a new shoe",
        (i + 1 for i, k in enumerate(kinds) if k == ["round_started"] and i > 5 and i > 0),
    )
    yield first("after a cash out", (n for label, n, _ in steps if label == "cash-out"))
    rng = random.Random(SEED)
    for _ in range(4):
        yield "random", rng.randrange(1, len(kinds))


def test_fresh_log_is_opened_and_every_situation_is_reached(reference: dict[str, Any]) -> None:
    names = [name for name, _ in crash_points(reference)]
    assert len(names) == 13
    assert reference["events"][0][3]["kind"] == "table_opened"


@pytest.mark.parametrize("index", range(13))
def test_recovery_resumes_exactly_where_it_stopped(
    index: int, reference: dict[str, Any], certs: Path, tmp_path: Path
) -> None:
    name, limit = list(crash_points(reference))[index]
    db = tmp_path / "crash.db"
    session, _ = open_table(db, certs)
    session.sink = Sink(log_of(session), limit)
    with pytest.raises(Crash):
        play(session, ROUNDS)
    log_of(session).close(checkpoint=False)  # the process is gone: no shutdown checkpoint
    stopped = session.round_id, session.phase
    del session

    recovered, report = open_table(db, certs)
    assert not report.opened, "a restart with the same Rules Submission logs nothing"
    assert report.last_seq == len(events(db))
    assert report.wallets == check_log(db, certs).wallets
    if report.interrupted_round is not None:
        assert recovered.round is not None and recovered.phase is report.phase
        assert report.interrupted_round == recovered.round_id
        # The in-memory state at the crash is the one after the last logged step, or the
        # round is the one the crash hit.
        assert stopped[0] == recovered.round_id
    else:
        assert recovered.round is None
    if recovered.shoe is not None:
        assert report.shoe_position == recovered.shoe.position
    play(recovered, ROUNDS)
    log_of(recovered).close()
    assert events(db) == reference["events"], f"the run crashed {name} continued differently"
    ledger = check_log(db, certs)
    assert ledger.games_played == ROUNDS


def test_each_situation_resumes_in_its_phase(
    reference: dict[str, Any], certs: Path, tmp_path: Path
) -> None:
    expected = {
        "after wagers": Phase.BETTING,
        "after the deal": Phase.PLAYING,
        "in insurance": Phase.INSURANCE,
        "mid-decisions": Phase.PLAYING,
        "between rounds": None,
        "after a shoe reveal": None,
        "right after a shoe change": None,
        "at the first round of a new shoe": Phase.BETTING,
    }
    for n, (name, limit) in enumerate(crash_points(reference)):
        if name not in expected:
            continue
        db = tmp_path / f"{n}.db"
        session, _ = open_table(db, certs)
        session.sink = Sink(log_of(session), limit)
        with pytest.raises(Crash):
            play(session, ROUNDS)
        log_of(session).close(checkpoint=False)
        recovered, report = open_table(db, certs)
        log_of(recovered).close(checkpoint=False)
        assert report.phase is expected[name], name
        if name == "after a shoe reveal":
            assert recovered.shoe is None and report.shoe_position is None
        if name == "right after a shoe change":
            assert recovered.shoe is not None and recovered.shoe.position == 0


def crashed_mid_round(db: Path, certs: Path) -> None:
    session, _ = open_table(db, certs)
    strategy = script_strategy(CONFIG.rules)
    while not (session.round is not None and session.phase is Phase.PLAYING):
        next_input(session, strategy, ROUNDS)
    log_of(session).close(checkpoint=False)


def test_a_changed_rules_submission_is_refused_mid_round(certs: Path, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    crashed_mid_round(db, certs)
    other = load_config(example_config_path())
    with pytest.raises(TablesDiffer, match="state the change"):
        open_table(db, certs, config=other)
    with pytest.raises(ConfigChangedMidRound, match="unfinished"):
        open_table(db, certs, config=other, change="new paytable approved")
    with pytest.raises(SeatingChanged):
        open_table(db, certs, seats={"T1": 2, "T2": 1, "T3": 3})
    session, report = open_table(db, certs)  # the logged config finishes the round
    assert report.phase is Phase.PLAYING
    log_of(session).close()


def test_a_changed_rules_submission_between_rounds_is_refused_unless_stated(
    certs: Path, tmp_path: Path
) -> None:
    """One log, one table set: a server given another Rules Submission than its log holds
    refuses to start (nothing written) unless the operator states the change, which is then
    logged (rules_change_stated, the old shoe revealed, the new rules, a new shoe) and
    verifies."""
    db = tmp_path / "t.db"
    session, _ = open_table(db, certs)
    play(session, 3)
    log_of(session).close(checkpoint=False)
    other = load_config(example_config_path())
    before = len(events(db))
    with pytest.raises(TablesDiffer, match=f"Rules Submission {CONFIG.config_hash()}"):
        open_table(db, certs, config=other)
    assert len(events(db)) == before
    session, report = open_table(db, certs, config=other, change="paytable B approved")
    assert report.opened and report.retired_shoe == 1 and session.shoe is None
    play(session, 6)
    log_of(session).close()
    kinds = [body["kind"] for *_, body in events(db)]
    assert kinds.count("table_opened") == 2
    opened = kinds.index("table_opened", 1)
    stated = kinds.index("rules_change_stated")
    assert stated < opened
    assert events(db)[stated][3] == {
        "kind": "rules_change_stated",
        "v": 1,
        "reason": "paytable B approved",
        "logged_hash": CONFIG.config_hash(),
        "config_hash": other.config_hash(),
    }
    assert kinds[opened - 1] == "shoe_revealed" and kinds[opened + 1] == "shoe_committed"
    check_log(db, certs)


def test_a_log_of_other_tables_is_refused(certs: Path, tmp_path: Path) -> None:
    """A log written by other tables (another table id) is refused, naming both; with a
    stated change the old table is logged as retired."""
    db = tmp_path / "t.db"
    session, _ = open_table(db, certs)
    play(session, 1)
    log_of(session).close()
    other = replace(CONFIG, table_id="BJ-99")
    with pytest.raises(TablesDiffer, match=r"table BJ-99 is not in the log.*BJ-01 of the log"):
        open_table(db, certs, config=other)
    session, _ = open_table(db, certs, config=other, change="table renumbered")
    log_of(session).close()
    stated = [body for *_, body in events(db) if body["kind"] == "rules_change_stated"]
    assert [(s["logged_hash"] == "", s["config_hash"] == "") for s in stated] == [
        (False, True),
        (True, False),
    ]
    check_log(db, certs)


def test_a_shoe_that_cannot_be_proven_is_not_dealt_from(certs: Path, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    crashed_mid_round(db, certs)
    public = load_public_key(certs)
    log = EventLog.create_or_open(db, certs, system_clock)
    try:
        with closing(EventLogReader.open(db)) as reader:
            shoes = SealedShoes(
                CONFIG, simulation_seeds(SEED, CONFIG.table_id), bytes(32), key_id(public)
            )
            with pytest.raises(ShoeUnprovable, match="cannot be unsealed"):
                recover_session(CONFIG, log, reader, shoes, TERMINALS, bytes(32))
    finally:
        log.close(checkpoint=False)


# --------------------------------------------------------------------- kill -9


KILLS = 24


def _spawn(db: Path, certs: Path, rounds: int, stderr: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(db), str(certs), str(rounds), str(SEED)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )


def test_kill_9_at_random_moments_loses_nothing(certs: Path, tmp_path: Path) -> None:
    """SIGKILL the table process at random moments (during start-up, recovery, appends and
    their transactions); each restart recovers and plays on. The final log verifies,
    conserves every credit, and equals the log of a table that was never killed."""
    started = time.monotonic()
    db = tmp_path / "killed.db"
    rng = random.Random(20261129)
    errors = tmp_path / "stderr.txt"
    played: list[int] = []
    resumed: list[str] = []
    with errors.open("w") as stderr:
        for kill in range(KILLS):
            proc = _spawn(db, certs, 1_000_000, stderr)
            try:
                assert proc.stdout is not None
                ready = ""
                if kill == 0 or kill % 3:
                    ready = proc.stdout.readline()
                    assert ready.startswith("ready"), errors.read_text()
                    time.sleep(rng.uniform(0.0, 0.25))
                else:  # anywhere, start-up and recovery included
                    time.sleep(rng.uniform(0.05, 0.6))
                proc.send_signal(signal.SIGKILL)
                out, _ = proc.communicate(timeout=10)
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.wait(timeout=10)
            assert proc.returncode == -signal.SIGKILL, errors.read_text()
            # The kill can cut the last line short: only lines that ended are read.
            lines = (ready + out).split("\n")[:-1]
            rounds = [
                int(parts[1])
                for line in lines
                if line[:5] == "round" and len(parts := line.split()) > 1 and parts[1].isdigit()
            ]
            resumed += [
                line.split("; ")[1] for line in lines if line[:5] == "ready" and "; " in line
            ]
            played.append(rounds[-1] if rounds else -1)

    # After the last kill: every round but the last is complete, the last is resumable.
    with closing(EventLogReader.open(db)) as reader:
        logged = [r for r in walk(reader.iter_events())]
    assert all(r.complete for r in logged[:-1])
    killed_at = logged[-1].round_id
    session, report = open_table(db, certs)
    log_of(session).close(checkpoint=False)
    assert report.rounds == len(logged) and report.last_round_id == killed_at
    assert report.wallets == check_log(db, certs).wallets
    assert killed_at > 20, "the table hardly played between the kills"

    # Let it finish a few more rounds cleanly, then compare with a table never killed.
    target = killed_at + 3
    with errors.open("a") as stderr:
        proc = _spawn(db, certs, target, stderr)
        try:
            out, _ = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0, errors.read_text()
    assert out.rstrip().endswith("done")
    ledger = check_log(db, certs)
    assert ledger.games_played == target

    reference_db = tmp_path / "never-killed.db"
    session, _ = open_table(reference_db, certs)
    play(session, target)
    log_of(session).close()
    assert events(db) == events(reference_db)
    elapsed = time.monotonic() - started
    print(f"{KILLS} kills, last round printed before each kill {played}")
    print(f"restarts resumed: {resumed}")
    print(f"{target} rounds, {elapsed:.1f}s")
    assert any("resumes in" in line for line in resumed), "no kill landed inside a round"
