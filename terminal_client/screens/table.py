"""The screens of a round at the table: :class:`BettingScreen`, :class:`PlayScreen` and
:class:`ResultsScreen`. What they show and allow comes from the model (the server's last
view); the only local state is the bet being built before DEAL and the selected chip.

These are the seated table's screens, which a game whose view is the seated table's shape
uses as they are or builds on (:meth:`~terminal_client.games.api.TerminalGame.screen_for`).
The betting circles are the wagers the table offers (the keys of the server's limits): the
main circle ``"main"`` for the game's main wager
(:attr:`~terminal_client.games.api.TerminalGame.main_wager`) and one circle per side wager,
named after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pygame

from shared.money import format_money
from terminal_client.input import Intent, Key, Tap
from terminal_client.model import Countdown, IntentKind, Settlement, TerminalModel
from terminal_client.render import Layout, draw_chip
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.elements import element
from terminal_client.render.layout import MAIN_SPOT
from terminal_client.render.results import ResultRow, draw_results_panel
from terminal_client.render.table import draw_bet_spot
from terminal_client.screens.base import Handled, IntentSender
from terminal_client.screens.overlay import menu_buttons, menu_hit, menu_tap
from terminal_client.screens.pays import (
    draw_last_round,
    draw_pays,
    info_area,
    last_round,
    pays_rows,
)
from terminal_client.screens.results import headline, net_text, outcome_word, plain_detail
from terminal_client.screens.scene import (
    LocalCountdown,
    SceneScreen,
    draw_buttons,
    draw_countdown,
    draw_credits,
    draw_message,
    panel,
    wager_name,
    wager_titles,
)
from terminal_client.widgets import BetSpot, Button, ChipTray, hit_test

if TYPE_CHECKING:
    from terminal_client.model.state import ModelGame

#: The betting buttons sit where the action buttons are: (id, label, action slot).
BETTING_BUTTONS: tuple[tuple[str, str, str], ...] = (
    ("clear", "CLEAR", "hit"),
    ("rebet", "REBET", "stand"),
    ("deal", "DEAL", "press"),
)
#: TriLux Deluxe may be at most this many times the main wager (58 Pa. Code 633b.11(b)).
TRILUX = "trilux"
TRILUX_TIMES_MAIN = 2
#: The insurance answers (633b.5 insurance pays 2 to 1): (choice, label, action slot).
INSURANCE_BUTTONS: tuple[tuple[str, str, str], ...] = (
    ("insurance", "INSURE", "hit"),
    ("decline", "NO THANKS", "stand"),
    ("even-money", "EVEN MONEY", "double"),
)


def betting_open(model: TerminalModel) -> bool:
    """True while the server takes wagers for the next round."""
    view = model.view
    return (
        view is not None
        and view.state in (None, "open")
        and (view.machine == "betting" or view.phase == "betting")
    )


def enabled_actions(model: TerminalModel) -> frozenset[str]:
    """The action buttons to enable: the server's legal actions, only on this terminal's turn
    and while no decision awaits its answer."""
    if not model.my_turn or model.is_waiting(IntentKind.ACT) or model.insurance is not None:
        return frozenset()
    return model.legal_actions


def _rect_box(rect: pygame.Rect) -> tuple[int, int, int, int]:
    return (rect.x, rect.y, rect.width, rect.height)


def _placed(model: TerminalModel) -> dict[str, int]:
    seat = model.my_seat
    return {} if seat is None else dict(seat.wagers)


def spot_wager(spot_id: str, main: str | None) -> str:
    """The wager behind a betting circle: ``"main"`` -> the game's ``main`` wager, a side
    wager's circle is named after it."""
    return main if spot_id == MAIN_SPOT and main is not None else spot_id


def wager_spot(wager: str, main: str | None) -> str:
    """The betting circle of ``wager`` (the inverse of :func:`spot_wager`)."""
    return MAIN_SPOT if wager == main else wager


def _spot_amounts(wagers: dict[str, int], main: str | None) -> dict[str, int]:
    return {wager_spot(wager, main): cents for wager, cents in wagers.items()}


def _dollars(cents: int) -> str:
    """``"$100"`` for whole dollars, else as :func:`format_money` writes it."""
    return f"${cents // 100:,}" if cents % 100 == 0 else format_money(cents)


def limits_text(minimum: int, maximum: int, *, short: bool = False) -> str:
    """``"$1.00 \u2013 $100.00"`` (``short``: ``"$1 \u2013 $100"``), or ``"$5.00 fixed"`` for
    a wager of one amount."""
    if minimum == maximum:
        return f"{format_money(maximum)} fixed"
    money = _dollars if short else format_money
    return f"{money(minimum)} \u2013 {money(maximum)}"


class BettingScreen(SceneScreen):
    """Chips from the server's configuration; a tap on a betting circle adds the selected
    chip to a bet held here until DEAL sends it as one PlaceWagers."""

    role = "betting"

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        self.selected: int | None = None
        self.pending: dict[str, int] = {}
        # REBET offers the last bet the server took, also in a later round.
        last = model.accepted(IntentKind.PLACE_WAGERS)
        self.last_bet: dict[str, int] = {} if last is None else dict(last.arguments["wagers"])
        self.note = ""
        self.countdown = LocalCountdown()
        #: The wager whose pays the information panel shows: the last one touched (the
        #: main wager before any).
        self.wager_shown: str | None = model.game.main_wager or next(iter(model.limits), None)
        #: When this screen first ticked, and the last tick (the last round's results stay
        #: at least ``model.results_seconds`` from the first).
        self._opened: float | None = None
        self._now = 0.0
        self._last: tuple[Any, tuple[str, tuple[ResultRow, ...]] | None] = (None, None)

    def enter(self) -> None:
        """Ask the server for the paytables the information panel shows (once)."""
        if self.model.rules is None:
            self.client.request_rules()

    # What it allows -------------------------------------------------------------------------

    def placed(self) -> dict[str, int]:
        """The wagers this terminal has in the round, as the server's view shows them."""
        return _placed(self.model)

    def _open(self) -> bool:
        return betting_open(self.model) and not self.placed()

    def _chip(self) -> int | None:
        chips = self.model.chips
        if self.selected in chips:
            return self.selected
        return chips[0] if chips else None

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        open_ = self._open() and not self.model.is_waiting(IntentKind.PLACE_WAGERS)
        enabled = {
            "clear": open_ and bool(self.pending),
            "rebet": open_ and bool(self.last_bet) and self.pending != self.last_bet,
            "deal": open_ and bool(self.pending),
        }
        return tuple(
            Button(bid, _rect_box(layout.action_buttons[slot]), label, enabled[bid])
            for bid, label, slot in BETTING_BUTTONS
        )

    def spots(self, layout: Layout) -> tuple[BetSpot, ...]:
        """A circle for each wager the table offers, with what is staked on it."""
        shown = self.pending if self._open() else self.placed()
        offered = self.model.limits
        open_ = self._open()
        main = self.model.game.main_wager
        return tuple(
            replace(spot, enabled=open_)
            for spot in layout.bet_spots(_spot_amounts(shown, main), tuple(offered))
            if spot_wager(spot.id, main) in offered
        )

    def tray(self, layout: Layout) -> ChipTray:
        return ChipTray(_rect_box(layout.chip_tray_rect), self.model.chips, self._chip())

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        if (menu := menu_hit(layout, self.model, pos)) is not None:
            return menu
        return hit_test(pos, self.buttons(layout), self.spots(layout), self.tray(layout))

    # Changes --------------------------------------------------------------------------------

    def update(self, now: float) -> bool:
        was = self.last_round_shown()
        if self._opened is None:
            self._opened = now
        self._now = now
        changed = self.countdown.update(self.model, now)
        return changed or was != self.last_round_shown()

    def last_round(self) -> tuple[str, tuple[ResultRow, ...]] | None:
        """The last round's headline and rows this terminal played (None: none yet)."""
        data = self.model.last_settled
        if data is None:
            return None
        if self._last[0] is not data:
            self._last = (data, last_round(data))
        return self._last[1]

    def last_round_shown(self) -> bool:
        """Whether the information panel shows the last round's results: until this
        terminal's first wager of the round, and at least ``model.results_seconds`` after
        this screen opened (810a.4(7): until the next game starts or the bets change)."""
        if self.last_round() is None:
            return False
        if self._opened is not None and self._now - self._opened < self.model.results_seconds:
            return True
        return not (self.pending or self.placed())

    def handle(self, intent: Intent) -> Handled | None:
        if (menu := menu_tap(intent, self.model, self.client)) is not None:
            return menu
        target = intent.target_id if isinstance(intent, Tap) else None
        if isinstance(intent, Key) and intent.name == "confirm":
            target = "button:deal"
        if target is None or not self._open():
            return None
        kind, _, name = target.partition(":")
        main = self.model.game.main_wager
        if kind == "chip" and int(name) in self.model.chips:
            self.selected = int(name)
            self.note = ""
        elif kind == "spot" and spot_wager(name, main) in self.model.limits:
            self.wager_shown = spot_wager(name, main)
            self._add(spot_wager(name, main))
        elif target == "button:clear":
            self.pending = {}
            self.note = ""
        elif target == "button:rebet" and self.last_bet:
            self.pending = dict(self.last_bet)
            self.note = ""
        elif target == "button:deal" and self.pending:
            if self.client.place_wagers(dict(self.pending)) is None:
                return None
            self.last_bet, self.pending, self.note = self.pending, {}, ""
        else:
            return None
        return Handled()

    def _step(self, wager: str, amounts: Sequence[int], title: str | None = None) -> None:
        """A wager offered at fixed amounts only (a $1 or $5 progressive): each tap steps it
        to the next larger amount, and past the largest it comes off (``title`` names it in
        the note: its wager name by default)."""
        placed = self.pending.get(wager, 0)
        following = [a for a in amounts if a > placed]
        if not following:
            self.pending.pop(wager, None)
            self.note = f"{title or wager_name(wager, self.model.game)} taken off"
        elif sum(self.pending.values()) - placed + following[0] > (self.model.credits or 0):
            self.note = "Not enough credits for that wager"
        else:
            self.pending[wager] = following[0]
            self.note = ""

    def _add(self, wager: str) -> None:
        """Add the selected chip to ``wager``; a wager of one amount (minimum == maximum:
        Super 4, Blackjack Match, Blazing 7's) takes exactly that amount on the first tap,
        whatever the chip, and a second tap leaves it as it is (CLEAR takes it off)."""
        limits = self.model.limits.get(wager)
        if limits is None:
            return
        placed = self.pending.get(wager, 0)
        if limits.minimum == limits.maximum:
            if placed:
                amount = format_money(limits.maximum)
                self.note = f"{wager_name(wager, self.model.game)} is a fixed {amount} wager"
                return
            added = limits.maximum
        elif (chip := self._chip()) is not None:
            added = chip
        else:
            return
        stake = placed + added
        credits = self.model.credits or 0
        main = self.model.game.main_wager
        main_stake = 0 if main is None else self.pending.get(main, 0)
        if stake > limits.maximum:
            self.note = (
                f"{wager_name(wager, self.model.game)} maximum is {format_money(limits.maximum)}"
            )
        elif wager == TRILUX and main is not None and stake > TRILUX_TIMES_MAIN * main_stake:
            # 633b.11(b): the server refuses a TriLux Deluxe wager over twice the main one.
            game = self.model.game
            self.note = f"{wager_name(wager, game)}: at most 2x your {wager_name(main, game)} bet"
        elif sum(self.pending.values()) + added > credits:
            self.note = "Not enough credits for that chip"
        else:
            self.pending[wager] = stake
            self.note = ""

    # Drawing --------------------------------------------------------------------------------

    def bet_total_centre(self, layout: Layout) -> tuple[int, int]:
        """Where the bet's total ("BET $15.00") is shown: where this terminal's cards will
        be (a table that lays its cards out elsewhere says so)."""
        centre = layout.my_hand.center
        return (centre[0], centre[1])

    def message(self) -> str:
        error = self.model.last_error
        if not betting_open(self.model):
            return "NO MORE BETS"
        if self.model.is_waiting(IntentKind.PLACE_WAGERS):
            return "Sending your bet\u2026"
        if error is not None:
            return error.message
        if self.note:
            return self.note
        if self.placed():
            return "Bet accepted \u2022 good luck"
        return "PLACE YOUR BETS"

    def spot_note(self, spot: BetSpot) -> str:
        """What a circle says under it while nothing is staked on it: its wager's limits
        (the main wager's in full)."""
        limits = self.model.limits[spot_wager(spot.id, self.model.game.main_wager)]
        return limits_text(limits.minimum, limits.maximum, short=spot.id != MAIN_SPOT)

    def draw_spots(self, surface: pygame.Surface, layout: Layout) -> None:
        """The betting circles (one element): each with its label and its stake, or its
        note while nothing is staked, and the game's own marks (:meth:`draw_spot_marks`)."""
        spots = self.spots(layout)
        with element(surface, "wagers") as target:
            for spot in spots:
                main = spot.id == MAIN_SPOT
                draw_bet_spot(target, spot, layout, self.spot_note(spot), main=main)
            self.draw_spot_marks(target, layout, spots)

    def draw_spot_marks(
        self, surface: pygame.Surface, layout: Layout, spots: Sequence[BetSpot]
    ) -> None:
        """What a game draws with its circles (a title over a group, "=" between two)."""

    def draw_bet_total(self, surface: pygame.Surface, layout: Layout) -> None:
        """The bet's total ("BET $15.00") in a panel where this terminal's cards will be."""
        s = layout.scale
        box = pygame.Rect(0, 0, round(440 * s), round(100 * s))
        box.center = self.bet_total_centre(layout)
        self.draw_bet_total_in(surface, layout, box)

    def draw_bet_total_in(self, surface: pygame.Surface, layout: Layout, box: pygame.Rect) -> None:
        """The bet's total (what is staked, or placed once betting closed) in ``box``."""
        s = layout.scale
        shown = self.pending if self._open() else self.placed()
        with element(surface, "bet") as target:
            panel(target, box, 120)
            draw_text(
                target,
                f"BET  {format_money(sum(shown.values()))}",
                box.center,
                layout.text(44),
                GOLD,
                bold=True,
                max_width=box.width - round(20 * s),
                least=layout.min_text,
            )

    def shown_countdown(self) -> Countdown | None:
        """The countdown as this screen shows it (a game may leave out what it does)."""
        return self.model.countdown

    def draw_info(self, surface: pygame.Surface, layout: Layout) -> None:
        """The information panel where the dealer's cards will be: the last round's
        results while they stay (:meth:`last_round_shown`), else what the wager last
        touched pays (:mod:`terminal_client.screens.pays`)."""
        area = info_area(layout)
        shown = self.last_round()
        if shown is not None and self.last_round_shown():
            with element(surface, "last round") as target:
                draw_last_round(target, layout, area, shown)
            return
        title, rows = pays_rows(self.model, self.wager_shown)
        if rows:
            with element(surface, "pays") as target:
                draw_pays(target, layout, area, title, rows)

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        self.draw_table(surface, layout)
        self.draw_info(surface, layout)
        self.draw_spots(surface, layout)
        self.draw_bet_total(surface, layout)
        draw_chip_tray(surface, layout, self.tray(layout))
        self.draw_buttons(surface, layout)
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_message(surface, layout, self.message())
        draw_countdown(surface, layout, self.shown_countdown(), self.countdown)

    def draw_buttons(self, surface: pygame.Surface, layout: Layout) -> None:
        """CLEAR, REBET and DEAL (and a game's own betting buttons)."""
        draw_buttons(surface, layout, self.buttons(layout))


def draw_chip_tray(surface: pygame.Surface, layout: Layout, tray: ChipTray) -> None:
    """The chips to bet with, the selected one ringed."""
    s = layout.scale
    with element(surface, "chips") as target:
        panel(target, layout.chip_tray_rect, 110)
        for slot in tray.slots():
            radius = int(slot.radius * 0.86)
            if slot.cents == tray.selected:
                pygame.draw.circle(
                    target,
                    (255, 240, 160),
                    slot.center,
                    radius + round(8 * s),
                    max(3, round(5 * s)),
                )
            draw_chip(target, slot.center, slot.cents, radius, least=layout.min_text)


def draw_placed_spots(surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
    """The betting circles with this terminal's chips on them, while the round is played."""
    placed = _placed(model)
    with element(surface, "wagers") as target:
        for spot in layout.bet_spots(
            _spot_amounts(placed, model.game.main_wager), (*model.limits, *placed)
        ):
            if spot.amount:
                draw_bet_spot(target, spot, layout, main=spot.id == MAIN_SPOT)


class PlayScreen(SceneScreen):
    """The round in play: cards, totals, the server's legal actions as buttons on this
    terminal's turn, the insurance offer, and the countdown with what it does at zero."""

    role = "play"

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        self.countdown = LocalCountdown()

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        offer = self.model.insurance
        if offer is not None:
            waiting = self.model.is_waiting(IntentKind.INSURANCE)
            allowed = {
                "insurance": offer.can_insure and offer.maximum > 0,
                "decline": True,
                "even-money": offer.can_take_even_money,
            }
            return tuple(
                Button(
                    choice,
                    _rect_box(layout.action_buttons[slot]),
                    label,
                    allowed[choice] and not waiting,
                )
                for choice, label, slot in INSURANCE_BUTTONS
                if choice != "even-money" or offer.can_take_even_money
            )
        return layout.buttons(enabled_actions(self.model), self.model.table_actions)

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        if (menu := menu_hit(layout, self.model, pos)) is not None:
            return menu
        return hit_test(pos, self.buttons(layout))

    def update(self, now: float) -> bool:
        return self.countdown.update(self.model, now)

    def handle(self, intent: Intent) -> Handled | None:
        if (menu := menu_tap(intent, self.model, self.client)) is not None:
            return menu
        if isinstance(intent, Tap) and intent.target_id.startswith("button:"):
            name = intent.target_id.removeprefix("button:")
        elif isinstance(intent, Key):
            name = intent.name
        else:
            return None
        offer = self.model.insurance
        if offer is not None:
            if self.model.is_waiting(IntentKind.INSURANCE):
                return None
            if name == "insurance" and offer.can_insure and offer.maximum > 0:
                sent = self.client.answer_insurance("insurance", offer.maximum)
            elif name == "decline" or (name == "even-money" and offer.can_take_even_money):
                sent = self.client.answer_insurance(name)
            else:
                return None
            return None if sent is None else Handled()
        hand = self.model.hand_to_act
        if name not in enabled_actions(self.model) or hand is None:
            return None
        return None if self.client.act(name, hand) is None else Handled()

    def message(self) -> str:
        model = self.model
        if model.last_error is not None:
            return model.last_error.message
        if model.insurance is not None:
            return "Dealer shows an ace: insurance? (pays 2 to 1)"
        if model.is_waiting(IntentKind.ACT):
            return "\u2026"
        if model.my_turn:
            hands = model.my_hands
            which = f" \u2022 hand {(model.hand_to_act or 0) + 1}" if len(hands) > 1 else ""
            return f"YOUR TURN{which}"
        return "Please wait \u2022 " + model.phase_name

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        self.draw_table(surface, layout)
        draw_placed_spots(surface, layout, self.model)
        draw_buttons(surface, layout, self.buttons(layout))
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_message(surface, layout, self.message())
        draw_countdown(surface, layout, self.model.countdown, self.countdown)


#: Where the results panel goes (design px): where the betting circles and chips were, which
#: the results screen has not (landscape: left of this terminal's hands, under seats 5 to
#: 7; portrait: under its hands).
RESULTS_AREA: dict[bool, tuple[int, int, int, int]] = {
    False: (24, 640, 560, 412),
    True: (24, 1240, 1032, 636),
}


def results_area(layout: Layout) -> pygame.Rect:
    """The results panel's area in ``layout``'s window."""
    return layout.design_rect(RESULTS_AREA[layout.portrait])


def result_row(
    settlement: Settlement, hands: int, main: str | None, game: ModelGame | None = None
) -> ResultRow:
    """One settled wager as the results panel shows it: its name (with the hand when this
    terminal split, for the ``main`` wager and its double), the outcome, what it won or lost
    net, the reason in plain words (a paytable line repeating a wager's title loses it, but
    for the main wager's: "Blackjack 3 to 2" says the player had one, and stays)."""
    what = wager_name(settlement.wager, game)
    if hands > 1 and settlement.wager in (main, "double"):
        what += f" \u2022 hand {settlement.hand + 1}"
    titles = set(wager_titles().values())
    if main is not None:
        titles.discard(wager_name(main, game))
    return ResultRow(
        what=what,
        detail=plain_detail(settlement.line, titles),
        outcome=outcome_word(settlement.outcome),
        net=settlement.net,
        amount=net_text(settlement.net),
    )


class ResultsScreen(SceneScreen):
    """The round's result for this terminal in the message bar (YOU WIN $31.00), and each
    of its wagers, with what it won or lost net and why in plain words, in a panel where its
    bets were (model.results)."""

    role = "results"

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        self.countdown = LocalCountdown()

    def update(self, now: float) -> bool:
        return self.countdown.update(self.model, now)

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        return menu_hit(layout, self.model, pos)

    def handle(self, intent: Intent) -> Handled | None:
        return menu_tap(intent, self.model, self.client)

    def rows(self) -> tuple[ResultRow, ...]:
        """The panel's rows, in the server's order of settlement."""
        hands = len(self.model.my_hands)
        main = self.model.game.main_wager
        game = self.model.game
        return tuple(result_row(s, hands, main, game) for s in self.model.results)

    def results_area(self, layout: Layout) -> pygame.Rect:
        """Where the panel goes (a hybrid table's screen puts it elsewhere)."""
        return results_area(layout)

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        self.draw_table(surface, layout)
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_countdown(surface, layout, self.model.countdown, self.countdown)
        if self.cards is not None:
            # The dealer's last cards are still landing: the outcome waits for them.
            draw_message(surface, layout, "RESULTS")
            return
        results = self.model.results
        title = headline((r.net for r in results), bool(results))
        draw_message(surface, layout, title, GOLD if title.startswith("YOU WIN") else CREAM)
        with element(surface, "results") as target:
            draw_results_panel(
                target, self.results_area(layout), "YOUR WAGERS", self.rows(), layout
            )
