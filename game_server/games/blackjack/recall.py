"""Blackjack's game recall: its events as the recall timeline tells them, and a terminal's
part of a round (the terminal's recall screen).

:func:`describe` gives each of the engine's records (wagers, cards, decisions, the peek, the
hole card, settlements, the round's completion, a progressive hit) its sentence and data; the
dealer's hole card is ``"dealer hole card (face down)"`` where it was dealt, its value in the
data only if the round reveals it (``hole_card_revealed``, :func:`labels`). :func:`game_of` cuts
one terminal's part out of a :class:`~game_server.recall.timeline.Timeline`.

Entry points: :func:`describe`, :func:`labels`, :func:`game_of`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    DOUBLE,
    INSURANCE,
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    ProgressiveWon,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.recall.rounds import Logged
from game_server.recall.terminal import recalled_head, settlement_result
from game_server.recall.timeline import (
    DEALER_WHO,
    TABLE_WHO,
    Described,
    Labels,
    Timeline,
    card_field,
    card_text,
    cards_text,
    wager_title,
)
from shared.money import format_money

__all__ = ["DECISION_TEXT", "WAGER_TITLES", "describe", "game_of", "labels"]

#: The main game's wagers (the side wagers' titles are the shared registry's).
WAGER_TITLES: Final = {BLACKJACK: "Blackjack", DOUBLE: "Double down", INSURANCE: "Insurance"}
#: How a decision reads in a sentence (other actions: the action and an "s").
DECISION_TEXT: Final = {
    "insurance": "takes insurance",
    "no-insurance": "declines insurance",
    "even-money": "takes even money",
    "double": "doubles down",
}


def labels(seats: Mapping[int, str], events: Iterable[Logged]) -> Labels:
    """The seats' labels of a round, with the hole card's reveal by shoe position."""
    items = list(events)
    found = Labels(seats, items)
    found.revealed = {
        item.event.position: item for item in items if type(item.event) is HoleCardRevealed
    }
    return found


def describe(item: Logged, labels: Labels) -> Described | None:
    """``(who, text, data)`` of one of the Blackjack engine's records (None for any other:
    the table's own records are described by the platform)."""
    ev = item.event
    kind = type(ev)
    terminal = item.stored.terminal
    who = terminal if terminal is not None else TABLE_WHO
    if kind is WagerPlaced:
        data = {
            "seat": ev.seat,
            "hand": ev.hand,
            "terminal": terminal,
            "wager": ev.wager,
            "amount": ev.amount,
        }
        text = (
            f"{labels.seat(ev.seat, ev.hand)} wagers {format_money(ev.amount)} on "
            f"{wager_title(ev.wager)}"
        )
        return who, text, data
    if kind is CardDealt:
        data = {
            "seat": ev.seat,
            "hand": ev.hand,
            "terminal": terminal,
            "position": ev.position,
            "face_up": ev.face_up,
            "card": card_field(ev.card),
        }
        where = f"(shoe position {ev.position})"
        if ev.seat == DEALER:
            who = DEALER_WHO
            if not ev.face_up:
                revealed = labels.revealed.get(ev.position)
                data["card"] = card_field(ev.card) if revealed is not None else None
                data["revealed_seq"] = revealed.seq if revealed is not None else None
                return who, f"dealer hole card (face down) {where}", data
            return who, f"dealer is dealt {card_text(ev.card)} {where}", data
        return who, f"{labels.seat(ev.seat, ev.hand)} is dealt {card_text(ev.card)} {where}", data
    if kind is Decision:
        data = {
            "seat": ev.seat,
            "hand": ev.hand,
            "terminal": terminal,
            "action": ev.action,
            "amount": ev.amount,
            "auto": ev.auto,
            "by": "countdown" if ev.auto else "player",
        }
        verb = DECISION_TEXT.get(ev.action, ev.action + "s")
        amount = f" {format_money(ev.amount)}" if ev.amount else ""
        by = "by the countdown (no action in time)" if ev.auto else "by the player"
        return who, f"{labels.seat(ev.seat, ev.hand)} {verb}{amount}, {by}", data
    if kind is DealerPeeked:
        text = "dealer peeks for Blackjack: " + (
            "dealer has Blackjack" if ev.blackjack else "no Blackjack"
        )
        return DEALER_WHO, text, {"blackjack": ev.blackjack}
    if kind is HoleCardRevealed:
        data = {"card": str(ev.card), "position": ev.position}
        text = f"dealer hole card revealed: {card_text(ev.card)} (shoe position {ev.position})"
        return DEALER_WHO, text, data
    if kind is WagerSettled:
        data = {
            "seat": ev.seat,
            "hand": ev.hand,
            "terminal": terminal,
            "wager": ev.wager,
            "stake": ev.stake,
            "paid": ev.paid,
            "won": ev.paid - ev.stake if ev.paid > ev.stake else 0,
            "outcome": ev.outcome,
            "line": ev.line,
        }
        text = (
            f"{labels.seat(ev.seat, ev.hand)} {wager_title(ev.wager)} {ev.outcome} "
            f"({ev.line}): pays {format_money(ev.paid)} on a {format_money(ev.stake)} stake"
        )
        return who, text, data
    if kind is RoundCompleted:
        data = {"dealer_cards": [str(c) for c in ev.dealer_cards], "dealer_total": ev.dealer_total}
        text = f"round complete: dealer's hand {cards_text(ev.dealer_cards)} = {ev.dealer_total}"
        return DEALER_WHO, text, data
    if kind is ProgressiveWon:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "wager": ev.wager,
            "meter": ev.meter,
            "percent": ev.percent,
            "line": ev.line,
        }
        text = (
            f"{labels.seat(ev.seat)} {wager_title(ev.wager)} hits {ev.line}: {ev.percent}% of "
            f"the {ev.meter or 'meter'}"
        )
        return who, text, data
    return None


def game_of(timeline: Timeline, terminal: str) -> dict[str, Any] | None:
    """This terminal's part of one recalled round, or None if it had no seat or wager in it."""
    mine = [e for e in timeline.entries if e.data.get("terminal") == terminal]
    seat = next((s for s, t in timeline.seats.items() if t == terminal), None)
    if seat is None:
        seat = next((e.data["seat"] for e in mine if "seat" in e.data), None)
    if seat is None:
        return None
    wagers: dict[str, int] = {}  # by category: blackjack, double, insurance, side wagers
    hands: dict[int, list[str]] = {}
    decisions: list[str] = []
    results: list[dict[str, Any]] = []
    dealer: list[str | None] = []
    for entry in timeline.entries:
        data = entry.data
        if entry.kind == "card_dealt" and entry.who == DEALER_WHO:
            dealer.append(data["card"])
            continue
        if data.get("terminal") != terminal or data.get("seat") != seat:
            continue
        if entry.kind == "wager_placed":
            wagers[data["wager"]] = wagers.get(data["wager"], 0) + data["amount"]
        elif entry.kind == "card_dealt":
            hands.setdefault(data["hand"], []).append(data["card"])
        elif entry.kind == "decision":
            decisions.append(entry.text)
        elif entry.kind == "wager_settled":
            results.append(settlement_result(data))
    if not wagers and not results:
        return None
    dealer_total = next(
        (e.data["dealer_total"] for e in timeline.entries if e.kind == "round_completed"), None
    )
    return {
        **recalled_head(timeline, terminal, seat, wagers, results),
        "hands": [{"hand": index, "cards": cards} for index, cards in sorted(hands.items())],
        "dealer": {"cards": dealer, "total": dealer_total},
        "decisions": decisions,
        "results": results,
    }
