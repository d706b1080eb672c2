"""The Caribbean Stud Poker table screen: the platform's fallback table (felt, cards, seats,
settlements, countdown, credits, menu) with the game's own buttons and lines: ANTE or ANTE +
PROGRESSIVE while betting, FOLD / BET 2X at the decision, the qualifying line, this
terminal's hand and the dealer's, and the Progressive Payout and Must-Hit-By meters.

Touch targets: ``button:wager-ante``, ``button:wager-ante+progressive``, ``button:act-bet``,
``button:act-fold``.

Entry point: :class:`CaribbeanScreen`.
"""

from __future__ import annotations

import pygame

from shared.money import format_money
from terminal_client.games.caribbean.model import CaribbeanView
from terminal_client.games.generic import betting_window
from terminal_client.input import Intent, Tap
from terminal_client.model import IntentKind
from terminal_client.render import Layout
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.layout import DESTRUCTIVE_SLOT
from terminal_client.screens.base import Handled
from terminal_client.screens.fallback import FallbackScreen
from terminal_client.widgets import Button

__all__ = ["CaribbeanScreen"]

WITH_PROGRESSIVE = "ante+progressive"
ACTION_LABELS = {"bet": "BET 2X", "fold": "FOLD"}
METER_TITLES = {
    "progressive": "PROGRESSIVE",
    "must_hit_by": "MUST-HIT-BY MYSTERY",
    "five_card": "FIVE CARD BONUS",
}


class CaribbeanScreen(FallbackScreen):
    """Betting, the decision and the showdown of a Caribbean Stud Poker round."""

    def _caribbean(self) -> CaribbeanView | None:
        game_view = self.model.game_view
        return game_view if isinstance(game_view, CaribbeanView) else None

    def _stakes(self) -> dict[str, dict[str, int]]:
        limits = self.model.limits
        ante = limits.get("ante")
        if ante is None:
            return {}
        out = {"ante": {"ante": ante.minimum}}
        progressive = limits.get("progressive")
        if progressive is not None:
            out[WITH_PROGRESSIVE] = {"ante": ante.minimum, "progressive": progressive.minimum}
        return out

    def wager_buttons(self, layout: Layout) -> tuple[Button, ...]:
        """ANTE at its minimum, and ANTE + PROGRESSIVE when the table offers it."""
        model = self.model
        open_ = (
            betting_window(model)
            and not model.in_round
            and not model.is_waiting(IntentKind.PLACE_WAGERS)
        )
        stakes = self._stakes()
        if not stakes:
            return ()
        credits = model.credits or 0
        tray = layout.chip_tray_rect
        gap = round(12 * layout.scale)
        width = (tray.width - gap * (len(stakes) - 1)) // len(stakes)
        buttons = []
        for i, (name, wagers) in enumerate(stakes.items()):
            label = " + ".join(
                f"{'PROG' if w == 'progressive' else 'ANTE'} {format_money(c)}"
                for w, c in wagers.items()
            )
            rect = (tray.left + i * (width + gap), tray.top, width, tray.height)
            enabled = open_ and credits >= sum(wagers.values())
            buttons.append(Button(f"wager-{name}", rect, label, enabled))
        return tuple(buttons)

    def action_buttons(self, layout: Layout) -> tuple[Button, ...]:
        """FOLD in the slot kept for giving up a wager, BET 2X (with its amount) beside it."""
        model = self.model
        if not model.my_turn or model.is_waiting(IntentKind.ACT):
            return ()
        caribbean = self._caribbean()
        amount = None if caribbean is None else caribbean.bet_amount
        slots = [rect for name, rect in layout.action_buttons.items() if name != DESTRUCTIVE_SLOT]
        buttons = []
        for action in sorted(model.legal_actions):
            rect = layout.action_buttons[DESTRUCTIVE_SLOT] if action == "fold" else slots[0]
            label = ACTION_LABELS.get(action, action.upper())
            if action == "bet" and amount:
                label = f"{label} {format_money(amount)}"
            buttons.append(Button(f"act-{action}", (rect.x, rect.y, rect.w, rect.h), label, True))
        return tuple(buttons)

    def handle(self, intent: Intent) -> Handled | None:
        if isinstance(intent, Tap) and intent.target_id.startswith("button:wager-"):
            name = intent.target_id.removeprefix("button:wager-")
            wagers = self._stakes().get(name)
            model = self.model
            if wagers is None or not betting_window(model) or model.in_round:
                return None
            return None if self.client.place_wagers(wagers) is None else Handled()
        return super().handle(intent)

    def message(self) -> str:
        if self.model.my_turn and self.model.last_error is None:
            return "FOLD OR BET 2X"
        return super().message()

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        super().draw(surface, layout)
        draw_caribbean_lines(surface, layout, self._caribbean())


def draw_caribbean_lines(
    surface: pygame.Surface, layout: Layout, caribbean: CaribbeanView | None
) -> None:
    """The qualifying line, the hands and the meters (never a Must-Hit-By trigger: only the
    server knows it)."""
    if caribbean is None:
        return
    s = layout.scale
    dealer = layout.dealer
    # The left column under the menu buttons: clear of the dealer's cards, the countdown's
    # dial and the seats' labels.
    x = layout.credits.left
    y = layout.credits.bottom + round(124 * s)
    rows: list[tuple[str, tuple[int, int, int]]] = []
    for name, cents in caribbean.meters.items():
        rows.append((f"{METER_TITLES.get(name, name.upper())}  {format_money(cents)}", GOLD))
    mystery = caribbean.must_hit_by
    if mystery is not None and mystery.get("must_hit_by"):
        rows.append((f"MUST HIT BY {format_money(int(mystery['must_hit_by']))}", CREAM))
    for i, (text, colour) in enumerate(rows):
        draw_text(surface, text, (x, y + round(30 * i * s)), round(22 * s), colour, "topleft", True)
    below = dealer.bottom + round(8 * s)
    line = caribbean.qualifying.upper()
    if caribbean.dealer_hand:
        line = f"DEALER: {caribbean.dealer_hand.upper()}  \u2022  {line}"
    draw_text(surface, line, (dealer.centerx, below), round(22 * s), CREAM, "midtop")
    if caribbean.hand:
        mine = layout.my_hand
        draw_text(
            surface,
            f"YOUR HAND: {caribbean.hand.upper()}",
            (mine.centerx, mine.top - round(30 * s)),
            round(24 * s),
            GOLD,
            "midtop",
            True,
        )


class CaribbeanBettingScreen(CaribbeanScreen):
    """The table while it takes wagers (the screenshots' betting screen)."""

    role = "betting"


class CaribbeanResultsScreen(CaribbeanScreen):
    """The showdown and its settlements until the next betting window opens."""

    role = "results"
