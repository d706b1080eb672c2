"""The console's pages, as HTML (every value escaped: :mod:`game_server.console.html`).

Each function builds one page's content from plain data; :func:`layout` wraps it with the
navigation the person's role may use, their name and role, the sign-out form and any message
of their last action. Forms post to ``/action/...`` with the session's CSRF token. Cells that
change live carry ``data-live="key"`` (:func:`game_server.console.floorview.live_values`);
``static/console.js`` updates them from the server-sent events. No inline script or style.

Entry points: :func:`layout`, :func:`login_page`, :func:`message_page`, :func:`floor_page`,
:func:`table_page`, :func:`shoes_page`, :func:`terminal_page`; the pieces every page builds
with (:class:`Viewer`, the URLs, :func:`action_form`, :func:`hidden_fields`,
:func:`live_cell`). The investigator's pages (recall, verify) are
:mod:`game_server.console.recall_pages`, the shift reports
:mod:`game_server.console.report_pages`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from game_server.console.floorview import ServerView, TableView, TerminalView, state_text
from game_server.console.floorview import terminal_text as credits_text
from game_server.console.html import Markup, attrs, html, join
from game_server.console.roles import Permission, Role, may
from game_server.console.source import FoundRound, TableInfo
from game_server.recall.query import DEFAULT_SHOES, ShoeListing
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


def live_cell(key: str, text: str, tag: str = "span", quiet: str | None = None) -> Markup:
    """``text`` in a ``tag`` that ``static/console.js`` updates from the live value ``key``;
    with ``quiet`` (the text that says nothing is wrong, "none") it is drawn in the alarm
    colour only while it says something else."""
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


def action_form(viewer: Viewer, action: str, fields: Markup, button: str, back: str) -> Markup:
    """A form that posts ``fields`` to ``action`` with the session's CSRF token, and comes
    back to ``back``."""
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


def hidden_fields(**values: Any) -> Markup:
    """A hidden input for each of ``values``."""
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
        signout = action_form(viewer, "/logout", Markup(""), "Sign out", "/")
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
            live_cell(f"{server}|{t.id}|credits", credits_text(t)),
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
                    live_cell(f"{key}|state", state_text(table)),
                    live_cell(f"{key}|round", table.round_text),
                    _terminal_cell(server.name, table.terminals),
                    live_cell(f"{key}|coin_in", format_money(table.coin_in)),
                    live_cell(f"{key}|coin_out", format_money(table.coin_out)),
                    live_cell(f"{key}|games", str(table.meter("games_played"))),
                    live_cell(f"{key}|alarms", "; ".join(table.alarms) or "none", quiet="none"),
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
                live_cell(f"{server.name}|server", status),
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
        ("State", live_cell(f"{key}|state", state_text(table))),
        ("Round", live_cell(f"{key}|round", table.round_text)),
        ("Alarms", live_cell(f"{key}|alarms", "; ".join(table.alarms) or "none", quiet="none")),
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
        live_cell(f"{key}|games", str(table.meter("games_played"))),
        live_cell(f"{key}|coin_in", format_money(table.coin_in)),
        live_cell(f"{key}|coin_out", format_money(table.coin_out)),
        live_cell(f"{key}|cash_in", format_money(table.meter("credits_in"))),
        live_cell(f"{key}|cash_out", format_money(table.meter("credits_out"))),
        format_money(table.meter("progressive_paid")),
    )
    return html(
        "<h2>Meters (never reset, 605a.5(d))</h2>{}"
        "<table><thead><tr><th>Wager</th><th>Placed</th><th>Wagered</th><th>Paid</th>"
        "<th>Won</th></tr></thead><tbody>{}</tbody></table>",
        totals,
        join(rows) if rows else html('<tr><td colspan="5">no wager yet</td></tr>'),
    )


def _terminal_rows(viewer: Viewer, table: TableView, here: str) -> list[Markup]:
    """The table's terminals: each one's seat and live credits, and the form that revokes or
    reinstates it (for who may)."""
    rows = []
    for t in table.terminals:
        access = Markup("")
        if viewer.may(Permission.REVOKE):
            verb = "reinstate" if t.revoked else "revoke"
            access = action_form(
                viewer,
                "/action/access",
                hidden_fields(server=t.server, terminal=t.id, access=verb)
                + html('<input name="reason" placeholder="reason" required>'),
                verb.capitalize(),
                here,
            )
        rows.append(
            html(
                '<tr><td><a href="{}">{}</a></td><td class="number">{}</td><td>{}</td>'
                "<td>{}</td></tr>",
                terminal_url(t.server, t.id),
                t.id,
                "-" if t.seat is None else t.seat,
                live_cell(f"{t.server}|{t.id}|credits", credits_text(t)),
                access,
            )
        )
    return rows


def _state_actions(viewer: Viewer, table: TableView, here: str) -> list[Markup]:
    """The form that sets the table's state (a supervisor's), or the one that reopens it
    after a fault (an attendant's, only when it is faulted)."""
    if viewer.may(Permission.TABLE_STATE):
        choices = join(
            html('<option value="{}">{}</option>', value, text)
            for value, text in (
                ("open", "Open"),
                ("close", "Close"),
                ("out-of-service", "Out of service"),
            )
        )
        return [
            action_form(
                viewer,
                "/action/table-state",
                hidden_fields(server=table.server, table=table.id)
                + html(
                    '<label>State <select name="state">{}</select></label>'
                    '<label>Reason <input name="reason" required></label>',
                    choices,
                ),
                "Set the table's state",
                here,
            )
        ]
    if viewer.may(Permission.REOPEN_AFTER_FAULT) and table.faulted:
        return [
            action_form(
                viewer,
                "/action/table-state",
                hidden_fields(server=table.server, table=table.id, state="open")
                + html('<label>Reason <input name="reason" required></label>'),
                "Reopen after the fault",
                here,
            )
        ]
    return []


def _limits(viewer: Viewer, table: TableView, info: TableInfo | None, here: str) -> Markup:
    """The table's limits as its Rules Submission states them, and the form that asks to
    change them (refused, for who may ask)."""
    if info is None:
        return Markup("")
    limits = html(
        '<h2>Limits (the Rules Submission)</h2><dl class="facts">{}</dl>',
        join(
            html("<dt>{}</dt><dd>{}</dd>", k, format_money(v) if type(v) is int else v)
            for k, v in sorted(info.limits.items())
        ),
    )
    if viewer.may(Permission.LIMITS):
        limits += action_form(
            viewer,
            "/action/limits",
            hidden_fields(server=table.server, table=table.id)
            + html('<label>Change <input name="change" required></label>'),
            "Change the limits",
            here,
        )
    return limits


def _round_part(table: TableView, here: str, round_fragment: Markup | None) -> Markup:
    """The round in play (or the last one), refreshed when the table's round changes."""
    if round_fragment is None:
        return Markup("")
    key = f"{table.server}|{table.id}|round_key"
    return html(
        '<h2>The round in play (or the last one)</h2><div data-fragment="{}" '
        'data-refresh-on="{}">{}</div>',
        here + "/round",
        key,
        round_fragment,
    )


def table_page(
    viewer: Viewer,
    table: TableView,
    round_fragment: Markup | None,
) -> Markup:
    """A table: its facts, its terminals, the actions the viewer may take, its limits and
    meters, and the round in play (``round_fragment``, for who may see it)."""
    here = table_url(table.server, table.id)
    actions = _state_actions(viewer, table, here)
    shoes = Markup("")
    if viewer.may(Permission.SHOES):
        shoes = html(
            '<p><a href="{}">Shoes: commitments and reveals</a></p>',
            shoes_url(table.server, table.id),
        )
    return html(
        "{}{}<h2>Terminals</h2><table><thead><tr><th>Terminal</th><th>Seat</th><th>Credits</th>"
        "<th></th></tr></thead><tbody>{}</tbody></table>{}{}{}{}",
        _info_list(table, table.info),
        shoes,
        join(_terminal_rows(viewer, table, here)),
        html('<h2>Actions</h2><div class="actions">{}</div>', join(actions)) if actions else "",
        _limits(viewer, table, table.info, here),
        _meters_table(table),
        _round_part(table, here, round_fragment),
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
        live_cell(f"{terminal.server}|{terminal.id}|credits", credits_text(terminal)),
    )
    cash = Markup("")
    if viewer.may(Permission.CASH):
        common = hidden_fields(server=terminal.server, terminal=terminal.id)
        cash = html(
            '<h2>Credits</h2><div class="actions">{}{}</div>',
            action_form(
                viewer,
                "/action/cash",
                common
                + hidden_fields(kind="in")
                + html(
                    '<label>Amount <input name="amount" placeholder="100.00" required></label>'
                    '<label>Reference <input name="reference" required></label>'
                ),
                "Cash in",
                here,
            ),
            action_form(
                viewer,
                "/action/cash",
                common
                + hidden_fields(kind="out")
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
