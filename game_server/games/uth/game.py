"""Ultimate Texas Hold 'Em as the platform sees it: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``uth``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import TableConfig, example_config_path
from game_server.games.api import Game
from game_server.games.uth import config
from game_server.rules.wagers.base import TableType

__all__ = ["GAME", "UthGame"]

_CONFIGS: Final = example_config_path().parent


class UthGame:
    """Ultimate Texas Hold 'Em at the fully automated electronic table (653a): one freshly
    shuffled deck per round, one shared decision countdown per street."""

    name = "uth"
    title = "Ultimate Texas Hold 'Em"
    chapter = "58 Pa. Code 653a"
    config_game = config.UTH
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (_CONFIGS / "uth.toml",)

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.UthBuilder(data, source).build()

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return config.file_shape(logged)


GAME: Final[Game] = UthGame()
