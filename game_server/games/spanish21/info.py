"""The rules a Spanish 21 terminal shows, built from the Rules Submission (the shape of
:mod:`game_server.table.info`).

The terminal keeps no copy of the rules: it asks the server and shows what
:func:`spanish21_rules_for` builds from the config in force: the shoe, the 635a.12 payouts with
every bonus line and the super bonus amounts (the one for $25 or more as the Rules Submission
states it, (c)(2) not being found), doubling and the rescue, splitting, surrender, the dealer's
soft 17 rule, the countdowns and the Match the Dealer paytable selected with its meter.

Entry point: :func:`spanish21_rules_for`.
"""

from __future__ import annotations

from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.blackjack.rules.rules import CountdownDefault
from game_server.games.spanish21.rules.rules import (
    DOUBLED_21,
    FIVE_CARD_21,
    MIXED_678,
    MIXED_777,
    SEVEN_CARD_21,
    SIX_CARD_21,
    SPADES_678,
    SPADES_777,
    SUITED_678,
    SUITED_777,
    SUPER_BONUS_5_TO_25,
    Spanish21Rules,
)
from game_server.table.info import RULES_VERSION
from shared.money import format_money

__all__ = ["spanish21_rules_for"]

_DECISION_DEFAULT: Final = {
    CountdownDefault.STAND: "the hand stands (a doubled hand too)",
    CountdownDefault.HIT_HARD_11_OR_LESS: (
        "a hard 11 or less is hit, any other hand stands (a doubled hand too)"
    ),
}


def _hand(line: str) -> dict[str, str]:
    """A 635a.12 line as the rules screen lists it: the hand and what it pays."""
    hand, _, rest = line.partition(" (")
    words = hand.split(" ")
    return {"hand": f"{' '.join(words[:-3])} ({rest}", "pays": " ".join(words[-3:])}


def _game_lines(rules: Spanish21Rules) -> list[str]:
    lines = [
        f"{rules.decks} Spanish decks of 48 cards (no tens), shuffled by the certified "
        "random number generator",
        "Blackjack pays 3 to 2 and beats a dealer Blackjack; a player's 21 always wins",
        "Bonus 21s are paid unless the hand was doubled down (635a.12(b))",
        ("Dealer hits soft 17" if rules.dealer_hits_soft_17 else "Dealer stands on all 17s")
        + "; the dealer checks for Blackjack under an Ace or a face card",
    ]
    if rules.insurance:
        lines.append("Insurance pays 2 to 1")
    double = "Double down on any number of cards, once a hand"
    if rules.double_after_split:
        double += ", also after a split"
    lines.append(double)
    lines.append(
        "Rescue: after a double down, take back the double down wager and forfeit the "
        "original wager (635a.10)"
    )
    split = f"Split pairs into up to {rules.max_split_hands} hands"
    split += "; Aces may be split again" if rules.resplit_aces else "; Aces are split once"
    if rules.hit_split_aces:
        split += ", hit and doubled"
    else:
        split += " and take one card each"
    lines.append(split)
    if rules.late_surrender:
        lines.append("Late surrender returns half the wager")
    return lines


def spanish21_rules_for(config: TableConfig) -> dict[str, Any]:
    """What the rules screen shows for a Spanish 21 table of ``config``."""
    rules: Spanish21Rules = config.rules
    timers = config.timers
    bonus_lines = (
        FIVE_CARD_21,
        SIX_CARD_21,
        SEVEN_CARD_21,
        MIXED_678,
        SUITED_678,
        SPADES_678,
        MIXED_777,
        SUITED_777,
        SPADES_777,
    )
    main_lines = [
        {"hand": "Blackjack", "pays": "3 to 2"},
        {"hand": "Any other winning hand", "pays": "1 to 1"},
        *(_hand(line) for line in bonus_lines),
        {"hand": "Any 21 after a double down", "pays": _hand(DOUBLED_21)["pays"]},
        {
            "hand": "Suited 7-7-7 against a dealer 7, original wager $5 to $24",
            "pays": f"{format_money(SUPER_BONUS_5_TO_25)} more (635a.12(c)(1))",
        },
        {
            "hand": "Suited 7-7-7 against a dealer 7, original wager $25 or more",
            "pays": f"{format_money(rules.super_bonus_25_and_over)} more (Rules Submission)",
        },
        *([{"hand": "Insurance", "pays": "2 to 1"}] if rules.insurance else []),
    ]
    wagers: list[dict[str, Any]] = [
        {
            "wager": "blackjack",
            "title": "Spanish 21",
            "section": "58 Pa. Code 635a",
            "min": rules.main_limits.minimum,
            "max": rules.main_limits.maximum,
            "paytable": None,
            "notes": [],
            "lines": main_lines,
        }
    ]
    for offer in rules.side_wagers:
        wager = offer.wager
        notes = [f"A {format_money(offer.limits.minimum)} wager (635b.1(e))"]
        for m in offer.paytable.meters:
            notes.append(
                f"Meter: {format_money(m.seed)} (1,000 times the wager) at the start and after "
                "a 100% win (635b.1(j))"
            )
            notes.append(
                f"It grows by {m.increment_bp / 100:g}% of each wager; "
                f"{m.secondary_bp / 100:g}% goes to the reset reserve"
            )
        notes.append(
            "Settled right after the second card, before any other card (635b.1(g)), "
            f"with the {rules.decks}-deck paytables"
        )
        wagers.append(
            {
                "wager": wager.name,
                "title": wager.title,
                "section": wager.section,
                "min": offer.limits.minimum,
                "max": offer.limits.maximum,
                "paytable": offer.paytable.name,
                "lines": [
                    {"hand": line.name, "pays": str(line.pay)} for line in offer.paytable.lines
                ],
                "notes": notes,
            }
        )
    return {
        "v": RULES_VERSION,
        "table": config.table_id,
        "game": "Spanish 21",
        "lines": _game_lines(rules),
        "countdowns": [
            {
                "for": "betting",
                "seconds": timers.betting_seconds,
                "then": "no more bets: the round is dealt with the wagers placed",
            },
            {
                "for": "insurance",
                "seconds": timers.insurance_seconds,
                "then": "insurance is declined",
            },
            {
                "for": "decision",
                "seconds": timers.decision_seconds,
                "then": _DECISION_DEFAULT[rules.countdown_default],
            },
        ],
        "wagers": wagers,
        "limits_text": (
            f"Spanish 21 wager {format_money(rules.main_limits.minimum)} to "
            f"{format_money(rules.main_limits.maximum)}"
        ),
    }
