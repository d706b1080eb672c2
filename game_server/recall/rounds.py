"""Reading a log as rounds: the one place that knows how a round sits in the log.

The table writes, per table (see :mod:`game_server.table.session`)::

    table_opened                   the Rules Submission in force (again after every change)
    shoe_revealed / shoe_committed a retired shoe's seed in clear, a new shoe's commitment
    round_started                  round id, shoe number, config hash, seats/terminals/balances
    wager_placed ... round_completed   the engine's events (games/blackjack/rules/events.py)
    round_closed                   balances after the round, in the round's last step
    credits_in / credits_out       wallet changes (inside or outside a round)

At a hybrid table (58 Pa. Code 633b.5, :mod:`game_server.games.hybrid.session`) the engine's
events are those of its table type's engine (:func:`engine_kinds`): terminals hold no seat
(``round_started`` lists seat 0 for each) and every player's event names its terminal in the
envelope.

At an Ultimate Texas Hold 'Em table (``game = "uth"``, 58 Pa. Code 653a,
:mod:`game_server.games.uth.session`) they are the UTH engine's (:data:`UTH_KINDS`, by
:func:`engine_kinds_for`), with the meter awards and reseeds its settlement produces; each
round is dealt from a shoe of one deck committed before it and revealed at the next round's
start.

Every event of a round carries the round id in its envelope. :func:`walk` streams a log once,
in order, and hands out each round with the config it was played under and the shoe it was
dealt from; recall and ``etg verify`` both use it, so neither has its own idea of the format.

Entry points: :func:`walk`, :func:`load_round`, :func:`engine_kinds`, :func:`engine_kinds_for`,
:data:`ENGINE_KINDS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from game_server.config import TableConfig, config_from_dict
from game_server.eventlog import EventLogReader, StoredEvent
from game_server.games.blackjack.rules.events import (
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    ProgressiveWon,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.hybrid.rules.events import (
    Hybrid3CardUsed,
    Hybrid3CommunityCard,
    Hybrid3Decision,
    Hybrid3WagerPlaced,
    Hybrid3WagerSettled,
)
from game_server.games.hybrid.rules.no_hole_card import CardDesignated, DealerHandCompleted
from game_server.games.uth.config import rules_of as uth_rules_of
from game_server.games.uth.rules.events import (
    UthCardDealt,
    UthDealerRevealed,
    UthDecision,
    UthHandShown,
    UthPayoutCapped,
    UthRoundCompleted,
    UthSettlementStarted,
    UthStreetStarted,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.rules.events import from_dict
from game_server.rules.meters import MeterAwarded, MeterReseeded
from game_server.rules.wagers.base import TableType
from game_server.table.events import (
    RoundClosed,
    RoundStarted,
    ShoeCommitted,
    ShoeRevealed,
    TableOpened,
)

#: The kinds of record the Blackjack engine produces (what replay feeds back to it).
ENGINE_KINDS: frozenset[type] = frozenset(
    {
        WagerPlaced,
        CardDealt,
        Decision,
        DealerPeeked,
        HoleCardRevealed,
        WagerSettled,
        ProgressiveWon,
        RoundCompleted,
    }
)

#: The kinds of record the three-position hybrid engine produces (633b.5(a)-(v)).
HYBRID3_KINDS: frozenset[type] = frozenset(
    {
        Hybrid3WagerPlaced,
        Hybrid3Decision,
        Hybrid3CommunityCard,
        Hybrid3CardUsed,
        Hybrid3WagerSettled,
        CardDealt,
        DealerPeeked,
        HoleCardRevealed,
        RoundCompleted,
    }
)

#: The kinds of record the hybrid engine without a hole card produces (633b.5(w)-(ee)).
NO_HOLE_CARD_KINDS: frozenset[type] = frozenset(
    {
        WagerPlaced,
        CardDealt,
        Decision,
        CardDesignated,
        DealerHandCompleted,
        WagerSettled,
        RoundCompleted,
    }
)

#: The kinds of record the Ultimate Texas Hold 'Em engine produces (653a), with the meter
#: records its settlement produces (the deal's contributions are the table's, not the engine's).
UTH_KINDS: frozenset[type] = frozenset(
    {
        UthWagerPlaced,
        UthCardDealt,
        UthStreetStarted,
        UthDecision,
        UthDealerRevealed,
        UthHandShown,
        UthSettlementStarted,
        UthWagerSettled,
        UthPayoutCapped,
        MeterAwarded,
        MeterReseeded,
        UthRoundCompleted,
    }
)
#: Every kind that completes a round, whatever the game.
COMPLETED_KINDS: frozenset[type] = frozenset({RoundCompleted, UthRoundCompleted})

_KINDS_OF: dict[TableType, frozenset[type]] = {
    TableType.FULLY_AUTOMATED: ENGINE_KINDS,
    TableType.HYBRID: HYBRID3_KINDS,
    TableType.HYBRID_NO_HOLE_CARD: NO_HOLE_CARD_KINDS,
}


def engine_kinds(table_type: TableType) -> frozenset[type]:
    """The kinds of record the engine of ``table_type`` produces (what its replay is fed)."""
    return _KINDS_OF[table_type]


def engine_kinds_for(config: TableConfig) -> frozenset[type]:
    """The kinds of record the engine of ``config``'s game and table type produces."""
    if uth_rules_of(config) is not None:
        return UTH_KINDS
    return engine_kinds(config.table_type)


@dataclass(frozen=True, slots=True)
class Logged:
    """One stored event and its decoded record."""

    stored: StoredEvent
    event: Any

    @property
    def seq(self) -> int:
        return self.stored.seq


@dataclass
class ShoeRecord:
    """A shoe as the log tells it: its commitment and, once retired, its reveal."""

    table_id: str
    number: int
    committed: Logged
    revealed: Logged | None = None


@dataclass
class LoggedRound:
    """One round of one table, with everything needed to recall, replay and check it."""

    table_id: str
    round_id: int
    config: TableConfig
    config_seq: int
    shoe: ShoeRecord | None
    events: list[Logged] = field(default_factory=list)

    @property
    def started(self) -> RoundStarted | None:
        for item in self.events:
            if type(item.event) is RoundStarted:
                return item.event
        return None

    @property
    def closed(self) -> RoundClosed | None:
        for item in reversed(self.events):
            if type(item.event) is RoundClosed:
                return item.event
        return None

    @property
    def complete(self) -> bool:
        return any(type(item.event) in COMPLETED_KINDS for item in self.events)

    def engine_events(self) -> list[Logged]:
        """The engine's records of the round, in log order (what replay is fed): those of
        the engine of the table type in force (:func:`engine_kinds`)."""
        kinds = engine_kinds_for(self.config)
        return [item for item in self.events if type(item.event) in kinds]


def decode(stored: StoredEvent) -> Any:
    """The record of a stored event (raises EventDecodeError for an unknown kind)."""
    return from_dict(stored.body)


@dataclass
class _TableState:
    config: TableConfig | None = None
    config_seq: int = 0
    shoes: dict[int, ShoeRecord] = field(default_factory=dict)
    current: LoggedRound | None = None


def walk(
    events: Iterable[StoredEvent],
    *,
    on_event: Any = None,
    on_shoe_revealed: Any = None,
) -> Iterator[LoggedRound]:
    """Stream rounds from events in log order (one pass; memory bounded by one round).

    Each round is yielded once its last event has been read (when the next event of that
    table is outside it, or at the end of the log: an incomplete last round is yielded too,
    with ``complete`` False). ``on_event(logged)`` sees every decoded event first;
    ``on_shoe_revealed(shoe_record)`` is called when a reveal is read.

    Raises:
        ConfigError: a logged config this build cannot read.
        EventDecodeError: an event of an unknown kind or schema.
    """
    tables: dict[str, _TableState] = {}
    for stored in events:
        item = Logged(stored, from_dict(stored.body))
        if on_event is not None:
            on_event(item)
        state = tables.get(stored.table_id)
        if state is None:
            state = tables[stored.table_id] = _TableState()
        current = state.current
        if current is not None and stored.round_id != current.round_id:
            state.current = None
            yield current
            current = None
        kind = type(item.event)
        if kind is TableOpened:
            state.config = config_from_dict(item.event.config, f"table_opened at seq {item.seq}")
            state.config_seq = item.seq
        elif kind is ShoeCommitted:
            state.shoes[item.event.shoe] = ShoeRecord(stored.table_id, item.event.shoe, item)
        elif kind is ShoeRevealed:
            record = state.shoes.get(item.event.shoe)
            if record is not None:
                record.revealed = item
                if on_shoe_revealed is not None:
                    on_shoe_revealed(record)
        if stored.round_id is None:
            continue
        if current is None:
            if state.config is None:
                raise LookupError(
                    f"seq {item.seq}: round {stored.round_id} of table {stored.table_id} "
                    "comes before any table_opened: the log does not say which rules applied"
                )
            shoe = None
            if kind is RoundStarted:
                shoe = state.shoes.get(item.event.shoe)
            current = state.current = LoggedRound(
                stored.table_id, stored.round_id, state.config, state.config_seq, shoe
            )
        current.events.append(item)
    for state in tables.values():
        if state.current is not None:
            yield state.current


def load_round(reader: EventLogReader, table_id: str, round_id: int) -> LoggedRound | None:
    """One round, with the config and shoe records that precede it (reads the log up to the
    round's last event; recall of one round)."""
    events = reader.events_for_round(table_id, round_id)
    if not events:
        return None
    last = events[-1].seq
    for logged_round in walk(_until(reader, last)):
        if logged_round.table_id == table_id and logged_round.round_id == round_id:
            return logged_round
    return None


def _until(reader: EventLogReader, last_seq: int) -> Iterator[StoredEvent]:
    for stored in reader.iter_events():
        if stored.seq > last_seq:
            return
        yield stored
