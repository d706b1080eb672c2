"""The screens of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a):
:class:`UthBettingScreen`, :class:`UthPlayScreen` and :class:`UthResultsScreen`, picked by
:func:`uth_screen_for` when the server's view says ``"game": "uth"``.

They reuse what every table shares (chips, the betting screen's CLEAR / REBET / DEAL, the
countdown with what it does at zero, the credits, the message bar, the menu with its rules,
recall and cash out overlays, the progressive meters) over a Hold 'Em scene
(:func:`draw_uth_scene`: the dealer's two cards face down until revealed, the five community
card places, this player's two cards):

- betting: the ANTE and BLIND spots (the Blind always equals the Ante, 653a.7 as
  regs-653a.md gives it: a chip on either spot stakes both), TRIPS (653a.12(c)) and the bonus
  spots the table offers with their fixed amounts (Progressive Payout 653a.12(d), Five Card
  Hand Bonus on the player's and the dealer's hand 653a.12(e)); a tap on a bonus spot takes
  the next fixed amount, past the largest it comes off. DEAL sends ONE PlaceWagers;
- play: the decision buttons of the street (pre-flop CHECK, BET 4X, BET 3X; flop CHECK,
  BET 2X; river FOLD, BET 1X), each lit exactly when the view's legal decisions hold it;
  once the Play Wager is made no button is left; the Play Wager on its spot;
- results: each hand's best five and its category, whether the dealer qualifies, and every
  settlement of this terminal (Ante, Blind with its paytable line, Play, Trips,
  Progressive, Envy Bonus, Five Card Hand Bonus, Magic Card, Lucky Bonus) with what it paid.

What they show comes from the model (:attr:`TerminalModel.uth`, the server's last view);
the only local state is the bet being built before DEAL and the chip chosen.

Entry points: :func:`uth_screen_for`, :func:`draw_uth_scene`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

import pygame

from shared.cards import parse_card
from shared.money import format_money
from terminal_client.games.uth.model import (
    ANTE,
    BET,
    BLIND,
    CHECK,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    FIXED_WAGERS,
    FOLD,
    PLAY,
    PROGRESSIVE,
    TRIPS,
    Decision,
    UthView,
    uth_of,
    uth_wager_title,
)
from terminal_client.games.uth.recall import UthRecalledGame, uth_recall_results
from terminal_client.games.uth.render import (
    BEST_RING,
    HandBlock,
    bonus_spot_circles,
    draw_board,
    draw_hand_blocks,
    draw_info_lines,
    main_spot_circles,
    uth_areas,
)
from terminal_client.input import Intent, Key, Tap
from terminal_client.model import Countdown, IntentKind, TerminalModel
from terminal_client.render import Layout, draw_felt
from terminal_client.render.anim import CardFrame, dealer_key, seat_key
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.elements import element
from terminal_client.render.layout import DESTRUCTIVE_SLOT
from terminal_client.render.results import ResultRow, draw_results_panel
from terminal_client.render.table import draw_bet_spot, draw_hand, hand_rects
from terminal_client.screens.base import Handled, IntentSender, Screen
from terminal_client.screens.overlay import draw_lines, menu_buttons, menu_hit, menu_tap
from terminal_client.screens.results import headline, net_text, outcome_word, plain_detail
from terminal_client.screens.scene import (
    LocalCountdown,
    SceneScreen,
    _motions,
    draw_buttons,
    draw_countdown,
    draw_credits,
    draw_dealer_title,
    draw_message,
    draw_meters,
    shoe_point,
)
from terminal_client.screens.status import AttractScreen
from terminal_client.screens.table import BettingScreen, _rect_box, betting_open, limits_text
from terminal_client.widgets import BetSpot, Button, hit_test

if TYPE_CHECKING:
    from terminal_client.model import RecalledGame

__all__ = [
    "UthBettingScreen",
    "UthPlayScreen",
    "UthResultsScreen",
    "decision_buttons",
    "draw_uth_recall",
    "draw_uth_scene",
    "result_rows",
    "uth_screen_for",
    "uth_wager_title",
]

#: The main spots in the order they are laid out (Play is a decision, never tapped).
MAIN_SPOTS: Final = (ANTE, BLIND, PLAY, TRIPS)
SPOT_LABELS: Final[Mapping[str, str]] = {
    ANTE: "ANTE",
    BLIND: "BLIND",
    PLAY: "PLAY",
    TRIPS: "TRIPS",
    PROGRESSIVE: "PROGRESSIVE",
    FIVE_CARD_PLAYER: "5 CARD BONUS YOUR HAND",
    FIVE_CARD_DEALER: "5 CARD BONUS DEALER'S HAND",
}
#: The declared short names of the circles' labels (a circle too small for the label).
SPOT_SHORT: Final[Mapping[str, str]] = {
    FIVE_CARD_PLAYER: "BONUS YOUR HAND",
    FIVE_CARD_DEALER: "BONUS DEALER",
}
#: The decision buttons of each street: (button id, label, decision, Play multiple, slot of
#: the button row). CHECK keeps the first slot and the largest bet the second on every
#: street; FOLD takes the slot kept for a choice that gives up the hand
#: (:data:`~terminal_client.render.layout.DESTRUCTIVE_SLOT`), never CHECK's: a player who
#: checked the flop and taps the same place at the river folds nothing.
STREET_BUTTONS: Final[Mapping[str, tuple[tuple[str, str, str, int, str], ...]]] = {
    "preflop": (
        ("check", "CHECK", CHECK, 0, "hit"),
        ("bet-4", "BET 4X", BET, 4, "stand"),
        ("bet-3", "BET 3X", BET, 3, "double"),
    ),
    "flop": (("check", "CHECK", CHECK, 0, "hit"), ("bet-2", "BET 2X", BET, 2, "stand")),
    "river": (("bet-1", "BET 1X", BET, 1, "stand"), ("fold", "FOLD", FOLD, 0, DESTRUCTIVE_SLOT)),
}
#: The slots for a decision the view offers that its street's buttons have not.
SPARE_SLOTS: Final = ("split", "press")
STREET_NAMES: Final[Mapping[str, str]] = {
    "preflop": "PRE-FLOP",
    "flop": "FLOP",
    "river": "TURN AND RIVER",
}
#: The table printing (regs-653a.md: the dealer qualifies with a pair or better).
FELT_LINE: Final = "ULTIMATE TEXAS HOLD 'EM \u2022 DEALER QUALIFIES WITH A PAIR OR BETTER"


def uth_screen_for(model: TerminalModel) -> type[Screen]:
    """The base screen for an Ultimate Texas Hold 'Em view (the model's :attr:`uth` is set)."""
    uth = uth_of(model)
    assert uth is not None, "uth_screen_for needs an Ultimate Texas Hold 'Em view"
    if betting_open(model):
        if not model.credits and not uth.joined and not model.pending:
            return AttractScreen
        return UthBettingScreen
    if uth.joined and uth.street is not None:
        return UthPlayScreen
    if uth.results_current:
        return UthResultsScreen
    if uth.joined:
        return UthPlayScreen
    if not model.credits:
        return AttractScreen
    return UthBettingScreen  # a round is on without this terminal: "no more bets"


# Names ------------------------------------------------------------------------------------


def _same_cards(cards: Sequence[str]) -> frozenset[str]:
    """Card texts in one spelling ("10D" and "TD" are the same card)."""
    return frozenset(str(parse_card(c)) for c in cards)


def _in(card: str | None, cards: frozenset[str]) -> bool:
    return card is not None and str(parse_card(card)) in cards


#: The names a Hold 'Em paytable line gives its own wager (left out of the plain words).
LINE_TITLES: Final = (
    "Ante",
    "Blind",
    "Play",
    "Trips",
    "Progressive Payout",
    "Envy Bonus",
    *(
        f"{what} ({whose}'s hand)"
        for what in ("Five Card Hand Bonus", "Magic Card", "Lucky Bonus")
        for whose in ("player", "dealer")
    ),
)


def result_rows(uth: UthView) -> tuple[ResultRow, ...]:
    """The results panel's rows: every settlement of this terminal, in the server's order,
    with what it won or lost net of its stake and the reason in plain words."""
    return tuple(
        ResultRow(
            what=uth_wager_title(s.wager),
            detail=plain_detail(s.line, LINE_TITLES),
            outcome=outcome_word(s.outcome),
            net=s.net,
            amount=net_text(s.net),
        )
        for s in uth.view.settlements
    )


def hand_blocks(uth: UthView) -> tuple[HandBlock, ...]:
    """The hands panel: the dealer's hand (whether it qualifies), this player's, and the
    Magic Card and Lucky Bonus position drawn (653a.12(e)(3))."""
    blocks = []
    dealer = uth.dealer
    if dealer.hand is not None:
        note = ""
        if dealer.qualifies is not None:
            note = "QUALIFIES" if dealer.qualifies else "DOES NOT QUALIFY"
        blocks.append(
            HandBlock("DEALER", dealer.hand.name, note, dealer.hand.five, dealer.qualifies is True)
        )
    me = uth.me
    if me is not None and me.hand is not None:
        note = "FOLDED" if me.status == "folded" else ""
        blocks.append(HandBlock("YOU", me.hand.name, note, me.hand.five, not note))
    if uth.magic_card is not None or uth.lucky_position is not None:
        # 653a.12(e)(3): the card and the position the table game system drew.
        lucky = uth.lucky_position
        where = "" if lucky is None else "DEALER" if lucky == 0 else f"SEAT {lucky}"
        if lucky is not None and lucky == uth.view.seat:
            where += " (YOU)"
        elif lucky and lucky not in {seat.seat for seat in uth.seats}:
            where += " (NO PLAYER)"
        if uth.magic_card is not None:
            blocks.append(HandBlock("MAGIC CARD", parse_card(uth.magic_card).symbol, "", ()))
        if where:
            blocks.append(HandBlock("LUCKY BONUS", where, "", ()))
    return tuple(blocks)


def shown_countdown(model: TerminalModel) -> Countdown | None:
    """The countdown as this terminal shows it: the shared decision countdown says what it
    will do ("then: check") only to a seat it will do it for (one still to decide)."""
    countdown = model.countdown
    uth = uth_of(model)
    if countdown is None or uth is None or countdown.kind != "decision":
        return countdown
    if uth.view.seat in uth.to_act:
        return countdown
    return replace(countdown, then=None)


def other_hands(uth: UthView) -> list[tuple[str, str]]:
    """The other seats of the round at the showdown: each one's hand (653a.12(d)(5): an
    Envy Bonus is paid on another player's hand) and what it did."""
    rows = []
    for seat in uth.seats:
        if seat.mine:
            continue
        name = "" if seat.hand is None else seat.hand.name
        did = "FOLDED" if seat.status == "folded" else ""
        if seat.play_multiple:
            did = f"PLAYED {seat.play_multiple}X"
        rows.append((f"Seat {seat.seat}: {name}" if name else f"Seat {seat.seat}", did))
    return rows


# The scene --------------------------------------------------------------------------------


def offered_spots(uth: UthView | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(main spots, bonus spots) of the wagers the table offers (the view's limits)."""
    offered = () if uth is None else tuple(uth.view.limits)
    main = tuple(w for w in MAIN_SPOTS if w == PLAY or w in offered)
    bonus = tuple(w for w in FIXED_WAGERS if w in offered)
    return main, bonus


def spots_for(
    layout: Layout, uth: UthView | None, amounts: Mapping[str, int], enabled: bool
) -> tuple[BetSpot, ...]:
    """The betting spots with what is staked on each; Play is never a touch target."""
    main, bonus = offered_spots(uth)
    circles = {**main_spot_circles(layout, main), **bonus_spot_circles(layout, bonus)}
    spots = []
    for wager in (*main, *bonus):
        center, radius = circles[wager]
        spots.append(
            BetSpot(
                wager,
                center,
                radius,
                SPOT_LABELS.get(wager, wager.upper()),
                amounts.get(wager, 0),
                enabled and wager != PLAY,
                SPOT_SHORT.get(wager, ""),
            )
        )
    return tuple(spots)


def _spot_note(uth: UthView, wager: str) -> str:
    if wager == PLAY:
        return "4X \u2022 3X \u2022 2X \u2022 1X"
    if wager == BLIND:
        return "= ANTE"
    fixed = uth.amounts.get(wager)
    if fixed:
        return " / ".join(format_money(a).removesuffix(".00") for a in fixed)
    limits = uth.view.limits.get(wager)
    return "" if limits is None else limits_text(limits.minimum, limits.maximum, short=True)


def draw_spots(
    surface: pygame.Surface, layout: Layout, uth: UthView, spots: Sequence[BetSpot]
) -> None:
    """The spots (one element), each with its limits or fixed amounts under it; "="
    between Ante and Blind (the Blind equals the Ante)."""
    with element(surface, "wagers") as target:
        for spot in spots:
            draw_bet_spot(target, spot, layout, _spot_note(uth, spot.id))
        by_id = {spot.id: spot for spot in spots}
        if ANTE in by_id and BLIND in by_id:
            a, b = by_id[ANTE], by_id[BLIND]
            mid = ((a.center[0] + b.center[0]) // 2, a.center[1])
            draw_text(target, "=", mid, layout.text(40), GOLD, bold=True, least=layout.min_text)


def ring_rect(card: pygame.Rect, scale: float) -> pygame.Rect:
    """The outline of a card of a hand's best five: just outside the card, inside the gap
    (:func:`card_gap`) that keeps it clear of its neighbour's."""
    return card.inflate(2 * round(4 * scale), 2 * round(4 * scale))


def card_gap(scale: float) -> int:
    """The space between two cards of a Hold 'Em hand: two outlines and a margin."""
    return 2 * round(4 * scale) + max(4, round(8 * scale))


def _ring(surface: pygame.Surface, card: pygame.Rect, scale: float) -> None:
    pygame.draw.rect(surface, BEST_RING, ring_rect(card, scale), max(2, round(4 * scale)), 6)


def _draw_dealer(
    surface: pygame.Surface, layout: Layout, uth: UthView, frame: CardFrame | None
) -> None:
    """The dealer's two cards side by side (face down until revealed), each of his best five
    outlined, and his hand's name and whether it qualifies."""
    s = layout.scale
    area = layout.dealer
    draw_dealer_title(surface, layout)
    cards = uth.dealer.cards
    motions = _motions(frame, [dealer_key(i) for i in range(len(cards))])
    card_h = round(area.height * 0.62)
    cards_area = area.move(0, round(40 * s))
    gap = card_gap(s)
    draw_hand(surface, cards_area, cards, card_h, motions=motions, shoe=shoe_point(layout), gap=gap)
    dealer = uth.dealer
    if dealer.hand is not None and (motions is None or all(m.landed for m in motions)):
        best = _same_cards(dealer.hand.five)
        places = hand_rects(cards_area, len(cards), card_h, gap)
        for card, rect in zip(cards, places, strict=False):
            if _in(card, best):
                _ring(surface, rect, s)
        text = dealer.hand.name
        if dealer.qualifies is not None:
            text += " \u2022 " + ("QUALIFIES" if dealer.qualifies else "DOES NOT QUALIFY")
        draw_text(
            surface,
            text,
            area.midbottom,
            layout.text(26),
            CREAM,
            "midbottom",
            bold=True,
            max_width=area.width,
            least=layout.min_text,
        )


def draw_uth_scene(
    surface: pygame.Surface,
    layout: Layout,
    uth: UthView | None,
    *,
    cards: CardFrame | None = None,
    dealt: bool = True,
) -> None:
    """The felt, the table printing, the dealer's two cards (face down until revealed), the
    five community card places and, once ``dealt``, this player's two cards side by side
    (each card of a hand's best five outlined once it is known; a folded hand dimmed, and
    said so above it); the progressive meters. With ``cards`` the cards in it move as at
    every table."""
    draw_felt(surface, layout.window)
    areas = uth_areas(layout)
    with element(surface, "table printing") as target:
        draw_text(
            target,
            FELT_LINE,
            areas.felt_line,
            layout.text(22),
            GOLD,
            "midtop",
            bold=True,
            max_width=areas.board.width,
            least=layout.min_text,
        )
    if uth is None:
        return
    with element(surface, "dealer") as target:
        _draw_dealer(target, layout, uth, cards)
    mine = uth.my_hand
    best = _same_cards(mine.five) if mine is not None else frozenset()
    with element(surface, "board") as target:
        draw_board(target, areas.board, uth.board, layout, best)
    draw_meters(surface, layout, uth.view.meters)
    if not dealt or not uth.hole:
        return
    with element(surface, "your cards") as target:
        _draw_hole(target, layout, uth, best, cards)


def _draw_hole(
    surface: pygame.Surface,
    layout: Layout,
    uth: UthView,
    best: frozenset[str],
    frame: CardFrame | None,
) -> None:
    s = layout.scale
    hole = uth_areas(layout).hole
    title = "YOUR CARDS \u2022 FOLDED" if uth.folded else "YOUR CARDS"
    draw_text(
        surface,
        title,
        (hole.centerx, hole.top),
        layout.text(22),
        GOLD,
        "midtop",
        True,
        least=layout.min_text,
    )
    keys = [seat_key(uth.view.seat, 0, i) for i in range(len(uth.hole))]
    motions = _motions(frame, keys)
    cards_area = pygame.Rect(hole.left, hole.top + round(30 * s), hole.width, hole.height)
    card_h = hole.height - round(40 * s)
    gap = card_gap(s)
    draw_hand(
        surface, cards_area, uth.hole, card_h, motions=motions, shoe=shoe_point(layout), gap=gap
    )
    landed = motions is None or all(m.landed for m in motions)
    places = hand_rects(cards_area, len(uth.hole), card_h, gap)
    if uth.folded and landed:
        for rect in places:  # a folded hand is dimmed, its cards still readable
            veil = pygame.Surface(rect.size, pygame.SRCALPHA)
            veil.fill((0, 0, 0, 110))
            surface.blit(veil, rect)
    elif best and landed:
        for card, rect in zip(uth.hole, places, strict=False):
            if _in(card, best):
                _ring(surface, rect, s)


def _status(uth: UthView) -> list[tuple[str, str]]:
    """The information panel's rows: this player's hand so far and Play Wager, and where
    every seat of the round is on this street."""
    rows: list[tuple[str, str]] = []
    me = uth.me
    if me is not None:
        if me.hand is not None:
            rows.append(("Your hand", me.hand.name))
        if me.play_multiple:
            rows.append(
                ("Play wager", f"{me.play_multiple}X {format_money(me.wagers.get(PLAY, 0))}")
            )
        elif me.status == "folded":
            rows.append(("Play wager", "FOLDED"))
        stake = sum(me.wagers.values())
        rows.append(("In play", format_money(stake)))
    words = {
        "waiting": "TO DECIDE",
        "decided": "CHECKED",
        "played": "PLAYED",
        "folded": "FOLDED",
        "betting": "BET",
    }
    for seat in uth.seats:
        word = words.get(seat.status, seat.status.upper())
        if seat.status == "played":
            word = f"PLAYED {seat.play_multiple}X"
        rows.append((f"Seat {seat.seat}" + (" (you)" if seat.mine else ""), word))
    return rows


# Betting ----------------------------------------------------------------------------------


class UthBettingScreen(BettingScreen):
    """Betting at a Hold 'Em table: a chip on ANTE or BLIND stakes both (the Blind equals
    the Ante), TRIPS takes chips up to its maximum, a bonus spot takes the table's next
    fixed amount; DEAL sends ONE PlaceWagers."""

    @property
    def uth(self) -> UthView | None:
        return uth_of(self.model)

    def spots(self, layout: Layout) -> tuple[BetSpot, ...]:
        shown = self.pending if self._open() else self.placed()
        return spots_for(layout, self.uth, shown, self._open())

    def handle(self, intent: Intent) -> Handled | None:
        target = intent.target_id if isinstance(intent, Tap) else None
        if isinstance(intent, Key) and intent.name == "confirm":
            target = "button:deal"
        if target == "button:deal" and self._open():
            return self._deal()
        return super().handle(intent)

    def _deal(self) -> Handled | None:
        """Check the bet against what the server will ask, then send it."""
        if not self.pending:
            return None
        limits = self.model.limits
        ante = self.pending.get(ANTE, 0)
        if ante == 0:
            self.note = "Place an Ante (and the equal Blind) first"
            return Handled()
        for wager in (ANTE, TRIPS):
            stake = self.pending.get(wager)
            lim = limits.get(wager)
            if stake and lim is not None and stake < lim.minimum:
                self.note = f"{uth_wager_title(wager)} minimum is {format_money(lim.minimum)}"
                return Handled()
        if self.client.place_wagers(dict(self.pending)) is None:
            return None
        self.last_bet, self.pending, self.note = self.pending, {}, ""
        return Handled()

    def _add(self, wager: str) -> None:
        """A chip on Ante or Blind adds to both; Trips takes the chip; a bonus spot steps
        to the next fixed amount (past the largest it comes off)."""
        limits = self.model.limits.get(wager)
        uth = self.uth
        if limits is None or uth is None or wager == PLAY:
            return
        credits = self.model.credits or 0
        staked = sum(self.pending.values())
        placed = self.pending.get(wager, 0)
        fixed = uth.amounts.get(wager)
        if fixed:
            self._step(wager, fixed, uth_wager_title(wager))
            return
        chip = self._chip()
        if chip is None:
            return
        if wager in (ANTE, BLIND):
            ante_limits = self.model.limits.get(ANTE, limits)
            ante = self.pending.get(ANTE, 0) + chip
            if ante > ante_limits.maximum:
                self.note = f"Ante maximum is {format_money(ante_limits.maximum)}"
            elif staked + 2 * chip > credits:
                self.note = "Not enough credits: the Blind equals the Ante"
            else:
                self.pending[ANTE] = ante
                self.pending[BLIND] = ante
                self.note = ""
            return
        stake = placed + chip
        if stake > limits.maximum:
            self.note = f"{uth_wager_title(wager)} maximum is {format_money(limits.maximum)}"
        elif staked + chip > credits:
            self.note = "Not enough credits for that chip"
        else:
            self.pending[wager] = stake
            self.note = ""

    def message(self) -> str:
        text = super().message()
        view = self.model.view
        if text == "NO MORE BETS" and view is not None and view.machine == "next-round":
            return "THE NEXT ROUND OPENS SHORTLY"
        if text == "PLACE YOUR BETS" and not self.pending:
            return "PLACE YOUR ANTE \u2022 THE BLIND EQUALS IT"
        return text

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_uth_scene(
            surface,
            layout,
            self.uth,
            cards=self.cards,
            dealt=not betting_open(self.model),
        )

    def draw_spots(self, surface: pygame.Surface, layout: Layout) -> None:
        uth = self.uth
        if uth is not None:
            draw_spots(surface, layout, uth, self.spots(layout))

    def draw_bet_total(self, surface: pygame.Surface, layout: Layout) -> None:
        """The bet's total where this player's two cards will be (while betting is open,
        or until they are dealt)."""
        s = layout.scale
        uth = self.uth
        if not betting_open(self.model) and uth is not None and uth.hole:
            return
        hole = uth_areas(layout).hole
        box = pygame.Rect(0, 0, hole.width - round(40 * s), round(100 * s))
        box.center = hole.center
        self.draw_bet_total_in(surface, layout, box)

    def shown_countdown(self) -> Countdown | None:
        return shown_countdown(self.model)


# Play ---------------------------------------------------------------------------------------


def decision_buttons(model: TerminalModel, layout: Layout) -> tuple[Button, ...]:
    """The street's decision buttons (:data:`STREET_BUTTONS`), each lit exactly when the
    view's legal decisions hold it (on this terminal's turn, no decision awaiting its
    answer); a decision the view offers that the street's set has not gets a button too,
    in a spare slot. None once the Play Wager is made or the hand folded."""
    uth = uth_of(model)
    if uth is None or uth.street is None or uth.play_multiple or uth.folded:
        return ()
    wanted = list(STREET_BUTTONS[uth.street])
    spare = iter(SPARE_SLOTS)
    for d in uth.legal:
        if not any(d.action == a and d.multiple == m for _, _, a, m, _ in wanted):
            bid = f"bet-{d.multiple}" if d.action == BET else d.action
            label = f"BET {d.multiple}X" if d.action == BET else d.action.upper()
            slot = DESTRUCTIVE_SLOT if d.action == FOLD else next(spare, None)
            if slot is not None:
                wanted.append((bid, label, d.action, d.multiple, slot))
    live = model.my_turn and not model.is_waiting(IntentKind.ACT)
    return tuple(
        Button(
            bid,
            _rect_box(layout.action_buttons[slot]),
            label,
            live and uth.decision(action, multiple) is not None,
        )
        for bid, label, action, multiple, slot in wanted
    )


def button_decision(uth: UthView, button_id: str) -> Decision | None:
    """The legal decision behind a button id (``"check"``, ``"bet-4"``, ``"fold"``)."""
    if button_id.startswith("bet-"):
        number = button_id.removeprefix("bet-")
        return uth.decision(BET, int(number)) if number.isdigit() else None
    return uth.decision(button_id)


class UthPlayScreen(SceneScreen):
    """The round in play: the cards, the street's decision buttons lit from the view's
    legal decisions, the wagers on their spots, and the countdown with what it does."""

    role = "play"

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        self.countdown = LocalCountdown()

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        return decision_buttons(self.model, layout)

    def hit_test(self, layout: Layout, pos: tuple[int, int]) -> str | None:
        if (menu := menu_hit(layout, self.model, pos)) is not None:
            return menu
        return hit_test(pos, self.buttons(layout))

    def update(self, now: float) -> bool:
        return self.countdown.update(self.model, now)

    def handle(self, intent: Intent) -> Handled | None:
        if (menu := menu_tap(intent, self.model, self.client)) is not None:
            return menu
        uth = uth_of(self.model)
        if uth is None or not isinstance(intent, Tap):
            return None
        if not intent.target_id.startswith("button:"):
            return None
        name = intent.target_id.removeprefix("button:")
        if not self.model.my_turn or self.model.is_waiting(IntentKind.ACT):
            return None
        decision = button_decision(uth, name)
        if decision is None:
            return None
        sent = self.client.act(decision.action, 0, decision.multiple)
        return None if sent is None else Handled()

    def message(self) -> str:
        model = self.model
        uth = uth_of(model)
        if model.last_error is not None:
            return model.last_error.message
        if model.is_waiting(IntentKind.ACT):
            return "\u2026"
        if uth is None:
            return "Please wait"
        street = STREET_NAMES.get(uth.street or "", "")
        if model.my_turn and uth.legal:
            if uth.street == "preflop":
                return f"{street} \u2022 CHECK, OR BET 4X OR 3X THE ANTE"
            if uth.street == "flop":
                return f"{street} \u2022 CHECK, OR BET 2X THE ANTE"
            return f"{street} \u2022 BET 1X THE ANTE, OR FOLD"
        if uth.folded:
            return "You folded \u2022 waiting for the showdown"
        if uth.play_multiple:
            return f"PLAY {uth.play_multiple}X \u2022 waiting for the showdown"
        if uth.street is not None:
            return f"{street} \u2022 waiting for the other players"
        return "Showdown"

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_uth_scene(surface, layout, uth_of(self.model), cards=self.cards)

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        self.draw_table(surface, layout)
        uth = uth_of(self.model)
        if uth is not None:
            draw_spots(surface, layout, uth, spots_for(layout, uth, dict(uth.wagers), False))
            with element(surface, "this round") as target:
                draw_info_lines(target, uth_areas(layout).info, "THIS ROUND", _status(uth), layout)
        draw_buttons(surface, layout, self.buttons(layout))
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_message(surface, layout, self.message())
        draw_countdown(surface, layout, shown_countdown(self.model), self.countdown)


# Results ------------------------------------------------------------------------------------


def results_title(uth: UthView) -> str:
    """The round's result for this terminal (YOU WIN $15.00)."""
    settlements = uth.view.settlements
    return headline((r.net for r in settlements), bool(settlements))


class UthResultsScreen(SceneScreen):
    """Each hand's best five and category, whether the dealer qualifies, and each wager of
    this terminal with its paytable line and what it paid."""

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
        """Each settled wager of this terminal (:func:`result_rows`)."""
        uth = uth_of(self.model)
        return () if uth is None else result_rows(uth)

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        uth = uth_of(self.model)
        draw_uth_scene(surface, layout, uth, cards=self.cards)
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_countdown(surface, layout, shown_countdown(self.model), self.countdown)
        if uth is None or self.cards is not None:
            # The outcome waits for the dealer's cards to land face up.
            draw_message(surface, layout, "RESULTS")
            return
        title = results_title(uth)
        draw_message(surface, layout, title, GOLD if title.startswith("YOU WIN") else CREAM)
        areas = uth_areas(layout)
        with element(surface, "hands") as target:
            draw_hand_blocks(target, areas.hands, hand_blocks(uth), layout)
        with element(surface, "results") as target:
            draw_results_panel(target, areas.results, "YOUR WAGERS", result_rows(uth), layout)
        others = other_hands(uth)
        if others:
            with element(surface, "other hands") as target:
                draw_info_lines(target, areas.others, "OTHER HANDS", others, layout, fit=True)


# Recall ---------------------------------------------------------------------------------


def draw_uth_recall(
    surface: pygame.Surface, layout: Layout, area: pygame.Rect, game: RecalledGame
) -> None:
    """The dealer's two cards, the community cards and this terminal's two cards, each with
    its hand's name, then the results."""
    s = layout.scale
    card_h = round(112 * s)
    y = area.top
    uth = game if isinstance(game, UthRecalledGame) else None
    rows = (
        ("Dealer", None if uth is None else uth.dealer_hand_name, game.dealer_cards),
        ("Community cards", None, () if uth is None else uth.board),
        ("Your cards", None if uth is None else uth.hand_name, game.hands[0] if game.hands else ()),
    )
    for label, name, cards in rows:
        title = f"{label}: {name}" if name else label
        draw_text(
            surface,
            title,
            (area.left, y),
            layout.text(25),
            GOLD,
            "topleft",
            True,
            least=layout.min_text,
        )
        draw_hand(
            surface,
            pygame.Rect(area.left, y + round(32 * s), area.width, card_h),
            tuple(cards),
            card_h,
        )
        y += card_h + round(44 * s)
    results = pygame.Rect(area.left, y, area.width, area.bottom - y)
    draw_lines(surface, layout, results, uth_recall_results(game), size=20, pitch=26)
    if not game.results:
        draw_text(
            surface,
            "Not settled yet",
            results.topleft,
            layout.text(24),
            CREAM,
            "topleft",
            least=layout.min_text,
        )
