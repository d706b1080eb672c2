"""Caribbean Stud Poker in game recall: its wagers' titles and a sentence for each of its
records.

Entry points: :data:`WAGER_TITLES`, :func:`describe`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from game_server.games.caribbean.rules.events import (
    DEALER,
    ENVY,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    LUCKY,
    MAGIC,
    MYSTERY,
    CaribbeanCardDealt,
    CaribbeanDealerRevealed,
    CaribbeanDecision,
    CaribbeanDecisionOpened,
    CaribbeanMysteryPaid,
    CaribbeanRoundCompleted,
    CaribbeanSettlementStarted,
    CaribbeanWagerPlaced,
    CaribbeanWagerSettled,
)
from game_server.games.caribbean.rules.game import WAGER_TITLES as ENGINE_TITLES
from game_server.recall.rounds import Logged
from game_server.recall.timeline import (
    DEALER_WHO,
    TABLE_WHO,
    Described,
    Labels,
    card_field,
    card_text,
)
from shared.money import format_money

__all__ = ["WAGER_TITLES", "describe"]

#: Its wagers' titles: the engine's and those of the awards it settles apart.
WAGER_TITLES: Final[Mapping[str, str]] = {
    **ENGINE_TITLES,
    ENVY: "Envy Bonus",
    MYSTERY: "Must-Hit-By Mystery Bonus",
    FIVE_CARD_PLAYER + MAGIC: "Magic Card Bonus (player's hand)",
    FIVE_CARD_DEALER + MAGIC: "Magic Card Bonus (dealer's hand)",
    FIVE_CARD_PLAYER + LUCKY: "Lucky Bonus (player's hand)",
    FIVE_CARD_DEALER + LUCKY: "Lucky Bonus (dealer's hand)",
}


def describe(item: Logged, labels: Labels) -> Described | None:
    ev, terminal = item.event, item.stored.terminal
    who = terminal if terminal is not None else TABLE_WHO
    kind = type(ev)
    if kind is CaribbeanWagerPlaced:
        title = WAGER_TITLES.get(ev.wager, ev.wager)
        data = {"seat": ev.seat, "terminal": terminal, "wager": ev.wager, "amount": ev.amount}
        return (
            who,
            f"{labels.seat(ev.seat)} places {title} {format_money(ev.amount)}",
            data,
        )
    if kind is CaribbeanCardDealt:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "card": card_field(ev.card),
            "position": ev.position,
            "face_up": ev.face_up,
        }
        where = f"(deck position {ev.position})"
        if ev.seat == DEALER:
            if ev.card is None:  # sealed: a hole card of the round in play
                return DEALER_WHO, f"dealer is dealt {card_text(None)} {where}", data
            how = "face up" if ev.face_up else "face down"
            return DEALER_WHO, f"dealer is dealt {card_text(ev.card)} {how} {where}", data
        return who, f"{labels.seat(ev.seat)} is dealt {card_text(ev.card)} {where}", data
    if kind is CaribbeanDecisionOpened:
        return TABLE_WHO, "decision: fold or BET 2X", {"seats": list(ev.seats)}
    if kind is CaribbeanDecision:
        what = "makes the Bet Wager (2X)" if ev.action == "bet" else "folds"
        auto = " (countdown)" if ev.auto else ""
        data = {"seat": ev.seat, "terminal": terminal, "action": ev.action, "auto": ev.auto}
        return who, f"{labels.seat(ev.seat)} {what}{auto}", data
    if kind is CaribbeanDealerRevealed:
        qualifies = "qualifies" if ev.qualifies else "does not qualify"
        data = {"cards": [str(c) for c in ev.cards], "hand": ev.hand, "qualifies": ev.qualifies}
        return DEALER_WHO, f"dealer shows {ev.hand} and {qualifies}", data
    if kind is CaribbeanSettlementStarted:
        data = {
            "magic_card": [str(c) for c in ev.magic_card],
            "lucky_position": ev.lucky_position,
            "meters": [list(m) for m in ev.meters],
        }
        drawn = ", ".join(
            [f"Magic Card {card_text(c)}" for c in ev.magic_card]
            + ([] if ev.lucky_position is None else [f"Lucky position {ev.lucky_position}"])
        )
        return TABLE_WHO, f"settlement{': ' + drawn if drawn else ''}", data
    if kind is CaribbeanWagerSettled or kind is CaribbeanMysteryPaid:
        title = WAGER_TITLES.get(ev.wager, ev.wager)
        text = f"{labels.seat(ev.seat)} {title}: {ev.line}, paid {format_money(ev.paid)}"
        return who, text, {"terminal": terminal, **ev._asdict()}
    if kind is CaribbeanRoundCompleted:
        data = {
            "dealer_cards": [str(c) for c in ev.dealer_cards],
            "dealer_hand": ev.dealer_hand,
        }
        return TABLE_WHO, "round complete", data
    return None
