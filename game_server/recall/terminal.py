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

Each game cuts its terminal's part out of the round's timeline
(:meth:`~game_server.games.api.Game.recall_game`): its wagers by category, its cards and
the dealer's, its decisions, its results (:func:`settlement_result`) and its credits.

Every game's recall also carries, from the platform, its shoe (number, commitment, the
positions of the cards dealt, the reveal once retired) and its receipt's digest and QR
code's text (:func:`recalled_shoe`).

JSON-ready (integers and text). Entry point: :func:`terminal_recall`; for the games:
:func:`recalled_head`, :func:`settlement_result`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from game_server.eventlog import EventLogReader
from game_server.games import game_for
from game_server.recall.query import fetch_round, list_rounds
from game_server.recall.receipt import build_receipt
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline, build_timeline, wager_title

#: The current game and the 9 before it.
RECALL_GAMES: Final = 10

#: The version of the recall document.
RECALL_VERSION: Final = 1


def terminal_recall(
    reader: EventLogReader, terminal: str, last: int = RECALL_GAMES
) -> dict[str, Any]:
    """The last ``last`` games ``terminal`` played, newest first (see the module docstring)."""
    played: list[dict[str, Any]] = []
    with reader.snapshot():
        for summary in list_rounds(reader, terminal=terminal, last=last):
            # As the terminal may see it: a round in play keeps every card sealed but its own.
            logged = fetch_round(reader, summary.table_id, summary.round_id, viewer=terminal)
            if logged is None:  # pragma: no cover - listed in the same snapshot
                continue
            timeline = build_timeline(logged)
            game = game_for(logged.config).recall_game(logged, timeline, terminal)
            if game is not None:
                if logged.shoe is not None:
                    game.update(recalled_shoe(reader, logged, terminal))
                played.append(game)
    return {"v": RECALL_VERSION, "terminal": terminal, "games": played}


def recalled_shoe(reader: EventLogReader, logged: LoggedRound, terminal: str) -> dict[str, Any]:
    """What every game's recall adds, from the platform: the game's ``shoe`` (number,
    commitment, the positions of the cards this terminal and the table were dealt, and the
    reveal once the shoe is retired) and its ``receipt`` (the digest and the QR code's text
    of the game receipt, :mod:`game_server.recall.receipt`)."""
    receipt = build_receipt(reader, logged, terminal)
    game = receipt["game"]
    return {
        "shoe": {
            "number": game["shoe"]["number"],
            "commitment": game["shoe"]["commitment"],
            "positions": [card["position"] for card in game["cards"]],
            "reveal": receipt["reveal"],
        },
        "receipt": {"digest": receipt["digest"], "qr": receipt["qr"]},
    }


def recalled_head(
    timeline: Timeline,
    terminal: str,
    seat: int,
    wagers: Mapping[str, int],
    results: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """What every game's recalled game starts with: the table, round, its status and times,
    the terminal's seat, its credits at the start and end, what it wagered (``wagers`` by
    category) and what its ``results`` paid."""
    credits = timeline.credits.get(terminal)
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
        "wagers": dict(wagers),
    }


def settlement_result(data: Mapping[str, Any]) -> dict[str, Any]:
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
