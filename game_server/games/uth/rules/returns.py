"""What Ultimate Texas Hold 'Em's optional wagers return (58 Pa. Code 653a.12), exactly: Trips,
the Progressive Payout with its Envy Bonus at a full table, and the Five Card Hand Bonus with
its Magic Card or Lucky Bonus, counted by :mod:`game_server.games.uth.rules.math` off a full deck.
The player-edge guard of the table's Rules Submission reads them.

Entry point: :func:`uth_returns`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from game_server.games.uth.rules.hands import CATEGORIES, HAND_NAMES
from game_server.games.uth.rules.math import counts as uth_counts
from game_server.games.uth.rules.paytables import (
    ENVY_BONUS,
    FIVE_CARD_PAYTABLE,
    PROGRESSIVE_PAYTABLE,
)
from game_server.games.uth.rules.rules import FiveCardHand, UthRules
from game_server.rules.returns import WagerReturn, assemble
from game_server.rules.wagers.base import Paytable
from game_server.rules.wagers.five_card_bonus import five_card_return
from shared.money import Fixed

__all__ = ["uth_returns"]


_UTH = "58 Pa. Code 653a.12"
_UTH_SECTIONS: Final = {
    "trips": f"{_UTH}(c)",
    "progressive": f"{_UTH}(d)",
    "five_card_player": f"{_UTH}(e)",
    "five_card_dealer": f"{_UTH}(e)",
}


def _category_chances(cards: int) -> dict[str, Fraction]:
    by_category = uth_counts(cards)
    total = sum(by_category.values())
    return {HAND_NAMES[c]: Fraction(by_category.get(int(c), 0), total) for c in CATEGORIES}


def _uth_chances(paytable: Paytable, cards: int) -> dict[str | None, Fraction]:
    hands = _category_chances(cards)
    chances: dict[str | None, Fraction] = {}
    for line in paytable.lines:
        chances[line.name] = hands[line.name]
    chances[None] = 1 - Fraction(sum(chances.values()))
    return chances


def uth_returns(rules: UthRules) -> list[WagerReturn]:
    """The exact return of every optional wager an Ultimate Texas Hold 'Em table offers:
    Trips on the seven cards (653a.12(c)), the Progressive Payout on the two cards and the
    flop with the Envy Bonus at a full table ((d)), the Five Card Hand Bonus on the player's
    and on the dealer's hand with its Magic Card or Lucky Bonus ((e)); at the smallest wager
    offered, where the meters weigh most."""
    out: list[WagerReturn] = []
    fold_note = (
        ()
        if rules.side_wagers_settle_on_fold
        else ("a folded hand loses these wagers: the figure is the most they return",)
    )
    trips = rules.trips
    if trips is not None:
        out.append(
            assemble(
                wager="trips",
                title="Trips",
                section=_UTH_SECTIONS["trips"],
                field_name="uth.trips",
                paytable=trips,
                cite="58 Pa. Code 653a.12(c)",
                chances=_uth_chances(trips, 7),
                stake=rules.trips_limits.minimum,
                counted="seven-card hands (the player's two cards and the five community cards)",
                notes=fold_note,
            )
        )
    if rules.progressive_amounts and rules.progressive_meter is not None:
        stake = min(rules.progressive_amounts)
        hands = _category_chances(5)
        envy = ENVY_BONUS[stake]
        extras = [
            (
                f"Envy Bonus: {line.name} at another seat",
                "58 Pa. Code 653a.12(d)(5)",
                str(line.pay),
                (rules.seats - 1) * hands[line.name],
                Fraction(line.pay.cents, stake) if isinstance(line.pay, Fixed) else Fraction(0),
            )
            for line in envy.lines
        ]
        paytable = Paytable(
            PROGRESSIVE_PAYTABLE.name, PROGRESSIVE_PAYTABLE.lines, (rules.progressive_meter,)
        )
        out.append(
            assemble(
                wager="progressive",
                title="Progressive Payout",
                section=_UTH_SECTIONS["progressive"],
                field_name="uth.progressive",
                paytable=paytable,
                cite="58 Pa. Code 653a.12(d)(1)",
                chances=_uth_chances(PROGRESSIVE_PAYTABLE, 5),
                stake=stake,
                counted="five-card hands (the player's two cards and the flop)",
                extras=extras,
                notes=(f"Envy Bonus at a full table of {rules.seats} seats", *fold_note),
            )
        )
    if rules.five_card_amounts and rules.five_card_meter is not None:
        for wager, whose in (("five_card_player", "player's"), ("five_card_dealer", "dealer's")):
            out.append(_five_card(rules, wager, whose, fold_note if whose == "player's" else ()))
    return out


def _five_card(rules: UthRules, wager: str, whose: str, notes: Sequence[str]) -> WagerReturn:
    """653a.12(e)(1)-(3) on one hand, by the shared
    :func:`~game_server.rules.wagers.five_card_bonus.five_card_return`: the hand's five cards
    as ``five_card_hand`` reads them; a Magic Card is among the hand's two cards 2 times in 52."""
    meter = rules.five_card_meter
    assert meter is not None
    seven = rules.five_card_hand is FiveCardHand.BEST_OF_SEVEN
    hand = "best five of the seven cards" if seven else "two cards and the flop"
    return five_card_return(
        rules,
        wager=wager,
        whose=whose,
        section=_UTH_SECTIONS[wager],
        cite="58 Pa. Code 653a.12(e)(1)",
        bonus_cite="58 Pa. Code 653a.12(e)(3)",
        chances=_uth_chances(FIVE_CARD_PAYTABLE, 7 if seven else 5),
        paytable=FIVE_CARD_PAYTABLE,
        meter=meter,
        stake=min(rules.five_card_amounts),
        magic_in_hand=Fraction(2, 52),
        counted=f"{7 if seven else 5}-card hands (the {whose} {hand})",
        field_name="uth.five_card",
        readings=[f'the hand made of the {hand}, hand = "{rules.five_card_hand.value}"'],
        reading_field="uth.five_card.hand" if seven else "",
        reading_cite="58 Pa. Code 653a.12(e)(2)" if seven else "",
        notes=notes,
    )
