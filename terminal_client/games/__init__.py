"""The games this terminal draws, found through entry points, as the server finds its games.

A game's terminal side is a package (``terminal_client/games/<game>/``) that provides one
object satisfying :class:`~terminal_client.games.api.TerminalGame`: how it reads its views,
which screens it shows, its demo bot, its recall page. The terminal's platform (the model,
the screen stack, the overlays, the app and its command) knows only that contract. A game
is registered by one line of ``pyproject.toml``::

    [project.entry-points."etg.terminal_games"]
    blackjack = "terminal_client.games.blackjack.game:GAME"

Each view the server sends is read by the game it names (its ``"game"`` key; the views of
the first tables carry none, and the game whose :meth:`~TerminalGame.claims` recognises the
view reads it). A view of a game this terminal does not have is read and drawn by the
generic game (:class:`~terminal_client.games.generic.GenericGame`): its common keys, a table
of cards, a button per wager and per decision. That fallback is what a new game gets before
it writes a screen of its own.

Entry points: :func:`games`, :func:`for_view`, :func:`for_recall`, :func:`named`,
:func:`register`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, cast

from shared.errors import ETGError
from shared.plugins import named_entry_points

if TYPE_CHECKING:
    from terminal_client.games.api import TerminalGame
    from terminal_client.model.state import TerminalModel

__all__ = [
    "ENTRY_POINT_GROUP",
    "UnknownTerminalGame",
    "by_name",
    "for_recall",
    "for_view",
    "games",
    "named",
    "of",
    "register",
    "registered",
    "unregister",
]

#: The entry point group every game's terminal side registers under.
ENTRY_POINT_GROUP: Final = "etg.terminal_games"

_installed: dict[str, TerminalGame] | None = None
_added: dict[str, TerminalGame] = {}


class UnknownTerminalGame(ETGError):
    """A game's terminal side registered twice, or under another name than its own."""


def _load() -> dict[str, TerminalGame]:
    global _installed
    if _installed is None:
        _installed = named_entry_points(ENTRY_POINT_GROUP)
    return _installed


def games() -> tuple[TerminalGame, ...]:
    """Every registered game: the installed ones in entry point order, then those added by
    :func:`register`."""
    return tuple({**_load(), **_added}.values())


def named(name: str) -> TerminalGame | None:
    """The game registered as ``name`` (None: this terminal does not have it)."""
    for game in games():
        if game.name == name:
            return game
    return None


def by_name(name: str) -> TerminalGame:
    """The game registered as ``name``, else the generic game under that name."""
    from terminal_client.games.generic import GenericGame

    return named(name) or GenericGame(name)


def for_view(data: object) -> TerminalGame:
    """The game that reads the view ``data``: the one its ``"game"`` names, else the one that
    claims it; the generic game when this terminal has neither."""
    from terminal_client.games.generic import GenericGame

    if isinstance(data, Mapping):
        name = data.get("game")
        if isinstance(name, str):
            return named(name) or GenericGame(name)
        for game in games():
            if game.claims(data):
                return game
    return GenericGame(None)


def of(model: TerminalModel) -> TerminalGame:
    """The game of ``model``'s last view, the whole contract (the model itself names only
    what it reads of it: :class:`~terminal_client.model.state.ModelGame`); the generic game
    before the first view. The model holds only a game :func:`for_view` gave it, so this is
    that game, looked up in nothing."""
    return cast("TerminalGame", model.game)


def for_recall(data: Mapping[str, Any]) -> TerminalGame:
    """The game that reads one recalled game of ``GetRecall``: the one it names (its
    ``"game"``), else the one that claims it; the generic game otherwise."""
    from terminal_client.games.generic import GenericGame

    name = data.get("game")
    if isinstance(name, str):
        return named(name) or GenericGame(name)
    for game in games():
        if game.claims_recall(data):
            return game
    return GenericGame(None)


def register(game: TerminalGame) -> None:
    """Add ``game`` to the registry (a game not installed through an entry point).

    Raises:
        UnknownTerminalGame: a game of that name is registered already.
    """
    if any(g.name == game.name for g in games()):
        raise UnknownTerminalGame(f"a game named {game.name!r} is registered already")
    _added[game.name] = game


def unregister(name: str) -> None:
    """Remove a game :func:`register` added."""
    _added.pop(name, None)


@contextmanager
def registered(game: TerminalGame) -> Iterator[TerminalGame]:
    """``game`` registered for the duration of a ``with`` block (tests)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.name)
