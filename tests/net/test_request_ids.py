"""A request id takes effect at most once, across restarts (issue 32): every command's first
step is logged with its client and request id (``request_applied``), the server rebuilds
what it needs of them from the log when it starts (:mod:`game_server.net.applied`), and a
retry of one is answered ``already`` and runs nothing.

A real Blackjack table (its session and round machine on a fake clock) writing a real event
log, behind the real AMP server over in-memory transports (identities injected, as in
``test_server.py``); a restart is a new server process's work done again: the log reopened,
the table recovered from it, a new server factory whose answer book is read from the log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeMachine
from test_server import OPERATOR, T1, Connection, Table, refused
from twisted.internet import task
from twisted.test import iosim

from game_server.config import example_config_path, parse_config
from game_server.eventlog import EventLog, EventLogReader, StoredEvent, system_clock
from game_server.games import game_for
from game_server.keys import init_keys, load_public_key, load_sealing_key
from game_server.net.access import revoked_terminals
from game_server.net.applied import applied_in, read_applied
from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity
from game_server.net.server import TableServerFactory, TerminalProtocol
from game_server.net.wire import AnswerBook, Applied, Outcome
from game_server.recall.rounds import walk
from game_server.recall.timeline import build_timeline
from game_server.recall.verify import verify_log
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
            # What etg serve does before it answers anything.
            self.factory.answers.remember_applied(applied_in(reader))
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
# After a restart


def test_a_cash_in_retried_after_a_restart_is_answered_from_the_log_and_credits_once(
    server: Server,
) -> None:
    """$7.00 credited, the server stopped without a word and started again on its log: the
    retry with the same id gets the first answer's balance and logged, says it already took
    effect, and T1 still holds $7.00; a new id credits again."""
    first = _cash_in(server.connect(OPERATOR), "slip-7", 700)
    assert first["already"] is None
    again = _restart(server)
    operator = again.connect(OPERATOR)
    retry = _cash_in(operator, "slip-7", 700)
    assert (retry["balance"], retry["logged"]) == (700, 1)
    assert "'slip-7' of operator (CashIn) already took effect" in retry["already"]
    assert again.wallet("T1") == 700
    assert _cash_in(operator, "slip-7", 700) == retry  # and again
    assert _cash_in(operator, "slip-8", 700)["balance"] == 1_400
    assert [e.body["request_id"] for e in _applied(again.db)] == ["slip-7", "slip-8"]


def test_a_wager_retried_after_a_restart_is_answered_with_the_view_now(server: Server) -> None:
    """T1's wager, a restart, the wager sent again with its id: the answer is T1's view as
    it is now (the wager in the round, the credits it left) and says so; nothing is placed
    twice, and the log verifies."""
    _cash_in(server.connect(OPERATOR), "c1", 1_000)
    placed = _view(
        server.connect(T1).call(p.PlaceWagers, request_id="w1", wagers={"blackjack": 500})
    )
    again = _restart(server)
    answer = again.connect(T1).call(p.PlaceWagers, request_id="w1", wagers={"blackjack": 500})
    view = _view(answer)
    assert "'w1' of T1 (PlaceWagers) already took effect" in answer["already"]
    assert view["round"] == placed["round"] and view["credits"] == placed["credits"] == 500
    mine = next(seat for seat in view["seats"] if seat["mine"])
    assert mine["wagers"] == {"blackjack": 500}
    assert len([e for e in _events(again.db) if e.kind == "wager_placed"]) == 1
    again.stop()
    with EventLogReader.open(again.db) as reader:
        report = verify_log(
            reader, load_public_key(again.certs), sealing_key=load_sealing_key(again.certs)
        )
    assert report.ok, report.first_failure
    assert next(c for c in report.checks if c.check == "requests").status == "PASS"


def test_a_retry_after_a_restart_with_another_command_is_refused(server: Server) -> None:
    """A request id the log holds for CashIn, sent again as CashOut: a declared BadRequest."""
    _cash_in(server.connect(OPERATOR), "c1")
    operator = _restart(server).connect(OPERATOR)
    answer = operator.call(
        p.CashOut, request_id="c1", terminal="T1", amount=100, reference="x", **WHO
    )
    assert "was used for CashIn" in refused(answer, p.BadRequest)


def test_the_state_and_access_commands_answer_a_retry_with_the_state_now(server: Server) -> None:
    """SetTableState and SetTerminalAccess retried after a restart: the state and the
    revocations now, logged, already; nothing logged again."""
    operator = server.connect(OPERATOR)
    operator.call(
        p.SetTerminalAccess, request_id="v1", terminal="T2", access="revoke", reason="x", **WHO
    )
    operator.call(p.SetTableState, request_id="s1", state="close", reason="end", **WHO)
    again = _restart(server)
    operator = again.connect(OPERATOR)
    access = operator.call(
        p.SetTerminalAccess, request_id="v1", terminal="T2", access="revoke", reason="x", **WHO
    )
    state = operator.call(p.SetTableState, request_id="s1", state="close", reason="end", **WHO)
    assert access["revoked"] == ["T2"] and access["logged"] == 1 and access["already"]
    assert state["state"] == "open" and state["logged"] == 1 and state["already"]
    assert [e.body["request_id"] for e in _applied(again.db)] == ["v1", "s1"]


# --------------------------------------------------------------------------------------------
# The rebuild


@dataclass(frozen=True)
class Row:
    """What :func:`read_applied` reads of a stored event."""

    seq: int
    kind: str
    body: dict[str, Any]
    time: str = "t"


def _request(seq: int, client: str, request_id: str, command: str, events: int = 1) -> Row:
    body = {"client": client, "request_id": request_id, "command": command, "events": events}
    return Row(seq, "request_applied", body)


def test_the_rebuild_keeps_each_clients_last_ids_as_the_server_does() -> None:
    """40 of T1's intents and 300 of the operator's actions: the last 32 and the last 256,
    in log order."""
    rows = [_request(n, "T1", f"a{n}", "Act") for n in range(1, 41)]
    rows += [_request(100 + n, "operator", f"c{n}", "SetTableState") for n in range(300)]
    rows.append(_request(500, "T1", "bad", "Act", events=-1))  # not one a server writes
    found = read_applied(rows)  # type: ignore[arg-type]
    assert [a.request_id for a in found if a.client == "T1"] == [f"a{n}" for n in range(9, 41)]
    assert [a.request_id for a in found if a.client == "operator"] == [
        f"c{n}" for n in range(44, 300)
    ]
    assert [a.seq for a in found] == sorted(a.seq for a in found)


def test_the_rebuild_reads_what_a_cash_in_or_out_moved_and_whether_it_was_logged() -> None:
    """A credit just before its request record (in its step) gives the amount and balance;
    one of an earlier step does not; a done operator action after it (a cash in's) or in its
    step (a state change's) marks it logged, a refused one does not."""
    rows = [
        Row(1, "credits_in", {"amount": 700, "balance": 700}),
        _request(2, "operator", "c1", "CashIn"),
        Row(3, "operator_action", {"request_id": "c1", "refused": ""}),
        Row(4, "credits_out", {"amount": 200, "balance": 500}),
        Row(5, "wager_placed", {}),
        _request(6, "operator", "o1", "CashOut", events=1),
        Row(7, "operator_action", {"request_id": "o1", "refused": "no"}),
        Row(8, "operator_action", {"request_id": "s1", "refused": ""}),
        _request(9, "operator", "s1", "SetTableState"),
        Row(10, "operator_action", {"request_id": "s2", "refused": ""}),
        Row(11, "round_started", {}),
        _request(12, "operator", "s2", "SetTableState"),
    ]
    c1, o1, s1, s2 = read_applied(rows)  # type: ignore[arg-type]
    assert (c1.moved, c1.logged) == ((700, 700), True)
    assert (o1.moved, o1.logged) == (None, False)
    assert (s1.moved, s1.logged, s2.logged) == (None, True, False)


def test_the_book_takes_what_the_log_holds_but_keeps_an_answer_it_has() -> None:
    """Remembered from the log: an id the book has no answer of, or only a refusal of (a
    commit reported failed that reached the log); an id it answered keeps its answer."""
    book = AnswerBook()
    book.put("T1", "r1", Outcome(b"Act", {"view": b"{}"}), terminal=True)
    book.put("T1", "r2", Outcome(b"Act", None, p.TableUnavailable, "no log"), terminal=True)
    log = [Applied("T1", r, "Act", n) for n, r in enumerate(("r1", "r2", "r3"), 1)]
    assert book.remember_applied(log) == 2
    assert book.get("T1", "r1") == Outcome(b"Act", {"view": b"{}"})
    assert book.get("T1", "r2") == Outcome(b"Act", applied=log[1])
    assert book.get("T1", "r3") == Outcome(b"Act", applied=log[2])


def test_a_command_that_fails_after_it_took_effect_does_not_run_again() -> None:
    """A command whose step was logged and that then failed without a declared answer (a
    bug: the connection is dropped) is answered ``already`` when retried, not run again."""

    class Failing(FakeMachine):
        def act(self, terminal: str, action: Any, hand: int, amount: int | None) -> None:
            super().act(terminal, action, hand, amount)
            requests.applied([(terminal, "decision")])  # its step, logged
            raise RuntimeError("a bug after the step")

    table = Table()
    table.machine = Failing()
    table.factory = TableServerFactory(table.machine, FLOOR, table.clock, table._identify)
    first = table.connect(T1)
    first.hello()
    first.call(p.Act, request_id="a1", action="hit", hand=0, amount=0)
    assert first.dropped
    second = table.connect(T1)
    second.hello()
    retry = second.call(p.Act, request_id="a1", action="hit", hand=0, amount=0)
    assert "already took effect" in retry["already"]
    assert [op[0] for op in table.machine.operations()] == ["act"]


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
