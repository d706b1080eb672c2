"""The generic game: how the terminal reads, draws, plays and recalls a game it has no package
for, and the defaults every game's :class:`~terminal_client.games.api.TerminalGame` starts
from (a game subclasses :class:`GenericGame` and overrides what it draws itself).

A view of a game this terminal does not have is read for the keys every view has
(:func:`~terminal_client.model.view.parse_common_view`) and shown on the fallback screen
(:class:`~terminal_client.screens.fallback.FallbackScreen`): the table's cards, a button per
wager at its minimum and one per decision the server allows now, the settlements, the
credits, the countdown and the menu (rules, recall, cash out). Its recall page shows the
common fields of each recalled game.

Entry point: :class:`GenericGame`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from terminal_client.games.api import DemoPlayer, GameView
from terminal_client.model.documents import RecalledGame, recalled_fields
from terminal_client.model.view import SeatedView, parse_common_view
from terminal_client.screens.scene import money

if TYPE_CHECKING:
    import pygame

    from terminal_client.model.state import TerminalModel
    from terminal_client.render.layout import Layout
    from terminal_client.screens.base import Screen
    from terminal_client.screens.recall import CardRow

__all__ = ["OUTCOMES", "GenericGame", "betting_window", "money"]

#: Outcome words as recall pages show them.
OUTCOMES: Mapping[str, str] = {
    "won": "WON",
    "lost": "LOST",
    "pushed": "PUSH",
    "surrendered": "SURRENDERED",
}


def betting_window(model: TerminalModel) -> bool:
    """Whether the table takes wagers now (its betting countdown, or a table open between
    rounds)."""
    view = model.view
    if view is None:
        return False
    return (
        view.phase == "betting"
        or view.machine == "betting"
        or (view.phase is None and view.state == "open")
    )


class GenericGame:
    """A game the terminal knows only by its common view (see the module docstring).

    A game's own subclass names itself with a class attribute (``name = "war"``) or by
    passing its name; either way ``name`` is the server's name of the game.

    Args:
        name: The game's name as its views give it (None: the class's ``name``; empty for
            a view naming no game).
    """

    name = ""
    title = ""
    main_wager: str | None = None
    wager_titles: Mapping[str, str] = {}
    spot_labels: tuple[tuple[str, str], ...] = ()
    spot_short: Mapping[str, str] = {}
    main_rules: tuple[str, ...] = ()
    felt_lines: tuple[str, ...] = ()

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name

    # ------------------------------------------------------------------------ its views

    def claims(self, data: Mapping[str, Any]) -> bool:
        """None: a new game's views name it (``"game"``)."""
        return False

    def parse_view(self, data: Any) -> GameView:
        """The common keys, and the seated table's where present
        (:func:`~terminal_client.model.view.parse_common_view`)."""
        return SeatedView(parse_common_view(data))

    def window_title(self, model: TerminalModel) -> str:
        """Its :attr:`title`, else its name as the view gives it."""
        return self.title or self.name.replace("_", " ").title() or "Table"

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        """The fallback screen, whatever the round's phase."""
        from terminal_client.screens.fallback import FallbackScreen

        return FallbackScreen

    # ------------------------------------------------------------------------- demo bot

    def demo_wagers(self, model: TerminalModel) -> dict[str, int]:
        """The main wager (its :attr:`main_wager`, else the first the view's limits name) at
        its minimum, when the credits cover it."""
        view = model.view
        if view is None or not view.limits:
            return {}
        main = self.main_wager
        if main is None or main not in view.limits:
            main = next(iter(view.limits))
        minimum = view.limits[main].minimum
        return {main: minimum} if view.credits >= minimum else {}

    def main_wagers(self) -> frozenset[str]:
        """Its :attr:`main_wager` (none named: every wager is kept)."""
        return frozenset() if self.main_wager is None else frozenset({self.main_wager})

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """Bet while betting is open and it has no wager in; on its turn, the first decision
        the server allows (in name order)."""
        view = model.view
        if view is None:
            return
        if not model.in_round:
            if betting_window(model):
                bot.place(model, ("bet", view.round, view.phase), None)
            return
        hand = model.hand_to_act
        legal = sorted(model.legal_actions)
        if hand is not None and legal and bot.once(("act", view.round, view.phase, hand)):
            bot.client.act(legal[0], hand)

    # --------------------------------------------------------------------------- recall

    def claims_recall(self, data: Mapping[str, Any]) -> bool:
        """None: a new game's recall names it."""
        return False

    def parse_recalled(self, data: Mapping[str, Any]) -> RecalledGame:
        """The common fields (:func:`~terminal_client.model.documents.recalled_fields`)."""
        return RecalledGame(**recalled_fields(data, self.name))

    def recall_rows(self, game: RecalledGame) -> list[tuple[str, str]]:
        """Nothing more than the common rows."""
        return []

    def recall_place(self, game: RecalledGame) -> str:
        """The seat."""
        return f", seat {game.seat}"

    def recall_results(self, game: RecalledGame) -> list[tuple[str, str]]:
        """``"Wager hand 2: WON (line)"`` and what it paid (the hand when there were several)."""
        rows = []
        for result in game.results:
            hand = f" hand {result.hand + 1}" if len(game.hands) > 1 else ""
            outcome = OUTCOMES.get(result.outcome, result.outcome.upper())
            rows.append(
                (f"{result.title}{hand}: {outcome} ({result.line})", f"paid {money(result.paid)}")
            )
        return rows

    def hand_total(self, cards: tuple[str, ...]) -> str:
        """What the recall page shows beside a hand (nothing: a game with totals says)."""
        return ""

    def recall_card_rows(self, game: RecalledGame) -> list[CardRow]:
        """The rows of cards of the recall page (:func:`~terminal_client.screens.recall.
        draw_card_rows`): the dealer's, then each of this terminal's hands (smaller when
        there are several), each with its label."""
        total = "" if game.dealer_total is None else f"  {game.dealer_total}"
        rows: list[CardRow] = [(f"Dealer{total}", game.dealer_cards, 1.0)]
        rows += self.hand_rows(game)
        return rows

    def hand_rows(self, game: RecalledGame) -> list[CardRow]:
        """This terminal's hands as rows of cards, each labelled with its total (if any)."""
        rows: list[CardRow] = []
        for index, cards in enumerate(game.hands):
            label = "Your hand" if len(game.hands) == 1 else f"Hand {index + 1}"
            total = self.hand_total(cards) if cards else ""
            rows.append((f"{label}  {total}", cards, 1.0 if len(game.hands) == 1 else 0.7))
        return rows

    def draw_recall_cards(
        self, surface: pygame.Surface, layout: Layout, area: pygame.Rect, game: RecalledGame
    ) -> None:
        """The rows of :meth:`recall_card_rows` (the first one large), then the results."""
        from terminal_client.screens.recall import draw_card_rows

        draw_card_rows(
            surface, layout, area, self.recall_card_rows(game), self.recall_results(game)
        )

    def draw_picture(self, surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
        """The fallback screen's table, without buttons."""
        from terminal_client.screens.fallback import draw_generic_table

        draw_generic_table(surface, layout, model)
