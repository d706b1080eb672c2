"""The contract between the terminal and a game's terminal side: :class:`TerminalGame`.

The terminal's platform (the model, the screen stack and its overlays, the app, the demo bot's
timing, the ``etg-terminal`` command) knows a game only through this protocol, implemented by
one object per game package (``terminal_client/games/<game>/game.py``) and found through the
registry (:mod:`terminal_client.games`). :class:`~terminal_client.games.generic.GenericGame`
implements every part for any game that sends the common view: a game subclasses it and
overrides what it draws itself. ``docs/adding-a-game.md`` says what a new game writes.

Entry points: :class:`TerminalGame`, :class:`GameView`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from terminal_client.model.state import ModelGame
from terminal_client.model.view import GameView

if TYPE_CHECKING:
    import pygame

    from terminal_client.model.documents import RecalledGame
    from terminal_client.model.state import TerminalModel
    from terminal_client.render.layout import Layout
    from terminal_client.screens.base import Screen

__all__ = ["DemoPlayer", "GameView", "TerminalGame"]


class DemoPlayer(Protocol):
    """What a game's demo play may ask of the demo bot (:class:`terminal_client.app.Autoplay`)."""

    @property
    def client(self) -> Any:
        """The network client the bot's intents go to (``place_wagers``, ``act``...)."""
        ...

    def once(self, key: tuple[Any, ...]) -> bool:
        """True the first time the situation ``key`` is ready to act on (after the bot's
        thinking time); False afterwards."""
        ...

    def position_for(self, terminal: str | None) -> int:
        """The player position the bot asks for where the table has positions."""
        ...

    def forget(self, kind: str) -> None:
        """Forget the situations acted on whose key starts with ``kind``, so that the next
        such situation acts again."""
        ...

    def place(self, model: TerminalModel, key: tuple[Any, ...], position: int | None) -> None:
        """Stake the game's demo wagers once per situation ``key`` (the main wager alone if
        the table refused the bet with side wagers); ``position``: the player position to
        ask for where the table has positions."""
        ...


class TerminalGame(ModelGame, Protocol):
    """Everything the terminal needs from one game: what the model and the shared screens
    read of it (:class:`~terminal_client.model.state.ModelGame`: its names and texts) and
    the rest below.

    Attributes:
        name: The server's name of the game (its registry key, and the views' ``"game"``).
        title: What the window title calls it (``"Blackjack"``).
        main_wager: The wager behind the table's main betting circle (``"blackjack"``), or
            None when the game draws its own circles.
        wager_titles: Its own wagers' titles (``{"ante": "Ante"}``); the shared side wagers'
            are the platform's.
        spot_labels: Its own side wagers' short circle labels, in the order the circles are
            laid out (``(("buzzer_beater", "BUZZER BEATER"),)``).
        spot_short: The declared short names of its circle labels, for a circle too small
            for the whole label at the type scale's minimum (``{"kings_bounty": "BOUNTY"}``).
        main_rules: What the rules screen's first page says before the server answers.
        felt_lines: What the table printing under the dealer says.
    """

    @property
    def spot_labels(self) -> tuple[tuple[str, str], ...]: ...

    @property
    def spot_short(self) -> Mapping[str, str]: ...

    # ------------------------------------------------------------------------ its views

    def claims(self, data: Mapping[str, Any]) -> bool:
        """Whether a view without a ``"game"`` key is this game's (the first tables' views
        carry none); a new game's views name it, and it claims none."""
        ...

    def parse_view(self, data: Any) -> GameView:
        """Read one of its views.

        Raises:
            ViewVersionError: the view is of another version.
            MalformedView: the view is not the documented shape (nothing is guessed).
        """
        ...

    def window_title(self, model: TerminalModel) -> str:
        """The game's part of the window title (``"Hybrid Blackjack (three positions)"``)."""
        ...

    def screen_for(self, model: TerminalModel) -> type[Screen]:
        """The base screen while the table is open (the platform's screens cover the
        connection, a closed table and out of service)."""
        ...

    # ------------------------------------------------------------------------- demo bot

    def demo_wagers(self, model: TerminalModel) -> dict[str, int]:
        """What the demo bot stakes on a round (empty: nothing it can afford)."""
        ...

    def main_wagers(self) -> frozenset[str]:
        """The wagers the demo bot keeps when the table refuses its bet with side wagers."""
        ...

    def demo_play(self, bot: DemoPlayer, model: TerminalModel) -> None:
        """One tick of the demo bot: bet, answer, decide (through ``bot``'s client, each
        situation once through ``bot.once``)."""
        ...

    # --------------------------------------------------------------------------- recall

    def claims_recall(self, data: Mapping[str, Any]) -> bool:
        """Whether a recalled game without a ``"game"`` key is this game's."""
        ...

    def parse_recalled(self, data: Mapping[str, Any]) -> RecalledGame:
        """Read one recalled game of ``GetRecall`` (raises ``KeyError``, ``TypeError`` or
        ``ValueError`` on a malformed one, which the platform reports)."""
        ...

    def recall_rows(self, game: RecalledGame) -> list[tuple[str, str]]:
        """Rows its recall page adds under the credits and wagers (draws made, ...)."""
        ...

    def recall_place(self, game: RecalledGame) -> str:
        """Where the player sat, for the page's first line (``", seat 3"``)."""
        ...

    def recall_results(self, game: RecalledGame) -> list[tuple[str, str]]:
        """Each wager's result: ``(what, paid)`` rows."""
        ...

    def draw_recall_cards(
        self, surface: pygame.Surface, layout: Layout, area: pygame.Rect, game: RecalledGame
    ) -> None:
        """The recall page's right half: the round's cards, then the results."""
        ...

    def draw_picture(self, surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
        """The table as the model's view shows it, without buttons (a recall picture:
        ``etg recall --picture``)."""
        ...
