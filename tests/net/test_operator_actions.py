"""Operator actions with who asked for them (issue 21): ``person`` and ``role`` on CashIn,
CashOut and SetTableState, logged at the table as ``operator_action`` (done or refused);
``SetTableState`` for one table; ``SetTerminalAccess`` revoking and reinstating a terminal.

In-memory transports, a fake clock and recording fakes (``test_server.py``'s): the record
each hosted table's session would log is kept in its ``records``.
"""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeMachine
from test_server import OPERATOR, T1, T2, Connection, Table, refused

from game_server.eventlog import StoredEvent
from game_server.net.access import revoked_terminals
from game_server.net.floor import FloorConfig
from game_server.net.identity import RevocationList
from game_server.rules.events import to_dict
from game_server.table import session
from game_server.table.api import TableState
from game_server.table.events import OperatorAction, TerminalAccess
from shared import protocol as p
from shared.codec import canonical_json


class RecordingSession:
    """What the server needs of a table's session: ``record``, kept in ``records``."""

    def __init__(self) -> None:
        self.records: list[tuple[str | None, Any]] = []
        self.error: Exception | None = None

    def record(self, terminal: str | None, ev: Any) -> None:
        if self.error is not None:
            raise self.error
        self.records.append((terminal, ev))


class HostedFake(FakeMachine):
    """A hosted table: the fake machine with a recording session."""

    def __init__(self) -> None:
        super().__init__()
        self.session = RecordingSession()

    def fault(self, reason: str) -> None:
        self.out_of_service(reason)

    def replace_session(self, session: Any) -> None:
        raise AssertionError("not used")


class HostedTable(Table):
    """:class:`Table` whose factory logs operator actions at two hosted tables, A and B
    (T1 at A, T2 at B); the machine is table A's."""

    def __init__(self, floor: FloorConfig | None = None, revoked: tuple[str, ...] = ()) -> None:
        floor = floor or FloorConfig(terminals={"T1": 1, "T2": 1}, tables={"T1": "A", "T2": "B"})
        super().__init__(floor)
        self.hosted = {"A": HostedFake(), "B": HostedFake()}
        self.machine = self.hosted["A"]
        self.told: list[RevocationList] = []
        from game_server.net.server import TableServerFactory

        self.factory = TableServerFactory(
            self.machine,
            floor,
            self.clock,
            self._identify,
            tables=self.hosted,
            revoked=revoked,
            on_revocations=self.told.append,
        )

    def records(self, table: str) -> list[tuple[str | None, Any]]:
        return self.hosted[table].session.records


@pytest.fixture
def hosted() -> HostedTable:
    return HostedTable()


def operator(table: Table) -> Connection:
    connection = table.connect(OPERATOR)
    connection.hello()
    return connection


WHO = {"person": "alice", "role": "attendant"}


def test_cash_in_is_logged_at_the_terminals_table_with_who_asked(hosted: HostedTable) -> None:
    """A CashIn with person and role is logged at T1's table as done, with the amount, the
    reference and the request id; the answer says it was logged."""
    answer = operator(hosted).call(
        p.CashIn, request_id="c1", terminal="T1", amount=5_000, reference="slip 7", **WHO
    )
    assert answer == {"balance": 5_000, "logged": 1, "already": None}
    assert hosted.records("A") == [
        ("T1", OperatorAction("cash-in", "alice", "attendant", "T1", 5_000, "slip 7", "c1", ""))
    ]
    assert hosted.records("B") == []


def test_a_refused_cash_out_is_logged_with_its_refusal(hosted: HostedTable) -> None:
    """A CashOut the table refuses is answered with the declared error and logged with the
    refusal's sentence and no amount."""
    hosted.machine.error = session.InsufficientCredits("terminal T1 holds $0.00")
    answer = operator(hosted).call(
        p.CashOut, request_id="o1", terminal="T1", amount=100, reference="r", **WHO
    )
    assert "holds $0.00" in refused(answer, p.InsufficientCredits)
    [(terminal, action)] = hosted.records("A")
    assert (terminal, action.action, action.amount) == ("T1", "cash-out", 0)
    assert action.refused == "terminal T1 holds $0.00"


def test_a_cash_out_of_everything_logs_what_was_paid(hosted: HostedTable) -> None:
    """``amount`` 0 pays every credit: the log says how much."""
    connection = operator(hosted)
    connection.call(p.CashIn, request_id="c1", terminal="T2", amount=700, reference="in", **WHO)
    answer = connection.call(
        p.CashOut, request_id="o1", terminal="T2", amount=0, reference="out", **WHO
    )
    assert answer == {"paid": 700, "balance": 0, "logged": 1, "already": None}
    assert [ev.amount for _, ev in hosted.records("B")] == [700, 700]


def test_without_person_and_role_the_action_is_logged_as_the_certificates(
    hosted: HostedTable,
) -> None:
    """A script with the operator certificate that names nobody is logged with empty names."""
    operator(hosted).call(p.CashIn, request_id="c1", terminal="T1", amount=1, reference="x")
    [(_, action)] = hosted.records("A")
    assert (action.person, action.role) == ("", "")


@pytest.mark.parametrize(
    ("who", "problem"),
    [
        ({"person": "alice"}, "together"),
        ({"role": "attendant"}, "together"),
        ({"person": "", "role": "attendant"}, "person is 1 to 64"),
        ({"person": " alice", "role": "attendant"}, "without spaces"),
        ({"person": "alice", "role": "x" * 33}, "role is 1 to 32"),
        ({"person": "al\nice", "role": "attendant"}, "printable"),
    ],
)
def test_a_malformed_person_or_role_is_refused_before_anything_happens(
    hosted: HostedTable, who: dict[str, str], problem: str
) -> None:
    """Person and role come together, short and printable; else BadRequest, and neither the
    machine nor the log is touched."""
    answer = operator(hosted).call(
        p.CashIn, request_id="c1", terminal="T1", amount=100, reference="r", **who
    )
    assert problem in refused(answer, p.BadRequest)
    assert hosted.machine.operations() == []
    assert hosted.records("A") == []


def test_set_table_state_names_one_table(hosted: HostedTable) -> None:
    """``table`` B closes table B only, and the action is logged there."""
    answer = operator(hosted).call(
        p.SetTableState,
        request_id="s1",
        state="close",
        reason="end of shift",
        table="B",
        person="bob",
        role="supervisor",
    )
    assert answer == {"state": "closed", "logged": 1, "already": None}
    assert hosted.hosted["B"].state is TableState.CLOSED
    assert hosted.hosted["A"].state is TableState.OPEN
    [(terminal, action)] = hosted.records("B")
    assert terminal is None
    assert action == OperatorAction("close", "bob", "supervisor", "", 0, "end of shift", "s1", "")


def test_set_table_state_without_a_table_is_logged_at_every_table(hosted: HostedTable) -> None:
    """Without ``table`` the whole server's machine is driven and every table logs it."""
    operator(hosted).call(
        p.SetTableState, request_id="s1", state="out-of-service", reason="jam", **WHO
    )
    assert [a.action for _, a in hosted.records("A")] == ["out-of-service"]
    assert [a.action for _, a in hosted.records("B")] == ["out-of-service"]


def test_set_table_state_for_an_unknown_table_is_refused(hosted: HostedTable) -> None:
    """A table the server does not host is BadRequest naming the tables it hosts."""
    answer = operator(hosted).call(
        p.SetTableState, request_id="s1", state="close", reason="r", table="Z", **WHO
    )
    assert "its tables: A, B" in refused(answer, p.BadRequest)


def test_a_log_that_cannot_take_the_record_answers_logged_zero(hosted: HostedTable) -> None:
    """The cash in happened; the record could not be written: ``logged`` is 0."""
    hosted.hosted["A"].session.error = session.LogWriteFailed("the disk is full")
    answer = operator(hosted).call(
        p.CashIn, request_id="c1", terminal="T1", amount=100, reference="r", **WHO
    )
    assert answer == {"balance": 100, "logged": 0, "already": None}


def test_revoking_a_terminal_drops_it_refuses_it_and_is_logged(hosted: HostedTable) -> None:
    """SetTerminalAccess revoke: logged first at the terminal's table, the terminal's
    connection dropped, its next Hello refused, the TLS options told the new list."""
    terminal = hosted.connect(T2)
    terminal.hello()
    answer = operator(hosted).call(
        p.SetTerminalAccess,
        request_id="v1",
        terminal="T2",
        access="revoke",
        reason="card reader tampered",
        person="bob",
        role="supervisor",
    )
    assert answer == {"revoked": ["T2"], "logged": 1, "already": None}
    assert hosted.records("B") == [
        ("T2", TerminalAccess("T2", "revoked", "card reader tampered", "bob", "supervisor", "v1"))
    ]
    assert terminal.dropped
    assert "revoked" in refused(hosted.connect(T2).hello(), p.Unauthorized)
    assert hosted.told[-1].ids == frozenset({"T2"})
    answer = operator(hosted).call(
        p.SetTerminalAccess,
        request_id="v2",
        terminal="T2",
        access="reinstate",
        reason="reader replaced",
        person="bob",
        role="supervisor",
    )
    assert answer == {"revoked": [], "logged": 1, "already": None}
    assert hosted.connect(T2).hello()["identity"] == "T2"


def test_a_revocation_that_cannot_be_logged_is_refused(hosted: HostedTable) -> None:
    """Save, then act: if the log cannot take the record, nothing is revoked."""
    hosted.hosted["B"].session.error = session.LogWriteFailed("the disk is full")
    answer = operator(hosted).call(
        p.SetTerminalAccess, request_id="v1", terminal="T2", access="revoke", reason="r", **WHO
    )
    refused(answer, p.TableUnavailable)
    assert hosted.connect(T2).hello()["identity"] == "T2"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"terminal": "T2", "access": "ban", "reason": "r"}, "revoke or reinstate"),
        ({"terminal": "T2", "access": "revoke", "reason": " "}, "needs a reason"),
        ({"terminal": "T9", "access": "revoke", "reason": "r"}, "holds no seat"),
    ],
)
def test_a_bad_access_change_is_refused(
    hosted: HostedTable, arguments: dict[str, str], problem: str
) -> None:
    """An unknown access, a blank reason or a terminal without a seat is BadRequest."""
    answer = operator(hosted).call(p.SetTerminalAccess, request_id="v1", **arguments, **WHO)
    assert problem in refused(answer, p.BadRequest)
    assert hosted.records("B") == []


def test_a_floor_file_revocation_cannot_be_lifted_by_the_operator() -> None:
    """A terminal revoked in floor.toml stays revoked: reinstating it is refused."""
    floor = FloorConfig(
        terminals={"T1": 1, "T2": 1},
        tables={"T1": "A", "T2": "B"},
        revocations=RevocationList(ids=frozenset({"T2"})),
    )
    table = HostedTable(floor)
    answer = operator(table).call(
        p.SetTerminalAccess, request_id="v1", terminal="T2", access="reinstate", reason="r", **WHO
    )
    assert "floor.toml" in refused(answer, p.BadRequest)


def test_revocations_folded_from_the_log_are_refused_at_start() -> None:
    """The ids a server starts with (folded from the log) are refused at Hello."""
    table = HostedTable(revoked=("T1",))
    assert "revoked" in refused(table.connect(T1).hello(), p.Unauthorized)
    assert table.connect(T2).hello()["identity"] == "T2"


def test_revoked_terminals_folds_in_log_order() -> None:
    """The last record of each terminal wins; other kinds are ignored."""

    def stored(seq: int, ev: Any) -> StoredEvent:
        body = canonical_json(to_dict(ev)).decode()
        return StoredEvent(seq, "2026-01-01T00:00:00Z", "A", None, ev.terminal, ev.kind, body, "")

    events = [
        stored(1, TerminalAccess("T1", "revoked", "r", "bob", "supervisor", "1")),
        stored(2, TerminalAccess("T2", "revoked", "r", "bob", "supervisor", "2")),
        stored(3, OperatorAction("cash-in", "a", "attendant", "T3", 1, "", "3", "")),
        stored(4, TerminalAccess("T1", "reinstated", "r", "bob", "supervisor", "4")),
    ]
    assert revoked_terminals(events) == {"T2"}


def test_read_meters_tells_the_floor_seats_revocations_and_who_set_each_state(
    hosted: HostedTable,
) -> None:
    """ReadMeters' ``floor``: seats, tables, the revoked ids, the terminals online, and each
    table's last state change with who asked (what the console's reopen rule reads)."""
    hosted.connect(T1).hello()
    connection = operator(hosted)
    connection.call(
        p.SetTableState,
        request_id="s1",
        state="close",
        reason="end of day",
        table="A",
        person="bob",
        role="supervisor",
    )
    floor = connection.call(p.ReadMeters)["meters"]["floor"]
    assert floor == {
        "terminals": {"T1": 1, "T2": 1},
        "tables": {"T1": "A", "T2": "B"},
        "revoked": [],
        "online": ["T1"],
        "set_by": {
            "A": {"action": "close", "person": "bob", "role": "supervisor", "reason": "end of day"}
        },
    }


def test_the_operator_certificate_may_hold_several_connections(hosted: HostedTable) -> None:
    """The console and a script of ``etg operator`` connect with the same operator
    certificate: the second connection does not drop the first (a terminal's does)."""
    console = operator(hosted)
    script = operator(hosted)
    assert not console.dropped and not script.dropped
    assert console.call(p.ReadMeters)["meters"]["floor"]["online"] == []
    first = hosted.connect(T1)
    first.hello()
    hosted.connect(T1).hello()
    assert first.dropped, "a terminal's reconnect replaces its old connection"
