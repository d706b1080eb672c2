"""``etg faults``' checker and clients (:mod:`tools.faults_check`, :mod:`tools.faults_clients`,
:mod:`tools.faults_readers`), without a server: a small real log written here, journals
made by hand or by clients talking to a recording fake connection.

The campaign itself, against the real server, is ``tests/e2e/test_faults_e2e.py``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from game_server.eventlog import EventLog, EventLogReader, NewEvent, system_clock
from game_server.games.blackjack.rules.events import Decision, WagerPlaced
from game_server.table.events import CreditsIn, OperatorAction, RequestApplied
from tools.amp_client import AmpError
from tools.cli import main
from tools.faults_check import Ack, Journal, LogFacts, Sent, check, read_facts
from tools.faults_clients import OperatorScript, TerminalBot
from tools.faults_readers import Readers, judge

TABLE = "BJ-01"


def _event(record: Any, round_id: int | None = 1, terminal: str | None = "T1") -> NewEvent:
    return NewEvent.from_record(record, table_id=TABLE, round_id=round_id, terminal=terminal)


@pytest.fixture()
def facts(tmp_path: Path) -> LogFacts:
    """A log where the operator credited T1 $100 (slip 1, request op-1), T1 wagered $5 in
    round 1 and hit once; the countdown stood for it."""
    action = OperatorAction("cash-in", "ann", "attendant", "T1", 10_000, "slip 1", "op-1", "")
    with EventLog.create_or_open(
        tmp_path / "t.db", Ed25519PrivateKey.generate(), system_clock
    ) as log:
        log.append(
            [_event(CreditsIn("T1", 10_000, 10_000, "slip 1")), _event(action)],
            checkpoint="money-moved",
        )
        log.append([_event(WagerPlaced(1, 0, "blackjack", 500))])
        log.append([_event(Decision(1, 0, "hit", 0, False))])
        log.append([_event(Decision(1, 0, "stand", 0, True))])
    with EventLogReader.open(tmp_path / "t.db") as reader:
        return read_facts(reader)


def _cash_in(request_id: str, reference: str, balance: int) -> Ack:
    arguments = {"terminal": "T1", "amount": 10_000, "reference": reference}
    sent = Sent("operator", request_id, "CashIn", arguments)
    return Ack(sent, {"balance": balance, "logged": 1})


def _act(request_id: str, action: str, round_id: int = 1) -> Ack:
    sent = Sent("T1", request_id, "Act", {"action": action, "hand": 0, "amount": 0})
    return Ack(sent, {"round": round_id, "credits": 9_500, "phase": "playing"})


def _terminal(final: int | None, told: list[int]) -> Journal:
    wager = Sent("T1", "T1-1", "PlaceWagers", {"wagers": {"blackjack": 500}})
    journal = Journal("T1", told=told, final=final)
    journal.acks.append(Ack(wager, {"round": 1, "credits": 9_500, "phase": "betting"}))
    return journal


def test_every_acknowledged_command_found_in_the_log_passes(facts: LogFacts) -> None:
    """A cash in found by its reference (amount, balance) and request id, a wager by round,
    terminal and amount, a hit by round, hand and action: nothing lost, the wallet as told."""
    operator = Journal("operator", acks=[_cash_in("op-1", "slip 1", 10_000)])
    terminal = _terminal(final=9_500, told=[0, 10_000, 9_500])
    terminal.acks.append(_act("T1-2", "hit"))
    verdict = check([operator, terminal], facts)
    assert verdict.acknowledged == {"Act": 1, "CashIn": 1, "PlaceWagers": 1}
    assert verdict.lost == [] and verdict.mismatches == []
    assert verdict.ok


def test_an_acknowledged_credit_missing_from_the_log_is_lost(facts: LogFacts) -> None:
    """The operator was answered for slip 2, which the log does not hold: it is reported
    lost, with the reference looked for; slip 1 is not."""
    missing = _cash_in("op-2", "slip 2", 20_000)
    operator = Journal("operator", acks=[_cash_in("op-1", "slip 1", 10_000), missing])
    verdict = check([operator], facts)
    assert [lost.ack for lost in verdict.lost] == [missing]
    assert "reference 'slip 2'" in verdict.lost[0].why
    assert not verdict.ok


def test_a_credit_logged_with_another_balance_than_answered_is_lost(facts: LogFacts) -> None:
    """The answer said the balance was $200.00; the log's record of slip 1 left $100.00: the
    answered movement is not the one logged."""
    verdict = check([Journal("operator", acks=[_cash_in("op-1", "slip 1", 20_000)])], facts)
    assert len(verdict.lost) == 1 and "leaving 20000" in verdict.lost[0].why


def test_two_acknowledged_hits_need_two_decisions_and_the_countdowns_do_not_count(
    facts: LogFacts,
) -> None:
    """The log holds one hit of the player: a second acknowledged hit is lost; a stand it
    answered is lost too, since the only stand logged is the countdown's."""
    terminal = _terminal(final=9_500, told=[])
    terminal.acks += [_act("T1-2", "hit"), _act("T1-3", "hit"), _act("T1-4", "stand")]
    verdict = check([terminal], facts)
    assert [lost.ack.sent.request_id for lost in verdict.lost] == ["T1-3", "T1-4"]
    assert "not the countdown's" in verdict.lost[1].why


def test_a_wager_answered_in_another_round_than_logged_is_lost(facts: LogFacts) -> None:
    """The wager was answered with round 2's view; the log holds it in round 1 only."""
    terminal = Journal("T1", final=9_500)
    wager = Sent("T1", "T1-1", "PlaceWagers", {"wagers": {"blackjack": 500}})
    terminal.acks.append(Ack(wager, {"round": 2, "credits": 9_500, "phase": "betting"}))
    verdict = check([terminal], facts)
    assert len(verdict.lost) == 1 and "in round 2" in verdict.lost[0].why


def test_a_wallet_that_does_not_end_where_its_terminal_was_told_is_reported(
    facts: LogFacts,
) -> None:
    """T1 was last told $100.00 but its wallet in the log is $95.00; it was also told $42.00,
    a balance its wallet never held; and the server's meters disagree with the log."""
    verdict = check([_terminal(final=10_000, told=[10_000, 4_200])], facts, {"T1": 9_000})
    assert verdict.lost == []
    assert verdict.mismatches == [
        "T1 was last told 10000 cents of credits, but its wallet in the log is 9500",
        "the server's meters give T1 9000 cents, but its wallet in the log is 9500",
        "T1 was told credits its wallet never held in the log: 4200 cents",
    ]
    assert not verdict.ok


def test_a_terminal_that_never_settled_is_reported(facts: LogFacts) -> None:
    verdict = check([_terminal(final=None, told=[9_500])], facts)
    assert verdict.mismatches == ["T1 has no final view: it never settled"]


def test_unknown_commands_are_counted_never_lost(facts: LogFacts) -> None:
    """A cash in whose connection dropped is unknown: counted, and found in the log or not,
    never lost."""
    operator = Journal("operator")
    for reference in ("slip 1", "slip 9"):
        arguments = {"terminal": "T1", "amount": 10_000, "reference": reference}
        operator.unknown.append(Sent("operator", reference, "CashIn", arguments))
    verdict = check([operator], facts)
    assert verdict.unknown == {"CashIn": 2} and verdict.unknown_in_log == 1
    assert verdict.ok


def _log_of(tmp_path: Path, steps: list[list[NewEvent]]) -> LogFacts:
    with EventLog.create_or_open(
        tmp_path / "d.db", Ed25519PrivateKey.generate(), system_clock
    ) as log:
        for step in steps:
            log.append(step)
    with EventLogReader.open(tmp_path / "d.db") as reader:
        return read_facts(reader)


def test_a_command_answered_already_is_found_by_its_request_record(tmp_path: Path) -> None:
    """A hit sent again after a kill and answered ``already``, with the view of round 2 (the
    table now): found in round 1, where its request record's step holds it. One answered
    ``already`` that the log holds no request record of is lost."""
    facts = _log_of(
        tmp_path,
        [
            [
                _event(Decision(1, 0, "hit", 0, False)),
                _event(RequestApplied("T1", "T1-2", "Act", 1)),
            ]
        ],
    )
    terminal = Journal("T1", final=0)
    terminal.acks.append(
        Ack(_act("T1-2", "hit", 2).sent, {**_act("T1-2", "hit", 2).answer, "already": True})
    )
    terminal.acks.append(
        Ack(_act("T1-3", "hit", 2).sent, {**_act("T1-3", "hit", 2).answer, "already": True})
    )
    verdict = check([terminal], facts)
    assert [lost.ack.sent.request_id for lost in verdict.lost] == ["T1-3"]
    assert "no request_applied of T1's 'T1-3'" in verdict.lost[0].why
    assert verdict.already_in_log == 1 and verdict.doubled == []


def test_a_command_that_took_effect_twice_fails_the_check(tmp_path: Path) -> None:
    """A retry the server ran again: the request id logged twice, the slip credited twice,
    and T1's hit twice in the log for the one Act it sent. Each is named; the verdict
    fails though nothing acknowledged is lost."""
    facts = _log_of(
        tmp_path,
        [
            [
                _event(CreditsIn("T1", 700, 700, "slip 7")),
                _event(RequestApplied("operator", "op-1", "CashIn", 1), terminal=None),
            ],
            [
                _event(CreditsIn("T1", 700, 1_400, "slip 7")),
                _event(RequestApplied("operator", "op-1", "CashIn", 1), terminal=None),
            ],
            [_event(Decision(1, 0, "hit", 0, False))],
            [_event(Decision(1, 0, "hit", 0, False))],
        ],
    )
    arguments = {"terminal": "T1", "amount": 700, "reference": "slip 7"}
    sent = Sent("operator", "op-1", "CashIn", arguments)
    operator = Journal("operator", acks=[Ack(sent, {"balance": 700})])
    terminal = Journal("T1", final=1_400, told=[1_400], acks=[_act("T1-1", "hit")])
    verdict = check([operator, terminal], facts)
    assert verdict.lost == []
    assert verdict.doubled == [
        "operator's request 'op-1' (CashIn) took effect 2 times (request_applied at seq 2, 4)",
        "2 credits_in records of the one reference 'slip 7'",
        "T1 has 2 'hit' decisions of hand 0 in the log but sent 1 requests for them",
    ]
    assert not verdict.ok


class FakeConnection:
    """A recording fake of :class:`~tools.amp_client.AmpClient`: records every call, answers
    from a script (a dict, an exception to raise, or a callable of the arguments)."""

    def __init__(self, script: dict[str, list[Any]], calls: list[tuple[str, dict[str, Any]]]):
        self.script = script
        self.calls = calls
        self.pushed: list[dict[str, Any]] = []
        self.closed = False

    def call(self, command: str, **arguments: Any) -> dict[str, Any]:
        self.calls.append((command, arguments))
        answers = self.script[command]
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def close(self) -> None:
        self.closed = True


def _connector(
    scripts: list[dict[str, list[Any]]], calls: list[tuple[str, dict[str, Any]]]
) -> tuple[Callable[[str], FakeConnection], list[FakeConnection]]:
    """Each connection made gets the next script; the connections are kept."""
    made: list[FakeConnection] = []

    def connect(who: str) -> FakeConnection:
        made.append(FakeConnection(scripts[len(made)], calls))
        return made[-1]

    return connect, made


def test_a_command_whose_connection_dropped_is_sent_again_with_its_request_id() -> None:
    """The operator's first cash in is answered; its second loses the connection (the server
    was killed): unknown. The client connects again, says Hello and first sends the unknown
    cash in again with its first request id and reference, as the terminal does: answered
    ``already`` (it had taken effect), it is acknowledged and no longer unknown. Then it
    goes on with new request ids; a refusal is counted by code."""
    calls: list[tuple[str, dict[str, Any]]] = []
    hello = {"role": "operator", "view": "{}"}
    already = {"balance": "900", "logged": "1", "already": "request 'operator-2' ..."}
    connect, made = _connector(
        [
            {"Hello": [hello], "CashIn": [{"balance": "500", "logged": "1"}, ConnectionError()]},
            {
                "Hello": [hello],
                "CashIn": [already, AmpError("BAD_REQUEST", "no"), {"balance": "1300"}],
            },
        ],
        calls,
    )
    slept: list[float] = []
    operator = OperatorScript(connect, threading.Event(), ["T1"], 7, "t", sleep=slept.append)
    for _ in range(4):
        operator.connected()
        operator.move("CashIn", "T1", 400)
    journal = operator.journal
    assert [ack.sent.request_id for ack in journal.acks] == [
        "operator-1",
        "operator-2",
        "operator-4",
    ]
    assert [ack.answer for ack in journal.acks] == [
        {"balance": 500, "logged": 1, "already": False},
        {"balance": 900, "logged": 1, "already": True},
        {"balance": 1300, "already": False},
    ]
    assert journal.acks[1].sent.arguments["reference"] == "t in 2"
    assert journal.unknown == [] and journal.resent == 1
    assert journal.resent_outcomes == {"already": 1}
    assert journal.refused == {"CashIn BAD_REQUEST": 1}
    assert journal.connections == 2 and made[0].closed
    assert [command for command, _ in calls].count("Hello") == 2
    requests = [arguments.get("request_id") for command, arguments in calls if command == "CashIn"]
    assert requests == ["operator-1", "operator-2", "operator-2", "operator-3", "operator-4"]
    assert [sent.request_id for sent in journal.sent] == [
        "operator-1",
        "operator-2",
        "operator-3",
        "operator-4",
    ]


def test_a_command_sent_again_stays_unknown_until_answered() -> None:
    """Sent again and dropped again: still unknown (sent again on the next connection);
    then refused: counted as refused, no longer unknown (it changed nothing)."""
    hello = {"role": "operator", "view": "{}"}
    connect, _ = _connector(
        [
            {"Hello": [hello], "CashOut": [ConnectionError()]},
            {"Hello": [hello], "CashOut": [ConnectionError()]},
            {"Hello": [hello], "CashOut": [AmpError("BAD_REQUEST", "short")]},
        ],
        [],
    )
    operator = OperatorScript(connect, threading.Event(), ["T1"], 7, "t", sleep=lambda _s: None)
    operator.connected()
    operator.move("CashOut", "T1", 100)
    operator.connected()
    assert [sent.request_id for sent in operator.journal.unknown] == ["operator-1"]
    operator.connected()
    journal = operator.journal
    assert journal.unknown == [] and journal.resent == 2
    assert journal.resent_outcomes == {"refused": 1}
    assert journal.refused == {"CashOut BAD_REQUEST": 1}


def test_the_operator_answers_its_unknown_commands_before_the_terminals_settle() -> None:
    """Closing: the operator connects again until its unknown cash in is sent again and
    answered, so that no wallet moves after the terminals' final views."""
    hello = {"role": "operator", "view": "{}"}
    connect, made = _connector(
        [
            {"Hello": [hello], "CashIn": [ConnectionError()]},
            {"Hello": [hello], "CashIn": [ConnectionError()]},
            {"Hello": [hello], "CashIn": [{"balance": "500", "logged": "1"}]},
        ],
        [],
    )
    operator = OperatorScript(connect, threading.Event(), ["T1"], 7, "t", sleep=lambda _s: None)
    operator.connected()
    operator.move("CashIn", "T1", 500)
    operator.resolve()
    journal = operator.journal
    assert journal.unknown == [] and len(made) == 3
    assert journal.resent == 2 and journal.resent_outcomes == {"ran": 1}
    assert [ack.sent.request_id for ack in journal.acks] == ["operator-1"]


class _Bot:
    """A recording fake wire bot: wagers once, then nothing."""

    def __init__(self) -> None:
        self.views: list[dict[str, Any]] = []

    def next_step(self, view: Any) -> Any:
        from game_server.games.api import BotStep

        self.views.append(dict(view))
        if len(self.views) == 1:
            return BotStep("place_wagers", {"wagers": {"blackjack": 500}})
        return None


def _view(credits: int, phase: str, wagers: dict[str, int] | None) -> str:
    seats = [] if wagers is None else [{"mine": True, "seat": 1, "wagers": wagers}]
    return json.dumps({"round": 3, "credits": credits, "phase": phase, "seats": seats})


def test_a_terminal_notes_every_view_it_is_told_and_settles_with_nothing_in_play() -> None:
    """Hello tells $100.00, the wager's answer $95.00 (after a pushed $100.00); once closing
    with the round complete, the final view's credits are the journal's final."""
    calls: list[tuple[str, dict[str, Any]]] = []
    connect, made = _connector(
        [
            {
                "Hello": [{"view": _view(10_000, "betting", None)}],
                "PlaceWagers": [{"view": _view(9_500, "betting", {"blackjack": 500})}],
                "GetView": [{"view": _view(10_500, "complete", {"blackjack": 500})}],
            }
        ],
        calls,
    )
    stop = threading.Event()
    bot = TerminalBot("T1", connect, stop, _Bot(), sleep=lambda _s: None)
    bot.turn()
    assert [a.answer for a in bot.journal.acks] == [
        {"round": 3, "credits": 9_500, "phase": "betting", "already": False}
    ]
    made[0].pushed.append({"credits": 10_000})
    bot.turn()  # nothing to do: polls
    bot.closing.set()
    bot.turn()
    assert bot.settled.is_set() and bot.journal.final == 10_500
    assert bot.journal.told == [10_000, 9_500, 10_000, 10_500, 10_500]


@pytest.mark.parametrize(
    ("kind", "returncode", "stdout", "stderr", "outcome"),
    [
        ("sqlite3-cli", 0, "412\n", "", "ok"),
        ("sqlite3-cli", 0, "", "", "FAILED"),
        ("sqlite3-cli", 5, "", "Error: database is locked", "expected"),
        ("python-sqlite3", 1, "", "sqlite3.OperationalError: disk I/O error", "FAILED"),
        (
            "status",
            1,
            '[{"item": "server", "ok": false}, {"item": "log", "ok": true}]',
            "",
            "expected",
        ),
        ("status", 1, '[{"item": "lock", "ok": false}]', "", "FAILED"),
        ("verify", 1, '{"ok": false}', "", "FAILED"),
        ("recall", 0, "[]", "", "ok"),
    ],
)
def test_reader_runs_are_judged(
    kind: str, returncode: int, stdout: str, stderr: str, outcome: str
) -> None:
    """A raw reader must print a count; SQLite's "locked" while the server recovers the log
    is expected, as is etg status's alarm for a server that does not answer; a lost lock, a
    failed verification or an I/O error is not."""
    assert judge(kind, returncode, stdout, stderr)[0] == outcome


@pytest.mark.parametrize("between", ["5,2", "0,1", "a,b", "3"])
def test_bad_options_exit_2(between: str) -> None:
    """A range of seconds that is not A,B with 0.5 <= A <= B is refused before anything
    starts."""
    result = CliRunner().invoke(main, ["faults", "--seconds-between", between])
    assert result.exit_code == 2
    assert "--seconds-between" in result.output


def test_a_terminal_that_sits_the_round_out_sends_no_wager() -> None:
    """With a sit-out chance of 1 the bot's wager is left out (the round counts as wagered
    for the bot) and the terminal polls instead: no PlaceWagers is sent."""
    calls: list[tuple[str, dict[str, Any]]] = []
    connect, _ = _connector(
        [
            {
                "Hello": [{"view": _view(10_000, "betting", None)}],
                "GetView": [{"view": _view(10_000, "betting", None)}],
            }
        ],
        calls,
    )
    bot = TerminalBot("T1", connect, threading.Event(), _Bot(), 1.0, "s", lambda _s: None)
    for _ in range(3):
        bot.turn()
    assert [command for command, _ in calls] == ["Hello", "GetView", "GetView", "GetView"]
    assert bot.journal.acks == []


def test_a_reader_that_cannot_be_started_fails_and_every_run_is_recorded(tmp_path: Path) -> None:
    """A reader whose program is missing is a FAILED run (not a dead loop), written to the
    record as it ends; kinds without a command are listed as missing."""
    stop = threading.Event()
    record = tmp_path / "readers.jsonl"
    missing = str(tmp_path / "no-such-program")
    readers = Readers({"recall": [missing]}, None, stop, record)
    thread = threading.Thread(target=readers.loops()[1])
    thread.start()
    try:
        assert _eventually(lambda: bool(readers.runs))
    finally:
        stop.set()
        thread.join(10)
    first = readers.runs[0]
    assert first.outcome == "FAILED" and first.why.startswith("not run: FileNotFoundError")
    assert readers.figures()["recall"]["failed"] == len(readers.runs)
    assert readers.never_ran() == [] and "sqlite3-cli" in readers.missing
    assert json.loads(record.read_text().splitlines()[0])["kind"] == "recall"


def _eventually(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
