"""One fully automated Blackjack table's game flow: sealed shoes, rounds, wallets, meters, log.

:class:`TableSession` drives the pure engine (:mod:`game_server.games.blackjack.rules.round`)
for a table whose seats are held by terminals, on the platform's
:class:`~game_server.table.session.TableBook` (one logged step at a time: save, then fold into
wallets and meters; credits in and out; the shoe's retirement). Every input becomes one engine
step; the step's events are appended to the log in ONE transaction, wrapped in their envelope
(table, round, terminal), and only then folded into the wallets and meters and returned to the
caller, who may send them on. A round close writes a signed checkpoint. The progressive
wagers feed their meters when the cards are dealt, and the round's progressive wins are paid
from them (:func:`meter_specs` names every meter a config opens or links).

The live server (with its countdowns) and ``etg sim --log`` drive this same class, so a
simulated log is exactly what the live table writes.

Entry points: :class:`TableSession`, :func:`meter_specs`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from game_server.config import TableConfig
from game_server.floor.errors import StoreUnavailable
from game_server.games.blackjack.meters import (
    MUST_HIT_BY,
    RoundMeters,
    meter_specs_of,
    open_meters,
)
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    CardDealt,
    HoleCardRevealed,
    RoundCompleted,
)
from game_server.games.blackjack.rules.round import BlackjackRound, Phase, replay
from game_server.recall.rounds import LoggedRound
from game_server.rng.drbg import RandomStream
from game_server.rng.shoe import Shoe
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.table.events import TableOpened
from game_server.table.ledger import Ledger
from game_server.table.recovery import RecoveryError, replayed, round_started
from game_server.table.seated import MYSTERY_STREAM, SeatBook, check_seat_map
from game_server.table.secrecy import (
    Dealt,
    Secrecy,
    TurnedUp,
    card_of,
    face_down_to_all,
    position_of,
    seat_of,
)
from game_server.table.session import (
    SOFTWARE,
    EventSink,
    LogWriteFailed,
    SealedShoes,
    TableError,
)
from shared.cards import Card, parse_card

__all__ = [
    "MUST_HIT_BY",
    "MYSTERY_STREAM",
    "LinkedWagerRefused",
    "TableSession",
    "meter_specs",
    "resume_round",
]


class LinkedWagerRefused(TableError):
    """A wager that feeds a meter linked across the floor (605a.8) while the floor store
    cannot be reached: refused with the store's sentence; the base game goes on."""


def meter_specs(config: TableConfig) -> dict[str, tuple[str, MeterSpec]]:
    """Each progressive meter a table's config names: meter id -> (wager, its spec)
    (:func:`~game_server.games.blackjack.meters.meter_specs_of`)."""
    return meter_specs_of(config.rules, config.must_hit_by, config.table_id)


#: The stand-in of a sealed hole card.
TWO: Final = parse_card("2C")


def _stand_in(record: Any) -> Card:
    """A two stands in for a sealed hole card when a round in play is replayed: before the
    hole card is turned up the engine asks of it only whether it makes a Blackjack under the
    up card (the peek), which a two never does, as the logged peek said of the real one."""
    return TWO


#: The dealer's hole card is dealt face down, nobody's until it is turned up (633b.8).
SECRECY: Final = Secrecy(
    dealt={CardDealt: Dealt(seen=face_down_to_all, hand=seat_of)},
    turned_up={HoleCardRevealed: TurnedUp(positions=position_of, cards=card_of)},
    stand_in=_stand_in,
)


class TableSession(SeatBook[BlackjackRound]):
    """The game flow of one table over the engine, writing every step to ``sink``.

    Args:
        config: the table's Rules Submission.
        sink: the event log (or a :class:`MemorySink`).
        shoes: the table's shoe maker.
        seats: terminal id -> seat number for the terminals that hold seats.
    """

    #: Its hidden cards (game_server.table.secrecy).
    secrecy = SECRECY

    def __init__(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank | None = None,
    ) -> None:
        if config.table_type is not TableType.FULLY_AUTOMATED:
            raise TableError(
                f"table {config.table_id} is a {config.table_type} table (58 Pa. Code 633b.5): "
                "this build's table server runs fully automated tables only; `etg sim` plays "
                "the hybrid tables"
            )
        check_seat_map(seats, config.rules.seats)
        self.config = config
        self.sink = sink
        self.shoes = shoes
        self.seats = dict(seats)
        self.terminal_of = {seat: terminal for terminal, seat in seats.items()}
        self.ledger = Ledger()
        self._config_hash = config.config_hash()
        self.round: BlackjackRound | None = None
        self.round_id = 0
        self.shoe: Shoe | None = None
        self.shoe_number = 0
        self._salt = b""
        self.failed: BaseException | None = None
        #: The server's progressive meters (shared by the tables that link to one meter).
        self.meters = meters if meters is not None else MeterBank()
        self._mystery_stream: RandomStream | None = None
        self.meter_specs = meter_specs(config)
        self.round_meters = RoundMeters.of(
            config.rules, config.must_hit_by, self.meter_specs, self.meters, self._draw
        )
        self._meter_of = self.round_meters.meter_of

    # ---------------------------------------------------------------- logging

    def _log_engine(
        self, events: Sequence[Any], before: Sequence[tuple[str | None, Any]] = ()
    ) -> list[Any]:
        terminal_of = self.terminal_of
        items = list(before)
        for ev in events:
            seat = getattr(ev, "seat", DEALER)
            items.append((terminal_of.get(seat) if seat != DEALER else None, ev))
        items += self._linked_step(lambda: self._award_progressives(events))
        closes = bool(events) and type(events[-1]) is RoundCompleted
        if not closes:
            return self._log(items)
        return self._log_closing(items, [self.terminal_of[s] for s in sorted(self.terminal_of)])

    # --------------------------------------------------------------- the table

    def open(self) -> list[Any]:
        """Log the Rules Submission in force (at start-up and after every change), and open
        (or link to) the progressive meters it names."""
        config = self.config
        items: list[tuple[str | None, Any]] = [
            (None, TableOpened(config.to_dict(), config.config_hash(), SOFTWARE))
        ]
        for step in open_meters(self.meters, self.meter_specs, self._draw):
            items += [(None, ev) for ev in step.events]
        return self._log(items)

    # --------------------------------------------------------------- meters

    def _contributions(self, game: BlackjackRound) -> list[tuple[str | None, Any]]:
        """Every progressive wager of the round feeds its meters when the wagers are locked
        (:meth:`RoundMeters.contributions`)."""
        seats = ((seat, state.wagers) for seat, state in sorted(game.seats.items()))
        return [
            (place, ev) for place, _, ev in self.round_meters.contributions(seats, self.terminal_of)
        ]

    def _linked_step(
        self, build: Callable[[], list[tuple[str | None, Any]]]
    ) -> list[tuple[str | None, Any]]:
        """The meters' part of a step; when a meter linked across the floor cannot be
        changed (the store was lost after the wager was taken), the table goes out of
        service as after a failed log write: the round waits, nothing is paid from a meter
        the store did not confirm, and the operator's reopen rebuilds the table from its
        log and makes the step again with the same keys (the store does it once)."""
        try:
            return build()
        except StoreUnavailable as exc:
            self.failed = exc
            raise LogWriteFailed(
                f"the table is out of service: {exc}. The round waits for the floor store; "
                "when it is back the operator reopens the table, which finishes the round"
            ) from exc

    def _award_progressives(self, events: Sequence[Any]) -> list[tuple[str | None, Any]]:
        """Pay the round's progressive wins from their meters (:meth:`RoundMeters.awards`)."""
        return self.round_meters.awards(events, self.terminal_of)

    def _new_round(self) -> BlackjackRound:
        return BlackjackRound(self.config.rules)

    # ------------------------------------------------------------------ round

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> list[Any]:
        """Place a terminal's wagers for the open round (debited from its credits). A wager
        feeding a meter linked across the floor is refused while the floor store cannot be
        reached (:class:`LinkedWagerRefused`)."""
        seat = self._seat(terminal)
        game = self._open_round()
        self.check_units(wagers)
        game.verify_place_wagers(seat, wagers)
        self._afford(terminal, sum(wagers.values()), "the wagers")
        fed = [meter_id for (wager, _), meter_id in self._meter_of.items() if wager in wagers]
        try:
            self.meters.refuse_if_unavailable(fed)
        except StoreUnavailable as exc:
            raise LinkedWagerRefused(str(exc)) from None
        return self._log_engine(game.place_wagers(seat, wagers))

    def deal(self) -> list[Any]:
        """Deal the round from the current shoe; the progressive wagers feed their meters
        in the same step."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        contributions = self._linked_step(lambda: self._contributions(game))
        return self._log_engine(game.deal(self.shoe), contributions)

    def insure(self, terminal: str, amount: int, *, auto: bool = False) -> list[Any]:
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_insurance(seat, amount)
        self._afford(terminal, amount, "the insurance wager")
        return self._log_engine(game.insure(seat, amount, auto=auto))

    def decline_insurance(self, terminal: str, *, auto: bool = False) -> list[Any]:
        return self._log_engine(
            self._open_round().decline_insurance(self._seat(terminal), auto=auto)
        )

    def take_even_money(self, terminal: str, *, auto: bool = False) -> list[Any]:
        return self._log_engine(self._open_round().take_even_money(self._seat(terminal), auto=auto))

    def act(
        self,
        terminal: str,
        action: Action,
        hand: int,
        *,
        amount: int | None = None,
        auto: bool = False,
    ) -> list[Any]:
        """A decision on one of the terminal's hands; doubles and splits are debited."""
        seat = self._seat(terminal)
        game = self._open_round()
        if action is Action.DOUBLE:
            game.verify_double(seat, hand, amount)
            current = game.to_act
            assert current is not None
            cost = current.wagers[BLACKJACK] if amount is None else amount
            self._afford(terminal, cost, "the double down wager")
            return self._log_engine(game.double(seat, hand, amount, auto=auto))
        if action is Action.SPLIT:
            game.verify_split(seat, hand)
            # After a TriLux Deluxe Press the new hand matches the pressed portion too
            # (633b.11(h)).
            self._afford(terminal, game.split_cost(seat, hand), "the split wager")
        if action is Action.PRESS:
            game.verify_press(seat, hand, amount)
            pressed = game.press_limit(seat) if amount is None else amount
            self._afford(terminal, pressed, "the TriLux Deluxe Press")
            return self._log_engine(game.press(seat, hand, amount, auto=auto))
        return self._log_engine(game.act(action, seat, hand, auto=auto))

    @property
    def phase(self) -> Phase | None:
        return None if self.round is None else self.round.phase


def resume_round(
    session: TableSession, logged_round: LoggedRound, seats: Mapping[str, int]
) -> StrEnum:
    """Make the interrupted round of a fully automated table the session's open round: the
    engine in the state after its last logged step (replayed by
    :func:`~game_server.games.blackjack.rules.round.replay`), the shoe in use as its card
    source (crash recovery)."""
    started = round_started(logged_round, seats)
    engine = [item.event for item in logged_round.engine_events()]
    game = replayed(started, lambda: replay(session.config.rules, engine))
    if game.phase is Phase.COMPLETE:
        raise RecoveryError(f"round {started.round} replays complete but was not closed")
    if game.phase is not Phase.BETTING:
        if session.shoe is None:
            raise RecoveryError(f"round {started.round} was dealt but no shoe is in use")
        game._source = session.shoe
    session.round = game
    return game.phase
