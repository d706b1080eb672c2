"""Blackjack at the fully automated table as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``blackjack``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import TableConfig, example_config_path
from game_server.games.api import Game
from game_server.games.blackjack import config
from game_server.rules.wagers.base import TableType

__all__ = ["GAME", "BlackjackGame"]

_CONFIGS: Final = example_config_path().parent


class BlackjackGame:
    """Blackjack dealt by the table game system alone (633b.8 and the fully automated
    electronic table of 605a)."""

    name = "blackjack"
    title = "Blackjack"
    chapter = "58 Pa. Code 633a, 633b"
    config_game = "blackjack"
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (
        _CONFIGS / "fully-automated-blackjack.toml",
        _CONFIGS / "fully-automated-all-side-wagers.toml",
    )

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.BlackjackBuilder(data, source).build()

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return config.file_shape(logged)


GAME: Final[Game] = BlackjackGame()
