"""The Ultimate Texas Hold 'Em table's session (58 Pa. Code 653a): sealed one-deck shoes, the
wallets, the meters and the Magic Card / Lucky Bonus draws, over the pure engine."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from logged_records import logged_records

from game_server.config import (
    TableConfig,
    example_config_path,
    example_path,
    load_config,
    parse_config,
)
from game_server.games.uth.rules import strategy
from game_server.games.uth.rules.events import (
    UthRoundCompleted,
    UthSettlementStarted,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.game import UTH_KINDS, Action, Phase, replay
from game_server.games.uth.session import UthLedger, UthSession
from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.shoe import ShoeSeed, StackedShoe
from game_server.rules.errors import ReplayMismatch
from game_server.rules.meters import MeterAwarded, MeterContributed, MeterReseeded
from game_server.table.events import CardsUnsealed, RoundClosed, ShoeCommitted, ShoeRevealed
from game_server.table.session import (
    InsufficientCredits,
    MemorySink,
    SealedShoes,
    TableError,
    simulation_seeds,
)
from shared.cards import CARDS

CONFIG = load_config(example_path("uth.toml"))
#: The same table paying the Lucky Bonus instead of the Magic Card (653a.12(e)(3): one of them).
LUCKY_CONFIG = parse_config(
    (example_path("uth.toml"))
    .read_text()
    .replace("magic_card = true ", "magic_card = false")
    .replace("lucky_bonus = false", "lucky_bonus = true ")
)
SEED = 11
SEATS = {"T1": 1, "T2": 2}
EVERYTHING = {
    "ante": 500,
    "blind": 500,
    "trips": 500,
    "progressive": 100,
    "five_card_player": 100,
    "five_card_dealer": 500,
}


class SeededStack(StackedShoe):
    """A stacked deck with the seed material the bonus draws are made from."""

    __slots__ = ("seed",)

    def __init__(self, cards: str, seed: ShoeSeed) -> None:
        super().__init__(cards)
        self.seed = seed
        self._shuffle_at = 1  # a new deck every round, like the table's one-deck shoes


def session(sink: MemorySink | None = None, config: TableConfig = CONFIG) -> UthSession:
    shoes = SealedShoes(
        config, simulation_seeds(SEED, config.table_id), bytes(range(32)), "test-key"
    )
    table = UthSession(config, sink if sink is not None else MemorySink(), shoes, SEATS)
    table.open()
    for terminal in SEATS:
        table.cash_in(terminal, 100_000, "test")
    return table


def logged(sink: MemorySink) -> list[tuple[str | None, Any]]:
    """The log's records, each round whole (its sealed cards filled in)."""
    return logged_records(sink)


def check_books(table: UthSession, sink: MemorySink) -> None:
    """The wallets are the fold of everything logged, and every credit is accounted for."""
    fold = UthLedger()
    fold.apply_all(logged(sink))
    assert fold.wallets == table.ledger.wallets
    assert table.ledger.conserved()


def play_round(table: UthSession, sink: MemorySink) -> list[Any]:
    """One round with the strategy deciding, the books checked after every step."""
    table.start_round()
    for terminal in SEATS:
        table.place_wagers(terminal, EVERYTHING)
        check_books(table, sink)
    out = table.deal()
    check_books(table, sink)
    while table.round is not None:
        terminal = table.pending()[0]
        action, multiple = strategy.decide(table.round, SEATS[terminal])
        out += table.decide(terminal, action, multiple)
        check_books(table, sink)
    return out


def test_a_seeded_round_end_to_end_conserves_every_credit_at_every_step() -> None:
    """A round of two seats with every wager: debited at placing, settled, closed with each
    terminal's credits; the log is folded to the same wallets after every step."""
    sink = MemorySink()
    table = session(sink)
    events = play_round(table, sink)
    placed = [ev for ev in events if type(ev) is UthWagerPlaced]
    settled = [ev for ev in events if type(ev) is UthWagerSettled]
    assert {ev.seat for ev in settled} == {1, 2}
    assert type(events[-1]) is RoundClosed and type(events[-2]) is CardsUnsealed
    assert type(events[-3]) is UthRoundCompleted
    closed = events[-1]
    for terminal, balance in zip(closed.terminals, closed.balances, strict=True):
        seat = SEATS[terminal]
        wagered = sum(ev.amount for ev in logged_placed(sink) if ev.seat == seat)
        paid = sum(ev.paid for ev in settled if ev.seat == seat)
        assert balance == 100_000 - wagered + paid == table.balance(terminal)
    assert placed  # the Play Wagers placed at a decision (if any) are in the step
    assert table.ledger.games_played == 1
    assert sink.checkpoints and sink.checkpoints[-1][0] == len(sink.steps)


def logged_placed(sink: MemorySink) -> list[UthWagerPlaced]:
    return [ev for _, ev in logged(sink) if type(ev) is UthWagerPlaced]


def test_each_round_is_dealt_from_a_fresh_committed_deck_revealed_after_it() -> None:
    """One 52-card deck per round: committed before the round's first card (one deck, no cut
    card) and revealed when the next round starts."""
    sink = MemorySink()
    table = session(sink)
    play_round(table, sink)
    play_round(table, sink)
    kinds = [(type(ev), getattr(ev, "shoe", None)) for _, ev in logged(sink)]
    commits = [ev for _, ev in logged(sink) if type(ev) is ShoeCommitted]
    assert [(c.shoe, c.decks, c.cut_card) for c in commits] == [(1, 1, None), (2, 1, None)]
    assert kinds.index((ShoeRevealed, 1)) < kinds.index((ShoeCommitted, 2))
    assert table.shoe is not None and table.shoe.decks == 1


def expected_draws(shoe_number: int) -> tuple[str, int]:
    """The Magic Card and Lucky position drawn independently of the table's code: HMAC_DRBG
    seeded with the round deck's seed material, personalization + "/uth-bonus-draws"."""
    seed, _ = simulation_seeds(SEED, CONFIG.table_id)(shoe_number)
    drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization + b"/uth-bonus-draws")
    stream = RandomStream(drbg)
    magic = CARDS[stream.randbelow(52)]
    return str(magic), stream.randbelow(CONFIG.rules.seats + 1)


@pytest.mark.parametrize("config", [CONFIG, LUCKY_CONFIG], ids=["magic-card", "lucky-bonus"])
def test_magic_card_or_lucky_seat_is_drawn_from_the_drbg_and_logged(config: TableConfig) -> None:
    """653a.1, 653a.12(e)(3): each round the table game system draws the Magic Card (or, at a
    table paying the Lucky Bonus, the Lucky Bonus position) from the certified DRBG (the round
    deck's seed), and logs it; the bonus the table does not pay is not logged."""
    magic_table = config.rules.magic_card_bonus
    sink = MemorySink()
    table = session(sink, config)
    draws: list[str] = []
    for number in range(1, 13):
        play_round(table, sink)
        started = [ev for _, ev in logged(sink) if type(ev) is UthSettlementStarted]
        assert len(started) == number
        last = started[-1]
        magic, lucky = expected_draws(number)
        if magic_table:
            assert (str(last.magic_card[0]), last.lucky_position) == (magic, None)
        else:
            assert (last.magic_card, last.lucky_position) == ((), lucky)
            assert 0 <= lucky <= 6
        draws.append(magic if magic_table else str(lucky))
    assert len(set(draws)) >= (6 if magic_table else 3)  # drawn, not fixed


#: Seat 1 AS KS, seat 2 2H 7D, dealer 3C 8D; flop QS JS TS; turn 4H, river 9C: seat 1 holds a
#: royal flush in its two cards and the flop.
ROYAL = "AS 2H 3C KS 7D 8D QS JS TS 4H 9C"


def stacked_round(table: UthSession, cards: str) -> list[Any]:
    table.start_round()
    assert table.shoe is not None
    seed = table.shoe.seed
    for terminal in SEATS:
        table.place_wagers(terminal, EVERYTHING)
    table.shoe = SeededStack(cards, seed)
    out = table.deal()
    while table.round is not None:
        terminal = table.pending()[0]
        game = table.round
        # Check to the river, then Play 1 times the Ante.
        legal = game.legal_actions(SEATS[terminal])
        action, multiple = (Action.PLAY, 1) if (Action.PLAY, 1) in legal else (Action.CHECK, 0)
        out += table.decide(terminal, action, multiple)
    return out


def test_meters_are_fed_at_the_deal_and_awarded_at_settlement_with_conservation() -> None:
    """653a.12(d)(3), (e)(4): each Progressive Payout and Five Card Hand Bonus Wager feeds its
    meter in the step of the deal; a royal flush takes 100% of both meters (653a.12(d)(1),
    (e)(1)), which are reset, and the other seat gets the $1 Envy Bonus (653a.12(d)(5)).
    Every credit is accounted for: what the meters paid is ``progressive_paid``."""
    sink = MemorySink()
    table = session(sink)
    progressive = CONFIG.rules.progressive_meter_id
    five_card = CONFIG.rules.five_card_meter_id
    events = stacked_round(table, ROYAL)
    fed = [ev for ev in events if type(ev) is MeterContributed]
    assert sorted((ev.meter, ev.wager) for ev in fed) == sorted(
        [(progressive, 100), (progressive, 100)] + [(five_card, 100), (five_card, 500)] * 2
    )
    # 15% of every wager (millicents): $0.30 to the Progressive meter, $1.80 to the other.
    last = {ev.meter: ev.amount for ev in fed}
    assert last == {progressive: 1_000_030_000, five_card: 1_000_180_000}
    awards = {ev.meter: ev for ev in events if type(ev) is MeterAwarded}
    assert awards[progressive].places == ("UTH-01/1",)
    assert awards[progressive].share == 1_000_000 + 30  # the meter, floored to cents
    assert awards[five_card].share == 1_000_000 + 180
    assert {ev.meter for ev in events if type(ev) is MeterReseeded} == {progressive, five_card}
    settled = {(ev.seat, ev.wager): ev for ev in events if type(ev) is UthWagerSettled}
    assert settled[1, "progressive"].from_meter == 1_000_030
    assert settled[1, "progressive"].paid == 100 + 1_000_030
    assert settled[1, "five_card_player"].from_meter == 1_000_180
    assert settled[2, "progressive_envy"].paid == 100_000  # $1,000 for a royal flush
    assert table.meters.meter(progressive).amount_cents == 1_000_000
    assert table.meters.meter(five_card).amount_cents == 1_000_000
    ledger = table.ledger
    assert ledger.progressive_paid == 1_000_030 + 1_000_180
    assert ledger.conserved()
    check_books(table, sink)


def test_a_play_wager_beyond_the_credits_is_refused_before_the_engine_acts() -> None:
    sink = MemorySink()
    table = session(sink)
    table.start_round()
    table.place_wagers("T1", {"ante": 20_000, "blind": 20_000})
    table.deal()
    before = len(sink.steps)
    with pytest.raises(InsufficientCredits):
        table.decide("T1", Action.PLAY, 4)  # $800 with $600 left
    assert len(sink.steps) == before
    table.decide("T1", Action.PLAY, 3)  # $600: exactly the credits
    assert table.balance("T1") == 0


def test_the_session_runs_only_an_ultimate_texas_hold_em_config() -> None:
    blackjack = load_config(example_config_path())
    shoes = SealedShoes(blackjack, simulation_seeds(SEED, "BJ"), bytes(32), "k")
    with pytest.raises(TableError, match="not Ultimate Texas Hold 'Em"):
        UthSession(blackjack, MemorySink(), shoes, SEATS)


OPTIONAL = ("trips", "progressive", "five_card_player", "five_card_dealer")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 10_000))
def test_any_wagers_and_decisions_conserve_every_credit(data: st.DataObject, seed: int) -> None:
    """Whatever the seats wager and decide, after every step the wallets are the fold of the
    log and credits in = credits out + wallets + in play + house result - meter payouts."""
    sink = MemorySink()
    shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), bytes(32), "k")
    table = UthSession(CONFIG, sink, shoes, SEATS)
    table.open()
    for terminal in SEATS:
        table.cash_in(terminal, 100_000, "test")
    for _ in range(3):
        if table.round is None:
            table.start_round()
        for terminal in SEATS:
            if not data.draw(st.booleans(), label=f"{terminal} plays"):
                continue
            ante = data.draw(st.sampled_from([500, 1_000, 2_500]), label="ante")
            chosen = data.draw(st.sets(st.sampled_from(OPTIONAL)), label="side wagers")
            wagers = {"ante": ante, "blind": ante} | {n: EVERYTHING[n] for n in chosen}
            table.place_wagers(terminal, wagers)
            check_books(table, sink)
        game = table.round
        assert game is not None
        if not game.seats:
            continue  # nobody wagered: the round stays open for the next window
        table.deal()
        check_books(table, sink)
        while table.round is not None:
            terminal = table.pending()[0]
            legal = table.round.legal_actions(SEATS[terminal])
            action, multiple = data.draw(st.sampled_from(legal), label="decision")
            table.decide(terminal, action, multiple)
            check_books(table, sink)
    assert table.ledger.in_play >= 0


def test_a_round_with_meter_awards_replays_through_the_engine() -> None:
    """What ``etg verify`` and recovery do: the logged round with both meters hit (their
    awards and resets among its events) replays through the UTH engine to its end."""
    sink = MemorySink()
    table = session(sink)
    stacked_round(table, ROYAL)
    events = [ev for _, ev in logged(sink) if type(ev) in UTH_KINDS]
    assert sum(type(ev) is MeterAwarded for ev in events) == 2
    game = replay(CONFIG.rules, events, CONFIG.table_id)
    assert game.phase is Phase.COMPLETE
    forged = [ev._replace(share=ev.share + 1) if type(ev) is MeterAwarded else ev for ev in events]
    with pytest.raises(ReplayMismatch):
        replay(CONFIG.rules, forged, CONFIG.table_id)
