"""The type scale of kiosk glass: the smallest text a player must read, stated in points at
the terminal's physical screen, and the pixels that makes on the display it runs on.

The minimum is :data:`MIN_TEXT_POINTS` (12 pt: an em of 4.2 mm). Its reason is the reading
distance of a player seated at a kiosk, about 600 mm: ANSI/HFES 100-2007 (Human Factors
Engineering of Computer Workstations) asks a character height of at least 16 minutes of arc
for text that must be read; DejaVu Sans, the terminal's font, has a cap height of 0.73 em,
so 12 pt gives capitals of 3.1 mm, 17.7 minutes of arc at 600 mm, with some room for the
lighter letters and the glass's glare.

Pixels come from the display: a :class:`Glass` is the diagonal of the screen in inches (the
terminal's ``--glass``, default :data:`DEFAULT_GLASS_INCHES`) and its pixels, which give its
pixels per inch; ``points * ppi / 72``, rounded up, is the least font size in pixels
(:meth:`Glass.min_text_px`). A kiosk terminal runs fullscreen, so its window is the whole
display; a terminal in a window (the demo, the pictures of ``docs/screens``) is drawn as a
preview of that glass at the window's size, the window taking the glass's place.

At the default 24-inch glass: 1920x1080 gives 91.8 ppi and 16 px, 1280x720 gives 61.2 ppi
and 11 px (the design grid's 16 px scaled to two thirds), 1080x1920 portrait 16 px.

The renderers ask :class:`~terminal_client.render.layout.Layout` for every size
(:meth:`~terminal_client.render.layout.Layout.text`: the design size scaled, never below the
minimum) and lay out again what does not fit at it (wrapped, a declared short name, or
moved): :func:`~terminal_client.render.draw.draw_text` never shrinks a text below the
minimum it is given. ``tests/terminal/test_type_scale.py`` measures every text of every
game's betting, play and results screens.

Entry points: :class:`Glass`, :data:`MIN_TEXT_POINTS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

#: The smallest size of any text a player must read, in points (1/72 inch) on the glass.
MIN_TEXT_POINTS: Final = 12
#: The kiosk screen's diagonal when the terminal is not told (``etg terminal --glass``).
DEFAULT_GLASS_INCHES: Final = 24.0
#: Screens the terminal accepts, in inches of diagonal (a tablet to a large kiosk).
GLASS_RANGE: Final = (7.0, 100.0)
POINTS_PER_INCH: Final = 72


@dataclass(frozen=True, slots=True)
class Glass:
    """The terminal's screen: its diagonal in inches and, when known, its pixels (None: the
    window is taken for the whole screen, as a kiosk's fullscreen window is)."""

    diagonal_inches: float = DEFAULT_GLASS_INCHES
    pixels: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        low, high = GLASS_RANGE
        if not low <= self.diagonal_inches <= high:
            raise ValueError(
                f"a screen of {self.diagonal_inches:g} inches: the glass is {low:g} to "
                f"{high:g} inches across its diagonal"
            )

    def ppi(self, window: tuple[int, int]) -> float:
        """Pixels per inch of this glass (of ``window`` when its pixels are not known)."""
        width, height = self.pixels or window
        return math.hypot(width, height) / self.diagonal_inches

    def min_text_px(self, window: tuple[int, int]) -> int:
        """The least font size, in pixels, for :data:`MIN_TEXT_POINTS` on this glass."""
        return math.ceil(MIN_TEXT_POINTS * self.ppi(window) / POINTS_PER_INCH - 1e-9)
