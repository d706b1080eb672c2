"""``etg sim --log DB``: play simulated rounds through the live table's session and log them.

The rounds go through :class:`~game_server.table.session.TableSession` exactly as the live
table plays them (sealed shoes, wallets, one transaction per step, a signed checkpoint at
every round close), so recall and verification work on a simulated log as on a real one.
Basic-strategy bots play every seat; each seat's terminal is cashed in at the start and topped
up when its credits run low.

The hybrid tables of 58 Pa. Code 633b.5 go through
:class:`~game_server.games.hybrid.session.HybridSession` instead (stadium play, no seats):
``--seats`` terminals join every round, at the three-position table terminal ``Tn`` on
position ``(n - 1) % 3 + 1`` as in ``etg sim`` without a log (so four or more terminals share
positions), and each decides by the basic strategy of :mod:`tools.sim_hybrid`.

A simulation writes a NEW log, marked as a simulation's (``meta.log_kind``): its shoes come
from test seeds and its terminals are credited with play money, so it is never written into
a table server's log (nor a table server into it), and an existing log is refused with a
sentence (:func:`open_sim_log`).

Entry points: :func:`run_logged_sim`, :func:`logged_rounds`, :func:`open_sim_log`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from game_server.config import TableConfig
from game_server.eventlog import (
    SIMULATION_LOG,
    AnchorFile,
    EventLog,
    EventLogError,
    EventLogReader,
    LogKindMismatch,
    schema,
    system_clock,
)
from game_server.eventlog.sqlite_store import kind_refusal
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.round import BlackjackRound, Phase
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession
from game_server.games.hybrid.rules.no_hole_card import NoHoleCardRound
from game_server.games.hybrid.rules.three_position import ThreePositionRound
from game_server.games.hybrid.session import HybridSession
from game_server.keys import key_id, load_public_key, load_sealing_key, load_signing_key
from game_server.rules.events import from_dict
from game_server.rules.wagers.base import TableType
from game_server.table.session import SealedShoes, simulation_seeds
from shared.cards import BJ_VALUE
from tools.sim import table_wagers
from tools.sim_hybrid import no_hole_card_decision, three_position_decision

#: Credits each simulated terminal starts with, and the top-up when it runs low.
SIM_CREDITS = 1_000_000


def open_sim_log(db: Path, signing_key: Ed25519PrivateKey, anchors: Path | None) -> EventLog:
    """Create the log of a simulation at ``db`` (kind ``"simulation"``), anchored to
    ``anchors`` when given.

    Raises:
        LogKindMismatch: ``db`` is a table server's log (nothing is written to it).
        SimLogExists: ``db`` already holds a simulation.
        EventLogError: ``db`` is not an event log, or cannot be created.
    """
    found = schema.inspect(db)
    if found.found is schema.Found.LOG:
        if found.log_kind != SIMULATION_LOG:
            raise LogKindMismatch(kind_refusal(db, found.log_kind))
        raise SimLogExists(
            f"{db} already holds a simulation; etg sim --log writes a new log (its rounds "
            "would start again at round 1). Give --log a new file."
        )
    return EventLog.create_or_open(
        db,
        signing_key,
        system_clock,
        kind=SIMULATION_LOG,
        anchors=None if anchors is None else AnchorFile(anchors),
    )


class SimLogExists(EventLogError):
    """``etg sim --log`` given a file that already holds a simulation's log."""


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
    anchors: Path | None = None,
) -> TableSession | HybridSession:
    """Play ``rounds`` rounds at ``seats`` seats and write the complete event log to ``db``.

    The shoes come from test seeds derived from ``seed`` (a simulation, not production); they
    are sealed with the shoe-sealing key of ``certs`` and revealed when retired, and the last
    shoe is revealed at the end so that every card can be verified. A hybrid table (633b.5)
    is played by :func:`run_logged_hybrid_sim` with ``seats`` terminals. Every checkpoint
    also goes to the anchor stream ``anchors`` when given.
    """
    signing_key = load_signing_key(certs)
    sealing_key = load_sealing_key(certs)
    shoes = SealedShoes(
        config, simulation_seeds(seed, config.table_id), sealing_key, key_id(load_public_key(certs))
    )
    if config.table_type is not TableType.FULLY_AUTOMATED:
        return run_logged_hybrid_sim(
            config,
            db,
            signing_key,
            shoes,
            rounds=rounds,
            terminals=seats,
            progress=progress,
            anchors=anchors,
        )
    terminals = {f"T{seat}": seat for seat in range(1, seats + 1)}
    strategy = BasicStrategy(config.rules)
    wagers = {"blackjack": config.rules.main_limits.minimum}
    for offer in config.rules.side_wagers:
        wagers[offer.wager.name] = offer.limits.minimum
    stake = sum(wagers.values())
    with open_sim_log(db, signing_key, anchors) as log:
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


def play_hybrid_bots(session: HybridSession, strategy: BasicStrategy) -> None:
    """Play the dealt round of a hybrid ``session`` to its close: every terminal in the round
    declines insurance (as basic strategy does) and plays basic strategy on its own hands, in
    the order of :mod:`tools.sim_hybrid`'s drivers; at the three-position table, once no one
    has a decision left, the round is finished (633b.5(p)(2))."""
    game = session.round
    if game is None:  # the deal settled the round
        return
    engine = game.engine
    if isinstance(engine, ThreePositionRound):
        _play_three_position(session, engine, strategy)
        return
    assert isinstance(engine, NoHoleCardRound)
    terminal_of = {
        number: terminal
        for terminal in session.terminals
        if (number := game.player_of(terminal)) is not None
    }
    _play_no_hole_card(session, engine, terminal_of, strategy)


def _round_open(session: HybridSession) -> bool:
    """Whether the round is still open (each step may close it)."""
    return session.round is not None


def _play_three_position(
    session: HybridSession, engine: ThreePositionRound, strategy: BasicStrategy
) -> None:
    while _round_open(session):
        waiting = engine.pending_players
        if not waiting:
            session.finish()
            return
        for terminal in waiting:
            if not _round_open(session):
                return
            if terminal in engine.pending_insurance:
                session.decline_insurance(terminal)
                continue
            hand = engine.to_act(terminal)
            if hand is not None:
                session.act(
                    terminal, three_position_decision(strategy, engine, terminal, hand), hand
                )


def _play_no_hole_card(
    session: HybridSession,
    engine: NoHoleCardRound,
    terminal_of: dict[int, str],
    strategy: BasicStrategy,
) -> None:
    while _round_open(session):
        waiting = engine.pending()
        if not waiting:
            raise RuntimeError(f"round {session.round_id} waits for no one but did not close")
        for number in waiting:
            if not _round_open(session):
                return
            terminal = terminal_of[number]
            if engine.pending_insurance(number):
                session.decline_insurance(terminal)
                continue
            hand = engine.to_act(number)
            if hand is not None:
                session.act(terminal, no_hole_card_decision(strategy, engine, number, hand), hand)


def run_logged_hybrid_sim(
    config: TableConfig,
    db: Path,
    signing_key: Ed25519PrivateKey,
    shoes: SealedShoes,
    *,
    rounds: int,
    terminals: int,
    progress: Callable[[int], None] | None = None,
    anchors: Path | None = None,
) -> HybridSession:
    """Play ``rounds`` rounds of a hybrid table (633b.5) with ``terminals`` basic-strategy
    terminals and write the complete event log to ``db`` (see :func:`run_logged_sim`).

    Every terminal joins every round with the table's wagers (the Blackjack minimum and each
    side wager offered, as ``etg sim`` places them); at the three-position table terminal
    ``Tn`` plays position ``(n - 1) % 3 + 1`` (633b.5(l)). Each terminal is cashed in at the
    start and topped up when its credits run low, as at the fully automated table.
    """
    names = [f"T{n}" for n in range(1, terminals + 1)]
    three = config.table_type is TableType.HYBRID
    positions = {name: (n % 3 + 1 if three else None) for n, name in enumerate(names)}
    strategy = BasicStrategy(config.rules)
    wagers = table_wagers(config.rules)
    stake = sum(wagers.values())
    with open_sim_log(db, signing_key, anchors) as log:
        session = HybridSession(config, log, shoes, names)
        session.open()
        for name in names:
            session.cash_in(name, SIM_CREDITS, "sim")
        for done in range(rounds):
            session.start_round()
            for name in names:
                if session.balance(name) < 10 * stake:
                    session.cash_in(name, SIM_CREDITS, "sim top-up")
                session.join(name, wagers, positions[name])
            session.deal()
            play_hybrid_bots(session, strategy)
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
