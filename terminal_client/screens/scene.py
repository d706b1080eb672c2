"""Pieces the screens share: the table scene drawn from the model, panels, the rules button's
place, a local countdown that ticks between the server's views, and wager names.

Everything drawn here comes from the model (the server's last view); nothing here changes it.
Cards move only in the :class:`~terminal_client.render.anim.CardFrame` a screen is given
(:class:`SceneScreen`): :func:`draw_scene` without one draws every card in its place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import pygame

from shared.money import format_money
from terminal_client.model import Countdown, Hand, ProgressiveMeter, Seat, TerminalModel, View
from terminal_client.model.totals import hand_total
from terminal_client.render import Layout, draw_button, draw_countdown_ring, draw_felt, draw_hand
from terminal_client.render.anim import CardFrame, CardKey, CardMotion, dealer_key, seat_key
from terminal_client.render.draw import CREAM, GOLD, button_text_size, draw_text, fit_lines
from terminal_client.render.elements import element
from terminal_client.render.fonts import get_font
from terminal_client.render.layout import DESTRUCTIVE
from terminal_client.screens.base import Screen
from terminal_client.widgets import Button

if TYPE_CHECKING:
    from terminal_client.model.state import ModelGame

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


def wager_titles(game: ModelGame | None = None) -> dict[str, str]:
    """The titles of ``game``'s wagers: the shared side wagers', then its own (two games may
    title one wager name each their own way: Caribbean Stud's and UTH's Five Card bonus).
    Without a game, every registered game's (for words that are to be left out of a
    reason whatever the game)."""
    from terminal_client import games

    titles = dict(WAGER_NAMES)
    for each in games.games() if game is None else (game,):
        titles.update(each.wager_titles)
    return titles


def money(cents: int | None) -> str:
    """``"$12.50"``; ``"--"`` for an amount the log does not hold."""
    return "--" if cents is None else format_money(cents)


def wager_name(wager: str, game: ModelGame | None = None) -> str:
    """``"lucky_aces" -> "Lucky Aces"`` (``game``'s own wagers as it titles them),
    ``"perfect-pairs" -> "Perfect pairs"``."""
    title = wager_titles(game).get(wager)
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
            room = round(layout.countdown_radius * 2.6)
            lines, size = fit_lines(
                f"then: {countdown.then}", layout.text(26), layout.min_text, room, bold=True
            )
            pitch = get_font(size, True).get_linesize()
            for i, line in enumerate(lines):
                draw_text(
                    target,
                    line,
                    (cx, below[1] + i * pitch),
                    size,
                    CREAM,
                    "midtop",
                    bold=True,
                    max_width=room,
                    least=layout.min_text,
                )


def draw_dealer_title(surface: pygame.Surface, layout: Layout) -> None:
    """ "DEALER" over the dealer's place, on the type scale."""
    area = layout.dealer
    draw_text(
        surface,
        "DEALER",
        (area.centerx, area.top),
        layout.text(26),
        GOLD,
        "midtop",
        True,
        least=layout.min_text,
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
            layout.text(22),
            GOLD,
            "midleft",
            bold=True,
            max_width=round(rect.width * 0.36),
            least=layout.min_text,
        )
        text = "--" if credits is None else format_money(credits)
        draw_text(
            target,
            text,
            (rect.right - round(18 * s), rect.centery),
            layout.text(38),
            CREAM,
            "midright",
            bold=True,
            max_width=round(rect.width * 0.6),
            least=layout.min_text,
        )


def draw_shoe_line(surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
    """The table corner's line: the shoe in use and its commitment, shown before its first
    card (``"Shoe 12 - committed 3fa9 c1e0 ..."``; ``docs/shoe-spec.md``); the rules
    screen's last page shows it in full with the last reveal."""
    view = model.view
    line = "" if view is None or view.shoe is None else view.shoe.corner_line
    if not line:
        return
    footer = layout.footer
    with element(surface, "shoe") as target:
        draw_text(
            target,
            line,
            footer.midleft,
            layout.text(18),
            CREAM,
            "midleft",
            max_width=footer.width,
            least=layout.min_text,
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
            layout.text(38),
            color,
            bold=True,
            max_width=bar.width - round(30 * layout.scale),
            least=layout.min_text,
        )


def draw_buttons(
    surface: pygame.Surface, layout: Layout, buttons: Sequence[Button], name: str = "buttons"
) -> None:
    """A row of buttons, every label at the one size of every game's buttons
    (:func:`~terminal_client.render.draw.button_text_size`); a choice that gives up a wager
    (FOLD, SURRENDER: :data:`~terminal_client.render.layout.DESTRUCTIVE`) in its own
    colour."""
    if not buttons:
        return
    size = button_text_size(layout)
    if name == "menu":
        # The menu's row: the size at which its own longest word fits its buttons.
        rect = min((pygame.Rect(b.rect) for b in buttons), key=lambda r: r.width)
        longest = max((w for b in buttons for w in b.label.split()), key=len)
        size = min(size, button_text_size(layout, rect, longest))
    with element(surface, name) as target:
        for button in buttons:
            draw_button(
                target,
                pygame.Rect(button.rect),
                button.label,
                button.enabled,
                danger=button.id in DESTRUCTIVE,
                text_size=size,
                least=layout.min_text,
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


def at_risk(seat: Seat) -> int:
    """What a seat has at risk in the round, in cents: its wagers, and every hand's own
    wagers where its hands carry them (a split's second wager, a double), each counted
    once (the main wager is a hand's after the deal)."""
    in_hands = {wager for hand in seat.hands for wager in hand.wagers}
    return sum(c for w, c in seat.wagers.items() if w not in in_hands) + sum(
        sum(hand.wagers.values()) for hand in seat.hands
    )


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
                _draw_empty_seat(target, area, shade, radius, number, layout)
                continue
            pygame.draw.rect(shade, (0, 0, 0, 70), shade.get_rect(), border_radius=radius)
            target.blit(shade, area)
            rim = GOLD if mine else (200, 170, 90)
            pygame.draw.rect(target, rim, area, width=3 if mine else 1, border_radius=radius)
            draw_text(
                target,
                "YOU" if mine else f"SEAT {number}",
                (area.centerx, area.bottom - round(6 * s)),
                layout.text(22) if mine else layout.text(20),
                GOLD if mine else CREAM,
                "midbottom",
                bold=mine,
                max_width=area.width - 8,
                least=layout.min_text,
            )
            if seat is None or not seat.hands:
                continue
            hand = seat.hands[0]
            keys = [seat_key(number, hand.index, i) for i in range(len(hand.cards))]
            motions = _motions(frame, keys)
            stake = at_risk(seat)
            total = _shown_total(hand.cards, motions, hand.total_text)
            if mine:
                what = f"{len(seat.hands)} HANDS" if len(seat.hands) > 1 else total
                _draw_my_seat_line(target, layout, area, what, stake)
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
                layout.text(20),
                GOLD,
                "midbottom",
                max_width=area.width - 8,
                least=layout.min_text,
            )


def _draw_my_seat_line(
    target: pygame.Surface, layout: Layout, area: pygame.Rect, what: str, stake: int
) -> None:
    """This terminal's seat box: its total (or how many hands) and the total at risk, on as
    many lines as fit the box."""
    info = " \u2022 ".join(t for t in (what, format_money(stake)) if t)
    lines, size = fit_lines(info, layout.text(26), layout.min_text, area.width - 12, bold=True)
    pitch = get_font(size, True).get_linesize()
    top = area.centery - round(8 * layout.scale) - pitch * len(lines) // 2
    for i, line in enumerate(lines):
        draw_text(
            target,
            line,
            (area.centerx, top + i * pitch),
            size,
            CREAM,
            "midtop",
            bold=True,
            max_width=area.width - 12,
            least=layout.min_text,
        )


def _draw_empty_seat(
    target: pygame.Surface,
    area: pygame.Rect,
    shade: pygame.Surface,
    radius: int,
    number: int,
    layout: Layout,
) -> None:
    """An empty seat: a faint outline with its number."""
    pygame.draw.rect(shade, (*GOLD, 60), shade.get_rect(), 1, border_radius=radius)
    target.blit(shade, area)
    draw_text(
        target,
        f"SEAT {number}",
        (area.centerx, area.bottom - round(6 * layout.scale)),
        layout.text(18),
        DIM,
        "midbottom",
        max_width=area.width - 8,
        least=layout.min_text,
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
            layout.text(32),
            CREAM,
            bold=True,
            max_width=badge.width - 8,
            least=layout.min_text,
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
                layout.text(30 - 6 * i),
                GOLD,
                "midtop",
                bold=i == 0,
                max_width=layout.dealer.width,
                least=layout.min_text,
            )
    with element(surface, "dealer") as target:
        draw_dealer_title(target, layout)
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
            draw_text(
                target,
                total,
                dealer.midbottom,
                layout.text(28),
                CREAM,
                "midbottom",
                least=layout.min_text,
            )
    _draw_seats(surface, layout, view, cards)
    mine = model.my_seat
    seat = None if mine is None else mine.seat
    with element(surface, "your hands") as target:
        _draw_my_hands(target, layout, model.my_hands, model.hand_to_act, seat, cards)
    draw_meters(surface, layout, view.meters)


#: The landscape meters panel, in layout units: its height (under the menu buttons, above
#: what the tables draw there) and its margins.
_METERS_HEIGHT: Final = 110
_METER_MARGIN: Final = 4
#: Meter names in plain words where the server's are the paytable's code names (Super 4's
#: Star, Heart and Spade Progressives, 633b.10: what each one pays for).
METER_NAMES: Final[dict[str, str]] = {
    "Star Progressive": "Super 4 royal, your suit",
    "Heart Progressive": "Super 4 royal, other suit",
    "Spade Progressive": "Super 4 three of a kind",
}


def meter_name(meter: ProgressiveMeter) -> str:
    """A meter's name as the panel says it, in plain words and capitals
    (``"Star Progressive"`` -> ``"SUPER 4 ROYAL, YOUR SUIT"``, ``"Progressive Payout"``
    stays, ``"Blazing 7's Progressive"`` -> ``"BLAZING 7'S"``)."""
    name = METER_NAMES.get(meter.name, meter.name)
    if name.endswith(" Progressive"):
        name = name.removesuffix(" Progressive")
    return name.removesuffix(" meter").upper()


def meters_rect(layout: Layout) -> pygame.Rect:
    """Where the progressive meters show: under the menu buttons (landscape), or a band under
    the message bar (portrait)."""
    s = layout.scale
    if layout.portrait:
        bar = layout.message_bar
        right = layout.countdown_center[0] - layout.countdown_radius - round(12 * s)
        height = get_font(layout.text(18), True).get_linesize() + round(4 * s)
        top = bar.bottom + round(4 * s)
        height = min(height, layout.dealer.top - top)
        return pygame.Rect(bar.left, top, right - bar.left, height)
    credits = layout.credits
    top = credits.bottom + round((12 + 96 + 12) * s)
    return pygame.Rect(credits.left, top, credits.width, round(_METERS_HEIGHT * s))


def draw_meters(
    surface: pygame.Surface, layout: Layout, meters: Sequence[ProgressiveMeter]
) -> None:
    """The table's progressive meters as the server last sent them (633b.6(d), 633b.9(a),
    605a.7: the progressive amounts are displayed), the largest first, each named in plain
    words; a Must-Hit-By meter shows what it must hit by. Nothing when the table has none."""
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
    least = layout.min_text
    if layout.portrait:
        _draw_meters_in_a_line(surface, layout, area, shown)
        return
    name_size = layout.text(17)
    amount_size = layout.text(22)
    row = max(get_font(name_size).get_linesize(), get_font(amount_size, True).get_linesize())
    small = get_font(name_size).get_linesize()
    margin = round(_METER_MARGIN * s)
    title_h = get_font(layout.text(16), True).get_linesize()
    room = area.height - 2 * margin
    rows, used = _meters_that_fit(shown, row, small, room)
    title = title_h + used <= room
    area.height = margin * 2 + used + (title_h if title else 0)  # as tall as its rows
    panel(surface, area, 150)
    pad = round(12 * s)
    width = area.width - 2 * pad
    y = area.top + margin
    if title:
        draw_text(
            surface,
            "PROGRESSIVE",
            (area.centerx, y),
            layout.text(16),
            CREAM,
            "midtop",
            True,
            least=least,
        )
        y += title_h
    for meter in rows:
        amount = _meter_amount(meter)
        size = amount_size if meter.unavailable is None else name_size
        # The name gets what the amount leaves of its line.
        beside = width - get_font(size, True).size(amount)[0] - round(10 * s)
        line = y + row // 2
        if meter.must_hit_by is None:
            draw_text(
                surface,
                meter_name(meter),
                (area.left + pad, line),
                name_size,
                CREAM,
                "midleft",
                max_width=beside,
                least=least,
            )
            y += row
        else:
            line = y + small + row // 2
            where = (area.left + pad, y)
            _draw_mystery_name(surface, layout, meter, where, (small, line), (width, beside))
            y += row + small
        color = GOLD if meter.unavailable is None else CREAM
        draw_text(
            surface, amount, (area.right - pad, line), size, color, "midright", True, least=least
        )


def _draw_meters_in_a_line(
    surface: pygame.Surface,
    layout: Layout,
    area: pygame.Rect,
    shown: Sequence[ProgressiveMeter],
) -> None:
    """The meters of a portrait screen, in one line across its panel: the largest, as many
    as fit."""
    panel(surface, area, 150)
    size = layout.text(18)
    text = "  \u2022  ".join(f"{meter_name(m)} {_meter_amount(m)}" for m in shown)
    while shown and get_font(size, True).size(text)[0] > area.width - 16:
        shown = shown[:-1]
        text = "  \u2022  ".join(f"{meter_name(m)} {_meter_amount(m)}" for m in shown)
    draw_text(
        surface,
        text,
        area.center,
        size,
        GOLD,
        bold=True,
        max_width=area.width - 16,
        least=layout.min_text,
    )


def _draw_mystery_name(
    surface: pygame.Surface,
    layout: Layout,
    meter: ProgressiveMeter,
    where: tuple[int, int],
    heights: tuple[int, int],
    widths: tuple[int, int],
) -> None:
    """A Must-Hit-By meter's name across the panel from ``where`` (its line ``small`` high),
    and under it what it must hit by, beside the amount on ``line``, in ``beside``."""
    (left, top), (small, line), (width, beside) = where, heights, widths
    assert meter.must_hit_by is not None  # only a Must-Hit-By meter's row is drawn so
    size = layout.text(17)
    draw_text(
        surface,
        meter_name(meter),
        (left, top + small // 2),
        size,
        CREAM,
        "midleft",
        max_width=width,
        least=layout.min_text,
    )
    draw_text(
        surface,
        f"MUST HIT BY {format_money(meter.must_hit_by)}",
        (left, line),
        size,
        CREAM,
        "midleft",
        max_width=beside,
        least=layout.min_text,
    )


def _meters_that_fit(
    shown: Sequence[ProgressiveMeter], row: int, small: int, room: int
) -> tuple[list[ProgressiveMeter], int]:
    """The first of ``shown`` (the largest), as many as fit ``room`` pixels, and the height
    their rows take (a Must-Hit-By meter's row is ``small`` taller: what it must hit by)."""
    rows: list[ProgressiveMeter] = []
    used = 0
    for meter in shown:
        height = row if meter.must_hit_by is None else row + small
        if used + height > room:
            break
        rows.append(meter)
        used += height
    return rows, used


def _meter_amount(meter: ProgressiveMeter) -> str:
    """The meter's amount, or UNAVAILABLE while the floor store holding it cannot be reached
    (no amount is shown that the store has not confirmed)."""
    return "UNAVAILABLE" if meter.unavailable is not None else format_money(meter.amount)
