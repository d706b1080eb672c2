"""One Caribbean Stud Poker table's game flow: sealed decks, rounds, wallets, meters, the log.

A :class:`~game_server.table.session.TableBook` over the pure
:class:`~game_server.games.caribbean.rules.game.CaribbeanRound`, as the Ultimate Texas Hold 'Em
table's session is:

- one freshly shuffled 52-card deck per round from the certified HMAC_DRBG (``decks = 1``,
  ``shuffle = "every-round"``), committed before the round's first card;
- the deal's step feeds the meters (``meter_contributed``: the Progressive Payout and Five
  Card Hand Bonus meters, 639a.12) and, for each seat with a Caribbean Stud Wager and a
  Progressive Payout Wager of at least the configuration's minimum, the Must-Hit-By meter
  (639b.1(c)(1)-(2)); the contribution that takes it past its trigger wins 100% of it
  ((c)(3), (7): ``mystery_awarded``, then :class:`CaribbeanMysteryPaid`, which credits the
  seat), the meter resets to its minimum and a new trigger is drawn ((c)(5)(iv)) from the
  table's certified DRBG stream for the triggers (seeded as the Blackjack table's);
- the Magic Card and Lucky Bonus position are drawn at settlement from the round deck's seed
  (:func:`bonus_draws`), sealed in the deck's commitment, repeatable by ``etg verify``;
- the decision that ends the round's decisions (or the countdown's fold) settles it in the
  same step, written with the round's close.

Entry points: :class:`CaribbeanSession`, :func:`resume_round`, :func:`bonus_draws`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.caribbean.rules.events import (
    ANTE,
    MYSTERY,
    PROGRESSIVE,
    WON,
    CaribbeanMysteryPaid,
    CaribbeanRoundCompleted,
)
from game_server.games.caribbean.rules.game import Action, CaribbeanRound, Phase, replay
from game_server.games.caribbean.rules.rules import CaribbeanRules
from game_server.recall.rounds import LoggedRound
from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.meters import MeterBank, MysteryAwarded
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec
from game_server.table.bonus_draws import bonus_draws as shared_bonus_draws
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
from shared.cards import Card
from shared.money import format_money

__all__ = [
    "CaribbeanLedger",
    "CaribbeanSession",
    "bonus_draws",
    "meter_specs",
    "mystery_meter_id",
    "resume_round",
]

#: Appended to the round deck's personalization for the Magic Card / Lucky Bonus stream.
BONUS_PERSONALIZATION: Final = b"/caribbean-bonus-draws"
#: The seed source's stream number for the mystery trigger draws (shoes are numbered from 1).
MYSTERY_STREAM: Final = 0


def bonus_draws(seed: ShoeSeed, rules: CaribbeanRules) -> tuple[Card | None, int | None]:
    """The Magic Card and the Lucky Bonus position of the round dealt from the deck of
    ``seed`` (639a.1): the shared :func:`~game_server.table.bonus_draws.bonus_draws` with
    :data:`BONUS_PERSONALIZATION`."""
    return shared_bonus_draws(seed, rules, BONUS_PERSONALIZATION)


def mystery_meter_id(config: TableConfig) -> str | None:
    """The Must-Hit-By meter's id: the linked one (605a.8) or the table's own."""
    mystery = config.must_hit_by
    if mystery is None:
        return None
    return mystery.meter or f"{config.table_id}:{MYSTERY}"


def meter_specs(config: TableConfig) -> dict[str, MeterSpec]:
    """Every meter the table opens or links: its wagers' and the Must-Hit-By meter."""
    rules: CaribbeanRules = config.rules
    specs = rules.meters()
    meter_id = mystery_meter_id(config)
    if meter_id is not None and config.must_hit_by is not None:
        specs[meter_id] = config.must_hit_by.spec()
    return specs


class CaribbeanLedger(Ledger):
    """The wallets: a settlement's ``paid`` carries what a meter paid (``from_meter``), so
    the meters' own award records move no credits."""

    awards_move_credits = False


class CaribbeanSession(TableBook):
    """The game flow of one Caribbean Stud Poker table, writing every step to ``sink``."""

    def __init__(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank | None = None,
    ) -> None:
        rules: CaribbeanRules = config.rules
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
        self.ledger: Ledger = CaribbeanLedger()
        self._config_hash = config.config_hash()
        self.round: CaribbeanRound | None = None
        self.round_id = self.shoe_number = 0
        self.shoe: Shoe | None = None
        self._salt = b""
        self.failed: BaseException | None = None
        self.meters = meters if meters is not None else MeterBank()
        self.meter_specs = meter_specs(config)
        self.mystery_id = mystery_meter_id(config)
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
        _, _, number = place.rpartition("/")
        return self.terminal_of.get(int(number)) if number.isdigit() else None

    def _log_engine(
        self, events: Sequence[Any], before: Sequence[tuple[str | None, Any]] = ()
    ) -> list[Any]:
        items = list(before) + [(self._terminal_of_event(ev), ev) for ev in events]
        if not events or type(events[-1]) is not CaribbeanRoundCompleted:
            return self._log(items)
        return self._log_closing(items, [self.terminal_of[s] for s in sorted(self.terminal_of)])

    # ---------------------------------------------------------------- the table

    def open(self) -> list[Any]:
        """Log the Rules Submission in force and open (or link to) its meters; the
        Must-Hit-By meter opens with its first trigger drawn unless a linked table opened it."""
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
        """A whole number below ``n`` from the table's certified DRBG stream for the
        Must-Hit-By triggers (639b.1(c)(3))."""
        stream = self._mystery_stream
        if stream is None:
            seed, _ = self.shoes.seeds(MYSTERY_STREAM)
            drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization + b"/mystery")
            stream = self._mystery_stream = RandomStream(drbg)
        return stream.randbelow(n)

    def _new_round(self) -> CaribbeanRound:
        return CaribbeanRound(self.rules, self.config.table_id)

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
        return self.round is not None and self.seats.get(terminal) in self.round.seats

    def _open_round(self) -> CaribbeanRound:
        self._check_not_failed()
        if self.round is None:
            raise NoRoundOpen("no round is open: wait for the next betting window")
        return self.round

    # ----------------------------------------------------------------- inputs

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> list[Any]:
        """Place a terminal's wagers before the deal (debited from its credits)."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_place_wagers(seat, wagers)
        self._afford(terminal, sum(wagers.values()), "the wagers")
        return self._log_engine(game.place_wagers(seat, wagers))

    def dealt(self) -> bool:
        return self.round is not None and self.round.phase is not Phase.BETTING

    def deal(self) -> list[Any]:
        """Deal the round; the meters are fed in the same step, the Must-Hit-By meter by each
        qualifying seat in seat order (639b.1(c)(1)-(3))."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        items: list[tuple[str | None, Any]] = []
        for meter_id, stake, place in game.contributions():
            step = self.meters.contribute(meter_id, stake, place)
            items += [(self._terminal_at(place), ev) for ev in step.events]
        items += self._mystery(game)
        return self._log_engine(game.deal(self.shoe), items)

    def _mystery(self, game: CaribbeanRound) -> list[tuple[str | None, Any]]:
        mystery, meter_id = self.config.must_hit_by, self.mystery_id
        if mystery is None or meter_id is None:
            return []
        conf = must_hit_by.configuration(mystery.configuration, mystery.minimum_wager)
        items: list[tuple[str | None, Any]] = []
        for number, seat in sorted(game.seats.items()):
            stake = seat.wagers.get(PROGRESSIVE, 0)
            terminal = self.terminal_of.get(number)
            if terminal is None or ANTE not in seat.wagers or stake < conf.minimum_wager:
                continue
            meter = self.meters.meter(meter_id)
            step = self.meters.commit(must_hit_by.contribute(meter, stake, terminal, self._draw))
            items += [(terminal, ev) for ev in step.events]
            for ev in step.events:
                if type(ev) is MysteryAwarded:
                    line = (
                        f"Must-Hit-By Mystery Bonus {conf.paytable}: 100% of "
                        f"{format_money(ev.paid)} (639b.1(c)(3), (7))"
                    )
                    paid = CaribbeanMysteryPaid(number, MYSTERY, 0, ev.paid, ev.paid, WON, line)
                    items.append((terminal, paid))
        return items

    def pending(self) -> tuple[str, ...]:
        game = self.round
        if game is None:
            return ()
        return tuple(self.terminal_of[s] for s in game.pending if s in self.terminal_of)

    def decide(self, terminal: str, action: Action, amount: int | None = None) -> list[Any]:
        """Fold, or make the Bet Wager of twice the Ante (debited; ``amount`` if given must
        be it). The last decision settles the round in the same step."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_decide(seat, action, amount)
        if action is Action.BET:
            self._afford(terminal, game.bet_amount(seat), "the Bet Wager")
        events = game.decide(seat, action, amount)
        return self._log_engine(events + self._settle_if_due(game))

    def countdown(self, terminal: str) -> list[Any]:
        """The decision countdown ran out for ``terminal``: it folds (``auto``)."""
        game = self._open_round()
        events = game.act_default(self._seat(terminal))
        return self._log_engine(events + self._settle_if_due(game))

    def _settle_if_due(self, game: CaribbeanRound) -> list[Any]:
        if game.phase is not Phase.SHOWDOWN:
            return []
        assert self.shoe is not None
        magic, lucky = bonus_draws(self.shoe.seed, self.rules)
        needed = {m: self.meters.meter(m) for m in self.rules.meters() if m in self.meters}
        events = game.settle(needed, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return events

    def wagered(self, terminal: str) -> int:
        """The terminal's wagers in the open round (cents)."""
        game, seat = self.round, self.seats.get(terminal)
        if game is None or seat not in game.seats:
            return 0
        return sum(game.seats[seat].wagers.values())

    def resume(self, game: CaribbeanRound) -> None:
        """Make a replayed interrupted round the open one, the deck in use its card source."""
        if game.phase is not Phase.BETTING:
            if self.shoe is None:
                raise TableError(f"round {self.round_id} was dealt but no deck is in use")
            game._source = self.shoe
        self.round = game


def resume_round(
    session: CaribbeanSession, logged: LoggedRound, seats: Mapping[str, int]
) -> StrEnum:
    """Make the interrupted round the session's open round (crash recovery)."""
    started = round_started(logged, seats)
    events = [item.event for item in logged.engine_events()]
    game = replayed(started, lambda: replay(session.rules, events, session.config.table_id))
    if game.phase in (Phase.SHOWDOWN, Phase.COMPLETE):
        raise RecoveryError(f"round {started.round} replays to its showdown but was not closed")
    try:
        session.resume(game)
    except TableError as exc:
        raise RecoveryError(str(exc)) from exc
    return game.phase
