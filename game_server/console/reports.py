"""The 58 Pa. Code 605a.5(d) meter report of each table per shift, from its event log.

605a.5(d) requires, "where applicable", a coin in meter ("the total value of all wagers"), a
coin out meter (what the table "directly paid ... as a result of winning wagers", not
progressive payouts), attendant paid jackpots and attendant paid cancelled credits; 605a.7(a)
adds what progressive awards paid. The table keeps them as never-reset meters
(:class:`~game_server.table.ledger.Ledger`, what ``ReadMeters`` answers), so a shift's figures
are the difference of the meters at the shift's end and at its start, as a floor reads
mechanical meters at each change of shift.

The meters at any moment are the fold of the log up to it. :class:`MeterHistory` folds a log
once, from its first event, in log order, and keeps a :class:`Reading` of every table at each
shift boundary it passes (:class:`ShiftClock`); later calls fold only what was appended since.
The fold is the one every reader of a log uses (the ledger ``etg verify`` folds with), so a
report agrees with the live meters and with verification by construction.

Columns (integer cents):

- **coin in**: every wager placed (605a.5(d)(1));
- **coin out**: what settled wagers paid back, stakes included, progressive awards excluded
  (605a.5(d)(2)); the table's win is ``coin in - coin out``;
- **attendant paid jackpots** (605a.5(d)(3)): none can arise: every win is paid by the table
  into the terminal's credits (no payout above the table's capacity is configured), so the
  column is always zero and says so;
- **cash out by an attendant** (605a.5(d)(4), "attendant paid cancelled credits"): the cash
  outs done through the operator certificate (``operator_action`` cash-out), against **cash
  out at the terminal**, the player's own request;
- **progressive paid** (605a.7(a)(2)), **cash in**, **games played**;
- **progressive contributed**: what the table's wagers fed its progressive meters (to the
  meter and its reserve, 633b.9(g), 633b.10(i)), in millicents as the meters count, the
  floor's linked meters (605a.8) included.

Times: a gaming day's shifts start at the configured local times (``[console] shifts`` in
the time zone ``timezone``); a shift runs from its start to the next one's. An event belongs
to the shift its logged time falls in, read in log order: if the server's clock ever stepped
back across a boundary, the events after the step count in the later shift.

Entry points: :class:`ShiftClock`, :class:`Shift`, :class:`MeterHistory`, :func:`shift_rows`,
:func:`report_csv`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from game_server.eventlog import EventSource, StoredEvent, format_time
from game_server.games import logged_game
from game_server.rules.events import EventDecodeError, from_dict
from game_server.rules.meters import LinkedMeterContributed, MeterContributed
from game_server.table.events import OperatorAction, TableOpened
from game_server.table.ledger import Ledger
from shared.money import format_money

#: Events folded per read (the reader's batch).
_BATCH: Final = 2_000
#: The records of a wager feeding a progressive meter (``increment`` and ``secondary``).
_CONTRIBUTIONS: Final[frozenset[type]] = frozenset({MeterContributed, LinkedMeterContributed})


@dataclass(frozen=True)
class Shift:
    """One shift of one gaming day.

    Attributes:
        day: The gaming day (the local date its first shift starts on).
        number: 1 for the day's first shift.
        start: Its start (aware, UTC).
        end: The next shift's start (aware, UTC).
        label: ``2026-11-29 shift 2 (14:00-22:00)``.
    """

    day: dt.date
    number: int
    start: dt.datetime
    end: dt.datetime
    label: str


class ShiftClock:
    """The shifts of a floor: local start times in a time zone."""

    def __init__(self, starts: Sequence[dt.time], zone: dt.tzinfo) -> None:
        if not starts:
            raise ValueError("a floor has at least one shift")
        self.starts = tuple(starts)
        self.zone = zone

    def _start(self, day: dt.date, number: int) -> dt.datetime:
        """The aware UTC start of shift ``number`` (1-based; past the last: the next day's)."""
        extra, index = divmod(number - 1, len(self.starts))
        local = dt.datetime.combine(day + dt.timedelta(days=extra), self.starts[index])
        return local.replace(tzinfo=self.zone).astimezone(dt.UTC)

    def shift(self, day: dt.date, number: int) -> Shift:
        """Shift ``number`` of gaming day ``day``.

        Raises:
            ValueError: no such shift number.
        """
        if not 1 <= number <= len(self.starts):
            raise ValueError(f"a gaming day has shifts 1 to {len(self.starts)}, not {number}")
        start, end = self._start(day, number), self._start(day, number + 1)
        local = [self.starts[number - 1], self.starts[number % len(self.starts)]]
        span = "-".join(t.strftime("%H:%M") for t in local)
        return Shift(day, number, start, end, f"{day.isoformat()} shift {number} ({span})")

    def shifts_of(self, day: dt.date) -> list[Shift]:
        return [self.shift(day, k) for k in range(1, len(self.starts) + 1)]

    def shift_at(self, moment: dt.datetime) -> Shift:
        """The shift ``moment`` (aware) falls in."""
        local_day = moment.astimezone(self.zone).date()
        for day in (local_day - dt.timedelta(days=1), local_day):
            for shift in self.shifts_of(day):
                if shift.start <= moment < shift.end:
                    return shift
        raise AssertionError(f"no shift holds {moment}")  # pragma: no cover - shifts tile time

    def boundaries_from(self, moment: dt.datetime) -> Iterator[dt.datetime]:
        """Every shift start at or after ``moment``, in order, for ever."""
        shift = self.shift_at(moment)
        day, number = shift.day, shift.number + (1 if shift.start < moment else 0)
        while True:
            if number > len(self.starts):
                day, number = day + dt.timedelta(days=1), 1
            yield self._start(day, number)
            number += 1


@dataclass(frozen=True)
class Reading:
    """A table's meters at one moment (integer cents; never-reset, so they only grow)."""

    games_played: int = 0
    coin_in: int = 0
    coin_out: int = 0
    progressive_paid: int = 0
    cash_in: int = 0
    cash_out: int = 0
    attendant_cash_out: int = 0
    progressive_contributed: int = 0
    """Millicents (the meters' unit), not cents."""

    def minus(self, earlier: Reading) -> Reading:
        return Reading(*(getattr(self, f.name) - getattr(earlier, f.name) for f in fields(self)))


@dataclass
class _Table:
    ledger: Ledger = field(default_factory=Ledger)
    attendant_cash_out: int = 0
    contributed: int = 0

    def reading(self) -> Reading:
        ledger = self.ledger
        meters = ledger.meters.values()
        return Reading(
            games_played=ledger.games_played,
            coin_in=sum(m.wagered for m in meters),
            coin_out=sum(m.paid for m in meters),
            progressive_paid=ledger.progressive_paid,
            cash_in=ledger.credits_in,
            cash_out=ledger.credits_out,
            attendant_cash_out=self.attendant_cash_out,
            progressive_contributed=self.contributed,
        )


class MeterHistory:
    """A log's tables' meters at every shift boundary, folded once (see the module
    docstring). Use it from one thread: it reads through the reader it is given.

    Args:
        clock: The floor's shifts.
    """

    def __init__(self, clock: ShiftClock) -> None:
        self.clock = clock
        self._tables: dict[str, _Table] = {}
        self._seq = 0
        self._last_time: str | None = None
        self._boundaries: Iterator[dt.datetime] | None = None
        self._next: tuple[dt.datetime, str] | None = None
        #: boundary -> table -> reading just before it.
        self._readings: dict[dt.datetime, dict[str, Reading]] = {}
        self._first: dt.datetime | None = None
        #: Events this build could not decode (left out of the meters), by seq.
        self.unreadable: list[int] = []

    @property
    def folded_seq(self) -> int:
        return self._seq

    def update(self, reader: EventSource) -> int:
        """Fold what the log holds beyond what was folded; the events folded."""
        count = 0
        for stored in reader.iter_events(self._seq + 1, _BATCH):
            self._fold(stored)
            count += 1
        return count

    def _fold(self, stored: StoredEvent) -> None:
        time = stored.time
        if self._next is None and self._boundaries is None:
            self._first = _parse(time)
            self._boundaries = self.clock.boundaries_from(self._first)
            self._advance()
        while self._next is not None and time >= self._next[1]:
            self._readings[self._next[0]] = {t: s.reading() for t, s in self._tables.items()}
            self._advance()
        self._seq, self._last_time = stored.seq, time
        try:
            event = from_dict(stored.body)
        except EventDecodeError:
            self.unreadable.append(stored.seq)
            return
        table = self._tables.get(stored.table_id)
        if table is None:
            # A table's log opens with its table_opened: its game's own Ledger (a UTH table
            # pays a meter through its settlement, not by the award too).
            opened = type(event) is TableOpened
            ledger = logged_game(event.config).new_ledger() if opened else Ledger()
            table = self._tables[stored.table_id] = _Table(ledger)
        table.ledger.apply(stored.terminal, event)
        kind = type(event)
        if kind is OperatorAction and event.action == "cash-out" and not event.refused:
            table.attendant_cash_out += event.amount
        elif kind in _CONTRIBUTIONS:
            table.contributed += event.increment + event.secondary

    def _advance(self) -> None:
        assert self._boundaries is not None
        moment = next(self._boundaries)
        self._next = (moment, format_time(moment))

    def tables(self) -> list[str]:
        return sorted(self._tables)

    def reading(self, table: str, moment: dt.datetime) -> Reading:
        """The table's meters at ``moment``, a shift boundary (or now, past the log's end).

        Before the log's first event every meter is zero. A boundary the fold passed has
        its reading; one later than the last event folded reads the meters as they are now
        (call :meth:`update` first)."""
        if self._first is None or moment <= self._first:
            return Reading()
        kept = self._readings.get(moment)
        if kept is not None:
            return kept.get(table, Reading())
        if self._last_time is None or format_time(moment) > self._last_time:
            state = self._tables.get(table)
            return Reading() if state is None else state.reading()
        raise LookupError(
            f"{moment.isoformat()} is not a shift boundary this report was folded with "
            "(was [console] shifts changed while the console ran? restart it)"
        )


def _parse(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.removesuffix("Z")).replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class ReportRow:
    """One table's figures over one shift."""

    server: str
    table: str
    shift: Shift
    figures: Reading
    partial: bool

    @property
    def cash_out_at_terminal(self) -> int:
        return self.figures.cash_out - self.figures.attendant_cash_out

    def cells(self) -> dict[str, Any]:
        """The row as the CSV has it (cents)."""
        f = self.figures
        return {
            "server": self.server,
            "table": self.table,
            "gaming_day": self.shift.day.isoformat(),
            "shift": self.shift.number,
            "start_utc": format_time(self.shift.start),
            "end_utc": format_time(self.shift.end),
            "complete": "no" if self.partial else "yes",
            "games_played": f.games_played,
            "coin_in_cents": f.coin_in,
            "coin_out_cents": f.coin_out,
            "table_win_cents": f.coin_in - f.coin_out,
            "attendant_paid_jackpots_cents": 0,
            "cash_out_by_attendant_cents": f.attendant_cash_out,
            "cash_out_at_terminal_cents": self.cash_out_at_terminal,
            "progressive_paid_cents": f.progressive_paid,
            "cash_in_cents": f.cash_in,
            "progressive_contributed_millicents": f.progressive_contributed,
        }


#: The columns of the report page: (title, the regulation, the CSV key).
COLUMNS: Final = (
    ("Games played", "", "games_played"),
    ("Coin in", "605a.5(d)(1)", "coin_in_cents"),
    ("Coin out", "605a.5(d)(2)", "coin_out_cents"),
    ("Table win", "", "table_win_cents"),
    ("Attendant paid jackpots", "605a.5(d)(3)", "attendant_paid_jackpots_cents"),
    ("Cash out by an attendant", "605a.5(d)(4)", "cash_out_by_attendant_cents"),
    ("Cash out at the terminal", "", "cash_out_at_terminal_cents"),
    ("Progressive paid", "605a.7(a)(2)", "progressive_paid_cents"),
    ("Cash in", "", "cash_in_cents"),
)


def shift_rows(
    server: str,
    history: MeterHistory,
    shift: Shift,
    now: dt.datetime,
    tables: Iterable[str] | None = None,
) -> list[ReportRow]:
    """Each table's figures over ``shift`` (call ``history.update`` first). A shift not over
    at ``now`` is read up to now and marked partial."""
    partial = shift.end > now
    rows = []
    for table in sorted(history.tables() if tables is None else tables):
        start = history.reading(table, shift.start)
        end = history.reading(table, shift.end)
        rows.append(ReportRow(server, table, shift, end.minus(start), partial))
    return rows


def total(rows: Sequence[ReportRow]) -> Reading:
    """The sum of the rows' figures."""
    result = Reading()
    for row in rows:
        result = replace(
            result,
            **{
                f.name: getattr(result, f.name) + getattr(row.figures, f.name)
                for f in fields(result)
            },
        )
    return result


def report_csv(rows: Sequence[ReportRow]) -> str:
    """The rows as CSV, cents as integers, one header line."""
    out = io.StringIO()
    keys = list(rows[0].cells()) if rows else [k for _, _, k in COLUMNS]
    writer = csv.DictWriter(out, fieldnames=keys, lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row.cells())
    return out.getvalue()


def money(cents: int) -> str:
    """Cents for a report cell."""
    return format_money(cents)
