"""The Rules Submission of one table: a TOML file, loaded and checked against the regulations.

A certificate holder states in its Rules Submission (58 Pa. Code 601a.2) the options it has
chosen for a table game: decks, limits, the wagers it offers and the paytable selected for
each. Here that submission is one TOML file per table. :func:`load_config` reads it, hands it
to the game its ``[table] game`` (and ``type``) names (:func:`game_server.games.dealing`),
whose Rules Submission section checks every value against the regulations and against what
this build supports, and returns a frozen :class:`TableConfig`. Nothing is defaulted silently:
an unknown key is an error, and a file with problems is refused as a whole.

This module is the platform's part, the same for every game: the table's :class:`TableConfig`
(id, game, type, the game's rules, shuffle, timers, chips), the errors, the file and logged
forms, and the reader every game's section is written with (:class:`Section` and the helpers
beside it, the cut card, the countdown bounds and the shared Must-Hit-By section: defined in
:mod:`game_server.config_sections`, re-exported here). Each game's
own sections, keys and checks are in its package (``game_server/games/<game>/config.py``),
and its example files too (``game_server/games/<game>/configs/*.toml``: :func:`example_path`).

Every problem found is collected and reported together in one :class:`ConfigError`, one line
per problem, each naming the field as a dotted path (``wagers.lucky_aces.paytable``) and, where
a regulation is the reason, the section: ``Lucky Aces is offered only on a fully automated
electronic table (58 Pa. Code 633b.8(a))``.

Money is written as a string of dollars and parsed exactly (:func:`shared.money.parse_money`):
a bare ``5`` could mean five dollars or five cents, so an integer (or a float) is refused.

Entry points: :func:`load_config`, :func:`parse_config`, :func:`config_from_dict`,
:func:`example_config_path`, :func:`example_path`.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Protocol

from game_server.config_sections import (
    CARDS_PER_DECK,
    CARDS_RESERVED_PER_HAND,
    CUT_CARD_MAX_PERCENT,
    CUT_CARD_MIN_PERCENT,
    DEAL_WHEN_ALL_BET,
    METER_ID,
    MUST_HIT_BY,
    PACE_SCHEMA,
    TABLE_ID,
    TABLE_WORDS,
    TIMER_MAX_SECONDS,
    TIMER_MIN_SECONDS,
    ConfigError,
    ConfigSyntaxError,
    MustHitBy,
    Section,
    Shuffle,
    Timers,
    as_mapping,
    check_cut_card,
    describe,
    dollars,
    known,
    logged_pace,
    money,
    must_hit_by_shape,
    options,
    parse_percent,
    read_must_hit_by,
    read_pace,
    section,
    suggest,
    toml_value,
)
from game_server.rules.returns import player_edge_problems
from game_server.rules.wagers.base import TableType
from shared.codec import canonical_json

__all__ = [
    "CARDS_PER_DECK",
    "CARDS_RESERVED_PER_HAND",
    "CONFIG_SCHEMA",
    "CUT_CARD_MAX_PERCENT",
    "CUT_CARD_MIN_PERCENT",
    "DEAL_WHEN_ALL_BET",
    "METER_ID",
    "MUST_HIT_BY",
    "PACE_SCHEMA",
    "TABLE_ID",
    "TABLE_WORDS",
    "TIMER_MAX_SECONDS",
    "TIMER_MIN_SECONDS",
    "ConfigError",
    "ConfigSyntaxError",
    "GameRules",
    "LinkedMeters",
    "MustHitBy",
    "Section",
    "Shuffle",
    "TableConfig",
    "Timers",
    "as_mapping",
    "build_table_config",
    "check_cut_card",
    "config_from_dict",
    "describe",
    "dollars",
    "example_config_path",
    "known",
    "load_config",
    "logged_pace",
    "money",
    "must_hit_by_shape",
    "options",
    "parse_config",
    "parse_percent",
    "read_must_hit_by",
    "read_pace",
    "section",
    "suggest",
    "toml_value",
]

#: Version of the shape of :meth:`TableConfig.to_dict`; bump it when that shape changes.
CONFIG_SCHEMA: Final = 1

LINKED_METERS: Final = "linked_meters"
_LINKED_SCHEMA: Final = {"meters": '["floor:blazing7s"]', "share_window_ms": "200"}
#: Bounds of the share window (the floor store waits it out inside an award).
SHARE_WINDOW_MAX_MS: Final = 10_000


@dataclass(frozen=True, slots=True)
class LinkedMeters:
    """The progressive meters of a table linked across the floor's servers (605a.8), held
    by the floor store (``etg serve --store``; :mod:`game_server.floor.meters`).

    The Rules Submission states the reading of "shared equally" it plays by
    (633b.9(e)(3), 633b.10(j)) across servers: the winners of the same percentage of one
    linked meter whose claims reach the store within ``share_window_ms`` of the first
    (the store's clock) share it equally, each share floored to cents, the rest staying in
    the meter.

    Attributes:
        meters: The meter ids (as the wagers name them with ``meter``) that live in the
            floor store.
        share_window_ms: The share window, milliseconds.
    """

    meters: tuple[str, ...]
    share_window_ms: int

    def to_dict(self) -> dict[str, object]:
        return {"meters": list(self.meters), "share_window_ms": self.share_window_ms}


class GameRules(Protocol):
    """What the platform reads of any game's rules (:attr:`TableConfig.rules`): the seats of
    the layout, the decks of a shoe and the wager unit. Everything else in them is the
    game's."""

    @property
    def seats(self) -> int: ...

    @property
    def decks(self) -> int: ...

    @property
    def wager_unit(self) -> int:
        """The table's wager unit in cents (``[limits] wager_unit``): every wager placed is
        a whole multiple of it, which the platform checks for every game
        (:meth:`~game_server.table.session.TableBook.check_units`)."""
        ...


@dataclass(frozen=True, slots=True)
class TableConfig:
    """One table's Rules Submission, loaded and checked.

    Build it with :func:`load_config` or :func:`parse_config`; constructing it directly skips
    every check. Two configs are equal when they state the same rules, wherever they came from.

    Attributes:
        table_id: the table's name in logs, on terminals and in the shoe's personalization.
        game: the ``[table] game`` dealt; with :attr:`table_type` it names the registered
            game (:func:`game_server.games.game_for`) whose section built this config.
        table_type: the kind of table.
        rules: everything the game's engine plays by, with its wagers and limits: the
            game's own value (it satisfies :class:`GameRules`: ``seats``, ``decks``).
        shuffle: when the shoe is reshuffled.
        cut_card: with :attr:`Shuffle.CUT_CARD`, the number of cards dealt from a fresh shoe
            before the cut card comes out; ``None`` with :attr:`Shuffle.EVERY_ROUND`.
        timers: the countdowns.
        chip_denominations: the chips a terminal offers, in cents, ascending.
        source: where the config came from (a path, or ``"<string>"``); not part of
            :meth:`to_dict`, equality or the hash.
        must_hit_by: the Must-Hit-By Mystery Bonus the table offers, if any.
        linked_meters: the meters linked across the floor's servers (``[linked_meters]``),
            if any.
    """

    table_id: str
    game: str
    table_type: TableType
    rules: Any
    shuffle: Shuffle
    cut_card: int | None
    timers: Timers
    chip_denominations: tuple[int, ...]
    source: str = field(default="<string>", compare=False)
    must_hit_by: MustHitBy | None = None
    linked_meters: LinkedMeters | None = None

    @property
    def shoe_cards(self) -> int:
        """The number of cards in a full shoe."""
        return int(self.rules.decks) * CARDS_PER_DECK

    def to_dict(self) -> dict[str, Any]:
        """The config as plain data for logging with each round, as the game writes it: the
        file's shape, cents as ints, payouts as the regulations write them (``"3 to 2"``).
        :func:`shared.codec.canonical_json` encodes it. ``[linked_meters]`` is the
        platform's and is added only when stated (older configs keep their hash)."""
        from game_server import games

        logged = games.game_for(self).logged_config(self)
        if self.linked_meters is not None:
            logged[LINKED_METERS] = self.linked_meters.to_dict()
        return logged

    def config_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of :meth:`to_dict`: names the rules in force."""
        return hashlib.sha256(canonical_json(self.to_dict())).hexdigest()


def example_config_path() -> Path:
    """The example Rules Submission of the first registered game (the fully automated
    Blackjack table): what the commands use when no config is given."""
    from game_server.games import games

    return games()[0].examples[0]


def example_paths() -> list[Path]:
    """Every registered game's example Rules Submissions, by file name."""
    from game_server.games import games

    return sorted((path for game in games() for path in game.examples), key=lambda p: p.name)


def example_path(name: str) -> Path:
    """The example Rules Submission called ``name`` (``"uth.toml"``), among every registered
    game's (:attr:`Game.examples <game_server.games.api.Game.examples>`).

    Raises:
        FileNotFoundError: no registered game ships an example of that name.
    """
    shipped = example_paths()
    for path in shipped:
        if path.name == name:
            return path
    raise FileNotFoundError(
        f"no game ships an example Rules Submission {name!r}; the examples are "
        + ", ".join(path.name for path in shipped)
    )


def _check_path(source: str) -> str:
    """What to do about a Rules Submission that cannot be read: check the path; when a
    shipped one has its file name (``etg par fourcard.toml`` after a wheel install), name
    its path; 'etg configs' lists every shipped one."""
    shipped = [path for path in example_paths() if path.name == Path(source).name]
    if shipped and Path(source) != shipped[0]:
        return f"check the path; the shipped {shipped[0].name} is {shipped[0]}"
    return "check the path ('etg configs' lists the shipped Rules Submissions)"


def load_config(path: str | os.PathLike[str]) -> TableConfig:
    """Read and check one table's Rules Submission.

    Args:
        path: the TOML file.

    Returns:
        The checked config, with ``source`` set to ``path``.

    Raises:
        ConfigSyntaxError: the file cannot be read, is not UTF-8, or is not valid TOML.
        ConfigError: the file breaks one or more rules; every problem is listed.
    """
    source = os.fspath(path)
    try:
        data = Path(source).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ConfigSyntaxError(
            source, [f"cannot read the Rules Submission: {reason}; {_check_path(source)}"]
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigSyntaxError(
            source, [f"not UTF-8 text (byte {exc.start}); save the file as UTF-8"]
        ) from None
    return parse_config(text, source)


def parse_config(text: str, source: str = "<string>") -> TableConfig:
    """Check the text of a Rules Submission (its game's section says what it holds).

    Args:
        text: the TOML text.
        source: what to call it in error messages and in :attr:`TableConfig.source`.

    Returns:
        The checked config.

    Raises:
        ConfigSyntaxError: the text is not valid TOML (the message gives line and column).
        ConfigError: the text breaks one or more rules; every problem is listed.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigSyntaxError(
            source, [f"not valid TOML: {exc}; fix the syntax at that line"]
        ) from None
    return build_table_config(data, source)


def build_table_config(data: Mapping[str, object], source: str = "<mapping>") -> TableConfig:
    """Check a Rules Submission already parsed from TOML, through every platform check (the
    player-edge guard included): what :func:`parse_config` does after parsing. A game's own
    ``build_config`` checks only its section and is not a Rules Submission's whole check.

    The config is the game's that ``[table] game`` names (the first registered game's
    section reports a missing one); a game no registered game deals is refused at once. The
    platform's ``[linked_meters]`` is read here, after the game built the rest.

    Raises:
        ConfigError: the data breaks one or more rules; every problem is listed.
    """
    from game_server import games

    linked = data.get(LINKED_METERS)
    if linked is not None:
        data = {k: v for k, v in data.items() if k != LINKED_METERS}
        config = build_table_config(data, source)
        problems: list[str] = []
        meters = read_linked_meters(problems, linked, config)
        if problems:
            raise ConfigError(source, problems)
        return replace(config, linked_meters=meters)
    table = as_mapping(data.get("table"))
    name = table.get("game")
    if not isinstance(name, str):
        game = games.games()[0]  # its [table] section reports the missing or mistyped game
    else:
        found = games.dealing(name, table.get("type"))
        if found is None:
            offered = games.config_games()
            raise ConfigError(
                source,
                [
                    f"table.game: {name!r} is not a game this build deals"
                    f"{suggest(name, offered)}; it supports {options(offered)}"
                ],
            )
        game = found
    config = game.build_config(data, source)
    # The player-edge guard, for every game: no offered wager may return 100% or more.
    guard = player_edge_problems(game.optional_returns(config))
    if guard:
        raise ConfigError(source, guard)
    return config


def config_from_dict(data: Mapping[str, Any], source: str = "<logged config>") -> TableConfig:
    """Rebuild and re-check a config from :meth:`TableConfig.to_dict` output (as logged).

    The logged form holds cents as integers; its game writes them back in the file's shape
    (:meth:`~game_server.games.api.Game.file_shape`) and the result goes through the same
    checks as a file, so a logged config that the regulations or this build would refuse is
    refused here too (recall and verification rely on it).

    Raises:
        ConfigError: the logged config has a newer schema or breaks a rule.
    """
    from game_server import games

    schema = data.get("schema")
    if schema != CONFIG_SCHEMA:
        raise ConfigError(
            source, [f"schema: logged config schema {schema!r}; this build reads {CONFIG_SCHEMA}"]
        )
    table = as_mapping(data.get("table"))
    game = games.dealing(table.get("game"), table.get("type"))
    if game is None:
        return build_table_config(data, source)  # refused, naming the game
    shape = game.file_shape({k: v for k, v in data.items() if k != LINKED_METERS})
    if LINKED_METERS in data:
        shape = {**shape, LINKED_METERS: data[LINKED_METERS]}
    return build_table_config(shape, source)


def _linking_tables() -> str:
    """The titles of the games whose tables link their meters across the floor (605a.8)."""
    from game_server import games

    titles = [game.title for game in games.games() if getattr(game, "links_floor_meters", False)]
    return " and ".join(titles) if titles else "no game's"


def read_linked_meters(
    problems: list[str], raw: object, config: TableConfig
) -> LinkedMeters | None:
    """The ``[linked_meters]`` table (605a.8), checked against the meters ``config`` opens.

    A Must-Hit-By meter is refused: its hidden trigger is drawn by one table's certified RNG
    (633b.14(c)(3)), so one store cannot hold it for several servers. A game this build
    does not link (its ``links_floor_meters``, :class:`~game_server.games.base.GameBase`)
    is refused."""
    from game_server import games

    if not isinstance(raw, dict):
        problems.append(f"{LINKED_METERS}: expected a table [{LINKED_METERS}], got {describe(raw)}")
        return None
    read = Section(problems, LINKED_METERS, raw, _LINKED_SCHEMA)
    before = len(problems)
    window = read.typed("share_window_ms", int)
    if window is not None and not 0 <= window <= SHARE_WINDOW_MAX_MS:
        read.add(
            "share_window_ms",
            f"{window} is not within 0 and {SHARE_WINDOW_MAX_MS} ms (the floor store waits "
            "the window out before it pays the winners who share it; 633b.9(e)(3), 633b.10(j))",
        )
    ids = read.raw("meters")
    if ids is None:
        return None
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        read.add("meters", 'expected a non-empty array of meter ids, e.g. ["floor:blazing7s"]')
        return None
    if len(set(ids)) != len(ids):
        read.add("meters", "names a meter twice")
    game = games.game_for(config)
    if not getattr(game, "links_floor_meters", False):
        read.add(
            "meters",
            f"{game.title} tables' progressive meters are not linked across servers in this "
            f"build (605a.8); only {_linking_tables()} tables' progressive wagers are. "
            "Remove [linked_meters]: the meter stays this server's",
        )
        return None
    specs = game.meters(config)
    for meter_id in ids:
        spec = specs.get(meter_id)
        if spec is None:
            read.add(
                "meters",
                f"{meter_id!r} is no progressive meter of this table (605a.8); its meters are "
                f"{options(sorted(specs)) if specs else 'none'}: a wager names its meter "
                'with meter = "ID"',
            )
        elif spec.must_hit_by is not None:
            read.add(
                "meters",
                f"{meter_id!r} is a Must-Hit-By mystery meter: its hidden trigger is drawn by "
                "one table's certified RNG (633b.14(c)(3)), so it is not linked across "
                "servers (605a.8) in this build",
            )
    if len(problems) > before or window is None:
        return None
    return LinkedMeters(tuple(ids), window)
