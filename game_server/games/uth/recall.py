"""Ultimate Texas Hold 'Em's game recall (58 Pa. Code 653a): its events as the recall timeline
tells them, and a terminal's part of a round.

The steps are the UTH engine's: each seat's two cards, the dealer's two (face down: their
values appear in the data only if the round reveals them, ``uth_dealer_revealed``), the flop,
turn and river, every decision of each street (by the player or by the countdown), the hands
shown with their categories, the Magic Card and Lucky Bonus drawn, and every settlement with
its 653a.12 paytable line (:func:`describe`). :func:`uth_game_of` is one terminal's part of a
round: its wagers, its two cards, the community cards, the dealer's two cards (``None``
unless the round revealed them), its decisions street by street, its final hand and the
dealer's, the Magic Card and Lucky Bonus drawn, and each settlement with its paytable line
(``"game": "uth"``).

Entry points: :func:`describe`, :func:`labels`, :func:`uth_game_of`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from game_server.games.uth.rules.events import (
    BOARD,
    DEALER,
    ENVY,
    LUCKY,
    MAGIC,
    UthCardDealt,
    UthDealerRevealed,
    UthDecision,
    UthHandShown,
    UthPayoutCapped,
    UthRoundCompleted,
    UthSettlementStarted,
    UthStreetStarted,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.game import WAGER_TITLES as ENGINE_TITLES
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

__all__ = ["WAGER_TITLES", "describe", "labels", "uth_game_of"]

#: Ultimate Texas Hold 'Em wagers and awards (653a.12).
WAGER_TITLES: Final = {
    **ENGINE_TITLES,
    "play": "Play",
    ENVY: "Envy Bonus",
    "five_card_player" + MAGIC: "Magic Card (player's hand)",
    "five_card_player" + LUCKY: "Lucky Bonus (player's hand)",
    "five_card_dealer" + MAGIC: "Magic Card (dealer's hand)",
    "five_card_dealer" + LUCKY: "Lucky Bonus (dealer's hand)",
}


def labels(seats: Mapping[int, str], events: Iterable[Logged]) -> Labels:
    """The seats' labels of a round, with the dealer's cards' reveal under :data:`DEALER`."""
    items = list(events)
    found = Labels(seats, items)
    shown = [item for item in items if type(item.event) is UthDealerRevealed]
    found.revealed = {DEALER: shown[0]} if shown else {}
    return found


_OWN_KINDS: Final = frozenset(
    {
        UthWagerPlaced,
        UthCardDealt,
        UthStreetStarted,
        UthDecision,
        UthDealerRevealed,
        UthHandShown,
        UthSettlementStarted,
        UthWagerSettled,
        UthPayoutCapped,
        UthRoundCompleted,
    }
)
_STREETS: Final = {"preflop": "before the flop", "flop": "on the flop", "river": "at the river"}


def describe(item: Logged, labels: Labels) -> Described | None:
    """``(who, text, data)`` of an Ultimate Texas Hold 'Em event (653a) (None for the table's
    own records); ``labels.revealed`` holds the ``uth_dealer_revealed`` under the key 0 when
    the round reveals the dealer's cards (:func:`labels`)."""
    ev = item.event
    kind = type(ev)
    if kind not in _OWN_KINDS:
        return None
    revealed = labels.revealed
    terminal = item.stored.terminal
    who = terminal if terminal is not None else TABLE_WHO
    if kind is UthWagerPlaced:
        data = {"seat": ev.seat, "terminal": terminal, "wager": ev.wager, "amount": ev.amount}
        text = f"{labels.seat(ev.seat)} wagers {format_money(ev.amount)} on {wager_title(ev.wager)}"
        return who, text, data
    if kind is UthCardDealt:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "position": ev.position,
            "face_up": ev.face_up,
            "card": card_field(ev.card),
        }
        where = f"(deck position {ev.position})"
        if ev.seat == BOARD:
            return TABLE_WHO, f"community card {card_text(ev.card)} is dealt {where}", data
        if ev.seat == DEALER:
            shown = revealed.get(DEALER)
            data["card"] = card_field(ev.card) if shown is not None else None
            data["revealed_seq"] = shown.seq if shown is not None else None
            return DEALER_WHO, f"dealer is dealt a card face down {where}", data
        return who, f"{labels.seat(ev.seat)} is dealt {card_text(ev.card)} {where}", data
    if kind is UthStreetStarted:
        data = {"street": ev.street, "seats": list(ev.seats)}
        seats = ", ".join(labels.seat(s) for s in ev.seats)
        return TABLE_WHO, f"decisions {_STREETS.get(ev.street, ev.street)}: {seats}", data
    if kind is UthDecision:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "street": ev.street,
            "action": ev.action,
            "multiple": ev.multiple,
            "auto": ev.auto,
            "by": "countdown" if ev.auto else "player",
        }
        verb = {"check": "checks", "fold": "folds"}.get(
            ev.action, f"makes the Play Wager of {ev.multiple} times the Ante"
        )
        by = "by the countdown (no action in time)" if ev.auto else "by the player"
        street = _STREETS.get(ev.street, ev.street)
        return who, f"{labels.seat(ev.seat)} {verb} {street}, {by}", data
    if kind is UthDealerRevealed:
        data = {
            "cards": [str(c) for c in ev.cards],
            "hand": ev.hand,
            "five": [str(c) for c in ev.five],
            "qualifies": ev.qualifies,
        }
        text = f"dealer reveals {cards_text(ev.cards)}: {ev.hand} ({cards_text(ev.five)}), " + (
            "qualifies" if ev.qualifies else "does not qualify"
        )
        return DEALER_WHO, text, data
    if kind is UthHandShown:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "hand": ev.hand,
            "five": [str(c) for c in ev.five],
            "folded": ev.folded,
        }
        folded = " (folded)" if ev.folded else ""
        text = f"{labels.seat(ev.seat)} holds {ev.hand} ({cards_text(ev.five)}){folded}"
        return who, text, data
    if kind is UthSettlementStarted:
        data = {
            "magic_card": [str(c) for c in ev.magic_card],
            "lucky_position": ev.lucky_position,
            "meters": [list(m) for m in ev.meters],
        }
        parts = []
        if ev.magic_card:
            parts.append(f"Magic Card {cards_text(ev.magic_card)}")
        if ev.lucky_position is not None:
            drawn = ev.lucky_position
            lucky = "the dealer" if drawn == 0 else labels.drawn_seat(drawn)
            parts.append(f"Lucky Bonus position {lucky}")
        drawn = "; drawn: " + ", ".join(parts) if parts else ""
        return TABLE_WHO, f"settlement begins{drawn}", data
    if kind is UthWagerSettled:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "wager": ev.wager,
            "stake": ev.stake,
            "paid": ev.paid,
            "from_meter": ev.from_meter,
            "won": ev.paid - ev.stake if ev.paid > ev.stake else 0,
            "outcome": ev.outcome,
            "line": ev.line,
        }
        text = (
            f"{labels.seat(ev.seat)} {wager_title(ev.wager)} {ev.outcome} ({ev.line}): pays "
            f"{format_money(ev.paid)} on a {format_money(ev.stake)} stake"
        )
        return who, text, data
    if kind is UthPayoutCapped:
        data = {"seat": ev.seat, "terminal": terminal, "uncapped": ev.uncapped, "cap": ev.cap}
        text = (
            f"{labels.seat(ev.seat)}: winnings of {format_money(ev.uncapped)} limited to the "
            f"maximum payout {format_money(ev.cap)} (653a.12(f))"
        )
        return who, text, data
    data = {
        "dealer_cards": [str(c) for c in ev.dealer_cards],
        "board": [str(c) for c in ev.board],
        "dealer_hand": ev.dealer_hand,
    }
    text = (
        f"round complete: dealer {cards_text(ev.dealer_cards)}, board "
        f"{cards_text(ev.board)}: {ev.dealer_hand}"
    )
    return DEALER_WHO, text, data


def uth_game_of(timeline: Timeline, terminal: str) -> dict[str, Any] | None:
    """This terminal's part of one recalled Ultimate Texas Hold 'Em round (653a)."""
    seat = next((s for s, t in timeline.seats.items() if t == terminal), None)
    if seat is None:
        return None
    wagers: dict[str, int] = {}
    cards: list[str] = []
    board: list[str] = []
    dealer: list[str | None] = []
    decisions: list[str] = []
    results: list[dict[str, Any]] = []
    hand: dict[str, Any] | None = None
    dealer_hand: dict[str, Any] | None = None
    draws: dict[str, Any] = {"magic_card": None, "lucky_position": None}
    for entry in timeline.entries:
        data = entry.data
        kind = entry.kind
        if kind == "uth_card_dealt" and data["seat"] < 0:
            board.append(data["card"])
        elif kind == "uth_card_dealt" and data["seat"] == 0:
            dealer.append(data["card"])
        elif kind == "uth_dealer_revealed":
            dealer_hand = {"name": data["hand"], "five": data["five"]}
        elif kind == "uth_settlement_started":
            draws = {
                "magic_card": data["magic_card"][0] if data["magic_card"] else None,
                "lucky_position": data["lucky_position"],
            }
        elif data.get("terminal") != terminal or data.get("seat") != seat:
            continue
        elif kind == "uth_wager_placed":
            wagers[data["wager"]] = wagers.get(data["wager"], 0) + data["amount"]
        elif kind == "uth_card_dealt":
            cards.append(data["card"])
        elif kind == "uth_decision":
            decisions.append(entry.text)
        elif kind == "uth_hand_shown":
            hand = {"name": data["hand"], "five": data["five"], "folded": data["folded"]}
        elif kind == "uth_wager_settled":
            results.append(settlement_result(data))
    if not wagers and not results:
        return None
    return {
        "game": "uth",
        **recalled_head(timeline, terminal, seat, wagers, results),
        "cards": cards,
        "board": board,
        "hand": hand,
        "dealer": {"cards": dealer, "hand": dealer_hand},
        **draws,
        "decisions": decisions,
        "results": results,
    }
