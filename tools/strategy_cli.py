"""``etg strategy CONFIG [--json]``: the strategy a Rules Submission's par sheet assumes.

The game states it (:meth:`~game_server.games.api.Game.strategy`): the chart of a twenty-one
game derived by its combinatorial analysis, the decision rule of a poker game, with the house
edge it gives by analysis where the game computes one and the published optimal figures for
the same rules. ``etg par`` names the same strategy, and the simulator and the bots play it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from game_server.config import load_config
from game_server.games import game_for
from game_server.games.api import NotOffered, StrategyReport

__all__ = ["strategy_command", "strategy_text"]


def strategy_text(report: StrategyReport) -> list[str]:
    """The report for people."""
    out = [report.name, "", report.derivation, ""]
    out += report.lines
    analysis = report.analysis
    if analysis is not None:
        out += [
            "",
            f"House edge by analysis: {100 * analysis.house_edge:.4f}% "
            f"({analysis.method}; {analysis.precision})",
        ]
    for figure in report.published:
        out.append(
            f"Published optimal: {100 * figure.house_edge:.4f}% for {figure.rules} "
            f"({figure.source})"
        )
    if report.differences:
        out += ["", "Where it departs from the published chart:"]
        out += [f"- {line}" for line in report.differences]
    return out


@click.command("strategy")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the strategy as JSON.")
def strategy_command(config_path: Path, as_json: bool) -> None:
    """Print the strategy the par sheet of the Rules Submission CONFIG assumes, the one the
    simulator and the bots play: a twenty-one game's chart from its combinatorial analysis,
    a poker game's decision rule, with the house edge by analysis and the published optimal
    figure for the same rules."""
    config = load_config(config_path)
    try:
        report = game_for(config).strategy(config)
    except NotOffered as exc:
        raise click.UsageError(str(exc)) from None
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        for line in strategy_text(report):
            click.echo(line)
