"""The blackjack table scene, drawn from a :class:`TableView` of plain values.

A screen turns its model into a ``TableView`` and calls :func:`draw_table`; drawing reads the
view and the layout and changes nothing else (Tuxemon ``state.py``: draw never changes state).
"""

from __future__ import annotations

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


def _label_lines(label: str, size: int, width: int) -> tuple[str, ...]:
    """``label`` on one line, or split at the space nearest its middle when one line at
    ``size`` would not fit ``width``."""
    if " " not in label or get_font(size, True).size(label)[0] <= width:
        return (label,)
    spaces = [i for i, char in enumerate(label) if char == " "]
    cut = min(spaces, key=lambda i: abs(len(label) - 2 * i))
    return (label[:cut], label[cut + 1 :])


def draw_bet_spot(surface: pygame.Surface, spot: BetSpot, scale: float, note: str = "") -> None:
    """A gold-ringed betting circle with its label, and the staked chip and amount if any.

    With a ``note`` (a side wager's limits) the label stays readable in the circle: over
    the note (on two lines if one would not fit) while nothing is staked, small over the
    chip once something is.
    """
    pygame.draw.circle(surface, (8, 70, 38), spot.center, spot.radius)
    pygame.draw.circle(surface, GOLD, spot.center, spot.radius, max(2, int(4 * scale)))
    cx, cy = spot.center
    r = spot.radius
    if spot.amount:
        below = (cx, cy + r + int(4 * scale))
        draw_text(surface, format_money(spot.amount), below, int(24 * scale), CREAM, "midtop")
        if not note:
            draw_chip(surface, spot.center, spot.amount, int(r * 0.62))
            return
        draw_chip(surface, (cx, cy + int(r * 0.2)), spot.amount, int(r * 0.5))
        top = (cx, cy - int(r * 0.34))
        draw_text(surface, spot.label, top, int(r * 0.26), GOLD, "midbottom", True, int(r * 1.5))
    elif not note:
        draw_text(
            surface,
            spot.label,
            spot.center,
            int(r * 0.42),
            GOLD,
            bold=True,
            max_width=int(r * 1.6),
        )
    else:
        size = int(r * 0.3)
        lines = _label_lines(spot.label, size, int(r * 1.6))
        step = int(size * 1.1)
        for i, line in enumerate(lines):
            y = cy - int(r * 0.08) - (len(lines) - 1 - i) * step
            width = int(r * (1.6 if i == len(lines) - 1 else 1.3))
            draw_text(surface, line, (cx, y), size, GOLD, "midbottom", True, width)
        below = (cx, cy + int(r * 0.1))
        draw_text(surface, note, below, int(r * 0.25), CREAM, "midtop", max_width=int(r * 1.6))


def draw_table(surface: pygame.Surface, layout: Layout, view: TableView) -> None:
    """Draw the whole table for ``view`` into ``surface`` using ``layout``'s rectangles."""
    s = layout.scale
    draw_felt(surface, layout.window)

    # Dealer, and the table printing under the dealer's hand.
    dealer = layout.dealer
    draw_text(surface, "DEALER", (dealer.centerx, dealer.top), int(26 * s), GOLD, "midtop", True)
    card_h = int(dealer.height * 0.62)
    draw_hand(surface, dealer.inflate(0, 0).move(0, int(40 * s)), view.dealer_cards, card_h)
    if view.dealer_total:
        draw_text(surface, view.dealer_total, dealer.midbottom, int(28 * s), CREAM, "midbottom")
    for i, line in enumerate(view.felt_lines):
        y = dealer.bottom + int((14 + 34 * i) * s)
        draw_text(
            surface,
            line,
            (layout.window.centerx, y),
            int((30 - 6 * i) * s),
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
            int(20 * s),
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
                    int(20 * s),
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
        draw_text(surface, view.my_total, badge.center, int(32 * s), CREAM, bold=True)

    for spot in layout.bet_spots(view.bets):
        draw_bet_spot(surface, spot, s)

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
            int(38 * s),
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
