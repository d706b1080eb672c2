"""Issue 39: each published strategy is written once, in ``shared/games/<game>/strategy.py``,
where the server and the terminal both import it. The terminal's demo bot reads a hand from
the view's text; the server reads it with its poker ranking: over a seeded sample of deals
both must decide alike (a misreading on either side, or a copy drifting from the rule, fails
here)."""

from __future__ import annotations

import random

import pytest

from game_server.games.caribbean.rules import analysis as caribbean
from game_server.games.caribbean.rules.rules import hand_name
from game_server.games.fourcard.rules import analysis as fourcard
from game_server.rules.poker import Category5, rank_hand
from shared.cards import Card, standard_deck
from terminal_client.games.caribbean.model import demo_decision
from terminal_client.games.fourcard.game import simple_strategy

DEALS = 20_000


@pytest.fixture(scope="module")
def deals() -> list[tuple[Card, ...]]:
    rng = random.Random(39)  # a fixed seed: the same sample every run
    deck = list(standard_deck())
    return [tuple(rng.sample(deck, 6)) for _ in range(DEALS)]


def test_caribbean_demo_bot_bets_as_the_servers_simple_strategy(
    deals: list[tuple[Card, ...]],
) -> None:
    """The server's simple strategy (its ranking of the five cards) and the demo bot's (the
    view's hand name and the cards' text) bet the same hands against the same up card."""
    differ = []
    for *cards, up in deals:
        server = caribbean.simple_decision(cards, up)
        name = hand_name(Category5(rank_hand(cards).category))
        terminal = demo_decision(name, [str(c) for c in cards], str(up))
        if server != (terminal == "bet"):
            differ.append((cards, up))
    assert differ == []


def test_fourcard_demo_bot_plays_as_the_servers_simple_strategy(
    deals: list[tuple[Card, ...]],
) -> None:
    """The server's simple strategy (the value of the best four of five) and the demo bot's
    (its reading of the five cards' text) play the same multiple."""
    differ = []
    for *hand, _ in deals:
        five = hand[:5]
        server = fourcard.simple_decision(fourcard.hand_value(five))
        terminal = simple_strategy([str(c) for c in five])
        wanted = f"play{server}" if server else "fold"
        if terminal != wanted:
            differ.append((five, server, terminal))
    assert differ == []
