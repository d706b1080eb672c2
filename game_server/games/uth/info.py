"""The rules an Ultimate Texas Hold 'Em terminal shows (58 Pa. Code 653a), built from the Rules
Submission.

The same document as every table's (``"game": "Ultimate Texas Hold 'Em"``): the procedure
(Ante and equal Blind, the Play Wager of 4 or 3, 2 or 1 times the Ante, folding at the river,
the dealer qualifying with a pair), the countdowns, and every wager offered with each 653a.12
paytable as the regulation names it: (a) Ante and Play, (b) the Blind's "Paytable A" or
"Paytable B" with its push line, (c) Trips "Paytable A" to "Paytable D", (d) the Progressive
Payout and its Envy Bonus, (e) the Five Card Hand Bonus with the Magic Card or Lucky Bonus,
and (f) the maximum payout.

JSON-ready (integers and text only). Entry point: :func:`uth_rules_for`.
"""

from __future__ import annotations

from typing import Any

from game_server.config import TableConfig
from game_server.games.uth.rules.paytables import (
    BLIND_PUSH,
    ENVY_BONUS,
    FIVE_CARD_PAYTABLE,
    LUCKY_BONUS,
    MAGIC_CARD,
    PROGRESSIVE_PAYTABLE,
)
from game_server.games.uth.rules.rules import UthRules
from game_server.table.info import RULES_VERSION, meter_note, paytable_lines
from shared.money import format_money

__all__ = ["uth_rules_for"]


def uth_rules_for(config: TableConfig) -> dict[str, Any]:
    """The rules screen of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a)."""
    rules: UthRules = config.rules
    ante = rules.ante_limits
    timers = config.timers
    amounts = ", ".join
    wagers: list[dict[str, Any]] = [
        {
            "wager": "ante",
            "title": "Ante and Play",
            "section": "58 Pa. Code 653a.12(a)",
            "min": ante.minimum,
            "max": ante.maximum,
            "paytable": None,
            "lines": [
                {"hand": "Player's hand beats the dealer's", "pays": "1 to 1"},
                {"hand": "Dealer does not qualify (less than a pair)", "pays": "Ante pushes"},
                {"hand": "Tie", "pays": "push"},
            ],
            "notes": [
                "The Play Wager is 4 or 3 times the Ante before the flop, 2 times on the "
                "flop, 1 times after the turn and river"
            ],
        },
        {
            "wager": "blind",
            "title": "Blind",
            "section": "58 Pa. Code 653a.12(b)",
            "min": ante.minimum,
            "max": ante.maximum,
            "paytable": rules.blind_paytable,
            "lines": [
                *paytable_lines(rules.blind),
                {"hand": BLIND_PUSH[rules.blind_paytable], "pays": "Push"},
            ],
            "notes": [
                "Equal to the Ante; paid by the paytable only when the player's hand beats the "
                "dealer's"
            ],
        },
    ]
    trips = rules.trips
    if trips is not None:
        wagers.append(
            {
                "wager": "trips",
                "title": "Trips",
                "section": "58 Pa. Code 653a.12(c)",
                "min": rules.trips_limits.minimum,
                "max": rules.trips_limits.maximum,
                "paytable": trips.name,
                "lines": paytable_lines(trips),
                "notes": ["Pays on the player's hand whatever the dealer holds"],
            }
        )
    if rules.progressive_amounts:
        envy = [
            f"Envy Bonus ({ENVY_BONUS[a].name}): "
            + "; ".join(f"{line.name} {line.pay}" for line in ENVY_BONUS[a].lines)
            + " for every other player's hand (653a.12(d)(5))"
            for a in rules.progressive_amounts
        ]
        wagers.append(
            {
                "wager": "progressive",
                "title": "Progressive Payout",
                "section": "58 Pa. Code 653a.12(d)",
                "min": min(rules.progressive_amounts),
                "max": max(rules.progressive_amounts),
                "paytable": PROGRESSIVE_PAYTABLE.name,
                "lines": paytable_lines(PROGRESSIVE_PAYTABLE),
                "notes": [
                    "A fixed "
                    + amounts(format_money(a) for a in rules.progressive_amounts)
                    + " wager on the player's two cards and the three-card flop",
                    *envy,
                    *meter_note(rules.progressive_meter, "653a.12(d)(3)"),
                ],
            }
        )
    if rules.five_card_amounts:
        flop = rules.five_card_hand.value == "hole-and-flop"
        bonus = []
        paid = MAGIC_CARD.name if rules.magic_card_bonus else LUCKY_BONUS.name
        if (rules.magic_card_bonus or rules.lucky_bonus) and rules.bonus_on.value == "winning-hand":
            bonus.append(
                f"The {paid} is paid with a winning hand, on top of its payout: the stake "
                "counts once (653a.12(e)(3))"
            )
        if rules.magic_card_bonus:
            bonus.append(
                f"{MAGIC_CARD.name}: {MAGIC_CARD.pay} when one of the hand's two cards is the "
                "card drawn for the round (653a.12(e)(3))"
            )
        if rules.lucky_bonus:
            bonus.append(
                f"{LUCKY_BONUS.name}: {LUCKY_BONUS.pay} when the hand's position is the one "
                "drawn for the round (653a.12(e)(3))"
            )
        for name, whose in (("five_card_player", "player's"), ("five_card_dealer", "dealer's")):
            hand = (
                f"the {whose} two cards and the flop"
                if flop
                else f"the best five of the {whose} seven cards"
            )
            wagers.append(
                {
                    "wager": name,
                    "title": f"Five Card Hand Bonus ({whose} hand)",
                    "section": "58 Pa. Code 653a.12(e)",
                    "min": min(rules.five_card_amounts),
                    "max": max(rules.five_card_amounts),
                    "paytable": FIVE_CARD_PAYTABLE.name,
                    "lines": paytable_lines(FIVE_CARD_PAYTABLE),
                    "notes": [
                        "A fixed "
                        + amounts(format_money(a) for a in rules.five_card_amounts)
                        + f" wager on the {whose} hand: {hand} (653a.12(e)(2))",
                        *bonus,
                        *meter_note(rules.five_card_meter, "653a.12(e)(4)"),
                    ],
                }
            )
    lines = [
        "Ante and an equal Blind before the deal; two cards to each player and the dealer",
        "Before the flop: check, or Play 4 or 3 times the Ante",
        "On the flop: check, or Play 2 times the Ante",
        "After the turn and river: Play 1 times the Ante, or fold",
        "The dealer qualifies with a pair or better",
        "One 52-card deck shuffled for every round by the certified random number generator",
    ]
    if rules.max_payout is not None:
        lines.append(
            f"The most paid on one hand for the Ante, Blind, Play and Trips Wagers is "
            f"{format_money(rules.max_payout)} (58 Pa. Code 653a.12(f))"
        )
    return {
        "v": RULES_VERSION,
        "table": config.table_id,
        "game": "Ultimate Texas Hold 'Em",
        "lines": lines,
        "countdowns": [
            {
                "for": "betting",
                "seconds": timers.betting_seconds,
                "then": "no more bets: the round is dealt with the wagers placed",
            },
            {
                "for": "decision",
                "seconds": timers.decision_seconds,
                "then": "the hand checks before the river and folds at the river",
            },
        ],
        "wagers": wagers,
        "limits_text": (
            f"Ante {format_money(ante.minimum)} to {format_money(ante.maximum)}, Blind equal "
            "to the Ante"
        ),
    }
