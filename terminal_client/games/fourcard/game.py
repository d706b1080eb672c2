"""Four Card Poker as the terminal sees it: :data:`GAME`.

Its table is drawn by its own screens (:mod:`terminal_client.games.fourcard.screens`: the
dealer's six cards with the face-up one, this terminal's five cards with its hand's name,
the ANTE, ACES UP, PLAY and progressive circles, FOLD apart and PLAY 1X, 2X, 3X while the
server allows them, the results panel, the progressive meters, the countdown and the menu)
from its view (:mod:`terminal_client.games.fourcard.model`); the demo bot places the Ante and
every other wager the table offers at its minimum, and decides by the published simple
strategy (play 3 times the Ante with a pair of 10s or better, 1 times with a pair of 3s to
9s, fold the rest; secondary source: Shuffle Master's basic strategy), read from its own
five cards: the rule is written once for the server and the terminal
(:mod:`shared.games.fourcard.strategy`), the hand read here from the cards as the view gives
them ("QH", "10S"...).

Entry point: :data:`GAME`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from shared.games.fourcard.strategy import simple_multiple
from terminal_client.games.api import DemoPlayer, GameView, TerminalGame
from terminal_client.games.fourcard.model import fourcard_of, parse_fourcard_view
from terminal_client.games.generic import GenericGame, betting_window

if TYPE_CHECKING:
    import pygame

    from terminal_client.model import TerminalModel
    from terminal_client.render.layout import Layout
    from terminal_client.screens.base import Screen

__all__ = ["GAME", "FourCardTerminalGame", "simple_strategy"]

ANTE: Final = "ante"
_RANKS: Final = {"A": 14, "K": 13, "Q": 12, "J": 11, "T": 10}


def _rank(card: str) -> int:
    text = card[:-1].upper()
    return _RANKS.get(text, 0) or int(text)


def simple_strategy(cards: Sequence[str]) -> str:
    """The decision for five cards by the published simple strategy
    (:func:`shared.games.fourcard.strategy.simple_multiple`): ``"play3"``, ``"play1"`` or
    ``"fold"``. A best four better than one pair among five cards always holds two pair,
    three or four of a kind, or four cards of a straight or a flush."""
    ranks = [_rank(c) for c in cards]
    counts = Counter(ranks)
    pairs = sorted((r for r, n in counts.items() if n >= 2), reverse=True)
    better = max(counts.values()) >= 3 or len(pairs) >= 2
    better = better or _four_flush(cards) or _four_straight(ranks)
    multiple = simple_multiple(better, pairs[0] if pairs else None)
    return f"play{multiple}" if multiple else "fold"


def _four_flush(cards: Sequence[str]) -> bool:
    return max(Counter(c[-1] for c in cards).values()) >= 4


def _four_straight(ranks: Sequence[int]) -> bool:
    distinct = set(ranks) | ({1} if 14 in ranks else set())
    return any(all(r + i in distinct for i in range(4)) for r in range(1, 12))


class FourCardTerminalGame(GenericGame):
    """Four Card Poker's view, screens, titles, rules and demo bot."""

    title = "Four Card Poker"
    main_wager = ANTE
    wager_titles: Mapping[str, str] = {
        ANTE: "Ante",
        "play": "Play",
        "ante_bonus": "Ante Bonus",
        "aces_up": "Aces Up",
        "four_card_progressive": "Four-Card Progressive",
        "five_card_progressive": "Five-Card Progressive",
        "four_card_envy": "Four-Card Envy Bonus",
        "five_card_envy": "Five-Card Envy Bonus",
        "must_hit_by": "Must-Hit-By Mystery Bonus",
    }
    main_rules = (
        "Four Card Poker: an Ante, Aces Up, or both",
        "Five cards to you, six to the dealer (one face up)",
        "Fold, or play 1, 2 or 3 times the Ante",
        "The dealer always qualifies; you win ties",
        "Ante Bonus on three of a kind or better",
        "Aces Up pays a pair of aces or better",
    )

    def __init__(self) -> None:
        super().__init__("fourcard")

    def parse_view(self, data: Any) -> GameView:
        """:func:`~terminal_client.games.fourcard.model.parse_fourcard_view`."""
        return parse_fourcard_view(data)

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        """Its betting, decision and results screens."""
        from terminal_client.games.fourcard.screens import fourcard_screen_for

        return fourcard_screen_for(model)

    def draw_picture(self, surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
        """Its table scene."""
        from terminal_client.games.fourcard.screens import draw_fourcard_scene

        draw_fourcard_scene(surface, layout, fourcard_of(model))

    def demo_wagers(self, model: TerminalModel) -> dict[str, int]:
        """The Ante and every other wager offered, each at its minimum, if affordable."""
        view = model.view
        if view is None or ANTE not in view.limits:
            return {}
        wagers = {name: limits.minimum for name, limits in view.limits.items()}
        return wagers if sum(wagers.values()) + 3 * wagers[ANTE] <= view.credits else {}

    def main_wagers(self) -> frozenset[str]:
        return frozenset({ANTE})

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """Bet in the betting window; on its turn, the simple strategy (if the credits do
        not cover the multiple, the largest the server allows)."""
        view = model.view
        if view is None:
            return
        if not model.in_round:
            if betting_window(model):
                bot.place(model, ("bet", view.round, view.phase), None)
            return
        hand = model.hand_to_act
        legal = model.legal_actions
        cards = [c for h in model.my_hands for c in h.cards if c]
        if hand is None or not legal or len(cards) != 5:
            return
        choice = simple_strategy(cards)
        if choice not in legal:
            plays = sorted(a for a in legal if a.startswith("play"))
            choice = plays[-1] if choice != "fold" and plays else "fold"
        if bot.once(("act", view.round, view.phase, hand)):
            bot.client.act(choice, hand)


GAME: Final[TerminalGame] = FourCardTerminalGame()
