"""Fixtures shared by the terminal tests: headless pygame and the in-memory table."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pygame
import pytest
from client_helpers import MemoryTable


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run pygame without a display or sound card, with an empty event queue."""
    monkeypatch.setitem(os.environ, "SDL_VIDEODRIVER", "dummy")
    monkeypatch.setitem(os.environ, "SDL_AUDIODRIVER", "dummy")
    pygame.display.init()
    pygame.font.init()
    pygame.event.clear()
    yield
    pygame.display.quit()


@pytest.fixture
def table() -> MemoryTable:
    """The real server factory in memory, with T1 at seat 1 holding 1,000.00 credits."""
    return MemoryTable()
