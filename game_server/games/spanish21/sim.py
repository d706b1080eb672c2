"""Spanish 21 simulated: bots playing the basic strategy through the engine (``etg sim``) and
through the live table's session (``etg sim --log``, ``etg par``).

Each bot places the Spanish 21 minimum and every offered wager (Match the Dealer at the
table's one amount), never takes insurance, and plays
:class:`~game_server.games.spanish21.rules.strategy.Spanish21Strategy`, asking the engine what
is legal. The round's records are tallied by Blackjack's
:func:`~game_server.games.blackjack.sim.tally` (a double down with its wager, the super bonus,
``blackjack_bonus``, with it too).

Entry points: :class:`Spanish21Driver`, :func:`sim_driver`, :func:`bot_action`,
:func:`play_bots`, :func:`logged_sim`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from game_server import simlog
from game_server.config import TableConfig
from game_server.games.blackjack.meters import SimMeters
from game_server.games.blackjack.rules.events import DOUBLE
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.sim import table_wagers
from game_server.games.spanish21.rules.round import Spanish21Action, Spanish21Round
from game_server.games.spanish21.rules.rules import Spanish21Rules
from game_server.games.spanish21.rules.strategy import Spanish21Strategy, strategy_for
from game_server.games.spanish21.session import Spanish21Session
from game_server.sim import Dealable, ShoeFactory, SimSpec, seeded_shoes
from game_server.table.session import EventSink, SealedShoes

__all__ = ["Spanish21Driver", "bot_action", "logged_sim", "play_bots", "sim_driver"]


def bot_action(game: Spanish21Round, strategy: Spanish21Strategy | None = None) -> Spanish21Action:
    """The basic-strategy decision for the hand to act (the analysis' chart of the round's
    rules if ``strategy`` is None), asking the engine what is legal."""
    if strategy is None:
        strategy = strategy_for(game.rules)
    hand = game.to_act
    assert hand is not None
    seat, index = hand.seat, hand.index
    return strategy.decide(
        hand.cards,
        hand.total,
        hand.soft,
        game.dealer[0],
        doubled=DOUBLE in hand.wagers,
        can_double=game.can_double(seat, index),
        can_split=game.can_split(seat, index),
        can_surrender=game.can_surrender(seat, index),
    )


class Spanish21Driver:
    """Plays whole rounds through the engine with bots on ``seats`` seats, from the shoes of
    ``shoes`` (a new one every round with ``every_round``, else at the cut card)."""

    def __init__(
        self,
        rules: Spanish21Rules,
        shoes: ShoeFactory,
        seats: int,
        *,
        every_round: bool,
        main_wager: int | None = None,
        meters: SimMeters | None = None,
    ) -> None:
        if not 1 <= seats <= rules.seats:
            raise ValueError(f"this table has seats 1..{rules.seats}; cannot play {seats} seats")
        self.rules = rules
        self.shoes = shoes
        self.seats = tuple(range(1, seats + 1))
        self.every_round = every_round
        self.wagers = table_wagers(rules, main_wager)
        self.strategy = strategy_for(rules, main_wager)
        self.shoe_number = -1
        self._shoe: Dealable | None = None
        self.meters = meters

    def play_round(self) -> list[Any]:
        """One round from the wagers to the last settlement: every record, in order."""
        shoe = self._shoe
        if shoe is None or self.every_round or shoe.needs_shuffle:
            self.shoe_number += 1
            shoe = self._shoe = self.shoes(self.shoe_number)
        game = Spanish21Round(self.rules)
        events = game.place_wagers_on(self.seats, self.wagers)
        events += game.deal(shoe)
        for seat in game.pending_insurance:
            events += game.decline_insurance(seat)
        while game.phase is Phase.PLAYING:
            hand = game.to_act
            assert hand is not None
            events += game.act(bot_action(game, self.strategy), hand.seat, hand.index)
        if self.meters is not None:
            events += self.meters.play({n: seat.wagers for n, seat in game.seats.items()}, events)
        return events


def sim_driver(spec: SimSpec, chunk: int) -> Spanish21Driver:
    """The driver of chunk ``chunk`` of a simulation: its own table id, so its own shoes."""
    cut = None if spec.every_round else spec.cut_card
    table_id = f"{spec.table_id}-{chunk}"
    shoes = seeded_shoes(spec.rules.decks, cut, spec.seed, table_id)
    meters = SimMeters.for_table(
        spec.rules, spec.must_hit_by, range(1, spec.seats + 1), seed=spec.seed, table_id=table_id
    )
    return Spanish21Driver(
        spec.rules,
        shoes,
        spec.seats,
        every_round=spec.every_round,
        main_wager=spec.main_wager,
        meters=meters,
    )


def play_bots(session: Spanish21Session, countdown: Callable[[], bool] | None = None) -> None:
    """Play the dealt round of ``session`` to its end with bots on every seat (insurance
    declined); ``countdown`` returning True lets the countdown act instead."""
    game = session.round
    strategy = None if game is None else strategy_for(game.rules)
    while game is not None and game.phase is Phase.INSURANCE:
        terminal = session.terminal_of[game.pending_insurance[0]]
        session.decline_insurance(terminal, auto=countdown is not None and countdown())
    while game is not None and game.phase is Phase.PLAYING:
        hand = game.to_act
        assert hand is not None
        terminal = session.terminal_of[hand.seat]
        if countdown is not None and countdown():
            session.act(terminal, game.countdown_action(), hand.index, auto=True)
        else:
            session.act(terminal, bot_action(game, strategy), hand.index)


def logged_sim(
    config: TableConfig,
    log: EventSink,
    shoes: SealedShoes,
    *,
    rounds: int,
    seats: int,
    progress: Callable[[int], None] | None = None,
) -> Spanish21Session:
    """``etg sim --log``: ``rounds`` rounds at ``seats`` seats (terminals ``T1``..) through the
    live table's session writing to ``log``, each terminal cashed in with play money and
    topped up when low; the last shoe retired at the end so that every card verifies."""
    terminals = {f"T{seat}": seat for seat in range(1, seats + 1)}
    wagers = table_wagers(config.rules)
    stake = sum(wagers.values())
    session = Spanish21Session(config, log, shoes, terminals)
    session.open()
    for terminal in terminals:
        session.cash_in(terminal, simlog.SIM_CREDITS, "sim")
    for done in range(rounds):
        session.start_round()
        for terminal in terminals:
            if session.balance(terminal) < 10 * stake:
                session.cash_in(terminal, simlog.SIM_CREDITS, "sim top-up")
            session.place_wagers(terminal, wagers)
        session.deal()
        play_bots(session)
        if progress is not None:
            progress(done + 1)
    session.retire_shoe()
    return session
