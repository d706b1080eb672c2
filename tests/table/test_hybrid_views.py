"""What one terminal of a hybrid table may see (58 Pa. Code 633b.5): the hybrid view.

Both hybrid table types run under :class:`HybridMachine` over a MemorySink session on a
``task.Clock``; rounds are dealt from seeded sealed shoes until the situation a test needs
comes up.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from twisted.internet.task import Clock

from game_server.config import TableConfig, example_path, load_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.hybrid.machine import HybridMachine, HybridState
from game_server.games.hybrid.session import HybridSession, _ThreePosition
from game_server.games.hybrid.views import HybridResults, hybrid_view_for
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from shared.cards import parse_card

THREE = load_config(example_path("hybrid-three-position.toml"))
NO_HOLE = load_config(example_path("hybrid-no-hole-card.toml"))
BOTH = pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
KEY = bytes(range(32))
TERMINALS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
BET = {"blackjack": 1_000}


def make_table(
    config: TableConfig, seed: int = 5, delay: float = 0.0
) -> tuple[HybridMachine, Clock, HybridResults]:
    shoes = SealedShoes(config, simulation_seeds(seed, config.table_id), KEY, "test-key")
    session = HybridSession(config, MemorySink(), shoes, TERMINALS)
    session.open()
    clock = Clock()
    machine = HybridMachine(session, clock, next_round_delay=delay)
    results = HybridResults(session)
    machine.add_listener(results)
    for terminal in TERMINALS:
        machine.cash_in(terminal, 1_000_000, "test")
    machine.open()
    return machine, clock, results


def join(machine: HybridMachine, terminal: str, position: int = 1) -> None:
    three = machine.session.config.table_type == "hybrid"
    machine.join(terminal, BET, position if three else None)


def deal(machine: HybridMachine, clock: Clock, joiners: dict[str, int]) -> None:
    """Join ``joiners`` (terminal -> position) and let the betting window run out."""
    assert machine.machine_state is HybridState.BETTING
    for terminal, position in joiners.items():
        join(machine, terminal, position)
    clock.advance(machine.session.config.timers.betting_seconds)


def decline_all_insurance(machine: HybridMachine) -> None:
    for terminal in machine.session.pending_insurance():
        machine.answer_insurance(terminal, "decline", 0)


def settle(machine: HybridMachine, clock: Clock) -> None:
    """Let every countdown of the round in play run out until the next betting window."""
    while machine.machine_state is not HybridState.BETTING:
        seconds = machine.seconds_left()
        assert seconds is not None
        clock.advance(seconds)


def roundtrip(view: dict[str, Any]) -> None:
    assert json.loads(json.dumps(view)) == view


def check_hole_hidden(machine: HybridMachine, terminal: str) -> dict[str, Any]:
    """The view hides the hole card and does not change when its value does."""
    game = machine.session.round
    assert isinstance(game, _ThreePosition)
    engine = game.game
    view = hybrid_view_for(machine, terminal)
    assert view["hybrid"]["dealer"]["cards"][1] == {"hidden": True}
    assert view["hybrid"]["dealer"]["total"] is None
    hole = engine.dealer[1]
    for other in ("2C", "3D", "9H", "KS"):
        if other == str(hole):
            continue
        engine.dealer[1] = parse_card(other)
        try:
            assert hybrid_view_for(machine, terminal) == view, "the view depends on the hole card"
        finally:
            engine.dealer[1] = hole
    return view


def test_three_position_hole_card_hidden_until_revealed() -> None:
    """633b.5(n), (s): while the hole card is face down no view shows it or depends on its
    value, for a player, a second player on the same position and a terminal that did not
    join."""
    machine, clock, _ = make_table(THREE)
    checked = 0
    for _ in range(30):
        deal(machine, clock, {"T1": 2, "T2": 2, "T3": 1})
        game = machine.session.round
        if game is not None and isinstance(game, _ThreePosition):
            decline_all_insurance(machine)
        game = machine.session.round
        if isinstance(game, _ThreePosition) and not game.game.hole_revealed:
            checked += 1
            for terminal in ("T1", "T2", "T3", "T4"):
                view = check_hole_hidden(machine, terminal)
                roundtrip(view)
            mine = hybrid_view_for(machine, "T1")
            assert mine["joined"] and mine["hybrid"]["position"] == 2
            assert mine["hybrid"]["hands"][0]["cards"] == mine["hybrid"]["positions"][-1]["cards"]
            assert [p["position"] for p in mine["hybrid"]["positions"]] == [1, 2]
            outsider = hybrid_view_for(machine, "T4")
            assert not outsider["joined"] and outsider["hybrid"]["hands"] == []
            assert outsider["hybrid"]["positions"] == mine["hybrid"]["positions"]
            assert outsider["actions"] == [] and outsider["insurance"] is None
            if mine["to_act"] is not None:
                assert mine["countdown"]["for"] == "decision"
                assert mine["countdown"]["then"] == "stand"
                assert "stand" in mine["actions"]
                # A hit uses the terminal's community card 1, whoever else has drawn.
                if "hit" in mine["actions"]:
                    machine.act("T1", Action.HIT, mine["to_act"]["hand"])
                    after = hybrid_view_for(machine, "T1")
                    if machine.session.round is not None:
                        assert after["hybrid"]["used"][:1] == [1]
                        assert after["hybrid"]["community"][0]["number"] == 1
                        assert 1 in after["hybrid"]["hands"][0]["community"]
                        if not machine.session.round.game.hole_revealed:
                            check_hole_hidden(machine, "T1")
        settle(machine, clock)
        if checked >= 3:
            break
    assert checked >= 3


def test_three_position_settled_round_shows_the_dealer_and_settlements() -> None:
    """633b.5(s)-(v): between rounds the terminal sees the round just completed, with every
    dealer card turned up and its own settlements (no other terminal's)."""
    machine, clock, results = make_table(THREE, seed=11, delay=5.0)
    deal(machine, clock, {"T1": 3})
    decline_all_insurance(machine)
    while machine.machine_state is not HybridState.BETWEEN:
        seconds = machine.seconds_left()
        assert seconds is not None
        clock.advance(seconds)
    view = hybrid_view_for(machine, "T1", results=results)
    assert view["round"] == 1 and view["phase"] == "complete"
    assert view["countdown"]["for"] == "next-round"
    dealer = view["hybrid"]["dealer"]
    assert dealer["hole_revealed"] and all(isinstance(c, str) for c in dealer["cards"])
    assert view["settlements"] and {s["wager"] for s in view["settlements"]} >= {"blackjack"}
    assert all(s["round"] == 1 for s in view["settlements"])
    assert hybrid_view_for(machine, "T2", results=results)["settlements"] == []
    roundtrip(view)
    settle(machine, clock)
    assert hybrid_view_for(machine, "T1", results=results)["settlements"] == view["settlements"]


def test_no_hole_card_players_see_their_own_dealer_hands() -> None:
    """633b.5(y)(4), (aa): a player who stands gets the next community card in HIS dealer
    hand, one who hits gets it in his hand; each view shows only its own designations."""
    machine, clock, results = make_table(NO_HOLE, delay=5.0)
    for _ in range(40):
        deal(machine, clock, {"T1": 0, "T2": 0})
        decline_all_insurance(machine)
        one = hybrid_view_for(machine, "T1")
        two = hybrid_view_for(machine, "T2")
        if one["to_act"] is not None and "hit" in one["actions"] and two["to_act"] is not None:
            break
        settle(machine, clock)
    else:
        pytest.fail("no round with a decision for both players came up")
    assert one["hybrid"]["first_cards"] == two["hybrid"]["first_cards"]
    assert one["countdown"] == {
        "for": "decision",
        "seconds_left": NO_HOLE.timers.decision_seconds,
        "then": "stand",
    }
    outsider = hybrid_view_for(machine, "T3")
    assert outsider["hybrid"]["up_card"] == one["hybrid"]["up_card"]
    assert outsider["hybrid"]["hands"] == [] and outsider["hybrid"]["dealer"] is None
    machine.act("T2", Action.STAND, two["to_act"]["hand"])
    machine.act("T1", Action.HIT, one["to_act"]["hand"])
    one = hybrid_view_for(machine, "T1", results=results)
    two = hybrid_view_for(machine, "T2", results=results)
    first = one["hybrid"]["community"][0]
    assert two["hybrid"]["community"][0] == first
    assert one["hybrid"]["designations"][0] == {
        "position": first["position"],
        "to": "hand",
        "index": 0,
    }
    assert two["hybrid"]["designations"][0] == {
        "position": first["position"],
        "to": "dealer",
        "index": 1,
    }
    assert one["hybrid"]["hands"][0]["cards"][-1] == first["card"]
    assert two["hybrid"]["dealer"]["cards"][1] == first["card"]
    assert one["hybrid"]["dealer"] != two["hybrid"]["dealer"]
    assert one["hybrid"]["dealer"]["cards"][0] == one["hybrid"]["up_card"]
    roundtrip(one)
    roundtrip(two)
    settle(machine, clock)
    assert hybrid_view_for(machine, "T2", results=results)["settlements"]


@BOTH
def test_a_double_or_split_the_credits_cannot_pay_for_is_not_offered(config: TableConfig) -> None:
    """A double down or split costs the Blackjack wager again: with less in the credits the
    view offers neither (the session would refuse it)."""
    machine, clock, _ = make_table(config)
    for _ in range(60):
        deal(machine, clock, {"T1": 1})
        decline_all_insurance(machine)
        view = hybrid_view_for(machine, "T1")
        if "double" in view["actions"]:
            break
        settle(machine, clock)
    else:
        pytest.fail("no round offered a double down")
    machine.session.ledger.wallets["T1"] = 999
    poor = hybrid_view_for(machine, "T1")
    assert "double" not in poor["actions"] and "split" not in poor["actions"]
    assert "stand" in poor["actions"]


@BOTH
def test_insurance_offer_only_to_the_terminal_it_concerns(config: TableConfig) -> None:
    """633a.8: on a dealer ace the offer (at most half the wager) is in the view of each
    player who owes an answer, and the countdown declines it."""
    machine, clock, _ = make_table(config)
    for _ in range(200):
        deal(machine, clock, {"T1": 1})
        if machine.session.pending_insurance():
            break
        settle(machine, clock)
    else:
        pytest.fail("no dealer ace came up")
    view = hybrid_view_for(machine, "T1")
    assert view["insurance"]["max"] == BET["blackjack"] // 2
    assert view["insurance"]["can_insure"] is True
    assert view["countdown"]["then"] == "decline insurance"
    assert hybrid_view_for(machine, "T2")["insurance"] is None
    roundtrip(view)


@BOTH
def test_betting_view_and_bare_session_view(config: TableConfig) -> None:
    """Before the deal every terminal sees its limits, and the betting countdown once
    somebody has wagered (an idle window starts over at zero and deals nothing, so none is
    shown then); a bare session has no countdown nor machine state."""
    machine, clock, _ = make_table(config)
    view = hybrid_view_for(machine, "T1")
    assert view["v"] == 1 and view["table_type"] == str(config.table_type)
    assert view["machine"] == "betting" and view["state"] == "open"
    assert machine.countdown == "betting" and view["countdown"] is None
    clock.advance(config.timers.betting_seconds)  # nobody bet: the window starts over
    assert hybrid_view_for(machine, "T2")["countdown"] is None
    join(machine, "T2", 1)
    view = hybrid_view_for(machine, "T1")
    assert view["countdown"]["for"] == "betting" and view["countdown"]["then"] == "deal"
    assert view["limits"]["blackjack"]["min"] == config.rules.main_limits.minimum
    assert view["credits"] == 1_000_000
    bare = hybrid_view_for(machine.session, "T1")
    assert bare["state"] is None and bare["countdown"] is None
    roundtrip(bare)


@BOTH
def test_view_size_with_seven_terminals(config: TableConfig) -> None:
    """With seven terminals in a round every view stays far below AMP's 64 KiB."""
    machine, clock, results = make_table(config)
    joiners = {t: 1 + i % 3 for i, t in enumerate(TERMINALS)}
    for _ in range(5):
        deal(machine, clock, joiners)
        decline_all_insurance(machine)
        game = machine.session.round
        if game is not None:
            for terminal in TERMINALS:
                view = hybrid_view_for(machine, terminal, results=results)
                roundtrip(view)
                assert len(json.dumps(view)) < 8 * 1024
                if view["to_act"] is not None and "hit" in view["actions"]:
                    machine.act(terminal, Action.HIT, view["to_act"]["hand"])
        settle(machine, clock)
        for terminal in TERMINALS:
            assert len(json.dumps(hybrid_view_for(machine, terminal, results=results))) < 8 * 1024


@BOTH
def test_the_view_carries_the_terminals_own_wagers_from_its_join(config: TableConfig) -> None:
    """From its join on, a terminal sees its own wagers (and no other terminal's); before it
    joins it sees none."""
    machine, _clock, _ = make_table(config)
    assert machine.view("T1")["wagers"] == {}
    join(machine, "T1", 2)
    assert machine.view("T1")["wagers"] == BET
    assert machine.view("T2")["wagers"] == {}
    roundtrip(machine.view("T1"))


def test_three_position_betting_view_says_how_many_chose_each_position() -> None:
    """633b.5(l): while bets are open every terminal sees how many players chose each
    position (not who), so that a player can join a position already in play."""
    machine, _clock, _ = make_table(THREE)
    assert machine.view("T3")["hybrid"]["chosen"] == {}
    join(machine, "T1", 2)
    join(machine, "T2", 2)
    join(machine, "T4", 3)
    for terminal in ("T1", "T3"):
        assert machine.view(terminal)["hybrid"]["chosen"] == {"2": 2, "3": 1}
