"""Pieces the screens share: the table scene drawn from the model, panels, the rules button's
place, a local countdown that ticks between the server's views, and wager names.

Everything drawn here comes from the model (the server's last view); nothing here changes it.
Cards move only in the :class:`~terminal_client.render.anim.CardFrame` a screen is given
(:class:`SceneScreen`): :func:`draw_scene` without one draws every card in its place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import pygame

from shared.money import format_money
from terminal_client.model import Countdown, Hand, ProgressiveMeter, TerminalModel, View
from terminal_client.model.totals import hand_total
from terminal_client.render import Layout, draw_button, draw_countdown_ring, draw_felt, draw_hand
from terminal_client.render.anim import CardFrame, CardKey, CardMotion, dealer_key, seat_key
from terminal_client.render.draw import CREAM, GOLD, button_text_size, draw_text
from terminal_client.render.elements import element
from terminal_client.render.fonts import get_font
from terminal_client.render.layout import DESTRUCTIVE
from terminal_client.screens.base import Screen
from terminal_client.widgets import Button

#: The shared side wagers' titles (58 Pa. Code 633b.6-633b.13); each game adds its own
#: wagers' (:attr:`~terminal_client.games.api.TerminalGame.wager_titles`).
WAGER_NAMES: dict[str, str] = {
    "lucky_aces": "Lucky Aces",
    "three_card_poker": "Three Card Poker",
    "top_3": "Top 3",
    "trilux": "TriLux Deluxe",
    "super_4": "Super 4",
    "blackjack_match": "Blackjack Match",
    "blazing_7s": "Blazing 7's",
    "axman": "AxMan",
    "buster": "Buster Blackjack",
}
DIM = (150, 170, 150)


def wager_titles() -> dict[str, str]:
    """Every known wager's title: the shared side wagers', then each registered game's."""
    from terminal_client import games

    titles = dict(WAGER_NAMES)
    for game in games.games():
        titles.update(game.wager_titles)
    return titles


def wager_name(wager: str) -> str:
    """``"lucky_aces" -> "Lucky Aces"`` (a game's own wagers as it titles them),
    ``"perfect-pairs" -> "Perfect pairs"``."""
    title = wager_titles().get(wager)
    return title or wager.replace("_", " ").replace("-", " ").capitalize()


def panel(surface: pygame.Surface, rect: pygame.Rect, alpha: int = 150) -> None:
    """A dark translucent rounded panel with a gold rim."""
    rect = pygame.Rect(rect)
    shade = pygame.Surface(rect.size, pygame.SRCALPHA)
    radius = max(6, min(rect.height, rect.width) // 8)
    pygame.draw.rect(shade, (0, 0, 0, alpha), shade.get_rect(), border_radius=radius)
    surface.blit(shade, rect)
    pygame.draw.rect(surface, GOLD, rect, width=2, border_radius=radius)


def centre_panel(layout: Layout, width: int, height: int) -> pygame.Rect:
    """A panel of ``width`` x ``height`` design pixels in the middle of the window."""
    rect = pygame.Rect(0, 0, round(width * layout.scale), round(height * layout.scale))
    rect.center = layout.window.center
    return rect


class LocalCountdown:
    """The server's countdown, ticked down locally between views: a new view restarts it
    from the view's ``seconds_left`` at the time the screen first saw that view."""

    def __init__(self) -> None:
        self._view: View | None = None
        self._seen_at = 0.0
        self.seconds: int | None = None
        self.full = 1

    def update(self, model: TerminalModel, now: float) -> bool:
        view = model.view
        if view is not self._view:
            self._view = view
            self._seen_at = now
            countdown = model.countdown
            if countdown is not None and (
                self.seconds is None or countdown.seconds_left > self.seconds
            ):
                self.full = max(1, countdown.seconds_left)
        countdown = model.countdown
        seconds = (
            None if countdown is None else max(0, countdown.seconds_left - int(now - self._seen_at))
        )
        changed = seconds != self.seconds
        self.seconds = seconds
        return changed


def draw_countdown(
    surface: pygame.Surface, layout: Layout, countdown: Countdown | None, clock: LocalCountdown
) -> None:
    """The ring with the seconds left, and what happens at zero under it ("then: stand")."""
    if countdown is None or clock.seconds is None:
        return
    with element(surface, "countdown") as target:
        draw_countdown_ring(
            target,
            layout.countdown_center,
            layout.countdown_radius,
            clock.seconds / clock.full,
            str(clock.seconds),
        )
        if countdown.then:
            cx, cy = layout.countdown_center
            below = (cx, cy + layout.countdown_radius + round(6 * layout.scale))
            draw_text(
                target,
                f"then: {countdown.then}",
                below,
                round(26 * layout.scale),
                CREAM,
                "midtop",
                bold=True,
                max_width=round(layout.countdown_radius * 2.6),
            )


def draw_credits(surface: pygame.Surface, layout: Layout, credits: int | None, label: str) -> None:
    s = layout.scale
    rect = layout.credits
    with element(surface, "credits") as target:
        panel(target, rect)
        draw_text(
            target,
            label,
            (rect.left + round(18 * s), rect.centery),
            round(22 * s),
            GOLD,
            "midleft",
            bold=True,
            max_width=round(rect.width * 0.36),
        )
        text = "--" if credits is None else format_money(credits)
        draw_text(
            target,
            text,
            (rect.right - round(18 * s), rect.centery),
            round(38 * s),
            CREAM,
            "midright",
            bold=True,
            max_width=round(rect.width * 0.6),
        )


def draw_shoe_line(surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
    """The table corner's line: the shoe in use and its commitment, shown before its first
    card (``"Shoe 12 - committed 3fa9 c1e0 ..."``; ``docs/shoe-spec.md``); the rules
    screen's last page shows it in full with the last reveal."""
    view = model.view
    line = "" if view is None or view.shoe is None else view.shoe.corner_line
    if not line:
        return
    s = layout.scale
    with element(surface, "shoe") as target:
        draw_text(
            target,
            line,
            (layout.window.left + round(14 * s), layout.window.bottom - round(8 * s)),
            max(12, round(22 * s)),
            CREAM,
            "bottomleft",
        )


def draw_message(
    surface: pygame.Surface, layout: Layout, message: str, color: tuple[int, int, int] = CREAM
) -> None:
    if not message:
        return
    bar = layout.message_bar
    with element(surface, "message") as target:
        panel(target, bar)
        draw_text(
            target,
            message,
            bar.center,
            round(38 * layout.scale),
            color,
            bold=True,
            max_width=bar.width - round(30 * layout.scale),
        )


def draw_buttons(surface: pygame.Surface, buttons: Sequence[Button], name: str = "buttons") -> None:
    """A row of buttons, every label at one size; a choice that gives up a wager (FOLD,
    SURRENDER: :data:`~terminal_client.render.layout.DESTRUCTIVE`) in its own colour."""
    if not buttons:
        return
    size = button_text_size([(b.label, pygame.Rect(b.rect)) for b in buttons])
    with element(surface, name) as target:
        for button in buttons:
            draw_button(
                target,
                pygame.Rect(button.rect),
                button.label,
                button.enabled,
                danger=button.id in DESTRUCTIVE,
                text_size=size,
            )


class SceneScreen(Screen):
    """A screen that draws the table scene: before each frame the app hands it the cards in
    motion (:attr:`cards`, from the app's one
    :class:`~terminal_client.render.anim.CardAnimation`), which its ``draw`` passes on to
    :func:`draw_scene`. ``None`` (the default) draws every card in its place."""

    cards: CardFrame | None = None

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        """The table under the screen's own pieces: :func:`draw_scene` (a game whose
        table looks otherwise overrides it)."""
        draw_scene(surface, layout, self.model, cards=self.cards)


def shoe_point(layout: Layout) -> tuple[int, int]:
    """Where dealt cards start from: the shoe, at the top right of the dealer's area."""
    dealer = layout.dealer
    s = layout.scale
    return dealer.right - round(30 * s), dealer.top + round(10 * s)


def _motions(frame: CardFrame | None, keys: Sequence[CardKey]) -> tuple[CardMotion, ...] | None:
    if frame is None or not frame.moving:
        return None
    return tuple(frame.motion(key) for key in keys)


def _shown_total(
    cards: Sequence[str | None], motions: Sequence[CardMotion] | None, total: str | None
) -> str:
    """The total of the cards that have landed face up (the whole ``total`` once all have):
    a total never tells a card's value before the card is seen."""
    if motions is None or all(m.landed for m in motions):
        return total or ""
    landed = [c for c, m in zip(cards, motions, strict=True) if m.landed and c is not None]
    return hand_total(landed).text if landed else ""


def _draw_seats(
    surface: pygame.Surface, layout: Layout, view: View, frame: CardFrame | None = None
) -> None:
    """The seven seats: an empty one is a faint outline with its number; another player's
    shows his first hand small with its total and stake; this terminal's is rimmed in gold
    and says YOU with its total and stake (its cards are drawn large below, not twice)."""
    s = layout.scale
    seats = {seat.seat: seat for seat in view.seats}
    for number, area in enumerate(layout.seats, start=1):
        seat = seats.get(number)
        mine = number == view.seat
        with element(surface, f"seat {number}") as target:
            radius = max(6, area.width // 8)
            shade = pygame.Surface(area.size, pygame.SRCALPHA)
            if seat is None and not mine:
                _draw_empty_seat(target, area, shade, radius, number, s)
                continue
            pygame.draw.rect(shade, (0, 0, 0, 70), shade.get_rect(), border_radius=radius)
            target.blit(shade, area)
            rim = GOLD if mine else (200, 170, 90)
            pygame.draw.rect(target, rim, area, width=3 if mine else 1, border_radius=radius)
            draw_text(
                target,
                "YOU" if mine else f"SEAT {number}",
                (area.centerx, area.bottom - round(6 * s)),
                round(22 * s) if mine else round(20 * s),
                GOLD if mine else CREAM,
                "midbottom",
                bold=mine,
                max_width=area.width - 8,
            )
            if seat is None or not seat.hands:
                continue
            hand = seat.hands[0]
            keys = [seat_key(number, hand.index, i) for i in range(len(hand.cards))]
            motions = _motions(frame, keys)
            stake = sum(seat.wagers.values())
            total = _shown_total(hand.cards, motions, hand.total_text)
            if mine:
                hands = len(seat.hands)
                what = f"{hands} HANDS" if hands > 1 else total
                info = " \u2022 ".join(t for t in (what, format_money(stake)) if t)
                draw_text(
                    target,
                    info,
                    (area.centerx, area.centery - round(8 * s)),
                    round(26 * s),
                    CREAM,
                    bold=True,
                    max_width=area.width - 12,
                )
                continue
            hand_area = area.inflate(-round(10 * s), 0).move(0, round(10 * s))
            draw_hand(
                target,
                hand_area,
                hand.cards,
                round(area.height * 0.5),
                motions=motions,
                shoe=shoe_point(layout),
            )
            info = " \u2022 ".join(t for t in (total, format_money(stake)) if t)
            draw_text(
                target,
                info,
                (area.centerx, area.bottom - round(34 * s)),
                round(20 * s),
                GOLD,
                "midbottom",
                max_width=area.width - 8,
            )


def _draw_empty_seat(
    target: pygame.Surface,
    area: pygame.Rect,
    shade: pygame.Surface,
    radius: int,
    number: int,
    s: float,
) -> None:
    """An empty seat: a faint outline with its number."""
    pygame.draw.rect(shade, (*GOLD, 60), shade.get_rect(), 1, border_radius=radius)
    target.blit(shade, area)
    draw_text(
        target,
        f"SEAT {number}",
        (area.centerx, area.bottom - round(6 * s)),
        round(18 * s),
        DIM,
        "midbottom",
        max_width=area.width - 8,
    )


def _draw_my_hands(
    surface: pygame.Surface,
    layout: Layout,
    hands: Sequence[Hand],
    to_act: int | None,
    seat: int | None = None,
    frame: CardFrame | None = None,
) -> None:
    if not hands:
        return
    s = layout.scale
    mine = layout.my_hand
    width = mine.width // len(hands)
    for i, hand in enumerate(hands):
        area = pygame.Rect(mine.left + i * width, mine.top, width, mine.height)
        card_h = mine.height - round(10 * s) if len(hands) == 1 else round(mine.height * 0.72)
        cards_area = area.inflate(-round(130 * s), 0) if len(hands) == 1 else area
        keys = [seat_key(seat, hand.index, i) for i in range(len(hand.cards))]
        motions = _motions(frame, keys)
        covered = draw_hand(
            surface, cards_area, hand.cards, card_h, motions=motions, shoe=shoe_point(layout)
        )
        if hand.index == to_act and len(hands) > 1:
            pygame.draw.rect(
                surface,
                GOLD,
                covered.inflate(round(12 * s), round(12 * s)),
                4,
                border_radius=round(10 * s),
            )
        total = _shown_total(hand.cards, motions, hand.total_text)
        if not total:
            continue
        badge = pygame.Rect(0, 0, round(120 * s), round(56 * s))
        if len(hands) == 1:
            badge.midleft = (covered.right + round(20 * s), covered.centery)
        else:
            badge.midtop = (covered.centerx, covered.bottom + round(4 * s))
        panel(surface, badge, 190)
        draw_text(
            surface,
            total,
            badge.center,
            round(32 * s),
            CREAM,
            bold=True,
            max_width=badge.width - 8,
        )


def draw_scene(
    surface: pygame.Surface,
    layout: Layout,
    model: TerminalModel,
    *,
    cards: CardFrame | None = None,
) -> None:
    """The felt, the dealer (a hidden card as a back), the seats and this terminal's hands.

    With ``cards`` the cards in it are drawn in motion (dealt from the shoe, the hole card
    turning) and each total counts only the cards that have landed; without it (None) every
    card is drawn in its place.
    """
    s = layout.scale
    draw_felt(surface, layout.window)
    view = model.view
    dealer = layout.dealer
    with element(surface, "table printing") as target:
        for i, line in enumerate(model.game.felt_lines):  # the table printing (633b.5(c)(2))
            y = dealer.bottom + round((14 + 34 * i) * s)
            draw_text(
                target,
                line,
                (layout.window.centerx, y),
                round((30 - 6 * i) * s),
                GOLD,
                "midtop",
                bold=i == 0,
            )
    with element(surface, "dealer") as target:
        draw_text(
            target, "DEALER", (dealer.centerx, dealer.top), round(26 * s), GOLD, "midtop", True
        )
        if view is None:
            return
        dealt = view.dealer.cards
        motions = _motions(cards, [dealer_key(i) for i in range(len(dealt))])
        draw_hand(
            target,
            dealer.move(0, round(40 * s)),
            dealt,
            round(dealer.height * 0.62),
            motions=motions,
            shoe=shoe_point(layout),
        )
        total = _shown_total(dealt, motions, view.dealer.total_text)
        if total:
            draw_text(target, total, dealer.midbottom, round(28 * s), CREAM, "midbottom")
    _draw_seats(surface, layout, view, cards)
    mine = model.my_seat
    seat = None if mine is None else mine.seat
    with element(surface, "your hands") as target:
        _draw_my_hands(target, layout, model.my_hands, model.hand_to_act, seat, cards)
    draw_meters(surface, layout, view.meters)


#: The landscape meters panel, in layout units: its height (under the menu buttons, above
#: what the tables draw there), the title's band, a meter's row, a Must-Hit-By meter's row (its
#: name over what it must hit by and its amount) and the margins.
_METERS_HEIGHT: Final = 110
_METER_TITLE: Final = 24
_METER_ROW: Final = 28
_MYSTERY_ROW: Final = 46
_METER_MARGIN: Final = 4
#: The most meters the landscape panel shows (the largest).
_METER_ROWS: Final = 3


def meters_rect(layout: Layout) -> pygame.Rect:
    """Where the progressive meters show: under the menu buttons (landscape), or a band under
    the message bar (portrait)."""
    s = layout.scale
    if layout.portrait:
        bar = layout.message_bar
        right = layout.countdown_center[0] - layout.countdown_radius - round(12 * s)
        return pygame.Rect(bar.left, bar.bottom + round(6 * s), right - bar.left, round(24 * s))
    credits = layout.credits
    top = credits.bottom + round((12 + 96 + 12) * s)
    return pygame.Rect(credits.left, top, credits.width, round(_METERS_HEIGHT * s))


def draw_meters(
    surface: pygame.Surface, layout: Layout, meters: Sequence[ProgressiveMeter]
) -> None:
    """The table's progressive meters as the server last sent them (633b.6(d), 633b.9(a),
    605a.7: the progressive amounts are displayed), the largest first; a Must-Hit-By meter
    shows what it must hit by. Nothing when the table has none."""
    if not meters:
        return
    with element(surface, "meters") as target:
        _draw_meters(target, layout, meters)


def _draw_meters(
    surface: pygame.Surface, layout: Layout, meters: Sequence[ProgressiveMeter]
) -> None:
    s = layout.scale
    area = meters_rect(layout)
    shown = sorted(meters, key=lambda m: -m.amount)
    if layout.portrait:
        panel(surface, area, 150)
        text = "  \u2022  ".join(f"{m.name.upper()} {_meter_amount(m)}" for m in shown)
        draw_text(
            surface, text, area.center, round(20 * s), GOLD, bold=True, max_width=area.width - 16
        )
        return
    rows, used = _meters_that_fit(shown)
    # The title where it fits (three meters, one of them a Must-Hit-By meter, need its room).
    title = _METER_TITLE + used + _METER_MARGIN <= _METERS_HEIGHT
    top = _METER_TITLE if title else _METER_MARGIN
    area.height = round((top + used + _METER_MARGIN) * s)  # as tall as its rows
    panel(surface, area, 150)
    pad = round(12 * s)
    width = area.width - 2 * pad
    if title:
        draw_text(
            surface,
            "PROGRESSIVE",
            (area.centerx, area.top + round(4 * s)),
            round(16 * s),
            CREAM,
            "midtop",
            True,
        )
    y = area.top + round(top * s)
    for meter in rows:
        name = meter.name.replace(" Progressive", "").upper()
        amount = _meter_amount(meter)
        size = round(22 * s if meter.unavailable is None else 17 * s)
        # The name gets what the amount leaves of its line.
        beside = width - get_font(size, True).size(amount)[0] - round(10 * s)
        if meter.must_hit_by is None:
            line = y + round(_METER_ROW * s / 2)
            draw_text(
                surface,
                name,
                (area.left + pad, line),
                round(18 * s),
                CREAM,
                "midleft",
                max_width=beside,
            )
            y += round(_METER_ROW * s)
        else:
            # A Must-Hit-By meter: its name across the panel, under it what it must hit by
            # beside the amount.
            draw_text(
                surface,
                name,
                (area.left + pad, y + round(12 * s)),
                round(17 * s),
                CREAM,
                "midleft",
                max_width=width,
            )
            line = y + round(33 * s)
            draw_text(
                surface,
                f"MUST HIT BY {format_money(meter.must_hit_by)}",
                (area.left + pad, line),
                round(15 * s),
                CREAM,
                "midleft",
                max_width=beside,
            )
            y += round(_MYSTERY_ROW * s)
        color = GOLD if meter.unavailable is None else CREAM
        draw_text(surface, amount, (area.right - pad, line), size, color, "midright", True)


def _meters_that_fit(
    shown: Sequence[ProgressiveMeter],
) -> tuple[list[ProgressiveMeter], int]:
    """The first of ``shown`` (the largest), as many as fit the panel, and the height their
    rows take (a Must-Hit-By meter's row is taller)."""
    rows: list[ProgressiveMeter] = []
    used = 0
    for meter in shown[:_METER_ROWS]:
        height = _METER_ROW if meter.must_hit_by is None else _MYSTERY_ROW
        if used + height > _METERS_HEIGHT - 2 * _METER_MARGIN:
            break
        rows.append(meter)
        used += height
    return rows, used


def _meter_amount(meter: ProgressiveMeter) -> str:
    """The meter's amount, or UNAVAILABLE while the floor store holding it cannot be reached
    (no amount is shown that the store has not confirmed)."""
    return "UNAVAILABLE" if meter.unavailable is not None else format_money(meter.amount)
