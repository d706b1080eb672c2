"""The Spanish 21 play and results screens: Blackjack's, with the RESCUE button (635a.10),
the wins of the round shown as they are settled, and the main wager named Spanish 21.

The seated table's buttons are the fixed set of Blackjack's layout; the rescue, which gives
up the original wager, takes the slot every game keeps for a choice that gives up a wager
(SURRENDER's), drawn in that slot's colour. It is shown while this terminal's doubled hand
may be rescued, and SURRENDER there otherwise (the two are never legal together: surrender
needs the first two cards, the rescue a double).

A 21 is settled as soon as it is made and Match the Dealer right after the deal (635b.1(g)):
while the round goes on, the play screen's message bar shows this terminal's latest win with
its paytable line ("Five-card 21 3 to 2 (635a.12(b)(5)): +$15.00") when it is not its turn.

The wager titles the seated table's screens use are every game's together, so the main wager,
which keeps Blackjack's name, would read "Blackjack": the results panel renames it.

Entry points: :class:`Spanish21PlayScreen`, :class:`Spanish21ResultsScreen`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

import pygame

from shared.money import format_money
from terminal_client.render import Layout
from terminal_client.render.draw import draw_button
from terminal_client.render.layout import DESTRUCTIVE_SLOT
from terminal_client.render.results import ResultRow
from terminal_client.screens.scene import wager_name
from terminal_client.screens.table import PlayScreen, ResultsScreen, enabled_actions
from terminal_client.widgets import Button

__all__ = ["MAIN_TITLE", "RESCUE", "Spanish21PlayScreen", "Spanish21ResultsScreen"]

#: What the main wager is called at this table (its name is Blackjack's, ``"blackjack"``).
MAIN_TITLE: Final = "Spanish 21"

#: The decision's name, as the server's views and the ``Act`` command spell it.
RESCUE: Final = "rescue"


class Spanish21PlayScreen(PlayScreen):
    """The round in play at a Spanish 21 table."""

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        shown = super().buttons(layout)
        if self.model.insurance is not None or RESCUE not in self.model.table_actions:
            return shown
        enabled = RESCUE in enabled_actions(self.model)
        if not enabled and "surrender" in self.model.table_actions:
            return shown
        rect = layout.action_buttons[DESTRUCTIVE_SLOT]
        rescue = Button(RESCUE, (rect.x, rect.y, rect.width, rect.height), "RESCUE", enabled)
        return (*(b for b in shown if b.id != "surrender"), rescue)

    def message(self) -> str:
        """Blackjack's message; when it is not this terminal's turn, its latest win of the
        round with its line, as soon as it is settled."""
        model = self.model
        wins = [s for s in model.results if s.net > 0]
        if model.my_turn or model.last_error is not None or model.insurance is not None or not wins:
            return super().message()
        last = wins[-1]
        what = MAIN_TITLE if last.wager == "blackjack" else wager_name(last.wager, model.game)
        return f"{what}: {last.line} +{format_money(last.net)}"

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        """Blackjack's play screen; the RESCUE button in the colour of a choice that gives up
        a wager."""
        super().draw(surface, layout)
        for button in self.buttons(layout):
            if button.id == RESCUE and button.enabled:
                draw_button(surface, pygame.Rect(button.rect), button.label, True, danger=True)


class Spanish21ResultsScreen(ResultsScreen):
    """Blackjack's results, the main wager named Spanish 21."""

    def rows(self) -> tuple[ResultRow, ...]:
        main = wager_name("blackjack", self.model.game)
        return tuple(
            replace(row, what=row.what.replace(main, MAIN_TITLE, 1))
            if settlement.wager == "blackjack"
            else row
            for settlement, row in zip(self.model.results, super().rows(), strict=True)
        )
