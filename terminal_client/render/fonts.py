"""Fonts, cached by size: DejaVu Sans (it has the suit symbols), else pygame's default font."""

from __future__ import annotations

from functools import cache

import pygame

FONT_NAME = "dejavusans"


@cache
def get_font(size: int, bold: bool = False) -> pygame.font.Font:
    """The UI font at ``size`` pixels (cached; the first call initialises pygame.font)."""
    if not pygame.font.get_init():
        pygame.font.init()
    size = max(6, int(size))
    try:
        font = pygame.font.SysFont(FONT_NAME, size, bold=bold)
    except (OSError, RuntimeError):  # pragma: no cover - depends on the kiosk image
        font = pygame.font.Font(None, size)
    return font
