"""Where everything goes: a 1920x1080 design grid (1080x1920 for portrait kiosks) scaled,
centred and letterboxed into the real window.

A :class:`Layout` is a value computed from the window size alone; it exposes named rectangles
in window pixels and builds the touch-target widgets from them. Touch targets are at least
:data:`MIN_TOUCH_DESIGN` design pixels, so they stay >= 64 px (about 9 mm) even at 1280x720.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from terminal_client.widgets import BetSpot, Button, ChipTray, hit_test

LANDSCAPE = (1920, 1080)
PORTRAIT = (1080, 1920)
#: Smallest side of any touch target, in design pixels (96 -> 64 px at 1280x720).
MIN_TOUCH_DESIGN = 96
SEAT_COUNT = 7
ACTIONS: tuple[tuple[str, str], ...] = (
    ("hit", "HIT"),
    ("stand", "STAND"),
    ("double", "DOUBLE"),
    ("split", "SPLIT"),
    ("surrender", "SURRENDER"),
)
BET_SPOTS: tuple[tuple[str, str], ...] = (("lucky_aces", "LUCKY ACES"), ("main", "BET"))
DENOMINATIONS: tuple[int, ...] = (100, 500, 2500, 10000, 50000, 100000)

Box = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class _Design:
    """One arrangement, in design pixels."""

    size: tuple[int, int]
    credits: Box
    message_bar: Box
    dealer: Box
    countdown: tuple[int, int, int]  # centre x, centre y, radius
    seats: tuple[Box, ...]
    my_hand: Box
    bet_spots: tuple[tuple[int, int, int], ...]  # centre x, centre y, radius (BET_SPOTS order)
    buttons: tuple[Box, ...]  # ACTIONS order
    chip_tray: Box


def _arc_seats(cx: int, top: int, pitch: int, sag: int, w: int, h: int) -> tuple[Box, ...]:
    """Seven seats on an arc bowing towards the player; seat 1 is on the dealer's left
    (the right of the screen), as at a real blackjack table."""
    seats = []
    for seat in range(1, SEAT_COUNT + 1):
        k = 4 - seat  # 3 .. -3
        x = cx + k * pitch
        y = top + (9 - k * k) * sag
        seats.append((x - w // 2, y - h // 2, w, h))
    return tuple(seats)


def _row(x: int, y: int, w: int, h: int, gap: int, count: int) -> tuple[Box, ...]:
    return tuple((x + i * (w + gap), y, w, h) for i in range(count))


_LANDSCAPE = _Design(
    size=LANDSCAPE,
    credits=(24, 16, 440, 80),
    message_bar=(480, 16, 960, 80),
    dealer=(610, 112, 700, 250),
    countdown=(1770, 160, 110),
    seats=_arc_seats(960, 440, 255, 17, 230, 190),
    my_hand=(640, 700, 760, 200),
    bet_spots=((300, 800, 80), (520, 790, 95)),
    buttons=_row(830, 930, 200, 124, 16, 5),
    chip_tray=(24, 920, 780, 150),
)

_PORTRAIT = _Design(
    size=PORTRAIT,
    credits=(24, 16, 500, 96),
    message_bar=(24, 124, 1032, 84),
    dealer=(150, 240, 680, 280),
    countdown=(960, 320, 96),
    seats=_arc_seats(540, 640, 150, 14, 142, 170),
    my_hand=(90, 920, 900, 300),
    bet_spots=((250, 1350, 100), (540, 1340, 115)),
    buttons=_row(24, 1500, 196, 140, 13, 5),
    chip_tray=(24, 1690, 1032, 200),
)


def _box(rect: pygame.Rect) -> Box:
    return (rect.x, rect.y, rect.width, rect.height)


def _fit(size: tuple[int, int]) -> tuple[_Design, float, int, int]:
    width, height = size
    design = _PORTRAIT if height > width else _LANDSCAPE
    dw, dh = design.size
    scale = min(width / dw, height / dh)
    return design, scale, int((width - dw * scale) / 2), int((height - dh * scale) / 2)


@dataclass(frozen=True)
class Layout:
    """Named rectangles, in window pixels, for a window of ``size``.

    Build it with :meth:`for_window`; rebuild it when the window changes size.
    """

    size: tuple[int, int]
    scale: float
    portrait: bool
    credits: pygame.Rect
    message_bar: pygame.Rect
    dealer: pygame.Rect
    countdown_center: tuple[int, int]
    countdown_radius: int
    seats: tuple[pygame.Rect, ...]
    my_hand: pygame.Rect
    bet_spot_circles: dict[str, tuple[tuple[int, int], int]]
    action_buttons: dict[str, pygame.Rect]
    chip_tray_rect: pygame.Rect

    @classmethod
    def for_window(cls, size: tuple[int, int]) -> Layout:
        design, scale, ox, oy = _fit(size)

        def box(b: Box) -> pygame.Rect:
            x, y, w, h = b
            left, top = round(ox + x * scale), round(oy + y * scale)
            right, bottom = round(ox + (x + w) * scale), round(oy + (y + h) * scale)
            return pygame.Rect(left, top, right - left, bottom - top)

        def point(x: int, y: int) -> tuple[int, int]:
            return round(ox + x * scale), round(oy + y * scale)

        cx, cy, r = design.countdown
        return cls(
            size=(int(size[0]), int(size[1])),
            scale=scale,
            portrait=design is _PORTRAIT,
            credits=box(design.credits),
            message_bar=box(design.message_bar),
            dealer=box(design.dealer),
            countdown_center=point(cx, cy),
            countdown_radius=round(r * scale),
            seats=tuple(box(b) for b in design.seats),
            my_hand=box(design.my_hand),
            bet_spot_circles={
                spot_id: (point(x, y), round(rad * scale))
                for (spot_id, _), (x, y, rad) in zip(BET_SPOTS, design.bet_spots, strict=True)
            },
            action_buttons={
                action: box(b) for (action, _), b in zip(ACTIONS, design.buttons, strict=True)
            },
            chip_tray_rect=box(design.chip_tray),
        )

    @property
    def window(self) -> pygame.Rect:
        return pygame.Rect((0, 0), self.size)

    def seat(self, number: int) -> pygame.Rect:
        """The area of seat ``number`` (1..7)."""
        if not 1 <= number <= SEAT_COUNT:
            raise ValueError(f"seat {number} does not exist: seats are 1..{SEAT_COUNT}")
        return self.seats[number - 1]

    def buttons(self, enabled: frozenset[str] | set[str] | None = None) -> tuple[Button, ...]:
        """The action buttons; those not named in ``enabled`` are disabled (None: all on)."""
        return tuple(
            Button(
                action,
                _box(self.action_buttons[action]),
                label,
                enabled is None or action in enabled,
            )
            for action, label in ACTIONS
        )

    def bet_spots(self, amounts: dict[str, int] | None = None) -> tuple[BetSpot, ...]:
        """The betting circles with the cents staked on each."""
        amounts = amounts or {}
        return tuple(
            BetSpot(spot_id, center, radius, label, amounts.get(spot_id, 0))
            for spot_id, label in BET_SPOTS
            for center, radius in [self.bet_spot_circles[spot_id]]
        )

    def chip_tray(self, selected: int | None = None) -> ChipTray:
        return ChipTray(_box(self.chip_tray_rect), DENOMINATIONS, selected)

    def hit_test(self, pos: tuple[int, int]) -> str | None:
        """The touch target under ``pos`` with every button enabled (geometry only)."""
        return hit_test(pos, self.buttons(), self.bet_spots(), self.chip_tray())

    def named_rects(self) -> dict[str, pygame.Rect]:
        """Every named area, for tests and debugging overlays."""
        rects = {
            "credits": self.credits,
            "message_bar": self.message_bar,
            "dealer": self.dealer,
            "my_hand": self.my_hand,
            "chip_tray": self.chip_tray_rect,
            "countdown": pygame.Rect(
                self.countdown_center[0] - self.countdown_radius,
                self.countdown_center[1] - self.countdown_radius,
                2 * self.countdown_radius,
                2 * self.countdown_radius,
            ),
        }
        rects |= {f"seat{n}": rect for n, rect in enumerate(self.seats, start=1)}
        rects |= {f"button:{a}": rect for a, rect in self.action_buttons.items()}
        rects |= {f"spot:{s.id}": pygame.Rect(s.rect) for s in self.bet_spots()}
        rects |= {s.target_id: pygame.Rect(s.rect) for s in self.chip_tray().slots()}
        return rects
