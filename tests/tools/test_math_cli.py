"""``etg math``: the report and its JSON, and refusals with exit status 2."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tools.cli import main


def test_json_has_the_lines_and_the_house_edge() -> None:
    result = CliRunner().invoke(
        main, ["math", "lucky_aces", "--paytable", "Paytable A", "--decks", "6", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["wager"], data["paytable"], data["decks"]) == ("lucky_aces", "Paytable A", 6)
    assert data["lines"][0]["line"] == "4 Aces"
    assert abs(data["house_edge"] - 0.195674) < 1e-6
    assert sum(line["combinations"] for line in data["lines"]) + data["losing"] == data["total"]


def test_text_report_and_every_allowed_paytable() -> None:
    result = CliRunner().invoke(main, ["math", "lucky_aces", "--all"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("house edge") == 4 * 5  # 4 paytables x 1, 2, 4, 6, 8 decks
    assert "house edge 19.5674%" in result.stdout


def test_refusals() -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["math", "lucky_aces", "--paytable", "Paytable Z", "--decks", "6"])
    assert bad.exit_code == 2 and "is not a Lucky Aces paytable" in bad.output
    none = runner.invoke(main, ["math", "no_such_wager", "--all"])
    assert none.exit_code == 2 and "no wager" in none.output
    missing = runner.invoke(main, ["math", "lucky_aces"])
    assert missing.exit_code == 2 and "--paytable and --decks" in missing.output
