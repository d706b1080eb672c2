"""Blackjack's simulator: bots playing whole rounds of a fully automated table, and its
tally; ``etg sim --log`` through the live table's session.

:class:`TableDriver` is the ONE place outside the live table that plays Blackjack rounds:
``etg sim``, ``etg par``, ``etg demo`` and ``etg bench`` all drive the pure engine
(:class:`~game_server.games.blackjack.rules.round.BlackjackRound`) through it, so no tool keeps
its own copy of the rules (STYLE.md "One place per concern"). A round places the main wager
and every side wager the table offers on each seat, deals, answers insurance, plays each hand
with a strategy (basic strategy by default) that is told what the engine allows, and returns
every event the engine produced. :func:`tally` adds a round to a
:class:`~game_server.sim.SimResult`.

:func:`logged_sim` plays the same bots through the live table's
:class:`~game_server.games.blackjack.session.TableSession` (``etg sim --log``): sealed shoes,
wallets, one transaction per step, a signed checkpoint at every round close, so recall and
verification work on a simulated log as on a real one.

Entry points: :class:`TableDriver`, :func:`tally`, :func:`table_wagers`, :func:`logged_sim`,
:func:`play_bots`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

from game_server import simlog
from game_server.config import TableConfig
from game_server.games.blackjack.meters import SimMeters
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DOUBLE,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import BlackjackRound, Phase
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession
from game_server.sim import Dealable, RoundTally, ShoeFactory, SimResult, SimSpec, seeded_shoes
from game_server.table.session import EventSink, SealedShoes
from shared.cards import BJ_VALUE

__all__ = [
    "BONUS_SUFFIX",
    "Strategy",
    "TableDriver",
    "bot_action",
    "logged_sim",
    "play_bots",
    "sim_driver",
    "table_wagers",
    "tally",
]

_HIT, _STAND, _DOUBLE, _SPLIT = Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT
_PLAYING, _INSURANCE = Phase.PLAYING, Phase.INSURANCE

#: The suffix of a bonus award's wager name (``blackjack_match_bonus``): it is reported with
#: the wager it belongs to.
BONUS_SUFFIX: Final = "_bonus"


class Strategy(Protocol):
    """How a simulated player decides: :class:`BasicStrategy`'s interface."""

    def decide(
        self,
        total: int,
        soft: bool,
        pair_value: int,
        dealer_up_value: int,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
    ) -> Action: ...

    def take_insurance(self) -> bool: ...


def table_wagers(rules: BlackjackRules, main_wager: int | None = None) -> dict[str, int]:
    """The wagers a simulated seat places: the main wager and every offered side wager.

    Args:
        rules: The table's rules.
        main_wager: The Blackjack wager in cents; the table minimum if None.

    Returns:
        ``{wager name: cents}``: each side wager at its minimum (the table's one amount for a
        fixed-amount wager), capped at its multiple of the main wager if it has one.
        The engine verifies every amount when the wagers are placed.
    """
    main = rules.main_limits.minimum if main_wager is None else main_wager
    wagers = {BLACKJACK: main}
    for offer in rules.side_wagers:
        wager = offer.wager
        amount = offer.limits.minimum  # a fixed-amount wager's one amount (min = max)
        if wager.max_multiple_of_main is not None:
            amount = min(amount, main * wager.max_multiple_of_main)
        wagers[wager.name] = amount
    return wagers


class TableDriver:
    """Plays whole rounds of a table through the engine, with bots on every seat.

    The driver owns the shoe: with ``every_round`` a new shoe is made for every round; otherwise
    the shoe deals round after round until it says ``needs_shuffle`` at the start of a round
    (the cut card came out), then the next shoe number is made.

    Args:
        rules: The table's rules (the engine's input).
        shoes: Makes shoe number ``n``.
        seats: How many seats play (seats 1..``seats``).
        strategy: How the bots decide; :class:`BasicStrategy` for ``rules`` if None.
        every_round: New shoe every round (the Rules Submission's "every-round" shuffle).
        main_wager: The Blackjack wager in cents; the table minimum if None.
        side_wagers: Whether to place every side wager the table offers.
        meters: The table's meters, fed and paid every round (their awards settled as
            ``<wager>_bonus`` records); None: a meter line returns its stake only.

    Raises:
        ValueError: ``seats`` is not within the table's 1..``rules.seats``.
    """

    __slots__ = (
        "_decide",
        "_insure",
        "_shoe",
        "every_round",
        "meters",
        "rounds",
        "rules",
        "seats",
        "shoe_number",
        "shoes",
        "strategy",
        "wagers",
    )

    def __init__(
        self,
        rules: BlackjackRules,
        shoes: ShoeFactory,
        seats: int,
        strategy: Strategy | None = None,
        *,
        every_round: bool = False,
        main_wager: int | None = None,
        side_wagers: bool = True,
        meters: SimMeters | None = None,
    ) -> None:
        if not 1 <= seats <= rules.seats:
            raise ValueError(f"this table has seats 1..{rules.seats}; cannot play {seats} seats")
        self.rules = rules
        self.shoes = shoes
        self.seats = tuple(range(1, seats + 1))
        self.strategy: Strategy = BasicStrategy(rules) if strategy is None else strategy
        self.every_round = every_round
        wagers = table_wagers(rules, main_wager)
        self.wagers = wagers if side_wagers else {BLACKJACK: wagers[BLACKJACK]}
        #: Rounds played so far.
        self.rounds = 0
        #: Number of the shoe in use (-1 before the first round).
        self.shoe_number = -1
        self._shoe: Dealable | None = None
        self._decide = self.strategy.decide
        self._insure = self.strategy.take_insurance()
        self.meters = meters

    @property
    def shoe(self) -> Dealable | None:
        """The shoe in use (None before the first round)."""
        return self._shoe

    def _next_shoe(self) -> Dealable:
        self.shoe_number += 1
        shoe = self._shoe = self.shoes(self.shoe_number)
        return shoe

    def play_round(self) -> list[Any]:
        """Play one round from the wagers to the last settlement.

        The hands are played here rather than in a step of their own (a call a round saved):
        decide and act until no hand is to act, and the engine then plays the dealer. The
        engine's ``can_double``/``can_split``/``can_surrender`` flags are asked lazily: the
        strategy first decides as if all three were allowed, and only when it picks one of
        those actions is the engine asked whether it is legal; if not, the strategy decides
        again with that flag off. This gives exactly the decision the three flags asked up
        front would give, because a flag of :meth:`BasicStrategy.decide` only ever decides
        whether *its own* action is chosen, and it saves most of the engine's refusals (each
        a raised exception) on the hot path.

        Returns:
            Every event the engine produced, in order.
        """
        shoe = self._shoe
        if shoe is None or self.every_round or shoe.needs_shuffle:
            shoe = self._next_shoe()
        game = BlackjackRound(self.rules)
        # The engine copies the amounts: one dict serves every seat.
        seats = self.seats
        if len(seats) == 1:
            events = game.place_wagers(seats[0], self.wagers)
        else:
            events = game.place_wagers_on(seats, self.wagers)
        extend = events.extend
        extend(game.deal(shoe))
        if game.phase is _INSURANCE:
            self._answer_insurance(game, extend)
        if game.phase is _PLAYING:
            # The hands, played until none is to act (see above).
            decide = self._decide
            up = BJ_VALUE[game.dealer[0]]
            bj = BJ_VALUE
            while True:
                hand = game.to_act
                if hand is None:
                    break
                seat = hand.seat
                index = hand.index
                cards = hand.cards
                pair = 0
                if len(cards) == 2:
                    first = bj[cards[0]]
                    if first == bj[cards[1]]:
                        pair = first
                total = hand.total
                soft = hand.soft
                can_double = can_split = can_surrender = True
                while True:
                    action = decide(total, soft, pair, up, can_double, can_split, can_surrender)
                    if action is _STAND:
                        extend(game.stand(seat, index))
                        break
                    if action is _HIT:
                        extend(game.hit(seat, index))
                        break
                    if action is _DOUBLE:
                        if game.can_double(seat, index):
                            extend(game.double(seat, index))
                            break
                        can_double = False
                    elif action is _SPLIT:
                        if game.can_split(seat, index):
                            extend(game.split(seat, index))
                            break
                        can_split = False
                    elif game.can_surrender(seat, index):
                        extend(game.surrender(seat, index))
                        break
                    else:
                        can_surrender = False
        meters = self.meters
        if meters is not None:
            extend(meters.play({n: seat.wagers for n, seat in game.seats.items()}, events))
        self.rounds += 1
        return events

    def _answer_insurance(self, game: BlackjackRound, extend: Callable[[Any], None]) -> None:
        for seat in game.pending_insurance:
            if self._insure and game.can_take_even_money(seat):
                extend(game.take_even_money(seat))
            elif self._insure and game.can_insure(seat):
                extend(game.insure(seat, game.seats[seat].wagers[BLACKJACK] // 2))
            else:
                extend(game.decline_insurance(seat))


def tally(events: Iterable[Any], result: SimResult) -> None:
    """Add one Blackjack round's events to ``result``.

    Every wager is grouped per seat: the double down and split wagers of a seat go with its
    ``"blackjack"`` placement, every other wager (insurance, each side wager) is its own.
    Each wager's placements of the round are added together, as one round
    (:meth:`~game_server.sim.WagerStats.add_round`).
    """
    this = RoundTally(result)
    for event in events:
        kind = type(event)
        if kind is WagerSettled:
            name = event.wager
            # A double down goes with its Blackjack wager, a bonus award (Envy Bonus, cash
            # bonus: "<wager>_bonus", no stake) with the wager it belongs to.
            group = BLACKJACK if name == DOUBLE else name.removesuffix(BONUS_SUFFIX)
            this.paid(event.seat, group, event.paid)
            if name != DOUBLE:
                this.line(group, event.line)
        elif kind is WagerPlaced:
            name = event.wager
            this.placed(event.seat, BLACKJACK if name == DOUBLE else name, event.amount)
    this.close()


def sim_driver(spec: SimSpec, chunk: int) -> TableDriver:
    """The driver of chunk ``chunk`` of a simulation of a fully automated table: its own
    table id, so its own shoes."""
    cut = None if spec.every_round else spec.cut_card
    table_id = f"{spec.table_id}-{chunk}"
    shoes = seeded_shoes(spec.rules.decks, cut, spec.seed, table_id)
    meters = SimMeters.for_table(
        spec.rules, spec.must_hit_by, range(1, spec.seats + 1), seed=spec.seed, table_id=table_id
    )
    return TableDriver(
        spec.rules,
        shoes,
        spec.seats,
        every_round=spec.every_round,
        main_wager=spec.main_wager,
        meters=meters,
    )


def bot_action(game: BlackjackRound, strategy: BasicStrategy) -> Action:
    """The basic-strategy decision for the hand to act, asking the engine what is legal."""
    hand = game.to_act
    assert hand is not None
    cards = hand.cards
    pair = BJ_VALUE[cards[0]] if len(cards) == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]] else 0
    seat, index = hand.seat, hand.index
    return strategy.decide(
        hand.total,
        hand.soft,
        pair,
        BJ_VALUE[game.dealer[0]],
        game.can_double(seat, index),
        game.can_split(seat, index),
        game.can_surrender(seat, index),
    )


def play_bots(
    session: TableSession,
    strategy: BasicStrategy,
    *,
    insure: Callable[[BlackjackRound, int], int] | None = None,
    countdown: Callable[[], bool] | None = None,
) -> None:
    """Play the dealt round of ``session`` to its end with bots on every seat.

    Args:
        session: a session whose round has just been dealt.
        strategy: the bots' basic strategy.
        insure: amount of insurance a seat takes (0 declines); by default every seat declines,
            as basic strategy does.
        countdown: when it returns True the bot lets the countdown act instead (the table's
            countdown default, logged as made by the countdown).
    """
    game = session.round
    while game is not None and game.phase is Phase.INSURANCE:
        seat = game.pending_insurance[0]
        terminal = session.terminal_of[seat]
        amount = insure(game, seat) if insure is not None else 0
        if amount:
            session.insure(terminal, amount)
        else:
            session.decline_insurance(terminal, auto=countdown is not None and countdown())
    while game is not None and game.phase is Phase.PLAYING:
        hand = game.to_act
        assert hand is not None
        terminal = session.terminal_of[hand.seat]
        if countdown is not None and countdown():
            session.act(terminal, game.countdown_action(), hand.index, auto=True)
        else:
            session.act(terminal, bot_action(game, strategy), hand.index)


def logged_sim(
    config: TableConfig,
    log: EventSink,
    shoes: SealedShoes,
    *,
    rounds: int,
    seats: int,
    progress: Callable[[int], None] | None = None,
) -> TableSession:
    """``etg sim --log`` of a fully automated table: ``rounds`` rounds at ``seats`` seats
    (terminals ``T1``..), basic-strategy bots placing the Blackjack minimum and every side
    wager at its minimum, through the live table's :class:`TableSession` writing to ``log``;
    each terminal is cashed in at the start and topped up when its credits run low; the last
    shoe is revealed at the end so that every card can be verified."""
    terminals = {f"T{seat}": seat for seat in range(1, seats + 1)}
    strategy = BasicStrategy(config.rules)
    wagers = {BLACKJACK: config.rules.main_limits.minimum}
    for offer in config.rules.side_wagers:
        wagers[offer.wager.name] = offer.limits.minimum
    stake = sum(wagers.values())
    session = TableSession(config, log, shoes, terminals)
    session.open()
    for terminal in terminals:
        session.cash_in(terminal, simlog.SIM_CREDITS, "sim")
    for done in range(rounds):
        session.start_round()
        for terminal in terminals:
            if session.balance(terminal) < 10 * stake:
                session.cash_in(terminal, simlog.SIM_CREDITS, "sim top-up")
            session.place_wagers(terminal, wagers)
        session.deal()
        play_bots(session, strategy)
        if progress is not None:
            progress(done + 1)
    session.retire_shoe()
    return session
