"""The rules overlay (58 Pa. Code 633b.5(c)(2)): the game's rules in plain words, the
countdown's effect as the server states it, and the wagers and limits the server offers.

The view carries no paytables, so side-wager paytables are not shown (the terminal shows
only what the server sends; it keeps no copy of the rules).
"""

from __future__ import annotations

import pygame

from shared.money import format_money
from terminal_client.input import Intent, Key, Tap
from terminal_client.render import Layout
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.screens.base import Handled, Screen
from terminal_client.screens.scene import centre_panel, draw_buttons, panel, wager_name
from terminal_client.widgets import Button

MAIN_RULES: tuple[str, ...] = (
    "Blackjack pays 3 to 2",
    "Dealer stands on all soft 17s",
    "Insurance pays 2 to 1",
)


class RulesScreen(Screen):
    """An overlay over the table; CLOSE (or the back key) returns to it."""

    opaque = False

    def lines(self) -> list[str]:
        model = self.model
        lines = list(MAIN_RULES)
        countdown = model.countdown
        if countdown is not None and countdown.then:
            lines.append(f"If the {countdown.kind} timer runs out: {countdown.then}")
        else:
            lines.append("If a timer runs out, the table acts as the timer shows")
        for wager, limits in model.limits.items():
            span = f"{format_money(limits.minimum)} to {format_money(limits.maximum)}"
            lines.append(f"{wager_name(wager)}: {span}")
        if any(w != "blackjack" for w in model.limits):
            lines.append("Side wager paytables: ask an attendant")
        return lines

    def _box(self, layout: Layout) -> pygame.Rect:
        return centre_panel(layout, 1100, 240 + 52 * len(self.lines()))

    def close_button(self, layout: Layout) -> Button:
        box = self._box(layout)
        w, h = round(240 * layout.scale), round(100 * layout.scale)
        return Button("close", (box.centerx - w // 2, box.bottom - h - 20, w, h), "CLOSE")

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        button = self.close_button(layout)
        return button.target_id if button.hit(pos) else None

    def handle(self, intent: Intent) -> Handled | None:
        if (isinstance(intent, Tap) and intent.target_id == "button:close") or (
            isinstance(intent, Key) and intent.name == "back"
        ):
            return Handled(pop=True)
        return None

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        s = layout.scale
        shade = pygame.Surface(layout.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 140))
        surface.blit(shade, (0, 0))
        box = self._box(layout)
        panel(surface, box, 230)
        draw_text(
            surface,
            "GAME RULES",
            (box.centerx, box.top + round(20 * s)),
            round(50 * s),
            GOLD,
            "midtop",
            bold=True,
        )
        for i, line in enumerate(self.lines()):
            y = box.top + round((100 + 52 * i) * s)
            draw_text(
                surface,
                line,
                (box.centerx, y),
                round(32 * s),
                CREAM,
                "midtop",
                max_width=box.width - round(40 * s),
            )
        draw_buttons(surface, (self.close_button(layout),))
