"""The blackjack table scene, drawn from a :class:`TableView` of plain values.

A screen turns its model into a ``TableView`` and calls :func:`draw_table`; drawing reads the
view and the layout and changes nothing else (Tuxemon ``state.py``: draw never changes state).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pygame

from shared.money import format_money
from terminal_client.render.anim import CardMotion
from terminal_client.render.draw import (
    CREAM,
    GOLD,
    draw_button,
    draw_card,
    draw_card_turning,
    draw_chip,
    draw_countdown_ring,
    draw_felt,
    draw_text,
)
from terminal_client.render.fonts import get_font
from terminal_client.render.layout import Layout
from terminal_client.widgets import BetSpot

#: Card height / width, as for a real poker-size card.
CARD_ASPECT = 1.4


@dataclass(frozen=True)
class SeatView:
    """What one seat shows: who sits there, their cards, total and bet (cents)."""

    name: str
    cards: tuple[str | None, ...] = ()
    total: str = ""
    bet: int = 0


@dataclass(frozen=True)
class TableView:
    """Everything the table scene shows, as values (card texts, cents, labels)."""

    dealer_cards: tuple[str | None, ...] = ()
    dealer_total: str = ""
    seats: dict[int, SeatView] = field(default_factory=dict)
    my_cards: tuple[str | None, ...] = ()
    my_total: str = ""
    credits: int = 0
    message: str = ""
    countdown_fraction: float | None = None
    countdown_label: str = ""
    enabled_actions: frozenset[str] = frozenset()
    pressed_target: str | None = None
    bets: dict[str, int] = field(default_factory=dict)
    selected_chip: int | None = None
    felt_lines: tuple[str, ...] = ("BLACKJACK PAYS 3 TO 2", "Dealer stands on all 17s")


def hand_rects(
    area: pygame.Rect, count: int, card_h: int, gap: int | None = None
) -> tuple[pygame.Rect, ...]:
    """Where :func:`draw_hand` puts each of ``count`` cards in ``area`` (left to right):
    fanned, each over the last, or side by side ``gap`` apart when a gap is given and the
    area holds them."""
    if count <= 0:
        return ()
    card_w = int(card_h / CARD_ASPECT)
    step = min(int(card_w * 0.62), (area.width - card_w) // max(1, count - 1) or card_w)
    if gap is not None and count * card_w + (count - 1) * gap <= area.width:
        step = card_w + gap
    total_w = card_w + step * (count - 1)
    left = area.centerx - total_w // 2
    return tuple(pygame.Rect(left + i * step, area.top, card_w, card_h) for i in range(count))


def draw_hand(
    surface: pygame.Surface,
    area: pygame.Rect,
    cards: tuple[str | None, ...],
    card_h: int,
    *,
    motions: Sequence[CardMotion] | None = None,
    shoe: tuple[int, int] | None = None,
    gap: int | None = None,
) -> pygame.Rect:
    """Cards fanned left to right, centred in ``area``, overlapping when space is short
    (side by side ``gap`` apart when a gap is given and they fit); returns the area the
    cards cover.

    With ``motions`` (one :class:`~terminal_client.render.anim.CardMotion` per card) a card
    in flight is drawn on its way from ``shoe`` (a point; default the top right of
    ``area``) to its place, a card still in the shoe is not drawn and a turning card is
    drawn narrowed (:func:`~terminal_client.render.draw.draw_card_turning`).
    """
    rects = hand_rects(area, len(cards), card_h, gap)
    if not rects:
        return pygame.Rect(area.centerx, area.top, 0, card_h)
    start = shoe if shoe is not None else area.topright
    for i, (card, rect) in enumerate(zip(cards, rects, strict=True)):
        motion = motions[i] if motions is not None and i < len(motions) else None
        if motion is None or motion.landed:
            draw_card(surface, rect, card)
        elif motion.flight is None:
            continue
        elif motion.flip is not None:
            draw_card_turning(surface, rect, card, motion.flip)
        else:
            t = motion.flight
            x = round(start[0] - rect.width / 2 + (rect.x - start[0] + rect.width / 2) * t)
            y = round(start[1] - rect.height / 2 + (rect.y - start[1] + rect.height / 2) * t)
            draw_card(surface, pygame.Rect(x, y, rect.width, rect.height), card)
    return rects[0].union(rects[-1])


def _panel(surface: pygame.Surface, rect: pygame.Rect, alpha: int = 120) -> None:
    panel = pygame.Surface(rect.size, pygame.SRCALPHA)
    radius = max(6, rect.height // 6)
    pygame.draw.rect(panel, (0, 0, 0, alpha), panel.get_rect(), border_radius=radius)
    surface.blit(panel, rect)
    pygame.draw.rect(surface, GOLD, rect, width=2, border_radius=radius)


def _room_at(radius: int, y0: float, y1: float) -> int:
    """The width inside a circle of ``radius`` for a band from ``y0`` to ``y1`` (relative to
    the centre, in pixels): the chord at the band's edge farther from the centre."""
    far = max(abs(y0), abs(y1))
    if far >= radius:
        return 0
    return int(2 * math.sqrt(radius * radius - far * far))


def circle_lines(
    text: str,
    short: str,
    radius: int,
    top: float,
    bottom: float,
    size: int,
    least: int,
    *,
    most: int = 3,
) -> tuple[list[str], int, int] | None:
    """``text`` (else its declared ``short`` name) in bold lines centred between ``top`` and
    ``bottom`` (relative to the centre) inside a circle of ``radius``: (lines, font size,
    line pitch) at the largest size from ``size`` down to ``least`` at which every line fits
    its chord, on as few lines as that takes (at most ``most``); None when it does not fit
    at ``least``."""
    candidates = [text] if not short or short == text else [text, short]
    sizes = []
    step = max(size, least)
    while True:
        sizes.append(step)
        if step <= least:
            break
        step = max(least, int(step * 0.9))
    for words in candidates:
        for step in sizes:
            font = get_font(step, True)
            pitch = font.get_linesize()
            ascent = font.get_ascent()
            for count in range(1, most + 1):
                block = count * pitch
                if block > bottom - top:
                    break
                first = (top + bottom - block) / 2
                lines = [words] if count == 1 else _wrap_count(words, count)
                if lines is None:
                    continue
                ok = True
                for i, line in enumerate(lines):
                    y0 = first + i * pitch + (pitch - ascent) / 2
                    room = _room_at(radius, y0, y0 + ascent)
                    if font.size(line)[0] > room:
                        ok = False
                        break
                if ok:
                    return lines, step, pitch
    return None


def _wrap_count(text: str, count: int) -> list[str] | None:
    """``text`` split at spaces into ``count`` lines as even as can be (None: too few
    words)."""
    words = text.split()
    if len(words) < count:
        return None
    best: list[str] | None = None
    best_width = 0
    for cuts in itertools.combinations(range(1, len(words)), count - 1):
        bounds = (0, *cuts, len(words))
        lines = [" ".join(words[a:b]) for a, b in itertools.pairwise(bounds)]
        width = max(len(line) for line in lines)
        if best is None or width < best_width:
            best, best_width = lines, width
    return best


def _draw_main_spot(
    surface: pygame.Surface, spot: BetSpot, layout: Layout, ring: int, inner: int
) -> None:
    """The main wager's circle: its ring, and a large chip when staked, else its label large."""
    r = spot.radius
    pygame.draw.circle(surface, GOLD, spot.center, r, ring)
    if spot.amount > 0:
        draw_chip(surface, spot.center, spot.amount, int(r * 0.62), least=layout.min_text)
        return
    draw_text(
        surface,
        spot.label,
        spot.center,
        max(layout.min_text, int(r * 0.42)),
        GOLD,
        bold=True,
        max_width=int(inner * 1.8),
        least=layout.min_text,
    )


def draw_bet_spot(
    surface: pygame.Surface, spot: BetSpot, layout: Layout, note: str = "", *, main: bool = False
) -> None:
    """A gold-ringed betting circle with its label, the staked chip, and under it the staked
    amount (or, while nothing is staked, the ``note``: its limits or fixed amounts).

    Every text is on ``layout``'s type scale and laid out to fit, never shrunk below its
    minimum: the label inside the circle on as many lines as it needs (or its declared
    short name); with a stake, the label over the chip when both fit, else the label alone
    and the circle filled gold to say it holds a stake (the amount is under it). A ``main``
    circle says its label large and holds a large chip.
    """
    s = layout.scale
    r = spot.radius
    cx, cy = spot.center
    ring = max(2, round(4 * s))
    staked = spot.amount > 0
    pygame.draw.circle(surface, (8, 70, 38), spot.center, r)
    inner = r - ring - max(1, round(2 * s))
    below = (cx, cy + r + round(4 * s))
    room = 2 * r + round(16 * s)
    under = format_money(spot.amount) if staked else note
    if under:
        draw_text(
            surface,
            under,
            below,
            layout.text(22),
            GOLD if staked else CREAM,
            "midtop",
            bold=staked,
            max_width=room,
            least=layout.min_text,
        )
    if main:
        _draw_main_spot(surface, spot, layout, ring, inner)
        return
    size = max(layout.min_text, round(r * 0.3))
    fitted = None
    if staked:
        fitted = circle_lines(
            spot.label, spot.short, inner, -inner, -inner * 0.08, size, layout.min_text, most=2
        )
        chip_r = int(r * 0.42)
        if fitted is not None:
            draw_chip(surface, (cx, cy + int(r * 0.45)), spot.amount, chip_r, least=layout.min_text)
        else:
            pygame.draw.circle(surface, (122, 92, 24), spot.center, r - ring)
    top: float = -inner
    bottom: float = -inner * 0.08
    if fitted is None:
        fitted = circle_lines(spot.label, spot.short, inner, -inner, inner, size, layout.min_text)
        bottom = inner
    pygame.draw.circle(surface, (255, 226, 130) if staked else GOLD, spot.center, r, ring)
    if fitted is None:  # not even the short name fits: the label at the least size
        lines, size, pitch = [spot.short or spot.label], layout.min_text, 0
        top = bottom = 0.0
    else:
        lines, size, pitch = fitted
    first = (top + bottom - pitch * len(lines)) / 2
    ascent = get_font(size, True).get_ascent()
    color = CREAM if staked and top == -inner and bottom == inner else GOLD
    for i, line in enumerate(lines):
        y = first + i * pitch
        ink = y + (pitch - ascent) / 2
        draw_text(
            surface,
            line,
            (cx, round(cy + y)),
            size,
            color,
            "midtop",
            True,
            max_width=_room_at(inner, ink, ink + ascent) if pitch else 2 * inner,
            least=layout.min_text,
        )


def draw_table(surface: pygame.Surface, layout: Layout, view: TableView) -> None:
    """Draw the whole table for ``view`` into ``surface`` using ``layout``'s rectangles."""
    s = layout.scale
    draw_felt(surface, layout.window)

    # Dealer, and the table printing under the dealer's hand.
    dealer = layout.dealer
    draw_text(
        surface, "DEALER", (dealer.centerx, dealer.top), layout.text(26), GOLD, "midtop", True
    )
    card_h = int(dealer.height * 0.62)
    draw_hand(surface, dealer.inflate(0, 0).move(0, int(40 * s)), view.dealer_cards, card_h)
    if view.dealer_total:
        draw_text(surface, view.dealer_total, dealer.midbottom, layout.text(28), CREAM, "midbottom")
    for i, line in enumerate(view.felt_lines):
        y = dealer.bottom + int((14 + 34 * i) * s)
        draw_text(
            surface,
            line,
            (layout.window.centerx, y),
            layout.text(30 - 6 * i),
            GOLD,
            "midtop",
            bold=i == 0,
        )

    # The seven seats.
    for number, area in enumerate(layout.seats, start=1):
        seat = view.seats.get(number)
        ring = pygame.Surface(area.size, pygame.SRCALPHA)
        radius = max(6, area.width // 8)
        pygame.draw.rect(ring, (0, 0, 0, 50), ring.get_rect(), border_radius=radius)
        surface.blit(ring, area)
        pygame.draw.rect(surface, (200, 170, 90), area, width=1, border_radius=radius)
        name = seat.name if seat else f"SEAT {number}"
        color = CREAM if seat else (150, 170, 150)
        draw_text(
            surface,
            name,
            (area.centerx, area.bottom - int(6 * s)),
            layout.text(20),
            color,
            "midbottom",
            max_width=area.width - 8,
        )
        if seat:
            hand_area = area.inflate(-int(10 * s), 0).move(0, int(10 * s))
            draw_hand(surface, hand_area, seat.cards, int(area.height * 0.5))
            info = " \u2022 ".join(
                text for text in (seat.total, format_money(seat.bet) if seat.bet else "") if text
            )
            if info:
                y = area.bottom - int(34 * s)
                draw_text(
                    surface,
                    info,
                    (area.centerx, y),
                    layout.text(20),
                    GOLD,
                    "midbottom",
                    max_width=area.width - 8,
                )

    # My hand, large.
    mine = layout.my_hand
    covered = draw_hand(surface, mine, view.my_cards, mine.height - int(10 * s))
    if view.my_total:
        badge = pygame.Rect(0, 0, int(110 * s), int(56 * s))
        badge.midleft = (covered.right + int(24 * s), covered.centery)
        _panel(surface, badge, 170)
        draw_text(surface, view.my_total, badge.center, layout.text(32), CREAM, bold=True)

    for spot in layout.bet_spots(view.bets):
        draw_bet_spot(surface, spot, layout, main=spot.id == "main")

    # Credits and message bar.
    _panel(surface, layout.credits, 150)
    credits = layout.credits
    draw_text(
        surface,
        "CREDITS",
        (credits.left + int(18 * s), credits.centery),
        int(22 * s),
        GOLD,
        "midleft",
        bold=True,
    )
    draw_text(
        surface,
        format_money(view.credits),
        (credits.right - int(18 * s), credits.centery),
        int(38 * s),
        CREAM,
        "midright",
        bold=True,
        max_width=int(credits.width * 0.62),
    )
    if view.message:
        _panel(surface, layout.message_bar, 150)
        draw_text(
            surface,
            view.message,
            layout.message_bar.center,
            layout.text(38),
            CREAM,
            bold=True,
            max_width=layout.message_bar.width - int(30 * s),
        )

    if view.countdown_fraction is not None:
        draw_countdown_ring(
            surface,
            layout.countdown_center,
            layout.countdown_radius,
            view.countdown_fraction,
            view.countdown_label,
        )

    # Chip tray and action buttons.
    tray = layout.chip_tray(view.selected_chip)
    _panel(surface, layout.chip_tray_rect, 110)
    for slot in tray.slots():
        radius = int(slot.radius * 0.86)
        if slot.cents == tray.selected:
            pygame.draw.circle(
                surface, (255, 240, 160), slot.center, radius + int(8 * s), max(3, int(5 * s))
            )
        draw_chip(surface, slot.center, slot.cents, radius)
    for button in layout.buttons(view.enabled_actions):
        draw_button(
            surface,
            pygame.Rect(button.rect),
            button.label,
            button.enabled,
            view.pressed_target == button.target_id,
        )
