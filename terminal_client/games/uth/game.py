"""Ultimate Texas Hold 'Em as the terminal sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.terminal_games`` entry point ``uth``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from terminal_client.games.api import DemoPlayer, GameView, TerminalGame
from terminal_client.games.generic import GenericGame
from terminal_client.games.uth import recall
from terminal_client.games.uth.bot import uth_demo_play, uth_demo_wagers
from terminal_client.games.uth.model import (
    ANTE,
    BLIND,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    PLAY,
    PROGRESSIVE,
    TRIPS,
    UTH_GAME,
    parse_uth_view,
    uth_of,
)
from terminal_client.model import RecalledGame

if TYPE_CHECKING:
    import pygame

    from terminal_client.model import TerminalModel
    from terminal_client.render.layout import Layout
    from terminal_client.screens.base import Screen

__all__ = ["GAME", "UthTerminalGame"]


class UthTerminalGame(GenericGame):
    """The Ultimate Texas Hold 'Em table's screens, bot and recall page."""

    title = "Ultimate Texas Hold 'Em"
    wager_titles: Mapping[str, str] = {
        ANTE: "Ante",
        BLIND: "Blind",
        PLAY: "Play",
        TRIPS: "Trips",
        PROGRESSIVE: "Progressive Payout",
        FIVE_CARD_PLAYER: "Five Card Hand Bonus (your hand)",
        FIVE_CARD_DEALER: "Five Card Hand Bonus (dealer's hand)",
    }
    #: What its rules icon says before the server answers (653a.7 and 653a.11 as
    #: regs-653a.md gives them; 653a.12(a)-(b)).
    main_rules = (
        "Ultimate Texas Hold 'Em: an Ante and an equal Blind",
        "Before the flop: check, or bet 4x or 3x the Ante",
        "On the flop: check, or bet 2x the Ante",
        "After the turn and river: bet 1x the Ante, or fold",
        "The dealer qualifies with a pair or better",
        "Ante and Play pay 1 to 1; the Blind pays its paytable",
    )

    def __init__(self) -> None:
        super().__init__(UTH_GAME)

    def parse_view(self, data: Any) -> GameView:
        """:func:`~terminal_client.games.uth.model.parse_uth_view`."""
        return parse_uth_view(data)

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        """Its betting, play and results screens."""
        from terminal_client.games.uth.screens import uth_screen_for

        return uth_screen_for(model)

    def demo_wagers(self, model: TerminalModel) -> dict[str, int]:
        """:func:`~terminal_client.games.uth.bot.uth_demo_wagers`."""
        uth = uth_of(model)
        return {} if uth is None else uth_demo_wagers(model, uth)

    def main_wagers(self) -> frozenset[str]:
        """The Ante and its Blind."""
        return frozenset({ANTE, BLIND})

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """:func:`~terminal_client.games.uth.bot.uth_demo_play`."""
        uth = uth_of(model)
        if uth is not None:
            uth_demo_play(bot, model, uth)

    def parse_recalled(self, data: Mapping[str, Any]) -> RecalledGame:
        """:func:`~terminal_client.games.uth.recall.parse_uth_recalled`."""
        return recall.parse_uth_recalled(data)

    def recall_rows(self, game: RecalledGame) -> list[tuple[str, str]]:
        """The Magic Card and Lucky Bonus position drawn."""
        return recall.uth_recall_rows(game)

    def recall_place(self, game: RecalledGame) -> str:
        """The seat."""
        return f", seat {game.seat}"

    def recall_results(self, game: RecalledGame) -> list[tuple[str, str]]:
        """Each wager by its short title."""
        return recall.uth_recall_results(game)

    def draw_recall_cards(
        self, surface: pygame.Surface, layout: Layout, area: pygame.Rect, game: RecalledGame
    ) -> None:
        """:func:`~terminal_client.games.uth.screens.draw_uth_recall`."""
        from terminal_client.games.uth.screens import draw_uth_recall

        draw_uth_recall(surface, layout, area, game)

    def draw_picture(self, surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
        """Its table scene (this terminal's cards once dealt)."""
        from terminal_client.games.uth.screens import draw_uth_scene

        uth = uth_of(model)
        draw_uth_scene(surface, layout, uth, dealt=uth is not None and bool(uth.hole))


GAME: Final[TerminalGame] = UthTerminalGame()
