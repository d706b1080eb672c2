"""Drawing for a hybrid table (58 Pa. Code 633b.5): where its pieces go and how they look.

:func:`hybrid_areas` places, for the window's :class:`~terminal_client.render.layout.Layout`
(1920x1080 design grid, 1080x1920 in portrait), what a hybrid table adds to the fully
automated scene: the three position buttons of the betting screen, the panel of the
positions' first cards (or the shared first cards), the community box, this terminal's hands
and a legend. They use the band of the seven seats, which a hybrid table has not (stadium
play): the dealer, menu, credits, message bar, countdown, chip tray, betting circles and
action buttons stay where :class:`Layout` puts them.

The drawing functions take plain values (card texts, numbers, labels: :class:`CommunityTile`,
:class:`PositionTile`, :class:`HandTile`) and change nothing but the surface's pixels; cards,
chips, buttons and text are drawn by :mod:`terminal_client.render.draw` and
:func:`~terminal_client.render.table.draw_hand`.

Entry points: :func:`hybrid_areas`, :func:`draw_community_box`, :func:`draw_position_tiles`,
:func:`draw_hand_tiles`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pygame

from terminal_client.render.anim import CardMotion
from terminal_client.render.draw import CREAM, GOLD, draw_card, draw_text, fit_lines
from terminal_client.render.elements import DrawnText, note_text, recording
from terminal_client.render.layout import Layout
from terminal_client.render.table import CARD_ASPECT, draw_hand, hand_rects

Box = tuple[int, int, int, int]

#: The ring of a card in this player's hand, and of one in his dealer hand.
HAND_RING = GOLD
DEALER_RING = (120, 190, 255)
DIM = (150, 170, 150)


@dataclass(frozen=True)
class HybridAreas:
    """The hybrid table's areas, in window pixels."""

    position_buttons: tuple[pygame.Rect, ...]
    positions: pygame.Rect
    community: pygame.Rect
    hands: pygame.Rect
    legend: pygame.Rect
    felt_line: tuple[int, int]
    #: The results screen's panel: the legend's column (landscape) or place (portrait).
    results: pygame.Rect


#: (position buttons, positions panel, community box, hands, legend, felt line, results),
#: design px.
_Areas = tuple[tuple[Box, ...], Box, Box, Box, Box, tuple[int, int], Box]
_LANDSCAPE: _Areas = (
    ((495, 452, 290, 180), (815, 452, 290, 180), (1135, 452, 290, 180)),
    (24, 228, 440, 410),
    (480, 405, 960, 250),
    (640, 700, 840, 210),
    (1484, 330, 412, 300),
    (960, 372),
    (1484, 330, 412, 724),
)
_PORTRAIT: _Areas = (
    ((24, 590, 336, 220), (372, 590, 336, 220), (720, 590, 336, 220)),
    (24, 570, 1032, 176),
    (24, 756, 1032, 250),
    (60, 1030, 960, 294),
    (24, 1334, 1032, 160),
    (490, 532),
    (24, 1334, 1032, 556),
)


def hybrid_areas(layout: Layout) -> HybridAreas:
    """The hybrid table's areas for ``layout``'s window."""
    buttons, positions, community, hands, legend, line, results = (
        _PORTRAIT if layout.portrait else _LANDSCAPE
    )
    ox, oy = layout.origin
    s = layout.scale
    box = layout.design_rect
    return HybridAreas(
        position_buttons=tuple(box(b) for b in buttons),
        positions=box(positions),
        community=box(community),
        hands=box(hands),
        legend=box(legend),
        felt_line=(round(ox + line[0] * s), round(oy + line[1] * s)),
        results=box(results),
    )


def _shade(surface: pygame.Surface, rect: pygame.Rect, alpha: int = 140) -> None:
    shade = pygame.Surface(rect.size, pygame.SRCALPHA)
    radius = max(6, min(rect.width, rect.height) // 10)
    pygame.draw.rect(shade, (0, 0, 0, alpha), shade.get_rect(), border_radius=radius)
    surface.blit(shade, rect)
    pygame.draw.rect(surface, GOLD, rect, width=2, border_radius=radius)


def _tag_radius(card_width: int, least: int) -> int:
    """A number badge's radius on a card ``card_width`` wide: a fifth of the card, and
    room for its number at the type scale's minimum ``least``."""
    return max(9, card_width // 5, round(least * 0.8))


def _number_tag(
    surface: pygame.Surface,
    card: pygame.Rect,
    shown: int,
    number: int,
    ring: tuple[int, ...],
    least: int,
) -> None:
    """A community card's number in a small disc on ``card``, in the card's lower left,
    within the ``shown`` pixels of it that the next card leaves (clear of every corner
    index: the card's own are top left and bottom right, the next card's is beside it)."""
    radius = _tag_radius(card.width, least)
    pad = max(2, card.width // 20)
    centre = (
        card.left + max(radius + pad, min(shown, card.width) // 2),
        card.bottom - radius - pad,
    )
    disc = pygame.Rect(0, 0, 2 * radius + 1, 2 * radius + 1)
    disc.center = centre
    pygame.draw.circle(surface, (20, 20, 24), centre, radius)
    pygame.draw.circle(surface, ring, centre, radius, max(2, radius // 6))
    if recording():
        note_text(DrawnText(f"#{number}", 0, 0, None, 0, disc, surface, mark=True))
    draw_text(
        surface,
        str(number),
        centre,
        max(least, round(radius * 1.1)),
        CREAM,
        bold=True,
        max_width=round(radius * 1.6),
        least=least,
    )


# The community box -----------------------------------------------------------------------


@dataclass(frozen=True)
class CommunityTile:
    """One community card as the box shows it: its number, its card, the tag under it
    (``"YOUR HAND"``, ``"YOUR DEALER"``, ``""``) and whether it is in this player's hand
    (gold ring) or his dealer hand (blue ring); an unused card is dimmed."""

    number: int
    card: str
    tag: str = ""
    in_hand: bool = False
    in_dealer: bool = False


def community_rects(area: pygame.Rect, count: int, scale: float) -> tuple[pygame.Rect, ...]:
    """Where the box in ``area`` puts ``count`` community cards: side by side at the
    largest size that fits (down to 60 % of the full height), overlapping beyond that."""
    if count <= 0:
        return ()
    pad = round(16 * scale)
    gap = round(12 * scale)
    top = area.top + round(44 * scale) + round(28 * scale)
    full_h = area.bottom - round(32 * scale) - top
    width = area.width - 2 * pad
    card_h = full_h
    while card_h > full_h * 0.6 and count * int(card_h / CARD_ASPECT) + (count - 1) * gap > width:
        card_h -= 2
    card_w = int(card_h / CARD_ASPECT)
    step = card_w + gap
    if count * card_w + (count - 1) * gap > width:
        step = max(1, (width - card_w) // max(1, count - 1))
    used = card_w + step * (count - 1)
    left = area.centerx - used // 2
    top += (full_h - card_h) // 2
    return tuple(pygame.Rect(left + i * step, top, card_w, card_h) for i in range(count))


def draw_community_box(
    surface: pygame.Surface,
    area: pygame.Rect,
    tiles: Sequence[CommunityTile],
    layout: Layout,
    title: str = "COMMUNITY CARDS",
    empty: str = "No community card yet",
) -> None:
    """The community cards in the order drawn, each numbered above and tagged below."""
    _shade(surface, area)
    s = layout.scale
    draw_text(
        surface,
        title,
        (area.centerx, area.top + round(8 * s)),
        layout.text(26),
        GOLD,
        "midtop",
        bold=True,
        max_width=area.width - round(20 * s),
        least=layout.min_text,
    )
    if not tiles:
        draw_text(
            surface,
            empty,
            area.center,
            layout.text(28),
            DIM,
            max_width=area.width - 20,
            least=layout.min_text,
        )
        return
    rects = community_rects(area, len(tiles), s)
    step = rects[1].left - rects[0].left if len(rects) > 1 else rects[0].width
    label_w = max(8, min(step, rects[0].width + round(10 * s)))
    for tile, rect in zip(tiles, rects, strict=True):
        draw_card(surface, rect, tile.card)
        ring = HAND_RING if tile.in_hand else DEALER_RING if tile.in_dealer else None
        if ring is None:
            dim = pygame.Surface(rect.size, pygame.SRCALPHA)
            dim.fill((0, 0, 0, 90))
            surface.blit(dim, rect)
        else:
            pygame.draw.rect(
                surface, ring, rect.inflate(round(8 * s), round(8 * s)), max(2, round(4 * s)), 6
            )
        mid = rect.left + label_w // 2 if step < rect.width else rect.centerx
        draw_text(
            surface,
            f"#{tile.number}",
            (mid, rect.top - round(4 * s)),
            layout.text(24),
            ring or CREAM,
            "midbottom",
            bold=True,
            max_width=label_w,
            least=layout.min_text,
        )
        if tile.tag:
            # "YOUR DEALER" on a narrow card says "DEALER" (the ring's colour says whose).
            short = tile.tag.removeprefix("YOUR ")
            (tag, *_), size = fit_lines(
                tile.tag, layout.text(18), layout.min_text, label_w, bold=True, most=1, short=short
            )
            draw_text(
                surface,
                tag,
                (mid, rect.bottom + round(6 * s)),
                size,
                ring or DIM,
                "midtop",
                bold=True,
                max_width=label_w,
                least=layout.min_text,
            )


# The positions (or the shared first cards) ---------------------------------------------------


@dataclass(frozen=True)
class PositionTile:
    """One cell of the positions panel: a title, its cards, a note, and whether it is this
    player's (highlighted)."""

    title: str
    cards: tuple[str | None, ...] = ()
    note: str = ""
    mine: bool = False


def tile_rects(area: pygame.Rect, count: int, scale: float) -> tuple[pygame.Rect, ...]:
    """``count`` cells side by side in a wide ``area`` (at least twice as wide as high),
    else stacked."""
    if count <= 0:
        return ()
    gap = round(10 * scale)
    if area.width >= 2 * area.height:
        w = (area.width - gap * (count - 1)) // count
        return tuple(
            pygame.Rect(area.left + i * (w + gap), area.top, w, area.height) for i in range(count)
        )
    h = (area.height - gap * (count - 1)) // count
    return tuple(
        pygame.Rect(area.left, area.top + i * (h + gap), area.width, h) for i in range(count)
    )


def draw_position_tiles(
    surface: pygame.Surface, area: pygame.Rect, tiles: Sequence[PositionTile], layout: Layout
) -> None:
    """Cells side by side (or stacked, in a tall area): title and note above, cards below;
    this player's cell has a thick gold rim."""
    s = layout.scale
    for tile, rect in zip(tiles, tile_rects(area, len(tiles), s), strict=True):
        _shade(surface, rect, 170 if tile.mine else 110)
        if tile.mine:
            pygame.draw.rect(surface, GOLD, rect, max(3, round(6 * s)), border_radius=8)
        text_h = round(30 * s)
        draw_text(
            surface,
            tile.title,
            (rect.left + round(12 * s), rect.top + round(6 * s)),
            layout.text(22),
            GOLD if tile.mine else CREAM,
            "topleft",
            bold=True,
            max_width=rect.width // 2 if tile.note else rect.width - round(20 * s),
            least=layout.min_text,
        )
        if tile.note:
            draw_text(
                surface,
                tile.note,
                (rect.right - round(12 * s), rect.top + round(6 * s)),
                layout.text(20),
                GOLD if tile.mine else DIM,
                "topright",
                bold=tile.mine,
                max_width=rect.width // 2 - round(20 * s),
                least=layout.min_text,
            )
        cards_area = pygame.Rect(
            rect.left + round(8 * s),
            rect.top + text_h + round(6 * s),
            rect.width - round(16 * s),
            rect.height - text_h - round(14 * s),
        )
        if tile.cards:
            card_h = min(cards_area.height, int(cards_area.width / 2.2 * CARD_ASPECT))
            draw_hand(surface, cards_area, tile.cards, card_h)


# This player's hands ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HandTile:
    """One of this player's hands: cards, each card's community number (0 for a first card),
    the total, a line under it (wagers, done, settled), whether it is the hand to act, and
    the cards' motion (``None``: at rest)."""

    cards: tuple[str | None, ...]
    community: tuple[int, ...]
    total: str
    info: str
    active: bool = False
    motions: tuple[CardMotion, ...] | None = None


def draw_marked_hand(
    surface: pygame.Surface,
    area: pygame.Rect,
    cards: tuple[str | None, ...],
    community: Sequence[int],
    card_h: int,
    *,
    ring: tuple[int, ...] = HAND_RING,
    motions: Sequence[CardMotion] | None = None,
    shoe: tuple[int, int] | None = None,
    least: int = 8,
) -> pygame.Rect:
    """:func:`draw_hand`, with each community card's number in a badge on it (once landed),
    where it covers no card's index (:func:`_number_tag`). The cards lie side by side when
    the area holds them."""
    card_w = int(card_h / CARD_ASPECT)
    gap = _tag_radius(card_w, least) if any(community) else None
    covered = draw_hand(surface, area, cards, card_h, motions=motions, shoe=shoe, gap=gap)
    rects = hand_rects(area, len(cards), card_h, gap)
    for i, (number, rect) in enumerate(zip(community, rects, strict=False)):
        if number and (motions is None or i >= len(motions) or motions[i].landed):
            shown = rects[i + 1].left - rect.left if i + 1 < len(rects) else rect.width
            _number_tag(surface, rect, shown, number, ring, least)
    return covered


def draw_hand_tiles(
    surface: pygame.Surface,
    area: pygame.Rect,
    hands: Sequence[HandTile],
    layout: Layout,
    shoe: tuple[int, int] | None = None,
) -> None:
    """This player's hands side by side in ``area``: the cards large (numbered where they
    are community cards), the total in a badge, the hand's line under it."""
    if not hands:
        return
    s = layout.scale
    width = area.width // len(hands)
    for i, hand in enumerate(hands):
        cell = pygame.Rect(area.left + i * width, area.top, width, area.height)
        single = len(hands) == 1
        card_h = area.height - round(20 * s) if single else round(area.height * 0.6)
        cards_area = cell.inflate(-round(300 * s), 0) if single else cell.inflate(-round(8 * s), 0)
        if single:
            cards_area.left = cell.left
        covered = draw_marked_hand(
            surface,
            cards_area,
            hand.cards,
            hand.community,
            card_h,
            motions=hand.motions,
            shoe=shoe,
            least=layout.min_text,
        )
        if hand.active and not single:
            pygame.draw.rect(
                surface, GOLD, covered.inflate(round(12 * s), round(12 * s)), 4, round(10 * s)
            )
        badge = pygame.Rect(0, 0, round(120 * s), round(50 * s))
        if single:
            badge.topleft = (covered.right + round(24 * s), covered.top + round(20 * s))
        else:
            badge.midtop = (covered.centerx, covered.bottom + round(6 * s))
        if hand.total:
            _shade(surface, badge, 190)
            draw_text(
                surface,
                hand.total,
                badge.center,
                layout.text(30),
                CREAM,
                bold=True,
                max_width=badge.width - 8,
                least=layout.min_text,
            )
        if hand.info:
            if single:
                at, anchor = (badge.left, badge.bottom + round(10 * s)), "topleft"
                room = cell.right - badge.left
            else:
                at, anchor = (badge.centerx, badge.bottom + round(4 * s)), "midtop"
                room = width - round(8 * s)
            draw_text(
                surface,
                hand.info,
                at,
                layout.text(20),
                GOLD,
                anchor,
                bold=True,
                max_width=room,
                least=layout.min_text,
            )


def draw_legend(
    surface: pygame.Surface, area: pygame.Rect, title: str, lines: Sequence[str], layout: Layout
) -> pygame.Rect:
    """A panel with a title and a few short lines (what the table is, what the rings mean),
    as tall as they need (at most ``area``); returns the panel's rectangle."""
    s = layout.scale
    area = pygame.Rect(area)
    area.height = min(area.height, round((44 + 28 * len(lines) + 12) * s))
    _shade(surface, area, 120)
    draw_text(
        surface,
        title,
        (area.centerx, area.top + round(8 * s)),
        layout.text(24),
        GOLD,
        "midtop",
        bold=True,
        max_width=area.width - round(20 * s),
        least=layout.min_text,
    )
    pitch = round(28 * s)
    for i, line in enumerate(lines):
        y = area.top + round(44 * s) + i * pitch
        if y + pitch > area.bottom:
            break
        draw_text(
            surface,
            line,
            (area.left + round(14 * s), y),
            layout.text(20),
            CREAM,
            "topleft",
            max_width=area.width - round(28 * s),
            least=layout.min_text,
        )
    return area
