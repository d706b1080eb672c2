"""``etg sim`` for the hybrid tables of 58 Pa. Code 633b.5.

:class:`ThreePositionDriver` plays whole rounds of the three-position table (633b.5(a)-(v))
with basic-strategy players spread over positions 1 to 3 (several on one position), each
deciding for himself on the community cards; the Buzzer Beater is placed when offered.
:class:`NoHoleCardDriver` plays whole rounds of the no-hole-card table (633b.5(w)-(ee)) with a
basic-strategy bot for every player: each player wagers the table's amounts (his side wagers
too), answers insurance as basic strategy does (never), and decides his own hands; the players'
decisions designate the community cards to their own hands or their own dealer hands, so one
set of cards gives each player his own game. The driver returns the engine's events, which
:func:`tools.sim.tally` counts like a fully automated table's.

Entry points: :class:`ThreePositionDriver`, :class:`NoHoleCardDriver` (built by
:meth:`tools.sim.SimSpec.driver` for a ``hybrid`` or ``hybrid-no-hole-card`` Rules Submission),
:func:`three_position_rules`. :func:`no_hole_card_decision` and :func:`three_position_decision`
are the players' decisions, shared with ``etg sim --log`` (:mod:`tools.simlog`), which plays the
same players through the table layer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import WagerPlaced, WagerSettled
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.hybrid.rules.events import Hybrid3WagerPlaced, Hybrid3WagerSettled
from game_server.games.hybrid.rules.no_hole_card import NoHoleCardRound
from game_server.games.hybrid.rules.three_position import ThreePositionRound
from game_server.games.hybrid.session import HybridSession, three_position_rules
from shared.cards import Card

#: Shoe number -> a dealable shoe (tools.sim.ShoeFactory).
ShoeFactory = Callable[[int], Any]


def no_hole_card_decision(
    strategy: BasicStrategy, game: NoHoleCardRound, player: int, hand: int
) -> Action:
    """Basic strategy for ``player``'s hand ``hand`` at the no-hole-card table, among the
    decisions the engine allows (633b.5(z)); a stand when the chart's choice is not offered."""
    cards: tuple[Card, ...] = game.hands(player)[hand]
    up = game.up_card
    assert up is not None
    legal = game.legal_actions(player)
    action = strategy.decide_cards(
        cards,
        up,
        can_double=Action.DOUBLE in legal,
        can_split=Action.SPLIT in legal,
        can_surrender=Action.SURRENDER in legal,
    )
    if action not in legal:  # e.g. a hit on a hand the engine has just closed
        return Action.STAND
    return action


def three_position_decision(
    strategy: BasicStrategy, game: ThreePositionRound, player: str, hand: int
) -> Action:
    """Basic strategy for ``player``'s hand ``hand`` at the three-position table (no
    surrender, 633b.5); a stand when the chart's choice is not offered."""
    view = game.view(player)
    cards = next(h.cards for h in view.hands if h.index == hand)
    up = game.up_card
    assert up is not None
    legal = game.legal_actions(player)
    action = strategy.decide_cards(
        cards,
        up,
        can_double=Action.DOUBLE in legal,
        can_split=Action.SPLIT in legal,
        can_surrender=False,
    )
    return action if action in legal else Action.STAND


def session_decision(
    strategy: BasicStrategy, session: HybridSession, terminal: str, hand: int
) -> Action:
    """Basic strategy for a terminal's hand at a hybrid table's open round, whichever table
    it is (the drivers' decisions, addressed by terminal)."""
    game = session.round
    assert game is not None
    player = game.player(terminal)
    engine = game.engine
    if isinstance(engine, ThreePositionRound):
        return three_position_decision(strategy, engine, str(player), hand)
    assert isinstance(engine, NoHoleCardRound)
    return no_hole_card_decision(strategy, engine, int(player), hand)


class _Shoes:
    """What both drivers share: the players' wagers, basic strategy, the count of rounds,
    and the shoe of each round (a new one every round, or the same until its cut card)."""

    def __init__(
        self,
        rules: BlackjackRules,
        shoes: ShoeFactory,
        wagers: dict[str, int],
        every_round: bool,
    ) -> None:
        self.shoes = shoes
        self.wagers = wagers
        self.every_round = every_round
        self.strategy = BasicStrategy(rules)
        self.rounds = 0
        self.shoe_number = -1
        self._shoe: Any = None

    def _round_shoe(self) -> Any:
        shoe = self._shoe
        if shoe is None or self.every_round or shoe.needs_shuffle:
            self.shoe_number += 1
            shoe = self._shoe = self.shoes(self.shoe_number)
        return shoe


class NoHoleCardDriver(_Shoes):
    """Plays rounds of the no-hole-card hybrid table with ``players`` basic-strategy bots.

    Args:
        rules: The table's rules.
        shoes: Makes shoe number ``n``.
        players: How many players (terminals) play every round.
        wagers: Each player's wagers (the table's amounts, side wagers included).
        every_round: A new shoe every round (else until the shoe reaches its cut card).
    """

    def __init__(
        self,
        rules: BlackjackRules,
        shoes: ShoeFactory,
        players: int,
        wagers: dict[str, int],
        *,
        every_round: bool = False,
    ) -> None:
        if not 1 <= players <= rules.seats:
            raise ValueError(f"this table takes 1..{rules.seats} players, not {players}")
        super().__init__(rules, shoes, wagers, every_round)
        self.rules = rules
        self.players = tuple(range(1, players + 1))

    def play_round(self) -> list[Any]:
        """Play one round from the wagers to every player's last settlement."""
        shoe = self._round_shoe()
        game = NoHoleCardRound(self.rules)
        events: list[Any] = []
        for player in self.players:
            events += game.join(player, self.wagers)
        events += game.deal(shoe)
        while True:
            waiting = game.pending()
            if not waiting:
                break
            for player in waiting:
                if game.pending_insurance(player):
                    events += game.decline_insurance(player)
                    continue
                hand = game.to_act(player)
                if hand is not None:
                    action = no_hole_card_decision(self.strategy, game, player, hand)
                    events += game.act(player, action, hand)
        self.rounds += 1
        return events


class ThreePositionDriver(_Shoes):
    """Plays rounds of the three-position hybrid table: player ``n`` sits at position
    ``(n - 1) % 3 + 1``; its events come back in the fully automated table's form (player
    number as the seat) so that :func:`tools.sim.tally` counts them."""

    def __init__(
        self,
        rules: BlackjackRules,
        shoes: ShoeFactory,
        players: int,
        wagers: dict[str, int],
        *,
        every_round: bool = False,
    ) -> None:
        if players < 1:
            raise ValueError("a round needs at least one player")
        super().__init__(rules, shoes, wagers, every_round)
        self.rules = three_position_rules(rules)
        self.players = {f"P{n}": (n - 1) % 3 + 1 for n in range(1, players + 1)}

    def play_round(self) -> list[Any]:
        shoe = self._round_shoe()
        game = ThreePositionRound(self.rules)
        events: list[Any] = []
        for player, position in self.players.items():
            events += game.join(player, position, self.wagers)
        events += game.deal(shoe)
        while not game.complete:
            waiting = game.pending_players
            if not waiting:
                events += game.finish()
                break
            for player in waiting:
                if player in game.pending_insurance:
                    events += game.decline_insurance(player)
                    continue
                hand = game.to_act(player)
                if hand is not None:
                    action = three_position_decision(self.strategy, game, player, hand)
                    events += game.act(player, action, hand)
        self.rounds += 1
        return [as_table_event(ev) for ev in events]


def as_table_event(ev: Any) -> Any:
    """A three-position wager event in the fully automated table's form (seat = the number of
    player ``P<n>`` or terminal ``T<n>``), so that :func:`tools.sim.tally` counts it; any other
    event unchanged."""
    kind = type(ev)
    if kind is Hybrid3WagerPlaced:
        return WagerPlaced(int(ev.player[1:]), ev.hand, ev.wager, ev.amount)
    if kind is Hybrid3WagerSettled:
        seat = int(ev.player[1:])
        return WagerSettled(seat, ev.hand, ev.wager, ev.stake, ev.paid, ev.outcome, ev.line)
    return ev
