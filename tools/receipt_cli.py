"""``etg receipt verify FILE``: check a game receipt (``etg recall receipt``).

It runs :func:`tools.verify_receipt.verify_receipt`, the one-file verifier anyone can run
without this project (``python tools/verify_receipt.py FILE``), so that the operator checks
exactly what a player, a journalist or a regulator checks (``docs/shoe-spec.md``).

Exit status: 0 verified; 1 refused (each reason printed, one sentence each); 2 the file
cannot be read as a receipt (one sentence: not JSON, NaN, nesting too deep, a field
missing or of the wrong type, another format: :func:`tools.verify_receipt.load_receipt`).
"""

from __future__ import annotations

from pathlib import Path

import click

from tools.verify_receipt import (
    AGAIN,
    UnreadableReceipt,
    load_receipt,
    qr_sentence,
    verified_sentence,
    verify_receipt,
)


@click.group("receipt", context_settings={"help_option_names": ["-h", "--help"]})
def receipt() -> None:
    """Game receipts: check one (make one with 'etg recall receipt')."""


@receipt.command("verify")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def verify_command(file: Path) -> None:
    """Regenerate the shoe of the receipt in FILE from its revealed seed, check it against
    the commitment and every card at its position (docs/shoe-spec.md)."""
    try:
        data = load_receipt(str(file))
    except UnreadableReceipt as exc:
        click.echo(f"etg: error: cannot read the receipt {file}: {exc}; {AGAIN}", err=True)
        raise click.exceptions.Exit(2) from None
    problems = verify_receipt(data)
    if problems:
        for problem in problems:
            click.echo(f"REFUSED: {problem}")
        raise click.exceptions.Exit(1)
    click.echo(verified_sentence(data))
    click.echo(qr_sentence(data))
