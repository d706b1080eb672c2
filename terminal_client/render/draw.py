"""Pure drawing primitives: values in, pixels out.

Every function here takes plain values (card text, cents, a fraction, a label) rather than the
model, and changes nothing but the pixels of the surface it is given: no pygame state (clip,
colour key, alpha) is left altered, and drawing the same values twice gives the same pixels.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Final

import pygame

from terminal_client.render.cards import BACK_RED as BACK_RED
from terminal_client.render.cards import CARD_FACE as CARD_FACE
from terminal_client.render.cards import card_image, index_rect, index_size
from terminal_client.render.elements import DrawnCard, DrawnText, note_text, recording
from terminal_client.render.fonts import get_font

if TYPE_CHECKING:
    from terminal_client.render.layout import Layout

Color = tuple[int, int, int]
Point = tuple[int, int]

FELT = (14, 92, 52)
FELT_LIGHT = (28, 128, 72)
FELT_DARK = (6, 54, 30)
GOLD = (232, 190, 84)
GOLD_DARK = (176, 128, 36)
CREAM = (250, 246, 232)
INK = (24, 24, 28)
SHADOW = (0, 0, 0, 90)
WHITE = (255, 255, 255)

#: Chip colours by value in cents: (body, edge inserts, text).
CHIP_COLORS: dict[int, tuple[Color, Color, Color]] = {
    100: ((236, 236, 236), (40, 90, 200), (30, 30, 30)),
    500: ((196, 28, 36), (250, 250, 250), (255, 255, 255)),
    2500: ((20, 130, 60), (250, 250, 250), (255, 255, 255)),
    10000: ((28, 28, 28), (232, 190, 84), (255, 255, 255)),
    50000: ((110, 40, 150), (250, 220, 120), (255, 255, 255)),
    100000: ((236, 160, 30), (30, 30, 30), (30, 30, 30)),
}
_OTHER_CHIP = ((70, 110, 170), (250, 250, 250), (255, 255, 255))


def draw_text(
    surface: pygame.Surface,
    text: str,
    pos: Point,
    size: int,
    color: Color = CREAM,
    anchor: str = "center",
    bold: bool = False,
    max_width: int | None = None,
    *,
    least: int = 8,
) -> pygame.Rect:
    """Draw ``text`` with its ``anchor`` ("center", "midleft", "topleft", ...) at ``pos``,
    shrinking the font until it fits ``max_width`` but never below ``least`` pixels (the
    type scale's minimum, :attr:`~terminal_client.render.layout.Layout.min_text`, on a
    player's screen: a text that does not fit at it is laid out again by its caller,
    :func:`fit_lines`); returns the area drawn."""
    size = max(int(size), least)
    font = get_font(size, bold)
    while max_width is not None and size > least and font.size(text)[0] > max_width:
        size = max(least, int(size * 0.9))
        font = get_font(size, bold)
    image = font.render(text, True, color)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    if recording():
        ink = image.get_bounding_rect().move(rect.topleft)
        note_text(DrawnText(text, size, least, max_width, rect.width, ink, surface))
    return rect


def wrap_words(text: str, size: int, width: int, bold: bool = False) -> list[str]:
    """``text`` in lines no wider than ``width`` at ``size`` (a word longer than a line
    stays whole on a line of its own)."""
    font = get_font(size, bold)
    lines: list[str] = []
    for word in text.split():
        if lines and font.size(f"{lines[-1]} {word}")[0] <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]


def fits(lines: list[str], size: int, width: int, bold: bool = False) -> bool:
    """Whether every line fits ``width`` at ``size``."""
    font = get_font(size, bold)
    return all(font.size(line)[0] <= width for line in lines)


def fit_lines(
    text: str,
    size: int,
    least: int,
    width: int,
    *,
    bold: bool = False,
    most: int = 2,
    short: str | None = None,
) -> tuple[list[str], int]:
    """The lines and the font size at which ``text`` fits ``width``, laid out again rather
    than shrunk below ``least``: on one line at ``size`` or a little smaller, else wrapped
    onto at most ``most`` lines, else its declared ``short`` name, one size step at a time
    down to ``least``. Should nothing fit, the wrapped text at ``least`` (wider than the
    room: the screen tests find it)."""
    size = max(size, least)
    candidates = [text] if short is None or short == text else [text, short]
    steps = []
    step = size
    while True:
        steps.append(step)
        if step <= least:
            break
        step = max(least, int(step * 0.9))
    for words in candidates:
        for step in steps:
            for count in range(1, most + 1):
                lines = [words] if count == 1 else wrap_words(words, step, width, bold)
                if len(lines) <= count and fits(lines, step, width, bold):
                    return lines, step
    return wrap_words(candidates[-1], least, width, bold), least


def draw_fitted(
    surface: pygame.Surface,
    text: str,
    top: tuple[int, int],
    size: int,
    least: int,
    width: int,
    color: tuple[int, int, int],
    *,
    bold: bool = False,
) -> int:
    """``text`` laid out by :func:`fit_lines` in ``width``, its lines centred one under the
    other from ``top`` (the first line's top middle); returns the y under the last line."""
    lines, fitted = fit_lines(text, size, least, width, bold=bold)
    pitch = get_font(fitted, bold).get_linesize()
    x, y = top
    for line in lines:
        draw_text(
            surface, line, (x, y), fitted, color, "midtop", bold=bold, max_width=width, least=least
        )
        y += pitch
    return y


def fit_text(text: str, size: int, width: int, bold: bool = False) -> str:
    """``text`` as it fits ``width`` at two thirds of ``size`` or more (:func:`draw_text`
    shrinks it that far, not to an unreadable size): whole, else cut with an ellipsis.
    Not for a player's screen (cut words are not read there: :func:`fit_lines`)."""
    font = get_font(max(8, size * 2 // 3), bold)
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "\u2026")[0] > width:
        text = text[:-1]
    return text.rstrip(" ,") + "\u2026"


def _shadow(surface: pygame.Surface, rect: pygame.Rect, radius: int, offset: int) -> None:
    surface.blit(_shade(rect.width, rect.height, radius), rect.move(offset, offset))


@lru_cache(maxsize=256)
def _shade(width: int, height: int, radius: int) -> pygame.Surface:
    shade = pygame.Surface((width, height), pygame.SRCALPHA)
    pygame.draw.rect(shade, SHADOW, shade.get_rect(), border_radius=radius)
    return shade


def draw_felt(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """Casino-green baize with a soft spotlight towards the dealer and a darker rim.

    The baize of each size is painted once and kept (:func:`felt_image`): a 1920x1080 felt
    takes some 8 ms to paint and under half a millisecond to copy.
    """
    rect = pygame.Rect(rect)
    if rect.width <= 0 or rect.height <= 0:
        return
    surface.blit(felt_image(rect.width, rect.height), rect)


@lru_cache(maxsize=4)
def felt_image(width: int, height: int) -> pygame.Surface:
    """The baize of :func:`draw_felt` for an area of ``width`` x ``height`` (cached; the
    caller must not draw on it)."""
    image = pygame.Surface((width, height))
    image.fill(FELT_DARK)
    steps = 48
    cx, cy = width // 2, int(height * 0.42)
    for i in range(steps):
        t = i / (steps - 1)
        color = tuple(int(FELT_DARK[c] + (FELT_LIGHT[c] - FELT_DARK[c]) * t) for c in range(3))
        w = int(width * 1.5 * (1 - t) + width * 0.2 * t)
        h = int(height * 1.6 * (1 - t) + height * 0.25 * t)
        pygame.draw.ellipse(image, color, pygame.Rect(0, 0, w, h).move(cx - w // 2, cy - h // 2))
    return image


def draw_card(surface: pygame.Surface, rect: pygame.Rect, card_text: str | None) -> None:
    """A playing card in ``rect``: the face of ``card_text`` ("AS", "10D", "7c": indices,
    pips or a court figure) or the back when ``card_text`` is None (a hidden card).

    Each card is painted once per size (:func:`~terminal_client.render.cards.card_image`)
    and copied after that."""
    rect = pygame.Rect(rect)
    radius = max(3, rect.width // 10)
    _shadow(surface, rect, radius, max(2, rect.width // 25))
    if rect.width > 0 and rect.height > 0:
        surface.blit(card_image(card_text, rect.width, rect.height), rect)
        if recording():
            note_text(DrawnCard(rect, surface))
            if card_text is not None:
                rank = card_text.upper()[:-1].replace("T", "10")
                index = index_rect(rect.width, rect.height).move(rect.topleft)
                size = index_size(rect.height, rank)
                note_text(DrawnText(rank, size, 0, None, 0, index, surface, index=True))


def draw_card_turning(
    surface: pygame.Surface, rect: pygame.Rect, card_text: str | None, progress: float
) -> None:
    """A card turning face up about its vertical axis in ``rect``: ``progress`` 0 shows the
    back, the back narrows to nothing at 0.5, then the face of ``card_text`` widens out to
    the whole card at 1."""
    rect = pygame.Rect(rect)
    progress = min(1.0, max(0.0, progress))
    width = round(rect.width * abs(1 - 2 * progress))
    if width < 1:
        return
    image = card_image(None if progress < 0.5 else card_text, rect.width, rect.height)
    if width != rect.width:
        image = pygame.transform.scale(image, (width, rect.height))
    narrow = image.get_rect(center=rect.center)
    radius = max(3, narrow.width // 10)
    _shadow(surface, narrow, radius, max(2, rect.width // 25))
    surface.blit(image, narrow)


def _ring_points(
    center: Point, r_out: float, r_in: float, start: float, end: float
) -> list[tuple[float, float]]:
    steps = max(2, int(abs(end - start) / (math.pi / 90)))
    outer = []
    inner = []
    for i in range(steps + 1):
        a = start + (end - start) * i / steps
        outer.append((center[0] + r_out * math.cos(a), center[1] + r_out * math.sin(a)))
        inner.append((center[0] + r_in * math.cos(a), center[1] + r_in * math.sin(a)))
    return outer + inner[::-1]


def countdown_color(fraction: float) -> Color:
    """Green with time to spare, amber past half-time, red in the last quarter."""
    if fraction > 0.5:
        return (46, 204, 113)
    if fraction > 0.25:
        return (241, 196, 15)
    return (231, 76, 60)


def draw_countdown_ring(
    surface: pygame.Surface, center: Point, radius: int, fraction: float, label: str
) -> None:
    """A ring that empties clockwise from 12 o'clock as ``fraction`` (1 = full time left,
    0 = none) falls, with ``label`` (e.g. the seconds left) in the middle."""
    fraction = min(1.0, max(0.0, fraction))
    thickness = max(4, radius // 5)
    disc = pygame.Surface((2 * radius + 2, 2 * radius + 2), pygame.SRCALPHA)
    pygame.draw.circle(disc, (0, 0, 0, 150), (radius + 1, radius + 1), radius)
    surface.blit(disc, (center[0] - radius - 1, center[1] - radius - 1))
    pygame.draw.circle(surface, (60, 70, 64), center, radius - thickness // 2, thickness)
    if fraction > 0:
        start = -math.pi / 2
        points = _ring_points(
            center, radius, radius - thickness, start, start + 2 * math.pi * fraction
        )
        color = countdown_color(fraction)
        pygame.draw.polygon(surface, color, points)
        pygame.draw.aalines(surface, color, True, points)
    draw_text(
        surface, label, center, int(radius * 0.7), CREAM, bold=True, max_width=int(radius * 1.4)
    )


#: The longest word any game puts on a button of the row (a label of several words may
#: take two lines): every button of every game gets the size at which it fits.
BUTTON_REFERENCE: Final = "SURRENDER"


def button_text_size(
    layout: Layout, rect: pygame.Rect | None = None, reference: str = BUTTON_REFERENCE
) -> int:
    """The one size of every button label of every game in ``layout``'s window: the
    largest at which ``reference`` (:data:`BUTTON_REFERENCE`) fits a button of the row
    (``rect``, default the action buttons'), never below the type scale's minimum."""
    rect = rect or layout.action_buttons["hit"]
    size = int(rect.height * 0.32)
    while size > layout.min_text and get_font(size, True).size(reference)[0] > int(
        rect.width * 0.86
    ):
        size = max(layout.min_text, int(size * 0.95))
    return max(size, layout.min_text)


def draw_button(
    surface: pygame.Surface,
    rect: pygame.Rect,
    text: str,
    enabled: bool,
    pressed: bool = False,
    *,
    danger: bool = False,
    text_size: int | None = None,
    least: int = 8,
) -> None:
    """A rounded push button: gold when ``enabled`` (deep red with cream letters for a
    ``danger`` choice that gives up a wager), grey when not, sunk while ``pressed``;
    ``text_size`` (default: what fits) is the size of its label, which takes two lines when
    one is too wide for the button (never smaller than ``least``)."""
    rect = pygame.Rect(rect)
    radius = max(6, rect.height // 5)
    if enabled and not pressed:
        _shadow(surface, rect, radius, max(3, rect.height // 20))
    face = rect.move(0, max(2, rect.height // 30)) if pressed else rect
    if not enabled:
        top, bottom, ink, edge = (92, 98, 95), (70, 75, 72), (150, 156, 152), (110, 116, 112)
    elif danger:
        top, bottom, ink, edge = (178, 48, 52), (120, 20, 26), CREAM, (236, 150, 140)
    elif pressed:
        top, bottom, ink, edge = (196, 146, 46), (160, 112, 28), (40, 26, 8), GOLD_DARK
    else:
        top, bottom, ink, edge = (250, 214, 110), (214, 158, 40), (44, 28, 8), (255, 236, 170)
    surface.blit(_button_body(face.width, face.height, radius, top, bottom), face)
    pygame.draw.rect(surface, edge, face, width=max(2, rect.height // 40), border_radius=radius)
    room = int(rect.width * 0.86)
    size = text_size or int(rect.height * 0.32)
    lines, size = fit_lines(text, size, least, room, bold=True)
    pitch = get_font(size, True).get_linesize()
    top_y = face.centery - pitch * len(lines) // 2
    for i, line in enumerate(lines):
        draw_text(
            surface,
            line,
            (face.centerx, top_y + i * pitch),
            size,
            ink,
            "midtop",
            bold=True,
            max_width=room,
            least=least,
        )


@lru_cache(maxsize=64)
def _button_body(width: int, height: int, radius: int, top: Color, bottom: Color) -> pygame.Surface:
    """A button's rounded gradient from ``top`` to ``bottom`` (cached: painting it line by
    line costs about half a millisecond)."""
    body = pygame.Surface((width, height), pygame.SRCALPHA)
    for y in range(height):
        t = y / max(1, height - 1)
        color = tuple(int(top[c] + (bottom[c] - top[c]) * t) for c in range(3))
        pygame.draw.line(body, color, (0, y), (width, y))
    mask = pygame.Surface((width, height), pygame.SRCALPHA)
    pygame.draw.rect(mask, WHITE, mask.get_rect(), border_radius=radius)
    body.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
    return body


def chip_label(cents: int) -> str:
    """Short chip face value: 100 -> "1", 2500 -> "25", 100000 -> "1K", 50 -> "50¢"."""
    if cents < 100:
        return f"{cents}\u00a2"
    dollars, rest = divmod(cents, 100)
    if rest:
        return f"{cents / 100:g}"
    if dollars >= 1000 and dollars % 1000 == 0:
        return f"{dollars // 1000}K"
    return str(dollars)


def draw_chip(
    surface: pygame.Surface, center: Point, cents: int, radius: int = 40, *, least: int = 8
) -> None:
    """A casino chip of value ``cents``: coloured body, edge inserts, value in the middle
    (left out on a chip too small for it at ``least`` pixels: the amount is written beside
    every staked chip)."""
    body, insert, ink = CHIP_COLORS.get(cents, _OTHER_CHIP)
    cx, cy = center
    shade = pygame.Surface((2 * radius + 4, 2 * radius + 4), pygame.SRCALPHA)
    pygame.draw.circle(shade, SHADOW, (radius + 2, radius + 2), radius)
    surface.blit(shade, (cx - radius + 1, cy - radius + 2))
    pygame.draw.circle(surface, body, center, radius)
    for i in range(6):
        a = i * math.pi / 3
        points = _ring_points(center, radius, radius * 0.72, a - 0.2, a + 0.2)
        pygame.draw.polygon(surface, insert, points)
    pygame.draw.circle(surface, insert, center, int(radius * 0.62), max(1, radius // 16))
    pygame.draw.circle(surface, (0, 0, 0), center, radius, 1)
    label = chip_label(cents)
    size = int(radius * 0.6)
    while size > least and get_font(size, True).size(label)[0] > int(radius * 1.05):
        size = max(least, int(size * 0.9))
    if size < least or get_font(size, True).size(label)[0] > int(radius * 1.05):
        return
    draw_text(surface, label, center, size, ink, bold=True, least=least)
