"""The rules a Caribbean Stud Poker terminal shows (58 Pa. Code 639a, 639b.1), built from the
Rules Submission: the procedure (Ante, fold or BET 2X, the dealer qualifying with ace-king),
the countdowns, and every wager offered with its paytable as the Rules Submission and the
regulation name it, the Envy Bonus, the Magic Card or Lucky Bonus and the Must-Hit-By
Mystery Bonus configuration.

Entry point: :func:`rules_document`.
"""

from __future__ import annotations

from typing import Any

from game_server.config import TableConfig
from game_server.games.caribbean.rules.rules import BET_PAYTABLE, CaribbeanRules, FiveCardBonus
from game_server.games.uth.rules.paytables import FIVE_CARD_PAYTABLE, LUCKY_BONUS, MAGIC_CARD
from game_server.rules.wagers import must_hit_by
from game_server.table.info import RULES_VERSION, meter_note, paytable_lines
from shared.money import format_money

__all__ = ["rules_document"]


def rules_document(config: TableConfig) -> dict[str, Any]:
    """The rules screen of a Caribbean Stud Poker table."""
    rules: CaribbeanRules = config.rules
    ante = rules.ante_limits
    fold = (
        "A folded hand keeps its Progressive Payout and Five Card Hand Bonus in action"
        if rules.side_wagers_settle_on_fold
        else "A folded hand loses its Progressive Payout and Five Card Hand Bonus (player's hand)"
    )
    wagers: list[dict[str, Any]] = [
        {
            "wager": "ante",
            "title": "Ante and Bet",
            "section": "58 Pa. Code 639a.1, 639a.11, 639a.12 (secondary source)",
            "min": ante.minimum,
            "max": ante.maximum,
            "paytable": BET_PAYTABLE.name,
            "lines": [
                {"hand": "Dealer does not qualify", "pays": "Ante 1 to 1, Bet pushes"},
                {"hand": "Player beats a qualifying dealer", "pays": "Ante 1 to 1, Bet:"},
                *paytable_lines(BET_PAYTABLE),
                {"hand": "Tie", "pays": "push"},
            ],
            "notes": ["The Bet Wager is exactly twice the Ante; not betting is a fold", fold],
        }
    ]
    progressive = rules.progressive
    if progressive is not None:
        notes = meter_note(progressive.meter, "639a.12")
        if progressive.envy is not None:
            notes.append(
                "Envy Bonus for another seat's "
                + ", ".join(f"{line.name} {line.pay}" for line in progressive.envy.lines)
            )
        mystery = config.must_hit_by
        if mystery is not None:
            conf = must_hit_by.configuration(mystery.configuration, mystery.minimum_wager)
            notes.append(
                f"Must-Hit-By Mystery Bonus, {conf.paytable}: with an Ante and a Progressive "
                f"Payout Wager of at least {format_money(conf.minimum_wager)}; hits by "
                f"{format_money(conf.maximum)}, resets to {format_money(conf.minimum)}, "
                f"{conf.increment_bp / 100:g}% of each qualifying wager (639b.1)"
            )
        wagers.append(
            {
                "wager": "progressive",
                "title": "Progressive Payout",
                "section": "58 Pa. Code 639a.7(d)(2), 639a.12",
                "min": min(progressive.amounts),
                "max": max(progressive.amounts),
                "paytable": progressive.paytable.name,
                "lines": paytable_lines(progressive.paytable),
                "notes": notes,
            }
        )
    five = rules.five_card
    if five is not None:
        bonus = {FiveCardBonus.MAGIC_CARD: MAGIC_CARD, FiveCardBonus.LUCKY_BONUS: LUCKY_BONUS}
        extra = bonus.get(five.bonus)
        lines = paytable_lines(FIVE_CARD_PAYTABLE)
        if extra is not None:
            lines.append({"hand": extra.name, "pays": str(extra.pay)})
        for wager, whose in (("five_card_player", "player's"), ("five_card_dealer", "dealer's")):
            wagers.append(
                {
                    "wager": wager,
                    "title": f"Five Card Hand Bonus ({whose} hand)",
                    "section": "58 Pa. Code 639a.1 (paytable 653a.12(e), secondary source)",
                    "min": min(five.amounts),
                    "max": max(five.amounts),
                    "paytable": FIVE_CARD_PAYTABLE.name,
                    "lines": lines,
                    "notes": meter_note(five.meter, "653a.12(e)(4)"),
                }
            )
    timers = config.timers
    return {
        "v": RULES_VERSION,
        "table": config.table_id,
        "game": "Caribbean Stud Poker",
        "lines": [
            "Place an Ante; five cards each, one dealer card face up",
            "Fold (the Ante is lost) or BET 2X: a Bet Wager of twice the Ante",
            "The dealer qualifies with ace-king or better",
            "No qualifying hand: the Ante pays 1 to 1 and the Bet pushes",
        ],
        "countdowns": [
            {"for": "betting", "seconds": timers.betting_seconds, "then": "deal"},
            {"for": "decision", "seconds": timers.decision_seconds, "then": "fold"},
        ],
        "limits_text": f"Ante {format_money(ante.minimum)} to {format_money(ante.maximum)}",
        "wagers": wagers,
    }
