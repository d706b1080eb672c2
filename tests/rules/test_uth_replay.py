"""Ultimate Texas Hold 'Em replay and conservation (game_server.games.uth.rules.game): the same
cards, decisions and settlement inputs give the same events; a logged round replays through
a fresh engine (docs/design.md "One round, as data"); every cent staked is settled once, and the
meters' awards are what the meters lost (653a.12(d)(4), (e)(2))."""

from __future__ import annotations

import random
from dataclasses import replace as dc_replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.games.uth.rules.events import (
    UthDecision,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.game import Action, Phase, StackedDeck, UthRound, replay
from game_server.games.uth.rules.rules import UthRules
from game_server.games.uth.rules.strategy import decide
from game_server.rules.errors import ReplayMismatch
from game_server.rules.events import from_dict, to_dict
from game_server.rules.meters import Meter, MeterAwarded, MeterBank, MeterReseeded
from game_server.rules.wagers.base import MeterSpec
from shared.cards import CARDS
from shared.codec import canonical_json

RULES = UthRules(
    seats=7,
    progressive_amounts=(100, 500),
    progressive_meter=MeterSpec("Progressive Payout", 1_000_000, 1_000_000, 1_500, 500),
    five_card_amounts=(100, 500),
    five_card_meter=MeterSpec("Five Card Hand Bonus", 1_500_000, 1_000_000, 1_000),
    magic_card_bonus=True,
    max_payout=5_000_000,
)
#: The same table paying the Lucky Bonus instead (a table pays one of the two, 653a.12(e)(3)).
LUCKY_RULES = dc_replace(RULES, magic_card_bonus=False, lucky_bonus=True)


def rules_of(seed: int) -> UthRules:
    """The Magic Card table for an even seed, the Lucky Bonus table for an odd one."""
    return RULES if seed % 2 == 0 else LUCKY_RULES


def _round(seed: int, *, bot: bool = False) -> tuple[UthRound, list[Any], dict[str, Meter]]:
    """A round of up to seven seats from ``seed``: random wagers, deck, decisions (or the
    strategy's), Magic Card and Lucky Bonus position, and meters fed by earlier play."""
    rng = random.Random(seed)
    rules = rules_of(seed)
    game = UthRound(rules, "t1")
    bank = MeterBank()
    for mid, spec in rules.meters().items():
        bank.link(mid, spec)
        bank.contribute(mid, rng.randrange(1, 5_000_000), "elsewhere")
    events: list[Any] = []
    for seat in sorted(rng.sample(range(1, 8), rng.randint(1, 7))):
        ante = rng.choice((500, 1000, 2500))
        wagers = {"ante": ante, "blind": ante}
        for name, amounts in (
            ("trips", (500, 1000)),
            ("progressive", (100, 500)),
            ("five_card_player", (100, 500)),
            ("five_card_dealer", (100, 500)),
        ):
            if rng.random() < 0.5:
                wagers[name] = rng.choice(amounts)
        events += game.place_wagers(seat, wagers)
    for meter_id, wager, place in game.contributions():
        bank.contribute(meter_id, wager, place)
    deck = list(CARDS)
    rng.shuffle(deck)
    events += game.deal(StackedDeck(deck))
    while game.phase in (Phase.PREFLOP, Phase.FLOP, Phase.RIVER):
        seat = rng.choice(game.pending)
        if bot:
            action, multiple = decide(game, seat)
            events += game.decide(seat, action, multiple)
            continue
        choices: list[tuple[Action, int]] = [(Action.PLAY, m) for m in game.legal_plays(seat)]
        choices += [(a, 0) for a in (Action.CHECK, Action.FOLD) if _can(game, a, seat)]
        if rng.random() < 0.2:
            events += game.act_default(seat)
        else:
            action, multiple = rng.choice(choices)
            events += game.decide(seat, action, multiple)
    meters = {mid: bank.meter(mid) for mid in rules.meters()}
    magic = rng.choice(CARDS)
    lucky = rng.randint(0, 7)
    events += game.settle(
        meters, magic if rules.magic_card_bonus else None, lucky if rules.lucky_bonus else None
    )
    for step in game.meter_steps():
        bank.commit(step)  # the events fold the meter passed in to the meter after
    return game, events, meters


def _can(game: UthRound, action: Action, seat: int) -> bool:
    return game.can_check(seat) if action is Action.CHECK else game.can_fold(seat)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_every_stake_is_settled_once_and_meters_pay_what_they_lose(seed: int, bot: bool) -> None:
    """Conservation: each wager placed (the Play Wager included) is settled exactly once for
    its stake; a lost wager pays 0, a push its stake, a win more; awards without a stake are
    bonuses; what the meters paid is what they lost plus what the house put back in them; so
    staked = returned + house result, with the meters' part accounted for."""
    game, events, before = _round(seed, bot=bot)
    placed = [(e.seat, e.wager, e.amount) for e in events if type(e) is UthWagerPlaced]
    settled = [e for e in events if type(e) is UthWagerSettled]
    staked_settlements = sorted((e.seat, e.wager, e.stake) for e in settled if e.stake)
    assert sorted(placed) == staked_settlements
    for e in settled:
        if e.outcome == "lost":
            assert e.paid == 0 and e.from_meter == 0
        elif e.outcome == "pushed":
            assert e.paid == e.stake
        else:
            assert e.paid > e.stake or (e.stake == 0 and e.paid > 0)
        assert e.stake or e.wager.endswith(("_envy", "_magic_card", "_lucky_bonus"))
    staked = sum(a for _, _, a in placed)
    returned = sum(e.paid for e in settled)
    from_meters = sum(e.from_meter for e in settled)
    house_result = staked - (returned - from_meters)
    assert staked == returned - from_meters + house_result
    after = {step.meter.id: step.meter for step in game.meter_steps()}
    for mid, meter in before.items():
        if mid not in after:
            continue
        refill = sum(
            e.from_house + e.from_reserve
            for e in events
            if type(e) is MeterReseeded and e.meter == mid
        )
        awards = sum(
            e.share * len(e.places) for e in events if type(e) is MeterAwarded and e.meter == mid
        )
        assert meter.amount + refill - after[mid].amount == awards * 1000
    assert from_meters == sum(e.share * len(e.places) for e in events if type(e) is MeterAwarded)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_same_inputs_give_the_same_events_and_the_log_replays(seed: int) -> None:
    """Replay determinism: the same deck, decisions and draws give identical events; the
    logged events (through their canonical JSON) replay through a fresh engine."""
    _, first, _ = _round(seed)
    _, second, _ = _round(seed)
    assert first == second
    logged = [from_dict(to_dict(e)) for e in first]
    assert [canonical_json(to_dict(e)) for e in logged] == [
        canonical_json(to_dict(e)) for e in first
    ]
    game = replay(rules_of(seed), logged, "t1")
    assert game.phase is Phase.COMPLETE


def test_a_tampered_log_does_not_replay() -> None:
    """A settlement changed or removed, or a decision changed, after the fact is caught on
    replay (the settlement inputs themselves are the table's logged DRBG draws)."""
    _, events, _ = _round(11)
    rules = rules_of(11)
    assert replay(rules, events, "t1").phase is Phase.COMPLETE
    i = next(k for k, e in enumerate(events) if type(e) is UthWagerSettled and e.paid)
    forged = list(events)
    forged[i] = events[i]._replace(paid=events[i].paid + 100)
    with pytest.raises(ReplayMismatch):
        replay(rules, forged, "t1")
    dropped = [e for k, e in enumerate(events) if k != i]
    with pytest.raises(ReplayMismatch):
        replay(rules, dropped, "t1")
    d = next(k for k, e in enumerate(events) if type(e) is UthDecision)
    flipped = list(events)
    changed = ("check", 0) if events[d].action == "play" else ("play", 4)
    flipped[d] = events[d]._replace(action=changed[0], multiple=changed[1])
    with pytest.raises(ReplayMismatch):
        replay(rules, flipped, "t1")


def test_events_without_draws_round_trip_and_contributions_name_the_places() -> None:
    """A settlement with no Magic Card or Lucky Bonus draw logs and decodes; the wagers that
    feed a meter are listed with their meter and betting position (653a.12(d)(3), (e)(4))."""
    game = UthRound(
        UthRules(progressive_amounts=(100,), progressive_meter=RULES.progressive_meter), "t9"
    )
    game.place_wagers(2, {"ante": 500, "blind": 500, "progressive": 100})
    assert game.contributions() == (("uth:progressive", 100, "t9/2"),)
    game.deal(StackedDeck(list(CARDS)))
    assert game.legal_actions(2) == ((Action.CHECK, 0), (Action.PLAY, 3), (Action.PLAY, 4))
    game.check(2)
    game.check(2)
    assert game.legal_actions(2) == ((Action.PLAY, 1), (Action.FOLD, 0))
    game.fold(2)
    assert game.legal_actions(2) == ()
    spec = RULES.progressive_meter
    assert spec is not None
    meter = Meter.open("uth:progressive", spec).meter
    events = game.settle({"uth:progressive": meter})
    assert all(from_dict(to_dict(e)) == e for e in events)
