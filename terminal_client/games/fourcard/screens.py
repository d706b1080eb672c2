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

The layout, the cards and the poker screens are the ante-versus-dealer poker family's
(:mod:`terminal_client.games.ante_poker.screens`), which Caribbean Stud builds on too.

Entry points: :func:`fourcard_screen_for`, :func:`draw_fourcard_scene`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final

import pygame

from terminal_client.games.ante_poker.screens import (
    PokerBettingScreen,
    PokerPlayScreen,
    PokerResultsScreen,
    amounts_note,
    draw_bonus_title,
    draw_dealer_cards,
    draw_player_cards,
    felt_line_point,
    hand_area,
    poker_screen_for,
    spot_circles,
)
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
from terminal_client.model import TerminalModel
from terminal_client.render import Layout, draw_felt
from terminal_client.render.anim import CardFrame
from terminal_client.render.draw import GOLD, draw_text
from terminal_client.render.elements import element
from terminal_client.render.layout import DESTRUCTIVE_SLOT
from terminal_client.render.results import ResultRow
from terminal_client.render.table import draw_bet_spot
from terminal_client.screens.base import Screen
from terminal_client.screens.results import plain_detail
from terminal_client.screens.scene import (
    draw_meters,
    wager_titles,
)
from terminal_client.screens.table import (
    _rect_box,
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


def offered(fc: FourCardView | None) -> tuple[str, ...]:
    """The circles of the wagers the table offers (the view's limits), and PLAY."""
    limits = () if fc is None else tuple(fc.view.limits)
    return tuple(w for w in (*MAIN_SPOTS, *BONUS_SPOTS) if w == PLAY or w in limits)


def spots_for(
    layout: Layout, fc: FourCardView | None, amounts: Mapping[str, int], enabled: bool
) -> tuple[BetSpot, ...]:
    """The betting circles with what is staked on each; PLAY is never a touch target."""
    wagers = offered(fc)
    circles = spot_circles(layout, wagers, MAIN_SPOTS, BONUS_SPOTS)
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


def draw_spots(
    surface: pygame.Surface, layout: Layout, fc: FourCardView, spots: Sequence[BetSpot]
) -> None:
    """The circles, each with its note (:func:`spot_note`), and the progressive ones'
    title over them."""
    with element(surface, "wagers") as target:
        for spot in spots:
            draw_bet_spot(target, spot, layout, spot_note(fc, spot.id))
        draw_bonus_title(target, layout, spots, BONUS_SPOTS, BONUS_TITLE)


# The scene --------------------------------------------------------------------------------


def _draw_dealer(
    surface: pygame.Surface, layout: Layout, fc: FourCardView, frame: CardFrame | None
) -> None:
    """The dealer's six cards (face down until the showdown but the one dealt face up) and,
    once shown, his best four-card hand's name."""
    draw_dealer_cards(surface, layout, fc.view.dealer.cards, fc.dealer_hand, frame, 6)


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
    draw_felt(surface, layout.window)
    with element(surface, "table printing") as target:
        draw_text(
            target,
            FELT_LINE,
            felt_line_point(layout),
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


class FourCardBettingScreen(PokerBettingScreen):
    """Betting at a Four Card Poker table: chips on ANTE and ACES UP up to their limits, a
    progressive circle steps through its fixed amounts; PLAY is the decision's circle."""

    decision_spot = PLAY
    first_prompt = "PLACE YOUR ANTE, ACES UP OR BOTH"

    def circles(
        self, layout: Layout, amounts: Mapping[str, int], enabled: bool
    ) -> tuple[BetSpot, ...]:
        return spots_for(layout, fourcard_of(self.model), amounts, enabled)

    def fixed(self, wager: str) -> Sequence[int]:
        fc = fourcard_of(self.model)
        return () if fc is None else fc.amounts.get(wager, ())

    def draw_circles(
        self, surface: pygame.Surface, layout: Layout, spots: Sequence[BetSpot]
    ) -> None:
        """Each circle with its note (a fixed-amount circle says its amounts, "$1 / $5",
        not a range the server would refuse) and the progressive circles' title."""
        fc = fourcard_of(self.model)
        if fc is not None:
            draw_spots(surface, layout, fc, spots)

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_fourcard_scene(surface, layout, fourcard_of(self.model), cards=self.cards)


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
