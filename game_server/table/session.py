"""What every table's game flow shares: sealed shoes, the log step, wallets. Save, then send.

Each game's session (built by its :class:`~game_server.games.api.Game`) is a
:class:`TableBook`: every input becomes one engine step whose events are appended to the log
in ONE transaction, wrapped in their envelope (table, round, terminal), and only then folded
into the wallets (its :class:`~game_server.table.ledger.Ledger`) and returned to the caller,
who may send them on; a round close writes a signed checkpoint. :class:`SealedShoes` makes
the committed, sealed shoes every table deals from.

The live server (with its countdowns) and ``etg sim --log`` drive the same sessions, so a
simulated log is exactly what the live table writes.

Entry points: :class:`TableBook`, :class:`SealedShoes`, :class:`MemorySink`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from game_server.config import Shuffle, TableConfig
from game_server.eventlog import MONEY_MOVED, ROUND_CLOSE, EventLogError, NewEvent
from game_server.keys import seal
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.errors import BetOutOfLimits
from game_server.rules.events import to_dict
from game_server.table import requests
from game_server.table.events import (
    CreditsIn,
    CreditsOut,
    RoundClosed,
    RoundStarted,
    ShoeCommitted,
    ShoeRevealed,
)
from game_server.table.ledger import Ledger
from game_server.table.secrecy import OPEN_CARDS, RoundSight, Secrecy
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


def out_of_service_reason(error: BaseException) -> str:
    """The sentence a refusal gives while the event log cannot store a step."""
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
    """Makes committed, sealed shoes for one table (docs/design.md "RNG and shoe").

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


class TableBook:
    """The bookkeeping every table shares, whatever its game: one logged step at a time
    (save, then fold into wallets and meters), credits in and out, the credit check before a
    wager, and the shoe's retirement. Each game's session builds on it
    (:meth:`Game.open_session <game_server.games.api.Game.open_session>`).

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
    #: The last shoe this table retired: its commitment and its reveal (what every terminal
    #: is shown after the shoe's last card); None before the first retirement.
    last_retired: tuple[str, ShoeRevealed] | None = None
    #: The shoe in use and its commitment, once computed (``(shoe, commitment)``).
    _committed: tuple[Shoe, str] | None = None
    #: Which of the game's records deal hidden cards (:mod:`game_server.table.secrecy`); a
    #: game's session declares its own.
    secrecy: Secrecy = OPEN_CARDS
    #: What each viewer may see of the round in play (None before the first round), and of
    #: the last closed one (whose results a view may still show).
    sight: RoundSight | None = None
    last_sight: RoundSight | None = None

    @property
    def _round_open(self) -> bool:
        """Whether a round is open (its events carry the round id; no cash out, no shoe
        change meanwhile). Each table keeps its own kind of round in ``round``."""
        return getattr(self, "round", None) is not None

    def open(self) -> list[Any]:
        """Log the Rules Submission in force (``table_opened``, at start-up and after every
        change) and open or link the progressive meters it names."""
        raise NotImplementedError

    def _seat(self, terminal: str) -> Any:
        raise NotImplementedError

    def _in_play(self, terminal: str) -> bool:
        raise NotImplementedError

    def _log(
        self, items: Sequence[tuple[str | None, Any]], checkpoint: str | None = None
    ) -> list[Any]:
        """Append one step (save), then fold it into wallets and meters; return the events.

        Every input is checked (rules, credits) before its step is built, so the fold of a
        written step cannot fail. The first step a client's command logs also carries the
        command's request id (:func:`game_server.table.requests.applied`), which is not
        among the events returned.
        """
        self._check_not_failed()
        table_id = self.config.table_id
        round_id = self.round_id if self._round_open else None
        sight = self._sight_for(items)
        logged = requests.applied(items)
        for terminal, ev in logged:
            sight.observe(terminal, ev)
        # The one place the log's form of a record is made: a card nobody else may see yet is
        # written sealed (game_server.table.secrecy).
        step = [
            NewEvent(table_id, round_id, terminal, to_dict(sight.log_form(ev)))
            for terminal, ev in logged
        ]
        try:
            self.sink.append(step, checkpoint=checkpoint)
        except EventLogError as exc:
            # The engine may already be ahead of the log: take no more input (every later
            # call raises LogWriteFailed) until the table is rebuilt from what was saved.
            self.failed = exc
            requests.withdraw(logged is not items)
            raise LogWriteFailed(out_of_service_reason(exc)) from exc
        except BaseException as exc:
            self.failed = exc
            requests.withdraw(logged is not items)
            raise
        for terminal, ev in items:
            self.ledger.apply(terminal, ev)
        return [ev for _, ev in items]

    def _sight_for(self, items: Sequence[tuple[str | None, Any]]) -> RoundSight:
        """The sight the step's records go to: a new one when the step starts a round."""
        if self.sight is None or any(type(ev) is RoundStarted for _, ev in items):
            self.last_sight, self.sight = self.sight, RoundSight(self.secrecy)
        return self.sight

    def _log_closing(
        self, items: Sequence[tuple[str | None, Any]], terminals: Sequence[str]
    ) -> list[Any]:
        """Log the step that completes the round together with its ``round_closed``: each of
        ``terminals``' credits once the step is folded (with this table's kind of ledger),
        after the record that unseals every card the round logged sealed
        (``cards_unsealed``). The round is then over."""
        after = type(self.ledger)(wallets=dict(self.ledger.wallets))
        after.apply_all(items)
        closed = RoundClosed(
            self.round_id, tuple(terminals), tuple(after.wallets.get(t, 0) for t in terminals)
        )
        unsealed = None if self.sight is None else self.sight.unsealing()
        opened = [] if unsealed is None else [(None, unsealed)]
        logged = self._log([*items, *opened, (None, closed)], ROUND_CLOSE)
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
        """Add credits to a terminal's wallet (an operator's cash in), with a signed
        checkpoint in the same transaction: the server answers once it is anchored."""
        self._seat(terminal)
        if type(amount) is not int or amount <= 0:
            raise TableError(f"cash in amount {amount!r} is not a positive number of cents")
        balance = self.ledger.wallets.get(terminal, 0) + amount
        return self._log([(terminal, CreditsIn(terminal, amount, balance, reference))], MONEY_MOVED)

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> list[Any]:
        """Pay credits out of a terminal's wallet (all of them when ``amount`` is None), with
        a signed checkpoint in the same transaction, as :meth:`cash_in`."""
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
        return self._log(
            [(terminal, CreditsOut(terminal, amount, held - amount, reference))], MONEY_MOVED
        )

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
        commitment = self._commitment(self.shoe)
        self.shoe = None
        logged = self._log([(None, revealed)])
        self.last_retired = (commitment, revealed)
        return logged

    def _commitment(self, shoe: Shoe) -> str:
        """The commitment of ``shoe`` (the shoe in use), computed once."""
        committed = self._committed
        if committed is None or committed[0] is not shoe:
            committed = (shoe, shoe.commitment(self._salt))
            self._committed = committed
        return committed[1]

    def public_shoe(self) -> dict[str, Any] | None:
        """What every terminal of the table is shown of its shoes (``docs/shoe-spec.md``): the
        shoe in use (``number``, ``decks``, ``commitment``, cards ``dealt`` so far; None
        between a retirement and the next shoe) and the last retired one (``number``,
        ``commitment`` and its reveal: ``entropy_input``, ``nonce``, ``personalization``,
        ``salt``). Nothing secret of the shoe in use: its seed, salt and order stay here.
        None when the table has dealt no shoe yet."""
        shoe = self.shoe
        retired = self.last_retired
        if shoe is None and retired is None:
            return None
        current = None
        if shoe is not None:
            current = {
                "number": self.shoe_number,
                "decks": len(shoe.order) // 52,
                "commitment": self._commitment(shoe),
                "dealt": shoe.position,
            }
        last = None
        if retired is not None:
            commitment, revealed = retired
            last = {
                "number": revealed.shoe,
                "commitment": commitment,
                "entropy_input": revealed.entropy_input,
                "nonce": revealed.nonce,
                "personalization": revealed.personalization,
                "salt": revealed.salt,
            }
        return {"current": current, "retired": last}

    def _check_not_failed(self) -> None:
        failed = self.failed or getattr(self.sink, "failed", None)
        if failed is not None:
            raise LogWriteFailed(out_of_service_reason(failed))

    def check_units(self, wagers: Mapping[str, int]) -> None:
        """Every wager placed is a whole multiple of the table's wager unit (docs/design.md
        "Money": so that 3 to 2 is exact), for every game: refused before the game sees it,
        with the one sentence every table gives.

        Raises:
            BetOutOfLimits: a wager that is not a multiple of the unit.
        """
        unit = self.config.rules.wager_unit
        for wager, amount in wagers.items():
            if type(amount) is int and amount % unit:
                raise BetOutOfLimits(
                    f"{wager} wager {format_money(amount)} is not a multiple of the wager unit "
                    f"{format_money(unit)}"
                )

    def _afford(self, terminal: str, amount: int, what: str) -> None:
        held = self.ledger.wallets.get(terminal, 0)
        if amount > held:
            raise InsufficientCredits(
                f"{what} of {format_money(amount)} is more than the {format_money(held)} "
                f"credits of terminal {terminal}"
            )
