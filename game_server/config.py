"""The Rules Submission of one table: a TOML file, loaded and checked against the regulations.

A certificate holder states in its Rules Submission (58 Pa. Code 601a.2) the options it has
chosen for a table game: decks, limits, split rules, the side wagers it offers and the paytable
selected for each. Here that submission is one TOML file per table. :func:`load_config` reads
it, checks every value against the regulations and against what this build supports, and
returns a frozen :class:`TableConfig`; its ``rules`` (a
:class:`~game_server.rules.blackjack.rules.BlackjackRules`) are what the engine plays by.
Nothing is defaulted silently: every key is stated in the file (only ``cut_card`` and the
``[wagers]`` tables are optional, see below), an unknown key is an error, and a file with
problems is refused as a whole.

Every problem found is collected and reported together in one :class:`ConfigError`, one line
per problem, each naming the field as a dotted path (``wagers.lucky_aces.paytable``) and, where
a regulation is the reason, the section: ``Lucky Aces is offered only on a fully automated
electronic table (58 Pa. Code 633b.8(a))``.

Entry points: :func:`load_config`, :func:`parse_config`, :func:`example_config_path`.

The file, with the example shipped in ``game_server/configs/fully-automated-blackjack.toml``::

    [table]
    id = "BJ-01"               # 1 to 32 of A-Z a-z 0-9 _ -
    game = "blackjack"         # the games of this build: blackjack
    type = "fully-automated"   # TableType; the server runs fully automated tables
    seats = 7                  # 1 to 7
    decks = 6                  # 1, 2, 4, 6 or 8 (633a.3)
    shuffle = "cut-card"       # "cut-card" or "every-round"
    cut_card = 234             # cards dealt before the reshuffle; only with "cut-card"

    [limits]                   # money is a string of dollars, never a bare number
    wager_unit = "1.00"        # an even number of cents, so that 3 to 2 is exact
    blackjack_min = "5.00"
    blackjack_max = "1000.00"

    [blackjack]
    dealer_hits_soft_17 = false
    blackjack_pays = "3 to 2"  # 633b.5(v)(1)
    insurance_pays = "2 to 1"  # 633a.8, 633b.5(v)(2)
    insurance = true
    even_money = true
    double_on = "any"          # "any", "9-11" or "10-11" (633a.10)
    double_after_split = true
    max_split_hands = 4        # 2 to 4 hands from one pair (633a.11(c))
    resplit_aces = false
    hit_split_aces = false
    late_surrender = false     # 633a.9
    dealer_peeks = true        # 633b.5(o)

    [timers]                   # whole seconds, 3 to 120
    betting_seconds = 15
    insurance_seconds = 8
    decision_seconds = 15
    countdown_default = "stand"  # or "hit-hard-11-or-less" (633b.5(p)(2), (z))

    [terminal]
    chip_denominations = ["1.00", "5.00", "25.00", "100.00", "500.00"]

    [wagers.lucky_aces]        # optional, one table per side wager of the registry
    paytable = "Paytable A"    # 633b.8(e)
    min = "1.00"
    max = "100.00"

Money is written as a string of dollars and parsed exactly (:func:`shared.money.parse_money`):
a bare ``5`` could mean five dollars or five cents, so an integer (or a float) is refused.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, TypeAlias, TypeVar

from game_server.rules.blackjack.rules import (
    BLACKJACK_PAYS,
    DECK_COUNTS,
    INSURANCE_PAYS,
    MAX_SEATS,
    BlackjackRules,
    CountdownDefault,
    DoubleOn,
)
from game_server.rules.errors import RulesError
from game_server.rules.limits import WagerLimits
from game_server.rules.returns import (
    MustHitByTerms,
    offered_returns,
    player_edge_problems,
    uth_returns,
)
from game_server.rules.uth.paytables import BLIND_PAYTABLES as UTH_BLIND_PAYTABLES
from game_server.rules.uth.paytables import PROGRESSIVE_AMOUNTS as UTH_PROGRESSIVE_AMOUNTS
from game_server.rules.uth.paytables import TRIPS_PAYTABLES as UTH_TRIPS_PAYTABLES
from game_server.rules.uth.rules import (
    MINIMUM_MAX_PAYOUT as UTH_MINIMUM_MAX_PAYOUT,
)
from game_server.rules.uth.rules import (
    MINIMUM_METER_SEED as UTH_MINIMUM_METER_SEED,
)
from game_server.rules.uth.rules import BonusOn, FiveCardHand, UthRules, UthRulesError
from game_server.rules.wagers import REGISTRY, must_hit_by
from game_server.rules.wagers.base import (
    MeterSpec,
    Paytable,
    SideWager,
    SideWagerOffer,
    TableType,
)
from shared.codec import canonical_json
from shared.errors import ETGError, MoneyError
from shared.money import MeterShare, ToOne, format_money, parse_money, parse_pay

__all__ = [
    "CARDS_PER_DECK",
    "CONFIG_SCHEMA",
    "SUPPORTED_GAMES",
    "SUPPORTED_TABLE_TYPES",
    "ConfigError",
    "ConfigSyntaxError",
    "Shuffle",
    "TableConfig",
    "Timers",
    "config_from_dict",
    "example_config_path",
    "load_config",
    "parse_config",
    "table_type_problems",
]

#: Version of the shape of :meth:`TableConfig.to_dict`; bump it when that shape changes.
CONFIG_SCHEMA: Final = 1

#: The games this build can deal: Blackjack (633a, 633b) and Ultimate Texas Hold 'Em (653a).
SUPPORTED_GAMES: Final = ("blackjack", "uth")
#: ``[table] game`` of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a).
UTH: Final = "uth"
#: The table types this build can run. The hybrid types of 633b.5 are declared in
#: :class:`TableType` but not built yet.
#: Table types a Rules Submission may state. The table server runs the fully automated table;
#: the hybrid tables of 633b.5 are checked here and played by ``etg sim`` (their engines are in
#: ``game_server.rules.hybrid``), and the server refuses them at start-up, saying so.
SUPPORTED_TABLE_TYPES: Final = frozenset(TableType)

CARDS_PER_DECK: Final = 52

#: The cut card goes between these shares of the shoe, in percent (see :func:`_check_cut_card`).
CUT_CARD_MIN_PERCENT: Final = 50
CUT_CARD_MAX_PERCENT: Final = 90
#: Cards kept behind the cut card for each hand of a full round (every seat and the dealer).
CARDS_RESERVED_PER_HAND: Final = 5

#: Bounds of every countdown, in whole seconds.
TIMER_MIN_SECONDS: Final = 3
TIMER_MAX_SECONDS: Final = 120

#: Hands one pair may become by splitting, counting the first (633a.11).
MIN_SPLIT_HANDS: Final = 2
MAX_SPLIT_HANDS: Final = 4

_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")

_TABLE_WORDS: Final = {
    TableType.FULLY_AUTOMATED: "a fully automated electronic table",
    TableType.HYBRID: "a hybrid table",
    TableType.HYBRID_NO_HOLE_CARD: "a hybrid table without a dealer hole card",
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
        insurance_seconds: time to take or decline insurance or even money.
        decision_seconds: time for each decision (hit, stand, double, split, surrender);
            at zero the countdown default of the rules acts (633b.5(p)(2), (z)).
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


@dataclass(frozen=True, slots=True)
class TableConfig:
    """One table's Rules Submission, loaded and checked.

    Build it with :func:`load_config` or :func:`parse_config`; constructing it directly skips
    every check. Two configs are equal when they state the same rules, wherever they came from.

    An Ultimate Texas Hold 'Em table (``game = "uth"``, 58 Pa. Code 653a) has its rules in
    :attr:`uth`; its ``rules`` then carry only what the table layer shared with Blackjack
    reads (one 52-card deck, the seats, the Ante limits) and its shoe is replaced every
    round (one freshly shuffled deck per round).

    Attributes:
        table_id: the table's name in logs, on terminals and in the shoe's personalization.
        game: the game dealt (``"blackjack"`` or ``"uth"``).
        table_type: the kind of table (only ``fully-automated`` in this build).
        rules: everything the engine plays by, with the main and side-wager limits.
        shuffle: when the shoe is reshuffled.
        cut_card: with :attr:`Shuffle.CUT_CARD`, the number of cards dealt from a fresh shoe
            before the cut card comes out; ``None`` with :attr:`Shuffle.EVERY_ROUND`.
        timers: the countdowns.
        chip_denominations: the chips a terminal offers, in cents, ascending.
        source: where the config came from (a path, or ``"<string>"``); not part of
            :meth:`to_dict`, equality or the hash.
    """

    table_id: str
    game: str
    table_type: TableType
    rules: BlackjackRules
    shuffle: Shuffle
    cut_card: int | None
    timers: Timers
    chip_denominations: tuple[int, ...]
    source: str = field(default="<string>", compare=False)
    must_hit_by: MustHitBy | None = None
    uth: UthRules | None = None

    @property
    def is_uth(self) -> bool:
        """Whether this is an Ultimate Texas Hold 'Em table (:attr:`uth` holds its rules)."""
        return self.uth is not None

    @property
    def shoe_cards(self) -> int:
        """The number of cards in a full shoe."""
        return self.rules.decks * CARDS_PER_DECK

    def to_dict(self) -> dict[str, Any]:
        """The config as plain data for logging with each round: the file's shape, cents as ints.

        Payouts are written as the regulations write them (``"3 to 2"``); a missing cut card is
        ``None``; side wagers are keyed by name. :func:`shared.codec.canonical_json` encodes it.
        """
        if self.uth is not None:
            return _uth_dict(self, self.uth)
        rules = self.rules
        main = rules.main_limits
        return {
            "schema": CONFIG_SCHEMA,
            "table": {
                "id": self.table_id,
                "game": self.game,
                "type": self.table_type.value,
                "seats": rules.seats,
                "decks": rules.decks,
                "shuffle": self.shuffle.value,
                "cut_card": self.cut_card,
            },
            "limits": {
                "wager_unit": main.unit,
                "blackjack_min": main.minimum,
                "blackjack_max": main.maximum,
            },
            "blackjack": {
                "dealer_hits_soft_17": rules.dealer_hits_soft_17,
                "blackjack_pays": str(BLACKJACK_PAYS),
                "insurance_pays": str(INSURANCE_PAYS),
                "insurance": rules.insurance,
                "even_money": rules.even_money,
                "double_on": rules.double_on.value,
                "double_after_split": rules.double_after_split,
                "max_split_hands": rules.max_split_hands,
                "resplit_aces": rules.resplit_aces,
                "hit_split_aces": rules.hit_split_aces,
                "late_surrender": rules.late_surrender,
                "dealer_peeks": rules.dealer_peeks,
            },
            "timers": {
                "betting_seconds": self.timers.betting_seconds,
                "insurance_seconds": self.timers.insurance_seconds,
                "decision_seconds": self.timers.decision_seconds,
                "countdown_default": rules.countdown_default.value,
            },
            "terminal": {"chip_denominations": list(self.chip_denominations)},
            "wagers": {offer.wager.name: _offer_dict(offer) for offer in rules.side_wagers},
            **({} if self.must_hit_by is None else {_MUST_HIT_BY: self.must_hit_by.to_dict()}),
        }

    def config_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of :meth:`to_dict`: names the rules in force."""
        return hashlib.sha256(canonical_json(self.to_dict())).hexdigest()


def example_config_path() -> Path:
    """The example Rules Submission shipped with the package (a fully automated table)."""
    return Path(__file__).resolve().parent / "configs" / "fully-automated-blackjack.toml"


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
    """Check the text of a Rules Submission (see the module docstring for its shape).

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
    if _game_of(data) == UTH:
        return _UthBuilder(data, source).build()
    return _Builder(data, source).build()


def _game_of(data: Mapping[str, object]) -> object:
    table = data.get("table")
    return table.get("game") if isinstance(table, dict) else None


def table_type_problems(table_type: TableType, rules: BlackjackRules) -> list[str]:
    """The rules a type of table imposes on the Blackjack options, as problems (empty if none).

    A fully automated table is dealt under its approved Rules Submission, and the dealer may
    hit soft 17 there if the submission says so. A hybrid table (58 Pa. Code 633b.5) may not:
    its game rules icon states that the dealer stands on all soft 17s (633b.5(c)(2)), it uses
    six or eight decks (633b.5(f)), and with a hole card a player who lets the countdown run
    out stands (633b.5(p)(2)) and the dealer peeks under an ace or a ten-value card (633b.5(o)).
    Without a hole card (633b.5(w)) there is no peek, and a pair splits into two hands at most
    (633b.5(z)).

    Args:
        table_type: the kind of table.
        rules: the Blackjack options stated for it.

    Returns:
        One ``"field: sentence (section)"`` per broken rule.
    """
    problems: list[str] = []
    if table_type in (TableType.HYBRID, TableType.HYBRID_NO_HOLE_CARD):
        if rules.dealer_hits_soft_17:
            problems.append(
                "blackjack.dealer_hits_soft_17: the dealer stands on all soft 17s at a hybrid "
                "table; set dealer_hits_soft_17 = false (58 Pa. Code 633b.5(c)(2))"
            )
        if rules.decks not in (6, 8):
            problems.append(
                f"table.decks: Blackjack on a hybrid table is played with six or eight decks, "
                f"not {rules.decks} (58 Pa. Code 633b.5(f))"
            )
    if table_type is TableType.HYBRID:
        if not rules.dealer_peeks:
            problems.append(
                "blackjack.dealer_peeks: at a hybrid table with a hole card the dealer checks "
                "it for Blackjack under an ace or ten-value up card; set dealer_peeks = true "
                "(58 Pa. Code 633b.5(o))"
            )
        if rules.countdown_default is not CountdownDefault.STAND:
            problems.append(
                "timers.countdown_default: at a hybrid table with a hole card a player who "
                "takes no action by the end of the countdown stands; set "
                'countdown_default = "stand" (58 Pa. Code 633b.5(p)(2))'
            )
    if table_type is TableType.HYBRID_NO_HOLE_CARD:
        if rules.dealer_peeks:
            problems.append(
                "blackjack.dealer_peeks: a hybrid table without a hole card has no hole card "
                "to peek at; set dealer_peeks = false (58 Pa. Code 633b.5(w), (aa))"
            )
        if rules.max_split_hands > 2:
            problems.append(
                f"blackjack.max_split_hands: without a hole card a pair splits into two hands "
                f"at most, not {rules.max_split_hands}; set max_split_hands = 2 "
                "(58 Pa. Code 633b.5(z))"
            )
    return problems


# ------------------------------------------------------------------------------------ reading

#: Every section and key of the file, with the example value shown when a key is missing.
_SCHEMA: Final[dict[str, dict[str, str]]] = {
    "table": {
        "id": '"BJ-01"',
        "game": '"blackjack"',
        "type": '"fully-automated"',
        "seats": "7",
        "decks": "6",
        "shuffle": '"cut-card"',
        "cut_card": "234",
    },
    "limits": {
        "wager_unit": '"1.00"',
        "blackjack_min": '"5.00"',
        "blackjack_max": '"1000.00"',
    },
    "blackjack": {
        "dealer_hits_soft_17": "false",
        "blackjack_pays": '"3 to 2"',
        "insurance_pays": '"2 to 1"',
        "insurance": "true",
        "even_money": "true",
        "double_on": '"any"',
        "double_after_split": "true",
        "max_split_hands": "4",
        "resplit_aces": "false",
        "hit_split_aces": "false",
        "late_surrender": "false",
        "dealer_peeks": "true",
    },
    "timers": {
        "betting_seconds": "15",
        "insurance_seconds": "8",
        "decision_seconds": "15",
        "countdown_default": '"stand"',
    },
    "terminal": {
        "chip_denominations": '["1.00", "5.00", "25.00", "100.00", "500.00"]',
    },
}
_WAGER_SCHEMA: Final = {"paytable": '"Paytable A"', "min": '"1.00"', "max": '"100.00"'}
_WAGERS: Final = "wagers"
_MUST_HIT_BY: Final = "must_hit_by"
_MUST_HIT_BY_SCHEMA: Final = {
    "configuration": '"A"',
    "minimum_wager": '"1.00"',
    "qualifying": '["blazing_7s"]',
    "meter": '"floor:mystery"',
}

#: Why a key must be stated, where a regulation says so.
_MISSING_WHY: Final = {
    "blackjack.max_split_hands": (
        "the Rules Submission must state how many times a player may split pairs "
        "(58 Pa. Code 633a.11(c))"
    ),
    "blackjack.blackjack_pays": "the layout states it (58 Pa. Code 633b.5(v)(1))",
    "blackjack.insurance_pays": "the layout states it (58 Pa. Code 633a.8, 633b.5(v)(2))",
}

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


def _describe(value: object) -> str:
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


def _options(values: Iterable[str]) -> str:
    """``["a", "b", "c"]`` -> ``"'a', 'b' or 'c'"``."""
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _offer_dict(offer: SideWagerOffer) -> dict[str, object]:
    """One offered wager as the Rules Submission states it (cents as integers): the
    paytable (line by line when the Rules Submission gave it so), limits and options."""
    entry: dict[str, object] = {
        "paytable": offer.paytable.name,
        "min": offer.limits.minimum,
        "max": offer.limits.maximum,
    }
    published = offer.wager.paytables.get(offer.paytable.name)
    if published is None or published.lines != offer.paytable.lines:
        entry["lines"] = {line.name: str(line.pay) for line in offer.paytable.lines}
    if published is not None and not published.meters and offer.paytable.meters:
        meter = offer.paytable.meters[0]
        entry["meter_seed"] = meter.seed
        entry["meter_reseed"] = meter.reseed
        entry["meter_increment"] = f"{meter.increment_bp // 100}.{meter.increment_bp % 100:02d}%"
    entry.update(offer.options)
    return entry


def _cite(wager: SideWager, limit: str) -> str:
    paragraph = wager.cites.get(limit, "")
    return wager.section + paragraph


def _known(value: _T | None) -> _T:
    """A value that the checks have proved present (they stop before building otherwise)."""
    if value is None:
        raise AssertionError("a checked config value is missing")
    return value


class _Section:
    """One table of the file: typed reads that record a problem and return None, never raise."""

    def __init__(
        self,
        problems: list[str],
        path: str,
        data: Mapping[str, object],
        schema: Mapping[str, str],
        *,
        present: bool = True,
    ) -> None:
        self.problems = problems
        self.path = path
        self.data = data
        self.schema = schema
        self.present = present
        for key in data:
            if key not in schema:
                self.add(
                    key,
                    f"unknown key{_suggest(key, schema)}; the keys of [{path}] are "
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
            why = _MISSING_WHY.get(self.field(key))
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
            self.add(key, f"expected {_TOML_TYPES[kind]}, got {_describe(value)}")
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
                f"{value!r} is not an option{_suggest(value, names)}; choose {_options(names)}"
                f"{cite}",
            )
            return None
        return kind(value)

    def money(self, key: str) -> int | None:
        return _money(self.problems, self.field(key), self.raw(key))

    def money_list(self, key: str) -> tuple[int, ...] | None:
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            got = "an empty array" if isinstance(value, list) else _describe(value)
            self.add(key, f"expected an array of amounts such as {self.schema[key]}, got {got}")
            return None
        amounts = [_money(self.problems, f"{self.field(key)}[{i}]", v) for i, v in enumerate(value)]
        if any(a is None for a in amounts):
            return None
        return tuple(_known(a) for a in amounts)


def _money(problems: list[str], where: str, value: object) -> int | None:
    """A positive amount written as a string of dollars, in cents; None (and a problem) if not."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str):
        if isinstance(value, int | float) and not isinstance(value, bool):
            problems.append(
                f'{where}: write money as a string of dollars, e.g. "{value:.2f}", not '
                f"{_describe(value)}: a bare number could be read as dollars or as cents"
            )
        else:
            problems.append(
                f"{where}: expected an amount of money as a string of dollars such as "
                f'"25.00", got {_describe(value)}'
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


# ----------------------------------------------------------------------------------- checking


class _Builder:
    """Reads one parsed file into a :class:`TableConfig`, collecting every problem on the way."""

    def __init__(self, data: Mapping[str, object], source: str) -> None:
        self.data = data
        self.source = source
        self.problems: list[str] = []

    def section(self, name: str) -> _Section:
        value = self.data.get(name)
        if value is None:
            self.problems.append(
                f"{name}: the [{name}] table is missing; it states {', '.join(_SCHEMA[name])}"
            )
            return _Section(self.problems, name, {}, _SCHEMA[name], present=False)
        if not isinstance(value, dict):
            self.problems.append(f"{name}: expected a table [{name}], got {_describe(value)}")
            return _Section(self.problems, name, {}, _SCHEMA[name], present=False)
        return _Section(self.problems, name, value, _SCHEMA[name])

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def build(self) -> TableConfig:
        top = (*_SCHEMA, _WAGERS, _MUST_HIT_BY)
        for key in self.data:
            if key not in top:
                self.add(
                    key,
                    f"unknown table or key{_suggest(key, top)}; a Rules Submission has the "
                    f"tables {', '.join(f'[{t}]' for t in top)}",
                )

        table = self.section("table")
        table_id = self.table_id(table)
        game = self.game(table)
        table_type = self.table_type(table)
        seats = table.integer(
            "seats",
            1,
            MAX_SEATS,
            f": this build's Blackjack layout has {MAX_SEATS} player positions "
            "(Blackjack table and layout, 58 Pa. Code 633a.2)",
        )
        decks = self.decks(table)
        shuffle = table.choice("shuffle", Shuffle)
        cut_card = table.typed("cut_card", int, required=False)

        limits = self.section("limits")
        unit = limits.money("wager_unit")
        main_min = limits.money("blackjack_min")
        main_max = limits.money("blackjack_max")
        self.check_unit(unit)

        blackjack = self.section("blackjack")
        options = self.blackjack(blackjack)

        timers_section = self.section("timers")
        timers = self.timers(timers_section)
        countdown = timers_section.choice(
            "countdown_default",
            CountdownDefault,
            ": what the countdown does for a player who takes no action "
            "(58 Pa. Code 633b.5(p)(2), (z))",
        )

        chips = self.section("terminal").money_list("chip_denominations")

        self.check_cut_card(shuffle, cut_card, decks, seats)
        main_limits = self.main_limits(unit, main_min, main_max)
        offers = self.side_wagers(table_type, decks, unit, main_max)
        self.check_chips(chips, unit, main_min, offers)
        mystery = self.must_hit_by(offers)

        rules: BlackjackRules | None = None
        if seats is not None and decks is not None and options is not None and countdown:
            game_rules = BlackjackRules(
                decks=decks, seats=seats, countdown_default=countdown, **options
            )
            if table_type is not None:
                self.problems.extend(table_type_problems(table_type, game_rules))
            if main_limits is not None and offers is not None:
                rules = replace(game_rules, main_limits=main_limits, side_wagers=offers)
        if rules is not None and not self.problems:
            # The player-edge guard: no offered wager may return 100% or more.
            terms = None if mystery is None else MustHitByTerms(mystery.spec(), mystery.qualifying)
            self.problems.extend(player_edge_problems(offered_returns(rules, terms)))

        if self.problems:
            raise ConfigError(self.source, self.problems)
        return TableConfig(
            table_id=_known(table_id),
            game=_known(game),
            table_type=_known(table_type),
            rules=_known(rules),
            shuffle=_known(shuffle),
            cut_card=cut_card,
            timers=_known(timers),
            chip_denominations=_known(chips),
            source=self.source,
            must_hit_by=mystery,
        )

    # ---------------------------------------------------------------------- [must_hit_by]

    def must_hit_by(self, offers: tuple[SideWagerOffer, ...] | None) -> MustHitBy | None:
        """The Must-Hit-By Mystery Bonus of 633b.14, if the table offers it."""
        raw = self.data.get(_MUST_HIT_BY)
        if raw is None:
            return None
        if not isinstance(raw, dict):
            self.add(_MUST_HIT_BY, f"expected a table [{_MUST_HIT_BY}], got {_describe(raw)}")
            return None
        section = _Section(self.problems, _MUST_HIT_BY, raw, _MUST_HIT_BY_SCHEMA)
        letter = section.text("configuration")
        minimum = section.money("minimum_wager")
        qualifying = section.raw("qualifying")
        link = section.typed("meter", str, required=False)
        before = len(self.problems)
        if letter is not None and minimum is not None:
            try:
                must_hit_by.configuration(letter, minimum)
            except RulesError as exc:
                section.add("configuration", f"{exc} ({must_hit_by.SECTION}(c)(4))")
        names: tuple[str, ...] = ()
        if qualifying is not None:
            if not isinstance(qualifying, list) or not all(isinstance(q, str) for q in qualifying):
                section.add("qualifying", 'expected a list of wager names, e.g. ["blazing_7s"]')
            else:
                names = tuple(qualifying)
        offered = {o.wager.name for o in offers or ()}
        for name in names:
            known = must_hit_by.QUALIFYING_WAGERS.get(name)
            if known is None or not known.available:
                usable = [n for n, q in must_hit_by.QUALIFYING_WAGERS.items() if q.available]
                section.add(
                    "qualifying",
                    f"{name!r} is not a qualifying wager this build offers; choose "
                    f"{_options(usable)} ({must_hit_by.SECTION}(c)(1))",
                )
            elif offers is not None and name not in offered:
                section.add(
                    "qualifying",
                    f"{name} qualifies only where the table offers it; add [{_WAGERS}.{name}] "
                    f"({must_hit_by.SECTION}(a))",
                )
        if not names and qualifying is not None and isinstance(qualifying, list):
            section.add(
                "qualifying", f"name at least one qualifying wager ({must_hit_by.SECTION}(c)(1))"
            )
        if link is not None and not _METER_ID.fullmatch(link):
            section.add("meter", f"{link!r} is not a meter id: letters, digits and : _ - only")
        if len(self.problems) > before or letter is None or minimum is None or not names:
            return None
        return MustHitBy(letter, minimum, names, link)

    # ---------------------------------------------------------------------------- [table]

    def table_id(self, table: _Section) -> str | None:
        value = table.text("id")
        if value is not None and not _TABLE_ID.fullmatch(value):
            table.add(
                "id",
                f"{value!r} is not a table id: use 1 to 32 letters, digits, '-' or '_' "
                "(it names the table in the event log and in the shoe's personalization)",
            )
            return None
        return value

    def game(self, table: _Section) -> str | None:
        value = table.text("game")
        if value is not None and value not in SUPPORTED_GAMES:
            table.add(
                "game",
                f"{value!r} is not a game this build deals{_suggest(value, SUPPORTED_GAMES)}; "
                f"it supports {_options(SUPPORTED_GAMES)}",
            )
            return None
        return value

    def table_type(self, table: _Section) -> TableType | None:
        """The table type; a known type this build cannot run is reported and still returned,
        so that the rules it would impose are reported next to the refusal."""
        value = table.choice("type", TableType)
        if value is not None and value not in SUPPORTED_TABLE_TYPES:
            supported = _options(sorted(t.value for t in SUPPORTED_TABLE_TYPES))
            table.add(
                "type",
                f"{value.value!r} tables (58 Pa. Code 633b.5) are not yet supported by this "
                f"build; it runs {supported} tables",
            )
        return value

    def decks(self, table: _Section) -> int | None:
        value = table.typed("decks", int)
        if value is not None and value not in DECK_COUNTS:
            counts = ", ".join(str(n) for n in DECK_COUNTS[:-1]) + f" or {DECK_COUNTS[-1]}"
            table.add(
                "decks",
                f"{value} decks is not a shoe the certified shuffle builds; use {counts} decks "
                "of 52 cards (58 Pa. Code 633a.3)",
            )
            return None
        return value

    def check_cut_card(
        self, shuffle: Shuffle | None, cut_card: int | None, decks: int | None, seats: int | None
    ) -> None:
        """The cut card goes between 50% and 90% of the shoe, and before a full round's cards.

        Below half the shoe most of every certified shuffle is never dealt, and a small number
        is usually a percentage written where a card count belongs. Past 90%, or closer to the
        end of the shoe than five cards for every hand of a full round (each seat and the
        dealer), a round begun just before the cut card could run out of cards.
        """
        if shuffle is Shuffle.EVERY_ROUND and cut_card is not None:
            self.add(
                "table.cut_card",
                'is set but shuffle = "every-round" deals each round from a fresh shoe; '
                'remove cut_card or set shuffle = "cut-card"',
            )
            return
        if shuffle is not Shuffle.CUT_CARD:
            return
        if cut_card is None:
            if "cut_card" not in _as_mapping(self.data.get("table")):
                self.add(
                    "table.cut_card",
                    'missing: shuffle = "cut-card" needs the number of cards dealt before '
                    "the reshuffle, e.g. `cut_card = 234` (75% of 6 decks)",
                )
            return
        if decks is None or seats is None:
            return
        shoe = decks * CARDS_PER_DECK
        low = -(-shoe * CUT_CARD_MIN_PERCENT // 100)
        reserve = CARDS_RESERVED_PER_HAND * (seats + 1)
        high = min(shoe * CUT_CARD_MAX_PERCENT // 100, shoe - reserve)
        if low > high:
            self.add(
                "table.cut_card",
                f"a {shoe}-card shoe cannot keep {reserve} cards behind the cut card for a full "
                f"round at {seats} seats; use more decks, fewer seats or shuffle = "
                '"every-round"',
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
            self.add(
                "table.cut_card",
                f"{cut_card} cards is {share}: place the cut card between {low} and {high} "
                f"cards; before half the shoe most of each shuffle is never dealt{hint}",
            )
        else:
            self.add(
                "table.cut_card",
                f"{cut_card} cards is {share}: place the cut card between {low} and {high} "
                f"cards, so that at least {shoe - high} cards ({CARDS_RESERVED_PER_HAND} for "
                f"each of {seats} seats and the dealer, and at least "
                f"{100 - CUT_CARD_MAX_PERCENT}% of the shoe) remain to finish the round in "
                "which it comes out",
            )

    # --------------------------------------------------------------------------- [limits]

    def check_unit(self, unit: int | None) -> None:
        if unit is not None and not BLACKJACK_PAYS.exact_for(unit):
            self.add(
                "limits.wager_unit",
                f"{format_money(unit)} is an odd number of cents, so a Blackjack paid 3 to 2 on "
                f"one unit would be {unit * 3 / 2:g} cents, not a whole cent; choose a unit of "
                'an even number of cents such as "1.00" (58 Pa. Code 633b.5(v)(1))',
            )

    def multiple_of_unit(self, where: str, amount: int, unit: int) -> bool:
        if amount % unit:
            self.add(
                where,
                f"{format_money(amount)} is not a multiple of the wager unit "
                f"{format_money(unit)}: every wager is a whole number of units",
            )
            return False
        return True

    def main_limits(
        self, unit: int | None, low: int | None, high: int | None
    ) -> WagerLimits | None:
        if low is not None and high is not None and low > high:
            self.add(
                "limits.blackjack_min",
                f"{format_money(low)} is above blackjack_max {format_money(high)}",
            )
            return None
        if unit is None or low is None or high is None:
            return None
        ok = self.multiple_of_unit("limits.blackjack_min", low, unit)
        ok = self.multiple_of_unit("limits.blackjack_max", high, unit) and ok
        return WagerLimits(low, high, unit) if ok else None

    # ------------------------------------------------------------------------ [blackjack]

    def blackjack(self, section: _Section) -> dict[str, Any] | None:
        """The Blackjack options as keyword arguments of :class:`BlackjackRules`."""
        self.pays(section, "blackjack_pays", BLACKJACK_PAYS, "a player Blackjack", "633b.5(v)(1)")
        self.pays(
            section,
            "insurance_pays",
            INSURANCE_PAYS,
            "a winning Insurance wager",
            "633a.8, 633b.5(v)(2)",
        )
        flags = {
            key: section.flag(key)
            for key in (
                "dealer_hits_soft_17",
                "insurance",
                "even_money",
                "double_after_split",
                "resplit_aces",
                "hit_split_aces",
                "late_surrender",
                "dealer_peeks",
            )
        }
        double_on = section.choice(
            "double_on",
            DoubleOn,
            ": the first two cards a player may double down on (58 Pa. Code 633a.10)",
        )
        max_split_hands = section.integer(
            "max_split_hands",
            MIN_SPLIT_HANDS,
            MAX_SPLIT_HANDS,
            ": the hands one pair may become, counting the first; a player may split a pair "
            "(58 Pa. Code 633a.11(a)) and the Rules Submission states how many more times "
            f"(633a.11(c)); this build deals up to {MAX_SPLIT_HANDS} hands",
        )
        if flags["even_money"] and flags["insurance"] is False:
            section.add(
                "even_money",
                "even money is offered with the Insurance wager (58 Pa. Code 633a.8), so with "
                "insurance = false it would never be offered; set even_money = false or "
                "insurance = true",
            )
            return None
        if double_on is None or max_split_hands is None or None in flags.values():
            return None
        return {**flags, "double_on": double_on, "max_split_hands": max_split_hands}

    def pays(self, section: _Section, key: str, required: ToOne, what: str, cite: str) -> None:
        value = section.text(key)
        if value is None:
            return
        try:
            pay = parse_pay(value)
        except MoneyError:
            pay = None
        if pay != required:
            section.add(
                key,
                f'{what} is paid at {required}, not {value!r}; write {key} = "{required}" '
                f"as the layout states it (58 Pa. Code {cite})",
            )

    # --------------------------------------------------------------------------- [timers]

    def timers(self, section: _Section) -> Timers | None:
        why = (
            f": under {TIMER_MIN_SECONDS} seconds a player cannot read the screen and touch a "
            f"button, and over {TIMER_MAX_SECONDS} one idle player holds up the whole table"
        )
        values = [
            section.integer(key, TIMER_MIN_SECONDS, TIMER_MAX_SECONDS, why)
            for key in ("betting_seconds", "insurance_seconds", "decision_seconds")
        ]
        betting, insurance, decision = values
        if betting is None or insurance is None or decision is None:
            return None
        return Timers(betting, insurance, decision)

    # ------------------------------------------------------------------------- [terminal]

    def check_chips(
        self,
        chips: tuple[int, ...] | None,
        unit: int | None,
        main_min: int | None,
        offers: tuple[SideWagerOffer, ...] | None,
    ) -> None:
        if chips is None:
            return
        where = "terminal.chip_denominations"
        if any(b <= a for a, b in itertools.pairwise(chips)):
            self.add(
                where,
                "list each chip once, smallest first, e.g. "
                + _SCHEMA["terminal"]["chip_denominations"],
            )
        if unit is not None:
            for i, chip in enumerate(chips):
                self.multiple_of_unit(f"{where}[{i}]", chip, unit)
        minimums = [("blackjack_min", main_min)]
        minimums += [(f"the {o.wager.title} min", o.limits.minimum) for o in offers or ()]
        for name, minimum in minimums:
            if minimum is not None and min(chips) > minimum:
                self.add(
                    where,
                    f"the smallest chip {format_money(min(chips))} is above {name} "
                    f"{format_money(minimum)}, so a player could not wager the minimum",
                )

    # --------------------------------------------------------------------------- [wagers]

    def side_wagers(
        self,
        table_type: TableType | None,
        decks: int | None,
        unit: int | None,
        main_max: int | None,
    ) -> tuple[SideWagerOffer, ...] | None:
        raw = self.data.get(_WAGERS, {})
        if not isinstance(raw, dict):
            self.add(
                _WAGERS,
                f"expected tables such as [wagers.lucky_aces], got {_describe(raw)}",
            )
            return None
        offers: list[SideWagerOffer] = []
        ok = True
        for name, entry in raw.items():
            offer = self.side_wager(name, entry, set(raw), table_type, decks, unit, main_max)
            if offer is None:
                ok = False
            else:
                offers.append(offer)
        return tuple(sorted(offers, key=lambda o: o.wager.name)) if ok else None

    def side_wager(
        self,
        name: str,
        entry: object,
        offered: set[str],
        table_type: TableType | None,
        decks: int | None,
        unit: int | None,
        main_max: int | None,
    ) -> SideWagerOffer | None:
        path = f"{_WAGERS}.{name}"
        wager = REGISTRY.get(name)
        if wager is None:
            self.add(
                path,
                f"no side wager named {name!r} in this build{_suggest(name, REGISTRY)}; it "
                f"offers {_options(sorted(REGISTRY))}",
            )
            return None
        if not isinstance(entry, dict):
            self.add(path, f"expected a table [{path}], got {_describe(entry)}")
            return None
        before = len(self.problems)
        schema = dict(_WAGER_SCHEMA)
        if wager.paytable_from_lines is not None:
            schema["lines"] = '{ "Straight Flush" = "40 to 1", ... }'
        for key, spec in wager.options.items():
            schema[key] = _toml_value(spec.default)
        stated_meters = _stated_meter_names(wager)
        if stated_meters:
            schema |= _METER_SCHEMA
        schema["meter"] = '"floor:' + wager.name + '"'
        section = _Section(self.problems, path, entry, schema)

        fixed_by_decks = None
        if wager.deck_paytables is not None and decks is not None:
            fixed_by_decks = wager.deck_paytables.get(decks)
        paytable_name = section.typed("paytable", str, required=fixed_by_decks is None)
        paytable = None
        if fixed_by_decks is not None:
            if paytable_name is not None and paytable_name != fixed_by_decks:
                section.add(
                    "paytable",
                    f"{wager.title} on {decks} decks uses {fixed_by_decks}, not "
                    f"{paytable_name!r}: the number of decks decides the paytable "
                    f"({_cite(wager, 'deck_paytables')})",
                )
            else:
                paytable = wager.paytables.get(fixed_by_decks)
        elif paytable_name is not None and "lines" in entry:
            paytable = self.stated_paytable(section, wager, paytable_name, entry["lines"])
        elif paytable_name is not None:
            paytable = wager.paytables.get(paytable_name)
            if paytable is None:
                section.add(
                    "paytable",
                    f"{paytable_name!r} is not a {wager.title} paytable"
                    f"{_suggest(paytable_name, wager.paytables)}; choose "
                    f"{_options(wager.paytables)} ({_cite(wager, 'paytables')})",
                )
        options = self.wager_options(section, wager)
        low = section.money("min")
        high = section.money("max")

        for required in wager.requires:
            if required != "blackjack" and required not in offered:
                self.add(
                    path,
                    f"{wager.title} is placed only with the {required} wager, which this table "
                    f"does not offer; add [{_WAGERS}.{required}] ({wager.section})",
                )
        if (
            table_type is not None
            and wager.table_types is not None
            and table_type not in wager.table_types
        ):
            places = " or ".join(_TABLE_WORDS[t] for t in sorted(wager.table_types))
            self.add(
                path,
                f"{wager.title} is offered only on {places} ({_cite(wager, 'table_types')})",
            )
        if (
            decks is not None
            and wager.allowed_decks is not None
            and (decks not in wager.allowed_decks)
        ):
            counts = " or ".join(str(n) for n in sorted(wager.allowed_decks))
            self.add(
                path,
                f"{wager.title} is offered only with {counts} decks, and this table deals "
                f"{decks} ({_cite(wager, 'allowed_decks')})",
            )
        if wager.fixed_amounts:
            amounts = _options(format_money(a) for a in wager.fixed_amounts)
            for key, value in (("min", low), ("max", high)):
                if value is not None and value not in wager.fixed_amounts:
                    section.add(
                        key,
                        f"{wager.title} is a fixed-amount wager of {amounts}, so its {key} must "
                        f"be one of them, not {format_money(value)} "
                        f"({_cite(wager, 'fixed_amounts')})",
                    )
        if low is not None and high is not None and low > high:
            section.add("min", f"{format_money(low)} is above max {format_money(high)}")
        if unit is not None:
            for key, value in (("min", low), ("max", high)):
                if value is not None:
                    self.multiple_of_unit(section.field(key), value, unit)
            if paytable is not None:
                for line in paytable.lines:
                    if not isinstance(line.pay, MeterShare) and not line.pay.exact_for(unit):
                        section.add(
                            "paytable",
                            f"{paytable.name} pays {line.name} at {line.pay}, which is not a "
                            f"whole number of cents on a {format_money(unit)} unit; choose a "
                            "unit that makes every payout exact",
                        )
        multiple = wager.max_multiple_of_main
        if (
            multiple is not None
            and low is not None
            and main_max is not None
            and (low > multiple * main_max)
        ):
            section.add(
                "min",
                f"{format_money(low)} is more than {multiple} times blackjack_max "
                f"{format_money(main_max)}, so the wager could never be placed "
                f"({wager.section})",
            )
        if low in wager.fixed_amounts and high in wager.fixed_amounts and low != high:
            section.add(
                "max",
                f"{wager.title} is one fixed amount at a table: min and max must be equal "
                f"({_cite(wager, 'fixed_amounts')})",
            )
        amount_option = dict(options or ()).get("amount")
        if isinstance(amount_option, int) and low is not None and low != amount_option:
            section.add(
                "min",
                f"the {wager.title} wager offered is {format_money(amount_option)} (amount), so "
                f"min and max are {format_money(amount_option)} ({_cite(wager, 'fixed_amounts')})",
            )
        if paytable is not None and stated_meters:
            paytable = self.stated_meters(section, wager, paytable, stated_meters, low)
        link = section.typed("meter", str, required=False)
        if link is not None and not _METER_ID.fullmatch(link):
            section.add("meter", f"{link!r} is not a meter id: letters, digits and : _ - only")
        if len(self.problems) > before or paytable is None or low is None or high is None:
            return None
        if unit is None or options is None:
            return None
        if link is not None:
            options = (*options, ("meter", link))
        return SideWagerOffer(wager, paytable, WagerLimits(low, high, unit), options)

    def stated_meters(
        self,
        section: _Section,
        wager: SideWager,
        paytable: Paytable,
        names: tuple[str, ...],
        wager_amount: int | None,
    ) -> Paytable | None:
        """The meters of a progressive wager whose rate and amounts the Rules Submission
        sets (633b.9(g)): ``meter_seed``, ``meter_reseed`` and ``meter_increment``."""
        seed = section.money("meter_seed")
        reseed = section.money("meter_reseed")
        rate = section.text("meter_increment")
        increment = None
        if rate is not None:
            match = _PERCENT.fullmatch(rate.strip())
            if match is None:
                section.add("meter_increment", f'{rate!r} is not a percentage like "4.5%"')
            else:
                whole, _, frac = match.group(1).partition(".")
                increment = int(whole) * 100 + int((frac + "00")[:2])
                if not 0 < increment < 10_000:
                    section.add("meter_increment", f"{rate} is not within 0% and 100%")
                    increment = None
        if seed is None or reseed is None or increment is None:
            return None
        if wager.check_meter is not None and wager_amount is not None:
            problem = wager.check_meter(wager_amount, seed, reseed)
            if problem is not None:
                section.add("meter_seed", problem)
                return None
        if reseed > seed:
            section.add("meter_reseed", "the reset amount cannot be above the initial amount")
            return None
        meters = tuple(MeterSpec(name, seed, reseed, increment) for name in names)
        return replace(paytable, meters=meters)

    def stated_paytable(
        self, section: _Section, wager: SideWager, name: str, lines: object
    ) -> Paytable | None:
        """A paytable the Rules Submission states line by line (601a.2)."""
        build = wager.paytable_from_lines
        if build is None or not isinstance(lines, dict):
            section.add("lines", f'expected a table of hand = "pay", got {_describe(lines)}')
            return None
        if name in wager.paytables:
            section.add(
                "paytable",
                f"{name!r} names a published {wager.title} paytable; give the stated "
                "paytable its own name",
            )
            return None
        if not all(isinstance(v, str) for v in lines.values()):
            section.add("lines", 'each line is hand = "pay", e.g. "Flush" = "5 to 1"')
            return None
        try:
            return build(name, {str(k): str(v) for k, v in lines.items()})
        except RulesError as exc:
            section.add("lines", f"{exc} ({_cite(wager, 'paytables')})")
            return None

    def wager_options(
        self, section: _Section, wager: SideWager
    ) -> tuple[tuple[str, str | int | bool], ...] | None:
        """The wager's options, each one of its choices (the default when not given)."""
        chosen: list[tuple[str, str | int | bool]] = []
        ok = True
        for key, spec in sorted(wager.options.items()):
            value = section.data.get(key, spec.default)
            if (
                type(value) not in (str, int, bool)
                or value not in spec.choices
                or (type(value) is not type(spec.default))
            ):
                choices = ", ".join(_toml_value(c) for c in spec.choices)
                section.add(
                    key,
                    f"{_toml_value(value) if type(value) in (str, int, bool) else _describe(value)}"
                    f" is not a choice; {spec.text}: choose {choices} "
                    f"({wager.section}{spec.cite})",
                )
                ok = False
                continue
            chosen.append((key, value))
        return tuple(chosen) if ok else None


_METER_SCHEMA: Final = {
    "meter_seed": '"2000.00"',
    "meter_reseed": '"2000.00"',
    "meter_increment": '"4%"',
}
#: The keys of a wager's table that hold money (cents in the logged form).
_MONEY_KEYS: Final = ("min", "max", "meter_seed", "meter_reseed")
_METER_ID: Final = re.compile(r"[A-Za-z0-9:_-]{1,64}")
_PERCENT: Final = re.compile(r"(\d{1,2}(?:\.\d{1,2})?)\s*%")


def _stated_meter_names(wager: SideWager) -> tuple[str, ...]:
    """The meters a wager's paytables pay from but do not specify (the Rules Submission
    sets them, 633b.9(g)), in the order first named."""
    names: list[str] = []
    for paytable in wager.paytables.values():
        if paytable.meters:
            return ()
        for line in paytable.lines:
            if isinstance(line.pay, MeterShare):
                name = line.pay.meter or wager.title
                if name not in names:
                    names.append(name)
    return tuple(names)


def _toml_value(value: object) -> str:
    """A value as the TOML file writes it: ``true``, ``500``, ``"B1"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return f'"{value}"'


def _as_mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def config_from_dict(data: Mapping[str, Any], source: str = "<logged config>") -> TableConfig:
    """Rebuild and re-check a config from :meth:`TableConfig.to_dict` output (as logged).

    The logged form holds cents as integers; they are written back as dollar strings and the
    result goes through the same checks as a file, so a logged config that the regulations or
    this build would refuse is refused here too (recall and verification rely on it).

    Raises:
        ConfigError: the logged config has a newer schema or breaks a rule.
    """
    schema = data.get("schema")
    if schema != CONFIG_SCHEMA:
        raise ConfigError(
            source, [f"schema: logged config schema {schema!r}; this build reads {CONFIG_SCHEMA}"]
        )
    if _game_of(data) == UTH:
        return _UthBuilder(_uth_file_shape(data), source).build()

    def dollars(cents: object) -> object:
        return format_money(cents).lstrip("$").replace(",", "") if type(cents) is int else cents

    table = {k: v for k, v in dict(data.get("table", {})).items() if v is not None}
    limits = {k: dollars(v) for k, v in dict(data.get("limits", {})).items()}
    terminal = dict(data.get("terminal", {}))
    if "chip_denominations" in terminal:
        terminal["chip_denominations"] = [dollars(c) for c in terminal["chip_denominations"]]
    wagers = {
        name: {k: (dollars(v) if k in _MONEY_KEYS else v) for k, v in dict(w).items()}
        for name, w in dict(data.get("wagers", {})).items()
    }
    rebuilt: dict[str, object] = {
        "table": table,
        "limits": limits,
        "blackjack": dict(data.get("blackjack", {})),
        "timers": dict(data.get("timers", {})),
        "terminal": terminal,
    }
    if wagers:
        rebuilt["wagers"] = wagers
    mystery = data.get(_MUST_HIT_BY)
    if isinstance(mystery, dict):
        rebuilt[_MUST_HIT_BY] = {
            k: (dollars(v) if k == "minimum_wager" else v) for k, v in mystery.items()
        }
    return _Builder(rebuilt, source).build()


# ------------------------------------------------------------ Ultimate Texas Hold 'Em (653a)

#: The sections and keys of an Ultimate Texas Hold 'Em Rules Submission (58 Pa. Code 653a),
#: with the example value shown when a key is missing. ``[uth.trips]``, ``[uth.progressive]``
#: and ``[uth.five_card]`` are optional: each one present offers its wager.
_UTH_SCHEMA: Final[dict[str, dict[str, str]]] = {
    "table": {"id": '"UTH-01"', "game": '"uth"', "type": '"fully-automated"', "seats": "6"},
    "limits": {"wager_unit": '"1.00"', "ante_min": '"5.00"', "ante_max": '"500.00"'},
    "uth": {
        "blind_paytable": '"Paytable A"',
        "max_payout": '"50000.00"',
        "side_wagers_settle_on_fold": "true",
        "trips": "{...}",
        "progressive": "{...}",
        "five_card": "{...}",
    },
    "timers": {"betting_seconds": "15", "decision_seconds": "15"},
    "terminal": {"chip_denominations": '["1.00", "5.00", "25.00", "100.00", "500.00"]'},
}
_UTH_TRIPS_SCHEMA: Final = {"paytable": '"Paytable A"', "min": '"5.00"', "max": '"100.00"'}
_UTH_METER_KEYS: Final = {
    "meter_seed": '"10000.00"',
    "meter_reseed": '"10000.00"',
    "meter_increment": '"15%"',
    "meter": '"floor:uth-progressive"',
}
_UTH_PROGRESSIVE_SCHEMA: Final = {"amounts": '["1.00", "5.00"]', **_UTH_METER_KEYS}
_UTH_FIVE_CARD_SCHEMA: Final = {
    "amounts": '["1.00", "5.00"]',
    "hand": '"hole-and-flop"',
    "magic_card": "true",
    "lucky_bonus": "false",
    "bonus_on": '"winning-hand"',
    **_UTH_METER_KEYS,
}
#: A fixed-amount UTH wager as read: amounts, meter, meter link, and for the Five Card Hand
#: Bonus its hand, Magic Card, Lucky Bonus and which wagers they pay.
_FixedWager: TypeAlias = tuple[
    tuple[int, ...], MeterSpec | None, str | None, FiveCardHand, bool, bool, BonusOn
]
#: What ``max_payout`` says when the Rules Submission sets no maximum payout (653a.12(f)).
_NO_MAXIMUM: Final = "none"
#: The most seats of an Ultimate Texas Hold 'Em layout this build draws (653a.2).
UTH_MAX_SEATS: Final = 10


class _UthBuilder:
    """Reads an Ultimate Texas Hold 'Em Rules Submission into a :class:`TableConfig` whose
    :attr:`~TableConfig.uth` is a checked :class:`~game_server.rules.uth.rules.UthRules`;
    every problem is collected, each naming its field and the 653a.12 paragraph."""

    def __init__(self, data: Mapping[str, object], source: str) -> None:
        self.data = data
        self.source = source
        self.problems: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def section(
        self, path: str, raw: object, schema: Mapping[str, str], *, required: bool = True
    ) -> _Section | None:
        if raw is None:
            if required:
                self.add(path, f"the [{path}] table is missing; it states {', '.join(schema)}")
                return _Section(self.problems, path, {}, schema, present=False)
            return None
        if not isinstance(raw, dict):
            self.add(path, f"expected a table [{path}], got {_describe(raw)}")
            return _Section(self.problems, path, {}, schema, present=False)
        return _Section(self.problems, path, raw, schema)

    def build(self) -> TableConfig:
        data = self.data
        for key in data:
            if key not in _UTH_SCHEMA:
                self.add(
                    key,
                    f"unknown table or key{_suggest(key, _UTH_SCHEMA)}; an Ultimate Texas Hold "
                    f"'Em Rules Submission has the tables "
                    f"{', '.join(f'[{t}]' for t in _UTH_SCHEMA)}",
                )
        table = self.section("table", data.get("table"), _UTH_SCHEMA["table"])
        uth_raw = data.get("uth")
        uth = self.section("uth", uth_raw, _UTH_SCHEMA["uth"])
        limits = self.section("limits", data.get("limits"), _UTH_SCHEMA["limits"])
        timers_section = self.section("timers", data.get("timers"), _UTH_SCHEMA["timers"])
        terminal = self.section("terminal", data.get("terminal"), _UTH_SCHEMA["terminal"])
        assert table and uth and limits and timers_section and terminal

        table_id = table.text("id")
        if table_id is not None and not _TABLE_ID.fullmatch(table_id):
            table.add(
                "id",
                f"{table_id!r} is not a table id: use 1 to 32 letters, digits, '-' or '_'",
            )
        table.text("game")
        table_type = table.choice("type", TableType)
        if table_type is not None and table_type is not TableType.FULLY_AUTOMATED:
            table.add(
                "type",
                f"Ultimate Texas Hold 'Em is dealt at a fully automated electronic table, not "
                f"{_TABLE_WORDS[table_type]} (the hybrid tables of 58 Pa. Code 633b.5 deal "
                'Blackjack); set type = "fully-automated" (58 Pa. Code 653a.2)',
            )
        seats = table.integer(
            "seats",
            1,
            UTH_MAX_SEATS,
            f": an Ultimate Texas Hold 'Em layout has 1 to {UTH_MAX_SEATS} player positions "
            "(58 Pa. Code 653a.2)",
        )

        unit = limits.money("wager_unit")
        if unit is not None and unit % 2:
            limits.add(
                "wager_unit",
                f"{format_money(unit)} is an odd number of cents, so a Blind paid 3 to 2 on one "
                'unit would not be a whole cent; choose an even number of cents such as "1.00" '
                "(58 Pa. Code 653a.12(b))",
            )
        ante_min = limits.money("ante_min")
        ante_max = limits.money("ante_max")
        ante = self.limits("limits", "ante_min", "ante_max", unit, ante_min, ante_max, "Ante")

        blind = uth.text("blind_paytable")
        if blind is not None and blind not in UTH_BLIND_PAYTABLES:
            uth.add(
                "blind_paytable",
                f"{blind!r} is not a Blind paytable{_suggest(blind, UTH_BLIND_PAYTABLES)}; "
                f"choose {_options(UTH_BLIND_PAYTABLES)} (58 Pa. Code 653a.12(b))",
            )
            blind = None
        settle_on_fold = uth.flag("side_wagers_settle_on_fold")
        max_payout = self.max_payout(uth)
        sub = _as_mapping(uth_raw)
        trips = self.trips(sub.get("trips"), unit)
        progressive = self.fixed_wager(
            "progressive", sub.get("progressive"), unit, "653a.12(d)", "653a.12(d)(3)"
        )
        five_card = self.fixed_wager(
            "five_card", sub.get("five_card"), unit, "653a.12(e)", "653a.12(e)(4)"
        )

        why = f": a countdown is {TIMER_MIN_SECONDS} to {TIMER_MAX_SECONDS} seconds"
        betting = timers_section.integer(
            "betting_seconds", TIMER_MIN_SECONDS, TIMER_MAX_SECONDS, why
        )
        decision = timers_section.integer(
            "decision_seconds", TIMER_MIN_SECONDS, TIMER_MAX_SECONDS, why
        )
        # No insurance at this table: its countdown is 0.
        timers = Timers(betting or 0, 0, decision or 0)
        chips = terminal.money_list("chip_denominations")
        self.check_chips(chips, unit, ante, trips)

        rules: UthRules | None = None
        if not self.problems:
            trips_paytable, trips_limits = trips if trips is not None else (None, ante)
            assert ante is not None and seats is not None and blind is not None
            assert trips_limits is not None
            try:
                rules = UthRules(
                    seats=seats,
                    ante_limits=ante,
                    blind_paytable=blind,
                    trips_paytable=trips_paytable,
                    trips_limits=trips_limits,
                    progressive_amounts=() if progressive is None else progressive[0],
                    progressive_meter=None if progressive is None else progressive[1],
                    progressive_meter_id=(
                        f"{table_id}:progressive"
                        if progressive is None or progressive[2] is None
                        else progressive[2]
                    ),
                    five_card_amounts=() if five_card is None else five_card[0],
                    five_card_meter=None if five_card is None else five_card[1],
                    five_card_meter_id=(
                        f"{table_id}:five_card"
                        if five_card is None or five_card[2] is None
                        else five_card[2]
                    ),
                    five_card_hand=FiveCardHand.HOLE_AND_FLOP
                    if five_card is None
                    else five_card[3],
                    magic_card_bonus=five_card is not None and five_card[4],
                    lucky_bonus=five_card is not None and five_card[5],
                    bonus_on=BonusOn.WINNING_HAND if five_card is None else five_card[6],
                    max_payout=max_payout,
                    side_wagers_settle_on_fold=bool(settle_on_fold),
                )
            except UthRulesError as exc:
                self.add("uth", str(exc))
        if rules is not None and not self.problems:
            # The player-edge guard: no offered wager may return 100% or more.
            self.problems.extend(player_edge_problems(uth_returns(rules)))
        if rules is not None and max_payout is not None:
            least = max(UTH_MINIMUM_MAX_PAYOUT, rules.max_win_at_minimum())
            if max_payout < least:  # pragma: no cover - UthRules refuses it first
                self.add("uth.max_payout", f"below {format_money(least)} (653a.12(f))")
        if self.problems:
            raise ConfigError(self.source, self.problems)
        assert rules is not None and ante is not None
        return TableConfig(
            table_id=_known(table_id),
            game=UTH,
            table_type=TableType.FULLY_AUTOMATED,
            rules=BlackjackRules(decks=1, seats=rules.seats, main_limits=ante),
            shuffle=Shuffle.EVERY_ROUND,
            cut_card=None,
            timers=timers,
            chip_denominations=_known(chips),
            source=self.source,
            uth=rules,
        )

    def limits(
        self,
        path: str,
        low_key: str,
        high_key: str,
        unit: int | None,
        low: int | None,
        high: int | None,
        what: str,
    ) -> WagerLimits | None:
        if unit is None or low is None or high is None:
            return None
        ok = True
        for key, amount in ((low_key, low), (high_key, high)):
            if amount % unit:
                self.add(
                    f"{path}.{key}",
                    f"{format_money(amount)} is not a whole number of wager units "
                    f"({format_money(unit)})",
                )
                ok = False
        if low > high:
            self.add(f"{path}.{high_key}", f"the {what} maximum is below its minimum")
            ok = False
        return WagerLimits(low, high, unit) if ok else None

    def max_payout(self, uth: _Section) -> int | None:
        """653a.12(f): ``"none"`` or an amount of at least $50,000 (and at least what one
        patron could win betting the minimum: checked by :class:`UthRules`)."""
        value = uth.raw("max_payout")
        if value == _NO_MAXIMUM:
            return None
        amount = _money(self.problems, "uth.max_payout", value)
        if amount is not None and amount < UTH_MINIMUM_MAX_PAYOUT:
            uth.add(
                "max_payout",
                f"{format_money(amount)} is below {format_money(UTH_MINIMUM_MAX_PAYOUT)}: a "
                "maximum payout per hand is at least $50,000 or what one patron could win in "
                'a round betting the minimum wager, whichever is greater; or write "none" '
                "(58 Pa. Code 653a.12(f))",
            )
            return None
        return amount

    def trips(self, raw: object, unit: int | None) -> tuple[str, WagerLimits | None] | None:
        section = self.section("uth.trips", raw, _UTH_TRIPS_SCHEMA, required=False)
        if section is None:
            return None
        name = section.text("paytable")
        if name is not None and name not in UTH_TRIPS_PAYTABLES:
            section.add(
                "paytable",
                f"{name!r} is not a Trips paytable{_suggest(name, UTH_TRIPS_PAYTABLES)}; "
                f"choose {_options(UTH_TRIPS_PAYTABLES)} (58 Pa. Code 653a.12(c))",
            )
            name = None
        low, high = section.money("min"), section.money("max")
        limits = self.limits("uth.trips", "min", "max", unit, low, high, "Trips")
        if name is None:
            return None
        return name, limits

    def fixed_wager(
        self, key: str, raw: object, unit: int | None, cite: str, meter_cite: str
    ) -> _FixedWager | None:
        """``[uth.progressive]`` or ``[uth.five_card]``: the fixed amounts offered and the
        meter (initial and reset amounts of at least $10,000 and the rate of progression, all
        in the Rules Submission: 653a.12(d)(3), (e)(4))."""
        path = f"uth.{key}"
        schema = _UTH_PROGRESSIVE_SCHEMA if key == "progressive" else _UTH_FIVE_CARD_SCHEMA
        section = self.section(path, raw, schema, required=False)
        if section is None:
            return None
        before = len(self.problems)
        amounts = section.money_list("amounts")
        title = "Progressive Payout Wager" if key == "progressive" else "Five Card Hand Bonus"
        for i, amount in enumerate(amounts or ()):
            if key == "progressive" and amount not in UTH_PROGRESSIVE_AMOUNTS:
                offered = ", ".join(format_money(a) for a in UTH_PROGRESSIVE_AMOUNTS)
                section.add(
                    f"amounts[{i}]",
                    f"a {title} of {format_money(amount)} has no Envy Bonus table; offer "
                    f"{offered} (58 Pa. Code 653a.12(d)(5))",
                )
            elif unit is not None and amount % unit:
                section.add(
                    f"amounts[{i}]",
                    f"{format_money(amount)} is not a whole number of wager units "
                    f"({format_money(unit)}) (58 Pa. Code {cite})",
                )
        seed, reseed = section.money("meter_seed"), section.money("meter_reseed")
        for name, stated in (("meter_seed", seed), ("meter_reseed", reseed)):
            if stated is not None and stated < UTH_MINIMUM_METER_SEED:
                which = "initial" if name == "meter_seed" else "reset"
                section.add(
                    name,
                    f"the {title} meter's {which} amount {format_money(stated)} is below "
                    f"{format_money(UTH_MINIMUM_METER_SEED)}: it must be at least $10,000 "
                    f"(58 Pa. Code {meter_cite})",
                )
        if seed is not None and reseed is not None and reseed > seed:
            section.add("meter_reseed", "the reset amount cannot be above the initial amount")
        increment = self.percent(section, "meter_increment", meter_cite)
        link = section.typed("meter", str, required=False)
        if link is not None and not _METER_ID.fullmatch(link):
            section.add("meter", f"{link!r} is not a meter id: letters, digits and : _ - only")
        hand = FiveCardHand.HOLE_AND_FLOP
        magic = lucky = False
        bonus_on = BonusOn.WINNING_HAND
        if key == "five_card":
            chosen = section.choice("hand", FiveCardHand, " (58 Pa. Code 653a.12(e)(2))")
            hand = chosen if chosen is not None else hand
            magic = bool(section.flag("magic_card"))
            lucky = bool(section.flag("lucky_bonus"))
            picked = section.choice("bonus_on", BonusOn, " (58 Pa. Code 653a.12(e)(3))")
            bonus_on = picked if picked is not None else bonus_on
        if len(self.problems) > before or amounts is None or seed is None or reseed is None:
            return None
        if increment is None:
            return None
        meter_name = "Progressive Payout" if key == "progressive" else "Five Card Hand Bonus"
        spec = MeterSpec(meter_name, seed, reseed, increment)
        return tuple(sorted(amounts)), spec, link, hand, magic, lucky, bonus_on

    @staticmethod
    def percent(section: _Section, key: str, cite: str) -> int | None:
        rate = section.text(key)
        if rate is None:
            return None
        match = _PERCENT.fullmatch(rate.strip())
        if match is None:
            section.add(key, f'{rate!r} is not a percentage like "15%" (58 Pa. Code {cite})')
            return None
        whole, _, frac = match.group(1).partition(".")
        basis = int(whole) * 100 + int((frac + "00")[:2])
        if not 0 < basis < 10_000:
            section.add(
                key,
                f"the rate of progression {rate} must be more than 0% and less than 100% "
                f"(58 Pa. Code {cite})",
            )
            return None
        return basis

    def check_chips(
        self,
        chips: tuple[int, ...] | None,
        unit: int | None,
        ante: WagerLimits | None,
        trips: tuple[str, WagerLimits | None] | None,
    ) -> None:
        if chips is None:
            return
        where = "terminal.chip_denominations"
        if any(b <= a for a, b in itertools.pairwise(chips)):
            self.add(where, "list each chip once, smallest first")
        if unit is not None:
            for i, chip in enumerate(chips):
                if chip % unit:
                    self.add(
                        f"{where}[{i}]",
                        f"{format_money(chip)} is not a multiple of the wager unit "
                        f"{format_money(unit)}",
                    )
        minimums = [("ante_min", None if ante is None else ante.minimum)]
        if trips is not None and trips[1] is not None:
            minimums.append(("the Trips min", trips[1].minimum))
        for name, minimum in minimums:
            if minimum is not None and min(chips) > minimum:
                self.add(
                    where,
                    f"the smallest chip {format_money(min(chips))} is above {name} "
                    f"{format_money(minimum)}, so a player could not wager the minimum",
                )


def _uth_dict(config: TableConfig, rules: UthRules) -> dict[str, Any]:
    """An Ultimate Texas Hold 'Em config as logged (the file's shape, cents as integers)."""
    ante = rules.ante_limits
    uth: dict[str, Any] = {
        "blind_paytable": rules.blind_paytable,
        "max_payout": rules.max_payout,
        "side_wagers_settle_on_fold": rules.side_wagers_settle_on_fold,
    }
    if rules.trips_paytable is not None:
        uth["trips"] = {
            "paytable": rules.trips_paytable,
            "min": rules.trips_limits.minimum,
            "max": rules.trips_limits.maximum,
        }

    def meter(spec: MeterSpec | None, meter_id: str, own: str) -> dict[str, Any]:
        assert spec is not None
        out: dict[str, Any] = {
            "meter_seed": spec.seed,
            "meter_reseed": spec.reseed,
            "meter_increment": f"{spec.increment_bp // 100}.{spec.increment_bp % 100:02d}%",
        }
        if meter_id != own:
            out["meter"] = meter_id
        return out

    table_id = config.table_id
    if rules.progressive_amounts:
        uth["progressive"] = {
            "amounts": list(rules.progressive_amounts),
            **meter(rules.progressive_meter, rules.progressive_meter_id, f"{table_id}:progressive"),
        }
    if rules.five_card_amounts:
        uth["five_card"] = {
            "amounts": list(rules.five_card_amounts),
            "hand": rules.five_card_hand.value,
            "magic_card": rules.magic_card_bonus,
            "lucky_bonus": rules.lucky_bonus,
            "bonus_on": rules.bonus_on.value,
            **meter(rules.five_card_meter, rules.five_card_meter_id, f"{table_id}:five_card"),
        }
    return {
        "schema": CONFIG_SCHEMA,
        "table": {
            "id": table_id,
            "game": UTH,
            "type": config.table_type.value,
            "seats": rules.seats,
        },
        "limits": {"wager_unit": ante.unit, "ante_min": ante.minimum, "ante_max": ante.maximum},
        "uth": uth,
        "timers": {
            "betting_seconds": config.timers.betting_seconds,
            "decision_seconds": config.timers.decision_seconds,
        },
        "terminal": {"chip_denominations": list(config.chip_denominations)},
    }


def _uth_file_shape(data: Mapping[str, Any]) -> dict[str, object]:
    """The logged form of an Ultimate Texas Hold 'Em config back in the file's shape."""

    def dollars(cents: object) -> object:
        return format_money(cents).lstrip("$").replace(",", "") if type(cents) is int else cents

    money = {"min", "max", "meter_seed", "meter_reseed", "max_payout"}

    def convert(section: Mapping[str, Any]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in section.items():
            if isinstance(value, dict):
                out[key] = convert(value)
            elif key == "amounts" and isinstance(value, list):
                out[key] = [dollars(v) for v in value]
            elif key == "max_payout" and value is None:
                out[key] = _NO_MAXIMUM
            elif key in money:
                out[key] = dollars(value)
            else:
                out[key] = value
        return out

    terminal: dict[str, object] = dict(_as_mapping(data.get("terminal")))
    chips = terminal.get("chip_denominations")
    if isinstance(chips, list):
        terminal["chip_denominations"] = [dollars(c) for c in chips]
    return {
        "table": dict(_as_mapping(data.get("table"))),
        "limits": {k: dollars(v) for k, v in _as_mapping(data.get("limits")).items()},
        "uth": convert(_as_mapping(data.get("uth"))),
        "timers": dict(_as_mapping(data.get("timers"))),
        "terminal": terminal,
    }
