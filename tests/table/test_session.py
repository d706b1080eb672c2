"""The table session: every input one logged step, credits through the log only, sealed shoes.

Uses a MemorySink (the same interface as the event log) and test seeds; the real log is
exercised by tests/tools/test_simlog.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from logged_records import logged_records

from game_server.config import example_config_path, load_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import CardDealt, RoundCompleted
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.sim import play_bots
from game_server.keys import unseal
from game_server.rng.shoe import Shoe, ShoeSeed, verify_reveal
from game_server.rules.errors import WrongPhase
from game_server.rules.events import from_dict
from game_server.table.events import RoundClosed, RoundStarted, ShoeCommitted, ShoeRevealed
from game_server.table.ledger import Ledger
from game_server.table.session import (
    InsufficientCredits,
    MemorySink,
    NoRoundOpen,
    SealedShoes,
    TableError,
    UnknownTerminal,
    seal_context,
    simulation_seeds,
)

KEY = bytes(range(32))
CONFIG = load_config(example_config_path())


def make_session(seed: int = 5, terminals: int = 3) -> tuple[TableSession, MemorySink]:
    sink = MemorySink()
    shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), KEY, "test-key")
    seats = {f"T{i}": i for i in range(1, terminals + 1)}
    session = TableSession(CONFIG, sink, shoes, seats)
    session.open()
    return session, sink


def logged(sink: MemorySink) -> list[tuple[str | None, Any]]:
    """The log's records, each round whole (its sealed cards filled in)."""
    return logged_records(sink)


def play_round(session: TableSession, bets: dict[str, int]) -> None:
    strategy = BasicStrategy(CONFIG.rules)
    session.start_round()
    for terminal, amount in bets.items():
        session.place_wagers(terminal, {"blackjack": amount})
    session.deal()
    play_bots(session, strategy)


def test_wallets_change_only_through_logged_events() -> None:
    """Cash in, wagers, settlements and cash out are all logged; the wallets are the fold of
    the log, and credits are conserved: in = out + wallets + in play + house result."""
    session, sink = make_session()
    session.cash_in("T1", 100_000, "ticket 1")
    session.cash_in("T2", 50_000, "ticket 2")
    for _ in range(30):
        play_round(session, {"T1": 2_500, "T2": 500})
    session.cash_out("T2", None, "voucher 9")
    refold = Ledger()
    refold.apply_all(logged(sink))
    assert refold.wallets == session.ledger.wallets
    assert session.balance("T2") == 0
    assert refold.conserved()
    assert refold.games_played == 30


def test_each_input_is_one_step_and_round_close_checkpoints() -> None:
    """Every input appends exactly one step; the step that completes the round also holds
    RoundClosed with each terminal's credits and is written with a round-close checkpoint."""
    session, sink = make_session()
    session.cash_in("T1", 10_000, "t")
    before = len(sink.steps)
    play_round(session, {"T1": 1_000})
    steps = sink.steps[before:]
    last = [from_dict(e.body) for e in steps[-1]]
    assert type(last[-2]) is RoundCompleted and type(last[-1]) is RoundClosed
    assert last[-1].balances[0] == session.balance("T1")
    assert sink.checkpoints[-1] == (len(sink.steps), "round-close")
    started = next(ev for _, ev in logged(sink) if type(ev) is RoundStarted)
    assert started.terminals == ("T1", "T2", "T3") and started.balances == (10_000, 0, 0)


def test_refusals_log_nothing() -> None:
    """A wager over the credits, an unknown terminal, a bet after the deal and an action with
    no round open are refused with a clear error, and nothing is written."""
    session, sink = make_session(seed=7)
    session.cash_in("T1", 1_000, "t")
    with pytest.raises(NoRoundOpen, match="no round is open"):
        session.place_wagers("T1", {"blackjack": 500})
    session.start_round()
    steps = len(sink.steps)
    with pytest.raises(InsufficientCredits, match=r"more than the \$10.00 credits of terminal T1"):
        session.place_wagers("T1", {"blackjack": 2_000})
    with pytest.raises(UnknownTerminal, match="holds no seat"):
        session.place_wagers("T9", {"blackjack": 500})
    assert len(sink.steps) == steps
    session.place_wagers("T1", {"blackjack": 1_000})
    session.deal()
    assert session.round is not None, "this seed's first deal must leave a decision open"
    steps = len(sink.steps)
    with pytest.raises(WrongPhase, match="no more bets"):
        session.place_wagers("T1", {"blackjack": 500})
    with pytest.raises(TableError, match="wagers in play"):
        session.cash_out("T1", None, "v")
    assert len(sink.steps) == steps


def test_double_needs_the_credits() -> None:
    """A double down or split larger than the remaining credits is refused before the engine
    acts (nothing logged), so a wallet never goes below zero."""
    session, sink = make_session(seed=11, terminals=1)
    session.cash_in("T1", 1_000, "t")
    for _ in range(200):
        session.start_round()
        session.place_wagers("T1", {"blackjack": 1_000})
        session.deal()
        game = session.round
        while game is not None and game.phase is Phase.INSURANCE:
            session.decline_insurance("T1")
        if game is not None and game.phase is Phase.PLAYING:
            hand = game.to_act
            assert hand is not None
            if game.can_double(1, hand.index):
                steps = len(sink.steps)
                with pytest.raises(InsufficientCredits, match="double down"):
                    session.act("T1", Action.DOUBLE, hand.index)
                assert len(sink.steps) == steps
                return
            while game.phase is Phase.PLAYING:
                hand = game.to_act
                assert hand is not None
                session.act("T1", Action.STAND, hand.index)
        if session.balance("T1") < 1_000:
            session.cash_in("T1", 1_000, "top-up")
    pytest.fail("no doubling hand in 200 rounds")


def test_shoes_are_committed_before_their_first_card_and_revealed_when_retired() -> None:
    """docs/design.md "RNG and shoe": ShoeCommitted comes before any card of its shoe; the sealed
    blob unseals (with the table/shoe context) to the seed and salt; the reveal regenerates
    the committed order and every dealt card is at its logged position."""
    session, sink = make_session()
    for terminal in ("T1", "T2", "T3"):
        session.cash_in(terminal, 1_000_000, "t")
    for _ in range(40):  # more than one shoe at the example's cut card
        play_round(session, {"T1": 500, "T2": 500, "T3": 500})
    session.retire_shoe()
    events = logged(sink)
    committed = {ev.shoe: (i, ev) for i, (_, ev) in enumerate(events) if type(ev) is ShoeCommitted}
    revealed = {ev.shoe: ev for _, ev in events if type(ev) is ShoeRevealed}
    assert len(committed) >= 2 and set(revealed) == set(committed)
    shoe_of_round = 0
    for i, (_, ev) in enumerate(events):
        if type(ev) is RoundStarted:
            shoe_of_round = ev.shoe
            assert committed[shoe_of_round][0] < i
        if type(ev) is CardDealt:
            seed = ShoeSeed.from_dict(
                {
                    k: getattr(revealed[shoe_of_round], k)
                    for k in ("entropy_input", "nonce", "personalization")
                }
            )
            assert Shoe(CONFIG.rules.decks, seed).order[ev.position] == ev.card
    for number, (_, ev) in committed.items():
        reveal = revealed[number]
        seed = ShoeSeed.from_dict(
            {k: getattr(reveal, k) for k in ("entropy_input", "nonce", "personalization")}
        )
        salt = bytes.fromhex(reveal.salt)
        assert verify_reveal(seed, CONFIG.rules.decks, ev.commitment, salt)
        secret = json.loads(
            unseal(KEY, bytes.fromhex(ev.sealed_seed), seal_context(CONFIG.table_id, number))
        )
        assert secret == {"seed": seed.to_dict(), "salt": reveal.salt}


def test_terminals_and_seats_are_checked() -> None:
    """Two terminals on one seat, or a seat outside the table, are refused at start-up."""
    shoes = SealedShoes(CONFIG, simulation_seeds(1, "x"), KEY, "k")
    with pytest.raises(UnknownTerminal, match="same seat"):
        TableSession(CONFIG, MemorySink(), shoes, {"A": 1, "B": 1})
    with pytest.raises(UnknownTerminal, match=r"outside 1\.\.7"):
        TableSession(CONFIG, MemorySink(), shoes, {"A": 8})


class FailingSink(MemorySink):
    """A sink whose disk fills up after ``good`` steps."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.good = good

    def append(self, step: Any, *, checkpoint: str | None = None) -> Any:
        if len(self.steps) >= self.good:
            raise OSError("disk full")
        return super().append(step, checkpoint=checkpoint)


def test_a_failed_log_write_takes_the_table_out_of_service() -> None:
    """Save, then send: when the log refuses a step, the input fails with the log's error and
    every later input is refused with LogWriteFailed, so nothing happens that the log does not
    hold; a restart recovers from the log."""
    from game_server.table.session import LogWriteFailed

    sink = FailingSink(good=4)
    shoes = SealedShoes(CONFIG, simulation_seeds(1, CONFIG.table_id), KEY, "k")
    session = TableSession(CONFIG, sink, shoes, {"T1": 1})
    session.open()
    session.cash_in("T1", 10_000, "t")
    session.start_round()  # shoe commitment and round start: steps 3 and 4
    with pytest.raises(OSError, match="disk full"):
        session.place_wagers("T1", {"blackjack": 500})
    for attempt in (
        lambda: session.deal(),
        lambda: session.cash_in("T1", 100, "t"),
        lambda: session.place_wagers("T1", {"blackjack": 500}),
    ):
        with pytest.raises(LogWriteFailed, match="out of service"):
            attempt()
    assert len(sink.steps) == 4
