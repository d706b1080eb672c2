"""What every seated stadium table's session shares: terminals holding numbered seats, one
round at a time dealt from a fresh deck, every engine step logged under its seat's terminal.

:class:`SeatedSession` is the :class:`~game_server.table.session.TableBook` of the poker-style
stadium games (each player against the dealer, one decision step or more, one settlement):

- the seat map's checks (every seat within the table's, no seat given twice) and the mapping
  from an engine event to its terminal (its ``seat``, or the one betting position it names);
- the step whose last event is the game's round-completed event closes the round with every
  seated terminal's credits (:meth:`~game_server.table.session.TableBook._log_closing`);
- the table's opening: the Rules Submission in force and its meters, each linked, or opened
  with its first trigger drawn when it is a Must-Hit-By meter no linked table opened yet, the
  triggers from the table's certified DRBG stream for them (:meth:`SeatedSession._draw`,
  seeded by the seed source like the shoes, as the Blackjack-family tables' stream is);
- the seat and open-round checks, the wagers before the deal (checked, afforded, debited),
  the terminals still to decide, a terminal's wagers, and crash recovery
  (:meth:`SeatedSession.resume`, :func:`resume_seated_round`).

A game's session provides its round's type through :meth:`_new_round`, its round-completed
event type (``_COMPLETED``), the betting phase (``_BETTING``) and the phases a replayed
round may not stop at (``_SETTLED``), and its own ``deal``, ``decide``, ``countdown`` and
settlement.

:class:`SeatedMachine` is the :class:`~game_server.table.stadium.StadiumMachine` such a table
runs: its states (:class:`SeatedState`, :data:`SEATED_ACCEPTS`: betting, deciding with ONE
decision countdown shared by every seat for each step that asks for decisions, the pause
between rounds), the wagers of a terminal's own seat in the betting window, the refused
insurance answer, and the countdown's default for every seat still to decide.

:class:`SeatBook` is the part Blackjack's table session shares too: the seat lookups, the
Must-Hit-By draw, and :func:`check_seat_map`.

Entry points: :class:`SeatedSession`, :func:`resume_seated_round`, :class:`SeatedMachine`,
:class:`SeatBook`, :func:`check_seat_map`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from enum import StrEnum
from typing import Any, ClassVar, Final, Generic, Protocol, TypeVar

from game_server.config import TableConfig
from game_server.recall.rounds import LoggedRound
from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.shoe import Shoe
from game_server.rules.errors import ActionNotAllowed
from game_server.rules.meters import MeterBank
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec
from game_server.table.events import TableOpened
from game_server.table.ledger import Ledger
from game_server.table.recovery import RecoveryError, replayed, round_started
from game_server.table.session import (
    SOFTWARE,
    EventSink,
    NoRoundOpen,
    SealedShoes,
    TableBook,
    TableError,
    UnknownTerminal,
)
from game_server.table.stadium import OPERATOR, StadiumMachine

__all__ = [
    "MYSTERY_STREAM",
    "SEATED_ACCEPTS",
    "SeatBook",
    "SeatedMachine",
    "SeatedRound",
    "SeatedSession",
    "SeatedState",
    "check_seat_map",
    "resume_seated_round",
]

#: The seed source's stream number for the Must-Hit-By trigger draws (shoes are numbered
#: from 1).
MYSTERY_STREAM: Final = 0


class SeatedRound(Protocol):
    """What a seated session reads of its engine's round."""

    @property
    def phase(self) -> StrEnum: ...

    @property
    def seats(self) -> Mapping[int, Any]: ...

    @property
    def pending(self) -> Sequence[int]: ...

    def verify_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> None: ...

    def place_wagers(self, seat: int, wagers: Mapping[str, int]) -> list[Any]: ...


RoundT = TypeVar("RoundT", bound=SeatedRound)


class _SeatsRound(Protocol):
    """What :class:`SeatBook` reads of an engine's round: its seats in play."""

    @property
    def seats(self) -> Mapping[int, Any]: ...


BookRoundT = TypeVar("BookRoundT", bound=_SeatsRound)


def check_seat_map(seats: Mapping[str, int], count: int) -> None:
    """Check a seat map (terminal id -> seat number) against a table of ``count`` seats.

    Raises:
        UnknownTerminal: a seat outside ``1..count``, or two terminals given the same seat.
    """
    for terminal, seat in seats.items():
        if not 1 <= seat <= count:
            raise UnknownTerminal(f"terminal {terminal} is given seat {seat}, outside 1..{count}")
    if len(set(seats.values())) != len(seats):
        raise UnknownTerminal("two terminals are given the same seat")


class SeatBook(TableBook, Generic[BookRoundT]):
    """What every table of numbered seats looks up (the seated stadium tables and the
    Blackjack table): a terminal's seat, the open round, whether a terminal is in play, the
    seated places, and the certified DRBG stream of the Must-Hit-By triggers.

    The subclass sets ``seats``, ``terminal_of``, ``round``, ``shoes`` and
    ``_mystery_stream`` (None until the first draw).
    """

    seats: dict[str, int]
    terminal_of: dict[int, str]
    round: BookRoundT | None
    shoes: SealedShoes
    _mystery_stream: RandomStream | None

    def _draw(self, n: int) -> int:
        """A whole number below ``n`` from the table's certified DRBG stream for the
        Must-Hit-By (mystery) triggers (633b.14(c)(3)), seeded by the table's seed source
        like the shoes."""
        stream = self._mystery_stream
        if stream is None:
            seed, _ = self.shoes.seeds(MYSTERY_STREAM)
            drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization + b"/mystery")
            stream = self._mystery_stream = RandomStream(drbg)
        return stream.randbelow(n)

    def _places(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        seats = tuple(sorted(self.terminal_of))
        return seats, tuple(self.terminal_of[s] for s in seats)

    def _seat(self, terminal: str) -> int:
        self._check_not_failed()
        seat = self.seats.get(terminal)
        if seat is None:
            raise UnknownTerminal(f"terminal {terminal!r} holds no seat at this table")
        return seat

    def _in_play(self, terminal: str) -> bool:
        game = self.round
        return game is not None and self.seats.get(terminal) in game.seats

    def _open_round(self) -> BookRoundT:
        self._check_not_failed()
        if self.round is None:
            raise NoRoundOpen("no round is open: wait for the next betting window")
        return self.round


class SeatedSession(SeatBook[RoundT]):
    """The session of a seated stadium table, writing every step to ``sink``.

    Args:
        config: the table's Rules Submission.
        rules: the game's rules read from it (the subclass has checked they are its game's).
        sink: the event log (or a :class:`~game_server.table.session.MemorySink`).
        shoes: the table's shoe maker (one deck per round).
        seats: terminal id -> seat number for the terminals that hold seats.
        meters: the server's progressive meters (shared by linked tables).
        ledger: the table's wallets.

    Raises:
        UnknownTerminal: a seat outside the table's, or two terminals given the same seat.
    """

    #: The engine's round-completed event: the step that ends with it closes the round.
    _COMPLETED: ClassVar[type]
    #: The engine's betting phase (before the deal).
    _BETTING: ClassVar[StrEnum]
    #: The phases a replayed interrupted round may not stop at (its settlement is written
    #: with the round's close, so a round logged there was closed).
    _SETTLED: ClassVar[frozenset[StrEnum]]

    def __init__(
        self,
        config: TableConfig,
        rules: Any,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank | None,
        ledger: Ledger,
    ) -> None:
        check_seat_map(seats, rules.seats)
        self.config, self.rules, self.sink, self.shoes = config, rules, sink, shoes
        self.seats = dict(seats)
        self.terminal_of = {seat: terminal for terminal, seat in seats.items()}
        self.ledger = ledger
        self._config_hash = config.config_hash()
        self.round: RoundT | None = None
        self.round_id = self.shoe_number = 0
        self.shoe: Shoe | None = None
        self._salt = b""
        self.failed: BaseException | None = None
        self.meters = meters if meters is not None else MeterBank()
        #: The meters this table opens or links to: id -> spec.
        self.meter_specs: dict[str, MeterSpec] = rules.meters()
        self._mystery_stream: RandomStream | None = None

    # ------------------------------------------------------------------ logging

    def _terminal_of_event(self, ev: Any) -> str | None:
        seat = getattr(ev, "seat", None)
        if isinstance(seat, int) and seat >= 1:
            return self.terminal_of.get(seat)
        places = getattr(ev, "places", None)
        if isinstance(places, tuple) and len(places) == 1:
            return self._terminal_at(str(places[0]))
        return None

    def _terminal_at(self, place: str) -> str | None:
        """The terminal at a betting position (``"<table>/<seat>"``), None if none."""
        _, _, number = place.rpartition("/")
        return self.terminal_of.get(int(number)) if number.isdigit() else None

    def _log_engine(
        self, events: Sequence[Any], before: Sequence[tuple[str | None, Any]] = ()
    ) -> list[Any]:
        """Log an engine step, each event under its seat's terminal; the step that completes
        the round also closes it with every seated terminal's credits."""
        items = list(before) + [(self._terminal_of_event(ev), ev) for ev in events]
        if not events or type(events[-1]) is not self._COMPLETED:
            return self._log(items)
        return self._log_closing(items, [self.terminal_of[s] for s in sorted(self.terminal_of)])

    # ---------------------------------------------------------------- the table

    def open(self) -> list[Any]:
        """Log the Rules Submission in force and open (or link to) its meters; a Must-Hit-By
        meter opens with its first trigger drawn unless a linked table opened it."""
        items: list[tuple[str | None, Any]] = [
            (None, TableOpened(self.config.to_dict(), self._config_hash, SOFTWARE))
        ]
        for meter_id, spec in self.meter_specs.items():
            if spec.must_hit_by is None or meter_id in self.meters:
                step = self.meters.link(meter_id, spec)
            else:
                step = self.meters.commit(must_hit_by.open_meter(meter_id, spec, self._draw))
            items += [(None, ev) for ev in step.events]
        return self._log(items)

    # ------------------------------------------------------------------ round

    def deal(self) -> list[Any]:
        """Deal the open round (the game's own step)."""
        raise NotImplementedError

    def countdown(self, terminal: str) -> list[Any]:
        """The decision countdown ran out for ``terminal`` (the game's own default)."""
        raise NotImplementedError

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> list[Any]:
        """Place a terminal's wagers before the deal (checked, then debited from its
        credits)."""
        seat = self._seat(terminal)
        game = self._open_round()
        self.check_units(wagers)
        game.verify_place_wagers(seat, wagers)
        self._afford(terminal, sum(wagers.values()), "the wagers")
        return self._log_engine(game.place_wagers(seat, wagers))

    def dealt(self) -> bool:
        """Whether the open round's cards are dealt (no more bets)."""
        return self.round is not None and self.round.phase is not self._BETTING

    def pending(self) -> tuple[str, ...]:
        """The terminals that still have to decide."""
        game = self.round
        if game is None:
            return ()
        return tuple(self.terminal_of[s] for s in game.pending if s in self.terminal_of)

    def wagered(self, terminal: str) -> int:
        """The terminal's wagers in the open round (cents)."""
        game, seat = self.round, self.seats.get(terminal)
        if game is None or seat is None or seat not in game.seats:
            return 0
        return sum(game.seats[seat].wagers.values())

    def resume(self, game: RoundT) -> None:
        """Make a replayed interrupted round the open one, the deck in use its card source
        (crash recovery)."""
        if game.phase is not self._BETTING:
            if self.shoe is None:
                raise TableError(f"round {self.round_id} was dealt but no deck is in use")
            self._resume_source(game, self.shoe)
        self.round = game

    def _resume_source(self, game: RoundT, shoe: Shoe) -> None:
        """Make ``shoe`` the card source of a replayed round (an engine that is handed its
        source at each dealing step overrides this to do nothing)."""
        game._source = shoe  # type: ignore[attr-defined]


def resume_seated_round(
    session: SeatedSession[Any],
    logged: LoggedRound,
    seats: Mapping[str, int],
    replay: Callable[[Any, Sequence[Any], str], Any],
) -> StrEnum:
    """Make the interrupted round the session's open round, rebuilt by the game's
    ``replay(rules, events, table)`` (crash recovery).

    Raises:
        RecoveryError: the round replays to its settlement, or was dealt with no deck in use.
    """
    started = round_started(logged, seats)
    events = [item.event for item in logged.engine_events()]
    game = replayed(started, lambda: replay(session.rules, events, session.config.table_id))
    if game.phase in session._SETTLED:
        raise RecoveryError(f"round {started.round} replays to its showdown but was not closed")
    try:
        session.resume(game)
    except TableError as exc:
        raise RecoveryError(str(exc)) from exc
    phase: StrEnum = game.phase
    return phase


class SeatedState(StrEnum):
    """Where a seated stadium table's machine is."""

    CLOSED = "closed"
    BETTING = "betting"
    DECIDING = "deciding"
    NEXT_ROUND = "next-round"
    OUT_OF_SERVICE = "out-of-service"


#: The inputs each state accepts; any other is refused before it changes anything. The
#: countdown inputs are the machine's own: ``expired`` in the two windows, ``pause_over``
#: between rounds.
SEATED_ACCEPTS: Mapping[SeatedState, frozenset[str]] = {
    SeatedState.CLOSED: OPERATOR,
    SeatedState.BETTING: OPERATOR | {"place_wagers", "expired"},
    SeatedState.DECIDING: OPERATOR | {"act", "expired"},
    SeatedState.NEXT_ROUND: OPERATOR | {"pause_over"},
    SeatedState.OUT_OF_SERVICE: OPERATOR,
}

SessionT = TypeVar("SessionT", bound=SeatedSession[Any])


class SeatedMachine(StadiumMachine[SessionT, SeatedState]):
    """The live seated stadium table over its session.

    A game's machine names the engine phases that ask for decisions (``_DECIDING_PHASES``),
    its refusals of a betting position (``_OWN_SEAT``) and of an insurance answer
    (``_NO_INSURANCE``), and adds its decisions (``act``), view and readings.

    Args:
        session: the table's session (its log is written before anything is sent).
        clock: the clock of the countdowns (the reactor; ``task.Clock`` in tests).
        next_round_delay: seconds between a round's settlement and the next betting window.
        log: the game module's logger (its namespace names the table).
    """

    _ACCEPTS = SEATED_ACCEPTS
    _CLOSED, _BETTING = SeatedState.CLOSED, SeatedState.BETTING
    _BETWEEN, _OUT_OF_SERVICE = SeatedState.NEXT_ROUND, SeatedState.OUT_OF_SERVICE

    #: The engine phases in which every seat decides (each opens the shared countdown).
    _DECIDING_PHASES: ClassVar[frozenset[StrEnum]]
    #: What a terminal that names a betting position is told (it plays its own seat).
    _OWN_SEAT: ClassVar[str]
    #: The error, and its message, that refuses an insurance answer (the game has none).
    _NO_INSURANCE: ClassVar[tuple[type[ActionNotAllowed], str]]
    #: The error (a :class:`~game_server.table.api.BettingClosed`), and its message, that
    #: refuses a wager outside the betting window.
    _BETTING_CLOSED: ClassVar[tuple[type[TableError], str]]
    #: The error, and its message, that refuses a decision while no decision is open (None:
    #: the stadium machine's own refusal).
    _NO_DECISION: ClassVar[tuple[type[TableError], str] | None] = None

    # ----------------------------------------------------------------- inputs

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        """Place the terminal's wagers on its own seat in the betting window; a
        ``position`` is refused."""
        if position is not None:
            raise ActionNotAllowed(self._OWN_SEAT)
        self._run("place_wagers", self._place, terminal, wagers)

    def _place(self, terminal: str, wagers: Mapping[str, int]) -> None:
        self._refuse_bets_while_stopping()
        self._log(self.session.place_wagers(terminal, wagers))
        self._took_bet(terminal)

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None:
        """Refused: the game offers no insurance."""
        self.session._seat(terminal)
        error, message = self._NO_INSURANCE
        raise error(message)

    def _not_accepted(self, name: str) -> TableError:
        """A wager outside the betting window is told :attr:`_BETTING_CLOSED`, a decision
        with none open :attr:`_NO_DECISION`."""
        if name == "place_wagers":
            error, message = self._BETTING_CLOSED
            return error(message)
        if name == "act" and self._NO_DECISION is not None:
            error, message = self._NO_DECISION
            return error(message)
        return super()._not_accepted(name)

    # ---------------------------------------------------------------- routing

    def _route_dealt(self) -> None:
        """Move to where the engine left the dealt round, starting the shared countdown a
        step of decisions needs (a step is its round and phase)."""
        session = self.session
        game = session.round
        assert game is not None  # _route calls this only for a dealt round
        step = (session.round_id, str(game.phase))
        if step != self._step and game.phase in self._DECIDING_PHASES:
            self._step = step
            self._where = SeatedState.DECIDING
            self._start_countdown("decision", session.config.timers.decision_seconds)

    def _act_for_silent(self, where: SeatedState) -> None:
        if where is SeatedState.DECIDING:
            self._count_down_pending()  # the countdown's action for every seat still to decide

    def _wagered(self) -> bool:
        game = self.session.round
        return game is not None and bool(game.seats)

    def _terminals(self) -> Collection[str]:
        return self.session.seats
