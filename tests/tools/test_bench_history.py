"""``etg bench --record``: the benchmark history gets one line per run, with its commit."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from tools.bench import record_history
from tools.cli import main


def test_record_history_appends_one_line_per_run(tmp_path: Path) -> None:
    path = tmp_path / "bench-history.jsonl"
    figures = {"engine_vs_blackjack21": 2.5, "details": {"repeats": 7}}
    record_history(figures, path=path)
    record_history({"engine_vs_blackjack21": 2.4, "details": {}}, quick=True, path=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["figures"] for line in lines] == [
        {"engine_vs_blackjack21": 2.5},
        {"engine_vs_blackjack21": 2.4},
    ]
    assert lines[0]["details"] == {"repeats": 7}
    assert [line["quick"] for line in lines] == [False, True]
    for line in lines:
        assert line["commit"] is None or re.fullmatch(r"[0-9a-f]{40}", line["commit"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", line["at"])


def test_bench_work_command_prints_every_case_within_budget() -> None:
    result = CliRunner().invoke(main, ["bench", "work", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["over_budget"] == []
    assert set(data["counts"]) >= {"blackjack_1_seat", "blackjack_7_seats", "uth_6_seats"}
