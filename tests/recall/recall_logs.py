"""Small, known event logs for the recall tests, written by the live table's own session.

:func:`build_log` plays two tables into one log through
:class:`~game_server.table.session.TableSession` and a real
:class:`~game_server.eventlog.EventLog` (hash chain, signed checkpoints), with a fake clock so
that every round's time is known:

- ``BJ-01`` offers Lucky Aces; terminals ``A1``-``A3`` at seats 1-3.
- ``BJ-02`` offers no side wager; terminals ``B1`` and ``B2`` at seats 2 and 5.
- Round ``i`` (1-based) of table ``k`` (0 for BJ-01, 1 for BJ-02) starts at
  ``START + (2 * (i - 1) + k)`` minutes; its steps are 100 ms apart.
- Seats sit out now and then, Lucky Aces is placed about half the time, some players take
  insurance, about a fifth of the decisions are the countdown's (``auto``); terminals start
  with $50 and are topped up inside a round when low (``credits_in`` with a round id).
- After the played rounds BJ-02 starts one more round that is dealt and never finished
  (interrupted): its hole card is never revealed. The last shoes stay unrevealed.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from game_server.config import example_config_path, load_config
from game_server.eventlog import EventLog
from game_server.games.blackjack.rules.round import BlackjackRound
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.sim import play_bots
from game_server.keys import key_id, load_public_key, load_sealing_key
from game_server.table.session import SealedShoes, simulation_seeds

START = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)
TABLES = {"BJ-01": {"A1": 1, "A2": 2, "A3": 3}, "BJ-02": {"B1": 2, "B2": 5}}


class StepClock:
    """A settable fake clock; each reading is 100 ms after the one before."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        moment = self.now
        self.now += timedelta(milliseconds=100)
        return moment


def round_start(table_index: int, round_number: int) -> datetime:
    """When round ``round_number`` of table ``table_index`` starts."""
    return START + timedelta(minutes=2 * (round_number - 1) + table_index)


def _play(session: TableSession, strategy: BasicStrategy, rng: random.Random) -> None:
    session.start_round()
    offers = [offer.wager.name for offer in session.config.rules.side_wagers]
    main = session.config.rules.main_limits.minimum
    playing = [t for t in session.seats if rng.random() < 0.8] or [next(iter(session.seats))]
    for terminal in playing:
        wagers = {"blackjack": main}
        for name in offers:
            if rng.random() < 0.5:
                wagers[name] = session.config.rules.offers[name].limits.minimum
        if session.balance(terminal) < 10 * sum(wagers.values()):
            session.cash_in(terminal, 10_000, "top-up")
        session.place_wagers(terminal, wagers)
    session.deal()

    def insure(game: BlackjackRound, seat: int) -> int:
        if game.can_insure(seat) and rng.random() < 0.5:
            return int(game.seats[seat].wagers["blackjack"] // 2)
        return 0

    play_bots(session, strategy, insure=insure, countdown=lambda: rng.random() < 0.2)


def build_log(db: Path, keys_dir: Path, *, rounds: int = 12, seed: int = 4) -> None:
    """Write the log described in the module docstring to ``db`` (keys from ``keys_dir``)."""
    base = load_config(example_config_path())
    sealing_key = load_sealing_key(keys_dir)
    kid = key_id(load_public_key(keys_dir))
    rng = random.Random(seed)
    clock = StepClock(START - timedelta(minutes=1))
    with EventLog.create_or_open(db, keys_dir, clock) as log:
        sessions = []
        for index, (table_id, seats) in enumerate(TABLES.items()):
            config = dataclasses.replace(base, table_id=table_id)
            if index:
                config = dataclasses.replace(
                    config, rules=dataclasses.replace(config.rules, side_wagers=())
                )
            shoes = SealedShoes(config, simulation_seeds(seed + index, table_id), sealing_key, kid)
            session = TableSession(config, log, shoes, seats)
            session.open()
            for terminal in seats:
                session.cash_in(terminal, 5_000, "cash")
            sessions.append((session, BasicStrategy(config.rules)))
        for number in range(1, rounds + 1):
            for index, (session, strategy) in enumerate(sessions):
                clock.now = round_start(index, number)
                _play(session, strategy, rng)
        session, strategy = sessions[1]
        for extra in range(1, 20):  # a round that is dealt and never finished
            clock.now = round_start(1, rounds + extra)
            session.start_round()
            for terminal in session.seats:
                session.place_wagers(terminal, {"blackjack": 500})
            session.deal()
            if session.round is not None:
                break
