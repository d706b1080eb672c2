"""The game rules a terminal shows (58 Pa. Code 633b.5(c)(2)), built from the Rules Submission.

633b.5(c)(2) requires a game rules icon on each player station that displays the rules:
"Blackjack pays 3 to 2", "Dealer stands on all soft 17s" (the dealer of this game never hits
a soft 17), "Insurance pays 2 to 1", and what the countdown does when a player does not act.
The terminal keeps no copy of the rules: it asks the server (``GetRules``) and shows what
:func:`rules_for` builds from the config in force, so the screen can never disagree with the
table: the deck count, doubling, splitting, surrender, the countdowns, and every offered side
wager with the paytable selected in the config, each line as the regulation names it and
what it pays.

An Ultimate Texas Hold 'Em table (``game = "uth"``, 58 Pa. Code 653a) gets the same document
(``"game": "Ultimate Texas Hold 'Em"``): the procedure (Ante and equal Blind, the Play Wager
of 4 or 3, 2 or 1 times the Ante, folding at the river, the dealer qualifying with a pair),
the countdowns, and every wager offered with each 653a.12 paytable as the regulation names
it: (a) Ante and Play, (b) the Blind's "Paytable A" or "Paytable B" with its push line, (c)
Trips "Paytable A" to "Paytable D", (d) the Progressive Payout and its Envy Bonus, (e) the
Five Card Hand Bonus with the Magic Card or Lucky Bonus, and (f) the maximum payout.

JSON-ready (integers and text only). Entry point: :func:`rules_for`.
"""

from __future__ import annotations

from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault, DoubleOn
from game_server.games.uth.config import rules_of as uth_rules_of
from game_server.games.uth.rules.paytables import (
    BLIND_PUSH,
    ENVY_BONUS,
    FIVE_CARD_PAYTABLE,
    LUCKY_BONUS,
    MAGIC_CARD,
    PROGRESSIVE_PAYTABLE,
)
from game_server.games.uth.rules.rules import UthRules
from game_server.rules.wagers import buzzer_beater
from game_server.rules.wagers.base import MeterSpec, Paytable, SideWagerOffer
from shared.money import format_money

#: The version of the rules document (changes only with its shape).
RULES_VERSION: Final = 1

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


def rules_for(config: TableConfig) -> dict[str, Any]:
    """What the rules screen shows for ``config`` (see the module docstring)."""
    uth_rules = uth_rules_of(config)
    if uth_rules is not None:
        return _uth_rules_for(config, uth_rules)
    rules = config.rules
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


# ------------------------------------------------------------ Ultimate Texas Hold 'Em (653a)


def _lines(paytable: Paytable) -> list[dict[str, str]]:
    return [{"hand": line.name, "pays": str(line.pay)} for line in paytable.lines]


def _meter_note(spec: MeterSpec | None, cite: str) -> list[str]:
    if spec is None:
        return []
    return [
        f"{spec.name} meter: starts at {format_money(spec.seed)}, resets to "
        f"{format_money(spec.reseed)}, grows by {spec.increment_bp / 100:g}% of each wager "
        f"({cite})"
    ]


def _uth_rules_for(config: TableConfig, rules: UthRules) -> dict[str, Any]:
    """The rules screen of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a)."""
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
                *_lines(rules.blind),
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
                "lines": _lines(trips),
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
                "lines": _lines(PROGRESSIVE_PAYTABLE),
                "notes": [
                    "A fixed "
                    + amounts(format_money(a) for a in rules.progressive_amounts)
                    + " wager on the player's two cards and the three-card flop",
                    *envy,
                    *_meter_note(rules.progressive_meter, "653a.12(d)(3)"),
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
                    "lines": _lines(FIVE_CARD_PAYTABLE),
                    "notes": [
                        "A fixed "
                        + amounts(format_money(a) for a in rules.five_card_amounts)
                        + f" wager on the {whose} hand: {hand} (653a.12(e)(2))",
                        *bonus,
                        *_meter_note(rules.five_card_meter, "653a.12(e)(4)"),
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
