"""kill -9 during appends: a real writer process is killed at a random moment, several times
over, and each time the log opens, verifies, and holds only whole steps, including every
step the writer had acknowledged."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventlog_helpers import FakeClock

from game_server.eventlog import EventLog, EventLogReader, verify_chain
from game_server.keys import KeyFiles

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("crash_writer.py")
STEP = 20
ITERATIONS = 5
SEED = 20250301


def _run_and_kill(db: Path, keys: Path, delay: float) -> list[int]:
    """Start the writer, wait until it acknowledges its first step, let it run ``delay``
    seconds more, SIGKILL it; return the step numbers it acknowledged."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(db), str(keys), str(STEP)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if not first.strip():
            raise AssertionError(f"the writer did not start: {proc.communicate()[1]}")
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        # Read on from the same file object: readline() may already hold the lines after
        # the first in its buffer (a busy machine lets the writer run ahead), and
        # communicate() would read past them from the pipe itself.
        rest = proc.stdout.read()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:  # pragma: no cover - only if an assertion fired above
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    return [int(line) for line in (first + rest).split()]


def _check_whole_steps(db: Path, public_key: Ed25519PublicKey, acknowledged: int) -> int:
    """The log verifies, holds steps 1..N each whole and in order, and N covers every
    acknowledged step. Returns N."""
    with EventLogReader.open(db) as reader:
        report = verify_chain(reader, public_key)
        assert report.ok, report.problems
        by_step: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        for event in reader.iter_events():
            body = event.body
            assert body["count"] == STEP
            by_step[body["step"]].append((event.seq, body["index"], event.round_id or 0))
    steps = sorted(by_step)
    assert steps == list(range(1, len(steps) + 1))
    for number in steps:
        events = by_step[number]
        first_seq = (number - 1) * STEP + 1
        assert events == [(first_seq + i, i, number) for i in range(STEP)], number
    assert len(steps) >= acknowledged  # an acknowledged step is never lost
    assert len(steps) <= acknowledged + 1  # at most the step in flight was also committed
    return len(steps)


def test_kill_9_during_appends_leaves_only_whole_steps(
    tmp_path: Path, key_files: KeyFiles, public_key: Ed25519PublicKey
) -> None:
    """Five times: a writer appending 20-event steps is SIGKILLed after a delay drawn from a
    fixed seed; the log then verifies and every step in it is complete, and the next writer
    continues the same log."""
    rng = random.Random(SEED)
    db = tmp_path / "crash.db"
    keys = key_files.signing_key.parent
    total = 0
    for _ in range(ITERATIONS):
        printed = _run_and_kill(db, keys, rng.uniform(0.01, 0.3))
        assert printed == list(range(total + 1, total + 1 + len(printed)))
        total = _check_whole_steps(db, public_key, acknowledged=printed[-1])
    with EventLog.create_or_open(db, keys, FakeClock()) as log:  # opens: tail verifies
        assert log.head.seq == total * STEP
