"""Blackjack's figures of ``etg bench``: the engine against its peer and a full table.

Entry point: :func:`figures` (what :meth:`BlackjackGame.bench_figures
<game_server.games.blackjack.game.BlackjackGame.bench_figures>` gives ``tools/bench.py``).
Both play the example config's rules (``fully-automated-blackjack.toml``) and measure, they
assert nothing (docs/design.md "Tests": benchmarks are not timed tests).

- ``engine_vs_blackjack21``: rounds per second of our engine over rounds per second of the
  PyPI package ``blackjack21`` (5.0.0), one seat, six decks, the same strategy (hit below 17,
  else stand) and no side wager. Both include dealing, the dealer's play and settlement:
  ours through :class:`~game_server.games.blackjack.sim.TableDriver` (every event produced,
  money settled by the engine); theirs through ``Table.start_game``/``hit``/``stand`` and its
  result labels, from which the loop computes the money paid (the package settles no money
  itself). Both reshuffle the same way: a 312-card shoe dealt to the cut card and replaced at
  the start of the next round, ours at the example config's cut card (234 cards, 75%), theirs
  with the package's own ``shoe_reset_hook`` at the same penetration (it reshuffles once more
  than 234 cards are out, ours once 234 are: one card apart). Each pays for its shuffle: ours
  a certified HMAC_DRBG shoe, theirs ``random.shuffle`` (Mersenne Twister). The package has
  no insurance, so our table offers none either (rules from the example config with
  ``insurance`` and ``even_money`` off); the dealer stands on soft 17 and peeks in both. The
  two peers alternate which goes first from one repetition to the next.
- ``full_seat_rounds_per_s``: seven seats, basic strategy, Lucky Aces on every seat, every
  event produced, one core, through the same table driver as ``etg sim``, on six-deck
  certified shoes replaced at the example config's cut card. The details split out the time
  spent shuffling new shoes.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from game_server.config import Shuffle, TableConfig, example_config_path, load_config
from game_server.games.api import BenchFigure, BenchSample
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import BLACKJACK
from game_server.games.blackjack.rules.round import BlackjackRound
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.sim import TableDriver, play_bots
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import SideWagerOffer
from game_server.rules.wagers.lucky_aces import LUCKY_ACES, PAYTABLES
from game_server.sim import Dealable, ShoeFactory, seeded_shoes
from game_server.table.session import EventSink, SealedShoes

#: Decks of every benchmark shoe.
DECKS = 6
#: Cards in that shoe.
SHOE_CARDS = 52 * DECKS


class HitBelow17:
    """The benchmark's simple strategy: hit below 17, else stand; never insure."""

    __slots__ = ()

    def decide(
        self,
        total: int,
        soft: bool,
        pair_value: int,
        dealer_up_value: int,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
    ) -> Action:
        """Hit below 17, stand from 17 (whatever the hand and the dealer show)."""
        return Action.HIT if total < 17 else Action.STAND

    def take_insurance(self) -> bool:
        """Never."""
        return False


# --------------------------------------------------------------------------- the measurements


def _one_seat_rules(config: TableConfig) -> BlackjackRules:
    rules: BlackjackRules = config.rules
    return dataclasses.replace(
        rules, decks=DECKS, side_wagers=(), insurance=False, even_money=False
    )


def _full_seat_rules(config: TableConfig) -> BlackjackRules:
    rules: BlackjackRules = config.rules
    offers = [o for o in rules.side_wagers if o.wager.name == LUCKY_ACES.name]
    if not offers:
        offers = [SideWagerOffer(LUCKY_ACES, PAYTABLES["Paytable A"], WagerLimits(100, 10_000))]
    return dataclasses.replace(rules, decks=DECKS, seats=7, side_wagers=tuple(offers))


def _cut_card(config: TableConfig) -> int:
    if config.shuffle is Shuffle.CUT_CARD and config.cut_card is not None:
        return config.cut_card
    return SHOE_CARDS * 3 // 4


def time_ours(rules: BlackjackRules, cut_card: int, rounds: int, seed: int) -> float:
    """Rounds per second of our engine: one seat, hit below 17, through the table driver."""
    driver = TableDriver(
        rules, seeded_shoes(DECKS, cut_card, seed, "bench-1"), 1, HitBelow17(), side_wagers=False
    )
    play = driver.play_round
    clock = time.perf_counter
    start = clock()
    for _ in range(rounds):
        play()
    return rounds / (clock() - start)


def time_blackjack21(cut_card: int, rounds: int, bet: int) -> float:
    """Rounds per second of ``blackjack21``: one seat, hit below 17, cut-card reshuffle.

    The loop settles money from the package's result labels (3 to 2, 1 to 1, push, loss),
    since the package labels results but pays nothing.
    """
    from blackjack21 import (  # type: ignore[import-untyped]
        DEFAULT_SUITS,
        Deck,
        GameResult,
        GameState,
        Table,
        shoe_reset_hook,
    )

    deck = Deck(DEFAULT_SUITS, count=DECKS)
    table = Table(
        [("seat1", bet)], deck, on_round_reset=shoe_reset_hook(deck, cut_card / SHOE_CARDS)
    )
    # What each result returns, stake included, in half wagers: 3 to 2 returns 5/2 of it.
    halves = {
        GameResult.BLACKJACK: 5,
        GameResult.PLAYER_WIN: 4,
        GameResult.DEALER_BUST: 4,
        GameResult.PUSH: 2,
        GameResult.SURRENDER: 1,
        GameResult.PLAYER_BUST: 0,
        GameResult.DEALER_WIN: 0,
    }
    players_turn = GameState.PLAYERS_TURN
    paid = 0
    clock = time.perf_counter
    start = clock()
    for _ in range(rounds):
        table.start_game()
        while table.state is players_turn:
            if table.current_hand.total < 17:
                table.hit()
            else:
                table.stand()
        for player in table.players:
            for hand in player.hands:
                paid += hand.bet * halves[hand.result] // 2
    elapsed = clock() - start
    if paid < 0:  # pragma: no cover - keeps the settlement from being optimised away
        raise AssertionError
    return rounds / elapsed


class _TimedShoes:
    """Wraps a shoe factory and adds up the seconds spent making (shuffling) shoes."""

    __slots__ = ("seconds", "shoes")

    def __init__(self, shoes: ShoeFactory) -> None:
        self.shoes = shoes
        self.seconds = 0.0

    def __call__(self, shoe_number: int) -> Dealable:
        start = time.perf_counter()
        shoe = self.shoes(shoe_number)
        self.seconds += time.perf_counter() - start
        return shoe


def time_full_table(
    rules: BlackjackRules, cut_card: int, rounds: int, seed: int
) -> tuple[float, float, int]:
    """Seven seats, basic strategy, Lucky Aces on each, through the table driver.

    Returns:
        ``(rounds per second, share of the time spent shuffling new shoes, events per round)``.
    """
    shoes = _TimedShoes(seeded_shoes(DECKS, cut_card, seed, "bench-7"))
    driver = TableDriver(rules, shoes, 7)
    play = driver.play_round
    events = 0
    clock = time.perf_counter
    start = clock()
    for _ in range(rounds):
        events += len(play())
    elapsed = clock() - start
    return rounds / elapsed, shoes.seconds / elapsed, events // rounds


# --------------------------------------------------------------------------- the figures


class EngineFigure:
    """``engine_vs_blackjack21``: our engine's rounds per second over ``blackjack21``'s."""

    name = "engine_vs_blackjack21"
    details_key = "engine_vs_blackjack21"
    target = ">= 1.2"
    work = 20_000
    quick_work = 2_000

    def __init__(self) -> None:
        self.rules: BlackjackRules | None = None
        self.cut_card = 0

    def prepare(self) -> None:
        """Read the example config's rules and cut card."""
        config = load_config(example_config_path())
        self.rules = _one_seat_rules(config)
        self.cut_card = _cut_card(config)

    def measure(self, work: int, repetition: int) -> BenchSample:
        """``work`` rounds each side, alternating which goes first so that drift (heat,
        other load) favours neither."""
        rules = self.rules
        if rules is None:
            raise RuntimeError("prepare() first")
        bet = rules.main_limits.minimum
        if repetition % 2:
            theirs = time_blackjack21(self.cut_card, work, bet)
            ours = time_ours(rules, self.cut_card, work, seed=repetition)
        else:
            ours = time_ours(rules, self.cut_card, work, seed=repetition)
            theirs = time_blackjack21(self.cut_card, work, bet)
        return BenchSample(ours / theirs, {"ours": ours, "theirs": theirs})

    def details(self, samples: Sequence[BenchSample], work: int) -> dict[str, Any]:
        """The peers' median rates, every ratio and the conditions."""
        median = statistics.median
        return {
            "rounds_per_sample": work,
            "ours_rounds_per_s": median(s.parts["ours"] for s in samples),
            "blackjack21_rounds_per_s": median(s.parts["theirs"] for s in samples),
            "ratios": [s.value for s in samples],
            "seats": 1,
            "decks": DECKS,
            "cut_card": self.cut_card,
            "strategy": "hit below 17, else stand",
        }

    def value_text(self, value: float) -> str:
        """``1.45x``."""
        return f"{value:.2f}x"

    def against(self, details: Mapping[str, Any]) -> str:
        """Both peers' rates."""
        return (
            f"ours {details['ours_rounds_per_s']:,.0f} vs blackjack21 "
            f"{details['blackjack21_rounds_per_s']:,.0f} rounds/s (1 seat)"
        )


class FullTableFigure:
    """``full_seat_rounds_per_s``: a seven-seat table's rounds per second."""

    name = "full_seat_rounds_per_s"
    details_key = "full_seat"
    target = ">= 15,000"
    work = 10_000
    quick_work = 1_000

    def __init__(self) -> None:
        self.rules: BlackjackRules | None = None
        self.cut_card = 0

    def prepare(self) -> None:
        """Read the example config's rules (Lucky Aces on every seat) and cut card."""
        config = load_config(example_config_path())
        self.rules = _full_seat_rules(config)
        self.cut_card = _cut_card(config)

    def measure(self, work: int, repetition: int) -> BenchSample:
        """``work`` rounds of seven seats."""
        if self.rules is None:
            raise RuntimeError("prepare() first")
        rate, share, events = time_full_table(self.rules, self.cut_card, work, seed=repetition)
        return BenchSample(rate, {"shuffle_share": share, "events_per_round": events})

    def details(self, samples: Sequence[BenchSample], work: int) -> dict[str, Any]:
        """Every sample's rate, the events per round and the share of the time shuffling."""
        rules = self.rules
        if rules is None:
            raise RuntimeError("prepare() first")
        rate = statistics.median(s.value for s in samples)
        share = statistics.median(s.parts["shuffle_share"] for s in samples)
        return {
            "rounds_per_sample": work,
            "samples_rounds_per_s": [s.value for s in samples],
            "events_per_round": int(samples[-1].parts["events_per_round"]),
            "shuffle_time_share": share,
            "rounds_per_s_excluding_shuffle": rate / (1 - share) if share < 1 else None,
            "seats": 7,
            "decks": DECKS,
            "cut_card": self.cut_card,
            "side_wagers": [o.wager.name for o in rules.side_wagers],
        }

    def value_text(self, value: float) -> str:
        """``16,200``."""
        return f"{value:,.0f}"

    def against(self, details: Mapping[str, Any]) -> str:
        """The table's make-up and the time spent shuffling."""
        return (
            f"7 seats + Lucky Aces, {details['events_per_round']} events/round, "
            f"{100 * details['shuffle_time_share']:.0f}% of the time shuffling"
        )


def work_rounds(seed: int) -> dict[str, Callable[[], Any]]:
    """The rounds ``etg bench work`` counts: ``blackjack_1_seat`` (the engine figure's table:
    one seat, hit below 17, no side wager) and ``blackjack_7_seats`` (the full table's: basic
    strategy, Lucky Aces on every seat), each on seeded shoes made in advance."""
    config = load_config(example_config_path())
    cut = _cut_card(config)
    one = TableDriver(
        _one_seat_rules(config),
        _premade(seeded_shoes(DECKS, cut, seed, "work-1"), 4),
        1,
        HitBelow17(),
        side_wagers=False,
    )
    seven = TableDriver(
        _full_seat_rules(config), _premade(seeded_shoes(DECKS, cut, seed, "work-7"), 16), 7
    )
    return {"blackjack_1_seat": one.play_round, "blackjack_7_seats": seven.play_round}


def _premade(shoes: ShoeFactory, count: int) -> ShoeFactory:
    """Shoes ``0..count-1`` made (shuffled) now and handed out by number."""
    made = {n: shoes(n) for n in range(count)}
    return made.__getitem__


def figures() -> tuple[BenchFigure, ...]:
    """Blackjack's figures, fresh (each keeps what :meth:`prepare` read)."""
    return (EngineFigure(), FullTableFigure())


# ------------------------------------------------------------------ the benchmark log's table


class BusyTable:
    """A fully automated Blackjack table that basic-strategy bots play for a benchmark log
    (:meth:`BlackjackGame.busy_table`): the live table's :class:`TableSession` with its
    sealed, committed and revealed shoes, wallets and signed round closes. Each seat sits out
    a round now and then (15%), 3% of decisions are the countdown's, and a player insures
    (half his wager) one time in five when offered. Every seat wagers the Blackjack minimum
    and every side wager the config offers at its minimum; odd ``variant`` tables offer none.
    """

    def __init__(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        variant: int,
    ) -> None:
        rules: BlackjackRules = config.rules
        if variant % 2:
            rules = dataclasses.replace(rules, side_wagers=())
            config = dataclasses.replace(config, rules=rules)
        self.session = TableSession(config, sink, shoes, seats)
        self.session.open()
        for terminal in seats:
            self.session.cash_in(terminal, BUSY_CREDITS, "bench")
        self.wagers = {BLACKJACK: rules.main_limits.minimum}
        for offer in rules.side_wagers:
            self.wagers[offer.wager.name] = offer.limits.minimum
        self.strategy = BasicStrategy(rules)

    def play_round(self, chance: Callable[[], float]) -> None:
        """One round: the seats that play this time wager (topped up when low), the bots
        play it to the end."""
        session = self.session
        session.start_round()
        stake = sum(self.wagers.values())
        playing = [t for t in session.seats if chance() < 0.85] or [next(iter(session.seats))]
        for terminal in playing:
            if session.balance(terminal) < 10 * stake:
                session.cash_in(terminal, BUSY_CREDITS, "bench top-up")
            session.place_wagers(terminal, self.wagers)
        session.deal()

        def insure(game: BlackjackRound, seat: int) -> int:
            if game.can_insure(seat) and chance() < 0.2:
                return int(game.seats[seat].wagers[BLACKJACK] // 2)
            return 0

        play_bots(session, self.strategy, insure=insure, countdown=lambda: chance() < 0.03)

    def close(self) -> None:
        """Retire the shoe in use."""
        self.session.retire_shoe()


#: Credits each terminal of a :class:`BusyTable` is cashed in with (and topped up by).
BUSY_CREDITS: Final = 200_000
