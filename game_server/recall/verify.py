"""``etg verify``: prove a whole event log untouched and every round in it correctly played.

Entry point: :func:`verify_log` (pure of CLI concerns; :mod:`tools.verify_cli` prints it).

An investigator doing game recall after a dispute (GLI-11 "game recall": every play step, the
credits at the start and end of each game; 58 Pa. Code 605a.5(d) meters) needs more than the
rows of one round: the rows must be the ones the table wrote, the cards must be the ones the
certified shoe held, and the settlements must be the ones the approved rules give. This
module checks, in one streaming pass over the log (DESIGN.md "Event log", "RNG and shoe"):

``file``
    SQLite's full ``integrity_check``: every page, and every index compared with its table
    (recall queries read the indexes: an index rebuilt with one round relabelled to another
    terminal would hide that round from the terminal's recall while every row still
    verifies). Its time is reported (``integrity_seconds``).
``meta``
    the ``meta`` and ``migrations`` tables are the ones the newest checkpoint signed (its
    meta digest, :func:`~game_server.eventlog.chain.meta_digest`); a log whose checkpoints
    are all older than schema version 4 does not sign them (a warning).
``anchors``
    with an anchor stream (``etg verify DB --anchors PATH``, the checkpoints kept outside the
    file as they were made, :mod:`game_server.eventlog.anchors`): every anchored checkpoint
    of the log is in it unchanged, signed by the key, and covered by the chain (a log cut
    back to before one of them, or cut back and written again, fails, naming the
    checkpoint). Without one, a warning: a log cut back to one of its own checkpoints
    cannot be told from a log that ended there.
``triggers``
    every trigger that makes the tables append-only is present exactly as created (a missing
    one is a failure: the database no longer refuses UPDATE and DELETE).
``chain`` / ``checkpoints``
    :func:`~game_server.eventlog.verify_chain`: every row's hash recomputed, every Ed25519
    checkpoint signature checked against the chain (a problem whose reason names a checkpoint
    is filed under ``checkpoints``). Events after the last checkpoint are chained but not
    signed: a warning, because they could be cut off without trace.
``shoes``
    every ``shoe_revealed`` regenerates its shoe (HMAC_DRBG + Fisher-Yates,
    :class:`~game_server.rng.shoe.Shoe`) and ``SHA-256(order || salt)`` must equal the
    commitment logged before the first card; with the shoe-sealing key, the sealed seed of
    every shoe is opened too (the only way to check a shoe not yet revealed).
``cards``
    every card dealt (each game's :attr:`~game_server.games.api.Game.shoe_card_kinds`) and
    every hole card revealed is the card at its position of that order; what a game draws from
    the round deck's seed (Ultimate Texas Hold 'Em's Magic Card and Lucky Bonus position) is
    what its seed gives, once the seed is known (revealed, or unsealed with the sealing key:
    :meth:`~game_server.games.api.Game.seeded_draw_problem`).
``replay``
    every round replays through its game's engine, under the rules it was played under
    (:meth:`~game_server.games.api.Game.replay`); the first differing event is named.
``rounds``
    round ids go up by one per table, each round opens with ``round_started`` naming the
    hash of the config in force and a committed, unrevealed shoe, card positions strictly
    increase within a shoe, and each event's envelope names the terminal of its seat. At a
    table in stadium play (the hybrid tables: no seats, ``round_started`` lists seat 0 per
    terminal) a player's event must name in its envelope a terminal of ``round_started``: the
    player's own (three-position table), or the one that joined as that player number,
    numbers given in join order (no-hole-card table); the dealer's and the community's cards
    name none. Each game names the check of each of its records
    (:meth:`~game_server.games.api.Game.verify_checks`, from
    :data:`~game_server.games.api.VERIFY_CHECKS`); a
    record only another game's engine (or this game's at another type of table) produces is
    a failure.
``ledger``
    every event folded through :class:`~game_server.table.ledger.Ledger` (the one definition
    of a balance); each balance the log states (``credits_in``/``credits_out``,
    ``round_started``, ``round_closed``) must equal the fold.
``conservation``
    at the end: credits in = credits out + the balances the log states + wagers in play +
    house result (DESIGN.md "Core contracts").
``events``
    every body decodes as an event this build knows.

Every failure names the sequence number of the event at fault (``None`` only for a fault of
the file as a whole) and why. The result is deterministic: the same log and keys give the same
report (but for ``elapsed``).

How one fault is reported once, where it happens: a balance the log states that disagrees
with the fold is a failure at that event, and later balances are compared with the fold
plus that difference (so a wrong ``round_closed`` does not make every later balance wrong;
the ``round_started`` after it, if it states the true balance again, is named too). A
revealed seed that does not regenerate its commitment is one failure at the reveal; the
cards of that shoe are then checked against the sealed seed if the sealing key is given,
else reported as not checked. A body that is not an event of this build is one failure, and
the event is left out of the walk; anything that stops the walk (a logged config this build
refuses, an event that does not decode) is one failure, and the semantic checks stop there
(the chain is still checked to the end).

How it runs in one pass: :func:`verify_chain` pulls the row batches; each batch it asks for
is first read by :func:`~game_server.recall.rounds.walk` (which groups rounds, with their
config and shoe) and checked, so SQLite reads every row once. Bodies are parsed once with a
JSON scanner built once. On the reference machine the whole verification runs at about
60,000 events/s (``python -m tools.bench_verify``); about half of that time is
:func:`verify_chain` (one Ed25519 signature per round close costs about 150 us).

What it cannot find: events after the last checkpoint can be removed without trace (the
warning says so); a log whose checkpoints were all re-signed with another key verifies
under that other key, so the public key must come from the operator's key records, not
from beside the log.

Unusable input (not an event log, a newer schema, a damaged file, a key file that is not a
key) raises an :class:`~shared.errors.ETGError` before any check: the CLI exits 2 for those.
A valid key that did not sign the log is not unusable input: every checkpoint then fails.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from json.scanner import make_scanner
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from game_server.config import TableConfig, config_from_dict
from game_server.eventlog import (
    CHAIN_FORMAT,
    TRIGGERS,
    AnchorSource,
    Checkpoint,
    EventLogReader,
    EventRow,
    LogDamaged,
    RoundSpan,
    StoredEvent,
    check_anchors,
    meta_digest,
    verify_chain,
)
from game_server.eventlog.store import EventSource
from game_server.games import dealing, game_for, games
from game_server.games.api import (
    CARD,
    COMPLETED,
    DEALER_STEP,
    HOLE,
    NUMBERED,
    NUMBERED_WAGER,
    PLAYER,
    PLAYER_WAGER,
    SEAT_CARD,
    SEATED,
    SEEDED,
    TABLE_CARD,
    WAGER,
    Game,
)
from game_server.keys import SealError, unseal
from game_server.recall.rounds import Logged, LoggedRound, walk
from game_server.rng.errors import BadDeckCount, BadSeedMaterial
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.events import EVENT_TYPES
from game_server.rules.meters import (
    MeterAwarded,
    MeterContributed,
    MeterOpened,
    MeterReseeded,
    MysteryAwarded,
    MysteryTriggerDrawn,
)
from game_server.rules.wagers.base import TableType
from game_server.table.events import (
    CreditsIn,
    CreditsOut,
    RoundClosed,
    RoundStarted,
    ShoeCommitted,
    ShoeRevealed,
    TableOpened,
)
from game_server.table.ledger import PLACED, Ledger, LedgerError, wager_roles
from game_server.table.session import seal_context
from shared.cards import Card
from shared.codec import canonical_json
from shared.errors import ETGError
from shared.money import format_money

#: The check of one kind of record: ``(stored event, its record)``.
Handler = Callable[[StoredEvent, Any], None]

#: The seat of the dealer in every game's records.
DEALER: Final = 0

#: The progressive meters' records: the platform's, logged at every table that has meters.
METER_KINDS: Final = frozenset(
    {
        MeterOpened,
        MeterContributed,
        MeterAwarded,
        MeterReseeded,
        MysteryTriggerDrawn,
        MysteryAwarded,
    }
)

#: The checks, in the order a report lists them, with a title for people.
CHECKS: Final[dict[str, str]] = {
    "file": "SQLite file and index integrity (integrity_check)",
    "meta": "meta and migrations tables signed",
    "anchors": "anchored checkpoints in the log",
    "triggers": "append-only triggers present",
    "chain": "hash chain of every event",
    "checkpoints": "signed checkpoints (Ed25519)",
    "shoes": "shoe commitments and reveals",
    "cards": "dealt cards are the shoe's cards",
    "replay": "rounds replay through the rules",
    "rounds": "round ids, config, shoe positions, terminals",
    "ledger": "logged balances equal the ledger fold",
    "conservation": "money is conserved",
    "events": "every event decodes",
}
_CHECK_ORDER: Final = {name: index for index, name in enumerate(CHECKS)}

#: At most this many failures (and as many warnings) are listed, the lowest seqs first; the
#: counts go on.
MAX_FAILURES: Final = 1_000
#: Rows read from SQLite at a time (and between two progress calls).
BATCH: Final = 10_000

#: Called with (highest seq read so far, highest seq of the log).
Progress = Callable[[int, int], None]


class UnverifiableLog(ETGError):
    """A log this build cannot verify at all (another chain format): unusable input."""


@dataclass(frozen=True)
class Finding:
    """One failure or warning.

    Attributes:
        seq: The sequence number of the event at fault; None for the file as a whole.
        check: The check that found it (a key of :data:`CHECKS`).
        reason: A sentence for a human.
    """

    seq: int | None
    check: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        """``{"seq": n | null, "check": ..., "reason": ...}``."""
        return {"seq": self.seq, "check": self.check, "reason": self.reason}


@dataclass(frozen=True)
class CheckSummary:
    """How one check went, for the summary table.

    Attributes:
        check: Its name (a key of :data:`CHECKS`).
        title: What it checks.
        status: ``"PASS"``, ``"FAIL"`` or ``"WARN"`` (passed, with warnings).
        failures: How many failures it found.
        warnings: How many warnings it gave.
        first: Its failure (or, without one, its warning) with the lowest seq.
    """

    check: str
    title: str
    status: str
    failures: int
    warnings: int
    first: Finding | None


@dataclass(frozen=True)
class VerifyCounts:
    """What was checked.

    Attributes:
        events: Events read (rows of the hash chain).
        last_seq: The highest sequence number read.
        tables: Tables seen.
        rounds: Rounds found in the log.
        rounds_replayed: Rounds replayed through the rules without a difference.
        shoes: Shoes committed.
        shoes_checked: Shoes whose order was regenerated and matched its commitment.
        cards_checked: Dealt or revealed cards compared with their shoe.
        checkpoints: Checkpoints stored.
        valid_checkpoints: Checkpoints whose signature verifies and that match the chain.
        last_proven_seq: The highest seq a valid checkpoint covers.
        unproven_events: Events after ``last_proven_seq``.
    """

    events: int = 0
    last_seq: int = 0
    tables: int = 0
    rounds: int = 0
    rounds_replayed: int = 0
    shoes: int = 0
    shoes_checked: int = 0
    cards_checked: int = 0
    checkpoints: int = 0
    valid_checkpoints: int = 0
    last_proven_seq: int = 0
    unproven_events: int = 0

    def to_json(self) -> dict[str, int]:
        """The counts as a dict of ints."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of :func:`verify_log`.

    Attributes:
        ok: True when every check passed (warnings allowed).
        first_failure: The failure with the lowest seq (a fault of the whole file first).
        failures: The failures, lowest seq first (at most :data:`MAX_FAILURES`).
        failure_count: How many failures were found in all.
        warnings: What could not be proven, lowest seq first (at most :data:`MAX_FAILURES`).
        counts: What was checked.
        checks: One summary per check, in :data:`CHECKS` order.
        elapsed: Seconds the verification took.
        key_id: The fingerprint of the public key the checkpoints were checked against.
        integrity_seconds: Seconds SQLite's full ``integrity_check`` took (part of
            ``elapsed``).
        anchors: Anchored checkpoints of this log that were checked (None: no anchor stream
            was given).
    """

    ok: bool
    first_failure: Finding | None
    failures: tuple[Finding, ...]
    failure_count: int
    warnings: tuple[Finding, ...]
    counts: VerifyCounts
    checks: tuple[CheckSummary, ...]
    elapsed: float
    key_id: str
    integrity_seconds: float = 0.0
    anchors: int | None = None

    @property
    def events_per_second(self) -> float:
        """Events verified per second of :attr:`elapsed`."""
        return self.counts.events / self.elapsed if self.elapsed > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The ``etg verify --json`` document (deterministic: no timing in it)."""
        return {
            "ok": self.ok,
            "first_failure": None if self.first_failure is None else self.first_failure.to_json(),
            "failures": [f.to_json() for f in self.failures],
            "failure_count": self.failure_count,
            "warnings": [w.to_json() for w in self.warnings],
            "counts": self.counts.to_json(),
            "key_id": self.key_id,
            "anchors": self.anchors,
        }


def _sort_key(finding: Finding) -> tuple[int, int]:
    """Lowest seq first (a fault of the whole file before any), then in :data:`CHECKS` order."""
    seq = -1 if finding.seq is None else finding.seq
    return (seq, _CHECK_ORDER.get(finding.check, len(_CHECK_ORDER)))


class _Findings:
    """Failures and warnings, each kept to the MAX_FAILURES lowest seqs, with counts."""

    def __init__(self) -> None:
        self.failures: list[Finding] = []
        self.warnings: list[Finding] = []
        self.failure_count: dict[str, int] = {}
        self.warning_count: dict[str, int] = {}

    def fail(self, seq: int | None, check: str, reason: str) -> None:
        self.failure_count[check] = self.failure_count.get(check, 0) + 1
        self._keep(self.failures, Finding(seq, check, reason))

    def warn(self, seq: int | None, check: str, reason: str) -> None:
        self.warning_count[check] = self.warning_count.get(check, 0) + 1
        self._keep(self.warnings, Finding(seq, check, reason))

    @staticmethod
    def _keep(items: list[Finding], finding: Finding) -> None:
        items.append(finding)
        if len(items) >= 2 * MAX_FAILURES:
            items.sort(key=_sort_key)
            del items[MAX_FAILURES:]

    @staticmethod
    def ordered(items: list[Finding]) -> tuple[Finding, ...]:
        # sorted() is stable: within one seq and check, the order found is kept.
        return tuple(sorted(items, key=_sort_key)[:MAX_FAILURES])


# ----------------------------------------------------------------------------- decoding


def _refuse_number(text: str) -> Any:
    raise ValueError(f"canonical JSON holds integers only; got the number {text}")


class _IntegerDecoder(json.JSONDecoder):
    def __init__(self) -> None:
        super().__init__(parse_float=_refuse_number, parse_constant=_refuse_number)


#: One JSON scanner built once (``shared.codec.loads`` builds a decoder per call, which
#: doubles the cost of reading a body); refuses floats like ``loads`` does.
_scan: Callable[[str, int], tuple[Any, int]] = make_scanner(_IntegerDecoder())  # type: ignore[arg-type]


def _versions() -> dict[str, int]:
    """kind -> schema version, for every registered event (an unknown kind or version is
    left out of the walk; other decoding faults stop it, see :meth:`_Pump._advance`)."""
    return {kind: cls.version for kind, cls in EVENT_TYPES.items()}


# ----------------------------------------------------------------------------- shoes


@dataclass
class _Shoe:
    """What the log says about one shoe, and what is known of its order."""

    table_id: str
    number: int
    decks: int
    commitment: str
    sealed: str
    committed_seq: int
    revealed_seq: int | None = None
    order: tuple[Card, ...] | None = None
    #: The reveal did not regenerate the commitment: its order is not trusted.
    bad_reveal: bool = False
    last_position: int = -1
    rounds: int = 0
    #: Cards waiting for the order: (seq, kind, position, card).
    pending: list[tuple[int, str, int, Card]] = field(default_factory=list)
    #: The seed, once revealed or unsealed (what a game draws from it is checked by it).
    seed: ShoeSeed | None = None
    #: Draws from the seed waiting for it: (seq, game, config in force, record).
    draws: list[tuple[int, Game, TableConfig, Any]] = field(default_factory=list)


@dataclass
class _Table:
    """One table's state in the walk."""

    shoes: dict[int, _Shoe] = field(default_factory=dict)
    dealing: _Shoe | None = None
    last_round: int | None = None
    last_shoe: int | None = None
    terminal_of: dict[int, str] = field(default_factory=dict)
    terminals: tuple[str, ...] = ()
    #: Between round_started and round_closed.
    round_open: bool = False
    #: The type of the table in force (from the last table_opened).
    table_type: TableType = TableType.FULLY_AUTOMATED
    #: The checks of each kind of event at this table's game and type.
    handlers: dict[type, Handler] = field(default_factory=dict)
    #: No-hole-card table, this round: player number -> terminal, and back (633b.5(w)-(ee)).
    players: dict[int, str] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)
    #: The game in force (from the last table_opened).
    game: Game | None = None
    #: Its config, for a game that checks draws from the seed (None otherwise).
    config: TableConfig | None = None


class _CommitmentMismatch(ValueError):
    """A regenerated shoe whose commitment is not the logged one."""

    def __init__(self, regenerated: str, committed: str) -> None:
        super().__init__(
            f"the seed regenerates a shoe whose commitment is {regenerated}, not the committed "
            f"{committed}"
        )


def _regenerate(decks: int, seed: ShoeSeed, salt: bytes, commitment: str) -> tuple[Card, ...]:
    """The order of ``Shoe(decks, seed)``, checked: ``SHA-256(order || salt)`` must be
    ``commitment`` (what :func:`game_server.rng.shoe.verify_reveal` does, keeping the order).

    Raises:
        _CommitmentMismatch: the regenerated shoe has another commitment.
        BadDeckCount: not a deck count a shoe can hold.
    """
    shoe = Shoe(decks, seed)
    regenerated = shoe.commitment(salt)
    if not hmac.compare_digest(regenerated, commitment.lower()):
        raise _CommitmentMismatch(regenerated, commitment)
    return shoe.order


# ----------------------------------------------------------------------------- the walk

_INDEX = re.compile(r"\bevent (\d+)\b")


class _Semantics:
    """Everything but the chain: shoes, cards, replay, round structure, ledger."""

    def __init__(self, findings: _Findings, sealing_key: bytes | None) -> None:
        self.f = findings
        self.sealing_key = sealing_key
        # The one fold of the log, every game's records (what a meter paid is
        # ``progressive_paid``).
        self.ledger = Ledger()
        self.ledger_roles = wager_roles()
        #: Per terminal: the balance the log last stated minus the fold at that point.
        self.offset: dict[str, int] = {}
        self.tables: dict[str, _Table] = {}
        self.config_hashes: dict[tuple[str, int], str] = {}
        self.rounds = 0
        self.rounds_replayed = 0
        self.shoes_checked = 0
        self.cards_checked = 0
        self.stopped_at: int | None = None
        self._table_id = ""
        self._table = _Table()
        #: The platform's records, checked the same at every table.
        self._table_checks: dict[type, Handler] = {
            RoundStarted: self._round_started,
            RoundClosed: self._round_closed,
            CreditsIn: self._credits,
            CreditsOut: self._credits,
            TableOpened: self._table_opened,
            ShoeCommitted: self._shoe_committed,
            ShoeRevealed: self._shoe_revealed,
        }
        #: The checks a game names for its records (:meth:`Game.verify_checks`).
        self._checks: dict[str, Handler] = {
            CARD: self._card_dealt,
            HOLE: self._hole_revealed,
            WAGER: self._wager,
            SEATED: self._seated,
            DEALER_STEP: self._dealer,
            COMPLETED: self._completed,
            TABLE_CARD: self._table_card,
            SEAT_CARD: self._seat_card,
            PLAYER: self._player,
            PLAYER_WAGER: self._player_wager,
            NUMBERED: self._numbered,
            NUMBERED_WAGER: self._numbered_wager,
            SEEDED: self._seeded,
        }
        self._handlers_of: dict[tuple[str, TableType], dict[type, Handler]] = {}
        first = games()[0]
        self._handlers = self._handlers_for(first, TableType.FULLY_AUTOMATED)

    def _handlers_for(self, game: Game, table_type: TableType) -> dict[type, Handler]:
        """The check of each kind of record at a table of ``game`` and ``table_type``: the
        platform's, the game's, and a failure for a record only another game's engine (or
        this game's at another type of table) produces."""
        key = (game.name, table_type)
        found = self._handlers_of.get(key)
        if found is None:
            own = game.verify_checks(table_type)
            unknown = set(own.values()) - set(self._checks)
            if unknown:
                raise UnverifiableLog(
                    f"the game {game.name!r} names checks this build does not have: "
                    f"{sorted(unknown)}"
                )
            shared = set(self._table_checks) | METER_KINDS
            every: set[type] = set()
            for other in games():
                for kind in other.table_types:
                    every |= set(other.engine_kinds(kind)) | set(other.verify_checks(kind))
            foreign = every - shared - set(game.engine_kinds(table_type)) - set(own)
            found = dict.fromkeys(foreign, self._foreign)
            found.update(self._table_checks)
            found.update({kind: self._checks[check] for kind, check in own.items()})
            self._handlers_of[key] = found
        return found

    # ------------------------------------------------------------ per event

    def on_event(self, item: Logged) -> None:
        stored = item.stored
        if stored.table_id != self._table_id:
            self._table_id = stored.table_id
            table = self.tables.get(stored.table_id)
            if table is None:
                table = self.tables[stored.table_id] = _Table(handlers=self._handlers)
            self._table = table
        handler = self._table.handlers.get(type(item.event))
        if handler is not None:
            handler(stored, item.event)

    def _envelope(self, stored: StoredEvent, seat: int) -> None:
        expected = None if seat == DEALER else self._table.terminal_of.get(seat)
        if stored.terminal != expected:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is for seat {seat} "
                f"({'the dealer' if seat == DEALER else f'terminal {expected}'}) but its "
                f"envelope names terminal {stored.terminal}",
            )

    def _seated(self, stored: StoredEvent, ev: Any) -> None:
        self._envelope(stored, ev.seat)

    def _dealer(self, stored: StoredEvent, ev: Any) -> None:
        if stored.terminal is not None:
            self._envelope(stored, DEALER)

    def _wager(self, stored: StoredEvent, ev: Any) -> None:
        if stored.terminal != self._table.terminal_of.get(ev.seat):
            self._envelope(stored, ev.seat)
        self._fold_wager(stored, ev)

    def _fold_wager(self, stored: StoredEvent, ev: Any) -> None:
        try:
            self.ledger.apply(stored.terminal, ev)
        except LedgerError as exc:
            self.f.fail(stored.seq, "ledger", f"{stored.kind} at seq {stored.seq}: {exc}")
            if stored.terminal is not None and self.ledger_roles.get(type(ev)) == PLACED:
                # Fold it anyway (credit the shortfall) so one fault is reported once.
                short = ev.amount - self.ledger.wallets.get(stored.terminal, 0)
                self.ledger.wallets[stored.terminal] = ev.amount
                self.offset[stored.terminal] = self.offset.get(stored.terminal, 0) - short
                self.ledger.apply(stored.terminal, ev)

    def _completed(self, stored: StoredEvent, ev: Any) -> None:
        self._dealer(stored, ev)
        self.ledger.apply(stored.terminal, ev)

    def _card(self, stored: StoredEvent, position: int, card: Card) -> None:
        shoe = self._table.dealing
        if shoe is None:
            if not self._table.round_open:  # else round_started was found at fault already
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq} is outside any round (between "
                    "round_closed and the next round_started)",
                )
            return
        order = shoe.order
        if order is not None:
            self._compare(shoe, order, stored.seq, stored.kind, position, card)
        elif not shoe.bad_reveal:
            shoe.pending.append((stored.seq, stored.kind, position, card))

    def _compare(
        self,
        shoe: _Shoe,
        order: tuple[Card, ...],
        seq: int,
        kind: str,
        position: int,
        card: Card,
    ) -> None:
        self.cards_checked += 1
        if not 0 <= position < len(order):
            self.f.fail(
                seq,
                "cards",
                f"{kind} at seq {seq}: position {position} is outside shoe {shoe.number}'s "
                f"{len(order)} cards",
            )
        elif order[position] != card:
            self.f.fail(
                seq,
                "cards",
                f"{kind} at seq {seq}: the log says {card} at position {position} of shoe "
                f"{shoe.number}, but the shoe holds {order[position]} there (a card that did not "
                "come from the committed shoe)",
            )

    def _card_dealt(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        if stored.terminal != table.terminal_of.get(ev.seat):
            self._envelope(stored, ev.seat)
        self._dealt(stored, ev.position, ev.card)

    def _dealt(self, stored: StoredEvent, position: int, card: Card) -> None:
        """A card that left the shoe: after the last one dealt from it, and the shoe's card."""
        shoe = self._table.dealing
        if shoe is not None:
            if position <= shoe.last_position:
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq} is at position {position} of shoe "
                    f"{shoe.number}, not after the last card dealt from it (position "
                    f"{shoe.last_position})",
                )
            else:
                shoe.last_position = position
        self._card(stored, position, card)

    def _seat_card(self, stored: StoredEvent, ev: Any) -> None:
        """A card of a seat (1..) names its terminal; a card of the dealer or the board (a
        seat below 1) names none."""
        seat = ev.seat if ev.seat >= 1 else DEALER
        expected = None if seat == DEALER else self._table.terminal_of.get(seat)
        if stored.terminal != expected:
            self._envelope(stored, seat)
        self._dealt(stored, ev.position, ev.card)

    def _seeded(self, stored: StoredEvent, ev: Any) -> None:
        """A record of what the table game system drew from the seed of the round's deck
        (a bonus card, a lucky position): its game checks it against that seed once the seed
        is known (revealed, or unsealed with the sealing key)."""
        self._dealer(stored, ev)
        table = self._table
        shoe = table.dealing
        if shoe is None or table.game is None or table.config is None:
            return
        shoe.draws.append((stored.seq, table.game, table.config, ev))
        if shoe.seed is not None:
            self._check_draws(shoe)

    def _check_draws(self, shoe: _Shoe) -> None:
        seed = shoe.seed
        if seed is None:
            return
        for seq, game, config, ev in shoe.draws:
            self.cards_checked += 1
            problem = game.seeded_draw_problem(seed, config, ev, seq, shoe.number)
            if problem is not None:
                self.f.fail(seq, "cards", problem)
        shoe.draws = []

    # ------------------------------------------------------ tables in stadium play

    def _foreign(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        self.f.fail(
            stored.seq,
            "rounds",
            f"{stored.kind} at seq {stored.seq} is not an event of the {table.table_type} "
            f"table's engine (table {stored.table_id}): the rules in force never produce it",
        )

    def _table_card(self, stored: StoredEvent, ev: Any) -> None:
        """A card of the dealer, of every player or of the community box: no terminal's."""
        if stored.terminal is not None:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is a card of the table (the dealer's, every "
                f"player's or a community card) but its envelope names terminal "
                f"{stored.terminal}",
            )
        self._dealt(stored, ev.position, ev.card)

    def _in_round(self, stored: StoredEvent, whose: str) -> bool:
        """A player's event must name a terminal of round_started in its envelope."""
        terminal = stored.terminal
        if terminal is not None and terminal in self._table.terminals:
            return True
        self.f.fail(
            stored.seq,
            "rounds",
            f"{stored.kind} at seq {stored.seq} is {whose} but its envelope names "
            f"{'no terminal' if terminal is None else f'terminal {terminal}'}, not one of the "
            f"terminals of round_started {list(self._table.terminals)}",
        )
        return False

    def _player(self, stored: StoredEvent, ev: Any) -> None:
        """Three-position table: a player is his terminal (633b.5(l))."""
        if self._in_round(stored, f"player {ev.player}'s") and stored.terminal != ev.player:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is player {ev.player}'s but its envelope "
                f"names terminal {stored.terminal}",
            )

    def _player_wager(self, stored: StoredEvent, ev: Any) -> None:
        self._player(stored, ev)
        self._fold_wager(stored, ev)

    def _numbered(self, stored: StoredEvent, ev: Any) -> None:
        """No-hole-card table: the terminals that join a round are players 1, 2, ... in the
        order they joined; every event of a player names that terminal in its envelope."""
        table = self._table
        seat = ev.seat
        if not self._in_round(stored, f"player {seat}'s"):
            return
        terminal = stored.terminal
        assert terminal is not None
        known = table.players.get(seat)
        if known is None:
            if terminal in table.numbers:
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq} names terminal {terminal} as player "
                    f"{seat}, but it joined this round as player {table.numbers[terminal]}",
                )
                return
            if seat != len(table.players) + 1:
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq}: terminal {terminal} joins as player "
                    f"{seat}, but it is the round's player {len(table.players) + 1} (players "
                    "are numbered in the order they join)",
                )
            table.players[seat] = terminal
            table.numbers[terminal] = seat
        elif known != terminal:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is player {seat}'s, who is terminal {known} "
                f"in this round, but its envelope names terminal {terminal}",
            )

    def _numbered_wager(self, stored: StoredEvent, ev: Any) -> None:
        self._numbered(stored, ev)
        self._fold_wager(stored, ev)

    def _hole_revealed(self, stored: StoredEvent, ev: Any) -> None:
        self._dealer(stored, ev)
        self._card(stored, ev.position, ev.card)

    def _stated(self, seq: int, what: str, terminal: str, balance: int, fold: int) -> None:
        """A balance the log states for ``terminal`` must be the fold (plus the offset of an
        earlier mismatch, so that one fault is reported once, where it happens)."""
        offset = self.offset.get(terminal, 0)
        if balance != fold + offset:
            self.f.fail(
                seq,
                "ledger",
                f"{what} at seq {seq} states {format_money(balance)} for terminal {terminal}, "
                f"but the log folds to {format_money(fold + offset)}",
            )
            self.offset[terminal] = balance - fold

    def _credits(self, stored: StoredEvent, ev: Any) -> None:
        seq = stored.seq
        terminal = ev.terminal
        if stored.terminal != terminal:
            self.f.fail(
                seq,
                "ledger",
                f"{ev.kind} at seq {seq} is for terminal {terminal} but its envelope names "
                f"terminal {stored.terminal}",
            )
        wallets = self.ledger.wallets
        held = wallets.get(terminal, 0)
        if type(ev) is CreditsIn:
            after = held + ev.amount
        else:
            after = held - ev.amount
            if after < 0:
                self.f.fail(
                    seq,
                    "ledger",
                    f"credits_out at seq {seq} pays {format_money(ev.amount)} to terminal "
                    f"{terminal}, which holds {format_money(held)} by the fold",
                )
                # Fold it anyway (credit the shortfall) so one fault is reported once.
                wallets[terminal] = ev.amount
                self.offset[terminal] = self.offset.get(terminal, 0) + held - ev.amount
                after = 0
        self._stated(seq, ev.kind, terminal, ev.balance, after)
        self.ledger.apply(terminal, ev._replace(balance=after))

    def _table_opened(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        table.table_type = _table_type(ev.config)
        game = dealing(_game(ev.config), table.table_type) or games()[0]
        table.game = game
        table.handlers = self._handlers_for(game, table.table_type)
        table.config = None
        if SEEDED in game.verify_checks(table.table_type).values():
            # A config this build refuses is reported by the walk itself.
            with contextlib.suppress(ETGError):
                table.config = config_from_dict(ev.config)
        try:
            logged = hashlib.sha256(canonical_json(ev.config)).hexdigest()
        except ETGError as exc:
            self.f.fail(stored.seq, "rounds", f"table_opened at seq {stored.seq}: {exc}")
            return
        if logged != ev.config_hash:
            self.f.fail(
                stored.seq,
                "rounds",
                f"table_opened at seq {stored.seq} names config hash {ev.config_hash}, but the "
                f"config it logs hashes to {logged}",
            )

    def _shoe_committed(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        if ev.shoe in table.shoes:
            self.f.fail(
                stored.seq,
                "shoes",
                f"shoe_committed at seq {stored.seq} commits shoe {ev.shoe} of table "
                f"{stored.table_id} again (first committed at seq "
                f"{table.shoes[ev.shoe].committed_seq})",
            )
            return
        if table.last_shoe is not None and ev.shoe != table.last_shoe + 1:
            self.f.fail(
                stored.seq,
                "rounds",
                f"shoe_committed at seq {stored.seq} commits shoe {ev.shoe} after shoe "
                f"{table.last_shoe} (shoe numbers go up by one)",
            )
        table.last_shoe = ev.shoe
        table.shoes[ev.shoe] = _Shoe(
            stored.table_id, ev.shoe, ev.decks, ev.commitment, ev.sealed_seed, stored.seq
        )

    def _shoe_revealed(self, stored: StoredEvent, ev: Any) -> None:
        seq = stored.seq
        shoe = self._table.shoes.get(ev.shoe)
        if shoe is None:
            self.f.fail(
                seq,
                "shoes",
                f"shoe_revealed at seq {seq} reveals shoe {ev.shoe} of table {stored.table_id}, "
                "which was never committed",
            )
            return
        if shoe.revealed_seq is not None:
            self.f.fail(
                seq,
                "shoes",
                f"shoe_revealed at seq {seq} reveals shoe {ev.shoe} again (first revealed at seq "
                f"{shoe.revealed_seq})",
            )
            return
        shoe.revealed_seq = seq
        if self._table.round_open and self._table.dealing is shoe:
            self.f.fail(
                seq,
                "rounds",
                f"shoe_revealed at seq {seq} reveals shoe {ev.shoe} while round "
                f"{self._table.last_round} is still dealt from it (its remaining cards were "
                "public)",
            )
        where = (
            f"shoe_revealed at seq {seq} (shoe {ev.shoe}, committed at seq {shoe.committed_seq})"
        )
        try:
            seed = ShoeSeed.from_dict(
                {
                    "entropy_input": ev.entropy_input,
                    "nonce": ev.nonce,
                    "personalization": ev.personalization,
                }
            )
            salt = bytes.fromhex(ev.salt)
            order = _regenerate(shoe.decks, seed, salt, shoe.commitment)
        except (BadSeedMaterial, BadDeckCount, ValueError) as exc:
            self.f.fail(seq, "shoes", f"{where}: forged or wrong shoe reveal: {exc}")
            shoe.bad_reveal = True
            sealed = self._unsealed(shoe)
            if sealed is None:
                if shoe.pending or shoe.rounds:
                    self.f.warn(
                        seq,
                        "cards",
                        f"the {len(shoe.pending)} cards dealt from shoe {shoe.number} "
                        f"({shoe.rounds} rounds) are not checked: its reveal does not match its "
                        "commitment" + ("" if self.sealing_key else " (no sealing key)"),
                    )
                shoe.pending = []
                return
            order = sealed
        else:
            personalization = f"{stored.table_id}/{ev.shoe}".encode()
            if seed.personalization != personalization:
                self.f.fail(
                    seq,
                    "shoes",
                    f"{where}: the shoe was seeded with the personalization "
                    f"{seed.personalization!r}, not its table and number {personalization!r} "
                    "(DESIGN.md: each shoe's DRBG is personalized with them)",
                )
            if self.sealing_key is not None:
                self._cross_check(shoe, seed, salt, seq)
            shoe.seed = seed
        self._settle(shoe, order)

    def _cross_check(self, shoe: _Shoe, seed: ShoeSeed, salt: bytes, seq: int) -> None:
        """With the sealing key: the sealed seed must be the one revealed."""
        secret = self._open(shoe)
        if secret is not None and secret != (seed, salt):
            self.f.fail(
                seq,
                "shoes",
                f"shoe_revealed at seq {seq}: the seed sealed in shoe_committed at seq "
                f"{shoe.committed_seq} is not the seed revealed",
            )

    def _open(self, shoe: _Shoe) -> tuple[ShoeSeed, bytes] | None:
        """The seed and salt sealed in the shoe's commitment (None, with a warning, if the
        sealing key does not open it)."""
        assert self.sealing_key is not None
        try:
            blob = bytes.fromhex(shoe.sealed)
            plain = unseal(self.sealing_key, blob, seal_context(shoe.table_id, shoe.number))
            secret = json.loads(plain)
            return ShoeSeed.from_dict(secret["seed"]), bytes.fromhex(secret["salt"])
        except (SealError, BadSeedMaterial, ValueError, KeyError, TypeError) as exc:
            self.f.warn(
                shoe.committed_seq,
                "shoes",
                f"the sealed seed of shoe {shoe.number} (shoe_committed at seq "
                f"{shoe.committed_seq}) does not open with the sealing key given: {exc}",
            )
            return None

    def _unsealed(self, shoe: _Shoe) -> tuple[Card, ...] | None:
        """The order sealed in the commitment, when the sealing key opens it and it matches
        the commitment (a mismatch is a failure)."""
        if self.sealing_key is None:
            return None
        secret = self._open(shoe)
        if secret is None:
            return None
        seed, salt = secret
        try:
            order = _regenerate(shoe.decks, seed, salt, shoe.commitment)
            shoe.seed = seed
            return order
        except (BadDeckCount, ValueError) as exc:
            self.f.fail(
                shoe.committed_seq,
                "shoes",
                f"shoe_committed at seq {shoe.committed_seq}: the sealed seed of shoe "
                f"{shoe.number} does not regenerate the committed shoe: {exc}",
            )
            return None

    def _settle(self, shoe: _Shoe, order: tuple[Card, ...]) -> None:
        """The shoe's order is known: check the cards (and draws) that waited for it."""
        shoe.order = order
        self._check_draws(shoe)
        self.shoes_checked += 1
        size = len(order)
        matched = 0
        for seq, kind, position, card in shoe.pending:
            if 0 <= position < size and order[position] == card:
                matched += 1
            else:
                self._compare(shoe, order, seq, kind, position, card)
        self.cards_checked += matched
        shoe.pending = []

    def _round_started(self, stored: StoredEvent, ev: RoundStarted) -> None:
        seq = stored.seq
        table = self._table
        if ev.round != stored.round_id:
            self.f.fail(
                seq,
                "rounds",
                f"round_started at seq {seq} is for round {ev.round}, but its envelope names "
                f"round {stored.round_id}",
            )
        # The envelope's round id is the one recall groups by (walk, events_for_round).
        round_id = ev.round if stored.round_id is None else stored.round_id
        if table.last_round is not None and round_id != table.last_round + 1:
            self.f.fail(
                seq,
                "rounds",
                f"round {round_id} of table {stored.table_id} (seq {seq}) follows round "
                f"{table.last_round}: round ids go up by one",
            )
        table.last_round = round_id
        shoe = table.shoes.get(ev.shoe)
        if shoe is None:
            self.f.fail(
                seq,
                "rounds",
                f"round {ev.round} (seq {seq}) deals from shoe {ev.shoe}, which was never "
                "committed",
            )
        elif shoe.revealed_seq is not None:
            self.f.fail(
                seq,
                "rounds",
                f"round {ev.round} (seq {seq}) deals from shoe {ev.shoe}, which was already "
                f"revealed at seq {shoe.revealed_seq} (its cards were public)",
            )
        if shoe is not None:
            shoe.rounds += 1
        table.dealing = shoe
        table.round_open = True
        if not len(ev.seats) == len(ev.terminals) == len(ev.balances):
            self.f.fail(
                seq,
                "rounds",
                f"round_started at seq {seq} lists {len(ev.seats)} seats, "
                f"{len(ev.terminals)} terminals and {len(ev.balances)} balances",
            )
        table.terminal_of = dict(zip(ev.seats, ev.terminals, strict=False))
        table.terminals = ev.terminals
        table.players = {}
        table.numbers = {}
        wallets = self.ledger.wallets
        for terminal, balance in zip(ev.terminals, ev.balances, strict=False):
            self._stated(seq, "round_started", terminal, balance, wallets.get(terminal, 0))

    def _round_closed(self, stored: StoredEvent, ev: RoundClosed) -> None:
        seq = stored.seq
        if ev.round != stored.round_id:
            self.f.fail(
                seq,
                "rounds",
                f"round_closed at seq {seq} is for round {ev.round}, but its envelope names "
                f"round {stored.round_id}",
            )
        if tuple(ev.terminals) != tuple(self._table.terminals):
            self.f.fail(
                seq,
                "rounds",
                f"round_closed at seq {seq} lists terminals {list(ev.terminals)}, but the round "
                f"started with {list(self._table.terminals)}",
            )
        if len(ev.terminals) != len(ev.balances):
            self.f.fail(
                seq,
                "rounds",
                f"round_closed at seq {seq} lists {len(ev.terminals)} terminals and "
                f"{len(ev.balances)} balances",
            )
        wallets = self.ledger.wallets
        for terminal, balance in zip(ev.terminals, ev.balances, strict=False):
            self._stated(seq, "round_closed", terminal, balance, wallets.get(terminal, 0))
        self._table.round_open = False

    # ------------------------------------------------------------ per round

    def on_round(self, rnd: LoggedRound) -> None:
        self.rounds += 1
        events = rnd.events
        first = events[0]
        where = f"round {rnd.round_id} of table {rnd.table_id}"
        started = first.event if type(first.event) is RoundStarted else None
        if started is None:
            self.f.fail(
                first.seq,
                "rounds",
                f"{where} does not open with round_started (seq {first.seq} is a "
                f"{first.stored.kind}): events are missing or out of place",
            )
        else:
            key = (rnd.table_id, rnd.config_seq)
            expected = self.config_hashes.get(key)
            if expected is None:
                expected = self.config_hashes[key] = rnd.config.config_hash()
            if started.config_hash != expected:
                self.f.fail(
                    first.seq,
                    "rounds",
                    f"round_started at seq {first.seq} names config hash "
                    f"{started.config_hash}, but the config in force (table_opened at seq "
                    f"{rnd.config_seq}) hashes to {expected}",
                )
            shoe = rnd.shoe
            if shoe is not None and shoe.committed.event.decks != rnd.config.rules.decks:
                self.f.fail(
                    first.seq,
                    "rounds",
                    f"{where} deals from shoe {shoe.number} of {shoe.committed.event.decks} "
                    f"decks, but the config in force has {rnd.config.rules.decks}",
                )
        engine = rnd.engine_events()
        try:
            self._replay(rnd, [item.event for item in engine])
        except Exception as exc:  # any refusal of a logged round is a finding
            seq, reason = _replay_failure(exc, engine, events[-1].seq)
            self.f.fail(seq, "replay", f"{where} does not replay through its rules: {reason}")
        else:
            self.rounds_replayed += 1
        last = events[-1]
        if type(last.event) is not RoundClosed:
            if rnd.complete:
                self.f.fail(
                    last.seq,
                    "rounds",
                    f"{where} does not end with round_closed (seq {last.seq} is a "
                    f"{last.stored.kind}): the credits at the end of the game are not logged",
                )
            else:
                self.f.warn(
                    last.seq,
                    "rounds",
                    f"{where} is not complete (no round_completed up to seq {last.seq}): its "
                    "wagers are still in play",
                )

    def _replay(self, rnd: LoggedRound, events: list[Any]) -> None:
        """Replay a round through its game's engine (the live table's engine)."""
        game_for(rnd.config).replay(rnd.config, events, rnd.table_id)

    # ------------------------------------------------------------ the end

    def finish(self, last_seq: int) -> None:
        """End of log: the shoes never revealed, and conservation."""
        for table_id, table in sorted(self.tables.items()):
            for number, shoe in sorted(table.shoes.items()):
                if shoe.revealed_seq is not None:
                    continue
                if self.sealing_key is not None:
                    order = self._unsealed(shoe)
                    if order is not None:
                        self._settle(shoe, order)
                        continue
                if shoe.rounds or shoe.pending:
                    why = "no sealing key" if self.sealing_key is None else "not unsealed"
                    self.f.warn(
                        shoe.committed_seq,
                        "cards",
                        f"{shoe.rounds} rounds of unrevealed shoe {number} of table {table_id} "
                        f"not checked ({why})",
                    )
        if self.stopped_at is not None:
            return
        ledger = self.ledger
        stated = sum(ledger.wallets.values()) + sum(self.offset.values())
        in_play = ledger.in_play
        house = ledger.house_result
        # What the progressive meters paid into wallets is funded by the house (0 unless a
        # meter paid through a settlement: UthLedger).
        paid = ledger.progressive_paid
        off = ledger.credits_in - ledger.credits_out - stated - in_play - house + paid
        if off:
            self.f.fail(
                last_seq,
                "conservation",
                f"at the end of the log (seq {last_seq}), credits in "
                f"{format_money(ledger.credits_in)} != credits out "
                f"{format_money(ledger.credits_out)} + stated balances {format_money(stated)} + "
                f"in play {format_money(in_play)} + house result {format_money(house)} "
                f"(off by {format_money(off)})",
            )
        for name, meter in sorted(ledger.meters.items()):
            if meter.settled > meter.wagered:
                self.f.fail(
                    last_seq,
                    "conservation",
                    f"{name} wagers settled {format_money(meter.settled)} of stakes, more than "
                    f"the {format_money(meter.wagered)} wagered",
                )


def _game(config: Any) -> object:
    try:
        return config["table"]["game"]
    except (KeyError, TypeError):
        return None


def _table_type(config: Any) -> TableType:
    """The table type a logged config names (fully automated if it names none this build
    knows: the walk then refuses the config itself)."""
    try:
        return TableType(config["table"]["type"])
    except (KeyError, TypeError, ValueError):
        return TableType.FULLY_AUTOMATED


def _replay_failure(exc: Exception, engine: list[Logged], last_seq: int) -> tuple[int, str]:
    """The seq a replay failure names (the replay's index mapped back to the log) and its
    reason, with every "event i" of the message given as its seq."""
    message = str(exc) or type(exc).__name__
    match = _INDEX.search(message)
    if match is not None and engine:
        index = min(int(match.group(1)), len(engine) - 1)
        seq = engine[index].seq
    else:
        seq = engine[-1].seq if engine else last_seq

    def to_seq(found: re.Match[str]) -> str:
        index = int(found.group(1))
        return f"seq {engine[index].seq}" if index < len(engine) else found.group(0)

    text = _INDEX.sub(to_seq, message)
    if not isinstance(exc, ETGError):
        text = f"{type(exc).__name__}: {text}"
    return seq, text


# ----------------------------------------------------------------------------- one pass


class _Pump:
    """Reads the rows once and hands every batch to the walk and to :func:`verify_chain`.

    ``verify_chain`` drives: it asks :meth:`batches` for the next batch; the walk (a
    generator) is advanced until it has read that far, pulling rows from SQLite through
    :meth:`_events`, which queues every batch it reads for the chain. So each row is read
    once, and the walk stays at most a batch or so ahead of the chain.
    """

    def __init__(
        self,
        reader: EventLogReader,
        semantics: _Semantics,
        findings: _Findings,
        total: int,
        progress: Progress | None,
    ) -> None:
        self._rows = reader.row_batches(1, BATCH)
        self._queue: deque[list[EventRow]] = deque()
        self._semantics = semantics
        self._findings = findings
        self._total = total
        self._progress = progress
        self._damage: LogDamaged | None = None
        self._versions = _versions()
        self._last_fed = 0
        self._walk: Iterator[LoggedRound] | None = walk(self._events(), on_event=semantics.on_event)

    def _events(self) -> Iterator[StoredEvent]:
        """StoredEvents for the walk, bodies parsed once with a reused scanner; bodies that
        are not an event of this build are reported and left out."""
        versions = self._versions
        scan = _scan
        from_row = StoredEvent.from_row
        try:
            for rows in self._rows:
                self._queue.append(rows)
                for row in rows:
                    text = row[6]
                    try:
                        body, end = scan(text, 0)
                        if end != len(text) or versions[body["kind"]] != body["v"]:
                            raise ValueError
                    except (ValueError, StopIteration, KeyError, TypeError, RecursionError):
                        self._unreadable(row)
                        continue
                    event = from_row(row)
                    event.__dict__["body"] = body  # functools.cached_property's slot for .body
                    self._last_fed = row[0]
                    yield event
        except LogDamaged as exc:
            self._damage = exc

    def _unreadable(self, row: EventRow) -> None:
        seq, kind = row[0], row[5]
        self._findings.fail(
            seq,
            "events",
            f"event {seq} ({kind!r}) is not an event this build knows (a changed body, or a "
            "newer ETG wrote it); it was left out of the rounds, ledger and shoe checks",
        )

    def _advance(self) -> None:
        """Advance the walk by one round; on an error, stop the walk (and say so)."""
        assert self._walk is not None
        try:
            rnd = next(self._walk)
        except StopIteration:
            self._walk = None
            return
        except Exception as exc:  # any refusal of the log is a finding
            seq = self._last_fed
            self._walk = None
            self._semantics.stopped_at = seq
            self._findings.fail(
                seq,
                "events",
                f"the log cannot be read as rounds from seq {seq} on: {type(exc).__name__}: {exc}",
            )
            self._findings.warn(
                seq,
                "replay",
                f"rounds, shoes and balances after seq {seq} are not checked (only the chain "
                "and signatures are)",
            )
            return
        self._semantics.on_round(rnd)

    def batches(self) -> Iterator[list[EventRow]]:
        """The batches, in order, for ``verify_chain`` (it handles a LogDamaged raised here)."""
        queue = self._queue
        while True:
            while not queue and self._walk is not None:
                self._advance()
            if queue:
                rows = queue.popleft()
                if self._progress is not None:
                    self._progress(rows[-1][0], self._total)
                yield rows
                continue
            if self._walk is None:
                break
        for rows in self._rows:  # what the walk did not read (it stopped on an error)
            if self._progress is not None:
                self._progress(rows[-1][0], self._total)
            yield rows
        if self._damage is not None:
            self._semantics.stopped_at = self._semantics.stopped_at or self._last_fed
            raise self._damage


class _TeeSource:
    """The reader as :func:`verify_chain` sees it, with rows coming from the pump."""

    def __init__(self, reader: EventLogReader, pump: _Pump) -> None:
        self._reader = reader
        self._pump = pump
        #: The highest seq a stored checkpoint claims to cover (valid or not).
        self.last_checkpoint_seq = 0

    @property
    def log_id(self) -> str:
        return self._reader.log_id

    def snapshot(self) -> AbstractContextManager[None]:
        return self._reader.snapshot()

    def max_seq(self) -> int:
        return self._reader.max_seq()

    def row_batches(self, start_seq: int = 1, batch: int = BATCH) -> Iterator[list[EventRow]]:
        if start_seq != 1:  # pragma: no cover - verify_chain reads from the start
            raise ValueError("the pump streams the log from seq 1")
        return self._pump.batches()

    def iter_events(self, start_seq: int = 1, batch: int = BATCH) -> Iterator[StoredEvent]:
        return self._reader.iter_events(start_seq, batch)  # pragma: no cover

    def events_for_round(self, table_id: str, round_id: int) -> list[StoredEvent]:
        return self._reader.events_for_round(table_id, round_id)  # pragma: no cover

    def iter_checkpoints(self) -> Iterator[Checkpoint]:
        for checkpoint in self._reader.iter_checkpoints():
            self.last_checkpoint_seq = max(self.last_checkpoint_seq, checkpoint.seq)
            yield checkpoint

    def checkpoints(self) -> list[Checkpoint]:
        return self._reader.checkpoints()  # pragma: no cover

    def recent_rounds(
        self,
        terminal: str | None = None,
        table: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 10,
    ) -> list[RoundSpan]:
        return self._reader.recent_rounds(terminal, table, since, until, limit)  # pragma: no cover

    def triggers_present(self) -> dict[str, bool]:
        return self._reader.triggers_present()  # pragma: no cover

    def close(self) -> None:  # pragma: no cover - the caller owns the reader
        pass


# ----------------------------------------------------------------------------- entry point


def verify_log(
    reader: EventLogReader,
    public_key: Ed25519PublicKey,
    *,
    sealing_key: bytes | None = None,
    progress: Progress | None = None,
    anchors: AnchorSource | None = None,
) -> VerifyReport:
    """Verify a whole event log: file, triggers, chain, signatures, shoes, cards, rounds, money.

    Everything is read in one snapshot of the log (it may run while the table appends) and
    in one pass over the rows. Nothing is written: the reader is read-only.

    Args:
        reader: The log, opened with :meth:`EventLogReader.open`.
        public_key: The log-signing public key (``certs/log-signing.pub``).
        sealing_key: The 32-byte shoe-sealing key, to check shoes not yet revealed (and that
            each sealed seed is the revealed one). Without it, rounds of unrevealed shoes are
            reported as not checked (a warning).
        progress: Called after each batch with (highest seq read, highest seq of the log).
        anchors: The anchor stream: the checkpoints kept outside the log as they were made.
            Without it a log cut back to one of its own checkpoints cannot be detected (the
            report warns).

    Returns:
        The report; ``report.ok`` is the verdict.

    Raises:
        UnverifiableLog: the log's chain format is not the one this build verifies.
        LogDamaged: SQLite cannot read the log's tables at all.
        AnchorError: the anchor stream cannot be read, or a line of it is not a checkpoint.
    """
    start = time.perf_counter()
    meta = reader.meta()
    chain_format = meta.get("chain_format")
    if chain_format != CHAIN_FORMAT:
        raise UnverifiableLog(
            f"{reader.path} uses the chain format {chain_format!r}; this ETG verifies "
            f"{CHAIN_FORMAT!r}. Verify it with the ETG that wrote it."
        )
    findings = _Findings()
    semantics = _Semantics(findings, sealing_key)
    anchored = None if anchors is None else anchors.anchors(reader.log_id)
    with reader.snapshot():
        integrity_seconds = _check_file(reader, findings)
        _check_meta(reader, findings)
        _check_anchored(reader, anchored, findings)
        total = reader.max_seq()
        pump = _Pump(reader, semantics, findings, total, progress)
        tee = _TeeSource(reader, pump)
        chain = verify_chain(_as_source(tee), public_key, anchors=anchored or ())
        last_seq = chain.last_seq
        semantics.finish(last_seq)
    for problem in chain.problems:
        check = "checkpoints" if "checkpoint" in problem.reason else "chain"
        if problem.reason.startswith("anchor") or "anchored checkpoint" in problem.reason:
            check = "anchors"
        findings.fail(problem.seq, check, problem.reason)
    hidden = chain.problem_count - len(chain.problems)
    if hidden > 0:
        findings.failure_count["chain"] = findings.failure_count.get("chain", 0) + hidden
    # Events no checkpoint claims to cover (those covered by checkpoints that fail are
    # failures already).
    after = max(chain.last_proven_seq, tee.last_checkpoint_seq)
    if chain.unproven_events and chain.last_seq > after:
        findings.warn(
            after + 1,
            "checkpoints",
            f"{chain.last_seq - after} event(s) after seq {after} (seq {after + 1} to "
            f"{chain.last_seq}) are chained but not covered by any signed checkpoint: they "
            f"could be removed, or the log cut back to seq {after}, without trace. A log still "
            "being written, or whose server stopped without its shutdown checkpoint, ends "
            "like this; a cleanly closed log does not",
        )
    shoes = sum(len(t.shoes) for t in semantics.tables.values())
    counts = VerifyCounts(
        events=chain.events,
        last_seq=last_seq,
        tables=len(semantics.tables),
        rounds=semantics.rounds,
        rounds_replayed=semantics.rounds_replayed,
        shoes=shoes,
        shoes_checked=semantics.shoes_checked,
        cards_checked=semantics.cards_checked,
        checkpoints=chain.checkpoints,
        valid_checkpoints=chain.valid_checkpoints,
        last_proven_seq=chain.last_proven_seq,
        unproven_events=chain.unproven_events,
    )
    failures = findings.ordered(findings.failures)
    warnings = findings.ordered(findings.warnings)
    failure_count = sum(findings.failure_count.values())
    return VerifyReport(
        ok=failure_count == 0,
        first_failure=failures[0] if failures else None,
        failures=failures,
        failure_count=failure_count,
        warnings=warnings,
        counts=counts,
        checks=_summaries(findings, failures, warnings),
        elapsed=time.perf_counter() - start,
        key_id=chain.key_id,
        integrity_seconds=integrity_seconds,
        anchors=None if anchored is None else len(anchored),
    )


def _check_meta(reader: EventLogReader, findings: _Findings) -> None:
    signed = [cp for cp in reader.checkpoints() if cp.meta is not None]
    if not signed:
        findings.warn(
            None,
            "meta",
            "no checkpoint of this log signs its meta and migrations tables (it was written "
            "before schema version 4, or has no checkpoint yet): an edit of them cannot be "
            "detected",
        )
        return
    newest = signed[-1]
    state = reader.state
    now = meta_digest(reader.meta(), reader.applied_migrations())
    if newest.meta != now:
        findings.fail(
            newest.seq,
            "meta",
            f"the meta or migrations table differs from what checkpoint #{newest.number} (seq "
            f"{newest.seq}) signed: it was edited after the log was written (meta now: "
            f"{dict(state.meta)}; migrations: {[name for name, _ in state.migrations]})",
        )


def _check_anchored(
    reader: EventLogReader, anchored: list[Checkpoint] | None, findings: _Findings
) -> None:
    if anchored is None:
        findings.warn(
            None,
            "anchors",
            "no anchor stream was given (--anchors): a log cut back to one of its own "
            "checkpoints (its last rounds and their checkpoints removed) cannot be told from "
            "a log that ended there. Verify against the anchor stream the server kept",
        )
        return
    if not anchored:
        findings.warn(
            None,
            "anchors",
            f"the anchor stream holds no checkpoint of this log ({reader.log_id}): it is not "
            "this log's stream, or the log was never anchored",
        )
        return
    for anchor, reason in check_anchors(anchored, reader.checkpoints()):
        findings.fail(anchor.seq, "anchors", reason)


def _as_source(tee: _TeeSource) -> EventSource:
    return tee


def _check_file(reader: EventLogReader, findings: _Findings) -> float:
    """SQLite's full integrity check (indexes included) and the triggers; returns the
    seconds the integrity check took."""
    began = time.perf_counter()
    problems = reader.integrity_check(quick=False)
    took = time.perf_counter() - began
    if problems != ["ok"]:
        shown = "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" * (len(problems) > 5))
        findings.fail(
            None,
            "file",
            f"SQLite's integrity_check finds the file or an index damaged: {shown} (recall "
            "queries read the indexes: rebuild them with REINDEX on a copy, after keeping this "
            "file as evidence)",
        )
    present = reader.triggers_present()
    missing = sorted(name for name in TRIGGERS if not present.get(name))
    added = sorted(name for name in present if name not in TRIGGERS)
    if missing:
        findings.fail(
            None,
            "triggers",
            f"trigger(s) missing or altered: {', '.join(missing)}; the database no longer "
            "refuses every UPDATE and DELETE (someone with the file dropped or changed them)",
        )
    if added:
        findings.fail(
            None,
            "triggers",
            f"trigger(s) that the schema does not define: {', '.join(added)} (added by hand)",
        )
    return took


def _summaries(
    findings: _Findings, failures: tuple[Finding, ...], warnings: tuple[Finding, ...]
) -> tuple[CheckSummary, ...]:
    out = []
    for check, title in CHECKS.items():
        failed = findings.failure_count.get(check, 0)
        warned = findings.warning_count.get(check, 0)
        first = next((f for f in failures if f.check == check), None)
        if first is None:
            first = next((w for w in warnings if w.check == check), None)
        status = "FAIL" if failed else "WARN" if warned else "PASS"
        out.append(CheckSummary(check, title, status, failed, warned, first))
    return tuple(out)
