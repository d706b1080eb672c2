"""The betting screen's information panel, where the dealer's cards will be: what the wager
the player last touched pays (its paytable from the rules document, 633b.5(c)(2): the full
table stays behind RULES), and until the player's first wager of a round the last round's
results, which stay at least the terminal's ``results_seconds`` (8 s unless ``etg terminal
--results-seconds`` says otherwise) after the betting screen opens (58 Pa.
Code 810a.4(7) and (10), the closest Pennsylvania text for a player screen: the amount won
for the last game is shown until the next game starts or the bets change).

Everything drawn is on the type scale: the rows take the size and the columns at which they
all fit, down to the minimum; what still does not fit is left to RULES (or RECALL), said so.

Entry points: :func:`info_area`, :func:`pays_rows`, :func:`draw_pays`,
:func:`last_round`.
"""

from __future__ import annotations

from typing import Any, Final

import pygame

from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.render import Layout
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.fonts import get_font
from terminal_client.render.results import ResultRow, draw_results_panel
from terminal_client.screens.overlay import draw_lines, lines_fit, lines_height
from terminal_client.screens.results import headline, strip_citations

#: The panel's face (opaque, as the results panel's) and its rim.
FACE: Final = (10, 34, 22)


def info_area(layout: Layout) -> pygame.Rect:
    """Where the panel goes: the dealer's place under its title (no dealer card is dealt
    while bets are taken)."""
    dealer = layout.dealer
    top = dealer.top + round(40 * layout.scale)
    return pygame.Rect(dealer.left, top, dealer.width, dealer.bottom - top)


def pays_rows(model: TerminalModel, wager: str | None) -> tuple[str, list[tuple[str, str]]]:
    """The title and the rows ``(hand, pays)`` of what ``wager`` pays, from the rules
    document the server sent, citations left to RULES ("" and no rows before it came, or
    for a wager it does not list)."""
    rules = model.rules
    if rules is None or wager is None:
        return "", []
    found = next((w for w in rules.wagers if w.wager == wager), None)
    if found is None:
        return "", []
    return f"{found.title.upper()} PAYS", [
        (strip_citations(line.hand), strip_citations(line.pays)) for line in found.lines
    ]


def _columns(rows: list[tuple[str, str]], count: int) -> list[list[tuple[str, str]]]:
    per = -(-len(rows) // count)
    return [rows[i * per : (i + 1) * per] for i in range(count)]


def draw_pays(
    surface: pygame.Surface,
    layout: Layout,
    area: pygame.Rect,
    title: str,
    rows: list[tuple[str, str]],
) -> pygame.Rect:
    """The paytable ``rows`` under ``title`` in ``area``, in one to three columns at the
    largest size at which they all fit; at the least size, the rows that fit and "more:
    RULES". Returns the panel's rectangle."""
    s = layout.scale
    pad = round(14 * s)
    title_size = layout.text(24)
    head = get_font(title_size, True).get_linesize() + round(4 * s)
    inner = pygame.Rect(area.left + pad, area.top + pad + head, area.width - 2 * pad, 0)
    inner.height = area.bottom - pad - inner.top
    gap = round(24 * s)
    chosen: tuple[int, int] | None = None
    for size in range(22, 9, -1):
        for count in (1, 2, 3):
            width = (inner.width - gap * (count - 1)) // count
            column = pygame.Rect(0, 0, width, inner.height)
            if all(lines_fit(layout, column, part, size) for part in _columns(rows, count)):
                chosen = (size, count)
                break
        if chosen is not None or layout.text(size) <= layout.min_text:
            break
    more = chosen is None
    size, count = chosen or (10, 2)
    shown = rows
    if more:  # the rows that fit at the least size; RULES has them all
        width = (inner.width - gap * (count - 1)) // count
        column = pygame.Rect(0, 0, width, inner.height - get_font(layout.min_text).get_linesize())
        while shown and not all(
            lines_fit(layout, column, part, size) for part in _columns(shown, count)
        ):
            shown = shown[:-1]
    parts = _columns(shown, count)
    width = (inner.width - gap * (count - 1)) // count
    used = max(
        (lines_height(layout, pygame.Rect(0, 0, width, 0), p, size) for p in parts), default=0
    )
    box = pygame.Rect(area.left, area.top, area.width, min(area.height, pad + head + used + pad))
    if more:
        box.height = area.height
    radius = max(6, min(box.width, box.height) // 12)
    pygame.draw.rect(surface, FACE, box, border_radius=radius)
    pygame.draw.rect(surface, GOLD, box, width=2, border_radius=radius)
    draw_text(
        surface,
        title,
        (box.centerx, box.top + pad),
        title_size,
        GOLD,
        "midtop",
        bold=True,
        max_width=box.width - 2 * pad,
        least=layout.min_text,
    )
    for i, part in enumerate(parts):
        column = pygame.Rect(inner.left + i * (width + gap), inner.top, width, inner.height)
        draw_lines(surface, layout, column, part, size=size, pitch=0)
    if more:
        draw_text(
            surface,
            f"{len(rows) - len(shown)} more: see RULES",
            (box.centerx, box.bottom - pad),
            layout.min_text,
            CREAM,
            "midbottom",
            max_width=box.width - 2 * pad,
            least=layout.min_text,
        )
    return box


def last_round(data: Any) -> tuple[str, tuple[ResultRow, ...]] | None:
    """The headline and the rows of a settled round's view ``data`` (a view this terminal
    kept, :attr:`~terminal_client.model.TerminalModel.last_settled`), as its game's results
    screen words them; None when that view shows no results."""
    from terminal_client.screens.choose import screen_for

    past = TerminalModel()
    past.apply_connection(ConnectionState.CONNECTED)
    past.apply_view(data)
    screen = screen_for(past)
    if getattr(screen, "role", None) != "results" or not hasattr(screen, "rows"):
        return None
    made: Any = screen(past, _Quiet())  # type: ignore[arg-type]
    rows: tuple[ResultRow, ...] = made.rows()
    if not rows:
        return None
    return headline((row.net for row in rows), True), rows


class _Quiet:
    """A client for a screen that only words its rows."""

    def request_rules(self) -> bool:
        return False

    def request_recall(self) -> bool:
        return False


def draw_last_round(
    surface: pygame.Surface,
    layout: Layout,
    area: pygame.Rect,
    shown: tuple[str, tuple[ResultRow, ...]],
) -> pygame.Rect:
    """The last round's results in ``area``: "LAST ROUND: YOU WIN $31.00" and each wager."""
    title, rows = shown
    return draw_results_panel(surface, area, f"LAST ROUND: {title}", rows, layout)
