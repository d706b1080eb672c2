"""``etg sim --log DB``: play simulated rounds through the live table's session and log them.

The rounds go through :class:`~game_server.table.session.TableSession` exactly as the live
table plays them (sealed shoes, wallets, one transaction per step, a signed checkpoint at
every round close), so recall and verification work on a simulated log as on a real one.
Basic-strategy bots play every seat; each seat's terminal is cashed in at the start and topped
up when its credits run low.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from game_server.config import TableConfig
from game_server.eventlog import EventLog, EventLogReader, system_clock
from game_server.keys import key_id, load_public_key, load_sealing_key, load_signing_key
from game_server.rules.blackjack.actions import Action
from game_server.rules.blackjack.round import BlackjackRound, Phase
from game_server.rules.blackjack.strategy import BasicStrategy
from game_server.rules.events import from_dict
from game_server.table.session import SealedShoes, TableSession, simulation_seeds
from shared.cards import BJ_VALUE

#: Credits each simulated terminal starts with, and the top-up when it runs low.
SIM_CREDITS = 1_000_000


def bot_action(game: BlackjackRound, strategy: BasicStrategy) -> Action:
    """The basic-strategy decision for the hand to act, asking the engine what is legal."""
    hand = game.to_act
    assert hand is not None
    cards = hand.cards
    pair = BJ_VALUE[cards[0]] if len(cards) == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]] else 0
    seat, index = hand.seat, hand.index
    return strategy.decide(
        hand.total,
        hand.soft,
        pair,
        BJ_VALUE[game.dealer[0]],
        game.can_double(seat, index),
        game.can_split(seat, index),
        game.can_surrender(seat, index),
    )


def play_bots(
    session: TableSession,
    strategy: BasicStrategy,
    *,
    insure: Callable[[BlackjackRound, int], int] | None = None,
    countdown: Callable[[], bool] | None = None,
) -> None:
    """Play the dealt round of ``session`` to its end with bots on every seat.

    Args:
        session: a session whose round has just been dealt.
        strategy: the bots' basic strategy.
        insure: amount of insurance a seat takes (0 declines); by default every seat declines,
            as basic strategy does.
        countdown: when it returns True the bot lets the countdown act instead (the table's
            countdown default, logged as made by the countdown).
    """
    game = session.round
    while game is not None and game.phase is Phase.INSURANCE:
        seat = game.pending_insurance[0]
        terminal = session.terminal_of[seat]
        amount = insure(game, seat) if insure is not None else 0
        if amount:
            session.insure(terminal, amount)
        else:
            session.decline_insurance(terminal, auto=countdown is not None and countdown())
    while game is not None and game.phase is Phase.PLAYING:
        hand = game.to_act
        assert hand is not None
        terminal = session.terminal_of[hand.seat]
        if countdown is not None and countdown():
            session.act(terminal, game.countdown_action(), hand.index, auto=True)
        else:
            session.act(terminal, bot_action(game, strategy), hand.index)


def run_logged_sim(
    config: TableConfig,
    db: Path,
    certs: Path,
    *,
    rounds: int,
    seats: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> TableSession:
    """Play ``rounds`` rounds at ``seats`` seats and write the complete event log to ``db``.

    The shoes come from test seeds derived from ``seed`` (a simulation, not production); they
    are sealed with the shoe-sealing key of ``certs`` and revealed when retired, and the last
    shoe is revealed at the end so that every card can be verified.
    """
    signing_key = load_signing_key(certs)
    sealing_key = load_sealing_key(certs)
    shoes = SealedShoes(
        config, simulation_seeds(seed, config.table_id), sealing_key, key_id(load_public_key(certs))
    )
    terminals = {f"T{seat}": seat for seat in range(1, seats + 1)}
    strategy = BasicStrategy(config.rules)
    wagers = {"blackjack": config.rules.main_limits.minimum}
    for offer in config.rules.side_wagers:
        wagers[offer.wager.name] = offer.limits.minimum
    stake = sum(wagers.values())
    with EventLog.create_or_open(db, signing_key, system_clock) as log:
        session = TableSession(config, log, shoes, terminals)
        session.open()
        for terminal in terminals:
            session.cash_in(terminal, SIM_CREDITS, "sim")
        for done in range(rounds):
            session.start_round()
            for terminal in terminals:
                if session.balance(terminal) < 10 * stake:
                    session.cash_in(terminal, SIM_CREDITS, "sim top-up")
                session.place_wagers(terminal, wagers)
            session.deal()
            play_bots(session, strategy)
            if progress is not None:
                progress(done + 1)
        session.retire_shoe()
    return session


def logged_rounds(db: Path) -> Iterator[list[Any]]:
    """The decoded events of each round of a log, round by round, in log order."""
    with closing(EventLogReader.open(db)) as reader:
        current: list[Any] = []
        current_round: int | None = None
        for stored in reader.iter_events():
            if stored.round_id is None:
                continue
            if stored.round_id != current_round and current:
                yield current
                current = []
            current_round = stored.round_id
            current.append(from_dict(stored.body))
        if current:
            yield current
