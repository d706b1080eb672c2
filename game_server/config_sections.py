"""The values of a table's Rules Submission and the reader every game's section is written
with, below :class:`~game_server.config.TableConfig`: the errors, the shuffle, the timers, the
shared Must-Hit-By section, the cut card, and :class:`Section` with the helpers beside it.

Nothing here knows a game or the registry: :mod:`game_server.config` builds the table's
config from these and re-exports them (``from game_server.config import Section`` works).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, TypeVar

from game_server.rules.errors import RulesError
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec, TableType
from shared.errors import ETGError, MoneyError
from shared.money import format_money, parse_money

CARDS_PER_DECK: Final = 52

#: The cut card goes between these shares of the shoe, in percent (see :func:`check_cut_card`).
CUT_CARD_MIN_PERCENT: Final = 50
CUT_CARD_MAX_PERCENT: Final = 90
#: Cards kept behind the cut card for each hand of a full round (every seat and the dealer).
CARDS_RESERVED_PER_HAND: Final = 5

#: Bounds of every countdown, in whole seconds.
TIMER_MIN_SECONDS: Final = 3
TIMER_MAX_SECONDS: Final = 120

#: The optional ``[timers]`` key of every game: the betting window ends early once every
#: player at the table has wagered (:attr:`Timers.deal_when_all_bet`), with its example value.
DEAL_WHEN_ALL_BET: Final = "deal_when_all_bet"
PACE_SCHEMA: Final = {DEAL_WHEN_ALL_BET: "true"}

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
        deal_when_all_bet: the betting window ends as soon as every player at the table
            (each terminal that holds credits) has placed his wagers, instead of running
            out (``[timers] deal_when_all_bet``, optional: false when absent, the window
            then always runs its ``betting_seconds``).
    """

    betting_seconds: int
    insurance_seconds: int
    decision_seconds: int
    deal_when_all_bet: bool = False


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


def read_pace(timers: Section | None) -> bool:
    """``[timers] deal_when_all_bet`` of any game's Rules Submission: whether the betting
    window ends once every player at the table has wagered (false when absent; a value
    that is not a boolean is a problem of the section)."""
    if timers is None:
        return False
    return timers.typed(DEAL_WHEN_ALL_BET, bool, required=False) is True


def logged_pace(timers: Timers) -> dict[str, object]:
    """What :func:`read_pace` read, for a game's logged ``timers``: nothing when false, so
    the config hash of a Rules Submission that does not state it is what it always was."""
    return {DEAL_WHEN_ALL_BET: True} if timers.deal_when_all_bet else {}


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
