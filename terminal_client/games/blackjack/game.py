"""Blackjack at the fully automated table as the terminal sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.terminal_games`` entry point ``blackjack``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from terminal_client.games.api import DemoPlayer, GameView, TerminalGame
from terminal_client.games.blackjack.bot import demo_wagers, seated_demo_play
from terminal_client.games.generic import GenericGame
from terminal_client.model import RecalledGame
from terminal_client.model.documents import recalled_fields
from terminal_client.model.totals import hand_total
from terminal_client.model.view import SeatedView, parse_view

if TYPE_CHECKING:
    import pygame

    from terminal_client.model import TerminalModel
    from terminal_client.render.layout import Layout
    from terminal_client.screens.base import Screen

__all__ = ["BLACKJACK", "GAME", "BlackjackTerminalGame"]

#: The game's name, and its main wager's.
BLACKJACK: Final = "blackjack"


class BlackjackTerminalGame(GenericGame):
    """The fully automated Blackjack table (633a, 633b): the seated table's view and
    screens, with Blackjack's main wager, table printing, rules and bot."""

    title = "Blackjack"
    main_wager = BLACKJACK
    wager_titles: Mapping[str, str] = {BLACKJACK: "Blackjack"}
    #: What 633b.5(c)(2) requires the rules icon to say, shown even before the server answers.
    main_rules = (
        "Blackjack pays 3 to 2",
        "Dealer stands on all soft 17s",
        "Insurance pays 2 to 1",
    )
    #: The table printing under the dealer (633b.5(c)(2)).
    felt_lines = ("BLACKJACK PAYS 3 TO 2", "INSURANCE PAYS 2 TO 1")

    def __init__(self, name: str = BLACKJACK) -> None:
        super().__init__(name)

    def claims(self, data: Mapping[str, Any]) -> bool:
        """The fully automated table's views name no game and no table type."""
        return "table_type" not in data

    def parse_view(self, data: Any) -> GameView:
        """The seated table's view, every key there
        (:func:`~terminal_client.model.view.parse_view`)."""
        return SeatedView(parse_view(data))

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        """Betting while the table takes wagers (the attract screen for a terminal with
        nothing to play with), play while this terminal's seat is in the round, then its
        results."""
        from terminal_client.screens.status import AttractScreen
        from terminal_client.screens.table import (
            BettingScreen,
            PlayScreen,
            ResultsScreen,
            betting_open,
        )

        view = model.view
        if betting_open(model):
            if not model.credits and model.my_seat is None and not model.pending:
                return AttractScreen
            return BettingScreen
        if (
            model.my_seat is not None
            and view is not None
            and view.phase in ("insurance", "playing")
        ):
            return PlayScreen
        if model.results:
            return ResultsScreen
        if model.my_seat is not None:
            return PlayScreen
        if not model.credits:
            return AttractScreen
        return BettingScreen  # a round is on without this terminal: "no more bets"

    def demo_wagers(self, model: TerminalModel) -> dict[str, int]:
        """:func:`~terminal_client.games.blackjack.bot.demo_wagers` of its main wager."""
        return demo_wagers(model, self.main_wager or BLACKJACK)

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """:func:`~terminal_client.games.blackjack.bot.seated_demo_play`."""
        seated_demo_play(bot, model)

    def claims_recall(self, data: Mapping[str, Any]) -> bool:
        """The fully automated table's recalled games name no game and have no community
        cards."""
        return "community" not in data

    def parse_recalled(self, data: Mapping[str, Any]) -> RecalledGame:
        """The common fields; its hands and the dealer's total are always there."""
        data["hands"], data["dealer"]["total"]
        return RecalledGame(**recalled_fields(data, self.name))

    def hand_total(self, cards: tuple[str, ...]) -> str:
        """``"7/17"`` for a soft total."""
        return hand_total(cards).text

    def draw_picture(self, surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
        """The seated table's scene."""
        from terminal_client.screens.scene import draw_scene

        draw_scene(surface, layout, model)


GAME: Final[TerminalGame] = BlackjackTerminalGame()
