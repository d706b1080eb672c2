"""Crash recovery: rebuild a table's session from its event log and resume where it stopped.

The table saves every step before it sends anything (docs/design.md "Save, then send"), so the log
is the whole state of the table: after a crash, power loss or ``kill -9`` the server rebuilds
the session from it alone (docs/design.md "RNG and shoe": "After a crash the server unseals and
resumes"). This answers the program interruption and resumption requirement
(9 NYCRR 5319.54(a), GLI-11 critical memory; docs: ``regs/notes/standards-gli.md`` section 4
"Power loss, program interruption"): the software returns to the state it was in immediately
before the interruption, and the game history and every credit and accounting meter
comprehend it, because they are the fold of the same log.

What :func:`recover_session` rebuilds:

- the wallets and meters: every event of the table folded through the same
  :class:`~game_server.table.ledger.Ledger` as the live table (a wallet's balance is the fold of
  the log by construction);
- the round and shoe numbering: the last round id and the last committed shoe number;
- the shoe in use: the last ``shoe_committed`` without its ``shoe_revealed``. Its sealed seed
  is opened with the shoe-sealing key (associated data :func:`seal_context`), the shoe is
  regenerated and its commitment checked: the table never deals from a shoe it cannot prove
  (:class:`ShoeUnprovable`). Every logged card of the shoe is checked against the regenerated
  order, and the shoe is positioned after the last card dealt from it;
- an interrupted round (``round_started`` without ``round_completed``): its game
  (:meth:`~game_server.games.api.Game.resume`) drives a fresh engine with the round's logged
  inputs through its ``replay``, which checks that every step gives exactly the logged events;
  the real shoe then becomes the round's card source, so the next card drawn is the next card
  of the shoe. The round resumes where it stopped (betting with the wagers placed so far,
  insurance with the answers given so far, the hand or street to act). Nothing is logged for
  it: the round's next event follows its last one. A seated table's terminals must hold the
  seats they held in it (:func:`round_started`); at a table in stadium play every player of
  it must still be a terminal of the table.

One log, one table set (:func:`open_tables`): a server given a log written by other tables,
or under another Rules Submission, refuses it with a sentence (:class:`TablesDiffer`) before
it writes anything: a wrong ``--db`` or ``--config`` must not mix two tables' histories (the
demo once did, and the mixed log failed verification). An intended change is stated by the
operator (``etg serve --change-config REASON``) and logged as ``rules_change_stated`` for
each table changed, added or retired; then, between rounds, the shoe in use is retired
(revealed) and the new Rules Submission is logged (``table_opened``). While a round is
interrupted a change is refused with :class:`ConfigChangedMidRound` (a round is finished under
the rules it started with: restart with the logged Rules Submission, finish the round, then
change it). A new log is opened with the session's ``open()``.

After a failed log write (a full disk), :func:`reload_tables` rebuilds every table of the
server from its log in the running process, as a restart would: what the operator's reopen
runs.

Entry points: :func:`open_tables`, :func:`recover_session`, :func:`reload_tables`,
:func:`open_table`, :class:`RecoveryReport`; for the games' ``resume``: :func:`round_started`,
:func:`replayed`.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

from game_server.config import TableConfig
from game_server.eventlog import (
    AnchorStream,
    Clock,
    EventLog,
    EventLogError,
    EventLogReader,
    NewEvent,
)
from game_server.games import game_for, games
from game_server.keys import (
    UnsealFailed,
    key_id,
    load_public_key,
    load_sealing_key,
    load_signing_key,
    unseal,
)
from game_server.recall.rounds import Logged, LoggedRound, decode, walk
from game_server.rng.errors import BadSeedMaterial
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.errors import RulesError
from game_server.rules.events import to_dict
from game_server.rules.meters import MeterBank
from game_server.rules.wagers.base import MeterSpec
from game_server.table.events import (
    RoundStarted,
    RulesChangeStated,
    ShoeCommitted,
    ShoeRevealed,
    TableOpened,
)
from game_server.table.ledger import Ledger
from game_server.table.secrecy import RoundSight, from_shoe
from game_server.table.session import (
    LogWriteFailed,
    SealedShoes,
    SeedSource,
    TableBook,
    TableError,
    seal_context,
)

__all__ = [
    "ConfigChangedMidRound",
    "RecoveryError",
    "RecoveryReport",
    "SeatingChanged",
    "ShoeUnprovable",
    "TablesDiffer",
    "open_table",
    "open_table_reporting",
    "open_tables",
    "recover_session",
    "reload_tables",
    "replayed",
    "round_started",
]


class RecoveryError(TableError):
    """The log cannot be resumed safely; the table stays closed until this is resolved."""


class ShoeUnprovable(RecoveryError):
    """The shoe in use cannot be unsealed, or does not match its commitment or its cards."""


class ConfigChangedMidRound(RecoveryError):
    """A different Rules Submission was given while a round of the old one is unfinished."""


class SeatingChanged(RecoveryError):
    """The terminals given do not hold the seats they held in the interrupted round."""


class TablesDiffer(RecoveryError):
    """The log was written by other tables, or under another Rules Submission, than the
    server was given, and no change was stated."""


@dataclass
class RecoveryReport:
    """What recovery found in the log and how the table resumes.

    Attributes:
        last_seq: The last sequence number of the log (0 for an empty log).
        events: Events of this table folded.
        rounds: Rounds of this table found in the log (the interrupted one included).
        completed_rounds: Rounds with their ``round_completed``.
        last_round_id: The last round id of the table (0 when none).
        interrupted_round: The id of the round resumed mid-way, or None.
        phase: The phase the interrupted round resumes in, or None.
        shoe_number: The last committed shoe number (0 when none).
        shoe_position: Index of the next card of the shoe in use, or None when no shoe is in
            use (the next round commits a new one).
        cards_checked: Logged cards of the shoe in use checked against its regenerated order.
        wallets: Each terminal's credits.
        config_hash: The config hash in force after recovery.
        logged_config_hash: The config hash of the last ``table_opened`` of the log, or None.
        opened: Whether recovery logged a ``table_opened`` (new log or config change).
        retired_shoe: The shoe retired because the Rules Submission changed, or None.
    """

    last_seq: int = 0
    events: int = 0
    rounds: int = 0
    completed_rounds: int = 0
    last_round_id: int = 0
    interrupted_round: int | None = None
    phase: StrEnum | None = None
    shoe_number: int = 0
    shoe_position: int | None = None
    cards_checked: int = 0
    wallets: dict[str, int] = field(default_factory=dict)
    config_hash: str = ""
    logged_config_hash: str | None = None
    opened: bool = False
    retired_shoe: int | None = None

    def describe(self) -> str:
        """One line for the operator's console and the server log."""
        if self.interrupted_round is None:
            where = f"between rounds after round {self.last_round_id}"
        else:
            where = f"round {self.interrupted_round} resumes in {self.phase}"
        shoe = (
            f"shoe {self.shoe_number} at card {self.shoe_position}"
            if self.shoe_position is not None
            else "no shoe in use"
        )
        return (
            f"recovered {self.events} events (last seq {self.last_seq}), "
            f"{self.completed_rounds}/{self.rounds} rounds complete; {where}; {shoe}; "
            f"{len(self.wallets)} wallets holding {sum(self.wallets.values())} cents"
            + ("; Rules Submission logged" if self.opened else "")
        )


@dataclass
class _Found:
    """The state of one table as the log tells it (filled by one pass of :func:`walk`)."""

    ledger: Ledger = field(default_factory=Ledger)
    opened: TableOpened | None = None
    committed: dict[int, ShoeCommitted] = field(default_factory=dict)
    revealed: dict[int, ShoeRevealed] = field(default_factory=dict)
    shoe_number: int = 0
    round_id: int = 0
    events: int = 0
    last_seq: int = 0
    rounds: int = 0
    completed: int = 0
    interrupted: LoggedRound | None = None
    #: shoe number -> logged cards (position, card) of every round dealt from it.
    cards: dict[int, list[tuple[int, Any]]] = field(default_factory=dict)


def _read_log(reader: EventLogReader, table_id: str, ledger: Ledger | None = None) -> _Found:
    found = _Found() if ledger is None else _Found(ledger=ledger)
    # Every kind of card that leaves a shoe, whatever the game (a table's log may hold the
    # rounds of the games it dealt before a stated change).
    dealt = frozenset(kind for game in games() for kind in game.shoe_card_kinds)

    def on_event(item: Logged) -> None:
        stored = item.stored
        found.last_seq = stored.seq
        if stored.table_id != table_id:
            return
        found.events += 1
        ev = item.event
        kind = type(ev)
        found.ledger.apply(stored.terminal, ev)
        if kind is TableOpened:
            found.opened = ev
        elif kind is ShoeCommitted:
            found.committed[ev.shoe] = ev
            found.shoe_number = max(found.shoe_number, ev.shoe)
        elif kind is ShoeRevealed:
            found.revealed[ev.shoe] = ev
        elif kind is RoundStarted:
            found.round_id = max(found.round_id, ev.round)

    for logged_round in walk(reader.iter_events(), on_event=on_event):
        if logged_round.table_id != table_id:
            continue
        found.rounds += 1
        started = logged_round.started
        if started is not None:
            shoe_cards = found.cards.setdefault(started.shoe, [])
            for item in logged_round.events:
                # Every card that left the shoe (dealt, or a hybrid table's community card).
                if type(item.event) in dealt:
                    shoe_cards.append((item.event.position, item.event.card))
        if logged_round.complete:
            found.completed += 1
            found.interrupted = None
        else:
            found.interrupted = logged_round
    return found


def _unseal_shoe(committed: ShoeCommitted, table_id: str, sealing_key: bytes) -> tuple[Shoe, bytes]:
    """The shoe a commitment names, regenerated from its sealed seed and proven against it."""
    number = committed.shoe
    try:
        secret = unseal(
            sealing_key, bytes.fromhex(committed.sealed_seed), seal_context(table_id, number)
        )
        data = json.loads(secret)
        seed = ShoeSeed.from_dict(data["seed"])
        salt = bytes.fromhex(data["salt"])
    except UnsealFailed as exc:
        raise ShoeUnprovable(
            f"shoe {number} of table {table_id} cannot be unsealed ({exc}); the table cannot "
            "prove the shoe it would deal from and stays closed: check the shoe-sealing key"
        ) from exc
    except (ValueError, KeyError, TypeError, BadSeedMaterial) as exc:
        raise ShoeUnprovable(
            f"the sealed seed of shoe {number} of table {table_id} does not hold a seed and a "
            f"salt ({exc}); the table stays closed"
        ) from exc
    shoe = Shoe(committed.decks, seed, cut_card=committed.cut_card)
    if not hmac.compare_digest(shoe.commitment(salt), committed.commitment.lower()):
        raise ShoeUnprovable(
            f"shoe {number} of table {table_id} regenerated from its sealed seed does not match "
            "its logged commitment; the table must not deal from a shoe it cannot prove"
        )
    return shoe, salt


def _with_shoe_cards(session: TableBook, interrupted: LoggedRound) -> LoggedRound:
    """The round in play with the cards its log holds sealed read from the shoe in use (the
    server holds its seed), and the session's sight of it: which positions are sealed in the
    log (its close unseals them), who may see what (:mod:`game_server.table.secrecy`)."""
    secrecy = session.secrecy
    records = [item.event for item in interrupted.events]
    if session.shoe is not None:
        records = from_shoe(secrecy, records, session.shoe.order)
    sight = RoundSight(secrecy)
    events: list[Logged] = []
    for item, record in zip(interrupted.events, records, strict=True):
        rule = secrecy.dealt.get(type(record))
        if rule is not None and item.stored.body.get(rule.card) is None:
            sight.sealed.add(getattr(record, rule.position))
        sight.observe(item.stored.terminal, record)
        events.append(Logged(item.stored, record))
    session.last_sight, session.sight = None, sight
    return replace(interrupted, events=events)


def _position_shoe(shoe: Shoe, number: int, cards: list[tuple[int, Any]]) -> int:
    """Check every logged card of the shoe against its order; place it after the last one.

    Returns the number of cards checked.
    """
    order = shoe.order
    for position, card in cards:
        if card is None:  # sealed (a round in play): the shoe's card is the one dealt
            if not 0 <= position < len(order):
                raise ShoeUnprovable(
                    f"shoe {number}: the log deals a sealed card at position {position}, "
                    f"outside the shoe's {len(order)} cards"
                )
            continue
        if not 0 <= position < len(order) or order[position] != card:
            raise ShoeUnprovable(
                f"shoe {number}: the log deals {card} at position {position}, which is not the "
                "committed shoe's card there"
            )
    shoe.position = max((p for p, _ in cards), default=-1) + 1
    return len(cards)


def round_started(
    logged_round: LoggedRound, seats: Mapping[str, int] | None = None
) -> RoundStarted:
    """The ``round_started`` of an interrupted round; with ``seats``, checked against the
    seating recovery is given (a seated table's terminals must hold the same seats)."""
    started = logged_round.started
    if started is None:
        raise RecoveryError(
            f"round {logged_round.round_id} has events but no round_started: the log does not "
            "say how it began"
        )
    for seat, terminal in zip(started.seats, started.terminals, strict=True):
        if seats is not None and seats.get(terminal) != seat:
            raise SeatingChanged(
                f"round {started.round} is unfinished with terminal {terminal} at seat {seat}; "
                "recover with the seating of that round, finish it, then change seats"
            )
    return started


_G = TypeVar("_G")


def replayed(started: RoundStarted, rebuild: Callable[[], _G]) -> _G:
    """The interrupted round rebuilt by its engine's replay, or why it cannot be resumed."""
    try:
        return rebuild()
    except RulesError as exc:
        raise RecoveryError(
            f"round {started.round} does not replay from its logged events ({exc}); it cannot "
            "be resumed"
        ) from exc


def recover_session(
    config: TableConfig,
    log: EventLog,
    reader: EventLogReader,
    shoes: SealedShoes,
    seats: Mapping[str, int],
    sealing_key: bytes,
    meters: MeterBank | None = None,
) -> tuple[TableBook, RecoveryReport]:
    """Rebuild the table's session from its log so that it continues exactly where it stopped.

    Args:
        config: The Rules Submission the table is to run (see the module docstring for a
            change against the logged one).
        log: The open event log the session writes to (its writer).
        reader: A reader of the same log.
        shoes: The table's shoe maker (for the shoes after the current one).
        seats: Terminal id -> seat number.
        sealing_key: The shoe-sealing key, to open the sealed seed of the shoe in use.
        meters: The server's progressive meters as the log leaves them
            (:func:`recover_meters`); None: rebuilt here from this table's config.

    Returns:
        The session (the :class:`~game_server.table.session.TableBook` its game opens,
        :meth:`~game_server.games.api.Game.open_session`; its ``round`` is the interrupted
        round, or None) and a report.

    Raises:
        ShoeUnprovable: the shoe in use cannot be unsealed or does not match its commitment
            or its logged cards.
        ConfigChangedMidRound: ``config`` differs from the logged one while a round is
            unfinished.
        SeatingChanged: ``seats`` moves a terminal of the unfinished round.
        RecoveryError: the interrupted round does not replay.
        LedgerError: the log folds to an impossible balance.
    """
    table_id = config.table_id
    game = game_for(config)
    found = _read_log(reader, table_id, game.new_ledger())
    if meters is None:
        meters = recover_meters([config], reader)
    session = game.open_session(config, log, shoes, seats, meters)
    session.ledger = found.ledger
    session.round_id = found.round_id
    session.shoe_number = found.shoe_number
    report = RecoveryReport(
        last_seq=found.last_seq,
        events=found.events,
        rounds=found.rounds,
        completed_rounds=found.completed,
        last_round_id=found.round_id,
        shoe_number=found.shoe_number,
        config_hash=config.config_hash(),
        logged_config_hash=None if found.opened is None else found.opened.config_hash,
    )
    if found.revealed:
        # What the terminals are shown of the last retired shoe (TableBook.public_shoe).
        last = max(found.revealed)
        if last in found.committed:
            session.last_retired = (found.committed[last].commitment, found.revealed[last])
    current = found.committed.get(found.shoe_number)
    if current is not None and current.shoe not in found.revealed:
        shoe, salt = _unseal_shoe(current, table_id, sealing_key)
        cards = found.cards.get(current.shoe, [])
        report.cards_checked = _position_shoe(shoe, current.shoe, cards)
        session.shoe, session._salt = shoe, salt
        report.shoe_position = shoe.position
    changed = found.opened is None or found.opened.config_hash != config.config_hash()
    interrupted = found.interrupted
    if interrupted is not None:
        if changed:
            logged = "none" if found.opened is None else found.opened.config_hash
            raise _changed_mid_round(table_id, interrupted.round_id, logged, config)
        report.interrupted_round = interrupted.round_id
        interrupted = _with_shoe_cards(session, interrupted)
        report.phase = game.resume(session, interrupted, seats)
    elif changed or any(meter_id not in meters for meter_id in game.meters(config)):
        if found.opened is not None and session.shoe is not None:
            report.retired_shoe = session.shoe_number
            session.retire_shoe()
            report.shoe_position = None
        session.open()
        report.opened = True
    report.wallets = dict(session.ledger.wallets)
    return session, report


#: The kinds of the progressive meters' events (``meter_opened``, ``meter_contributed``, ...).
_METER_KINDS: frozenset[str] = frozenset(
    {
        "meter_opened",
        "meter_contributed",
        "meter_awarded",
        "meter_reseeded",
        "mystery_trigger_drawn",
        "mystery_awarded",
    }
)


#: Gives a table its view of the meters when its Rules Submission links some across the
#: floor: ``(config, the server's bank, the table's round id) -> the table's bank``
#: (:class:`game_server.floor.meters.TableMeters`).
LinkMeters = Callable[[TableConfig, MeterBank, Callable[[], int]], MeterBank]


def recover_meters(configs: Sequence[TableConfig], reader: EventLogReader) -> MeterBank:
    """The server's progressive meters, folded from every meter event of the log (of every
    table: linked tables share meters) for the meters ``configs`` name.

    Raises:
        MeterReplayError: the logged meter events do not fold, or a meter id is logged with
            another specification than its config gives (give a changed meter a new id).
    """
    specs: dict[str, MeterSpec] = {}
    for config in configs:
        specs.update(game_for(config).meters(config))
    if not specs:
        return MeterBank()
    events = []
    for stored in reader.iter_events():
        if stored.kind in _METER_KINDS and stored.body.get("meter") in specs:
            events.append(decode(stored))
    return MeterBank.replay(specs, events)


def logged_tables(reader: EventLogReader) -> dict[str, str]:
    """Each table of the log with the config hash of its last ``table_opened`` ("" for a
    table retired by a stated change)."""
    found: dict[str, str] = {}
    for stored in reader.events_of_kind("table_opened", "rules_change_stated"):
        if stored.kind == "table_opened":
            found[stored.table_id] = str(stored.body["config_hash"])
        elif not stored.body["config_hash"]:
            found.pop(stored.table_id, None)
    return found


def _differences(logged: Mapping[str, str], configs: Sequence[TableConfig]) -> list[str]:
    given = {config.table_id: config.config_hash() for config in configs}
    lines = []
    for table, config_hash in sorted(given.items()):
        if table not in logged:
            lines.append(f"table {table} is not in the log")
        elif logged[table] != config_hash:
            lines.append(
                f"table {table} was written under Rules Submission {logged[table]}, the one "
                f"given is {config_hash}"
            )
    lines += [
        f"table {table} of the log is not given" for table in sorted(set(logged) - set(given))
    ]
    return lines


def _changed_mid_round(
    table_id: str, round_id: int, logged: str, config: TableConfig
) -> ConfigChangedMidRound:
    return ConfigChangedMidRound(
        f"round {round_id} of table {table_id} is unfinished under config {logged}; restart "
        f"with that Rules Submission to finish it, then change to {config.config_hash()}"
    )


def _refuse_change_mid_round(
    reader: EventLogReader, logged: Mapping[str, str], configs: Sequence[TableConfig]
) -> None:
    """Refuse a stated change of a table whose last round is unfinished before anything is
    written (its ``rules_change_stated`` must not be logged for a change that does not
    happen): one pass over the log, the rounds as :func:`recover_session` reads them.

    Raises:
        ConfigChangedMidRound: a changed table's last round is unfinished.
    """
    changed = {c.table_id: c for c in configs if c.table_id in logged}
    changed = {t: c for t, c in changed.items() if logged[t] != c.config_hash()}
    if not changed:
        return
    unfinished: dict[str, int | None] = {}
    for logged_round in walk(reader.iter_events()):
        if logged_round.table_id in changed:
            done = logged_round.complete
            unfinished[logged_round.table_id] = None if done else logged_round.round_id
    for table_id, round_id in sorted(unfinished.items()):
        if round_id is not None:
            raise _changed_mid_round(table_id, round_id, logged[table_id], changed[table_id])


def _state_change(
    log: EventLog,
    logged: Mapping[str, str],
    configs: Sequence[TableConfig],
    reason: str,
) -> None:
    """Log the operator's stated change for every table changed, added or retired."""
    given = {config.table_id: config.config_hash() for config in configs}
    steps = []
    for table in sorted(set(logged) | set(given)):
        before, after = logged.get(table, ""), given.get(table, "")
        if before != after:
            steps.append(
                NewEvent(table, None, None, to_dict(RulesChangeStated(reason, before, after)))
            )
    log.append(steps)


def open_tables(
    configs: Sequence[TableConfig],
    db_path: str | os.PathLike[str],
    certs_dir: str | os.PathLike[str],
    seats: Callable[[TableConfig], Mapping[str, int]],
    *,
    clock: Clock,
    seeds: Callable[[TableConfig], SeedSource],
    anchors: AnchorStream | None = None,
    change_reason: str | None = None,
    linked: LinkMeters | None = None,
) -> tuple[EventLog, list[tuple[TableBook, RecoveryReport]]]:
    """Create or open one event log and resume every table of ``configs`` from it.

    The tables share the log (each event names its table); each is recovered by
    :func:`recover_session` from its own events. The caller closes the returned log at
    shutdown; if any table cannot be recovered, the log is closed and the error raised.

    Args:
        configs: The tables' Rules Submissions.
        db_path: The event log database.
        certs_dir: The key directory (log-signing key, its public key, shoe-sealing key).
        seats: Terminal id -> seat number, per table.
        clock: The log's clock.
        seeds: Seed material of new shoes, per table (production or simulation seeds).
        anchors: The anchor stream: the log is proven from its last anchored checkpoint
            (:meth:`EventLog.create_or_open`) and every new checkpoint is kept there.
        change_reason: The operator's statement of an intended change of the tables or their
            Rules Submissions against the log; None: a log of other tables or rules is
            refused (:class:`TablesDiffer`).
        linked: Gives a table whose Rules Submission links meters across the floor its
            view of the meters (:class:`LinkMeters`; ``etg serve --store``).

    Raises:
        TablesDiffer: the log holds other tables or Rules Submissions and no change was
            stated (nothing is written).
        ConfigChangedMidRound: a stated change of a table whose last round is unfinished
            (nothing is written).
    """
    # Every key must be there before the log is created or opened.
    load_sealing_key(certs_dir)
    load_public_key(certs_dir)
    log = EventLog.create_or_open(db_path, load_signing_key(certs_dir), clock, anchors=anchors)
    try:
        with EventLogReader.open(db_path) as reader:
            logged = logged_tables(reader)
            differences = _differences(logged, configs) if logged else []
            if differences and change_reason is None:
                raise TablesDiffer(
                    f"the log {db_path} was not written by the tables given: "
                    + "; ".join(differences)
                    + ". Give the server the Rules Submission and tables of this log (or "
                    "another log), or state the change: etg serve --change-config 'REASON'"
                )
            if differences:
                _refuse_change_mid_round(reader, logged, configs)
        if differences and change_reason is not None:
            _state_change(log, logged, configs, change_reason)
        tables = _recover_all(configs, log, db_path, certs_dir, seats, seeds, linked)
    except BaseException:
        log.close(checkpoint=False)
        raise
    return log, tables


def _recover_all(
    configs: Sequence[TableConfig],
    log: EventLog,
    db_path: str | os.PathLike[str],
    certs_dir: str | os.PathLike[str],
    seats: Callable[[TableConfig], Mapping[str, int]],
    seeds: Callable[[TableConfig], SeedSource],
    linked: LinkMeters | None = None,
) -> list[tuple[TableBook, RecoveryReport]]:
    sealing_key = load_sealing_key(certs_dir)
    signing_id = key_id(load_public_key(certs_dir))
    with EventLogReader.open(db_path) as reader:
        meters = recover_meters(configs, reader)
        found: list[tuple[TableBook, RecoveryReport]] = []

        def round_of(at: int) -> Callable[[], int]:
            return lambda: found[at][0].round_id

        for config in configs:
            bank = meters
            if linked is not None and config.linked_meters is not None:
                # The session is made below; its round id is read when a meter changes.
                bank = linked(config, meters, round_of(len(found)))
            found.append(
                recover_session(
                    config,
                    log,
                    reader,
                    SealedShoes(config, seeds(config), sealing_key, signing_id),
                    seats(config),
                    sealing_key,
                    bank,
                )
            )
        return found


def reload_tables(
    configs: Sequence[TableConfig],
    log: EventLog,
    db_path: str | os.PathLike[str],
    certs_dir: str | os.PathLike[str],
    seats: Callable[[TableConfig], Mapping[str, int]],
    *,
    seeds: Callable[[TableConfig], SeedSource],
    linked: LinkMeters | None = None,
    resume: bool = True,
) -> list[tuple[TableBook, RecoveryReport]]:
    """After a failed log write: prove the log again and rebuild every table from it.

    The sessions in memory may be ahead of the log (a step built but not stored, a meter
    contribution counted but not logged), so they are not trusted: the log is proven from
    where its writer left it (:meth:`EventLog.resume`, which also catches the anchor stream
    up) and every table, and the meters they share, are recovered from it exactly as at a
    restart. The caller hands each machine its new session.

    With ``resume=False`` (at once after a failed commit, the log still out of service) the
    tables are recovered as the log holds them, writing nothing: when the log commits on its
    own thread (:meth:`EventLog.write_behind`) the sessions are ahead of it by every step
    planned after the last commit (a wager taken from a wallet, a card dealt), steps never
    saved that nobody was told of, so what the terminals and the operator are shown while
    the tables are out of service comes from these sessions instead.

    Raises:
        LogWriteFailed: the log still cannot be written or read, or no longer ends where its
            writer left it; the sentence says why (the tables stay out of service).
    """
    try:
        if resume:
            log.resume()
        return _recover_all(configs, log, db_path, certs_dir, seats, seeds, linked)
    except (EventLogError, RecoveryError) as exc:
        what = "the table cannot reopen yet" if resume else "the log cannot be read back"
        raise LogWriteFailed(f"{what}: {exc}") from exc


def open_table_reporting(
    config: TableConfig,
    db_path: str | os.PathLike[str],
    certs_dir: str | os.PathLike[str],
    seats: Mapping[str, int],
    *,
    clock: Clock,
    seeds: SeedSource,
    change_reason: str | None = None,
) -> tuple[TableBook, RecoveryReport]:
    """:func:`open_table`, also returning the :class:`RecoveryReport`."""
    _, tables = open_tables(
        [config],
        db_path,
        certs_dir,
        lambda _: seats,
        clock=clock,
        seeds=lambda _: seeds,
        change_reason=change_reason,
    )
    return tables[0]


def open_table(
    config: TableConfig,
    db_path: str | os.PathLike[str],
    certs_dir: str | os.PathLike[str],
    seats: Mapping[str, int],
    *,
    clock: Clock,
    seeds: SeedSource,
) -> TableBook:
    """Create or open the table's event log and resume the table from it.

    A new log is opened with the Rules Submission (``table_opened``); an existing one is
    recovered by :func:`recover_session`. The session writes to the open log
    (``session.sink``); the caller closes it (``session.sink.close()``) at shutdown.

    Args:
        config: The table's Rules Submission.
        db_path: The event log database.
        certs_dir: The key directory (log-signing key, its public key, shoe-sealing key).
        seats: Terminal id -> seat number.
        clock: The log's clock.
        seeds: Seed material of new shoes (production or simulation seeds).
    """
    session, _ = open_table_reporting(config, db_path, certs_dir, seats, clock=clock, seeds=seeds)
    return session
