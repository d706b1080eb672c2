"""Where everything goes: a 1920x1080 design grid (1080x1920 for portrait kiosks) scaled,
centred and letterboxed into the real window.

A :class:`Layout` is a value computed from the window size alone; it exposes named rectangles
in window pixels and builds the touch-target widgets from them. Touch targets are at least
:data:`MIN_TOUCH_DESIGN` design pixels, so they stay >= 64 px (about 9 mm) even at 1280x720.

Betting circles (:meth:`Layout.bet_spots`) follow the wagers the table offers: the main
wager's large circle keeps its place and each side wager (58 Pa. Code 633b.6-633b.13) gets a
smaller circle in the betting zones beside it (:func:`side_spot_circles`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

import pygame

from terminal_client.typescale import Glass
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
    ("press", "PRESS"),  # TriLux Deluxe Press, 633b.11(f)
)
#: The choices that give up a wager (633a.9 surrender, 653a.7 fold): each has the slot of
#: SURRENDER, where no harmless choice of any game ever goes, so that a tap meant for the
#: last decision's CHECK or STAND cannot give up a hand; they are drawn in a colour of their
#: own.
DESTRUCTIVE: frozenset[str] = frozenset({"surrender", "fold"})
DESTRUCTIVE_SLOT = "surrender"
#: The id of the main wager's betting circle (which wager that is, each game says:
#: :attr:`~terminal_client.games.api.TerminalGame.main_wager`).
MAIN_SPOT = "main"
#: The shared side wagers a table may offer (58 Pa. Code 633b.6-633b.13) with the short
#: label of their circle, in the order their circles are laid out (a game's own follow, in
#: the registry's order: :attr:`~terminal_client.games.api.TerminalGame.spot_labels`).
SIDE_WAGERS: tuple[tuple[str, str], ...] = (
    ("lucky_aces", "LUCKY ACES"),
    ("three_card_poker", "3 CARD POKER"),
    ("top_3", "TOP 3"),
    ("trilux", "TRILUX"),
    ("super_4", "SUPER 4"),
    ("blackjack_match", "BLACKJACK MATCH"),
    ("blazing_7s", "BLAZING 7'S"),
    ("axman", "AXMAN"),
    ("buster", "BUSTER BLACKJACK"),
)
#: The declared short names of circle labels, for a circle too small for the whole label
#: at the type scale's minimum (a game declares its own:
#: :attr:`~terminal_client.games.api.TerminalGame.spot_short`).
SPOT_SHORT: dict[str, str] = {"blackjack_match": "BJ MATCH", "buster": "BUSTER"}
#: The circles without a list of wagers (:meth:`Layout.bet_spots` with ``wagers=None``).
BET_SPOTS: tuple[tuple[str, str], ...] = (("lucky_aces", "LUCKY ACES"), (MAIN_SPOT, "BET"))
DEFAULT_WAGERS: tuple[str, ...] = ("lucky_aces",)
#: Side-wager circles: largest and smallest radius (design px; 2 x 50 > MIN_TOUCH_DESIGN),
#: the band under a circle for its staked amount, and the gaps between circles.
SIDE_RADIUS_MAX = 72
SIDE_RADIUS_MIN = 50
SIDE_AMOUNT_BAND = 30
SIDE_GAP = 16
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
    main_spot: tuple[int, int, int]  # centre x, centre y, radius
    side_zones: tuple[Box, ...]  # where side-wager circles go, nearest the main circle first
    buttons: tuple[Box, ...]  # ACTIONS order
    chip_tray: Box
    footer: Box  # the table corner's line (the shoe), under everything else


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
    main_spot=(520, 790, 95),
    # Left of the main circle, under seats 6 and 7; right of my hand (clear of its total
    # badge), under seats 1 and 2. Both end above the chip tray and the buttons.
    side_zones=((24, 650, 382, 264), (1412, 628, 484, 286)),
    buttons=_row(816, 930, 170, 124, 12, 6),
    chip_tray=(24, 920, 780, 132),
    footer=(24, 1056, 1872, 24),
)

_PORTRAIT = _Design(
    size=PORTRAIT,
    credits=(24, 16, 500, 96),
    message_bar=(24, 124, 1032, 84),
    dealer=(150, 240, 680, 280),
    countdown=(960, 320, 96),
    seats=_arc_seats(540, 640, 150, 14, 142, 170),
    my_hand=(90, 920, 900, 300),
    main_spot=(540, 1340, 115),
    # Either side of the main circle, between my hand and the buttons.
    side_zones=((24, 1228, 386, 266), (670, 1228, 386, 266)),
    buttons=_row(24, 1500, 162, 140, 12, 6),
    chip_tray=(24, 1690, 1032, 186),
    footer=(24, 1882, 1032, 32),
)


def _known_spots() -> tuple[tuple[str, str], ...]:
    """Every known side wager's circle label, in circle order: the shared ones, then each
    registered game's own."""
    from terminal_client import games

    return (*SIDE_WAGERS, *(label for game in games.games() for label in game.spot_labels))


def _main_wagers() -> frozenset[str]:
    """The wagers behind a main circle, every registered game's."""
    from terminal_client import games

    return frozenset(game.main_wager for game in games.games() if game.main_wager is not None)


def spot_short(wager: str) -> str:
    """The declared short name of a wager's circle label ("" when it has none)."""
    from terminal_client import games

    short = dict(SPOT_SHORT)
    for game in games.games():
        short.update(game.spot_short)
    return short.get(wager, "")


def spot_label(wager: str) -> str:
    """The short label of a wager's circle: ``"three_card_poker" -> "3 CARD POKER"``, a
    game's main wager ``"BET"``; a wager this terminal does not know shows its name
    upper-cased, underscores as spaces."""
    if wager in _main_wagers():
        return "BET"
    known = dict(_known_spots())
    return known.get(wager) or wager.replace("_", " ").replace("-", " ").upper()


def side_wagers(wagers: Iterable[str]) -> tuple[str, ...]:
    """The side wagers among ``wagers`` in circle order: the known ones in their order (the
    shared :data:`SIDE_WAGERS`, then each game's own), then any others by name; a game's
    main wager has the main circle."""
    names = set(wagers) - _main_wagers()
    known = [wager for wager, _ in _known_spots() if wager in names]
    return (*known, *sorted(names - set(known)))


def _spread(total: int, used: int, count: int, most: int) -> int:
    """The gap between ``count`` things using ``used`` of ``total``: even, at most ``most``."""
    return 0 if count < 2 else max(0, min(most, (total - used) // (count - 1)))


@lru_cache(maxsize=64)
def side_spot_circles(
    zones: tuple[Box, ...], wagers: tuple[str, ...]
) -> tuple[tuple[str, int, int, int], ...]:
    """(wager, centre x, centre y, radius) of each side wager's circle, in design pixels.

    The rule: take the largest radius from :data:`SIDE_RADIUS_MAX` down to
    :data:`SIDE_RADIUS_MIN` at which a grid of cells (the circle with a band under it for
    the amount) in the ``zones`` holds every wager; share the wagers out between the zones
    in proportion to what each holds (the first wagers to the first zone), and centre
    each zone's rows of circles in it. Cells never overlap and never leave their zone, so
    the circles keep clear of everything the zones keep clear of. Should even the smallest
    radius not hold them all, the radius shrinks further rather than a wager being lost.
    """
    count = len(wagers)
    if count == 0 or not zones:
        return ()

    def grid(radius: int, zone: Box) -> tuple[int, int]:
        cell_h = 2 * radius + SIDE_AMOUNT_BAND
        cols = max(0, (zone[2] + SIDE_GAP) // (2 * radius + SIDE_GAP))
        rows = max(0, (zone[3] + 4) // (cell_h + 4))
        return cols, rows

    radius = SIDE_RADIUS_MAX
    while radius > 8 and sum(c * r for c, r in (grid(radius, z) for z in zones)) < count:
        radius -= 2
    grids = [grid(radius, zone) for zone in zones]
    capacity = [cols * rows for cols, rows in grids]
    shares = [0] * len(zones)
    for _ in range(count):
        open_ = [i for i, cap in enumerate(capacity) if shares[i] < cap] or [0]
        i = min(open_, key=lambda i: (shares[i] / max(1, capacity[i]), i))
        shares[i] += 1

    circles: list[tuple[str, int, int, int]] = []
    names = iter(wagers)
    cell_h = 2 * radius + SIDE_AMOUNT_BAND
    for (x, y, w, h), (cols, _), share in zip(zones, grids, shares, strict=True):
        if share == 0:
            continue
        cols = max(1, cols)
        rows = math.ceil(share / cols)
        row_gap = _spread(h, rows * cell_h, rows, 24)
        top = y + (h - rows * cell_h - (rows - 1) * row_gap) // 2
        for row in range(rows):
            in_row = share // rows + (1 if row < share % rows else 0)
            gap = _spread(w, cols * 2 * radius, cols, 40)
            left = x + (w - in_row * 2 * radius - (in_row - 1) * gap) // 2
            cy = top + row * (cell_h + row_gap) + radius
            for col in range(in_row):
                cx = left + col * (2 * radius + gap) + radius
                circles.append((next(names), cx, cy, radius))
    return tuple(circles)


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
    #: The circles of :data:`DEFAULT_WAGERS` (see :meth:`spot_circles` for any others).
    bet_spot_circles: dict[str, tuple[tuple[int, int], int]]
    action_buttons: dict[str, pygame.Rect]
    chip_tray_rect: pygame.Rect
    #: The table corner's line (the shoe in use), a band under everything else.
    footer: pygame.Rect
    #: Where the design grid's (0, 0) falls in the window.
    origin: tuple[int, int] = (0, 0)
    #: The least font size of any text a player must read, in window pixels (the type
    #: scale: :mod:`terminal_client.typescale`).
    min_text: int = 8

    @classmethod
    def for_window(cls, size: tuple[int, int], glass: Glass | None = None) -> Layout:
        """The layout of a window of ``size`` on ``glass`` (default: a
        :class:`~terminal_client.typescale.Glass` of the default diagonal that the
        window fills)."""
        design, scale, ox, oy = _fit(size)

        def box(b: Box) -> pygame.Rect:
            x, y, w, h = b
            left, top = round(ox + x * scale), round(oy + y * scale)
            right, bottom = round(ox + (x + w) * scale), round(oy + (y + h) * scale)
            return pygame.Rect(left, top, right - left, bottom - top)

        def point(x: int, y: int) -> tuple[int, int]:
            return round(ox + x * scale), round(oy + y * scale)

        cx, cy, r = design.countdown
        layout = cls(
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
            bet_spot_circles={},
            action_buttons={
                action: box(b) for (action, _), b in zip(ACTIONS, design.buttons, strict=True)
            },
            chip_tray_rect=box(design.chip_tray),
            footer=box(design.footer),
            origin=(ox, oy),
            min_text=(glass or Glass()).min_text_px((int(size[0]), int(size[1]))),
        )
        return replace(layout, bet_spot_circles=layout.spot_circles(DEFAULT_WAGERS))

    @property
    def window(self) -> pygame.Rect:
        return pygame.Rect((0, 0), self.size)

    def text(self, design: float) -> int:
        """The font size, in window pixels, of a text of ``design`` pixels on the design
        grid: scaled with the window, never below :attr:`min_text`."""
        return max(self.min_text, round(design * self.scale))

    def design_rect(self, box: Box) -> pygame.Rect:
        """A rectangle of the design grid (x, y, width, height in design pixels) in window
        pixels, as every named area is placed."""
        x, y, w, h = box
        ox, oy = self.origin
        s = self.scale
        left, top = round(ox + x * s), round(oy + y * s)
        return pygame.Rect(left, top, round(ox + (x + w) * s) - left, round(oy + (y + h) * s) - top)

    def seat(self, number: int) -> pygame.Rect:
        """The area of seat ``number`` (1..7)."""
        if not 1 <= number <= SEAT_COUNT:
            raise ValueError(f"seat {number} does not exist: seats are 1..{SEAT_COUNT}")
        return self.seats[number - 1]

    def buttons(
        self,
        enabled: frozenset[str] | set[str] | None = None,
        shown: frozenset[str] | set[str] | None = None,
    ) -> tuple[Button, ...]:
        """The action buttons of the actions ``shown`` (None: all), each in its own slot;
        those not named in ``enabled`` are disabled (None: all on)."""
        return tuple(
            Button(
                action,
                _box(self.action_buttons[action]),
                label,
                enabled is None or action in enabled,
            )
            for action, label in ACTIONS
            if shown is None or action in shown
        )

    def spot_circles(
        self, wagers: Iterable[str] | None = None
    ) -> dict[str, tuple[tuple[int, int], int]]:
        """Spot id -> (centre, radius) in window pixels: ``"main"`` for the main wager and one
        circle per side wager among ``wagers`` (its name is its spot id); None: the default
        arrangement (:data:`DEFAULT_WAGERS`)."""
        design = _PORTRAIT if self.portrait else _LANDSCAPE
        names = side_wagers(DEFAULT_WAGERS if wagers is None else wagers)
        ox, oy = self.origin
        s = self.scale

        def circle(x: int, y: int, r: int) -> tuple[tuple[int, int], int]:
            return (round(ox + x * s), round(oy + y * s)), round(r * s)

        circles = {
            wager: circle(x, y, r) for wager, x, y, r in side_spot_circles(design.side_zones, names)
        }
        circles[MAIN_SPOT] = circle(*design.main_spot)
        return circles

    def bet_spots(
        self, amounts: dict[str, int] | None = None, wagers: Iterable[str] | None = None
    ) -> tuple[BetSpot, ...]:
        """The betting circles with the cents staked on each (``amounts`` by spot id): the
        side wagers among ``wagers`` in :func:`side_wagers` order, then the main circle.
        ``wagers`` is what the table offers (the keys of the server's limits); None gives
        the default arrangement, Lucky Aces and the main circle."""
        amounts = amounts or {}
        return tuple(
            BetSpot(
                spot_id,
                center,
                radius,
                "BET" if spot_id == MAIN_SPOT else spot_label(spot_id),
                amounts.get(spot_id, 0),
                short="" if spot_id == MAIN_SPOT else spot_short(spot_id),
            )
            for spot_id, (center, radius) in self.spot_circles(wagers).items()
        )

    def chip_tray(self, selected: int | None = None) -> ChipTray:
        return ChipTray(_box(self.chip_tray_rect), DENOMINATIONS, selected)

    def hit_test(self, pos: tuple[int, int], wagers: Iterable[str] | None = None) -> str | None:
        """The touch target under ``pos`` with every button enabled (geometry only)."""
        return hit_test(pos, self.buttons(), self.bet_spots(wagers=wagers), self.chip_tray())

    def named_rects(self, wagers: Iterable[str] | None = None) -> dict[str, pygame.Rect]:
        """Every named area, for tests and debugging overlays (the betting circles of
        ``wagers``, as for :meth:`bet_spots`)."""
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
        rects |= {f"spot:{s.id}": pygame.Rect(s.rect) for s in self.bet_spots(wagers=wagers)}
        rects |= {s.target_id: pygame.Rect(s.rect) for s in self.chip_tray().slots()}
        return rects
