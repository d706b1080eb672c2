"""The screens of a hybrid Blackjack table (58 Pa. Code 633b.5, stadium play):
:class:`HybridBettingScreen`, :class:`HybridPlayScreen` and :class:`HybridResultsScreen`,
picked by :func:`hybrid_screen_for` when the server's view is of a hybrid table.

They are the fully automated table's screens (:mod:`terminal_client.screens.table`: chips,
betting circles, DEAL, the action and insurance buttons, the countdown, the results panel,
the menu and its overlays) over a hybrid scene (:func:`draw_hybrid_scene`):

- at the three-position table (633b.5(a)-(v)) the player first chooses position 1, 2 or 3
  (633b.5(l)); DEAL sends ONE PlaceWagers with the position. In play the community box
  shows the community cards in the order drawn, numbered, with the ones in this player's
  hands ringed (633b.5(q)), and the positions' first cards with his own highlighted;
- at the table without a hole card (633b.5(w)-(ee)) the community box rings each community
  card by where THIS player's choices sent it: to his hand (gold) or to HIS dealer hand
  (blue, 633b.5(y)(4), (aa), (bb)); the dealer's area shows his own dealer hand.

What they show comes from the model (:attr:`TerminalModel.hybrid`, the server's last view);
the only local state is the bet being built before DEAL, the chip and the position chosen.

Entry points: :func:`hybrid_screen_for`, :func:`draw_hybrid_scene`.
"""

from __future__ import annotations

import pygame

from shared.money import format_money
from terminal_client.games.hybrid.model import (
    POSITIONS,
    TO_DEALER,
    TO_HAND,
    HybridView,
    NoHoleCardCards,
    ThreePositionCards,
    hybrid_of,
)
from terminal_client.games.hybrid.render import (
    DEALER_RING,
    CommunityTile,
    HandTile,
    PositionTile,
    draw_community_box,
    draw_hand_tiles,
    draw_legend,
    draw_marked_hand,
    draw_position_tiles,
    hybrid_areas,
)
from terminal_client.input import Intent, Key, Tap
from terminal_client.model import IntentKind, TerminalModel
from terminal_client.render import Layout, draw_button, draw_felt
from terminal_client.render.anim import CardFrame, dealer_key, seat_key
from terminal_client.render.draw import (
    CREAM,
    GOLD,
    button_text_size,
    draw_fitted,
    draw_text,
)
from terminal_client.render.elements import element
from terminal_client.render.results import ResultRow, draw_results_panel
from terminal_client.screens.base import Handled, IntentSender, Screen
from terminal_client.screens.overlay import menu_buttons
from terminal_client.screens.scene import (
    _motions,
    _shown_total,
    draw_buttons,
    draw_countdown,
    draw_credits,
    draw_message,
    panel,
    shoe_point,
)
from terminal_client.screens.status import AttractScreen
from terminal_client.screens.table import (
    BettingScreen,
    PlayScreen,
    ResultsScreen,
    _rect_box,
    betting_open,
    draw_placed_spots,
    enabled_actions,
    result_row,
)
from terminal_client.widgets import Button

#: The position buttons' ids (target ``"button:position-1"`` ...).
POSITION_BUTTON = "position-{}"
#: The table printing under the dealer (633b.5(c)(2), (v)(1)-(2), (ee)).
FELT_LINE = "BLACKJACK PAYS 3 TO 2 \u2022 INSURANCE PAYS 2 TO 1 \u2022 DEALER STANDS ON ALL 17s"

__all__ = [
    "HybridBettingScreen",
    "HybridPlayScreen",
    "HybridResultsScreen",
    "community_tiles",
    "draw_hybrid_scene",
    "hybrid_screen_for",
    "position_tiles",
]


def hybrid_screen_for(model: TerminalModel) -> type[Screen]:
    """The base screen for a hybrid table's view (the model's :attr:`hybrid` is set)."""
    hybrid = hybrid_of(model)
    assert hybrid is not None, "hybrid_screen_for needs a hybrid view"
    if betting_open(model):
        if not model.credits and not hybrid.joined and not model.pending:
            return AttractScreen
        return HybridBettingScreen
    if hybrid.joined and model.phase in ("insurance", "playing"):
        return HybridPlayScreen
    if hybrid.results_current:
        return HybridResultsScreen
    if hybrid.joined:
        return HybridPlayScreen
    if not model.credits:
        return AttractScreen
    return HybridBettingScreen  # a round is on without this terminal: "no more bets"


# What the scene shows, from the model ----------------------------------------------------------


def community_tiles(hybrid: HybridView) -> tuple[CommunityTile, ...]:
    """The community box's cards: numbered in the order drawn, each tagged with where it
    went for this player (his hand; at the no-hole-card table also his dealer hand)."""
    many = len(hybrid.hands) > 1
    tiles = []
    for card in hybrid.cards.community:
        if card.use == TO_HAND:
            tag = f"HAND {card.hand + 1}" if many and card.hand is not None else "YOUR HAND"
        elif card.use == TO_DEALER:
            tag = "YOUR DEALER"
        else:
            tag = ""
        tiles.append(
            CommunityTile(card.number, card.card, tag, card.use == TO_HAND, card.use == TO_DEALER)
        )
    return tuple(tiles)


def position_tiles(hybrid: HybridView) -> tuple[PositionTile, ...]:
    """Three-position table: each position's two first cards, this player's highlighted;
    no-hole-card table: the first cards every player shares and the dealer's up card."""
    cards = hybrid.cards
    if isinstance(cards, NoHoleCardCards):
        return (
            PositionTile("FIRST CARDS", cards.first_cards, "EVERY PLAYER", hybrid.joined),
            PositionTile("DEALER UP CARD", () if cards.up_card is None else (cards.up_card,)),
        )
    dealt = {p.position: p.cards for p in cards.positions}
    tiles = []
    for number in POSITIONS:
        mine = number == cards.position
        played = "PLAYED" if hybrid.view.phase == "complete" else "IN PLAY"
        note = "YOU" if mine else played if number in dealt else ""
        tiles.append(PositionTile(f"POSITION {number}", dealt.get(number, ()), note, mine))
    return tuple(tiles)


def _hand_info(wagers: int, done: bool, settled: bool, active: bool) -> str:
    state = "SETTLED" if settled else "DONE" if done else "TO ACT" if active else ""
    return " \u2022 ".join(t for t in (format_money(wagers), state) if t)


def _legend(hybrid: HybridView) -> tuple[str, tuple[str, ...]]:
    if hybrid.three_position:
        return "THREE-POSITION HYBRID", (
            "Each player who draws takes community",
            "cards #1, #2, #3 ... in order.",
            "Gold ring: a card in your hand.",
            "Positions 1 to 3: the first cards.",
        )
    return "HYBRID \u2022 NO HOLE CARD", (
        "Your choices send each community card",
        "to your hand or to YOUR dealer hand.",
        "Gold ring: to your hand.",
        "Blue ring: to your dealer hand.",
    )


def _draw_dealer(
    surface: pygame.Surface, layout: Layout, hybrid: HybridView, frame: CardFrame | None
) -> None:
    s = layout.scale
    dealer_area = layout.dealer
    mine = isinstance(hybrid.cards, NoHoleCardCards) and hybrid.joined
    title = "YOUR DEALER HAND" if mine else "DEALER"
    draw_text(
        surface,
        title,
        (dealer_area.centerx, dealer_area.top),
        layout.text(26),
        GOLD,
        "midtop",
        True,
        least=layout.min_text,
    )
    dealt = hybrid.view.dealer.cards
    marks = () if hybrid.dealer is None else hybrid.dealer.community
    motions = _motions(frame, [dealer_key(i) for i in range(len(dealt))])
    draw_marked_hand(
        surface,
        dealer_area.move(0, round(40 * s)),
        dealt,
        marks,
        round(dealer_area.height * 0.62),
        ring=DEALER_RING,
        motions=motions,
        shoe=shoe_point(layout),
        least=layout.min_text,
    )
    total = _shown_total(dealt, motions, hybrid.view.dealer.total_text)
    if total:
        draw_text(
            surface,
            total,
            dealer_area.midbottom,
            layout.text(28),
            CREAM,
            "midbottom",
            least=layout.min_text,
        )


def draw_hybrid_scene(
    surface: pygame.Surface,
    layout: Layout,
    hybrid: HybridView | None,
    *,
    cards: CardFrame | None = None,
    dealt: bool = True,
    legend: bool = True,
    community: bool = True,
) -> None:
    """The felt, the dealer hand this player faces (the hole card face down until it is
    turned up), the table printing and, once cards are ``dealt``, the positions' (or the
    shared) first cards, the community box and this player's hands; the ``legend`` says
    what the rings mean (``community``: False leaves the community box out, for the
    results panel in its place). With ``cards`` the cards in it move as on the fully
    automated table."""
    draw_felt(surface, layout.window)
    areas = hybrid_areas(layout)
    with element(surface, "table printing") as target:
        draw_text(
            target,
            FELT_LINE,
            areas.felt_line,
            layout.text(22),
            GOLD,
            "midtop",
            bold=True,
            least=layout.min_text,
        )
    if hybrid is None:
        return
    with element(surface, "dealer") as target:
        _draw_dealer(target, layout, hybrid, cards)
    if legend:
        title, lines = _legend(hybrid)
        with element(surface, "legend") as target:
            draw_legend(target, areas.legend, title, lines, layout)
    if not dealt:
        return
    with element(surface, "positions") as target:
        draw_position_tiles(target, areas.positions, position_tiles(hybrid), layout)
    if community:
        settled = hybrid.view.phase == "complete"
        empty = "No community card was drawn this round" if settled else "No community card yet"
        with element(surface, "community cards") as target:
            draw_community_box(
                target, areas.community, community_tiles(hybrid), layout, empty=empty
            )
    to_act = hybrid.view.to_act
    tiles = []
    for hand in hybrid.hands:
        keys = [seat_key(hybrid.view.seat, hand.index, i) for i in range(len(hand.cards))]
        motions = _motions(cards, keys)
        active = to_act is not None and to_act[1] == hand.index and bool(hybrid.view.actions)
        tiles.append(
            HandTile(
                cards=hand.cards,
                community=hand.community,
                total=_shown_total(hand.cards, motions, hand.total_text),
                info=_hand_info(sum(hand.wagers.values()), hand.done, hand.settled, active),
                active=active,
                motions=motions,
            )
        )
    with element(surface, "your hands") as target:
        draw_hand_tiles(target, areas.hands, tiles, layout, shoe=shoe_point(layout))


def _draw_one_set(surface: pygame.Surface, layout: Layout, band: pygame.Rect) -> None:
    """The table without a hole card's betting note: one set of cards for every player
    (633b.5(y)), each line wrapped to the band."""
    s = layout.scale
    panel(surface, band, 120)
    lines = (
        ("NO HOLE CARD \u2022 ONE SET OF CARDS FOR EVERY PLAYER", 30, GOLD, True),
        (
            "Your own choices send each community card to your hand or your dealer hand",
            24,
            CREAM,
            False,
        ),
    )
    room = band.width - round(30 * s)
    y = band.top + round(24 * s)
    for text, design, color, bold in lines:
        top = (band.centerx, y)
        y = draw_fitted(
            surface, text, top, layout.text(design), layout.min_text, room, color, bold=bold
        )
        y += round(12 * s)


# Betting ------------------------------------------------------------------------------------


class HybridBettingScreen(BettingScreen):
    """Betting at a hybrid table: at the three-position table a position button first
    (633b.5(l)), then chips onto the Blackjack circle and the offered side wagers' circles;
    DEAL sends ONE PlaceWagers (with the position)."""

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        # The position of the last bet the server took stays chosen in the next round.
        last = model.accepted(IntentKind.PLACE_WAGERS)
        self.position: int | None = None if last is None else last.arguments.get("position")

    @property
    def hybrid(self) -> HybridView | None:
        return hybrid_of(self.model)

    def _three_position(self) -> bool:
        hybrid = self.hybrid
        return hybrid is not None and hybrid.three_position

    def _joined(self) -> bool:
        hybrid = self.hybrid
        return hybrid is not None and hybrid.joined

    def _open(self) -> bool:
        return betting_open(self.model) and not self._joined()

    def placed(self) -> dict[str, int]:
        """The wagers in the round: the hands' once dealt, before that the bet this screen
        sent and the server took (the hybrid view names no wager before the deal)."""
        if not self._joined():
            return {}
        return super().placed() or dict(self.last_bet)

    def chosen_position(self) -> int | None:
        """The position taken (the server's, once joined) or chosen for DEAL."""
        hybrid = self.hybrid
        if hybrid is not None and hybrid.joined:
            return hybrid.position
        return self.position

    def position_buttons(self, layout: Layout) -> tuple[Button, ...]:
        """POSITION 1, 2, 3 (three-position table, while betting is open)."""
        if not self._three_position() or not betting_open(self.model):
            return ()
        enabled = self._open() and not self.model.is_waiting(IntentKind.PLACE_WAGERS)
        rects = hybrid_areas(layout).position_buttons
        return tuple(
            Button(POSITION_BUTTON.format(n), _rect_box(rect), f"POSITION {n}", enabled)
            for n, rect in zip(POSITIONS, rects, strict=True)
        )

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        buttons = super().buttons(layout)
        if self._three_position() and self.position is None:
            # DEAL is not lit until a position is chosen.
            buttons = tuple(
                Button(b.id, b.rect, b.label, False) if b.id == "deal" else b for b in buttons
            )
        return (*self.position_buttons(layout), *buttons)

    def handle(self, intent: Intent) -> Handled | None:
        target = intent.target_id if isinstance(intent, Tap) else None
        if isinstance(intent, Key) and intent.name == "confirm":
            target = "button:deal"
        if target is not None and self._open():
            kind, _, name = target.partition(":")
            if kind == "button" and name.startswith("position-") and self._three_position():
                number = int(name.removeprefix("position-"))
                if number in POSITIONS and not self.model.is_waiting(IntentKind.PLACE_WAGERS):
                    self.position = number
                    self.note = ""
                    return Handled()
                return None
            if target == "button:deal":
                return self._deal()
        return super().handle(intent)

    def _deal(self) -> Handled | None:
        if not self.pending:
            return None
        position = None
        if self._three_position():
            if self.position is None:
                self.note = "Choose position 1, 2 or 3 first"
                return Handled()
            position = self.position
        if self.client.place_wagers(dict(self.pending), position) is None:
            return None
        self.last_bet, self.pending, self.note = self.pending, {}, ""
        return Handled()

    def message(self) -> str:
        text = super().message()
        position = self.chosen_position()
        if text == "PLACE YOUR BETS" and self._three_position():
            if position is None:
                return "CHOOSE POSITION 1, 2 OR 3"
            return f"POSITION {position} \u2022 PLACE YOUR BETS"
        if self._joined() and position is not None and text.startswith("Bet accepted"):
            return f"Bet accepted at position {position} \u2022 good luck"
        return text

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        hybrid = self.hybrid
        open_ = betting_open(self.model)
        # In portrait the betting circles take the legend's place.
        draw_hybrid_scene(
            surface, layout, hybrid, cards=self.cards, dealt=not open_, legend=not layout.portrait
        )
        if hybrid is None or not open_ or hybrid.three_position:
            return
        # 633b.5(y): one set of cards for every player.
        areas = hybrid_areas(layout)
        band = areas.position_buttons[0].union(areas.position_buttons[-1])
        with element(surface, "one set of cards") as target:
            _draw_one_set(target, layout, band)

    def draw_buttons(self, surface: pygame.Surface, layout: Layout) -> None:
        """CLEAR, REBET and DEAL, and the position buttons, each with who chose it."""
        positions = self.position_buttons(layout)
        draw_buttons(surface, layout, [b for b in self.buttons(layout) if b not in positions])
        if not positions:
            return
        chosen = self.chosen_position()
        hybrid = self.hybrid
        others: frozenset[int] = frozenset()
        counts: dict[int, int] = {}
        if hybrid is not None and isinstance(hybrid.cards, ThreePositionCards):
            others = hybrid.cards.chosen  # the positions players chose (the view's word)
            counts = dict(hybrid.cards.counts)
        s = layout.scale
        size = button_text_size(layout)
        with element(surface, "positions") as target:
            for button in positions:
                number = int(button.id.removeprefix("position-"))
                rect = pygame.Rect(button.rect)
                mine = number == chosen
                draw_button(
                    target,
                    rect,
                    button.label,
                    button.enabled or mine,
                    pressed=mine,
                    text_size=size,
                    least=layout.min_text,
                )
                if mine:
                    pygame.draw.rect(
                        target,
                        CREAM,
                        rect.inflate(round(14 * s), round(14 * s)),
                        max(3, round(6 * s)),
                        border_radius=max(6, rect.height // 5),
                    )
                taken = counts.get(number, 0)
                by = f"CHOSEN BY {taken} PLAYERS" if taken > 1 else "CHOSEN BY A PLAYER"
                note = "YOUR POSITION" if mine else by if number in others else ""
                if note:
                    draw_text(
                        target,
                        note,
                        (rect.centerx, rect.bottom - round(10 * s)),
                        layout.text(20),
                        GOLD if mine else CREAM,
                        "midbottom",
                        bold=True,
                        max_width=rect.width - round(16 * s),
                        least=layout.min_text,
                    )


# Play ---------------------------------------------------------------------------------------------


class HybridPlayScreen(PlayScreen):
    """The round in play at a hybrid table: the community box, the positions' (or shared)
    first cards, this player's hands and dealer hand; the action buttons are exactly the
    view's actions, insurance and even money its offer."""

    def buttons(self, layout: Layout) -> tuple[Button, ...]:
        if self.model.insurance is not None:
            return super().buttons(layout)
        return layout.buttons(enabled_actions(self.model), self.model.table_actions)

    def message(self) -> str:
        text = super().message()
        hybrid = hybrid_of(self.model)
        if hybrid is None or not text.startswith("Please wait"):
            return text
        if isinstance(hybrid.cards, NoHoleCardCards):
            if hybrid.cards.status == "to-dealer":
                return "Your hands are done \u2022 the next cards go to YOUR dealer hand"
            if hybrid.cards.status == "finished":
                return "Your dealer hand is complete \u2022 your wagers are settled"
        if hybrid.hands and all(h.done for h in hybrid.hands):
            return "Your hands are done \u2022 waiting for the other players"
        return text

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_hybrid_scene(surface, layout, hybrid_of(self.model), cards=self.cards, legend=False)

    def draw(self, surface: pygame.Surface, layout: Layout) -> None:
        self.draw_table(surface, layout)
        self.draw_side(surface, layout)
        if not layout.portrait:  # in portrait each hand's line says its wagers
            draw_placed_spots(surface, layout, self.model)
        draw_buttons(surface, layout, self.buttons(layout))
        draw_buttons(surface, layout, menu_buttons(layout, self.model), "menu")
        draw_credits(surface, layout, self.model.credits, "CREDITS")
        draw_message(surface, layout, self.message())
        draw_countdown(surface, layout, self.model.countdown, self.countdown)

    def draw_side(self, surface: pygame.Surface, layout: Layout) -> None:
        """The right-hand column: the wagers of this round already settled (the side wagers
        settle as soon as their cards are out), then the legend."""
        hybrid = hybrid_of(self.model)
        if hybrid is None:
            return
        s = layout.scale
        column = hybrid_areas(layout).results.copy()
        column.height = round((150 if layout.portrait else 310) * s)
        rows = self.rows()
        if rows and self.cards is None:
            with element(surface, "settled") as target:
                box = draw_results_panel(target, column, "SETTLED", rows, layout)
            if layout.portrait:  # under the hands, above the buttons: one panel
                return
            column = pygame.Rect(column.left, box.bottom + round(12 * s), column.width, 0)
            column.height = round(300 * s)
        title, lines = _legend(hybrid)
        with element(surface, "legend") as target:
            draw_legend(target, column, title, lines, layout)

    def rows(self) -> tuple[ResultRow, ...]:
        """This round's settlements so far (none before the deal's side wagers settle)."""
        hybrid = hybrid_of(self.model)
        if hybrid is None or not hybrid.results_current:
            return ()
        hands = len(self.model.my_hands)
        return tuple(
            result_row(s, hands, self.model.game.main_wager, self.model.game)
            for s in hybrid.view.settlements
        )


# Results ------------------------------------------------------------------------------------------


class HybridResultsScreen(ResultsScreen):
    """The round's result in the message bar and each wager of this terminal in a panel in
    the legend's column, over the round's cards (the community box stays: which card went
    where is part of the outcome)."""

    def draw_table(self, surface: pygame.Surface, layout: Layout) -> None:
        draw_hybrid_scene(surface, layout, hybrid_of(self.model), cards=self.cards, legend=False)

    def results_area(self, layout: Layout) -> pygame.Rect:
        return hybrid_areas(layout).results
