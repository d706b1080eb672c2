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
from terminal_client.render.draw import CREAM, GOLD, draw_text
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
            round(52 * s),
            GOLD,
            "midtop",
            bold=True,
            max_width=box.width - round(80 * s),
        )
        label = self.page_label()
        if label:
            draw_text(
                surface,
                label,
                (box.right - round(30 * s), box.top + round(34 * s)),
                round(28 * s),
                CREAM,
                "topright",
            )
        self.draw_page(surface, layout, self.content(layout))
        draw_buttons(surface, self.buttons(layout))


def draw_lines(
    surface: pygame.Surface,
    layout: Layout,
    area: pygame.Rect,
    lines: list[tuple[str, str]],
    size: int = 30,
    pitch: int = 44,
) -> None:
    """Left-aligned rows of ``(text, right-aligned text)`` from the top of ``area``; rows
    that do not fit are left out (the caller pages)."""
    s = layout.scale
    for i, (left, right) in enumerate(lines):
        y = area.top + round(pitch * i * s)
        if y + round(pitch * s) > area.bottom:
            break
        draw_text(
            surface,
            left,
            (area.left, y),
            round(size * s),
            CREAM,
            "topleft",
            max_width=area.width - round(300 * s) if right else area.width,
        )
        if right:
            draw_text(surface, right, (area.right, y), round(size * s), GOLD, "topright", True)


def status_text(surface: pygame.Surface, layout: Layout, area: pygame.Rect, text: str) -> None:
    """One sentence in the middle of ``area`` (loading, or why the document is missing)."""
    draw_text(
        surface,
        text,
        area.center,
        round(36 * layout.scale),
        CREAM,
        max_width=area.width,
    )
