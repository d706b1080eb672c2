"""The rules document a terminal shows (58 Pa. Code 633b.5(c)(2)): built from the Rules
Submission in force by the table's game.

633b.5(c)(2) requires a game rules icon on each player station that displays the rules. The
terminal keeps no copy of them: it asks the server (``GetRules``) and shows what
:func:`rules_for` builds from the config in force (each game's
:meth:`~game_server.games.api.Game.rules_document`), so the screen can never disagree with the
table. Every game's document has one shape (``RULES_VERSION``)::

    {"v": 1, "table": id, "game": title, "lines": [the game's rules, one sentence each],
     "countdowns": [{"for", "seconds", "then"}], "limits_text": "...",
     "wagers": [{"wager", "title", "section", "min", "max", "paytable",
                 "lines": [{"hand", "pays"}], "notes": [...]}]}

each paytable line as the regulation names it and what it pays (:func:`paytable_lines`).

JSON-ready (integers and text only). Entry point: :func:`rules_for`.
"""

from __future__ import annotations

from typing import Any, Final

from game_server.config import TableConfig
from game_server.games import game_for
from game_server.rules.wagers.base import MeterSpec, Paytable
from shared.money import format_money

__all__ = ["RULES_VERSION", "meter_note", "paytable_lines", "rules_for"]

#: The version of the rules document (changes only with its shape).
RULES_VERSION: Final = 1


def rules_for(config: TableConfig) -> dict[str, Any]:
    """What the rules screen shows for ``config``: its game's rules document."""
    return game_for(config).rules_document(config)


def paytable_lines(paytable: Paytable) -> list[dict[str, str]]:
    """Each line of a paytable as the regulation names it and what it pays."""
    return [{"hand": line.name, "pays": str(line.pay)} for line in paytable.lines]


def meter_note(spec: MeterSpec | None, cite: str) -> list[str]:
    """A progressive meter's starting and reset amounts and rate, as a note (none without
    a meter)."""
    if spec is None:
        return []
    return [
        f"{spec.name} meter: starts at {format_money(spec.seed)}, resets to "
        f"{format_money(spec.reseed)}, grows by {spec.increment_bp / 100:g}% of each wager "
        f"({cite})"
    ]
