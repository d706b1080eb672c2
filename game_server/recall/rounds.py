"""Reading a log as rounds: the one place that knows how a round sits in the log.

The table writes, per table (see :mod:`game_server.table.session`)::

    table_opened                   the Rules Submission in force (again after every change)
    shoe_revealed / shoe_committed a retired shoe's seed in clear, a new shoe's commitment
    round_started                  round id, shoe number, config hash, seats/terminals/balances
    ... round_completed            the engine's events (its game's: wagers, cards, decisions)
    round_closed                   balances after the round, in the round's last step
    credits_in / credits_out       wallet changes (inside or outside a round)

The engine's records are those of the table's game
(:meth:`~game_server.games.api.Game.engine_kinds`, :func:`engine_kinds_for`); at a table in
stadium play (the hybrid tables of 633b.5) terminals hold no seat (``round_started`` lists
seat 0 for each) and every player's event names its terminal in the envelope.

Every event of a round carries the round id in its envelope. :func:`walk` streams a log once,
in order, and hands out each round with the config it was played under and the shoe it was
dealt from; recall and ``etg verify`` both use it, so neither has its own idea of the format.

Entry points: :func:`walk`, :func:`load_round`, :func:`engine_kinds_for`,
:func:`completed_kinds`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from game_server.config import TableConfig, config_from_dict
from game_server.eventlog import EventSource, StoredEvent
from game_server.rules.events import from_dict
from game_server.table.events import (
    RoundClosed,
    RoundStarted,
    ShoeCommitted,
    ShoeRevealed,
    TableOpened,
)
from game_server.table.secrecy import PUBLIC, Viewer, fill_unsealed, sight_round


def completed_kinds() -> frozenset[type]:
    """Every kind of record that completes a round, whatever the game
    (:meth:`~game_server.games.api.Game.completed_kinds`)."""
    from game_server import games

    return frozenset(kind for game in games.games() for kind in game.completed_kinds)


def engine_kinds_for(config: TableConfig) -> frozenset[type]:
    """The kinds of record the engine of ``config``'s game and table type produces."""
    from game_server import games

    return games.game_for(config).engine_kinds(config.table_type)


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
        completed = completed_kinds()
        return any(type(item.event) in completed for item in self.events)

    def engine_events(self) -> list[Logged]:
        """The engine's records of the round, in log order (what replay is fed): those of
        the engine of the game and table type in force (:func:`engine_kinds_for`)."""
        kinds = engine_kinds_for(self.config)
        return [item for item in self.events if type(item.event) in kinds]


def _with_records(logged: LoggedRound, records: list[Any]) -> LoggedRound:
    logged.events = [
        item if record is item.event else Logged(item.stored, record)
        for item, record in zip(logged.events, records, strict=True)
    ]
    return logged


def unsealed(logged: LoggedRound) -> LoggedRound:
    """The round with the cards it logged sealed filled in from its ``cards_unsealed`` (a
    closed round whole; a round in play as the log holds it): what :func:`walk` yields to
    verification and recovery, which are not exits."""
    from game_server import games

    secrecy = games.game_for(logged.config).secrecy(logged.config.table_type)
    return _with_records(
        logged,
        fill_unsealed(secrecy, [item.event for item in logged.events]),
    )


def sighted(logged: LoggedRound, viewer: Viewer = PUBLIC) -> LoggedRound:
    """The round as ``viewer`` may see it (:func:`~game_server.table.secrecy.sight_round`,
    the one redaction of what is read from a log): closed, whole, its sealed cards filled in
    from its ``cards_unsealed``; in play, every card ``viewer`` may not see yet sealed (the
    public: the staff and the tools; a terminal: also its own cards, where the log holds
    them in clear). Every :class:`LoggedRound` recall, the console, the CLI, receipts and
    pictures are built from is made here."""
    from game_server import games

    secrecy = games.game_for(logged.config).secrecy(logged.config.table_type)
    records = sight_round(
        secrecy, [(item.stored.terminal, item.event) for item in logged.events], viewer
    )
    return _with_records(logged, records)


def decode(stored: StoredEvent) -> Any:
    """The record of a stored event (raises EventDecodeError for an unknown kind); every
    registered game's records are known."""
    from game_server import games

    games.games()  # loading the games registers their event records
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
    from game_server import games

    games.games()  # loading the games registers their event records
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
            yield unsealed(current)
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
            yield unsealed(state.current)


def load_round(
    reader: EventSource, table_id: str, round_id: int, viewer: Viewer = PUBLIC
) -> LoggedRound | None:
    """One round as ``viewer`` may see it (:func:`sighted`), with the config and shoe records
    that precede it (reads the log up to the round's last event; recall of one round)."""
    events = reader.events_for_round(table_id, round_id)
    if not events:
        return None
    last = events[-1].seq
    for logged_round in walk(_until(reader, last)):
        if logged_round.table_id == table_id and logged_round.round_id == round_id:
            return sighted(logged_round, viewer)
    return None


def _until(reader: EventSource, last_seq: int) -> Iterator[StoredEvent]:
    for stored in reader.iter_events():
        if stored.seq > last_seq:
            return
        yield stored
