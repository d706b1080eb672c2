"""The Blackjack Rules Submission (58 Pa. Code 633a, 633b): the file's sections and their checks.

The fully automated table (this package) and the hybrid tables (:mod:`game_server.games.hybrid`,
which adds the checks its table type imposes) state the same sections; :class:`BlackjackBuilder`
reads them into a :class:`~game_server.config.TableConfig` whose ``rules`` is a
:class:`~game_server.games.blackjack.rules.rules.BlackjackRules`: what the engine plays by. Every
key is stated in the file (only ``cut_card``, the ``[wagers]`` tables and ``[must_hit_by]`` are
optional), an unknown key is an error, and a file with problems is refused as a whole.

The file, with the example shipped in
``game_server/games/blackjack/configs/fully-automated-blackjack.toml``::

    [table]
    id = "BJ-01"               # 1 to 32 of A-Z a-z 0-9 _ -
    game = "blackjack"
    type = "fully-automated"   # or "hybrid", "hybrid-no-hole-card" (633b.5)
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

Entry points: :class:`BlackjackBuilder`, :func:`logged_config`, :func:`file_shape`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final

from game_server.config import (
    CONFIG_SCHEMA,
    MUST_HIT_BY,
    PACE_SCHEMA,
    TABLE_WORDS,
    TIMER_MAX_SECONDS,
    TIMER_MIN_SECONDS,
    ConfigError,
    Section,
    Shuffle,
    TableConfig,
    Timers,
    check_cut_card,
    dollars,
    logged_pace,
    must_hit_by_shape,
    parse_percent,
    read_must_hit_by,
    read_pace,
    toml_value,
)
from game_server.config import describe as _describe
from game_server.config import known as _known
from game_server.config import options as _options
from game_server.config import suggest as _suggest
from game_server.games.blackjack.rules.rules import (
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
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.base import (
    MeterSpec,
    Paytable,
    SideWager,
    SideWagerOffer,
    TableType,
)
from shared.errors import MoneyError
from shared.money import MeterShare, ToOne, format_money, parse_pay

__all__ = ["BlackjackBuilder", "build_config", "file_shape", "logged_config"]

#: Table types the Blackjack sections are stated for (the hybrid tables of 633b.5 add their
#: own checks, :mod:`game_server.games.hybrid.config`).
SUPPORTED_TABLE_TYPES: Final = frozenset(TableType)

#: Hands one pair may become by splitting, counting the first (633a.11).
MIN_SPLIT_HANDS: Final = 2
MAX_SPLIT_HANDS: Final = 4

#: The checks a type of table adds to the Blackjack options: ``(type, rules) -> problems``.
TypeChecks = Callable[[TableType, BlackjackRules], list[str]]


def _no_type_checks(table_type: TableType, rules: BlackjackRules) -> list[str]:
    return []


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
        **PACE_SCHEMA,
    },
    "terminal": {
        "chip_denominations": '["1.00", "5.00", "25.00", "100.00", "500.00"]',
    },
}

_WAGER_SCHEMA: Final = {"paytable": '"Paytable A"', "min": '"1.00"', "max": '"100.00"'}
_WAGERS: Final = "wagers"

#: Why a key must be stated, where a regulation says so.
_MISSING_WHY: Final = {
    "blackjack.max_split_hands": (
        "the Rules Submission must state how many times a player may split pairs "
        "(58 Pa. Code 633a.11(c))"
    ),
    "blackjack.blackjack_pays": "the layout states it (58 Pa. Code 633b.5(v)(1))",
    "blackjack.insurance_pays": "the layout states it (58 Pa. Code 633a.8, 633b.5(v)(2))",
}


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


# ----------------------------------------------------------------------------------- checking


def build_config(data: Mapping[str, object], source: str) -> TableConfig:
    """A fully automated Blackjack table's Rules Submission, checked
    (:class:`BlackjackBuilder`)."""
    return BlackjackBuilder(data, source).build()


class BlackjackBuilder:
    """Reads one parsed file into a :class:`TableConfig`, collecting every problem on the way.

    Args:
        data: the parsed file.
        source: what to call it in problems.
        type_checks: the problems a type of table adds to the Blackjack options (the hybrid
            tables' :func:`~game_server.games.hybrid.config.table_type_problems`).
    """

    def __init__(
        self,
        data: Mapping[str, object],
        source: str,
        type_checks: TypeChecks = _no_type_checks,
    ) -> None:
        self.data = data
        self.source = source
        self.type_checks = type_checks
        self.problems: list[str] = []

    def section(self, name: str) -> Section:
        value = self.data.get(name)
        if value is None:
            self.problems.append(
                f"{name}: the [{name}] table is missing; it states {', '.join(_SCHEMA[name])}"
            )
            return Section(self.problems, name, {}, _SCHEMA[name], present=False, why=_MISSING_WHY)
        if not isinstance(value, dict):
            self.problems.append(f"{name}: expected a table [{name}], got {_describe(value)}")
            return Section(self.problems, name, {}, _SCHEMA[name], present=False, why=_MISSING_WHY)
        return Section(self.problems, name, value, _SCHEMA[name], why=_MISSING_WHY)

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def build(self) -> TableConfig:
        top = (*_SCHEMA, _WAGERS, MUST_HIT_BY)
        for key in self.data:
            if key not in top:
                self.add(
                    key,
                    f"unknown table or key{_suggest(key, top)}; a Rules Submission has the "
                    f"tables {', '.join(f'[{t}]' for t in top)}",
                )

        table = self.section("table")
        table_id = table.table_id()
        game = table.text("game")
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

        check_cut_card(self.problems, self.data, shuffle, cut_card, decks, seats)
        main_limits = self.main_limits(unit, main_min, main_max)
        offers = self.side_wagers(table_type, decks, unit, main_max)
        self.check_chips(chips, unit, main_min, offers)
        offered = None if offers is None else [o.wager.name for o in offers]
        mystery = read_must_hit_by(self.problems, self.data, offered)

        rules: BlackjackRules | None = None
        if seats is not None and decks is not None and options is not None and countdown:
            game_rules = BlackjackRules(
                decks=decks, seats=seats, countdown_default=countdown, **options
            )
            if table_type is not None:
                self.problems.extend(self.type_checks(table_type, game_rules))
            if main_limits is not None and offers is not None:
                rules = replace(game_rules, main_limits=main_limits, side_wagers=offers)
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

    def table_type(self, table: Section) -> TableType | None:
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

    def decks(self, table: Section) -> int | None:
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

    def blackjack(self, section: Section) -> dict[str, Any] | None:
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

    def pays(self, section: Section, key: str, required: ToOne, what: str, cite: str) -> None:
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

    def timers(self, section: Section) -> Timers | None:
        why = (
            f": under {TIMER_MIN_SECONDS} seconds a player cannot read the screen and touch a "
            f"button, and over {TIMER_MAX_SECONDS} one idle player holds up the whole table"
        )
        values = [
            section.integer(key, TIMER_MIN_SECONDS, TIMER_MAX_SECONDS, why)
            for key in ("betting_seconds", "insurance_seconds", "decision_seconds")
        ]
        betting, insurance, decision = values
        pace = read_pace(section)
        if betting is None or insurance is None or decision is None:
            return None
        return Timers(betting, insurance, decision, pace)

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
            schema[key] = toml_value(spec.default)
        stated_meters = _stated_meter_names(wager)
        if stated_meters:
            schema |= _METER_SCHEMA
        schema["meter"] = '"floor:' + wager.name + '"'
        section = Section(self.problems, path, entry, schema)

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
            places = " or ".join(TABLE_WORDS[t] for t in sorted(wager.table_types))
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
        link = section.meter_link()
        if len(self.problems) > before or paytable is None or low is None or high is None:
            return None
        if unit is None or options is None:
            return None
        if link is not None:
            options = (*options, ("meter", link))
        return SideWagerOffer(wager, paytable, WagerLimits(low, high, unit), options)

    def stated_meters(
        self,
        section: Section,
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
            increment = parse_percent(rate)
            if increment is None:
                section.add("meter_increment", f'{rate!r} is not a percentage like "4.5%"')
            else:
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
        self, section: Section, wager: SideWager, name: str, lines: object
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
        self, section: Section, wager: SideWager
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
                choices = ", ".join(toml_value(c) for c in spec.choices)
                section.add(
                    key,
                    f"{toml_value(value) if type(value) in (str, int, bool) else _describe(value)}"
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


# ----------------------------------------------------------------------------- logged form


def logged_config(config: TableConfig) -> dict[str, Any]:
    """The config as logged with each round (:meth:`TableConfig.to_dict`): the file's shape,
    cents as ints, payouts as the regulations write them (``"3 to 2"``), a missing cut card
    as ``None``, side wagers keyed by name."""
    rules: BlackjackRules = config.rules
    main = rules.main_limits
    return {
        "schema": CONFIG_SCHEMA,
        "table": {
            "id": config.table_id,
            "game": config.game,
            "type": config.table_type.value,
            "seats": rules.seats,
            "decks": rules.decks,
            "shuffle": config.shuffle.value,
            "cut_card": config.cut_card,
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
            "betting_seconds": config.timers.betting_seconds,
            "insurance_seconds": config.timers.insurance_seconds,
            "decision_seconds": config.timers.decision_seconds,
            "countdown_default": rules.countdown_default.value,
            **logged_pace(config.timers),
        },
        "terminal": {"chip_denominations": list(config.chip_denominations)},
        "wagers": {offer.wager.name: _offer_dict(offer) for offer in rules.side_wagers},
        **({} if config.must_hit_by is None else {MUST_HIT_BY: config.must_hit_by.to_dict()}),
    }


def file_shape(data: Mapping[str, Any]) -> dict[str, object]:
    """The logged form (:func:`logged_config`) back in the file's shape: cents as dollar
    strings, no ``None`` cut card."""
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
    mystery = must_hit_by_shape(data.get(MUST_HIT_BY))
    if mystery is not None:
        rebuilt[MUST_HIT_BY] = mystery
    return rebuilt
