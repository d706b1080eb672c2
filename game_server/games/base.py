"""A game as a declaration: :class:`GameBase`.

A game implements :class:`~game_server.games.api.Game`. It subclasses :class:`GameBase` and
declares what it is made of as class attributes; the base gives every method of the contract
that only forwards to them, once:

- its Rules Submission section (:attr:`~GameBase.config_section`: ``build_config``,
  ``logged_config``, ``file_shape``), session (:attr:`~GameBase.session_type`), round machine
  (:attr:`~GameBase.machine_type`), ledger (:attr:`~GameBase.ledger_type`), hidden cards
  (:attr:`~GameBase.hidden_cards`), engine records and their checks
  (:attr:`~GameBase.round_kinds`, :attr:`~GameBase.checks`), how a round is resumed,
  replayed and described (:attr:`~GameBase.resume_round`, :attr:`~GameBase.replay_round`,
  :attr:`~GameBase.describe_record`), recall's labels (:attr:`~GameBase.labels_type`) and
  ``etg sim``'s bots (:attr:`~GameBase.driver_type`);
- a function that already has the contract's signature is declared as it is
  (``rules_document = staticmethod(info.rules_document)``), a class by its name
  (``wire_bot = MyWireBot``).

What every game must say itself (its name, Rules Submission, engine, session, machine, views,
records, replay and checks) has no default; the parts a game may leave out have one here, and
a game writes only what it has:

- tools it does not offer refuse with :class:`~game_server.games.api.NotOffered` saying so
  (``etg demo`` without ``--live``, ``etg par``, ``etg loadtest``, ``etg sim --log``, the
  benchmark log); it has no ``etg bench`` figures, no ``etg math`` of its own, no optional
  wagers for the player-edge guard, no recall pictures;
- its recall is built from its records by their roles (a sentence each, :meth:`describe`,
  and its terminal's part of a round): a seat's wagers (its
  :attr:`~Game.placed_kinds`), its cards and the dealer's (:attr:`~Game.shoe_card_kinds`,
  seat 0 the dealer's), its settlements (:attr:`~Game.settled_kinds`) and any other record
  of its terminal as a decision (:meth:`recall_game`); ``etg sim`` tallies its wagers the
  same way (:meth:`tally`), each seat's records carrying ``seat``;
- its seats are named as every seated table's are (:class:`~game_server.recall.timeline.Labels`).

``docs/adding-a-game.md`` says what a game writes, in order, with the smallest example the
tests use.

Entry point: :class:`GameBase`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from game_server.games.api import (
    BenchFigure,
    BusyTable,
    MainWager,
    MathReport,
    NotOffered,
    StrategyReport,
    WireBot,
)
from game_server.rules.events import kind_of
from game_server.table.ledger import Ledger
from game_server.table.secrecy import OPEN_CARDS
from shared.money import format_money

if TYPE_CHECKING:
    from game_server.config import TableConfig
    from game_server.recall.rounds import Logged, LoggedRound
    from game_server.recall.timeline import Described, Labels, Timeline
    from game_server.rng.shoe import ShoeSeed
    from game_server.rules.meters import MeterBank
    from game_server.rules.returns import WagerReturn
    from game_server.rules.wagers.base import MeterSpec, TableType
    from game_server.sim import RoundDriver, SimResult, SimSpec
    from game_server.table.api import HostedTable, ReactorTime
    from game_server.table.secrecy import Secrecy
    from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["ConfigSection", "GameBase"]


class ConfigSection(Protocol):
    """A game's Rules Submission section (its ``config`` module): what
    :meth:`~game_server.games.api.Game.build_config`, ``logged_config`` and ``file_shape``
    say."""

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig: ...

    def logged_config(self, config: TableConfig) -> dict[str, Any]: ...

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]: ...


class GameBase:
    """The contract's forwarding methods and optional parts, for a game to subclass (see the
    module docstring). Its subclass sets ``name``, ``title``, ``chapter``, ``config_game``,
    ``table_types``, ``examples``, the record kinds and ``wager_titles``, declares its parts
    below, and writes only the methods that hold its own knowledge."""

    name: str
    title: str
    examples: tuple[Path, ...]

    # ------------------------------------------------------------------ the declaration

    #: Its Rules Submission section: a module (or object) with ``build_config``,
    #: ``logged_config`` and ``file_shape``.
    config_section: ConfigSection
    #: Its session: called ``(config, sink, shoes, seats, meters)``, a
    #: :class:`~game_server.table.session.TableBook`.
    session_type: Callable[..., TableBook]
    #: Its round machine: called ``(session, clock, next_round_delay=...)``.
    machine_type: Callable[..., HostedTable]
    #: Its ledger: called with nothing.
    ledger_type: Callable[[], Ledger] = Ledger
    #: Which of its records deal a card face down, at every table type it runs.
    hidden_cards: Secrecy = OPEN_CARDS
    #: The records its engine produces (what :attr:`replay_round` is fed, in log order).
    round_kinds: frozenset[type]
    #: What ``etg verify`` checks of each record: one of
    #: :data:`~game_server.games.api.VERIFY_CHECKS` each.
    checks: Mapping[type, str]
    #: ``(session, logged_round, seats)``: the round the log left unfinished made the
    #: session's open round; its phase (see :meth:`~game_server.games.api.Game.resume`).
    resume_round: Callable[[Any, LoggedRound, Mapping[str, int]], StrEnum]
    #: ``(rules, events)``: a logged round played back through a fresh engine; or, for an
    #: engine that names its table, :attr:`replay_at_table`.
    replay_round: Callable[[Any, Sequence[Any]], object] | None = None
    #: ``(rules, events, table_id)``: as :attr:`replay_round`, the table's id given.
    replay_at_table: Callable[[Any, Sequence[Any], str], object] | None = None
    #: ``(item, labels)``: one record as recall shows it, or None (when not declared, each
    #: record is told by its role: :meth:`describe`).
    describe_record: Callable[[Logged, Any], Described | None] | None = None
    #: ``(seats, events)``: how recall names the seats (the platform's
    #: :class:`~game_server.recall.timeline.Labels` when not declared).
    labels_type: Callable[[Mapping[int, str], Sequence[Logged]], Labels] | None = None
    #: ``(spec, chunk)``: ``etg sim``'s bots.
    driver_type: Callable[[SimSpec, int], RoundDriver]

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return self.config_section.build_config(data, source)

    def logged_config(self, config: TableConfig) -> dict[str, Any]:
        return self.config_section.logged_config(config)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return self.config_section.file_shape(logged)

    def open_session(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> TableBook:
        return self.session_type(config, sink, shoes, seats, meters)

    def machine(
        self, session: TableBook, clock: ReactorTime, next_round_delay: float
    ) -> HostedTable:
        return self.machine_type(session, clock, next_round_delay=next_round_delay)

    def new_ledger(self) -> Ledger:
        return self.ledger_type()

    def meters(self, config: TableConfig) -> Mapping[str, MeterSpec]:
        """No progressive meter."""
        return {}

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        return self.resume_round(session, logged, seats)

    def engine_kinds(self, table_type: TableType) -> frozenset[type]:
        return self.round_kinds

    def verify_checks(self, table_type: TableType) -> Mapping[type, str]:
        return self.checks

    def replay(self, config: TableConfig, events: Sequence[Any], table_id: str) -> object:
        if self.replay_at_table is not None:
            return self.replay_at_table(config.rules, events, table_id)
        if self.replay_round is None:
            raise NotImplementedError(f"{self.title} declares no replay_round")
        return self.replay_round(config.rules, events)

    def describe(self, config: TableConfig, item: Logged, labels: Labels) -> Described | None:
        """Its :attr:`describe_record`; else each record by its role (see the module
        docstring): a wager placed, a card (seat 0 the dealer's), a settlement with its line,
        the round's completion; None for any other."""
        if self.describe_record is not None:
            return self.describe_record(item, labels)
        from game_server.recall.timeline import DEALER_WHO, TABLE_WHO, card_field, card_text

        ev, terminal = item.event, item.stored.terminal
        kind, fields = type(ev), ev._asdict()
        title = self.wager_titles.get(fields.get("wager", ""), fields.get("wager", ""))
        who = terminal if terminal is not None else TABLE_WHO
        if kind in self.placed_kinds:
            text = f"{labels.seat(ev.seat)} places {title} {format_money(ev.amount)}"
            return who, text, {"terminal": terminal, **fields}
        if kind in self.shoe_card_kinds:
            data = {"terminal": terminal, **fields, "card": card_field(ev.card)}
            if ev.seat == 0:
                return DEALER_WHO, f"dealer is dealt {card_text(ev.card)}", data
            return who, f"{labels.seat(ev.seat)} is dealt {card_text(ev.card)}", data
        if kind in self.settled_kinds:
            text = f"{labels.seat(ev.seat)} {title}: {ev.line}, paid {format_money(ev.paid)}"
            return who, text, {"terminal": terminal, **fields}
        if kind in self.completed_kinds:
            return TABLE_WHO, "round complete", {k: str(v) for k, v in fields.items()}
        return None

    def sim_driver(self, spec: SimSpec, chunk: int) -> RoundDriver:
        return self.driver_type(spec, chunk)

    #: Whether its tables' progressive meters may be linked across the floor's servers
    #: (a Rules Submission's ``[linked_meters]``, 605a.8): its session reaches every meter
    #: through the bank the server gives it and refuses a linked wager while the floor store
    #: cannot be reached (``refuse_if_unavailable``).
    links_floor_meters: bool = False
    placed_kinds: frozenset[type]
    settled_kinds: frozenset[type]
    completed_kinds: frozenset[type]
    shoe_card_kinds: frozenset[type]
    wager_titles: Mapping[str, str]

    def secrecy(self, table_type: TableType) -> Secrecy:
        """Its :attr:`hidden_cards` (every card face up unless it declares them)."""
        return self.hidden_cards

    @property
    def pictured(self) -> Mapping[str, Path]:
        """Its first example, under its name."""
        return {self.name: self.examples[0]} if self.examples else {}

    # ------------------------------------------------------------------------ recall

    def seated(self, config: TableConfig) -> bool:
        """Each terminal holds a seat."""
        return True

    def recall_labels(
        self, config: TableConfig, seats: Mapping[int, str], events: Sequence[Logged]
    ) -> Labels:
        """Its :attr:`labels_type`, else ``"seat 2 (T2)"``."""
        from game_server.recall.timeline import Labels

        return (self.labels_type or Labels)(seats, events)

    @property
    def hand_wagers(self) -> frozenset[str]:
        """None of its wagers is placed per hand."""
        return frozenset()

    def round_views(self, logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
        """Not drawn: it rebuilds no views for recall pictures."""
        from game_server.recall.pictures import RecallPictureError

        raise RecallPictureError(f"{self.title} draws no recall pictures")

    def recall_game(
        self, logged: LoggedRound, timeline: Timeline, terminal: str
    ) -> dict[str, Any] | None:
        """``terminal``'s part of the round from its records' roles (see the module
        docstring): its seat, wagers, cards (one hand), the dealer's cards, its other records
        as decisions, its results and credits; None if it neither wagered nor was paid."""
        from game_server.recall.terminal import recalled_head, settlement_result
        from game_server.recall.timeline import DEALER_WHO

        seat = next((s for s, t in timeline.seats.items() if t == terminal), None)
        if seat is None:
            return None
        placed = {kind_of(kind) for kind in self.placed_kinds}
        settled = {kind_of(kind) for kind in self.settled_kinds}
        cards = {kind_of(kind) for kind in self.shoe_card_kinds}
        wagers: dict[str, int] = {}
        hand: list[str | None] = []
        dealer: list[str | None] = []
        decisions: list[str] = []
        results: list[dict[str, Any]] = []
        for entry in timeline.entries:
            data = entry.data
            if entry.kind in cards and entry.who == DEALER_WHO:
                dealer.append(data.get("card"))
            elif data.get("terminal") != terminal or data.get("seat") != seat:
                continue
            elif entry.kind in placed:
                wagers[data["wager"]] = wagers.get(data["wager"], 0) + data["amount"]
            elif entry.kind in settled:
                results.append(settlement_result(data))
            elif entry.kind in cards:
                hand.append(data.get("card"))
            else:
                decisions.append(entry.text)
        if not wagers and not results:
            return None
        return {
            "game": self.name,
            **recalled_head(timeline, terminal, seat, wagers, results),
            "hands": [{"hand": 0, "cards": hand}] if hand else [],
            "dealer": {"cards": dealer, "total": None},
            "decisions": decisions,
            "results": results,
        }

    # ------------------------------------------------------------------------ verify

    def seeded_draw_problem(
        self, seed: ShoeSeed, config: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        """It draws nothing from a deck's seed: a record said to be such a draw is wrong."""
        return (
            f"seq {seq}: {getattr(record, 'kind', type(record).__name__)} says it was drawn "
            f"from the seed of shoe {shoe}, but {self.title} draws nothing from a seed"
        )

    # -------------------------------------------------------------------- simulation

    @property
    def report_order(self) -> Mapping[str, int]:
        """Its wagers by name."""
        return {}

    def sim_seats(self, config: TableConfig) -> int:
        """Every seat of the layout."""
        return int(config.rules.seats)

    def sim_title(self, config: TableConfig, rounds: int, seats: int, seed: int) -> str:
        """``"High Card: 1,000 rounds, 3 seats, seed 7"``."""
        return f"{self.title}: {rounds:,} rounds, {seats} seats, seed {seed}"

    def tally(self, events: Sequence[Any], result: SimResult) -> None:
        """Each wager on its own: each seat's placements and what their settlements paid,
        with the line each settled on."""
        from game_server.sim import RoundTally

        this = RoundTally(result)
        for event in events:
            kind = type(event)
            if kind in self.placed_kinds:
                this.placed(event.seat, event.wager, event.amount)
            elif kind in self.settled_kinds:
                this.paid(event.seat, event.wager, event.paid)
                this.line(event.wager, event.line)
        this.close()

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
        """Not offered."""
        raise NotOffered(f"etg sim --log does not play {self.title}; etg sim does")

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
        """Not offered."""
        raise NotOffered(f"{self.title} tells no console story: etg demo --live plays it")

    # ------------------------------------------------------------- par, math, bench

    def optional_returns(self, config: TableConfig) -> list[WagerReturn]:
        """It offers no optional wager."""
        return []

    def main_wager(self, config: TableConfig) -> MainWager:
        """Not offered."""
        raise NotOffered(f"etg par has no par sheet of {self.title}")

    def wager_limits(self, config: TableConfig, wager: str) -> tuple[int, int]:
        """Not offered."""
        raise NotOffered(f"etg par has no par sheet of {self.title}")

    def strategy(self, config: TableConfig) -> StrategyReport:
        """Not offered."""
        raise NotOffered(f"etg strategy has no strategy of {self.title}")

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        """No math of its own."""
        return None

    def wire_bot(self, config: TableConfig) -> WireBot:
        """Not offered."""
        raise NotOffered(f"etg loadtest has no bot for {self.title}")

    def bench_figures(self) -> Sequence[BenchFigure]:
        """None."""
        return ()

    def work_rounds(self, seed: int) -> Mapping[str, Callable[[], object]]:
        """None."""
        return {}

    def busy_table(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        variant: int,
    ) -> BusyTable:
        """Not offered."""
        raise NotOffered(f"the benchmark log has no bots for {self.title}")
