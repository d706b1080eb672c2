"""``etg loadtest``: the bots' decisions from a view, the figures, and one real short run.

The real run starts the server and the bots in a subprocess (a Twisted reactor runs once per
process) and checks the JSON figures; it asserts no timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from game_server.config import example_config_path, load_config
from game_server.games.blackjack.bot import card_value, decide
from game_server.games.blackjack.rules.strategy import BasicStrategy
from tools.loadtest import tables_for, worker_operators
from tools.loadtest_bots import BotRun
from tools.loadtest_figures import (
    LoadtestResult,
    format_report,
    full_load_figures,
    latency_summary,
    percentile,
    worker_figures,
)
from tools.loadtest_server import LoadtestError, start_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def strategy() -> BasicStrategy:
    return BasicStrategy(load_config(example_config_path()).rules)


def _view(cards: list[str], total: int, soft: bool, up: str, actions: list[str]) -> dict[str, Any]:
    return {
        "phase": "playing",
        "to_act": {"seat": 1, "hand": 0},
        "actions": actions,
        "dealer": {"cards": [up, {"hidden": True}]},
        "seats": [
            {"seat": 2, "mine": False, "wagers": {"blackjack": 500}, "hands": []},
            {
                "seat": 1,
                "mine": True,
                "wagers": {"blackjack": 500},
                "hands": [{"index": 0, "cards": cards, "total": total, "soft": soft}],
            },
        ],
    }


def test_tables_seat_seven_terminals_each() -> None:
    assert [tables_for(n) for n in (1, 7, 8, 14, 15, 200)] == [1, 1, 2, 2, 3, 29]


def test_card_values_count_aces_as_one_and_faces_as_ten() -> None:
    assert [card_value(c) for c in ("AS", "TD", "KH", "QC", "JS", "7C", "2H")] == [
        1,
        10,
        10,
        10,
        10,
        7,
        2,
    ]


def test_bots_play_basic_strategy_within_the_legal_actions(strategy: BasicStrategy) -> None:
    # Hard 11 against a 6: double when it is legal, else hit.
    assert decide(_view(["5S", "6D"], 11, False, "6H", ["double", "hit", "stand"]), strategy) == (
        "double"
    )
    assert decide(_view(["5S", "6D"], 11, False, "6H", ["hit", "stand"]), strategy) == "hit"
    # A pair of eights splits; hard 16 against a ten hits (no surrender here).
    assert (
        decide(_view(["8S", "8D"], 16, False, "TH", ["double", "hit", "split", "stand"]), strategy)
        == "split"
    )
    assert decide(_view(["9S", "7D"], 16, False, "KH", ["hit", "stand"]), strategy) == ("hit")
    # Hard 17 stands; no actions (not our turn): no decision.
    assert decide(_view(["TS", "7D"], 17, False, "AH", ["hit", "stand"]), strategy) == "stand"
    assert decide(_view(["TS", "7D"], 17, False, "AH", []), strategy) is None


def test_latency_summary_in_milliseconds() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0
    summary = latency_summary([0.001 * n for n in range(1, 101)])
    assert summary == {"p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0}
    assert latency_summary([]) == {"p50": None, "p95": None, "p99": None, "max": None}


def test_the_report_names_the_targets() -> None:
    result = LoadtestResult(terminals=3, tables=1, rounds_target=2, rounds=2)
    result.latency_ms = latency_summary([0.002, 0.004])
    text = format_report(result)
    assert "target <= 50 ms" in text and "target <= 500 MB" in text
    assert "bots' CPU" in text and "bots' peak RSS" in text and "own process group" in text
    assert "playing at the end" in text  # none of the 3 said Hello in this made-up result
    result.terminals_playing = 3
    assert "playing at the end" not in format_report(result)


def test_the_latencies_at_full_load_leave_out_the_cash_in_ramp() -> None:
    """Only commands sent once the last bot played count at full load; a run that never had
    every bot playing has no full-load figures, and the report says so."""
    run = BotRun(rounds=10, bot=lambda: None, terminals=2)  # type: ignore[arg-type,return-value]
    run.joined(_Quiet(), {})
    assert run.full_at is None and full_load_figures(run) is None
    result = LoadtestResult(terminals=2, tables=1, rounds_target=10, rounds=1)
    assert "never: the run stopped before all 2 bots played" in format_report(result)
    run.joined(_Quiet(), {})
    assert run.full_at is not None
    run.full_latencies.extend([0.010, 0.030, 0.070])
    run.stopped_at = run.full_at + 12.5
    full = full_load_figures(run)
    assert full == {
        "latency_ms": {"p50": 30.0, "p95": 70.0, "p99": 70.0, "max": 70.0},
        "samples": 3,
        "seconds": 12.5,
    }
    result.full_load = full
    text = format_report(result)
    assert "12.5 s, 3 answers timed (all 2 bots playing)" in text
    assert "70.0 ms   target <= 50 ms  MISSED" in text


class _Quiet:
    """A bot that takes its first view and does nothing."""

    def got(self, view: dict[str, object]) -> None:
        pass


def test_with_workers_the_report_gives_each_workers_own_figures() -> None:
    """Quantiles of several workers cannot be merged from their summaries: the report gives
    each worker's command times and log commits, and says which worker gave no meters."""
    meters = {
        "commands": {"PlaceWagers": {"p50_us": 3100, "p99_us": 12400}},
        "event_log": {
            "writing_behind": True,
            "transactions": 40,
            "writes": 100,
            "commit": {"p50_us": 900, "p99_us": 4000},
        },
    }
    result = LoadtestResult(terminals=14, tables=2, rounds_target=2, rounds=2, workers=3)
    result.worker_figures = [worker_figures(meters), worker_figures(None), worker_figures({})]
    assert result.worker_figures[0] == {
        "server_latency_ms": {"PlaceWagers": {"p50": 3.1, "p99": 12.4}},
        "log_commits": {
            "writing_behind": True,
            "transactions": 40,
            "writes": 100,
            "writes_per_transaction": 2.5,
            "commit_p50_ms": 0.9,
            "commit_p99_ms": 4.0,
        },
    }
    lines = format_report(result).splitlines()
    assert any(
        "worker 1: PlaceWagers in the server" in line and "3.1 / 12.4 ms" in line for line in lines
    )
    assert any(
        "worker 1: log commits" in line and "40 transactions, 2.5 steps each" in line
        for line in lines
    )
    assert any("worker 2" in line and "the worker gave no meters" in line for line in lines)
    assert not any("worker 3:" in line for line in lines)  # it answered, with nothing timed


def test_a_connection_cut_by_the_runs_stop_is_no_error_but_one_before_it_is() -> None:
    """A bot still connecting, or a command in flight, when the run stops (its rounds reached
    during the cash-in ramp) fails with ConnectError or ConnectionDone: not counted. The same
    failure before the stop is a real error and counts as unexpected."""
    from twisted.internet.error import ConnectError, ConnectionDone
    from twisted.python.failure import Failure

    run = BotRun(1, lambda: None)  # type: ignore[arg-type,return-value]
    assert run.error(Failure(ConnectError("refused"))) == "ConnectError"
    assert run.unexpected == 1
    run.stopping = True
    for cut in (ConnectError("cut"), ConnectionDone()):
        assert run.error(Failure(cut)) == "STOPPED"
    assert run.unexpected == 1 and dict(run.errors) == {"ConnectError": 1}


def test_a_server_that_does_not_start_is_an_error_with_its_output(tmp_path: Path) -> None:
    config = tmp_path / "broken.toml"
    config.write_text("[table]\n")
    with pytest.raises(LoadtestError, match="did not start"):
        start_server(tmp_path, tmp_path / "no-certs", config, tables=1)


@pytest.mark.slow
def test_a_short_run_against_the_real_server_reports_its_figures() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-m", "tools.loadtest", "--terminals", "3", "--rounds", "2", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["terminals"] == 3 and figures["tables"] == 1
    assert figures["rounds"] >= 2
    assert figures["stopped_by"] == "rounds"
    assert figures["latency_samples"] > 0
    for key in ("p50", "p95", "p99", "max"):
        assert figures["latency_ms"][key] > 0
    assert figures["commands_sent"] >= figures["latency_samples"]
    assert figures["server_peak_rss_mb"] > 0
    assert figures["server_cpu_s"] >= 0
    assert figures["unexpected_errors"] == 0, figures["errors"]
    # The server's own measure: no more than what the bots saw (8% bucket edges aside).
    inside = figures["server_latency_ms"]["PlaceWagers"]
    assert 0 < inside["p50"] <= figures["latency_by_command_ms"]["PlaceWagers"]["p99"] * 1.08
    commits = figures["log_commits"]
    assert commits["writing_behind"] and commits["transactions"] >= 1
    full = figures["full_load"]  # the 3 bots play within the first round's betting time
    assert full is not None and 0 <= full["samples"] <= figures["latency_samples"]
    assert full["seconds"] > 0
    assert commits["writes"] >= commits["transactions"]


def test_with_workers_each_worker_gets_an_operator_for_its_terminals() -> None:
    """--workers 2 over four tables: one operator connection routed to a table of each
    worker, cashing in the terminals of that worker's tables; one worker: one for all."""
    config = load_config(example_config_path())
    assert worker_operators(config, 4, 28, 1) is None
    found = worker_operators(config, 4, 26, 2)
    assert found is not None
    first = [f"T{i}" for i in [*range(1, 8), *range(15, 22)]]
    second = [f"T{i}" for i in [*range(8, 15), *range(22, 27)]]
    assert found == [("BJ-01-1", first), ("BJ-01-2", second)]


@pytest.mark.slow
def test_a_short_run_with_two_workers_plays_at_every_table() -> None:
    """etg loadtest --workers 2: bots at tables in both workers complete rounds without an
    unexpected error, and the server's CPU counts the workers'."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "tools.loadtest", "--terminals", "14", "--rounds", "6"]
    done = subprocess.run(
        [*command, "--workers", "2", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["workers"] == 2 and figures["tables"] == 2
    assert figures["rounds"] >= 6 and figures["stopped_by"] == "rounds"
    assert figures["games_played_meter"] >= 6  # summed over both workers' meters
    assert len(figures["worker_figures"]) == 2 and figures["server_latency_ms"] == {}
    for worker in figures["worker_figures"]:
        assert worker["server_latency_ms"]["PlaceWagers"]["p50"] > 0
        assert worker["log_commits"]["transactions"] >= 1
    assert figures["unexpected_errors"] == 0, figures["errors"]
    assert figures["server_cpu_s"] > 0


def test_the_loadtest_refuses_more_terminals_than_one_server_seats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``etg loadtest`` and ``etg serve`` share their limit (issue 13, item 9): one server
    hosts at most MAX_TABLES tables of 7 seats (150 since issue 22), so 1,051 terminals are
    refused with a sentence naming the limit before anything starts, and 1,050 are
    accepted."""
    from click.testing import CliRunner

    import tools.loadtest
    from game_server.cli import serve_command
    from game_server.net.floor import MAX_TABLES, MAX_TERMINALS

    assert (MAX_TABLES, MAX_TERMINALS) == (150, 1050)
    started: list[int] = []
    monkeypatch.setattr(
        tools.loadtest,
        "run_loadtest",
        lambda terminals, *_args, **_kwargs: (
            started.append(terminals) or LoadtestResult(terminals, 1, 1)
        ),
    )
    refused = CliRunner().invoke(tools.loadtest.loadtest, ["--terminals", "1051"])
    assert refused.exit_code == 2 and started == []
    sentence = " ".join(refused.output.split())
    assert "1051 terminals need 151 tables" in sentence
    assert "at most 150 tables of 7 seats (1050 terminals)" in sentence
    CliRunner().invoke(tools.loadtest.loadtest, ["--terminals", "1050"])
    assert started == [1050] and tables_for(1050) == MAX_TABLES
    tables = next(p for p in serve_command.params if p.name == "tables")
    assert getattr(tables.type, "max", None) == MAX_TABLES


@pytest.mark.parametrize("answer_seconds", [0.0, 0.0005, 0.005, 0.05])
def test_the_operators_pace_is_never_refused_by_the_servers_rate_limit(
    answer_seconds: float,
) -> None:
    """The operator's cash-ins, paced by a bucket of its own (OPERATOR_PACE of the server's
    rate, the burst less Hello's token), are never refused by the server's bucket, however
    fast the server answers. Before, the operator ran into the limit and retried every 0.1 s:
    on a quiet machine it was dropped as a flood (3 x burst refusals without a pause) after
    about 300 cash-ins, and each later one failed with ConnectionDone (issue 22)."""
    from twisted.internet.task import Clock

    from game_server.net.floor import NetLimits
    from game_server.net.wire import TokenBucket
    from tools.loadtest_bots import OPERATOR_PACE

    limits = NetLimits()
    clock = Clock()
    server = TokenBucket(clock, limits.commands_per_second, limits.burst)
    assert server.take()  # Hello
    rate = limits.commands_per_second * OPERATOR_PACE
    pace = TokenBucket(clock, rate, limits.burst - 2)
    cashed = 0
    while cashed < 1050:
        if not pace.take():
            clock.advance(1.0 / rate)
            continue
        assert server.take(), f"refused after {cashed} cash-ins"
        clock.advance(answer_seconds)
        cashed += 1
