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
from terminal_client.model import Document, Rules, ShoeShown, TerminalModel, short_digest
from terminal_client.render import Layout
from terminal_client.render.draw import GOLD, draw_text
from terminal_client.render.fonts import get_font
from terminal_client.screens.base import IntentSender
from terminal_client.screens.overlay import PagedOverlay, draw_lines, fitting_size, status_text

_COUNTDOWN_NAMES = {"betting": "Betting", "insurance": "Insurance", "decision": "Each decision"}


class RulesScreen(PagedOverlay):
    """Page 1: the game's rules and countdowns; then a page per wager with its paytable."""

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        client.request_rules()

    def title(self) -> str:
        if self.page == 0:
            return "GAME RULES"
        if self._shoe_page:
            return "THE SHOE"
        rules = self.model.rules
        assert rules is not None
        wager = rules.wagers[self.page - 1]
        return wager.title.upper()

    def page_count(self) -> int:
        rules = self.model.rules
        return 1 if rules is None else 2 + len(rules.wagers)

    @property
    def _shoe_page(self) -> bool:
        """The last page: the shoe's commitment and the last reveal."""
        rules = self.model.rules
        return rules is not None and self.page == 1 + len(rules.wagers)

    def lines(self) -> list[tuple[str, str]]:
        """The rows of the page shown: ``(text, right-aligned text)``."""
        rules = self.model.rules
        if self.page == 0 or rules is None:
            return self._main_lines(rules)
        if self._shoe_page:
            view = self.model.view
            return shoe_lines(None if view is None else view.shoe)
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
        if self._shoe_page:
            draw_lines(surface, layout, box, self.lines(), size=26, pitch=40)
            return
        rows = self.lines()
        state = self.model.document(Document.RULES)
        area = pygame.Rect(box)
        if state.value is not None and self.page == 0 and self.page_count() > 1:
            area.height -= get_font(layout.text(28)).get_linesize() + round(12 * layout.scale)
        # Every row on the page, wrapped: a long paytable (Super 4 has ten lines and five
        # meters) gets a smaller size, never below the type scale's minimum, rather than
        # losing its last lines.
        size = fitting_size(layout, area, rows)
        draw_lines(surface, layout, area, rows, size=size, pitch=round(size * 1.5))
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
                "NEXT: each wager's paytable, then the shoe",
                box.midbottom,
                layout.text(28),
                GOLD,
                "midbottom",
                least=layout.min_text,
            )


def _groups(digest: str) -> list[str]:
    """A 64-digit digest as two lines of eight groups of four hex digits."""
    groups = [digest[i : i + 4] for i in range(0, len(digest), 4)]
    return [" ".join(groups[:8]), " ".join(groups[8:])]


def shoe_lines(shoe: ShoeShown | None) -> list[tuple[str, str]]:
    """The shoe page (``docs/shoe-spec.md``): the shoe in use and its commitment, shown
    before its first card; the last retired shoe and its reveal; how to check a game."""
    rows: list[tuple[str, str]] = [
        ("Every shoe is shuffled by the certified HMAC_DRBG (NIST SP 800-90A)", ""),
        ("and committed to before its first card: SHA-256 of its order and a salt.", ""),
        ("", ""),
    ]
    if shoe is None or shoe.number is None or shoe.commitment is None:
        rows.append(("No shoe in use: the next one is committed before its first card", ""))
    else:
        rows.append(
            (
                f"Shoe {shoe.number} in use: {shoe.decks} deck{'' if shoe.decks == 1 else 's'}, "
                f"{shoe.dealt} cards dealt",
                "",
            )
        )
        first, second = _groups(shoe.commitment)
        rows += [(f"Committed  {first}", ""), (f"                   {second}", "")]
    retired = None if shoe is None else shoe.retired
    if retired is not None:
        rows.append(("", ""))
        rows.append((f"Shoe {retired['number']} retired: its seed and salt are revealed", ""))
        rows.append((f"Committed  {short_digest(str(retired['commitment']), 8)}", ""))
        rows.append((f"Seed  {short_digest(str(retired['entropy_input']), 8)}", ""))
        rows.append((f"Salt  {short_digest(str(retired['salt']), 8)}", ""))
    rows.append(("", ""))
    rows.append(("Check any game: game recall shows its receipt's QR code;", ""))
    rows.append(("the receipt checks with one small file anyone can run.", ""))
    return rows
