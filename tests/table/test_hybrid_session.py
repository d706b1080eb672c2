"""The hybrid table session (58 Pa. Code 633b.5): stadium terminals, every step logged, wallets
as the fold of the log.

Basic-strategy terminals (the decisions of ``game_server/games/hybrid/sim.py``) play whole
rounds on both hybrid table types through :class:`HybridSession`, over a MemorySink and once
over a real event log; after every input the credits are conserved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from logged_records import logged_records

from game_server.config import TableConfig, example_config_path, example_path, load_config
from game_server.eventlog import EventLog, EventLogReader
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import CardDealt, RoundCompleted, WagerPlaced
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession
from game_server.games.hybrid.rules.events import Hybrid3WagerPlaced, Hybrid3WagerSettled
from game_server.games.hybrid.rules.no_hole_card import NoHoleCardRound
from game_server.games.hybrid.rules.three_position import ThreePositionRound
from game_server.games.hybrid.session import (
    HybridSession,
    NotInRound,
    PositionRefused,
    _NoHoleCard,
    _ThreePosition,
)
from game_server.games.hybrid.sim import session_decision
from game_server.keys import init_keys, key_id, load_public_key, load_sealing_key
from game_server.rules.errors import ActionNotAllowed, WrongPhase
from game_server.rules.events import from_dict
from game_server.table.events import CardsUnsealed, RoundClosed, RoundStarted, ShoeCommitted
from game_server.table.ledger import Ledger
from game_server.table.session import (
    EventSink,
    InsufficientCredits,
    MemorySink,
    SealedShoes,
    TableError,
    UnknownTerminal,
    simulation_seeds,
)

THREE = load_config(example_path("hybrid-three-position.toml"))
NO_HOLE = load_config(example_path("hybrid-no-hole-card.toml"))
KEY = bytes(range(32))
TERMINALS = ("T1", "T2", "T3", "T4")
#: Terminal -> position at the three-position table: T1 and T2 share position 2.
POSITIONS = {"T1": 2, "T2": 2, "T3": 1, "T4": 3}


def make_session(
    config: TableConfig, seed: int = 3, sink: EventSink | None = None
) -> tuple[HybridSession, EventSink]:
    sink = MemorySink() if sink is None else sink
    shoes = SealedShoes(config, simulation_seeds(seed, config.table_id), KEY, "test-key")
    session = HybridSession(config, sink, shoes, TERMINALS)
    session.open()
    return session, sink


def logged(sink: MemorySink) -> list[tuple[str | None, Any]]:
    """The log's records, each round whole (its sealed cards filled in)."""
    return logged_records(sink)


def step(session: HybridSession, call: Callable[..., list[Any]], *args: Any) -> list[Any]:
    """One input, ``call(*args)``; the credits are conserved after it."""
    events = call(*args)
    assert session.ledger.conserved()
    return events


def play_round(
    session: HybridSession, bets: dict[str, int], *, countdown: str | None = None
) -> None:
    """One whole round: the terminals in ``bets`` join, the cards are dealt, basic strategy
    plays every hand; ``countdown`` lets the countdown act for that terminal instead."""
    strategy = BasicStrategy(session.config.rules)
    three = session.config.table_type == "hybrid"
    step(session, session.start_round)
    for terminal, amount in bets.items():
        position = POSITIONS[terminal] if three else None
        step(session, session.join, terminal, {"blackjack": amount}, position)
    step(session, session.deal)
    while session.round is not None:
        waiting = session.pending()
        if not waiting:
            step(session, session.finish)
            break
        terminal = waiting[0]
        if terminal == countdown:
            step(session, session.countdown, terminal)
        elif session.waits_for_insurance(terminal):
            step(session, session.decline_insurance, terminal)
        else:
            hand = session.to_act(terminal)
            assert hand is not None
            action = session_decision(strategy, session, terminal, hand)
            step(session, session.act, terminal, action, hand)


def check_closes(events: Sequence[tuple[str | None, Any]]) -> int:
    """Every RoundClosed holds each terminal's credits as the log folds them at that point;
    returns how many rounds closed."""
    ledger = Ledger()
    closed = 0
    for terminal, ev in events:
        ledger.apply(terminal, ev)
        if type(ev) is RoundClosed:
            closed += 1
            assert ev.terminals == TERMINALS
            assert ev.balances == tuple(ledger.wallets.get(t, 0) for t in TERMINALS)
    return closed


@pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_terminals_play_rounds_and_the_wallets_are_the_fold_of_the_log(
    config: TableConfig,
) -> None:
    """633b.5(l): four terminals (two of them on one position at the three-position table)
    play 80 rounds with basic strategy, the countdown standing for one of them; credits are
    conserved after every input, each round closes with every terminal's credits equal to the
    fold of the log, and the refold of the whole log equals the live wallets."""
    session, sink = make_session(config)
    assert isinstance(sink, MemorySink)
    for terminal in TERMINALS:
        step(session, session.cash_in, terminal, 100_000, "ticket")
    bets = {"T1": 1_000, "T2": 500, "T3": 2_500, "T4": 500}
    for number in range(80):
        play_round(session, bets, countdown="T4" if number % 5 == 0 else None)
    step(session, session.cash_out, "T2", None, "voucher")
    events = logged(sink)
    assert check_closes(events) == 80
    refold = Ledger()
    refold.apply_all(events)
    assert refold.wallets == session.ledger.wallets
    assert refold.conserved() and refold.games_played == 80
    assert session.balance("T2") == 0
    # The last round's close, then the cash out's own checkpoint (a money movement is
    # answered only once a checkpoint covering it is anchored).
    assert [reason for _, reason in sink.checkpoints[-2:]] == ["round-close", "money-moved"]
    placed = [ev for _, ev in events if type(ev) in (WagerPlaced, Hybrid3WagerPlaced)]
    assert refold.meters["blackjack"].placed == sum(1 for ev in placed if ev.wager == "blackjack")
    started = [ev for _, ev in events if type(ev) is RoundStarted]
    assert started[0].terminals == TERMINALS and started[0].balances == (100_000,) * 4
    shoes = [ev.shoe for _, ev in events if type(ev) is ShoeCommitted]
    assert len(shoes) >= 2, "80 rounds go past the cut card"
    assert {ev.shoe for ev in started} == set(shoes)


def test_shared_position_players_decide_for_themselves() -> None:
    """633b.5(l), (p)(2): T1 and T2 both play position 2; each gets the position's cards and
    his own wager records and settlements, written under his own terminal."""
    session, sink = make_session(THREE, seed=8)
    assert isinstance(sink, MemorySink)
    for terminal in ("T1", "T2"):
        session.cash_in(terminal, 10_000, "t")
    play_round(session, {"T1": 1_000, "T2": 500})
    events = logged(sink)
    for owner, ev in events:
        if type(ev) in (Hybrid3WagerPlaced, Hybrid3WagerSettled):
            assert ev.position == 2 and owner == ev.player
    cards = [ev for _, ev in events if type(ev) is CardDealt and ev.seat != 0]
    assert {ev.seat for ev in cards[:2]} == {2}, "one position's cards, shared by both"
    assert {t for t, ev in events if type(ev) is Hybrid3WagerSettled} == {"T1", "T2"}


def test_no_hole_card_players_are_numbered_in_join_order() -> None:
    """633b.5(y): the engine numbers the round's players 1, 2, ... as they join; every event
    of player n is logged under the terminal that joined n-th, so the log holds the mapping."""
    session, sink = make_session(NO_HOLE, seed=4)
    assert isinstance(sink, MemorySink)
    for terminal in TERMINALS:
        session.cash_in(terminal, 10_000, "t")
    session.start_round()
    order = ("T3", "T1", "T4")
    for terminal in order:
        session.join(terminal, {"blackjack": 500})
    game = session.round
    assert isinstance(game, _NoHoleCard)
    assert game.numbers == {"T3": 1, "T1": 2, "T4": 3}
    strategy = BasicStrategy(NO_HOLE.rules)
    session.deal()
    while session.round is not None:
        terminal = session.pending()[0]
        if session.waits_for_insurance(terminal):
            session.decline_insurance(terminal)
        else:
            hand = session.to_act(terminal)
            assert hand is not None
            session.act(terminal, session_decision(strategy, session, terminal, hand), hand)
    for owner, ev in logged(sink):
        seat = getattr(ev, "seat", None)
        if isinstance(seat, int) and seat > 0 and type(ev) is not CardDealt:
            assert owner == order[seat - 1], ev
        elif type(ev) is CardDealt:
            assert owner is None, "shared and community cards belong to no terminal"


@pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_refusals_log_nothing(config: TableConfig) -> None:
    """A wager over the credits, an unknown terminal, a missing or unwanted position, a
    decision from a terminal not in the round and a wager after the deal are refused with a
    clear error, and nothing is written."""
    session, sink = make_session(config, seed=7)
    assert isinstance(sink, MemorySink)
    three = config.table_type == "hybrid"
    position = 1 if three else None
    session.cash_in("T1", 1_000, "t")
    session.start_round()
    steps = len(sink.steps)
    with pytest.raises(InsufficientCredits, match=r"more than the \$10.00 credits of terminal T1"):
        session.join("T1", {"blackjack": 2_000}, position)
    with pytest.raises(UnknownTerminal, match="not a terminal of this table"):
        session.join("T9", {"blackjack": 500}, position)
    with pytest.raises(PositionRefused, match=r"633b\.5"):
        session.join("T1", {"blackjack": 500}, None if three else 1)
    assert len(sink.steps) == steps
    session.join("T1", {"blackjack": 1_000}, position)
    session.deal()
    assert session.round is not None, "this seed's first deal must leave a decision open"
    steps = len(sink.steps)
    with pytest.raises(WrongPhase, match="no more bets"):
        session.join("T1", {"blackjack": 500}, position)
    with pytest.raises(NotInRound, match="terminal T2 has no wager in this round"):
        session.act("T2", Action.STAND, 0)
    with pytest.raises(TableError, match="wagers in play"):
        session.cash_out("T1", None, "v")
    assert len(sink.steps) == steps


@pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_double_and_split_need_the_credits(config: TableConfig) -> None:
    """633a.10, 633a.11: a double down or split larger than the remaining credits is refused
    before the engine acts (nothing logged), so a wallet never goes below zero."""
    session, sink = make_session(config, seed=11)
    assert isinstance(sink, MemorySink)
    position = 1 if config.table_type == "hybrid" else None
    session.cash_in("T1", 1_000, "t")
    refused: set[Action] = set()
    for _ in range(300):
        extra = session.balance("T1") - 1_000  # exactly the wager: nothing left to double
        if extra > 0:
            session.cash_out("T1", extra, "voucher")
        elif extra < 0:
            session.cash_in("T1", -extra, "top-up")
        session.start_round()
        session.join("T1", {"blackjack": 1_000}, position)
        session.deal()
        while session.round is not None:
            if session.waits_for_insurance("T1"):
                session.decline_insurance("T1")
                continue
            hand = session.to_act("T1")
            assert hand is not None
            for action in (Action.DOUBLE, Action.SPLIT):
                game = session.round
                legal = (
                    game.game.legal_actions("T1")
                    if isinstance(game, _ThreePosition)
                    else game.game.legal_actions(1)
                    if isinstance(game, _NoHoleCard)
                    else frozenset()
                )
                if action in legal:
                    steps = len(sink.steps)
                    with pytest.raises(InsufficientCredits, match=f"the {action.value}"):
                        session.act("T1", action, hand)
                    assert len(sink.steps) == steps
                    refused.add(action)
            session.act("T1", Action.STAND, hand)
        assert session.ledger.conserved()
        if refused == {Action.DOUBLE, Action.SPLIT}:
            return
    pytest.fail(f"only {refused} came up in 300 rounds")


def test_the_countdown_finishes_a_three_position_round() -> None:
    """633b.5(p)(2): when the countdown runs out for everyone, every pending answer is
    declined and every hand stands (auto), and the round settles and closes in that step."""
    session, sink = make_session(THREE, seed=2)
    assert isinstance(sink, MemorySink)
    session.cash_in("T1", 10_000, "t")
    session.cash_in("T2", 10_000, "t")
    for _ in range(10):
        session.start_round()
        session.join("T1", {"blackjack": 500}, 1)
        session.join("T2", {"blackjack": 500, "buzzer_beater": 100}, 3)
        session.deal()
        if session.round is not None:
            kinds = [type(ev) for ev in session.finish()]
            # The close unseals the hole card (its own record, before round_closed).
            assert [k for k in kinds if k is not CardsUnsealed][-2:] == [
                RoundCompleted,
                RoundClosed,
            ]
        assert session.round is None and session.ledger.conserved()
    assert check_closes(logged(sink)) == 10


def test_no_hole_card_table_has_no_finish_nor_even_money() -> None:
    """633b.5(z): the no-hole-card table's countdown acts player by player and it offers no
    even money; both are refused with a sentence saying so."""
    session, _ = make_session(NO_HOLE)
    session.cash_in("T1", 10_000, "t")
    session.start_round()
    session.join("T1", {"blackjack": 500})
    with pytest.raises(TableError, match=r"countdown\(terminal\)"):
        session.finish()
    with pytest.raises(ActionNotAllowed, match="even money is not offered"):
        session.take_even_money("T1")


def test_a_fully_automated_config_is_refused() -> None:
    """HybridSession runs only the hybrid tables of 633b.5 and names the type it refuses."""
    config = load_config(example_config_path())
    shoes = SealedShoes(config, simulation_seeds(1, config.table_id), KEY, "k")
    with pytest.raises(TableError, match="is a fully-automated table"):
        HybridSession(config, MemorySink(), shoes, TERMINALS)


@pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_table_session_still_refuses_hybrid_tables(config: TableConfig) -> None:
    """The fully automated TableSession is unchanged: it refuses a hybrid Rules Submission."""
    shoes = SealedShoes(config, simulation_seeds(1, config.table_id), KEY, "k")
    with pytest.raises(TableError, match=r"633b\.5"):
        TableSession(config, MemorySink(), shoes, {"T1": 1})


def test_engines_are_the_ones_of_the_table_type() -> None:
    """The table type picks the engine: the three-position round for ``hybrid``, the
    no-hole-card round for ``hybrid-no-hole-card``."""
    for config, engine in ((THREE, ThreePositionRound), (NO_HOLE, NoHoleCardRound)):
        session, _ = make_session(config)
        session.start_round()
        assert session.round is not None and type(session.round.engine) is engine


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_a_real_event_log_folds_to_the_wallets(config: TableConfig, tmp_path: Path) -> None:
    """Written to a real signed event log, the hybrid table's steps read back (every event
    kind decodes) and fold to the live wallets; the credits are conserved."""
    keys = tmp_path / "keys"
    keys.mkdir()
    init_keys(keys)
    db = tmp_path / "log.db"
    kid = key_id(load_public_key(keys))
    with EventLog.create_or_open(db, keys, _Clock()) as log:
        shoes = SealedShoes(
            config, simulation_seeds(5, config.table_id), load_sealing_key(keys), kid
        )
        session = HybridSession(config, log, shoes, TERMINALS)
        session.open()
        for terminal in TERMINALS:
            session.cash_in(terminal, 50_000, "ticket")
        for _ in range(8):
            play_round(session, {"T1": 1_000, "T2": 500, "T3": 500})
        wallets = dict(session.ledger.wallets)
    with closing(EventLogReader.open(db)) as reader:
        stored = [(e.terminal, from_dict(e.body)) for e in reader.iter_events()]
    assert check_closes(stored) == 8
    refold = Ledger()
    refold.apply_all(stored)
    assert refold.wallets == wallets and refold.conserved()
