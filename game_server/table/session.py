"""One table's game flow: sealed shoes, rounds, wallets, and the log. Save, then send.

:class:`TableSession` drives the pure engine (:mod:`game_server.rules.blackjack.round`) for a
table whose seats are held by terminals. Every input becomes one engine step; the step's events
are appended to the log in ONE transaction, wrapped in their envelope (table, round,
terminal), and only then folded into the wallets and meters and returned to the caller, who
may send them on. A round close writes a signed checkpoint.

The live server (with its countdowns) and ``etg sim --log`` drive this same class, so a
simulated log is exactly what the live table writes.

Entry points: :class:`TableSession`, :class:`SealedShoes`, :class:`MemorySink`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from game_server.config import MustHitBy, Shuffle, TableConfig
from game_server.eventlog import ROUND_CLOSE, EventLogError, NewEvent
from game_server.keys import seal
from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.blackjack.actions import Action
from game_server.rules.blackjack.events import BLACKJACK, DEALER, ProgressiveWon, RoundCompleted
from game_server.rules.blackjack.round import BlackjackRound, Phase
from game_server.rules.events import to_dict
from game_server.rules.meters import MeterBank
from game_server.rules.wagers import must_hit_by, super_4
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.table.events import (
    CreditsIn,
    CreditsOut,
    RoundClosed,
    RoundStarted,
    ShoeCommitted,
    ShoeRevealed,
    TableOpened,
)
from game_server.table.ledger import Ledger
from shared.codec import canonical_json
from shared.errors import ETGError
from shared.money import format_money

SOFTWARE = "etg 0.1.0"


class TableError(ETGError):
    """Base of the table's refusals that are not rules of the game."""


class InsufficientCredits(TableError):
    """A wager or cash out larger than the terminal's credits."""


class UnknownTerminal(TableError):
    """A terminal that holds no seat at this table."""


class NoRoundOpen(TableError):
    """An action while no round is open."""


class LogWriteFailed(TableError):
    """The event log refused a step (a full disk, a failed device, an anchor stream that
    cannot be written): the table takes no more input and no credit moves until the log can
    be written again and the table is rebuilt from it (the engine may be ahead of what was
    saved): the operator's reopen (:func:`game_server.table.recovery.reload_tables`) or a
    restart."""


def _out_of_service(error: BaseException) -> str:
    return (
        f"the table is out of service: the event log did not store a step ({error}). No "
        "credit moves until it can be written again; then the operator reopens the table, "
        "which is rebuilt from its log."
    )


class EventSink(Protocol):
    """Where a session's steps go: the event log, or memory in a plain simulation."""

    def append(
        self, step: Sequence[NewEvent], *, checkpoint: str | None = None
    ) -> Sequence[object]: ...


class MemorySink:
    """A sink that keeps every step in memory (simulation without a log, tests)."""

    def __init__(self) -> None:
        self.steps: list[list[NewEvent]] = []
        self.checkpoints: list[tuple[int, str]] = []

    def append(
        self, step: Sequence[NewEvent], *, checkpoint: str | None = None
    ) -> Sequence[object]:
        self.steps.append(list(step))
        if checkpoint is not None:
            self.checkpoints.append((len(self.steps), checkpoint))
        return step


SeedSource = Callable[[int], tuple[ShoeSeed, bytes]]
"""Given a shoe number, the seed material and the commitment salt for that shoe."""


def production_seeds(entropy: Any, table_id: str) -> SeedSource:
    """Seeds from the certified entropy source and a salt from the OS (production)."""

    def make(shoe_number: int) -> tuple[ShoeSeed, bytes]:
        return ShoeSeed.fresh(entropy, table_id, shoe_number), os.urandom(32)

    return make


def simulation_seeds(seed: int, table_id: str) -> SeedSource:
    """Deterministic seeds and salts from an integer: simulation and tests only."""

    def make(shoe_number: int) -> tuple[ShoeSeed, bytes]:
        shoe_seed = ShoeSeed.from_test_seed(seed, table_id, shoe_number)
        salt = hashlib.sha256(b"etg-test-salt/" + shoe_seed.entropy_input).digest()
        return shoe_seed, salt

    return make


class SealedShoes:
    """Makes committed, sealed shoes for one table (DESIGN.md "RNG and shoe").

    Each shoe gets fresh seed material; before its first card, :class:`ShoeCommitted` carries
    SHA-256(order || salt) and the seed and salt sealed with AES-256-GCM under the table's
    shoe-sealing key; :meth:`reveal` gives the :class:`ShoeRevealed` that retires it.
    """

    def __init__(
        self,
        config: TableConfig,
        seeds: SeedSource,
        sealing_key: bytes,
        key_id: str,
    ) -> None:
        self.config = config
        self.seeds = seeds
        self.sealing_key = sealing_key
        self.key_id = key_id

    def new_shoe(self, number: int) -> tuple[Shoe, ShoeCommitted, bytes]:
        seed, salt = self.seeds(number)
        config = self.config
        cut_card = config.cut_card if config.shuffle is Shuffle.CUT_CARD else None
        shoe = Shoe(config.rules.decks, seed, cut_card=cut_card)
        secret = canonical_json({"seed": seed.to_dict(), "salt": salt.hex()})
        sealed = seal(self.sealing_key, secret, seal_context(config.table_id, number))
        committed = ShoeCommitted(
            number, config.rules.decks, cut_card, shoe.commitment(salt), sealed.hex(), self.key_id
        )
        return shoe, committed, salt

    @staticmethod
    def reveal(number: int, shoe: Shoe, salt: bytes) -> ShoeRevealed:
        seed = shoe.seed.to_dict()
        return ShoeRevealed(
            number, seed["entropy_input"], seed["nonce"], seed["personalization"], salt.hex()
        )


def seal_context(table_id: str, shoe_number: int) -> bytes:
    """The associated data a shoe's seal is bound to: a blob cannot move to another shoe."""
    return f"etg-shoe-seal/{table_id}/{shoe_number}".encode()


#: The "wager" a Must-Hit-By meter is filed under in :func:`meter_specs`.
MUST_HIT_BY = "must_hit_by"
#: The seed source's stream number for the mystery trigger draws (shoes are numbered from 1).
MYSTERY_STREAM = 0


def meter_specs(config: TableConfig) -> dict[str, tuple[str, MeterSpec]]:
    """Each progressive meter a table's config names: meter id -> (wager, its spec).

    The id is the wager's configured ``meter`` (a meter shared by linked tables, 605a.8)
    with the meter's name when its paytable has several, else ``TABLE:wager:meter name``."""
    found: dict[str, tuple[str, MeterSpec]] = {}
    for offer in config.rules.side_wagers:
        link = offer.option_map.get("meter")
        meters = offer.paytable.meters
        for spec in meters:
            if isinstance(link, str):
                meter_id = link if len(meters) == 1 else f"{link}:{spec.name}"
            else:
                meter_id = f"{config.table_id}:{offer.wager.name}:{spec.name}"
            found[meter_id] = (offer.wager.name, spec)
        extra = super_4.mystery_meter(offer.option_map) if offer.wager.name == "super_4" else None
        if extra is not None:
            base = link if isinstance(link, str) else f"{config.table_id}:{offer.wager.name}"
            found[f"{base}:mystery"] = (offer.wager.name, extra)
    mystery = config.must_hit_by
    if mystery is not None:
        meter_id = mystery.meter or f"{config.table_id}:{MUST_HIT_BY}"
        found[meter_id] = (MUST_HIT_BY, mystery.spec())
    return found


class TableBook:
    """The bookkeeping every table shares, whatever its game: one logged step at a time
    (save, then fold into wallets and meters), credits in and out, the credit check before a
    wager, and the shoe's retirement. :class:`TableSession` (the fully automated table) and
    :class:`~game_server.table.hybrid_session.HybridSession` (633b.5) build on it.

    A subclass provides ``config``, ``sink``, ``ledger``, ``round``, ``round_id``, ``shoe``,
    ``shoe_number``, ``_salt`` and ``failed``, and the methods ``_seat(terminal)`` (refuse a
    terminal that may not play) and ``_in_play(terminal)``.
    """

    config: TableConfig
    sink: EventSink
    ledger: Ledger
    #: The round in play (each table its own kind), None between rounds.
    round: Any
    round_id: int
    shoe: Shoe | None
    shoe_number: int
    shoes: SealedShoes
    _config_hash: str
    _salt: bytes
    failed: BaseException | None

    @property
    def _round_open(self) -> bool:
        """Whether a round is open (its events carry the round id; no cash out, no shoe
        change meanwhile). Each table keeps its own kind of round in ``round``."""
        return getattr(self, "round", None) is not None

    def _seat(self, terminal: str) -> Any:
        raise NotImplementedError

    def _in_play(self, terminal: str) -> bool:
        raise NotImplementedError

    def _log(
        self, items: Sequence[tuple[str | None, Any]], checkpoint: str | None = None
    ) -> list[Any]:
        """Append one step (save), then fold it into wallets and meters; return the events.

        Every input is checked (rules, credits) before its step is built, so the fold of a
        written step cannot fail.
        """
        self._check_not_failed()
        table_id = self.config.table_id
        round_id = self.round_id if self._round_open else None
        step = [NewEvent(table_id, round_id, terminal, to_dict(ev)) for terminal, ev in items]
        try:
            self.sink.append(step, checkpoint=checkpoint)
        except EventLogError as exc:
            # The engine may already be ahead of the log: take no more input (every later
            # call raises LogWriteFailed) until the table is rebuilt from what was saved.
            self.failed = exc
            raise LogWriteFailed(_out_of_service(exc)) from exc
        except BaseException as exc:
            self.failed = exc
            raise
        for terminal, ev in items:
            self.ledger.apply(terminal, ev)
        return [ev for _, ev in items]

    def _log_closing(
        self, items: Sequence[tuple[str | None, Any]], terminals: Sequence[str]
    ) -> list[Any]:
        """Log the step that completes the round together with its ``round_closed``: each of
        ``terminals``' credits once the step is folded (with this table's kind of ledger).
        The round is then over."""
        after = type(self.ledger)(wallets=dict(self.ledger.wallets))
        after.apply_all(items)
        closed = RoundClosed(
            self.round_id, tuple(terminals), tuple(after.wallets.get(t, 0) for t in terminals)
        )
        logged = self._log([*items, (None, closed)], ROUND_CLOSE)
        self.round = None
        return logged

    def record(self, terminal: str | None, ev: Any) -> None:
        """Log one record of the platform that moves nothing (an operator's action, a
        terminal's access: :mod:`game_server.table.events`) as a step of its own, in the round
        in play if there is one, as credits in and out are (a record outside the round would
        end the round for every reader of the log).

        Raises:
            LogWriteFailed: the log cannot be written (the table goes out of service).
        """
        self._log([(terminal, ev)])

    def cash_in(self, terminal: str, amount: int, reference: str) -> list[Any]:
        """Add credits to a terminal's wallet (an operator's cash in)."""
        self._seat(terminal)
        if type(amount) is not int or amount <= 0:
            raise TableError(f"cash in amount {amount!r} is not a positive number of cents")
        balance = self.ledger.wallets.get(terminal, 0) + amount
        return self._log([(terminal, CreditsIn(terminal, amount, balance, reference))])

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> list[Any]:
        """Pay credits out of a terminal's wallet (all of them when ``amount`` is None)."""
        self._seat(terminal)
        if self._round_open and self._in_play(terminal):
            raise TableError(
                f"terminal {terminal} has wagers in play; cash out after the round settles"
            )
        held = self.ledger.wallets.get(terminal, 0)
        amount = held if amount is None else amount
        if type(amount) is not int or amount <= 0:
            raise TableError(f"cash out amount {amount!r} is not a positive number of cents")
        if amount > held:
            raise InsufficientCredits(
                f"terminal {terminal} holds {format_money(held)}, less than the "
                f"{format_money(amount)} asked for"
            )
        return self._log([(terminal, CreditsOut(terminal, amount, held - amount, reference))])

    def balance(self, terminal: str) -> int:
        return self.ledger.wallets.get(terminal, 0)

    def _new_round(self) -> Any:
        """A fresh round of this table's game, open for wagers."""
        raise NotImplementedError

    def _places(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """The seats and the terminals a new round starts with (``round_started``)."""
        raise NotImplementedError

    def start_round(self) -> list[Any]:
        """Open a round for wagers; retire the shoe and commit a new one when it is due (the
        commitment is logged before the shoe's first card); log who sits where with their
        credits (``round_started``)."""
        self._check_not_failed()
        if self.round is not None:
            raise TableError(f"round {self.round_id} is still open")
        events: list[Any] = []
        if self.shoe is None or self.shoe.needs_shuffle:
            events += self.retire_shoe()
            self.shoe_number += 1
            self.shoe, committed, self._salt = self.shoes.new_shoe(self.shoe_number)
            events += self._log([(None, committed)])
        self.round_id += 1
        self.round = self._new_round()
        seats, terminals = self._places()
        started = RoundStarted(
            self.round_id,
            self.shoe_number,
            self._config_hash,
            seats,
            terminals,
            tuple(self.balance(t) for t in terminals),
        )
        return events + self._log([(None, started)])

    def retire_shoe(self) -> list[Any]:
        """Reveal the current shoe's seed and salt (nothing when no shoe is in use)."""
        if self.shoe is None:
            return []
        if self._round_open:
            raise TableError("a shoe is retired only between rounds")
        revealed = SealedShoes.reveal(self.shoe_number, self.shoe, self._salt)
        self.shoe = None
        return self._log([(None, revealed)])

    def _check_not_failed(self) -> None:
        failed = self.failed or getattr(self.sink, "failed", None)
        if failed is not None:
            raise LogWriteFailed(_out_of_service(failed))

    def _afford(self, terminal: str, amount: int, what: str) -> None:
        held = self.ledger.wallets.get(terminal, 0)
        if amount > held:
            raise InsufficientCredits(
                f"{what} of {format_money(amount)} is more than the {format_money(held)} "
                f"credits of terminal {terminal}"
            )


class TableSession(TableBook):
    """The game flow of one table over the engine, writing every step to ``sink``.

    Args:
        config: the table's Rules Submission.
        sink: the event log (or a :class:`MemorySink`).
        shoes: the table's shoe maker.
        seats: terminal id -> seat number for the terminals that hold seats.
    """

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
        for terminal, seat in seats.items():
            if not 1 <= seat <= config.rules.seats:
                raise UnknownTerminal(
                    f"terminal {terminal} is given seat {seat}, outside 1..{config.rules.seats}"
                )
        if len(set(seats.values())) != len(seats):
            raise UnknownTerminal("two terminals are given the same seat")
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
        self._meter_of = {
            (wager, spec.name): meter_id for meter_id, (wager, spec) in self.meter_specs.items()
        }

    # ---------------------------------------------------------------- logging

    def _log_engine(
        self, events: Sequence[Any], before: Sequence[tuple[str | None, Any]] = ()
    ) -> list[Any]:
        terminal_of = self.terminal_of
        items = list(before)
        for ev in events:
            seat = getattr(ev, "seat", DEALER)
            items.append((terminal_of.get(seat) if seat != DEALER else None, ev))
        items += self._award_progressives(events)
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
        for meter_id, (_, spec) in self.meter_specs.items():
            if spec.must_hit_by is None:
                step = self.meters.link(meter_id, spec)
            elif meter_id in self.meters:
                step = self.meters.link(meter_id, spec)  # linked: drawn by the first table
            else:
                step = self.meters.commit(must_hit_by.open_meter(meter_id, spec, self._draw))
            items += [(None, ev) for ev in step.events]
        return self._log(items)

    def _draw(self, n: int) -> int:
        """A whole number below ``n`` from the table's certified DRBG stream for the mystery
        trigger (633b.14(c)(3)): seeded like the shoes, by the table's seed source."""
        stream = self._mystery_stream
        if stream is None:
            seed, _ = self.shoes.seeds(MYSTERY_STREAM)
            drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization + b"/mystery")
            stream = self._mystery_stream = RandomStream(drbg)
        return stream.randbelow(n)

    # --------------------------------------------------------------- meters

    def _contributions(self, game: BlackjackRound) -> list[tuple[str | None, Any]]:
        """Every progressive wager of the round feeds its meters when the wagers are locked
        (633b.6(f), 633b.9(g), 633b.10(f)), seat by seat."""
        items: list[tuple[str | None, Any]] = []
        offers = self.config.rules.offers
        mystery = self.config.must_hit_by
        for seat, state in sorted(game.seats.items()):
            terminal = self.terminal_of.get(seat)
            for wager, stake in state.wagers.items():
                offer = offers.get(wager)
                if offer is None or terminal is None:
                    continue
                for spec in offer.paytable.meters:
                    meter_id = self._meter_of[(wager, spec.name)]
                    step = self.meters.contribute(meter_id, stake, terminal)
                    items += [(terminal, ev) for ev in step.events]
                own = self._meter_of.get((wager, super_4.MYSTERY_METER))
                if own is not None:  # 633b.6(j): every Super 4 wager feeds its mystery meter
                    items += self._feed_mystery(own, stake, terminal)
                if mystery is not None and wager in mystery.qualifying:
                    items += self._mystery(mystery, wager, stake, state.wagers, terminal)
        return items

    def _feed_mystery(
        self, meter_id: str, stake: int, terminal: str
    ) -> list[tuple[str | None, Any]]:
        """Feed a mystery meter; the contribution that takes it past its trigger wins it."""
        step = self.meters.commit(
            must_hit_by.contribute(self.meters.meter(meter_id), stake, terminal, self._draw)
        )
        return [(terminal, ev) for ev in step.events]

    def _mystery(
        self,
        mystery: MustHitBy,
        wager: str,
        stake: int,
        wagers: Mapping[str, int],
        terminal: str,
    ) -> list[tuple[str | None, Any]]:
        """A qualifying wager feeds the Must-Hit-By meter; the contribution that takes it past
        its trigger wins 100% of it (633b.14(c)(1)-(3), (7))."""
        conf = must_hit_by.configuration(mystery.configuration, mystery.minimum_wager)
        if not must_hit_by.qualifies(conf, wager, stake, wagers.get(BLACKJACK, 0)):
            return []
        return self._feed_mystery(
            self._meter_of[(MUST_HIT_BY, must_hit_by.METER_NAME)], stake, terminal
        )

    def _award_progressives(self, events: Sequence[Any]) -> list[tuple[str | None, Any]]:
        """Pay the round's progressive wins from their meters in seat order, each from the
        meter as it stands (brought back to its reseed after every award).

        A share the wager's section shares (the whole meter, 633b.9(e)(3); every jackpot
        amount, 633b.10(j): :attr:`~game_server.rules.wagers.base.SideWager.shared_percents`)
        is one award split equally among that round's winners of it, paid at its first
        winner's turn; any other share (a Blazing 7's 10% payout) is paid in full to each
        winner."""
        groups: dict[tuple[str, int, int], list[str]] = {}
        wins = sorted((ev for ev in events if type(ev) is ProgressiveWon), key=lambda e: e.seat)
        for ev in wins:
            offer = self.config.rules.offers[ev.wager]
            name = ev.meter or offer.paytable.meters[0].name
            meter_id = self._meter_of[(ev.wager, name)]
            shared = offer.wager.shared_percents
            alone = shared is not None and ev.percent not in shared
            key = (meter_id, ev.percent, ev.seat if alone else 0)
            groups.setdefault(key, []).append(self.terminal_of[ev.seat])
        items: list[tuple[str | None, Any]] = []
        for (meter_id, percent, _), places in groups.items():
            step = self.meters.award_shared(meter_id, percent, places)
            who = places[0] if len(places) == 1 else None
            items += [(who, ev) for ev in step.events]
        return items

    def _new_round(self) -> BlackjackRound:
        return BlackjackRound(self.config.rules)

    def _places(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        seats = tuple(sorted(self.terminal_of))
        return seats, tuple(self.terminal_of[s] for s in seats)

    # ------------------------------------------------------------------ round

    def _seat(self, terminal: str) -> int:
        self._check_not_failed()
        seat = self.seats.get(terminal)
        if seat is None:
            raise UnknownTerminal(f"terminal {terminal!r} holds no seat at this table")
        return seat

    def _open_round(self) -> BlackjackRound:
        self._check_not_failed()
        if self.round is None:
            raise NoRoundOpen("no round is open: wait for the next betting window")
        return self.round

    def _in_play(self, terminal: str) -> bool:
        game = self.round
        seat = self.seats.get(terminal)
        return game is not None and seat in game.seats

    def place_wagers(self, terminal: str, wagers: Mapping[str, int]) -> list[Any]:
        """Place a terminal's wagers for the open round (debited from its credits)."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_place_wagers(seat, wagers)
        self._afford(terminal, sum(wagers.values()), "the wagers")
        return self._log_engine(game.place_wagers(seat, wagers))

    def deal(self) -> list[Any]:
        """Deal the round from the current shoe; the progressive wagers feed their meters
        in the same step."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        contributions = self._contributions(game)
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
