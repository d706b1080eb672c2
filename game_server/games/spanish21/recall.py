"""Spanish 21's recall: Blackjack's sentences for the same records, with Spanish 21's wager
names, and the recall pictures (the views a terminal had, rebuilt from the log).

Wager titles are looked up across every registered game (the first to name a wager wins), so
Blackjack's "Blackjack" would name the Spanish 21 wager: :func:`describe` renames the wagers
of :data:`WAGER_TITLES` in the sentences it takes from Blackjack's recall.

Entry points: :data:`WAGER_TITLES`, :func:`describe`, :func:`round_views`.
"""

from __future__ import annotations

from typing import Any, Final

from game_server.games.blackjack import recall as blackjack_recall
from game_server.games.blackjack.pictures import blackjack_round_views
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DOUBLE,
    INSURANCE,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.spanish21.machine import GAME_NAME, table_actions
from game_server.games.spanish21.rules.match_the_dealer import NAME as MATCH_THE_DEALER
from game_server.games.spanish21.rules.match_the_dealer import TITLE as MATCH_TITLE
from game_server.games.spanish21.rules.round import SUPER_BONUS
from game_server.recall.rounds import Logged, LoggedRound
from game_server.recall.timeline import Described, Labels, wager_title

__all__ = ["OWN_TITLES", "WAGER_TITLES", "describe", "round_views"]

#: The wagers of a Spanish 21 table (the main one keeps the engine's name ``"blackjack"``).
WAGER_TITLES: Final = {
    BLACKJACK: "Spanish 21",
    DOUBLE: "Double down",
    INSURANCE: "Insurance",
    MATCH_THE_DEALER: MATCH_TITLE,
    SUPER_BONUS: "Super bonus",
}
#: The wagers only Spanish 21 has (its ``Game.wager_titles``).
OWN_TITLES: Final = {MATCH_THE_DEALER: MATCH_TITLE, SUPER_BONUS: "Super bonus"}


def describe(item: Logged, labels: Labels) -> Described | None:
    """Blackjack's ``(who, text, data)`` of the record, Spanish 21's wager named as such."""
    described = blackjack_recall.describe(item, labels)
    ev = item.event
    if described is None or type(ev) not in (WagerPlaced, WagerSettled):
        return described
    who, text, data = described
    mine = WAGER_TITLES.get(ev.wager)
    if mine is not None:
        text = text.replace(f" {wager_title(ev.wager)}", f" {mine}", 1)
    return who, text, data


def round_views(logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
    """The view ``terminal`` had after each event of the round: Blackjack's pictures, the
    round replayed through the Spanish 21 engine (the registry's replay), each view naming
    the game and its decisions as the live view does."""
    views = blackjack_round_views(logged, terminal)
    actions = table_actions(logged.config.rules)
    for view in views:
        view["game"] = GAME_NAME
        view["table_actions"] = actions
    return views
