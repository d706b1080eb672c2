"""The contract between the platform and a game: :class:`Game`.

The platform (the table's flow and countdowns, the network, the event log, recall, verify and
the tools) knows a game only through this protocol, declared once here and implemented by one
object per game package (``game_server/games/<game>/game.py``), found through the registry
(:mod:`game_server.games`); :class:`~game_server.games.base.GameBase` gives the parts a game
may leave out. It is four small protocols, each what one part of the platform needs:
:class:`GameIdentity` (who it is, its Rules Submission), :class:`LiveGame` (the live table),
:class:`RecalledGame` (recall and verify) and :class:`GameTools` (sim, par, math, bench).
``docs/adding-a-game.md`` says what a new game writes, in order.

Entry point: :class:`Game`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from game_server.rules.wagers.base import MeterSpec, TableType
from shared.errors import ETGError

if TYPE_CHECKING:
    from game_server.config import TableConfig
    from game_server.recall.rounds import Logged, LoggedRound
    from game_server.recall.timeline import Described, Labels, Timeline
    from game_server.rng.shoe import ShoeSeed
    from game_server.rules.meters import MeterBank
    from game_server.rules.returns import WagerReturn
    from game_server.sim import RoundDriver, SimResult, SimSpec
    from game_server.table.api import HostedTable, ReactorTime
    from game_server.table.ledger import Ledger
    from game_server.table.secrecy import Secrecy
    from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = [
    "VERIFY_CHECKS",
    "AnalysedEdge",
    "BenchFigure",
    "BenchSample",
    "BotStep",
    "BusyTable",
    "Game",
    "GameIdentity",
    "GameTools",
    "LiveGame",
    "MainWager",
    "MathReport",
    "NotOffered",
    "PublishedFigure",
    "RecalledGame",
    "StrategyReport",
    "WireBot",
]


@dataclass(frozen=True, slots=True)
class MainWager:
    """A game's main wager as ``etg par`` states it.

    Attributes:
        wager: Its name in a simulation's result (the main game's figures).
        title: What the par sheet calls it.
        section: The regulation that sets it.
        initial: What its initial wager is ("original Blackjack wager", "Ante").
        minimum: Its minimum at the table (the hold at the minimum).
        maximum: Its maximum (the hold at the maximum).
        covered: Wagers the main game's figures already cover (not listed apart).
        unheld: Optional wagers the players never place (left out of the hold).
    """

    wager: str
    title: str
    section: str
    initial: str
    minimum: int
    maximum: int
    covered: tuple[str, ...] = ()
    unheld: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BotStep:
    """What a bot's terminal sends next: ``command`` ``"place_wagers"``, ``"answer_insurance"``
    or ``"act"`` with its ``arguments`` (those of the AMP command but its request id);
    ``timed``: a step whose answer a load test times."""

    command: str
    arguments: Mapping[str, Any]
    timed: bool = True


class WireBot(Protocol):
    """A bot playing one terminal from the views the table sends it."""

    def next_step(self, view: Mapping[str, Any]) -> BotStep | None:
        """What the terminal does now that ``view`` came (None: nothing)."""
        ...


@dataclass(frozen=True, slots=True)
class AnalysedEdge:
    """A main game's house edge computed by analysis (not simulation) under its strategy.

    Attributes:
        house_edge: Per initial wager (the Ante at the poker games), the player's loss.
        method: How it was computed ("combinatorial analysis, composition-dependent per
            hand", "every deal of the 52 cards enumerated"...).
        precision: What the figure approximates and how closely (a resplit modelled
            after two splits, a finite-deck effect left out...).
    """

    house_edge: float
    method: str
    precision: str


@dataclass(frozen=True, slots=True)
class PublishedFigure:
    """A published optimal figure for the same rules, to compare with (``etg strategy``
    and ``etg par`` state both)."""

    house_edge: float
    source: str
    rules: str
    """The rules it is published for, as the source states them."""


@dataclass(frozen=True, slots=True)
class StrategyReport:
    """The strategy a game's par sheet, simulator and bots play, as ``etg strategy`` prints
    it: the chart of a twenty-one game, the decision rule of a poker game.

    Attributes:
        name: One line naming it ("Basic strategy of these rules by combinatorial
            analysis: 6 decks, dealer hits soft 17, ...").
        derivation: How it was derived, with its approximations and sources.
        lines: The chart or decision rule as text for people.
        data: The same as plain data (``--json``).
        analysis: The house edge it gives by analysis, where the game computes one.
        published: Published optimal figures for the same rules.
        differences: Where it departs from a published chart, cell by cell, and why.
    """

    name: str
    derivation: str
    lines: tuple[str, ...]
    data: Mapping[str, Any]
    analysis: AnalysedEdge | None = None
    published: tuple[PublishedFigure, ...] = ()
    differences: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (``etg strategy --json``, ``etg par --json``)."""
        analysis = self.analysis
        return {
            "name": self.name,
            "derivation": self.derivation,
            "analysis": None
            if analysis is None
            else {
                "house_edge": analysis.house_edge,
                "method": analysis.method,
                "precision": analysis.precision,
            },
            "published": [
                {"house_edge": p.house_edge, "source": p.source, "rules": p.rules}
                for p in self.published
            ],
            "differences": list(self.differences),
            "strategy": dict(self.data),
        }


@dataclass(frozen=True, slots=True)
class MathReport:
    """What ``etg math`` prints for one of a game's wagers: ``lines`` of text, or ``data``
    with ``--json``."""

    lines: list[str]
    data: Any


@dataclass(frozen=True, slots=True)
class BenchSample:
    """One repetition of a benchmark figure: its ``value`` (a ratio against the peer measured
    back to back with it, or a rate) and the ``parts`` it was made of (each side's rate...)."""

    value: float
    parts: Mapping[str, float]


class BenchFigure(Protocol):
    """One figure of ``etg bench`` a game measures against its peer (``tools/bench.py``
    interleaves every game's figures, repeats them and reports medians; docs/design.md "Tests":
    no pass/fail).

    Attributes:
        name: The figure's key in ``etg bench --json`` (``"engine_vs_blackjack21"``).
        details_key: Its key under ``details``.
        target: What it should reach, as the table prints it (``">= 1.2"``).
        work: Work per sample by default (rounds, hands...).
        quick_work: Work per sample with ``--quick`` (about a tenth).
    """

    name: str
    details_key: str
    target: str
    work: int
    quick_work: int

    def prepare(self) -> None:
        """Ready it before the first repetition (warm tables, read the config)."""
        ...

    def measure(self, work: int, repetition: int) -> BenchSample:
        """One sample of ``work`` (``repetition`` seeds it and picks which peer goes first)."""
        ...

    def details(self, samples: Sequence[BenchSample], work: int) -> dict[str, Any]:
        """What ``details[details_key]`` says of the samples (medians, the samples, the
        conditions)."""
        ...

    def value_text(self, value: float) -> str:
        """The figure as the table prints it (``"1.45x"``)."""
        ...

    def against(self, details: Mapping[str, Any]) -> str:
        """The table's "Measured against" cell, from :meth:`details`."""
        ...


class BusyTable(Protocol):
    """One table of a game played by bots for a realistic benchmark log (the recall figures
    of ``etg bench log``): the live table's own session writing every step to the log, the
    bots varying what they do (a seat sitting a round out, a decision left to the
    countdown)."""

    def play_round(self, chance: Callable[[], float]) -> None:
        """Play one whole round, ``chance`` (numbers in [0, 1) from the benchmark's seeded
        stream: not a deal) choosing the bots' variations."""
        ...

    def close(self) -> None:
        """Retire the shoe in use (so that every card of the log verifies)."""
        ...


class NotOffered(ETGError):
    """A tool a game does not offer (``etg demo``'s console story, ``etg par``...): the
    message says what the game does offer."""


# --------------------------------------------------------------- what etg verify checks
# A game names, for each kind of its records, one of these checks
# (:meth:`Game.verify_checks`); ``etg verify`` runs them (:mod:`game_server.recall.verify`).

#: A card dealt to a seat (seat 0: the dealer): the envelope names the seat's terminal (none
#: for the dealer); the card is the shoe's at its position, after the last one dealt.
CARD: Final = "card"
#: A face-down card turned up (``position``, ``card``): the dealer's; the shoe's card there.
HOLE: Final = "hole"
#: A wager placed or settled at a seat: the envelope names the seat's terminal; it is folded
#: into the ledger (a wager the credits cannot cover is a failure, reported once).
WAGER: Final = "wager"
#: Any other record of a seat (a decision, a hand shown): the envelope names its terminal.
SEATED: Final = "seated"
#: A record of the dealer or the table: the envelope names no terminal.
DEALER_STEP: Final = "dealer"
#: The round's completion: the dealer's; one game played.
COMPLETED: Final = "completed"
#: A card of the table (the dealer's, every player's, the community's): no terminal; the
#: shoe's card at its position, after the last one dealt.
TABLE_CARD: Final = "table_card"
#: A card of a seat from 1 (its terminal) or, below 1, of the dealer or the board (none);
#: the shoe's card at its position, after the last one dealt.
SEAT_CARD: Final = "seat_card"
#: Stadium play: a record of a player named by his terminal (``player``): the envelope names
#: it, a terminal of ``round_started``.
PLAYER: Final = "player"
#: :data:`PLAYER`, and folded into the ledger as a wager.
PLAYER_WAGER: Final = "player_wager"
#: Stadium play: a record of a player numbered 1, 2, ... in the order they joined
#: (``seat``): the envelope names the terminal that joined as that number.
NUMBERED: Final = "numbered"
#: :data:`NUMBERED`, and folded into the ledger as a wager.
NUMBERED_WAGER: Final = "numbered_wager"
#: What the table game system drew from the round deck's seed (the dealer's record): the game
#: checks it against the seed once it is known (:meth:`Game.seeded_draw_problem`).
SEEDED: Final = "seeded"

#: Every check a game may name, with what it checks.
VERIFY_CHECKS: Final[Mapping[str, str]] = {
    CARD: "a seat's card: its terminal; the shoe's card at its position",
    HOLE: "a face-down card turned up: the shoe's card at its position",
    WAGER: "a seat's wager: its terminal; folded into the ledger",
    SEATED: "a seat's record: its terminal",
    DEALER_STEP: "the dealer's or the table's record: no terminal",
    COMPLETED: "the round's completion: a game played",
    TABLE_CARD: "a card of the table: no terminal; the shoe's card at its position",
    SEAT_CARD: "a card of a seat (its terminal) or of the dealer or board (none)",
    PLAYER: "a player named by his terminal",
    PLAYER_WAGER: "a player's wager named by his terminal; folded into the ledger",
    NUMBERED: "a player numbered in join order: the terminal that joined so",
    NUMBERED_WAGER: "a numbered player's wager; folded into the ledger",
    SEEDED: "a draw from the round deck's seed, checked by the game",
}


class GameIdentity(Protocol):
    """Who a game is and how its Rules Submission is read.

    Identity: :attr:`name` (the registry key, the entry point's name), :attr:`title`,
    :attr:`chapter` (where the regulation text lives), the ``[table] game`` value it deals
    (:attr:`config_game`) and the table types it runs (:attr:`table_types`).
    """

    @property
    def name(self) -> str:
        """The registry key and entry point name (``"blackjack"``); unique."""
        ...

    @property
    def title(self) -> str:
        """What people call it (``"Ultimate Texas Hold 'Em"``)."""
        ...

    @property
    def chapter(self) -> str:
        """The regulation it implements (``"58 Pa. Code 653a"``)."""
        ...

    @property
    def config_game(self) -> str:
        """The ``[table] game`` of its Rules Submissions (games may share one: the hybrid
        tables deal Blackjack and differ by ``[table] type``)."""
        ...

    @property
    def table_types(self) -> frozenset[TableType]:
        """The table types it runs."""
        ...

    # -------------------------------------------------------------- the Rules Submission

    @property
    def examples(self) -> tuple[Path, ...]:
        """Its example Rules Submissions (TOML files shipped with it)."""
        ...

    @property
    def pictured(self) -> Mapping[str, Path]:
        """The tables ``docs/screens`` pictures (``python -m tools.screens``): the pictures'
        name prefix -> the example Rules Submission played."""
        ...

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        """Check a parsed Rules Submission of this game and build its config (every problem
        collected into one :class:`~game_server.config.ConfigError`, each naming its field
        and, where a regulation is the reason, the section)."""
        ...

    def logged_config(self, config: TableConfig) -> dict[str, Any]:
        """The config as logged in ``table_opened`` (:meth:`TableConfig.to_dict`): plain data,
        cents as integers, schema :data:`~game_server.config.CONFIG_SCHEMA`. Its canonical
        JSON's SHA-256 is the config hash: never change it for an existing game."""
        ...

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        """The logged form back in the file's shape (what :meth:`build_config` reads), so that
        a logged config is checked again as a file would be."""
        ...


class LiveGame(Protocol):
    """What the live table (the server's session, round machine, ledger and recovery) needs
    of a game."""

    def open_session(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> TableBook:
        """A session of one table of this game, writing to ``sink`` (the event log, or
        memory): the :class:`~game_server.table.session.TableBook` that turns each input into
        one logged engine step. ``seats`` maps each terminal of the table to its seat (a game
        in stadium play takes the terminals and no seats); ``meters`` are the server's
        progressive meters (linked tables share them)."""
        ...

    def machine(
        self, session: TableBook, clock: ReactorTime, next_round_delay: float
    ) -> HostedTable:
        """The live round machine around a session: the countdowns and table states of its
        rounds (:class:`~game_server.table.stadium.StadiumMachine` gives the shared ones),
        and each terminal's view and the rules document."""
        ...

    def new_ledger(self) -> Ledger:
        """A ledger that folds this game's records (what recovery, recall and the session
        fold the log with)."""
        ...

    def meters(self, config: TableConfig) -> Mapping[str, MeterSpec]:
        """Every progressive meter a table of this config opens or links: meter id -> its
        specification (recovery folds them from the log)."""
        ...

    def rules_document(self, config: TableConfig) -> dict[str, Any]:
        """The rules and paytables a terminal shows (``GetRules``; 633b.5(c)(2)), built
        from ``config`` in the shape :mod:`game_server.table.info` describes."""
        ...

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        """Make the round the log left unfinished the session's open round (replayed through
        the engine, the shoe in use its card source) and return the phase it resumes in.

        Raises:
            RecoveryError: it does not replay, or cannot be resumed (a seated table's
                terminals must hold the seats they held in it: SeatingChanged).
        """
        ...

    @property
    def placed_kinds(self) -> frozenset[type]:
        """Its records of a wager placed (``seat``, ``wager``, ``amount``): each debits the
        terminal its envelope names (:class:`~game_server.table.ledger.Ledger`)."""
        ...

    @property
    def settled_kinds(self) -> frozenset[type]:
        """Its records of a wager settled (``wager``, ``stake``, ``paid`` with the stake
        included, ``outcome``, ``line``; optionally ``from_meter``): each credits ``paid``."""
        ...

    @property
    def completed_kinds(self) -> frozenset[type]:
        """Its records that complete a round (every wager settled): one game played."""
        ...

    def secrecy(self, table_type: TableType) -> Secrecy:
        """Which of its records deal a card face down or to one player's eyes only, and which
        turn cards up, at a table of ``table_type``
        (:class:`~game_server.table.secrecy.Secrecy`): the log holds those cards sealed until
        they are turned up or the round closes, and no view, recall, console page or printout
        shows one before (its session declares the same as ``secrecy``)."""
        ...

    @property
    def shoe_card_kinds(self) -> frozenset[type]:
        """The kinds of event whose ``card`` left the shoe at ``position`` (recovery and
        verification check them against the committed shoe)."""
        ...


class RecalledGame(Protocol):
    """What game recall, recall pictures and ``etg verify`` need of a game."""

    @property
    def wager_titles(self) -> Mapping[str, str]:
        """Its wagers' display names (``"ante": "Ante"``); the shared side wagers have theirs."""
        ...

    def engine_kinds(self, table_type: TableType) -> frozenset[type]:
        """The kinds of record its engine produces at a table of ``table_type`` (what
        :meth:`replay` is fed, in log order)."""
        ...

    def seated(self, config: TableConfig) -> bool:
        """Whether each terminal holds a seat (False in stadium play: ``round_started``
        lists seat 0 for every terminal, and recall names no seats)."""
        ...

    def recall_labels(
        self, config: TableConfig, seats: Mapping[int, str], events: Sequence[Logged]
    ) -> Labels:
        """How recall names the seats, players and hands of one round (and what reveals a
        face-down card later in it): a :class:`~game_server.recall.timeline.Labels`."""
        ...

    def describe(self, config: TableConfig, item: Logged, labels: Labels) -> Described | None:
        """``(who, text, data)`` of one logged event of its rounds as game recall shows it
        (a sentence for a person; the fields as JSON-ready data, a face-down card ``None``
        unless the round reveals it); None for an event it leaves to the platform (the
        table's own records, the meters')."""
        ...

    def round_views(self, logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
        """The view ``terminal`` (default: the first that wagered) had after each event of
        the round, rebuilt from the log (recall pictures; the platform's helpers are
        :mod:`game_server.recall.pictures`).

        Raises:
            RecallPictureError: ``terminal`` took no part, or the round does not replay.
        """
        ...

    @property
    def hand_wagers(self) -> frozenset[str]:
        """Its wagers placed per hand: after a split a recall picture names their hand."""
        ...

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        """``terminal``'s part of one round for its recall screen (JSON-ready: its wagers,
        cards, decisions, results and credits, the dealer's cards as far as revealed), or
        None if it took no part."""
        ...

    # ------------------------------------------------------------------------- verify

    def replay(self, config: TableConfig, events: Sequence[Any], table_id: str) -> object:
        """Play a logged round's engine records (:meth:`engine_kinds`, in log order) back
        through a fresh engine under ``config``, checking that every step gives exactly the
        logged records; return the engine where the round stopped.

        Raises:
            RulesError: the first record the replay does not reproduce (a ReplayMismatch
                naming it), or an input the engine refuses.
        """
        ...

    def verify_checks(self, table_type: TableType) -> Mapping[type, str]:
        """The check ``etg verify`` makes of each kind of its records at a table of
        ``table_type``: one of :data:`VERIFY_CHECKS` each."""
        ...

    def seeded_draw_problem(
        self, seed: ShoeSeed, config: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        """For a record checked :data:`SEEDED`: why what it says was drawn is not what the
        seed of shoe ``shoe`` draws (a sentence naming ``seq``), or None when it is."""
        ...


class GameTools(Protocol):
    """What the tools need of a game: ``etg sim``, ``etg demo``, ``etg par``, ``etg strategy``,
    ``etg math``, ``etg loadtest`` and ``etg bench``. :class:`~game_server.games.base.GameBase`
    refuses each one a game does not offer with :class:`NotOffered`."""

    @property
    def report_order(self) -> Mapping[str, int]:
        """The wagers a simulation's report lists first, by rank (0 first; the others follow
        by name): its main game."""
        ...

    def sim_seats(self, config: TableConfig) -> int:
        """The seats (players, in stadium play) ``etg sim`` plays when not told."""
        ...

    def sim_title(self, config: TableConfig, rounds: int, seats: int, seed: int) -> str:
        """The first line of ``etg sim``'s report: what was simulated."""
        ...

    def sim_driver(self, spec: SimSpec, chunk: int) -> RoundDriver:
        """Bots on ``spec.seats`` seats playing whole rounds of chunk ``chunk`` through the
        pure engine, from shoes of its own (:func:`game_server.sim.seeded_shoes` with the
        table id ``"{spec.table_id}-{chunk}"``)."""
        ...

    def tally(self, events: Sequence[Any], result: SimResult) -> None:
        """Add one round's events to ``result`` (with a :class:`~game_server.sim.RoundTally`:
        each wager's placements per seat, what they paid, the lines they settled on)."""
        ...

    def logged_sim(
        self,
        config: TableConfig,
        log: EventSink,
        shoes: SealedShoes,
        *,
        rounds: int,
        seats: int,
        progress: Callable[[int], None] | None = None,
    ) -> TableBook:
        """``etg sim --log``: the bots play ``rounds`` rounds through the live table's session
        writing to ``log`` (terminals ``T1``.. cashed in with play money, topped up when low;
        the last shoe retired at the end so that every card verifies)."""
        ...

    def console_demo(
        self,
        config: TableConfig,
        *,
        rounds: int,
        seats: int,
        seed: int | None,
        delay: float,
        echo: Callable[[str], Any],
        sleep: Callable[[float], Any],
    ) -> SimResult:
        """``etg demo`` without ``--live``: ``rounds`` rounds of bots told in the console, a
        line at a time (``delay`` seconds apart), then a summary; deterministic test shoes
        from ``seed``, else fresh certified shoes.

        Raises:
            NotOffered: the game tells no console story (``etg demo --live`` plays it).
        """
        ...

    # ---------------------------------------------------------- the par sheet (etg par)

    def optional_returns(self, config: TableConfig) -> list[WagerReturn]:
        """What each optional wager the config offers returns to the player (exact where it
        depends on the cards only; :mod:`game_server.rules.returns`): the player-edge guard
        of its Rules Submission refuses one that returns 100% or more, and ``etg par``
        states them."""
        ...

    def main_wager(self, config: TableConfig) -> MainWager:
        """Its main wager as ``etg par`` states it (simulated through the engine)."""
        ...

    def wager_limits(self, config: TableConfig, wager: str) -> tuple[int, int]:
        """The minimum and maximum of an optional wager it offers (the table's hold)."""
        ...

    def strategy(self, config: TableConfig) -> StrategyReport:
        """The strategy its par sheet, simulator and bots play for ``config``'s rules
        (``etg strategy``), with its analysed house edge where it computes one.

        Raises:
            NotOffered: it states no strategy.
        """
        ...

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        """``etg math NAME`` for one of its own wagers (the shared side wagers' math is the
        platform's): exact counts where the wager depends on the cards only, a seeded
        simulation of ``hands`` hands from ``seed`` otherwise; ``every``: every paytable.
        None when ``name`` is not one of its wagers.

        Raises:
            NotOffered: a name of its own it has no math for, or options it cannot use.
        """
        ...

    def wire_bot(self, config: TableConfig) -> WireBot:
        """A bot for one terminal of a table of ``config`` that plays from its views over
        the wire (``etg loadtest``).

        Raises:
            NotOffered: the game has no such bot.
        """
        ...

    def bench_figures(self) -> Sequence[BenchFigure]:
        """Its figures of ``etg bench`` (its engine against a peer...); none is fine."""
        ...

    def work_rounds(self, seed: int) -> Mapping[str, Callable[[], object]]:
        """The rounds whose work CI counts (``etg bench work``, ``tests/bench_budget.json``):
        by case name, a callable that plays one more round of a fixed table seeded by
        ``seed``, its shoes made in advance (a shuffle is counted apart); none is fine."""
        ...

    def busy_table(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        variant: int,
    ) -> BusyTable:
        """A table of ``config`` (open, its terminals ``seats`` cashed in) that bots play for
        a benchmark log; ``variant`` numbers the tables of that log (a game may vary them:
        Blackjack leaves the side wagers off every other table).

        Raises:
            NotOffered: the game has no such bots.
        """
        ...


class Game(GameIdentity, LiveGame, RecalledGame, GameTools, Protocol):
    """Everything the platform needs from one game: its identity and Rules Submission
    (:class:`GameIdentity`), the live table (:class:`LiveGame`), recall and verify
    (:class:`RecalledGame`) and the tools (:class:`GameTools`). A game subclasses
    :class:`~game_server.games.base.GameBase`, which gives every forwarding method and the
    parts a game may leave out."""
