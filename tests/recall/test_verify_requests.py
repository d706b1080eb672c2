"""``etg verify``'s ``requests`` check: a client's request id is logged with the step it took
effect in (``request_applied``, :mod:`game_server.table.requests`), well formed and
consistent with its step; a request id that takes effect twice while a server remembers it is
a warning (a double effect).

The logs are written through the real :class:`~game_server.eventlog.EventLog` with crafted
steps, as a dishonest or buggy server would write them: the chain and every signature are
valid, so only this check can find what is wrong. Each step gets a time of its own (a
clock that moves a second per reading).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from game_server.eventlog import EventLog, EventLogReader, NewEvent
from game_server.keys import init_keys, load_public_key, load_signing_key
from game_server.recall.verify import VerifyReport, verify_log
from game_server.rules.events import to_dict
from game_server.table.events import CreditsIn, RequestApplied

Step = Sequence[tuple[str | None, Any]]


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("certs")
    init_keys(path)
    return path


def _verified(path: Path, certs: Path, steps: Sequence[Step]) -> VerifyReport:
    """A log of ``steps`` (table ``BJ``, no round), verified."""
    moments = iter(dt.datetime(2026, 11, 29, 15, 0, n, tzinfo=dt.UTC) for n in range(60))
    log = EventLog.create_or_open(path, load_signing_key(certs), lambda: next(moments))
    for step in steps:
        log.append([NewEvent("BJ", None, terminal, to_dict(ev)) for terminal, ev in step])
    log.close()
    with EventLogReader.open(path) as reader:
        return verify_log(reader, load_public_key(certs))


def _credit(amount: int, balance: int) -> tuple[str, CreditsIn]:
    return "T1", CreditsIn("T1", amount, balance, f"slip {balance}")


def _findings(report: VerifyReport, *, warnings: bool = False) -> list[str]:
    found = report.warnings if warnings else report.failures
    return [f.reason for f in found if f.check == "requests"]


def test_a_request_logged_with_its_step_verifies(tmp_path: Path, certs: Path) -> None:
    """A cash in's credit with its request record after it, counting it; a terminal's
    command under the terminal: the check passes."""
    steps = [
        [_credit(700, 700), (None, RequestApplied("operator", "c1", "CashIn", 1))],
        [_credit(100, 800), (None, RequestApplied("operator", "c2", "CashIn", 1))],
        [("T1", RequestApplied("T1", "a1", "RequestCashOut", 0))],
    ]
    report = _verified(tmp_path / "log.db", certs, steps)
    assert report.ok, report.first_failure
    assert _findings(report) == [] and _findings(report, warnings=True) == []
    assert next(c for c in report.checks if c.check == "requests").status == "PASS"


@pytest.mark.parametrize(
    ("record", "terminal", "why"),
    [
        (RequestApplied("operator", "c1", "CashIn", 2), None, "counts 2 records"),
        (RequestApplied("operator", "c1", "CashIn", 1), "T1", "envelope names terminal T1"),
        (RequestApplied("T1", "w1", "PlaceWagers", 1), None, "envelope names no terminal"),
        (RequestApplied("operator", "c1", "GetView", 1), None, "no command that changes"),
        (RequestApplied("", "c1", "CashIn", 1), None, "names no client"),
        (RequestApplied("operator", "c\u00e91", "CashIn", 1), None, "printable ASCII"),
    ],
)
def test_a_malformed_or_misplaced_request_record_fails(
    tmp_path: Path, certs: Path, record: RequestApplied, terminal: str | None, why: str
) -> None:
    """A record that counts records its step does not have, names the wrong envelope, a
    command that changes nothing, no client or an id no client may send: a failure at its
    seq."""
    report = _verified(tmp_path / "log.db", certs, [[_credit(700, 700), (terminal, record)]])
    assert not report.ok
    [reason] = _findings(report)
    assert why in reason and "seq 2" in reason


def test_a_record_that_counts_another_request_record_fails(tmp_path: Path, certs: Path) -> None:
    """Two request records in one step, the second counting the first among its records."""
    step = [
        _credit(700, 700),
        (None, RequestApplied("operator", "c1", "CashIn", 1)),
        (None, RequestApplied("operator", "c2", "CashIn", 2)),
    ]
    report = _verified(tmp_path / "log.db", certs, [step])
    [reason] = _findings(report)
    assert "request_applied at seq 3 counts the request record at seq 2" in reason


def test_a_request_id_that_took_effect_twice_is_a_warning(tmp_path: Path, certs: Path) -> None:
    """The same id of the operator's CashIn in two steps (a retry that ran again: the double
    credit this check exists for) is named as a warning; the log still verifies."""
    steps = [
        [_credit(700, 700), (None, RequestApplied("operator", "slip-7", "CashIn", 1))],
        [_credit(700, 1_400), (None, RequestApplied("operator", "slip-7", "CashIn", 1))],
    ]
    report = _verified(tmp_path / "log.db", certs, steps)
    assert report.ok, report.first_failure
    [reason] = _findings(report, warnings=True)
    assert "'slip-7' of operator took effect at seq 2 and again at seq 4" in reason


def test_an_id_older_than_what_a_server_remembers_may_come_again(
    tmp_path: Path, certs: Path
) -> None:
    """A terminal's id reused after 32 others (the server no longer remembers it, and runs
    it as a new command) is no finding."""
    steps = [[("T1", RequestApplied("T1", f"r{n % 33}", "Act", 0))] for n in range(34)]
    report = _verified(tmp_path / "log.db", certs, steps)
    assert report.ok and _findings(report, warnings=True) == []
