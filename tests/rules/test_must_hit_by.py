"""Must-Hit-By Mystery Bonus (58 Pa. Code 633b.14): the configurations as the regulation
prints them, the trigger drawn uniformly (checked exactly by enumerating every value), the
crossing contribution winning 100% of the meter, the reset and the new trigger."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.rules.events import from_dict, to_dict
from game_server.rules.meters import (
    Meter,
    MeterActionError,
    MeterBank,
    MeterContributed,
    MeterEvent,
    MeterReseeded,
    MeterSpecError,
    MysteryAwarded,
    MysteryTriggerDrawn,
)
from game_server.rules.wagers import must_hit_by as mhb
from game_server.rules.wagers.base import MeterSpec

# 633b.14(c)(4), copied from the regulation text.
REGULATION_TEXT = """\
Paytable A—$1 Configuration

Configuration A

Minimum Progressive Wager Amount—$1
Minimum Dollar Value $100
Maximum Dollar Value $200
Incremental Contribution Rate 2%

Paytable A—$2 Configuration

Configuration A

Minimum Progressive Wager Amount—$2
Minimum Dollar Value $100
Maximum Dollar Value $200
Incremental Contribution Rate 1.5%

Paytable A—$5 Configuration

Configuration A

Minimum Progressive Wager Amount—$5
Minimum Dollar Value $100
Maximum Dollar Value $250
Incremental Contribution Rate 1%

Paytable B—$1 Configuration

Configuration B

Minimum Progressive Wager Amount—$1
Minimum Dollar Value $100
Maximum Dollar Value $500
Incremental Contribution Rate 5%

Paytable B—$2 Configuration

Configuration B

Minimum Progressive Wager Amount—$2
Minimum Dollar Value $100
Maximum Dollar Value $500
Incremental Contribution Rate 3.5%

Paytable B—$5 Configuration

Configuration B

Minimum Progressive Wager Amount—$5
Minimum Dollar Value $100
Maximum Dollar Value $500
Incremental Contribution Rate 2%

Paytable C—$1 Configuration

Configuration C

Minimum Progressive Wager Amount—$1
Minimum Dollar Value $250
Maximum Dollar Value $500
Incremental Contribution Rate 2%

Paytable C—$2 Configuration

Configuration C

Minimum Progressive Wager Amount—$2
Minimum Dollar Value $250
Maximum Dollar Value $500
Incremental Contribution Rate 1.5%

Paytable C—$5 Configuration

Configuration C

Minimum Progressive Wager Amount—$5
Minimum Dollar Value $250
Maximum Dollar Value $500
Incremental Contribution Rate 0.5%

Paytable D—$1 Configuration

Configuration D

Minimum Progressive Wager Amount—$1
Minimum Dollar Value $250
Maximum Dollar Value $1,000
Incremental Contribution Rate 5%

Paytable D—$2 Configuration

Configuration D

Minimum Progressive Wager Amount—$2
Minimum Dollar Value $250
Maximum Dollar Value $1,000
Incremental Contribution Rate 3%

Paytable D—$5 Configuration

Configuration D

Minimum Progressive Wager Amount—$5
Minimum Dollar Value $250
Maximum Dollar Value $1,000
Incremental Contribution Rate 2%
"""


def _cents(dollars: str) -> int:
    return int(dollars.replace(",", "")) * 100


def _basis_points(percent: str) -> int:
    whole, _, frac = percent.partition(".")
    return int(whole) * 100 + int((frac + "00")[:2])


def _parsed() -> list[mhb.Configuration]:
    blocks = [b for b in REGULATION_TEXT.split("\n\n") if b.strip()]
    out = []
    for heading, name, body in zip(blocks[0::3], blocks[1::3], blocks[2::3], strict=True):
        wager, low, high, rate = re.fullmatch(
            r"Minimum Progressive Wager Amount—\$(\d+)\n"
            r"Minimum Dollar Value \$([\d,]+)\n"
            r"Maximum Dollar Value \$([\d,]+)\n"
            r"Incremental Contribution Rate ([\d.]+)%",
            body.strip(),
        ).groups()  # type: ignore[union-attr]
        out.append(
            mhb.Configuration(
                heading.strip(),
                name.strip(),
                _cents(wager),
                _cents(low),
                _cents(high),
                _basis_points(rate),
            )
        )
    return out


class FakeRandom:
    """A recording randbelow: answers from a script and logs every ``n`` it was asked."""

    def __init__(self, *answers: int) -> None:
        self.answers: Iterator[int] = iter(answers)
        self.asked: list[int] = []

    def randbelow(self, n: int) -> int:
        self.asked.append(n)
        return next(self.answers)


# A_1: Configuration A for $1: $100..$200, 2% (a $1 wager adds 2 cents).
A_1 = mhb.CONFIGURATIONS["Paytable A—$1 Configuration"]
SPEC = mhb.meter_spec(A_1)


def mystery(trigger_offset: int) -> Meter:
    """A fresh Configuration A $1 meter at $100.00 with trigger $100.00 + offset cents."""
    return mhb.open_meter("floor:mhb", SPEC, FakeRandom(trigger_offset).randbelow).meter


# --- configurations ------------------------------------------------------------------------


def test_the_configurations_are_those_of_the_regulation() -> None:
    """633b.14(c)(4): the twelve configurations, in order, with the regulation's names."""
    assert list(mhb.CONFIGURATIONS.values()) == _parsed()
    assert list(mhb.CONFIGURATIONS) == [c.paytable for c in _parsed()]


def test_a_configuration_is_found_by_letter_and_minimum_wager() -> None:
    """Configuration B for a $2 minimum wager is 3.5% with $100..$500; E does not exist."""
    conf = mhb.configuration("B", 200)
    assert (conf.minimum, conf.maximum, conf.increment_bp) == (10_000, 50_000, 350)
    with pytest.raises(MeterSpecError, match=r"633b\.14"):
        mhb.configuration("E", 100)
    with pytest.raises(MeterSpecError):
        mhb.configuration("A", 300)


def test_the_meter_resets_to_the_minimum_and_must_hit_by_the_maximum() -> None:
    """633b.14(c)(5)(iv): the meter opens and resets at the minimum dollar value."""
    assert mhb.meter_spec(A_1) == MeterSpec(mhb.METER_NAME, 10_000, 10_000, 200, 0, 20_000)


def test_blazing_7s_qualifies_and_the_others_are_named_for_later() -> None:
    """633b.14(c)(1): a Blackjack wager and a qualifying progressive wager of at least the
    minimum progressive wager amount; Jackpot Party, Hit and Run and Straight Jack are named
    but not offered yet."""
    assert set(mhb.QUALIFYING_WAGERS) == {
        "blazing_7s",
        "jackpot_party",
        "hit_and_run",
        "straight_jack",
    }
    conf = mhb.configuration("A", 500)
    assert mhb.qualifies(conf, "blazing_7s", 500, 1_000)
    assert not mhb.qualifies(conf, "blazing_7s", 100, 1_000)
    assert not mhb.qualifies(conf, "blazing_7s", 500, 0)
    assert not mhb.qualifies(conf, "jackpot_party", 500, 1_000)
    assert not mhb.qualifies(conf, "lucky_aces", 500, 1_000)


# --- the trigger ---------------------------------------------------------------------------


@pytest.mark.parametrize("conf", list(mhb.CONFIGURATIONS.values()), ids=lambda c: c.paytable)
def test_the_trigger_is_uniform_over_every_cent_from_minimum_to_maximum(
    conf: mhb.Configuration,
) -> None:
    """633b.14(c)(3): draw_trigger asks for one number below maximum - minimum + 1 and maps
    each answer to a different whole cent, so a uniform randbelow gives a uniform trigger over
    minimum..maximum, both included."""
    span = conf.maximum - conf.minimum + 1
    rng = FakeRandom(*range(span))
    drawn = [mhb.draw_trigger(conf.minimum, conf.maximum, rng.randbelow) for _ in range(span)]
    assert rng.asked == [span] * span
    assert drawn == list(range(conf.minimum, conf.maximum + 1))


def test_a_one_value_range_and_bad_answers() -> None:
    """minimum == maximum leaves one trigger; an empty range and an answer outside
    0..n-1 are refused."""
    assert mhb.draw_trigger(500, 500, FakeRandom(0).randbelow) == 500
    with pytest.raises(MeterSpecError):
        mhb.draw_trigger(501, 500, FakeRandom(0).randbelow)
    with pytest.raises(MeterActionError, match="outside"):
        mhb.draw_trigger(100, 200, FakeRandom(101).randbelow)
    with pytest.raises(MeterActionError, match="outside"):
        mhb.draw_trigger(100, 200, FakeRandom(-1).randbelow)


def test_opening_draws_the_first_trigger() -> None:
    """The meter opens at $100.00 and the first trigger is drawn over $100.00..$200.00."""
    rng = FakeRandom(4_321)
    step = mhb.open_meter("floor:mhb", SPEC, rng.randbelow)
    assert rng.asked == [10_001]
    assert step.events[-1] == MysteryTriggerDrawn("floor:mhb", 10_000, 20_000, 14_321)
    assert step.meter.trigger == 14_321
    assert step.meter.amount == 10_000_000


# --- the crossing contribution wins -------------------------------------------------------


def test_the_contribution_that_takes_the_meter_past_the_trigger_wins_it_all() -> None:
    """633b.14(c)(3), (7), (5)(iv): with the trigger at $100.03, $1 wagers at 2% take the
    meter to $100.02 (no hit) and then $100.04: that player wins $100.04, the meter resets to
    $100.00 funded by the house, and a new trigger is drawn."""
    meter = mystery(3)
    first = mhb.contribute(meter, 100, "bj-1/1", FakeRandom().randbelow)
    assert first.paid == ()
    assert first.meter.amount_cents == 10_002
    rng = FakeRandom(9_999)
    second = mhb.contribute(first.meter, 100, "bj-1/2", rng.randbelow)
    assert second.paid == (10_004,)
    assert second.events == (
        MeterContributed("floor:mhb", "bj-1/2", 100, 2_000, 0, 98_000, 10_004_000, 0),
        MysteryAwarded("floor:mhb", "bj-1/2", 10_003, 10_004, 0),
        MeterReseeded("floor:mhb", 0, 10_000_000, 10_000_000, 0),
        MysteryTriggerDrawn("floor:mhb", 10_000, 20_000, 19_999),
    )
    assert rng.asked == [10_001]
    assert second.meter.amount == 10_000_000
    assert second.meter.trigger == 19_999
    assert second.meter.hits == 1
    assert second.meter.paid == 10_004
    assert second.meter.balanced()


def test_reaching_the_trigger_exactly_is_not_in_excess_of_it() -> None:
    """633b.14(c)(3) "in excess of": a meter that reaches the trigger exactly does not pay;
    the next contribution that goes past it does."""
    meter = mystery(2)
    step = mhb.contribute(meter, 100, "p", FakeRandom().randbelow)
    assert step.meter.amount_cents == 10_002
    assert step.paid == ()
    assert mhb.contribute(step.meter, 100, "q", FakeRandom(0).randbelow).paid == (10_004,)


def test_a_fraction_of_a_cent_does_not_take_the_jackpot_amount_past_the_trigger() -> None:
    """The jackpot amount is the payable amount in whole cents: $100.005 is not in excess of
    $100.00; $100.01 is (C for $5 at 0.5%: a $1 wager adds half a cent)."""
    conf = mhb.configuration("C", 500)
    spec = mhb.meter_spec(conf)
    meter = mhb.open_meter("m", spec, FakeRandom(0).randbelow).meter
    assert meter.trigger == conf.minimum
    step = mhb.contribute(meter, 100, "p", FakeRandom().randbelow)
    assert step.paid == ()
    assert step.meter.amount == conf.minimum * 1000 + 500
    step = mhb.contribute(step.meter, 100, "q", FakeRandom(0).randbelow)
    assert step.paid == (conf.minimum + 1,)


def test_a_trigger_at_the_minimum_is_hit_by_the_first_contribution() -> None:
    """With the trigger at the minimum dollar value, the first contribution wins."""
    meter = mystery(0)
    step = mhb.contribute(meter, 500, "p", FakeRandom(0).randbelow)
    assert step.paid == (10_010,)


def test_linked_tables_the_player_whose_contribution_crosses_wins() -> None:
    """Two tables feed one mystery meter in turn with $1 wagers at 2%; with the trigger at
    $100.09 the fifth contribution (table 1) takes the meter to $100.10 and wins; the bank
    then holds the reset meter with its new trigger."""
    bank = MeterBank()
    bank.commit(mhb.open_meter("floor:mhb", SPEC, FakeRandom(9).randbelow))
    winners = []
    for i in range(6):
        place = f"bj-{1 + i % 2}/3"
        rng = FakeRandom(500)
        step = bank.commit(mhb.contribute(bank.meter("floor:mhb"), 100, place, rng.randbelow))
        if step.paid:
            winners.append((place, step.paid))
    assert winners == [("bj-1/3", (10_010,))]
    assert bank.meter("floor:mhb").amount == 10_002_000
    assert bank.meter("floor:mhb").trigger == 10_500


def test_a_mystery_meter_refuses_the_plain_contribution_and_link() -> None:
    """A mystery meter's contributions must check the trigger: Meter.contribute and
    MeterBank.link refuse it, and a meter without a trigger cannot take a mystery
    contribution."""
    meter = mystery(5)
    with pytest.raises(MeterActionError, match=r"633b\.14"):
        meter.contribute(100, "p")
    with pytest.raises(MeterActionError, match="open_meter"):
        MeterBank().link("m", SPEC)
    with pytest.raises(MeterActionError, match="no trigger"):
        mhb.contribute(Meter.open("m", SPEC).meter, 100, "p", FakeRandom(0).randbelow)
    with pytest.raises(MeterSpecError):
        mhb.open_meter("m", MeterSpec("plain", 100, 100, 100), FakeRandom(0).randbelow)


# --- Hypothesis ----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    conf=st.sampled_from(list(mhb.CONFIGURATIONS.values())),
    draws=st.lists(st.integers(0, 10**6), min_size=1, max_size=50),
    wagers=st.lists(st.integers(1, 200), min_size=1, max_size=400),
)
def test_a_mystery_meter_pays_past_its_trigger_and_balances(
    conf: mhb.Configuration, draws: list[int], wagers: list[int]
) -> None:
    """Over any wagers and any RNG answers: the meter never shows more than its trigger
    without paying, every prize is above the trigger it crossed, the meter never stands below
    the minimum, the books balance, and replaying the events rebuilds the meter."""
    answers = itertools.cycle(draws)  # as many answers as the hits need
    spec = mhb.meter_spec(conf)

    def randbelow(n: int) -> int:
        return next(answers) % n

    step = mhb.open_meter("m", spec, randbelow)
    meter = step.meter
    log: list[MeterEvent] = list(step.events)
    for i, dollars in enumerate(wagers):
        step = mhb.contribute(meter, dollars * 100, f"t/{i % 7}", randbelow)
        log += step.events
        meter = step.meter
        assert meter.trigger is not None
        assert conf.minimum <= meter.trigger <= conf.maximum
        assert conf.minimum * 1000 <= meter.amount
        assert meter.amount_cents <= meter.trigger
        assert meter.balanced()
        for ev in step.events:
            if isinstance(ev, MysteryAwarded):
                assert ev.paid > ev.trigger
                assert step.paid == (ev.paid,)
    assert meter.paid == sum(ev.paid for ev in log if isinstance(ev, MysteryAwarded))
    replayed = MeterBank.replay({"m": spec}, [from_dict(to_dict(ev)) for ev in log])
    assert replayed.meter("m") == meter
