"""The Spanish 21 Rules Submission (58 Pa. Code 635a, 635b.1; 601a.2): its sections and checks.

:func:`build_config` reads a parsed file into a :class:`~game_server.config.TableConfig` whose
``rules`` are :class:`~game_server.games.spanish21.rules.rules.Spanish21Rules`. Every key is
stated (only ``cut_card``, the ``[match_the_dealer]`` table and its ``meter`` are optional), an
unknown key is an error, every problem names its field and, where a regulation is the reason,
its paragraph, and a file with problems is refused as a whole. The player-edge guard refuses
a Match the Dealer paytable or an Insurance wager that would return 100% or more.

The file, with the example shipped in ``game_server/games/spanish21/configs/spanish21.toml``::

    [table]
    id = "S21-01"
    game = "spanish21"
    type = "fully-automated"
    seats = 7                  # 1 to 7
    decks = 6                  # 6 or 8 Spanish decks of 48 cards
    shuffle = "cut-card"
    cut_card = 234

    [limits]
    wager_unit = "1.00"        # an even number of cents (3 to 2 is exact)
    spanish21_min = "5.00"
    spanish21_max = "1000.00"

    [spanish21]
    dealer_hits_soft_17 = true
    blackjack_pays = "3 to 2"  # 635a.12(a)
    insurance = true
    insurance_pays = "2 to 1"
    double_after_split = true
    max_split_hands = 4
    resplit_aces = true
    hit_split_aces = true
    late_surrender = true
    super_bonus_25_and_over = "5000.00"  # 635a.12(c)(2) not found: stated here

    [timers]
    betting_seconds = 15
    insurance_seconds = 8
    decision_seconds = 15
    countdown_default = "stand"

    [terminal]
    chip_denominations = ["1.00", "5.00", "25.00", "100.00", "500.00"]

    [match_the_dealer]         # optional: 635b.1
    amount = "1.00"            # "1.00" or "5.00" (635b.1(e))
    paytable = "Paytable 1"    # of the shoe's deck count (635b.1(i))
    # meter = "floor:mtd"      # optional: a meter linked tables share (605a.8)
    # reserve = "reseed"       # optional: what the 6% secondary rate is for (635b.1(j))

Entry points: :func:`build_config`, :func:`logged_config`, :func:`file_shape`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, Final

from game_server.config import (
    CONFIG_SCHEMA,
    TIMER_MAX_SECONDS,
    TIMER_MIN_SECONDS,
    ConfigError,
    Section,
    Shuffle,
    TableConfig,
    Timers,
    check_cut_card,
    dollars,
    known,
    options,
    section,
    suggest,
)
from game_server.games.blackjack.rules.rules import MAX_SEATS, CountdownDefault, DoubleOn
from game_server.games.spanish21.rules import match_the_dealer as mtd
from game_server.games.spanish21.rules.rules import (
    DECK_COUNTS,
    SUPER_BONUS_5_TO_25,
    Spanish21Rules,
)
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import ReserveUse, SideWagerOffer, TableType
from shared.errors import MoneyError
from shared.money import ToOne, format_money, parse_pay

__all__ = ["GAME", "SECTIONS", "build_config", "file_shape", "logged_config"]

#: The ``[table] game`` of a Spanish 21 Rules Submission.
GAME: Final = "spanish21"
MATCH: Final = "match_the_dealer"
#: Why ``reserve`` is the Rules Submission's (named in its problems).
_RESERVE_CITE: Final = (
    " (635b.1(j) sets a secondary incrementation rate of 6% and does not say what it is for: "
    '"reseed" funds the reseeds with it, "players" pays it all out; docs/decisions.md)'
)
MIN_SPLIT_HANDS: Final = 2
MAX_SPLIT_HANDS: Final = 4

#: Every table of the file and its keys, with the example a "missing" problem shows.
SECTIONS: Final[dict[str, dict[str, str]]] = {
    "table": {
        "id": '"S21-01"',
        "game": '"spanish21"',
        "type": '"fully-automated"',
        "seats": "7",
        "decks": "6",
        "shuffle": '"cut-card"',
        "cut_card": "234",
    },
    "limits": {
        "wager_unit": '"1.00"',
        "spanish21_min": '"5.00"',
        "spanish21_max": '"1000.00"',
    },
    "spanish21": {
        "dealer_hits_soft_17": "true",
        "blackjack_pays": '"3 to 2"',
        "insurance": "true",
        "insurance_pays": '"2 to 1"',
        "double_after_split": "true",
        "max_split_hands": "4",
        "resplit_aces": "true",
        "hit_split_aces": "true",
        "late_surrender": "true",
        "super_bonus_25_and_over": '"5000.00"',
    },
    "timers": {
        "betting_seconds": "15",
        "insurance_seconds": "8",
        "decision_seconds": "15",
        "countdown_default": '"stand"',
    },
    "terminal": {"chip_denominations": '["1.00", "5.00", "25.00", "100.00", "500.00"]'},
}
_MATCH_SCHEMA: Final = {
    "amount": '"1.00"',
    "paytable": '"Paytable 1"',
    "meter": '"floor:mtd"',
    "reserve": '"reseed"',
}
_FLAGS: Final = (
    "dealer_hits_soft_17",
    "insurance",
    "double_after_split",
    "resplit_aces",
    "hit_split_aces",
    "late_surrender",
)
_WHY: Final = {
    "spanish21.super_bonus_25_and_over": (
        "635a.12(c) pays a fixed super bonus for three suited 7s against a dealer 7; the amount "
        "for an original wager of $25 or more ((c)(2)) is the Rules Submission's"
    ),
    "spanish21.max_split_hands": "the Rules Submission states how many hands a pair may become",
    "match_the_dealer.paytable": "635b.1(i): the certificate holder selects one paytable",
    "match_the_dealer.amount": "635b.1(e): the wager is $1 or $5",
}


def _pays(sec: Section, key: str, required: ToOne, what: str, cite: str) -> None:
    value = sec.text(key)
    if value is None:
        return
    try:
        pay = parse_pay(value)
    except MoneyError:
        pay = None
    if pay != required:
        sec.add(key, f'{what} is paid at {required}, not {value!r}; write "{required}" ({cite})')


def _multiple(problems: list[str], where: str, amount: int | None, unit: int | None) -> bool:
    if amount is None or unit is None or not amount % unit:
        return True
    problems.append(
        f"{where}: {format_money(amount)} is not a multiple of the wager unit "
        f"{format_money(unit)}: every wager is a whole number of units"
    )
    return False


def _match_the_dealer(
    problems: list[str], raw: object, decks: int | None, unit: int | None
) -> SideWagerOffer | bool | None:
    """The ``[match_the_dealer]`` table: its offer, None when absent, False when refused."""
    sec = section(problems, MATCH, raw, _MATCH_SCHEMA, required=False, why=_WHY)
    if sec is None:
        return None
    amount = sec.money("amount")
    name = sec.text("paytable")
    link = sec.meter_link()
    ok = amount is not None and name is not None
    if amount is not None and amount not in mtd.AMOUNTS:
        sec.add(
            "amount",
            f"{format_money(amount)} is not offered: the Match the Dealer Progressive wager is "
            '$1 or $5; write "1.00" or "5.00" (58 Pa. Code 635b.1(e))',
        )
        ok = False
    if decks is not None and decks not in mtd.DECKS:
        sec.add(
            "paytable", f"Match the Dealer is played with 6 or 8 decks, not {decks} (635b.1(b))"
        )
        ok = False
    if not ok or decks is None or name is None or amount is None:
        return False
    if name not in mtd.PAYTABLES[decks]:
        choices = options(mtd.PAYTABLES[decks])
        sec.add(
            "paytable",
            f"{name!r} is not a {decks}-deck paytable of 58 Pa. Code 635b.1(i)"
            f"{suggest(name, mtd.PAYTABLES[decks])}; choose {choices}",
        )
        return False
    if unit is not None and amount % unit:
        _multiple(problems, f"{MATCH}.amount", amount, unit)
        return False
    reserve = ReserveUse.RESEED
    if "reserve" in sec.data:
        stated = sec.choice("reserve", ReserveUse, _RESERVE_CITE)
        if stated is None:
            return False
        reserve = stated
    table = mtd.paytable(decks, name, amount, reserve)
    chosen: tuple[tuple[str, str], ...] = () if link is None else (("meter", link),)
    if reserve is not ReserveUse.RESEED:
        chosen += (("reserve", reserve.value),)
    return SideWagerOffer(mtd.MATCH_THE_DEALER, table, WagerLimits(amount, amount, amount), chosen)


def build_config(data: Mapping[str, object], source: str) -> TableConfig:
    """Check a parsed Spanish 21 Rules Submission and build its config.

    Raises:
        ConfigError: every problem found, each naming its field (and paragraph).
    """
    problems: list[str] = []
    top = (*SECTIONS, MATCH)
    for key in data:
        if key not in top:
            problems.append(
                f"{key}: unknown table or key{suggest(key, top)}; a Spanish 21 Rules Submission "
                f"has the tables {', '.join(f'[{t}]' for t in top)}"
            )
    secs = {
        name: known(section(problems, name, data.get(name), schema, why=_WHY))
        for name, schema in SECTIONS.items()
    }
    table = secs["table"]
    table_id = table.table_id()
    game = table.text("game")
    table_type = table.choice("type", TableType)
    if table_type is not None and table_type is not TableType.FULLY_AUTOMATED:
        table.add("type", f"{table_type.value!r}: Spanish 21 runs on the fully automated table")
        table_type = None
    seats = table.integer(
        "seats", 1, MAX_SEATS, f": the layout has {MAX_SEATS} player positions (635a.2)"
    )
    decks = table.typed("decks", int)
    if decks is not None and decks not in DECK_COUNTS:
        table.add(
            "decks",
            f"{decks} decks: Spanish 21 is dealt from 6 or 8 Spanish decks of 48 cards "
            "(Chapter 635a, secondary source; 58 Pa. Code 635b.1(b))",
        )
        decks = None
    shuffle = table.choice("shuffle", Shuffle)
    cut_card = table.typed("cut_card", int, required=False)

    limits = secs["limits"]
    unit = limits.money("wager_unit")
    low, high = limits.money("spanish21_min"), limits.money("spanish21_max")
    if unit is not None and not ToOne(3, 2).exact_for(unit):
        limits.add(
            "wager_unit",
            f"{format_money(unit)} is an odd number of cents, so a Blackjack or a bonus paid 3 "
            'to 2 would not be a whole cent; choose an even unit such as "1.00" (635a.12(a))',
        )
    main: WagerLimits | None = None
    if low is not None and high is not None and low > high:
        limits.add("spanish21_min", f"{format_money(low)} is above spanish21_max")
    elif unit is not None and low is not None and high is not None:
        ok = _multiple(problems, "limits.spanish21_min", low, unit)
        if _multiple(problems, "limits.spanish21_max", high, unit) and ok:
            main = WagerLimits(low, high, unit)

    game_sec = secs["spanish21"]
    _pays(game_sec, "blackjack_pays", ToOne(3, 2), "a player Blackjack", "635a.12(a)")
    _pays(game_sec, "insurance_pays", ToOne(2, 1), "a winning Insurance wager", "635a")
    flags = {key: game_sec.flag(key) for key in _FLAGS}
    split_hands = game_sec.integer(
        "max_split_hands", MIN_SPLIT_HANDS, MAX_SPLIT_HANDS, ": this build deals up to 4 hands"
    )
    large = game_sec.money("super_bonus_25_and_over")
    if large is not None and large < SUPER_BONUS_5_TO_25:
        game_sec.add(
            "super_bonus_25_and_over",
            f"{format_money(large)} is below the {format_money(SUPER_BONUS_5_TO_25)} paid for an "
            "original wager of $5 to under $25 (635a.12(c)(1)): a larger wager is not paid less",
        )
        large = None

    timers_sec = secs["timers"]
    why = f": {TIMER_MIN_SECONDS} to {TIMER_MAX_SECONDS} seconds"
    betting, insurance, decision = (
        timers_sec.integer(key, TIMER_MIN_SECONDS, TIMER_MAX_SECONDS, why)
        for key in ("betting_seconds", "insurance_seconds", "decision_seconds")
    )
    countdown = timers_sec.choice("countdown_default", CountdownDefault)

    chips = secs["terminal"].money_list("chip_denominations")
    offer = _match_the_dealer(problems, data.get(MATCH), decks, unit)
    if chips is not None:
        where = "terminal.chip_denominations"
        if any(b <= a for a, b in itertools.pairwise(chips)):
            problems.append(f"{where}: list each chip once, smallest first")
        for i, chip in enumerate(chips):
            _multiple(problems, f"{where}[{i}]", chip, unit)
        if low is not None and min(chips) > low:
            problems.append(
                f"{where}: the smallest chip {format_money(min(chips))} is above spanish21_min "
                f"{format_money(low)}, so a player could not wager the minimum"
            )
    check_cut_card(problems, data, shuffle, cut_card, decks, seats)

    rules: Spanish21Rules | None = None
    values = (seats, decks, split_hands, large, countdown, main, *flags.values())
    if offer is not False and None not in values:
        assert offer is None or isinstance(offer, SideWagerOffer)
        rules = Spanish21Rules(
            decks=known(decks),
            seats=known(seats),
            dealer_hits_soft_17=known(flags["dealer_hits_soft_17"]),
            dealer_peeks=True,
            double_on=DoubleOn.ANY,
            double_after_split=known(flags["double_after_split"]),
            max_split_hands=known(split_hands),
            resplit_aces=known(flags["resplit_aces"]),
            hit_split_aces=known(flags["hit_split_aces"]),
            late_surrender=known(flags["late_surrender"]),
            insurance=known(flags["insurance"]),
            even_money=False,
            countdown_default=known(countdown),
            main_limits=known(main),
            side_wagers=() if offer is None else (offer,),
            super_bonus_25_and_over=known(large),
        )
    if problems:
        raise ConfigError(source, problems)
    return TableConfig(
        table_id=known(table_id),
        game=known(game),
        table_type=known(table_type),
        rules=known(rules),
        shuffle=known(shuffle),
        cut_card=cut_card,
        timers=Timers(known(betting), known(insurance), known(decision)),
        chip_denominations=known(chips),
        source=source,
    )


def logged_config(config: TableConfig) -> dict[str, Any]:
    """The config as logged in ``table_opened``: the file's shape, cents as integers."""
    rules: Spanish21Rules = config.rules
    main = rules.main_limits
    logged: dict[str, Any] = {
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
            "spanish21_min": main.minimum,
            "spanish21_max": main.maximum,
        },
        "spanish21": {
            "dealer_hits_soft_17": rules.dealer_hits_soft_17,
            "blackjack_pays": "3 to 2",
            "insurance": rules.insurance,
            "insurance_pays": "2 to 1",
            "double_after_split": rules.double_after_split,
            "max_split_hands": rules.max_split_hands,
            "resplit_aces": rules.resplit_aces,
            "hit_split_aces": rules.hit_split_aces,
            "late_surrender": rules.late_surrender,
            "super_bonus_25_and_over": rules.super_bonus_25_and_over,
        },
        "timers": {
            "betting_seconds": config.timers.betting_seconds,
            "insurance_seconds": config.timers.insurance_seconds,
            "decision_seconds": config.timers.decision_seconds,
            "countdown_default": rules.countdown_default.value,
        },
        "terminal": {"chip_denominations": list(config.chip_denominations)},
    }
    for offer in rules.side_wagers:
        logged[MATCH] = {
            "amount": offer.limits.minimum,
            "paytable": offer.paytable.name,
            **dict(offer.options),
        }
    return logged


def file_shape(logged: Mapping[str, Any]) -> dict[str, object]:
    """The logged form back in the file's shape: cents as dollar strings, no None cut card."""
    shaped: dict[str, object] = {
        "table": {k: v for k, v in dict(logged.get("table", {})).items() if v is not None},
        "limits": {k: dollars(v) for k, v in dict(logged.get("limits", {})).items()},
        "timers": dict(logged.get("timers", {})),
    }
    game = dict(logged.get("spanish21", {}))
    if "super_bonus_25_and_over" in game:
        game["super_bonus_25_and_over"] = dollars(game["super_bonus_25_and_over"])
    shaped["spanish21"] = game
    terminal = dict(logged.get("terminal", {}))
    if "chip_denominations" in terminal:
        terminal["chip_denominations"] = [dollars(c) for c in terminal["chip_denominations"]]
    shaped["terminal"] = terminal
    if MATCH in logged:
        match = dict(logged[MATCH])
        match["amount"] = dollars(match.get("amount"))
        shaped[MATCH] = match
    return shaped
