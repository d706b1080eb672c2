"""Recall queries over an event log: find rounds, summarise them, load one round fast.

Game recall must reach "the most recent Game played and nine Games prior" at least (AGCO
Standards 13.1.1, GLI-11 "Game Recall", Fla. Admin. Code R. 75-14.043(4): the last ten games;
``regs/notes/standards-gli.md`` section 3), and an investigator handling a dispute must find
the round in question among millions of events. Everything here reads through an
:class:`~game_server.eventlog.EventSource`: a SQLite log's
:class:`~game_server.eventlog.EventLogReader`, whose connection is read-only, or one log of
the floor store (:class:`~game_server.floor.source.StoreLogSource`, read as an
investigator); each query is written once, in the source's
:class:`~game_server.eventlog.store.Dialect`. Recall never writes to the log.

Entry points:

- :func:`list_rounds` -- the rounds of ``etg recall list``, newest first, as
  :class:`RoundSummary` (totals wagered and paid, the biggest single win and its paytable
  line, complete or not).
- :func:`fetch_round` -- one round as a :class:`~game_server.recall.rounds.LoggedRound`
  by indexed reads (the same value :func:`~game_server.recall.rounds.load_round` returns,
  without walking the log from its start).
- :func:`find_table` -- which table played a round id (errors that list the nearest
  rounds, or ask for ``--table``).
- :func:`recall_round` -- the :class:`~game_server.recall.timeline.Timeline` of a round.
- :func:`parse_time_arg` -- ``--since``/``--until`` text to an aware UTC datetime.

Cost on a log of 1,000,000 events (``tools.recall_bench.bench_recall``):

- Without ``wager``/``min_payout``, :func:`list_rounds` is
  :meth:`~game_server.eventlog.EventLogReader.recent_rounds` (a backwards walk of the
  ``(terminal, time)``, ``(table_id, time)`` or ``(time)`` index that stops after ``last``
  rounds) and one ``(table_id, round_id)`` index read per round found: milliseconds.
- With ``wager`` or ``min_payout`` the rounds that qualify may be anywhere in the log, so the
  query walks, newest first, every game's records of a wager placed (or settled: its
  :meth:`~game_server.games.api.Game.placed_kinds`, ``settled_kinds``) that match the
  other filters -- through the ``(terminal, time)`` index with ``terminal``, the ``(table_id,
  time)`` index with ``table``, else the ``(kind)`` index -- testing each body with
  ``json_extract``, and stops after ``last`` rounds. A common wager answers in milliseconds;
  a wager that is never placed (or a payout never reached) reads every matching wager event
  once: bounded by the number of wager events of that terminal / table / log (a few hundred
  milliseconds on 1,000,000 events without a terminal or table filter).

A round id that a table used twice (round numbers restarted) conflates in the
``(table_id, round_id)`` index; :func:`fetch_round` then falls back to
:func:`~game_server.recall.rounds.load_round`, which walks the log and returns the first.
"""

from __future__ import annotations

import heapq
from collections.abc import Generator, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from game_server.config import config_from_dict
from game_server.eventlog import EventSource, StoredEvent, format_time
from game_server.eventlog.schema import EVENT_COLUMNS
from game_server.eventlog.store import Dialect
from game_server.recall.rounds import (
    Logged,
    LoggedRound,
    ShoeRecord,
    completed_kinds,
    load_round,
    sighted,
)
from game_server.recall.timeline import Timeline, build_timeline, reveal_fields
from game_server.rules.events import EventDecodeError, from_dict, kind_of
from game_server.table.events import RoundStarted
from game_server.table.ledger import PLACED, SETTLED, wager_roles
from game_server.table.secrecy import PUBLIC, Viewer
from shared.errors import ETGError

#: Rounds shown by default: the current game and the nine before it (AGCO 13.1.1, GLI-11).
DEFAULT_LAST: Final = 10
#: Nearest rounds listed when a round id is not in the log.
NEAREST: Final = 5

#: The three-position hybrid engine's wager records (58 Pa. Code 633b.5(a)-(v)).


def _kinds(role: str) -> frozenset[str]:
    """The kinds of every game's wager records of ``role`` (placed or settled), by name."""
    return frozenset(kind_of(cls) for cls, found in wager_roles().items() if found == role)


class RecallError(ETGError):
    """Base of the refusals of recall (an unknown round, an ambiguous one, a bad time)."""


class RoundNotFound(RecallError):
    """A round id that no table of the log played."""


class AmbiguousRound(RecallError):
    """A round id that several tables of the log played: the table must be named."""


# -- times -----------------------------------------------------------------------------------


def parse_time_arg(text: str, *, end_of_day: bool = False) -> datetime:
    """An aware UTC datetime from ``--since``/``--until`` text (ISO 8601).

    Accepts ``2026-11-29T15:00:00Z``, an offset (``+01:00``), a naive time (taken as UTC),
    and a date alone (``2026-11-29``): midnight UTC at its start, or with ``end_of_day`` the
    midnight that ends it (so ``--until 2026-11-29`` includes that whole day).

    Raises:
        RecallError: text that is not an ISO 8601 date or time.
    """
    value = text.strip()
    try:
        day = date.fromisoformat(value)
    except ValueError:
        pass
    else:
        moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
        return moment + timedelta(days=1) if end_of_day else moment
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise RecallError(
            f"{text!r} is not a time: write ISO 8601 in UTC, e.g. 2026-11-29T15:00:00Z, "
            "2026-11-29T15:00 or 2026-11-29"
        ) from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


# -- summaries -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Win:
    """The biggest single win of a round: the settlement that paid the most.

    Attributes:
        seq: Its sequence number.
        terminal: The terminal it paid.
        seat: Its seat (at the three-position hybrid table, its player position; at the
            no-hole-card table, the player's number in the round).
        hand: Its hand within the seat.
        wager: The wager's name.
        stake: The stake settled.
        paid: What it paid back (stake included), cents.
        line: The paytable line or rule that paid it.
    """

    seq: int
    terminal: str | None
    seat: int
    hand: int
    wager: str
    stake: int
    paid: int
    line: str

    def to_json(self) -> dict[str, Any]:
        """The fields as a dict, with ``won`` (``paid - stake``)."""
        return {
            "seq": self.seq,
            "terminal": self.terminal,
            "seat": self.seat,
            "hand": self.hand,
            "wager": self.wager,
            "stake": self.stake,
            "paid": self.paid,
            "won": self.paid - self.stake,
            "line": self.line,
        }


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One line of ``etg recall list`` (money in integer cents).

    Attributes:
        table_id: The table.
        round_id: The round.
        first_seq: Its first event.
        last_seq: Its last event.
        start: Time of its first event (UTC text).
        end: Time of its last event.
        events: How many events it has.
        terminals: The terminals its events concern, sorted.
        wagered: Sum of its ``wager_placed`` (or ``hybrid3_wager_placed``) amounts (every
            category).
        paid: Sum of what its ``wager_settled`` (or ``hybrid3_wager_settled``) paid back
            (stakes included).
        biggest_win: The settlement that paid the most among those that paid more than
            their stake, or None.
        complete: ``round_completed`` is logged.
    """

    table_id: str
    round_id: int
    first_seq: int
    last_seq: int
    start: str
    end: str
    events: int
    terminals: tuple[str, ...]
    wagered: int
    paid: int
    biggest_win: Win | None
    complete: bool

    @property
    def status(self) -> str:
        """``"complete"`` or ``"interrupted"``."""
        return "complete" if self.complete else "interrupted"

    def to_json(self) -> dict[str, Any]:
        """One object of ``etg recall list --json``."""
        return {
            "table": self.table_id,
            "round": self.round_id,
            "start": self.start,
            "end": self.end,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "events": self.events,
            "terminals": list(self.terminals),
            "wagered": self.wagered,
            "paid": self.paid,
            "biggest_win": None if self.biggest_win is None else self.biggest_win.to_json(),
            "complete": self.complete,
            "status": self.status,
        }


def summarize(events: Sequence[StoredEvent]) -> RoundSummary:
    """The summary of one round from its stored events (only wager bodies are parsed).

    Args:
        events: Every event of one round of one table, in sequence order (non-empty), as
            :meth:`~game_server.eventlog.EventLogReader.events_for_round` returns them.
    """
    first, last = events[0], events[-1]
    wagered = paid = 0
    best: Win | None = None
    terminals: set[str] = set()
    complete = False
    placed_kinds, settled_kinds = _kinds(PLACED), _kinds(SETTLED)
    completed = frozenset(kind_of(cls) for cls in completed_kinds())
    for stored in events:
        kind = stored.kind
        if stored.terminal is not None:
            terminals.add(stored.terminal)
        if kind in placed_kinds:
            wagered += stored.body["amount"]
        elif kind in settled_kinds:
            body = stored.body
            amount = body["paid"]
            paid += amount
            if amount > body["stake"] and (best is None or amount > best.paid):
                best = Win(
                    stored.seq,
                    stored.terminal,
                    body["seat"] if "seat" in body else body["position"],
                    body.get("hand", 0),  # a Hold 'Em seat has one hand
                    body["wager"],
                    body["stake"],
                    amount,
                    body["line"],
                )
        elif kind in completed:
            complete = True
    assert first.round_id is not None
    return RoundSummary(
        table_id=first.table_id,
        round_id=first.round_id,
        first_seq=first.seq,
        last_seq=last.seq,
        start=first.time,
        end=last.time,
        events=len(events),
        terminals=tuple(sorted(terminals)),
        wagered=wagered,
        paid=paid,
        biggest_win=best,
        complete=complete,
    )


# -- SQL helpers -----------------------------------------------------------------------------


def _rows(reader: EventSource, sql: str, params: Sequence[object]) -> list[Any]:
    return reader.select(sql, params)


def _iter_rows(
    reader: EventSource, sql: str, params: Sequence[object]
) -> Generator[Any, None, None]:
    """Rows one by one; the cursor is closed when the caller stops early (``close()``)."""
    return reader.select_iter(sql, params)


def _filters(
    d: Dialect,
    terminal: str | None,
    table: str | None,
    since: datetime | None,
    until: datetime | None,
) -> tuple[list[str], list[object], str]:
    """WHERE terms, their parameters and the ORDER BY that make SQLite walk the right index.

    With a terminal: the ``(terminal, time)`` index, newest first; else with a table: the
    ``(table_id, time)`` index; else the ``(kind)`` index in ``seq`` order. Columns that
    must not pick an index are written ``+column``.
    """
    where: list[str] = []
    params: list[object] = []
    p = d.param
    if terminal is not None:
        where.append(f"terminal = {p}")
        params.append(terminal)
    if table is not None:
        where.append(f"{'table_id' if terminal is None else d.unindexed('table_id')} = {p}")
        params.append(table)
    indexed_by_time = terminal is not None or table is not None
    column = "time" if indexed_by_time else d.unindexed("time")
    if since is not None:
        where.append(f"{column} >= {p}")
        params.append(format_time(since))
    if until is not None:
        where.append(f"{column} < {p}")
        params.append(format_time(until))
    order = "time DESC, seq DESC" if indexed_by_time else "seq DESC"
    return where, params, order


def _candidates(
    reader: EventSource,
    kinds: frozenset[str],
    test: str,
    value: object,
    terminal: str | None,
    table: str | None,
    since: datetime | None,
    until: datetime | None,
) -> Generator[tuple[str, int], None, None]:
    """``(table_id, round_id)`` of the events of ``kinds`` (a wager event of every table
    type: the three-position hybrid table logs its own) that pass ``test`` and every filter,
    newest first (repeats included): one index walk per kind, merged in the walks' order."""
    d = reader.dialect
    where, params, order = _filters(d, terminal, table, since, until)
    by_time = terminal is not None or table is not None
    kind_term = f"{d.unindexed('kind') if by_time else 'kind'} = {d.param}"
    sql = (
        f"SELECT time, seq, table_id, round_id FROM {d.events} WHERE "
        + " AND ".join([kind_term, "round_id IS NOT NULL", *where, test])
        + f" ORDER BY {order}"
    )
    walks = [_iter_rows(reader, sql, [kind, *params, value]) for kind in sorted(kinds)]
    try:
        merged = heapq.merge(
            *walks,
            key=(lambda row: (row[0], row[1])) if by_time else (lambda row: row[1]),
            reverse=True,
        )
        for row in merged:
            yield row[2], row[3]
    finally:
        for walk in walks:
            walk.close()


def _matches(
    stored: StoredEvent,
    terminal: str | None,
    since: str | None,
    until: str | None,
) -> bool:
    if terminal is not None and stored.terminal != terminal:
        return False
    if since is not None and stored.time < since:
        return False
    return until is None or stored.time < until


def list_rounds(
    reader: EventSource,
    *,
    last: int = DEFAULT_LAST,
    terminal: str | None = None,
    table: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    wager: str | None = None,
    min_payout: int | None = None,
) -> list[RoundSummary]:
    """The most recent rounds that pass every filter, newest first (``etg recall list``).

    A round qualifies, as in :meth:`~game_server.eventlog.EventLogReader.recent_rounds`, if
    one of its events concerns ``terminal``, is at ``table`` and lies in ``[since,
    until)``; with ``wager``, one of its ``wager_placed`` events of that wager must itself
    pass those filters (the terminal placed it, in the window); with ``min_payout``, one of
    its ``wager_settled`` events must pay at least that many cents (stake included) and
    pass them. Both given: both conditions. Rounds are ordered by the time of the matching
    event (by its sequence number when neither ``terminal`` nor ``table`` is given and a
    wager filter is; the two orders differ only if the clock stepped back). The module
    docstring gives the cost of each path.

    Args:
        reader: The log.
        last: At most this many rounds.
        terminal: Only rounds this terminal took part in.
        table: Only rounds of this table.
        since: Only rounds with a matching event at or after this aware time.
        until: Only rounds with a matching event before this aware time.
        wager: Only rounds where this wager (``"blackjack"``, ``"lucky_aces"``, ...) was
            placed.
        min_payout: Only rounds where a single settlement paid at least this many cents.

    Raises:
        ValueError: ``last`` below 1 or a naive time.
        LogDamaged: SQLite cannot read the log.
    """
    if last < 1:
        raise ValueError(f"last must be at least 1, got {last}")
    with reader.snapshot():
        if wager is None and min_payout is None:
            spans = reader.recent_rounds(terminal, table, since, until, limit=last)
            return [summarize(reader.events_for_round(s.table_id, s.round_id)) for s in spans]
        d = reader.dialect
        if min_payout is not None:
            test = f"{d.json_int('paid')} >= {d.param}"
            keys = _candidates(
                reader, _kinds(SETTLED), test, min_payout, terminal, table, since, until
            )
        else:
            test = f"{d.json_text('wager')} = {d.param}"
            placed_kinds = _kinds(PLACED)
            keys = _candidates(reader, placed_kinds, test, wager, terminal, table, since, until)
        after = None if since is None else format_time(since)
        before = None if until is None else format_time(until)
        found: list[RoundSummary] = []
        seen: set[tuple[str, int]] = set()
        with closing(keys):
            for key in keys:
                if key in seen:
                    continue
                seen.add(key)
                events = reader.events_for_round(*key)
                if wager is not None and min_payout is not None:
                    placed = any(
                        e.kind in _kinds(PLACED)
                        and e.body.get("wager") == wager
                        and _matches(e, terminal, after, before)
                        for e in events
                    )
                    if not placed:
                        continue
                found.append(summarize(events))
                if len(found) == last:
                    break
        return found


# -- one round -------------------------------------------------------------------------------


def _decode(stored: StoredEvent) -> Any:
    try:
        return from_dict(stored.body)
    except EventDecodeError as exc:
        raise RecallError(
            f"seq {stored.seq}: {exc}; this log may have been written by a newer ETG: "
            "recall it with that version"
        ) from None


def _stored(row: Any) -> StoredEvent:
    return StoredEvent.from_row(row)


def _shoe(
    reader: EventSource, table_id: str, number: int, first_seq: int, last_seq: int
) -> ShoeRecord | None:
    """The shoe record :func:`~game_server.recall.rounds.walk` attaches to a round that
    starts at ``first_seq`` with shoe ``number``: the newest commitment of that number
    before the round, and the newest reveal of it read before ``last_seq`` (if no newer
    commitment of the same number replaced it)."""
    committed: Logged | None = None
    d, p = reader.dialect, reader.dialect.param
    sql = (
        f"SELECT {EVENT_COLUMNS} FROM {d.events} WHERE kind = 'shoe_committed' "
        f"AND {d.unindexed('table_id')} = {p} AND seq < {p} ORDER BY seq DESC"
    )
    rows = _iter_rows(reader, sql, [table_id, first_seq])
    with closing(rows):
        for row in rows:
            stored = _stored(row)
            event = _decode(stored)
            if event.shoe == number:
                committed = Logged(stored, event)
                break
    if committed is None:
        return None
    record = ShoeRecord(table_id, number, committed)
    sql = (
        f"SELECT {EVENT_COLUMNS} FROM {d.events} "
        "WHERE kind IN ('shoe_committed', 'shoe_revealed') "
        f"AND {d.unindexed('table_id')} = {p} AND seq > {p} AND seq <= {p} ORDER BY seq"
    )
    for row in _iter_rows(reader, sql, [table_id, committed.seq, last_seq]):
        stored = _stored(row)
        event = _decode(stored)
        if event.shoe != number:
            continue
        if stored.kind == "shoe_committed":
            break
        record.revealed = Logged(stored, event)
    return record


def fetch_round(
    reader: EventSource, table_id: str, round_id: int, viewer: Viewer = PUBLIC
) -> LoggedRound | None:
    """One round by indexed reads: the value :func:`~game_server.recall.rounds.load_round`
    returns (same events, config, config seq and shoe record), in milliseconds on any log.

    Reads the round's events through the ``(table_id, round_id)`` index, the newest
    ``table_opened`` of the table before the round and the shoe's commitment through the
    ``(kind)`` index. If other events of the table lie between the round's first and last
    event (the round id was used twice), it falls back to ``load_round``.

    The round comes as ``viewer`` may see it (:func:`~game_server.recall.rounds.sighted`:
    a round in play with its face-down cards sealed; the public's by default).

    Returns:
        The round, or None if the table has no round ``round_id``.

    Raises:
        RecallError: an event of a kind this build does not know, or a round that comes
            before any ``table_opened`` of its table (where ``load_round`` raises
            LookupError).
        ConfigError: the logged config cannot be read by this build.
    """
    d, p = reader.dialect, reader.dialect.param
    with reader.snapshot():
        stored = reader.events_for_round(table_id, round_id)
        if not stored:
            return None
        first, last = stored[0].seq, stored[-1].seq
        (count,) = _rows(
            reader,
            f"SELECT count(*) FROM {d.events} WHERE seq BETWEEN {p} AND {p} "
            f"AND {d.unindexed('table_id')} = {p}",
            [first, last, table_id],
        )[0]
        if count != len(stored):
            try:
                return load_round(reader, table_id, round_id, viewer)
            except LookupError as exc:
                raise RecallError(str(exc)) from None
        rows = _rows(
            reader,
            f"SELECT {EVENT_COLUMNS} FROM {d.events} WHERE kind = 'table_opened' "
            f"AND {d.unindexed('table_id')} = {p} AND seq < {p} ORDER BY seq DESC LIMIT 1",
            [table_id, first],
        )
        if not rows:
            raise RecallError(
                f"seq {first}: round {round_id} of table {table_id} comes before any "
                "table_opened: the log does not say which rules applied"
            )
        opened = _stored(rows[0])
        config = config_from_dict(_decode(opened).config, f"table_opened at seq {opened.seq}")
        events = [Logged(s, _decode(s)) for s in stored]
        shoe = None
        if type(events[0].event) is RoundStarted:
            shoe = _shoe(reader, table_id, events[0].event.shoe, first, last)
        return sighted(LoggedRound(table_id, round_id, config, opened.seq, shoe, events), viewer)


def shoe_reveal(reader: EventSource, logged: LoggedRound) -> Logged | None:
    """The ``shoe_revealed`` that retired the round's shoe (after the round), or None while
    the shoe is in use."""
    shoe = logged.shoe
    if shoe is None:
        return None
    if shoe.revealed is not None:
        return shoe.revealed
    d, p = reader.dialect, reader.dialect.param
    rows = _rows(
        reader,
        f"SELECT {EVENT_COLUMNS} FROM {d.events} WHERE kind = 'shoe_revealed' "
        f"AND {d.unindexed('table_id')} = {p} AND seq > {p} "
        f"AND {d.json_int('shoe')} = {p} ORDER BY seq LIMIT 1",
        [logged.table_id, shoe.committed.seq, shoe.number],
    )
    if not rows:
        return None
    stored = _stored(rows[0])
    return Logged(stored, _decode(stored))


#: Shoes a table's shoe list shows by default (the newest first).
DEFAULT_SHOES: Final = 20


@dataclass(frozen=True, slots=True)
class ShoeListing:
    """One shoe of a table as its log tells it (``docs/shoe-spec.md``): its commitment,
    logged before its first card, and once it is retired its reveal (nothing secret before).

    Attributes:
        table_id: The table.
        number: The shoe's number at the table.
        decks: Decks in the shoe.
        cut_card: Cards dealt before the cut card (None: a new shoe every round).
        commitment: SHA-256 of the order and the salt, hex.
        committed_seq: Sequence number of ``shoe_committed``.
        committed_time: When it was committed (UTC, the log's text).
        revealed_seq: Sequence number of ``shoe_revealed`` (None while in use).
        revealed_time: When it was revealed (None while in use).
        reveal: The seed material and salt, hex, by field name (None while in use).
    """

    table_id: str
    number: int
    decks: int
    cut_card: int | None
    commitment: str
    committed_seq: int
    committed_time: str
    revealed_seq: int | None
    revealed_time: str | None
    reveal: dict[str, str] | None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {name: getattr(self, name) for name in self.__slots__}


def table_shoes(reader: EventSource, table_id: str, last: int = DEFAULT_SHOES) -> list[ShoeListing]:
    """The table's last ``last`` shoes, newest first, each with its reveal once retired
    (read backwards through the ``(kind)`` index: the newest shoes cost the same on any log).
    A reveal belongs to the newest commitment of its number before it."""
    d, p = reader.dialect, reader.dialect.param
    sql = (
        f"SELECT {EVENT_COLUMNS} FROM {d.events} "
        "WHERE kind IN ('shoe_committed', 'shoe_revealed') "
        f"AND {d.unindexed('table_id')} = {p} ORDER BY seq DESC"
    )
    found: list[ShoeListing] = []
    reveals: dict[int, Logged] = {}
    with reader.snapshot():
        rows = _iter_rows(reader, sql, [table_id])
        with closing(rows):
            for row in rows:
                stored = _stored(row)
                event = _decode(stored)
                if stored.kind == "shoe_revealed":
                    reveals[event.shoe] = Logged(stored, event)
                    continue
                revealed = reveals.pop(event.shoe, None)
                found.append(
                    ShoeListing(
                        table_id,
                        event.shoe,
                        event.decks,
                        event.cut_card,
                        event.commitment,
                        stored.seq,
                        stored.time,
                        None if revealed is None else revealed.seq,
                        None if revealed is None else revealed.stored.time,
                        None if revealed is None else reveal_fields(revealed),
                    )
                )
                if len(found) >= last:
                    break
    return found


def tables(reader: EventSource) -> list[str]:
    """Every table id of the log, sorted (a skip scan of the ``(table_id, round_id)``
    index: one seek per table)."""
    events = reader.dialect.events
    sql = (
        f"WITH RECURSIVE t(id) AS (SELECT min(table_id) FROM {events} UNION ALL "
        f"SELECT (SELECT min(table_id) FROM {events} WHERE table_id > t.id) FROM t "
        "WHERE t.id IS NOT NULL) SELECT id FROM t WHERE id IS NOT NULL"
    )
    return [str(row[0]) for row in _rows(reader, sql, [])]


def _has_round(reader: EventSource, table_id: str, round_id: int) -> bool:
    d, p = reader.dialect, reader.dialect.param
    sql = f"SELECT 1 FROM {d.events} WHERE table_id = {p} AND round_id = {p} LIMIT 1"
    return bool(_rows(reader, sql, [table_id, round_id]))


def nearest_rounds(
    reader: EventSource, round_id: int, table: str | None = None, count: int = NEAREST
) -> list[tuple[str, int]]:
    """The ``count`` rounds closest to ``round_id`` (of ``table``, or of every table), as
    ``(table_id, round_id)``, closest first."""
    found: list[tuple[int, str, int]] = []
    d, p = reader.dialect, reader.dialect.param
    for table_id in [table] if table is not None else tables(reader):
        for op, order in (("<", "DESC"), (">", "ASC")):
            sql = (
                f"SELECT DISTINCT round_id FROM {d.events} WHERE table_id = {p} "
                f"AND round_id {op} {p} ORDER BY round_id {order} LIMIT {p}"
            )
            for (other,) in _rows(reader, sql, [table_id, round_id, count]):
                found.append((abs(other - round_id), table_id, other))
    found.sort()
    return [(table_id, other) for _, table_id, other in found[:count]]


def find_table(reader: EventSource, round_id: int, table: str | None = None) -> str:
    """The table that played round ``round_id``.

    Args:
        reader: The log.
        round_id: The round id.
        table: The table, if the caller named one.

    Raises:
        RoundNotFound: no such round (the message lists the nearest rounds).
        AmbiguousRound: several tables played a round with that id and ``table`` is None.
    """
    known = tables(reader)
    if table is not None:
        if table not in known:
            raise RoundNotFound(
                f"the log has no table {table!r}; its tables are: {', '.join(known) or 'none'}"
            )
        if _has_round(reader, table, round_id):
            return table
        raise RoundNotFound(_not_found(reader, round_id, table))
    hits = [table_id for table_id in known if _has_round(reader, table_id, round_id)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise AmbiguousRound(
            f"round {round_id} was played at {len(hits)} tables ({', '.join(hits)}); "
            "name one with --table"
        )
    raise RoundNotFound(_not_found(reader, round_id, None))


def _not_found(reader: EventSource, round_id: int, table: str | None) -> str:
    where = f" of table {table}" if table is not None else ""
    near = nearest_rounds(reader, round_id, table)
    if not near:
        return f"there is no round {round_id}{where}: the log has no rounds"
    listed = ", ".join(f"{t} {r}" for t, r in near)
    return f"there is no round {round_id}{where} in the log; the nearest rounds are: {listed}"


def recall_round(reader: EventSource, round_id: int, table: str | None = None) -> Timeline:
    """The recall timeline of round ``round_id`` (``etg recall show``), with the seq of the
    shoe's reveal.

    Raises:
        RoundNotFound: no such round (nearest rounds listed).
        AmbiguousRound: the round id is used by several tables and ``table`` is None.
        RecallError: an event this build cannot decode.
    """
    with reader.snapshot():
        table_id = find_table(reader, round_id, table)
        logged = fetch_round(reader, table_id, round_id)
        if logged is None:  # pragma: no cover - find_table saw it in the same snapshot
            raise RoundNotFound(_not_found(reader, round_id, table_id))
        return build_timeline(logged, revealed=shoe_reveal(reader, logged))
