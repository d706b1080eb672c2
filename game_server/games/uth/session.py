"""One Ultimate Texas Hold 'Em table's game flow: sealed decks, rounds, wallets, the log.

58 Pa. Code 653a. :class:`UthSession` is the table layer over the pure engine
:class:`~game_server.games.uth.rules.game.UthRound`, as
:class:`~game_server.table.session.TableSession` is over the Blackjack engine; both build on
:class:`~game_server.table.session.TableBook` (one logged step at a time, credits in and
out, the credit check before a wager, the shoe's retirement). Terminals hold seats, mapped
like the fully automated Blackjack table's.

- **One freshly shuffled 52-card deck per round** from the certified HMAC_DRBG: the table's
  config is ``decks = 1, shuffle = "every-round"``, so :class:`SealedShoes` commits a new
  one-deck shoe (``shoe_committed``) before each round's first card and the next round's
  start reveals it (``shoe_revealed``), exactly as a Blackjack table dealt every round.
- **Meters**: every Progressive Payout and Five Card Hand Bonus Wager feeds its meter through
  the server's :class:`~game_server.rules.meters.MeterBank` in the step that deals the cards
  (``meter_contributed``, 653a.12(d)(3), (e)(4)); the engine's settlement awards them
  (``meter_awarded``, ``meter_reseeded``) and its meter steps are committed to the bank.
- **Magic Card and Lucky Bonus** (653a.12(e)(3)): drawn each round at the settlement by
  :func:`bonus_draws` from the certified HMAC_DRBG, instantiated like the mystery-trigger
  stream of :meth:`TableSession._draw` (the seed source's material with its own
  personalization) but from the seed of the round's own deck: the draw is thus sealed in the
  deck's commitment before the first card, revealed with it, repeatable by ``etg verify``,
  and identical after a crash and restart. Logged in ``uth_settlement_started``.
- A wager, and a Play Wager at a decision, is checked against the terminal's credits before
  the engine acts. The decision that ends the last street also settles the round in the SAME
  step (the engine's showdown needs no input but the draws), which holds
  :class:`~game_server.table.events.RoundClosed` and is written with a round-close
  checkpoint.

Wallets fold through :class:`UthLedger` (the Blackjack ledger with the UTH wager records):
a settlement's ``paid`` includes what came from a meter (``from_meter``), so the engine's
``meter_awarded`` (whose places are betting positions, ``"UTH-01/3"``) moves no credits.

Entry points: :class:`UthSession`, :class:`UthLedger`, :func:`bonus_draws`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.uth.config import rules_of as uth_rules_of
from game_server.games.uth.rules.events import (
    ANTE,
    UthRoundCompleted,
)
from game_server.games.uth.rules.game import Action, Phase, UthRound, replay
from game_server.games.uth.rules.rules import UthRules
from game_server.recall.rounds import LoggedRound
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.errors import RulesError
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import MeterSpec
from game_server.table.bonus_draws import bonus_draws as shared_bonus_draws
from game_server.table.events import TableOpened
from game_server.table.ledger import Ledger
from game_server.table.recovery import RecoveryError, replayed, round_started
from game_server.table.session import (
    SOFTWARE,
    EventSink,
    InsufficientCredits,
    NoRoundOpen,
    SealedShoes,
    TableBook,
    TableError,
    UnknownTerminal,
)
from shared.cards import Card

__all__ = [
    "BONUS_PERSONALIZATION",
    "InsufficientCredits",
    "UnknownDecision",
    "UthLedger",
    "UthSession",
    "bonus_draws",
    "parse_decision",
    "uth_rules",
]

#: Appended to the round deck's personalization for the Magic Card / Lucky Bonus stream.
BONUS_PERSONALIZATION: Final = b"/uth-bonus-draws"

#: The Act command's action names at an Ultimate Texas Hold 'Em table (``play`` is ``bet``).
DECISION_NAMES: Final[Mapping[str, Action]] = {
    "check": Action.CHECK,
    "bet": Action.PLAY,
    "play": Action.PLAY,
    "fold": Action.FOLD,
}


class UnknownDecision(RulesError):
    """An Act whose action is not an Ultimate Texas Hold 'Em decision."""


def parse_decision(action: object) -> Action:
    """The engine's decision for an Act ``action`` string: "check", "bet" ("play") or "fold".

    Raises:
        UnknownDecision: any other action (e.g. a Blackjack "hit").
    """
    if isinstance(action, Action):
        return action
    decision = DECISION_NAMES.get(str(action).lower())
    if decision is None:
        raise UnknownDecision(
            f"{str(action)!r} is not an Ultimate Texas Hold 'Em decision: send check, bet "
            "(with the Play multiple 4, 3, 2 or 1 as the amount) or fold"
        )
    return decision


def uth_rules(config: TableConfig) -> UthRules:
    """The UTH rules of a config, refusing a Blackjack table's."""
    rules = uth_rules_of(config)
    if rules is None:
        raise TableError(
            f"table {config.table_id} deals {config.game}, not Ultimate Texas Hold 'Em: "
            'its Rules Submission needs game = "uth"'
        )
    return rules


def bonus_draws(seed: ShoeSeed, rules: UthRules) -> tuple[Card | None, int | None]:
    """The Magic Card and the Lucky Bonus position of the round dealt from the deck of
    ``seed`` (653a.1, 653a.12(e)(3)): the shared
    :func:`~game_server.table.bonus_draws.bonus_draws` with :data:`BONUS_PERSONALIZATION`."""
    return shared_bonus_draws(seed, rules, BONUS_PERSONALIZATION)


class UthLedger(Ledger):
    """:class:`~game_server.table.ledger.Ledger` at an Ultimate Texas Hold 'Em table: a
    settlement's ``paid`` includes what came from a meter (``from_meter``, counted as what the
    meters paid, not the house), so the engine's ``meter_awarded`` (whose places are betting
    positions, ``"UTH-01/3"``) moves no credits."""

    awards_move_credits = False


class UthSession(TableBook):
    """The game flow of one Ultimate Texas Hold 'Em table, writing every step to ``sink``.

    Args:
        config: the table's Rules Submission (``game = "uth"``).
        sink: the event log (or a :class:`~game_server.table.session.MemorySink`).
        shoes: the table's shoe maker (one 52-card deck per round).
        seats: terminal id -> seat number for the terminals that hold seats.
        meters: the server's progressive meters (shared by linked tables).
    """

    def __init__(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank | None = None,
    ) -> None:
        rules = uth_rules(config)
        for terminal, seat in seats.items():
            if not 1 <= seat <= rules.seats:
                raise UnknownTerminal(
                    f"terminal {terminal} is given seat {seat}, outside 1..{rules.seats}"
                )
        if len(set(seats.values())) != len(seats):
            raise UnknownTerminal("two terminals are given the same seat")
        self.config = config
        self.rules = rules
        self.sink = sink
        self.shoes = shoes
        self.seats = dict(seats)
        self.terminal_of = {seat: terminal for terminal, seat in seats.items()}
        self.ledger: Ledger = UthLedger()
        self._config_hash = config.config_hash()
        self.round: UthRound | None = None
        self.round_id = 0
        self.shoe: Shoe | None = None
        self.shoe_number = 0
        self._salt = b""
        self.failed: BaseException | None = None
        self.meters = meters if meters is not None else MeterBank()
        #: The meters this table links to: id -> spec.
        self.meter_specs: dict[str, MeterSpec] = rules.meters()

    # ---------------------------------------------------------------- logging

    def _terminal_of_event(self, ev: Any) -> str | None:
        seat = getattr(ev, "seat", None)
        if isinstance(seat, int) and seat >= 1:
            return self.terminal_of.get(seat)
        places = getattr(ev, "places", None)
        if isinstance(places, tuple) and len(places) == 1:
            _, _, number = str(places[0]).rpartition("/")
            return self.terminal_of.get(int(number)) if number.isdigit() else None
        return None

    def _log_engine(
        self, events: Sequence[Any], before: Sequence[tuple[str | None, Any]] = ()
    ) -> list[Any]:
        """Log an engine step, each event under its seat's terminal; the step that completes
        the round also closes it with every seated terminal's credits."""
        items = list(before) + [(self._terminal_of_event(ev), ev) for ev in events]
        if not events or type(events[-1]) is not UthRoundCompleted:
            return self._log(items)
        return self._log_closing(items, [self.terminal_of[s] for s in sorted(self.terminal_of)])

    # --------------------------------------------------------------- the table

    def open(self) -> list[Any]:
        """Log the Rules Submission in force, and open (or link to) its meters."""
        config = self.config
        items: list[tuple[str | None, Any]] = [
            (None, TableOpened(config.to_dict(), self._config_hash, SOFTWARE))
        ]
        for meter_id, spec in self.meter_specs.items():
            items += [(None, ev) for ev in self.meters.link(meter_id, spec).events]
        return self._log(items)

    def _new_round(self) -> UthRound:
        """A new round: its deck is committed fresh (``shuffle = "every-round"``), the
        previous one revealed."""
        return UthRound(self.rules, self.config.table_id)

    def _places(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        seats = tuple(sorted(self.terminal_of))
        return seats, tuple(self.terminal_of[s] for s in seats)

    def resume(self, game: UthRound) -> None:
        """Make ``game`` (an interrupted round rebuilt by
        :func:`~game_server.games.uth.rules.replay`) the open round, the deck in use as its card
        source (crash recovery)."""
        if game.phase is not Phase.BETTING:
            if self.shoe is None:
                raise TableError(f"round {self.round_id} was dealt but no deck is in use")
            game._source = self.shoe
        self.round = game

    # ------------------------------------------------------------------ round

    def _seat(self, terminal: str) -> int:
        self._check_not_failed()
        seat = self.seats.get(terminal)
        if seat is None:
            raise UnknownTerminal(f"terminal {terminal!r} holds no seat at this table")
        return seat

    def _in_play(self, terminal: str) -> bool:
        game = self.round
        return game is not None and self.seats.get(terminal) in game.seats

    def _open_round(self) -> UthRound:
        self._check_not_failed()
        if self.round is None:
            raise NoRoundOpen("no round is open: wait for the next betting window")
        return self.round

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> list[Any]:
        """Place a terminal's wagers before the deal (debited from its credits): an Ante and
        an equal Blind, and any of Trips, Progressive Payout, Five Card Hand Bonus."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_place_wagers(seat, wagers)
        self._afford(terminal, sum(wagers.values()), "the wagers")
        return self._log_engine(game.place_wagers(seat, wagers))

    def dealt(self) -> bool:
        """Whether the open round's cards are dealt (no more bets)."""
        return self.round is not None and self.round.phase is not Phase.BETTING

    def deal(self) -> list[Any]:
        """Deal the round from its deck; the progressive wagers feed their meters in the
        same step (653a.12(d)(3), (e)(4))."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        items: list[tuple[str | None, Any]] = []
        for meter_id, stake, place in game.contributions():
            _, _, number = place.rpartition("/")
            terminal = self.terminal_of.get(int(number))
            step = self.meters.contribute(meter_id, stake, place)
            items += [(terminal, ev) for ev in step.events]
        return self._log_engine(game.deal(self.shoe), items)

    def pending(self) -> tuple[str, ...]:
        """The terminals that still have to decide on the current street."""
        game = self.round
        if game is None:
            return ()
        return tuple(self.terminal_of[s] for s in game.pending if s in self.terminal_of)

    def play_cost(self, terminal: str, multiple: int) -> int:
        """What a Play Wager of ``multiple`` times the Ante costs the terminal."""
        game = self._open_round()
        return game.seats[self._seat(terminal)].wagers.get(ANTE, 0) * multiple

    def decide(
        self, terminal: str, action: Action, multiple: int = 0, *, auto: bool = False
    ) -> list[Any]:
        """A decision of the terminal's seat on the current street: check, Play (``multiple``
        times the Ante, debited) or fold. The decision that ends the river also settles the
        round in the same step."""
        seat = self._seat(terminal)
        game = self._open_round()
        if action is Action.PLAY:
            game.verify_play(seat, multiple)
            self._afford(terminal, self.play_cost(terminal, multiple), "the Play Wager")
        elif action is Action.CHECK:
            game.verify_check(seat)
        else:
            game.verify_fold(seat)
        events = game.decide(seat, action, multiple, auto=auto)
        return self._log_engine(events + self._settle_if_due(game))

    def countdown(self, terminal: str) -> list[Any]:
        """The terminal's countdown ran out: check (preflop, flop) or fold (river), logged as
        ``auto``; the round settles in the same step when this ends the river."""
        seat = self._seat(terminal)
        game = self._open_round()
        events = game.act_default(seat)
        return self._log_engine(events + self._settle_if_due(game))

    def _settle_if_due(self, game: UthRound) -> list[Any]:
        """Settle the round once the dealer's hand is shown (653a.12(a)-(f)): the Magic Card
        and Lucky Bonus position drawn, the meters read from the bank and the awards
        committed to it."""
        if game.phase is not Phase.SHOWDOWN:
            return []
        assert self.shoe is not None
        magic, lucky = bonus_draws(self.shoe.seed, self.rules)
        needed = {m: self.meters.meter(m) for m in self.meter_specs if m in self.meters}
        events = game.settle(needed, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return events

    @property
    def phase(self) -> Phase | None:
        return None if self.round is None else self.round.phase

    def wagered(self, terminal: str) -> int:
        """The terminal's wagers in the open round, Play Wager included (cents)."""
        game = self.round
        seat = self.seats.get(terminal)
        if game is None or seat not in game.seats:
            return 0
        return sum(game.seats[seat].wagers.values())


def resume_round(
    session: UthSession, logged_round: LoggedRound, seats: Mapping[str, int]
) -> StrEnum:
    """Make the interrupted round of an Ultimate Texas Hold 'Em table the session's open
    round: rebuilt by :func:`game_server.games.uth.rules.game.replay`, the deck in use its
    card source (crash recovery)."""
    started = round_started(logged_round, seats)
    events = [item.event for item in logged_round.engine_events()]
    game = replayed(started, lambda: replay(session.rules, events, session.config.table_id))
    if game.phase in (Phase.SHOWDOWN, Phase.COMPLETE):
        raise RecoveryError(f"round {started.round} replays to its showdown but was not closed")
    try:
        session.resume(game)
    except TableError as exc:
        raise RecoveryError(str(exc)) from exc
    return game.phase
