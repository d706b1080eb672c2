"""Four Card Poker's game recall: its records as the recall timeline tells them.

Each seat's five cards, the dealer's six (the first face up; the other five name their card
in the data only if the round reveals them, ``fourcard_dealer_revealed``), each decision (by
the player or by the countdown), and every settlement with its paytable line and paragraph.
A terminal's part of a round is the platform's (:meth:`GameBase.recall_game`: its wagers,
its five cards, the dealer's cards as far as revealed, its decisions, its results).

Entry points: :func:`describe`, :func:`labels`, :data:`WAGER_TITLES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from game_server.games.fourcard.rules.events import (
    ACES_UP,
    ANTE,
    ANTE_BONUS,
    DEALER,
    FIVE_CARD_ENVY,
    FIVE_CARD_PROGRESSIVE,
    FOUR_CARD_ENVY,
    FOUR_CARD_PROGRESSIVE,
    MUST_HIT_BY,
    PLAY,
    FourCardCardDealt,
    FourCardDealerRevealed,
    FourCardDecision,
    FourCardMysteryPaid,
    FourCardRoundCompleted,
    FourCardWagerPlaced,
    FourCardWagerSettled,
)
from game_server.recall.rounds import Logged
from game_server.recall.timeline import (
    DEALER_WHO,
    TABLE_WHO,
    Described,
    Labels,
    card_field,
    card_text,
    cards_text,
)
from shared.money import format_money

__all__ = ["WAGER_TITLES", "describe", "labels"]

#: Four Card Poker's wagers and awards as recall and the meters name them.
WAGER_TITLES: Final[Mapping[str, str]] = {
    ANTE: "Ante",
    PLAY: "Play",
    ANTE_BONUS: "Ante Bonus",
    ACES_UP: "Aces Up",
    FOUR_CARD_PROGRESSIVE: "Four-Card Progressive",
    FIVE_CARD_PROGRESSIVE: "Five-Card Progressive",
    FOUR_CARD_ENVY: "Four-Card Envy Bonus",
    FIVE_CARD_ENVY: "Five-Card Envy Bonus",
    MUST_HIT_BY: "Must-Hit-By Mystery Bonus",
}


def labels(seats: Mapping[int, str], events: Iterable[Logged]) -> Labels:
    """The seats' labels, with the dealer's reveal under :data:`DEALER`."""
    items = list(events)
    found = Labels(seats, items)
    shown = [item for item in items if type(item.event) is FourCardDealerRevealed]
    found.revealed = {DEALER: shown[0]} if shown else {}
    return found


def describe(item: Logged, labels: Labels) -> Described | None:
    """``(who, text, data)`` of one Four Card Poker record (None for the platform's)."""
    ev = item.event
    kind = type(ev)
    terminal = item.stored.terminal
    who = terminal if terminal is not None else TABLE_WHO
    if kind is FourCardWagerPlaced:
        data = {"seat": ev.seat, "terminal": terminal, "wager": ev.wager, "amount": ev.amount}
        title = WAGER_TITLES.get(ev.wager, ev.wager)
        return who, f"{labels.seat(ev.seat)} wagers {format_money(ev.amount)} on {title}", data
    if kind is FourCardCardDealt:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "position": ev.position,
            "face_up": ev.face_up,
            "card": card_field(ev.card),
        }
        where = f"(deck position {ev.position})"
        if ev.seat == DEALER:
            if ev.face_up:
                return DEALER_WHO, f"dealer is dealt {card_text(ev.card)} face up {where}", data
            shown = labels.revealed.get(DEALER)
            data["card"] = card_field(ev.card) if shown is not None else None
            data["revealed_seq"] = shown.seq if shown is not None else None
            return DEALER_WHO, f"dealer is dealt a card face down {where}", data
        return who, f"{labels.seat(ev.seat)} is dealt {card_text(ev.card)} {where}", data
    if kind is FourCardDecision:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "action": ev.action,
            "multiple": ev.multiple,
            "auto": ev.auto,
            "by": "countdown" if ev.auto else "player",
        }
        verb = "folds" if ev.action == "fold" else f"plays {ev.multiple} times the Ante"
        by = "by the countdown (no decision in time)" if ev.auto else "by the player"
        return who, f"{labels.seat(ev.seat)} {verb}, {by}", data
    if kind is FourCardDealerRevealed:
        data = {"cards": [str(c) for c in ev.cards], "hand": ev.name}
        return DEALER_WHO, f"dealer shows {cards_text(ev.cards)}: {ev.name}", data
    if kind is FourCardWagerSettled or kind is FourCardMysteryPaid:
        data = {"terminal": terminal, **ev._asdict()}
        title = WAGER_TITLES.get(ev.wager, ev.wager)
        text = f"{labels.seat(ev.seat)} {title}: {ev.line}; paid {format_money(ev.paid)}"
        return who, text, data
    if kind is FourCardRoundCompleted:
        data = {"dealer_cards": [str(c) for c in ev.dealer_cards], "dealer_hand": ev.dealer_hand}
        return TABLE_WHO, f"round complete; the dealer held {ev.dealer_hand}", data
    return None
