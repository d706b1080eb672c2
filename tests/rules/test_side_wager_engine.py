"""Side wagers inside the engine: what each settlement moment sees, when it settles, and the
wagers a side wager requires on the same seat (633b.6(g), 633b.7(a),(c), 633b.10(g))."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import DealerPeeked, Decision, WagerSettled
from game_server.games.blackjack.rules.round import BlackjackRound
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.rng.shoe import StackedShoe
from game_server.rules.errors import WagerNotOffered
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.base import (
    Moment,
    Paytable,
    PaytableLine,
    SideWager,
    SideWagerContext,
    SideWagerOffer,
)
from shared.money import ToOne

MAIN = WagerLimits(500, 100_000, 100)
SIDE = WagerLimits(100, 10_000, 100)


def offer(name: str, paytable: str) -> SideWagerOffer:
    wager = REGISTRY[name]
    return SideWagerOffer(wager, wager.paytables[paytable], SIDE)


class Probe:
    """A side wager that records every context it is evaluated on, and always wins."""

    def __init__(self, moment: Moment) -> None:
        self.seen: list[SideWagerContext] = []
        table = Paytable("Probe", (PaytableLine("Seen", ToOne(1)),))
        self.wager = SideWager(
            name="probe",
            title="Probe",
            section="test",
            settles_at=moment,
            paytables={"Probe": table},
            evaluate=self.evaluate,
        )
        self.offer = SideWagerOffer(self.wager, table, SIDE)

    def evaluate(self, ctx: SideWagerContext, paytable: Paytable) -> PaytableLine:
        self.seen.append(ctx)
        return paytable.lines[0]


def play(rules: BlackjackRules, wagers: dict[str, int], cards: str) -> tuple[Any, list[Any]]:
    game = BlackjackRound(rules)
    events = game.place_wagers(1, wagers)
    events += game.deal(StackedShoe(cards))
    return game, events


def test_top_3_needs_the_three_card_poker_wager_on_the_same_seat() -> None:
    """633b.7(a), (c): Top 3 is placed after a Blackjack wager and a Three Card Poker wager."""
    rules = BlackjackRules(
        main_limits=MAIN,
        side_wagers=(offer("three_card_poker", "Classic 9 to 1"), offer("top_3", "Paytable A")),
    )
    game = BlackjackRound(rules)
    with pytest.raises(WagerNotOffered, match=r"Three Card Poker wager on the same seat.*633b\.7"):
        game.place_wagers(1, {"blackjack": 1_000, "top_3": 100})
    assert not game.can_place_wagers(1, {"blackjack": 1_000, "top_3": 100})
    assert game.can_place_wagers(1, {"blackjack": 1_000, "three_card_poker": 100, "top_3": 100})


def test_top_3_and_three_card_poker_settle_on_the_players_two_and_the_up_card() -> None:
    """633b.7(d): right after the deal, on the player's two cards and the dealer's up card
    (the hole card, a seven here, is not part of it)."""
    rules = BlackjackRules(
        main_limits=MAIN,
        side_wagers=(offer("three_card_poker", "Classic 9 to 1"), offer("top_3", "Paytable A")),
    )
    wagers = {"blackjack": 1_000, "three_card_poker": 100, "top_3": 100}
    _, events = play(rules, wagers, "7H 7D 7C 7S")
    settled = {e.wager: e for e in events if type(e) is WagerSettled}
    assert settled["top_3"].line == "Three-of-a-kind" and settled["top_3"].paid == 100 * 91
    assert settled["three_card_poker"].outcome == "won"
    assert not any(type(e) is Decision for e in events)  # before any decision


@pytest.mark.parametrize(
    ("cards", "blackjack", "peeked"),
    [
        ("9H TD 5C 8S TC", False, True),  # 10 up, no Blackjack: peeked, play goes on
        ("9H TD 5C AS", True, True),  # 10 up, Blackjack: peeked
        ("9H 5D 5C AS TC TC TC", False, False),  # 5 up: no peek needed, settled at once
    ],
)
def test_after_peek_settles_once_knowing_whether_the_dealer_has_blackjack(
    cards: str, blackjack: bool, peeked: bool
) -> None:
    """633b.6(g), 633b.10(g): settled once the dealer has determined Blackjack, before any
    further card, with the dealer's two cards; once only."""
    probe = Probe(Moment.AFTER_PEEK)
    rules = BlackjackRules(main_limits=MAIN, side_wagers=(probe.offer,))
    game, events = play(rules, {"blackjack": 1_000, "probe": 200}, cards)
    assert len(probe.seen) == 1
    ctx = probe.seen[0]
    assert ctx.dealer_blackjack is blackjack
    assert len(ctx.dealer_cards) == 2 and (ctx.stake, ctx.main) == (200, 1_000)
    kinds = [type(e) for e in events]
    settled_at = next(
        i for i, e in enumerate(events) if type(e) is WagerSettled and e.wager == "probe"
    )
    assert (DealerPeeked in kinds) is peeked
    if peeked:
        assert kinds.index(DealerPeeked) < settled_at
    assert Decision not in kinds[:settled_at]
    if game.to_act is not None:
        events += game.act(Action.STAND, 1, 0)  # nothing settles it again
    assert len(probe.seen) == 1


def test_after_peek_with_an_ace_up_waits_for_the_insurance_answers() -> None:
    probe = Probe(Moment.AFTER_PEEK)
    rules = BlackjackRules(main_limits=MAIN, side_wagers=(probe.offer,))
    game, _ = play(rules, {"blackjack": 1_000, "probe": 200}, "9H AD 5C 8S")
    assert probe.seen == []  # the insurance window is open
    game.decline_insurance(1)
    assert len(probe.seen) == 1 and probe.seen[0].dealer_blackjack is False


def test_without_a_peek_blackjack_is_known_when_the_hole_card_is_turned_up() -> None:
    probe = Probe(Moment.AFTER_PEEK)
    rules = BlackjackRules(main_limits=MAIN, side_wagers=(probe.offer,), dealer_peeks=False)
    game, _ = play(rules, {"blackjack": 1_000, "probe": 200}, "9H TD 8C AS")
    assert probe.seen == []
    game.act(Action.STAND, 1, 0)
    assert len(probe.seen) == 1 and probe.seen[0].dealer_blackjack is True


def test_after_the_deal_a_wager_sees_only_the_up_card() -> None:
    probe = Probe(Moment.AFTER_DEAL)
    rules = BlackjackRules(main_limits=MAIN, side_wagers=(probe.offer,))
    play(rules, {"blackjack": 1_000, "probe": 200}, "9H TD 8C AS")
    assert [str(c) for c in probe.seen[0].dealer_cards] == ["TD"]
    assert probe.seen[0].dealer_blackjack is False


def test_after_the_round_a_wager_sees_every_hand_and_the_final_dealer_hand() -> None:
    probe = Probe(Moment.AFTER_ROUND)
    rules = dataclasses.replace(
        BlackjackRules(main_limits=MAIN, side_wagers=(probe.offer,)), max_split_hands=2
    )
    game, _ = play(rules, {"blackjack": 1_000, "probe": 200}, "8H 6D 8C TS 3H 9D 5C")
    game.act(Action.SPLIT, 1, 0)
    while game.to_act is not None:
        game.act(Action.STAND, 1, game.to_act.index)
    ctx = probe.seen[0]
    assert [[str(c) for c in h] for h in ctx.player_hands] == [["8H", "3H"], ["8C", "9D"]]
    assert [str(c) for c in ctx.dealer_cards] == ["6D", "TS", "5C"]


def _offers(*entries: tuple[str, str, dict[str, Any]]) -> BlackjackRules:
    side = []
    for name, paytable, options in entries:
        wager = REGISTRY[name]
        amount = options.pop("_stake", None)
        limits = SIDE if amount is None else WagerLimits(amount, amount, 100)
        side.append(
            SideWagerOffer(wager, wager.paytables[paytable], limits, tuple(sorted(options.items())))
        )
    return BlackjackRules(main_limits=MAIN, side_wagers=tuple(side))


def _replays(rules: BlackjackRules, events: list[Any]) -> None:
    from game_server.games.blackjack.rules.round import replay

    assert replay(rules, events).phase == "complete"


def test_envy_bonus_for_another_players_matching_suited_blackjack() -> None:
    """633b.10(h)(5), (k): seat 1 (with the $5 wager and the Envy Bonus selected) is paid
    $1,000 because seat 2 and the dealer hold Matching Suited Blackjacks; seat 2, whose own
    hand it is, gets no Envy Bonus for it but wins its paytable line."""
    rules = _offers(
        ("blackjack_match", "Paytable A", {"amount": 500, "envy_bonus": True, "_stake": 500})
    )
    game = BlackjackRound(rules)
    events = game.place_wagers(1, {"blackjack": 1_000, "blackjack_match": 500})
    events += game.place_wagers(2, {"blackjack": 1_000, "blackjack_match": 500})
    # seat 1: 9H 5C; seat 2: AS TS; dealer: TS (up) AS (hole) = same as seat 2.
    events += game.deal(StackedShoe("9H AS TS 5C TS AS"))
    settled = {(e.seat, e.wager): e for e in events if type(e) is WagerSettled}
    bonus = settled[(1, "blackjack_match_bonus")]
    assert (bonus.stake, bonus.paid) == (0, 100_000)
    assert "Matching Suited Blackjack" in bonus.line
    assert (2, "blackjack_match_bonus") not in settled
    assert settled[(2, "blackjack_match")].line == "Matching Suited Blackjack"
    _replays(rules, events)


def test_no_envy_bonus_unless_the_rules_submission_selects_it() -> None:
    rules = _offers(("blackjack_match", "Paytable A", {"amount": 500, "_stake": 500}))
    game = BlackjackRound(rules)
    events = game.place_wagers(1, {"blackjack": 1_000, "blackjack_match": 500})
    events += game.place_wagers(2, {"blackjack": 1_000})
    events += game.deal(StackedShoe("9H AS TS 5C TS AS"))
    assert not [e for e in events if type(e) is WagerSettled and e.wager.endswith("_bonus")]


def test_buster_cash_bonus_with_a_blackjack_and_an_eight_card_bust() -> None:
    """633b.13(i): a Blackjack, a Buster wager of at least $5 and a dealer busting with 8
    cards: Bonus Pay B1 adds $8,000 on top of the 633b.13(h) payout."""
    rules = _offers(("buster", "Paytable A", {"bonus": "B1"}))
    game = BlackjackRound(rules)
    events = game.place_wagers(1, {"blackjack": 1_000, "buster": 500})
    # player AS KD (Blackjack); dealer 2C 2D 2H 2S 3C 3D 2H = 16 in 7 cards, then TH: bust
    events += game.deal(StackedShoe("AS 2C KD 2D 2H 2S 3C 3D 2H TH"))
    settled = {e.wager: e for e in events if type(e) is WagerSettled}
    assert settled["buster"].line == "8 or more cards"
    assert settled["buster_bonus"].paid == 800_000
    _replays(rules, events)


def test_blazing_7s_deals_one_more_card_on_a_dealer_blackjack() -> None:
    """633b.9(d)(4): two sevens against a dealer Blackjack: the player is dealt an
    additional card; a third seven pays three sevens."""
    rules = _offers(("blazing_7s", "Paytable B", {}))
    game = BlackjackRound(rules)
    events = game.place_wagers(1, {"blackjack": 1_000, "blazing_7s": 100})
    events += game.deal(StackedShoe("7S AD 7C KS 7H"))
    events += game.decline_insurance(1)  # an ace up: the insurance window comes first
    assert [str(c) for c in game.seats[1].hands[0].cards] == ["7S", "7C", "7H"]
    settled = {e.wager: e for e in events if type(e) is WagerSettled}
    assert settled["blackjack"].outcome == "lost"
    assert settled["blazing_7s"].line == "Three 7's"
    _replays(rules, events)


def test_blazing_7s_with_the_alternate_procedure_uses_the_dealers_up_card() -> None:
    """633b.9(h): no additional card; the dealer's up card decides (a seven here)."""
    rules = _offers(("blazing_7s", "Paytable B", {"third_seven": "dealer-up-card"}))
    game = BlackjackRound(rules)
    events = game.place_wagers(1, {"blackjack": 1_000, "blazing_7s": 100})
    events += game.deal(StackedShoe("7S 7D 7C 9S TC"))
    events += game.act(Action.STAND, 1, 0)  # 14 stands; the dealer's 16 draws
    settled = {e.wager: e for e in events if type(e) is WagerSettled}
    assert [str(c) for c in game.seats[1].hands[0].cards] == ["7S", "7C"]
    assert settled["blazing_7s"].line == "Three 7's"


def test_a_side_wager_may_not_take_the_main_wagers_name() -> None:
    """The engine tells the Blackjack wager from the side wagers by its name, so a side
    wager named ``blackjack`` is refused when the rules are made."""
    wager = dataclasses.replace(REGISTRY["lucky_aces"], name="blackjack")
    named = SideWagerOffer(wager, wager.paytables["Paytable A"], SIDE)
    with pytest.raises(ValueError, match="may not be named 'blackjack'"):
        BlackjackRules(main_limits=MAIN, side_wagers=(named,))
