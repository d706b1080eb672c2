"""The game rules a terminal of a hybrid table shows (58 Pa. Code 633b.5(c)(2)).

The same document as :func:`~game_server.table.info.rules_for` (the wagers offered and their
paytables as the regulation names them), with the procedure of the table type instead of the
fully automated table's: at the three-position table (633b.5(a)-(v)) the choice of a player
position, the community cards every player who draws uses in order, the double down's one
card, no draw on 21; at the table without a hole card (633b.5(w)-(ee)) the one set of cards,
each community card going to the player's hand or to his own dealer hand by his choices, the
split into two hands at most and the return of a split or double down wager against a dealer
Blackjack; and at both what each countdown does. The three required statements of
633b.5(c)(2) come first.

JSON-ready. Entry point: :func:`hybrid_rules_for`.
"""

from __future__ import annotations

from typing import Any

from game_server.config import TableConfig
from game_server.games.blackjack.info import blackjack_rules_for
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault
from game_server.rules.wagers.base import TableType

__all__ = ["hybrid_rules_for"]

#: 633b.5(c)(2): what the game rules icon must display, first.
_REQUIRED = (
    "Blackjack pays 3 to 2",
    "Dealer stands on all soft 17s",
    "Insurance pays 2 to 1",
)


def _decks(rules: BlackjackRules) -> str:
    word = "deck" if rules.decks == 1 else "decks"
    return f"{rules.decks} {word} shuffled by the certified random number generator"


def _three_position(rules: BlackjackRules) -> list[str]:
    lines = [
        *_REQUIRED,
        "Even money is offered on a Blackjack against a dealer Ace",
        _decks(rules),
        "Choose player position 1, 2 or 3 when you wager; any number of players may share a "
        "position and each decides for himself (633b.5(l), (p)(2))",
        "Each position chosen gets two cards; the dealer one card up and one down (633b.5(n))",
        "Under an Ace or a ten-value card the dealer's hole card is checked for Blackjack "
        "(633b.5(o))",
        "A Blackjack is paid 3 to 2 at once (633b.5(p)(1))",
        "Every card drawn is a community card: each player who draws uses the community cards "
        "in order, his first draw card 1, his second card 2 (633b.5(q))",
        "A double down takes one card, your next community card (633b.5(r)(2))",
        "No draw on 21 (633b.5(r)(1))",
        f"Split pairs into up to {rules.max_split_hands} hands (633a.11)",
        "The dealer draws to 17 after every player is done and stands on all 17s (633b.5(s))",
    ]
    return lines


def _no_hole_card(rules: BlackjackRules) -> list[str]:
    lines = [
        *_REQUIRED,
        _decks(rules),
        "One set of cards for every player: your first card, the dealer's up card, your "
        "second card; the dealer has no hole card (633b.5(y))",
        "Every later card is a community card: it goes to your hand while you draw, then to "
        "YOUR dealer hand, so players can face different dealer hands (633b.5(aa), (bb))",
        "Split into two hands at most; split Aces and a double down take one card (633b.5(z), "
        "(aa)(3)(i))",
        "Against a dealer Blackjack a split or double down wager is returned and the original "
        "wager loses; a Blackjack pushes (633b.5(aa)(1)(i), (bb)(1))",
        "Your dealer hand stands on all 17s (633b.5(bb)(2))",
    ]
    if rules.late_surrender:
        lines.append("Surrender your first two cards for half the wager (633a.9)")
    return lines


def _decision(rules: BlackjackRules, table_type: TableType) -> str:
    if table_type is TableType.HYBRID:
        return "every hand still to act stands and the round is settled (633b.5(p)(2))"
    if rules.countdown_default is CountdownDefault.HIT_HARD_11_OR_LESS:
        return "a hard total of 11 or less is hit, any other hand stands (633b.5(z))"
    return "the hand stands (633b.5(z))"


def hybrid_rules_for(config: TableConfig) -> dict[str, Any]:
    """The rules document of a hybrid table (the shape of
    :func:`~game_server.table.info.rules_for`)."""
    document = blackjack_rules_for(config)
    rules = config.rules
    three = config.table_type is TableType.HYBRID
    document["game"] = (
        "Blackjack, three-position hybrid table"
        if three
        else "Blackjack, hybrid table without a hole card"
    )
    document["lines"] = _three_position(rules) if three else _no_hole_card(rules)
    timers = config.timers
    document["countdowns"] = [
        {
            "for": "betting",
            "seconds": timers.betting_seconds,
            "then": "no more bets: the round is dealt with the wagers placed (633b.5(k))",
        },
        {
            "for": "insurance",
            "seconds": timers.insurance_seconds,
            "then": "insurance" + (" and even money are" if three else " is") + " declined",
        },
        {
            "for": "decision",
            "seconds": timers.decision_seconds,
            "then": _decision(rules, config.table_type),
        },
    ]
    return document
