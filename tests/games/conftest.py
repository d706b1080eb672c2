"""The test-only High Card game, registered for the duration of each test that asks for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from high_card.game import GAME, HighCardGame

from game_server import games


@pytest.fixture()
def high_card() -> Iterator[HighCardGame]:
    """High Card in the registry (never through the product's entry points)."""
    with games.registered(GAME):
        yield GAME
