"""The Buzzer Beater wager of the three-position hybrid table, 58 Pa. Code 633b.5(m), (u),
(v)(3): that the player's hand will have a point count of 19 or greater and will lose against
(or tie) the dealer's hand.

The three-position table's engine (the hybrid game's) settles it by
:func:`buzzer_beater_result`; this
declaration lets the Rules Submission offer it with its limits (633b.5(m): "If specified in
its rules submission"), names its payout odds for the rules screen (633b.5(c)(3)), states the
reading of "the player's hand" (option ``basis``, :class:`Basis`) and keeps it off every other
kind of table. ``evaluate`` is the same rule as the engine's.

Which hand is "the player's hand" is a reading, stated in the Rules Submission (``basis``):

- ``"first-two-cards"`` (the default, shipped): the position's first two cards. 633b.5(p)(1)
  speaks of the Buzzer Beater wagers "placed on that player position", several players share
  a position's first two cards (633b.5(l), (n)), and the player column of (v)(3) holds
  exactly the two-card totals of 19 or more (Blackjack, 20, 19), which is why a 21 that is
  not Blackjack has no line. The player's own draws do not change the wager; the dealer's
  final hand is compared with the two cards. It returns 76.46% with six decks, exactly
  (``etg math buzzer_beater``).
- ``"final-hand"``: the player's final hand (his first hand after a split), "a to 1" on top of
  the stake; a 20 the player stands on against a dealer 21 at 30 to 1 alone is worth about
  0.65 of a unit, and the wager returns about 120% (``etg par``): the player-edge guard of
  the Rules Submission refuses it (:mod:`game_server.rules.returns`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import StrEnum

from game_server.rules.twenty_one import hand_total, is_blackjack
from game_server.rules.wagers.base import (
    LOST,
    PUSHED,
    WON,
    Moment,
    OptionSpec,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
    TableType,
)
from shared.cards import Card
from shared.money import ToOne


class Basis(StrEnum):
    """The hand a Buzzer Beater is settled on (module docstring): the Rules Submission's
    ``basis``."""

    FIRST_TWO_CARDS = "first-two-cards"
    FINAL_HAND = "final-hand"


#: The Rules Submission's option naming the :class:`Basis`.
BASIS_OPTION = "basis"

#: 633b.5(v)(3), keyed by (player hand, dealer hand); "21" in the dealer column means "21 or
#: Blackjack" as the table writes it.
BUZZER_BEATER_PAYS: dict[tuple[str, str], ToOne] = {
    ("Blackjack", "Blackjack"): ToOne(5, 1),
    ("20", "20"): ToOne(5, 1),
    ("20", "21"): ToOne(30, 1),
    ("19", "19"): ToOne(5, 1),
    ("19", "20"): ToOne(10, 1),
    ("19", "21"): ToOne(10, 1),
}

#: What this engine pays a Buzzer Beater on a player 21 that is not Blackjack against a
#: dealer 21 by default: (v)(3) has no line for it (module docstring).
BUZZER_BEATER_21_PAYS = ToOne(5, 1)

SECTION = "58 Pa. Code 633b.5"
#: The engine's line for a win: "Buzzer Beater 20/21 or Blackjack 30 to 1 (...)".
_RESULT = re.compile(r"Buzzer Beater (Blackjack|\d+)/(.+?) \d+ to \d+")
PAYTABLE = "Payout Odds"


def _line_name(player: str, dealer: str) -> str:
    return f"{player} against {'21 or Blackjack' if dealer == '21' else dealer}"


#: 633b.5(v)(3), player hand against dealer hand, and the 21/21 case the table leaves out
#: (paid as every equal-hand line, see the engine's module docstring).
PAYTABLES = {
    PAYTABLE: Paytable(
        PAYTABLE,
        (
            *(PaytableLine(_line_name(p, d), pay) for (p, d), pay in BUZZER_BEATER_PAYS.items()),
            PaytableLine("21 against 21 (not in the (v)(3) table)", BUZZER_BEATER_21_PAYS),
        ),
    )
}


LINE_BB_PLAYER_BEAT = "Buzzer Beater loses: the player's hand beat the dealer's (633b.5(u)(2)(i))"
LINE_BB_UNDER_19 = (
    "Buzzer Beater loses: the dealer's hand beat a hand that is not 19, 20, 21 or Blackjack "
    "(633b.5(u)(2)(ii))"
)
LINE_BB_NOT_19 = (
    "Buzzer Beater loses: the player's hand is not 19, 20, 21 or Blackjack (633b.5(m), (u))"
)
LINE_BB_21_PUSH = (
    "Buzzer Beater 21/21: wins under 633b.5(u)(1) but (v)(3) has no odds; stake returned"
)


def _bb_rank(total: int, blackjack: bool) -> str:
    return "Blackjack" if blackjack else str(total)


def buzzer_beater_result(
    cards: Sequence[Card],
    from_split: bool,
    dealer: Sequence[Card],
    pays_21: ToOne | None = BUZZER_BEATER_21_PAYS,
) -> tuple[str, str, ToOne | None]:
    """Settle a Buzzer Beater wager by 633b.5(u) and (v)(3): outcome, line, odds of a win.

    It wins when the player's hand is 19, 20, 21 or Blackjack and the dealer's hand is equal
    or greater without exceeding 21 (a dealer Blackjack is greater than any 21 that is not
    Blackjack, (t)(1)(iii), (t)(3)(iii)). ``pays_21`` is the odds of a player 21 that is not
    Blackjack (no line in (v)(3); None: the stake is returned).
    """
    total = hand_total(cards)[0]
    dealer_total = hand_total(dealer)[0]
    blackjack = not from_split and is_blackjack(cards)
    dealer_blackjack = is_blackjack(dealer)
    if total > 21:
        return LOST, LINE_BB_UNDER_19, None
    # Player's strength and dealer's strength: Blackjack ranks above a 21 of more cards.
    mine = 22 if blackjack else total
    theirs = -1 if dealer_total > 21 else (22 if dealer_blackjack else dealer_total)
    if mine > theirs:
        return LOST, LINE_BB_PLAYER_BEAT, None
    if total < 19:
        if mine < theirs:
            return LOST, LINE_BB_UNDER_19, None
        return LOST, LINE_BB_NOT_19, None
    player = _bb_rank(total, blackjack)
    dealer_rank = "21" if dealer_total == 21 else str(dealer_total)
    if player == "21":
        if pays_21 is None:
            return PUSHED, LINE_BB_21_PUSH, None
        return WON, f"Buzzer Beater 21/21 {pays_21} (633b.5(u)(1); not in (v)(3))", pays_21
    if player == "Blackjack":
        dealer_rank = "Blackjack"
    odds = BUZZER_BEATER_PAYS[(player, dealer_rank)]
    shown = "21 or Blackjack" if dealer_rank == "21" else dealer_rank
    return WON, f"Buzzer Beater {player}/{shown} {odds} (633b.5(v)(3))", odds


def basis(options: Mapping[str, object]) -> Basis:
    """The :class:`Basis` the Rules Submission's options state (the default when absent)."""
    return Basis(str(options.get(BASIS_OPTION, Basis.FIRST_TWO_CARDS)))


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.5(u) with the dealer's final hand: on the position's first two cards, or on the
    player's first hand when the Rules Submission reads ``final-hand``."""
    if basis(ctx.options) is Basis.FIRST_TWO_CARDS:
        hand, from_split = ctx.player_cards[:2], False
    else:
        hand = ctx.player_hands[0] if ctx.player_hands else ctx.player_cards
        from_split = len(ctx.player_hands) > 1
    _, line, odds = buzzer_beater_result(hand, from_split, ctx.dealer_cards)
    found = _RESULT.match(line)
    if odds is None or found is None:
        return None
    player, dealer = found.group(1), found.group(2)
    if player == "21":
        return paytable.lines[-1]
    return paytable.line(f"{player} against {dealer}")


BUZZER_BEATER = SideWager(
    name="buzzer_beater",
    title="Buzzer Beater",
    section=SECTION,
    settles_at=Moment.AFTER_ROUND,
    paytables=PAYTABLES,
    evaluate=evaluate,
    requires=("blackjack",),
    table_types=frozenset({TableType.HYBRID}),
    allowed_decks=frozenset({6, 8}),
    cites={"paytables": "(v)(3)", "requires": "(m)", "table_types": "(m)", "allowed_decks": "(f)"},
    options={
        BASIS_OPTION: OptionSpec(
            choices=tuple(b.value for b in Basis),
            default=Basis.FIRST_TWO_CARDS.value,
            cite="(m), (p)(1), (u)",
            text="The hand the wager is settled on: the position's first two cards, or the "
            "player's final hand",
        )
    },
)
