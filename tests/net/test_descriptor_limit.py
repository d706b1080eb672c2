"""A server of many terminals needs as many descriptors (issue 22): at start it raises its
soft limit (``ulimit -n``) to its hard limit when it needs more, and refuses to start with a
sentence naming the limit when the hard limit is too low, before it touches the log."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from game_server.config import example_config_path
from game_server.net import floor as floor_module
from game_server.net.floor import (
    MAX_TABLES,
    MAX_TERMINALS,
    DescriptorLimit,
    FloorConfig,
    descriptors_needed,
    raise_descriptor_limit,
)
from game_server.net.pki import MAX_TERMINALS as MOST_CERTIFICATES

ROOT = Path(__file__).resolve().parents[2]


class _Limits:
    """A recording fake of ``resource``'s RLIMIT_NOFILE (the test process keeps its own)."""

    def __init__(self, soft: int, hard: int) -> None:
        self.soft, self.hard = soft, hard
        self.set: list[tuple[int, int]] = []

    def getrlimit(self, which: int) -> tuple[int, int]:
        assert which == resource.RLIMIT_NOFILE
        return self.soft, self.hard

    def setrlimit(self, which: int, limits: tuple[int, int]) -> None:
        assert which == resource.RLIMIT_NOFILE
        self.set.append(limits)
        self.soft, self.hard = limits


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> _Limits:
    fake = _Limits(1024, 4096)
    monkeypatch.setattr(floor_module.resource, "getrlimit", fake.getrlimit)
    monkeypatch.setattr(floor_module.resource, "setrlimit", fake.setrlimit)
    return fake


def _full_floor() -> FloorConfig:
    terminals = {f"T{i}": (i - 1) % 7 + 1 for i in range(1, MAX_TERMINALS + 1)}
    tables = {f"T{i}": f"BJ-{(i - 1) // 7 + 1}" for i in range(1, MAX_TERMINALS + 1)}
    return FloorConfig(terminals=terminals, tables=tables)


def test_a_full_server_seats_a_thousand_terminals_and_needs_two_descriptors_each() -> None:
    assert MAX_TERMINALS == MAX_TABLES * 7 >= 1000
    assert MOST_CERTIFICATES >= MAX_TERMINALS  # etg certs init can issue them all
    assert descriptors_needed(_full_floor()) == 2 * MAX_TERMINALS + 64 + 4 + 48


def test_a_low_soft_limit_is_raised_to_the_hard_limit(limits: _Limits) -> None:
    needed = descriptors_needed(_full_floor())
    assert raise_descriptor_limit(needed, "a server") == 4096
    assert limits.set == [(4096, 4096)]


def test_a_soft_limit_that_suffices_is_left_alone(limits: _Limits) -> None:
    assert raise_descriptor_limit(1000, "a server") == 1024
    assert limits.set == []


def test_a_hard_limit_too_low_is_refused_naming_it(limits: _Limits) -> None:
    limits.hard = 1500
    with pytest.raises(DescriptorLimit) as refused:
        raise_descriptor_limit(2216, "a server of 1050 terminal(s)")
    sentence = str(refused.value)
    assert "a server of 1050 terminal(s) needs up to 2,216 open files" in sentence
    assert "at most 1,500 (the hard limit, ulimit -Hn" in sentence
    assert limits.set == []


def _limited(nofile: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))


def test_serve_under_a_hard_limit_too_low_refuses_before_touching_the_log(
    tmp_path: Path,
) -> None:
    """``python -m game_server --tables 20`` (140 terminals, 396 descriptors) under a hard
    limit of 200: one sentence naming the limit, exit 2, no log made."""
    db = tmp_path / "data" / "table.db"
    command = [sys.executable, "-m", "game_server", "--config", str(example_config_path())]
    command += ["--db", str(db), "--certs", str(tmp_path / "certs"), "--tables", "20"]
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: _limited(200),
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "needs up to 396 open files" in done.stderr
    assert "at most 200 (the hard limit, ulimit -Hn" in done.stderr
    assert not db.parent.exists()
