"""The console's pages, as HTML (every value escaped: :mod:`game_server.console.html`).

Each function builds one page's content from plain data; :func:`layout` wraps it with the
navigation the person's role may use, their name and role, the sign-out form and any message
of their last action. Forms post to ``/action/...`` with the session's CSRF token. Cells that
change live carry ``data-live="key"`` (:func:`game_server.console.floorview.live_values`);
``static/console.js`` updates them from the server-sent events. No inline script or style.

Entry points: :func:`layout`, :func:`login_page`, :func:`floor_page`, :func:`table_page`,
:func:`terminal_page`, :func:`round_page`, :func:`recall_page`, :func:`verify_page`,
:func:`verify_job_page`, :func:`report_page`, :func:`message_page`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from game_server.console.floorview import ServerView, TableView, TerminalView, state_text
from game_server.console.floorview import terminal_text as credits_text
from game_server.console.html import Markup, attrs, html, join
from game_server.console.reports import COLUMNS, ReportRow, Shift, total
from game_server.console.roles import Permission, Role, may
from game_server.console.source import FoundRound, TableInfo
from game_server.recall.query import DEFAULT_SHOES, ShoeListing
from game_server.recall.timeline import Timeline
from game_server.recall.verify import VerifyReport
from shared.money import format_money


@dataclass(frozen=True)
class Viewer:
    """Who the page is for: what the layout and the forms need."""

    person: str
    role: Role
    csrf: str

    def may(self, permission: Permission) -> bool:
        return may(self.role, permission)


def _q(value: str) -> str:
    """A path segment."""
    return quote(value, safe="")


def table_url(server: str, table: str) -> str:
    return f"/table/{_q(server)}/{_q(table)}"


def shoes_url(server: str, table: str) -> str:
    return f"/shoes/{_q(server)}/{_q(table)}"


def terminal_url(server: str, terminal: str) -> str:
    return f"/terminal/{_q(server)}/{_q(terminal)}"


def round_url(server: str, table: str, round_id: int, terminal: str | None = None) -> str:
    query = f"?{urlencode({'terminal': terminal})}" if terminal else ""
    return f"/round/{_q(server)}/{_q(table)}/{round_id}{query}"


def picture_url(
    server: str, table: str, round_id: int, terminal: str | None, size: str, seq: int
) -> str:
    query = {"size": size, "v": seq, **({"terminal": terminal} if terminal else {})}
    return f"/picture/{_q(server)}/{_q(table)}/{round_id}?{urlencode(query)}"


def _live(key: str, text: str, tag: str = "span", quiet: str | None = None) -> Markup:
    """A cell the page's events update; with ``quiet`` (the text that says nothing is wrong,
    "none") it is drawn in the alarm colour only while it says something else."""
    if quiet is None:
        return html('<{tag} data-live="{}">{}</{tag}>', key, text, tag=Markup(tag))
    return html(
        '<{tag} data-live="{}" data-quiet="{}"{}>{}</{tag}>',
        key,
        quiet,
        Markup(' class="quiet"') if text == quiet else Markup(""),
        text,
        tag=Markup(tag),
    )


def _form(viewer: Viewer, action: str, fields: Markup, button: str, back: str) -> Markup:
    return html(
        '<form method="post" action="{}" class="action">'
        '<input type="hidden" name="csrf" value="{}">'
        '<input type="hidden" name="back" value="{}">{}'
        '<button type="submit">{}</button></form>',
        action,
        viewer.csrf,
        back,
        fields,
        button,
    )


def _hidden(**values: Any) -> Markup:
    return join(
        html('<input type="hidden" name="{}" value="{}">', name, value)
        for name, value in values.items()
    )


def layout(
    title: str,
    viewer: Viewer | None,
    body: Markup,
    *,
    messages: Sequence[str] = (),
    shape: str = "",
    printable: bool = False,
) -> bytes:
    """A whole page."""
    nav = Markup("")
    if viewer is not None and not printable:
        links = [("/", "Floor", Permission.FLOOR)]
        links += [("/recall", "Recall", Permission.RECALL)]
        links += [("/verify", "Verify", Permission.VERIFY)]
        links += [("/reports", "Reports", Permission.REPORTS)]
        items = join(
            html('<a href="{}">{}</a>', href, text)
            for href, text, needs in links
            if viewer.may(needs)
        )
        signout = _form(viewer, "/logout", Markup(""), "Sign out", "/")
        nav = html(
            '<nav><span class="brand">ETG console</span>{}<span class="who">{} ({})</span>{}</nav>',
            items,
            viewer.person,
            viewer.role.value,
            signout,
        )
    notes = join(html('<p class="message">{}</p>', m) for m in messages)
    page = html(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>{} - ETG console</title>"
        '<link rel="stylesheet" href="/static/console.css">'
        '<script src="/static/console.js" defer></script></head>'
        "<body{}>{}<main><h1>{}</h1>{}{}</main></body></html>",
        title,
        attrs({"data-shape": shape or None, "class": "print" if printable else None}),
        nav,
        title,
        notes,
        body,
    )
    return page.encode("utf-8")


def login_page(token: str, problem: str | None = None) -> bytes:
    body = html(
        '{}<form method="post" action="/login" class="login">'
        '<input type="hidden" name="csrf" value="{}">'
        '<label>Name <input name="name" autocomplete="username" required></label>'
        '<label>Password <input name="password" type="password" '
        'autocomplete="current-password" required></label>'
        '<label>Code (supervisors) <input name="code" inputmode="numeric" '
        'autocomplete="one-time-code" pattern="[0-9]*"></label>'
        '<button type="submit">Sign in</button></form>',
        html('<p class="error">{}</p>', problem) if problem else "",
        token,
    )
    return layout("Sign in", None, body)


def message_page(title: str, text: str, viewer: Viewer | None) -> bytes:
    return layout(title, viewer, html('<p class="error">{}</p><p><a href="/">Floor</a></p>', text))


# -- the floor -------------------------------------------------------------------------------


def _terminal_cell(server: str, terminals: Iterable[TerminalView]) -> Markup:
    return join(
        html(
            '<li><a href="{}">{}</a> {}</li>',
            terminal_url(server, t.id),
            t.id,
            _live(f"{server}|{t.id}|credits", credits_text(t)),
        )
        for t in terminals
    )


def floor_page(viewer: Viewer, floor: Sequence[ServerView], source: str) -> Markup:
    sections = []
    for server in floor:
        rows = []
        for table in server.tables:
            key = f"{server.name}|{table.id}"
            rows.append(
                html(
                    '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td>'
                    '<td><ul class="terminals">{}</ul></td><td class="money">{}</td>'
                    '<td class="money">{}</td><td class="number">{}</td><td class="alarms">{}</td>'
                    "</tr>",
                    table_url(server.name, table.id),
                    table.id,
                    table.game or "?",
                    _live(f"{key}|state", state_text(table)),
                    _live(f"{key}|round", table.round_text),
                    _terminal_cell(server.name, table.terminals),
                    _live(f"{key}|coin_in", format_money(table.coin_in)),
                    _live(f"{key}|coin_out", format_money(table.coin_out)),
                    _live(f"{key}|games", str(table.meter("games_played"))),
                    _live(f"{key}|alarms", "; ".join(table.alarms) or "none", quiet="none"),
                )
            )
        status = "connected" if server.connected else f"unreachable: {server.problem}"
        sections.append(
            html(
                '<section class="server"><h2>Server {} <small>{}</small></h2>'
                '<table class="floor"><thead><tr><th>Table</th><th>Game</th><th>State</th>'
                "<th>Round</th><th>Terminals and credits</th><th>Coin in</th><th>Coin out</th>"
                "<th>Games</th><th>Alarms</th></tr></thead><tbody>{}</tbody></table></section>",
                server.name,
                _live(f"{server.name}|server", status),
                join(rows) if rows else html('<tr><td colspan="9">no table read yet</td></tr>'),
            )
        )
    return html(
        '<p class="source">Live from each server as the operator; history from {}.</p>{}',
        source,
        join(sections),
    )


# -- a table ---------------------------------------------------------------------------------


def _info_list(table: TableView, info: TableInfo | None) -> Markup:
    key = f"{table.server}|{table.id}"
    items = [
        ("Server", table.server),
        ("Game", info.game if info else "?"),
        ("Table type", info.table_type if info else "?"),
        ("State", _live(f"{key}|state", state_text(table))),
        ("Round", _live(f"{key}|round", table.round_text)),
        ("Alarms", _live(f"{key}|alarms", "; ".join(table.alarms) or "none", quiet="none")),
    ]
    if table.set_by:
        by = table.set_by
        who = f"{by.get('person')} ({by.get('role')})" if by.get("person") else "the operator"
        items.append(("Last set", f"{by.get('action')} by {who}: {by.get('reason')}"))
    return html(
        '<dl class="facts">{}</dl>',
        join(html("<dt>{}</dt><dd>{}</dd>", k, v) for k, v in items),
    )


def _meters_table(table: TableView) -> Markup:
    wagers = table.meters.get("wagers", {})
    rows = [
        html(
            '<tr><td>{}</td><td class="number">{}</td><td class="money">{}</td>'
            '<td class="money">{}</td><td class="number">{}</td></tr>',
            name,
            meter.get("placed", 0),
            format_money(int(meter.get("wagered", 0))),
            format_money(int(meter.get("paid", 0))),
            meter.get("won", 0),
        )
        for name, meter in sorted(wagers.items())
        if isinstance(meter, Mapping)
    ]
    key = f"{table.server}|{table.id}"
    totals = html(
        '<dl class="facts"><dt>Games played</dt><dd>{}</dd><dt>Coin in</dt><dd>{}</dd>'
        "<dt>Coin out</dt><dd>{}</dd><dt>Cash in</dt><dd>{}</dd><dt>Cash out</dt><dd>{}</dd>"
        "<dt>Progressive paid</dt><dd>{}</dd></dl>",
        _live(f"{key}|games", str(table.meter("games_played"))),
        _live(f"{key}|coin_in", format_money(table.coin_in)),
        _live(f"{key}|coin_out", format_money(table.coin_out)),
        _live(f"{key}|cash_in", format_money(table.meter("credits_in"))),
        _live(f"{key}|cash_out", format_money(table.meter("credits_out"))),
        format_money(table.meter("progressive_paid")),
    )
    return html(
        "<h2>Meters (never reset, 605a.5(d))</h2>{}"
        "<table><thead><tr><th>Wager</th><th>Placed</th><th>Wagered</th><th>Paid</th>"
        "<th>Won</th></tr></thead><tbody>{}</tbody></table>",
        totals,
        join(rows) if rows else html('<tr><td colspan="5">no wager yet</td></tr>'),
    )


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


def table_page(
    viewer: Viewer,
    table: TableView,
    round_fragment: Markup | None,
) -> Markup:
    here = table_url(table.server, table.id)
    info = table.info
    terminal_rows = []
    for t in table.terminals:
        access = Markup("")
        if viewer.may(Permission.REVOKE):
            verb = "reinstate" if t.revoked else "revoke"
            access = _form(
                viewer,
                "/action/access",
                _hidden(server=t.server, terminal=t.id, access=verb)
                + html('<input name="reason" placeholder="reason" required>'),
                verb.capitalize(),
                here,
            )
        terminal_rows.append(
            html(
                '<tr><td><a href="{}">{}</a></td><td class="number">{}</td><td>{}</td>'
                "<td>{}</td></tr>",
                terminal_url(t.server, t.id),
                t.id,
                "-" if t.seat is None else t.seat,
                _live(f"{t.server}|{t.id}|credits", credits_text(t)),
                access,
            )
        )
    actions = []
    if viewer.may(Permission.TABLE_STATE):
        choices = join(
            html('<option value="{}">{}</option>', value, text)
            for value, text in (
                ("open", "Open"),
                ("close", "Close"),
                ("out-of-service", "Out of service"),
            )
        )
        actions.append(
            _form(
                viewer,
                "/action/table-state",
                _hidden(server=table.server, table=table.id)
                + html(
                    '<label>State <select name="state">{}</select></label>'
                    '<label>Reason <input name="reason" required></label>',
                    choices,
                ),
                "Set the table's state",
                here,
            )
        )
    elif viewer.may(Permission.REOPEN_AFTER_FAULT) and table.faulted:
        actions.append(
            _form(
                viewer,
                "/action/table-state",
                _hidden(server=table.server, table=table.id, state="open")
                + html('<label>Reason <input name="reason" required></label>'),
                "Reopen after the fault",
                here,
            )
        )
    limits = Markup("")
    if info is not None:
        limits = html(
            '<h2>Limits (the Rules Submission)</h2><dl class="facts">{}</dl>',
            join(
                html("<dt>{}</dt><dd>{}</dd>", k, format_money(v) if type(v) is int else v)
                for k, v in sorted(info.limits.items())
            ),
        )
        if viewer.may(Permission.LIMITS):
            limits += _form(
                viewer,
                "/action/limits",
                _hidden(server=table.server, table=table.id)
                + html('<label>Change <input name="change" required></label>'),
                "Change the limits",
                here,
            )
    round_part = Markup("")
    if round_fragment is not None:
        key = f"{table.server}|{table.id}|round_key"
        round_part = html(
            '<h2>The round in play (or the last one)</h2><div data-fragment="{}" '
            'data-refresh-on="{}">{}</div>',
            here + "/round",
            key,
            round_fragment,
        )
    shoes = Markup("")
    if viewer.may(Permission.SHOES):
        shoes = html(
            '<p><a href="{}">Shoes: commitments and reveals</a></p>',
            shoes_url(table.server, table.id),
        )
    return html(
        "{}{}<h2>Terminals</h2><table><thead><tr><th>Terminal</th><th>Seat</th><th>Credits</th>"
        "<th></th></tr></thead><tbody>{}</tbody></table>{}{}{}{}",
        _info_list(table, info),
        shoes,
        join(terminal_rows),
        html('<h2>Actions</h2><div class="actions">{}</div>', join(actions)) if actions else "",
        limits,
        _meters_table(table),
        round_part,
    )


# -- a table's shoes ---------------------------------------------------------------------------


def shoes_page(viewer: Viewer, table: TableView, shoes: Sequence[ShoeListing]) -> Markup:
    """The table's last shoes, newest first: each one's commitment (logged before its first
    card, shown at the terminals) and, once retired, its reveal (seed material and salt), with
    which anyone regenerates the shoe (``docs/shoe-spec.md``); "in use" before, never a
    secret."""
    rows = []
    for shoe in shoes:
        if shoe.reveal is None:
            reveal = html('<td class="in-use">in use: revealed when it is retired</td>')
        else:
            reveal = html(
                '<td class="reveal"><dl class="facts">{}</dl><div>revealed at seq {}, {}</div>'
                "</td>",
                join(
                    html("<dt>{}</dt><dd><code>{}</code></dd>", name, value)
                    for name, value in shoe.reveal.items()
                ),
                shoe.revealed_seq,
                shoe.revealed_time,
            )
        rows.append(
            html(
                '<tr data-shoe="{}"><td class="number">{}</td><td class="number">{}</td>'
                '<td><code class="commitment">{}</code><div>committed at seq {}, {}</div></td>'
                "{}</tr>",
                shoe.number,
                shoe.number,
                shoe.decks,
                shoe.commitment,
                shoe.committed_seq,
                shoe.committed_time,
                reveal,
            )
        )
    body = (
        html(
            "<table><thead><tr><th>Shoe</th><th>Decks</th><th>Commitment (SHA-256)</th>"
            "<th>Reveal</th></tr></thead><tbody>{}</tbody></table>",
            join(rows),
        )
        if rows
        else html("<p>The log holds no shoe of this table.</p>")
    )
    return html(
        '<p><a href="{}">Table {}</a>: its shoes, newest first (the last {} at most). A game '
        "receipt ('etg recall receipt') is checked against these with "
        "tools/verify_receipt.py.</p>{}",
        table_url(table.server, table.id),
        table.id,
        DEFAULT_SHOES,
        body,
    )


# -- a terminal ------------------------------------------------------------------------------


def terminal_page(
    viewer: Viewer,
    terminal: TerminalView,
    games: Sequence[FoundRound] | None,
) -> Markup:
    here = terminal_url(terminal.server, terminal.id)
    facts = html(
        '<dl class="facts"><dt>Server</dt><dd>{}</dd><dt>Table</dt><dd><a href="{}">{}</a></dd>'
        '<dt>Seat</dt><dd>{}</dd><dt>Credits</dt><dd class="credits">{}</dd></dl>',
        terminal.server,
        table_url(terminal.server, terminal.table),
        terminal.table,
        "-" if terminal.seat is None else terminal.seat,
        _live(f"{terminal.server}|{terminal.id}|credits", credits_text(terminal)),
    )
    cash = Markup("")
    if viewer.may(Permission.CASH):
        common = _hidden(server=terminal.server, terminal=terminal.id)
        cash = html(
            '<h2>Credits</h2><div class="actions">{}{}</div>',
            _form(
                viewer,
                "/action/cash",
                common
                + _hidden(kind="in")
                + html(
                    '<label>Amount <input name="amount" placeholder="100.00" required></label>'
                    '<label>Reference <input name="reference" required></label>'
                ),
                "Cash in",
                here,
            ),
            _form(
                viewer,
                "/action/cash",
                common
                + _hidden(kind="out")
                + html(
                    '<label>Amount <input name="amount" placeholder="all"></label>'
                    '<label>Reference <input name="reference" required></label>'
                ),
                "Cash out",
                here,
            ),
        )
    recent = Markup("")
    if games is not None:
        tiles = join(
            html(
                '<figure><a href="{}"><img src="{}" alt="round {} at {}" width="480" height="270">'
                "</a><figcaption>Round {} of {}, {}: wagered {}, paid {}</figcaption></figure>",
                round_url(
                    found.server, found.summary.table_id, found.summary.round_id, terminal.id
                ),
                picture_url(
                    found.server,
                    found.summary.table_id,
                    found.summary.round_id,
                    terminal.id,
                    "480x270",
                    found.summary.last_seq,
                ),
                found.summary.round_id,
                found.summary.table_id,
                found.summary.round_id,
                found.summary.table_id,
                found.summary.end[:19].replace("T", " "),
                format_money(found.summary.wagered),
                format_money(found.summary.paid),
            )
            for found in games
        )
        recent = html(
            '<h2>The last 10 games</h2><div class="games">{}</div>',
            tiles or html("<p>no game yet</p>"),
        )
    return facts + cash + recent


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
        _form(
            viewer, "/action/verify", _hidden(server=name), f"Verify the log of {name}", "/verify"
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
