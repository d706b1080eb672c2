"""Playing cards drawn in code, as a casino terminal shows them: the standard pip layouts of
the 2 to 10, a large pip on the Ace, double-headed court figures on the Jack, Queen and King
(each half a bust with its crown, cap or beard, mirrored about the middle as on a printed
card), rank and suit indices in two corners, and an ornamented back.

Everything is drawn with pygame's shapes and the UI font's suit glyphs (no image files, so
nothing of unclear licence ships). A card is painted once per size and kept
(:func:`card_image`, an LRU cache): painting a court card takes about a millisecond, copying
it a few microseconds, so the frame time while cards fly is that of a blit.

Entry point: :func:`card_image` (drawn with its shadow by
:func:`terminal_client.render.draw.draw_card`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

import pygame

from shared.cards import Card, parse_card
from terminal_client.render.fonts import get_font

Color = tuple[int, int, int]

CARD_FACE: Final = (252, 251, 246)
CARD_EDGE: Final = (150, 150, 150)
CARD_RED: Final = (200, 16, 46)
INK: Final = (24, 24, 28)
BACK_RED: Final = (128, 20, 32)
BACK_PATTERN: Final = (168, 48, 58)
GOLD: Final = (232, 190, 84)
WHITE: Final = (255, 255, 255)

#: The court figures' colours (the classic red, blue, yellow and black of printed cards).
ROBE_RED: Final = (196, 36, 44)
ROBE_BLUE: Final = (36, 72, 160)
TRIM: Final = (236, 184, 48)
SKIN: Final = (250, 222, 184)
HAIR: Final = (214, 150, 40)
DARK: Final = (30, 30, 36)

#: Below this height a card shows its indices and one suit symbol (pips would be specks).
SMALL: Final = 56

#: Where the pips of each rank go: (column, row) with columns -1, 0, 1 (left, middle, right)
#: and rows 0 (top) to 1 (bottom); a pip below the middle row is printed upside down.
PIPS: Final[dict[int, tuple[tuple[int, float], ...]]] = {
    2: ((0, 0.0), (0, 1.0)),
    3: ((0, 0.0), (0, 0.5), (0, 1.0)),
    4: ((-1, 0.0), (1, 0.0), (-1, 1.0), (1, 1.0)),
    5: ((-1, 0.0), (1, 0.0), (0, 0.5), (-1, 1.0), (1, 1.0)),
    6: ((-1, 0.0), (1, 0.0), (-1, 0.5), (1, 0.5), (-1, 1.0), (1, 1.0)),
    7: ((-1, 0.0), (1, 0.0), (0, 0.25), (-1, 0.5), (1, 0.5), (-1, 1.0), (1, 1.0)),
    8: ((-1, 0.0), (1, 0.0), (0, 0.25), (-1, 0.5), (1, 0.5), (0, 0.75), (-1, 1.0), (1, 1.0)),
    9: (
        (-1, 0.0),
        (1, 0.0),
        (-1, 1 / 3),
        (1, 1 / 3),
        (0, 0.5),
        (-1, 2 / 3),
        (1, 2 / 3),
        (-1, 1.0),
        (1, 1.0),
    ),
    10: (
        (-1, 0.0),
        (1, 0.0),
        (0, 1 / 6),
        (-1, 1 / 3),
        (1, 1 / 3),
        (-1, 2 / 3),
        (1, 2 / 3),
        (0, 5 / 6),
        (-1, 1.0),
        (1, 1.0),
    ),
}

_SYMBOLS: Final = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


@lru_cache(maxsize=512)
def card_image(card_text: str | None, width: int, height: int) -> pygame.Surface:
    """The card ``card_text`` ("AS", "10D", "7c"; None: the back) on a transparent surface
    of ``width`` x ``height`` (cached by card and size; the caller must not draw on it)."""
    image = pygame.Surface((max(1, width), max(1, height)), pygame.SRCALPHA)
    radius = max(3, width // 10)
    if card_text is None:
        _back(image, radius)
    else:
        _face(image, parse_card(card_text), radius)
    return image


def suit_color(card: Card) -> Color:
    """Red for hearts and diamonds, black for spades and clubs."""
    return CARD_RED if card.suit in ("H", "D") else INK


# Faces -------------------------------------------------------------------------------------


def _face(image: pygame.Surface, card: Card, radius: int) -> None:
    rect = image.get_rect()
    w, h = rect.size
    pygame.draw.rect(image, CARD_FACE, rect, border_radius=radius)
    pygame.draw.rect(image, CARD_EDGE, rect, width=max(1, w // 60), border_radius=radius)
    color = suit_color(card)
    symbol = _SYMBOLS[card.suit]
    rank = card.symbol[:-1]
    _indices(image, rank, symbol, color)
    if h < SMALL:
        _pip_at(image, symbol, color, rect.center, int(h * 0.34), flipped=False)
    elif card.rank == 14:
        _pip_at(image, symbol, color, rect.center, int(h * (0.5 if card.suit == "S" else 0.42)))
        if card.suit == "S":  # the ace of spades' ornament
            pygame.draw.ellipse(
                image,
                color,
                pygame.Rect(0, 0, int(w * 0.56), int(h * 0.44)).move(int(w * 0.22), int(h * 0.28)),
                max(1, w // 50),
            )
    elif card.rank <= 10:
        _pips(image, card.rank, symbol, color)
    else:
        _court(image, card, symbol, color)


def _small(h: int) -> float:
    """How small a card is, 0 (120 px high or more) to 1 (60 px or less): a small card (a
    seat's) gets larger indices, they are what can be read of it."""
    return min(1.0, max(0.0, (120 - h) / 60))


def index_size(h: int, rank: str) -> int:
    """The font size, in pixels, of the rank index of a card ``h`` pixels high."""
    return int(h * ((0.15 if len(rank) == 1 else 0.135) + 0.085 * _small(h)))


def index_rect(w: int, h: int) -> pygame.Rect:
    """The top left corner index (rank over suit) of a card of ``w`` x ``h`` pixels, in the
    card's own pixels; the bottom right one is the same turned about the centre."""
    small = _small(h)
    corner = (max(1, int(w * (0.17 + 0.07 * small))), max(1, int(h * (0.27 + 0.08 * small))))
    pad = max(2, w // 30)
    return pygame.Rect((pad, pad // 2), corner)


def _indices(image: pygame.Surface, rank: str, symbol: str, color: Color) -> None:
    """Rank over suit in the top left corner, and the same upside down bottom right."""
    w, h = image.get_size()
    small = _small(h)
    size = index_size(h, rank)
    place = index_rect(w, h)
    corner = pygame.Surface(place.size, pygame.SRCALPHA)
    cw = corner.get_width()
    font = get_font(size, True)
    text = font.render(rank, True, color)
    if text.get_width() > cw:  # "10" at a narrow width: squeeze it into the corner
        text = pygame.transform.smoothscale(text, (cw, text.get_height()))
    corner.blit(text, text.get_rect(midtop=(cw // 2, 0)))
    pip = get_font(max(6, int(h * (0.1 + 0.04 * small)))).render(symbol, True, color)
    corner.blit(pip, pip.get_rect(midtop=(cw // 2, int(size * 0.95))))
    image.blit(corner, place.topleft)
    flipped = pygame.transform.rotate(corner, 180)
    pad = place.left
    image.blit(flipped, flipped.get_rect(bottomright=(w - pad, h - pad // 2)))


@lru_cache(maxsize=128)
def _glyph(symbol: str, size: int, color: Color, flipped: bool) -> pygame.Surface:
    """One suit symbol of ``size`` (cached; upside down when ``flipped``)."""
    glyph = get_font(max(6, size)).render(symbol, True, color)
    return pygame.transform.rotate(glyph, 180) if flipped else glyph


def _pip_at(
    image: pygame.Surface,
    symbol: str,
    color: Color,
    centre: tuple[int, int],
    size: int,
    flipped: bool = False,
) -> None:
    glyph = _glyph(symbol, size, color, flipped)
    image.blit(glyph, glyph.get_rect(center=centre))


def _pips(image: pygame.Surface, rank: int, symbol: str, color: Color) -> None:
    """The standard layout of a 2 to 10 (:data:`PIPS`) between the indices."""
    w, h = image.get_size()
    small = _small(h)  # keep clear of a small card's indices
    size = int(h * ((0.19 if rank <= 8 else 0.17) - 0.03 * small))
    top, bottom = h * 0.2, h * 0.8
    inset = 0.34 + 0.05 * small
    columns = {-1: w * inset, 0: w * 0.5, 1: w * (1 - inset)}
    for column, row in PIPS[rank]:
        centre = (round(columns[column]), round(top + (bottom - top) * row))
        _pip_at(image, symbol, color, centre, size, flipped=row > 0.5)


# Court cards -------------------------------------------------------------------------------


def _court(image: pygame.Surface, card: Card, symbol: str, color: Color) -> None:
    """A framed double-headed figure: the upper half drawn, the lower half the same turned
    upside down, a line between them, the suit beside each head."""
    w, h = image.get_size()
    frame = pygame.Rect(int(w * 0.21), int(h * 0.1), int(w * 0.58), int(h * 0.8))
    half = pygame.Surface((frame.width, frame.height // 2), pygame.SRCALPHA)
    _figure(half, card.rank, card.suit in ("H", "D"))
    glyph = _glyph(symbol, int(frame.height * 0.14), color, False)
    inside = max(2, frame.width // 12)
    half.blit(glyph, glyph.get_rect(topleft=(inside, inside // 2)))
    image.blit(half, frame.topleft)
    lower = pygame.transform.rotate(half, 180)
    image.blit(lower, lower.get_rect(bottomright=frame.bottomright))
    line = max(1, w // 70)
    pygame.draw.rect(image, color, frame, line)
    middle = frame.top + frame.height // 2
    pygame.draw.line(image, color, (frame.left, middle), (frame.right - 1, middle), line)


def _figure(half: pygame.Surface, rank: int, red_suit: bool) -> None:
    """The bust of a Jack (11), Queen (12) or King (13) in the upper half of the frame:
    robe, collar, face, hair, and the King's crown and beard, the Queen's tiara and long
    hair, the Jack's cap and feather."""
    hw, hh = half.get_size()
    robe, other = (ROBE_RED, ROBE_BLUE) if red_suit else (ROBE_BLUE, ROBE_RED)
    cx = hw // 2
    face_w, face_h = int(hw * 0.3), int(hh * 0.36)
    face = pygame.Rect(0, 0, face_w, face_h)
    face.center = (cx, int(hh * 0.47))

    def x(f: float) -> int:
        return round(hw * f)

    def y(f: float) -> int:
        return round(hh * f)

    # The robe over the shoulders to the middle line, with a trimmed front.
    pygame.draw.polygon(
        half, robe, [(x(0.08), hh), (x(0.2), y(0.7)), (x(0.8), y(0.7)), (x(0.92), hh)]
    )
    pygame.draw.polygon(
        half, other, [(x(0.38), hh), (x(0.44), y(0.72)), (x(0.56), y(0.72)), (x(0.62), hh)]
    )
    pygame.draw.line(half, TRIM, (x(0.2), y(0.7)), (x(0.08), hh), max(1, hw // 30))
    pygame.draw.line(half, TRIM, (x(0.8), y(0.7)), (x(0.92), hh), max(1, hw // 30))
    for i in range(3):  # buttons of gold down the front
        pygame.draw.circle(half, TRIM, (cx, y(0.78 + 0.08 * i)), max(1, hw // 40))
    # Long hair behind the Queen's face.
    if rank == 12:
        pygame.draw.ellipse(
            half,
            HAIR,
            face.inflate(int(face_w * 0.6), int(face_h * 0.5)).move(0, int(face_h * 0.2)),
        )
    # The collar.
    pygame.draw.ellipse(half, TRIM, pygame.Rect(x(0.3), y(0.62), x(0.4), y(0.14)))
    pygame.draw.ellipse(half, WHITE, pygame.Rect(x(0.34), y(0.64), x(0.32), y(0.09)))
    # The face.
    pygame.draw.ellipse(half, SKIN, face)
    pygame.draw.ellipse(half, DARK, face, 1)
    eye = max(1, hw // 45)
    for side in (-1, 1):
        pygame.draw.circle(half, DARK, (cx + side * face_w // 5, face.top + face_h * 2 // 5), eye)
    pygame.draw.line(
        half,
        ROBE_RED,
        (cx - face_w // 7, face.top + face_h * 3 // 4),
        (cx + face_w // 7, face.top + face_h * 3 // 4),
        max(1, hw // 60),
    )
    _headwear(half, rank, face, robe, other)


def _headwear(
    half: pygame.Surface, rank: int, face: pygame.Rect, robe: Color, other: Color
) -> None:
    """Over the face of :func:`_figure`: the King's beard and crown, the Queen's tiara, or
    the Jack's cap with a feather."""
    hw, hh = half.get_size()
    cx = hw // 2
    face_w, face_h = face.width, face.height

    def x(f: float) -> int:
        return round(hw * f)

    def y(f: float) -> int:
        return round(hh * f)

    if rank == 13:  # the King's beard and crown
        beard = pygame.Rect(0, 0, int(face_w * 0.9), int(face_h * 0.45))
        beard.midtop = (cx, face.top + int(face_h * 0.62))
        pygame.draw.ellipse(half, HAIR, beard)
        pygame.draw.line(
            half,
            DARK,
            (cx - face_w // 7, face.top + face_h * 3 // 5),
            (cx + face_w // 7, face.top + face_h * 3 // 5),
            max(1, hw // 50),
        )
        base = face.top + 1
        points = [(face.left - 2, base), (face.left - 2, base - y(0.16))]
        for i in range(5):
            px = round(face.left + (face.width + 4) * (i + 0.5) / 5 - 2)
            points += [
                (px, base - (y(0.1) if i % 2 else y(0.24))),
                (px + face.width // 10, base - y(0.16)),
            ]
        points += [(face.right + 2, base - y(0.16)), (face.right + 2, base)]
        pygame.draw.polygon(half, TRIM, points)
        pygame.draw.polygon(half, DARK, points, 1)
        pygame.draw.circle(half, ROBE_RED, (cx, base - y(0.07)), max(1, hw // 30))
    elif rank == 12:  # the Queen's tiara
        band = pygame.Rect(face.left, face.top - y(0.05), face.width, y(0.1))
        pygame.draw.rect(half, TRIM, band)
        for i in range(3):
            jewel = (round(band.left + band.width * (i + 0.5) / 3), band.top)
            pygame.draw.circle(half, TRIM, jewel, max(2, hw // 22))
            pygame.draw.circle(half, other, jewel, max(1, hw // 45))
        pygame.draw.rect(half, DARK, band, 1)
    else:  # the Jack's cap with a feather
        cap = pygame.Rect(0, 0, int(face_w * 1.5), y(0.16))
        cap.midbottom = (cx, face.top + y(0.07))
        pygame.draw.ellipse(half, other, cap)
        pygame.draw.ellipse(half, DARK, cap, 1)
        pygame.draw.rect(
            half, TRIM, pygame.Rect(cap.left + 2, cap.bottom - y(0.05), cap.width - 4, y(0.04))
        )
        feather = [
            (cap.right - x(0.08), cap.top + y(0.05)),
            (cap.right + x(0.06), cap.top - y(0.04)),
            (cap.right - x(0.02), cap.top + y(0.1)),
        ]
        pygame.draw.polygon(half, robe, feather)


# The back ----------------------------------------------------------------------------------


def _back(image: pygame.Surface, radius: int) -> None:
    """A white border, a deep red field with rows of small rosettes, a gold frame and a gold
    oval in the middle holding the four suits."""
    rect = image.get_rect()
    w, h = rect.size
    pygame.draw.rect(image, CARD_FACE, rect, border_radius=radius)
    inset = max(3, w // 14)
    inner = rect.inflate(-2 * inset, -2 * inset)
    field = pygame.Surface(inner.size, pygame.SRCALPHA)
    inner_radius = max(2, radius // 2)
    pygame.draw.rect(field, BACK_RED, field.get_rect(), border_radius=inner_radius)
    step = max(6, inner.width // 7)
    dot = max(1, step // 5)
    for row, yy in enumerate(range(step // 2, inner.height, step)):
        shift = step // 2 if row % 2 else 0
        for xx in range(step // 2 - shift, inner.width + step, step):
            pygame.draw.circle(field, BACK_PATTERN, (xx, yy), dot * 2)
            pygame.draw.circle(field, BACK_RED, (xx, yy), dot)
    mask = pygame.Surface(inner.size, pygame.SRCALPHA)
    pygame.draw.rect(mask, WHITE, mask.get_rect(), border_radius=inner_radius)
    field.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
    image.blit(field, inner)
    pygame.draw.rect(image, GOLD, inner.inflate(-inset, -inset), max(1, inset // 3), inner_radius)
    if w >= 40:
        oval = pygame.Rect(0, 0, int(w * 0.5), int(h * 0.36))
        oval.center = rect.center
        pygame.draw.ellipse(image, BACK_RED, oval)
        pygame.draw.ellipse(image, GOLD, oval, max(1, w // 40))
        size = max(6, int(h * 0.11))
        offsets = ((-1, -1, "S"), (1, -1, "H"), (-1, 1, "D"), (1, 1, "C"))
        for dx, dy, suit in offsets:
            centre = (oval.centerx + dx * oval.width // 6, oval.centery + dy * oval.height // 6)
            _pip_at(image, _SYMBOLS[suit], GOLD, centre, size)
    pygame.draw.rect(image, CARD_EDGE, rect, width=max(1, w // 60), border_radius=radius)
