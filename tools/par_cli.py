"""``etg par CONFIG [--json] [--out FILE]``: the par sheet of a Rules Submission.

The work is :func:`tools.par.par_sheet`; this module loads the Rules Submission (a refused one
exits with status 2, every problem on stderr), shows a progress bar on a terminal while the
main game is simulated, and writes the sheet as Markdown, or as JSON with ``--json``, to
standard output or to ``--out FILE``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from game_server.config import load_config
from tools.par import DEFAULT_ROUNDS, DEFAULT_SEED, par_sheet


@click.command("par")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write the par sheet as JSON.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the par sheet to this file instead of standard output.",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=2),
    default=DEFAULT_ROUNDS,
    show_default=True,
    help="Rounds of the main game to simulate (one seat, a new shoe every round).",
)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="The seed.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes; the figures do not depend on it.",
)
def par_command(
    config_path: Path, as_json: bool, out: Path | None, rounds: int, seed: int, workers: int
) -> None:
    """Write the par sheet of the Rules Submission CONFIG: every wager's house edge (exact or
    simulated), its lines with their probability, contribution and paragraph, hit frequency
    and standard deviation, meters and break-even meters, the main game's house edge and
    element of risk, and the table's expected hold at the configured limits."""
    config = load_config(config_path)
    if out is not None and not out.resolve().parent.is_dir():
        raise click.BadParameter(f"{out}: its folder does not exist", param_hint="'--out'")
    if sys.stderr.isatty():
        with click.progressbar(length=rounds, label="Simulating", file=sys.stderr) as bar:
            sheet = par_sheet(config, rounds, seed, workers, progress=bar.update)
    else:
        sheet = par_sheet(config, rounds, seed, workers)
    text = json.dumps(sheet.to_json(), indent=2) + "\n" if as_json else sheet.to_markdown()
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise click.BadParameter(f"cannot write {out}: {reason}", param_hint="'--out'") from None
    click.echo(f"par sheet of {config.table_id} written to {out}", err=True)
