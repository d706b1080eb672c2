"""The screens of a Caribbean Stud Poker table: :class:`CaribbeanBettingScreen`,
:class:`CaribbeanPlayScreen` and :class:`CaribbeanResultsScreen`, picked by
:func:`caribbean_screen_for`.

They are the seated table's screens (:mod:`terminal_client.screens.table`: chips, CLEAR /
REBET / DEAL, the countdown with what it does at zero, the credits, the message bar, the
menu, the results panel) over a Caribbean Stud scene (:func:`draw_caribbean_scene`): the
table printing with the qualifying line (639a: the dealer qualifies with ace-king or
better), the dealer's five cards (one face up until the showdown) with his hand's name once
shown, this terminal's five cards large with its hand's name, and the platform's meters
panel (Progressive Payout, Five Card Bonus, the Must-Hit-By Mystery Bonus with what it must
hit by, 639b.1). They are laid out as Four Card Poker's
(:mod:`terminal_client.games.fourcard.screens`): ANTE and BET in a column beside the cards
(BET is never tapped: the Bet Wager is the decision), the side wagers' circles under the
meters. A side wager of fixed amounts steps through them on each tap (the view gives the
smallest and the largest: those are offered). The decision buttons are FOLD (in the slot no
harmless choice takes, :data:`~terminal_client.render.layout.DESTRUCTIVE_SLOT`) and BET 2X
with its amount, lit exactly when the view's legal actions hold them; once betting is over
no wager control is drawn. The results panel says each wager's outcome in plain words: the
paragraph citations stay in recall.

Entry points: :func:`caribbean_screen_for`, :func:`draw_caribbean_scene`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final

import pygame

from shared.money import format_money
from terminal_client.games.ante_poker.screens import (
    PokerBettingScreen,
    PokerPlayScreen,
    PokerResultsScreen,
    amounts_note,
    draw_bonus_title,
    draw_dealer_cards,
    draw_player_cards,
    hand_area,
    poker_screen_for,
    spot_circles,
)
from terminal_client.games.caribbean.model import CaribbeanView, caribbean_of
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
    "CaribbeanBettingScreen",
    "CaribbeanPlayScreen",
    "CaribbeanResultsScreen",
    "caribbean_screen_for",
    "decision_buttons",
    "draw_caribbean_scene",
]

ANTE: Final = "ante"
BET: Final = "bet"
FOLD: Final = "fold"
#: The circles beside the cards, top to bottom, and the side wagers' under the meters.
MAIN_SPOTS: Final = (ANTE, BET)
SIDE_SPOTS: Final = ("progressive", "five_card_player", "five_card_dealer")
SPOT_LABELS: Final[Mapping[str, str]] = {
    ANTE: "ANTE",
    BET: "BET",
    "progressive": "PROGRESSIVE",
    "five_card_player": "5 CARD BONUS YOUR HAND",
    "five_card_dealer": "5 CARD BONUS DEALER'S HAND",
}
#: The declared short names of the circles' labels (a circle too small for the label).
SPOT_SHORT: Final[Mapping[str, str]] = {
    "five_card_player": "BONUS YOUR HAND",
    "five_card_dealer": "BONUS DEALER",
}
#: The title over the side wagers' circles.
SIDE_TITLE: Final = "SIDE WAGERS"
#: The table printing's first part; the view's qualifying line follows it.
FELT_TITLE: Final = "CARIBBEAN STUD POKER"
#: The decision buttons: (action, label, the slots of the button row it spans). BET 2X
#: with its amount spans three slots (its label at the row's full size); FOLD keeps the
#: slot no harmless choice takes.
DECISIONS: Final = (
    (BET, "BET 2X", ("hit", "stand", "double")),
    (FOLD, "FOLD", (DESTRUCTIVE_SLOT,)),
)
#: The results panel's names of the wagers: the table's own (another game titles a wager
#: of the same name its own way), the Five Card Hand Bonus ones short enough to read.
RESULT_TITLES: Final[Mapping[str, str]] = {
    "five_card_player": "Five Card Bonus",
    "five_card_dealer": "Dealer Five Card Bonus",
}
#: The wagers' names as the server's settlement lines say them (a line repeating its own
#: wager's name says nothing more to the player).
LINE_TITLES: Final = (
    "Progressive Payout",
    "Five Card Hand Bonus (player's hand)",
    "Five Card Hand Bonus (dealer's hand)",
)


def offered(cv: CaribbeanView | None) -> tuple[str, ...]:
    """The circles of the wagers the table offers (the view's limits), and BET."""
    limits = () if cv is None else tuple(cv.view.limits)
    return tuple(w for w in (*MAIN_SPOTS, *SIDE_SPOTS) if w == BET or w in limits)


def spots_for(
    layout: Layout, cv: CaribbeanView | None, amounts: Mapping[str, int], enabled: bool
) -> tuple[BetSpot, ...]:
    """The betting circles with what is staked on each; BET is never a touch target."""
    wagers = offered(cv)
    circles = spot_circles(layout, wagers, MAIN_SPOTS, SIDE_SPOTS)
    return tuple(
        BetSpot(
            w,
            circles[w][0],
            circles[w][1],
            SPOT_LABELS[w],
            amounts.get(w, 0),
            enabled and w != BET,
            SPOT_SHORT.get(w, ""),
        )
        for w in wagers
    )


def fixed_amounts(cv: CaribbeanView | None, wager: str) -> tuple[int, ...]:
    """The amounts a side wager of fixed amounts takes as the view gives them (its smallest
    and largest: 639a.7(d)(2), 639a.1), empty for the Ante (any amount in its limits)."""
    if cv is None or wager not in SIDE_SPOTS or wager not in cv.view.limits:
        return ()
    limits = cv.view.limits[wager]
    return tuple(sorted({limits.minimum, limits.maximum}))


def spot_note(cv: CaribbeanView, wager: str) -> str:
    """What a circle says under its label: the Bet's "2X ANTE", a side wager's fixed
    amounts, else the Ante's limits."""
    if wager == BET:
        return "2X ANTE"
    return amounts_note(cv.view, wager, fixed_amounts(cv, wager))


def draw_spots(
    surface: pygame.Surface, layout: Layout, cv: CaribbeanView, spots: Sequence[BetSpot]
) -> None:
    """The circles, each with its note (:func:`spot_note`) unless it holds chips, and the
    side wagers' title over theirs."""
    with element(surface, "wagers") as target:
        for spot in spots:
            draw_bet_spot(target, spot, layout, spot_note(cv, spot.id))
        draw_bonus_title(target, layout, spots, SIDE_SPOTS, SIDE_TITLE)


# The scene --------------------------------------------------------------------------------


def felt_line(cv: CaribbeanView | None) -> str:
    """The table printing: the game's name and the view's qualifying line."""
    qualifying = "" if cv is None else cv.qualifying.upper()
    return " \u2022 ".join(t for t in (FELT_TITLE, qualifying) if t)


def draw_caribbean_scene(
    surface: pygame.Surface,
    layout: Layout,
    cv: CaribbeanView | None,
    *,
    cards: CardFrame | None = None,
) -> None:
    """The felt, the table printing, the meters, the dealer's five cards and this
    terminal's five (once dealt). With ``cards`` the cards in it move as at every table."""
    s = layout.scale
    draw_felt(surface, layout.window)
    area = hand_area(layout)
    with element(surface, "table printing") as target:
        draw_text(
            target,
            felt_line(cv),
            (area.centerx, area.top - round(48 * s)),
            layout.text(24),
            GOLD,
            "midtop",
            bold=True,
            max_width=area.width,
            least=layout.min_text,
        )
    if cv is None:
        return
    draw_meters(surface, layout, cv.view.meters)
    with element(surface, "dealer") as target:
        draw_dealer_cards(target, layout, cv.view.dealer.cards, cv.dealer_hand, cards, 5)
    if cv.cards:
        with element(surface, "your cards") as target:
            draw_player_cards(target, layout, cv.view.seat, cv.cards, cv.hand, cv.folded, cards)


# The screens ------------------------------------------------------------------------------


def caribbean_screen_for(model: TerminalModel) -> type[Screen]:
    """The base screen for a Caribbean Stud Poker view (the model's game view is one)."""
    cv = caribbean_of(model)
    assert cv is not None, "caribbean_screen_for needs a Caribbean Stud Poker view"
    return poker_screen_for(
        model, cv, CaribbeanBettingScreen, CaribbeanPlayScreen, CaribbeanResultsScreen
    )


class CaribbeanBettingScreen(PokerBettingScreen):
    """Betting at a Caribbean Stud Poker table: chips on ANTE up to its limits, a side
    wager's circle steps through its fixed amounts; BET is the decision's circle."""

    decision_spot = BET
    first_prompt = "PLACE YOUR ANTE"

    def circles(
        self, layout: Layout, amounts: Mapping[str, int], enabled: bool
    ) -> tuple[BetSpot, ...]:
        return spots_for(layout, caribbean_of(self.model), amounts, enabled)

    def fixed(self, wager: str) -> Sequence[int]:
        return fixed_amounts(caribbean_of(self.model), wager)

    def draw_circles(
        self, surface: pygame.Surface, layout: Layout, spots: Sequence[BetSpot]
    ) -> None:
        """Each circle with its note (a fixed-amount circle says its amounts, "$1 / $5") and
        the side wagers' title over theirs."""
        cv = caribbean_of(self.model)
        if cv is not None:
            draw_spots(surface, layout, cv, spots)

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_caribbean_scene(surface, layout, caribbean_of(self.model), cards=self.cards)


def decision_buttons(model: TerminalModel, layout: Layout) -> tuple[Button, ...]:
    """FOLD and BET 2X (with the Bet's amount) while this terminal must decide, each lit
    exactly when the view's legal actions hold it; none once it has decided."""
    cv = caribbean_of(model)
    if cv is None or not cv.deciding or cv.folded or BET in cv.wagers:
        return ()
    live = enabled_actions(model)
    if not model.my_turn:
        return ()
    buttons = []
    for action, label, slots in DECISIONS:
        if action == BET and cv.bet_amount:
            label = f"{label} {format_money(cv.bet_amount)}"
        rect = layout.action_buttons[slots[0]].unionall(
            [layout.action_buttons[slot] for slot in slots[1:]]
        )
        buttons.append(Button(action, _rect_box(rect), label, action in live))
    return tuple(buttons)


class CaribbeanPlayScreen(PokerPlayScreen):
    """The decision: the cards, FOLD and BET 2X lit from the view's legal actions, the
    wagers on their circles, and the countdown with what it does at zero."""

    prompt = "FOLD, OR BET 2X THE ANTE"

    def table(self) -> CaribbeanView | None:
        return caribbean_of(self.model)

    def decided(self) -> str | None:
        cv = self.table()
        return "BET 2X" if cv is not None and BET in cv.wagers else None

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        return decision_buttons(self.model, layout)

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_caribbean_scene(surface, layout, caribbean_of(self.model), cards=self.cards)

    def draw_wagers(self, surface: pygame.Surface, layout: Layout) -> None:
        cv = caribbean_of(self.model)
        if cv is not None:
            draw_spots(surface, layout, cv, spots_for(layout, cv, cv.wagers, False))


class CaribbeanResultsScreen(PokerResultsScreen):
    """Both hands' names with their cards, the round's result in the message bar and each
    wager with what it won or lost and why in plain words, where the main circles were."""

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_caribbean_scene(surface, layout, caribbean_of(self.model), cards=self.cards)

    def rows(self) -> tuple[ResultRow, ...]:
        """The platform's rows under the table's own names (:data:`RESULT_TITLES`); the
        citations left to recall, and a reason that only names the wager says nothing
        more."""
        titles = (*wager_titles().values(), *LINE_TITLES)
        own = {**self.model.game.wager_titles, **RESULT_TITLES}
        return tuple(
            replace(
                row,
                what=own.get(s.wager, row.what),
                detail=plain_detail(s.line, titles),
            )
            for row, s in zip(super().rows(), self.model.results, strict=True)
        )
