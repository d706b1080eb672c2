"""The Spanish 21 play screen: Blackjack's, with the RESCUE button (635a.10).

The seated table's buttons are the fixed set of Blackjack's layout; the rescue, which gives
up the original wager, takes the slot every game keeps for a choice that gives up a wager
(SURRENDER's), drawn in that slot's colour. It is shown while this terminal's doubled hand
may be rescued, and SURRENDER there otherwise (the two are never legal together: surrender
needs the first two cards, the rescue a double).

Entry point: :class:`Spanish21PlayScreen`.
"""

from __future__ import annotations

from typing import Final

import pygame

from terminal_client.render import Layout
from terminal_client.render.draw import draw_button
from terminal_client.render.layout import DESTRUCTIVE_SLOT
from terminal_client.screens.table import PlayScreen, enabled_actions
from terminal_client.widgets import Button

__all__ = ["RESCUE", "Spanish21PlayScreen"]

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

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        """Blackjack's play screen; the RESCUE button in the colour of a choice that gives up
        a wager."""
        super().draw(surface, layout)
        for button in self.buttons(layout):
            if button.id == RESCUE and button.enabled:
                draw_button(surface, pygame.Rect(button.rect), button.label, True, danger=True)
