"""The Buzzer Beater wager of the three-position hybrid table, 58 Pa. Code 633b.5(m), (u),
(v)(3): that the player's hand will have a point count of 19 or greater and will lose against
(or tie) the dealer's hand.

The three-position engine (:mod:`game_server.rules.hybrid.three_position`) settles it; this
declaration lets the Rules Submission offer it with its limits (633b.5(m): "If specified in
its rules submission"), names its payout odds for the rules screen (633b.5(c)(3)), and keeps it
off every other kind of table. ``evaluate`` is the same rule as the engine's, on the seat's
first hand and the dealer's final hand.
"""

from __future__ import annotations

import re

from game_server.rules.wagers.base import (
    Moment,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
    TableType,
)
from shared.money import ToOne

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


def evaluate(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633b.5(u): on the player's first hand and the dealer's final hand."""
    from game_server.rules.hybrid.three_position import buzzer_beater_result

    hand = ctx.player_hands[0] if ctx.player_hands else ctx.player_cards
    _, line, odds = buzzer_beater_result(hand, len(ctx.player_hands) > 1, ctx.dealer_cards)
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
    cites={"paytables": "(v)(3)", "requires": "(m)", "table_types": "(m)"},
)
