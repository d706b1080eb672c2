"""The terminal's AMP client (terminal_client.net) against the real table server factory over
a recording fake machine, in memory, with a fake clock: Hello, pushes, intents, declared
errors, retries with the same request id after a reconnect, and version refusals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from client_helpers import T8, MemoryTable, sample_view
from OpenSSL import SSL
from service_identity import VerificationError
from twisted.application.internet import backoffPolicy
from twisted.internet import task
from twisted.internet.error import ConnectionRefusedError
from twisted.internet.protocol import Factory, Protocol, connectionDone
from twisted.protocols.tls import TLSMemoryBIOFactory
from twisted.python.failure import Failure
from twisted.test import iosim

from game_server.net.pki import PkiFiles, init_pki
from game_server.net.tls import server_tls_options
from game_server.rules import errors as rules
from terminal_client.model import ConnectionState, IntentKind, TerminalModel
from terminal_client.net import TerminalClient, TerminalTlsError, terminal_tls_options
from terminal_client.net import client as client_module

#: The first retry after 1 s, then 2 s, 4 s, ... (no jitter, so the tests know when).
NO_JITTER: Callable[[int], float] = backoffPolicy(
    initialDelay=0.5, maxDelay=10, factor=2, jitter=lambda: 0
)


def started(table: MemoryTable) -> TerminalClient:
    """A client of ``table`` that has connected and said Hello."""
    client = TerminalClient(table, TerminalModel(), table.clock, retry_policy=NO_JITTER)
    client.start()
    table.flush()
    return client


def test_hello_applies_the_answers_view(table: MemoryTable) -> None:
    """On connecting the client says Hello and the model shows the answer's view."""
    client = started(table)
    assert client.model.connection.state is ConnectionState.CONNECTED
    assert client.model.credits == 100_000
    assert table.machine.calls == [("view", "T1")]
    assert [c.identity for c in table.factory.connections] == [table.identity]


def test_a_pushed_view_update_updates_the_model(table: MemoryTable) -> None:
    """A ViewUpdate the server pushes after a logged step lands in the model."""
    client = started(table)
    table.machine.credits = 42_000
    table.machine.step()
    table.flush()
    assert client.model.credits == 42_000


def test_place_wagers_sends_the_command_and_applies_its_answer(table: MemoryTable) -> None:
    """place_wagers sends PlaceWagers for this terminal; until the answer the intent is
    pending, then the answer's view (the server's credits) is applied."""
    client = started(table)
    intent = client.place_wagers({"blackjack": 2_500})
    assert intent is not None and len(intent.request_id) == 32
    assert client.model.is_waiting(IntentKind.PLACE_WAGERS)
    table.flush()
    assert table.place_wagers_calls() == [("place_wagers", "T1", {"blackjack": 2_500})]
    assert client.model.pending == ()
    assert client.model.credits == 97_500


def test_a_second_press_while_waiting_sends_nothing(table: MemoryTable) -> None:
    """A second place_wagers before the first is answered is refused and not sent."""
    client = started(table)
    assert client.place_wagers({"blackjack": 2_500}) is not None
    assert client.place_wagers({"blackjack": 2_500}) is None
    table.flush()
    assert len(table.place_wagers_calls()) == 1


@pytest.mark.parametrize(
    ("send", "operation"),
    [
        (lambda c: c.act("hit", 0), ("act", "T1", "hit", 0)),
        (lambda c: c.answer_insurance("insurance", 500), ("answer_insurance", "T1", "insurance")),
        (lambda c: c.cash_out(), ("cash_out", "T1")),
    ],
)
def test_each_intent_reaches_the_machine(
    table: MemoryTable, send: Callable[[TerminalClient], object], operation: tuple[object, ...]
) -> None:
    """act, answer_insurance and cash_out send their commands and free their intent."""
    client = started(table)
    send(client)
    table.flush()
    assert table.machine.operations()[-1][: len(operation)] == operation
    assert client.model.pending == ()


def test_a_declared_error_lands_in_the_model_with_its_message(table: MemoryTable) -> None:
    """A machine refusal comes back as the declared error; the model shows its code and the
    server's sentence and the intent is no longer pending."""
    client = started(table)
    table.machine.error = rules.BetOutOfLimits("the most a blackjack wager takes is 500.00")
    intent = client.place_wagers({"blackjack": 90_000})
    table.flush()
    error = client.model.last_error
    assert error is not None and intent is not None
    assert error.code == "BET_OUT_OF_LIMITS"
    assert error.message == "the most a blackjack wager takes is 500.00"
    assert error.request_id == intent.request_id
    assert client.model.pending == ()
    assert client.model.credits == 100_000


def test_a_lost_connection_is_shown_and_retried(table: MemoryTable) -> None:
    """A dropped connection shows "lost" with the seconds to the next attempt; the client
    reconnects after the back-off and says Hello again."""
    client = started(table)
    table.drop()
    connection = client.model.connection
    assert connection.state is ConnectionState.LOST
    assert connection.retry_in(table.clock.seconds()) == 1
    table.clock.advance(1)
    table.flush()
    assert table.connects == 2
    assert client.model.connection.state is ConnectionState.CONNECTED


def test_no_intent_is_sent_while_the_connection_is_down(table: MemoryTable) -> None:
    """While the connection is down an intent is refused rather than queued."""
    client = started(table)
    table.drop()
    assert client.place_wagers({"blackjack": 500}) is None
    table.clock.advance(1)
    table.flush()
    assert table.place_wagers_calls() == []


def test_a_retry_after_a_disconnect_resends_the_same_request_id(table: MemoryTable) -> None:
    """An intent whose answer was lost is resent after the next Hello with the same request
    id; the server answers it from its book and the machine is called once."""
    client = started(table)
    intent = client.place_wagers({"blackjack": 2_500})
    assert intent is not None
    table.pump.pump()  # the server takes the command and answers...
    table.drop()  # ...but the answer is lost with the connection
    assert len(table.place_wagers_calls()) == 1
    assert client.model.pending == (intent,)
    table.clock.advance(1)
    table.flush()
    assert table.connects == 2
    assert client.model.pending == ()
    assert client.model.credits == 97_500
    assert len(table.place_wagers_calls()) == 1
    assert table.factory.answers.get("T1", intent.request_id) is not None
    assert len(table.factory.answers) == 1


def test_a_version_mismatch_stops_the_retries(
    table: MemoryTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the server refuses the terminal's protocol version the model says it needs an
    update and the client never connects again."""
    monkeypatch.setattr(client_module, "PROTOCOL_VERSION", 99)
    client = started(table)
    assert client.model.connection.state is ConnectionState.NEEDS_UPDATE
    assert "this terminal needs an update" in client.model.connection.message
    assert "update the terminal software" in client.model.connection.message
    table.clock.advance(120)
    table.flush()
    assert table.connects == 1
    assert not client.running


def test_a_view_of_another_version_stops_the_retries(table: MemoryTable) -> None:
    """A Hello answered with a view of another version also stops the client for good."""
    table.machine.next_view = {"v": 2}
    client = started(table)
    assert client.model.connection.state is ConnectionState.NEEDS_UPDATE
    table.clock.advance(120)
    table.flush()
    assert table.connects == 1


def test_a_terminal_without_a_seat_is_shown_as_refused_and_retried() -> None:
    """A Hello refused as Unauthorized shows the server's reason and retries later."""
    table = MemoryTable(identity=T8)
    client = started(table)
    connection = client.model.connection
    assert connection.state is ConnectionState.CERTIFICATE_REFUSED
    assert "T8 holds no seat" in connection.message
    assert connection.retry_at is not None
    table.clock.advance(1)
    table.flush()
    assert table.connects == 2


def test_an_unreachable_server_is_shown_and_retried(table: MemoryTable) -> None:
    """A failed connection attempt shows why and the next attempt follows the back-off."""
    table.refuse_next = ConnectionRefusedError("nobody listens")
    client = TerminalClient(table, TerminalModel(), table.clock, retry_policy=NO_JITTER)
    client.start()
    assert client.model.connection.state is ConnectionState.LOST
    assert "cannot reach the table server" in client.model.connection.message
    table.clock.advance(1)
    table.flush()
    assert client.model.connection.state is ConnectionState.CONNECTED


def test_stop_closes_the_connection_and_does_not_reconnect(table: MemoryTable) -> None:
    """After stop the connection closes and no retry is made."""
    client = started(table)
    client.stop()
    table.flush()
    table.clock.advance(60)
    table.flush()
    assert table.connects == 1
    assert table.factory.connections == []


def test_views_pushed_to_another_terminal_leave_this_one_alone(table: MemoryTable) -> None:
    """The model changes only with this terminal's own views (a sample check of pushes)."""
    client = started(table)
    table.machine.next_view = sample_view(credits=1)
    table.machine.step()
    table.flush()
    assert client.model.credits == 1


# --------------------------------------------------------------------------------------------
# TLS options (terminal_client.net.tls) against the server's own, in memory


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> PkiFiles:
    """A CA, the server's certificate (localhost) and terminal T1's, as `etg certs` makes."""
    return init_pki(tmp_path_factory.mktemp("pki") / "certs", terminals=1)


class _Peer(Protocol):
    def __init__(self) -> None:
        self.received = b""
        self.reason: Failure | None = None

    def connectionMade(self) -> None:
        self.transport.write(b"hello")  # type: ignore[union-attr]

    def dataReceived(self, data: bytes) -> None:
        self.received += data

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.reason = reason


def _handshake(pki: PkiFiles, hostname: str) -> tuple[_Peer, _Peer, Any]:
    terminal = pki.terminals["T1"]
    options = terminal_tls_options(pki.ca.certificate, terminal.certificate, terminal.key, hostname)
    clock = task.Clock()
    server, client = _Peer(), _Peer()
    server_tls = TLSMemoryBIOFactory(
        server_tls_options(pki.ca.certificate.parent),
        False,
        Factory.forProtocol(lambda: server),
        clock,
    ).buildProtocol(None)
    client_tls = TLSMemoryBIOFactory(
        options, True, Factory.forProtocol(lambda: client), clock
    ).buildProtocol(None)
    _, _, pump = iosim.connectedServerAndClient(lambda: server_tls, lambda: client_tls, clock=clock)
    pump.flush()
    return server, client, client_tls


def test_the_terminal_options_speak_tls13_with_the_server(pki: PkiFiles) -> None:
    """The terminal's options complete a TLS 1.3 handshake with the server's options (our CA
    on both sides, the terminal's certificate presented) and carry data both ways."""
    server, client, client_tls = _handshake(pki, "localhost")
    assert (server.received, client.received) == (b"hello", b"hello")
    assert client_tls._tlsConnection.get_protocol_version_name() == "TLSv1.3"


def test_the_terminal_refuses_a_server_named_otherwise(pki: PkiFiles) -> None:
    """A server whose certificate does not name the host the terminal dialled is refused."""
    server, client, _ = _handshake(pki, "table.example")
    assert client.received == b"" and server.received == b""
    assert client.reason is not None and client.reason.check(SSL.Error, VerificationError)


@pytest.mark.parametrize(
    "reason",
    [
        SSL.Error([("SSL routines", "", "tlsv13 alert certificate required")]),
        VerificationError(errors=[]),
    ],
)
def test_a_refused_handshake_is_shown_as_a_certificate_problem(
    table: MemoryTable, reason: Exception
) -> None:
    """A connection that ends in a TLS refusal (a certificate OpenSSL refused, or a server
    named otherwise) is shown as a refused certificate, and retried."""
    client = started(table)
    table.drop(reason)
    connection = client.model.connection
    assert connection.state is ConnectionState.CERTIFICATE_REFUSED
    assert "TLS handshake failed" in connection.message
    assert connection.retry_at is not None


def test_missing_or_mismatched_tls_files_are_named(pki: PkiFiles, tmp_path: Path) -> None:
    """A missing file is named in the error; a key of another pair is refused."""
    terminal = pki.terminals["T1"]
    with pytest.raises(TerminalTlsError, match=r"T9\.pem"):
        terminal_tls_options(pki.ca.certificate, tmp_path / "T9.pem", terminal.key)
    with pytest.raises(TerminalTlsError, match="does not belong"):
        terminal_tls_options(pki.ca.certificate, terminal.certificate, pki.server.key)
