"""The table's AMP server (game_server.net.server) over in-memory transports, with a
recording fake machine and a fake clock: no sockets, no TLS (identities are injected)."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from fakes import FakeMachine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from net_helpers import messages
from twisted.internet import task
from twisted.internet.error import ConnectionDone
from twisted.internet.testing import StringTransport
from twisted.protocols import amp
from twisted.python.failure import Failure
from twisted.test import iosim

from game_server.games.blackjack.rules.actions import Action
from game_server.net.floor import FloorConfig, NetLimits
from game_server.net.identity import Identity
from game_server.net.pki import Role
from game_server.net.server import TableServerFactory, TerminalProtocol
from game_server.net.tls import NotAuthenticated
from game_server.net.wire import ANSWERS_KEPT, MAX_BOX_BYTES, TERMINAL_ANSWERS_KEPT
from game_server.rules import errors as rules
from game_server.table import session
from game_server.table.api import TableState
from shared import protocol as p

T1 = Identity(Role.TERMINAL, "T1", 0x11)
T2 = Identity(Role.TERMINAL, "T2", 0x22)
T8 = Identity(Role.TERMINAL, "T8", 0x88)  # no seat
OPERATOR = Identity(Role.OPERATOR, "operator", 0x99)
FLOOR = FloorConfig(terminals={"T1": 1, "T2": 2})
#: A floor with a small bucket: 4 commands at once, 5 more per second.
TIGHT = FloorConfig(terminals={"T1": 1}, limits=NetLimits(commands_per_second=5, burst=4))


class Client(amp.AMP):
    """A terminal or operator tool that records the views the server pushes."""

    def __init__(self) -> None:
        super().__init__()
        self.views: list[Any] = []

    @p.ViewUpdate.responder
    def view_update(self, view: Any) -> dict[str, Any]:
        self.views.append(view)
        return {}


class Table:
    """A server factory on a fake machine and a fake clock; connects in-memory clients."""

    def __init__(self, floor: FloorConfig = FLOOR) -> None:
        self.machine = FakeMachine()
        self.clock = task.Clock()
        self.identities: dict[TerminalProtocol, Identity] = {}
        self.factory = TableServerFactory(self.machine, floor, self.clock, self._identify)

    def _identify(self, transport: Any) -> Identity:
        identity = self.identities.get(transport.protocol)
        if identity is None:
            raise NotAuthenticated("no client certificate")
        return identity

    def connect(self, identity: Identity | None) -> Connection:
        server = self.factory.buildProtocol(None)
        if identity is not None:
            self.identities[server] = identity
        client, server_side, pump = iosim.connectedServerAndClient(lambda: server, Client)
        assert server_side is server
        return Connection(client, server, pump)


class Connection:
    """A connected client and server protocol and the pump between them."""

    def __init__(self, client: Client, server: TerminalProtocol, pump: iosim.IOPump) -> None:
        self.client, self.server, self.pump = client, server, pump

    def call(self, command: type[amp.Command], **kwargs: Any) -> Any:
        """Send a command, deliver everything, and return the answer or the Failure."""
        results: list[Any] = []
        self.client.callRemote(command, **kwargs).addBoth(results.append)
        self.pump.flush()
        assert results, f"{command.__name__} got no answer"
        return results[0]

    def hello(self, version: int = p.PROTOCOL_VERSION) -> Any:
        return self.call(p.Hello, version=version, software="test 1")

    @property
    def dropped(self) -> bool:
        return bool(self.server.transport is None or self.server.transport.disconnecting)


def refused(answer: Any, error: type[Exception]) -> str:
    """The message of a declared error answer, after checking its type."""
    assert isinstance(answer, Failure), f"expected {error.__name__}, got {answer!r}"
    assert answer.check(error), f"expected {error.__name__}, got {answer.value!r}"
    return str(answer.value)


@pytest.fixture
def table() -> Table:
    """A table with T1 at seat 1 and T2 at seat 2, 20 commands per second, burst 40."""
    return Table()


# --------------------------------------------------------------------------------------------
# Hello


def test_hello_returns_identity_seat_and_view(table: Table) -> None:
    """Hello answers with the certificate's id, its seat from floor.toml and its view."""
    answer = table.connect(T2).hello()
    assert answer == {
        "version": p.PROTOCOL_VERSION,
        "role": "terminal",
        "identity": "T2",
        "seat": 2,
        "view": {"terminal": "T2", "calls": 0},
    }


def test_hello_with_another_version_is_refused_and_dropped(table: Table) -> None:
    """A Hello with another protocol version gets VersionMismatch and the connection drops."""
    connection = table.connect(T1)
    assert "protocol" in refused(connection.hello(version=99), p.VersionMismatch)
    assert connection.dropped


@pytest.mark.parametrize(
    ("command", "kwargs"),
    [
        (p.GetView, {}),
        (p.PlaceWagers, {"request_id": "r1", "wagers": {"blackjack": 100}}),
        (p.ReadMeters, {}),
    ],
)
def test_a_command_before_hello_is_unauthorized(
    table: Table, command: type[amp.Command], kwargs: dict[str, Any]
) -> None:
    """Any command before Hello is answered Unauthorized and the machine is not called."""
    connection = table.connect(T1)
    assert "Hello" in refused(connection.call(command, **kwargs), p.Unauthorized)
    assert table.machine.operations() == []


def test_a_terminal_without_a_seat_is_unauthorized(table: Table) -> None:
    """A terminal whose certificate id holds no seat in floor.toml is refused at Hello and
    cannot send commands after it."""
    connection = table.connect(T8)
    assert "T8 holds no seat" in refused(connection.hello(), p.Unauthorized)
    refused(connection.call(p.GetView), p.Unauthorized)


def test_a_connection_without_a_certificate_is_unauthorized(table: Table) -> None:
    """A peer with no usable certificate is refused at Hello."""
    refused(table.connect(None).hello(), p.Unauthorized)


def test_a_revoked_terminal_is_unauthorized() -> None:
    """A certificate on floor.toml's revocation list is refused at Hello."""
    from game_server.net.identity import RevocationList

    floor = FloorConfig(terminals={"T1": 1}, revocations=RevocationList(serials=frozenset({0x11})))
    assert "revoked" in refused(Table(floor).connect(T1).hello(), p.Unauthorized)


# --------------------------------------------------------------------------------------------
# Terminal commands


def test_place_wagers_forwards_the_certificates_terminal_and_returns_the_view(
    table: Table,
) -> None:
    """PlaceWagers calls the machine for the certificate's terminal and answers its view."""
    connection = table.connect(T1)
    connection.hello()
    answer = connection.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    assert answer == {"view": {"terminal": "T1", "calls": 1}, "already": None}
    assert table.machine.operations() == [("place_wagers", "T1", {"blackjack": 2500})]


def test_act_insurance_cash_out_and_view_forward_to_the_machine(table: Table) -> None:
    """Act, AnswerInsurance, RequestCashOut and GetView reach the machine for the terminal;
    an Act amount of 0 means the full wager (None)."""
    connection = table.connect(T2)
    connection.hello()
    connection.call(p.Act, request_id="a", action="double", hand=0, amount=0)
    connection.call(p.Act, request_id="b", action="double", hand=1, amount=500)
    connection.call(p.AnswerInsurance, request_id="c", choice="insurance", amount=500)
    connection.call(p.RequestCashOut, request_id="d")
    assert connection.call(p.GetView) == {"view": {"terminal": "T2", "calls": 4}}
    assert table.machine.operations() == [
        ("act", "T2", Action.DOUBLE, 0, None),
        ("act", "T2", Action.DOUBLE, 1, 500),
        ("answer_insurance", "T2", "insurance", 500),
        ("cash_out", "T2", None, "terminal T2 request d"),
    ]


@pytest.mark.parametrize(
    ("domain", "declared"),
    [
        (rules.BetOutOfLimits("the minimum wager is $5"), p.BetOutOfLimits),
        (rules.WagerNotOffered("Lucky Aces is not offered"), p.BadRequest),
        (rules.WagerError("no such wager"), p.BadRequest),
        (rules.SeatError("seat 9 is not at the table"), p.BadRequest),
        (rules.WrongPhase("no more bets"), p.RoundClosed),
        (rules.NotYourTurn("seat 3 is to act"), p.NotYourTurn),
        (rules.ActionNotAllowed("double on 10-11 only"), p.IllegalAction),
        (session.InsufficientCredits("T1 holds $2.00"), p.InsufficientCredits),
        (session.NoRoundOpen("no round is open"), p.RoundClosed),
        (session.UnknownTerminal("T1 holds no seat"), p.Unauthorized),
        (session.TableError("cash out after the round"), p.BadRequest),
    ],
)
def test_each_domain_error_becomes_its_declared_error_with_the_sentence(
    table: Table, domain: Exception, declared: type[Exception]
) -> None:
    """Each refusal of the machine is answered with its declared AMP error and the same
    sentence for a human."""
    connection = table.connect(T1)
    connection.hello()
    table.machine.error = domain
    answer = connection.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 100})
    assert refused(answer, declared) == str(domain)
    assert not connection.dropped


def test_wagers_on_a_closed_table_are_table_unavailable(table: Table) -> None:
    """PlaceWagers while the table is closed is TableUnavailable and reaches no machine."""
    table.machine.state = TableState.CLOSED
    connection = table.connect(T1)
    connection.hello()
    answer = connection.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 100})
    assert "closed" in refused(answer, p.TableUnavailable)
    assert table.machine.operations() == []


@pytest.mark.parametrize(
    ("command", "kwargs"),
    [
        (p.PlaceWagers, {"request_id": "r", "wagers": ["blackjack"]}),
        (p.PlaceWagers, {"request_id": "", "wagers": {}}),
        (p.Act, {"request_id": "r", "action": "fold", "hand": 0, "amount": 0}),
        (p.Act, {"request_id": "r", "action": "hit", "hand": -1, "amount": 0}),
        (p.AnswerInsurance, {"request_id": "r", "choice": "maybe", "amount": 0}),
    ],
)
def test_malformed_arguments_are_bad_requests(
    table: Table, command: type[amp.Command], kwargs: dict[str, Any]
) -> None:
    """A bad request id, wagers that are not an object, an unknown action or choice, or a
    negative hand is BadRequest and reaches no machine."""
    connection = table.connect(T1)
    connection.hello()
    refused(connection.call(command, **kwargs), p.BadRequest)
    assert table.machine.operations() == []
    assert not connection.dropped


def test_an_undeclared_exception_is_logged_and_drops_the_connection(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """A bug in the machine (an undeclared exception) is logged with the terminal id and the
    connection is dropped: the terminal gets an error, never a silent hang."""
    connection = table.connect(T1)
    connection.hello()
    table.machine.error = ZeroDivisionError("bug")
    answer = connection.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 100})
    assert isinstance(answer, Failure)
    assert connection.dropped
    failures = [e for e in logged if "log_failure" in e and e.get("terminal") == "T1"]
    assert failures and failures[0]["log_failure"].check(ZeroDivisionError)


# --------------------------------------------------------------------------------------------
# Idempotency


def test_a_retry_returns_the_first_answer_and_calls_the_machine_once(table: Table) -> None:
    """A command sent again with the same request id gets the first answer and the machine
    is called once, also when the retry comes on a new connection of the same terminal."""
    first = table.connect(T1)
    first.hello()
    answer = first.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    assert first.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500}) == answer
    first.client.transport.loseConnection()
    first.pump.flush()
    second = table.connect(T1)
    second.hello()
    assert second.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500}) == answer
    assert table.machine.operations() == [("place_wagers", "T1", {"blackjack": 2500})]


def test_the_answer_kept_for_a_retry_holds_the_views_bytes(table: Table) -> None:
    """The answer kept for a retry holds its view encoded (the bytes sent, a fifth of the
    view's objects in memory: 256 answers of each of 1,000 terminals), and a retry gets the
    same view."""
    from game_server.net.wire import Outcome
    from shared.protocol import EncodedJson, json_text

    first = table.connect(T1)
    first.hello()
    answer = first.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    kept = table.factory.answers.get("T1", "r1")
    assert isinstance(kept, Outcome) and kept.response is not None
    assert isinstance(kept.response["view"], EncodedJson)
    assert kept.response["view"] == json_text(answer["view"]).encode()
    assert first.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500}) == answer


def test_a_retry_of_a_refused_command_gets_the_first_error(table: Table) -> None:
    """A retry of a command the machine refused gets the same declared error again, and the
    machine is not called again."""
    connection = table.connect(T1)
    connection.hello()
    table.machine.error = rules.WrongPhase("no more bets")
    for _ in range(2):
        answer = connection.call(p.Act, request_id="r1", action="hit", hand=0, amount=0)
        assert refused(answer, p.RoundClosed) == "no more bets"
    assert len(table.machine.operations()) == 1


def test_request_ids_are_per_terminal(table: Table) -> None:
    """Two terminals may use the same request id: each is its own command."""
    for identity in (T1, T2):
        connection = table.connect(identity)
        connection.hello()
        connection.call(p.PlaceWagers, request_id="same", wagers={"blackjack": 100})
    assert [c[1] for c in table.machine.operations()] == ["T1", "T2"]


def test_a_request_id_reused_for_another_command_is_a_bad_request(table: Table) -> None:
    """A request id already used for another command is BadRequest, not a wrong answer."""
    connection = table.connect(T1)
    connection.hello()
    connection.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 100})
    answer = connection.call(p.Act, request_id="r1", action="hit", hand=0, amount=0)
    assert "PlaceWagers" in refused(answer, p.BadRequest)


def test_only_the_last_request_ids_are_remembered(table: Table) -> None:
    """The server keeps the answers of the last TERMINAL_ANSWERS_KEPT request ids of a
    terminal; an older id runs again."""
    connection = table.connect(T1)
    connection.hello()
    for n in range(TERMINAL_ANSWERS_KEPT + 1):
        table.clock.advance(1)
        connection.call(p.RequestCashOut, request_id=f"r{n}")
    table.clock.advance(1)
    connection.call(p.RequestCashOut, request_id=f"r{TERMINAL_ANSWERS_KEPT}")
    assert len(table.machine.operations()) == TERMINAL_ANSWERS_KEPT + 1
    connection.call(p.RequestCashOut, request_id="r0")
    assert len(table.machine.operations()) == TERMINAL_ANSWERS_KEPT + 2
    assert len(table.factory.answers) == TERMINAL_ANSWERS_KEPT


def test_the_operator_keeps_more_answers_than_a_terminal(table: Table) -> None:
    """An operator tool's last ANSWERS_KEPT request ids are remembered (more than a
    terminal's, which has at most one intent of each kind awaiting an answer): a retry of
    the first of them is answered again and credits nothing twice; one more and it is
    forgotten."""
    assert ANSWERS_KEPT > TERMINAL_ANSWERS_KEPT
    connection = table.connect(OPERATOR)
    connection.hello()

    def cash_in(n: int) -> None:
        table.clock.advance(1)
        connection.call(p.CashIn, request_id=f"c{n}", terminal="T1", amount=100, reference="r")

    for n in range(ANSWERS_KEPT):
        cash_in(n)
    assert len(table.machine.operations()) == ANSWERS_KEPT
    cash_in(0)  # still remembered: not run again
    assert len(table.machine.operations()) == ANSWERS_KEPT
    cash_in(ANSWERS_KEPT)
    cash_in(0)  # pushed out by the one more: runs again
    assert len(table.machine.operations()) == ANSWERS_KEPT + 2
    assert len(table.factory.answers) == ANSWERS_KEPT


# --------------------------------------------------------------------------------------------
# Operator


def test_a_terminal_calling_cash_in_is_unauthorized_and_logged(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """A terminal certificate calling an operator command gets Unauthorized, the machine is
    not called, and the attempt is logged with the terminal id."""
    connection = table.connect(T1)
    connection.hello()
    answer = connection.call(p.CashIn, request_id="c1", terminal="T1", amount=10_000, reference="x")
    assert "operator" in refused(answer, p.Unauthorized)
    assert table.machine.operations() == []
    assert any(
        e.get("terminal") == "T1" and "CashIn" in m
        for e, m in zip(logged, messages(logged), strict=True)
    )


def test_the_operator_cannot_play(table: Table) -> None:
    """The operator certificate calling a terminal command gets Unauthorized."""
    connection = table.connect(OPERATOR)
    assert connection.hello()["seat"] == 0
    refused(connection.call(p.RequestCashOut, request_id="r"), p.Unauthorized)
    assert table.machine.operations() == []


def test_operator_commands_reach_the_machine_once_per_request_id(table: Table) -> None:
    """The operator's CashIn, CashOut, SetTableState and ReadMeters reach the machine, and a
    retried CashIn with the same request id adds the credits once. A server without a log of
    its tables logs no operator action: its answers have no ``logged``."""
    connection = table.connect(OPERATOR)
    connection.hello()
    cash_in = {"request_id": "c1", "terminal": "T1", "amount": 10_000, "reference": "slip 7"}
    assert connection.call(p.CashIn, **cash_in) == {
        "balance": 10_000,
        "logged": None,
        "already": None,
    }
    assert connection.call(p.CashIn, **cash_in) == {
        "balance": 10_000,
        "logged": None,
        "already": None,
    }
    answer = connection.call(p.CashOut, request_id="c2", terminal="T1", amount=2_500, reference="s")
    assert answer == {"paid": 2_500, "balance": 7_500, "logged": None, "already": None}
    answer = connection.call(p.SetTableState, request_id="s1", state="out-of-service", reason="jam")
    assert answer == {"state": "out-of-service", "logged": None, "already": None}
    assert connection.call(p.ReadMeters)["meters"]["wallets"] == {"T1": 7_500}
    assert table.machine.operations() == [
        ("cash_in", "T1", 10_000, "slip 7"),
        ("cash_out", "T1", 2_500, "s"),
        ("meters",),
        ("out_of_service", "jam"),
        ("meters",),
    ]


def test_the_meters_of_a_full_server_reach_the_operator_whole(table: Table) -> None:
    """ReadMeters larger than one AMP value (a server at its most tables holds about 150 KB
    of meters) crosses the wire in pieces and arrives whole."""
    table.machine.wallets = {f"T{i}": 100_000 + i for i in range(1, 8_000)}
    connection = table.connect(OPERATOR)
    connection.hello()
    meters = connection.call(p.ReadMeters)["meters"]
    assert meters["wallets"] == table.machine.wallets


def test_operator_cash_in_for_a_terminal_without_a_seat_is_a_bad_request(table: Table) -> None:
    """CashIn for a terminal that holds no seat is BadRequest."""
    connection = table.connect(OPERATOR)
    connection.hello()
    answer = connection.call(p.CashIn, request_id="c", terminal="T8", amount=100, reference="r")
    assert "T8" in refused(answer, p.BadRequest)


# --------------------------------------------------------------------------------------------
# Limits and malformed input


def test_over_the_rate_limit_is_rate_limited_then_a_flood_drops(
    logged: list[dict[str, Any]],
) -> None:
    """Commands over the burst are RateLimited; after a pause the bucket refills; after three
    bursts' worth of refusals without a pause the connection is logged and dropped."""
    table = Table(TIGHT)
    connection = table.connect(T1)
    connection.hello()
    for _ in range(3):
        assert "view" in connection.call(p.GetView)
    assert "slow down" in refused(connection.call(p.GetView), p.RateLimited)
    table.clock.advance(1)
    for _ in range(4):
        assert "view" in connection.call(p.GetView)
    for _ in range(3 * TIGHT.limits.burst - 1):
        refused(connection.call(p.GetView), p.RateLimited)
        assert not connection.dropped
    answer = connection.call(p.GetView)
    assert connection.dropped
    refused(answer, p.RateLimited)
    assert any("flood" in m for m in messages(logged))


def _box(**items: bytes) -> bytes:
    return amp.AmpBox({k.encode(): v for k, v in items.items()}).serialize()


def _raw(table: Table) -> tuple[TerminalProtocol, StringTransport]:
    server = table.factory.buildProtocol(None)
    transport = StringTransport()
    server.makeConnection(transport)
    return server, transport


def test_an_oversized_box_is_logged_and_dropped(table: Table, logged: list[dict[str, Any]]) -> None:
    """A box over MAX_BOX_BYTES drops the connection and is logged."""
    server, transport = _raw(table)
    big = {f"k{n}": b"x" * 1000 for n in range(MAX_BOX_BYTES // 1000 + 1)}
    server.dataReceived(_box(_command=b"GetView", _ask=b"1", **big))
    assert transport.disconnecting
    assert any("more than" in m for m in messages(logged))
    assert transport.value() == b""


def test_a_malformed_box_is_logged_and_dropped(table: Table, logged: list[dict[str, Any]]) -> None:
    """A box that is neither a command nor an answer drops the connection and is logged;
    bytes after it are ignored."""
    server, transport = _raw(table)
    server.dataReceived(_box(hello=b"world") + _box(_command=b"GetView", _ask=b"1"))
    assert transport.disconnecting
    assert transport.value() == b""
    assert any("malformed" in m for m in messages(logged))


def test_a_key_over_amps_limit_is_logged_and_dropped(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """A key longer than AMP's 255 bytes drops the connection and is logged."""
    server, transport = _raw(table)
    server.dataReceived(struct.pack("!H", 300) + b"k" * 300)
    assert transport.disconnecting
    assert any("over AMP's limit" in m for m in messages(logged))


def test_a_missing_argument_is_a_bad_request_naming_it(table: Table) -> None:
    """A command box without a declared argument is answered BAD_REQUEST naming what is
    missing, and the connection stays (AMP alone raises a bare KeyError while parsing: an
    undeclared error that dropped the connection with "an internal error")."""
    server, transport = _raw(table)
    server.dataReceived(_box(_command=b"Hello", _ask=b"1"))
    (answer,) = amp.parseString(transport.value())
    assert _bad_request(answer) == "Hello needs the argument(s) version, software"
    assert not transport.disconnecting
    answer, transport = _ask(table, T1, b"AnswerInsurance", request_id=b"r1", choice=b"decline")
    assert _bad_request(answer) == "AnswerInsurance needs the argument(s) amount"
    assert not transport.disconnecting
    answer, _ = _ask(table, T1, b"PlaceWagers", request_id=b"r2")  # position is optional
    assert _bad_request(answer) == "PlaceWagers needs the argument(s) wagers"


def test_an_unknown_command_is_unhandled_and_logged(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """An unknown command is answered UNHANDLED and logged with the terminal id; StartTLS
    (AMP's built-in) is unknown here too."""
    connection = table.connect(T1)
    connection.hello()
    for name in (b"Shutdown", b"StartTLS"):
        answers: list[Any] = []
        connection.client.callRemoteString(name).addBoth(answers.append)
        connection.pump.flush()
        assert answers[0].check(amp.UnhandledCommand)
    assert not connection.dropped
    unknown = [e for e, m in zip(logged, messages(logged), strict=True) if "unknown command" in m]
    assert [e["command"] for e in unknown] == [b"Shutdown", b"StartTLS"]
    assert all(e["terminal"] == "T1" for e in unknown)


def _ask(
    table: Table, identity: Identity, command: bytes, **arguments: bytes
) -> tuple[amp.AmpBox, StringTransport]:
    """Say Hello as ``identity`` with a raw box, then send one raw command box; its answer
    (an AMP answer or error box) and the server's transport."""
    server, transport = _raw(table)
    table.identities[server] = identity
    transport.protocol = server  # type: ignore[attr-defined]
    server.dataReceived(_box(_command=b"Hello", _ask=b"1", version=b"2", software=b"raw"))
    transport.clear()
    server.dataReceived(_box(_command=command, _ask=b"2", **arguments))
    answers = [box for box in amp.parseString(transport.value()) if box.get(b"_error") == b"2"]
    answers += [box for box in amp.parseString(transport.value()) if box.get(b"_answer") == b"2"]
    assert len(answers) == 1, transport.value()
    return answers[0], transport


def _bad_request(answer: amp.AmpBox) -> str:
    """The sentence of a BAD_REQUEST answer, after checking that it is one."""
    assert answer.get(b"_error_code") == b"BAD_REQUEST", answer
    return answer[b"_error_description"].decode()


def test_a_duplicate_json_key_is_a_bad_request(table: Table, logged: list[dict[str, Any]]) -> None:
    """Wagers naming a wager twice are refused as BAD_REQUEST with a sentence that names
    it, not read as the last one (issue 13, item 9); nothing reaches the machine."""
    wagers = b'{"blackjack":500,"blackjack":100000}'
    answer, transport = _ask(table, T1, b"PlaceWagers", request_id=b"r1", wagers=wagers)
    sentence = _bad_request(answer)
    assert "wagers" in sentence and '"blackjack"' in sentence and "twice" in sentence
    assert table.machine.operations() == []
    assert not transport.disconnecting
    assert not [e for e in logged if "log_failure" in e]


@pytest.mark.parametrize(
    ("identity", "command", "arguments", "named"),
    [
        (T1, b"Act", {"hand": b"9" * 5000, "action": b"hit", "amount": b"0"}, "hand"),
        (T1, b"Act", {"hand": b"0", "action": b"hit", "amount": b"-" + b"9" * 5000}, "amount"),
        (T1, b"Act", {"hand": b"one", "action": b"hit", "amount": b"0"}, "hand"),
        (T1, b"PlaceWagers", {"wagers": b'{"blackjack":' + b"9" * 5000 + b"}"}, "wagers"),
        (T1, b"PlaceWagers", {"wagers": b"[" * 7000 + b"]" * 7000}, "wagers"),
        (T1, b"PlaceWagers", {"wagers": b"[" * 15000}, "wagers"),
        (T1, b"PlaceWagers", {"wagers": b'{"a":' * 2500 + b"1" + b"}" * 2500}, "wagers"),
        (
            OPERATOR,
            b"CashIn",
            {"terminal": b"T1", "amount": b"9" * 5000, "reference": b"slip"},
            "amount",
        ),
    ],
    ids=[
        "5000-digit-hand",
        "5000-digit-amount",
        "hand-not-a-number",
        "5000-digit-wager",
        "nested-7000",
        "nested-15000-unclosed",
        "objects-nested-2500",
        "5000-digit-cash-in",
    ],
)
def test_oversized_numbers_and_deep_nesting_are_bad_requests(
    table: Table,
    logged: list[dict[str, Any]],
    identity: Identity,
    command: bytes,
    arguments: dict[str, bytes],
    named: str,
) -> None:
    """A 5,000-digit integer (an argument or inside the wagers) and JSON nested thousands
    deep are declared BAD_REQUEST with a sentence naming the argument, never an internal
    error with a traceback (issue 13, item 9); the connection stays and nothing reaches the
    machine."""
    answer, transport = _ask(table, identity, command, request_id=b"r1", **arguments)
    sentence = _bad_request(answer)
    assert sentence.startswith(f"{named}: "), sentence
    assert "internal" not in sentence and len(sentence) < 200, sentence
    assert table.machine.operations() == []
    assert not transport.disconnecting
    assert not [e for e in logged if "log_failure" in e]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks=st.lists(st.binary(max_size=300), max_size=5), hello_first=st.booleans())
def test_random_bytes_never_raise_out_of_the_protocol(
    chunks: list[bytes], hello_first: bool
) -> None:
    """Random bytes fed to dataReceived never raise out of the protocol (it may drop)."""
    table = Table()
    server, transport = _raw(table)
    table.identities[server] = T1
    transport.protocol = server  # type: ignore[attr-defined]
    if hello_first:
        server.dataReceived(_box(_command=b"Hello", _ask=b"1", version=b"1", software=b"f"))
    for chunk in chunks:
        server.dataReceived(chunk)


# --------------------------------------------------------------------------------------------
# Views and reconnects


def test_views_are_pushed_to_every_connected_terminal_after_a_step(table: Table) -> None:
    """After a logged step every connected terminal (not the operator, not a connection
    before Hello) is pushed its own view."""
    t1, t2, operator, anonymous = (table.connect(i) for i in (T1, T2, OPERATOR, T1))
    for connection in (t1, t2, operator):
        connection.hello()
    table.machine.step(["CardDealt"])
    for connection in (t1, t2, operator, anonymous):
        connection.pump.flush()
    assert t1.client.views == [{"terminal": "T1", "calls": 0}]
    assert t2.client.views == [{"terminal": "T2", "calls": 0}]
    assert operator.client.views == [] and anonymous.client.views == []


def test_a_dropped_terminal_gets_no_push_and_its_view_on_reconnect(table: Table) -> None:
    """A terminal that drops is no longer pushed views, nothing is asked of the machine, and
    its next Hello returns its current view."""
    first = table.connect(T1)
    first.hello()
    first.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 100})
    first.client.transport.loseConnection()
    first.pump.flush()
    assert table.factory.connections == []
    table.machine.step()
    assert table.machine.operations() == [("place_wagers", "T1", {"blackjack": 100})]
    assert table.connect(T1).hello()["view"] == {"terminal": "T1", "calls": 1}


def test_a_push_that_fails_drops_only_that_connection(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """A view that cannot be sent (over AMP's value limit) is logged and drops that
    terminal's connection; the others still get theirs."""
    t1, t2 = table.connect(T1), table.connect(T2)
    t1.hello()
    t2.hello()
    real_view = table.machine.view

    def view(terminal: str) -> dict[str, Any]:
        if terminal == "T1":
            return {"blob": "x" * (p.MAX_VALUE_BYTES + 1)}
        return real_view(terminal)

    table.machine.view = view  # type: ignore[method-assign]
    table.machine.step()
    t1.pump.flush()
    t2.pump.flush()
    assert t1.dropped and not t2.dropped
    assert len(t2.client.views) == 1
    assert any(e.get("terminal") == "T1" and "log_failure" in e for e in logged)


# --------------------------------------------------------------------------------------------
# floor.toml


def test_floor_toml_is_loaded(tmp_path: Any) -> None:
    """A floor.toml gives the port, the seats, the revocations and the limits."""
    from game_server.net.floor import load_floor

    path = tmp_path / "floor.toml"
    path.write_text(
        "[floor]\nport = 7401\n[floor.terminals]\nT1 = 1\nT2 = 7\n"
        '[floor.revoked]\nserials = ["5F:3A"]\nterminals = ["T9"]\n'
        "[floor.limits]\ncommands_per_second = 10\nburst = 20\nhello_seconds = 5\n"
        "box_seconds = 2.5\nconnections_per_identity = 2\nunauthenticated_connections = 9\n"
        "unauthenticated_per_address = 3\n",
        encoding="utf-8",
    )
    floor = load_floor(path)
    assert floor.port == 7401
    assert dict(floor.terminals) == {"T1": 1, "T2": 7}
    assert floor.seat_of("T2") == 7 and floor.seat_of("T3") is None
    assert floor.revocations.serials == {0x5F3A} and floor.revocations.ids == {"T9"}
    assert floor.limits == NetLimits(
        commands_per_second=10.0,
        burst=20,
        hello_seconds=5.0,
        box_seconds=2.5,
        connections_per_identity=2,
        unauthenticated_connections=9,
        unauthenticated_per_address=3,
    )


def test_floor_limits_default_when_the_file_does_not_say(tmp_path: Any) -> None:
    """Without [floor.limits] the server uses the documented defaults: 20 commands per second
    (burst 40), 30 s to say Hello, 10 s for a box, 4 connections per certificate id, and 64
    connections before Hello, 8 of them from one address."""
    from game_server.net.floor import load_floor

    path = tmp_path / "floor.toml"
    path.write_text("[floor.terminals]\nT1 = 1\n", encoding="utf-8")
    assert load_floor(path).limits == NetLimits(
        commands_per_second=20.0,
        burst=40,
        hello_seconds=30.0,
        box_seconds=10.0,
        connections_per_identity=4,
        unauthenticated_connections=64,
        unauthenticated_per_address=8,
    )


def test_the_cap_per_address_defaults_to_the_total_when_the_total_is_lower(
    tmp_path: Any,
) -> None:
    """A floor file that lowers unauthenticated_connections below 8 and says nothing of
    unauthenticated_per_address gets the total as the cap per address (it was valid
    before the cap per address existed, and stays so)."""
    from game_server.net.floor import load_floor

    path = tmp_path / "floor.toml"
    path.write_text(
        "[floor.terminals]\nT1 = 1\n[floor.limits]\nunauthenticated_connections = 3\n",
        encoding="utf-8",
    )
    limits = load_floor(path).limits
    assert (limits.unauthenticated_connections, limits.unauthenticated_per_address) == (3, 3)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[floor.terminals]\nT1 = 1\nT2 = 1\n", "[floor.terminals] T2: seat 1 is already held"),
        ("[floor.terminals]\nT1 = 8\n", "[floor.terminals] T1: seat 8"),
        ("[floor.terminals]\nT1 = true\n", "[floor.terminals] T1"),
        ('[floor.terminals]\n"T 1" = 1\n', "[floor.terminals] T 1"),
        ("[floor]\nport = 7400\n", "[floor.terminals]: missing"),
        ("[floor]\nport = 0\n[floor.terminals]\nT1 = 1\n", "[floor] port"),
        ("[floor]\nprot = 1\n[floor.terminals]\nT1 = 1\n", "unknown field(s) prot"),
        ('[floor.terminals]\nT1 = 1\n[floor.revoked]\nserials = ["xyz"]\n', "[floor.revoked]"),
        ("[floor.terminals]\nT1 = 1\n[floor.limits]\nburst = 0\n", "[floor.limits] burst"),
        (
            "[floor.terminals]\nT1 = 1\n[floor.limits]\ncommands_per_second = -1\n",
            "[floor.limits] commands_per_second",
        ),
        (
            "[floor.terminals]\nT1 = 1\n[floor.limits]\nhello_seconds = 0\n",
            "[floor.limits] hello_seconds: 0 is not a positive number",
        ),
        (
            '[floor.terminals]\nT1 = 1\n[floor.limits]\nbox_seconds = "10"\n',
            "[floor.limits] box_seconds",
        ),
        (
            "[floor.terminals]\nT1 = 1\n[floor.limits]\nconnections_per_identity = 0\n",
            "[floor.limits] connections_per_identity: 0 is not at least 1",
        ),
        (
            "[floor.terminals]\nT1 = 1\n[floor.limits]\nunauthenticated_connections = 1.5\n",
            "[floor.limits] unauthenticated_connections: 1.5 is not an integer",
        ),
        (
            "[floor.terminals]\nT1 = 1\n[floor.limits]\nunauthenticated_per_address = 0\n",
            "[floor.limits] unauthenticated_per_address: 0 is not at least 1",
        ),
        (
            "[floor.terminals]\nT1 = 1\n[floor.limits]\nunauthenticated_per_address = 65\n",
            "[floor.limits] unauthenticated_per_address: 65 is above "
            "unauthenticated_connections (64)",
        ),
        (
            "[floor.terminals]\nT1 = 1\n[floor.limits]\nunauthenticated_connections = 4\n"
            "unauthenticated_per_address = 5\n",
            "[floor.limits] unauthenticated_per_address: 5 is above "
            "unauthenticated_connections (4)",
        ),
        ("[floor.terminals\n", "not valid TOML"),
    ],
)
def test_a_wrong_floor_toml_names_the_field(tmp_path: Any, text: str, field: str) -> None:
    """Each wrong floor.toml is a FloorConfigError whose message names the file and field."""
    from game_server.net.floor import FloorConfigError, load_floor

    path = tmp_path / "floor.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FloorConfigError) as raised:
        load_floor(path)
    assert field in str(raised.value)
    assert str(path) in str(raised.value)


def test_a_missing_floor_toml_says_so(tmp_path: Any) -> None:
    """A floor.toml that does not exist is a FloorConfigError naming the path."""
    from game_server.net.floor import FloorConfigError, load_floor

    with pytest.raises(FloorConfigError, match="no such file"):
        load_floor(tmp_path / "floor.toml")


def test_a_silent_connection_is_dropped_after_the_hello_timeout(
    table: Table, logged: list[dict[str, Any]]
) -> None:
    """A peer that connects and never says Hello is dropped after hello_seconds (no
    connection is held open by a silent client); one that says Hello in time stays."""
    silent = table.connect(T1)
    talking = table.connect(T2)
    talking.hello()
    table.clock.advance(FLOOR.limits.hello_seconds - 1)
    assert not silent.dropped
    table.clock.advance(1)
    assert silent.dropped and not talking.dropped
    assert any("no Hello within" in m for m in messages(logged))


def test_a_reconnect_replaces_the_old_connection(table: Table) -> None:
    """When a terminal says Hello on a new connection, its old connection is closed and
    only the new one gets views."""
    old = table.connect(T1)
    old.hello()
    new = table.connect(T1)
    new.hello()
    assert old.dropped and not new.dropped
    assert table.factory.connections == [new.server]


def test_hello_counts_the_connection_against_its_identity(
    logged: list[dict[str, Any]],
) -> None:
    """Without a TLS handshake to name the certificate (e.g. behind another transport) the
    connection is counted at Hello: with connections_per_identity = 1, T1's second
    connection is refused and aborted, T1's first is still served, and T2 is not affected."""
    table = Table(
        FloorConfig(terminals={"T1": 1, "T2": 2}, limits=NetLimits(connections_per_identity=1))
    )
    first = table.connect(T1)
    first.hello()
    second = table.connect(T1)
    answer = second.hello()
    assert isinstance(answer, Failure) and answer.check(ConnectionDone), answer
    assert any("connections_per_identity" in m for m in messages(logged))
    assert first.call(p.GetView)["view"]["terminal"] == "T1"
    assert table.connect(T2).hello()["identity"] == "T2"


def test_a_floor_with_several_tables_checks_seats_per_table() -> None:
    """With several tables, seat 1 may be held once at each table, every terminal needs a
    table, and seats_at lists one table's terminals."""
    from game_server.net.floor import FloorConfigError

    floor = FloorConfig(terminals={"T1": 1, "T8": 1}, tables={"T1": "A", "T8": "B"})
    assert floor.seats_at("A") == {"T1": 1} and floor.seats_at("B") == {"T8": 1}
    with pytest.raises(FloorConfigError, match="already held"):
        FloorConfig(terminals={"T1": 1, "T8": 1}, tables={"T1": "A", "T8": "A"})
    with pytest.raises(FloorConfigError, match="every terminal needs a table"):
        FloorConfig(terminals={"T1": 1, "T8": 2}, tables={"T1": "A"})
    parsed = FloorConfig.from_mapping(
        {"floor": {"terminals": {"T1": 1, "T8": 1}, "tables": {"T1": "A", "T8": "B"}}}
    )
    assert dict(parsed.tables) == {"T1": "A", "T8": "B"}


def test_views_go_only_to_the_table_that_logged(table: Table) -> None:
    """When a server hosts several tables, a step of one table pushes views only to that
    table's terminals."""
    one = table.connect(T1)
    two = table.connect(T2)
    one.hello()
    two.hello()
    before = (len(one.client.views), len(two.client.views))
    table.factory.step_logged([], terminals={"T1"})
    one.pump.flush()
    two.pump.flush()
    assert len(one.client.views) == before[0] + 1
    assert len(two.client.views) == before[1]
