"""QR codes on the terminal's screens (the game receipt's, ``docs/shoe-spec.md``), drawn
from the modules :mod:`segno` computes: dark squares on a white quiet zone, so that a phone
reads them off the screen.

Entry point: :func:`draw_qr`.
"""

from __future__ import annotations

import pygame
import segno

#: Modules of white around the code (ISO/IEC 18004 asks for 4; 2 reads well on a screen).
QUIET_ZONE = 2


def draw_qr(surface: pygame.Surface, text: str, area: pygame.Rect) -> pygame.Rect:
    """Draw the QR code of ``text`` (error correction M) as the largest square of whole
    pixels per module that fits ``area``, centred in it; returns the square drawn."""
    code = segno.make(text, error="m")
    rows = [list(row) for row in code.matrix_iter(scale=1, border=QUIET_ZONE)]
    modules = len(rows)
    pixel = max(1, min(area.width, area.height) // modules)
    side = pixel * modules
    square = pygame.Rect(0, 0, side, side)
    square.center = area.center
    surface.fill((255, 255, 255), square)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                surface.fill(
                    (0, 0, 0),
                    (square.left + x * pixel, square.top + y * pixel, pixel, pixel),
                )
    return square
