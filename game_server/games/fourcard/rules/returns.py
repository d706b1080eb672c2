"""What Four Card Poker's paytable wagers return, exactly (off one 52-card deck, counted by
:mod:`.math`): Aces Up, the Four-Card and the Five-Card Progressive Payout Wagers with their
meters, their Envy Bonuses at a full table (641a.1) and the Must-Hit-By Mystery Bonus they
feed (641b.1). The player-edge guard of the
Rules Submission reads them, and ``etg par`` states them.

Entry point: :func:`fourcard_returns`.
"""

from __future__ import annotations

from fractions import Fraction

from game_server.games.fourcard.rules.events import (
    ACES_UP,
    FIVE_CARD_PROGRESSIVE,
    FOUR_CARD_PROGRESSIVE,
)
from game_server.games.fourcard.rules.math import five_card_counts, four_card_counts
from game_server.games.fourcard.rules.rules import FourCardRules, ProgressiveOffer
from game_server.rules.returns import WagerReturn, assemble
from game_server.rules.wagers.base import Paytable
from shared.money import Fixed

__all__ = ["chances", "fourcard_returns"]

_SECTION = "58 Pa. Code 641a.1"


def chances(paytable: Paytable, counts: dict[str, int]) -> dict[str | None, Fraction]:
    """Each line's exact chance off the counts (None: a loss)."""
    total = sum(counts.values())
    out: dict[str | None, Fraction] = {
        line.name: Fraction(counts.get(line.name, 0), total) for line in paytable.lines
    }
    out[None] = 1 - sum(out.values(), Fraction(0))
    return out


def fourcard_returns(rules: FourCardRules) -> list[WagerReturn]:
    """The exact return of each paytable wager the table offers, at its smallest amount."""
    out: list[WagerReturn] = []
    if rules.aces_up is not None and rules.aces_up_limits is not None:
        out.append(
            assemble(
                wager=ACES_UP,
                title="Aces Up Wager",
                section=_SECTION,
                field_name="fourcard.aces_up.paytable",
                paytable=rules.aces_up,
                cite=_SECTION,
                chances=chances(rules.aces_up, four_card_counts()),
                stake=rules.aces_up_limits.minimum,
                counted="the best four of the player's five cards (C(52, 5) = 2,598,960 hands)",
            )
        )
    for wager, offer, counts, counted, cite in (
        (
            FOUR_CARD_PROGRESSIVE,
            rules.four_card,
            four_card_counts(),
            "the best four of the player's five cards",
            "58 Pa. Code 641a.1, 641a.6(b)",
        ),
        (
            FIVE_CARD_PROGRESSIVE,
            rules.five_card,
            five_card_counts(),
            "the player's five cards as one hand",
            "58 Pa. Code 641a.1, 641a.6(d)",
        ),
    ):
        if offer is None:
            continue
        out.append(_progressive(rules, wager, offer, counts, counted, cite))
    return out


def _progressive(
    rules: FourCardRules,
    wager: str,
    offer: ProgressiveOffer,
    counts: dict[str, int],
    counted: str,
    cite: str,
) -> WagerReturn:
    mystery = rules.mystery
    feeds = mystery is not None and wager in mystery.qualifying
    title = "Four-Card" if wager == FOUR_CARD_PROGRESSIVE else "Five-Card"
    return assemble(
        wager=wager,
        title=f"{title} Progressive Payout Wager",
        section=_SECTION,
        field_name=f"fourcard.{wager}",
        paytable=offer.paytable,
        cite=cite,
        chances=chances(offer.paytable, counts),
        stake=min(offer.amounts),
        counted=f"{counted} (C(52, 5) = 2,598,960 hands)",
        mystery=(mystery.spec,) if feeds and mystery is not None else (),
        notes=(
            ("with the Must-Hit-By Mystery Bonus it feeds (58 Pa. Code 641b.1(c)(2))",)
            if feeds
            else ()
        )
        + _envy_notes(rules, offer),
        extras=_envy_extras(rules, offer, counts),
    )


def _envy_extras(
    rules: FourCardRules, offer: ProgressiveOffer, counts: dict[str, int]
) -> list[tuple[str, str, str, Fraction, Fraction]]:
    """The wager's Envy Bonus (641a.1) at a full table: each line's fixed sum per unit of the
    smallest wager, times the expected number of its Qualifying Hands among the other
    ``seats - 1`` players (each other hand is five cards of the deck, so the expectation is
    exact however their cards overlap)."""
    if offer.envy is None:
        return []
    total = sum(counts.values())
    stake = min(offer.amounts)
    out = []
    for line in offer.envy.lines:
        pay = line.pay
        assert isinstance(pay, Fixed)
        out.append(
            (
                f"{offer.envy.name}: {line.name} at another seat",
                "58 Pa. Code 641a.1",
                str(pay),
                Fraction((rules.seats - 1) * counts.get(line.name, 0), total),
                Fraction(pay.win(stake), stake),
            )
        )
    return out


def _envy_notes(rules: FourCardRules, offer: ProgressiveOffer) -> tuple[str, ...]:
    if offer.envy is None:
        return ()
    return (
        f"{offer.envy.name} at a full table of {rules.seats} seats (58 Pa. Code 641a.1; its "
        "sums are the Rules Submission's)",
    )
