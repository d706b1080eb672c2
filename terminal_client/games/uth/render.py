"""Drawing for an Ultimate Texas Hold 'Em table (58 Pa. Code 653a): where its pieces go and
how they look.

:func:`uth_areas` places, for the window's :class:`~terminal_client.render.layout.Layout`
(1920x1080 design grid, 1080x1920 in portrait), what a Hold 'Em table has instead of the
Blackjack seats: the five community card places (flop, turn, river), this player's two
cards, the main betting spots (Ante = Blind, Play, Trips), the bonus spots (Progressive
Payout, Five Card Hand Bonus on the player's and on the dealer's hand), an information
panel, the hands panel (each hand's best five and category) and the results panel. The
dealer, menu, credits, message bar, countdown, meters, chip tray and buttons stay where
:class:`Layout` puts them.

The drawing functions take plain values (card texts, labels, cents: :class:`HandBlock`,
) and change nothing but the surface's pixels; cards, chips, spots,
buttons and text are drawn by :mod:`terminal_client.render.draw`,
:func:`~terminal_client.render.table.draw_hand` and
:func:`~terminal_client.render.table.draw_bet_spot`.

Entry points: :func:`uth_areas`, :func:`main_spot_circles`, :func:`bonus_spot_circles`,
:func:`draw_board`, :func:`draw_hand_blocks`; the results panel is
:func:`terminal_client.render.results.draw_results_panel`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pygame

from terminal_client.render.draw import CREAM, GOLD, draw_card, draw_text
from terminal_client.render.layout import Layout, side_spot_circles
from terminal_client.render.table import CARD_ASPECT

Box = tuple[int, int, int, int]

DIM = (150, 170, 150)
#: The ring of a card in a hand's best five, and the colour of a lost wager's line.
BEST_RING = GOLD
LOST = (235, 120, 110)
#: The community card places and their streets (653a.1 "Flop"; the turn and river are dealt
#: together, regs-653a.md).
BOARD_PLACES: tuple[str, ...] = ("FLOP", "FLOP", "FLOP", "TURN", "RIVER")
#: Largest radius of a main betting spot, design px (2 x 50 >= the smallest touch target).
MAIN_RADIUS_MAX = 72
MAIN_RADIUS_MIN = 50
SPOT_GAP = 18
#: Under each spot: the band its staked amount is written in, design px.
AMOUNT_BAND = 30


@dataclass(frozen=True)
class UthAreas:
    """The Hold 'Em table's areas, in window pixels (``*_zone`` in design pixels, for the
    spot circles): ``info`` is the play screen's panel; ``hands``, ``results`` and
    ``others`` (the other seats' hands) are the results screen's."""

    board: pygame.Rect
    hole: pygame.Rect
    main_spots: pygame.Rect
    bonus_spots: pygame.Rect
    info: pygame.Rect
    hands: pygame.Rect
    results: pygame.Rect
    others: pygame.Rect
    felt_line: tuple[int, int]
    main_zone: Box
    bonus_zone: Box


@dataclass(frozen=True)
class _Design:
    board: Box
    hole: Box
    main_spots: Box
    bonus_spots: Box
    info: Box
    hands: Box
    results: Box
    others: Box
    felt_line: tuple[int, int]


_LANDSCAPE = _Design(
    board=(480, 398, 960, 222),
    hole=(480, 632, 430, 278),
    # Under the countdown, as on the felt: Trips, then Ante = Blind, then Play.
    main_spots=(1484, 330, 412, 580),
    # Under the meters, left of the board and the player's cards.
    bonus_spots=(24, 340, 440, 570),
    info=(926, 632, 514, 278),
    # The results take the bonus spots' and the main spots' places (and the buttons', which
    # the results screen has not).
    hands=(24, 340, 440, 570),
    results=(1456, 330, 440, 724),
    others=(926, 632, 514, 278),
    felt_line=(960, 366),
)
_PORTRAIT = _Design(
    board=(24, 560, 1032, 230),
    hole=(24, 800, 480, 290),
    main_spots=(392, 1100, 664, 390),
    bonus_spots=(24, 1100, 356, 390),
    info=(516, 800, 540, 290),
    hands=(516, 800, 540, 290),
    results=(24, 1100, 1032, 560),
    # Where the chip tray is while betting.
    others=(24, 1672, 1032, 224),
    felt_line=(540, 526),
)


def _window_box(layout: Layout, b: Box) -> pygame.Rect:
    x, y, w, h = b
    ox, oy = layout.origin
    s = layout.scale
    left, top = round(ox + x * s), round(oy + y * s)
    return pygame.Rect(left, top, round(ox + (x + w) * s) - left, round(oy + (y + h) * s) - top)


def uth_areas(layout: Layout) -> UthAreas:
    """The Hold 'Em table's areas for ``layout``'s window."""
    d = _PORTRAIT if layout.portrait else _LANDSCAPE
    ox, oy = layout.origin
    s = layout.scale
    return UthAreas(
        board=_window_box(layout, d.board),
        hole=_window_box(layout, d.hole),
        main_spots=_window_box(layout, d.main_spots),
        bonus_spots=_window_box(layout, d.bonus_spots),
        info=_window_box(layout, d.info),
        hands=_window_box(layout, d.hands),
        results=_window_box(layout, d.results),
        others=_window_box(layout, d.others),
        felt_line=(round(ox + d.felt_line[0] * s), round(oy + d.felt_line[1] * s)),
        main_zone=d.main_spots,
        bonus_zone=d.bonus_spots,
    )


def _circle(layout: Layout, x: int, y: int, r: int) -> tuple[tuple[int, int], int]:
    ox, oy = layout.origin
    s = layout.scale
    return (round(ox + x * s), round(oy + y * s)), round(r * s)


def main_spot_circles(
    layout: Layout, spots: Sequence[str]
) -> dict[str, tuple[tuple[int, int], int]]:
    """Spot id -> (centre, radius) in window pixels of the main spots, as large as the zone
    allows: in a tall zone as on the felt (Trips on top, Ante and Blind side by side, Play
    under them), else in one row in the order given (Ante, Blind, Play, Trips)."""
    if not spots:
        return {}
    x, y, w, h = uth_areas(layout).main_zone
    if h >= w:
        return _felt_circles(layout, spots, (x, y, w, h))
    count = len(spots)
    radius = min(MAIN_RADIUS_MAX, (w - (count - 1) * SPOT_GAP) // (2 * count))
    radius = max(MAIN_RADIUS_MIN, min(radius, (h - AMOUNT_BAND - 40) // 2))
    used = count * 2 * radius + (count - 1) * SPOT_GAP
    left = x + (w - used) // 2 + radius
    cy = y + 40 + (h - 40 - AMOUNT_BAND) // 2
    return {
        spot: _circle(layout, left + i * (2 * radius + SPOT_GAP), cy, radius)
        for i, spot in enumerate(spots)
    }


def _felt_circles(
    layout: Layout, spots: Sequence[str], zone: Box
) -> dict[str, tuple[tuple[int, int], int]]:
    """Rows of the felt: the last spot (Trips) alone on top, the first two (Ante, Blind)
    side by side, the others (Play) alone under them."""
    x, y, w, h = zone
    rows: list[tuple[str, ...]] = []
    if len(spots) > 3:
        rows.append((spots[3],))
    rows.append(tuple(spots[:2]))
    rows += [(spot,) for spot in spots[2:3]]
    band = AMOUNT_BAND + SPOT_GAP
    radius = min(MAIN_RADIUS_MAX, (h - len(rows) * band) // (2 * len(rows)), (w - SPOT_GAP) // 4)
    pitch = (h - len(rows) * 2 * radius - len(rows) * AMOUNT_BAND) // len(rows)
    out = {}
    cy = y + pitch // 2 + radius
    for row in rows:
        used = len(row) * 2 * radius + (len(row) - 1) * 3 * SPOT_GAP
        left = x + (w - used) // 2 + radius
        for i, spot in enumerate(row):
            out[spot] = _circle(layout, left + i * (2 * radius + 3 * SPOT_GAP), cy, radius)
        cy += 2 * radius + AMOUNT_BAND + pitch
    return out


def bonus_spot_circles(
    layout: Layout, spots: Sequence[str]
) -> dict[str, tuple[tuple[int, int], int]]:
    """Spot id -> (centre, radius) in window pixels of the bonus spots, laid out in their
    zone as the side wagers' circles are (:func:`side_spot_circles`)."""
    zone = uth_areas(layout).bonus_zone
    return {
        spot: _circle(layout, x, y, r) for spot, x, y, r in side_spot_circles((zone,), tuple(spots))
    }


def shade(surface: pygame.Surface, rect: pygame.Rect, alpha: int = 140) -> None:
    """A dark translucent rounded box with a gold rim."""
    box = pygame.Surface(rect.size, pygame.SRCALPHA)
    radius = max(6, min(rect.width, rect.height) // 12)
    pygame.draw.rect(box, (0, 0, 0, alpha), box.get_rect(), border_radius=radius)
    surface.blit(box, rect)
    pygame.draw.rect(surface, GOLD, rect, width=2, border_radius=radius)


def row_rects(area: pygame.Rect, count: int, card_h: int, gap: int) -> tuple[pygame.Rect, ...]:
    """``count`` card places of height ``card_h`` side by side, centred in ``area``."""
    card_w = int(card_h / CARD_ASPECT)
    used = count * card_w + (count - 1) * gap
    left = area.centerx - used // 2
    return tuple(
        pygame.Rect(left + i * (card_w + gap), area.top, card_w, card_h) for i in range(count)
    )


def board_rects(area: pygame.Rect, scale: float) -> tuple[pygame.Rect, ...]:
    """The five community card places in the board ``area`` (under its street labels)."""
    top = area.top + round(40 * scale)
    gap = round(14 * scale)
    card_h = area.bottom - round(12 * scale) - top
    card_h = min(card_h, int((area.width - round(40 * scale) - 4 * gap) / 5 * CARD_ASPECT))
    return row_rects(pygame.Rect(area.left, top, area.width, card_h), 5, card_h, gap)


def draw_board(
    surface: pygame.Surface,
    area: pygame.Rect,
    cards: Sequence[str],
    layout: Layout,
    best: frozenset[str] = frozenset(),
) -> None:
    """The five community card places: a dealt card face up, an empty place outlined with
    its street (FLOP, TURN, RIVER) above; a card in ``best`` (the player's best five) is
    ringed."""
    s = layout.scale
    shade(surface, area, 110)
    rects = board_rects(area, s)
    labels = (("FLOP", rects[0].union(rects[2])), ("TURN", rects[3]), ("RIVER", rects[4]))
    for label, over in labels:
        draw_text(
            surface,
            label,
            (over.centerx, over.top - round(6 * s)),
            layout.text(22),
            GOLD,
            "midbottom",
            bold=True,
            least=layout.min_text,
        )
    for i, rect in enumerate(rects):
        if i < len(cards):
            draw_card(surface, rect, cards[i])
            if cards[i] in best:
                pygame.draw.rect(
                    surface,
                    BEST_RING,
                    rect.inflate(round(8 * s), round(8 * s)),
                    max(2, round(4 * s)),
                    border_radius=6,
                )
        else:
            pygame.draw.rect(
                surface, DIM, rect, max(1, round(3 * s)), border_radius=max(4, rect.width // 10)
            )


@dataclass(frozen=True)
class HandBlock:
    """One hand in the hands panel: a title ("DEALER", "YOU"), the hand's name, a note
    ("QUALIFIES", "DOES NOT QUALIFY", "FOLDED") and its best five cards."""

    title: str
    name: str
    note: str
    five: tuple[str, ...]
    good: bool = True


def draw_hand_blocks(
    surface: pygame.Surface, area: pygame.Rect, blocks: Sequence[HandBlock], layout: Layout
) -> None:
    """The hands stacked in ``area``: each a line of title, name and note, and its best five
    cards in a row under it."""
    s = layout.scale
    shade(surface, area, 170)
    if not blocks:
        return
    pad = round(12 * s)
    inner = area.inflate(-2 * pad, -2 * pad)
    text_h = round(30 * s)
    # A block without cards takes one line; those with cards share the rest.
    carded = sum(1 for b in blocks if b.five)
    lines = (len(blocks) - carded) * (text_h + round(6 * s))
    pitch = (inner.height - lines) // max(1, carded)
    top = inner.top
    for block in blocks:
        height = pitch if block.five else text_h + round(6 * s)
        cell = pygame.Rect(inner.left, top, inner.width, height)
        top += height
        title = draw_text(
            surface,
            f"{block.title}: {block.name}" if block.name else block.title,
            (cell.left, cell.top),
            layout.text(24),
            CREAM,
            "topleft",
            bold=True,
            max_width=cell.width * 3 // 5,
            least=layout.min_text,
        )
        if block.note:
            draw_text(
                surface,
                block.note,
                (cell.right, cell.top),
                layout.text(22),
                GOLD if block.good else LOST,
                "topright",
                bold=True,
                max_width=cell.right - title.right - pad,
                least=layout.min_text,
            )
        gap = round(8 * s)
        card_h = cell.height - text_h - round(10 * s)
        card_h = min(card_h, int((cell.width - 4 * gap) / 5 * CARD_ASPECT))
        if block.five and card_h > 8:
            cards = pygame.Rect(cell.left, cell.top + text_h + round(4 * s), cell.width, card_h)
            for card, rect in zip(block.five, row_rects(cards, 5, card_h, gap), strict=False):
                draw_card(surface, rect, card)


def draw_info_lines(
    surface: pygame.Surface,
    area: pygame.Rect,
    title: str,
    lines: Sequence[tuple[str, str]],
    layout: Layout,
    *,
    fit: bool = False,
) -> None:
    """A panel with a title and rows of ``(left text, right text)``; with ``fit`` only as
    tall as its rows need (at most ``area``)."""
    s = layout.scale
    if fit:
        area = pygame.Rect(area)
        area.height = min(area.height, round((48 + 34 * len(lines) + 8) * s))
    shade(surface, area, 130)
    pad = round(14 * s)
    draw_text(
        surface,
        title,
        (area.centerx, area.top + round(8 * s)),
        layout.text(26),
        GOLD,
        "midtop",
        bold=True,
        max_width=area.width - 2 * pad,
        least=layout.min_text,
    )
    pitch = round(34 * s)
    for i, (left, right) in enumerate(lines):
        y = area.top + round(48 * s) + i * pitch
        if y + pitch > area.bottom:
            break
        draw_text(
            surface,
            left,
            (area.left + pad, y),
            layout.text(22),
            CREAM,
            "topleft",
            max_width=area.width * 3 // 5 - pad if right else area.width - 2 * pad,
            least=layout.min_text,
        )
        if right:
            draw_text(
                surface,
                right,
                (area.right - pad, y),
                layout.text(22),
                GOLD,
                "topright",
                bold=True,
                max_width=area.width * 2 // 5 - pad,
                least=layout.min_text,
            )
