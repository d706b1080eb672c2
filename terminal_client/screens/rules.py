"""The game rules icon's screen (58 Pa. Code 633b.5(c)(2)): the game's rules lines ("Blackjack
pays 3 to 2, dealer stands on all soft 17s, insurance pays 2 to 1") and what each countdown
does when a player does not act, then one page per wager with its limits and its paytable.

The terminal keeps no copy of the rules: opening the screen asks the server (``GetRules``),
which builds them from the config in force; until the answer comes the screen shows the
game's own first lines (:attr:`~terminal_client.games.api.TerminalGame.main_rules`) and says
it is loading, and if the server cannot answer it says why.
"""

from __future__ import annotations

import pygame

from shared.money import format_money
from terminal_client.model import Document, Rules, TerminalModel
from terminal_client.render import Layout
from terminal_client.render.draw import GOLD, draw_text
from terminal_client.screens.base import IntentSender
from terminal_client.screens.overlay import PagedOverlay, draw_lines, status_text

_COUNTDOWN_NAMES = {"betting": "Betting", "insurance": "Insurance", "decision": "Each decision"}


class RulesScreen(PagedOverlay):
    """Page 1: the game's rules and countdowns; then a page per wager with its paytable."""

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        client.request_rules()

    def title(self) -> str:
        if self.page == 0:
            return "GAME RULES"
        rules = self.model.rules
        assert rules is not None
        wager = rules.wagers[self.page - 1]
        return wager.title.upper()

    def page_count(self) -> int:
        rules = self.model.rules
        return 1 if rules is None else 1 + len(rules.wagers)

    def lines(self) -> list[tuple[str, str]]:
        """The rows of the page shown: ``(text, right-aligned text)``."""
        rules = self.model.rules
        if self.page == 0 or rules is None:
            return self._main_lines(rules)
        wager = rules.wagers[self.page - 1]
        limits = f"{format_money(wager.minimum)} to {format_money(wager.maximum)}"
        rows = [(f"Wager {limits}", "")]
        if wager.paytable:
            rows.append((f"{wager.paytable} ({wager.section})", ""))
        rows += [(note, "") for note in wager.notes]
        rows.append(("", ""))
        rows += [(line.hand, line.pays) for line in wager.lines]
        return rows

    def _main_lines(self, rules: Rules | None) -> list[tuple[str, str]]:
        if rules is None:
            return [(line, "") for line in self.model.game.main_rules]
        rows = [(line, "") for line in rules.lines]
        rows.append(("", ""))
        for countdown in rules.countdowns:
            name = _COUNTDOWN_NAMES.get(countdown.kind, countdown.kind.capitalize())
            rows.append(
                (f"{name}: {countdown.seconds} s, then {countdown.then}", ""),
            )
        return rows

    def draw_page(self, surface: pygame.Surface, layout: Layout, box: pygame.Rect) -> None:
        rows = self.lines()
        # Every row on the page: a long paytable (Super 4 has ten lines and five meters)
        # gets a tighter pitch rather than losing its last lines.
        pitch = max(24, min(46, int(box.height / layout.scale) // max(1, len(rows))))
        draw_lines(surface, layout, box, rows, size=min(30, pitch * 2 // 3), pitch=pitch)
        state = self.model.document(Document.RULES)
        if state.value is None:
            y = box.top + round(46 * 4 * layout.scale)
            area = pygame.Rect(box.left, y, box.width, box.bottom - y)
            if state.error:
                status_text(surface, layout, area, f"Paytables unavailable: {state.error}")
            else:
                status_text(surface, layout, area, "Loading the paytables from the table ...")
        elif self.page == 0 and self.page_count() > 1:
            draw_text(
                surface,
                "NEXT: each wager's paytable",
                box.midbottom,
                round(28 * layout.scale),
                GOLD,
                "midbottom",
            )
