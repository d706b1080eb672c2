"""The hybrid Blackjack tables as the terminal sees them: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.terminal_games`` entry point ``hybrid``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from terminal_client.games.api import DemoPlayer, GameView, TerminalGame
from terminal_client.games.blackjack.bot import seated_demo_play
from terminal_client.games.blackjack.game import BlackjackTerminalGame
from terminal_client.games.hybrid.model import (
    hybrid_of,
    is_hybrid,
    parse_hybrid_view,
)
from terminal_client.model import RecalledGame, fields
from terminal_client.model.documents import recalled_fields

if TYPE_CHECKING:
    import pygame

    from terminal_client.model import TerminalModel
    from terminal_client.render.layout import Layout
    from terminal_client.screens.base import Screen
    from terminal_client.screens.recall import CardRow

__all__ = ["GAME", "HybridRecalledGame", "HybridTerminalGame"]


@dataclass(frozen=True)
class HybridRecalledGame(RecalledGame):
    """A recalled game of a hybrid table: the community cards (``board``, in the order they
    were drawn) and the position chosen at the three-position table (None at the table
    without a hole card)."""

    board: tuple[str, ...] = ()
    position: int | None = None
    #: A hybrid Blackjack table (58 Pa. Code 633b.5).
    hybrid = True


class HybridTerminalGame(BlackjackTerminalGame):
    """The hybrid tables' screens (positions, community cards), bot and recall page."""

    title = "Hybrid Blackjack"
    #: The hybrid tables' side wagers (58 Pa. Code 633b.5(m): Buzzer Beater at the
    #: three-position table; 633b.5(x): the others at the table without a hole card).
    wager_titles: Mapping[str, str] = {
        "buzzer_beater": "Buzzer Beater",
        "royal_match_21": "Royal Match 21",
        "bet_the_set": "Bet the Set",
        "kings_bounty": "King's Bounty",
    }
    spot_labels = (
        ("buzzer_beater", "BUZZER BEATER"),
        ("royal_match_21", "ROYAL MATCH 21"),
        ("bet_the_set", "BET THE SET"),
        ("kings_bounty", "KING'S BOUNTY"),
    )

    def __init__(self) -> None:
        super().__init__("hybrid")

    def claims(self, data: Mapping[str, Any]) -> bool:
        """A hybrid table's view says its table type."""
        return is_hybrid(data)

    def parse_view(self, data: Any) -> GameView:
        """:func:`~terminal_client.games.hybrid.model.parse_hybrid_view`."""
        return parse_hybrid_view(data)

    def window_title(self, model: TerminalModel) -> str:
        """Which of the two tables it is."""
        hybrid = hybrid_of(model)
        if hybrid is None:
            return self.title
        kind = "three positions" if hybrid.three_position else "no hole card"
        return f"{self.title} ({kind})"

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        """Its betting (positions), play and results screens."""
        from terminal_client.games.hybrid.screens import hybrid_screen_for

        return hybrid_screen_for(model)

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """Blackjack's bot on its own hand's cards and the up card of the dealer hand it
        faces, joining the three-position table at a position of its own (633b.5(l)); with
        no card to go by it stands."""
        hybrid = hybrid_of(model)
        position = None
        if hybrid is not None and hybrid.three_position:
            position = bot.position_for(hybrid.view.terminal)
        seated_demo_play(bot, model, position=position, stand_without_cards=True)

    def claims_recall(self, data: Mapping[str, Any]) -> bool:
        """A hybrid table's recalled game has its community cards."""
        return "community" in data

    def parse_recalled(self, data: Mapping[str, Any]) -> RecalledGame:
        """The common fields, the community cards and the position."""
        data["hands"], data["dealer"]["total"]
        return HybridRecalledGame(
            **recalled_fields(data, self.name),
            board=tuple(fields.as_str(c) for c in data["community"]),
            position=fields.opt_int(data.get("position")),
        )

    def recall_place(self, game: RecalledGame) -> str:
        """The position chosen at the three-position table (stadium play: no seat)."""
        position = game.position if isinstance(game, HybridRecalledGame) else None
        return "" if position is None else f", position {position}"

    def recall_card_rows(self, game: RecalledGame) -> list[CardRow]:
        """The dealer's cards, the round's community cards in the order they were drawn
        (633b.5(q), (y)(4)), then this terminal's hands."""
        rows = super().recall_card_rows(game)
        if isinstance(game, HybridRecalledGame) and game.board:
            rows.insert(1, ("Community cards", game.board, 0.6))
        return rows

    def draw_picture(self, surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
        """Its table scene."""
        from terminal_client.games.hybrid.screens import draw_hybrid_scene

        draw_hybrid_scene(surface, layout, hybrid_of(model))


GAME: Final[TerminalGame] = HybridTerminalGame()
