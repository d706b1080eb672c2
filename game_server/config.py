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
below it, the cut card, the countdown bounds and the shared Must-Hit-By section). Each game's
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

import difflib
import hashlib
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Protocol, TypeVar

from game_server import games
from game_server.rules.errors import RulesError
from game_server.rules.returns import player_edge_problems
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec, TableType
from shared.codec import canonical_json
from shared.errors import ETGError, MoneyError
from shared.money import format_money, parse_money

__all__ = [
    "CARDS_PER_DECK",
    "CONFIG_SCHEMA",
    "ConfigError",
    "ConfigSyntaxError",
    "GameRules",
    "LinkedMeters",
    "MustHitBy",
    "Section",
    "Shuffle",
    "TableConfig",
    "Timers",
    "build_table_config",
    "config_from_dict",
    "example_config_path",
    "load_config",
    "parse_config",
]

#: Version of the shape of :meth:`TableConfig.to_dict`; bump it when that shape changes.
CONFIG_SCHEMA: Final = 1

CARDS_PER_DECK: Final = 52

#: The cut card goes between these shares of the shoe, in percent (see :func:`check_cut_card`).
CUT_CARD_MIN_PERCENT: Final = 50
CUT_CARD_MAX_PERCENT: Final = 90
#: Cards kept behind the cut card for each hand of a full round (every seat and the dealer).
CARDS_RESERVED_PER_HAND: Final = 5

#: Bounds of every countdown, in whole seconds.
TIMER_MIN_SECONDS: Final = 3
TIMER_MAX_SECONDS: Final = 120

#: A table id: 1 to 32 of A-Z a-z 0-9 _ - (it names the table in the log and the shoe's DRBG).
TABLE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: A progressive meter's id (shared by linked tables, 605a.8).
METER_ID: Final = re.compile(r"[A-Za-z0-9:_-]{1,64}")
_PERCENT: Final = re.compile(r"(\d{1,2}(?:\.\d{1,2})?)\s*%")

#: How a problem names each type of table.
TABLE_WORDS: Final = {
    TableType.FULLY_AUTOMATED: "a fully automated electronic table",
    TableType.HYBRID: "a hybrid table",
    TableType.HYBRID_NO_HOLE_CARD: "a hybrid table without a dealer hole card",
}

#: The optional ``[must_hit_by]`` table of a Rules Submission (the Must-Hit-By Mystery Bonus).
MUST_HIT_BY: Final = "must_hit_by"
_MUST_HIT_BY_SCHEMA: Final = {
    "configuration": '"A"',
    "minimum_wager": '"1.00"',
    "qualifying": '["blazing_7s"]',
    "meter": '"floor:mystery"',
}


class Shuffle(StrEnum):
    """When the shoe is reshuffled."""

    EVERY_ROUND = "every-round"
    """Each round is dealt from a freshly shuffled shoe."""
    CUT_CARD = "cut-card"
    """Rounds are dealt until the cut card comes out; the shoe is reshuffled after that round."""


class ConfigError(ETGError):
    """A Rules Submission that cannot be loaded: every problem found, one per line.

    Attributes:
        source: the file (or the ``source`` given to :func:`parse_config`).
        problems: one sentence per problem, each starting with the dotted field it is about,
            e.g. ``"table.decks: ..."``.
    """

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems: tuple[str, ...] = tuple(problems)
        count = len(self.problems)
        header = f"{source}: the Rules Submission has {count} problem{'s' * (count != 1)}:"
        super().__init__("\n".join([header, *(f"  {p}" for p in self.problems)]))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.source, self.problems))


class ConfigSyntaxError(ConfigError):
    """A file that is not valid TOML (or not readable at all); the message gives the line."""


@dataclass(frozen=True, slots=True)
class Timers:
    """The countdowns of a round, in whole seconds.

    Attributes:
        betting_seconds: time to place wagers before the deal.
        insurance_seconds: time to take or decline insurance or even money (0 at a table
            without insurance).
        decision_seconds: time for each decision; at zero the countdown default of the
            game's rules acts (633b.5(p)(2), (z)).
    """

    betting_seconds: int
    insurance_seconds: int
    decision_seconds: int


@dataclass(frozen=True, slots=True)
class MustHitBy:
    """The Must-Hit-By Mystery Bonus a table offers (58 Pa. Code 633b.14).

    Attributes:
        configuration: "A" to "D" of 633b.14(c)(4).
        minimum_wager: The configuration's minimum progressive wager, cents ($1, $2 or $5).
        qualifying: The progressive wagers that qualify and contribute ((c)(1)-(2)).
        meter: The meter id shared by linked tables (605a.8); None: this table's own.
    """

    configuration: str
    minimum_wager: int
    qualifying: tuple[str, ...]
    meter: str | None = None

    def spec(self) -> MeterSpec:
        return must_hit_by.meter_spec(
            must_hit_by.configuration(self.configuration, self.minimum_wager)
        )

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "configuration": self.configuration,
            "minimum_wager": self.minimum_wager,
            "qualifying": list(self.qualifying),
        }
        if self.meter is not None:
            out["meter"] = self.meter
        return out


#: The optional ``[linked_meters]`` table of a Rules Submission (605a.8: meters linked across
#: the floor's servers, held by the floor store).
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
            source, [f"cannot read the Rules Submission: {reason}; check the path"]
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
    return _build(data, source)


def build_table_config(data: Mapping[str, object], source: str = "<mapping>") -> TableConfig:
    """Check a Rules Submission already parsed from TOML, through every platform check (the
    player-edge guard included): what :func:`parse_config` does after parsing. A game's own
    ``build_config`` checks only its section and is not a Rules Submission's whole check.

    Raises:
        ConfigError: the data breaks one or more rules; every problem is listed.
    """
    return _build(data, source)


def _build(data: Mapping[str, object], source: str) -> TableConfig:
    """The config of the game ``[table] game`` names (the first registered game's section
    reports a missing one); a game no registered game deals is refused at once. The
    platform's ``[linked_meters]`` is read here, after the game built the rest."""
    linked = data.get(LINKED_METERS)
    if linked is not None:
        data = {k: v for k, v in data.items() if k != LINKED_METERS}
        config = _build(data, source)
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
    schema = data.get("schema")
    if schema != CONFIG_SCHEMA:
        raise ConfigError(
            source, [f"schema: logged config schema {schema!r}; this build reads {CONFIG_SCHEMA}"]
        )
    table = as_mapping(data.get("table"))
    game = games.dealing(table.get("game"), table.get("type"))
    if game is None:
        return _build(data, source)  # refused, naming the game
    shape = game.file_shape({k: v for k, v in data.items() if k != LINKED_METERS})
    if LINKED_METERS in data:
        shape = {**shape, LINKED_METERS: data[LINKED_METERS]}
    return _build(shape, source)


# ------------------------------------------------------------------------------ the reader

_TOML_TYPES: Final = {
    str: "a string",
    int: "an integer",
    float: "a float",
    bool: "a boolean",
    list: "an array",
    dict: "a table",
}

_E = TypeVar("_E", bound=StrEnum)
_T = TypeVar("_T")


def describe(value: object) -> str:
    """``7`` -> ``"the integer 7"``, for "expected X, got Y" messages."""
    kind = _TOML_TYPES.get(type(value), "a date or time")
    noun = kind.split(" ", 1)[1]
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, str):
        return f"the {noun} {value!r}"
    if isinstance(value, bool):
        return f"the {noun} {str(value).lower()}"
    return f"the {noun} {value}"


def options(values: Iterable[str]) -> str:
    """``["a", "b", "c"]`` -> ``"'a', 'b' or 'c'"``."""
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def known(value: _T | None) -> _T:
    """A value that the checks have proved present (they stop before building otherwise)."""
    if value is None:
        raise AssertionError("a checked config value is missing")
    return value


def toml_value(value: object) -> str:
    """A value as the TOML file writes it: ``true``, ``500``, ``"B1"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return f'"{value}"'


def as_mapping(value: object) -> Mapping[str, object]:
    """``value`` if it is a table, else an empty one."""
    return value if isinstance(value, dict) else {}


def dollars(cents: object) -> object:
    """Logged cents back as the file writes money (``2500`` -> ``"25.00"``); else unchanged."""
    return format_money(cents).lstrip("$").replace(",", "") if type(cents) is int else cents


def parse_percent(text: str) -> int | None:
    """``"4.5%"`` -> 450 basis points; None if it is not a percentage like that."""
    match = _PERCENT.fullmatch(text.strip())
    if match is None:
        return None
    whole, _, frac = match.group(1).partition(".")
    return int(whole) * 100 + int((frac + "00")[:2])


class Section:
    """One table of the file: typed reads that record a problem and return None, never raise.

    Args:
        problems: where problems are collected (shared by every section of the file).
        path: the dotted name of the table (``"uth.trips"``).
        data: its keys as read.
        schema: every key it may hold, with the example value a "missing" problem shows.
        present: False for a table that is missing (its keys are then not reported again).
        why: per dotted field, why it must be stated (a regulation), added to "missing".
    """

    def __init__(
        self,
        problems: list[str],
        path: str,
        data: Mapping[str, object],
        schema: Mapping[str, str],
        *,
        present: bool = True,
        why: Mapping[str, str] | None = None,
    ) -> None:
        self.problems = problems
        self.path = path
        self.data = data
        self.schema = schema
        self.present = present
        self.why = why or {}
        for key in data:
            if key not in schema:
                self.add(
                    key,
                    f"unknown key{suggest(key, schema)}; the keys of [{path}] are "
                    f"{', '.join(schema)}",
                )

    def field(self, key: str) -> str:
        return f"{self.path}.{key}"

    def add(self, key: str, message: str) -> None:
        self.problems.append(f"{self.field(key)}: {message}")

    def raw(self, key: str, *, required: bool = True) -> object | None:
        if key in self.data:
            return self.data[key]
        if required and self.present:
            why = self.why.get(self.field(key))
            self.add(
                key,
                f"missing{'; ' + why if why else ''}; add `{key} = {self.schema[key]}` "
                f"under [{self.path}]",
            )
        return None

    def typed(self, key: str, kind: type[_T], *, required: bool = True) -> _T | None:
        value = self.raw(key, required=required)
        if value is None:
            return None
        if type(value) is not kind:
            self.add(key, f"expected {_TOML_TYPES[kind]}, got {describe(value)}")
            return None
        return value

    def text(self, key: str) -> str | None:
        return self.typed(key, str)

    def flag(self, key: str) -> bool | None:
        return self.typed(key, bool)

    def integer(
        self, key: str, low: int, high: int, why: str = "", *, required: bool = True
    ) -> int | None:
        value = self.typed(key, int, required=required)
        if value is not None and not low <= value <= high:
            self.add(key, f"{value} is not within {low}..{high}{why}")
            return None
        return value

    def choice(self, key: str, kind: type[_E], cite: str = "") -> _E | None:
        value = self.text(key)
        if value is None:
            return None
        names = [member.value for member in kind]
        if value not in names:
            self.add(
                key,
                f"{value!r} is not an option{suggest(value, names)}; choose {options(names)}{cite}",
            )
            return None
        return kind(value)

    def money(self, key: str) -> int | None:
        return money(self.problems, self.field(key), self.raw(key))

    def money_list(self, key: str) -> tuple[int, ...] | None:
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            got = "an empty array" if isinstance(value, list) else describe(value)
            self.add(key, f"expected an array of amounts such as {self.schema[key]}, got {got}")
            return None
        amounts = [money(self.problems, f"{self.field(key)}[{i}]", v) for i, v in enumerate(value)]
        if any(a is None for a in amounts):
            return None
        return tuple(known(a) for a in amounts)

    def table_id(self) -> str | None:
        """``id``: a table id (:data:`TABLE_ID`)."""
        value = self.text("id")
        if value is not None and not TABLE_ID.fullmatch(value):
            self.add(
                "id",
                f"{value!r} is not a table id: use 1 to 32 letters, digits, '-' or '_' "
                "(it names the table in the event log and in the shoe's personalization)",
            )
            return None
        return value

    def meter_link(self) -> str | None:
        """The optional ``meter`` key: the id of a meter linked tables share (605a.8)."""
        link = self.typed("meter", str, required=False)
        if link is not None and not METER_ID.fullmatch(link):
            self.add("meter", f"{link!r} is not a meter id: letters, digits and : _ - only")
        return link


def money(problems: list[str], where: str, value: object) -> int | None:
    """A positive amount written as a string of dollars, in cents; None (and a problem) if not."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str):
        if isinstance(value, int | float) and not isinstance(value, bool):
            problems.append(
                f'{where}: write money as a string of dollars, e.g. "{value:.2f}", not '
                f"{describe(value)}: a bare number could be read as dollars or as cents"
            )
        else:
            problems.append(
                f"{where}: expected an amount of money as a string of dollars such as "
                f'"25.00", got {describe(value)}'
            )
        return None
    try:
        cents = parse_money(value)
    except MoneyError as exc:
        problems.append(f"{where}: {exc}")
        return None
    if cents <= 0:
        problems.append(f"{where}: {format_money(cents)} is not a positive amount")
        return None
    return cents


def section(
    problems: list[str],
    path: str,
    raw: object,
    schema: Mapping[str, str],
    *,
    required: bool = True,
    why: Mapping[str, str] | None = None,
) -> Section | None:
    """The :class:`Section` of the table ``raw`` read at ``path``; a missing required table
    (or one that is not a table) is a problem and an empty, absent section; a missing
    optional one is None."""
    if raw is None:
        if not required:
            return None
        problems.append(f"{path}: the [{path}] table is missing; it states {', '.join(schema)}")
        return Section(problems, path, {}, schema, present=False, why=why)
    if not isinstance(raw, dict):
        problems.append(f"{path}: expected a table [{path}], got {describe(raw)}")
        return Section(problems, path, {}, schema, present=False, why=why)
    return Section(problems, path, raw, schema, why=why)


# ------------------------------------------------------------------ checks games share


def check_cut_card(
    problems: list[str],
    data: Mapping[str, object],
    shuffle: Shuffle | None,
    cut_card: int | None,
    decks: int | None,
    seats: int | None,
) -> None:
    """The cut card goes between 50% and 90% of the shoe, and before a full round's cards.

    Below half the shoe most of every certified shuffle is never dealt, and a small number
    is usually a percentage written where a card count belongs. Past 90%, or closer to the
    end of the shoe than five cards for every hand of a full round (each seat and the
    dealer), a round begun just before the cut card could run out of cards.
    """

    def add(message: str) -> None:
        problems.append(f"table.cut_card: {message}")

    if shuffle is Shuffle.EVERY_ROUND and cut_card is not None:
        add(
            'is set but shuffle = "every-round" deals each round from a fresh shoe; '
            'remove cut_card or set shuffle = "cut-card"'
        )
        return
    if shuffle is not Shuffle.CUT_CARD:
        return
    if cut_card is None:
        if "cut_card" not in as_mapping(data.get("table")):
            add(
                'missing: shuffle = "cut-card" needs the number of cards dealt before '
                "the reshuffle, e.g. `cut_card = 234` (75% of 6 decks)"
            )
        return
    if decks is None or seats is None:
        return
    shoe = decks * CARDS_PER_DECK
    low = -(-shoe * CUT_CARD_MIN_PERCENT // 100)
    reserve = CARDS_RESERVED_PER_HAND * (seats + 1)
    high = min(shoe * CUT_CARD_MAX_PERCENT // 100, shoe - reserve)
    if low > high:
        add(
            f"a {shoe}-card shoe cannot keep {reserve} cards behind the cut card for a full "
            f"round at {seats} seats; use more decks, fewer seats or shuffle = "
            '"every-round"'
        )
        return
    if low <= cut_card <= high:
        return
    share = f"{cut_card * 100 // shoe}% of the {shoe}-card shoe"
    if cut_card < low:
        hint = ""
        if cut_card <= 100:
            hint = (
                f"; cut_card counts cards, not percent ({cut_card}% of this shoe would be "
                f"{shoe * cut_card // 100} cards)"
            )
        add(
            f"{cut_card} cards is {share}: place the cut card between {low} and {high} "
            f"cards; before half the shoe most of each shuffle is never dealt{hint}"
        )
    else:
        add(
            f"{cut_card} cards is {share}: place the cut card between {low} and {high} "
            f"cards, so that at least {shoe - high} cards ({CARDS_RESERVED_PER_HAND} for "
            f"each of {seats} seats and the dealer, and at least "
            f"{100 - CUT_CARD_MAX_PERCENT}% of the shoe) remain to finish the round in "
            "which it comes out"
        )


def read_must_hit_by(
    problems: list[str],
    data: Mapping[str, object],
    offered: Iterable[str] | None,
    qualifying_wagers: Mapping[str, must_hit_by.QualifyingWager] = must_hit_by.QUALIFYING_WAGERS,
    cite: str = must_hit_by.SECTION,
) -> MustHitBy | None:
    """The Must-Hit-By Mystery Bonus (the ``[must_hit_by]`` table), if the table offers it.

    Args:
        problems: Where each problem found is recorded.
        data: The parsed Rules Submission.
        offered: The wagers the table offers (None: they did not load).
        qualifying_wagers: The wagers that may qualify a player at this game's tables
            (633b.14(c)(1): Blackjack's progressive wagers; 639b.1: Caribbean Stud Poker's
            Progressive Payout Wager).
        cite: The section that offers the bonus at this game's tables, named in problems.
    """
    raw = data.get(MUST_HIT_BY)
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.append(f"{MUST_HIT_BY}: expected a table [{MUST_HIT_BY}], got {describe(raw)}")
        return None
    read = Section(problems, MUST_HIT_BY, raw, _MUST_HIT_BY_SCHEMA)
    letter = read.text("configuration")
    minimum = read.money("minimum_wager")
    qualifying = read.raw("qualifying")
    link = read.typed("meter", str, required=False)
    before = len(problems)
    if letter is not None and minimum is not None:
        try:
            must_hit_by.configuration(letter, minimum)
        except RulesError as exc:
            read.add("configuration", f"{exc} ({cite}(c)(4))")
    names: tuple[str, ...] = ()
    if qualifying is not None:
        if not isinstance(qualifying, list) or not all(isinstance(q, str) for q in qualifying):
            read.add("qualifying", 'expected a list of wager names, e.g. ["blazing_7s"]')
        else:
            names = tuple(qualifying)
    offered_names = set(offered or ())
    for name in names:
        qualifier = qualifying_wagers.get(name)
        if qualifier is None or not qualifier.available:
            usable = [n for n, q in qualifying_wagers.items() if q.available]
            read.add(
                "qualifying",
                f"{name!r} is not a qualifying wager this build offers; choose "
                f"{options(usable)} ({cite}(c)(1))",
            )
        elif offered is not None and name not in offered_names:
            read.add(
                "qualifying",
                f"{name} qualifies only where the table offers it; add [wagers.{name}] ({cite}(a))",
            )
    if not names and qualifying is not None and isinstance(qualifying, list):
        read.add("qualifying", f"name at least one qualifying wager ({cite}(c)(1))")
    if link is not None and not METER_ID.fullmatch(link):
        read.add("meter", f"{link!r} is not a meter id: letters, digits and : _ - only")
    if len(problems) > before or letter is None or minimum is None or not names:
        return None
    return MustHitBy(letter, minimum, names, link)


def must_hit_by_shape(logged: object) -> dict[str, object] | None:
    """A logged ``[must_hit_by]`` back in the file's shape (None if not logged)."""
    if not isinstance(logged, dict):
        return None
    return {k: (dollars(v) if k == "minimum_wager" else v) for k, v in logged.items()}


def read_linked_meters(
    problems: list[str], raw: object, config: TableConfig
) -> LinkedMeters | None:
    """The ``[linked_meters]`` table (605a.8), checked against the meters ``config`` opens.

    A Must-Hit-By meter is refused: its hidden trigger is drawn by one table's certified RNG
    (633b.14(c)(3)), so one store cannot hold it for several servers. A game this build
    does not link (its ``links_floor_meters``, :class:`~game_server.games.base.GameBase`)
    is refused."""
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
            "build (605a.8); only fully automated Blackjack tables' progressive wagers are. "
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
