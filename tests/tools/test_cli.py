"""The ``etg`` command: sim, demo, bench and how errors reach the operator."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from game_server.config import example_config_path
from tools.bench import BenchSizes, format_bench, run_bench
from tools.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _config(tmp_path: Path, old: str, new: str) -> Path:
    """The example config with one piece of text replaced, written to ``tmp_path``."""
    text = example_config_path().read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "table.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_sim_json_has_exactly_the_documented_shape(runner: CliRunner) -> None:
    """--json prints rounds and, per wager, its totals, the return per amount wagered (rtp)
    and the house edge per initial wager, each with its interval clustered by round, the
    element of risk, hit frequency, standard deviation per initial unit and line counts."""
    result = runner.invoke(main, ["sim", "--rounds", "300", "--seats", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"rounds", "wagers"}
    assert data["rounds"] == 300
    assert set(data["wagers"]) == {"blackjack", "lucky_aces"}
    for stats in data["wagers"].values():
        assert set(stats) == {
            "placed",
            "rounds",
            "initial",
            "wagered",
            "paid",
            "rtp",
            "ci95",
            "house_edge_per_initial_wager",
            "house_edge_ci95",
            "element_of_risk",
            "hit_frequency",
            "sd_per_initial",
            "lines",
        }
        assert isinstance(stats["wagered"], int) and isinstance(stats["paid"], int)
        assert (stats["placed"], stats["rounds"]) == (600, 300)
        assert stats["rtp"] == pytest.approx(stats["paid"] / stats["wagered"])
        low, high = stats["ci95"]
        assert low <= stats["rtp"] <= high
        edge = stats["house_edge_per_initial_wager"]
        assert edge == pytest.approx((stats["wagered"] - stats["paid"]) / stats["initial"])
        low, high = stats["house_edge_ci95"]
        assert low <= edge <= high
        assert stats["element_of_risk"] == pytest.approx(1 - stats["rtp"])
        assert 0 < stats["hit_frequency"] < 1 and stats["sd_per_initial"] > 0
        assert all(isinstance(n, int) for n in stats["lines"].values())
    lucky = data["wagers"]["lucky_aces"]
    assert lucky["wagered"] == lucky["initial"] == 300 * 2 * 100
    blackjack = data["wagers"]["blackjack"]
    assert blackjack["wagered"] > blackjack["initial"] == 300 * 2 * 500  # doubles and splits


def test_sim_is_the_same_with_one_or_two_workers(runner: CliRunner) -> None:
    """A seed gives the same figures with --workers 1 and 2 (2,000 rounds in 4 chunks)."""
    args = ["sim", "--rounds", "2000", "--seats", "3", "--seed", "11", "--chunk-rounds", "500"]
    one = runner.invoke(main, [*args, "--workers", "1", "--json"])
    two = runner.invoke(main, [*args, "--workers", "2", "--json"])
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert json.loads(one.stdout) == json.loads(two.stdout)
    again = runner.invoke(main, [*args, "--json"])
    assert again.stdout == one.stdout


def test_sim_prints_an_aligned_table_with_money(runner: CliRunner) -> None:
    """The human report lists each wager with dollars and its RTP."""
    result = runner.invoke(main, ["sim", "--rounds", "200", "--seats", "1", "--wager", "25"])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.startswith("Wager"))
    assert "RTP" in header and "95% CI" in header
    row = next(line for line in result.stdout.splitlines() if line.startswith("blackjack "))
    assert re.search(r"\$[\d,]+\.\d\d", row)
    assert "lucky_aces: paytable lines" in result.stdout


def test_demo_shows_cards_decisions_the_dealer_and_settlements(runner: CliRunner) -> None:
    """Two rounds with no delay show the seats' cards, the dealer and settled lines."""
    result = runner.invoke(
        main, ["demo", "--rounds", "2", "--seats", "2", "--seed", "3", "--delay", "0"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "--- Round 1" in out and "--- Round 2" in out
    assert re.search(r"^Seat 1: \S+ \S+ \(", out, re.MULTILINE)
    assert re.search(r"^Dealer: \S+ \[hole card\]$", out, re.MULTILINE)
    assert re.search(r"^Seat \d( hand \d)? Blackjack: .+, (pays|loses|\$)", out, re.MULTILINE)
    assert re.search(r"^Seat \d Lucky Aces: .+, (pays|loses)", out, re.MULTILINE)
    assert "Summary of 2 rounds" in out


def test_demo_deals_fresh_certified_shoes_without_a_seed(runner: CliRunner) -> None:
    """Without --seed the demo seeds its shoes from the OS entropy source."""
    result = runner.invoke(main, ["demo", "--rounds", "1", "--delay", "0"])
    assert result.exit_code == 0, result.output
    assert "fresh certified shoes" in result.stdout


def test_a_bad_rules_submission_exits_2_with_one_line_per_problem(
    runner: CliRunner, tmp_path: Path
) -> None:
    """Every problem of the config is one line on stderr, no traceback, exit status 2."""
    path = _config(tmp_path, "cut_card = 234", "cut_card = 20")
    path.write_text(
        path.read_text(encoding="utf-8").replace("decision_seconds = 15", "decision_seconds = 1"),
        encoding="utf-8",
    )
    result = runner.invoke(main, ["sim", "--config", str(path), "--rounds", "10"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2
    assert any("table.cut_card" in line for line in lines)
    assert any("timers.decision_seconds" in line for line in lines)
    assert all(line.startswith("etg: error: ") for line in lines)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_missing_config_file_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    """A config path that does not exist is reported, not raised."""
    result = runner.invoke(main, ["demo", "--config", str(tmp_path / "none.toml")])
    assert result.exit_code == 2
    assert "cannot read the Rules Submission" in result.stderr


def test_more_seats_than_the_table_has_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    """--seats beyond the Rules Submission's seats exits 2 with the table's seat count."""
    path = _config(tmp_path, "seats = 7", "seats = 3")
    result = runner.invoke(main, ["sim", "--config", str(path), "--seats", "5"])
    assert result.exit_code == 2
    assert "has 3 seats" in result.stderr


def test_python_dash_m_tools_runs_the_command() -> None:
    """``python -m tools`` is the same ``etg`` command."""
    done = subprocess.run(
        [sys.executable, "-m", "tools", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for command in ("sim", "demo", "bench"):
        assert command in done.stdout


def test_bench_runs_end_to_end_at_a_tiny_size() -> None:
    """A smoke test: the benchmark returns its four figures and details (no timing checked)."""
    work = {
        "engine_vs_blackjack21": 50,
        "full_seat_rounds_per_s": 20,
        "shuffle_vs_systemrandom": 1,
        "uth_rank7_vs_best_of": 30,
    }
    figures = run_bench(BenchSizes(work), repeats=1)
    assert set(figures) == {
        "engine_vs_blackjack21",
        "full_seat_rounds_per_s",
        "shuffle_vs_systemrandom",
        "uth_rank7_vs_best_of",
        "details",
    }
    assert figures["details"]["uth_evaluator"]["hands_per_sample"] == 30
    assert figures["details"]["full_seat"]["side_wagers"] == ["lucky_aces"]
    assert "engine_vs_blackjack21" in format_bench(figures)


def _commands(command: click.Command, path: tuple[str, ...]) -> list[tuple[str, click.Command]]:
    found = [(" ".join(path), command)]
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            found += _commands(sub, (*path, name))
    return found


@pytest.mark.parametrize(("path", "command"), _commands(main, ("etg",)))
def test_every_help_page_is_plain_text_and_every_option_is_explained(
    path: str, command: click.Command, runner: CliRunner
) -> None:
    """``--help`` of every command shows no Sphinx markup (``:mod:`...```) and explains
    every option (a newcomer reads these pages first)."""
    args = path.split()[1:]
    shown = runner.invoke(main, [*args, "--help"])
    assert shown.exit_code == 0, shown.output
    assert not re.search(r":(mod|func|class|meth|attr|data):`", shown.output), shown.output
    unexplained = [
        param.opts[0]
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not param.help
    ]
    assert unexplained == [], f"{path}: options without help: {unexplained}"


def test_version_names_the_package(runner: CliRunner) -> None:
    """``etg --version`` prints the installed version and the commit (tests/tools/
    test_version.py)."""
    from importlib.metadata import version

    shown = runner.invoke(main, ["--version"])
    assert shown.exit_code == 0
    assert shown.output.startswith(f"etg {version('etg')} (commit ")


def test_etg_configs_lists_every_shipped_rules_submission_with_its_path(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a wheel install nothing listed the packaged Rules Submissions (`etg par
    fourcard.toml`: "No such file"): `etg configs` lists each with its game and its path,
    `etg configs --path NAME` prints the path to copy, and a missing file named like a
    shipped one says where that one is."""
    from game_server.config import example_paths

    done = runner.invoke(main, ["configs"])
    assert done.exit_code == 0, done.output
    for path in example_paths():
        assert re.search(rf"^{re.escape(path.name)} +\S.*\(", done.output, re.M), path.name
        assert re.search(rf"^ +{re.escape(str(path))}$", done.output, re.M), path
    assert "Four Card Poker" in done.output and "Ultimate Texas Hold 'Em" in done.output
    shipped = next(p for p in example_paths() if p.name == "fourcard.toml")
    done = runner.invoke(main, ["configs", "--path", "fourcard.toml"])
    assert (done.exit_code, done.output) == (0, f"{shipped}\n")
    done = runner.invoke(main, ["configs", "--path", "fourcrad.toml"])
    assert done.exit_code == 2 and "fourcard.toml" in done.output
    monkeypatch.chdir(tmp_path)
    done = runner.invoke(main, ["par", "fourcard.toml"])
    assert done.exit_code == 2
    assert f"No such file or directory; check the path; the shipped fourcard.toml is {shipped}" in (
        done.output
    )
    done = runner.invoke(main, ["par", "nope.toml"])
    assert "'etg configs' lists the shipped Rules Submissions" in done.output
