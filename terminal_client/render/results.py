"""The results panel every table shows when a round settles: one row per wager with what it
was, WON / LOST / PUSH and what it won or lost net, and the reason in plain words under it.

The panel is opaque (nothing under it shows through) and as tall as its rows need, up to
the area it is given: rows shrink to fit rather than spill. Values in, pixels out
(:class:`ResultRow`; the wording is :mod:`terminal_client.screens.results`').

Entry point: :func:`draw_results_panel`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import pygame

from terminal_client.render.draw import CREAM, GOLD, draw_text, fit_text

#: A lost wager's colour, and the plain words' colour.
LOST: Final = (235, 120, 110)
DIM: Final = (170, 188, 172)
#: The panel's face (opaque) and rim.
FACE: Final = (10, 34, 22)


@dataclass(frozen=True)
class ResultRow:
    """One settled wager: what it was, the reason in plain words (may be empty), the
    outcome word and what it won (> 0) or lost (< 0) net of its stake, in cents."""

    what: str
    detail: str
    outcome: str
    net: int
    amount: str


#: Row heights at full size, design px: the name and amount, then the outcome and reason.
ROW: Final = 64
TITLE: Final = 50


def panel_height(
    rows: Sequence[ResultRow], scale: float, title: bool = True, columns: int = 1
) -> int:
    """The height the panel wants for ``rows`` in ``columns`` at full size (window px)."""
    head = round(TITLE * scale) if title else round(10 * scale)
    per_column = -(-len(rows) // columns)
    return head + per_column * round(ROW * scale) + round(10 * scale)


def draw_results_panel(
    surface: pygame.Surface,
    area: pygame.Rect,
    title: str,
    rows: Sequence[ResultRow],
    scale: float,
    *,
    anchor: str = "top",
) -> pygame.Rect:
    """Draw the panel inside ``area`` (at its top, or its bottom with ``anchor="bottom"``),
    only as tall as its rows need; returns the panel's rectangle. Each row: the wager's
    name and what it won or lost net on one line, the outcome word and the reason in plain
    words under it. When one column of rows would have to shrink much, the rows go in two
    columns (each row then gives its name alone on the first line)."""
    s = scale
    columns = 1
    if panel_height(rows, s, bool(title)) > area.height * 1.15 and area.width >= 420 * s:
        columns = 2
    wanted = panel_height(rows, s, bool(title), columns)
    fit = min(1.0, area.height / wanted) if wanted else 1.0
    box = pygame.Rect(area.left, area.top, area.width, min(area.height, wanted))
    if anchor == "bottom":
        box.bottom = area.bottom
    radius = max(6, min(box.width, box.height) // 12)
    pygame.draw.rect(surface, FACE, box, border_radius=radius)
    pygame.draw.rect(surface, GOLD, box, width=2, border_radius=radius)
    pad = round(16 * s)
    top = box.top + round(8 * s * fit)
    if title:
        draw_text(
            surface,
            title,
            (box.centerx, top),
            max(10, round(30 * s * fit)),
            GOLD,
            "midtop",
            bold=True,
            max_width=box.width - 2 * pad,
        )
        top = box.top + round(TITLE * s * fit)
    per_column = -(-len(rows) // columns)
    width = (box.width - pad) // columns
    for i, row in enumerate(rows):
        column, line = divmod(i, per_column)
        cell = pygame.Rect(
            box.left + pad + column * width,
            top + line * round(ROW * s * fit),
            width - pad,
            round(ROW * s * fit),
        )
        _row(surface, cell, row, s * fit, compact=columns > 1)
    return box


def _row(
    surface: pygame.Surface, cell: pygame.Rect, row: ResultRow, s: float, compact: bool
) -> None:
    """One wager in ``cell``: name and amount, then outcome and reason (compact: the name
    alone, then outcome, amount and reason)."""
    color = GOLD if row.net > 0 else LOST if row.net < 0 else CREAM
    size = max(10, round((22 if compact else 26) * s))
    small = max(9, round((18 if compact else 20) * s))
    room = cell.width
    if not compact:
        amount = draw_text(
            surface, row.amount, (cell.right, cell.top), size, color, "topright", bold=True
        )
        room = max(20, amount.left - cell.left - round(12 * s))
    draw_text(
        surface,
        fit_text(row.what, size, room, bold=True),
        cell.topleft,
        size,
        CREAM,
        "topleft",
        bold=True,
        max_width=room,
    )
    below = cell.top + round((29 if compact else 31) * s)
    said = row.outcome if not compact else f"{row.outcome} {row.amount}"
    word = draw_text(surface, said, (cell.left, below), small, color, "topleft", bold=True)
    if row.detail:
        left = word.right + round(10 * s)
        room = max(20, cell.right - left)
        draw_text(
            surface,
            fit_text(row.detail, small, room),
            (left, below),
            small,
            DIM,
            "topleft",
            max_width=room,
        )
