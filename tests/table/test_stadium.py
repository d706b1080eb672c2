"""The plumbing every stadium-play table shares (:class:`StadiumMachine`), checked on both
of its tables: the hybrid table (58 Pa. Code 633b.5) and Ultimate Texas Hold 'Em (653a).

What the two machines do with their own games is tested in ``test_hybrid_machine.py`` and
``test_uth_machine.py``; here, what the base class owns keeps each table's name in the log.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from enum import StrEnum
from typing import Any, NamedTuple

import pytest
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher

from game_server.config import example_path, load_config
from game_server.games.hybrid import machine as hybrid_machine
from game_server.games.hybrid.session import HybridSession
from game_server.games.uth import machine as uth_machine
from game_server.games.uth.session import UthSession
from game_server.table.api import TableState
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from game_server.table.stadium import OPERATOR, StadiumMachine

HYBRID = load_config(example_path("hybrid-three-position.toml"))
UTH = load_config(example_path("uth.toml"))
KEY = bytes(range(32))


def hybrid_table() -> StadiumMachine[Any, Any]:
    shoes = SealedShoes(HYBRID, simulation_seeds(5, HYBRID.table_id), KEY, "test-key")
    session = HybridSession(HYBRID, MemorySink(), shoes, ("T1", "T2"))
    session.open()
    return hybrid_machine.HybridMachine(session, Clock())


def uth_table() -> StadiumMachine[Any, Any]:
    shoes = SealedShoes(UTH, simulation_seeds(5, UTH.table_id), KEY, "test-key")
    session = UthSession(UTH, MemorySink(), shoes, {"T1": 1, "T2": 3})
    session.open()
    return uth_machine.UthMachine(session, Clock())


class Table(NamedTuple):
    """One stadium table: how to build it, the namespace of its log, how its log names it."""

    make: Callable[[], StadiumMachine[Any, Any]]
    namespace: str
    noun: str


TABLES = pytest.mark.parametrize(
    "table",
    [
        Table(hybrid_table, "game_server.games.hybrid.machine", "hybrid table"),
        Table(uth_table, "game_server.games.uth.machine", "table"),
    ],
    ids=["hybrid", "uth"],
)


@pytest.fixture
def logged() -> Iterator[list[dict[str, Any]]]:
    """Every log event emitted while the test runs (a recording observer)."""
    events: list[dict[str, Any]] = []
    observer: Any = events.append  # an ILogObserver (zope, untyped)
    globalLogPublisher.addObserver(observer)
    try:
        yield events
    finally:
        globalLogPublisher.removeObserver(observer)


class Broken:
    """A listener that fails on every step it is told about."""

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        raise RuntimeError("the screen fell over")


class Recorder:
    """A listener that keeps every step it is told about."""

    def __init__(self) -> None:
        self.steps: list[list[Any]] = []

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        self.steps.append(list(events))


@pytest.mark.parametrize(
    ("states", "accepts"),
    [
        (hybrid_machine.HybridState, hybrid_machine.ACCEPTS),
        (uth_machine.UthState, uth_machine.ACCEPTS),
    ],
    ids=["hybrid", "uth"],
)
def test_every_state_accepts_the_operators_inputs(
    states: type[StrEnum], accepts: dict[StrEnum, frozenset[str]]
) -> None:
    """Each table's ACCEPTS names every one of its states, and each accepts the operator's
    open, close, out of service, cash in and cash out."""
    assert set(accepts) == set(states)
    for state in states:
        assert accepts[state] >= OPERATOR, state


@TABLES
def test_going_out_of_service_is_logged_under_the_tables_own_name(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """An open table with no wagers goes out of service at once, with a warning in its own
    module's log that names the table and the reason."""
    machine = table.make()
    machine.open()
    machine.out_of_service("cleaning the felt")
    assert machine.state is TableState.OUT_OF_SERVICE
    (warning,) = [ev for ev in logged if ev.get("log_level") and ev["log_level"].name == "warn"]
    assert warning["log_namespace"] == table.namespace
    assert warning["log_format"] == f"{table.noun} {{table}} is out of service: {{reason}}"
    assert warning["reason"] == "cleaning the felt"
    assert warning["table"] == machine.session.config.table_id


@TABLES
def test_a_failing_listener_is_logged_and_the_others_still_hear(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """Save, then send: a listener that fails on a step is logged in the table's log, and
    the listeners after it still get every step."""
    machine = table.make()
    recorder = Recorder()
    machine.add_listener(Broken())
    machine.add_listener(recorder)
    machine.open()
    assert recorder.steps
    failures = [ev for ev in logged if ev.get("log_failure") is not None]
    assert failures and {ev["log_namespace"] for ev in failures} == {table.namespace}
