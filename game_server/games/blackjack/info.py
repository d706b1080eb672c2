"""The rules a Blackjack terminal shows (58 Pa. Code 633b.5(c)(2)), built from the Rules
Submission.

633b.5(c)(2) requires a game rules icon on each player station that displays the rules:
"Blackjack pays 3 to 2", "Dealer stands on all soft 17s" (the dealer of this game never hits
a soft 17), "Insurance pays 2 to 1", and what the countdown does when a player does not act.
The terminal keeps no copy of the rules: it asks the server (``GetRules``) and shows what
:func:`rules_for` builds from the config in force, so the screen can never disagree with the
table: the deck count, doubling, splitting, surrender, the countdowns, and every offered side
wager with the paytable selected in the config, each line as the regulation names it and
what it pays.

JSON-ready (integers and text only). Entry point: :func:`blackjack_rules_for`.
"""

from __future__ import annotations

from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault, DoubleOn
from game_server.rules.wagers import buzzer_beater
from game_server.rules.wagers.base import SideWagerOffer
from game_server.table.info import RULES_VERSION
from shared.money import format_money

_DOUBLE: Final = {
    DoubleOn.ANY: "Double down on any first two cards",
    DoubleOn.NINE_TO_ELEVEN: "Double down on a first-two-card total of 9, 10 or 11",
    DoubleOn.TEN_TO_ELEVEN: "Double down on a first-two-card total of 10 or 11",
}

_DECISION_DEFAULT: Final = {
    CountdownDefault.STAND: "the hand stands",
    CountdownDefault.HIT_HARD_11_OR_LESS: (
        "a hard total of 11 or less is hit, any other hand stands"
    ),
}


def _game_lines(rules: BlackjackRules) -> list[str]:
    lines = [
        "Blackjack pays 3 to 2",
        "Dealer stands on all soft 17s",
    ]
    if rules.insurance:
        lines.append("Insurance pays 2 to 1")
    if rules.even_money:
        lines.append("Even money is offered on a Blackjack against a dealer Ace")
    deck_word = "deck" if rules.decks == 1 else "decks"
    lines.append(f"{rules.decks} {deck_word} shuffled by the certified random number generator")
    if rules.dealer_peeks:
        lines.append("The dealer checks for Blackjack under an Ace or a ten-value card")
    double = _DOUBLE[rules.double_on]
    if rules.double_after_split:
        double += ", also after a split"
    lines.append(double)
    split = f"Split pairs into up to {rules.max_split_hands} hands"
    if not rules.resplit_aces:
        split += "; Aces are split once"
    if not rules.hit_split_aces:
        split += " and take one card each"
    lines.append(split)
    if rules.late_surrender:
        lines.append("Late surrender returns half the Blackjack wager")
    return lines


def _wager_notes(offer: SideWagerOffer) -> list[str]:
    """What else the player should know about an offered wager: its one fixed amount, the
    TriLux Deluxe Press (633b.11(f)-(h)), the hand a Buzzer Beater is settled on, a meter it
    feeds, a bonus the table offers."""
    wager, options = offer.wager, offer.option_map
    notes = []
    if wager.fixed_amounts and offer.limits.minimum == offer.limits.maximum:
        notes.append(f"A fixed {format_money(offer.limits.minimum)} wager")
    if wager.max_multiple_of_main is not None:
        notes.append(f"At most {wager.max_multiple_of_main} times the Blackjack wager")
    if options.get("press"):
        notes.append(
            "Press: a winning TriLux Deluxe may cap the Blackjack wager with all or part of its "
            "winnings, paid even money if the hand wins; a split matches it (633b.11(f)-(h))"
        )
    if options.get("envy_bonus"):
        notes.append(
            "Envy Bonus: paid when another player and the dealer hold Matching Suited Blackjacks"
        )
    if wager.name == buzzer_beater.BUZZER_BEATER.name:
        if buzzer_beater.basis(options) is buzzer_beater.Basis.FIRST_TWO_CARDS:
            notes.append(
                "Settled on your position's first two cards against the dealer's final hand, "
                "whatever you draw (633b.5(m), (p)(1), (u))"
            )
        else:
            notes.append("Settled on your final hand against the dealer's (633b.5(m), (u))")
    bonus = options.get("bonus")
    if isinstance(bonus, str) and bonus != "none":
        notes.append(f"Bonus Pay {bonus} with a Blackjack and a Buster wager of $5 or more")
    for meter in offer.paytable.meters:
        notes.append(
            f"{meter.name}: starts at {format_money(meter.seed)}, resets to "
            f"{format_money(meter.reseed)}, grows by {meter.increment_bp / 100:g}% of each wager"
        )
    return notes


def blackjack_rules_for(config: TableConfig) -> dict[str, Any]:
    """What the rules screen shows for a Blackjack table of ``config`` (see the module
    docstring)."""
    rules: BlackjackRules = config.rules
    timers = config.timers
    wagers: list[dict[str, Any]] = [
        {
            "wager": "blackjack",
            "title": "Blackjack",
            "section": "58 Pa. Code 633a",
            "min": rules.main_limits.minimum,
            "max": rules.main_limits.maximum,
            "paytable": None,
            "notes": [],
            "lines": [
                {"hand": "Blackjack", "pays": "3 to 2"},
                {"hand": "Any other winning hand", "pays": "1 to 1"},
                *([{"hand": "Insurance", "pays": "2 to 1"}] if rules.insurance else []),
            ],
        }
    ]
    for offer in rules.side_wagers:
        wager = offer.wager
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
                "notes": _wager_notes(offer),
            }
        )
    decision = _DECISION_DEFAULT[rules.countdown_default]
    return {
        "v": RULES_VERSION,
        "table": config.table_id,
        "game": "Blackjack",
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
                "then": "insurance and even money are declined",
            },
            {"for": "decision", "seconds": timers.decision_seconds, "then": decision},
        ],
        "wagers": wagers,
        "limits_text": (
            f"Blackjack wager {format_money(rules.main_limits.minimum)} to "
            f"{format_money(rules.main_limits.maximum)}"
        ),
    }
