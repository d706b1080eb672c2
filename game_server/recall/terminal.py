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

JSON-ready (integers and text). Entry point: :func:`terminal_recall`.
"""

from __future__ import annotations

from typing import Any, Final

from game_server.eventlog import EventLogReader
from game_server.recall.query import fetch_round, list_rounds
from game_server.recall.timeline import DEALER_WHO, Timeline, build_timeline, wager_title

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
            game = game_of(build_timeline(logged), terminal)
            if game is not None:
                games.append(game)
    return {"v": RECALL_VERSION, "terminal": terminal, "games": games}


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
            results.append(
                {
                    "wager": data["wager"],
                    "title": wager_title(data["wager"]),
                    "hand": data["hand"],
                    "stake": data["stake"],
                    "paid": data["paid"],
                    "outcome": data["outcome"],
                    "line": data["line"],
                }
            )
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
