"""A request id's effect is logged with it (issue 32): every command's first step carries
its client and request id (``request_applied``), in the same transaction; recall shows it in
the round's timeline and leaves it out of the terminal's recall.

A real Blackjack table (its session and round machine on a fake clock) writing a real event
log, behind the real AMP server over in-memory transports (identities injected, as in
``test_server.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_server import OPERATOR, T1, Connection, refused
from twisted.internet import task
from twisted.test import iosim

from game_server.config import example_config_path, parse_config
from game_server.eventlog import EventLog, EventLogReader, StoredEvent, system_clock
from game_server.games import game_for
from game_server.keys import init_keys
from game_server.net.access import revoked_terminals
from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity
from game_server.net.server import TableServerFactory, TerminalProtocol
from game_server.recall.rounds import walk
from game_server.recall.timeline import build_timeline
from game_server.table import requests
from game_server.table.events import CardsUnsealed, RequestApplied, RoundClosed
from game_server.table.recovery import open_tables
from game_server.table.session import simulation_seeds
from shared import protocol as p

SEATS = {"T1": 1, "T2": 2}
FLOOR = FloorConfig(terminals=SEATS)
WHO = {"person": "ann", "role": "attendant"}


def _config() -> Any:
    text = example_config_path().read_text(encoding="utf-8")
    return parse_config(text, "example")


@dataclass
class Server:
    """One run of the server on ``db``: the log, the table recovered from it, the factory."""

    db: Path
    certs: Path
    clock: task.Clock = field(default_factory=task.Clock)
    log: EventLog | None = None
    machine: Any = None
    factory: TableServerFactory | None = None
    identities: dict[TerminalProtocol, Identity] = field(default_factory=dict)

    def start(self) -> Server:
        config = _config()
        self.log, opened = open_tables(
            [config],
            self.db,
            self.certs,
            lambda _: SEATS,
            clock=system_clock,
            seeds=lambda c: simulation_seeds(7, c.table_id),
        )
        [(session, _)] = opened
        self.machine = game_for(config).machine(session, self.clock, 0.5)
        with EventLogReader.open(self.db) as reader:
            revoked = revoked_terminals(reader.events_of_kind("terminal_access"))
            self.factory = TableServerFactory(
                self.machine,
                FLOOR,
                self.clock,
                lambda transport: self.identities[transport.protocol],
                tables={config.table_id: self.machine},
                revoked=revoked,
            )
        self.machine.open()
        return self

    def stop(self) -> None:
        """As a kill would: nothing more is written (no shutdown checkpoint)."""
        assert self.log is not None
        self.log.close(checkpoint=False)

    def connect(self, identity: Identity) -> Connection:
        assert self.factory is not None
        server = self.factory.buildProtocol(None)
        self.identities[server] = identity
        client, _, pump = iosim.connectedServerAndClient(lambda: server, _client)
        connection = Connection(client, server, pump)
        connection.hello()
        return connection

    def wallet(self, terminal: str) -> int:
        return int(self.machine.meters()["wallets"].get(terminal, 0))


def _client() -> Any:
    from test_server import Client

    return Client()


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("certs")
    init_keys(path)
    return path


@pytest.fixture
def server(tmp_path: Path, certs: Path) -> Iterator[Server]:
    running = Server(tmp_path / "table.db", certs).start()
    yield running
    if running.log is not None and not running.log.closed:
        running.stop()


def _restart(server: Server) -> Server:
    server.stop()
    return Server(server.db, server.certs).start()


def _events(db: Path) -> list[StoredEvent]:
    with EventLogReader.open(db) as reader:
        return list(reader.iter_events())


def _applied(db: Path) -> list[StoredEvent]:
    return [e for e in _events(db) if e.kind == "request_applied"]


def _view(answer: dict[str, Any]) -> dict[str, Any]:
    view = answer["view"]
    return view if isinstance(view, dict) else json.loads(bytes(view))


def _cash_in(connection: Connection, request_id: str, amount: int = 1_000) -> Any:
    return connection.call(
        p.CashIn, request_id=request_id, terminal="T1", amount=amount, reference=request_id, **WHO
    )


# --------------------------------------------------------------------------------------------
# What is logged


def test_a_cash_in_logs_its_request_id_in_the_step_of_its_credit(server: Server) -> None:
    """The CashIn's credit and its request record are one step (one transaction): the
    record right after ``credits_in``, counting it, with the operator's id and no terminal
    in its envelope; the operator's action follows in a step of its own."""
    _cash_in(server.connect(OPERATOR), "c1")
    events = _events(server.db)
    at = next(i for i, e in enumerate(events) if e.kind == "request_applied")
    credit, record, action = events[at - 1], events[at], events[at + 1]
    assert credit.kind == "credits_in" and action.kind == "operator_action"
    assert record.body == {
        "kind": "request_applied",
        "v": 1,
        "client": "operator",
        "request_id": "c1",
        "command": "CashIn",
        "events": 1,
    }
    assert record.terminal is None and record.time == credit.time


def test_a_terminal_intent_logs_its_request_id_under_its_terminal_in_its_round(
    server: Server,
) -> None:
    """PlaceWagers: the wager's step carries T1's request id, in the round, under T1."""
    _cash_in(server.connect(OPERATOR), "c1")
    server.connect(T1).call(p.PlaceWagers, request_id="w1", wagers={"blackjack": 500})
    [_, wager] = _applied(server.db)
    assert (wager.body["client"], wager.body["request_id"], wager.body["command"]) == (
        "T1",
        "w1",
        "PlaceWagers",
    )
    assert wager.terminal == "T1" and wager.round_id == 1 and wager.body["events"] == 1


def test_a_refused_command_logs_no_request_id(server: Server) -> None:
    """A CashOut of more than T1 holds is refused: its refusal is noted in the log (the
    operator's action with its sentence) without a request record: it took no effect, and
    a retry may run it."""
    operator = server.connect(OPERATOR)
    _cash_in(operator, "c1", 100)
    answer = operator.call(
        p.CashOut, request_id="o1", terminal="T1", amount=500, reference="o1", **WHO
    )
    refused(answer, p.InsufficientCredits)
    assert [e.body["request_id"] for e in _applied(server.db)] == ["c1"]
    noted = [e for e in _events(server.db) if e.kind == "operator_action"]
    assert noted[-1].body["refused"] and noted[-1].body["request_id"] == "o1"


def test_the_record_goes_before_the_rounds_closing_records() -> None:
    """A step that closes the round ends with ``cards_unsealed`` and ``round_closed``: the
    request record goes before them, counting the records before it."""
    items: list[tuple[str | None, Any]] = [("T1", "decision"), (None, "completed")]
    closing = [(None, CardsUnsealed((), ())), (None, RoundClosed(1, ("T1",), (500,)))]
    with requests.running("T1", "a1", "Act", "T1") as request:
        logged = requests.applied([*items, *closing])
        again = requests.applied(items)
    assert logged == [*items, ("T1", RequestApplied("T1", "a1", "Act", 2)), *closing]
    assert again == items and request.logged
    assert requests.applied(items) == items  # no request running


def test_a_step_that_was_not_written_leaves_the_request_not_applied() -> None:
    """The step that carried the record failed to be written: the next step carries it."""
    items: list[tuple[str | None, Any]] = [("T1", "decision")]
    with requests.running("T1", "a1", "Act", "T1") as request:
        first = requests.applied(items)
        requests.withdraw(first is not items)
        assert not request.logged
        assert requests.applied(items) == first


# --------------------------------------------------------------------------------------------
# Recall


def test_recall_shows_the_request_id_with_the_round_and_the_terminal_leaves_it_out(
    server: Server,
) -> None:
    """The round's timeline has the request's entry (who sent it, which command); T1's
    recall screen of the round has only its wager."""
    _cash_in(server.connect(OPERATOR), "c1", 1_000)
    server.connect(T1).call(p.PlaceWagers, request_id="w1", wagers={"blackjack": 500})
    with EventLogReader.open(server.db) as reader:
        [logged] = [r for r in walk(reader.iter_events()) if r.round_id == 1]
    timeline = build_timeline(logged)
    [entry] = [e for e in timeline.entries if e.data.get("request_id") == "w1"]
    assert (entry.who, entry.text) == (
        "T1",
        "request w1 of T1 (PlaceWagers) took effect (the 1 record before this one)",
    )
    game = game_for(logged.config).recall_game(logged, timeline, "T1")
    assert game is not None and game["wagers"] == {"blackjack": 500}
    assert not any("w1" in text for text in game["decisions"])
