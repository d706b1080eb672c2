"""War's Rules Submission: its sections, checks and logged form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import (
    CONFIG_SCHEMA,
    TIMER_MAX_SECONDS,
    TIMER_MIN_SECONDS,
    ConfigError,
    Shuffle,
    TableConfig,
    Timers,
    as_mapping,
    dollars,
    known,
    section,
)
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import TableType

from .rules import WAR, WarRules

#: Every table and key, with the example a "missing" problem shows.
SCHEMA: Final = {
    "table": {"id": '"WAR-01"', "game": f'"{WAR}"', "type": '"fully-automated"', "seats": "5"},
    "limits": {"min": '"5.00"', "max": '"100.00"'},
    "timers": {"betting_seconds": "3"},
    "terminal": {"chip_denominations": '["5.00", "25.00"]'},
}


def build_config(data: Mapping[str, object], source: str) -> TableConfig:
    tables = ", ".join(SCHEMA)
    problems = [
        f"{key}: unknown table; the tables are {tables}" for key in data if key not in SCHEMA
    ]
    table, limits, timers, terminal = (
        known(section(problems, name, data.get(name), SCHEMA[name])) for name in SCHEMA
    )
    table_id, _ = table.table_id(), table.text("game")
    if table.choice("type", TableType) not in (None, TableType.FULLY_AUTOMATED):
        table.add("type", 'War is dealt at a fully automated table: type = "fully-automated"')
    seats = table.integer("seats", 1, 7)
    low, high = limits.money("min"), limits.money("max")
    if low is not None and high is not None and low > high:
        limits.add("max", "the maximum is below the minimum")
    betting = timers.integer("betting_seconds", TIMER_MIN_SECONDS, TIMER_MAX_SECONDS)
    chips = terminal.money_list("chip_denominations")
    if problems:
        raise ConfigError(source, problems)
    return TableConfig(
        table_id=known(table_id),
        game=WAR,
        table_type=TableType.FULLY_AUTOMATED,
        rules=WarRules(known(seats), WagerLimits(known(low), known(high), 100)),
        shuffle=Shuffle.EVERY_ROUND,
        cut_card=None,
        timers=Timers(known(betting), 0, 0),
        chip_denominations=known(chips),
        source=source,
    )


def logged_config(config: TableConfig) -> dict[str, Any]:
    rules: WarRules = config.rules
    return {
        "schema": CONFIG_SCHEMA,
        "table": {
            "id": config.table_id,
            "game": WAR,
            "type": "fully-automated",
            "seats": rules.seats,
        },
        "limits": {"min": rules.limits.minimum, "max": rules.limits.maximum},
        "timers": {"betting_seconds": config.timers.betting_seconds},
        "terminal": {"chip_denominations": list(config.chip_denominations)},
    }


def file_shape(logged: Mapping[str, Any]) -> dict[str, Any]:
    shape: dict[str, dict[str, Any]] = {n: dict(as_mapping(logged.get(n))) for n in SCHEMA}
    shape["limits"] = {key: dollars(value) for key, value in shape["limits"].items()}
    chips = shape["terminal"].get("chip_denominations")
    if isinstance(chips, list):
        shape["terminal"]["chip_denominations"] = [dollars(c) for c in chips]
    return shape
