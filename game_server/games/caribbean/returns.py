"""What Caribbean Stud Poker's optional wagers return, exactly over every five-card hand of one
deck (2,598,960): the Progressive Payout (its Rules Submission paytable, the Envy Bonus at a
full table and the Must-Hit-By Mystery Bonus of 639b.1 when offered) and the Five Card Hand
Bonus on the player's and on the dealer's five cards with its Magic Card or Lucky Bonus. The
player-edge guard of the Rules Submission reads them; ``etg math caribbean_progressive`` and
``etg par`` print them.

Entry points: :func:`caribbean_returns`, :func:`five_card_chances`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from game_server.config import MustHitBy
from game_server.games.caribbean.rules.rules import CaribbeanRules, hand_name
from game_server.games.uth.rules.hands import CATEGORIES
from game_server.games.uth.rules.math import counts
from game_server.games.uth.rules.paytables import FIVE_CARD_PAYTABLE
from game_server.rules.poker import Category5
from game_server.rules.returns import WagerReturn, assemble
from game_server.rules.wagers.base import Paytable
from game_server.rules.wagers.five_card_bonus import five_card_return
from shared.money import MeterShare

__all__ = ["caribbean_returns", "five_card_chances"]

SECTION: Final = "58 Pa. Code 639a.12"
COUNTED: Final = "every five-card hand of one deck (2,598,960)"


def five_card_chances(paytable: Paytable) -> dict[str | None, Fraction]:
    """Each line's exact chance on five cards of one deck (None: no line)."""
    by_category = counts(5)
    total = sum(by_category.values())
    hands = {hand_name(c): Fraction(by_category.get(int(c), 0), total) for c in CATEGORIES}
    chances: dict[str | None, Fraction] = {line.name: hands[line.name] for line in paytable.lines}
    chances[None] = 1 - sum(chances.values(), Fraction(0))
    return chances


def caribbean_returns(rules: CaribbeanRules, mystery: MustHitBy | None = None) -> list[WagerReturn]:
    """The exact return of each optional wager the table offers, at its smallest amount
    (where the meters weigh most)."""
    out: list[WagerReturn] = []
    fold = (
        ()
        if rules.side_wagers_settle_on_fold
        else ("a folded hand loses these wagers: the figure is the most they return",)
    )
    progressive = rules.progressive
    if progressive is not None:
        stake = min(progressive.amounts)
        every = {hand_name(Category5(c)): p for c, p in _category_chances().items()}
        extras = []
        if progressive.envy is not None:
            for line in progressive.envy.lines:
                pay = line.pay
                assert not isinstance(pay, MeterShare)
                extras.append(
                    (
                        f"Envy Bonus: {line.name} at another seat",
                        "58 Pa. Code 639a.1",
                        str(pay),
                        (rules.seats - 1) * every[line.name],
                        Fraction(pay.win(stake), stake),
                    )
                )
        specs = () if mystery is None else (mystery.spec(),)
        notes = [f"Envy Bonus at a full table of {rules.seats} seats", *fold]
        if mystery is not None:
            notes.append(
                f"Must-Hit-By Mystery Bonus Configuration {mystery.configuration} "
                f"(58 Pa. Code 639b.1(c)(4))"
            )
        out.append(
            assemble(
                wager="progressive",
                title="Progressive Payout",
                section=SECTION,
                field_name="caribbean.progressive",
                paytable=progressive.paytable,
                cite=SECTION,
                chances=five_card_chances(progressive.paytable),
                stake=stake,
                counted=COUNTED,
                extras=extras,
                mystery=specs,
                notes=notes,
            )
        )
    if rules.five_card is not None:
        for wager, whose in (("five_card_player", "player's"), ("five_card_dealer", "dealer's")):
            out.append(_five_card(rules, wager, whose, fold if whose == "player's" else ()))
    return out


def _category_chances() -> dict[int, Fraction]:
    by_category = counts(5)
    total = sum(by_category.values())
    return {c: Fraction(by_category.get(int(c), 0), total) for c in CATEGORIES}


def _five_card(
    rules: CaribbeanRules, wager: str, whose: str, notes: tuple[str, ...]
) -> WagerReturn:
    """653a.12(e)(1)-(3) on five cards, by the shared
    :func:`~game_server.rules.wagers.five_card_bonus.five_card_return`: the Magic Card is one
    of the hand's five cards 5 times in 52."""
    terms = rules.five_card
    assert terms is not None
    return five_card_return(
        rules,
        wager=wager,
        whose=whose,
        section="58 Pa. Code 639a.1",
        cite="58 Pa. Code 653a.12(e)(1) (secondary source)",
        bonus_cite="58 Pa. Code 639a.1; 653a.12(e)(3)",
        chances=five_card_chances(FIVE_CARD_PAYTABLE),
        paytable=FIVE_CARD_PAYTABLE,
        meter=terms.meter,
        stake=min(terms.amounts),
        magic_in_hand=Fraction(5, 52),
        counted=f"{COUNTED}, the {whose} five cards",
        field_name="caribbean.five_card",
        notes=notes,
    )
