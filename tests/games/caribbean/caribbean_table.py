"""A Caribbean Stud Poker table in memory: the example Rules Submission, a session over a
memory sink with deterministic sealed decks, and its stadium machine on a fake clock."""

from __future__ import annotations

import pytest
from twisted.internet import task

from game_server.config import TableConfig, example_path, load_config
from game_server.games.caribbean.machine import CaribbeanMachine
from game_server.games.caribbean.session import CaribbeanSession
from game_server.rules.meters import MeterBank
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

TERMINALS = {"T1": 1, "T2": 2, "T3": 3}


def config() -> TableConfig:
    return load_config(example_path("caribbean.toml"))


def make_session(
    table: TableConfig | None = None, seed: int = 1, meters: MeterBank | None = None
) -> CaribbeanSession:
    table = table or config()
    shoes = SealedShoes(table, simulation_seeds(seed, table.table_id), bytes(32), "k")
    session = CaribbeanSession(table, MemorySink(), shoes, TERMINALS, meters)
    session.open()
    for terminal in TERMINALS:
        session.cash_in(terminal, 100_000, "test")
    return session


@pytest.fixture()
def session() -> CaribbeanSession:
    return make_session()


@pytest.fixture()
def table() -> tuple[CaribbeanMachine, task.Clock]:
    clock = task.Clock()
    machine = CaribbeanMachine(make_session(), clock, next_round_delay=1.0)
    machine.open()
    return machine, clock
