"""Must-Hit-By Mystery Bonus, 58 Pa. Code 633b.14.

A player who places a Blackjack wager and a qualifying progressive wager (633b.14(c)(1): the
Jackpot Party, Blazing 7's, Hit and Run or Straight Jack Progressive wager; this server offers
Blazing 7's) feeds a share of that wager to a mystery meter (c)(2). The meter pays when a
qualifying player's contribution takes its jackpot amount past a hidden trigger value drawn by
the certified RNG between a minimum and maximum dollar value (c)(3); that player wins 100% of
the meter (c)(7), the meter is reset to the minimum dollar value (c)(5)(iv) and a new trigger
is drawn. The twelve configurations of (c)(4) are :data:`CONFIGURATIONS`.

Randomness is passed in: :func:`draw_trigger`, :func:`open_meter` and :func:`contribute` take
a ``randbelow(n)`` callable, which the table layer binds to the certified DRBG
(:meth:`game_server.rng.RandomStream.randbelow`) and tests to a fake.

Entry points: :func:`configuration`, :func:`meter_spec`, :func:`open_meter`,
:func:`contribute`, :func:`qualifies`.

Rules chosen here:

- **Trigger** (c)(3) "a random dollar value ... between a set minimum and maximum dollar
  value": uniform over the whole cents from the minimum to the maximum, both included
  (``minimum + randbelow(maximum - minimum + 1)``).
- **Crossing** (c)(3) "when a qualifying player's contribution increases the ... meter's
  jackpot amount in excess of" the trigger: the jackpot amount is the payable amount, the
  meter floored to cents; the contribution that takes it strictly above the trigger wins.
  So the prize is always more than the trigger, and at least the minimum plus one cent.
- **Reset** (c)(5)(iv): after the award the meter is set to the minimum dollar value (the
  spec's seed and reseed), funded by its reserve, if any, then by the house; then a new
  trigger is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from game_server.rules.meters import (
    Meter,
    MeterActionError,
    MeterSpecError,
    MeterStep,
    MysteryAwarded,
    MysteryTriggerDrawn,
    apply,
)
from game_server.rules.wagers.base import MeterSpec
from shared.money import MILLICENTS_PER_CENT

SECTION: Final = "58 Pa. Code 633b.14"
METER_NAME: Final = "Must-Hit-By Mystery Bonus"

#: ``randbelow(n)``: a uniform integer in ``0 .. n - 1`` (the certified DRBG's RandomStream).
RandBelow = Callable[[int], int]


# --- (c)(1) qualifying wagers --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QualifyingWager:
    """A progressive wager that qualifies a player for the bonus (633b.14(a), (c)(1)).

    ``name`` is the wager's registry name; ``available`` is False for wagers this server does
    not offer yet (named so that the Rules Submission can list them later).
    """

    name: str
    title: str
    section: str
    available: bool


QUALIFYING_WAGERS: Final[Mapping[str, QualifyingWager]] = MappingProxyType(
    {
        w.name: w
        for w in (
            QualifyingWager("blazing_7s", "Blazing 7's Progressive", "58 Pa. Code 633b.9", True),
            QualifyingWager(
                "jackpot_party", "Jackpot Party Progressive", "58 Pa. Code 633b.2", False
            ),
            QualifyingWager(
                "hit_and_run", "Hit and Run Progressive", "58 Pa. Code 633a.6(e)(10)", False
            ),
            QualifyingWager(
                "straight_jack", "Straight Jack Progressive", "58 Pa. Code 633a.6(e)(11)", False
            ),
        )
    }
)


# --- (c)(4) configurations -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Configuration:
    """One configuration of 633b.14(c)(4), named as the regulation names it.

    Attributes:
        paytable: The heading, e.g. ``"Paytable A—$1 Configuration"``.
        name: The configuration, e.g. ``"Configuration A"``.
        minimum_wager: "Minimum Progressive Wager Amount" (cents).
        minimum: "Minimum Dollar Value" (cents): the reset amount and the lowest trigger.
        maximum: "Maximum Dollar Value" (cents): the highest trigger.
        increment_bp: "Incremental Contribution Rate" (basis points: 150 = 1.5%).
    """

    paytable: str
    name: str
    minimum_wager: int
    minimum: int
    maximum: int
    increment_bp: int


def _configurations() -> dict[str, Configuration]:
    # 633b.14(c)(4), in the regulation's order: letter -> ((wager $, min $, max $, rate bp), ...)
    rows = {
        "A": ((1, 100, 200, 200), (2, 100, 200, 150), (5, 100, 250, 100)),
        "B": ((1, 100, 500, 500), (2, 100, 500, 350), (5, 100, 500, 200)),
        "C": ((1, 250, 500, 200), (2, 250, 500, 150), (5, 250, 500, 50)),
        "D": ((1, 250, 1000, 500), (2, 250, 1000, 300), (5, 250, 1000, 200)),
    }
    out: dict[str, Configuration] = {}
    for letter, lines in rows.items():
        for wager, low, high, rate in lines:
            paytable = f"Paytable {letter}—${wager} Configuration"
            out[paytable] = Configuration(
                paytable, f"Configuration {letter}", wager * 100, low * 100, high * 100, rate
            )
    return out


#: The twelve configurations of 633b.14(c)(4), keyed by heading ("Paytable A—$1 Configuration").
CONFIGURATIONS: Final[Mapping[str, Configuration]] = MappingProxyType(_configurations())


def configuration(letter: str, minimum_wager: int) -> Configuration:
    """The configuration ``letter`` ("A".."D") for a ``minimum_wager`` of $1, $2 or $5 (cents).

    Raises:
        MeterSpecError: no such configuration in 633b.14(c)(4).
    """
    for conf in CONFIGURATIONS.values():
        if conf.name == f"Configuration {letter}" and conf.minimum_wager == minimum_wager:
            return conf
    raise MeterSpecError(
        f"633b.14(c)(4) has no Configuration {letter!r} for a {minimum_wager}-cent minimum "
        "progressive wager: choose A, B, C or D with a $1, $2 or $5 minimum"
    )


def meter_spec(conf: Configuration) -> MeterSpec:
    """The meter of a configuration: it opens and resets at the minimum dollar value
    ((c)(5)(iv)), rises by the incremental contribution rate and must hit by the maximum."""
    return MeterSpec(
        METER_NAME,
        seed=conf.minimum,
        reseed=conf.minimum,
        increment_bp=conf.increment_bp,
        must_hit_by=conf.maximum,
    )


def qualifies(conf: Configuration, wager: str, amount: int, main: int) -> bool:
    """633b.14(c)(1): a Blackjack wager (``main`` cents) and a qualifying progressive wager
    ``wager`` of at least the configuration's minimum progressive wager amount."""
    qualifying = QUALIFYING_WAGERS.get(wager)
    return (
        qualifying is not None
        and qualifying.available
        and main > 0
        and amount >= conf.minimum_wager
    )


# --- (c)(3) the trigger and the meter ------------------------------------------------------


def draw_trigger(minimum: int, maximum: int, randbelow: RandBelow) -> int:
    """A trigger value uniform over the whole cents ``minimum .. maximum``, both included
    (633b.14(c)(3) "a random dollar value pre-selected by an electronic random number
    generator, between a set minimum and maximum dollar value").

    Raises:
        MeterSpecError: ``maximum`` is below ``minimum``.
        MeterActionError: ``randbelow`` returned a value outside ``0 .. n - 1``.
    """
    if maximum < minimum:
        raise MeterSpecError(
            f"trigger range {minimum}..{maximum} cents is empty: the maximum dollar value must "
            "be at least the minimum (633b.14(c)(4))"
        )
    span = maximum - minimum + 1
    offset = randbelow(span)
    if not 0 <= offset < span:
        raise MeterActionError(f"randbelow({span}) returned {offset}, outside 0..{span - 1}")
    return minimum + offset


def _draw(meter: Meter, randbelow: RandBelow) -> MeterStep:
    maximum = meter.spec.must_hit_by
    if maximum is None:
        raise MeterActionError(f"meter {meter.id!r} is not a Must-Hit-By mystery meter")
    minimum = meter.spec.reseed
    ev = MysteryTriggerDrawn(meter.id, minimum, maximum, draw_trigger(minimum, maximum, randbelow))
    return MeterStep(apply(meter, ev), (ev,))


def open_meter(meter_id: str, spec: MeterSpec, randbelow: RandBelow) -> MeterStep:
    """Open a mystery meter at its minimum and draw its first trigger. Commit the step to the
    :class:`~game_server.rules.meters.MeterBank` (``bank.commit(step)``)."""
    if spec.must_hit_by is None:
        raise MeterSpecError(f"{spec.name}: a mystery meter needs a Must-Hit-By maximum")
    opened = Meter.open(meter_id, spec)
    drawn = _draw(opened.meter, randbelow)
    return MeterStep(drawn.meter, opened.events + drawn.events)


def contribute(meter: Meter, wager: int, place: str, randbelow: RandBelow) -> MeterStep:
    """Feed the mystery meter from the qualifying wager of ``wager`` cents at ``place``.

    If this contribution takes the jackpot amount (the meter floored to cents) above the
    trigger (633b.14(c)(3)), the player at ``place`` wins 100% of it ((c)(7)), the meter
    resets to the minimum dollar value ((c)(5)(iv)) and a new trigger is drawn. ``step.paid``
    is then ``(cents,)``, otherwise empty. ``randbelow`` is called only on a hit.

    Raises:
        MeterActionError: not a mystery meter, no trigger drawn, or a bad wager.
    """
    if meter.trigger is None:
        raise MeterActionError(
            f"meter {meter.id!r} has no trigger drawn: open it with must_hit_by.open_meter"
        )
    trigger = meter.trigger
    fed = meter.contribution(wager, place)
    after = apply(meter, fed)
    if after.amount_cents <= trigger:
        return MeterStep(after, (fed,))
    paid = after.amount_cents
    won = MysteryAwarded(meter.id, place, trigger, paid, after.amount - paid * MILLICENTS_PER_CENT)
    reset = apply(after, won).top_up()
    drawn = _draw(reset.meter, randbelow)
    return MeterStep(drawn.meter, (fed, won, *reset.events, *drawn.events), (paid,))
