"""A progressive meter's long run from its own dynamics (game_server.rules.meter_returns),
against the engine's own meter (game_server.rules.meters) run wager by wager, and the
player-edge guard of Match the Dealer (635b.1(i), (j)) by that count."""

from __future__ import annotations

import math
import random
import statistics
from fractions import Fraction

import pytest

from game_server.config import ConfigError, example_path, parse_config
from game_server.games.spanish21.math import long_runs
from game_server.games.spanish21.rules import match_the_dealer as mtd
from game_server.rules.meter_returns import meter_long_run
from game_server.rules.meters import Meter, MeterReseeded
from game_server.rules.wagers.base import MeterSpec, ReserveUse

#: A meter that hits often, so that a short run of the engine measures its top-ups: $100
#: reset, 15% of each $1 wager, the whole meter with chance 1/1000, 10% of it with 1/100.
RESET, STAKE, FULL, PARTIAL = 10_000, 100, Fraction(1, 1000), Fraction(1, 100)
WAGERS, BATCHES = 120_000, 20


def _run(spec: MeterSpec, seed: int) -> tuple[list[float], list[float], list[float], Meter]:
    """The engine's meter fed ``WAGERS`` wagers, its lines drawn by a seeded generator:
    per batch, the top-ups after 10% awards and the house's funding (cents per wager), and
    the meter's mean amount (cents)."""
    meter = Meter.open("m", spec).meter
    draw = random.Random(seed).random
    per_batch = WAGERS // BATCHES
    tops: list[float] = []
    house: list[float] = []
    means: list[float] = []
    for _ in range(BATCHES):
        top = 0
        funded = meter.house_funded
        amount = 0
        for _ in range(per_batch):
            meter = meter.contribute(STAKE, "seat").meter
            amount += meter.amount
            x = draw()
            if x < FULL:
                meter = meter.award(100, "seat").meter
            elif x < FULL + PARTIAL:
                step = meter.award(10, "seat")
                meter = step.meter
                top += sum(
                    e.from_reserve + e.from_house
                    for e in step.events
                    if isinstance(e, MeterReseeded)
                )
        tops.append(top / 1000 / per_batch)
        house.append((meter.house_funded - funded) / 1000 / per_batch)
        means.append(amount / 1000 / per_batch)
    assert meter.balanced()
    return tops, house, means, meter


def _interval(values: list[float], z: float = 3.5) -> tuple[float, float]:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(len(values))
    return mean - z * se, mean + z * se


def test_top_ups_and_the_average_meter_are_those_of_the_engine() -> None:
    """The stationary chain's top-ups per wager and average meter fall inside the engine's
    run's intervals (batch means), and removing the top-ups would not (they are a third of
    what the 100% awards' reseeds cost here)."""
    spec = MeterSpec("m", RESET, RESET, 1500)
    counted = meter_long_run(spec, STAKE, FULL, [(10, PARTIAL)])
    tops, _, means, _ = _run(spec, seed=20261203)
    low, high = _interval(tops)
    assert low <= counted.top_ups * STAKE <= high
    assert high < 0.5 * counted.reseeds * STAKE  # the figure is not lost in the noise
    assert low > 0
    low, high = _interval(means)
    assert counted.average_meter is not None
    assert low <= counted.average_meter <= high


def test_a_reserve_that_is_the_players_is_paid_out_and_the_house_adds_its_shortfall() -> None:
    """``reserve = "players"``: the engine caps the reserve at one reset amount and sends the
    rest of the secondary share to the meter; the house funds only what the reserve lacks at
    a reseed, inside the counted interval, and every millicent balances."""
    spec = MeterSpec("m", RESET, RESET, 1500, 600, reserve=ReserveUse.PLAYERS)
    counted = meter_long_run(spec, STAKE, FULL, [(10, PARTIAL)])
    _, house, _, meter = _run(spec, seed=7)
    assert meter.reserve <= RESET * 1000
    low, high = _interval(house)
    assert low <= counted.house_high * STAKE and counted.house_low * STAKE <= high
    assert counted.contributions == pytest.approx(0.21)
    assert counted.long_run == pytest.approx(0.21 + counted.house_high)
    assert counted.long_run_low < counted.long_run


def test_a_players_reserve_never_holds_more_than_one_reset_amount() -> None:
    """The cap: once the reserve holds the reset amount, the whole 21% of a wager goes to the
    meter; the wager's millicents still add up."""
    spec = MeterSpec("m", 100, 100, 1500, 600, reserve=ReserveUse.PLAYERS)
    meter = Meter.open("m", spec).meter
    for _ in range(20):
        meter = meter.contribute(100, "seat").meter
    assert meter.reserve == 100_000
    ev = meter.contribution(100, "seat")
    assert (ev.increment, ev.secondary, ev.kept) == (21_000, 0, 79_000)
    assert meter.contribute(100, "seat").meter.balanced()


def test_a_meter_with_only_a_full_line_returns_its_rate_plus_its_reseeds_exactly() -> None:
    spec = MeterSpec("m", RESET, RESET, 1500)
    counted = meter_long_run(spec, STAKE, FULL, [])
    assert counted.long_run == pytest.approx(0.15 + float(FULL) * RESET / STAKE, abs=1e-15)
    assert counted.top_ups == 0 and counted.precision == "exact"


def test_bad_terms_are_refused_with_what_was_wrong() -> None:
    spec = MeterSpec("m", RESET, RESET, 1500)
    with pytest.raises(ValueError, match="at least 1 cent"):
        meter_long_run(spec, 0, FULL, [])
    with pytest.raises(ValueError, match=r"1\.\.99%"):
        meter_long_run(spec, STAKE, FULL, [(100, PARTIAL)])


@pytest.mark.parametrize("decks", sorted(mtd.PAYTABLES))
def test_match_the_dealer_meter_lines_return_what_their_meter_takes_in(decks: int) -> None:
    """635b.1(j): 15% of each wager, plus the $1,000 reset after each Aces of Spades award,
    plus the small top-ups: 15.5-15.7% of the handle in the meter lines, not 17.9%."""
    figure = long_runs("Paytable 1", decks)["reseed"]
    counts = mtd.exact_counts(decks)
    total = sum(counts.values())
    fixed = sum(
        Fraction(counts[line], total) * (pays + 1)
        for line, pays in zip(mtd.LINES[2:], (8, 5, 6, 3), strict=True)
    ) + Fraction(counts[mtd.AS_SUITED] + counts[mtd.TWO_SUITED], total)
    meter_lines = figure - float(fixed)
    reseeds = counts[mtd.AS_SUITED] / total * 100_000 / 100
    assert 0.15 + reseeds < meter_lines < 0.15 + reseeds + 0.0002


def _mtd(paytable: str, decks: int, reserve: str | None) -> str:
    text = example_path("spanish21.toml").read_text()
    text = text.replace('paytable = "Paytable 1"', f'paytable = "{paytable}"')
    text = text.replace("decks = 6 ", f"decks = {decks} ")
    assert 'reserve = "reseed"' in text
    if reserve is not None:
        text = text.replace('reserve = "reseed"', f'reserve = "{reserve}"')
    else:
        text = text.replace('reserve = "reseed"', "")
    return text


@pytest.mark.parametrize(
    ("paytable", "decks", "reserve"),
    [
        ("Paytable 6", 6, None),
        ("Paytable 6", 8, "reseed"),
        ("Paytable 7", 8, None),
        ("Paytable 4", 6, "players"),
        ("Paytable 5", 6, "players"),
        ("Paytable 5", 8, "players"),
        ("Paytable 7", 6, None),
    ],
)
def test_the_guard_refuses_exactly_what_returns_100_percent_or_more(
    paytable: str, decks: int, reserve: str | None
) -> None:
    """Paytables under 100% by the meter's own count are offered (6-deck and 8-deck
    Paytable 6 and 8-deck Paytable 7 were refused); with the reserve the players' money,
    6-deck Paytables 4-5 and 8-deck Paytable 5 reach 100% and are refused, naming the
    figure."""
    figure = long_runs(paytable, decks)[reserve or "reseed"]
    text = _mtd(paytable, decks, reserve)
    if figure < 1:
        config = parse_config(text)
        (offer,) = config.rules.side_wagers
        assert offer.paytable.meters[0].reserve.value == (reserve or "reseed")
    else:
        with pytest.raises(ConfigError, match=rf"match_the_dealer.*{100 * figure:.2f}%"):
            parse_config(text)


def test_a_misspelt_reserve_names_the_choices() -> None:
    with pytest.raises(ConfigError, match=r"match_the_dealer.reserve: 'player' is not an option"):
        parse_config(_mtd("Paytable 1", 6, "player"))
