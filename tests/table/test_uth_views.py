"""What one terminal of an Ultimate Texas Hold 'Em table may see (uth_views.uth_view_for):
its own two cards, never another seat's or the dealer's before the showdown (docs/design.md "One
round, as data", step 5), the community cards dealt so far, and its legal decisions with
their Play multiples."""

from __future__ import annotations

import json
from typing import Any

from twisted.internet import task

from game_server.config import example_path, load_config
from game_server.games.uth.machine import UthMachine
from game_server.games.uth.session import UthSession
from game_server.games.uth.views import uth_view_for
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

CONFIG = load_config(example_path("uth.toml"))
SEATS = {"T1": 1, "T2": 2, "T3": 4}
BET = {"ante": 500, "blind": 500, "trips": 500}
TOP_LEVEL = {
    "v",
    "game",
    "table",
    "state",
    "machine",
    "reason",
    "round",
    "phase",
    "terminal",
    "seat",
    "credits",
    "limits",
    "chips",
    "countdown",
    "to_act",
    "actions",
    "settlements",
    "meters",
    "uth",
}


def dealt(credits: int = 100_000) -> tuple[UthMachine, task.Clock]:
    """T1 and T2 wager (T3 sits out); the cards are dealt."""
    shoes = SealedShoes(CONFIG, simulation_seeds(9, CONFIG.table_id), bytes(32), "k")
    session = UthSession(CONFIG, MemorySink(), shoes, SEATS)
    session.open()
    clock = task.Clock()
    machine = UthMachine(session, clock, next_round_delay=3.0)
    for terminal in SEATS:
        machine.cash_in(terminal, credits, "test")
    machine.open()
    machine.place_wagers("T1", BET)
    machine.place_wagers("T2", BET)
    clock.advance(CONFIG.timers.betting_seconds)
    return machine, clock


def tokens(view: dict[str, Any]) -> str:
    """The view as the wire carries it (JSON)."""
    return json.dumps(view, sort_keys=True)


def shows(view: dict[str, Any], card: str) -> bool:
    """Whether a card's text appears anywhere in the JSON as a value."""
    return f'"{card}"' in tokens(view)


def secrets(machine: UthMachine) -> dict[str, list[str]]:
    game = machine.session.round
    assert game is not None
    return {
        "T1": [str(c) for c in game.seats[1].cards],
        "T2": [str(c) for c in game.seats[2].cards],
        "dealer": [str(c) for c in game.dealer],
    }


def test_other_hole_cards_and_the_dealers_never_leave_the_server_before_the_showdown() -> None:
    """On every street, T1's view holds its own two cards and the board so far; the JSON holds
    neither T2's cards, nor the dealer's, nor a card still in the deck; T3 (no hand) sees no
    hole card at all. Hidden cards are {"hidden": true} placeholders."""
    machine, _ = dealt()
    hidden = secrets(machine)
    game = machine.session.round
    assert game is not None
    assert machine.session.shoe is not None
    deck = [str(c) for c in machine.session.shoe.order]
    for street in ("preflop", "flop", "river"):
        assert str(game.phase) == street
        board = [str(c) for c in game.board]
        used = {*hidden["T1"], *hidden["T2"], *hidden["dealer"], *board}
        undealt = [c for c in deck if c not in used]
        mine = machine.view("T1")
        assert mine["uth"]["hole"] == hidden["T1"] and mine["uth"]["board"] == board
        for card in hidden["T2"] + hidden["dealer"] + undealt:
            assert not shows(mine, card), (street, card)
        other = machine.view("T2")
        for card in hidden["T1"] + hidden["dealer"]:
            assert not shows(other, card), (street, card)
        watcher = machine.view("T3")
        assert watcher["uth"]["hole"] == [] and watcher["actions"] == []
        for card in hidden["T1"] + hidden["T2"] + hidden["dealer"]:
            assert not shows(watcher, card), (street, card)
        seat2 = next(s for s in mine["uth"]["seats"] if s["seat"] == 2)
        assert seat2["cards"] == [{"hidden": True}, {"hidden": True}] and seat2["hand"] is None
        assert mine["uth"]["dealer"] == {
            "cards": [{"hidden": True}, {"hidden": True}],
            "revealed": False,
            "hand": None,
            "qualifies": None,
        }
        machine.act("T1", "check" if street != "river" else "bet", 0, 0 if street != "river" else 1)
        machine.act("T2", "check" if street != "river" else "fold", 0, 0)
    after = machine.view("T1")
    assert after["phase"] == "complete"
    for card in hidden["T2"] + hidden["dealer"]:
        assert shows(after, card)  # the showdown shows every hand
    dealer = after["uth"]["dealer"]
    assert dealer["revealed"] and dealer["cards"] == hidden["dealer"]
    assert dealer["hand"]["category"] and isinstance(dealer["qualifies"], bool)
    seat2 = next(s for s in after["uth"]["seats"] if s["seat"] == 2)
    assert seat2["status"] == "folded" and seat2["hand"]["name"]


def test_legal_decisions_and_their_multiples_street_by_street() -> None:
    """Preflop check or bet 3 or 4 times the Ante, on the flop check or 2, at the river bet 1
    or fold; the shared countdown says what it does."""
    machine, _ = dealt()
    view = machine.view("T1")
    assert view["actions"] == ["bet", "check"]
    assert view["uth"]["legal"] == [
        {"action": "check"},
        {"action": "bet", "multiples": [3, 4], "amounts": [1_500, 2_000]},
    ]
    assert view["to_act"] == [1, 2]
    assert view["countdown"]["then"] == "check"
    machine.act("T1", "check", 0, 0)
    assert machine.view("T1")["actions"] == [] and machine.view("T1")["to_act"] == [2]
    # The countdown now does nothing for T1: it says so only to T2.
    assert machine.view("T1")["countdown"]["then"] is None
    assert machine.view("T2")["countdown"]["then"] == "check"
    machine.act("T2", "check", 0, 0)
    assert machine.view("T1")["uth"]["legal"][1] == {
        "action": "bet",
        "multiples": [2],
        "amounts": [1_000],
    }
    machine.act("T1", "check", 0, 0)
    machine.act("T2", "check", 0, 0)
    river = machine.view("T1")
    assert river["actions"] == ["bet", "fold"]
    assert river["uth"]["legal"] == [
        {"action": "bet", "multiples": [1], "amounts": [500]},
        {"action": "fold"},
    ]
    assert river["countdown"]["then"] == "fold"
    assert river["uth"]["seats"][0]["hand"] is not None  # own best five once the board is out


def test_a_play_the_credits_cannot_cover_is_not_offered() -> None:
    """With $15 left after a $5 Ante, Blind and Trips, a Play of 4 ($20) is left out."""
    machine, _ = dealt(credits=3_000)
    legal = machine.view("T1")["uth"]["legal"]
    assert legal[1] == {"action": "bet", "multiples": [3], "amounts": [1_500]}


def test_the_view_has_the_shared_keys_and_the_settlements_of_the_last_round() -> None:
    machine, clock = dealt()
    view = machine.view("T1")
    assert set(view) == TOP_LEVEL
    assert view["v"] == 1 and view["game"] == "uth" and view["seat"] == 1
    assert view["limits"]["blind"] == {"equals": "ante"}
    assert view["limits"]["progressive"] == {"amounts": [100, 500]}
    assert [m["wager"] for m in view["meters"]] == ["progressive", "five_card"]
    assert view["uth"]["magic_card"] is None  # drawn at the settlement
    assert len(tokens(view)) < 64 * 1024
    for _ in range(3):
        clock.advance(CONFIG.timers.decision_seconds)
    after = machine.view("T1")
    assert after["phase"] == "complete" and after["machine"] == "next-round"
    assert after["countdown"] == {"for": "next-round", "seconds_left": 3, "then": "next round"}
    assert {s["wager"] for s in after["settlements"]} == {"ante", "blind", "trips"}
    assert all(s["line"] and s["round"] == 1 for s in after["settlements"])
    assert isinstance(after["uth"]["magic_card"], str)
    assert after["uth"]["lucky_position"] is None  # uth.toml pays the Magic Card (653a.12(e)(3))
    bare = uth_view_for(machine.session, "T1")
    assert bare["state"] is None and bare["countdown"] is None


def test_the_betting_countdown_shows_only_once_somebody_has_wagered() -> None:
    """An idle betting window (nobody's wager) starts over at zero and deals nothing: the
    view shows no countdown then, rather than one stuck at "0 then: deal"; the first wager
    brings the countdown that deals."""
    shoes = SealedShoes(CONFIG, simulation_seeds(9, CONFIG.table_id), bytes(32), "k")
    session = UthSession(CONFIG, MemorySink(), shoes, SEATS)
    session.open()
    clock = task.Clock()
    machine = UthMachine(session, clock, next_round_delay=3.0)
    machine.cash_in("T1", 100_000, "test")
    machine.open()
    assert machine.countdown == "betting"
    assert uth_view_for(machine, "T1")["countdown"] is None
    clock.advance(CONFIG.timers.betting_seconds)  # the window starts over
    assert machine.countdown == "betting"
    assert uth_view_for(machine, "T1")["countdown"] is None
    machine.place_wagers("T1", BET)
    shown = uth_view_for(machine, "T2")["countdown"]
    assert shown is not None and shown["for"] == "betting" and shown["then"] == "deal"
