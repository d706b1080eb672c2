"""``etg math WAGER --paytable P --decks D [--json]``: the exact math of a side wager.

Every deal of the cards the wager looks at is counted exactly (see
:mod:`game_server.rules.wagers.math`): per paytable line the number of combinations, the
probability, the pay and its contribution to the return, and the house edge as a fraction
of the wager. ``--all`` prints every paytable and deck count the regulation allows.

Ultimate Texas Hold 'Em (58 Pa. Code 653a.12, one deck, :mod:`game_server.games.uth.rules.math`):
``etg math uth_trips --paytable "Paytable A"`` (exact, every seven-card hand; also
``uth_progressive`` and ``uth_five_card``, fixed lines exact), and ``etg math uth_blind
--paytable "Paytable A" --hands 1000000 --seed 1`` (the Blind needs the dealer's hand and the
player's decisions: a seeded simulation with the near-optimal strategy). ``uth-trips`` is
accepted for ``uth_trips``.
"""

from __future__ import annotations

import json
from typing import Any

import click

from game_server.games.uth.rules.math import (
    UTH_MATH,
    BlindSimulation,
    blind_simulation,
)
from game_server.games.uth.rules.paytables import BLIND_PAYTABLES
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.base import SideWager
from game_server.rules.wagers.math import EXACT, WagerMath, wager_math

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


def format_math(result: WagerMath) -> list[str]:
    """The report as lines of text."""
    lines = [
        f"{result.title} ({result.section}), {result.paytable}, "
        f"{result.decks} deck{'s' * (result.decks != 1)}",
        f"counted: {result.total:,} {result.counted}",
        f"{'line':<36} {'combinations':>18} {'probability':>12} {'pays':>22} {'return':>9}",
    ]
    for line in result.lines:
        if line.line in result.simulated_lines:
            share = "sim"
        elif line.contribution is None:
            share = "meter"
        else:
            share = f"{float(line.contribution):9.5f}"
        lines.append(
            f"{line.line:<36} {line.combinations:>18,} {float(line.probability):>12.8f} "
            f"{line.pays:>22} {share:>9}"
        )
    lines.append(f"{'loses':<36} {result.losing:>18,} {result.losing / result.total:>12.8f}")
    edge = f"house edge {float(result.house_edge) * 100:.4f}%"
    if result.meter_lines:
        edge += " (fixed lines only; the meter lines' return depends on the meter)"
    if result.simulated_lines:
        edge += "; lines marked sim depend on play: see etg sim"
    lines.append(edge)
    return lines


def format_blind(result: BlindSimulation, paytables: list[str]) -> list[str]:
    """The Blind simulation's report as lines of text."""
    lines = [
        "Ultimate Texas Hold 'Em Blind (58 Pa. Code 653a.12(b)), Ante + Blind + Play",
        f"simulated: {result.hands:,} hands, seed {result.seed}, near-optimal strategy "
        f"(river fold rate {result.folds:.4f}, average wager {result.average_wager:.4f} Antes)",
    ]
    for name in paytables:
        lines.append(
            f"{name}: Blind result {result.blind_result[name]:+.5f} "
            f"(+/- {result.blind_error[name]:.5f}) per Ante; "
            f"house edge {-result.hand_result[name] * 100:.3f}% of the Ante "
            f"(+/- {result.hand_error[name] * 100:.3f}%)"
        )
    return lines


def _uth(
    wager: str,
    paytable: str | None,
    decks: int | None,
    every: bool,
    as_json: bool,
    hands: int,
    seed: int,
) -> None:
    """``etg math uth_*``: Ultimate Texas Hold 'Em (one deck, 653a.12)."""
    if decks not in (None, 1):
        raise click.UsageError("Ultimate Texas Hold 'Em is dealt from one 52-card deck (--decks 1)")
    if wager == "uth_blind":
        if every:
            names = list(BLIND_PAYTABLES)
        elif paytable is None:
            raise click.UsageError("give --paytable or --all")
        elif paytable not in BLIND_PAYTABLES:
            choices = ", ".join(f'"{n}"' for n in BLIND_PAYTABLES)
            raise click.BadParameter(f"{paytable!r} is not a Blind paytable; choose {choices}")
        else:
            names = [paytable]
        simulated = blind_simulation(hands, seed)
        if as_json:
            click.echo(json.dumps(simulated.to_json(), indent=2))
            return
        for line in format_blind(simulated, names):
            click.echo(line)
        return
    exact = UTH_MATH.get(wager)
    if exact is None:
        known = ", ".join(sorted([*UTH_MATH, "uth_blind"]))
        raise click.BadParameter(f"no wager {wager!r}; Ultimate Texas Hold 'Em has: {known}")
    if every:
        names = list(exact.paytables)
    elif paytable is None:
        raise click.UsageError("give --paytable, or --all")
    else:
        names = [paytable]
    results = [exact.compute(name) for name in names]  # MathError: etg's exit 2
    _print(results, every, as_json)


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
    help="uth_blind: hands to simulate.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="uth_blind: the seed.")
def math_command(
    wager: str,
    paytable: str | None,
    decks: int | None,
    every: bool,
    as_json: bool,
    hands: int,
    seed: int,
) -> None:
    """Exact house edge of WAGER, line by line (cards-only wagers); for Ultimate Texas
    Hold 'Em, uth_trips, uth_progressive, uth_five_card (exact) and uth_blind (simulated)."""
    if wager.lower().startswith("uth"):
        _uth(wager.lower().replace("-", "_"), paytable, decks, every, as_json, hands, seed)
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
