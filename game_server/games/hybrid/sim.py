"""``etg sim`` for the hybrid tables of 58 Pa. Code 633b.5.

:class:`ThreePositionDriver` plays whole rounds of the three-position table (633b.5(a)-(v))
with basic-strategy players spread over positions 1 to 3 (several on one position), each
deciding for himself on the community cards; the Buzzer Beater is placed when offered.
:class:`NoHoleCardDriver` plays whole rounds of the no-hole-card table (633b.5(w)-(ee)) with a
basic-strategy bot for every player: each player wagers the table's amounts (his side wagers
too), answers insurance as basic strategy does (never), and decides his own hands; the players'
decisions designate the community cards to their own hands or their own dealer hands, so one
set of cards gives each player his own game. The driver returns the engine's events, which
:func:`tally` counts like a fully automated table's.

:func:`logged_sim` (``etg sim --log``) plays the same players through the table layer
(:class:`~game_server.games.hybrid.session.HybridSession`, stadium play, no seats): every
terminal joins every round, at the three-position table terminal ``Tn`` on position
``(n - 1) % 3 + 1`` as without a log (so four or more terminals share positions).

Entry points: :class:`ThreePositionDriver`, :class:`NoHoleCardDriver` (built by
:func:`sim_driver` for a ``hybrid`` or ``hybrid-no-hole-card`` Rules Submission), :func:`tally`,
:func:`logged_sim`. :func:`no_hole_card_decision` and :func:`three_position_decision` are the
players' decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from game_server import simlog
from game_server.config import TableConfig
from game_server.games.blackjack import sim as blackjack_sim
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import WagerPlaced, WagerSettled
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.hybrid.rules.events import Hybrid3WagerPlaced, Hybrid3WagerSettled
from game_server.games.hybrid.rules.no_hole_card import NoHoleCardRound
from game_server.games.hybrid.rules.strategy import hybrid_strategy
from game_server.games.hybrid.rules.three_position import ThreePositionRound
from game_server.games.hybrid.session import HybridSession, three_position_rules
from game_server.rules.wagers.base import TableType
from game_server.sim import ShoeFactory, SimResult, SimSpec, seeded_shoes
from game_server.table.session import EventSink, SealedShoes
from shared.cards import Card


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
        no_hole_card: bool,
    ) -> None:
        self.shoes = shoes
        self.wagers = wagers
        self.every_round = every_round
        self.strategy = hybrid_strategy(rules, no_hole_card=no_hole_card)
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
        super().__init__(rules, shoes, wagers, every_round, True)
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
    number as the seat) so that :func:`tally` counts them."""

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
        super().__init__(rules, shoes, wagers, every_round, False)
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
    player ``P<n>`` or terminal ``T<n>``), so that :func:`tally` counts it; any other
    event unchanged."""
    kind = type(ev)
    if kind is Hybrid3WagerPlaced:
        return WagerPlaced(int(ev.player[1:]), ev.hand, ev.wager, ev.amount)
    if kind is Hybrid3WagerSettled:
        seat = int(ev.player[1:])
        return WagerSettled(seat, ev.hand, ev.wager, ev.stake, ev.paid, ev.outcome, ev.line)
    return ev


def tally(events: Iterable[Any], result: SimResult) -> None:
    """Add one hybrid round's events to ``result``, as a fully automated table's (a
    three-position player's wagers are his seat's, :func:`as_table_event`)."""
    blackjack_sim.tally([as_table_event(ev) for ev in events], result)


def sim_driver(spec: SimSpec, chunk: int) -> NoHoleCardDriver | ThreePositionDriver:
    """The driver of chunk ``chunk`` of a simulation of a hybrid table: its own table id, so
    its own shoes; every player wagers the table's amounts."""
    cut = None if spec.every_round else spec.cut_card
    shoes = seeded_shoes(spec.rules.decks, cut, spec.seed, f"{spec.table_id}-{chunk}")
    wagers = blackjack_sim.table_wagers(spec.rules, spec.main_wager)
    if spec.table_type is TableType.HYBRID_NO_HOLE_CARD:
        return NoHoleCardDriver(spec.rules, shoes, spec.seats, wagers, every_round=spec.every_round)
    return ThreePositionDriver(spec.rules, shoes, spec.seats, wagers, every_round=spec.every_round)


# ------------------------------------------------------------------- etg sim --log


def play_hybrid_bots(session: HybridSession, strategy: BasicStrategy) -> None:
    """Play the dealt round of a hybrid ``session`` to its close: every terminal in the round
    declines insurance (as basic strategy does) and plays basic strategy on its own hands, in
    the order of this module's drivers; at the three-position table, once no one
    has a decision left, the round is finished (633b.5(p)(2))."""
    game = session.round
    if game is None:  # the deal settled the round
        return
    engine = game.engine
    if isinstance(engine, ThreePositionRound):
        _play_three_position(session, engine, strategy)
        return
    assert isinstance(engine, NoHoleCardRound)
    terminal_of = {
        number: terminal
        for terminal in session.terminals
        if (number := game.player_of(terminal)) is not None
    }
    _play_no_hole_card(session, engine, terminal_of, strategy)


def _round_open(session: HybridSession) -> bool:
    """Whether the round is still open (each step may close it)."""
    return session.round is not None


def _play_three_position(
    session: HybridSession, engine: ThreePositionRound, strategy: BasicStrategy
) -> None:
    while _round_open(session):
        waiting = engine.pending_players
        if not waiting:
            session.finish()
            return
        for terminal in waiting:
            if not _round_open(session):
                return
            if terminal in engine.pending_insurance:
                session.decline_insurance(terminal)
                continue
            hand = engine.to_act(terminal)
            if hand is not None:
                session.act(
                    terminal, three_position_decision(strategy, engine, terminal, hand), hand
                )


def _play_no_hole_card(
    session: HybridSession,
    engine: NoHoleCardRound,
    terminal_of: dict[int, str],
    strategy: BasicStrategy,
) -> None:
    while _round_open(session):
        waiting = engine.pending()
        if not waiting:
            raise RuntimeError(f"round {session.round_id} waits for no one but did not close")
        for number in waiting:
            if not _round_open(session):
                return
            terminal = terminal_of[number]
            if engine.pending_insurance(number):
                session.decline_insurance(terminal)
                continue
            hand = engine.to_act(number)
            if hand is not None:
                session.act(terminal, no_hole_card_decision(strategy, engine, number, hand), hand)


def logged_sim(
    config: TableConfig,
    log: EventSink,
    shoes: SealedShoes,
    *,
    rounds: int,
    seats: int,
    progress: Callable[[int], None] | None = None,
) -> HybridSession:
    """Play ``rounds`` rounds of a hybrid table (633b.5) with ``seats`` basic-strategy
    terminals through :class:`HybridSession`, writing to ``log`` (``etg sim --log``).

    Every terminal joins every round with the table's wagers (the Blackjack minimum and each
    side wager offered, as ``etg sim`` places them); at the three-position table terminal
    ``Tn`` plays position ``(n - 1) % 3 + 1`` (633b.5(l)). Each terminal is cashed in at the
    start and topped up when its credits run low, as at the fully automated table.
    """
    names = [f"T{n}" for n in range(1, seats + 1)]
    three = config.table_type is TableType.HYBRID
    positions = {name: (n % 3 + 1 if three else None) for n, name in enumerate(names)}
    strategy = hybrid_strategy(config.rules, no_hole_card=not three)
    wagers = blackjack_sim.table_wagers(config.rules)
    stake = sum(wagers.values())
    session = HybridSession(config, log, shoes, names)
    session.open()
    for name in names:
        session.cash_in(name, simlog.SIM_CREDITS, "sim")
    for done in range(rounds):
        session.start_round()
        for name in names:
            if session.balance(name) < 10 * stake:
                session.cash_in(name, simlog.SIM_CREDITS, "sim top-up")
            session.join(name, wagers, positions[name])
        session.deal()
        play_hybrid_bots(session, strategy)
        if progress is not None:
            progress(done + 1)
    session.retire_shoe()
    return session
