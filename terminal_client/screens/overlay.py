"""Overlays over the table: a dark panel with pages, PREVIOUS / NEXT and CLOSE, and the menu
buttons (RULES, RECALL, CASH OUT) that open them.

An overlay's only local state is the page shown; what it shows comes from the model (the
rules and recall documents the server sent on request). CLOSE or the back key pops it.

Entry points: :class:`PagedOverlay`, :func:`menu_buttons`, :func:`menu_tap`.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame

from terminal_client.input import Intent, Key, Tap
from terminal_client.model import TerminalModel
from terminal_client.render import Layout
from terminal_client.render.draw import CREAM, GOLD, draw_text, wrap_words
from terminal_client.render.fonts import get_font
from terminal_client.screens.base import Handled, IntentSender, Screen
from terminal_client.screens.scene import draw_buttons, panel
from terminal_client.widgets import Button

#: The menu buttons: (id, label). Each opens an overlay.
MENU: tuple[tuple[str, str], ...] = (
    ("rules", "RULES"),
    ("recall", "RECALL"),
    ("cashout", "CASH OUT"),
)


def cash_out_allowed(model: TerminalModel) -> bool:
    """Credits to cash out and no wager of this terminal in play (the server refuses a cash
    out while wagers are in play; the button does not offer what would be refused)."""
    seat = model.my_seat
    in_play = seat is not None and model.phase not in (None, "complete")
    return bool(model.credits) and not in_play


def menu_buttons(layout: Layout, model: TerminalModel) -> tuple[Button, ...]:
    """RULES, RECALL and CASH OUT: under the credits (landscape) or beside them (portrait);
    each at least 96 design pixels high (a finger's width at any supported size)."""
    cash_out = cash_out_allowed(model)
    s = layout.scale
    gap = round(10 * s)
    height = round(96 * s)
    if layout.portrait:
        left = layout.credits.right + round(12 * s)
        top = layout.credits.top
        width = (layout.window.width - round(24 * s) - left - 2 * gap) // 3
    else:
        left = layout.credits.left
        top = layout.credits.bottom + round(12 * s)
        width = (layout.credits.width - 2 * gap) // 3
    return tuple(
        Button(
            name,
            (left + i * (width + gap), top, width, height),
            label,
            name != "cashout" or cash_out,
        )
        for i, (name, label) in enumerate(MENU)
    )


def menu_tap(intent: Intent, model: TerminalModel, client: IntentSender) -> Handled | None:
    """Open the overlay a tap on a menu button asks for (None for any other intent)."""
    if not isinstance(intent, Tap):
        return None
    # Imported here: the overlays import this module for PagedOverlay.
    from terminal_client.screens.credits import CashOutScreen
    from terminal_client.screens.recall import RecallScreen
    from terminal_client.screens.rules import RulesScreen

    screens: dict[str, Callable[[TerminalModel, IntentSender], Screen]] = {
        "button:rules": RulesScreen,
        "button:recall": RecallScreen,
    }
    if cash_out_allowed(model):
        screens["button:cashout"] = CashOutScreen
    make = screens.get(intent.target_id or "")
    return None if make is None else Handled(push=make(model, client))


def menu_hit(layout: Layout, model: TerminalModel, pos: tuple[int, int]) -> str | None:
    """The menu button under ``pos`` (enabled ones only), or None."""
    for button in menu_buttons(layout, model):
        if button.hit(pos):
            return button.target_id
    return None


class PagedOverlay(Screen):
    """A centred panel with a title, a page of content, and PREVIOUS / NEXT / CLOSE."""

    opaque = False
    #: The panel's size in design pixels (landscape; portrait is narrower and taller).
    design_size = (1500, 900)

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        self.page = 0

    # What subclasses say ----------------------------------------------------------------------

    def title(self) -> str:
        raise NotImplementedError

    def page_count(self) -> int:
        return 1

    def page_label(self) -> str:
        count = self.page_count()
        return f"{self.page + 1} of {count}" if count > 1 else ""

    def draw_page(self, surface: pygame.Surface, layout: Layout, box: pygame.Rect) -> None:
        raise NotImplementedError

    # Geometry -----------------------------------------------------------------------------------

    def box(self, layout: Layout) -> pygame.Rect:
        w, h = self.design_size
        if layout.portrait:
            w, h = 1040, 1500
        rect = pygame.Rect(0, 0, round(w * layout.scale), round(h * layout.scale))
        rect.center = layout.window.center
        return rect

    def content(self, layout: Layout) -> pygame.Rect:
        """The page's area: under the title, above the buttons."""
        s = layout.scale
        box = self.box(layout)
        top = box.top + round(100 * s)
        bottom = box.bottom - round(140 * s)
        return pygame.Rect(box.left + round(40 * s), top, box.width - round(80 * s), bottom - top)

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        s = layout.scale
        box = self.box(layout)
        w, h = round(260 * s), round(100 * s)
        y = box.bottom - h - round(24 * s)
        gap = round(24 * s)
        count = self.page_count()
        return (
            Button("previous", (box.left + gap, y, w, h), "PREVIOUS", self.page > 0),
            Button("close", (box.centerx - w // 2, y, w, h), "CLOSE"),
            Button("next", (box.right - gap - w, y, w, h), "NEXT", self.page + 1 < count),
        )

    # Intents ------------------------------------------------------------------------------------

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        for button in self.buttons(layout):
            if button.hit(pos):
                return button.target_id
        return None

    def handle(self, intent: Intent) -> Handled | None:
        if isinstance(intent, Key) and intent.name == "back":
            return Handled(pop=True)
        if not isinstance(intent, Tap):
            return None
        target = intent.target_id
        if target == "button:close":
            return Handled(pop=True)
        if target == "button:previous" and self.page > 0:
            self.page -= 1
            return Handled()
        if target == "button:next" and self.page + 1 < self.page_count():
            self.page += 1
            return Handled()
        return None

    # Drawing ------------------------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        s = layout.scale
        shade = pygame.Surface(layout.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, (0, 0))
        box = self.box(layout)
        panel(surface, box, 235)
        draw_text(
            surface,
            self.title(),
            (box.centerx, box.top + round(22 * s)),
            layout.text(52),
            GOLD,
            "midtop",
            bold=True,
            max_width=box.width - 2 * round(180 * s),
            least=layout.min_text,
        )
        label = self.page_label()
        if label:
            draw_text(
                surface,
                label,
                (box.right - round(30 * s), box.top + round(34 * s)),
                layout.text(28),
                CREAM,
                "topright",
                least=layout.min_text,
            )
        self.draw_page(surface, layout, self.content(layout))
        draw_buttons(surface, layout, self.buttons(layout))


def _row_lines(
    left: str, right: str, size: int, width: int, gap: int
) -> tuple[list[str], list[str], int]:
    """A row's left text and right text wrapped side by side in ``width`` at ``size``:
    (left lines, right lines, the right column's width). The right column takes what its
    text needs, up to 45 % of the width."""
    right_w = 0
    right_lines: list[str] = []
    if right:
        whole = get_font(size, True).size(right)[0]
        if get_font(size).size(left)[0] + gap + whole <= width:
            right_lines = [right]  # both on one line
        else:
            right_lines = wrap_words(right, size, int(width * 0.45), bold=True)
        right_w = max(get_font(size, True).size(line)[0] for line in right_lines)
    room = width - (right_w + gap if right else 0)
    left_lines = wrap_words(left, size, max(1, room)) if left else [""]
    return left_lines, right_lines, right_w


def lines_height(
    layout: Layout, area: pygame.Rect, lines: list[tuple[str, str]], size: int, pitch: int = 0
) -> int:
    """The height :func:`draw_lines` takes for ``lines`` at design ``size`` (rows at least
    ``pitch`` design pixels apart) in ``area``."""
    font_size = layout.text(size)
    step = get_font(font_size, True).get_linesize()
    line_h = max(round(pitch * layout.scale), step)
    gap = round(24 * layout.scale)
    height = 0
    for left, right in lines:
        left_lines, right_lines, _ = _row_lines(left, right, font_size, area.width, gap)
        height += max(line_h, step * max(len(left_lines), len(right_lines), 1))
    return height


def lines_fit(
    layout: Layout, area: pygame.Rect, lines: list[tuple[str, str]], size: int, pitch: int = 0
) -> bool:
    """Whether :func:`draw_lines` draws every row of ``lines`` at design ``size`` inside
    ``area``: as tall as it has and no word wider than its column."""
    if lines_height(layout, area, lines, size, pitch) > area.height:
        return False
    font_size = layout.text(size)
    gap = round(24 * layout.scale)
    for left, right in lines:
        left_lines, right_lines, right_w = _row_lines(left, right, font_size, area.width, gap)
        room = area.width - (right_w + gap if right else 0)
        if any(get_font(font_size).size(line)[0] > room for line in left_lines):
            return False
        if any(get_font(font_size, True).size(line)[0] > right_w for line in right_lines):
            return False
    return True


def fitting_size(
    layout: Layout, area: pygame.Rect, lines: list[tuple[str, str]], most: int = 30
) -> int:
    """The largest design size, up to ``most``, at which every row of ``lines`` fits
    ``area`` wrapped (the type scale's minimum when none does)."""
    size = most
    while size > 10 and lines_height(layout, area, lines, size) > area.height:
        size -= 1
    return size


def draw_lines(
    surface: pygame.Surface,
    layout: Layout,
    area: pygame.Rect,
    lines: list[tuple[str, str]],
    size: int = 30,
    pitch: int = 44,
) -> int:
    """Rows of ``(text, right-aligned text)`` from the top of ``area``, each wrapped in its
    column (the right text in gold); a row at least ``pitch`` design pixels apart from the
    next, more when it wraps. Rows that do not fit are left out (the caller pages or picks
    a size that fits: :func:`fitting_size`). Returns where the rows drawn end."""
    s = layout.scale
    font_size = layout.text(size)
    line_h = max(round(pitch * s), get_font(font_size, True).get_linesize())
    gap = round(24 * s)
    y = area.top
    for left, right in lines:
        left_lines, right_lines, right_w = _row_lines(left, right, font_size, area.width, gap)
        rows = max(len(left_lines), len(right_lines), 1)
        step = get_font(font_size, True).get_linesize()
        height = max(line_h, step * rows)
        if y + min(height, line_h) > area.bottom:
            break
        room = area.width - (right_w + gap if right else 0)
        for i, line in enumerate(left_lines):
            if line:
                draw_text(
                    surface,
                    line,
                    (area.left, y + i * step),
                    font_size,
                    CREAM,
                    "topleft",
                    max_width=room,
                    least=layout.min_text,
                )
        for i, line in enumerate(right_lines):
            draw_text(
                surface,
                line,
                (area.right, y + i * step),
                font_size,
                GOLD,
                "topright",
                True,
                max_width=right_w,
                least=layout.min_text,
            )
        y += height
    return y


def status_text(surface: pygame.Surface, layout: Layout, area: pygame.Rect, text: str) -> None:
    """One sentence in the middle of ``area`` (loading, or why the document is missing)."""
    draw_text(
        surface,
        text,
        area.center,
        layout.text(36),
        CREAM,
        max_width=area.width,
        least=layout.min_text,
    )
