"""A scripted table for the recovery tests: every next input follows from the session's state.

:func:`next_input` decides the table's next input (cash in/out between rounds, shoe change,
round start, wagers, deal, insurance answers, decisions) from the session alone, so a session
rebuilt from the log after a crash makes exactly the inputs the uninterrupted one would have
made. Both ``test_recovery.py`` and the ``kill -9`` worker drive the table with it.
"""

from __future__ import annotations

from typing import Any

from game_server.config import TableConfig, example_config_path, load_config, parse_config
from game_server.games.blackjack.rules.charts import blackjack_model, chart_for
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.sim import bot_action

#: Terminals and their seats.
TERMINALS = {"T1": 1, "T2": 2, "T3": 3}
#: A wallet below LOW is topped up by TOP_UP; above HIGH it is cashed out down to BASE, and
#: after every sixth round (5, 11, ...) down to 2 * LOW.
LOW = 20_000
TOP_UP = 100_000
HIGH = 110_000
BASE = 100_000


def small_shoe_config() -> TableConfig:
    """The example Rules Submission with a 2-deck shoe cut at card 60 (a new shoe about
    every five rounds), so that shoe changes happen often."""
    text = example_config_path().read_text(encoding="utf-8")
    text = text.replace("decks = 6 ", "decks = 2 ").replace("cut_card = 234", "cut_card = 60")
    config = parse_config(text, "small shoe")
    assert config.rules.decks == 2 and config.cut_card == 60
    return config


def wagers_for(round_id: int, seat: int) -> dict[str, int] | None:
    """The seat's wagers in a round (None: the seat sits the round out)."""
    if (round_id + seat) % 5 == 0:
        return None
    wagers = {"blackjack": 500 * (1 + (round_id * 7 + seat) % 5)}
    if seat == 2 and round_id % 2 == 0:
        wagers["lucky_aces"] = 100
    return wagers


def next_input(session: TableSession, strategy: BasicStrategy, rounds: int) -> str | None:
    """Make the table's next input; returns its name, or None when ``rounds`` are played."""
    game = session.round
    if game is None:
        for terminal in sorted(session.seats):
            held = session.balance(terminal)
            if held < LOW:
                session.cash_in(terminal, TOP_UP, f"top-up {terminal} r{session.round_id}")
                return "cash-in"
            keep = 2 * LOW if session.round_id % 6 == 5 else BASE
            if held > HIGH or (session.round_id % 6 == 5 and held > keep):
                session.cash_out(terminal, held - keep, f"voucher {terminal} r{session.round_id}")
                return "cash-out"
        if session.round_id >= rounds:
            return None
        if session.shoe is not None and session.shoe.needs_shuffle:
            session.retire_shoe()
            return "retire"
        session.start_round()
        return "start"
    if game.phase is Phase.BETTING:
        for terminal, seat in sorted(session.seats.items(), key=lambda item: item[1]):
            wagers = wagers_for(session.round_id, seat)
            if wagers is not None and seat not in game.seats:
                session.place_wagers(terminal, wagers)
                return "wager"
        session.deal()
        return "deal"
    if game.phase is Phase.INSURANCE:
        seat = game.pending_insurance[0]
        terminal = session.terminal_of[seat]
        if game.can_take_even_money(seat):
            session.take_even_money(terminal)
            return "even-money"
        if seat % 2 == 1 and game.can_insure(seat):
            session.insure(terminal, game.seats[seat].wagers["blackjack"] // 2)
            return "insure"
        session.decline_insurance(terminal)
        return "decline"
    hand = game.to_act
    assert hand is not None
    session.act(session.terminal_of[hand.seat], bot_action(game, strategy), hand.index)
    return "act"


def script_strategy(rules: BlackjackRules) -> BasicStrategy:
    """The decisions of the script: the shipped chart of the example's 6-deck rules played at
    ``rules``' table. The play must only be the same in every process; a chart derived for
    the 2-deck shoe would take seconds at every restart of the ``kill -9`` worker, and the
    kills would land in that derivation instead of in the table's writes."""
    example = load_config(example_config_path()).rules
    assert isinstance(example, BlackjackRules)
    return BasicStrategy(rules, chart_for(blackjack_model(example)))


def play(session: TableSession, rounds: int, on_step: Any = None) -> None:
    """Drive the table with :func:`next_input` until ``rounds`` rounds are played."""
    strategy = script_strategy(session.config.rules)
    while (label := next_input(session, strategy, rounds)) is not None:
        if on_step is not None:
            on_step(label)
