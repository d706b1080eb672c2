"""The hybrid Blackjack tables as the platform sees them: :data:`GAME`.

Entry point: :data:`GAME` (the ``etg.games`` entry point ``hybrid``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import TableConfig, example_config_path
from game_server.games.api import Game
from game_server.games.blackjack import config as blackjack_config
from game_server.games.hybrid import config
from game_server.rules.wagers.base import TableType

__all__ = ["GAME", "HybridGame"]

_CONFIGS: Final = example_config_path().parent


class HybridGame:
    """Blackjack at a hybrid table in stadium play (633b.5): any number of terminals take
    part in each round, none holds a seat."""

    name = "hybrid"
    title = "Hybrid Blackjack"
    chapter = "58 Pa. Code 633b.5"
    config_game = "blackjack"
    table_types = frozenset({TableType.HYBRID, TableType.HYBRID_NO_HOLE_CARD})
    examples = (
        _CONFIGS / "hybrid-three-position.toml",
        _CONFIGS / "hybrid-no-hole-card.toml",
    )

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.build_config(data, source)

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return blackjack_config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return blackjack_config.file_shape(logged)


GAME: Final[Game] = HybridGame()
