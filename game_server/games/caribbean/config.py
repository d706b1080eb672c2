"""The Caribbean Stud Poker Rules Submission (601a.2): its tables, checks and logged form.

Every key is required except the wager tables ``[caribbean.progressive]``,
``[caribbean.progressive.envy]``, ``[caribbean.five_card]`` and ``[must_hit_by]`` (each
present offers what it names) and ``meter`` (a meter shared by linked tables, 605a.8). Each
problem names its field and, where a regulation is the reason, its paragraph; every problem
is collected, then one :class:`~game_server.config.ConfigError` is raised. The player-edge
guard refuses an optional wager that returns 100% or more (:mod:`.returns`).

Entry points: :func:`build_config`, :func:`logged_config`, :func:`file_shape`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import (
    CONFIG_SCHEMA,
    MUST_HIT_BY,
    TIMER_MAX_SECONDS,
    TIMER_MIN_SECONDS,
    ConfigError,
    MustHitBy,
    Section,
    Shuffle,
    TableConfig,
    Timers,
    as_mapping,
    dollars,
    known,
    money,
    options,
    parse_percent,
    read_must_hit_by,
    section,
)
from game_server.games.caribbean.rules.rules import (
    ENVY_HANDS,
    PROGRESSIVE_HANDS,
    BonusOn,
    CaribbeanRules,
    FiveCard,
    FiveCardBonus,
    Progressive,
)
from game_server.rules.limits import WagerLimits
from game_server.rules.meters import MeterError, verify_spec
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec, Paytable, PaytableLine, TableType
from shared.errors import MoneyError
from shared.money import Fixed, MeterShare, format_money, parse_pay

__all__ = ["CARIBBEAN", "build_config", "file_shape", "logged_config"]

#: ``[table] game`` of a Caribbean Stud Poker table.
CARIBBEAN: Final = "caribbean"
PROGRESSIVE_METER: Final = "Progressive Payout"
FIVE_CARD_METER: Final = "Five Card Hand Bonus"
#: 653a.12(e)(4): the Five Card Hand Bonus meter's initial and reset amount, at least $10,000.
FIVE_CARD_MIN_SEED: Final = 1_000_000
MYSTERY_SECTION: Final = "639b.1"
#: 639b.1(a), (c)(1): the wager that qualifies a player for the Must-Hit-By Mystery Bonus.
QUALIFYING: Final = {
    "progressive": must_hit_by.QualifyingWager(
        "progressive", "Progressive Payout Wager", f"58 Pa. Code {MYSTERY_SECTION}", True
    )
}

_METER: Final = {
    "meter_seed": '"10000.00"',
    "meter_reseed": '"10000.00"',
    "meter_increment": '"15%"',
    "meter": '"floor:caribbean-progressive"',
}
#: The wager unit of a Rules Submission that states none (cents).
DEFAULT_WAGER_UNIT: Final = 100

SCHEMA: Final = {
    "table": {
        "id": '"CSP-01"',
        "game": f'"{CARIBBEAN}"',
        "type": '"fully-automated"',
        "seats": "7",
    },
    "limits": {"wager_unit": '"1.00"', "ante_min": '"5.00"', "ante_max": '"500.00"'},
    "caribbean": {
        "side_wagers_settle_on_fold": "false",
        "progressive": "{...}",
        "five_card": "{...}",
    },
    "timers": {"betting_seconds": "15", "decision_seconds": "15"},
    "terminal": {"chip_denominations": '["1.00", "5.00", "25.00"]'},
    # Read by the platform's read_must_hit_by (this entry names the table among the file's).
    MUST_HIT_BY: {
        "configuration": '"A"',
        "minimum_wager": '"1.00"',
        "qualifying": '["progressive"]',
        "meter": '"floor:mystery"',
    },
}
PROGRESSIVE_SCHEMA: Final = {
    "amounts": '["1.00"]',
    "paytable": '"Paytable A"',
    "lines": '{ "Royal flush" = "100% of meter" }',
    "envy": '{ "Royal flush" = "500.00" }',
    **_METER,
}
FIVE_CARD_SCHEMA: Final = {
    "amounts": '["1.00"]',
    "bonus": '"magic-card"',
    "bonus_on": '"winning-hand"',
    **_METER,
}


def _meter(read: Section, name: str, cite: str, floor: int = 0) -> MeterSpec | None:
    seed, reseed = read.money("meter_seed"), read.money("meter_reseed")
    text = read.text("meter_increment")
    rate = None if text is None else parse_percent(text)
    if text is not None and rate is None:
        read.add("meter_increment", f'{text!r} is not a percentage such as "15%" ({cite})')
    for key, amount in (("meter_seed", seed), ("meter_reseed", reseed)):
        if amount is not None and amount < floor:
            read.add(key, f"{format_money(amount)} is below {format_money(floor)} ({cite})")
    if seed is None or reseed is None or rate is None:
        return None
    spec = MeterSpec(name, seed, reseed, rate)
    try:
        verify_spec(spec)
    except MeterError as exc:
        read.add("meter_increment", f"{exc} ({cite})")
        return None
    return spec


def _amounts(read: Section, unit_check: str) -> tuple[int, ...] | None:
    amounts = read.money_list("amounts")
    if amounts is not None and len(set(amounts)) != len(amounts):
        read.add("amounts", f"an amount is listed twice ({unit_check})")
        return None
    return None if amounts is None else tuple(sorted(amounts))


def _lines(
    read: Section, key: str, hands: tuple[str, ...], cite: str, *, fixed: bool
) -> tuple[PaytableLine, ...] | None:
    raw = read.raw(key, required=not fixed)
    if raw is None:
        return None
    if not isinstance(raw, dict) or not raw:
        read.add(key, f"expected a table of hand = pay lines, e.g. {read.schema[key]}")
        return None
    lines: list[PaytableLine] = []
    for hand, pays in raw.items():
        if hand not in hands:
            read.add(
                f"{key}.{hand}",
                f"{hand!r} is not a line it may pay; choose {options(hands)} ({cite})",
            )
            continue
        if fixed:
            cents = money(read.problems, read.field(f"{key}.{hand}"), pays)
            if cents is not None:
                lines.append(PaytableLine(hand, Fixed(cents)))
            continue
        try:
            pay = parse_pay(str(pays)) if isinstance(pays, str) else None
        except MoneyError as exc:
            read.add(f"{key}.{hand}", f"{exc} ({cite})")
            continue
        if pay is None:
            read.add(f"{key}.{hand}", f'expected a pay such as "50 for 1", got {pays!r}')
            continue
        if isinstance(pay, MeterShare) and not 0 < pay.percent <= 100:
            read.add(f"{key}.{hand}", f"{pay} is not a share of the meter ({cite})")
            continue
        lines.append(PaytableLine(hand, pay))
    order = {hand: i for i, hand in enumerate(hands)}
    return tuple(sorted(lines, key=lambda line: order[line.name]))


def _progressive(problems: list[str], raw: object, table_id: str | None) -> Progressive | None:
    read = section(problems, "caribbean.progressive", raw, PROGRESSIVE_SCHEMA, required=False)
    if read is None:
        return None
    before = len(problems)
    amounts = _amounts(read, "639a.7(d)(2)")
    name = read.text("paytable")
    lines = _lines(
        read, "lines", PROGRESSIVE_HANDS, "639a.1 'Progressive Payout Hand'", fixed=False
    )
    envy = _lines(read, "envy", ENVY_HANDS, "639a.1 'Envy Bonus Qualifying Hand'", fixed=True)
    spec = _meter(read, PROGRESSIVE_METER, "639a.12")
    link = read.meter_link()
    if amounts is not None and lines is not None:
        for line in lines:
            pay = line.pay
            for amount in amounts:
                if not isinstance(pay, MeterShare) and not pay.exact_for(amount):
                    read.add(
                        f"lines.{line.name}",
                        f"{pay} of a {format_money(amount)} wager is not whole cents",
                    )
    if len(problems) > before or spec is None or lines is None or name is None:
        return None
    meter_id = link or f"{table_id}:progressive"
    table = Paytable(name, lines, (spec,))
    envy_table = None if envy is None else Paytable("Envy Bonus", envy)
    return Progressive(known(amounts), table, envy_table, meter_id)


def _five_card(problems: list[str], raw: object, table_id: str | None) -> FiveCard | None:
    read = section(problems, "caribbean.five_card", raw, FIVE_CARD_SCHEMA, required=False)
    if read is None:
        return None
    before = len(problems)
    amounts = _amounts(read, "639a.1")
    bonus = read.choice("bonus", FiveCardBonus, " (639a.1 'Magic Card Bonus', 'Lucky Bonus')")
    bonus_on = read.choice("bonus_on", BonusOn, " (653a.12(e)(3))")
    spec = _meter(read, FIVE_CARD_METER, "653a.12(e)(4)", FIVE_CARD_MIN_SEED)
    link = read.meter_link()
    if len(problems) > before or spec is None:
        return None
    meter_id = link or f"{table_id}:five_card"
    return FiveCard(known(amounts), spec, meter_id, known(bonus), known(bonus_on))


def _mystery(
    problems: list[str], data: Mapping[str, object], progressive: Progressive | None, loaded: bool
) -> MustHitBy | None:
    """639b.1: the Must-Hit-By Mystery Bonus, read by the platform's reader; the only
    qualifying wager is the Progressive Payout Wager with the Caribbean Stud Wager ((a),
    (c)(1)), and the table must offer one that reaches the configuration's minimum."""
    before = len(problems)
    mystery = read_must_hit_by(problems, data, None, QUALIFYING, f"58 Pa. Code {MYSTERY_SECTION}")
    if MUST_HIT_BY not in data:
        return None
    where = f"{MUST_HIT_BY}.configuration"
    if progressive is None and loaded:
        problems.append(
            f"{where}: the Must-Hit-By Mystery Bonus is offered only with the Progressive "
            f"Payout Wager: add [caribbean.progressive] ({MYSTERY_SECTION}(a))"
        )
    elif progressive is not None and mystery is not None:
        conf = must_hit_by.configuration(mystery.configuration, mystery.minimum_wager)
        if max(progressive.amounts) < conf.minimum_wager:
            problems.append(
                f"{MUST_HIT_BY}.minimum_wager: no Progressive Payout Wager this table offers "
                f"reaches {format_money(conf.minimum_wager)}: nobody could qualify "
                f"({MYSTERY_SECTION}(c)(1), (4))"
            )
    return None if len(problems) > before else mystery


def build_config(data: Mapping[str, object], source: str) -> TableConfig:
    """A Caribbean Stud Poker table's config from its parsed file."""
    problems: list[str] = []
    for key in data:
        if key not in SCHEMA:
            problems.append(f"{key}: unknown table; the tables are {', '.join(SCHEMA)}")
    table, limits, caribbean, timers, terminal = (
        known(section(problems, name, data.get(name), SCHEMA[name]))
        for name in ("table", "limits", "caribbean", "timers", "terminal")
    )
    table_id = table.table_id()
    table.text("game")
    if table.choice("type", TableType) not in (None, TableType.FULLY_AUTOMATED):
        table.add(
            "type",
            "this build deals Caribbean Stud Poker at a fully automated table: "
            'type = "fully-automated"',
        )
    seats = table.integer("seats", 1, 7, " (639a.2: at most seven player positions)")
    unit = _wager_unit(limits)
    low, high = limits.money("ante_min"), limits.money("ante_max")
    if low is not None and high is not None and low > high:
        limits.add("ante_max", "the maximum Ante is below the minimum")
    for key, amount in (("ante_min", low), ("ante_max", high)):
        if unit is not None and amount is not None and amount % unit:
            limits.add(key, f"{format_money(amount)} is not a multiple of the wager unit")
    on_fold = caribbean.flag("side_wagers_settle_on_fold")
    before = len(problems)
    progressive = _progressive(problems, caribbean.raw("progressive", required=False), table_id)
    five_card = _five_card(problems, caribbean.raw("five_card", required=False), table_id)
    loaded = len(problems) == before
    mystery = _mystery(problems, data, progressive, loaded)
    betting = timers.integer("betting_seconds", TIMER_MIN_SECONDS, TIMER_MAX_SECONDS)
    deciding = timers.integer("decision_seconds", TIMER_MIN_SECONDS, TIMER_MAX_SECONDS)
    chips = terminal.money_list("chip_denominations")
    if problems:
        raise ConfigError(source, problems)
    rules = CaribbeanRules(
        known(seats),
        WagerLimits(known(low), known(high), known(unit)),
        progressive,
        five_card,
        known(on_fold),
    )
    return TableConfig(
        table_id=known(table_id),
        game=CARIBBEAN,
        table_type=TableType.FULLY_AUTOMATED,
        rules=rules,
        shuffle=Shuffle.EVERY_ROUND,
        cut_card=None,
        timers=Timers(known(betting), 0, known(deciding)),
        chip_denominations=known(chips),
        source=source,
        must_hit_by=mystery,
    )


def _meter_logged(spec: MeterSpec, meter_id: str, own: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "meter_seed": spec.seed,
        "meter_reseed": spec.reseed,
        "meter_increment": f"{spec.increment_bp // 100}.{spec.increment_bp % 100:02d}%",
    }
    if meter_id != own:
        out["meter"] = meter_id
    return out


def logged_config(config: TableConfig) -> dict[str, Any]:
    """The config as logged in ``table_opened``: the file's shape, money as integer cents."""
    rules: CaribbeanRules = config.rules
    table_id = config.table_id
    caribbean: dict[str, Any] = {"side_wagers_settle_on_fold": rules.side_wagers_settle_on_fold}
    progressive = rules.progressive
    if progressive is not None:
        caribbean["progressive"] = {
            "amounts": list(progressive.amounts),
            "paytable": progressive.paytable.name,
            "lines": {line.name: str(line.pay) for line in progressive.paytable.lines},
            **_meter_logged(progressive.meter, progressive.meter_id, f"{table_id}:progressive"),
        }
        if progressive.envy is not None:
            caribbean["progressive"]["envy"] = {
                line.name: line.pay.win(0)  # type: ignore[union-attr]
                for line in progressive.envy.lines
            }
    five = rules.five_card
    if five is not None:
        caribbean["five_card"] = {
            "amounts": list(five.amounts),
            "bonus": five.bonus.value,
            "bonus_on": five.bonus_on.value,
            **_meter_logged(five.meter, five.meter_id, f"{table_id}:five_card"),
        }
    out: dict[str, Any] = {
        "schema": CONFIG_SCHEMA,
        "table": {
            "id": table_id,
            "game": CARIBBEAN,
            "type": str(config.table_type),
            "seats": rules.seats,
        },
        "limits": _logged_limits(rules.ante_limits),
        "caribbean": caribbean,
        "timers": {
            "betting_seconds": config.timers.betting_seconds,
            "decision_seconds": config.timers.decision_seconds,
        },
        "terminal": {"chip_denominations": list(config.chip_denominations)},
    }
    if config.must_hit_by is not None:
        out[MUST_HIT_BY] = config.must_hit_by.to_dict()
    return out


_MONEY_KEYS: Final = frozenset(
    {"wager_unit", "ante_min", "ante_max", "meter_seed", "meter_reseed", "minimum_wager"}
)


def _wager_unit(limits: Section) -> int | None:
    """``[limits] wager_unit``: every wager is a whole multiple of it; $1.00 when not stated
    (a Rules Submission written before it was read: the Ante was then checked to the cent,
    and $5.01 was taken)."""
    if limits.raw("wager_unit", required=False) is None:
        return DEFAULT_WAGER_UNIT
    unit = limits.money("wager_unit")
    if unit is not None and unit <= 0:
        limits.add("wager_unit", "the wager unit must be more than $0.00")
        return None
    return unit


def _logged_limits(ante: WagerLimits) -> dict[str, int]:
    """The logged ``[limits]``; the wager unit only when it is not the default, so that a
    Rules Submission that does not state it keeps its config hash."""
    out = {"ante_min": ante.minimum, "ante_max": ante.maximum}
    if ante.unit != DEFAULT_WAGER_UNIT:
        out = {"wager_unit": ante.unit, **out}
    return out


def _file(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        if key == "envy":
            return {hand: dollars(cents) for hand, cents in value.items()}
        return {k: _file(v, k) for k, v in value.items() if k != "schema"}
    if isinstance(value, list) and key in ("amounts", "chip_denominations"):
        return [dollars(v) for v in value]
    return dollars(value) if key in _MONEY_KEYS else value


def file_shape(logged: Mapping[str, Any]) -> dict[str, object]:
    """A logged config back in the file's shape (what :func:`build_config` reads)."""
    shaped: dict[str, object] = _file(dict(as_mapping(logged)))
    return shaped
