"""The results panel every table shows when a round settles: one row per wager with what it
was, WON / LOST / PUSH and what it won or lost net, and the reason in plain words under it.

The panel is opaque (nothing under it shows through) and as tall as its rows need, up to
the area it is given: its words are on the type scale (never below its minimum, never cut)
and wrap; rows take two columns rather than spill. Values in, pixels out
(:class:`ResultRow`; the wording is :mod:`terminal_client.screens.results`').

Entry point: :func:`draw_results_panel`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import pygame

from terminal_client.render.draw import CREAM, GOLD, draw_text, fit_lines, wrap_words
from terminal_client.render.fonts import get_font

if TYPE_CHECKING:
    from terminal_client.render.layout import Layout

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


#: Sizes at full size, design px: the title, a wager's name and amount, its outcome and
#: reason; the space between rows and the panel's margins.
TITLE: Final = 30
NAME: Final = 26
SMALL: Final = 20
ROW_GAP: Final = 8
PAD: Final = 16


@dataclass(frozen=True)
class _Sizes:
    title: int
    name: int
    small: int
    least: int
    scale: float


def _sizes(layout: Layout, step: int) -> _Sizes:
    """The panel's sizes ``step`` steps of 10 % below full size (never below the least)."""
    f = 0.9**step
    return _Sizes(
        layout.text(TITLE * f),
        layout.text(NAME * f),
        layout.text(SMALL * f),
        layout.min_text,
        layout.scale,
    )


def _row(
    surface: pygame.Surface | None,
    cell: pygame.Rect,
    row: ResultRow,
    z: _Sizes,
    compact: bool,
) -> int:
    """One wager in ``cell`` (top and width): its name and amount, then the outcome and the
    reason in plain words wrapped under it (compact: the name alone, then outcome, amount
    and reason). Drawn when ``surface`` is given; returns the height it takes."""
    color = GOLD if row.net > 0 else LOST if row.net < 0 else CREAM
    s = z.scale
    gap = round(10 * s)
    name_font = get_font(z.name, True)
    small_font = get_font(z.small, True)
    plain_font = get_font(z.small)
    y = cell.top
    room = cell.width
    if not compact:
        amount_w = name_font.size(row.amount)[0]
        if surface is not None:
            draw_text(
                surface,
                row.amount,
                (cell.right, y),
                z.name,
                color,
                "topright",
                bold=True,
                least=z.least,
            )
        room = max(1, cell.width - amount_w - gap)
    names, name_size = fit_lines(row.what, z.name, z.least, room, bold=True)
    pitch = get_font(name_size, True).get_linesize()
    for line in names:
        if surface is not None:
            draw_text(
                surface,
                line,
                (cell.left, y),
                name_size,
                CREAM,
                "topleft",
                bold=True,
                max_width=room,
                least=z.least,
            )
        y += pitch
    said = row.outcome if not compact else f"{row.outcome} {row.amount}"
    word_w = small_font.size(said)[0]
    if surface is not None:
        draw_text(
            surface, said, (cell.left, y), z.small, color, "topleft", bold=True, least=z.least
        )
    left = cell.left + word_w + gap
    width = max(1, cell.right - left)
    lines = wrap_words(row.detail, z.small, width) if row.detail else []
    line_h = max(small_font.get_linesize(), plain_font.get_linesize())
    for i, line in enumerate(lines):
        if surface is not None:
            draw_text(
                surface,
                line,
                (left, y + i * line_h),
                z.small,
                DIM,
                "topleft",
                max_width=width,
                least=z.least,
            )
    return y - cell.top + line_h * max(1, len(lines))


def _plan(
    rows: Sequence[ResultRow], area: pygame.Rect, z: _Sizes, title: bool, columns: int
) -> tuple[int, list[int]] | None:
    """The panel's height and each row's height with ``rows`` in ``columns`` at sizes ``z``
    (None: wider columns than the area has)."""
    pad = round(PAD * z.scale)
    width = (area.width - pad) // columns - pad
    if width < 40:
        return None
    heights = [_row(None, pygame.Rect(0, 0, width, 0), row, z, compact=columns > 1) for row in rows]
    gap = round(ROW_GAP * z.scale)
    per = -(-len(rows) // columns)
    tallest = max(
        (
            sum(heights[c * per : (c + 1) * per])
            + gap * (len(heights[c * per : (c + 1) * per]) - 1)
            for c in range(columns)
        ),
        default=0,
    )
    head = get_font(z.title, True).get_linesize() + round(8 * z.scale) if title else 0
    return pad + head + tallest + pad, heights


def panel_height(rows: Sequence[ResultRow], layout: Layout, area: pygame.Rect) -> int:
    """The height the panel takes for ``rows`` in ``area`` (window px)."""
    return _layout(rows, area, layout, True)[0].height


def _layout(
    rows: Sequence[ResultRow], area: pygame.Rect, layout: Layout, title: bool
) -> tuple[pygame.Rect, _Sizes, int, list[int], int]:
    """(box, sizes, columns, row heights, rows shown): the largest sizes at which the rows
    fit ``area`` in one column, else two; at the least sizes, as many rows as fit (the
    others are in recall)."""
    two = area.width >= round(420 * layout.scale)
    for step in range(0, 8):
        z = _sizes(layout, step)
        for columns in (1, 2) if two else (1,):
            plan = _plan(rows, area, z, title, columns)
            if plan is not None and plan[0] <= area.height:
                box = pygame.Rect(area.left, area.top, area.width, plan[0])
                return box, z, columns, plan[1], len(rows)
        if z.name == z.small == z.title == layout.min_text:
            break
    z = _sizes(layout, 8)
    columns = 2 if two else 1
    shown = len(rows)
    while shown > 1:
        plan = _plan(rows[: shown - 1], area, z, title, columns)
        shown -= 1
        if plan is not None and plan[0] + get_font(z.small).get_linesize() <= area.height:
            break
    plan = _plan(rows[:shown], area, z, title, columns)
    heights = [] if plan is None else plan[1]
    return pygame.Rect(area), z, columns, heights, shown


def draw_results_panel(
    surface: pygame.Surface,
    area: pygame.Rect,
    title: str,
    rows: Sequence[ResultRow],
    layout: Layout,
    *,
    anchor: str = "top",
) -> pygame.Rect:
    """Draw the panel inside ``area`` (at its top, or its bottom with ``anchor="bottom"``),
    only as tall as its rows need; returns the panel's rectangle. Each row: the wager's
    name and what it won or lost net on one line, the outcome word and the reason in plain
    words wrapped under it. Nothing is shrunk below the type scale's minimum nor cut: the
    rows go in two columns (each row then gives its name alone on its first line) when one
    would not fit, and should even that not fit the last rows make way for a line saying
    how many more recall shows."""
    box, z, columns, heights, shown = _layout(rows, area, layout, bool(title))
    if anchor == "bottom":
        box.bottom = area.bottom
    s = layout.scale
    radius = max(6, min(box.width, box.height) // 12)
    pygame.draw.rect(surface, FACE, box, border_radius=radius)
    pygame.draw.rect(surface, GOLD, box, width=2, border_radius=radius)
    pad = round(PAD * s)
    top = box.top + pad
    if title:
        draw_text(
            surface,
            title,
            (box.centerx, box.top + round(8 * s)),
            z.title,
            GOLD,
            "midtop",
            bold=True,
            max_width=box.width - 2 * pad,
            least=z.least,
        )
        top = box.top + pad + get_font(z.title, True).get_linesize() + round(8 * s)
    per = -(-shown // columns) if shown else 1
    width = (box.width - pad) // columns - pad
    gap = round(ROW_GAP * s)
    y = top
    for i, row in enumerate(rows[:shown]):
        column, line = divmod(i, per)
        if line == 0:
            y = top
        cell = pygame.Rect(box.left + pad + column * (width + pad), y, width, heights[i])
        _row(surface, cell, row, z, compact=columns > 1)
        y += heights[i] + gap
    if shown < len(rows):
        more = len(rows) - shown
        draw_text(
            surface,
            f"{more} more: see RECALL",
            (box.centerx, box.bottom - pad),
            z.small,
            DIM,
            "midbottom",
            max_width=box.width - 2 * pad,
            least=z.least,
        )
    return box
