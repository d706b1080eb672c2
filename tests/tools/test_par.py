"""``etg par``: the par sheet of every shipped Rules Submission, built with a short
simulation (the exact figures do not depend on it), in Markdown and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from game_server.config import TableConfig, example_path, example_paths, load_config
from game_server.games import game_for
from game_server.games.uth.config import rules_of
from tools.cli import main
from tools.par import par_sheet

PATHS = example_paths()


def offered_wagers(config: TableConfig) -> set[str]:
    """The optional wagers a Rules Submission offers, read from its rules."""
    if rules_of(config) is not None:
        return {"trips", "progressive", "five_card_player", "five_card_dealer"}
    if hasattr(config.rules, "side_wagers"):
        return {o.wager.name for o in config.rules.side_wagers} | {"insurance"}
    # another game: the optional wagers it says it offers (the Game contract)
    offered = {r.wager for r in game_for(config).optional_returns(config)}
    assert offered, f"{config.table_id} offers no optional wager to state"
    return offered


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_every_shipped_rules_submission_has_a_par_sheet_under_100_percent(path: Path) -> None:
    """Each example's par sheet states every wager the table offers, each returning under
    100% in the long run, each line with its probability and paragraph, the main game's
    house edge per initial wager and element of risk with their intervals, and the hold."""
    config = load_config(path)
    sheet = par_sheet(config, rounds=400, seed=3)
    offered = offered_wagers(config)
    assert {w.wager for w in sheet.wagers} == offered
    for ret in sheet.wagers:
        assert 0 < ret.long_run < 1, ret.wager
        assert ret.method == "exact" or ret.par is not None
        if ret.par is None:
            assert ret.lines and all(line.cite.startswith("58 Pa. Code") for line in ret.lines)
            assert sum(line.probability or 0 for line in ret.lines) <= 1 + 1e-9
    main = sheet.main
    assert main.rounds == 400 and main.interval is not None and main.risk_interval is not None
    assert main.interval[0] < main.house_edge < main.interval[1]
    assert main.average_wager >= 1
    assert sheet.hold_per_round("maximum") > sheet.hold_per_round("minimum") > 0
    text = sheet.to_markdown()
    assert text.startswith(f"# Par sheet: {config.table_id}")
    for ret in sheet.wagers:
        assert f"## {ret.title} ({ret.section})" in text
    assert "## Expected hold at the configured limits" in text
    data = json.loads(json.dumps(sheet.to_json()))
    assert data["config_hash"] == config.config_hash()
    assert [w["wager"] for w in data["wagers"]] == [w.wager for w in sheet.wagers]
    assert all(w["return"] < 1 for w in data["wagers"])


def test_a_par_sheet_is_the_same_for_a_seed_and_shows_meters_and_checks() -> None:
    """The same seed gives the same sheet; a meter wager has its break-even meter, and an
    exact wager without a meter has the simulation's figure beside it."""
    config = load_config(example_path("fully-automated-all-side-wagers.toml"))
    one = par_sheet(config, rounds=300, seed=5).to_json()
    assert one == par_sheet(config, rounds=300, seed=5).to_json()
    wagers = {w["wager"]: w for w in one["wagers"]}
    meters = wagers["super_4"]["meters"]
    assert [m["meter"] for m in meters] == [
        "Star Progressive",
        "Heart Progressive",
        "Spade Progressive",
    ]
    assert all(m["break_even_meter"] > m["reset"] for m in meters)
    assert wagers["lucky_aces"]["simulation_check"]["placed"] == 300
    assert wagers["blazing_7s"]["simulation_check"] is None  # a meter: not comparable
    assert wagers["axman"]["method"] == "par sheet"
    assert wagers["axman"]["par_figure"]["rounds"] >= 1_000_000


def test_etg_par_writes_markdown_or_json_to_a_file(tmp_path: Path) -> None:
    """``etg par CONFIG --out FILE`` writes the Markdown; with ``--json`` the JSON."""
    runner = CliRunner()
    config = str(example_path("uth.toml"))
    out = tmp_path / "par.md"
    result = runner.invoke(main, ["par", config, "--rounds", "200", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("# Par sheet: UTH-01")
    assert "Magic Card with a winning hand" in out.read_text()
    result = runner.invoke(main, ["par", config, "--rounds", "200", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["main_game"]["initial_wager"] == "Ante"
    assert data["simulation"] == {"rounds": 200, "seed": 1, "seats": 1}


def test_etg_par_refuses_a_rules_submission_the_guard_refuses(tmp_path: Path) -> None:
    """A Rules Submission the player-edge guard refuses has no par sheet: exit status 2 and
    the problem, with the figure, on stderr."""
    text = (example_path("uth.toml")).read_text()
    path = tmp_path / "every-hand.toml"
    path.write_text(text.replace('bonus_on = "winning-hand"', 'bonus_on = "every-hand"'))
    result = CliRunner().invoke(main, ["par", str(path), "--rounds", "200"])
    assert result.exit_code == 2
    assert "uth.five_card.bonus_on" in result.stderr and "129.70%" in result.stderr


def test_etg_par_refuses_an_out_file_in_a_missing_folder_before_simulating(tmp_path: Path) -> None:
    """A bad ``--out`` is refused at once (status 2), not after the simulation."""
    out = tmp_path / "missing" / "par.md"
    result = CliRunner().invoke(
        main, ["par", str(example_path("uth.toml")), "--rounds", "1000000", "--out", str(out)]
    )
    assert result.exit_code == 2
    assert "its folder does not exist" in result.stderr and not out.exists()
