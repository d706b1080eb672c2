"""Progressive meters (game_server.rules.meters): exact millicent arithmetic, floored payouts,
equal splits, reseed funding, linked tables, replay, and money conservation (Hypothesis)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.rules.events import from_dict, to_dict
from game_server.rules.meters import (
    Meter,
    MeterActionError,
    MeterAwarded,
    MeterBank,
    MeterContributed,
    MeterEvent,
    MeterLinkMismatch,
    MeterOpened,
    MeterReplayError,
    MeterReseeded,
    MeterSpecError,
    MeterStep,
    UnknownMeter,
    apply,
    fold,
)
from game_server.rules.wagers.base import MeterSpec
from shared.codec import canonical_json

# 633b.6(i) Paytable 1—Option 3: Star Progressive, seed and reseed $10,000, 7.5%.
STAR = MeterSpec("Star Progressive", seed=1_000_000, reseed=1_000_000, increment_bp=750)
# 633b.10(i) Paytable A: seed $10,000, increment 13%, secondary seed 2.5%.
MATCH = MeterSpec(
    "Blackjack Match Progressive",
    seed=1_000_000,
    reseed=1_000_000,
    increment_bp=1300,
    secondary_bp=250,
)
# 633b.9(g): a $1 Blazing 7's wager resets to at least $2,000; the rate is the operator's.
BLAZING = MeterSpec("Blazing 7's Progressive", seed=200_000, reseed=200_000, increment_bp=1500)


def opened(spec: MeterSpec, meter_id: str = "m") -> Meter:
    return Meter.open(meter_id, spec).meter


def at(meter: Meter, amount: int, reserve: int = 0) -> Meter:
    """``meter`` moved to ``amount`` millicents by contributions (keeps the books balanced)."""
    extra = amount - meter.amount
    return replace(
        meter,
        amount=amount,
        reserve=meter.reserve + reserve,
        contributed=meter.contributed + extra,
        reserved=meter.reserved + reserve,
    )


# --- contributions -------------------------------------------------------------------------


def test_a_five_dollar_wager_at_7_5_percent_adds_37_5_cents() -> None:
    """633b.6(i) Option 3: a $5 wager at 7.5% adds 37.5 cents = 37,500 millicents exactly."""
    step = opened(STAR).contribute(500, "bj-1/3")
    (ev,) = step.events
    assert ev == MeterContributed("m", "bj-1/3", 500, 37_500, 0, 462_500, 1_000_037_500, 0)
    assert step.meter.amount == 1_000_037_500
    assert step.meter.amount_cents == 1_000_037
    assert step.meter.wagered == 500
    assert step.paid == ()


def test_secondary_seed_goes_to_the_reserve() -> None:
    """633b.10(i) Paytable A: 13% of a $1 wager to the meter, 2.5% to the secondary seed."""
    step = opened(MATCH).contribute(100, "p")
    (ev,) = step.events
    assert isinstance(ev, MeterContributed)
    assert (ev.increment, ev.secondary, ev.kept) == (13_000, 2_500, 84_500)
    assert step.meter.reserve == 2_500


def test_a_fraction_of_a_millicent_is_floored_and_kept_by_the_house() -> None:
    """1 cent at 7.5% is exactly 75 millicents; 7 cents at 3.25% is 227.5 millicents, floored
    to 227, and the half millicent stays in the house's kept share: the parts add up to the
    whole wager."""
    (ev,) = opened(STAR).contribute(1, "p").events
    assert isinstance(ev, MeterContributed)
    assert (ev.increment, ev.kept) == (75, 925)
    spec = MeterSpec("x", 0, 0, increment_bp=1300, secondary_bp=325)
    (ev,) = opened(spec).contribute(7, "p").events
    assert isinstance(ev, MeterContributed)
    assert (ev.increment, ev.secondary, ev.kept) == (910, 227, 5_863)
    assert ev.increment + ev.secondary + ev.kept == 7_000


@pytest.mark.parametrize("wager", [0, -100, True])
def test_a_contribution_needs_a_wager(wager: int) -> None:
    """A meter refuses a contribution without a positive whole-cent wager."""
    with pytest.raises(MeterActionError, match="at least 1 cent"):
        opened(STAR).contribute(wager, "p")


# --- awards --------------------------------------------------------------------------------


def test_a_100_percent_payout_floors_to_cents_and_the_meter_resets() -> None:
    """docs/design.md "Money": 100% of $10,000.375 pays $10,000.37; the 0.5 cent remainder stays and
    counts toward the reseed, the house funds the rest (633b.9(g) reset amount)."""
    meter = at(opened(STAR), 1_000_037_500)
    step = meter.award(100, "bj-1/3")
    assert step.paid == (1_000_037,)
    awarded, reseeded = step.events
    assert awarded == MeterAwarded("m", 100, ("bj-1/3",), 1_000_037, 500)
    assert reseeded == MeterReseeded("m", 0, 999_999_500, 1_000_000_000, 0)
    assert step.meter.amount == 1_000_000_000
    assert step.meter.paid == 1_000_037
    assert step.meter.hits == 1
    assert step.meter.balanced()


def test_a_ten_percent_payout_floors_to_cents_and_the_rest_stays() -> None:
    """633b.10(i) "10% of meter": 10% of $12,345.67891 is $1,234.567891 -> $1,234.56; the meter
    keeps $11,111.11891 (above its reseed, so no top-up)."""
    meter = at(opened(MATCH), 1_234_567_891)
    step = meter.award(10, "p")
    assert step.paid == (123_456,)
    assert step.events == (MeterAwarded("m", 10, ("p",), 123_456, 1_111_111_891),)
    assert step.meter.amount == 1_234_567_891 - 123_456_000


def test_a_partial_award_that_would_leave_the_meter_below_its_reseed_is_topped_up() -> None:
    """A meter never stands below its reseed: 10% of $10,050 pays the full $1,005 the paytable
    promises; the meter ($9,045) is brought back to $10,000: $500 from the reserve, $455 from
    the house."""
    meter = at(opened(MATCH), 1_005_000_000, reserve=50_000_000)
    step = meter.award(10, "p")
    assert step.paid == (100_500,)
    _, reseeded = step.events
    assert reseeded == MeterReseeded("m", 50_000_000, 45_500_000, 1_000_000_000, 0)
    assert step.meter.amount == 1_000_000_000
    assert step.meter.house_funded == 1_000_000_000 + 45_500_000
    assert step.meter.balanced()


def test_the_reserve_funds_the_reseed_first_and_keeps_what_is_left() -> None:
    """633b.10(i) "Secondary Seed": a reserve larger than the reseed pays all of it; what is
    left stays in the reserve for the next jackpot, and the house pays nothing."""
    meter = at(opened(MATCH), 1_500_000_000, reserve=1_200_000_000)
    step = meter.award(100, "p")
    _, reseeded = step.events
    assert reseeded == MeterReseeded("m", 1_000_000_000, 0, 1_000_000_000, 200_000_000)
    assert step.meter.house_funded == 1_000_000_000  # only the opening seed


def test_a_shared_jackpot_splits_equally_and_the_leftover_cents_stay() -> None:
    """633b.9(e)(3), 633b.10(j): three winners of 100% of $10,000.00 get $3,333.33 each; the
    leftover cent stays in the meter and counts toward the reseed."""
    meter = at(opened(STAR), 1_000_000_000)
    step = meter.award_shared(100, ("t/1", "t/2", "t/3"))
    assert step.paid == (333_333, 333_333, 333_333)
    awarded, reseeded = step.events
    assert awarded == MeterAwarded("m", 100, ("t/1", "t/2", "t/3"), 333_333, 1_000)
    assert isinstance(reseeded, MeterReseeded)
    assert reseeded.from_house == 1_000_000_000 - 1_000
    assert step.meter.hits == 1


@pytest.mark.parametrize("winners", [1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("percent", [10, 100])
@pytest.mark.parametrize("amount", [1_000_000_000, 1_000_037_501, 1_234_567_891, 2_000_000_999])
def test_a_split_conserves_every_millicent(winners: int, percent: int, amount: int) -> None:
    """Every millicent of the meter is either paid (equal shares) or still in the meter, and
    the leftover is less than one cent per winner."""
    meter = at(opened(STAR), amount)
    places = tuple(f"t/{i}" for i in range(1, winners + 1))
    (awarded, *_) = meter.award_shared(percent, places).events
    assert isinstance(awarded, MeterAwarded)
    jackpot = amount * percent // 100
    assert awarded.share * winners * 1000 + awarded.amount == amount
    assert 0 <= jackpot - awarded.share * winners * 1000 < winners * 1000


@pytest.mark.parametrize(
    ("percent", "places", "match"),
    [
        (0, ("p",), "1..100"),
        (101, ("p",), "1..100"),
        (100, (), "at least one winner"),
        (100, ("p", "p"), "twice"),
    ],
)
def test_an_award_refuses_bad_shares_and_winners(
    percent: int, places: tuple[str, ...], match: str
) -> None:
    """A share outside 1..100%, no winner, or a winner named twice is refused."""
    meter = opened(STAR)
    assert not meter.can_award(percent, places)
    with pytest.raises(MeterActionError, match=match):
        meter.award_shared(percent, places)


@pytest.mark.parametrize(
    "spec",
    [
        MeterSpec("x", seed=100, reseed=200, increment_bp=100),
        MeterSpec("x", seed=100, reseed=-1, increment_bp=100),
        MeterSpec("x", seed=100, reseed=100, increment_bp=9_000, secondary_bp=1_001),
        MeterSpec("x", seed=100, reseed=100, increment_bp=-1),
        MeterSpec("x", seed=500, reseed=500, increment_bp=100, must_hit_by=499),
    ],
)
def test_a_meter_that_cannot_work_is_refused(spec: MeterSpec) -> None:
    """A seed below the reseed, rates below 0 or over 100%, or a must-hit-by below the
    minimum are refused when the meter opens."""
    with pytest.raises(MeterSpecError):
        Meter.open("m", spec)


# --- the bank: linked tables, replay, events -----------------------------------------------


def test_two_tables_link_to_one_meter() -> None:
    """605a.8: two tables naming "floor:blazing7s" feed and win the same meter; the second
    link adds no event."""
    bank = MeterBank()
    first = bank.link("floor:blazing7s", BLAZING)
    second = bank.link("floor:blazing7s", BLAZING)
    assert len(first.events) == 1
    assert second.events == ()
    bank.contribute("floor:blazing7s", 100, "bj-1/2")
    bank.contribute("floor:blazing7s", 500, "bj-2/5")
    meter = bank.meter("floor:blazing7s")
    assert meter.amount == 200_000_000 + 15_000 + 75_000
    assert meter.wagered == 600
    step = bank.award("floor:blazing7s", 100, "bj-2/5")
    assert step.paid == (200_090,)
    assert bank.meter("floor:blazing7s").amount == 200_000_000


def test_a_table_cannot_link_with_a_different_specification() -> None:
    """An id open with one specification refuses a link with another."""
    bank = MeterBank()
    bank.link("floor:blazing7s", BLAZING)
    with pytest.raises(MeterLinkMismatch, match="floor:blazing7s"):
        bank.link("floor:blazing7s", replace(BLAZING, increment_bp=1000))


def test_an_unknown_meter_is_refused_with_the_open_ids() -> None:
    """A meter id nobody opened is refused, and the message lists the open ids."""
    bank = MeterBank()
    bank.link("floor:star", STAR)
    with pytest.raises(UnknownMeter, match="floor:star"):
        bank.contribute("floor:stra", 100, "p")


def test_a_step_planned_on_a_stale_meter_is_refused() -> None:
    """Two tables planning on the same meter value: the second commit is refused, so a
    contribution is never lost and a hit has one winner."""
    bank = MeterBank()
    bank.link("m", STAR)
    stale = bank.meter("m")
    bank.commit(stale.contribute(100, "t1/1"))
    with pytest.raises(MeterReplayError, match="stale"):
        bank.commit(stale.contribute(100, "t2/1"))


def _history() -> tuple[MeterBank, list[MeterEvent]]:
    bank = MeterBank()
    events: list[MeterEvent] = []
    events += bank.link("a", STAR).events
    events += bank.link("b", MATCH).events
    for i in range(1, 8):
        events += bank.contribute("a", 500 * i, f"t/{i}").events
        events += bank.contribute("b", 100 * i, f"t/{i}").events
    events += bank.award("b", 10, "t/3").events
    events += bank.award_shared("a", 100, ("t/1", "t/2")).events
    return bank, events


def test_replaying_the_events_rebuilds_the_bank() -> None:
    """Recall: folding the logged events, through their JSON form, gives the live meters."""
    bank, events = _history()
    decoded = [from_dict(to_dict(ev)) for ev in events]
    assert decoded == events
    replayed = MeterBank.replay({"a": STAR, "b": MATCH}, decoded)
    assert replayed.snapshot() == bank.snapshot()
    assert replayed.meter("a") == bank.meter("a")


def test_replay_refuses_a_tampered_event() -> None:
    """An event whose claimed amount the fold does not reach is refused."""
    _, events = _history()
    i, fed = next((i, ev) for i, ev in enumerate(events) if isinstance(ev, MeterContributed))
    assert isinstance(fed, MeterContributed)
    bad = list(events)
    bad[i] = fed._replace(increment=fed.increment + 1)
    with pytest.raises(MeterReplayError):
        MeterBank.replay({"a": STAR, "b": MATCH}, bad)


def test_replay_refuses_an_event_for_an_unknown_meter_or_a_changed_spec() -> None:
    """Replay needs each meter's specification, and it must be the one the meter opened with."""
    _, events = _history()
    with pytest.raises(UnknownMeter):
        MeterBank.replay({"a": STAR}, events)
    with pytest.raises(MeterReplayError, match="opened as"):
        MeterBank.replay({"a": replace(STAR, increment_bp=600), "b": MATCH}, events)


def test_an_event_applies_only_to_its_meter_and_after_opening() -> None:
    """apply refuses another meter's event and any event before MeterOpened."""
    meter = opened(STAR, "a")
    ev = meter.contribute(100, "p").events[0]
    with pytest.raises(MeterReplayError, match="applied to meter"):
        apply(opened(STAR, "b"), ev)
    with pytest.raises(MeterReplayError, match="before it was opened"):
        apply(Meter("a", STAR), ev)
    with pytest.raises(MeterReplayError, match="opened twice"):
        apply(meter, MeterOpened("a", STAR.name, 1_000_000, 1_000_000, 750, 0, None, 10**9))


def test_the_snapshot_is_canonical_json_and_shows_no_trigger() -> None:
    """ReadMeters: the bank's snapshot encodes as canonical JSON (integers only)."""
    bank, _ = _history()
    snap = bank.snapshot()
    canonical_json(snap)
    assert set(snap) == {"a", "b"}
    assert snap["a"]["amount"] == bank.meter("a").amount_cents
    assert all("trigger" not in figures for figures in snap.values())


# --- Hypothesis: the books balance and no meter stands below its reseed --------------------

SPECS = {
    "star": STAR,
    "match": MATCH,
    "small": MeterSpec("small", seed=1_500, reseed=1_000, increment_bp=1333, secondary_bp=777),
    "zero": MeterSpec("zero", seed=0, reseed=0, increment_bp=1, secondary_bp=9_999),
}
PLACES = tuple(f"bj-{t}/{s}" for t in (1, 2) for s in range(1, 8))

contribution = st.tuples(
    st.just("contribute"),
    st.sampled_from(sorted(SPECS)),
    st.integers(1, 1_000_000),
    st.sampled_from(PLACES),
)
award = st.tuples(
    st.just("award"),
    st.sampled_from(sorted(SPECS)),
    st.one_of(st.sampled_from([10, 100]), st.integers(1, 100)),
    st.lists(st.sampled_from(PLACES), min_size=1, max_size=4, unique=True),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(contribution, contribution, award), max_size=60))
def test_money_is_conserved_and_no_meter_falls_below_its_reseed(
    ops: list[tuple[str, str, int, object]],
) -> None:
    """Over any sequence of contributions and awards on linked meters: every millicent of
    every wager is in a meter, a reserve, paid out or kept by the house; wagers plus house
    funding equal meters plus reserves plus payouts plus the house's kept share; no meter is
    ever below its reseed; and replaying the events rebuilds the same meters."""
    bank = MeterBank()
    log: list[MeterEvent] = []
    for meter_id, spec in SPECS.items():
        log += bank.link(meter_id, spec).events
    wagers = kept = paid_cents = 0
    for op in ops:
        kind, meter_id, number, arg = op
        step: MeterStep
        if kind == "contribute":
            assert isinstance(arg, str)
            step = bank.contribute(meter_id, number, arg)
            wagers += number
        else:
            assert isinstance(arg, list)
            step = bank.award_shared(meter_id, number, arg)
            paid_cents += sum(step.paid)
            assert len(set(step.paid)) == 1
        log += step.events
        kept += sum(ev.kept for ev in step.events if isinstance(ev, MeterContributed))
        for meter in (bank.meter(i) for i in SPECS):
            assert meter.amount >= meter.reseed_millicents
            assert meter.balanced()
    meters = [bank.meter(i) for i in SPECS]
    house_funded = sum(m.house_funded for m in meters)
    assert paid_cents == sum(m.paid for m in meters)
    assert wagers == sum(m.wagered for m in meters)
    assert wagers * 1000 + house_funded == (
        kept + sum(m.amount + m.reserve for m in meters) + paid_cents * 1000
    )
    assert MeterBank.replay(SPECS, log).snapshot() == bank.snapshot()
    assert fold(Meter("star", STAR), (ev for ev in log if ev.meter == "star")) == bank.meter("star")
