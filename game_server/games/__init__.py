"""The games this build deals, found through Python's plug-in mechanism: entry points.

A game is a package (``game_server/games/<game>/``) that provides one object satisfying
:class:`~game_server.games.api.Game`; the platform (table flow, countdowns, network, log,
recall, verify and the tools) knows only that contract, never a game's name. A game is
registered by one line of ``pyproject.toml``::

    [project.entry-points."etg.games"]
    blackjack = "game_server.games.blackjack.game:GAME"

read here with ``importlib.metadata.entry_points(group="etg.games")``, as pytest and setuptools
find their plug-ins; the built-in games are simply the first entries, and a game can also ship
as a wheel of its own. :func:`register` adds a game at run time (a test's own game).

The registry loads every game the first time it is asked (loading a game registers its event
records, which recall and verification need to read a log of any table).

Entry points: :func:`games`, :func:`game_for`, :func:`game_named`, :func:`dealing`,
:func:`register`; the contract is :mod:`game_server.games.api`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

from shared.errors import ETGError
from shared.plugins import named_entry_points

if TYPE_CHECKING:
    from game_server.config import TableConfig
    from game_server.games.api import Game
    from game_server.rules.wagers.base import TableType

__all__ = [
    "ENTRY_POINT_GROUP",
    "UnknownGame",
    "config_games",
    "dealing",
    "game_for",
    "game_named",
    "games",
    "generation",
    "register",
    "registered",
    "unregister",
]

#: The entry point group every game registers under.
ENTRY_POINT_GROUP: Final = "etg.games"

_installed: dict[str, Game] | None = None
_added: dict[str, Game] = {}
_generation = 0


class UnknownGame(ETGError):
    """A game (or a table type of a game) that no registered game deals."""


def _load() -> dict[str, Game]:
    global _installed
    if _installed is None:
        _installed = named_entry_points(ENTRY_POINT_GROUP)
    return _installed


def games() -> tuple[Game, ...]:
    """Every registered game: the installed ones in entry point order, then those added by
    :func:`register`."""
    return tuple({**_load(), **_added}.values())


def generation() -> int:
    """A number that changes whenever :func:`register` or :func:`unregister` changes the
    games (what is derived from every game can be cached against it)."""
    return _generation


def game_named(name: str) -> Game:
    """The game registered as ``name``.

    Raises:
        UnknownGame: no game has that name.
    """
    for game in games():
        if game.name == name:
            return game
    names = ", ".join(repr(g.name) for g in games())
    raise UnknownGame(f"no game named {name!r} is registered; this build has {names}")


def config_games() -> tuple[str, ...]:
    """The ``[table] game`` values of the registered games, each once, in registry order."""
    return tuple(dict.fromkeys(game.config_game for game in games()))


def dealing(config_game: object, table_type: object = None) -> Game | None:
    """The game that deals ``[table] game = config_game`` at a table of ``table_type``;
    with a type no game of that name runs (or none), the first game of that name (its
    Rules Submission then reports the type). None when no game has that name."""
    named = [game for game in games() if game.config_game == config_game]
    for game in named:
        if table_type in game.table_types:
            return game
    return named[0] if named else None


def logged_table_type(config: object) -> TableType:
    """The table type a logged config (a ``table_opened``'s ``config``) names; fully
    automated if it names none this build knows (a reader of the log then reports the
    config itself)."""
    from game_server.rules.wagers.base import TableType

    table = config.get("table") if isinstance(config, dict) else None
    named = table.get("type") if isinstance(table, dict) else None
    if isinstance(named, str) and named in {t.value for t in TableType}:
        return TableType(named)
    return TableType.FULLY_AUTOMATED


def logged_game(config: object) -> Game:
    """The game that dealt a logged config: by its ``[table] game`` and type
    (:func:`logged_table_type`); the first registered game when it names none this build
    knows (a reader of the log then reports the config itself)."""
    table = config.get("table") if isinstance(config, dict) else None
    game = table.get("game") if isinstance(table, dict) else None
    return dealing(game, logged_table_type(config)) or games()[0]


def game_for(config: TableConfig) -> Game:
    """The game of a loaded Rules Submission (by its game and table type).

    Raises:
        UnknownGame: no registered game deals it (a game uninstalled since the config was
            loaded).
    """
    for game in games():
        if game.config_game == config.game and config.table_type in game.table_types:
            return game
    raise UnknownGame(
        f"table {config.table_id} deals {config.game!r} at a {config.table_type} table, which "
        "no registered game deals"
    )


def register(game: Game) -> None:
    """Add ``game`` to the registry (a game not installed through an entry point).

    Raises:
        UnknownGame: a game of that name is registered already.
    """
    global _generation
    if any(g.name == game.name for g in games()):
        raise UnknownGame(f"a game named {game.name!r} is registered already")
    _added[game.name] = game
    _generation += 1


def unregister(name: str) -> None:
    """Remove a game :func:`register` added."""
    global _generation
    if _added.pop(name, None) is not None:
        _generation += 1


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """``game`` registered for the duration of a ``with`` block (tests, tools)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.name)
