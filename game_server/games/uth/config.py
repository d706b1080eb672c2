"""The Ultimate Texas Hold 'Em Rules Submission (58 Pa. Code 653a): its sections and checks.

:class:`UthBuilder` reads the file into a :class:`~game_server.config.TableConfig` whose
``rules`` is a checked :class:`~game_server.games.uth.rules.rules.UthRules` (one 52-card deck
per round, ``shuffle = "every-round"``); every problem is collected, each naming its field and
the 653a.12 paragraph. The example is ``game_server/games/uth/configs/uth.toml``::

    [table]
    id = "UTH-01"
    game = "uth"
    type = "fully-automated"   # 653a.2
    seats = 6                  # 1 to 10

    [limits]
    wager_unit = "1.00"
    ante_min = "5.00"
    ante_max = "500.00"

    [uth]
    blind_paytable = "Paytable A"      # 653a.12(b)
    max_payout = "50000.00"            # or "none" (653a.12(f))
    side_wagers_settle_on_fold = true
    [uth.trips]                        # optional: 653a.12(c)
    [uth.progressive]                  # optional: 653a.12(d)
    [uth.five_card]                    # optional: 653a.12(e)

    [timers]
    betting_seconds = 15
    decision_seconds = 15

    [terminal]
    chip_denominations = ["1.00", "5.00", "25.00", "100.00", "500.00"]

Entry points: :class:`UthBuilder`, :func:`logged_config`, :func:`file_shape`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from game_server.config import (
    CONFIG_SCHEMA,
    PACE_SCHEMA,
    TABLE_ID,
    TABLE_WORDS,
    TIMER_MAX_SECONDS,
    TIMER_MIN_SECONDS,
    ConfigError,
    Section,
    Shuffle,
    TableConfig,
    Timers,
    as_mapping,
    dollars,
    logged_pace,
    money,
    parse_percent,
    read_pace,
)
from game_server.config import describe as _describe
from game_server.config import known as _known
from game_server.config import options as _options
from game_server.config import suggest as _suggest
from game_server.games.uth.rules.paytables import BLIND_PAYTABLES as UTH_BLIND_PAYTABLES
from game_server.games.uth.rules.paytables import PROGRESSIVE_AMOUNTS as UTH_PROGRESSIVE_AMOUNTS
from game_server.games.uth.rules.paytables import TRIPS_PAYTABLES as UTH_TRIPS_PAYTABLES
from game_server.games.uth.rules.rules import MINIMUM_MAX_PAYOUT as UTH_MINIMUM_MAX_PAYOUT
from game_server.games.uth.rules.rules import MINIMUM_METER_SEED as UTH_MINIMUM_METER_SEED
from game_server.games.uth.rules.rules import BonusOn, FiveCardHand, UthRules, UthRulesError
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import MeterSpec, TableType
from shared.money import format_money

__all__ = ["UTH", "UthBuilder", "build_config", "file_shape", "logged_config", "rules_of"]

#: ``[table] game`` of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a).
UTH: Final = "uth"


def rules_of(config: TableConfig) -> UthRules | None:
    """The Ultimate Texas Hold 'Em rules of ``config`` (None at another game's table)."""
    rules: UthRules | None = config.rules if config.game == UTH else None
    return rules


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
    "timers": {"betting_seconds": "15", "decision_seconds": "15", **PACE_SCHEMA},
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


def build_config(data: Mapping[str, object], source: str) -> TableConfig:
    """An Ultimate Texas Hold 'Em Rules Submission, checked (:class:`UthBuilder`)."""
    return UthBuilder(data, source).build()


class UthBuilder:
    """Reads an Ultimate Texas Hold 'Em Rules Submission into a :class:`TableConfig` whose
    :attr:`~TableConfig.uth` is a checked :class:`~game_server.games.uth.rules.rules.UthRules`;
    every problem is collected, each naming its field and the 653a.12 paragraph."""

    def __init__(self, data: Mapping[str, object], source: str) -> None:
        self.data = data
        self.source = source
        self.problems: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def section(
        self, path: str, raw: object, schema: Mapping[str, str], *, required: bool = True
    ) -> Section | None:
        if raw is None:
            if required:
                self.add(path, f"the [{path}] table is missing; it states {', '.join(schema)}")
                return Section(self.problems, path, {}, schema, present=False)
            return None
        if not isinstance(raw, dict):
            self.add(path, f"expected a table [{path}], got {_describe(raw)}")
            return Section(self.problems, path, {}, schema, present=False)
        return Section(self.problems, path, raw, schema)

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
        if table_id is not None and not TABLE_ID.fullmatch(table_id):
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
                f"{TABLE_WORDS[table_type]} (the hybrid tables of 58 Pa. Code 633b.5 deal "
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
        sub = as_mapping(uth_raw)
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
        timers = Timers(betting or 0, 0, decision or 0, read_pace(timers_section))
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
            rules=rules,
            shuffle=Shuffle.EVERY_ROUND,
            cut_card=None,
            timers=timers,
            chip_denominations=_known(chips),
            source=self.source,
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

    def max_payout(self, uth: Section) -> int | None:
        """653a.12(f): ``"none"`` or an amount of at least $50,000 (and at least what one
        patron could win betting the minimum: checked by :class:`UthRules`)."""
        value = uth.raw("max_payout")
        if value == _NO_MAXIMUM:
            return None
        amount = money(self.problems, "uth.max_payout", value)
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
        link = section.meter_link()
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
    def percent(section: Section, key: str, cite: str) -> int | None:
        rate = section.text(key)
        if rate is None:
            return None
        basis = parse_percent(rate)
        if basis is None:
            section.add(key, f'{rate!r} is not a percentage like "15%" (58 Pa. Code {cite})')
            return None
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


def logged_config(config: TableConfig) -> dict[str, Any]:
    """An Ultimate Texas Hold 'Em config as logged (the file's shape, cents as integers)."""
    rules: UthRules = config.rules
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
            **logged_pace(config.timers),
        },
        "terminal": {"chip_denominations": list(config.chip_denominations)},
    }


def file_shape(data: Mapping[str, Any]) -> dict[str, object]:
    """The logged form of an Ultimate Texas Hold 'Em config back in the file's shape."""

    money_keys = {"min", "max", "meter_seed", "meter_reseed", "max_payout"}

    def convert(section: Mapping[str, Any]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in section.items():
            if isinstance(value, dict):
                out[key] = convert(value)
            elif key == "amounts" and isinstance(value, list):
                out[key] = [dollars(v) for v in value]
            elif key == "max_payout" and value is None:
                out[key] = _NO_MAXIMUM
            elif key in money_keys:
                out[key] = dollars(value)
            else:
                out[key] = value
        return out

    terminal: dict[str, object] = dict(as_mapping(data.get("terminal")))
    chips = terminal.get("chip_denominations")
    if isinstance(chips, list):
        terminal["chip_denominations"] = [dollars(c) for c in chips]
    return {
        "table": dict(as_mapping(data.get("table"))),
        "limits": {k: dollars(v) for k, v in as_mapping(data.get("limits")).items()},
        "uth": convert(as_mapping(data.get("uth"))),
        "timers": dict(as_mapping(data.get("timers"))),
        "terminal": terminal,
    }
