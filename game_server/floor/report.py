"""``etg report --store URL --since --until``: the 605a.5(d) figures of every table of the
floor, per shift, from the floor store.

Each table log of the store is folded by the console's shift report
(:class:`~game_server.console.reports.MeterHistory`: the one
:class:`~game_server.table.ledger.Ledger` every reader of a log folds with), read through
:class:`~game_server.floor.source.StoreLogSource`; this module picks the shifts that overlap
``[since, until)`` and lays the rows out.

Columns (integer cents; the contributions in millicents, as the meters count):

- **drop**: credits put into the terminals (cash in);
- **coin in** (605a.5(d)(1)) and **wins** (coin out, 605a.5(d)(2): what winning wagers paid
  back, progressive awards excluded);
- **hold**: coin in minus wins, and **hold %** of coin in;
- **contributed**: what the table's wagers fed the progressive meters (local and linked);
- **awards**: what the meters paid (605a.7(a)(2)).

A shift not over yet is read up to now and marked partial (``complete`` no).

Entry points: :func:`floor_report`, :func:`format_report`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from game_server.console.reports import MeterHistory, ReportRow, Shift, ShiftClock, shift_rows
from game_server.floor.source import StoreLogSource
from shared.money import MILLICENTS_PER_CENT, format_money


def shifts_between(clock: ShiftClock, since: dt.datetime, until: dt.datetime) -> list[Shift]:
    """The shifts that overlap ``[since, until)``, in order."""
    found = []
    shift = clock.shift_at(since)
    while shift.start < until:
        found.append(shift)
        shift = clock.shift_at(shift.end)
    return found


def floor_report(
    sources: Sequence[StoreLogSource],
    clock: ShiftClock,
    since: dt.datetime,
    until: dt.datetime,
    now: dt.datetime,
) -> list[ReportRow]:
    """Each table's figures over each shift overlapping ``[since, until)``, per log, in
    shift, server and table order. Tables with nothing in a shift are left out."""
    if until <= since:
        raise ValueError(f"--until {until.isoformat()} is not after --since {since.isoformat()}")
    shifts = shifts_between(clock, since, until)
    rows: list[ReportRow] = []
    for source in sources:
        history = MeterHistory(clock)
        with source.snapshot():
            history.update(source)
        for shift in shifts:
            rows += [
                row
                for row in shift_rows(source.server, history, shift, now)
                if any(vars(row.figures).values())
            ]
    rows.sort(key=lambda r: (r.shift.start, r.server, r.table))
    return rows


def millicents(amount: int) -> str:
    """Millicents as dollars to the millicent: ``$1.23456``."""
    sign = "-" if amount < 0 else ""
    dollars, rest = divmod(abs(amount), 100 * MILLICENTS_PER_CENT)
    return f"{sign}${dollars:,}.{rest:05d}"


def hold_percent(coin_in: int, hold: int) -> str:
    """The hold as a percentage of coin in, to two places (``-`` without coin in)."""
    if coin_in == 0:
        return "-"
    return f"{100 * hold / coin_in:.2f}%"


def format_report(rows: Sequence[ReportRow]) -> list[str]:
    """The report as an aligned text table (one line per table and shift)."""
    header = (
        "shift",
        "server",
        "table",
        "complete",
        "games",
        "drop",
        "coin in",
        "wins",
        "hold",
        "hold %",
        "contributed",
        "awards",
    )
    lines: list[tuple[str, ...]] = [header]
    for row in rows:
        f = row.figures
        hold = f.coin_in - f.coin_out
        lines.append(
            (
                row.shift.label,
                row.server,
                row.table,
                "no" if row.partial else "yes",
                str(f.games_played),
                format_money(f.cash_in),
                format_money(f.coin_in),
                format_money(f.coin_out),
                format_money(hold),
                hold_percent(f.coin_in, hold),
                millicents(f.progressive_contributed),
                format_money(f.progressive_paid),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return [
        "  ".join(
            cell.rjust(widths[i]) if i >= 4 else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ).rstrip()
        for line in lines
    ]
