"""The games each side of the system deals and draws, found through Python's entry points
(``importlib.metadata``): what the server's registry (:mod:`game_server.games`) and the
terminal's (:mod:`terminal_client.games`) share.

Entry point: :func:`named_entry_points`.
"""

from __future__ import annotations

from typing import Any

from shared.errors import ETGError

__all__ = ["MisnamedEntryPoint", "named_entry_points"]


class MisnamedEntryPoint(ETGError):
    """An entry point whose object has another ``name`` than the entry point's."""


def named_entry_points(group: str) -> dict[str, Any]:
    """Every object registered under the entry point ``group``, by name, in entry point
    order; each object's ``name`` must be its entry point's (the same game installed twice:
    the first one found wins).

    Raises:
        MisnamedEntryPoint: an object named otherwise than its entry point.
    """
    # Imported here: importlib.metadata pulls in zipfile and time, which the pure rules
    # of a game package must not load.
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for point in entry_points(group=group):
        if point.name in found:
            continue
        loaded = point.load()
        if loaded.name != point.name:
            raise MisnamedEntryPoint(
                f"the entry point {point.name!r} of group {group!r} loads the game "
                f"{loaded.name!r}: name the entry point as the game"
            )
        found[point.name] = loaded
    return found
