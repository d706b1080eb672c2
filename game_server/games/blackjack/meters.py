"""The progressive meters of a twenty-one table's rounds: which meters each wager feeds, the
contributions of a round's wagers and the round's awards, for the live table's session and the
simulator alike (the simulator's figures then count the meters' awards as the table pays them).

- :func:`meter_specs_of` names every meter a table opens or links: its side wagers' paytable
  meters, the Super 4 wager's own mystery meter (633b.6(j)) and the Must-Hit-By Mystery Bonus
  (633b.14).
- :class:`RoundMeters` feeds them from a round's wagers (633b.6(f), 633b.9(g), 633b.10(f),
  633b.14(c)(2)-(3)) and pays the round's progressive wins (633b.9(e)(3), 633b.10(j)).

Entry points: :func:`meter_specs_of`, :class:`RoundMeters`, :func:`open_meters`,
:class:`SimMeters` (the simulator's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from game_server.config import MustHitBy
from game_server.games.blackjack.rules.events import BLACKJACK, ProgressiveWon, WagerSettled
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.rules.meters import MeterAwarded, MeterBank, MeterStep, MysteryAwarded
from game_server.rules.wagers import must_hit_by, super_4
from game_server.rules.wagers.base import WON, MeterSpec
from game_server.rules.wagers.must_hit_by import RandBelow

__all__ = ["MUST_HIT_BY", "RoundMeters", "SimMeters", "meter_specs_of", "open_meters"]

#: The "wager" a Must-Hit-By meter is filed under in :func:`meter_specs_of`.
MUST_HIT_BY: Final = "must_hit_by"

#: One logged meter record and the place (terminal) it belongs to, if one.
Item = tuple[str | None, Any]


def meter_specs_of(
    rules: BlackjackRules, mystery: MustHitBy | None, table_id: str
) -> dict[str, tuple[str, MeterSpec]]:
    """Each progressive meter a table names: meter id -> (wager, its spec).

    The id is the wager's configured ``meter`` (a meter shared by linked tables, 605a.8)
    with the meter's name when its paytable has several, else ``TABLE:wager:meter name``."""
    found: dict[str, tuple[str, MeterSpec]] = {}
    for offer in rules.side_wagers:
        link = offer.option_map.get("meter")
        meters = offer.paytable.meters
        for spec in meters:
            if isinstance(link, str):
                meter_id = link if len(meters) == 1 else f"{link}:{spec.name}"
            else:
                meter_id = f"{table_id}:{offer.wager.name}:{spec.name}"
            found[meter_id] = (offer.wager.name, spec)
        extra = super_4.mystery_meter(offer.option_map) if offer.wager.name == "super_4" else None
        if extra is not None:
            base = link if isinstance(link, str) else f"{table_id}:{offer.wager.name}"
            found[f"{base}:mystery"] = (offer.wager.name, extra)
    if mystery is not None:
        meter_id = mystery.meter or f"{table_id}:{MUST_HIT_BY}"
        found[meter_id] = (MUST_HIT_BY, mystery.spec())
    return found


def open_meters(
    bank: MeterBank, specs: Mapping[str, tuple[str, MeterSpec]], draw: RandBelow
) -> list[MeterStep]:
    """Open (or link to) each meter of ``specs`` in ``bank``; a mystery meter opens with its
    first trigger drawn by ``draw`` (or links to the one already open)."""
    steps = []
    for meter_id, (_, spec) in specs.items():
        if spec.must_hit_by is None or meter_id in bank:
            steps.append(bank.link(meter_id, spec))
        else:
            steps.append(bank.commit(must_hit_by.open_meter(meter_id, spec, draw)))
    return steps


@dataclass(frozen=True)
class RoundMeters:
    """The meters a table's rounds feed and pay, in ``bank`` (the server's, shared by linked
    tables; a simulator's own).

    Attributes:
        rules: The table's rules (its offers name each wager's paytable and meters).
        mystery: The Must-Hit-By Mystery Bonus offered, or None.
        meter_of: ``(wager, meter name) -> meter id`` (:func:`meter_specs_of`).
        bank: Where the meters are.
        draw: The certified stream that draws a mystery meter's next trigger.
    """

    rules: BlackjackRules
    mystery: MustHitBy | None
    meter_of: Mapping[tuple[str, str], str]
    bank: MeterBank
    draw: RandBelow

    @classmethod
    def of(
        cls,
        rules: BlackjackRules,
        mystery: MustHitBy | None,
        specs: Mapping[str, tuple[str, MeterSpec]],
        bank: MeterBank,
        draw: RandBelow,
    ) -> RoundMeters:
        meter_of = {(wager, spec.name): meter_id for meter_id, (wager, spec) in specs.items()}
        return cls(rules, mystery, meter_of, bank, draw)

    def contributions(
        self, seats: Iterable[tuple[int, Mapping[str, int]]], place_of: Mapping[int, str]
    ) -> list[tuple[str, str, Any]]:
        """Every progressive wager of the round feeds its meters when the wagers are locked
        (633b.6(f), 633b.9(g), 633b.10(f)), seat by seat: ``(place, wager, record)`` for each
        meter record, the wager being the one that fed it (a mystery award is that wager's)."""
        out: list[tuple[str, str, Any]] = []
        offers = self.rules.offers
        mystery = self.mystery
        for seat, wagers in seats:
            place = place_of.get(seat)
            if place is None:
                continue
            for wager, stake in wagers.items():
                offer = offers.get(wager)
                if offer is None:
                    continue
                for spec in offer.paytable.meters:
                    step = self.bank.contribute(self.meter_of[(wager, spec.name)], stake, place)
                    out += [(place, wager, ev) for ev in step.events]
                own = self.meter_of.get((wager, super_4.MYSTERY_METER))
                if own is not None:  # 633b.6(j): every Super 4 wager feeds its mystery meter
                    out += [(place, wager, ev) for ev in self._feed_mystery(own, stake, place)]
                if mystery is not None and wager in mystery.qualifying:
                    conf = must_hit_by.configuration(mystery.configuration, mystery.minimum_wager)
                    if must_hit_by.qualifies(conf, wager, stake, wagers.get(BLACKJACK, 0)):
                        meter_id = self.meter_of[(MUST_HIT_BY, must_hit_by.METER_NAME)]
                        events = self._feed_mystery(meter_id, stake, place)
                        out += [(place, wager, ev) for ev in events]
        return out

    def _feed_mystery(self, meter_id: str, stake: int, place: str) -> Sequence[Any]:
        """Feed a mystery meter; the contribution that takes it past its trigger wins it
        (633b.14(c)(1)-(3), (7))."""
        step = self.bank.commit(
            must_hit_by.contribute(self.bank.meter(meter_id), stake, place, self.draw)
        )
        return step.events

    def awards(self, events: Sequence[Any], place_of: Mapping[int, str]) -> list[Item]:
        """Pay the round's progressive wins from their meters in seat order, each from the
        meter as it stands (brought back to its reseed after every award).

        A share the wager's section shares (the whole meter, 633b.9(e)(3); every jackpot
        amount, 633b.10(j): :attr:`~game_server.rules.wagers.base.SideWager.shared_percents`)
        is one award split equally among that round's winners of it, paid at its first
        winner's turn; any other share (a Blazing 7's 10% payout) is paid in full to each
        winner."""
        groups: dict[tuple[str, int, int], list[str]] = {}
        wins = sorted((ev for ev in events if type(ev) is ProgressiveWon), key=lambda e: e.seat)
        for ev in wins:
            offer = self.rules.offers[ev.wager]
            name = ev.meter or offer.paytable.meters[0].name
            meter_id = self.meter_of[(ev.wager, name)]
            shared = offer.wager.shared_percents
            alone = shared is not None and ev.percent not in shared
            key = (meter_id, ev.percent, ev.seat if alone else 0)
            groups.setdefault(key, []).append(place_of[ev.seat])
        items: list[Item] = []
        for (meter_id, percent, seat), places in groups.items():
            if seat:  # paid in full to one seat (seats count from 1; 0 is a shared award)
                step = self.bank.award(meter_id, percent, places[0])
            else:
                step = self.bank.award_shared(meter_id, percent, places)
            who = places[0] if len(places) == 1 else None
            items += [(who, ev) for ev in step.events]
        return items


class SimMeters:
    """A simulated table's meters (``etg sim``, ``etg par``): fed by each round's wagers,
    paying its progressive wins as the live table does (:class:`RoundMeters`), each award
    given back as a settlement record of the wager that won it (``<wager>_bonus``, no stake),
    so that the simulator's figures for that wager count what its meters paid.

    Build with :meth:`for_table` (None when the table has no meter)."""

    __slots__ = ("_of_win", "meters", "places")

    def __init__(self, meters: RoundMeters, seats: Iterable[int]) -> None:
        self.meters = meters
        self.places = {seat: f"seat-{seat}" for seat in seats}
        self._of_win = {place: seat for seat, place in self.places.items()}

    @classmethod
    def for_table(
        cls,
        rules: BlackjackRules,
        mystery: MustHitBy | None,
        seats: Iterable[int],
        *,
        seed: int,
        table_id: str,
    ) -> SimMeters | None:
        """The meters of a simulated table ``table_id`` (its own, opened at their seeds),
        mystery triggers drawn from a stream of ``seed``; None without a meter."""
        specs = meter_specs_of(rules, mystery, table_id)
        if not specs:
            return None
        from game_server.sim import mystery_draw  # the simulator imports the games

        bank = MeterBank()
        draw = mystery_draw(seed, table_id)
        open_meters(bank, specs, draw)
        return cls(RoundMeters.of(rules, mystery, specs, bank, draw), seats)

    def play(self, seats: Mapping[int, Mapping[str, int]], events: Sequence[Any]) -> list[Any]:
        """The round's meter awards as settlement records: ``seats`` is each seat's wagers,
        ``events`` the round's records (its progressive wins)."""
        meters = self.meters
        seat_of = self._of_win
        out: list[Any] = []
        fed = meters.contributions(sorted(seats.items()), self.places)
        for place, wager, ev in fed:
            if type(ev) is MysteryAwarded:
                line = meters.bank.meter(ev.meter).spec.name
                out.append(WagerSettled(seat_of[place], 0, wager + "_bonus", 0, ev.paid, WON, line))
        wins: dict[tuple[str, int, int], tuple[str, str]] = {}
        for ev in events:
            if type(ev) is ProgressiveWon:
                name = ev.meter or meters.rules.offers[ev.wager].paytable.meters[0].name
                key = (meters.meter_of[(ev.wager, name)], ev.percent, ev.seat)
                wins[key] = (ev.wager, ev.line)
        if wins:
            for _, ev in meters.awards(events, self.places):
                if type(ev) is not MeterAwarded:
                    continue
                for place in ev.places:
                    seat = seat_of[place]
                    wager, line = wins[(ev.meter, ev.percent, seat)]
                    settled = (seat, 0, wager + "_bonus", 0, ev.share, WON, f"{line} (meter)")
                    out.append(WagerSettled(*settled))
        return out
