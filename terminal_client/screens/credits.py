"""Credits and the cash-out request: the player's credits as the server holds them, and a
request to cash all of them out (``RequestCashOut``), which the server refuses while wagers
are in play.

The screen asks for a confirmation first (one accidental tap never cashes out), shows
"waiting" while the request is out, then the server's answer: the credits now held (the
server's balance, never a local sum) or the server's reason for refusing.
"""

from __future__ import annotations

import pygame

from shared.money import format_money
from terminal_client.input import Intent, Tap
from terminal_client.model import IntentKind, TerminalModel
from terminal_client.render import Layout
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.screens.base import Handled, IntentSender
from terminal_client.screens.overlay import PagedOverlay
from terminal_client.widgets import Button


class CashOutScreen(PagedOverlay):
    """CASH OUT (after a confirmation) or CANCEL."""

    design_size = (1100, 700)

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        #: The credits shown when the player confirmed, and the request's id.
        self.asked: int | None = None
        self.request_id: str | None = None

    def title(self) -> str:
        return "CREDITS"

    def _stage(self) -> str:
        """``confirm``, ``waiting``, ``refused`` or ``done``."""
        if self.request_id is None:
            return "confirm"
        if any(i.request_id == self.request_id for i in self.model.pending):
            return "waiting"
        error = self.model.last_error
        if error is not None and error.request_id == self.request_id:
            return "refused"
        return "done"

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        s = layout.scale
        box = self.box(layout)
        w, h = round(300 * s), round(110 * s)
        y = box.bottom - h - round(30 * s)
        gap = round(40 * s)
        if self._stage() != "confirm":
            return (Button("close", (box.centerx - w // 2, y, w, h), "CLOSE"),)
        credits = self.model.credits or 0
        return (
            Button("cancel", (box.left + gap, y, w, h), "CANCEL"),
            Button("confirm", (box.right - gap - w, y, w, h), "CASH OUT", credits > 0),
        )

    def handle(self, intent: Intent) -> Handled | None:
        if isinstance(intent, Tap) and intent.target_id == "button:cancel":
            return Handled(pop=True)
        if isinstance(intent, Tap) and intent.target_id == "button:confirm":
            if self._stage() != "confirm" or not self.model.credits:
                return None
            sent = self.client.cash_out()
            if sent is None:
                return None
            self.asked = self.model.credits
            self.request_id = sent.request_id
            return Handled()
        return super().handle(intent)

    def lines(self) -> list[str]:
        credits = self.model.credits
        shown = "--" if credits is None else format_money(credits)
        stage = self._stage()
        if stage == "confirm":
            if not credits:
                return [f"Credits {shown}", "There are no credits to cash out."]
            return [f"Credits {shown}", f"Cash out all {shown}?"]
        if stage == "waiting":
            return [f"Cashing out {format_money(self.asked or 0)} ..."]
        if stage == "refused":
            error = self.model.last_error
            reason = "" if error is None else error.message
            return ["The cash out was not made:", reason, f"Credits {shown}"]
        return [
            f"Cashed out {format_money(self.asked or 0)}.",
            "An attendant will bring your payment.",
            f"Credits now {shown}",
        ]

    def draw_page(self, surface: pygame.Surface, layout: Layout, box: pygame.Rect) -> None:
        s = layout.scale
        for i, line in enumerate(self.lines()):
            draw_text(
                surface,
                line,
                (box.centerx, box.top + round((30 + 70 * i) * s)),
                layout.text(46 if i == 0 else 36),
                GOLD if i == 0 else CREAM,
                "midtop",
                bold=i == 0,
                max_width=box.width,
                least=layout.min_text,
            )
        if self.model.is_waiting(IntentKind.CASH_OUT) and self.request_id is None:
            draw_text(
                surface,
                "A cash out is already being made",
                box.midbottom,
                layout.text(28),
                CREAM,
                "midbottom",
                least=layout.min_text,
            )
