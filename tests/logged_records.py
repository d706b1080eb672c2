"""Reading a memory sink's log back as records, whole: each round's sealed cards filled in
from its ``cards_unsealed`` (:func:`game_server.table.secrecy.unsealed`).

The log holds a card dealt face down (or to one player's eyes) sealed until the round
closes; a test of a game's flow wants the records the engine made, a test of secrecy the
log's own form (``sink.steps``' bodies).
"""

from __future__ import annotations

from typing import Any

from game_server.rules.events import from_dict
from game_server.table.secrecy import unsealed
from game_server.table.session import MemorySink


def logged_steps(sink: MemorySink) -> list[list[tuple[str | None, Any]]]:
    """Every step of ``sink`` as ``(terminal, record)`` pairs, each round whole."""
    flat = [(row.terminal, from_dict(row.body)) for step in sink.steps for row in step]
    whole = iter(unsealed(flat))
    return [[next(whole) for _ in step] for step in sink.steps]


def logged_records(sink: MemorySink) -> list[tuple[str | None, Any]]:
    """Every record of ``sink`` in order, as ``(terminal, record)``, each round whole."""
    return [item for step in logged_steps(sink) for item in step]


def unseal_bodies(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One round's logged bodies (in log order) with each sealed card (``"card": null``
    beside a ``"position"``) filled in from the round's ``cards_unsealed``; a round in play
    keeps them null."""
    unsealed: dict[int, str] = {}
    for body in bodies:
        if body["kind"] == "cards_unsealed":
            unsealed.update(zip(body["positions"], body["cards"], strict=True))
    return [
        {**body, "card": unsealed.get(body["position"])}
        if "position" in body and body.get("card", "") is None
        else body
        for body in bodies
    ]
