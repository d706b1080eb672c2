"""Caribbean Stud Poker as the terminal sees it: :data:`GAME` (the ``etg.terminal_games``
entry point ``caribbean``): its view, its table screen and its demo bot.

Entry point: :data:`GAME`.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from terminal_client.games.api import DemoPlayer, GameView, TerminalGame
from terminal_client.games.caribbean.model import (
    CaribbeanView,
    demo_decision,
    parse_caribbean_view,
)
from terminal_client.games.generic import GenericGame, betting_window

if TYPE_CHECKING:
    from terminal_client.model import TerminalModel
    from terminal_client.screens.base import Screen

__all__ = ["GAME", "CaribbeanTerminalGame"]


class CaribbeanTerminalGame(GenericGame):
    """Caribbean Stud Poker's screens and bot over the generic game's defaults."""

    title = "Caribbean Stud Poker"
    main_wager = "ante"
    wager_titles = MappingProxyType(
        {
            "ante": "Ante",
            "bet": "Bet",
            "progressive": "Progressive Payout",
            "progressive_envy": "Envy Bonus",
            "must_hit_by": "Must-Hit-By Mystery Bonus",
            "five_card_player": "Five Card Bonus (your hand)",
            "five_card_dealer": "Five Card Bonus (dealer's hand)",
        }
    )
    main_rules = (
        "Place an Ante; five cards each, one dealer card face up",
        "Fold, or BET 2X: a Bet Wager of twice the Ante",
        "The dealer qualifies with ace-king or better",
    )

    def __init__(self) -> None:
        super().__init__("caribbean")

    def parse_view(self, data: Any) -> GameView:
        return parse_caribbean_view(data)

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        from terminal_client.games.caribbean.screens import (
            CaribbeanBettingScreen,
            CaribbeanResultsScreen,
            CaribbeanScreen,
        )

        view = model.view
        if betting_window(model):
            return CaribbeanBettingScreen
        if view is not None and view.phase == "complete":
            return CaribbeanResultsScreen
        return CaribbeanScreen

    def main_wagers(self) -> frozenset[str]:
        return frozenset({"ante", "bet"})

    def demo_wagers(self, model: TerminalModel) -> dict[str, int]:
        """The Ante at its minimum, with the Progressive Payout Wager when offered (the
        Must-Hit-By Mystery Bonus's qualifying pair, 639b.1(c)(1))."""
        view = model.view
        if view is None or "ante" not in view.limits:
            return {}
        wagers = {"ante": view.limits["ante"].minimum}
        if "progressive" in view.limits:
            wagers["progressive"] = view.limits["progressive"].minimum
        return wagers if view.credits >= sum(wagers.values()) else {}

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """Bet in the window; at the decision, the published simple strategy
        (:func:`~terminal_client.games.caribbean.model.demo_decision`)."""
        view = model.view
        game_view = model.game_view
        if view is None:
            return
        if not model.in_round:
            if betting_window(model):
                bot.place(model, ("bet", view.round, view.phase), None)
            return
        mine = view.my_seat
        hand = model.hand_to_act
        if (
            hand is None
            or mine is None
            or not isinstance(game_view, CaribbeanView)
            or not view.dealer.cards
            or view.dealer.cards[0] is None
            or "bet" not in model.legal_actions
        ):
            return
        cards = [c for h in mine.hands for c in h.cards if c is not None]
        if len(cards) == 5 and bot.once(("act", view.round, view.phase, hand)):
            choice = demo_decision(game_view.hand, cards, str(view.dealer.cards[0]))
            bot.client.act(choice, hand)


GAME: Final[TerminalGame] = CaribbeanTerminalGame()
