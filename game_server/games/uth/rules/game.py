"""One round of Ultimate Texas Hold 'Em Poker at a fully automated table: the pure engine.

:class:`UthRound` holds one round at a table of any number of seats (:attr:`UthRules.seats`).
Every action follows verify / can / act (STYLE.md): ``verify_play`` raises a specific
:class:`~game_server.rules.errors.RulesError` with a sentence for a human, ``can_play``
answers for the terminal's buttons, ``play`` verifies, changes the state and returns the
frozen event records it produced. Cards come from a :class:`CardSource` (the certified shoe
holding one shuffled 52-card deck per round, a stacked deck in tests, the logged cards in
replay). The Magic Card, the Lucky Bonus position and the meters come in as arguments of
:meth:`UthRound.settle`; the engine never reads a clock or a random source.

The procedure (58 Pa. Code 653a; 653a.7-653a.11 are not held, so the procedure follows the
research notes ``regs-653a.md``, which quote the Pennsylvania rack cards):

- wagers: an Ante and an equal Blind (653a.7), optional Trips (653a.12(c)), Progressive
  Payout (653a.12(d), fixed amounts with an Envy Bonus table) and Five Card Hand Bonus on the
  player's hand and/or the dealer's hand (653a.12(e), fixed amounts of the Rules Submission);
- deal: one card to each seat in seat order, one to the dealer, again (all face down);
- preflop: check, or a Play Wager of 3 or 4 times the Ante; flop (three community cards):
  check, or Play 2 times the Ante if none yet; turn and river (two more): Play 1 times the
  Ante or fold (no check). One Play Wager per round. Decisions of one street are taken in
  any order (every terminal has its own countdown); the next cards come when all decided;
- the dealer reveals and qualifies with a pair or better;
- settlement (:meth:`UthRound.settle`), seat by seat in seat order ("when it is the player's
  turn to be paid", 653a.12(d)(4); 653a.11(j) is not held: ascending seat numbers):

  - 653a.12(a): Ante and Play 1 to 1 when the player's hand beats the dealer's; the Ante
    pushes when the dealer does not qualify (notes); ties push Ante, Blind and Play; a losing
    or folded hand loses Ante, Blind (and Play);
  - 653a.12(b): the Blind pays its paytable only when the player beats the dealer, and
    pushes below the paytable (Paytable A: "Less than a straight"; B: "Less than a flush");
  - 653a.12(c): Trips pays on the player's hand regardless of the dealer's;
  - 653a.12(d)(1)-(4): the Progressive Payout pays only the highest hand formed from the
    player's two cards and the flop; meter lines at the meter's amount at that moment, so a
    later seat gets the meter as an earlier award left it (reset included);
  - 653a.12(d)(5): the Envy Bonus to each Progressive Payout bettor for every *other*
    player's Envy Bonus Qualifying Hand (straight flush or better, same five cards; 653a.1);
  - 653a.12(e)(1)-(2): the Five Card Hand Bonus on the player's hand, then on the dealer's
    hand after every seat, a dealer-hand meter line divided equally among the players who
    wagered on it (:meth:`~game_server.rules.meters.Meter.award_shared`);
  - 653a.12(e)(3): Magic Card (20 for 1) when one of the hand's two cards is the drawn card,
    or Lucky Bonus (5 for 1) when the hand's position (a seat, or 0 for the dealer) is drawn
    (a table offers one of the two: "a Magic Card **or** Lucky Bonus"), "an additional
    payout" (653a.1) on a wager whose hand wins a line of (e)(1) (or on every wager, as the
    Rules Submission states: :class:`~game_server.games.uth.rules.rules.BonusOn`). A "for 1" pay
    includes the stake once (docs/design.md "Money"): the (e)(1) line has already returned the
    stake, so the bonus is an award of its own, with no stake, of 19 (4) times the wager; on
    a hand that won no line (``every-hand``) the award is the whole 20 (5) for 1;
  - 653a.12(f): the maximum payout per hand limits the winnings of the Ante, Blind, Play and
    Trips Wagers together, in that order; never the Progressive Payout or Five Card Hand
    Bonus. (f) names the wagers of 653a.7(d)(1)-(2), whose text is not held; since it names
    the Progressive Payout (d)(3) and Five Card Hand Bonus (d)(4) apart, (d)(1)-(2) are read
    as the Ante, Blind, Play and Trips.

A meter line pays the stake back plus the meter's share (the project's convention, as the
Blackjack progressives); "a for 1" lines include the stake and scale with it (a $5
Progressive Payout Wager's four of a kind returns $1,500), while a meter share does not
(653a.12(d)(1) pays "100% of meter" whatever the fixed amount).

Entry points: :class:`UthRound`, :func:`replay`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final, NamedTuple

from game_server.games.uth.rules.events import (
    ANTE,
    BETTING_WAGERS,
    BLIND,
    BOARD,
    DEALER,
    ENVY,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    LOST,
    PLAY,
    PROGRESSIVE,
    PUSHED,
    TRIPS,
    WON,
    UthCardDealt,
    UthDealerRevealed,
    UthDecision,
    UthHandShown,
    UthPayoutCapped,
    UthRoundCompleted,
    UthSettlementStarted,
    UthStreetStarted,
    UthWagerPlaced,
    UthWagerSettled,
)
from game_server.games.uth.rules.hands import best_five, category_of, hand_name, rank7, rank_cards
from game_server.games.uth.rules.paytables import (
    BLIND_PUSH,
    ENVY_BONUS,
    EVEN_MONEY,
    FIVE_CARD_PAYTABLE,
    PROGRESSIVE_PAYTABLE,
    line_for,
)
from game_server.games.uth.rules.rules import (
    FLOP_MULTIPLES,
    PREFLOP_MULTIPLES,
    RIVER_MULTIPLES,
    FiveCardHand,
    UthRules,
)
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    RulesError,
    SeatError,
    WagerError,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.meters import Meter, MeterAwarded, MeterReseeded, MeterStep
from game_server.rules.one_deck import CardSource, DeckError, draw_once
from game_server.rules.poker import Category5
from game_server.rules.replaying import LoggedCards, logged_meters, replay_steps, seat_wagers
from game_server.rules.wagers.base import PaytableLine
from game_server.rules.wagers.five_card_bonus import settle_five_card
from shared.cards import Card
from shared.money import Fixed, MeterShare, format_money

#: Where the Play and fold rule comes from. 653a.7 (wagers) and 653a.11 (completion of each
#: round) are not in the text we hold: the procedure follows the research notes
#: (regs-653a.md), and a line shown to a player names the sections, not the notes.
PLAY_RULE = "653a.7, 653a.11"
WAGER_TITLES = {
    ANTE: "Ante",
    BLIND: "Blind",
    TRIPS: "Trips",
    PROGRESSIVE: "Progressive Payout",
    FIVE_CARD_PLAYER: "Five Card Hand Bonus (player's hand)",
    FIVE_CARD_DEALER: "Five Card Hand Bonus (dealer's hand)",
}


LINE_WIN = "Win 1 to 1 (653a.12(a))"
LINE_TIE = "Tie: push (653a.11)"
LINE_DEALER_WINS = "Dealer's hand wins (653a.11)"
LINE_NOT_QUALIFIED = "Dealer does not qualify: Ante pushes (653a.11)"
_B = "(653a.12(b))"


class _Result(NamedTuple):
    """One wager's result before 653a.12(f): ``win`` is on top of the stake (0 unless won)."""

    wager: str
    stake: int
    win: int
    outcome: str
    line: str


class Phase(StrEnum):
    """Where the round is."""

    BETTING = "betting"
    PREFLOP = "preflop"
    FLOP = "flop"
    RIVER = "river"
    SHOWDOWN = "showdown"
    """Every decision is made and the dealer's hand is shown; :meth:`UthRound.settle` next."""
    COMPLETE = "complete"


class Action(StrEnum):
    """A player's decision."""

    CHECK = "check"
    PLAY = "play"
    FOLD = "fold"


#: The Play Wager multiples of the Ante allowed at each decision.
MULTIPLES: dict[Phase, tuple[int, ...]] = {
    Phase.PREFLOP: PREFLOP_MULTIPLES,
    Phase.FLOP: FLOP_MULTIPLES,
    Phase.RIVER: RIVER_MULTIPLES,
}


class StackedDeck:
    """A card source dealing the given cards in order (tests, simulations, the demo)."""

    def __init__(self, cards: Sequence[Card]) -> None:
        self._cards = list(cards)
        self._next = 0

    @property
    def position(self) -> int:
        return self._next

    def draw(self) -> Card:
        if self._next >= len(self._cards):
            raise WrongPhase(f"the stacked deck of {len(self._cards)} cards is used up")
        card = self._cards[self._next]
        self._next += 1
        return card


class Seat:
    """One seat's wagers and cards for this round (mutable engine state)."""

    __slots__ = ("cards", "decided", "folded", "number", "play_multiple", "wagers")

    def __init__(self, number: int) -> None:
        self.number = number
        self.wagers: dict[str, int] = {}
        self.cards: list[Card] = []
        self.play_multiple = 0
        self.folded = False
        self.decided = False


class UthRound:
    """The state of one Ultimate Texas Hold 'Em round; every public action returns events.

    Args:
        rules: The table's validated rules.
        table: The table's name, the prefix of each betting position a meter records
            (``"uth-1/3"`` is seat 3 of table ``uth-1``).
    """

    def __init__(self, rules: UthRules, table: str = "uth") -> None:
        self.rules = rules
        self.table = table
        self.phase = Phase.BETTING
        self.seats: dict[int, Seat] = {}
        self.dealer: list[Card] = []
        self.board: list[Card] = []
        self._source: CardSource | None = None
        self._dealt: set[Card] = set()
        self._out: list[Any] = []
        self._meters_after: dict[str, Meter] = {}
        self._meter_events: dict[str, list[Any]] = {}
        self._meters_before: dict[str, Meter] = {}

    # ------------------------------------------------------------------ views

    @property
    def pending(self) -> tuple[int, ...]:
        """The seats that still have to decide on the current street."""
        if self.phase not in MULTIPLES:
            return ()
        return tuple(n for n, s in self.seats.items() if not s.decided)

    def place(self, seat: int) -> str:
        """The betting position's name for the meters (``"table/seat"``)."""
        return f"{self.table}/{seat}"

    def hand_value(self, seat: int) -> int:
        """The value of a seat's best five of its two cards and the board (five cards or
        more known), for views and bots."""
        return rank_cards([*self._seat(seat).cards, *self.board])

    def contributions(self) -> tuple[tuple[str, int, str], ...]:
        """``(meter id, wager cents, place)`` for every wager that feeds a meter (653a.12(d)(3),
        (e)(4)): the table feeds them through its MeterBank when the wagers are locked at
        the deal, as for the Blackjack progressives."""
        out = []
        rules = self.rules
        for number, seat in sorted(self.seats.items()):
            for name in (PROGRESSIVE, FIVE_CARD_PLAYER, FIVE_CARD_DEALER):
                if name in seat.wagers:
                    meter_id = (
                        rules.progressive_meter_id
                        if name == PROGRESSIVE
                        else rules.five_card_meter_id
                    )
                    out.append((meter_id, seat.wagers[name], self.place(number)))
        return tuple(out)

    # ---------------------------------------------------------------- betting

    def verify_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> None:
        """Raise unless ``wagers`` ({name: cents}) can be placed for ``seat`` now."""
        if self.phase is not Phase.BETTING:
            raise WrongPhase(
                "no more bets: wagers are placed before the first card is dealt (653a.7)"
            )
        if type(seat) is not int or not 1 <= seat <= self.rules.seats:
            raise SeatError(f"seat {seat!r} is not a seat of this table (1..{self.rules.seats})")
        if not wagers:
            raise WagerError("no wager was given")
        state = self.seats.get(seat)
        placed: Mapping[str, int] = state.wagers if state is not None else {}
        for name, amount in wagers.items():
            if name not in BETTING_WAGERS:
                if name == PLAY:
                    raise WagerNotOffered(
                        "the Play Wager is made at a decision after the deal, not before "
                        f"({PLAY_RULE})"
                    )
                raise WagerNotOffered(f"an Ultimate Texas Hold 'Em table has no {name!r} wager")
            if name in placed:
                raise WagerError(
                    f"the {WAGER_TITLES[name]} Wager of seat {seat} is already placed; a placed "
                    "wager cannot be changed (653a.7)"
                )
            if type(amount) is not int:
                raise BetOutOfLimits(f"{WAGER_TITLES[name]} wager {amount!r} is not whole cents")
        ante = wagers.get(ANTE, placed.get(ANTE))
        blind = wagers.get(BLIND, placed.get(BLIND))
        if ante is None or blind is None:
            raise WagerNotOffered(
                "a player places an Ante Wager and an equal Blind Wager before any other "
                "wager (653a.7)"
            )
        if ANTE in wagers:
            self.rules.ante_limits.verify("Ante", ante)
        if blind != ante:
            raise WagerError(
                f"the Blind Wager ({format_money(blind)}) must equal the Ante Wager "
                f"({format_money(ante)}) (653a.7)"
            )
        rules = self.rules
        if TRIPS in wagers:
            if rules.trips_paytable is None:
                raise WagerNotOffered("this table does not offer the Trips Wager (653a.12(c))")
            rules.trips_limits.verify("Trips", wagers[TRIPS])
        if PROGRESSIVE in wagers:
            _fixed(
                "Progressive Payout",
                wagers[PROGRESSIVE],
                rules.progressive_amounts,
                "653a.12(d), (d)(5)",
            )
        for name in (FIVE_CARD_PLAYER, FIVE_CARD_DEALER):
            if name in wagers:
                _fixed(WAGER_TITLES[name], wagers[name], rules.five_card_amounts, "653a.12(e)")

    def can_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> bool:
        try:
            self.verify_place_wagers(seat, wagers)
        except RulesError:
            return False
        return True

    def place_wagers(self, seat: int, wagers: Mapping[str, int]) -> list[Any]:
        """Place one seat's wagers before the deal; returns a ``uth_wager_placed`` per wager."""
        self.verify_place_wagers(seat, wagers)
        state = self.seats.get(seat)
        if state is None:
            state = self.seats[seat] = Seat(seat)
        ordered = [name for name in BETTING_WAGERS if name in wagers]
        for name in ordered:
            state.wagers[name] = wagers[name]
        return [UthWagerPlaced(seat, name, wagers[name]) for name in ordered]

    # ------------------------------------------------------------------- deal

    def verify_deal(self) -> None:
        if self.phase is not Phase.BETTING:
            raise WrongPhase("the cards of this round are already dealt")
        if not self.seats:
            raise WagerError("no seat has an Ante Wager: there is nothing to deal")

    def can_deal(self) -> bool:
        try:
            self.verify_deal()
        except RulesError:
            return False
        return True

    def deal(self, source: CardSource) -> list[Any]:
        """Deal two cards to each seat in seat order and to the dealer, one at a time, face
        down, and open the preflop decision."""
        self.verify_deal()
        self._source = source
        self.seats = dict(sorted(self.seats.items()))
        out = self._out = []
        for _ in range(2):
            for seat in self.seats.values():
                seat.cards.append(self._draw(seat.number, face_up=False))
            self.dealer.append(self._draw(DEALER, face_up=False))
        self._open(Phase.PREFLOP)
        return out

    def _draw(self, to: int, *, face_up: bool) -> Card:
        source = self._source
        assert source is not None
        card, position = draw_once(source, self._dealt)
        self._out.append(UthCardDealt(to, card, position, face_up))
        return card

    def _open(self, phase: Phase) -> None:
        """Start a decision street; skip it when nobody has a decision left."""
        self.phase = phase
        waiting = []
        for seat in self.seats.values():
            seat.decided = seat.play_multiple > 0
            if not seat.decided:
                waiting.append(seat.number)
        if waiting:
            self._out.append(UthStreetStarted(phase.value, tuple(waiting)))
        else:
            self._advance()

    def _advance(self) -> None:
        """Deal the next community cards once every seat has decided on this street."""
        if any(not s.decided for s in self.seats.values()):
            return
        if self.phase is Phase.PREFLOP:
            for _ in range(3):
                self.board.append(self._draw(BOARD, face_up=True))
            self._open(Phase.FLOP)
        elif self.phase is Phase.FLOP:
            for _ in range(2):
                self.board.append(self._draw(BOARD, face_up=True))
            self._open(Phase.RIVER)
        elif self.phase is Phase.RIVER:
            self._showdown()

    # -------------------------------------------------------------- decisions

    def _seat(self, seat: int) -> Seat:
        state = self.seats.get(seat)
        if state is None:
            raise SeatError(f"seat {seat!r} has no hand in this round")
        return state

    def _refuse_decision(self, seat: int) -> RulesError | None:
        if self.phase not in MULTIPLES:
            return WrongPhase(f"no decision is open: the round is in the {self.phase} phase")
        state = self.seats.get(seat)
        if state is None:
            return SeatError(f"seat {seat!r} has no hand in this round")
        if state.play_multiple:
            return ActionNotAllowed(
                f"seat {seat} has made its Play Wager; only one Play Wager is allowed per round "
                f"({PLAY_RULE})"
            )
        if state.decided:
            return ActionNotAllowed(f"seat {seat} has already decided on the {self.phase}")
        return None

    def _refuse_check(self, seat: int) -> RulesError | None:
        refusal = self._refuse_decision(seat)
        if refusal is None and self.phase is Phase.RIVER:
            return ActionNotAllowed(
                "after the turn and river a player must make a Play Wager of 1 times the Ante "
                f"or fold; checking is not allowed ({PLAY_RULE})"
            )
        return refusal

    def _refuse_fold(self, seat: int) -> RulesError | None:
        refusal = self._refuse_decision(seat)
        if refusal is None and self.phase is not Phase.RIVER:
            return ActionNotAllowed(
                f"a player may fold only after the turn and river; on the {self.phase} check "
                f"or make a Play Wager ({PLAY_RULE})"
            )
        return refusal

    def _refuse_play(self, seat: int, multiple: int) -> RulesError | None:
        refusal = self._refuse_decision(seat)
        if refusal is not None:
            return refusal
        allowed = MULTIPLES[self.phase]
        if multiple not in allowed:
            times = " or ".join(str(m) for m in allowed)
            return ActionNotAllowed(
                f"on the {self.phase} the Play Wager is {times} times the Ante, not "
                f"{multiple!r} ({PLAY_RULE})"
            )
        return None

    def verify_check(self, seat: int) -> None:
        refusal = self._refuse_check(seat)
        if refusal is not None:
            raise refusal

    def can_check(self, seat: int) -> bool:
        return self._refuse_check(seat) is None

    def verify_fold(self, seat: int) -> None:
        refusal = self._refuse_fold(seat)
        if refusal is not None:
            raise refusal

    def can_fold(self, seat: int) -> bool:
        return self._refuse_fold(seat) is None

    def verify_play(self, seat: int, multiple: int) -> None:
        refusal = self._refuse_play(seat, multiple)
        if refusal is not None:
            raise refusal

    def can_play(self, seat: int, multiple: int) -> bool:
        return self._refuse_play(seat, multiple) is None

    def legal_plays(self, seat: int) -> tuple[int, ...]:
        """The Play Wager multiples ``seat`` may choose now (empty when none)."""
        if self._refuse_decision(seat) is not None:
            return ()
        return MULTIPLES[self.phase]

    def legal_actions(self, seat: int) -> tuple[tuple[Action, int], ...]:
        """Every decision open to ``seat`` now as ``(action, multiple)`` (the terminal's
        buttons); empty when it has none."""
        out: list[tuple[Action, int]] = []
        if self.can_check(seat):
            out.append((Action.CHECK, 0))
        out.extend((Action.PLAY, m) for m in self.legal_plays(seat))
        if self.can_fold(seat):
            out.append((Action.FOLD, 0))
        return tuple(out)

    def check(self, seat: int, *, auto: bool = False) -> list[Any]:
        """Check: no Play Wager on this street (preflop or flop)."""
        self.verify_check(seat)
        out = self._out = [UthDecision(seat, self.phase.value, Action.CHECK.value, 0, auto)]
        self.seats[seat].decided = True
        self._advance()
        return out

    def play(self, seat: int, multiple: int, *, auto: bool = False) -> list[Any]:
        """Make the Play Wager of ``multiple`` times the Ante (3 or 4 preflop, 2 on the flop,
        1 at the river)."""
        self.verify_play(seat, multiple)
        state = self.seats[seat]
        amount = state.wagers[ANTE] * multiple
        out = self._out = [
            UthDecision(seat, self.phase.value, Action.PLAY.value, multiple, auto),
            UthWagerPlaced(seat, PLAY, amount),
        ]
        state.play_multiple = multiple
        state.wagers[PLAY] = amount
        state.decided = True
        self._advance()
        return out

    def fold(self, seat: int, *, auto: bool = False) -> list[Any]:
        """Fold at the river: the Ante and Blind are lost (settled with the round)."""
        self.verify_fold(seat)
        out = self._out = [UthDecision(seat, self.phase.value, Action.FOLD.value, 0, auto)]
        state = self.seats[seat]
        state.folded = True
        state.decided = True
        self._advance()
        return out

    def countdown_action(self, seat: int) -> Action:
        """What the countdown does for a seat that has not decided: check preflop and on the
        flop, fold at the river (a check is not allowed there)."""
        refusal = self._refuse_decision(seat)
        if refusal is not None:
            raise refusal
        return Action.FOLD if self.phase is Phase.RIVER else Action.CHECK

    def act_default(self, seat: int) -> list[Any]:
        """The countdown expired for ``seat``: take :meth:`countdown_action` (``auto``)."""
        return self.decide(seat, self.countdown_action(seat), auto=True)

    def decide(
        self, seat: int, action: Action, multiple: int = 0, *, auto: bool = False
    ) -> list[Any]:
        """Dispatch a decision by name (the server's, the bots' and replay's entry point)."""
        if action is Action.PLAY:
            return self.play(seat, multiple, auto=auto)
        if action is Action.FOLD:
            return self.fold(seat, auto=auto)
        return self.check(seat, auto=auto)

    # --------------------------------------------------------------- showdown

    def _dealer_value(self) -> int:
        return rank7([*self.dealer, *self.board])

    def dealer_qualifies(self) -> bool:
        """The dealer qualifies with a pair or better (regs-653a.md; 653a.11 not held)."""
        return category_of(self._dealer_value()) >= Category5.PAIR

    def _showdown(self) -> None:
        self.phase = Phase.SHOWDOWN
        dealer = [*self.dealer, *self.board]
        value = self._dealer_value()
        self._out.append(
            UthDealerRevealed(
                tuple(self.dealer),
                hand_name(value),
                best_five(dealer),
                category_of(value) >= Category5.PAIR,
            )
        )
        for seat in self.seats.values():
            cards = [*seat.cards, *self.board]
            self._out.append(
                UthHandShown(seat.number, hand_name(rank7(cards)), best_five(cards), seat.folded)
            )

    # ------------------------------------------------------------- settlement

    def _meter_ids_needed(self) -> list[str]:
        needed = []
        rules = self.rules
        wagers = [name for seat in self.seats.values() for name in seat.wagers]
        if PROGRESSIVE in wagers:
            needed.append(rules.progressive_meter_id)
        if FIVE_CARD_PLAYER in wagers or FIVE_CARD_DEALER in wagers:
            needed.append(rules.five_card_meter_id)
        return needed

    def _five_card_wagered(self) -> bool:
        return any(
            FIVE_CARD_PLAYER in s.wagers or FIVE_CARD_DEALER in s.wagers
            for s in self.seats.values()
        )

    def verify_settle(
        self,
        meters: Mapping[str, Meter],
        magic_card: Card | None = None,
        lucky_position: int | None = None,
    ) -> None:
        """Raise unless the round can settle with these inputs."""
        if self.phase is not Phase.SHOWDOWN:
            raise WrongPhase(
                f"the round settles after the last decision; it is in the {self.phase} phase"
            )
        for meter_id in self._meter_ids_needed():
            meter = meters.get(meter_id)
            if meter is None or not meter.opened:
                raise WagerError(
                    f"settlement needs the current value of meter {meter_id!r} "
                    "(653a.12(d)(4), (e)(1))"
                )
        rules = self.rules
        needs_draw = self._five_card_wagered()
        if magic_card is not None and not rules.magic_card_bonus:
            raise ActionNotAllowed("this table does not pay the Magic Card bonus (653a.12(e)(3))")
        if rules.magic_card_bonus and needs_draw and not isinstance(magic_card, Card):
            raise WagerError(
                "the Magic Card bonus needs the card the table game system drew for this round "
                "(653a.1 Magic Card Bonus, 653a.12(e)(3))"
            )
        if lucky_position is not None and not rules.lucky_bonus:
            raise ActionNotAllowed("this table does not pay the Lucky Bonus (653a.12(e)(3))")
        if rules.lucky_bonus and needs_draw and lucky_position is None:
            raise WagerError(
                "the Lucky Bonus needs the position the table game system drew for this round "
                "(653a.1 Lucky Bonus, 653a.12(e)(3))"
            )
        if lucky_position is not None and (
            type(lucky_position) is not int or not 0 <= lucky_position <= rules.seats
        ):
            raise SeatError(
                f"the Lucky Bonus position {lucky_position!r} is not the dealer (0) or a seat "
                f"(1..{rules.seats}) (653a.1 Lucky Bonus)"
            )

    def can_settle(
        self,
        meters: Mapping[str, Meter],
        magic_card: Card | None = None,
        lucky_position: int | None = None,
    ) -> bool:
        try:
            self.verify_settle(meters, magic_card, lucky_position)
        except RulesError:
            return False
        return True

    def settle(
        self,
        meters: Mapping[str, Meter] | None = None,
        magic_card: Card | None = None,
        lucky_position: int | None = None,
    ) -> list[Any]:
        """Settle every wager (653a.12(a)-(f)) in seat order, then the Five Card Hand Bonus
        on the dealer's hand.

        Args:
            meters: The current meters by id (needed when a Progressive Payout or Five Card
                Hand Bonus Wager was placed). The new values are :meth:`meter_steps`.
            magic_card: The card the table game system drew for the Magic Card bonus.
            lucky_position: The position it drew for the Lucky Bonus (a seat, 0: dealer).
        """
        meters = {} if meters is None else dict(meters)
        self.verify_settle(meters, magic_card, lucky_position)
        out = self._out = []
        used = {m: meters[m] for m in self._meter_ids_needed()}
        self._meters_before = dict(used)
        self._meters_after = dict(used)
        self._meter_events = {m: [] for m in used}
        out.append(
            UthSettlementStarted(
                () if magic_card is None else (magic_card,),
                lucky_position,
                tuple((m, used[m].amount, used[m].reserve) for m in sorted(used)),
            )
        )
        dealer_value = self._dealer_value()
        qualifies = category_of(dealer_value) >= Category5.PAIR
        flop = self.board[:3]
        progressive_hands = {
            n: category_of(rank_cards([*s.cards, *flop])) for n, s in self.seats.items()
        }
        for seat in self.seats.values():
            self._settle_main(seat, dealer_value, qualifies)
            self._settle_progressive(seat, progressive_hands)
            if FIVE_CARD_PLAYER in seat.wagers:
                self._settle_five_card(
                    [seat], FIVE_CARD_PLAYER, seat.cards, magic_card, lucky_position == seat.number
                )
        dealer_bettors = [s for s in self.seats.values() if FIVE_CARD_DEALER in s.wagers]
        if dealer_bettors:
            self._settle_five_card(
                dealer_bettors, FIVE_CARD_DEALER, self.dealer, magic_card, lucky_position == DEALER
            )
        self.phase = Phase.COMPLETE
        out.append(
            UthRoundCompleted(tuple(self.dealer), tuple(self.board), hand_name(dealer_value))
        )
        return out

    def meter_steps(self) -> tuple[MeterStep, ...]:
        """Per meter used at settlement, the step from the meter passed to :meth:`settle` to
        its value after the awards (for :meth:`MeterBank.commit`)."""
        return tuple(
            MeterStep(self._meters_after[m], tuple(self._meter_events[m]))
            for m in sorted(self._meters_after)
        )

    def _settled(
        self, seat: int, wager: str, stake: int, paid: int, outcome: str, line: str, meter: int = 0
    ) -> None:
        self._out.append(UthWagerSettled(seat, wager, stake, paid, meter, outcome, line))

    def _settle_main(self, seat: Seat, dealer_value: int, qualifies: bool) -> None:
        """653a.12(a)-(c), (f): Ante, Blind, Play and Trips of one seat."""
        player_value = rank7([*seat.cards, *self.board])
        results = self._versus_dealer(seat, player_value, dealer_value, qualifies)
        trips = self._trips(seat, player_value)
        if trips is not None:
            results.append(trips)
        cap = self.rules.max_payout
        total = sum(r.win for r in results)
        if cap is not None and total > cap:
            # 653a.12(f): the wins are limited in settlement order; stakes are never touched.
            self._out.append(UthPayoutCapped(seat.number, total, cap))
            left = cap
            for i, r in enumerate(results):
                allowed = min(r.win, left)
                left -= allowed
                if allowed < r.win:
                    line = f"{r.line}; limited by the maximum payout (653a.12(f))"
                    results[i] = r._replace(win=allowed, line=line)
        for r in results:
            paid = 0 if r.outcome == LOST else r.stake + r.win
            self._settled(seat.number, r.wager, r.stake, paid, r.outcome, r.line)

    def _versus_dealer(
        self, seat: Seat, player_value: int, dealer_value: int, qualifies: bool
    ) -> list[_Result]:
        """653a.12(a)-(b) and the notes' procedure: Ante, Blind and Play against the dealer."""
        wagers = seat.wagers
        if seat.folded:
            return [_Result(n, wagers[n], 0, LOST, f"Fold ({PLAY_RULE})") for n in (ANTE, BLIND)]
        mains = [n for n in (ANTE, BLIND, PLAY) if n in wagers]
        no_qualify = _Result(ANTE, wagers[ANTE], 0, PUSHED, LINE_NOT_QUALIFIED)
        if player_value == dealer_value:
            return [_Result(n, wagers[n], 0, PUSHED, LINE_TIE) for n in mains]
        if player_value < dealer_value:
            lost = [_Result(n, wagers[n], 0, LOST, LINE_DEALER_WINS) for n in mains]
            return lost if qualifies else [no_qualify, *lost[1:]]
        out = []
        for name in mains:
            stake = wagers[name]
            if name == BLIND:
                out.append(self._blind(stake, category_of(player_value)))
            elif name == ANTE and not qualifies:
                out.append(no_qualify)
            else:
                out.append(_Result(name, stake, EVEN_MONEY.win(stake), WON, LINE_WIN))
        return out

    def _blind(self, stake: int, category: Category5) -> _Result:
        """653a.12(b): a winning hand's Blind per the selected paytable, else a push."""
        name = self.rules.blind_paytable
        line = line_for(self.rules.blind, category)
        if line is None:
            return _Result(BLIND, stake, 0, PUSHED, f"Blind {name}: {BLIND_PUSH[name]}: Push {_B}")
        pay = line.pay
        assert not isinstance(pay, MeterShare)
        return _Result(BLIND, stake, pay.win(stake), WON, f"Blind {name}: {line.name} {pay} {_B}")

    def _trips(self, seat: Seat, player_value: int) -> _Result | None:
        """653a.12(c): Trips on the player's hand, whatever the dealer holds."""
        rules = self.rules
        stake = seat.wagers.get(TRIPS)
        trips = rules.trips
        if stake is None or trips is None:
            return None
        if seat.folded and not rules.side_wagers_settle_on_fold:
            return _Result(TRIPS, stake, 0, LOST, f"Fold ({PLAY_RULE})")
        line = line_for(trips, category_of(player_value))
        if line is None:
            return _Result(TRIPS, stake, 0, LOST, f"Trips {trips.name}: no win (653a.12(c))")
        pay = line.pay
        assert not isinstance(pay, MeterShare)
        text = f"Trips {trips.name}: {line.name} {pay} (653a.12(c))"
        return _Result(TRIPS, stake, pay.win(stake), WON, text)

    def _award(self, meter_id: str, percent: int, places: Sequence[str]) -> int:
        """Pay ``percent`` of a meter equally to ``places`` now; returns each one's cents."""
        meter = self._meters_after[meter_id]
        step = meter.award_shared(percent, places)
        self._meters_after[meter_id] = step.meter
        self._meter_events[meter_id].extend(step.events)
        self._out.extend(step.events)
        return step.paid[0]

    def _settle_progressive(self, seat: Seat, hands: Mapping[int, Category5]) -> None:
        """653a.12(d): the Progressive Payout on the player's two cards and the flop, and
        the Envy Bonus for each other player's Envy Bonus Qualifying Hand."""
        rules = self.rules
        stake = seat.wagers.get(PROGRESSIVE)
        if stake is None:
            return
        if seat.folded and not rules.side_wagers_settle_on_fold:
            self._settled(seat.number, PROGRESSIVE, stake, 0, LOST, f"Fold ({PLAY_RULE})")
            return
        category = hands[seat.number]
        line = line_for(PROGRESSIVE_PAYTABLE, category)
        if line is None:
            self._settled(
                seat.number,
                PROGRESSIVE,
                stake,
                0,
                LOST,
                "Progressive Payout: no win (653a.12(d)(1))",
            )
        else:
            text = f"Progressive Payout: {line.name} {line.pay} (653a.12(d)(1)-(2))"
            self._pay_line(seat, PROGRESSIVE, stake, line, rules.progressive_meter_id, text)
        envy = ENVY_BONUS[stake]
        for other, other_category in hands.items():
            if other == seat.number:
                continue
            envy_line = line_for(envy, other_category)
            if envy_line is None:
                continue
            pay = envy_line.pay
            assert isinstance(pay, Fixed)
            self._settled(
                seat.number,
                ENVY,
                0,
                pay.cents,
                WON,
                f"Envy Bonus ({envy.name}): {envy_line.name} at seat {other} {pay} (653a.12(d)(5))",
            )

    def _pay_line(
        self, seat: Seat, wager: str, stake: int, line: PaytableLine, meter_id: str, text: str
    ) -> None:
        pay = line.pay
        if isinstance(pay, MeterShare):
            share = self._award(meter_id, pay.percent, (self.place(seat.number),))
            self._settled(seat.number, wager, stake, stake + share, WON, text, share)
        else:
            self._settled(seat.number, wager, stake, pay.total_return(stake), WON, text)

    def _five_card_value(self, cards: Sequence[Card]) -> int:
        if self.rules.five_card_hand is FiveCardHand.BEST_OF_SEVEN:
            return rank7([*cards, *self.board])
        return rank_cards([*cards, *self.board[:3]])

    def _settle_five_card(
        self,
        bettors: Sequence[Seat],
        wager: str,
        cards: Sequence[Card],
        magic_card: Card | None,
        lucky: bool,
    ) -> None:
        """653a.12(e)(1)-(3) on one hand, settled by the shared
        :func:`~game_server.rules.wagers.five_card_bonus.settle_five_card`: the hand is the
        one ``five_card_hand`` names, the Magic Card is looked for among ``cards`` (the
        hand's two)."""
        line = line_for(FIVE_CARD_PAYTABLE, category_of(self._five_card_value(cards)))
        settle_five_card(
            self.rules,
            bettors,
            wager,
            line=line,
            cards=cards,
            magic_card=magic_card,
            lucky=lucky,
            meter_id=self.rules.five_card_meter_id,
            place=self.place,
            award=self._award,
            settled=self._settled,
            fold_line=f"Fold ({PLAY_RULE})",
        )


def _fixed(title: str, amount: int, offered: tuple[int, ...], cite: str) -> None:
    if not offered:
        raise WagerNotOffered(f"this table does not offer the {title} Wager ({cite})")
    if amount not in offered:
        allowed = ", ".join(format_money(a) for a in offered)
        raise BetOutOfLimits(
            f"the {title} Wager is a fixed {allowed} wager, not {format_money(amount)} ({cite})"
        )


def replay(rules: UthRules, events: Sequence[Any], table: str = "uth") -> UthRound:
    """Rebuild a round from its logged events by driving a fresh engine with the same inputs.

    Wagers, the logged cards, every decision and the settlement inputs (Magic Card, Lucky
    Bonus position, meter readings) go back into the engine; each step's events must equal
    the logged ones, or :class:`~game_server.rules.errors.ReplayMismatch` names the first
    that differs.
    """
    cards = [(e.card, e.position) for e in events if type(e) is UthCardDealt]
    source = LoggedCards(cards)
    game = UthRound(rules, table)
    specs = rules.meters()

    def step(i: int, ev: Any) -> list[Any] | None:
        kind = type(ev)
        if game.phase is Phase.BETTING and kind is UthWagerPlaced:
            return game.place_wagers(ev.seat, seat_wagers(events, i, UthWagerPlaced))
        if game.phase is Phase.BETTING and kind is UthCardDealt:
            return game.deal(source)
        if kind is UthDecision:
            return game.decide(ev.seat, Action(ev.action), ev.multiple, auto=ev.auto)
        if kind is UthSettlementStarted:
            meters = logged_meters(specs, ev.meters)
            magic = ev.magic_card[0] if ev.magic_card else None
            return game.settle(meters, magic, ev.lucky_position)
        return None

    replay_steps(events, step, lambda: game.phase)
    return game


__all__ = ["Action", "CardSource", "DeckError", "Phase", "StackedDeck", "UthRound", "replay"]


#: The kinds of record the Ultimate Texas Hold 'Em engine produces (653a), with the meter
#: records its settlement produces (the deal's contributions are the table's, not the engine's).
UTH_KINDS: Final[frozenset[type]] = frozenset(
    {
        UthWagerPlaced,
        UthCardDealt,
        UthStreetStarted,
        UthDecision,
        UthDealerRevealed,
        UthHandShown,
        UthSettlementStarted,
        UthWagerSettled,
        UthPayoutCapped,
        MeterAwarded,
        MeterReseeded,
        UthRoundCompleted,
    }
)
