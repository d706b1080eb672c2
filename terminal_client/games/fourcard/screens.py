"""The screens of a Four Card Poker table: :class:`FourCardBettingScreen`,
:class:`FourCardPlayScreen` and :class:`FourCardResultsScreen`, picked by
:func:`fourcard_screen_for`.

They are the seated table's screens (:mod:`terminal_client.screens.table`: chips, CLEAR /
REBET / DEAL, the countdown with what it does at zero, the credits, the message bar, the
menu, the results panel) over a Four Card Poker scene (:func:`draw_fourcard_scene`): the
table printing, the dealer's six cards (one face up until the showdown) with his best
hand's name once shown, this terminal's five cards with its best four-card hand's name, and
the progressive meters. The betting circles are the felt's: ACES UP, ANTE and PLAY in a
column beside the cards, the two progressive wagers on the other side; PLAY is never
tapped (the Play wager is a decision). The decision buttons are FOLD (in the slot no
harmless choice takes, :data:`~terminal_client.render.layout.DESTRUCTIVE_SLOT`) and
PLAY 1X, PLAY 2X, PLAY 3X, each lit exactly when the view's legal actions hold it.
Procedure: secondary source (the Wizard of Odds; 58 Pa. Code 641a does not give it).

Caribbean Stud (:mod:`terminal_client.games.caribbean.screens`) is laid out the same way and
builds on this module's layout, card drawing and poker screens (:class:`PokerBettingScreen`,
:class:`PokerPlayScreen`, :class:`PokerResultsScreen`, :func:`poker_screen_for`).

Entry points: :func:`fourcard_screen_for`, :func:`draw_fourcard_scene`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Final, Protocol

import pygame

from shared.money import format_money
from terminal_client.games.fourcard.model import (
    ACES_UP,
    ANTE,
    FIVE_CARD_PROGRESSIVE,
    FOLD,
    FOUR_CARD_PROGRESSIVE,
    PLAY,
    FourCardView,
    fourcard_of,
)
from terminal_client.model import Countdown, IntentKind, TerminalModel
from terminal_client.model.view import SeatedView, View
from terminal_client.render import Layout, draw_felt, draw_hand
from terminal_client.render.anim import CardFrame, dealer_key, seat_key
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.elements import element
from terminal_client.render.layout import DESTRUCTIVE_SLOT, side_spot_circles
from terminal_client.render.results import ResultRow
from terminal_client.render.table import CARD_ASPECT, draw_bet_spot, hand_rects
from terminal_client.screens.base import Screen
from terminal_client.screens.overlay import menu_buttons
from terminal_client.screens.results import plain_detail
from terminal_client.screens.scene import (
    _motions,
    draw_buttons,
    draw_countdown,
    draw_credits,
    draw_dealer_title,
    draw_message,
    draw_meters,
    shoe_point,
    wager_titles,
)
from terminal_client.screens.status import AttractScreen
from terminal_client.screens.table import (
    BettingScreen,
    PlayScreen,
    ResultsScreen,
    _rect_box,
    betting_open,
    enabled_actions,
)
from terminal_client.widgets import BetSpot, Button

__all__ = [
    "FourCardBettingScreen",
    "FourCardPlayScreen",
    "FourCardResultsScreen",
    "decision_buttons",
    "draw_fourcard_scene",
    "fourcard_screen_for",
]

Box = tuple[int, int, int, int]

#: The table printing (secondary source: the procedure as the Wizard of Odds gives it).
FELT_LINE: Final = "FOUR CARD POKER \u2022 DEALER ALWAYS QUALIFIES \u2022 PLAYER WINS TIES"
#: The circles beside the cards, top to bottom as on the felt, and the progressive ones.
MAIN_SPOTS: Final = (ACES_UP, ANTE, PLAY)
BONUS_SPOTS: Final = (FOUR_CARD_PROGRESSIVE, FIVE_CARD_PROGRESSIVE)
SPOT_LABELS: Final[Mapping[str, str]] = {
    ANTE: "ANTE",
    PLAY: "PLAY",
    ACES_UP: "ACES UP",
    FOUR_CARD_PROGRESSIVE: "FOUR CARD HAND",
    FIVE_CARD_PROGRESSIVE: "FIVE CARD HAND",
}
#: The title over the progressive circles (641a.1 "Four-Card Progressive Payout Wager",
#: "Five-Card Progressive Payout Wager").
BONUS_TITLE: Final = "PROGRESSIVE PAYOUT"
#: A citation of the procedure's chapter in a settlement's line ("(58 Pa. Code 641a
#: (procedure: secondary source))"), left to recall as every citation is.
_CHAPTER: Final = re.compile(r"\s*\(58 Pa\. Code[^()]*(?:\([^()]*\)[^()]*)*\)")
#: The progressive wagers' names as the server's settlement lines say them
#: ("Four-Card Progressive Payout Wager: Pair pays nothing (641a.1, 641a.6(b))"): the row
#: already names its wager, so the panel says only "Pair pays nothing"; recall keeps the line.
LINE_TITLES: Final = ("Four-Card Progressive Payout Wager", "Five-Card Progressive Payout Wager")
#: The decision buttons: (action, label, slot of the button row). FOLD keeps the slot no
#: harmless choice ever takes; the Play multiples go left to right.
DECISIONS: Final = (
    ("play1", "PLAY 1X", "hit"),
    ("play2", "PLAY 2X", "stand"),
    ("play3", "PLAY 3X", "double"),
    (FOLD, "FOLD", DESTRUCTIVE_SLOT),
)


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


def results_area(layout: Layout) -> pygame.Rect:
    """Where the results panel goes."""
    return layout.design_rect(_design(layout).results)


def spot_circles(
    layout: Layout,
    wagers: Sequence[str],
    main: Sequence[str] = MAIN_SPOTS,
    bonus: Sequence[str] = BONUS_SPOTS,
) -> dict[str, tuple[tuple[int, int], int]]:
    """Wager -> (centre, radius) in window pixels of the circles of ``wagers`` (the ``main``
    ones in their column, the ``bonus`` ones in their zone), laid out as every table's side
    circles are (:func:`~terminal_client.render.layout.side_spot_circles`). Another poker
    table (Caribbean Stud) puts its own circles in the same places."""
    d = _design(layout)
    ox, oy = layout.origin
    s = layout.scale
    out = {}
    for zone, group in ((d.main_zone, main), (d.bonus_zone, bonus)):
        shown = tuple(w for w in group if w in wagers)
        for wager, x, y, r in side_spot_circles((zone,), shown):
            out[wager] = ((round(ox + x * s), round(oy + y * s)), round(r * s))
    return out


def offered(fc: FourCardView | None) -> tuple[str, ...]:
    """The circles of the wagers the table offers (the view's limits), and PLAY."""
    limits = () if fc is None else tuple(fc.view.limits)
    return tuple(w for w in (*MAIN_SPOTS, *BONUS_SPOTS) if w == PLAY or w in limits)


def spots_for(
    layout: Layout, fc: FourCardView | None, amounts: Mapping[str, int], enabled: bool
) -> tuple[BetSpot, ...]:
    """The betting circles with what is staked on each; PLAY is never a touch target."""
    wagers = offered(fc)
    circles = spot_circles(layout, wagers)
    return tuple(
        BetSpot(
            w,
            circles[w][0],
            circles[w][1],
            SPOT_LABELS[w],
            amounts.get(w, 0),
            enabled and w != PLAY,
        )
        for w in wagers
    )


def spot_note(fc: FourCardView, wager: str) -> str:
    """What a circle says under its label: the Play multiples, a progressive wager's fixed
    amounts, else the wager's limits."""
    if wager == PLAY:
        return " \u2022 ".join(f"{m}X" for m in fc.play_multiples)
    return amounts_note(fc.view, wager, fc.amounts.get(wager, ()))


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


def draw_spots(
    surface: pygame.Surface, layout: Layout, fc: FourCardView, spots: Sequence[BetSpot]
) -> None:
    """The circles, each with its note (:func:`spot_note`), and the progressive ones'
    title over them."""
    with element(surface, "wagers") as target:
        for spot in spots:
            draw_bet_spot(target, spot, layout, spot_note(fc, spot.id))
        draw_bonus_title(target, layout, spots)


def draw_bonus_title(
    surface: pygame.Surface,
    layout: Layout,
    spots: Sequence[BetSpot],
    wagers: Sequence[str] = BONUS_SPOTS,
    title: str = BONUS_TITLE,
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


# The scene --------------------------------------------------------------------------------


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


def _draw_dealer(
    surface: pygame.Surface, layout: Layout, fc: FourCardView, frame: CardFrame | None
) -> None:
    """The dealer's six cards (face down until the showdown but the one dealt face up) and,
    once shown, his best four-card hand's name."""
    draw_dealer_cards(surface, layout, fc.view.dealer.cards, fc.dealer_hand, frame, 6)


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


def _draw_mine(
    surface: pygame.Surface, layout: Layout, fc: FourCardView, frame: CardFrame | None
) -> None:
    """This terminal's five cards (dimmed once folded) and its best hand's name."""
    draw_player_cards(surface, layout, fc.view.seat, fc.cards, fc.hand, fc.folded, frame)


def draw_fourcard_scene(
    surface: pygame.Surface,
    layout: Layout,
    fc: FourCardView | None,
    *,
    cards: CardFrame | None = None,
) -> None:
    """The felt, the table printing, the progressive meters, the dealer's six cards and this
    terminal's five (once dealt). With ``cards`` the cards in it move as at every table."""
    s = layout.scale
    draw_felt(surface, layout.window)
    d = _design(layout)
    with element(surface, "table printing") as target:
        line = (
            round(layout.origin[0] + d.felt_line[0] * s),
            round(layout.origin[1] + d.felt_line[1] * s),
        )
        draw_text(
            target,
            FELT_LINE,
            line,
            layout.text(24),
            GOLD,
            "midtop",
            bold=True,
            max_width=hand_area(layout).width,
            least=layout.min_text,
        )
    if fc is None:
        return
    draw_meters(surface, layout, fc.view.meters)
    with element(surface, "dealer") as target:
        _draw_dealer(target, layout, fc, cards)
    if fc.cards:
        with element(surface, "your cards") as target:
            _draw_mine(target, layout, fc, cards)


# The screens ------------------------------------------------------------------------------


def fourcard_screen_for(model: TerminalModel) -> type[Screen]:
    """The base screen for a Four Card Poker view (the model's game view is one)."""
    fc = fourcard_of(model)
    assert fc is not None, "fourcard_screen_for needs a Four Card Poker view"
    return poker_screen_for(
        model, fc, FourCardBettingScreen, FourCardPlayScreen, FourCardResultsScreen
    )


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
    """Betting at a poker table laid out as Four Card Poker's (Caribbean Stud's too)."""

    def bet_total_centre(self, layout: Layout) -> tuple[int, int]:
        """The middle of where this terminal's five cards will be: clear of the circles
        (the platform's place for it is under them in portrait)."""
        centre = hand_area(layout).center
        return (centre[0], centre[1])


class FourCardBettingScreen(PokerBettingScreen):
    """Betting at a Four Card Poker table: chips on ANTE and ACES UP up to their limits, a
    progressive circle steps through its fixed amounts (past the largest it comes off);
    DEAL sends ONE PlaceWagers."""

    def spots(self, layout: Layout) -> tuple[BetSpot, ...]:
        """The offered wagers' circles (not PLAY: the platform's drawing reads each
        circle's limits)."""
        shown = self.pending if self._open() else self.placed()
        return tuple(
            s
            for s in spots_for(layout, fourcard_of(self.model), shown, self._open())
            if s.id != PLAY
        )

    def _add(self, wager: str) -> None:
        fc = fourcard_of(self.model)
        fixed = None if fc is None else fc.amounts.get(wager)
        if fixed:
            self._step(wager, fixed)
        else:
            super()._add(wager)

    def message(self) -> str:
        text = super().message()
        if text == "PLACE YOUR BETS" and not self.pending:
            return "PLACE YOUR ANTE, ACES UP OR BOTH"
        return text

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_fourcard_scene(surface, layout, fourcard_of(self.model), cards=self.cards)

    def draw_spots(self, surface: pygame.Surface, layout: Layout) -> None:
        """Every circle with its note (a fixed-amount circle says its amounts, "$1 / $5",
        not a range the server would refuse), PLAY too (a decision: not a betting spot),
        and the progressive circles' title."""
        fc = fourcard_of(self.model)
        if fc is not None:
            shown = self.pending if self._open() else self.placed()
            draw_spots(surface, layout, fc, spots_for(layout, fc, shown, self._open()))


def decision_buttons(model: TerminalModel, layout: Layout) -> tuple[Button, ...]:
    """FOLD, PLAY 1X, PLAY 2X, PLAY 3X while this terminal must decide, each lit exactly
    when the view's legal actions hold it (on its turn, no decision awaiting its answer);
    none once it has decided."""
    fc = fourcard_of(model)
    if fc is None or not fc.deciding or fc.folded or fc.play_multiple:
        return ()
    live = enabled_actions(model)
    offered = {FOLD, *(f"play{m}" for m in fc.play_multiples)}
    return tuple(
        Button(action, _rect_box(layout.action_buttons[slot]), label, action in live)
        for action, label, slot in DECISIONS
        if action in offered
    )


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


class FourCardPlayScreen(PokerPlayScreen):
    """The decision: the cards, FOLD and PLAY 1X 2X 3X lit from the view's legal actions,
    the wagers on their circles, and the countdown with what it does at zero."""

    prompt = "FOLD, OR PLAY 1X, 2X OR 3X THE ANTE"

    def table(self) -> FourCardView | None:
        return fourcard_of(self.model)

    def decided(self) -> str | None:
        fc = self.table()
        return f"PLAY {fc.play_multiple}X" if fc is not None and fc.play_multiple else None

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        return decision_buttons(self.model, layout)

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_fourcard_scene(surface, layout, fourcard_of(self.model), cards=self.cards)

    def draw_wagers(self, surface: pygame.Surface, layout: Layout) -> None:
        fc = fourcard_of(self.model)
        if fc is not None:
            draw_spots(surface, layout, fc, spots_for(layout, fc, fc.wagers, False))


class PokerResultsScreen(ResultsScreen):
    """The results at a poker table laid out as Four Card Poker's: the panel where the main
    circles and the buttons were."""

    def results_area(self, layout: Layout) -> pygame.Rect:
        return results_area(layout)


class FourCardResultsScreen(PokerResultsScreen):
    """Both hands' names with their cards, the round's result in the message bar and each
    wager with what it won or lost and why, where the main circles were."""

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_fourcard_scene(surface, layout, fourcard_of(self.model), cards=self.cards)

    def rows(self) -> tuple[ResultRow, ...]:
        """The platform's rows, the procedure's chapter citation and the progressive wagers'
        full names (:data:`LINE_TITLES`) left out of the reasons."""
        titles = (*wager_titles().values(), *LINE_TITLES)
        return tuple(
            replace(row, detail=plain_detail(_CHAPTER.sub("", s.line), titles))
            for row, s in zip(super().rows(), self.model.results, strict=True)
        )
