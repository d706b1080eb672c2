"""The hybrid tables' game recall (58 Pa. Code 633b.5): players, community cards and dealer
hands as the recall timeline tells them, and a terminal's part of a round.

In stadium play terminals hold no seat: a player is named by his terminal and his position
(three-position table: ``"T1 (position 2)"``) or by his number in the round and his terminal
(no-hole-card table, numbered in join order: ``"player 1 (T1)"``); community cards, the cards
a player used or had designated to his hand or to his own dealer hand, and each player's
dealer hand completed get their sentences (:func:`describe`); the Blackjack engine's records
are told as at the fully automated table. :func:`hybrid_game_of` is a terminal's part of a
round, its hands and the dealer hand it faced replayed through the table's engine.

Entry points: :class:`HybridLabels`, :func:`describe`, :func:`hybrid_game_of`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from game_server.games.blackjack import recall as blackjack
from game_server.games.blackjack.recall import DECISION_TEXT
from game_server.games.blackjack.rules.events import CardDealt, HoleCardRevealed, RoundCompleted
from game_server.games.blackjack.session import SECRECY as BLACKJACK_SECRECY
from game_server.games.hybrid.rules import no_hole_card, three_position
from game_server.games.hybrid.rules.events import (
    Hybrid3CardUsed,
    Hybrid3CommunityCard,
    Hybrid3Decision,
    Hybrid3WagerPlaced,
    Hybrid3WagerSettled,
)
from game_server.games.hybrid.rules.no_hole_card import (
    ALL_PLAYERS,
    COMMUNITY,
    TO_DEALER,
    CardDesignated,
    DealerHandCompleted,
)
from game_server.games.hybrid.session import HybridSession, three_position_rules
from game_server.games.hybrid.views import hybrid_view_for
from game_server.recall.rounds import Logged, LoggedRound
from game_server.recall.terminal import settlement_result
from game_server.recall.timeline import (
    DEALER_WHO,
    TABLE_WHO,
    Described,
    Labels,
    Timeline,
    balances_text,
    card_text,
    cards_text,
    started_data,
    wager_title,
)
from game_server.rules.errors import RulesError
from game_server.rules.wagers.base import TableType
from game_server.table.events import RoundStarted
from game_server.table.secrecy import StillSealed, stood_in
from game_server.table.session import MemorySink, SealedShoes
from shared.money import format_money

__all__ = ["HybridLabels", "describe", "hybrid_game_of"]


class HybridLabels(Labels):
    """The labels of a hybrid table's round: ``"player 1 (T1)"`` (no hole card: the
    player's number in the round); ``"position 2"`` for a position's cards and
    ``"T1 (position 2)"`` for a player (three-position table), ``"hand 2"`` only for a player
    who split."""

    def __init__(
        self, table_type: TableType, seats: Mapping[int, str], events: Iterable[Logged]
    ) -> None:
        self.table_type = table_type
        items = list(events)
        super().__init__(seats, items)
        self.revealed = {
            item.event.position: item for item in items if type(item.event) is HoleCardRevealed
        }

    def counts_hand(self, ev: Any) -> bool:
        # A card designated to a player's dealer hand: its ``hand`` is the card's place there.
        return not (type(ev) is CardDesignated and ev.target == TO_DEALER)

    def seat(self, seat: int, hand: int | None = None) -> str:
        terminal = self.seats.get(seat)
        if self.table_type is TableType.HYBRID:
            label = f"position {seat}"
        else:
            label = f"player {seat}" + (f" ({terminal})" if terminal else "")
        if hand is not None and seat in self.split:
            label += f" hand {hand + 1}"
        return label

    def player(self, player: str, position: int, hand: int | None = None) -> str:
        """A player of the three-position table: his terminal and position (633b.5(l))."""
        label = f"{player} (position {position})"
        if hand is not None and player in self.split_players:
            label += f" hand {hand + 1}"
        return label


def describe(item: Logged, labels: HybridLabels) -> Described | None:
    """``(who, text, data)`` of an event of a hybrid table's round: its engine's own records,
    the cards every player or the community box is dealt, the round's start in stadium play
    and, without a hole card, its completion; the Blackjack records as Blackjack tells them
    (None for the table's own records)."""
    ev = item.event
    kind = type(ev)
    if kind in _OWN_KINDS:
        return _describe_own(item, labels)
    if kind is CardDealt and ev.seat in (ALL_PLAYERS, COMMUNITY):
        terminal = item.stored.terminal
        data = {
            "seat": ev.seat,
            "hand": ev.hand,
            "terminal": terminal,
            "position": ev.position,
            "face_up": ev.face_up,
            "card": str(ev.card),
        }
        who = terminal if terminal is not None else TABLE_WHO
        where = f"(shoe position {ev.position})"
        if ev.seat == ALL_PLAYERS:
            return who, f"every player is dealt {card_text(ev.card)} {where}", data
        return who, f"community card {card_text(ev.card)} is dealt {where}", data
    if kind is RoundCompleted and labels.table_type is TableType.HYBRID_NO_HOLE_CARD:
        data = {"dealer_cards": [str(c) for c in ev.dealer_cards], "dealer_total": ev.dealer_total}
        text = (
            f"round complete: every player's dealer hand is final (the dealer's up card "
            f"{cards_text(ev.dealer_cards)}; the rest differs by player, 633b.5(y))"
        )
        return DEALER_WHO, text, data
    if kind is RoundStarted:
        text = (
            f"round {ev.round} opens for wagers, shoe {ev.shoe}; terminals "
            f"{', '.join(ev.terminals) or 'none'} (stadium play, no seats); credits "
            f"{balances_text(ev.terminals, ev.balances) or 'none'}"
        )
        return TABLE_WHO, text, started_data(ev)
    return blackjack.describe(item, labels)


_OWN_KINDS: Final = frozenset(
    {
        Hybrid3WagerPlaced,
        Hybrid3Decision,
        Hybrid3CommunityCard,
        Hybrid3CardUsed,
        Hybrid3WagerSettled,
        CardDesignated,
        DealerHandCompleted,
    }
)


def _describe_own(item: Logged, labels: HybridLabels) -> Described:
    """``(who, text, data)`` of an event only a hybrid engine produces (633b.5)."""
    ev = item.event
    kind = type(ev)
    terminal = item.stored.terminal
    who = terminal if terminal is not None else TABLE_WHO
    if kind is Hybrid3CommunityCard:
        data = {"number": ev.number, "card": str(ev.card), "position": ev.position}
        text = f"community card {ev.number} is {card_text(ev.card)} (shoe position {ev.position})"
        return TABLE_WHO, text, data
    if kind is CardDesignated:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "target": ev.target,
            "hand": ev.hand,
            "card": str(ev.card),
            "position": ev.position,
        }
        card = f"{card_text(ev.card)} (shoe position {ev.position})"
        if ev.target == TO_DEALER:
            place = "as its hole card" if ev.hand == 1 else f"as its card {ev.hand + 1}"
            text = f"{labels.seat(ev.seat)}'s dealer hand takes community card {card} {place}"
        else:
            text = f"{labels.seat(ev.seat, ev.hand)} takes community card {card}"
        return who, text, data
    if kind is DealerHandCompleted:
        data = {
            "seat": ev.seat,
            "terminal": terminal,
            "dealer_cards": [str(c) for c in ev.dealer_cards],
            "dealer_total": ev.dealer_total,
            "blackjack": ev.blackjack,
        }
        total = "Blackjack" if ev.blackjack else str(ev.dealer_total)
        text = (
            f"{labels.seat(ev.seat)}'s dealer hand is complete: "
            f"{cards_text(ev.dealer_cards)} = {total}; his wagers are settled"
        )
        return who, text, data
    label = labels.player(ev.player, ev.position, ev.hand)
    data = {"player": ev.player, "position": ev.position, "hand": ev.hand, "terminal": terminal}
    if kind is Hybrid3WagerPlaced:
        data.update(wager=ev.wager, amount=ev.amount)
        text = f"{label} wagers {format_money(ev.amount)} on {wager_title(ev.wager)}"
        return who, text, data
    if kind is Hybrid3Decision:
        data.update(
            action=ev.action,
            amount=ev.amount,
            auto=ev.auto,
            by="countdown" if ev.auto else "player",
        )
        verb = DECISION_TEXT.get(ev.action, ev.action + "s")
        amount = f" {format_money(ev.amount)}" if ev.amount else ""
        by = "by the countdown (no action in time)" if ev.auto else "by the player"
        return who, f"{label} {verb}{amount}, {by}", data
    if kind is Hybrid3CardUsed:
        data.update(number=ev.number, card=str(ev.card))
        return who, f"{label} uses community card {ev.number} ({card_text(ev.card)})", data
    data.update(
        wager=ev.wager,
        stake=ev.stake,
        paid=ev.paid,
        won=ev.paid - ev.stake if ev.paid > ev.stake else 0,
        outcome=ev.outcome,
        line=ev.line,
    )
    text = (
        f"{label} {wager_title(ev.wager)} {ev.outcome} ({ev.line}): pays "
        f"{format_money(ev.paid)} on a {format_money(ev.stake)} stake"
    )
    return who, text, data


#: The wager events of the hybrid tables' engines (58 Pa. Code 633b.5).
_HYBRID_PLACED: Final = ("hybrid3_wager_placed", "wager_placed")
_HYBRID_SETTLED: Final = ("hybrid3_wager_settled", "wager_settled")
_HYBRID_DECISIONS: Final = ("hybrid3_decision", "decision", "insurance_decision")


def hybrid_game_of(logged: LoggedRound, timeline: Timeline, terminal: str) -> dict[str, Any] | None:
    """This terminal's part of one round of a hybrid table (58 Pa. Code 633b.5), or None if
    it placed no wager in it: the game of :func:`game_of`, its hands and the dealer hand THIS
    player faced (at the no-hole-card table his own, 633b.5(aa)) from a replay of the round
    through its table's engine, and the community cards with the numbers of those in his
    hands (``position`` at the three-position table)."""
    mine = [e for e in timeline.entries if e.data.get("terminal") == terminal or e.who == terminal]
    wagers: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    decisions: list[str] = []
    for entry in mine:
        data = entry.data
        if entry.kind in _HYBRID_PLACED:
            wagers[data["wager"]] = wagers.get(data["wager"], 0) + data["amount"]
        elif entry.kind in _HYBRID_SETTLED:
            results.append(settlement_result(data))
        elif entry.kind in _HYBRID_DECISIONS:
            decisions.append(entry.text)
    if not wagers and not results:
        return None
    config = logged.config
    events = [item.event for item in logged.engine_events()]
    engine: three_position.ThreePositionRound | no_hole_card.NoHoleCardRound
    try:
        # A round in play is replayed with a stand-in for its sealed hole card, which the
        # view never shows (game_server.table.secrecy).
        events = stood_in(BLACKJACK_SECRECY, events)
        if config.table_type is TableType.HYBRID:
            engine = three_position.replay(three_position_rules(config.rules), events)
        else:
            engine = no_hole_card.replay(config.rules, events)
    except (RulesError, StillSealed):
        return None  # a round that does not replay is for etg verify, not the player
    numbers = {
        item.event.seat: item.stored.terminal
        for item in logged.engine_events()
        if item.stored.terminal is not None and isinstance(getattr(item.event, "seat", None), int)
    }
    session = HybridSession(
        config, MemorySink(), SealedShoes(config, _no_shoe, b"", ""), {terminal, *numbers.values()}
    )
    session.resume(engine, numbers)
    view = hybrid_view_for(session, terminal)["hybrid"]
    dealer = view["dealer"] or {"cards": [], "total": None}
    credits = timeline.credits.get(terminal)
    return {
        "table": timeline.table_id,
        "round": timeline.round_id,
        "status": timeline.status,
        "start": timeline.start,
        "end": timeline.end,
        # No seats at a hybrid table: the three-position table's position, else 0.
        "seat": view.get("position") or 0,
        "position": view.get("position"),
        "credits_start": None if credits is None else credits.start,
        "credits_end": None if credits is None else credits.end,
        "wagered": sum(wagers.values()),
        "paid": sum(r["paid"] for r in results),
        "wagers": wagers,
        "hands": [{"hand": h["index"], "cards": h["cards"]} for h in view["hands"]],
        "dealer": {
            "cards": [c if isinstance(c, str) else None for c in dealer["cards"]],
            "total": dealer["total"],
        },
        "community": [c["card"] for c in view["community"]],
        "decisions": decisions,
        "results": results,
    }


def _no_shoe(number: int) -> Any:
    raise RulesError("a recalled round deals no cards")  # pragma: no cover
