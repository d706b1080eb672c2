"""The screens the ante-versus-dealer poker tables share on the terminal (Four Card Poker,
Caribbean Stud Poker): their layout (this terminal's cards in the middle, the main circles in
a column beside them, the bonus circles on the other side, the results panel where the main
circles and the buttons were), the dealer's and this terminal's cards, and the betting, play
and results screens each table's own extend (:class:`PokerBettingScreen`,
:class:`PokerPlayScreen`, :class:`PokerResultsScreen`, picked by :func:`poker_screen_for`).

A family package: no game of its own, registered nowhere.

Entry points: :func:`poker_screen_for`, :class:`PokerBettingScreen`,
:class:`PokerPlayScreen`, :class:`PokerResultsScreen`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Protocol

import pygame

from shared.money import format_money
from terminal_client.model import Countdown, IntentKind, TerminalModel
from terminal_client.model.view import SeatedView, View
from terminal_client.render import Layout, draw_hand
from terminal_client.render.anim import CardFrame, dealer_key, seat_key
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.layout import side_spot_circles
from terminal_client.render.table import CARD_ASPECT, hand_rects
from terminal_client.screens.base import Screen
from terminal_client.screens.overlay import menu_buttons
from terminal_client.screens.scene import (
    _motions,
    draw_buttons,
    draw_countdown,
    draw_credits,
    draw_dealer_title,
    draw_message,
    shoe_point,
)
from terminal_client.screens.status import AttractScreen
from terminal_client.screens.table import BettingScreen, PlayScreen, ResultsScreen, betting_open
from terminal_client.widgets import BetSpot

__all__ = [
    "PokerBettingScreen",
    "PokerPlayScreen",
    "PokerResultsScreen",
    "PokerView",
    "amounts_note",
    "draw_bonus_title",
    "draw_dealer_cards",
    "draw_player_cards",
    "felt_line_point",
    "fitted_height",
    "hand_area",
    "poker_screen_for",
    "results_area",
    "shown_countdown",
    "spot_circles",
]

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class _Design:
    hand: Box
    main_zone: Box
    bonus_zone: Box
    results: Box
    felt_line: tuple[int, int]


#: Design pixels of the 1920x1080 grid (landscape) and the 1080x1920 one (portrait); the
#: dealer, menu, credits, message bar, countdown, meters, chip tray and buttons stay where
#: :class:`~terminal_client.render.layout.Layout` puts them.
_LANDSCAPE = _Design(
    # Between the progressive circles and the main ones, clear of the results panel.
    hand=(480, 420, 960, 280),
    # A column under the countdown, as on the felt: Aces Up, Ante, Play.
    main_zone=(1560, 330, 260, 580),
    # Under the meters.
    bonus_zone=(24, 350, 440, 560),
    # The main circles' and the buttons' place (the results screen has neither).
    results=(1456, 330, 440, 724),
    felt_line=(960, 372),
)
_PORTRAIT = _Design(
    hand=(24, 580, 1032, 330),
    main_zone=(560, 930, 496, 290),
    bonus_zone=(24, 930, 520, 290),
    results=(24, 930, 1032, 740),
    felt_line=(540, 540),
)


def _design(layout: Layout) -> _Design:
    return _PORTRAIT if layout.portrait else _LANDSCAPE


def hand_area(layout: Layout) -> pygame.Rect:
    """Where this terminal's five cards and its hand's name go."""
    return layout.design_rect(_design(layout).hand)


def felt_line_point(layout: Layout) -> tuple[int, int]:
    """Where the table printing's line hangs from (window pixels, its top middle)."""
    x, y = _design(layout).felt_line
    return (round(layout.origin[0] + x * layout.scale), round(layout.origin[1] + y * layout.scale))


def results_area(layout: Layout) -> pygame.Rect:
    """Where the results panel goes."""
    return layout.design_rect(_design(layout).results)


def spot_circles(
    layout: Layout,
    wagers: Sequence[str],
    main: Sequence[str],
    bonus: Sequence[str],
) -> dict[str, tuple[tuple[int, int], int]]:
    """Wager -> (centre, radius) in window pixels of the circles of ``wagers`` (the ``main``
    ones in their column, the ``bonus`` ones in their zone), laid out as every table's side
    circles are (:func:`~terminal_client.render.layout.side_spot_circles`)."""
    d = _design(layout)
    ox, oy = layout.origin
    s = layout.scale
    out = {}
    for zone, group in ((d.main_zone, main), (d.bonus_zone, bonus)):
        shown = tuple(w for w in group if w in wagers)
        for wager, x, y, r in side_spot_circles((zone,), shown):
            out[wager] = ((round(ox + x * s), round(oy + y * s)), round(r * s))
    return out


def amounts_note(view: View, wager: str, fixed: Sequence[int]) -> str:
    """What a wager's circle says under its label: its ``fixed`` amounts ("$1 / $5") if it
    takes only those, else its limits in the view ("$5 \u2013 $500"; nothing without)."""
    if fixed:
        return " / ".join(format_money(a).removesuffix(".00") for a in fixed)
    limits = view.limits.get(wager)
    if limits is None:
        return ""
    low, high = (format_money(c).removesuffix(".00") for c in (limits.minimum, limits.maximum))
    return f"{low} \u2013 {high}"


def draw_bonus_title(
    surface: pygame.Surface,
    layout: Layout,
    spots: Sequence[BetSpot],
    wagers: Sequence[str],
    title: str,
) -> None:
    """``title`` over the circles of ``wagers`` (the progressive ones) among ``spots`` (if
    any)."""
    s = layout.scale
    bonus = [spot for spot in spots if spot.id in wagers]
    if not bonus:
        return
    top = min(spot.center[1] - spot.radius for spot in bonus) - round(12 * s)
    zone = layout.design_rect(_design(layout).bonus_zone)
    draw_text(
        surface,
        title,
        (zone.centerx, top),
        layout.text(24),
        GOLD,
        "midbottom",
        True,
        zone.width,
        least=layout.min_text,
    )


def fitted_height(width: int, count: int, most: int, gap: int) -> int:
    """The height of ``count`` cards side by side ``gap`` apart in ``width`` (at most
    ``most``): none overlaps another, whatever the window's shape."""
    return min(most, int((width - (count - 1) * gap) / max(1, count) * CARD_ASPECT))


def draw_dealer_cards(
    surface: pygame.Surface,
    layout: Layout,
    cards: tuple[str | None, ...],
    hand: str | None,
    frame: CardFrame | None,
    room: int,
) -> None:
    """The dealer's cards (``None`` face down), sized for ``room`` cards side by side, and
    once every card has landed face up his hand's name ``hand`` ("DEALER HAS PAIR")."""
    s = layout.scale
    area = layout.dealer
    draw_dealer_title(surface, layout)
    motions = _motions(frame, [dealer_key(i) for i in range(len(cards))])
    gap = round(8 * s)
    card_h = fitted_height(area.width, room, round(area.height * 0.62), gap)
    cards_area = area.move(0, round(40 * s))
    draw_hand(surface, cards_area, cards, card_h, motions=motions, shoe=shoe_point(layout), gap=gap)
    if hand and (motions is None or all(m.landed for m in motions)):
        draw_text(
            surface,
            f"DEALER HAS {hand.upper()}",
            area.midbottom,
            layout.text(26),
            CREAM,
            "midbottom",
            bold=True,
            max_width=area.width,
            least=layout.min_text,
        )


def draw_player_cards(
    surface: pygame.Surface,
    layout: Layout,
    seat: int | None,
    cards: tuple[str | None, ...],
    hand: str | None,
    folded: bool,
    frame: CardFrame | None,
) -> None:
    """This terminal's cards large in :func:`hand_area` (dimmed once ``folded``), titled
    with its hand's name ``hand`` once they have landed."""
    s = layout.scale
    area = hand_area(layout)
    motions = _motions(frame, [seat_key(seat, 0, i) for i in range(len(cards))])
    landed = motions is None or all(m.landed for m in motions)
    title = "YOUR CARDS"
    if folded:
        title += " \u2022 FOLDED"
    elif hand and landed:
        title += f" \u2022 {hand.upper()}"
    draw_text(
        surface,
        title,
        (area.centerx, area.top),
        layout.text(26),
        GOLD,
        "midtop",
        True,
        max_width=area.width,
        least=layout.min_text,
    )
    cards_area = pygame.Rect(area.left, area.top + round(38 * s), area.width, area.height)
    gap = round(14 * s)
    card_h = fitted_height(area.width, len(cards), area.height - round(48 * s), gap)
    draw_hand(surface, cards_area, cards, card_h, motions=motions, shoe=shoe_point(layout), gap=gap)
    if folded and landed:
        for rect in hand_rects(cards_area, len(cards), card_h, gap):
            veil = pygame.Surface(rect.size, pygame.SRCALPHA)
            veil.fill((0, 0, 0, 110))
            surface.blit(veil, rect)


def poker_screen_for(
    model: TerminalModel,
    table: SeatedView,
    betting: type[Screen],
    play: type[Screen],
    results: type[Screen],
) -> type[Screen]:
    """The base screen of a poker table whose players decide once against the dealer (Four
    Card Poker, Caribbean Stud) for its view ``table``: its ``betting``, ``play`` or
    ``results`` screen, or the attract screen without credits or wagers."""
    if betting_open(model):
        if not model.credits and not table.joined and not model.pending:
            return AttractScreen
        return betting
    if table.joined and table.view.settlements and not table.deciding:
        return results
    if table.joined:
        return play
    if not model.credits:
        return AttractScreen
    return betting  # a round is on without this terminal: "no more bets"


def shown_countdown(model: TerminalModel) -> Countdown | None:
    """The countdown as this terminal shows it: the decision countdown says what it will do
    ("then: fold") only to a seat still to decide."""
    countdown = model.countdown
    if countdown is None or countdown.kind != "decision" or model.my_turn:
        return countdown
    return replace(countdown, then=None)


class PokerBettingScreen(BettingScreen):
    """Betting at an ante-versus-dealer poker table: chips on the circles that take any
    amount up to their limits, a circle of fixed amounts stepping through them (past the
    largest it comes off); the decision's circle is drawn but never a betting spot; DEAL
    sends ONE PlaceWagers. A table's screen says its circles (:meth:`circles`), their fixed
    amounts (:meth:`fixed`), how they are drawn (:meth:`draw_circles`), its decision's
    circle (:attr:`decision_spot`) and what the bar says before any wager
    (:attr:`first_prompt`)."""

    #: The circle of the wager a decision makes (the Play, the Bet).
    decision_spot: ClassVar[str]
    #: What the message bar says before any wager is placed ("PLACE YOUR ANTE").
    first_prompt: ClassVar[str]

    def circles(
        self, layout: Layout, amounts: Mapping[str, int], enabled: bool
    ) -> tuple[BetSpot, ...]:
        """Every circle of the table's offered wagers with ``amounts`` staked on them."""
        raise NotImplementedError

    def fixed(self, wager: str) -> Sequence[int]:
        """The fixed amounts ``wager`` takes (none: any amount within its limits)."""
        raise NotImplementedError

    def draw_circles(
        self, surface: pygame.Surface, layout: Layout, spots: Sequence[BetSpot]
    ) -> None:
        """The circles with their notes and titles."""
        raise NotImplementedError

    def _shown(self) -> Mapping[str, int]:
        return self.pending if self._open() else self.placed()

    def spots(self, layout: Layout) -> tuple[BetSpot, ...]:
        """The offered wagers' circles, not the decision's."""
        circles = self.circles(layout, self._shown(), self._open())
        return tuple(s for s in circles if s.id != self.decision_spot)

    def _add(self, wager: str) -> None:
        fixed = self.fixed(wager)
        if fixed:
            self._step(wager, fixed)
        else:
            super()._add(wager)

    def message(self) -> str:
        text = super().message()
        if text == "PLACE YOUR BETS" and not self.pending:
            return self.first_prompt
        return text

    def draw_spots(self, surface: pygame.Surface, layout: Layout) -> None:
        """Every circle, the decision's too."""
        self.draw_circles(surface, layout, self.circles(layout, self._shown(), self._open()))

    def bet_total_centre(self, layout: Layout) -> tuple[int, int]:
        """The middle of where this terminal's five cards will be: clear of the circles
        (the platform's place for it is under them in portrait)."""
        centre = hand_area(layout).center
        return (centre[0], centre[1])


class PokerView(Protocol):
    """What :class:`PokerPlayScreen` reads of a poker table's view."""

    @property
    def deciding(self) -> bool:
        """Whether the round waits for the players' decisions."""

    @property
    def folded(self) -> bool:
        """Whether this terminal folded its hand."""


class PokerPlayScreen(PlayScreen):
    """The decision at a poker table laid out as Four Card Poker's: the scene, the wagers on
    their circles (:meth:`draw_wagers`), the decision buttons, and the message bar saying
    what this terminal must do (:attr:`prompt`) or did (:meth:`decided`)."""

    #: What the message bar says while this terminal must decide.
    prompt: ClassVar[str] = ""

    def table(self) -> PokerView | None:
        """The table's view, None before one is read."""
        raise NotImplementedError

    def decided(self) -> str | None:
        """The wager this terminal made on its decision ("PLAY 2X"), None before."""
        raise NotImplementedError

    def draw_wagers(self, surface: pygame.Surface, layout: Layout) -> None:
        """The wagers on their circles."""
        raise NotImplementedError

    def message(self) -> str:
        model = self.model
        table = self.table()
        if model.last_error is not None or model.is_waiting(IntentKind.ACT) or table is None:
            return super().message()
        if model.my_turn:
            return self.prompt
        if table.folded:
            return "You folded \u2022 waiting for the showdown"
        made = self.decided()
        if made:
            return f"{made} \u2022 waiting for the showdown"
        if table.deciding:
            return "Waiting for the other players"
        return "Showdown"

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        self.draw_table(surface, layout)
        self.draw_wagers(surface, layout)
        draw_buttons(surface, layout, self.buttons(layout))
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_message(surface, layout, self.message())
        draw_countdown(surface, layout, shown_countdown(self.model), self.countdown)


class PokerResultsScreen(ResultsScreen):
    """The results at a poker table laid out as Four Card Poker's: the panel where the main
    circles and the buttons were."""

    def results_area(self, layout: Layout) -> pygame.Rect:
        return results_area(layout)
