"""Progressive meters: integer millicents, seed and reseed, increment and secondary rates.

A :class:`Meter` is an immutable value. Every operation plans the event records that describe
the change and folds them through :func:`apply`, so the live table and recall reach the same
meter from the same events; each returns a :class:`MeterStep` (new meter, events, cents paid).
A :class:`MeterBank` holds the meters of one server keyed by a configured id (e.g.
``"floor:blazing7s"``), so several tables can link to one meter; it is the only mutable object
here, and every change to it goes through :meth:`MeterBank.commit`.

Entry points: :meth:`Meter.open`, :meth:`Meter.contribute`, :meth:`Meter.award`,
:meth:`Meter.award_shared`, :func:`apply`, :class:`MeterBank`. Mystery (Must-Hit-By) meters
are driven by :mod:`game_server.rules.wagers.must_hit_by`.

Units (docs/design.md "Money"): the meter and its reserve count in integer millicents (1 cent =
1000 millicents); wagers and payouts are integer cents; rates are basis points.

Rules chosen here:

- **Contribution** (633b.9(g) "rate of progression", 633b.10(i) "Increment Rate" and
  "Secondary Seed", 633b.14(c)(2)): a wager of ``w`` cents adds ``w * bp / 10`` millicents,
  floored to a whole millicent. The fraction is nonzero only when ``w * bp`` is not a multiple
  of 10 (never for wagers in whole dimes, so never for the table's $1 wager unit); it is at
  most 0.9 millicent per pool per wager and stays with the house as part of the share of the
  wager that is not contributed (:attr:`MeterContributed.kept`), so every millicent of every
  wager is accounted for.
- **Payout** (docs/design.md "Money"; 633b.9(f), 633b.10(i) "100% of meter", "10% of meter"): a
  share of ``p`` percent pays ``floor(amount * p / 100)`` floored to whole cents; the
  remainder stays in the meter. Several winners of the same jackpot in the same round
  (633b.9(e)(3), 633b.10(j)) share it equally: each gets the jackpot divided by the number of
  winners, floored to cents, and the leftover cents stay in the meter.
- **Reseed** (633b.9(g) "initial and reset amounts", 633b.14(c)(5)(iv)): a meter never stays
  below its reseed amount. After any award that leaves it below the reseed (always after a
  100% award, after a partial award only when the meter was close to the reseed) it is
  topped up to exactly the reseed, first from its reserve (633b.10(i) "Secondary Seed"), then
  by the house (:attr:`Meter.house_funded`). A partial award is never cut short to protect
  the meter: the paytable promises the player p% of the meter shown.
- **Reserve** (:class:`~game_server.rules.wagers.base.ReserveUse`, the Rules Submission's):
  by default it funds the reseeds and keeps what it holds beyond; when it is the players'
  it holds at most one reseed amount and the rest of each secondary contribution goes to the
  meter (:meth:`Meter.contribution`), so every contribution is paid out in the end.
- **Conservation**: for every meter, ``contributed + reserved + house_funded == amount +
  reserve + 1000 * paid`` (all in millicents), checked by :meth:`Meter.balanced`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, NamedTuple

from game_server.rules.errors import ReplayMismatch, RulesError
from game_server.rules.events import event
from game_server.rules.wagers.base import MeterSpec, ReserveUse
from shared.money import MILLICENTS_PER_CENT

#: Basis points in 100%.
FULL_BP: Final = 10_000
#: Millicents per basis point of one cent, as a divisor: ``w * bp // BP_DIVISOR`` millicents.
BP_DIVISOR: Final = FULL_BP // MILLICENTS_PER_CENT


class MeterError(RulesError):
    """Base of every refusal of a progressive meter."""


class MeterSpecError(MeterError):
    """A meter specification that cannot work (negative amounts, rates over 100%, ...)."""


class UnknownMeter(MeterError):
    """A meter id the bank does not hold."""


class MeterLinkMismatch(MeterError):
    """A table links to a meter id that is already open with a different specification."""


class MeterActionError(MeterError):
    """A contribution or award the meter cannot take (no wager, share outside 1..100%, ...)."""


class MeterReplayError(MeterError, ReplayMismatch):
    """Meter events that do not fold to the state they claim (a corrupt or reordered log)."""


# --- Event records -----------------------------------------------------------------------


@event("meter_opened")
class MeterOpened(NamedTuple):
    """A meter was opened at its seed amount, funded by the house.

    ``seed`` and ``reseed`` and ``must_hit_by`` are cents, the rates basis points (the
    :class:`~game_server.rules.wagers.base.MeterSpec`); ``amount`` is the meter after opening,
    in millicents.
    """

    meter: str
    name: str
    seed: int
    reseed: int
    increment_bp: int
    secondary_bp: int
    must_hit_by: int | None
    amount: int


@event("meter_contributed")
class MeterContributed(NamedTuple):
    """A wager fed a meter (633b.9(g), 633b.10(i), 633b.14(c)(2)).

    ``place`` is the table layer's name of the betting position (e.g. ``"bj-1/3"``), so a
    linked meter knows which table and seat fed it. ``wager`` is cents; ``increment`` (to the
    meter), ``secondary`` (to the reserve) and ``kept`` (the rest of the wager, the house's) are
    millicents and add up to ``1000 * wager``. ``amount`` and ``reserve`` are the meter and
    the reserve after the contribution, in millicents.
    """

    meter: str
    place: str
    wager: int
    increment: int
    secondary: int
    kept: int
    amount: int
    reserve: int


@event("meter_awarded")
class MeterAwarded(NamedTuple):
    """A percentage of the meter was paid to one winner, or split equally among the winners of
    the same jackpot in the same round (633b.9(e)(3), 633b.10(j)).

    ``share`` is the cents each place in ``places`` receives; ``amount`` is the meter after
    the payout (before any reseed), in millicents.
    """

    meter: str
    percent: int
    places: tuple[str, ...]
    share: int
    amount: int


@event("meter_reseeded")
class MeterReseeded(NamedTuple):
    """The meter was brought up to its reseed amount after an award, from the reserve first and
    then from the house (millicents). ``amount`` and ``reserve`` are the values afterwards."""

    meter: str
    from_reserve: int
    from_house: int
    amount: int
    reserve: int


@event("mystery_trigger_drawn")
class MysteryTriggerDrawn(NamedTuple):
    """A Must-Hit-By meter's hidden trigger value was drawn by the certified RNG between the
    minimum and maximum dollar values, inclusive (633b.14(c)(3)). All in cents.

    Secret: logged for the operator and investigators, never sent to a terminal.
    """

    meter: str
    minimum: int
    maximum: int
    trigger: int


@event("mystery_awarded")
class MysteryAwarded(NamedTuple):
    """The player at ``place`` took a Must-Hit-By meter past its trigger and won 100% of the
    meter (633b.14(c)(3), (7)): ``paid`` cents; ``amount`` is the meter afterwards (the
    sub-cent remainder, before the reset), in millicents."""

    meter: str
    place: str
    trigger: int
    paid: int
    amount: int


@event("linked_meter_contributed")
class LinkedMeterContributed(NamedTuple):
    """A wager fed a meter linked across the floor's servers (605a.8), held by the floor
    store: the store's arithmetic (that of :meth:`Meter.contribution`) and its meter's
    sequence number ``store_seq`` after the change. ``step`` is the change's key within the
    table's round (a retry with the same key is the same change). Millicents as
    :class:`MeterContributed`; ``amount`` and ``reserve`` are the floor meter's after it."""

    meter: str
    place: str
    wager: int
    increment: int
    secondary: int
    kept: int
    amount: int
    reserve: int
    store_seq: int
    step: str


@event("linked_meter_awarded")
class LinkedMeterAwarded(NamedTuple):
    """A floor-linked meter paid ``share`` cents to each of this table's ``places``: the
    store split ``percent`` of the meter equally among the ``winners`` places of every
    table on the floor that won it at nearly the same time (award ``award``; 633b.9(e)(3),
    633b.10(j)). ``amount`` is the floor meter after the payout (before its reseed), in
    millicents, ``store_seq`` the store's sequence number of the award."""

    meter: str
    percent: int
    award: int
    places: tuple[str, ...]
    share: int
    winners: int
    amount: int
    store_seq: int
    step: str


MeterEvent = (
    MeterOpened
    | MeterContributed
    | MeterAwarded
    | MeterReseeded
    | MysteryTriggerDrawn
    | MysteryAwarded
)
METER_EVENTS: Final = (
    MeterOpened,
    MeterContributed,
    MeterAwarded,
    MeterReseeded,
    MysteryTriggerDrawn,
    MysteryAwarded,
)


# --- The meter ---------------------------------------------------------------------------


def verify_spec(spec: MeterSpec) -> None:
    """Raise :class:`MeterSpecError` unless ``spec`` describes a meter that can work."""
    if spec.reseed < 0 or spec.seed < spec.reseed:
        raise MeterSpecError(
            f"{spec.name}: seed {spec.seed} and reseed {spec.reseed} cents must satisfy "
            "seed >= reseed >= 0 (a meter never stands below its reseed amount)"
        )
    if spec.increment_bp < 0 or spec.secondary_bp < 0:
        raise MeterSpecError(f"{spec.name}: rates must not be negative")
    if spec.increment_bp + spec.secondary_bp > FULL_BP:
        raise MeterSpecError(
            f"{spec.name}: increment {spec.increment_bp} bp plus secondary "
            f"{spec.secondary_bp} bp exceed 100% of the wager"
        )
    if spec.must_hit_by is not None and spec.must_hit_by < spec.reseed:
        raise MeterSpecError(
            f"{spec.name}: the Random Must Hit By amount {spec.must_hit_by} cents is below the "
            f"reseed (minimum) {spec.reseed} cents (633b.6(j), 633b.14(c)(4))"
        )


class MeterStep(NamedTuple):
    """What a meter operation produced: the new meter, its events in order, and the cents paid
    to each winner (in the order the winners were given; empty when nothing was paid)."""

    meter: Meter
    events: tuple[MeterEvent, ...]
    paid: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Meter:
    """One progressive meter's state. Money in millicents unless the field says cents.

    Attributes:
        id: The configured id that tables link by (``"floor:blazing7s"``).
        spec: Seed, reseed (cents), rates (basis points), Must-Hit-By maximum.
        amount: The jackpot amount (millicents); the display shows it floored to cents.
        reserve: The secondary pool that funds the next reseed (millicents).
        wagered: Cumulative wagers that fed the meter (cents): "coin in".
        contributed: Cumulative contributions to the amount (millicents).
        reserved: Cumulative contributions to the reserve (millicents).
        house_funded: Cumulative seed and reseed funding from the house (millicents).
        paid: Cumulative payouts (cents): "cumulative progressive payout" (605a.7(a)(4)).
        hits: The number of awards paid (each split jackpot counts once).
        trigger: A mystery meter's current hidden trigger (cents), None when not drawn.
        opened: False only for the blank meter before :class:`MeterOpened`.
    """

    id: str
    spec: MeterSpec
    amount: int = 0
    reserve: int = 0
    wagered: int = 0
    contributed: int = 0
    reserved: int = 0
    house_funded: int = 0
    paid: int = 0
    hits: int = 0
    trigger: int | None = None
    opened: bool = False

    # -- reading --

    @property
    def amount_cents(self) -> int:
        """The amount shown on the meter and payable: millicents floored to cents."""
        return self.amount // MILLICENTS_PER_CENT

    @property
    def reseed_millicents(self) -> int:
        return self.spec.reseed * MILLICENTS_PER_CENT

    @property
    def mystery(self) -> bool:
        """A Must-Hit-By mystery meter (633b.6(j), 633b.14)."""
        return self.spec.must_hit_by is not None

    def balanced(self) -> bool:
        """Every millicent that came in (contributions and house funding) is in the meter,
        in the reserve, or was paid out."""
        into = self.contributed + self.reserved + self.house_funded
        return into == self.amount + self.reserve + self.paid * MILLICENTS_PER_CENT

    def snapshot(self) -> dict[str, Any]:
        """The JSON-ready figures for the operator (``ReadMeters``). Never the mystery trigger."""
        spec = self.spec
        return {
            "name": spec.name,
            "seed": spec.seed,
            "reseed": spec.reseed,
            "increment_bp": spec.increment_bp,
            "secondary_bp": spec.secondary_bp,
            "must_hit_by": spec.must_hit_by,
            "amount": self.amount_cents,
            "amount_millicents": self.amount,
            "reserve_millicents": self.reserve,
            "wagered": self.wagered,
            "contributed_millicents": self.contributed,
            "reserved_millicents": self.reserved,
            "house_funded_millicents": self.house_funded,
            "paid": self.paid,
            "hits": self.hits,
        }

    # -- open --

    @classmethod
    def open(cls, meter_id: str, spec: MeterSpec) -> MeterStep:
        """A new meter at its seed amount, funded by the house.

        A mystery meter still needs its first trigger
        (:func:`game_server.rules.wagers.must_hit_by.open_meter` does both).

        Raises:
            MeterSpecError: the specification cannot work.
        """
        verify_spec(spec)
        seed = spec.seed * MILLICENTS_PER_CENT
        ev = MeterOpened(
            meter_id,
            spec.name,
            spec.seed,
            spec.reseed,
            spec.increment_bp,
            spec.secondary_bp,
            spec.must_hit_by,
            seed,
        )
        return MeterStep(apply(cls(meter_id, spec), ev), (ev,))

    # -- contribute --

    def verify_contribute(self, wager: int) -> None:
        """Raise :class:`MeterActionError` unless a wager of ``wager`` cents can feed it."""
        if not self.opened:
            raise MeterActionError(f"meter {self.id!r} is not open")
        if isinstance(wager, bool) or not isinstance(wager, int) or wager <= 0:
            raise MeterActionError(
                f"meter {self.id!r}: a contribution needs a wager of at least 1 cent, got {wager!r}"
            )

    def contribution(self, wager: int, place: str) -> MeterContributed:
        """Plan the contribution of a wager of ``wager`` cents (pure; no mystery check).

        633b.9(g), 633b.10(i), 633b.14(c)(2): ``increment_bp`` of the wager to the meter and
        ``secondary_bp`` to the reserve, each floored to a whole millicent; the rest is kept.
        A reserve that is the players' (:attr:`ReserveUse.PLAYERS`) takes no more than
        brings it to the reset amount; the rest of its share goes to the meter.
        """
        self.verify_contribute(wager)
        spec = self.spec
        increment = wager * spec.increment_bp // BP_DIVISOR
        secondary = wager * spec.secondary_bp // BP_DIVISOR
        kept = wager * MILLICENTS_PER_CENT - increment - secondary
        if spec.reserve is ReserveUse.PLAYERS:
            # The players' reserve holds at most one reset amount; beyond, to the meter.
            room = max(0, self.reseed_millicents - self.reserve)
            if secondary > room:
                increment += secondary - room
                secondary = room
        return MeterContributed(
            self.id,
            place,
            wager,
            increment,
            secondary,
            kept,
            self.amount + increment,
            self.reserve + secondary,
        )

    def contribute(self, wager: int, place: str) -> MeterStep:
        """Feed the meter from a wager of ``wager`` cents placed at ``place``.

        Raises:
            MeterActionError: not open, no wager, or a mystery meter (those must check their
                trigger: use :func:`game_server.rules.wagers.must_hit_by.contribute`).
        """
        if self.mystery:
            raise MeterActionError(
                f"meter {self.id!r} is a Must-Hit-By mystery meter: contribute through "
                "must_hit_by.contribute so that the crossing contribution wins (633b.14(c)(3))"
            )
        ev = self.contribution(wager, place)
        return MeterStep(apply(self, ev), (ev,))

    # -- award --

    def verify_award(self, percent: int, places: Sequence[str]) -> None:
        """Raise :class:`MeterActionError` unless ``percent`` of the meter can be paid to
        ``places``."""
        if not self.opened:
            raise MeterActionError(f"meter {self.id!r} is not open")
        if isinstance(percent, bool) or not isinstance(percent, int) or not 0 < percent <= 100:
            raise MeterActionError(
                f"meter {self.id!r}: a share of the meter must be 1..100 percent, got {percent!r}"
            )
        if not places:
            raise MeterActionError(f"meter {self.id!r}: an award needs at least one winner")
        if len(set(places)) != len(places):
            raise MeterActionError(
                f"meter {self.id!r}: winners {list(places)} name a place twice; each winning "
                "wager shares once (633b.10(j))"
            )

    def can_award(self, percent: int, places: Sequence[str]) -> bool:
        try:
            self.verify_award(percent, places)
        except MeterActionError:
            return False
        return True

    def award(self, percent: int, place: str) -> MeterStep:
        """Pay ``percent`` of the meter to one winner, floored to cents; the remainder stays.
        Tops the meter up to its reseed if the award left it below (module docstring).

        ``step.paid[0]`` is the cents paid.
        """
        return self.award_shared(percent, (place,))

    def award_shared(self, percent: int, places: Sequence[str]) -> MeterStep:
        """Split ``percent`` of the meter equally among the winners of the same jackpot in the
        same round (633b.9(e)(3): "each player shall share the maximum amount equally";
        633b.10(j): "split equally between the winning players").

        Each winner gets ``floor(amount * percent / 100 / len(places))`` cents; the leftover
        stays in the meter. Then the meter is topped up to its reseed if needed.
        """
        self.verify_award(percent, places)
        winners = len(places)
        share = self.amount * percent // (100 * MILLICENTS_PER_CENT * winners)
        paid = share * winners * MILLICENTS_PER_CENT
        ev = MeterAwarded(self.id, percent, tuple(places), share, self.amount - paid)
        after = apply(self, ev)
        top = after.top_up()
        return MeterStep(top.meter, (ev, *top.events), (share,) * winners)

    def top_up(self) -> MeterStep:
        """Bring the meter up to its reseed amount, from the reserve first and then from the
        house; no events when it is already at or above the reseed."""
        need = self.reseed_millicents - self.amount
        if need <= 0:
            return MeterStep(self, ())
        from_reserve = min(need, self.reserve)
        from_house = need - from_reserve
        ev = MeterReseeded(
            self.id, from_reserve, from_house, self.amount + need, self.reserve - from_reserve
        )
        return MeterStep(apply(self, ev), (ev,))


# --- Folding events ----------------------------------------------------------------------


def _check(meter: Meter, ev: MeterEvent, field: str, claimed: int, computed: int) -> None:
    if claimed != computed:
        raise MeterReplayError(
            f"meter {meter.id!r}: {type(ev).__name__} claims {field} {claimed} but the meter "
            f"folds to {computed}; the log is corrupt or out of order"
        )


def apply(meter: Meter, ev: MeterEvent) -> Meter:
    """The meter after ``ev``: the one place a meter's state changes, live and in recall.

    Raises:
        MeterReplayError: the event is for another meter, does not fit the meter's state, or
            claims an amount the fold does not reach.
    """
    if ev.meter != meter.id:
        raise MeterReplayError(f"event for meter {ev.meter!r} applied to meter {meter.id!r}")
    if isinstance(ev, MeterOpened):
        if meter.opened:
            raise MeterReplayError(f"meter {meter.id!r} opened twice")
        _check(meter, ev, "amount", ev.amount, meter.spec.seed * MILLICENTS_PER_CENT)
        return replace(
            meter, amount=ev.amount, house_funded=meter.house_funded + ev.amount, opened=True
        )
    if not meter.opened:
        raise MeterReplayError(f"meter {meter.id!r} has an event before it was opened")
    if isinstance(ev, MeterContributed):
        if min(ev.wager, ev.increment, ev.secondary, ev.kept) < 0:
            raise MeterReplayError(f"meter {meter.id!r}: a contribution with a negative part")
        split = ev.increment + ev.secondary + ev.kept
        _check(meter, ev, "split", split, ev.wager * MILLICENTS_PER_CENT)
        _check(meter, ev, "amount", ev.amount, meter.amount + ev.increment)
        _check(meter, ev, "reserve", ev.reserve, meter.reserve + ev.secondary)
        return replace(
            meter,
            amount=ev.amount,
            reserve=ev.reserve,
            wagered=meter.wagered + ev.wager,
            contributed=meter.contributed + ev.increment,
            reserved=meter.reserved + ev.secondary,
        )
    if isinstance(ev, MeterAwarded):
        paid = ev.share * len(ev.places)
        _check(meter, ev, "amount", ev.amount, meter.amount - paid * MILLICENTS_PER_CENT)
        if ev.amount < 0:
            raise MeterReplayError(f"meter {meter.id!r}: an award larger than the meter")
        return replace(meter, amount=ev.amount, paid=meter.paid + paid, hits=meter.hits + 1)
    if isinstance(ev, MeterReseeded):
        if ev.from_reserve < 0 or ev.from_house < 0 or ev.from_reserve > meter.reserve:
            raise MeterReplayError(f"meter {meter.id!r}: a reseed that the reserve cannot fund")
        _check(meter, ev, "amount", ev.amount, meter.amount + ev.from_reserve + ev.from_house)
        _check(meter, ev, "reserve", ev.reserve, meter.reserve - ev.from_reserve)
        return replace(
            meter,
            amount=ev.amount,
            reserve=ev.reserve,
            house_funded=meter.house_funded + ev.from_house,
        )
    if isinstance(ev, MysteryTriggerDrawn):
        if meter.spec.must_hit_by is None or meter.trigger is not None:
            raise MeterReplayError(f"meter {meter.id!r}: a trigger drawn out of turn")
        if not ev.minimum <= ev.trigger <= ev.maximum:
            raise MeterReplayError(f"meter {meter.id!r}: trigger outside its minimum and maximum")
        return replace(meter, trigger=ev.trigger)
    if isinstance(ev, MysteryAwarded):
        if meter.trigger is None or ev.trigger != meter.trigger:
            raise MeterReplayError(f"meter {meter.id!r}: a mystery award without its trigger")
        _check(meter, ev, "amount", ev.amount, meter.amount - ev.paid * MILLICENTS_PER_CENT)
        if ev.amount < 0:
            raise MeterReplayError(f"meter {meter.id!r}: an award larger than the meter")
        return replace(
            meter, amount=ev.amount, paid=meter.paid + ev.paid, hits=meter.hits + 1, trigger=None
        )
    raise MeterReplayError(f"{type(ev).__name__} is not a meter event")


def fold(meter: Meter, events: Iterable[MeterEvent]) -> Meter:
    """``meter`` after each of ``events`` in order."""
    for ev in events:
        meter = apply(meter, ev)
    return meter


# --- The bank ----------------------------------------------------------------------------


class MeterBank:
    """The meters of one server, keyed by configured id; tables that name the same id share
    (link to) one meter (605a.8; docs/design.md "Progressives").

    Mutable: callers must run one operation at a time (the reactor thread does), so that a
    linked meter's contributions have one order and a hit has one winner.
    """

    def __init__(self) -> None:
        self._meters: dict[str, Meter] = {}

    def __contains__(self, meter_id: object) -> bool:
        return meter_id in self._meters

    def ids(self) -> tuple[str, ...]:
        return tuple(sorted(self._meters))

    def meter(self, meter_id: str) -> Meter:
        """The meter ``meter_id``.

        Raises:
            UnknownMeter: no meter by that id.
        """
        try:
            return self._meters[meter_id]
        except KeyError:
            raise UnknownMeter(
                f"no meter {meter_id!r}; open meters: {list(self.ids())}. Check the meter id "
                "in the table's configuration"
            ) from None

    def commit(self, step: MeterStep) -> MeterStep:
        """Store ``step.meter`` after checking that its events fold the current meter (a blank
        one for a new id) to exactly that state. Returns ``step``.

        Raises:
            MeterReplayError: the step was planned on a stale meter or its events disagree.
        """
        meter_id = step.meter.id
        current = self._meters.get(meter_id, Meter(meter_id, step.meter.spec))
        stale = MeterReplayError(
            f"meter {meter_id!r}: the step was planned on a stale meter (another table "
            "changed it in between); plan it again on the current meter"
        )
        try:
            folded = fold(current, step.events)
        except MeterReplayError as exc:
            raise stale from exc
        if folded != step.meter:
            raise stale
        self._meters[meter_id] = step.meter
        return step

    def link(self, meter_id: str, spec: MeterSpec) -> MeterStep:
        """Open ``meter_id`` at its seed, or link to it if it is already open with the same
        specification (no events then). Mystery meters open through
        :func:`game_server.rules.wagers.must_hit_by.open_meter` and :meth:`commit`.

        Raises:
            MeterLinkMismatch: the id is open with a different specification.
        """
        if meter_id in self._meters:
            existing = self._meters[meter_id]
            if existing.spec != spec:
                raise MeterLinkMismatch(
                    f"meter {meter_id!r} is open as {existing.spec}; a table cannot link to it "
                    f"as {spec}: give the table's meter another id or the same specification"
                )
            return MeterStep(existing, ())
        if spec.must_hit_by is not None:
            raise MeterActionError(
                f"meter {meter_id!r} is a mystery meter: open it with must_hit_by.open_meter "
                "so that its first trigger is drawn (633b.14(c)(3))"
            )
        return self.commit(Meter.open(meter_id, spec))

    def contribute(self, meter_id: str, wager: int, place: str) -> MeterStep:
        """Feed ``meter_id`` from a wager of ``wager`` cents at ``place``."""
        return self.commit(self.meter(meter_id).contribute(wager, place))

    def award(self, meter_id: str, percent: int, place: str) -> MeterStep:
        """Pay ``percent`` of ``meter_id`` to ``place``; ``step.paid[0]`` is the cents."""
        return self.commit(self.meter(meter_id).award(percent, place))

    def award_shared(self, meter_id: str, percent: int, places: Sequence[str]) -> MeterStep:
        """Split ``percent`` of ``meter_id`` equally among ``places``."""
        return self.commit(self.meter(meter_id).award_shared(percent, places))

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Every meter's figures, JSON-ready, keyed by id (``ReadMeters``)."""
        return {meter_id: self._meters[meter_id].snapshot() for meter_id in self.ids()}

    def unavailable(self, meter_id: str) -> str | None:
        """Why ``meter_id`` cannot be used now, or None. A server's own meter always can;
        a meter held elsewhere (linked across the floor, 605a.8) may not."""
        return None

    def refuse_if_unavailable(self, meter_ids: Sequence[str]) -> None:
        """Refuse a wager that feeds one of ``meter_ids`` while that meter cannot be used
        (a bank holding meters elsewhere raises its sentence; the server's own never)."""

    @classmethod
    def replay(cls, specs: Mapping[str, MeterSpec], events: Iterable[MeterEvent]) -> MeterBank:
        """Rebuild a bank from logged meter events (every event of every linked table, in log
        order); ``specs`` gives each id's specification, which must match its MeterOpened.

        Raises:
            UnknownMeter: an event for an id ``specs`` does not name.
            MeterReplayError: the events do not fold.
        """
        bank = cls()
        for ev in events:
            current = bank._meters.get(ev.meter)
            if current is None:
                if ev.meter not in specs:
                    raise UnknownMeter(f"logged event for meter {ev.meter!r} with no spec")
                current = Meter(ev.meter, specs[ev.meter])
                opened = None if not isinstance(ev, MeterOpened) else _spec_of(ev, current.spec)
                if opened is not None and opened != current.spec:
                    raise MeterReplayError(
                        f"meter {ev.meter!r} was opened as {opened}, not {current.spec}"
                    )
            bank._meters[ev.meter] = apply(current, ev)
        return bank


def _spec_of(ev: MeterOpened, configured: MeterSpec) -> MeterSpec:
    """The spec ``ev`` opened; what the reserve is for is the Rules Submission's (logged with
    the config, not in the record)."""
    return MeterSpec(
        ev.name,
        ev.seed,
        ev.reseed,
        ev.increment_bp,
        ev.secondary_bp,
        ev.must_hit_by,
        configured.reserve,
    )
