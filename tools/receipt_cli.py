"""``etg receipt verify FILE``: check a game receipt (``etg recall receipt``).

It runs :func:`tools.verify_receipt.verify_receipt`, the one-file verifier anyone can run
without this project (``python tools/verify_receipt.py FILE``), so that the operator checks
exactly what a player, a journalist or a regulator checks (``docs/shoe-spec.md``).

Exit status: 0 verified; 1 refused (each reason printed, one sentence each); 2 the file
cannot be read as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from tools.verify_receipt import verified_sentence, verify_receipt


@click.group("receipt", context_settings={"help_option_names": ["-h", "--help"]})
def receipt() -> None:
    """Game receipts: check one (make one with 'etg recall receipt')."""


@receipt.command("verify")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def verify_command(file: Path) -> None:
    """Regenerate the shoe of the receipt in FILE from its revealed seed, check it against
    the commitment and every card at its position (docs/shoe-spec.md)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        click.echo(f"etg: error: cannot read the receipt {file}: {exc}", err=True)
        raise click.exceptions.Exit(2) from None
    problems = verify_receipt(data)
    if problems:
        for problem in problems:
            click.echo(f"REFUSED: {problem}")
        raise click.exceptions.Exit(1)
    click.echo(verified_sentence(data))
