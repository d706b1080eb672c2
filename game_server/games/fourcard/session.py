"""One Four Card Poker table's game flow: a :class:`~game_server.table.session.TableBook`
over the pure engine (58 Pa. Code 641a, 641b.1).

- **One freshly shuffled 52-card deck per round** from the certified HMAC_DRBG
  (``decks = 1, shuffle = "every-round"``), committed before the first card.
- **Meters**: at the deal every Four-Card and Five-Card Progressive Payout Wager feeds its
  meter (``meter_contributed``) and, where it qualifies (641b.1(c)(1): with the Four Card
  Poker wager, at least the configuration's minimum), the Must-Hit-By Mystery Bonus meter
  ((c)(2)); the contribution that takes it past its trigger wins it ((c)(3), (7):
  ``mystery_awarded`` and :class:`FourCardMysteryPaid`). The trigger is drawn by the
  certified DRBG, seeded like the shoes by the table's seed source (the Blackjack table's
  stream). The settlement reads the progressive meters from the bank and commits the awards.
- The decision that ends the deciding settles the round in the SAME step (it needs no other
  input), which closes the round with a checkpoint.

Wallets fold through :class:`FourCardLedger`: a settlement's ``paid`` includes what a meter
paid (``from_meter``), so the meters' own award records move no credits.

Entry points: :class:`FourCardSession`, :class:`FourCardLedger`, :func:`resume_round`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.fourcard.rules.events import (
    ANTE,
    MUST_HIT_BY,
    FourCardMysteryPaid,
    FourCardRoundCompleted,
)
from game_server.games.fourcard.rules.game import Action, FourCardRound, Phase, replay
from game_server.games.fourcard.rules.rules import FourCardRules
from game_server.recall.rounds import LoggedRound
from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.shoe import Shoe
from game_server.rules.errors import ActionNotAllowed
from game_server.rules.meters import MeterBank, MeterStep, MysteryAwarded
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import WON
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

__all__ = ["DECISIONS", "FourCardLedger", "FourCardSession", "parse_decision", "resume_round"]

#: The seed source's stream for the mystery trigger draws (the shoes are numbered from 1).
MYSTERY_STREAM: Final = 0

#: The Act command's actions: ``fold``, ``play`` with the multiple as the amount, or
#: ``play1`` .. ``play3`` (the multiple in the name: one button each).
DECISIONS: Final[Mapping[str, tuple[Action, int | None]]] = {
    "fold": (Action.FOLD, 0),
    "play": (Action.PLAY, None),
    "play1": (Action.PLAY, 1),
    "play2": (Action.PLAY, 2),
    "play3": (Action.PLAY, 3),
}


def parse_decision(action: str) -> tuple[Action, int | None]:
    """The engine's decision for an ``Act`` action (the multiple, None: from the amount)."""
    found = DECISIONS.get(str(action).strip().lower())
    if found is None:
        raise ActionNotAllowed(
            f"{action!r} is not a Four Card Poker decision: send fold, play1, play2 or play3 "
            "(or play with the multiple 1 to 3 as the amount)"
        )
    return found


class FourCardLedger(Ledger):
    """The ledger of a Four Card Poker table: settlements carry what the meters paid
    (``from_meter``), so ``meter_awarded`` and ``mystery_awarded`` move no credits."""

    awards_move_credits = False


class FourCardSession(TableBook):
    """The game flow of one Four Card Poker table, writing every step to ``sink``."""

    def __init__(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank | None = None,
    ) -> None:
        rules: FourCardRules = config.rules
        if not isinstance(rules, FourCardRules):
            raise TableError(f"table {config.table_id} does not deal Four Card Poker")
        for terminal, seat in seats.items():
            if not 1 <= seat <= rules.seats:
                raise UnknownTerminal(
                    f"terminal {terminal} is given seat {seat}, outside 1..{rules.seats}"
                )
        if len(set(seats.values())) != len(seats):
            raise UnknownTerminal("two terminals are given the same seat")
        self.config, self.rules, self.sink, self.shoes = config, rules, sink, shoes
        self.seats = dict(seats)
        self.terminal_of = {seat: terminal for terminal, seat in seats.items()}
        self.ledger: Ledger = FourCardLedger()
        self._config_hash = config.config_hash()
        self.round: FourCardRound | None = None
        self.round_id = self.shoe_number = 0
        self.shoe: Shoe | None = None
        self._salt = b""
        self.failed: BaseException | None = None
        self.meters = meters if meters is not None else MeterBank()
        self.meter_specs = rules.meters()
        self._mystery_stream: RandomStream | None = None

    # ------------------------------------------------------------------ logging

    def _terminal_of_event(self, ev: Any) -> str | None:
        seat = getattr(ev, "seat", None)
        if isinstance(seat, int) and seat >= 1:
            return self.terminal_of.get(seat)
        places = getattr(ev, "places", None)
        if isinstance(places, tuple) and len(places) == 1:
            _, _, number = str(places[0]).rpartition("/")
            return self.terminal_of.get(int(number)) if number.isdigit() else None
        place = getattr(ev, "place", None)
        if isinstance(place, str) and place in self.seats:
            return place
        return None

    def _log_engine(
        self, events: Sequence[Any], before: Sequence[tuple[str | None, Any]] = ()
    ) -> list[Any]:
        items = list(before) + [(self._terminal_of_event(ev), ev) for ev in events]
        if not events or type(events[-1]) is not FourCardRoundCompleted:
            return self._log(items)
        return self._log_closing(items, [self.terminal_of[s] for s in sorted(self.terminal_of)])

    # -------------------------------------------------------------------- table

    def open(self) -> list[Any]:
        """Log the Rules Submission in force, and open (or link to) its meters."""
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

    def _draw(self, n: int) -> int:
        """A whole number below ``n`` from the certified DRBG stream of the mystery trigger
        (641b.1(c)(3)), seeded by the table's seed source like the shoes."""
        stream = self._mystery_stream
        if stream is None:
            seed, _ = self.shoes.seeds(MYSTERY_STREAM)
            drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization + b"/mystery")
            stream = self._mystery_stream = RandomStream(drbg)
        return stream.randbelow(n)

    def _new_round(self) -> FourCardRound:
        return FourCardRound(self.rules, self.config.table_id)

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

    def _open_round(self) -> FourCardRound:
        self._check_not_failed()
        if self.round is None:
            raise NoRoundOpen("no round is open: wait for the next betting window")
        return self.round

    # -------------------------------------------------------------------- round

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> list[Any]:
        """A terminal's wagers before the deal (checked, then debited)."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_place_wagers(seat, wagers)
        self._afford(terminal, sum(wagers.values()), "the wagers")
        return self._log_engine(game.place_wagers(seat, wagers))

    def dealt(self) -> bool:
        return self.round is not None and self.round.phase is not Phase.BETTING

    def deal(self) -> list[Any]:
        """Feed the meters from the round's progressive wagers, deal, and settle at once
        when no seat has a decision to make."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        items: list[tuple[str | None, Any]] = []
        mystery = self.rules.mystery
        for meter_id, stake, seat, wager in game.contributions():
            terminal = self.terminal_of.get(seat)
            step = self.meters.contribute(meter_id, stake, game.place(seat))
            items += [(terminal, ev) for ev in step.events]
            if (
                mystery is not None
                and terminal is not None
                and wager in mystery.qualifying
                and stake >= mystery.minimum_wager
                and ANTE in game.seats[seat].wagers
            ):
                items += self._feed_mystery(mystery.meter_id, stake, seat, terminal, wager)
        events = game.deal(self.shoe)
        return self._log_engine(events + self._settle_if_due(game), items)

    def _feed_mystery(
        self, meter_id: str, stake: int, seat: int, terminal: str, wager: str
    ) -> list[tuple[str | None, Any]]:
        """641b.1(c)(2)-(3), (7): a qualifying wager feeds the Must-Hit-By meter; the
        contribution that takes it past its trigger wins 100% of it."""
        step: MeterStep = self.meters.commit(
            must_hit_by.contribute(self.meters.meter(meter_id), stake, terminal, self._draw)
        )
        items: list[tuple[str | None, Any]] = [(terminal, ev) for ev in step.events]
        for ev in step.events:
            if type(ev) is MysteryAwarded:
                line = (
                    f"Must-Hit-By Mystery Bonus: 100% of the meter, past its trigger "
                    f"(58 Pa. Code 641b.1(c)(3), (7)), on the {wager.replace('_', ' ')}"
                )
                items.append(
                    (
                        terminal,
                        FourCardMysteryPaid(seat, MUST_HIT_BY, 0, ev.paid, ev.paid, WON, line),
                    )
                )
        return items

    def pending(self) -> tuple[str, ...]:
        game = self.round
        if game is None:
            return ()
        return tuple(self.terminal_of[s] for s in game.pending if s in self.terminal_of)

    def decide(self, terminal: str, action: Action, multiple: int = 0) -> list[Any]:
        """Fold, or a Play Wager of ``multiple`` times the Ante (checked, then debited)."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_decide(seat, action, multiple)
        if action is Action.PLAY:
            self._afford(terminal, game.seats[seat].wagers[ANTE] * multiple, "the Play Wager")
        events = game.decide(seat, action, multiple)
        return self._log_engine(events + self._settle_if_due(game))

    def countdown(self, terminal: str) -> list[Any]:
        """The decision countdown ran out: the seat folds (logged ``auto``)."""
        seat = self._seat(terminal)
        game = self._open_round()
        events = game.countdown_action(seat)
        return self._log_engine(events + self._settle_if_due(game))

    def _settle_if_due(self, game: FourCardRound) -> list[Any]:
        if game.phase is not Phase.SHOWDOWN:
            return []
        needed = {m: self.meters.meter(m) for m in game.meter_ids_needed()}
        events = game.settle(needed)
        for meter, meter_events in game.meter_steps():
            self.meters.commit(MeterStep(meter, meter_events))
        return events

    def wagered(self, terminal: str) -> int:
        game = self.round
        seat = self.seats.get(terminal)
        if game is None or seat not in game.seats:
            return 0
        return sum(game.seats[seat].wagers.values())

    def resume(self, game: FourCardRound) -> None:
        """Make a replayed round the open one, the deck in use its card source."""
        if game.phase is not Phase.BETTING and self.shoe is None:
            raise TableError(f"round {self.round_id} was dealt but no deck is in use")
        self.round = game


def resume_round(
    session: FourCardSession, logged_round: LoggedRound, seats: Mapping[str, int]
) -> StrEnum:
    """Make the interrupted round the session's open round (crash recovery)."""
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
