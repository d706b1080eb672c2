"""Terminal views: what one terminal may see, checked at every logged step of many rounds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from twisted.internet.task import Clock

from game_server.config import example_config_path, load_config
from game_server.games.blackjack.machine import RoundMachine
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.views import view_for
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from shared.cards import parse_card

KEY = bytes(range(32))
CONFIG = load_config(example_config_path())
TIMERS = CONFIG.timers
LIMIT = 64 * 1024


def make_table(seed: int, terminals: int) -> tuple[RoundMachine, Clock]:
    shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), KEY, "test-key")
    seats = {f"T{i}": i for i in range(1, terminals + 1)}
    session = TableSession(CONFIG, MemorySink(), shoes, seats)
    session.open()
    clock = Clock()
    machine = RoundMachine(session, clock)
    for terminal in seats:
        machine.cash_in(terminal, 10_000_000, "test")
    machine.open()
    return machine, clock


class ViewChecker:
    """A listener that checks every terminal's view after every logged step."""

    def __init__(self, machine: RoundMachine) -> None:
        self.machine = machine
        self.hidden_checked = 0
        self.actions_checked = 0
        self.largest = 0

    def step_logged(self, events: Sequence[Any]) -> None:
        machine = self.machine
        game = machine.session.round
        for terminal, seat in machine.session.seats.items():
            view = view_for(machine, terminal)
            text = json.dumps(view, separators=(",", ":"))
            self.largest = max(self.largest, len(text.encode()))
            assert view["v"] == 1 and view["seat"] == seat
            if game is not None and len(game.dealer) > 1 and not game.hole_revealed:
                self.check_hole_hidden(game, terminal, view)
            if game is not None:
                hand = game.to_act
                if hand is not None and hand.seat == seat:
                    assert set(view["actions"]) == {str(a) for a in game.legal_actions()}
                    self.actions_checked += 1
                else:
                    assert view["actions"] == []

    def check_hole_hidden(self, game: Any, terminal: str, view: dict[str, Any]) -> None:
        hole = game.dealer[1]
        assert view["dealer"]["cards"][1] == {"hidden": True}
        assert str(hole) not in json.dumps(view["dealer"])
        other = parse_card("2C") if str(hole) != "2C" else parse_card("3D")
        game.dealer[1] = other
        try:
            assert view_for(self.machine, terminal) == view, "the view depends on the hole card"
        finally:
            game.dealer[1] = hole
        self.hidden_checked += 1


def play(machine: RoundMachine, clock: Clock, rounds: int, wager: int, split: bool) -> int:
    """Every seat wagers; nobody acts but, when ``split``, splits every pair it may.
    Returns the number of splits."""
    splits = 0
    terminals = list(machine.session.seats)
    for _ in range(rounds):
        start = machine.session.round_id
        for terminal in terminals:
            machine.place_wagers(terminal, {"blackjack": wager})
        clock.advance(TIMERS.betting_seconds)
        while machine.session.round_id == start and machine.session.round is not None:
            game = machine.session.round
            hand = game.to_act
            if split and hand is not None and Action.SPLIT in game.legal_actions():
                machine.act(f"T{hand.seat}", Action.SPLIT, hand.index, None)
                splits += 1
            else:
                clock.advance(1)
    return splits


def test_hole_card_never_in_a_view_and_actions_only_for_the_hand_to_act() -> None:
    """While the hole card is face down no view shows it or depends on it; legal actions in
    a view equal the engine's legal_actions() for the terminal to act and are empty for all
    others, at every logged step of 60 unattended rounds."""
    machine, clock = make_table(seed=9, terminals=3)
    checker = ViewChecker(machine)
    machine.add_listener(checker)
    play(machine, clock, 60, 1_000, split=False)
    assert checker.hidden_checked > 100 and checker.actions_checked > 50


def test_view_size_with_seven_seats_and_splits() -> None:
    """With 7 seats at the maximum wager, splits and a full results history, every view
    encodes to well under AMP's 64 KiB value limit."""
    machine, clock = make_table(seed=4, terminals=7)
    checker = ViewChecker(machine)
    machine.add_listener(checker)
    assert play(machine, clock, 40, CONFIG.rules.main_limits.maximum, split=True) > 3
    assert 0 < checker.largest < LIMIT // 4


def test_view_shows_countdown_and_what_it_will_do() -> None:
    """633b.5(p)(2), (z): while a hand is to act the view gives the seconds left and the
    countdown's default action; the insurance offer goes only to the seats it concerns."""
    machine, clock = make_table(seed=9, terminals=3)
    for _ in range(200):
        start = machine.session.round_id
        for terminal in machine.session.seats:
            machine.place_wagers(terminal, {"blackjack": 1_000})
        clock.advance(TIMERS.betting_seconds)
        game = machine.session.round
        if machine.machine_state == "deciding" and game is not None and game.to_act:
            view = machine.view(f"T{game.to_act.seat}")
            assert view["countdown"] == {
                "for": "decision",
                "seconds_left": TIMERS.decision_seconds,
                "then": str(game.countdown_action()),
            }
            clock.advance(TIMERS.decision_seconds - 4)
            assert machine.view("T1")["countdown"]["seconds_left"] == 4
            return
        if game is not None and game.phase is Phase.INSURANCE:
            for terminal in machine.session.seats:
                offer = machine.view(terminal)["insurance"]
                assert offer is not None and offer["max"] == 500
        while machine.session.round_id == start:
            clock.advance(1)
    raise AssertionError("no round reached a decision")


def test_session_view_and_recent_results() -> None:
    """A bare session gives a view without countdown; the machine's view repeats the
    terminal's results of its last rounds (for reconnects) and this round's settlements."""
    machine, clock = make_table(seed=2, terminals=2)
    play(machine, clock, 3, 1_000, split=False)
    bare = view_for(machine.session, "T1")
    assert bare["countdown"] is None and bare["recent"] == []
    view = machine.view("T1")
    assert [r["round"] for r in view["recent"]] == [3, 2, 1]
    first = view["recent"][0]
    assert first["net"] == sum(s["paid"] - s["stake"] for s in first["settlements"])
    assert json.loads(json.dumps(view)) == view


def test_the_recent_rounds_are_built_once_per_completed_round() -> None:
    """Every view between two round ends shares one ``recent`` part (it is built once, not
    at every step); the next completed round makes a new one that shows it."""
    machine, clock = make_table(seed=2, terminals=2)
    play(machine, clock, 2, 1_000, split=False)
    first = machine.view("T1")["recent"]
    assert machine.view("T1")["recent"] is first
    assert machine.view("T2")["recent"] is not first  # each terminal its own
    play(machine, clock, 1, 1_000, split=False)
    later = machine.view("T1")["recent"]
    assert later is not first and [r["round"] for r in later] == [3, 2, 1]
    assert later[1:] == first


def test_a_double_or_split_the_credits_cannot_pay_for_is_not_offered() -> None:
    """With credits below the hand's wager the engine still allows a double (and a split of a
    pair), but the table would refuse it (InsufficientCredits): the view leaves them out; with
    the credits to pay they are offered exactly as the engine allows."""
    seen = {"short": 0, "paid": 0}
    for seed in range(40):
        shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), KEY, "test-key")
        session = TableSession(CONFIG, MemorySink(), shoes, {"T1": 1, "T2": 2})
        session.open()
        session.cash_in("T1", 1_000, "exactly one wager")
        session.cash_in("T2", 100_000, "plenty")
        session.start_round()
        session.place_wagers("T1", {"blackjack": 1_000})
        session.place_wagers("T2", {"blackjack": 1_000})
        session.deal()
        game = session.round
        if game is not None and game.phase is Phase.INSURANCE:
            for terminal in ("T1", "T2"):
                session.decline_insurance(terminal)
            game = session.round
        while game is not None and game.to_act is not None and game.phase is Phase.PLAYING:
            hand = game.to_act
            terminal = f"T{hand.seat}"
            legal = {str(a) for a in game.legal_actions()}
            offered = set(view_for(session, terminal)["actions"])
            if terminal == "T1":
                assert offered == legal - {"double", "split"}
                seen["short"] += bool(legal & {"double", "split"})
            else:
                assert offered == legal
                seen["paid"] += bool(legal & {"double", "split"})
            session.act(terminal, Action.STAND, hand.index)
            game = session.round
    assert seen["short"] and seen["paid"]  # both cases met over the seeds


def test_the_insurance_offer_is_no_more_than_the_credits_hold() -> None:
    """633a.8 allows up to half the Blackjack wager; the offer is also capped by the credits,
    so the INSURE button never sends what the table would refuse."""
    from game_server.rng.shoe import StackedShoe

    shoes = SealedShoes(CONFIG, simulation_seeds(5, CONFIG.table_id), KEY, "test-key")
    session = TableSession(CONFIG, MemorySink(), shoes, {"T1": 1, "T2": 2})
    session.open()
    session.cash_in("T1", 1_200, "a little over the wager")
    session.cash_in("T2", 100_000, "plenty")
    session.start_round()
    session.place_wagers("T1", {"blackjack": 1_000})
    session.place_wagers("T2", {"blackjack": 1_000})
    real, session.shoe = session.shoe, StackedShoe("9H 8D AD 7C 6S KS")
    session.deal()
    session.shoe = real
    assert session.round is not None and session.round.phase is Phase.INSURANCE
    short = view_for(session, "T1")["insurance"]
    assert (short["max"], short["can_insure"]) == (200, True)
    assert view_for(session, "T2")["insurance"]["max"] == 500
