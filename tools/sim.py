"""The table driver and the Blackjack simulator behind ``etg sim``.

:class:`TableDriver` is the ONE place outside the live table that plays rounds: ``etg sim``,
``etg demo`` and ``etg bench`` all drive the pure engine
(:class:`~game_server.games.blackjack.rules.round.BlackjackRound`) through it, so no tool keeps its
own copy of the rules (STYLE.md "One place per concern"). A round places the main wager and
every side wager the table offers on each seat, deals, answers insurance, plays each hand
with a strategy (basic strategy by default) that is told what the engine allows, and returns
every event the engine produced.

:func:`run_sim` plays many rounds in fixed chunks (:data:`CHUNK_ROUNDS`); each chunk has its
own table id and therefore its own shoes, so the result for a seed is the same whatever the
number of worker processes. :class:`SimResult` holds exact integer totals per wager, per
placement and per round; the return per amount wagered, the house edge per initial wager
(what is published for Blackjack) and their 95% confidence intervals, taken over per-round
totals because the seats of a round share the dealer's cards, are computed from them (see
:meth:`WagerStats.ci95`).

An Ultimate Texas Hold 'Em table (``game = "uth"``, 58 Pa. Code 653a) is played by
:class:`UthDriver` over the pure :class:`~game_server.games.uth.rules.game.UthRound`: every seat
places the Ante at the minimum (or ``--wager``), the equal Blind and every other wager the
table offers at its minimum, decides with :mod:`game_server.games.uth.rules.strategy`, and each
round is dealt from its own certified one-deck shoe; the meters are fed and awarded through a
:class:`~game_server.rules.meters.MeterBank`, and the Magic Card and Lucky Bonus come from
:func:`~game_server.games.uth.session.bonus_draws` as at the live table. :func:`tally`
reports each wager (the Envy Bonus with the Progressive Payout, the Magic Card and Lucky
Bonus with their Five Card Hand Bonus) and ``ante+blind+play``, the base game together.

Entry points: :class:`TableDriver`, :class:`UthDriver`, :func:`run_sim`, :func:`format_report`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from game_server.config import TableConfig
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DOUBLE,
    INSURANCE,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import BlackjackRound, Phase
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.uth.config import rules_of as uth_rules_of
from game_server.games.uth.rules import strategy as uth_strategy
from game_server.games.uth.rules.events import (
    ANTE,
    BLIND,
    ENVY,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    LUCKY,
    MAGIC,
    PLAY,
    PROGRESSIVE,
    TRIPS,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.game import MULTIPLES, UthRound
from game_server.games.uth.rules.rules import UthRules
from game_server.games.uth.session import UthSession, bonus_draws
from game_server.keys import key_id, load_public_key, load_sealing_key, load_signing_key
from game_server.rng.entropy import EntropySource
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import TableType
from game_server.table.session import SealedShoes, simulation_seeds
from shared.cards import BJ_VALUE
from shared.money import format_money
from tools.sim_hybrid import NoHoleCardDriver, ThreePositionDriver

#: Rounds per chunk of a simulation. Each chunk is a separate table (its own table id and
#: shoes), so a result depends on the seed and the chunk size, never on the worker count.
CHUNK_ROUNDS = 10_000

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054

_HIT, _STAND, _DOUBLE, _SPLIT = Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT
_PLAYING, _INSURANCE = Phase.PLAYING, Phase.INSURANCE


class Dealable(Protocol):
    """What the driver needs of a shoe: the engine's ``CardSource`` plus ``needs_shuffle``."""

    @property
    def position(self) -> int: ...

    @property
    def needs_shuffle(self) -> bool: ...

    def draw(self) -> Any: ...


#: Makes shoe number ``n`` of a table (0, 1, 2, ...).
ShoeFactory = Callable[[int], Dealable]


class Strategy(Protocol):
    """How a simulated player decides: :class:`BasicStrategy`'s interface."""

    def decide(
        self,
        total: int,
        soft: bool,
        pair_value: int,
        dealer_up_value: int,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
    ) -> Action: ...

    def take_insurance(self) -> bool: ...


def seeded_shoes(decks: int, cut_card: int | None, seed: int, table_id: str) -> ShoeFactory:
    """Deterministic certified shoes for simulations (:meth:`ShoeSeed.from_test_seed`).

    Args:
        decks: Decks per shoe.
        cut_card: Where the cut card lies, or None for a new shoe every round.
        seed: The simulation seed.
        table_id: Personalizes each shoe's DRBG together with the shoe number.

    Returns:
        A factory of shoe number -> :class:`~game_server.rng.shoe.Shoe`.
    """

    def make(shoe_number: int) -> Shoe:
        return Shoe(decks, ShoeSeed.from_test_seed(seed, table_id, shoe_number), cut_card=cut_card)

    return make


def fresh_shoes(
    decks: int, cut_card: int | None, table_id: str, entropy: EntropySource | None = None
) -> ShoeFactory:
    """Production shoes: each seeded with fresh, health-tested OS entropy (ShoeSeed.fresh).

    Args:
        decks: Decks per shoe.
        cut_card: Where the cut card lies, or None for a new shoe every round.
        table_id: Personalizes each shoe's DRBG together with the shoe number.
        entropy: The entropy source; a new :class:`EntropySource` over ``os.urandom`` if None.

    Returns:
        A factory of shoe number -> :class:`~game_server.rng.shoe.Shoe`.
    """
    source = EntropySource() if entropy is None else entropy

    def make(shoe_number: int) -> Shoe:
        return Shoe(decks, ShoeSeed.fresh(source, table_id, shoe_number), cut_card=cut_card)

    return make


def table_wagers(rules: BlackjackRules, main_wager: int | None = None) -> dict[str, int]:
    """The wagers a simulated seat places: the main wager and every offered side wager.

    Args:
        rules: The table's rules.
        main_wager: The Blackjack wager in cents; the table minimum if None.

    Returns:
        ``{wager name: cents}``: each side wager at its minimum (the table's one amount for a
        fixed-amount wager), capped at its multiple of the main wager if it has one.
        The engine verifies every amount when the wagers are placed.
    """
    main = rules.main_limits.minimum if main_wager is None else main_wager
    wagers = {BLACKJACK: main}
    for offer in rules.side_wagers:
        wager = offer.wager
        amount = offer.limits.minimum  # a fixed-amount wager's one amount (min = max)
        if wager.max_multiple_of_main is not None:
            amount = min(amount, main * wager.max_multiple_of_main)
        wagers[wager.name] = amount
    return wagers


class TableDriver:
    """Plays whole rounds of a table through the engine, with bots on every seat.

    The driver owns the shoe: with ``every_round`` a new shoe is made for every round; otherwise
    the shoe deals round after round until it says ``needs_shuffle`` at the start of a round
    (the cut card came out), then the next shoe number is made.

    Args:
        rules: The table's rules (the engine's input).
        shoes: Makes shoe number ``n``.
        seats: How many seats play (seats 1..``seats``).
        strategy: How the bots decide; :class:`BasicStrategy` for ``rules`` if None.
        every_round: New shoe every round (the Rules Submission's "every-round" shuffle).
        main_wager: The Blackjack wager in cents; the table minimum if None.
        side_wagers: Whether to place every side wager the table offers.

    Raises:
        ValueError: ``seats`` is not within the table's 1..``rules.seats``.
    """

    __slots__ = (
        "_decide",
        "_insure",
        "_shoe",
        "every_round",
        "rounds",
        "rules",
        "seats",
        "shoe_number",
        "shoes",
        "strategy",
        "wagers",
    )

    def __init__(
        self,
        rules: BlackjackRules,
        shoes: ShoeFactory,
        seats: int,
        strategy: Strategy | None = None,
        *,
        every_round: bool = False,
        main_wager: int | None = None,
        side_wagers: bool = True,
    ) -> None:
        if not 1 <= seats <= rules.seats:
            raise ValueError(f"this table has seats 1..{rules.seats}; cannot play {seats} seats")
        self.rules = rules
        self.shoes = shoes
        self.seats = tuple(range(1, seats + 1))
        self.strategy: Strategy = BasicStrategy(rules) if strategy is None else strategy
        self.every_round = every_round
        wagers = table_wagers(rules, main_wager)
        self.wagers = wagers if side_wagers else {BLACKJACK: wagers[BLACKJACK]}
        #: Rounds played so far.
        self.rounds = 0
        #: Number of the shoe in use (-1 before the first round).
        self.shoe_number = -1
        self._shoe: Dealable | None = None
        self._decide = self.strategy.decide
        self._insure = self.strategy.take_insurance()

    @property
    def shoe(self) -> Dealable | None:
        """The shoe in use (None before the first round)."""
        return self._shoe

    def _next_shoe(self) -> Dealable:
        self.shoe_number += 1
        shoe = self._shoe = self.shoes(self.shoe_number)
        return shoe

    def play_round(self) -> list[Any]:
        """Play one round from the wagers to the last settlement.

        Returns:
            Every event the engine produced, in order.
        """
        shoe = self._shoe
        if shoe is None or self.every_round or shoe.needs_shuffle:
            shoe = self._next_shoe()
        game = BlackjackRound(self.rules)
        events: list[Any] = []
        extend = events.extend
        place = game.place_wagers
        wagers = self.wagers  # the engine copies the amounts: one dict serves every seat
        for seat in self.seats:
            extend(place(seat, wagers))
        extend(game.deal(shoe))
        if game.phase is _INSURANCE:
            self._answer_insurance(game, extend)
        if game.phase is _PLAYING:
            self._play_hands(game, extend)
        self.rounds += 1
        return events

    def _answer_insurance(self, game: BlackjackRound, extend: Callable[[Any], None]) -> None:
        for seat in game.pending_insurance:
            if self._insure and game.can_take_even_money(seat):
                extend(game.take_even_money(seat))
            elif self._insure and game.can_insure(seat):
                extend(game.insure(seat, game.seats[seat].wagers[BLACKJACK] // 2))
            else:
                extend(game.decline_insurance(seat))

    def _play_hands(self, game: BlackjackRound, extend: Callable[[Any], None]) -> None:
        """Decide and act until no hand is to act (the engine then plays the dealer).

        The engine's ``can_double``/``can_split``/``can_surrender`` flags are asked lazily:
        the strategy first decides as if all three were allowed, and only when it picks one of
        those actions is the engine asked whether it is legal; if not, the strategy decides
        again with that flag off. This gives exactly the decision the three flags asked up
        front would give, because a flag of :meth:`BasicStrategy.decide` only ever decides
        whether *its own* action is chosen, and it saves most of the engine's refusals (each
        a raised exception) on the hot path.
        """
        decide = self._decide
        up = BJ_VALUE[game.dealer[0]]
        bj = BJ_VALUE
        while True:
            hand = game.to_act
            if hand is None:
                return
            seat = hand.seat
            index = hand.index
            cards = hand.cards
            pair = 0
            if len(cards) == 2:
                first = bj[cards[0]]
                if first == bj[cards[1]]:
                    pair = first
            total = hand.total
            soft = hand.soft
            can_double = can_split = can_surrender = True
            while True:
                action = decide(total, soft, pair, up, can_double, can_split, can_surrender)
                if action is _STAND:
                    extend(game.stand(seat, index))
                    break
                if action is _HIT:
                    extend(game.hit(seat, index))
                    break
                if action is _DOUBLE:
                    if game.can_double(seat, index):
                        extend(game.double(seat, index))
                        break
                    can_double = False
                elif action is _SPLIT:
                    if game.can_split(seat, index):
                        extend(game.split(seat, index))
                        break
                    can_split = False
                elif game.can_surrender(seat, index):
                    extend(game.surrender(seat, index))
                    break
                else:
                    can_surrender = False


# ------------------------------------------------------------------------------- statistics


@dataclass
class WagerStats:
    """Exact totals of one wager over a simulation, per placement and per round.

    One *placement* is one seat's wager in a round; its *initial* wager is the first amount
    placed (the Blackjack wager of hand 0, the Ante of ``ante+blind+play``). For
    ``"blackjack"`` the double down and split additions of that seat's round belong to the
    same placement: they count in ``wagered`` and ``paid`` but not in ``initial`` or
    ``placed``. Money is in cents; ``paid`` is everything returned to the player, stake
    included.

    The seats of one round share the dealer's cards (the measured correlation between two
    seats' Blackjack results is about 0.37), so placements of one round are not independent
    draws. The intervals are therefore computed from per-round totals (clustered by round,
    :meth:`ci95`), while the spread of one placement (:meth:`sd_per_initial`) is taken per
    placement.

    Attributes:
        placed: Number of placements.
        rounds: Rounds in which the wager was placed (the clusters).
        initial: Cents of initial wagers.
        wagered: Cents wagered (doubles and splits included).
        paid: Cents returned (stake included).
        wins: Placements that returned more than they wagered.
        sum_n2: Sum over placements of (paid - wagered)^2.
        sum_ni: Sum over placements of (paid - wagered) * initial.
        sum_i2: Sum over placements of initial^2.
        round_w2: Sum over rounds of the round's wagered^2 (the wager's seats together);
            likewise ``round_p2``, ``round_wp``, ``round_i2``, ``round_iw``, ``round_ip``.
        lines: Settlements per paytable line or rule line (for ``"blackjack"``: one per hand
            on its Blackjack wager, so a double down counts once and a split hand once).
    """

    placed: int = 0
    rounds: int = 0
    initial: int = 0
    wagered: int = 0
    paid: int = 0
    wins: int = 0
    sum_n2: int = 0
    sum_ni: int = 0
    sum_i2: int = 0
    round_w2: int = 0
    round_p2: int = 0
    round_wp: int = 0
    round_i2: int = 0
    round_iw: int = 0
    round_ip: int = 0
    lines: Counter[str] = field(default_factory=Counter)

    def add_round(self, placements: Iterable[tuple[int, int, int]]) -> None:
        """Count one round's placements of this wager, each ``(initial, wagered, paid)``."""
        r_i = r_w = r_p = 0
        for initial, wagered, paid in placements:
            net = paid - wagered
            self.placed += 1
            self.wins += paid > wagered
            self.sum_n2 += net * net
            self.sum_ni += net * initial
            self.sum_i2 += initial * initial
            r_i += initial
            r_w += wagered
            r_p += paid
        self.rounds += 1
        self.initial += r_i
        self.wagered += r_w
        self.paid += r_p
        self.round_w2 += r_w * r_w
        self.round_p2 += r_p * r_p
        self.round_wp += r_w * r_p
        self.round_i2 += r_i * r_i
        self.round_iw += r_i * r_w
        self.round_ip += r_i * r_p

    def add(self, wagered: int, paid: int) -> None:
        """Count one placement, alone in its round, whose initial wager is all it wagered."""
        self.add_round(((wagered, wagered, paid),))

    def merge(self, other: WagerStats) -> None:
        """Add another chunk's totals to these."""
        for name in _STATS_SUMS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.lines.update(other.lines)

    @property
    def house_result(self) -> int:
        """What the house kept, in cents (negative when the players won)."""
        return self.wagered - self.paid

    @property
    def rtp(self) -> float:
        """Return to player per amount wagered: cents paid per cent wagered (doubles and
        splits included)."""
        return self.paid / self.wagered if self.wagered else 0.0

    @property
    def house_edge(self) -> float:
        """The house edge per initial wager: the house result over the initial wagers (what
        is published for Blackjack; per Ante for the Hold 'Em base game)."""
        return self.house_result / self.initial if self.initial else 0.0

    @property
    def element_of_risk(self) -> float:
        """The house edge per amount wagered (doubles and splits included): 1 - :attr:`rtp`."""
        return self.house_result / self.wagered if self.wagered else 0.0

    @property
    def hit_frequency(self) -> float:
        """The share of placements that returned more than they wagered."""
        return self.wins / self.placed if self.placed else 0.0

    @property
    def average_wager(self) -> float:
        """Cents wagered per cent of initial wager (1 for a wager that cannot grow)."""
        return self.wagered / self.initial if self.initial else 0.0

    def sd_per_initial(self) -> float | None:
        """The standard deviation of one placement's net result per unit of initial wager
        (linearized around the house edge, as :meth:`ci95`), or None with fewer than two."""
        n = self.placed
        if n < 2 or not self.initial:
            return None
        h = (self.paid - self.wagered) / self.initial  # mean net per unit of initial
        ss = self.sum_n2 - 2 * h * self.sum_ni + h * h * self.sum_i2
        return math.sqrt(max(ss, 0.0) / (n - 1)) / (self.initial / n)

    def ci95(self) -> tuple[float, float] | None:
        """A 95% confidence interval for :attr:`rtp`, clustered by round.

        The RTP is a ratio estimator ``R = sum(P_r) / sum(W_r)`` over rounds ``r`` (``W_r``
        the cents the round's placements of this wager wagered, doubles and splits included,
        ``P_r`` what they paid). Its standard error comes from the per-round net result
        linearized around ``R``, ``d_r = P_r - R * W_r`` (the delta method):
        ``se = sqrt(var(d) / m) / mean(W)`` over the ``m`` rounds, and the interval is
        ``R +- 1.96 se``. Taking each round as one observation counts the seats that share
        the dealer's cards right; rounds are independent apart from sharing a shoe, which
        the interval ignores.

        Returns:
            ``(low, high)``, or None with fewer than two rounds.
        """
        r = self.rtp
        ss = self.round_p2 - 2 * r * self.round_wp + r * r * self.round_w2
        return self._interval(r, ss, self.wagered)

    def house_edge_ci95(self) -> tuple[float, float] | None:
        """A 95% interval for :attr:`house_edge` (per initial wager), clustered by round as
        :meth:`ci95`: ``d_r = N_r - H * I_r`` with ``N_r`` the round's house result and
        ``I_r`` its initial wagers."""
        h = self.house_edge
        n2 = self.round_w2 - 2 * self.round_wp + self.round_p2
        ni = self.round_iw - self.round_ip
        ss = n2 - 2 * h * ni + h * h * self.round_i2
        return self._interval(h, ss, self.initial)

    def _interval(self, centre: float, ss: float, total: int) -> tuple[float, float] | None:
        m = self.rounds
        if m < 2 or not total:
            return None
        se = math.sqrt(max(ss, 0.0) / (m - 1) / m) / (total / m)
        return (centre - Z95 * se, centre + Z95 * se)


#: The integer totals of :class:`WagerStats` that chunks add.
_STATS_SUMS: Final = (
    "placed",
    "rounds",
    "initial",
    "wagered",
    "paid",
    "wins",
    "sum_n2",
    "sum_ni",
    "sum_i2",
    "round_w2",
    "round_p2",
    "round_wp",
    "round_i2",
    "round_iw",
    "round_ip",
)


@dataclass
class SimResult:
    """What a simulation measured: rounds played and :class:`WagerStats` per wager name."""

    rounds: int = 0
    wagers: dict[str, WagerStats] = field(default_factory=dict)

    def merge(self, other: SimResult) -> None:
        """Add another chunk's result (chunks are merged in chunk order)."""
        self.rounds += other.rounds
        for name, stats in other.wagers.items():
            self.wagers.setdefault(name, WagerStats()).merge(stats)

    def ordered(self) -> list[tuple[str, WagerStats]]:
        """``(name, stats)`` per wager: Blackjack, then insurance, then side wagers by name
        (Ultimate Texas Hold 'Em: the base game, Ante, Blind, Play, then the others)."""
        rank = {BLACKJACK: 0, INSURANCE: 1, UTH_BASE: 0, ANTE: 1, BLIND: 1, PLAY: 1}
        return sorted(self.wagers.items(), key=lambda item: (rank.get(item[0], 2), item[0]))

    @property
    def wagered(self) -> int:
        """Cents wagered on every wager."""
        return sum(s.wagered for s in self.wagers.values())

    @property
    def paid(self) -> int:
        """Cents returned on every wager."""
        return sum(s.paid for s in self.wagers.values())

    @property
    def house_result(self) -> int:
        """Cents the house kept."""
        return self.wagered - self.paid

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document: rounds, and per wager its totals, its return per amount
        wagered (``rtp``) and house edge per initial wager, each with its 95% interval
        clustered by round, the element of risk, hit frequency, standard deviation per unit
        of initial wager, and line counts."""
        return {
            "rounds": self.rounds,
            "wagers": {name: stats_json(stats) for name, stats in self.ordered()},
        }


def interval_json(ci: tuple[float, float] | None) -> list[float] | None:
    """An interval as JSON writes it: ``[low, high]``, or None."""
    return None if ci is None else [ci[0], ci[1]]


def stats_json(stats: WagerStats) -> dict[str, Any]:
    """One wager's figures as :meth:`SimResult.to_json` writes them."""
    return {
        "placed": stats.placed,
        "rounds": stats.rounds,
        "initial": stats.initial,
        "wagered": stats.wagered,
        "paid": stats.paid,
        "rtp": stats.rtp,
        "ci95": interval_json(stats.ci95()),
        "house_edge_per_initial_wager": stats.house_edge,
        "house_edge_ci95": interval_json(stats.house_edge_ci95()),
        "element_of_risk": stats.element_of_risk,
        "hit_frequency": stats.hit_frequency,
        "sd_per_initial": stats.sd_per_initial(),
        "lines": dict(sorted(stats.lines.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


#: The suffix of a bonus award's wager name (``blackjack_match_bonus``).
BONUS_SUFFIX = "_bonus"


#: Ultimate Texas Hold 'Em: the base game's three wagers, also reported together.
UTH_BASE = "ante+blind+play"
_UTH_BASE_WAGERS = frozenset({ANTE, BLIND, PLAY})


def _uth_group(name: str) -> str:
    """The wager an Ultimate Texas Hold 'Em settlement is reported under: the Envy Bonus with
    the Progressive Payout, a Magic Card or Lucky Bonus with its Five Card Hand Bonus."""
    if name == ENVY:
        return PROGRESSIVE
    return name.removesuffix(MAGIC).removesuffix(LUCKY)


def _tally_uth(
    event: Any, round_totals: dict[tuple[int, str], list[int]], result: SimResult
) -> None:
    group = _uth_group(event.wager)
    groups = [group, UTH_BASE] if group in _UTH_BASE_WAGERS else [group]
    for name in groups:
        if type(event) is UthWagerPlaced:
            _placed(round_totals, (event.seat, name), event.amount)
        else:
            round_totals[event.seat, name][2] += event.paid
            result.wagers.setdefault(name, WagerStats()).lines[event.line] += 1


def _placed(
    round_totals: dict[tuple[int, str], list[int]], key: tuple[int, str], cents: int
) -> None:
    """A wager placed: the first of its group and seat in the round is the initial wager."""
    entry = round_totals.get(key)
    if entry is None:
        round_totals[key] = [cents, cents, 0]
    else:
        entry[1] += cents


def tally(events: Iterable[Any], result: SimResult) -> None:
    """Add one round's events to ``result``.

    Every wager is grouped per seat: the double down and split wagers of a seat go with its
    ``"blackjack"`` placement, every other wager (insurance, each side wager) is its own. An
    Ultimate Texas Hold 'Em round's wagers each are their own, and the Ante, Blind and Play
    also count together under :data:`UTH_BASE` (its initial wager: the Ante). Each wager's
    placements of the round are added together, as one round (:meth:`WagerStats.add_round`).
    """
    round_totals: dict[tuple[int, str], list[int]] = {}  # [initial, wagered, paid]
    stats = result.wagers
    for event in events:
        kind = type(event)
        if kind is UthWagerPlaced or kind is UthWagerSettled:
            _tally_uth(event, round_totals, result)
        elif kind is WagerSettled:
            name = event.wager
            # A double down goes with its Blackjack wager, a bonus award (Envy Bonus, cash
            # bonus: "<wager>_bonus", no stake) with the wager it belongs to.
            group = BLACKJACK if name == DOUBLE else name.removesuffix(BONUS_SUFFIX)
            round_totals[event.seat, group][2] += event.paid
            if name != DOUBLE:
                wager_stats = stats.get(group)
                if wager_stats is None:
                    wager_stats = stats[group] = WagerStats()
                wager_stats.lines[event.line] += 1
        elif kind is WagerPlaced:
            name = event.wager
            _placed(round_totals, (event.seat, BLACKJACK if name == DOUBLE else name), event.amount)
    by_wager: dict[str, list[tuple[int, int, int]]] = {}
    for (_seat, group), (initial, wagered, paid) in round_totals.items():
        by_wager.setdefault(group, []).append((initial, wagered, paid))
    for group, placements in by_wager.items():
        wager_stats = stats.get(group)
        if wager_stats is None:
            wager_stats = stats[group] = WagerStats()
        wager_stats.add_round(placements)
    result.rounds += 1


# ------------------------------------------------------------------------------- running


@dataclass(frozen=True)
class SimSpec:
    """Everything one simulation needs; picklable so that worker processes can take chunks.

    Attributes:
        rules: The table's rules.
        every_round: New shoe every round (else shuffle at the cut card).
        cut_card: Where the cut card lies in a cut-card shoe.
        seats: Seats played.
        seed: The simulation seed.
        rounds: Rounds in all.
        chunk_rounds: Rounds per chunk.
        main_wager: The Blackjack wager in cents (the Ante at an Ultimate Texas Hold 'Em
            table); the table minimum if None.
        table_id: Prefix of each chunk's table id (the chunk number is appended).
        uth: An Ultimate Texas Hold 'Em table's rules (``config.uth``): the chunks are then
            played by :class:`UthDriver`.
    """

    rules: BlackjackRules
    every_round: bool
    cut_card: int | None
    seats: int
    seed: int
    rounds: int
    chunk_rounds: int = CHUNK_ROUNDS
    main_wager: int | None = None
    table_id: str = "sim"
    table_type: TableType = TableType.FULLY_AUTOMATED
    uth: UthRules | None = None

    def chunks(self) -> list[tuple[int, int]]:
        """``(chunk number, rounds)`` for every chunk, in order."""
        size = self.chunk_rounds
        full, rest = divmod(self.rounds, size)
        out = [(k, size) for k in range(full)]
        if rest:
            out.append((full, rest))
        return out

    def driver(
        self, chunk: int
    ) -> TableDriver | NoHoleCardDriver | ThreePositionDriver | UthDriver:
        """The table driver of chunk ``chunk``: its own table id, so its own shoes."""
        if self.uth is not None:
            table_id = f"{self.table_id}-{chunk}"
            return UthDriver(
                self.uth,
                seeded_decks(self.seed, table_id),
                self.seats,
                self.main_wager,
                table_id,
            )
        cut = None if self.every_round else self.cut_card
        shoes = seeded_shoes(self.rules.decks, cut, self.seed, f"{self.table_id}-{chunk}")
        if self.table_type is TableType.HYBRID_NO_HOLE_CARD:
            return NoHoleCardDriver(
                self.rules,
                shoes,
                self.seats,
                table_wagers(self.rules, self.main_wager),
                every_round=self.every_round,
            )
        if self.table_type is TableType.HYBRID:
            return ThreePositionDriver(
                self.rules,
                shoes,
                self.seats,
                table_wagers(self.rules, self.main_wager),
                every_round=self.every_round,
            )
        return TableDriver(
            self.rules,
            shoes,
            self.seats,
            every_round=self.every_round,
            main_wager=self.main_wager,
        )


def seeded_decks(seed: int, table_id: str) -> Callable[[int], Shoe]:
    """One certified 52-card deck per round (Ultimate Texas Hold 'Em), seeded for simulation."""

    def make(number: int) -> Shoe:
        return Shoe(1, ShoeSeed.from_test_seed(seed, table_id, number))

    return make


def uth_wagers(rules: UthRules, ante: int | None = None) -> dict[str, int]:
    """What a simulated Ultimate Texas Hold 'Em seat places: the Ante (the minimum if None),
    the equal Blind, and every offered wager at its minimum (653a.7, 653a.12)."""
    amount = rules.ante_limits.minimum if ante is None else ante
    wagers = {ANTE: amount, BLIND: amount}
    if rules.trips_paytable is not None:
        wagers[TRIPS] = rules.trips_limits.minimum
    if rules.progressive_amounts:
        wagers[PROGRESSIVE] = min(rules.progressive_amounts)
    if rules.five_card_amounts:
        wagers[FIVE_CARD_PLAYER] = min(rules.five_card_amounts)
        wagers[FIVE_CARD_DEALER] = min(rules.five_card_amounts)
    return wagers


class UthDriver:
    """Plays whole Ultimate Texas Hold 'Em rounds through the engine with the strategy of
    :mod:`game_server.games.uth.rules.strategy` on every seat, as the live table would: a new deck
    per round, the meters fed at the deal and awarded at settlement, the Magic Card and Lucky
    Bonus drawn from the round deck's seed.

    Args:
        rules: The table's UTH rules.
        decks: Makes the deck of round ``n`` (1, 2, ...).
        seats: Seats played (1..``seats``).
        ante: The Ante in cents; the table minimum if None.
        table_id: The table's name (the meters' betting positions).
    """

    def __init__(
        self,
        rules: UthRules,
        decks: Callable[[int], Shoe],
        seats: int,
        ante: int | None = None,
        table_id: str = "sim",
    ) -> None:
        if not 1 <= seats <= rules.seats:
            raise ValueError(f"seats must be within 1..{rules.seats}, got {seats}")
        self.rules = rules
        self.decks = decks
        self.seats = seats
        self.table_id = table_id
        self.wagers = uth_wagers(rules, ante)
        self.meters = MeterBank()
        for meter_id, spec in rules.meters().items():
            self.meters.link(meter_id, spec)
        self.rounds = 0

    def play_round(self) -> list[Any]:
        """Play one round; return every event the engine produced."""
        self.rounds += 1
        deck = self.decks(self.rounds)
        rules = self.rules
        game = UthRound(rules, self.table_id)
        out: list[Any] = []
        for seat in range(1, self.seats + 1):
            out += game.place_wagers(seat, self.wagers)
        for meter_id, stake, place in game.contributions():
            self.meters.contribute(meter_id, stake, place)
        out += game.deal(deck)
        while game.phase in MULTIPLES:
            for seat in game.pending:
                action, multiple = uth_strategy.decide(game, seat)
                out += game.decide(seat, action, multiple)
        magic, lucky = bonus_draws(deck.seed, rules)
        meters = {m: self.meters.meter(m) for m in rules.meters()}
        out += game.settle(meters, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return out


#: Credits each terminal of a logged Ultimate Texas Hold 'Em simulation starts with (cents).
UTH_SIM_CREDITS = 1_000_000


def run_logged_uth_sim(
    config: TableConfig,
    db: Path,
    certs: Path,
    *,
    rounds: int,
    seats: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    anchors: Path | None = None,
) -> UthSession:
    """``etg sim --log`` of an Ultimate Texas Hold 'Em table: ``rounds`` rounds at ``seats``
    seats (terminals ``T1``..) played through the live table's :class:`UthSession` with the
    strategy, the complete signed event log written to ``db`` (decks from test seeds sealed
    with the keys of ``certs``; the last deck revealed at the end so that every card and draw
    verifies)."""
    rules = uth_rules_of(config)
    if rules is None:
        raise ValueError(f"table {config.table_id} is not an Ultimate Texas Hold 'Em table")
    shoes = SealedShoes(
        config,
        simulation_seeds(seed, config.table_id),
        load_sealing_key(certs),
        key_id(load_public_key(certs)),
    )
    terminals = {f"T{seat}": seat for seat in range(1, seats + 1)}
    wagers = uth_wagers(rules)
    most = sum(wagers.values()) + 4 * wagers[ANTE]
    from tools.simlog import open_sim_log

    with open_sim_log(db, load_signing_key(certs), anchors) as log:
        session = UthSession(config, log, shoes, terminals)
        session.open()
        for done in range(rounds):
            session.start_round()
            for terminal in terminals:
                if session.balance(terminal) < most:
                    session.cash_in(terminal, UTH_SIM_CREDITS, "sim top-up")
                session.place_wagers(terminal, wagers)
            session.deal()
            while session.round is not None:
                terminal = session.pending()[0]
                action, multiple = uth_strategy.decide(session.round, terminals[terminal])
                session.decide(terminal, action, multiple)
            if progress is not None:
                progress(done + 1)
        session.retire_shoe()
    return session


def run_chunk(spec: SimSpec, chunk: int, rounds: int) -> SimResult:
    """Play one chunk and tally it (what a worker process runs)."""
    driver = spec.driver(chunk)
    play = driver.play_round
    result = SimResult()
    for _ in range(rounds):
        tally(play(), result)
    return result


def _run_chunk_args(args: tuple[SimSpec, int, int]) -> SimResult:
    return run_chunk(*args)


def iter_chunks(spec: SimSpec, workers: int = 1) -> Iterator[SimResult]:
    """Each chunk's result, in chunk order, computed by ``workers`` processes.

    Args:
        spec: The simulation.
        workers: Worker processes; 1 runs every chunk in this process.

    Yields:
        One :class:`SimResult` per chunk, in chunk order whatever the worker count.
    """
    jobs = [(spec, chunk, rounds) for chunk, rounds in spec.chunks()]
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield _run_chunk_args(job)
        return
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        yield from pool.map(_run_chunk_args, jobs)


def run_sim(
    spec: SimSpec, workers: int = 1, progress: Callable[[int], None] | None = None
) -> SimResult:
    """Play ``spec.rounds`` rounds and merge the chunks in chunk order.

    Args:
        spec: The simulation.
        workers: Worker processes.
        progress: Called with the rounds of each finished chunk.

    Returns:
        The merged result; the same for a seed and chunk size whatever ``workers`` is.
    """
    total = SimResult()
    for part in iter_chunks(spec, workers):
        total.merge(part)
        if progress is not None:
            progress(part.rounds)
    return total


# ------------------------------------------------------------------------------- report


def _percent(x: float) -> str:
    return f"{100 * x:.3f}%"


def _range(ci: tuple[float, float] | None) -> str:
    return "n/a" if ci is None else f"{_percent(ci[0])} .. {_percent(ci[1])}"


def _table(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            cell.rjust(w) if r else cell.ljust(w)
            for cell, w, r in zip(row, widths, right, strict=True)
        ]
        out.append("  ".join(cells).rstrip())
    return out


def format_report(result: SimResult, title: str = "") -> str:
    """The human report: one aligned row per wager, then the line frequencies of each.

    Args:
        result: The simulation result.
        title: A first line (what was simulated), or empty.

    Returns:
        The report text, without a trailing newline.
    """
    lines = [title] if title else []
    rows: list[list[str]] = [
        [
            "Wager",
            "Placed",
            "Wagered",
            "Paid",
            "House result",
            "RTP per wagered",
            "95% CI",
            "House edge per initial",
            "95% CI",
        ]
    ]
    for name, stats in result.ordered():
        rows.append(
            [
                name,
                f"{stats.placed:,}",
                format_money(stats.wagered),
                format_money(stats.paid),
                format_money(stats.house_result),
                _percent(stats.rtp),
                _range(stats.ci95()),
                _percent(stats.house_edge),
                _range(stats.house_edge_ci95()),
            ]
        )
    rows.append(
        [
            "all wagers",
            "",
            format_money(result.wagered),
            format_money(result.paid),
            format_money(result.house_result),
            _percent(result.paid / result.wagered) if result.wagered else "n/a",
            "",
            "",
            "",
        ]
    )
    lines += _table(rows, (False, True, True, True, True, True, False, True, False))
    lines += [
        "RTP per wagered: paid per amount wagered (doubles and splits included).",
        "House edge per initial: the house result per initial wager (Blackjack: the original",
        "wager, as published; ante+blind+play: the Ante). Intervals: per-round totals.",
    ]
    for name, stats in result.ordered():
        settled = sum(stats.lines.values())
        lines.append("")
        lines.append(f"{name}: paytable lines ({settled:,} settlements)")
        line_rows = [
            [f"  {line}", f"{count:,}", f"{100 * count / settled:.4f}%"]
            for line, count in sorted(stats.lines.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        if line_rows:
            lines += _table(line_rows, (False, True, True))
    return "\n".join(lines)
