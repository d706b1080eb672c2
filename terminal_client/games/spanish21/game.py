"""Spanish 21 at the fully automated table as the terminal sees it: :data:`GAME`.

The seated Blackjack table's view, screens, recall and demo bot (a Spanish 21 view has every
key of Blackjack's), with Spanish 21's name, felt, rules, wagers and its play screen, which has
the rescue button (:mod:`.screens`).

Entry point: :data:`GAME` (the ``etg.terminal_games`` entry point ``spanish21``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from terminal_client.games.api import DemoPlayer, TerminalGame
from terminal_client.games.blackjack.game import BlackjackTerminalGame
from terminal_client.games.spanish21.bot import spanish21_demo_play

if TYPE_CHECKING:
    from terminal_client.model import TerminalModel
    from terminal_client.screens.base import Screen

__all__ = ["GAME", "SPANISH21", "Spanish21TerminalGame"]

#: The game's name (the views' ``"game"``).
SPANISH21: Final = "spanish21"


class Spanish21TerminalGame(BlackjackTerminalGame):
    """The Spanish 21 table (635a) with the Match the Dealer spot (635b.1)."""

    title = "Spanish 21"
    main_wager = "blackjack"
    #: Its wagers' titles: the main wager keeps Blackjack's wager name and title (the screens
    #: say Spanish 21 where they name the game's main wager); the double and insurance are
    #: titled from their names.
    wager_titles: Mapping[str, str] = {
        "blackjack": "Blackjack",
        "match_the_dealer": "Match the Dealer",
        "blackjack_bonus": "Super bonus",
    }
    main_rules = (
        "Blackjack pays 3 to 2 and beats a dealer Blackjack",
        "A player's 21 always wins; bonus 21s unless doubled",
        "Double on any cards; rescue after a double",
    )
    felt_lines = ("SPANISH 21 \u2022 BLACKJACK PAYS 3 TO 2", "PLAYER 21 ALWAYS WINS")

    def __init__(self) -> None:
        super().__init__(SPANISH21)

    def claims(self, data: Mapping[str, Any]) -> bool:
        """Its views name it (``"game": "spanish21"``)."""
        return data.get("game") == SPANISH21

    def claims_recall(self, data: Mapping[str, Any]) -> bool:
        return data.get("game") == SPANISH21

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """Blackjack's demo play, a doubled hand rescued or stood
        (:func:`~terminal_client.games.spanish21.bot.spanish21_demo_play`)."""
        spanish21_demo_play(bot, model)

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        """Blackjack's screens, with the Spanish 21 play screen (the rescue button, the wins
        as they happen) and results screen."""
        from terminal_client.games.spanish21.screens import (
            Spanish21PlayScreen,
            Spanish21ResultsScreen,
        )
        from terminal_client.screens.table import PlayScreen, ResultsScreen

        screen = super().screen_for(model)
        ours: dict[type[Screen], type[Screen]] = {
            PlayScreen: Spanish21PlayScreen,
            ResultsScreen: Spanish21ResultsScreen,
        }
        return ours.get(screen, screen)


GAME: Final[TerminalGame] = Spanish21TerminalGame()
