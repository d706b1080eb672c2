"""The fallback screen: a game this terminal has no screens for, played from its common view.

Whatever the game, the view says the table's state and phase, the countdown, the credits,
each wager's limits, the decisions this terminal may make now and the settlements; where it
has them, the dealer's cards and each seat's hands. This screen draws exactly that, on the
felt: the dealer's and the seats' cards (this terminal's seat marked), a button per wager
that stakes its table minimum while the table takes wagers, a button per decision the
server allows now (a choice that gives up a wager in its own colour and slot), each
settlement of this terminal, the countdown with what happens at zero, the credits and the
menu (rules, recall, cash out). It is what a new game gets before it writes a screen of its
own (``docs/adding-a-game.md``); the server refuses anything the rules do not allow.

Touch targets: ``button:wager-<name>`` and ``button:act-<decision>``.

Entry points: :class:`FallbackScreen`, :func:`draw_generic_table`.
"""

from __future__ import annotations

import pygame

from shared.money import format_money
from terminal_client.games.generic import betting_window
from terminal_client.input import Intent, Tap
from terminal_client.model import IntentKind, TerminalModel
from terminal_client.render import Layout, draw_hand
from terminal_client.render.draw import CREAM, GOLD, draw_felt, draw_text
from terminal_client.render.layout import DESTRUCTIVE, DESTRUCTIVE_SLOT, SEAT_COUNT
from terminal_client.screens.base import Handled, IntentSender, Screen
from terminal_client.screens.overlay import menu_buttons, menu_hit, menu_tap
from terminal_client.screens.results import outcome_word
from terminal_client.screens.scene import (
    LocalCountdown,
    draw_buttons,
    draw_countdown,
    draw_credits,
    draw_message,
    wager_name,
)
from terminal_client.widgets import Button, hit_test

__all__ = ["FallbackScreen", "draw_generic_table"]

WAGER_PREFIX = "wager-"
ACT_PREFIX = "act-"


def draw_generic_table(surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
    """The felt, the game's name and phase, the dealer's cards and each seat's hands (this
    terminal's seat marked YOU), and this terminal's settlements."""
    s = layout.scale
    draw_felt(surface, layout.window)
    view = model.view
    dealer = layout.dealer
    from terminal_client import games  # the registry at call time: it sits below the screens

    title = games.of(model).window_title(model).upper()
    draw_text(
        surface,
        title,
        (dealer.centerx, dealer.top),
        layout.text(30),
        GOLD,
        "midtop",
        True,
        least=layout.min_text,
    )
    if view is None:
        return
    draw_text(
        surface,
        model.phase_name,
        (dealer.centerx, dealer.top + round(36 * s)),
        layout.text(24),
        CREAM,
        "midtop",
        least=layout.min_text,
    )
    if view.dealer.cards:
        draw_hand(
            surface,
            dealer.move(0, round(70 * s)),
            view.dealer.cards,
            round(dealer.height * 0.5),
        )
    for seat in view.seats:
        if not 1 <= seat.seat <= SEAT_COUNT:
            continue
        area = layout.seat(seat.seat)
        label = f"SEAT {seat.seat}" + (" \u2022 YOU" if seat.mine else "")
        draw_text(
            surface,
            label,
            area.midtop,
            layout.text(22),
            GOLD,
            "midtop",
            seat.mine,
            least=layout.min_text,
        )
        hands = [hand for hand in seat.hands if hand.cards]
        if not hands:
            continue
        height = round(area.height * 0.6 / len(hands))
        for i, hand in enumerate(hands):
            box = pygame.Rect(area.left, area.top + round(30 * s) + i * height, area.width, height)
            draw_hand(surface, box, hand.cards, height)
    rows = [
        f"{wager_name(st.wager)}: {outcome_word(st.outcome)} ({st.line}), "
        f"paid {format_money(st.paid)}"
        for st in view.settlements
    ]
    mine = layout.my_hand
    for i, row in enumerate(rows):
        draw_text(
            surface,
            row,
            (mine.centerx, mine.top + round(34 * i * s)),
            layout.text(26),
            CREAM,
            "midtop",
            max_width=mine.width,
            least=layout.min_text,
        )


class FallbackScreen(Screen):
    """Betting, play and results of a game this terminal has no screens for (see the
    module docstring): one screen for the whole round."""

    role = "play"

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        self.countdown = LocalCountdown()

    def wager_buttons(self, layout: Layout) -> tuple[Button, ...]:
        """A button per wager the table offers, staking its minimum (lit while the table
        takes wagers, this terminal has none in and its credits cover it)."""
        model = self.model
        open_ = (
            betting_window(model)
            and not model.in_round
            and not model.is_waiting(IntentKind.PLACE_WAGERS)
        )
        credits = model.credits or 0
        offered = list(model.limits.items())
        if not offered:
            return ()
        tray = layout.chip_tray_rect
        gap = round(12 * layout.scale)
        width = (tray.width - gap * (len(offered) - 1)) // len(offered)
        return tuple(
            Button(
                f"{WAGER_PREFIX}{name}",
                (tray.left + i * (width + gap), tray.top, width, tray.height),
                f"{wager_name(name).upper()} {format_money(limits.minimum)}",
                open_ and credits >= limits.minimum,
            )
            for i, (name, limits) in enumerate(offered)
        )

    def action_buttons(self, layout: Layout) -> tuple[Button, ...]:
        """A button per decision the server allows now, in the action slots (a choice that
        gives up a wager in the slot kept for it)."""
        if not self.model.my_turn or self.model.is_waiting(IntentKind.ACT):
            return ()
        slots = [rect for name, rect in layout.action_buttons.items() if name != DESTRUCTIVE_SLOT]
        buttons = []
        for action in sorted(self.model.legal_actions):
            if action in DESTRUCTIVE:
                rect = layout.action_buttons[DESTRUCTIVE_SLOT]
            elif slots:
                rect = slots.pop(0)
            else:
                continue
            label = action.replace("_", " ").replace("-", " ").upper()
            buttons.append(
                Button(f"{ACT_PREFIX}{action}", (rect.x, rect.y, rect.w, rect.h), label, True)
            )
        return tuple(buttons)

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        return self.wager_buttons(layout) + self.action_buttons(layout)

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        if (menu := menu_hit(layout, self.model, pos)) is not None:
            return menu
        return hit_test(pos, [b for b in self.buttons(layout) if b.enabled])

    def update(self, now: float) -> bool:
        return self.countdown.update(self.model, now)

    def handle(self, intent: Intent) -> Handled | None:
        if (menu := menu_tap(intent, self.model, self.client)) is not None:
            return menu
        if not isinstance(intent, Tap) or not intent.target_id.startswith("button:"):
            return None
        name = intent.target_id.removeprefix("button:")
        model = self.model
        if name.startswith(WAGER_PREFIX):
            wager = name.removeprefix(WAGER_PREFIX)
            limits = model.limits.get(wager)
            if limits is None or not betting_window(model) or model.in_round:
                return None
            sent = self.client.place_wagers({wager: limits.minimum})
            return None if sent is None else Handled()
        if name.startswith(ACT_PREFIX):
            action = name.removeprefix(ACT_PREFIX)
            hand = model.hand_to_act
            if hand is None or action not in model.legal_actions:
                return None
            return None if self.client.act(action, hand) is None else Handled()
        return None

    def message(self) -> str:
        model = self.model
        if model.last_error is not None:
            return model.last_error.message
        if model.pending:
            return "\u2026"
        if model.my_turn:
            return "YOUR TURN"
        if betting_window(model) and not model.in_round:
            return "Place your bet"
        return model.phase_name

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_generic_table(surface, layout, self.model)
        draw_buttons(surface, layout, self.buttons(layout))
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_message(surface, layout, self.message())
        draw_countdown(surface, layout, self.model.countdown, self.countdown)
