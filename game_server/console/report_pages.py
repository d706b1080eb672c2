"""The console's shift report pages, as HTML: the form that picks a server, a gaming day and
a shift, the report's table (58 Pa. Code 605a.5(d), one row per table and the floor's
totals) and its printable page. The CSV download is :func:`game_server.console.reports.
report_csv`.

Entry points: :func:`report_page`, :func:`printable_report`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from game_server.console.html import Markup, attrs, html, join
from game_server.console.pages import Viewer
from game_server.console.reports import COLUMNS, ReportRow, Shift, total
from shared.money import format_money

# -- reports ---------------------------------------------------------------------------------


def report_query(server: str, day: dt.date, shift: int) -> str:
    return urlencode({"server": server, "day": day.isoformat(), "shift": shift})


def report_table(rows: Sequence[ReportRow]) -> Markup:
    def cells(values: Mapping[str, Any]) -> Markup:
        out = []
        for _, _, key in COLUMNS:
            value = values[key]
            out.append(
                html('<td class="money">{}</td>', format_money(value))
                if key.endswith("_cents")
                else html('<td class="number">{}</td>', value)
            )
        return join(out)

    head = join(
        html("<th>{}{}</th>", title, html("<br><small>{}</small>", ref) if ref else "")
        for title, ref, _ in COLUMNS
    )
    body = join(
        html(
            "<tr><td>{}</td><td>{}</td>{}<td>{}</td></tr>",
            row.server,
            row.table,
            cells(row.cells()),
            "so far" if row.partial else "complete",
        )
        for row in rows
    )
    all_rows = total(rows)
    sums = {
        "games_played": all_rows.games_played,
        "coin_in_cents": all_rows.coin_in,
        "coin_out_cents": all_rows.coin_out,
        "table_win_cents": all_rows.coin_in - all_rows.coin_out,
        "attendant_paid_jackpots_cents": 0,
        "cash_out_by_attendant_cents": all_rows.attendant_cash_out,
        "cash_out_at_terminal_cents": all_rows.cash_out - all_rows.attendant_cash_out,
        "progressive_paid_cents": all_rows.progressive_paid,
        "cash_in_cents": all_rows.cash_in,
    }
    return html(
        '<table class="report"><thead><tr><th>Server</th><th>Table</th>{}<th>Shift</th></tr>'
        '</thead><tbody>{}</tbody><tfoot><tr><th colspan="2">All tables</th>{}<th></th></tr>'
        "</tfoot></table>",
        head,
        body or html('<tr><td colspan="12">no table in this log</td></tr>'),
        cells(sums),
    )


def report_page(
    viewer: Viewer,
    servers: Sequence[str],
    server: str,
    day: dt.date,
    shift_number: int,
    shifts: Sequence[Shift],
    shift: Shift | None,
    rows: Sequence[ReportRow] | None,
    problem: str | None,
) -> Markup:
    options = join(
        html("<option{}>{}</option>", attrs({"selected": server == name}), name) for name in servers
    )
    shift_options = join(
        html(
            '<option value="{}"{}>{}</option>',
            s.number,
            attrs({"selected": s.number == shift_number}),
            s.label,
        )
        for s in shifts
    )
    form = html(
        '<form method="get" action="/reports" class="search">'
        '<label>Server <select name="server">{}</select></label>'
        '<label>Gaming day <input name="day" type="date" value="{}"></label>'
        '<label>Shift <select name="shift">{}</select></label>'
        '<button type="submit">Show</button></form>',
        options,
        day.isoformat(),
        shift_options,
    )
    if problem:
        return form + html('<p class="error">{}</p>', problem)
    if rows is None or shift is None:
        return form
    query = report_query(server, day, shift_number)
    return form + html(
        '<h2>{}</h2><p class="downloads"><a href="/reports.csv?{}" download>CSV</a> '
        '<a href="/reports/print?{}">Printable page</a></p>{}<p class="note">{}</p>',
        shift.label,
        query,
        query,
        report_table(rows),
        REPORT_NOTE,
    )


#: The report's footnote.
REPORT_NOTE = (
    "Figures are the difference of each table's never-reset meters at the shift's end and "
    "start, folded from the server's event log. Attendant paid jackpots: none can arise, "
    "every win is paid by the table into the terminal's credits. Cash out by an attendant is "
    "the operator's cash outs (605a.5(d)(4)); at the terminal, the player's own."
)


def printable_report(shift: Shift, server: str, rows: Sequence[ReportRow], printed: str) -> Markup:
    return html(
        '<p>Server {}. {}. Printed {} UTC.</p>{}<p class="note">{}</p>',
        server,
        shift.label,
        printed,
        report_table(rows),
        REPORT_NOTE,
    )
