"""``etg strategy CONFIG [--json]`` for the poker games: the decision rule the par sheet, the
simulator and the bots play, its house edge (exact for Four Card Poker and Caribbean Stud,
simulated for Ultimate Texas Hold 'Em) and the published optimal figure for the same pays."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from game_server.config import example_path
from game_server.games.uth.rules.strategy import DEALER_OUTS_LIMIT
from game_server.games.uth.strategy_report import MEASURED, PUBLISHED
from tools.strategy_cli import strategy_command


def run(*args: str) -> str:
    result = CliRunner().invoke(strategy_command, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(
    ("config", "rule", "edge", "published"),
    [
        ("fourcard.toml", "Play 3x the Ante", "2.7880%", "2.7900%"),
        ("caribbean.toml", "make the Bet Wager", "5.2243%", "5.2240%"),
    ],
)
def test_a_poker_game_prints_its_rule_and_exact_edge(
    config: str, rule: str, edge: str, published: str
) -> None:
    """The text names the rule, the exact house edge by analysis and the published figure."""
    out = run(str(example_path(config)))
    assert rule in out
    assert f"House edge by analysis: {edge} (exact enumeration" in out
    assert f"Published optimal: {published}" in out


def test_four_card_poker_json_holds_the_table_that_decides() -> None:
    """--json carries the table's bytes and the exact fractions; the table decodes to the
    one the bots read."""
    from game_server.games.fourcard.rules.analysis import decode_table
    from game_server.games.fourcard.rules.strategy import table

    data = json.loads(run(str(example_path("fourcard.toml")), "--json"))
    assert decode_table(data["strategy"]["table"]["text"]) == table()
    assert data["analysis"]["precision"].startswith("exact")
    assert data["published"][0]["house_edge"] == 0.0279


def test_caribbean_json_lists_the_exceptions() -> None:
    data = json.loads(run(str(example_path("caribbean.toml")), "--json"))
    exceptions = data["strategy"]["exceptions"]
    assert len(exceptions) == 109
    assert {e["bet"] for e in exceptions} == {True, False}


def test_uth_prints_the_published_strategy_and_its_measured_edge() -> None:
    """No analysed edge: the published strategy with its seeded measurement against the
    published 2.185%, and whether that figure is inside the measurement's 95% interval."""
    out = run(str(example_path("uth.toml")))
    assert "House edge by analysis" not in out
    assert f"fewer than {DEALER_OUTS_LIMIT} of the unseen cards" in out
    assert "Published optimal: 2.1850%" in out
    assert f"{MEASURED.hands:,} hands ({MEASURED.commands})" in out
    assert MEASURED.hands >= 1_000_000
    inside = abs(MEASURED.value - PUBLISHED.house_edge) <= MEASURED.half_width
    assert ("the published figure inside the interval" in out) == inside
    assert ("the published figure outside the interval" in out) != inside
