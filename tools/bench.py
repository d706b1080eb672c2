"""``etg bench``: figures for the engine, a full table and the shuffle, against their peers.

Entry point: :func:`run_bench`. It prints figures and asserts nothing (DESIGN.md "Tests":
benchmarks are not timed tests). Everything is measured in ONE run: the measurements are
interleaved, repeated ``repeats`` times, and each figure is a median; a ratio is the median
of the ratios of the two peers measured back to back in the same repetition.

- ``engine_vs_blackjack21``: rounds per second of our engine over rounds per second of the
  PyPI package ``blackjack21`` (5.0.0), one seat, six decks, the same strategy (hit below 17,
  else stand) and no side wager. Both include dealing, the dealer's play and settlement:
  ours through :class:`~tools.sim.TableDriver` (every event produced, money settled by the
  engine); theirs through ``Table.start_game``/``hit``/``stand`` and its result labels, from
  which the loop computes the money paid (the package settles no money itself). Both
  reshuffle the same way: a 312-card shoe dealt to the cut card and replaced at the start of
  the next round, ours at the example config's cut card (234 cards, 75%), theirs with the
  package's own ``shoe_reset_hook`` at the same penetration (it reshuffles once more than
  234 cards are out, ours once 234 are: one card apart). Each pays for its shuffle: ours a
  certified HMAC_DRBG shoe, theirs ``random.shuffle`` (Mersenne Twister). The package has no
  insurance, so our table offers none either (rules from the example config with
  ``insurance`` and ``even_money`` off); the dealer stands on soft 17 and peeks in both.
- ``full_seat_rounds_per_s``: seven seats, basic strategy, Lucky Aces on every seat, every
  event produced, one core, through the same table driver as ``etg sim``, on six-deck
  certified shoes replaced at the example config's cut card. The details split out the time
  spent shuffling new shoes.
- ``shuffle_vs_systemrandom``: from :func:`tools.bench_rng.shuffle_vs_systemrandom` (seconds
  per 8-deck certified shoe over seconds per ``SystemRandom().shuffle``).
- ``uth_rank7_vs_best_of``: seven-card hands per second of Ultimate Texas Hold 'Em's evaluator
  (:func:`game_server.games.uth.rules.hands.rank7`, 653a.6) over those of the general ranker it
  replaced (:func:`game_server.rules.poker.best_of`, the best five of seven by trying all 21),
  on the same seeded hands (the evaluator's tables are warmed first; it is the steady state
  of a table that has dealt for a while).
"""

from __future__ import annotations

import dataclasses
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from game_server.config import Shuffle, TableConfig, example_config_path, load_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.sim import TableDriver
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import SideWagerOffer
from game_server.rules.wagers.lucky_aces import LUCKY_ACES, PAYTABLES
from game_server.sim import Dealable, ShoeFactory, seeded_shoes
from shared.cards import CARDS, Card

#: Decks of every benchmark shoe.
DECKS = 6
#: Cards in that shoe.
SHOE_CARDS = 52 * DECKS


@dataclass(frozen=True)
class BenchSizes:
    """How much work one repetition of each measurement does.

    Attributes:
        one_seat_rounds: Rounds per sample of ``engine_vs_blackjack21`` (each side).
        full_seat_rounds: Rounds per sample of ``full_seat_rounds_per_s``.
        shuffle_number: Shuffles per sample of ``shuffle_vs_systemrandom`` (each side).
        uth_hands: Seven-card hands per sample of ``uth_rank7_vs_best_of`` (each side).
    """

    one_seat_rounds: int = 20_000
    full_seat_rounds: int = 10_000
    shuffle_number: int = 20
    uth_hands: int = 20_000

    @classmethod
    def quick(cls) -> BenchSizes:
        """About a tenth of the default work."""
        return cls(one_seat_rounds=2_000, full_seat_rounds=1_000, shuffle_number=5, uth_hands=2_000)


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


# --------------------------------------------------------------------------- the two peers


def _one_seat_rules(config: TableConfig) -> BlackjackRules:
    return dataclasses.replace(
        config.rules, decks=DECKS, side_wagers=(), insurance=False, even_money=False
    )


def _full_seat_rules(config: TableConfig) -> BlackjackRules:
    offers = [o for o in config.rules.side_wagers if o.wager.name == LUCKY_ACES.name]
    if not offers:
        offers = [SideWagerOffer(LUCKY_ACES, PAYTABLES["Paytable A"], WagerLimits(100, 10_000))]
    return dataclasses.replace(config.rules, decks=DECKS, seats=7, side_wagers=tuple(offers))


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
    from blackjack21 import DEFAULT_SUITS, Deck, GameResult, GameState, Table, shoe_reset_hook

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


# --------------------------------------------------------------------------- the run


def uth_hands(count: int, seed: int) -> list[list[Card]]:
    """``count`` seven-card hands from one deck each, from a seeded (non-certified) stream:
    the benchmark's input, not a deal."""
    import random

    rng = random.Random(seed)
    deck = list(CARDS)
    return [rng.sample(deck, 7) for _ in range(count)]


def time_uth_evaluators(hands: list[list[Card]]) -> tuple[float, float]:
    """Hands per second of ``rank7`` and of ``best_of`` on the same hands."""
    from game_server.games.uth.rules.hands import rank7
    from game_server.rules.poker import best_of

    start = time.perf_counter()
    for hand in hands:
        rank7(hand)
    ours = len(hands) / (time.perf_counter() - start)
    start = time.perf_counter()
    for hand in hands:
        best_of(hand, 5)
    peer = len(hands) / (time.perf_counter() - start)
    return ours, peer


def run_bench(
    sizes: BenchSizes | None = None,
    *,
    repeats: int = 7,
    config: TableConfig | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measure every figure, interleaved, ``repeats`` times; report medians.

    Args:
        sizes: Work per sample; :class:`BenchSizes` defaults if None.
        repeats: Repetitions of every measurement.
        config: The table whose rules and cut card are used; the example config if None.
        progress: Told a short line after each repetition.

    Returns:
        ``{"engine_vs_blackjack21": x, "full_seat_rounds_per_s": y,
        "shuffle_vs_systemrandom": z, "details": {...}}``.
    """
    from tools.bench_rng import shuffle_vs_systemrandom

    sizes = BenchSizes() if sizes is None else sizes
    config = load_config(example_config_path()) if config is None else config
    cut = _cut_card(config)
    one_seat = _one_seat_rules(config)
    full_seat = _full_seat_rules(config)
    bet = one_seat.main_limits.minimum

    ours: list[float] = []
    theirs: list[float] = []
    ratios: list[float] = []
    full: list[float] = []
    shuffle_share: list[float] = []
    events_per_round = 0
    shuffle_ours: list[float] = []
    shuffle_peer: list[float] = []
    shuffle_ratios: list[float] = []
    uth_ours: list[float] = []
    uth_peer: list[float] = []
    uth_ratios: list[float] = []
    from game_server.games.uth.rules.hands import warm

    warm()  # fill the evaluator's tables, as a table that has dealt for a while has
    for rep in range(repeats):
        # Alternate which peer goes first so that drift (heat, other load) favours neither.
        if rep % 2:
            b = time_blackjack21(cut, sizes.one_seat_rounds, bet)
            a = time_ours(one_seat, cut, sizes.one_seat_rounds, seed=rep)
        else:
            a = time_ours(one_seat, cut, sizes.one_seat_rounds, seed=rep)
            b = time_blackjack21(cut, sizes.one_seat_rounds, bet)
        ours.append(a)
        theirs.append(b)
        ratios.append(a / b)
        rate, share, events_per_round = time_full_table(
            full_seat, cut, sizes.full_seat_rounds, seed=rep
        )
        full.append(rate)
        shuffle_share.append(share)
        shuffle = shuffle_vs_systemrandom(repeats=1, number=sizes.shuffle_number)
        shuffle_ours.append(shuffle["ours_s"])
        shuffle_peer.append(shuffle["systemrandom_s"])
        shuffle_ratios.append(shuffle["ratio"])
        fast, slow = time_uth_evaluators(uth_hands(sizes.uth_hands, seed=rep))
        uth_ours.append(fast)
        uth_peer.append(slow)
        uth_ratios.append(fast / slow)
        if progress is not None:
            progress(
                f"repetition {rep + 1}/{repeats}: ours {a:,.0f} vs blackjack21 {b:,.0f} "
                f"rounds/s, full table {rate:,.0f} rounds/s, shuffle ratio "
                f"{shuffle['ratio']:.2f}"
            )

    median = statistics.median
    full_rate = median(full)
    share = median(shuffle_share)
    return {
        "engine_vs_blackjack21": median(ratios),
        "full_seat_rounds_per_s": full_rate,
        "shuffle_vs_systemrandom": median(shuffle_ratios),
        "uth_rank7_vs_best_of": median(uth_ratios),
        "details": {
            "repeats": repeats,
            "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
            "machine": platform.machine(),
            "engine_vs_blackjack21": {
                "rounds_per_sample": sizes.one_seat_rounds,
                "ours_rounds_per_s": median(ours),
                "blackjack21_rounds_per_s": median(theirs),
                "ratios": ratios,
                "seats": 1,
                "decks": DECKS,
                "cut_card": cut,
                "strategy": "hit below 17, else stand",
            },
            "full_seat": {
                "rounds_per_sample": sizes.full_seat_rounds,
                "samples_rounds_per_s": full,
                "events_per_round": events_per_round,
                "shuffle_time_share": share,
                "rounds_per_s_excluding_shuffle": full_rate / (1 - share) if share < 1 else None,
                "seats": 7,
                "decks": DECKS,
                "cut_card": cut,
                "side_wagers": [o.wager.name for o in full_seat.side_wagers],
            },
            "shuffle": {
                "decks": 8,
                "shuffles_per_sample": sizes.shuffle_number,
                "ours_s": median(shuffle_ours),
                "systemrandom_s": median(shuffle_peer),
                "ratios": shuffle_ratios,
            },
            "uth_evaluator": {
                "hands_per_sample": sizes.uth_hands,
                "rank7_hands_per_s": median(uth_ours),
                "best_of_hands_per_s": median(uth_peer),
                "ratios": uth_ratios,
            },
        },
    }


def format_bench(figures: dict[str, Any]) -> str:
    """A small table of the figures, their targets and the peers' own numbers."""
    details = figures["details"]
    one = details["engine_vs_blackjack21"]
    full = details["full_seat"]
    shuffle = details["shuffle"]
    rows = [
        ("Figure", "Value", "Target", "Measured against"),
        (
            "engine_vs_blackjack21",
            f"{figures['engine_vs_blackjack21']:.2f}x",
            ">= 1.2",
            f"ours {one['ours_rounds_per_s']:,.0f} vs blackjack21 "
            f"{one['blackjack21_rounds_per_s']:,.0f} rounds/s (1 seat)",
        ),
        (
            "full_seat_rounds_per_s",
            f"{figures['full_seat_rounds_per_s']:,.0f}",
            ">= 15,000",
            f"7 seats + Lucky Aces, {full['events_per_round']} events/round, "
            f"{100 * full['shuffle_time_share']:.0f}% of the time shuffling",
        ),
        (
            "shuffle_vs_systemrandom",
            f"{figures['shuffle_vs_systemrandom']:.2f}x",
            "<= 2.0",
            f"8-deck shoe {1e3 * shuffle['ours_s']:.3f} ms vs SystemRandom "
            f"{1e3 * shuffle['systemrandom_s']:.3f} ms",
        ),
        (
            "uth_rank7_vs_best_of",
            f"{figures['uth_rank7_vs_best_of']:.1f}x",
            ">= 10",
            f"7-card hands: rank7 {details['uth_evaluator']['rank7_hands_per_s']:,.0f}/s vs "
            f"best_of {details['uth_evaluator']['best_of_hands_per_s']:,.0f}/s",
        ),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.append(
        f"(medians of {details['repeats']} interleaved repetitions; {details['python']}, one core)"
    )
    return "\n".join(lines)
