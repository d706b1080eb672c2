"""The investigator's pages of the console, as HTML: a round's timeline, a recalled round
with its picture, the recall search, and the verification of a log with its report.

Each function builds one page's content from plain data, as :mod:`game_server.console.pages`
does (every value escaped); the console wraps it with :func:`~game_server.console.pages.
layout`.

Entry points: :func:`timeline_html`, :func:`round_page`, :func:`recall_page`,
:func:`verify_page`, :func:`verify_report_html`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from game_server.console.html import Markup, attrs, html, join
from game_server.console.pages import (
    Viewer,
    action_form,
    hidden_fields,
    picture_url,
    round_url,
)
from game_server.console.source import FoundRound
from game_server.recall.timeline import Timeline
from game_server.recall.verify import VerifyReport
from shared.money import format_money

# -- a round ---------------------------------------------------------------------------------


def timeline_html(timeline: Timeline, *, live: bool = False) -> Markup:
    """A round's timeline as a table (the investigator's recall, step by step); ``live``:
    the table's latest round, which is in play while it is not complete."""
    rows = join(
        html(
            '<tr><td class="number">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
            entry.seq,
            entry.time[11:23],
            entry.who,
            entry.text,
        )
        for entry in timeline.entries
    )
    credits = join(
        html(
            '<tr><td>{}</td><td class="money">{}</td><td class="money">{}</td>'
            '<td class="money">{}</td><td class="money">{}</td></tr>',
            name,
            "-" if line.start is None else format_money(line.start),
            format_money(line.wagered),
            format_money(line.paid),
            "-" if line.end is None else format_money(line.end),
        )
        for name, line in timeline.credits.items()
    )
    return html(
        "<p>Table {} round {}: {} ({} to {}){}</p>"
        '<table class="credits"><thead><tr><th>Terminal</th><th>Credits at start</th>'
        "<th>Wagered</th><th>Paid</th><th>Credits at end</th></tr></thead><tbody>{}</tbody>"
        '</table><table class="timeline"><thead><tr><th>Seq</th><th>Time (UTC)</th><th>Who</th>'
        "<th>What</th></tr></thead><tbody>{}</tbody></table>",
        timeline.table_id,
        timeline.round_id,
        "in play" if live and not timeline.complete else timeline.status,
        timeline.start,
        timeline.end,
        html(" - problems: {}", "; ".join(timeline.problems)) if timeline.problems else "",
        credits,
        rows,
    )


# -- recall ----------------------------------------------------------------------------------


def round_page(
    viewer: Viewer, server: str, timeline: Timeline, terminal: str | None, last_seq: int
) -> Markup:
    big = picture_url(server, timeline.table_id, timeline.round_id, terminal, "960x540", last_seq)
    full = picture_url(
        server, timeline.table_id, timeline.round_id, terminal, "1920x1080", last_seq
    )
    return html(
        '<p>Server {}. <a href="{}">The picture at full size (PNG)</a></p>'
        '<figure class="recall"><img src="{}" alt="round {} as the terminal showed it" '
        'width="960" height="540"></figure>{}',
        server,
        full,
        big,
        timeline.round_id,
        timeline_html(timeline),
    )


def recall_page(
    viewer: Viewer,
    servers: Sequence[str],
    form: Mapping[str, str],
    found: Sequence[FoundRound] | None,
    problem: str | None,
) -> Markup:
    options = join(
        html("<option{}>{}</option>", attrs({"selected": form.get("server") == name}), name)
        for name in servers
    )

    def field(name: str, label: str, placeholder: str = "") -> Markup:
        return html(
            '<label>{} <input name="{}" value="{}" placeholder="{}"></label>',
            label,
            name,
            form.get(name, ""),
            placeholder,
        )

    search = html(
        '<form method="get" action="/recall" class="search">'
        '<label>Server <select name="server"><option value="">every server</option>{}</select>'
        '</label>{}{}{}{}{}{}<button type="submit">Search</button></form>',
        options,
        field("table", "Table"),
        field("terminal", "Terminal"),
        field("since", "Since (UTC)", "2026-11-29T15:00"),
        field("until", "Until (UTC)", "2026-11-29"),
        field("wager", "Wager", "a wager's name"),
        field("min_payout", "Minimum payout", "500.00"),
    )
    result = Markup("")
    if problem:
        result = html('<p class="error">{}</p>', problem)
    elif found is not None:
        rows = join(
            html(
                '<tr><td>{}</td><td>{}</td><td><a href="{}">{}</a></td><td>{}</td><td>{}</td>'
                '<td class="money">{}</td><td class="money">{}</td><td>{}</td><td>{}</td></tr>',
                f.server,
                f.summary.table_id,
                round_url(f.server, f.summary.table_id, f.summary.round_id),
                f.summary.round_id,
                f.summary.start[:19].replace("T", " "),
                ", ".join(f.summary.terminals),
                format_money(f.summary.wagered),
                format_money(f.summary.paid),
                ""
                if f.summary.biggest_win is None
                else f"{format_money(f.summary.biggest_win.paid)} ({f.summary.biggest_win.line})",
                f.summary.status,
            )
            for f in found
        )
        result = html(
            "<table><thead><tr><th>Server</th><th>Table</th><th>Round</th><th>Start (UTC)</th>"
            "<th>Terminals</th><th>Wagered</th><th>Paid</th><th>Biggest win</th><th>Status</th>"
            "</tr></thead><tbody>{}</tbody></table>",
            rows or html('<tr><td colspan="9">no round matches</td></tr>'),
        )
    return search + result


# -- verify ----------------------------------------------------------------------------------


def verify_page(viewer: Viewer, servers: Sequence[str], jobs: Sequence[Any]) -> Markup:
    forms = join(
        action_form(
            viewer,
            "/action/verify",
            hidden_fields(server=name),
            f"Verify the log of {name}",
            "/verify",
        )
        for name in servers
    )
    listed = join(
        html(
            '<li><a href="/verify/{}">{} by {} at {}: {}</a></li>',
            j.id,
            j.server,
            j.person,
            j.started,
            j.status,
        )
        for j in jobs
    )
    return html('<div class="actions">{}</div><h2>Verifications</h2><ul>{}</ul>', forms, listed)


def verify_report_html(report: VerifyReport) -> Markup:
    checks = join(
        html(
            '<tr class="{}"><td>{}</td><td>{}</td><td>{}</td><td class="number">{}</td>'
            '<td class="number">{}</td><td>{}</td></tr>',
            c.status.lower(),
            c.check,
            c.title,
            c.status,
            c.failures,
            c.warnings,
            "" if c.first is None else f"seq {c.first.seq}: {c.first.reason}",
        )
        for c in report.checks
    )
    counts = join(
        html("<dt>{}</dt><dd>{}</dd>", name.replace("_", " "), value)
        for name, value in report.counts.to_json().items()
    )
    findings = join(
        html("<li>seq {}: {}: {}</li>", f.seq, f.check, f.reason)
        for f in (*report.failures, *report.warnings)
    )
    verdict = "the log is proven unchanged" if report.ok else "the log does NOT verify"
    return html(
        '<p class="verdict {}">{}</p><table><thead><tr><th>Check</th><th>What</th>'
        "<th>Status</th><th>Failures</th><th>Warnings</th><th>First</th></tr></thead>"
        '<tbody>{}</tbody></table><h2>Counts</h2><dl class="facts">{}</dl>'
        "<h2>Failures and warnings</h2><ul>{}</ul>",
        "ok" if report.ok else "fail",
        verdict,
        checks,
        counts,
        findings or html("<li>none</li>"),
    )
