"""``etg math WAGER --paytable P --decks D [--json]``: the exact math of a side wager.

Every deal of the cards the wager looks at is counted exactly (see
:mod:`game_server.rules.wagers.math`): per paytable line the number of combinations, the
probability, the pay and its contribution to the return, and the house edge as a fraction
of the wager. ``--all`` prints every paytable and deck count the regulation allows.

A game's own wagers are its math (:meth:`~game_server.games.api.Game.math`: Ultimate Texas
Hold 'Em's ``uth_trips``, ``uth_progressive``, ``uth_five_card`` exact and ``uth_blind``
simulated, ``--hands`` and ``--seed``).
"""

from __future__ import annotations

import json
from typing import Any

import click

from game_server.games import games
from game_server.games.api import NotOffered
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.base import SideWager
from game_server.rules.wagers.math import EXACT, format_math, wager_math

#: Deck counts of the fully automated table (633a.2) when a wager does not restrict them.
DECKS = (1, 2, 4, 6, 8)


def _wager(name: str) -> SideWager:
    wager = REGISTRY.get(name)
    if wager is None:
        known = ", ".join(sorted(EXACT))
        raise click.BadParameter(f"no wager {name!r}; exact math is known for: {known}")
    return wager


def allowed(wager: SideWager) -> list[tuple[str, int]]:
    """Every (paytable, decks) the regulation allows for ``wager``."""
    decks = sorted(wager.allowed_decks) if wager.allowed_decks is not None else list(DECKS)
    pairs = []
    for d in decks:
        if wager.deck_paytables is not None:
            name = wager.deck_paytables.get(d)
            if name is not None:
                pairs.append((name, d))
            continue
        pairs.extend((name, d) for name in wager.paytables)
    return pairs


def _print(results: list[Any], every: bool, as_json: bool) -> None:
    """Each result's table (a blank line between two), or JSON: a list with ``--all``."""
    if as_json:
        data: Any = [r.to_json() for r in results] if every else results[0].to_json()
        click.echo(json.dumps(data, indent=2))
        return
    for i, result in enumerate(results):
        if i:
            click.echo("")
        for line in format_math(result):
            click.echo(line)


@click.command("math")
@click.argument("wager")
@click.option("--paytable", help='The paytable as the regulation names it ("Paytable A").')
@click.option("--decks", type=click.IntRange(1, 8), help="Decks in the shoe.")
@click.option("--all", "every", is_flag=True, help="Every paytable and deck count allowed.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--hands",
    type=click.IntRange(1),
    default=1_000_000,
    show_default=True,
    help="A game's simulated wager (uth_blind): hands to simulate.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="A simulated wager: the seed.")
def math_command(
    wager: str,
    paytable: str | None,
    decks: int | None,
    every: bool,
    as_json: bool,
    hands: int,
    seed: int,
) -> None:
    """Exact house edge of WAGER, line by line (cards-only wagers); a game's own wagers by its
    math (Ultimate Texas Hold 'Em: uth_trips, uth_progressive, uth_five_card exact and
    uth_blind simulated)."""
    for game in games():
        try:
            report = game.math(wager, paytable, decks, every, hands, seed)
        except NotOffered as exc:
            raise click.UsageError(str(exc)) from None
        if report is not None:
            if as_json:
                click.echo(json.dumps(report.data, indent=2))
            else:
                for line in report.lines:
                    click.echo(line)
            return
    side = _wager(wager)
    if every:
        pairs = allowed(side)
    else:
        if paytable is None or decks is None:
            raise click.UsageError("give --paytable and --decks, or --all")
        pairs = [(paytable, decks)]
    results = [wager_math(side, name, d) for name, d in pairs]  # MathError: etg's exit 2
    _print(results, every, as_json)
