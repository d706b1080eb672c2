"""The live Spanish 21 table: Blackjack's round machine with Spanish 21's decisions and view.

:class:`Spanish21Machine` is the Blackjack package's
:class:`~game_server.games.blackjack.machine.RoundMachine` (the betting window, the insurance
and decision countdowns, the pause between rounds, close and out of service after the round in
play, save then send) over a :class:`~.session.Spanish21Session`. At zero the decision
countdown does what Blackjack's does (stand, or hit a hard 11 or less where the Rules
Submission says so): it never doubles, never rescues a doubled hand (which stands).

The view (:meth:`Spanish21Machine.view`) is Blackjack's, which never sends the dealer's hole
card before the engine turns it up, with the game's name, its decisions (the rescue among them)
and the Match the Dealer meter.

Entry points: :class:`Spanish21Machine`, :func:`parse_action`, :func:`table_actions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from game_server.games.blackjack.machine import RoundMachine, UnknownAction
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.views import view_for
from game_server.games.spanish21.info import spanish21_rules_for
from game_server.games.spanish21.rules.round import Spanish21Action
from game_server.games.spanish21.rules.rules import Spanish21Rules

__all__ = ["GAME_NAME", "Spanish21Machine", "parse_action", "spanish21_view", "table_actions"]

#: The game's registry name, as every view names it.
GAME_NAME: Final = "spanish21"


def parse_action(action: str) -> Spanish21Action:
    """The Spanish 21 decision an ``Act`` command names.

    Raises:
        UnknownAction: any other name; the message lists the decisions.
    """
    try:
        return Spanish21Action(action)
    except ValueError:
        choices = ", ".join(a.value for a in Spanish21Action)
        raise UnknownAction(f"{action!r} is not a Spanish 21 decision; one of {choices}") from None


def table_actions(rules: Spanish21Rules) -> list[str]:
    """The decisions a Spanish 21 table offers at all: hit, stand, double down (on any number
    of cards), split, the rescue after a double (635a.10) and late surrender where the Rules
    Submission allows it. Which are legal for a hand now is the view's ``actions``."""
    offered = [
        Spanish21Action.HIT,
        Spanish21Action.STAND,
        Spanish21Action.DOUBLE,
        Spanish21Action.SPLIT,
        Spanish21Action.RESCUE,
    ]
    if rules.late_surrender:
        offered.append(Spanish21Action.SURRENDER)
    return [str(action) for action in offered]


def spanish21_view(
    table: RoundMachine | TableSession, terminal: str, shared: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Blackjack's view of ``table`` (a machine, or a bare session) for ``terminal``, naming
    the game, with Spanish 21's decisions (``shared``: as Blackjack's
    :func:`~game_server.games.blackjack.views.view_for` takes it)."""
    shared = {} if shared is None else shared
    view = view_for(table, terminal, shared)
    if "spanish21_actions" not in shared:
        config = table.session.config if isinstance(table, RoundMachine) else table.config
        shared["spanish21_actions"] = table_actions(config.rules)
    view["game"] = GAME_NAME
    view["table_actions"] = shared["spanish21_actions"]
    return view


class Spanish21Machine(RoundMachine):
    """The live Spanish 21 table over a :class:`~.session.Spanish21Session`."""

    def parse_action(self, terminal: str, action: str) -> Spanish21Action:  # type: ignore[override]
        """The Spanish 21 decision an ``Act`` command names (:func:`parse_action`)."""
        return parse_action(action)

    def view(self, terminal: str) -> dict[str, Any]:
        """Blackjack's view of the table for ``terminal``, naming the game, with Spanish 21's
        decisions."""
        return spanish21_view(self, terminal)

    def views(self, terminals: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The views of ``terminals`` at once (as :meth:`view`), what they share built once."""
        shared: dict[str, Any] = {}
        return {terminal: spanish21_view(self, terminal, shared) for terminal in terminals}

    def rules(self, terminal: str) -> dict[str, Any]:
        """The rules screen's content (:func:`~.info.spanish21_rules_for`)."""
        return spanish21_rules_for(self.session.config)
