"""The demo bot (terminal_client.app.Autoplay) stakes every side wager the table offers, so a
newcomer watching ``make demo`` sees each of them played; the real table accepts what it
stakes; a refused bet is tried again with the main wager alone; a thinking bot waits before
it acts."""

from __future__ import annotations

from typing import Any

import pytest
from client_helpers import wire_model
from twisted.internet.task import Clock

from game_server.config import example_path, load_config
from game_server.games.blackjack.machine import RoundMachine
from game_server.games.blackjack.session import TableSession
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from terminal_client.app import Autoplay, demo_wagers
from terminal_client.model import Intent, IntentKind

ALL_SIDES = load_config(example_path("fully-automated-all-side-wagers.toml"))


def table(credits: int) -> RoundMachine:
    shoes = SealedShoes(ALL_SIDES, simulation_seeds(3, ALL_SIDES.table_id), bytes(32), "k")
    session = TableSession(ALL_SIDES, MemorySink(), shoes, {"T1": 1})
    session.open()
    machine = RoundMachine(session, Clock())
    machine.cash_in("T1", credits, "test")
    machine.open()
    return machine


def test_the_bot_stakes_every_offered_side_wager_and_the_table_takes_it() -> None:
    """At the table offering every side wager of 633b.6-633b.13 the bot stakes the Blackjack
    minimum and each side wager's minimum (TriLux Deluxe within twice the Blackjack wager,
    633b.11(b)); the real round machine accepts the bet as it is."""
    machine = table(100_000)
    wagers = demo_wagers(wire_model(machine.view("T1")))
    offered = {"blackjack": ALL_SIDES.rules.main_limits.minimum} | {
        o.wager.name: o.limits.minimum for o in ALL_SIDES.rules.side_wagers
    }
    assert wagers == offered and len(wagers) == 10
    assert wagers["trilux"] <= 2 * wagers["blackjack"]
    machine.place_wagers("T1", wagers)  # raises if the table refuses any of it
    seat = machine.view("T1")["seats"][0]
    assert seat["wagers"] == wagers


def test_short_of_credits_the_bot_bets_the_main_wager_alone() -> None:
    """With credits for the Blackjack minimum but not for every side wager, the bot bets
    the Blackjack minimum alone (a side wager may need another one, Top 3 the Three Card
    Poker wager, 633b.7(a)); with less than the minimum, no bet."""
    machine = table(700)
    wagers = demo_wagers(wire_model(machine.view("T1")))
    assert wagers == {"blackjack": ALL_SIDES.rules.main_limits.minimum}
    machine.place_wagers("T1", wagers)
    assert demo_wagers(wire_model(table(100).view("T1"))) == {}


class Recording:
    def __init__(self) -> None:
        self.sent: list[dict[str, int]] = []

    def place_wagers(self, wagers: Any, position: int | None = None) -> Intent:
        self.sent.append(dict(wagers))
        return Intent.make(IntentKind.PLACE_WAGERS, f"r{len(self.sent)}", wagers=dict(wagers))


def test_a_refused_bet_is_tried_again_with_the_main_wager_alone() -> None:
    """If the table refuses the bet with side wagers, the bot bets the main wager alone
    once (it never repeats the refused bet)."""
    model = wire_model(table(100_000).view("T1"))
    client = Recording()
    bot = Autoplay(client)
    bot(model)
    assert len(client.sent) == 1 and len(client.sent[0]) == 10
    model.apply_error("WAGER_NOT_OFFERED", "refused", request_id="r1")
    bot(model)
    bot(model)
    assert client.sent[1:] == [{"blackjack": ALL_SIDES.rules.main_limits.minimum}]


def test_a_thinking_bot_waits_before_it_acts() -> None:
    """With ``think`` the bot leaves each new situation on the screen that long before it
    acts (the demo's windows and screenshots show the decision first)."""
    clock = Clock()
    model = wire_model(table(100_000).view("T1"))
    client = Recording()
    bot = Autoplay(client, think=0.8, now=clock.seconds)
    bot(model)
    clock.advance(0.5)
    bot(model)
    assert client.sent == []
    clock.advance(0.4)
    bot(model)
    assert len(client.sent) == 1
    with pytest.raises(ValueError, match="needs a clock"):
        Autoplay(client, think=1.0)
