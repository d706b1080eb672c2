"""The test-only games (High Card, War), registered for the duration of each test that asks
for one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from high_card.game import GAME, HighCardGame
from war.game import GAME as WAR
from war.game import WarGame

from game_server import games


@pytest.fixture()
def high_card() -> Iterator[HighCardGame]:
    """High Card in the registry (never through the product's entry points)."""
    with games.registered(GAME):
        yield GAME


@pytest.fixture()
def war() -> Iterator[WarGame]:
    """War in the registry (never through the product's entry points)."""
    with games.registered(WAR):
        yield WAR
