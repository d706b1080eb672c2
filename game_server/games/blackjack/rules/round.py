"""One round of Blackjack at a fully automated table: the pure engine.

:class:`BlackjackRound` holds the state of one round at a table of 1 to 7 seats with no human
dealer. Every action follows the verify / can / act pattern (STYLE.md): ``verify_hit`` raises a
specific :class:`~game_server.rules.errors.IllegalAction` with a sentence for a human,
``can_hit`` answers for the terminal's buttons, and ``hit`` verifies, changes the state and
returns the frozen event records it produced. Cards come in through a
:class:`CardSource` (the certified shoe, a stacked shoe in tests, the logged cards in replay);
the engine never reads a clock or a random source.

The procedure follows 58 Pa. Code 633a and 633b:

- deal: one card to each seat in seat order, the dealer's up card, a second card to each seat,
  the dealer's hole card face down (633a.7, 633b.5(n) for the same order on hybrid tables);
- insurance and even money when the up card is an ace (633a.8), then the dealer's peek for
  Blackjack under an ace or ten-value up card (633b.5(o));
- hit, stand, double down (633a.10), split (633a.11), late surrender (633a.9);
- the TriLux Deluxe Press (633b.11(f)-(h)), where the table offers it: see :meth:`press`;
- the dealer draws to 17 and stands on all 17s (633b.5(c)(2), (s)), or hits soft 17 if the
  Rules Submission says so;
- settlement 1 to 1, Blackjack 3 to 2, push on equal totals (633b.5(t), (v)).

Entry points: :class:`BlackjackRound`, :func:`replay`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final, Protocol

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    DOUBLE,
    INSURANCE,
    LOST,
    PUSHED,
    SURRENDERED,
    TRILUX_PRESS,
    WON,
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    ProgressiveWon,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
    seat_wagers,
)
from game_server.games.blackjack.rules.rules import (
    BLACKJACK_PAYS,
    INSURANCE_PAYS,
    MAX_SEATS,
    BlackjackRules,
    CountdownDefault,
    double_down_refusal,
)
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    NotYourTurn,
    RulesError,
    SeatError,
    WagerError,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.replaying import LoggedCards, replay_steps
from game_server.rules.twenty_one import is_blackjack
from game_server.rules.wagers.base import Moment, SideWagerContext, SideWagerOffer
from game_server.rules.wagers.trilux import (
    PRESS,
    TRILUX,
    PressNotAllowed,
    refuse_press,
    split_match,
)
from shared.cards import BJ_VALUE, Card
from shared.money import MeterShare, format_money

#: Builds an event record without the NamedTuple constructor's argument handling: about
#: twice as fast, for the few records built on every card (the same immutable tuples).
_new: Any = tuple.__new__
_NO_WAGERS: Mapping[str, int] = {}
_NO_WINNINGS: Mapping[int, int] = {}
#: The two records a peek can make (immutable, so one of each serves every round).
_PEEKED_BLACKJACK: Final = DealerPeeked(True)
_PEEKED_NO_BLACKJACK: Final = DealerPeeked(False)


#: The seats (0..7) and hands (0..3) whose own hit and stand records are made once.
_OWN_SEATS: Final = MAX_SEATS + 1
_OWN_HANDS: Final = 4


def _own_decisions(action: str) -> tuple[tuple[Decision, ...], ...]:
    """A player's own ``action`` (not the countdown's) by seat (0..7) and hand (0..3): the
    records of the two decisions every round makes, built once. Records are immutable, so
    one serves every round (as the peek's do), and a round allocates, keeps alive and has
    the garbage collector look at fewer objects."""
    return tuple(
        tuple(Decision(seat, hand, action, 0, False) for hand in range(_OWN_HANDS))
        for seat in range(_OWN_SEATS)
    )


_OWN_HITS: Final = _own_decisions("hit")
_OWN_STANDS: Final = _own_decisions("stand")


def _decision(
    own: tuple[tuple[Decision, ...], ...], seat: int, hand: int, action: str, auto: bool
) -> Decision:
    """The record of a hit or stand: the one made once (``own``, by seat and hand) for a
    player's own decision, a new one for the countdown's or an input of another type (a
    record keeps what it was given: ``True`` for a seat logs as ``true``). ``hit`` and
    ``stand`` look the record made once up themselves (a call saved on every decision) and
    call this for every other case."""
    if auto is False and type(seat) is int and type(hand) is int:
        try:
            return own[seat][hand]
        except IndexError:  # more seats or hands than a config allows
            pass
    return Decision(seat, hand, action, 0, auto)


INSURANCE_DECISION = "insurance"
NO_INSURANCE = "no-insurance"
EVEN_MONEY = "even-money"

LINE_BLACKJACK = "Blackjack 3 to 2"
LINE_WIN = "Win 1 to 1"
LINE_PUSH = "Push"
LINE_LOSS = "Loss"
LINE_BUST = "Bust"
LINE_DEALER_BLACKJACK = "Dealer Blackjack"
LINE_ORIGINAL_ONLY = "Dealer Blackjack: original wager only (633a.10, 633a.11(d))"
LINE_SURRENDER = "Surrender: half returned (633a.9)"
LINE_EVEN_MONEY = "Even money 1 to 1 (633a.8)"
LINE_INSURANCE = "Insurance 2 to 1"
LINE_NO_WIN = "No win"

PRESS_DECISION = "press"


class Phase(StrEnum):
    """Where the round is. Dealer play and settlement happen inside the step that ends play."""

    BETTING = "betting"
    INSURANCE = "insurance"
    PLAYING = "playing"
    COMPLETE = "complete"


#: The phases and moments as module constants: an enum member read through its class
#: (``Phase.PLAYING``) costs a lookup on the enum's metaclass each time, and the engine reads
#: them at every step.
_BETTING: Final = Phase.BETTING
_INSURANCE: Final = Phase.INSURANCE
_PLAYING: Final = Phase.PLAYING
_COMPLETE: Final = Phase.COMPLETE
_AFTER_DEAL: Final = Moment.AFTER_DEAL
_AFTER_PEEK: Final = Moment.AFTER_PEEK
_AFTER_HOLE_CARD: Final = Moment.AFTER_HOLE_CARD
_AFTER_ROUND: Final = Moment.AFTER_ROUND


class CardSource(Protocol):
    """Where the engine takes cards from: the shoe, a stacked shoe, or logged cards."""

    @property
    def position(self) -> int:
        """0-based place in the shoe's order of the next card :meth:`draw` returns."""
        ...

    def draw(self) -> Card:
        """Take the next card."""
        ...


def _two_card_totals() -> tuple[tuple[tuple[int, bool, int, bool], ...], ...]:
    """The hard total, whether it holds an ace, the best total and whether that is soft, of
    every hand of two cards, by first and second card (codes 0..51): what a hand of the deal
    and the dealer's two cards start from, looked up rather than counted."""
    table = []
    for first in range(52):
        row = []
        for second in range(52):
            hard = BJ_VALUE[first] + BJ_VALUE[second]
            ace = BJ_VALUE[first] == 1 or BJ_VALUE[second] == 1
            soft = ace and hard <= 11
            row.append((hard, ace, hard + 10 if soft else hard, soft))
        table.append(tuple(row))
    return tuple(table)


_TWO_CARDS: Final = _two_card_totals()


class Hand:
    """One player hand (mutable engine state; the outside world sees events and views)."""

    __slots__ = (
        "cards",
        "done",
        "from_split",
        "hard",
        "has_ace",
        "index",
        "seat",
        "settled",
        "soft",
        "split_aces",
        "total",
        "wagers",
    )

    def __init__(
        self, seat: int, index: int, wagers: dict[str, int], first: Card, second: Card | None
    ) -> None:
        """A hand of its first card, or of its first two (the deal), with its own ``wagers``."""
        self.seat = seat
        self.index = index
        self.wagers = wagers
        if second is None:
            self.cards: list[Card] = [first]
            hard = BJ_VALUE[first]
            ace = hard == 1
            #: Best point total (an ace counts 11 when that does not exceed 21), and whether
            #: an ace is counted as 11 in it; kept up to date by :meth:`add`.
            self.total = hard + 10 if ace else hard
            self.soft = ace
            self.hard = hard
            self.has_ace = ace
        else:
            self.cards = [first, second]
            # Every hand of the deal: its totals read from the table of two-card hands.
            self.hard, self.has_ace, self.total, self.soft = _TWO_CARDS[first][second]
        self.from_split = False
        self.split_aces = False
        self.done = False
        self.settled = False

    def add(self, card: Card) -> None:
        self.cards.append(card)
        value = BJ_VALUE[card]
        hard = self.hard = self.hard + value
        if value == 1:
            self.has_ace = True
        if self.has_ace and hard <= 11:
            self.total = hard + 10
            self.soft = True
        else:
            self.total = hard
            self.soft = False

    def remove_last(self) -> Card:
        """Take the second card away for a split; the totals are counted again."""
        card = self.cards.pop()
        kept = list(self.cards)
        self.cards.clear()
        self.hard = 0
        self.has_ace = False
        for c in kept:
            self.add(c)
        return card

    @property
    def blackjack(self) -> bool:
        """An ace and a ten-value card as the initial two cards; never after a split (633a.11)."""
        return not self.from_split and len(self.cards) == 2 and self.has_ace and self.hard == 11

    @property
    def busted(self) -> bool:
        return self.hard > 21

    @property
    def doubled(self) -> bool:
        return DOUBLE in self.wagers

    def __repr__(self) -> str:
        cards = " ".join(str(c) for c in self.cards)
        return f"<Hand seat={self.seat} #{self.index} [{cards}] total={self.total}>"


class Seat:
    """One seat's wagers and hands for this round."""

    __slots__ = ("hands", "initial", "insurance", "insurance_decided", "number", "wagers")

    def __init__(self, number: int, wagers: dict[str, int] | None = None) -> None:
        self.number = number
        #: The seat's wagers by name (``wagers``, the seat's own dict, or none yet).
        self.wagers: dict[str, int] = {} if wagers is None else wagers
        self.hands: list[Hand] = []
        self.initial: tuple[Card, ...] = ()
        self.insurance = 0
        self.insurance_decided = False


class BlackjackRound:
    """The state of one Blackjack round; every public action returns its events."""

    # The state that most rounds never change, or set only by the deal before they read it:
    # defaults of the class, which a round shadows when it sets them (fewer stores for each
    # new round).
    _source: CardSource | None = None
    _insurance_settled = False
    _hole_position = -1
    #: The TriLux Deluxe offer when it has the Press option (633b.11(f)) and a seat placed
    #: the wager (set by :meth:`deal`), else None; and the TriLux Deluxe winnings of each
    #: seat whose wager won, the most it may press (empty at other tables: a round's own
    #: dict only once a wager won).
    _press_offer: SideWagerOffer | None = None
    _press_winnings: Mapping[int, int] = _NO_WINNINGS

    def __init__(self, rules: BlackjackRules) -> None:
        self.rules = rules
        self.phase = _BETTING
        self.seats: dict[int, Seat] = {}
        self.dealer: list[Card] = []
        self.dealer_blackjack: bool | None = None
        self.hole_revealed = False
        self._play: list[Hand] = []
        self._cursor = 0
        #: The hand whose decision the round waits for, or None (set as play moves on: only
        #: while the phase is ``playing`` is it a hand).
        self.to_act: Hand | None = None
        #: The events of the step being taken (each step that produces events starts one).
        self._out: list[Any]
        #: Whether any seat placed an insurance wager (most rounds: none to settle).
        self._insured = False
        #: The side wagers due at each moment, by moment; a moment is here only while it
        #: has wagers to settle (most rounds have none at all).
        self._side_wagers: dict[Moment, list[tuple[Seat, str, int, SideWagerOffer]]] = {}

    # ------------------------------------------------------------------ views

    @property
    def up_card(self) -> Card | None:
        return self.dealer[0] if self.dealer else None

    @property
    def pending_insurance(self) -> tuple[int, ...]:
        """Seats that have not yet answered the insurance offer."""
        if self.phase is not _INSURANCE:
            return ()
        return tuple(n for n, s in self.seats.items() if not s.insurance_decided)

    def dealer_total(self) -> int:
        """The dealer's best total over every card dealt to the dealer so far."""
        hard = 0
        has_ace = False
        for c in self.dealer:
            value = BJ_VALUE[c]
            hard += value
            if value == 1:
                has_ace = True
        return hard + 10 if has_ace and hard <= 11 else hard

    def legal_actions(self) -> frozenset[Action]:
        """The decisions open to the hand to act (empty when no hand is to act)."""
        hand = self.to_act
        if hand is None:
            return frozenset()
        seat, index = hand.seat, hand.index
        checks = (
            (Action.HIT, self.can_hit),
            (Action.STAND, self.can_stand),
            (Action.DOUBLE, self.can_double),
            (Action.SPLIT, self.can_split),
            (Action.SURRENDER, self.can_surrender),
        )
        legal = frozenset(action for action, can in checks if can(seat, index))
        # The Press only after a TriLux Deluxe win, on the initial hand (633b.11(f)): the
        # dict is empty at every other table and round.
        if (
            self._press_winnings
            and index == 0
            and seat in self._press_winnings
            and self._refuse_press(seat, index, None) is None
        ):
            return legal | {Action.PRESS}
        return legal

    # ---------------------------------------------------------------- betting

    def verify_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> None:
        """Raise unless ``wagers`` ({name: cents}) can be placed for ``seat`` now."""
        if self.phase is not _BETTING:
            raise WrongPhase(
                "no more bets: wagers are accepted only before the first card is dealt "
                "(633a.6(c), 633b.5(k))"
            )
        if type(seat) is not int or not 1 <= seat <= self.rules.seats:
            raise SeatError(f"seat {seat!r} is not a seat of this table (1..{self.rules.seats})")
        if not wagers:
            raise WagerError("no wager was given")
        state = self.seats.get(seat)
        placed = state.wagers if state is not None else _NO_WAGERS
        main = wagers.get(BLACKJACK, placed.get(BLACKJACK))
        quick = self.rules.quick_limits
        for name, amount in wagers.items():
            limits = quick.get(name)
            if (
                limits is not None
                and type(amount) is int
                and limits[0] <= amount <= limits[1]
                and not amount % limits[2]
                and (main is not None or not limits[3])
                and name not in placed
            ):
                continue
            self._verify_wager(seat, name, amount, placed, main, wagers)

    def _verify_wager(
        self,
        seat: int,
        name: str,
        amount: int,
        placed: Mapping[str, int],
        main: int | None,
        wagers: Mapping[str, int] = _NO_WAGERS,
    ) -> None:
        """The full check of one wager, raising the error that explains a refusal."""
        if name in placed:
            raise WagerError(
                f"the {name} wager of seat {seat} is already placed; a placed wager cannot "
                "be changed until it is settled (633a.6(c))"
            )
        if name == BLACKJACK:
            self.rules.main_limits.verify("Blackjack", amount)
            return
        offer = self.rules.offers.get(name)
        if offer is None:
            raise WagerNotOffered(f"this table does not offer a {name!r} wager")
        self._verify_side_wager(offer, amount, main, placed, wagers)

    def _verify_side_wager(
        self,
        offer: SideWagerOffer,
        amount: int,
        main: int | None,
        placed: Mapping[str, int] = _NO_WAGERS,
        placing: Mapping[str, int] = _NO_WAGERS,
    ) -> None:
        wager = offer.wager
        if BLACKJACK in wager.requires and main is None:
            raise WagerNotOffered(
                f"a {wager.title} wager needs a Blackjack wager on the same seat first "
                f"({wager.section})"
            )
        for required in wager.requires:
            if required != BLACKJACK and required not in placed and required not in placing:
                needed = self.rules.offers.get(required)
                title = needed.wager.title if needed is not None else required
                raise WagerNotOffered(
                    f"a {wager.title} wager needs a {title} wager on the same seat "
                    f"({wager.section}{wager.cites.get('requires', '')})"
                )
        if wager.fixed_amounts and amount not in wager.fixed_amounts:
            allowed = ", ".join(format_money(a) for a in wager.fixed_amounts)
            raise BetOutOfLimits(
                f"the {wager.title} wager is a fixed {allowed} wager, not "
                f"{format_money(amount) if type(amount) is int else repr(amount)} "
                f"({wager.section})"
            )
        offer.limits.verify(wager.title, amount)
        if wager.max_multiple_of_main is not None and main is not None:
            cap = main * wager.max_multiple_of_main
            if amount > cap:
                raise BetOutOfLimits(
                    f"the {wager.title} wager {format_money(amount)} is more than "
                    f"{wager.max_multiple_of_main} times the Blackjack wager "
                    f"({format_money(cap)}) ({wager.section})"
                )

    def can_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> bool:
        try:
            self.verify_place_wagers(seat, wagers)
        except RulesError:
            return False
        return True

    def place_wagers(self, seat: int, wagers: Mapping[str, int]) -> list[Any]:
        """Place one seat's wagers before the deal; returns a :class:`WagerPlaced` per wager."""
        rules = self.rules
        if (
            self.phase is _BETTING
            and type(seat) is int
            and 1 <= seat <= rules.seats
            and seat not in self.seats
        ):
            # The common case, a seat with no wager yet placing amounts plainly within their
            # limits, is accepted in the pass that logs the wagers; anything else goes through
            # the full check below, which explains a refusal.
            quick = rules.quick_limits
            main = BLACKJACK in wagers
            out: list[Any] = []
            for name, amount in wagers.items():
                limits = quick.get(name)
                if limits is None or type(amount) is not int:
                    break
                low, high, unit, needs_main = limits
                if not low <= amount <= high or amount % unit or (needs_main and not main):
                    break
                out.append(_new(WagerPlaced, (seat, 0, name, amount)))
            else:
                if out:
                    self.seats[seat] = Seat(seat, dict(wagers))
                    return out
        self.verify_place_wagers(seat, wagers)
        state = self.seats.get(seat)
        if state is None:
            state = self.seats[seat] = Seat(seat)
        state.wagers.update(wagers)
        return [_new(WagerPlaced, (seat, 0, name, amount)) for name, amount in wagers.items()]

    def place_wagers_on(self, seats: Sequence[int], wagers: Mapping[str, int]) -> list[Any]:
        """Place the same wagers on each of ``seats`` in turn (a simulated table): exactly
        what :meth:`place_wagers` on each seat, in that order, does and returns.

        The amounts are checked with the first seat's, and each further seat is only checked
        to be a seat of the table with no wager yet, since no other check depends on the seat.
        A seat that has wagers already, and every seat when the first one had some, goes
        through :meth:`place_wagers` itself.
        """
        if not seats:
            return []
        first = seats[0]
        checked = first not in self.seats  # its wagers are checked as a seat with none
        out = self.place_wagers(first, wagers)
        if len(seats) > 1:
            items = tuple(wagers.items())
            placed = self.seats
            last = self.rules.seats
            for seat in seats[1:]:
                if checked and type(seat) is int and 1 <= seat <= last and seat not in placed:
                    placed[seat] = Seat(seat, dict(wagers))  # its own dict of the amounts
                    for name, amount in items:
                        out.append(_new(WagerPlaced, (seat, 0, name, amount)))
                else:
                    out += self.place_wagers(seat, wagers)
        return out

    # ------------------------------------------------------------------- deal

    def verify_deal(self) -> None:
        if self.phase is not _BETTING:
            raise WrongPhase("the cards of this round are already dealt")
        if not any(BLACKJACK in s.wagers for s in self.seats.values()):
            raise WagerError("no seat has a Blackjack wager: there is nothing to deal")

    def can_deal(self) -> bool:
        try:
            self.verify_deal()
        except RulesError:
            return False
        return True

    def deal(self, source: CardSource) -> list[Any]:
        """Deal the initial cards (633a.7, 633b.5(n)) and run every step that follows
        without a decision: insurance offer, peek, immediate Blackjack payments."""
        if self.phase is not _BETTING:
            self.verify_deal()  # raises
        if len(self.seats) > 1:
            numbers = list(self.seats)
            if numbers != sorted(numbers):
                self.seats = dict(sorted(self.seats.items()))
        seats = []
        for seat in self.seats.values():
            if BLACKJACK in seat.wagers:
                seats.append(seat)
        if not seats:
            self.verify_deal()  # raises: no Blackjack wager
        self._source = source
        out = self._out = []
        draw = source.draw
        offers = self.rules.offers
        side_wagers = self._side_wagers
        # The initial cards are drawn and logged here rather than through _deal_to (the cards
        # of play), the hands made once both cards are known: this runs 2 * seats times a round.
        firsts: list[Card] = []
        for seat in seats:
            wagers = seat.wagers
            if len(wagers) > 1:
                for name, stake in wagers.items():
                    offer = offers.get(name)  # None for the Blackjack wager
                    if offer is not None:
                        due = (seat, name, stake, offer)
                        queue = side_wagers.get(offer.wager.settles_at)
                        if queue is None:
                            side_wagers[offer.wager.settles_at] = [due]
                        else:
                            queue.append(due)
            position = source.position
            card = draw()
            firsts.append(card)
            out.append(_new(CardDealt, (seat.number, 0, card, position, True)))
        dealer = self.dealer
        position = source.position  # the dealer's up card
        card = draw()
        dealer.append(card)
        out.append(_new(CardDealt, (DEALER, 0, card, position, True)))
        play = self._play
        for k, seat in enumerate(seats):
            first = firsts[k]
            number = seat.number
            position = source.position
            second = draw()
            out.append(_new(CardDealt, (number, 0, second, position, True)))
            hand = Hand(number, 0, {BLACKJACK: seat.wagers[BLACKJACK]}, first, second)
            seat.hands.append(hand)
            play.append(hand)
            seat.initial = (first, second)
        position = self._hole_position = source.position  # the hole card, face down
        card = draw()
        dealer.append(card)
        out.append(_new(CardDealt, (DEALER, 0, card, position, False)))
        if _AFTER_DEAL in side_wagers:
            self._press_offer = _press_offer(self.rules)
            self._settle_side_wagers(_AFTER_DEAL)
        if self.rules.insurance and BJ_VALUE[dealer[0]] == 1:
            self.phase = _INSURANCE
        else:
            self._after_insurance()
        return out

    def _deal_to(self, hand: Hand) -> Card:
        source = self._source
        assert source is not None
        position = source.position
        card = source.draw()
        # Hand.add, inlined: this runs for every player card.
        hand.cards.append(card)
        value = BJ_VALUE[card]
        hard = hand.hard = hand.hard + value
        if value == 1:
            hand.has_ace = True
        if hand.has_ace and hard <= 11:
            hand.total = hard + 10
            hand.soft = True
        else:
            hand.total = hard
            hand.soft = False
        self._out.append(_new(CardDealt, (hand.seat, hand.index, card, position, True)))
        return card

    # -------------------------------------------------------------- insurance

    def verify_insurance(self, seat: int, amount: int) -> None:
        """633a.8: an insurance wager of at most half the Blackjack wager, on an ace up card."""
        state = self._verify_insurance_seat(seat)
        half = state.wagers[BLACKJACK] // 2
        if type(amount) is not int or not 0 < amount <= half:
            raise BetOutOfLimits(
                f"insurance for seat {seat} must be between $0.01 and half the Blackjack "
                f"wager ({format_money(half)}) (633a.8)"
            )

    def _verify_insurance_seat(self, seat: int) -> Seat:
        if self.phase is not _INSURANCE:
            raise WrongPhase("insurance is offered only while the dealer shows an ace (633a.8)")
        state = self.seats.get(seat)
        if state is None or not state.hands:
            raise SeatError(f"seat {seat} has no Blackjack wager in this round")
        if state.insurance_decided:
            raise WrongPhase(f"seat {seat} has already answered the insurance offer")
        return state

    def can_insure(self, seat: int) -> bool:
        try:
            self._verify_insurance_seat(seat)
        except RulesError:
            return False
        return self.seats[seat].wagers[BLACKJACK] >= 2

    def insure(self, seat: int, amount: int, *, auto: bool = False) -> list[Any]:
        """Place an insurance wager (pays 2 to 1 if the dealer has Blackjack, 633a.8)."""
        self.verify_insurance(seat, amount)
        state = self.seats[seat]
        out = self._out = []
        out.append(Decision(seat, 0, INSURANCE_DECISION, amount, auto))
        out.append(WagerPlaced(seat, 0, INSURANCE, amount))
        state.insurance = amount
        self._insured = True
        state.wagers[INSURANCE] = amount
        self._insurance_answered(state)
        return out

    def decline_insurance(self, seat: int, *, auto: bool = False) -> list[Any]:
        """Decline the insurance or even money offer (the countdown's default)."""
        state = self._verify_insurance_seat(seat)
        out = self._out = []
        out.append(Decision(seat, 0, NO_INSURANCE, 0, auto))
        self._insurance_answered(state)
        return out

    def verify_even_money(self, seat: int) -> None:
        state = self._verify_insurance_seat(seat)
        if not self.rules.even_money:
            raise ActionNotAllowed("this table does not offer even money (Rules Submission)")
        if not state.hands[0].blackjack:
            raise ActionNotAllowed(
                f"even money is offered only to a Blackjack, and seat {seat} has none (633a.8)"
            )

    def can_take_even_money(self, seat: int) -> bool:
        try:
            self.verify_even_money(seat)
        except RulesError:
            return False
        return True

    def take_even_money(self, seat: int, *, auto: bool = False) -> list[Any]:
        """Settle a Blackjack at 1 to 1 before the peek, against a dealer ace (633a.8)."""
        self.verify_even_money(seat)
        state = self.seats[seat]
        out = self._out = []
        out.append(Decision(seat, 0, EVEN_MONEY, 0, auto))
        hand = state.hands[0]
        stake = hand.wagers[BLACKJACK]
        self._settle(hand, BLACKJACK, stake, stake * 2, WON, LINE_EVEN_MONEY)
        hand.settled = hand.done = True
        self._insurance_answered(state)
        return out

    def _insurance_answered(self, state: Seat) -> None:
        state.insurance_decided = True
        if all(s.insurance_decided for s in self.seats.values()):
            self._after_insurance()

    def _after_insurance(self) -> None:
        """Peek for Blackjack (633b.5(o)), settle insurance, pay Blackjacks, start play."""
        up = BJ_VALUE[self.dealer[0]]
        if up != 1 and up != 10:
            self.dealer_blackjack = False
            if _AFTER_PEEK in self._side_wagers:
                self._settle_side_wagers(_AFTER_PEEK)
        elif self.rules.dealer_peeks:
            # An ace or a ten-value up card: Blackjack when the two make 11.
            blackjack = up + BJ_VALUE[self.dealer[1]] == 11
            self._out.append(_PEEKED_BLACKJACK if blackjack else _PEEKED_NO_BLACKJACK)
            self.dealer_blackjack = blackjack
            if _AFTER_PEEK in self._side_wagers:
                self._settle_side_wagers(_AFTER_PEEK)
            if blackjack:
                self._dealer_turn()  # turns up the hole card and settles against Blackjack
                return
            if self._insured:
                self._settle_insurance()
        self.phase = _PLAYING
        if self.dealer_blackjack is False:
            for hand in self._play:
                if hand.total == 21 and not hand.settled and hand.blackjack:
                    self._pay_blackjack(hand)
        self._advance()

    def _settle_insurance(self) -> None:
        """633a.8, 633b.5(v)(2): insurance wins 2 to 1 exactly when the dealer has Blackjack."""
        if self._insurance_settled:
            return
        self._insurance_settled = True
        if not self._insured:
            return
        for state in self.seats.values():
            if state.insurance:
                stake = state.insurance
                if self.dealer_blackjack:
                    paid = INSURANCE_PAYS.total_return(stake)
                    self._settle_seat(state.number, INSURANCE, stake, paid, WON, LINE_INSURANCE)
                else:
                    self._settle_seat(state.number, INSURANCE, stake, 0, LOST, LINE_NO_WIN)

    # ------------------------------------------------------------------- play

    # Each action has a ``_refuse_*`` that returns the error it would raise, or None. The
    # verify_* methods raise it, the can_* methods test for None without the cost of raising
    # (the terminal's buttons and the bots ask after every card).

    def _refuse_turn(self, seat: int, hand: int) -> RulesError | None:
        current = self.to_act
        if current is not None and current.seat == seat and current.index == hand:
            return None
        if self.phase is not _PLAYING:
            return WrongPhase(f"no hand is to act: the round is in the {self.phase} phase")
        current = self._play[self._cursor]
        if current.seat != seat or current.index != hand:
            return NotYourTurn(
                f"it is the turn of seat {current.seat} hand {current.index + 1}, "
                f"not of seat {seat} hand {hand + 1}"
            )
        return None

    def _refuse_hit(self, seat: int, hand: int) -> RulesError | None:
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        current = self._play[self._cursor]
        if current.total >= 21:
            return ActionNotAllowed(
                f"a hand of {current.total} may not draw another card (633b.5(r)(1))"
            )
        if current.split_aces and not self.rules.hit_split_aces:
            return ActionNotAllowed("split aces receive one card each (633a.11)")
        return None

    def verify_hit(self, seat: int, hand: int) -> None:
        refusal = self._refuse_hit(seat, hand)
        if refusal is not None:
            raise refusal

    def can_hit(self, seat: int, hand: int) -> bool:
        return self._refuse_hit(seat, hand) is None

    def hit(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Draw one card; a bust is settled at once."""
        current = self.to_act
        if (
            current is None
            or current.seat != seat
            or current.index != hand
            or current.total >= 21
            or current.split_aces
        ):
            self.verify_hit(seat, hand)  # the full check, which explains a refusal
            current = self._play[self._cursor]
        own = auto is False and type(seat) is int and type(hand) is int
        if own and seat < _OWN_SEATS and hand < _OWN_HANDS:
            out = self._out = [_OWN_HITS[seat][hand]]  # the record made once (_decision)
        else:
            out = self._out = [_decision(_OWN_HITS, seat, hand, "hit", auto)]
        self._deal_to(current)
        if current.hard > 21:
            self._settle_bust(current)
        elif current.total == 21:
            current.done = True
        if current.done:  # else the same hand is still to act: nothing to advance
            self._advance()
        return out

    def verify_stand(self, seat: int, hand: int) -> None:
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            raise refusal

    def can_stand(self, seat: int, hand: int) -> bool:
        return self._refuse_turn(seat, hand) is None

    def stand(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Take no more cards on this hand."""
        current = self.to_act
        if current is None or current.seat != seat or current.index != hand:
            self.verify_stand(seat, hand)  # raises the refusal
            current = self._play[self._cursor]
        own = auto is False and type(seat) is int and type(hand) is int
        if own and seat < _OWN_SEATS and hand < _OWN_HANDS:
            out = self._out = [_OWN_STANDS[seat][hand]]
        else:
            out = self._out = [_decision(_OWN_STANDS, seat, hand, "stand", auto)]
        current.done = True
        self._advance()
        return out

    def _refuse_double(self, seat: int, hand: int, amount: int | None) -> RulesError | None:
        """633a.10: an additional wager of at most the original on the first two cards."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        current = self._play[self._cursor]
        return double_down_refusal(
            self.rules,
            current.cards,
            from_split=current.from_split,
            split_aces=current.split_aces,
            original=current.wagers[BLACKJACK],
            amount=amount,
        )

    def verify_double(self, seat: int, hand: int, amount: int | None = None) -> None:
        refusal = self._refuse_double(seat, hand, amount)
        if refusal is not None:
            raise refusal

    def can_double(self, seat: int, hand: int) -> bool:
        return self._refuse_double(seat, hand, None) is None

    def double(
        self, seat: int, hand: int, amount: int | None = None, *, auto: bool = False
    ) -> list[Any]:
        """Double down: an additional wager (the full original by default) and one card."""
        self.verify_double(seat, hand, amount)
        current = self._play[self._cursor]
        amount = current.wagers[BLACKJACK] if amount is None else amount
        out = self._out = [
            Decision(seat, hand, "double", amount, auto),
            WagerPlaced(seat, hand, DOUBLE, amount),
        ]
        current.wagers[DOUBLE] = amount
        self._deal_to(current)
        if current.hard > 21:
            self._settle_bust(current)
        current.done = True
        self._advance()
        return out

    def _refuse_split(self, seat: int, hand: int) -> RulesError | None:
        """633a.11: two cards identical in value; resplits up to the Rules Submission's limit."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        current = self._play[self._cursor]
        rules = self.rules
        cards = current.cards
        if len(cards) != 2 or BJ_VALUE[cards[0]] != BJ_VALUE[cards[1]]:
            return ActionNotAllowed("only two cards identical in value may be split (633a.11(a))")
        if len(self.seats[seat].hands) >= rules.max_split_hands:
            return ActionNotAllowed(
                f"this table allows at most {rules.max_split_hands} hands from splitting "
                "(633a.11(c), Rules Submission)"
            )
        if current.split_aces and not rules.resplit_aces:
            return ActionNotAllowed(
                "split aces may not be split again at this table (633a.11(c), Rules Submission)"
            )
        return None

    def verify_split(self, seat: int, hand: int) -> None:
        refusal = self._refuse_split(seat, hand)
        if refusal is not None:
            raise refusal

    def can_split(self, seat: int, hand: int) -> bool:
        return self._refuse_split(seat, hand) is None

    def split(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Split a pair into two hands, each with a wager equal to the original (633a.11(a));
        the first hand is completed before the second gets its card (633a.11(b)). A pressed
        hand's new hand also carries a ``trilux_press`` wager of the pressed amount
        (633b.11(h)); :meth:`split_cost` is what the split takes from the credits."""
        self.verify_split(seat, hand)
        current = self._play[self._cursor]
        state = self.seats[seat]
        amount = current.wagers[BLACKJACK]
        second = current.remove_last()
        new = Hand(seat, len(state.hands), {BLACKJACK: amount}, second, None)
        out = self._out = [
            Decision(seat, hand, "split", 0, auto),
            WagerPlaced(seat, new.index, BLACKJACK, amount),
        ]
        pressed = current.wagers.get(TRILUX_PRESS)
        if pressed is not None:
            # 633b.11(h): the new hand matches the initial wager and the pressed portion.
            new.wagers[TRILUX_PRESS] = pressed
            out.append(WagerPlaced(seat, new.index, TRILUX_PRESS, pressed))
        aces = current.has_ace
        for h in (current, new):
            h.from_split = True
            h.split_aces = aces
        state.hands.insert(state.hands.index(current) + 1, new)
        self._play.insert(self._cursor + 1, new)
        self._advance()
        return out

    def _refuse_surrender(self, seat: int, hand: int) -> RulesError | None:
        """633a.9: late surrender of the first two cards, if the Rules Submission offers it."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        if not self.rules.late_surrender:
            return ActionNotAllowed("this table does not offer surrender (633a.9)")
        current = self._play[self._cursor]
        if current.from_split or len(current.cards) != 2:
            return ActionNotAllowed(
                "surrender is allowed only on the first two cards of an unsplit hand (633a.9)"
            )
        return None

    def verify_surrender(self, seat: int, hand: int) -> None:
        refusal = self._refuse_surrender(seat, hand)
        if refusal is not None:
            raise refusal

    def can_surrender(self, seat: int, hand: int) -> bool:
        return self._refuse_surrender(seat, hand) is None

    def surrender(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Give up the hand for half of the Blackjack wager back (633a.9).

        A TriLux Deluxe Press is part of the capped Blackjack wager (633b.11(h): the winnings
        are "added to the initial wager"), so half of it comes back too, settled next to the
        Blackjack wager (each rounded down to the cent, as the Blackjack wager is).
        """
        self.verify_surrender(seat, hand)
        current = self._play[self._cursor]
        out = self._out = [Decision(seat, hand, "surrender", 0, auto)]
        for wager, stake in current.wagers.items():
            self._settle(current, wager, stake, stake // 2, SURRENDERED, LINE_SURRENDER)
        current.settled = current.done = True
        self._advance()
        return out

    # ------------------------------------------------------------ TriLux Press

    def _refuse_press(self, seat: int, hand: int, amount: int | None) -> RulesError | None:
        """58 Pa. Code 633b.11(f)-(g): the TriLux Deluxe Press, on a seat's initial hand as
        its first decision, after its TriLux Deluxe wager won, once the dealer is known not
        to have Blackjack; ``amount`` (None: not checked) of at most the winnings."""
        if _press_offer(self.rules) is None:
            return ActionNotAllowed(
                "this table does not offer the TriLux Deluxe Press (58 Pa. Code 633b.11(f), "
                "Rules Submission)"
            )
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        winnings = self._press_winnings.get(seat, 0)
        if not winnings:
            return PressNotAllowed(
                f"seat {seat} has no TriLux Deluxe winnings to press: the Press is offered only "
                "when the TriLux Deluxe wager wins (58 Pa. Code 633b.11(f))"
            )
        current = self._play[self._cursor]
        if TRILUX_PRESS in self.seats[seat].hands[0].wagers:
            return PressNotAllowed(
                f"seat {seat} has already pressed its TriLux Deluxe winnings; the Press is "
                "made once (58 Pa. Code 633b.11(f))"
            )
        if current.index != 0 or current.from_split or len(current.cards) != 2:
            return PressNotAllowed(
                "the TriLux Deluxe Press caps the initial Blackjack wager and is the first "
                "decision on the initial hand, before any other (58 Pa. Code 633b.11(f))"
            )
        if self.dealer_blackjack is not False:
            return PressNotAllowed(
                "TriLux Deluxe winnings may not cap the Blackjack wager when the dealer has "
                "Blackjack, and this table determines the dealer's Blackjack only after the "
                "hands are played (58 Pa. Code 633b.11(g))"
            )
        if amount is None:
            return None
        return refuse_press(
            amount,
            winnings=winnings,
            main=current.wagers[BLACKJACK],
            dealer_blackjack=False,
            unit=self.rules.main_limits.unit,
        )

    def verify_press(self, seat: int, hand: int, amount: int | None = None) -> None:
        """Raise unless the hand may press ``amount`` (None: all) of the seat's TriLux Deluxe
        winnings onto its initial Blackjack wager now (633b.11(f)-(g))."""
        refusal = self._refuse_press(seat, hand, amount)
        if refusal is not None:
            raise refusal

    def can_press(self, seat: int, hand: int, amount: int | None = None) -> bool:
        """Whether :meth:`verify_press` accepts the Press (the terminal's Press button)."""
        return bool(self._press_winnings) and self._refuse_press(seat, hand, amount) is None

    def press_limit(self, seat: int) -> int:
        """The most seat ``seat`` may press: its TriLux Deluxe winnings (0: none won)."""
        return self._press_winnings.get(seat, 0)

    def press(
        self, seat: int, hand: int, amount: int | None = None, *, auto: bool = False
    ) -> list[Any]:
        """Cap the initial Blackjack wager with ``amount`` cents of the seat's TriLux Deluxe
        winnings (None: all of them), 58 Pa. Code 633b.11(f).

        The pressed amount is a wager of its own on the hand, ``trilux_press``, taken from
        the player's credits (the TriLux Deluxe settlement already paid the winnings there).
        It wins even money when the hand wins, is returned on a push, lost on a loss or bust
        ((g)); a surrender returns half of it (:meth:`surrender`); a split matches it
        ((h), :meth:`split_cost`). The hand still has to act: the Press draws no card.
        """
        self.verify_press(seat, hand, amount)
        current = self._play[self._cursor]
        if amount is None:
            amount = self._press_winnings[seat]
        out = self._out = [
            Decision(seat, hand, PRESS_DECISION, amount, auto),
            WagerPlaced(seat, hand, TRILUX_PRESS, amount),
        ]
        current.wagers[TRILUX_PRESS] = amount
        return out

    # ------------------------------------------------------------------ costs

    def _hand(self, seat: int, hand: int) -> Hand:
        state = self.seats.get(seat)
        if state is not None:
            for h in state.hands:
                if h.index == hand:
                    return h
        raise SeatError(f"seat {seat} has no hand {hand + 1} in this round")

    def split_cost(self, seat: int, hand: int) -> int:
        """What splitting the hand takes from the player's credits, in cents: the initial
        Blackjack wager (633a.11(a)) plus, on a pressed hand, the pressed TriLux Deluxe
        winnings (633b.11(h))."""
        wagers = self._hand(seat, hand).wagers
        return split_match(wagers[BLACKJACK], wagers.get(TRILUX_PRESS, 0))

    def double_cost(self, seat: int, hand: int) -> int:
        """What a full double down of the hand takes from the credits, in cents: the initial
        Blackjack wager (633a.10), pressed or not. 633b.11(h) lets a pressed hand double "in
        accordance with 633a.10", whose additional wager may not exceed the original
        Blackjack wager; unlike a split, the pressed portion is not matched."""
        return self._hand(seat, hand).wagers[BLACKJACK]

    def countdown_action(self) -> Action:
        """What the countdown does for the hand to act when the player has not acted.

        The player is deemed to stand (633b.5(p)(2)); where the Rules Submission says so, a
        hard total of 11 or less is hit instead (the option 633b.5(z) names, explained in the
        game rules icon of 633b.5(c)(2)). It never presses TriLux Deluxe winnings: to collect
        them is the option that needs no decision (633b.11(f)).
        """
        hand = self.to_act
        if hand is None:
            raise WrongPhase(f"no hand is to act: the round is in the {self.phase} phase")
        if (
            self.rules.countdown_default is CountdownDefault.HIT_HARD_11_OR_LESS
            and not hand.soft
            and hand.total <= 11
            and self.can_hit(hand.seat, hand.index)
        ):
            return Action.HIT
        return Action.STAND

    def act(
        self,
        action: Action,
        seat: int,
        hand: int,
        *,
        amount: int | None = None,
        auto: bool = False,
    ) -> list[Any]:
        """Dispatch a player decision by name (the server's and the bots' entry point).

        ``amount`` is read by a double down (None: the full original wager) and by the
        TriLux Deluxe Press (None: all of the seat's TriLux Deluxe winnings, what the
        terminal's button sends); the other decisions take none.
        """
        if action is Action.HIT:
            return self.hit(seat, hand, auto=auto)
        if action is Action.STAND:
            return self.stand(seat, hand, auto=auto)
        if action is Action.DOUBLE:
            return self.double(seat, hand, amount, auto=auto)
        if action is Action.SPLIT:
            return self.split(seat, hand, auto=auto)
        if action is Action.PRESS:
            return self.press(seat, hand, amount, auto=auto)
        return self.surrender(seat, hand, auto=auto)

    def _advance(self) -> None:
        """Move to the next hand that needs a decision; deal split hands their second card
        (633a.11(b)); finish hands of 21 and split aces; play the dealer when none is left."""
        play = self._play
        cursor = self._cursor
        end = len(play)
        while cursor < end:
            hand = play[cursor]
            if hand.done:
                cursor += 1
                continue
            self._cursor = cursor
            if hand.from_split and len(hand.cards) == 1:
                card = self._deal_to(hand)
                rules = self.rules
                if (
                    hand.split_aces
                    and not rules.hit_split_aces
                    and not (
                        rules.resplit_aces
                        and BJ_VALUE[card] == 1
                        and len(self.seats[hand.seat].hands) < rules.max_split_hands
                    )
                ):
                    hand.done = True
                    continue
            if hand.total == 21:
                hand.done = True
                continue
            self.to_act = hand
            return
        self._cursor = cursor
        self.to_act = None
        self._dealer_turn()

    # ----------------------------------------------------------------- dealer

    def _dealer_turn(self) -> None:
        """Turn up the hole card and settle against a dealer Blackjack; else draw to 17
        (633b.5(s)) and stand on all 17s unless the Rules Submission says the dealer hits
        soft 17. Then settle what is due at the round's end and close it. Play is over
        (:meth:`_advance` left the cursor past the last hand), or a peek found Blackjack."""
        dealer = self.dealer
        out = self._out
        if not self.hole_revealed:
            self.hole_revealed = True
            out.append(_new(HoleCardRevealed, (dealer[1], self._hole_position)))
            if self.dealer_blackjack is None:  # else known since the peek or from the up card
                self.dealer_blackjack = is_blackjack(dealer)
            side_wagers = self._side_wagers
            if _AFTER_PEEK in side_wagers:  # no peek: Blackjack is known only now
                self._settle_side_wagers(_AFTER_PEEK)
            if _AFTER_HOLE_CARD in side_wagers:
                self._settle_side_wagers(_AFTER_HOLE_CARD)
        if self.dealer_blackjack:
            self._settle_against_dealer_blackjack()
            self._deal_for_side_wagers_on_dealer_blackjack()
            total = self.dealer_total()
        else:
            if self._insured:
                self._settle_insurance()
            play = self._play
            hard, ace, total, _ = _TWO_CARDS[dealer[0]][dealer[1]]
            live = False
            for hand in play:
                if not hand.settled:
                    live = True
                    break
            if live or _AFTER_ROUND in self._side_wagers:
                hits_soft_17 = self.rules.dealer_hits_soft_17
                source = self._source
                assert source is not None
                while total < 17 or (total == 17 and hits_soft_17 and ace and hard <= 11):
                    position = source.position
                    card = source.draw()
                    dealer.append(card)
                    out.append(_new(CardDealt, (DEALER, 0, card, position, True)))
                    value = BJ_VALUE[card]
                    hard += value
                    ace = ace or value == 1
                    total = hard + 10 if ace and hard <= 11 else hard
            for hand in play:
                if not hand.settled:
                    self._settle_hand(hand, total)
        # The round's end: the side wagers due then, and the round closed.
        if _AFTER_ROUND in self._side_wagers:
            self._settle_side_wagers(_AFTER_ROUND)
        self.phase = _COMPLETE
        self._cursor = len(self._play)
        self.to_act = None
        out.append(_new(RoundCompleted, (tuple(dealer), total)))

    # ------------------------------------------------------------- settlement

    def _settle(
        self, hand: Hand, wager: str, stake: int, paid: int, outcome: str, line: str
    ) -> None:
        self._out.append(
            _new(WagerSettled, (hand.seat, hand.index, wager, stake, paid, outcome, line))
        )

    def _settle_seat(
        self, seat: int, wager: str, stake: int, paid: int, outcome: str, line: str
    ) -> None:
        self._out.append(_new(WagerSettled, (seat, 0, wager, stake, paid, outcome, line)))

    def _settle_bust(self, hand: Hand) -> None:
        out = self._out
        seat, index = hand.seat, hand.index
        for wager, stake in hand.wagers.items():
            out.append(_new(WagerSettled, (seat, index, wager, stake, 0, LOST, LINE_BUST)))
        hand.settled = hand.done = True

    def _pay_blackjack(self, hand: Hand) -> None:
        """633b.5(v)(1): a player Blackjack is paid 3 to 2 once the dealer cannot have one."""
        stake = hand.wagers[BLACKJACK]
        self._settle(
            hand, BLACKJACK, stake, BLACKJACK_PAYS.total_return(stake), WON, LINE_BLACKJACK
        )
        hand.settled = hand.done = True

    def _settle_hand(self, hand: Hand, dealer_total: int) -> None:
        """633b.5(t): win 1 to 1, push on equal totals, lose; Blackjack beats a dealer 21."""
        total = hand.total
        if total == 21 and hand.blackjack:
            self._pay_blackjack(hand)
            return
        out = self._out
        seat, index = hand.seat, hand.index
        if dealer_total > 21 or total > dealer_total:
            for wager, stake in hand.wagers.items():
                out.append(
                    _new(WagerSettled, (seat, index, wager, stake, stake * 2, WON, LINE_WIN))
                )
        elif total == dealer_total:
            for wager, stake in hand.wagers.items():
                out.append(
                    _new(WagerSettled, (seat, index, wager, stake, stake, PUSHED, LINE_PUSH))
                )
        else:
            for wager, stake in hand.wagers.items():
                out.append(_new(WagerSettled, (seat, index, wager, stake, 0, LOST, LINE_LOSS)))
        hand.settled = True

    def _settle_against_dealer_blackjack(self) -> None:
        """Dealer Blackjack: insurance wins, a player Blackjack pushes, other hands lose.

        Without a peek the additional double down and split wagers are returned, and only the
        original wager is collected (633a.10, 633a.11(d)).
        """
        self._settle_insurance()
        for seat in self.seats.values():
            for hand in seat.hands:
                if hand.settled:
                    continue
                if hand.blackjack:
                    stake = hand.wagers[BLACKJACK]
                    self._settle(hand, BLACKJACK, stake, stake, PUSHED, LINE_PUSH)
                else:
                    for wager, stake in hand.wagers.items():
                        if wager == BLACKJACK and hand.index == 0:
                            self._settle(hand, wager, stake, 0, LOST, LINE_DEALER_BLACKJACK)
                        else:
                            self._settle(hand, wager, stake, stake, PUSHED, LINE_ORIGINAL_ONLY)
                hand.settled = hand.done = True

    def _has_side_wagers(self, moment: Moment) -> bool:
        return moment in self._side_wagers

    def _settle_side_wagers(self, moment: Moment) -> None:
        """Settle the side wagers due at ``moment`` on each seat's first two cards and the
        dealer's cards known now (each wager's module cites its section)."""
        # Each wager settles once (AFTER_PEEK has two places it may happen): popped.
        due = self._side_wagers.pop(moment, None)
        if due is None:
            return
        decks = self.rules.decks
        dealer: tuple[Card, ...]
        if moment is _AFTER_DEAL:
            dealer = (self.dealer[0],)
            dealer_blackjack = False
        else:
            dealer = tuple(self.dealer)
            dealer_blackjack = bool(self.dealer_blackjack)
        out = self._out
        press_offer = self._press_offer
        for seat, name, stake, offer in due:
            played = seat.hands
            if len(played) == 1:  # no split: the common case, without a generator
                hands: tuple[tuple[Card, ...], ...] = (tuple(played[0].cards),)
            else:
                hands = tuple([tuple(hand.cards) for hand in played])
            context = _new(
                SideWagerContext,
                (
                    seat.initial,
                    dealer,
                    decks,
                    dealer_blackjack,
                    hands,
                    stake,
                    seat.wagers[BLACKJACK],
                    offer.option_map,
                ),
            )
            wager = offer.wager
            line = wager.evaluate(context, offer.paytable)
            if wager.bonuses is not None:
                self._pay_bonuses(seat, name, context, offer)
            if line is None:
                out.append(_new(WagerSettled, (seat.number, 0, name, stake, 0, LOST, LINE_NO_WIN)))
                continue
            pay = line.pay
            if type(pay) is MeterShare:
                # The stake comes back; the meter's share is the win (ProgressiveWon).
                self._settle_seat(seat.number, name, stake, stake, WON, line.name)
                self._out.append(
                    _new(ProgressiveWon, (seat.number, name, pay.meter, pay.percent, line.name))
                )
            else:
                assert not isinstance(pay, MeterShare)
                paid = pay.total_return(stake)
                out.append(_new(WagerSettled, (seat.number, 0, name, stake, paid, WON, line.name)))
                if offer is press_offer:
                    winnings = dict(self._press_winnings)
                    winnings[seat.number] = paid - stake  # 633b.11(f)
                    self._press_winnings = winnings

    def _pay_bonuses(
        self, seat: Seat, name: str, context: SideWagerContext, offer: SideWagerOffer
    ) -> None:
        """Awards besides the paytable (Envy Bonus, cash bonus), each settled as a wager of
        its own (``NAME_bonus``, no stake) so wallets and meters count it as paid out."""
        bonuses = offer.wager.bonuses
        assert bonuses is not None
        seats = {
            number: context
            if other is seat
            else _new(
                SideWagerContext,
                (
                    other.initial,
                    context.dealer_cards,
                    context.decks,
                    context.dealer_blackjack,
                    tuple(tuple(h.cards) for h in other.hands),
                    0,
                    other.wagers.get(BLACKJACK, 0),
                    _NO_WAGERS,
                ),
            )
            for number, other in self.seats.items()
            if other.initial
        }
        for line, cents in bonuses(context, seats):
            self._settle_seat(seat.number, f"{name}_bonus", 0, cents, WON, line)

    def _deal_for_side_wagers_on_dealer_blackjack(self) -> None:
        """633b.9(d)(4): a seat whose side wager asks for it is dealt one more card to its
        first hand when the dealer has Blackjack (the hand itself is already settled)."""
        for seat in self.seats.values():
            if not seat.hands or len(seat.hands) > 1 or len(seat.hands[0].cards) != 2:
                continue
            for name in seat.wagers:
                offer = self.rules.offers.get(name)
                draws = None if offer is None else offer.wager.draws_on_dealer_blackjack
                if draws is not None and draws(seat.initial, offer.option_map):  # type: ignore[union-attr]
                    self._deal_to(seat.hands[0])
                    break


def _press_offer(rules: BlackjackRules) -> SideWagerOffer | None:
    """The table's TriLux Deluxe offer if its Rules Submission turns on the Press
    (633b.11(f), option ``"press"``), else None."""
    offer = rules.offers.get(TRILUX.name)
    if offer is None or not offer.option_map.get(PRESS):
        return None
    return offer


def replay(rules: BlackjackRules, events: Sequence[Any]) -> BlackjackRound:
    """Rebuild a round from its logged events by driving a fresh engine with the same inputs.

    Wagers, the logged cards and every decision go back into the engine; each step's events
    must equal the logged ones exactly, or :class:`ReplayMismatch` names the first event that
    differs. Returns the replayed round.
    """
    cards = [(e.card, e.position) for e in events if type(e) is CardDealt]
    source = LoggedCards(cards)
    game = BlackjackRound(rules)

    def step(i: int, ev: Any) -> list[Any] | None:
        kind = type(ev)
        if game.phase is Phase.BETTING and kind is WagerPlaced:
            return game.place_wagers(ev.seat, seat_wagers(events, i))
        if game.phase is Phase.BETTING and kind is CardDealt:
            return game.deal(source)
        if kind is Decision:
            return _replay_decision(game, ev)
        return None

    replay_steps(events, step, lambda: game.phase)
    return game


def _replay_decision(game: BlackjackRound, ev: Decision) -> list[Any]:
    if ev.action == INSURANCE_DECISION:
        return game.insure(ev.seat, ev.amount, auto=ev.auto)
    if ev.action == NO_INSURANCE:
        return game.decline_insurance(ev.seat, auto=ev.auto)
    if ev.action == EVEN_MONEY:
        return game.take_even_money(ev.seat, auto=ev.auto)
    action = Action(ev.action)
    if action is Action.DOUBLE:
        return game.double(ev.seat, ev.hand, ev.amount, auto=ev.auto)
    if action is Action.PRESS:
        return game.press(ev.seat, ev.hand, ev.amount, auto=ev.auto)
    return game.act(action, ev.seat, ev.hand, auto=ev.auto)


#: The kinds of record the Blackjack engine produces (what replay feeds back to it).
ENGINE_KINDS: Final[frozenset[type]] = frozenset(
    {
        WagerPlaced,
        CardDealt,
        Decision,
        DealerPeeked,
        HoleCardRevealed,
        WagerSettled,
        ProgressiveWon,
        RoundCompleted,
    }
)
