"""The simulator's platform part: shoes for simulations, per-wager statistics, chunked runs.

``etg sim``, ``etg par`` and ``etg demo`` play rounds through each game's engine with bots on
every seat, through its driver (:meth:`~game_server.games.api.Game.sim_driver`: a
:class:`RoundDriver`), and tally each round's events
(:meth:`~game_server.games.api.Game.tally`, with a :class:`RoundTally`) into a
:class:`SimResult`: exact integer totals per wager,
per placement and per round; the return per amount wagered, the house edge per initial
wager (what is published for a table game) and their 95% confidence intervals, taken over
per-round totals because the seats of a round share the dealer's cards, are computed from
them (see :meth:`WagerStats.ci95`).

:func:`run_sim` plays many rounds in fixed chunks (:data:`CHUNK_ROUNDS`); each chunk has its
own table id and therefore its own shoes, so the result for a seed is the same whatever the
number of worker processes.

Entry points: :class:`SimSpec`, :func:`run_sim`, :class:`SimResult`, :class:`RoundTally`,
:func:`seeded_shoes`, :func:`fresh_shoes`, :func:`format_report` (the human report).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from game_server import games
from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.entropy import EntropySource
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.wagers.base import TableType
from shared.money import format_money

if TYPE_CHECKING:
    from game_server.games.api import Game

__all__ = [
    "CHUNK_ROUNDS",
    "RoundDriver",
    "RoundTally",
    "SimResult",
    "SimSpec",
    "WagerStats",
    "format_report",
    "fresh_shoes",
    "interval_json",
    "iter_chunks",
    "mystery_draw",
    "report_order",
    "run_chunk",
    "run_sim",
    "seeded_shoes",
    "stats_json",
]

#: Rounds per chunk of a simulation. Each chunk is a separate table (its own table id and
#: shoes), so a result depends on the seed and the chunk size, never on the worker count.
CHUNK_ROUNDS = 10_000

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


class Dealable(Protocol):
    """What the driver needs of a shoe: the engine's ``CardSource`` plus ``needs_shuffle``."""

    @property
    def position(self) -> int: ...

    @property
    def needs_shuffle(self) -> bool: ...

    def draw(self) -> Any: ...


#: Makes shoe number ``n`` of a table (0, 1, 2, ...).
ShoeFactory = Callable[[int], Dealable]


class RoundDriver(Protocol):
    """Plays whole rounds of one table through its game's engine, bots on every seat."""

    def play_round(self) -> list[Any]:
        """Play one round from the wagers to the last settlement; every event the engine
        produced, in order."""
        ...


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


def mystery_draw(seed: int, table_id: str) -> Callable[[int], int]:
    """Deterministic certified draws for a simulated table's mystery meter triggers
    (633b.14(c)(3)): a DRBG stream of its own, personalized by the table id."""
    shoe_seed = ShoeSeed.from_test_seed(seed, f"{table_id}/mystery", 0)
    drbg = HmacDrbg(shoe_seed.entropy_input, shoe_seed.nonce, shoe_seed.personalization)
    return RandomStream(drbg).randbelow


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
        """``(name, stats)`` per wager: each game's main wagers first, in the rank its
        :attr:`~game_server.games.api.Game.report_order` gives them (Blackjack, then
        insurance; Ultimate Texas Hold 'Em's base game, then Ante, Blind and Play), then the
        others by name."""
        rank = report_order()
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


_ORDER: dict[int, Mapping[str, int]] = {}


def report_order() -> Mapping[str, int]:
    """Every game's :attr:`~game_server.games.api.Game.report_order` together (a report lists
    those wagers first)."""
    generation = games.generation()
    order = _ORDER.get(generation)
    if order is None:
        found: dict[str, int] = {}
        for game in games.games():
            found.update(game.report_order)
        _ORDER.clear()
        order = _ORDER[generation] = found
    return order


class RoundTally:
    """One round's placements and settlements, grouped per seat and wager, for a
    :class:`SimResult` (what each game's :meth:`~game_server.games.api.Game.tally` fills).

    A seat's first placement of a group in the round is its initial wager; later ones (a
    double down, a split, a Play Wager) add to what it wagered. :meth:`close` adds each
    group's placements of the round, as one round (:meth:`WagerStats.add_round`).
    """

    def __init__(self, result: SimResult) -> None:
        self.result = result
        #: (seat, group) -> [initial, wagered, paid]
        self.totals: dict[tuple[Any, str], list[int]] = {}

    def placed(self, seat: Any, group: str, cents: int) -> None:
        """A wager placed: the first of its group and seat in the round is the initial wager."""
        entry = self.totals.get((seat, group))
        if entry is None:
            self.totals[seat, group] = [cents, cents, 0]
        else:
            entry[1] += cents

    def paid(self, seat: Any, group: str, cents: int) -> None:
        """What a settlement of the group paid the seat (the stake included)."""
        self.totals[seat, group][2] += cents

    def line(self, group: str, line: str) -> None:
        """One settlement of the group on this paytable or rule line."""
        stats = self.result.wagers.get(group)
        if stats is None:
            stats = self.result.wagers[group] = WagerStats()
        stats.lines[line] += 1

    def close(self) -> None:
        """Add the round to the result."""
        by_wager: dict[str, list[tuple[int, int, int]]] = {}
        for (_seat, group), (initial, wagered, paid) in self.totals.items():
            by_wager.setdefault(group, []).append((initial, wagered, paid))
        stats = self.result.wagers
        for group, placements in by_wager.items():
            wager_stats = stats.get(group)
            if wager_stats is None:
                wager_stats = stats[group] = WagerStats()
            wager_stats.add_round(placements)
        self.result.rounds += 1


# ------------------------------------------------------------------------------- running


@dataclass(frozen=True)
class SimSpec:
    """Everything one simulation needs; picklable so that worker processes can take chunks.

    Attributes:
        rules: The table's rules (its game's: ``TableConfig.rules``).
        every_round: New shoe every round (else shuffle at the cut card).
        cut_card: Where the cut card lies in a cut-card shoe.
        seats: Seats played (players, at a table in stadium play).
        seed: The simulation seed.
        rounds: Rounds in all.
        chunk_rounds: Rounds per chunk.
        main_wager: The main wager in cents (the Blackjack wager, the Ante); the table
            minimum if None.
        table_id: Prefix of each chunk's table id (the chunk number is appended).
        table_type: The type of table.
        game: The registered game that plays it (its name); None: the first game that runs
            ``table_type``.
        must_hit_by: The Must-Hit-By Mystery Bonus the table offers
            (:class:`~game_server.config.MustHitBy`), or None: its meter is simulated with
            triggers drawn from :func:`mystery_draw`.
    """

    rules: Any
    every_round: bool
    cut_card: int | None
    seats: int
    seed: int
    rounds: int
    chunk_rounds: int = CHUNK_ROUNDS
    main_wager: int | None = None
    table_id: str = "sim"
    table_type: TableType = TableType.FULLY_AUTOMATED
    game: str | None = None
    must_hit_by: Any = None

    def chunks(self) -> list[tuple[int, int]]:
        """``(chunk number, rounds)`` for every chunk, in order."""
        size = self.chunk_rounds
        full, rest = divmod(self.rounds, size)
        out = [(k, size) for k in range(full)]
        if rest:
            out.append((full, rest))
        return out

    def player(self) -> Game:
        """The game that plays the simulation."""
        if self.game is not None:
            return games.game_named(self.game)
        return next(g for g in games.games() if self.table_type in g.table_types)

    def driver(self, chunk: int) -> RoundDriver:
        """The table driver of chunk ``chunk``: its own table id, so its own shoes."""
        return self.player().sim_driver(self, chunk)


def run_chunk(spec: SimSpec, chunk: int, rounds: int) -> SimResult:
    """Play one chunk and tally it (what a worker process runs)."""
    driver = spec.driver(chunk)
    play = driver.play_round
    tally = spec.player().tally
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
