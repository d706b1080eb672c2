"""Screens of a terminal that cannot play now: the connection is lost, the software needs an
update, the certificate was refused, or the terminal is idle with no credits (attract).

Credits shown while offline are labelled as the last known from the server: the terminal
never guesses a balance.
"""

from __future__ import annotations

import pygame

from shared.money import format_money
from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.render import Layout, draw_card, draw_felt
from terminal_client.render.draw import CREAM, GOLD, draw_fitted, draw_text
from terminal_client.screens.base import IntentSender, Screen
from terminal_client.screens.scene import centre_panel, panel


def _lines(surface: pygame.Surface, layout: Layout, title: str, lines: list[str]) -> None:
    s = layout.scale
    draw_felt(surface, layout.window)
    box = centre_panel(layout, 1300, 220 + 64 * len(lines))
    panel(surface, box, 200)
    draw_text(
        surface,
        title,
        (box.centerx, box.top + round(34 * s)),
        layout.text(60),
        GOLD,
        "midtop",
        bold=True,
        max_width=box.width - round(60 * s),
        least=layout.min_text,
    )
    for i, line in enumerate(lines):
        y = box.top + round((150 + 64 * i) * s)
        draw_text(
            surface,
            line,
            (box.centerx, y),
            layout.text(38),
            CREAM,
            "midtop",
            max_width=box.width - round(60 * s),
            least=layout.min_text,
        )


class ConnectionLostScreen(Screen):
    """The table cannot be reached: what that means, the retry countdown, and the credits
    last known from the server."""

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        self.retry_in: int | None = None

    def update(self, now: float) -> bool:
        retry = self.model.connection.retry_in(now)
        changed = retry != self.retry_in
        self.retry_in = retry
        return changed

    def text(self) -> tuple[str, list[str]]:
        """The title and the lines: a terminal that never reached the table is still
        connecting (nothing was lost); one that was connected lost its connection."""
        model = self.model
        lines = []
        if not model.ever_connected:
            title = "CONNECTING TO THE TABLE"
            if model.connection.state is ConnectionState.LOST:
                lines.append("The table does not answer yet.")
        else:
            title = "CONNECTION TO THE TABLE LOST"
            lines.append("Your credits and bets are safe with the table.")
        if self.retry_in is not None:
            lines.append(f"Trying again in {self.retry_in} s")
        else:
            lines.append("Trying to reach the table\u2026")
        if model.credits is not None:
            lines.append(f"Credits (last known from the server): {format_money(model.credits)}")
        lines.append("If this lasts, please call an attendant.")
        return title, lines

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        title, lines = self.text()
        _lines(surface, layout, title, lines)


class NeedsUpdateScreen(Screen):
    """The server speaks a newer version: this terminal cannot play until it is updated."""

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        _lines(
            surface,
            layout,
            "TERMINAL NEEDS AN UPDATE",
            [
                "This terminal cannot play at this table until its software is updated.",
                "Your credits are safe with the table.",
                "Please call an attendant.",
            ],
        )


class RefusedScreen(Screen):
    """The table refused this terminal's certificate (or the table's was not trusted)."""

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        _lines(
            surface,
            layout,
            "TERMINAL NOT ACCEPTED",
            [
                "The table did not accept this terminal's security certificate.",
                "Please call an attendant.",
            ],
        )


class OutOfServiceScreen(Screen):
    """The operator took the table out of service (``SetTableState``): no play, the
    player's credits are safe and shown as the server holds them."""

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        credits = self.model.credits
        lines = ["This table is out of service.", "An attendant has been called."]
        if credits:
            lines.append(f"Your credits of {format_money(credits)} are safe at the table.")
        _lines(surface, layout, "OUT OF SERVICE", lines)


class AttractScreen(Screen):
    """Idle with no credits (or the table is closed): invite play at this table's game, with
    its name and its own rules summary (the server's rules document once it answered, the
    game's own first lines before)."""

    def enter(self) -> None:
        if self.model.rules is None:
            self.client.request_rules()

    def summary(self) -> tuple[str, tuple[str, ...]]:
        """The game's name and the first lines of its rules."""
        model = self.model
        rules = model.rules
        game = model.game
        title = (rules.game if rules is not None else "") or game.title or "TABLE GAMES"
        lines = rules.lines if rules is not None else game.main_rules
        return title.upper(), tuple(lines[:2])

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        s = layout.scale
        draw_felt(surface, layout.window)
        view = self.model.view
        closed = view is not None and view.state not in (None, "open")
        cw, ch = round(200 * s), round(280 * s)
        cx, cy = layout.window.centerx, layout.window.centery - round(200 * s)
        draw_card(surface, pygame.Rect(cx - cw - round(10 * s), cy - ch // 2, cw, ch), "AS")
        draw_card(surface, pygame.Rect(cx + round(10 * s), cy - ch // 2, cw, ch), "KH")
        title, lines = self.summary()
        room = layout.window.width - round(80 * s)
        y = cy + ch // 2 + round(30 * s)
        invite = self.model.phase_name if closed else "Insert cash or a ticket to play"
        for text, design, color, bold in (
            (title, 96, GOLD, True),
            *((line, 40, CREAM, False) for line in lines),
            (invite, 52, CREAM, True),
        ):
            y = draw_fitted(
                surface, text, (cx, y), layout.text(design), layout.min_text, room, color, bold=bold
            )
            y += round(14 * s)
