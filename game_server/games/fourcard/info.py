"""The Four Card Poker rules screen (``GetRules``; 633b.5(c)(2) as the other tables): the
procedure, the countdowns and every paytable of the Rules Submission in force, in the shape
:mod:`game_server.table.info` describes.

Entry point: :func:`rules_document`.
"""

from __future__ import annotations

from typing import Any

from game_server.config import TableConfig
from game_server.games.fourcard.rules.events import (
    ACES_UP,
    ANTE,
    ANTE_BONUS,
    FIVE_CARD_PROGRESSIVE,
    FOUR_CARD_PROGRESSIVE,
    MUST_HIT_BY,
)
from game_server.games.fourcard.rules.paytables import ACES_UP_SOURCES
from game_server.games.fourcard.rules.rules import FourCardRules, ProgressiveOffer
from game_server.table.info import RULES_VERSION, meter_note, paytable_lines
from shared.money import format_money

__all__ = ["rules_document"]

_SECONDARY = "58 Pa. Code 641a (secondary source)"


def _envy_notes(offer: ProgressiveOffer) -> list[str]:
    """The progressive's Envy Bonus (641a.1) as the rules screen states it."""
    if offer.envy is None:
        return []
    sums = ", ".join(f"{line.name} {line.pay}" for line in offer.envy.lines)
    return [f"{offer.envy.name} (58 Pa. Code 641a.1): {sums} for each one another player holds"]


def rules_document(config: TableConfig) -> dict[str, Any]:
    """The rules document of a Four Card Poker table."""
    rules: FourCardRules = config.rules
    ante = rules.ante_limits
    wagers: list[dict[str, Any]] = [
        {
            "wager": ANTE,
            "title": "Ante and Play",
            "section": _SECONDARY,
            "min": ante.minimum,
            "max": ante.maximum,
            "paytable": None,
            "lines": [
                {"hand": "Your hand beats or ties the dealer's", "pays": "1 to 1 on Ante and Play"},
                {"hand": "The dealer's hand is higher", "pays": "Ante and Play lose"},
            ],
            "notes": ["The dealer always qualifies", "Fold: the Ante is lost"],
        },
        {
            "wager": ANTE_BONUS,
            "title": "Ante Bonus",
            "section": _SECONDARY,
            "min": ante.minimum,
            "max": ante.maximum,
            "paytable": rules.ante_bonus.name,
            "lines": paytable_lines(rules.ante_bonus),
            "notes": ["Paid on the Ante whatever the dealer holds, to a hand that plays"],
        },
    ]
    if rules.aces_up is not None and rules.aces_up_limits is not None:
        wagers.append(
            {
                "wager": ACES_UP,
                "title": "Aces Up",
                "section": "58 Pa. Code 641a.1",
                "min": rules.aces_up_limits.minimum,
                "max": rules.aces_up_limits.maximum,
                "paytable": rules.aces_up.name,
                "lines": paytable_lines(rules.aces_up),
                "notes": [
                    "Your best four cards against the paytable, whatever the dealer holds, "
                    "folded or not",
                    f"Paytable {ACES_UP_SOURCES[rules.aces_up.name]}",
                ],
            }
        )
    for name, offer, title, cite in (
        (
            FOUR_CARD_PROGRESSIVE,
            rules.four_card,
            "Four-Card Progressive Payout",
            "58 Pa. Code 641a.1, 641a.6(b)",
        ),
        (
            FIVE_CARD_PROGRESSIVE,
            rules.five_card,
            "Five-Card Progressive Payout",
            "58 Pa. Code 641a.1, 641a.6(d)",
        ),
    ):
        if offer is None:
            continue
        wagers.append(
            {
                "wager": name,
                "title": title,
                "section": cite,
                "min": min(offer.amounts),
                "max": max(offer.amounts),
                "paytable": offer.paytable.name,
                "lines": paytable_lines(offer.paytable),
                "notes": [
                    f"Amounts: {', '.join(format_money(a) for a in offer.amounts)}, with an Ante",
                    *meter_note(offer.meter, "58 Pa. Code 641a.1"),
                    *_envy_notes(offer),
                ],
            }
        )
    if rules.mystery is not None:
        spec = rules.mystery.spec
        wagers.append(
            {
                "wager": MUST_HIT_BY,
                "title": "Must-Hit-By Mystery Bonus",
                "section": "58 Pa. Code 641b.1",
                "min": rules.mystery.minimum_wager,
                "max": rules.mystery.minimum_wager,
                "paytable": f"Configuration {rules.mystery.configuration}",
                "lines": [
                    {
                        "hand": f"The meter passes its hidden trigger "
                        f"({format_money(spec.reseed)} to {format_money(spec.must_hit_by or 0)})",
                        "pays": "100% of the meter",
                    }
                ],
                "notes": [
                    f"Qualify with an Ante and a progressive wager of at least "
                    f"{format_money(rules.mystery.minimum_wager)} (641b.1(c)(1))",
                    f"{spec.increment_bp / 100:g}% of each qualifying wager feeds the meter "
                    "(641b.1(c)(2))",
                ],
            }
        )
    timers = config.timers
    return {
        "v": RULES_VERSION,
        "table": config.table_id,
        "game": "Four Card Poker",
        "lines": [
            "Place an Ante, an Aces Up Wager or both; the progressive wagers need an Ante",
            "You receive five cards, the dealer six, one face up; each makes its best four",
            "Fold (the Ante is lost) or play 1, 2 or 3 times the Ante",
            "The dealer always qualifies; you win ties",
            "Hands: four of a kind, straight flush, three of a kind, flush, straight, two "
            "pair, pair (641a.6(b))",
        ],
        "countdowns": [
            {"for": "betting", "seconds": timers.betting_seconds, "then": "deal"},
            {"for": "decision", "seconds": timers.decision_seconds, "then": "fold"},
        ],
        "limits_text": f"Ante {format_money(ante.minimum)} to {format_money(ante.maximum)}",
        "wagers": wagers,
    }
