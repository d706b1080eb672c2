"""Game recall at the player terminal: this terminal's current game and the 9 before it.

A player station must be able to display the last games played on it with the wagers by
category, the cards, the decisions, the results and the credits at the start and end of each
(GLI-11 "Game Recall"; AGCO Standards 13.1.1; see ``regs/notes/standards-gli.md`` section 3:
"the current game and the previous 9"). The source is the event log, not the live table, so
recall survives a restart and shows exactly what an investigator's ``etg recall show``
shows: each game here is cut from the same :class:`~game_server.recall.timeline.Timeline`.

Only this terminal's part of each round leaves the server: its own wagers, hands, decisions,
results and credits, and the dealer's cards (a face-down hole card stays ``None`` until the
round reveals it). Other players' wagers and credits are not sent.

At an Ultimate Texas Hold 'Em table (58 Pa. Code 653a) a game is this terminal's wagers,
its two cards, the community cards, the dealer's two cards (``None`` unless the round
revealed them), its decisions street by street, its final hand and the dealer's, the Magic
Card and Lucky Bonus drawn, and each settlement with its paytable line (``"game": "uth"``).

JSON-ready (integers and text). Entry point: :func:`terminal_recall`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.eventlog import EventLogReader
from game_server.games.hybrid.rules import no_hole_card, three_position
from game_server.recall.query import fetch_round, list_rounds
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import DEALER_WHO, Timeline, build_timeline, wager_title
from game_server.rules.errors import RulesError
from game_server.rules.wagers.base import TableType

#: The current game and the 9 before it.
RECALL_GAMES: Final = 10

#: The version of the recall document.
RECALL_VERSION: Final = 1


def terminal_recall(
    reader: EventLogReader, terminal: str, last: int = RECALL_GAMES
) -> dict[str, Any]:
    """The last ``last`` games ``terminal`` played, newest first (see the module docstring)."""
    games: list[dict[str, Any]] = []
    with reader.snapshot():
        for summary in list_rounds(reader, terminal=terminal, last=last):
            logged = fetch_round(reader, summary.table_id, summary.round_id)
            if logged is None:  # pragma: no cover - listed in the same snapshot
                continue
            timeline = build_timeline(logged)
            if logged.config.table_type is TableType.FULLY_AUTOMATED:
                game = game_of(timeline, terminal)
            else:
                game = hybrid_game_of(logged, timeline, terminal)
            if game is not None:
                games.append(game)
    return {"v": RECALL_VERSION, "terminal": terminal, "games": games}


def game_of(timeline: Timeline, terminal: str) -> dict[str, Any] | None:
    """This terminal's part of one recalled round, or None if it had no seat or wager in it."""
    if timeline.game == "uth":
        return _uth_game_of(timeline, terminal)
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
            results.append(_result(data))
    if not wagers and not results:
        return None
    credits = timeline.credits.get(terminal)
    dealer_total = next(
        (e.data["dealer_total"] for e in timeline.entries if e.kind == "round_completed"), None
    )
    return {
        "table": timeline.table_id,
        "round": timeline.round_id,
        "status": timeline.status,
        "start": timeline.start,
        "end": timeline.end,
        "seat": seat,
        "credits_start": None if credits is None else credits.start,
        "credits_end": None if credits is None else credits.end,
        "wagered": sum(wagers.values()),
        "paid": sum(r["paid"] for r in results),
        "wagers": wagers,
        "hands": [{"hand": index, "cards": cards} for index, cards in sorted(hands.items())],
        "dealer": {"cards": dealer, "total": dealer_total},
        "decisions": decisions,
        "results": results,
    }


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
    from game_server.games.hybrid.session import HybridSession, three_position_rules
    from game_server.games.hybrid.views import hybrid_view_for
    from game_server.table.session import MemorySink, SealedShoes

    mine = [e for e in timeline.entries if e.data.get("terminal") == terminal or e.who == terminal]
    wagers: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    decisions: list[str] = []
    for entry in mine:
        data = entry.data
        if entry.kind in _HYBRID_PLACED:
            wagers[data["wager"]] = wagers.get(data["wager"], 0) + data["amount"]
        elif entry.kind in _HYBRID_SETTLED:
            results.append(_result(data))
        elif entry.kind in _HYBRID_DECISIONS:
            decisions.append(entry.text)
    if not wagers and not results:
        return None
    config = logged.config
    events = [item.event for item in logged.engine_events()]
    engine: three_position.ThreePositionRound | no_hole_card.NoHoleCardRound
    try:
        if config.table_type is TableType.HYBRID:
            engine = three_position.replay(three_position_rules(config.rules), events)
        else:
            engine = no_hole_card.replay(config.rules, events)
    except RulesError:
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


def _uth_game_of(timeline: Timeline, terminal: str) -> dict[str, Any] | None:
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
            results.append(_result(data))
    if not wagers and not results:
        return None
    credits = timeline.credits.get(terminal)
    return {
        "game": "uth",
        "table": timeline.table_id,
        "round": timeline.round_id,
        "status": timeline.status,
        "start": timeline.start,
        "end": timeline.end,
        "seat": seat,
        "credits_start": None if credits is None else credits.start,
        "credits_end": None if credits is None else credits.end,
        "wagered": sum(wagers.values()),
        "paid": sum(r["paid"] for r in results),
        "wagers": wagers,
        "cards": cards,
        "board": board,
        "hand": hand,
        "dealer": {"cards": dealer, "hand": dealer_hand},
        **draws,
        "decisions": decisions,
        "results": results,
    }


def _result(data: Mapping[str, Any]) -> dict[str, Any]:
    """One settlement of this terminal as recall shows it: the logged fields, the wager's
    title, and its hand or what the meter paid where the game logs them."""
    result = {
        "wager": data["wager"],
        "title": wager_title(data["wager"]),
        "stake": data["stake"],
        "paid": data["paid"],
        "outcome": data["outcome"],
        "line": data["line"],
    }
    for optional in ("hand", "from_meter"):
        if optional in data:
            result[optional] = data[optional]
    return result
