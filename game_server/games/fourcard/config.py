"""The Four Card Poker Rules Submission (58 Pa. Code 641a, 641b.1; 601a.2): its sections,
checks and logged form.

:func:`build_config` reads the file into a :class:`~game_server.config.TableConfig` whose
``rules`` is a checked :class:`~game_server.games.fourcard.rules.rules.FourCardRules` (one
52-card deck per round, ``shuffle = "every-round"``); every problem is collected, each naming
its field and its paragraph. The example is ``configs/fourcard.toml``.

The Must-Hit-By Mystery Bonus is the file's ``[must_hit_by]`` table, as at every table that
offers it, read by the platform's :func:`~game_server.config.read_must_hit_by` with the
qualifying wagers of 641b.1(c)(1) (the Four-Card and Five-Card Progressive Payout Wagers) and
its refusals naming 641b.1. The configurations of 641b.1(c)(4) are the twelve of
633b.14(c)(4), word for word, and are read from :mod:`game_server.rules.wagers.must_hit_by`.

The Envy Bonuses of 641a.1 are the tables ``[fourcard.four_card_envy]`` and
``[fourcard.five_card_envy]`` (a fixed sum per Qualifying Hand; :func:`_with_envy`), each
offered only with its progressive.

Entry points: :func:`build_config`, :func:`logged_config`, :func:`file_shape`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from game_server.config import (
    CONFIG_SCHEMA,
    MUST_HIT_BY,
    TIMER_MAX_SECONDS,
    TIMER_MIN_SECONDS,
    ConfigError,
    Section,
    Shuffle,
    TableConfig,
    Timers,
    as_mapping,
    dollars,
    known,
    money,
    must_hit_by_shape,
    options,
    parse_percent,
    read_must_hit_by,
    section,
    suggest,
)
from game_server.games.fourcard.rules.events import (
    ENVY_OF,
    FIVE_CARD_ENVY,
    FIVE_CARD_PROGRESSIVE,
    FOUR_CARD_ENVY,
    FOUR_CARD_PROGRESSIVE,
    PROGRESSIVES,
)
from game_server.games.fourcard.rules.paytables import (
    ACES_UP_PAYTABLES,
    ANTE_BONUS_PAYTABLES,
    FIVE_CARD_ENVY_HANDS,
    FIVE_CARD_PROGRESSIVE_HANDS,
    FOUR_CARD_ENVY_HANDS,
    FOUR_CARD_PROGRESSIVE_HANDS,
)
from game_server.games.fourcard.rules.rules import FourCardRules, MysteryOffer, ProgressiveOffer
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec, Paytable, PaytableLine, TableType
from shared.errors import MoneyError
from shared.money import Fixed, MeterShare, format_money, parse_pay

__all__ = ["FOURCARD", "MAX_SEATS", "build_config", "file_shape", "logged_config"]

#: ``[table] game`` of a Four Card Poker table.
FOURCARD: Final = "fourcard"
#: The most seats of a Four Card Poker layout this build draws.
MAX_SEATS: Final = 7
#: 641b.1: the Must-Hit-By Mystery Bonus at a Four Card Poker table.
MYSTERY_SECTION: Final = "641b.1"
#: 641b.1(a), (c)(1): the wagers that qualify a player (with the Four Card Poker wager).
QUALIFYING: Final = {
    FOUR_CARD_PROGRESSIVE: must_hit_by.QualifyingWager(
        FOUR_CARD_PROGRESSIVE,
        "Four-Card Progressive Payout Wager",
        f"58 Pa. Code {MYSTERY_SECTION}",
        True,
    ),
    FIVE_CARD_PROGRESSIVE: must_hit_by.QualifyingWager(
        FIVE_CARD_PROGRESSIVE,
        "Five-Card Progressive Payout Wager",
        f"58 Pa. Code {MYSTERY_SECTION}",
        True,
    ),
}

SCHEMA: Final[dict[str, dict[str, str]]] = {
    "table": {"id": '"FCP-01"', "game": f'"{FOURCARD}"', "type": '"fully-automated"', "seats": "6"},
    "limits": {"wager_unit": '"1.00"', "ante_min": '"5.00"', "ante_max": '"500.00"'},
    "fourcard": {
        "ante_bonus": '"25-20-2"',
        "aces_up": "{...}",
        FOUR_CARD_ENVY: "{...}",
        FIVE_CARD_ENVY: "{...}",
        FOUR_CARD_PROGRESSIVE: "{...}",
        FIVE_CARD_PROGRESSIVE: "{...}",
    },
    "timers": {"betting_seconds": "15", "decision_seconds": "15"},
    "terminal": {"chip_denominations": '["1.00", "5.00", "25.00", "100.00"]'},
    # Read by the platform's read_must_hit_by (this entry names the table among the file's).
    MUST_HIT_BY: {
        "configuration": '"A"',
        "minimum_wager": '"1.00"',
        "qualifying": f'["{FOUR_CARD_PROGRESSIVE}", "{FIVE_CARD_PROGRESSIVE}"]',
        "meter": '"floor:fcp-mystery"',
    },
}
_ACES_UP: Final = {"paytable": '"50-40-8-6-4-2-1"', "min": '"1.00"', "max": '"100.00"'}
_PROGRESSIVE: Final = {
    "amounts": '["1.00"]',
    "meter_seed": '"1000.00"',
    "meter_reseed": '"1000.00"',
    "meter_increment": '"10%"',
    "meter": '"floor:fcp-progressive"',
    "pays": '{ "Four of a Kind" = "100%" }',
}
_HANDS: Final = {
    FOUR_CARD_PROGRESSIVE: (FOUR_CARD_PROGRESSIVE_HANDS, "641a.1, 641a.6(b)"),
    FIVE_CARD_PROGRESSIVE: (FIVE_CARD_PROGRESSIVE_HANDS, "641a.1, 641a.6(d)"),
}
_TITLE: Final = {
    FOUR_CARD_PROGRESSIVE: "Four-Card Progressive Payout",
    FIVE_CARD_PROGRESSIVE: "Five-Card Progressive Payout",
}


def build_config(data: Mapping[str, object], source: str) -> TableConfig:
    """Check a Four Card Poker Rules Submission; every problem in one ConfigError."""
    problems: list[str] = []
    for key in data:
        if key not in SCHEMA:
            problems.append(
                f"{key}: unknown table{suggest(key, SCHEMA)}; a Four Card Poker Rules "
                f"Submission has the tables {', '.join(f'[{t}]' for t in SCHEMA)}"
            )
    table, limits, fourcard, timers, terminal = (
        known(section(problems, name, data.get(name), SCHEMA[name]))
        for name in ("table", "limits", "fourcard", "timers", "terminal")
    )
    table_id = table.table_id()
    if table.text("game") not in (None, FOURCARD):
        table.add("game", f'a Four Card Poker table has game = "{FOURCARD}"')
    table_type = table.choice("type", TableType)
    if table_type not in (None, TableType.FULLY_AUTOMATED):
        table.add(
            "type",
            "Four Card Poker is dealt at a fully automated electronic table: type = "
            '"fully-automated" (58 Pa. Code 641a; 605a)',
        )
    seats = table.integer("seats", 1, MAX_SEATS, f": a layout of 1 to {MAX_SEATS} positions")
    unit = limits.money("wager_unit")
    low, high = limits.money("ante_min"), limits.money("ante_max")
    ante = _limits(limits, "ante_min", "ante_max", low, high, unit)
    bonus_name = fourcard.text("ante_bonus")
    bonus = None
    if bonus_name is not None:
        bonus = ANTE_BONUS_PAYTABLES.get(bonus_name)
        if bonus is None:
            fourcard.add(
                "ante_bonus",
                f"{bonus_name!r} is not an Ante Bonus paytable; choose "
                f"{options(ANTE_BONUS_PAYTABLES)} (58 Pa. Code 641a; secondary source)",
            )
    aces_up, aces_limits = _aces_up(problems, fourcard.data.get("aces_up"), unit)
    prefix = f"{table_id}:" if table_id else ""
    four = _progressive(problems, FOUR_CARD_PROGRESSIVE, fourcard, prefix)
    five = _progressive(problems, FIVE_CARD_PROGRESSIVE, fourcard, prefix)
    mystery = _mystery(
        problems, data, prefix, {FOUR_CARD_PROGRESSIVE: four, FIVE_CARD_PROGRESSIVE: five}
    )
    betting = timers.integer("betting_seconds", TIMER_MIN_SECONDS, TIMER_MAX_SECONDS)
    deciding = timers.integer("decision_seconds", TIMER_MIN_SECONDS, TIMER_MAX_SECONDS)
    chips = terminal.money_list("chip_denominations")
    if chips is not None and list(chips) != sorted(set(chips)):
        terminal.add("chip_denominations", "list each chip once, smallest first")
    four, five = (_with_envy(problems, fourcard, w, o) for w, o in ((FOUR, four), (FIVE, five)))
    if problems:
        raise ConfigError(source, problems)
    rules = FourCardRules(
        seats=known(seats),
        ante_limits=known(ante),
        ante_bonus=known(bonus),
        aces_up=aces_up,
        aces_up_limits=aces_limits,
        four_card=four,
        five_card=five,
        mystery=mystery,
    )
    if problems:
        raise ConfigError(source, problems)
    return TableConfig(
        table_id=known(table_id),
        game=FOURCARD,
        table_type=TableType.FULLY_AUTOMATED,
        rules=rules,
        shuffle=Shuffle.EVERY_ROUND,
        cut_card=None,
        timers=Timers(known(betting), 0, known(deciding)),
        chip_denominations=known(chips),
        source=source,
    )


def _limits(
    read: Section,
    low_key: str,
    high_key: str,
    low: int | None,
    high: int | None,
    unit: int | None,
) -> WagerLimits | None:
    if low is None or high is None or unit is None:
        return None
    if low > high:
        read.add(high_key, f"{format_money(high)} is below the minimum {format_money(low)}")
        return None
    for key, amount in ((low_key, low), (high_key, high)):
        if amount % unit:
            read.add(key, f"{format_money(amount)} is not a multiple of the wager unit")
            return None
    return WagerLimits(low, high, unit)


def _aces_up(
    problems: list[str], raw: object, unit: int | None
) -> tuple[Paytable | None, WagerLimits | None]:
    read = section(problems, "fourcard.aces_up", raw, _ACES_UP, required=False)
    if read is None:
        return None, None
    name = read.text("paytable")
    paytable = None
    if name is not None:
        paytable = ACES_UP_PAYTABLES.get(name)
        if paytable is None:
            read.add(
                "paytable",
                f"{name!r} is not an Aces Up paytable{suggest(name, ACES_UP_PAYTABLES)}; choose "
                f'{options(ACES_UP_PAYTABLES)} (58 Pa. Code 641a.1 "Aces Up Wager": a posted '
                "paytable; the tables are secondary sources)",
            )
    low, high = read.money("min"), read.money("max")
    return paytable, _limits(read, "min", "max", low, high, unit)


def _progressive(
    problems: list[str], wager: str, fourcard: Section, prefix: str
) -> ProgressiveOffer | None:
    read = section(
        problems, f"fourcard.{wager}", fourcard.data.get(wager), _PROGRESSIVE, required=False
    )
    if read is None:
        return None
    hands, cite = _HANDS[wager]
    amounts = read.money_list("amounts")
    seed, reseed = read.money("meter_seed"), read.money("meter_reseed")
    text = read.text("meter_increment")
    increment = None
    if text is not None:
        increment = parse_percent(text)
        if increment is None or not 0 < increment < 10_000:
            read.add("meter_increment", f'{text!r} is not a rate such as "10%"')
            increment = None
    link = read.meter_link()
    pays = read.raw("pays")
    lines: list[PaytableLine] = []
    if pays is not None:
        if not isinstance(pays, dict) or not pays:
            read.add("pays", f"state the lines as a table, e.g. pays = {_PROGRESSIVE['pays']}")
        else:
            canonical = {h.casefold(): h for h in hands}
            given: dict[str, str] = {}
            for hand, pay_text in pays.items():
                name = canonical.get(str(hand).strip().casefold())
                if name is None:
                    read.add(
                        "pays",
                        f"{hand!r} is not a {_TITLE[wager]} Hand: three of a kind or better, "
                        f"{options(hands)} (58 Pa. Code {cite})",
                    )
                elif not isinstance(pay_text, str):
                    read.add("pays", f'{name}: write the pay as text, e.g. "100%" or "50 to 1"')
                else:
                    given[name] = pay_text
            for name in hands:
                if name in given:
                    try:
                        lines.append(PaytableLine(name, parse_pay(given[name])))
                    except MoneyError as exc:
                        read.add("pays", f"{name}: {exc}")
    if amounts is None or seed is None or reseed is None or increment is None or not lines:
        return None
    if reseed > seed:
        read.add("meter_reseed", "the reset amount is above the initial amount")
    meter = MeterSpec(f"{_TITLE[wager]} meter", seed, reseed, increment)
    if not any(isinstance(line.pay, MeterShare) for line in lines):
        read.add("pays", 'a progressive paytable pays at least one line from its meter ("100%")')
        return None
    return ProgressiveOffer(
        tuple(sorted(amounts)),
        Paytable(f"{_TITLE[wager]} paytable", tuple(lines), (meter,)),
        link or f"{prefix}{wager}",
    )


# ---------------------------------------------------------------- the Envy Bonuses (641a.1)

FOUR, FIVE = FOUR_CARD_PROGRESSIVE, FIVE_CARD_PROGRESSIVE
#: Per progressive: its Envy Bonus's table, name, Qualifying Hands and their definition.
_ENVY: Final = {
    FOUR: (
        FOUR_CARD_ENVY,
        "Four-Card Envy Bonus",
        FOUR_CARD_ENVY_HANDS,
        "four of a kind or better, or straight flush or better, depending on the paytable "
        "(641a.6(b))",
    ),
    FIVE: (
        FIVE_CARD_ENVY,
        "Five-Card Envy Bonus",
        FIVE_CARD_ENVY_HANDS,
        "a straight flush or better (641a.6(d))",
    ),
}


def _with_envy(
    problems: list[str], fourcard: Section, wager: str, offer: ProgressiveOffer | None
) -> ProgressiveOffer | None:
    """The progressive with its Envy Bonus table ``[fourcard.four_card_envy]`` or
    ``[fourcard.five_card_envy]``: a fixed sum per Envy Bonus Qualifying Hand (641a.1), the
    sums Rules Submission data (641a.12 is not held).

    A table must name every hand its definition qualifies: "straight flush or better" (the
    Five-Card one) is the royal flush and the straight flush; the Four-Card one is "Four of a
    Kind" alone (four of a kind or better) or with "Straight Flush" (straight flush or better:
    641a.6(b) ranks four of a kind above the straight flush, so a straight flush alone is
    neither). It is offered only with its progressive, whose bettors it pays."""
    key, title, hands, defined = _ENVY[wager]
    where = f"fourcard.{key}"
    raw = fourcard.data.get(key)
    if raw is None:
        return offer
    cite = f"58 Pa. Code 641a.1 '{title}'"
    if not isinstance(raw, dict) or not raw:
        problems.append(
            f'{where}: state the fixed sum per Qualifying Hand, e.g. "{hands[0]}" = "100.00" '
            f"({cite})"
        )
        return None
    if offer is None:
        if fourcard.data.get(wager) is None:
            problems.append(
                f"{where}: the {title} is paid to a player who placed the "
                f"{_TITLE[wager]} Wager: add [fourcard.{wager}] ({cite})"
            )
        return None
    hand_cite = f"58 Pa. Code 641a.1 '{title} Qualifying Hand'"
    named: set[str] = set()
    sums: dict[str, int] = {}
    for hand, text in raw.items():
        name = next((h for h in hands if h.casefold() == str(hand).strip().casefold()), None)
        if name is None:
            problems.append(
                f"{where}: {hand!r} is not a {title} Qualifying Hand, {defined}: "
                f"{options(hands)} ({hand_cite})"
            )
            continue
        named.add(name)
        amount = money(problems, f"{where}.{name}", text)
        if amount is not None:
            sums[name] = amount
    required = hands if wager == FIVE else hands[:1]
    missing = [h for h in required if h not in named]
    if missing:
        problems.append(
            f"{where}: a {title} Qualifying Hand is {defined}; the table names no sum for "
            f"{', '.join(missing)} ({hand_cite})"
        )
    if missing or len(sums) != len(raw):
        return None
    lines = tuple(PaytableLine(h, Fixed(sums[h])) for h in hands if h in sums)
    return replace(offer, envy=Paytable(title, lines))


def _mystery(
    problems: list[str],
    data: Mapping[str, object],
    prefix: str,
    offered: Mapping[str, ProgressiveOffer | None],
) -> MysteryOffer | None:
    """641b.1: the Must-Hit-By Mystery Bonus (``[must_hit_by]``), read by the platform's
    reader with this game's qualifying wagers ((c)(1)); each qualifying wager must be one the
    table offers ((a)) at an amount that reaches the configuration's minimum ((c)(1), (4)):
    one that could never qualify a player is refused."""
    before = len(problems)
    read = read_must_hit_by(problems, data, None, QUALIFYING, f"58 Pa. Code {MYSTERY_SECTION}")
    if read is None:
        return None
    for name in read.qualifying:
        offer = offered.get(name)
        if offer is None:
            problems.append(
                f"{MUST_HIT_BY}.qualifying: {name} qualifies only where the table offers it; "
                f"add [fourcard.{name}] (58 Pa. Code {MYSTERY_SECTION}(a))"
            )
        elif max(offer.amounts) < read.minimum_wager:
            problems.append(
                f"{MUST_HIT_BY}.minimum_wager: no {name} amount this table offers reaches "
                f"{format_money(read.minimum_wager)}: it could never qualify a player "
                f"(58 Pa. Code {MYSTERY_SECTION}(c)(1), (4))"
            )
    if len(problems) > before:
        return None
    return MysteryOffer(
        read.configuration,
        read.minimum_wager,
        read.qualifying,
        read.meter or f"{prefix}{MUST_HIT_BY}",
    )


def _pays(paytable: Paytable) -> dict[str, str]:
    return {line.name: _pay_text(line.pay) for line in paytable.lines}


def _pay_text(pay: object) -> str:
    if isinstance(pay, MeterShare):
        return f"{pay.percent}%"
    return str(pay)


def logged_config(config: TableConfig) -> dict[str, Any]:
    """The config as logged in ``table_opened``: the file's shape, cents as integers."""
    rules: FourCardRules = config.rules
    fourcard: dict[str, Any] = {"ante_bonus": rules.ante_bonus.name}
    if rules.aces_up is not None and rules.aces_up_limits is not None:
        fourcard["aces_up"] = {
            "paytable": rules.aces_up.name,
            "min": rules.aces_up_limits.minimum,
            "max": rules.aces_up_limits.maximum,
        }
    for wager in PROGRESSIVES:
        offer = rules.progressive(wager)
        if offer is not None and offer.envy is not None:
            fourcard[ENVY_OF[wager]] = {
                line.name: line.pay.win(0)  # type: ignore[union-attr]
                for line in offer.envy.lines
            }
    for wager in PROGRESSIVES:
        offer = rules.progressive(wager)
        if offer is None or offer.meter is None:
            continue
        fourcard[wager] = {
            "amounts": list(offer.amounts),
            "meter_seed": offer.meter.seed,
            "meter_reseed": offer.meter.reseed,
            "meter_increment": f"{offer.meter.increment_bp / 100:g}%",
            "meter": offer.meter_id,
            "pays": _pays(offer.paytable),
        }
    out: dict[str, Any] = {
        "schema": CONFIG_SCHEMA,
        "table": {
            "id": config.table_id,
            "game": FOURCARD,
            "type": str(config.table_type),
            "seats": rules.seats,
        },
        "limits": {
            "wager_unit": rules.ante_limits.unit,
            "ante_min": rules.ante_limits.minimum,
            "ante_max": rules.ante_limits.maximum,
        },
        "fourcard": fourcard,
        "timers": {
            "betting_seconds": config.timers.betting_seconds,
            "decision_seconds": config.timers.decision_seconds,
        },
        "terminal": {"chip_denominations": list(config.chip_denominations)},
    }
    if rules.mystery is not None:
        out[MUST_HIT_BY] = {
            "configuration": rules.mystery.configuration,
            "minimum_wager": rules.mystery.minimum_wager,
            "qualifying": list(rules.mystery.qualifying),
            "meter": rules.mystery.meter_id,
        }
    return out


def file_shape(logged: Mapping[str, Any]) -> dict[str, object]:
    """The logged form back in the file's shape (money as dollar strings)."""
    fourcard = dict(as_mapping(logged.get("fourcard")))
    for key, value in list(fourcard.items()):
        if isinstance(value, Mapping):
            fourcard[key] = {
                k: (
                    [dollars(a) for a in v]
                    if k == "amounts" and isinstance(v, list)
                    else dollars(v)
                )
                if k != "pays"
                else v
                for k, v in value.items()
            }
    terminal = as_mapping(logged.get("terminal"))
    chips = terminal.get("chip_denominations")
    shape: dict[str, object] = {
        "table": dict(as_mapping(logged.get("table"))),
        "limits": {k: dollars(v) for k, v in as_mapping(logged.get("limits")).items()},
        "fourcard": fourcard,
        "timers": dict(as_mapping(logged.get("timers"))),
        "terminal": {
            "chip_denominations": [dollars(c) for c in chips] if isinstance(chips, list) else chips
        },
    }
    mystery = must_hit_by_shape(logged.get(MUST_HIT_BY))
    if mystery is not None:
        shape[MUST_HIT_BY] = mystery
    return shape
