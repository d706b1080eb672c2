"""Save, then send, when the event log commits on its own thread
(:meth:`~game_server.eventlog.log.EventLog.write_behind`): the server holds every answer and
pushed view until the log says what the step wrote is durable, a retry of a request in
flight gets its one answer, and a failed commit refuses the answers that waited on it.

The log is a fake with the one method the server uses (``when_written``), so that a test
decides when a commit lands or fails; the real commit thread and SQLite are in
``tests/eventlog/test_eventlog_write_behind.py`` and the real server in
``tests/e2e/test_server_log_faults.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakes import FakeMachine
from test_server import FLOOR, T1, T2, Connection, Table, refused
from twisted.internet import task

from game_server.eventlog import AppendRefused
from game_server.net.server import TableServerFactory
from shared import protocol as p


class Commits:
    """The log's ``when_written``: while :attr:`busy`, everyone waits for :meth:`land`."""

    def __init__(self) -> None:
        self.busy = False
        self.waiting: list[Callable[[Any], None]] = []

    def when_written(self, callback: Callable[[Any], None]) -> bool:
        if not self.busy:
            return False
        self.waiting.append(callback)
        return True

    def land(self, error: Exception | None = None) -> None:
        """The commit of everything planned so far succeeded (or failed with ``error``)."""
        self.busy = False
        waiting, self.waiting = self.waiting, []
        for callback in waiting:
            callback(error)


class BehindTable(Table):
    """The test server's table on a log that commits behind."""

    def __init__(self) -> None:
        self.machine = FakeMachine()
        self.clock = task.Clock()
        self.identities = {}
        self.commits = Commits()
        self.factory = TableServerFactory(
            self.machine,
            FLOOR,
            self.clock,
            self._identify,
            when_written=self.commits.when_written,
        )


def _send(connection: Connection, command: type[Any], **kwargs: Any) -> list[Any]:
    """Send a command and deliver what there is; the answer may not have come yet."""
    results: list[Any] = []
    connection.client.callRemote(command, **kwargs).addBoth(results.append)
    connection.pump.flush()
    return results


def test_an_answer_and_the_pushed_views_wait_for_the_commit() -> None:
    """Nothing a step decided leaves the server before the log holds it: the player's
    answer and the view pushed to the other terminal both come once the commit lands."""
    table = BehindTable()
    t1, t2 = table.connect(T1), table.connect(T2)
    t1.hello()
    t2.hello()
    table.commits.busy = True  # the wager's step is planned, its commit runs
    answer = _send(t1, p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    table.machine.step(["WagerPlaced"])
    table.clock.advance(0)  # the end of the reactor's turn: the views are built
    t2.pump.flush()
    assert answer == [] and t2.client.views == []
    table.commits.land()
    t1.pump.flush()
    t2.pump.flush()
    assert answer and "view" in answer[0]
    assert t2.client.views == [{"terminal": "T2", "calls": 1}]  # built at the turn's end
    _send(t1, p.ReadMeters)  # a terminal may not: refused, and timed as any command
    t1.client.callRemoteString(b"NoSuchCommand")  # a made-up name is answered, not timed
    t1.pump.flush()
    timed = table.factory.command_meters()
    assert timed["PlaceWagers"]["count"] == 1 and timed["Hello"]["count"] == 2
    assert timed["ReadMeters"]["count"] == 1 and set(timed) == {
        "Hello",
        "PlaceWagers",
        "ReadMeters",
    }


def test_the_steps_of_one_turn_are_pushed_once_with_the_last_state() -> None:
    """Several steps logged in one turn of the reactor (an input that logs several, the
    inputs of a table that arrive together) are pushed as one view each, built at the end of
    the turn from the state after all of them, and sent once they are all committed."""
    table = BehindTable()
    t1, t2 = table.connect(T1), table.connect(T2)
    t1.hello()
    t2.hello()
    table.commits.busy = True
    table.machine.step(["WagerPlaced"])
    table.machine.calls.append(("another step",))
    table.machine.step(["CardDealt"])
    table.clock.advance(0)  # the end of the reactor's turn: the views are built
    table.machine.calls.append(("a step planned after the push was built",))
    table.commits.land()
    t2.pump.flush()
    assert t2.client.views == [{"terminal": "T2", "calls": 1}]


def test_a_retry_of_a_request_in_flight_gets_its_answer_and_the_step_runs_once() -> None:
    """A terminal that sends its request again (same id, e.g. after a reconnect) while the
    first answer waits on the commit does not wager twice: both get the first answer."""
    table = BehindTable()
    first = table.connect(T1)
    first.hello()
    table.commits.busy = True
    _send(first, p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    second = table.connect(T1)
    hello = _send(second, p.Hello, version=p.PROTOCOL_VERSION, software="test 1")
    assert hello == []  # its view waits for the commit too
    retry = _send(second, p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    other = _send(second, p.Act, request_id="r1", action="hit", hand=0, amount=0)
    assert "was used for PlaceWagers" in refused(other[0], p.BadRequest)
    table.commits.land()
    first.pump.flush()
    second.pump.flush()
    assert first.dropped  # the reconnect replaced it: its answer is the retry's to get
    assert hello and retry and "view" in retry[0]
    assert table.machine.operations() == [("place_wagers", "T1", {"blackjack": 2500})]
    assert second.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500}) == retry[0]


def test_a_failed_commit_refuses_the_answers_that_waited_and_sends_no_view() -> None:
    """The log could not store the step: the player is told the table is unavailable (the
    same to a retry), and no terminal is sent a view of what was never saved."""
    table = BehindTable()
    t1, t2 = table.connect(T1), table.connect(T2)
    t1.hello()
    t2.hello()
    table.commits.busy = True
    answer = _send(t1, p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    table.machine.step(["WagerPlaced"])
    table.clock.advance(0)
    table.commits.land(AppendRefused("disk full; nothing of the step was written"))
    t1.pump.flush()
    t2.pump.flush()
    assert "disk full" in refused(answer[0], p.TableUnavailable)
    assert t1.client.views == [] and t2.client.views == []
    retry = t1.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
    assert "disk full" in refused(retry, p.TableUnavailable)
    assert table.machine.operations() == [("place_wagers", "T1", {"blackjack": 2500})]


def test_without_a_log_behind_answers_go_at_once() -> None:
    """A log that writes through (or none): nothing waits."""
    table = Table()
    t1 = table.connect(T1)
    t1.hello()
    assert "view" in t1.call(p.PlaceWagers, request_id="r1", wagers={"blackjack": 2500})
