"""One round of Caribbean Stud Poker at a fully automated table: the pure engine.

58 Pa. Code 639a (definitions 639a.1 verbatim in the research notes; the procedure and the
Bet Wager paytable from secondary sources, :mod:`.rules`). Cards come from a card source (the
certified shoe of one 52-card deck per round, a stacked deck in tests, the logged cards in
replay); the Magic Card, the Lucky Bonus position and the meters come in as arguments of
:meth:`CaribbeanRound.settle`. No clock, no randomness.

- wagers: the Caribbean Stud Wager (Ante) within its limits, and with it, optionally, the
  Progressive Payout Wager (a fixed amount, 639a.7(d)(2): never without an Ante, 639b.1(a))
  and the Five Card Hand Bonus Wager on the player's hand and/or the dealer's hand;
- deal: five cards to each seat and the dealer, one at a time in seat order, the dealer's
  first card face up and its four hole cards face down (639a.1 "Hole card");
- decision: every seat at once folds (639a.1 "Fold": the Ante is lost) or makes the Bet
  Wager of exactly twice the Ante (639a.1 "Bet Wager"); the countdown folds for a silent one;
- showdown: the dealer's hole cards are turned up; the dealer qualifies with ace-king or
  better (secondary source);
- settlement, seat by seat in seat order: Ante 1 to 1 and the Bet pushed when the dealer does
  not qualify; against a qualifying dealer the better hand wins the Ante 1 to 1 and the Bet
  by the Bet Wager paytable, a tie pushes both, a worse hand loses both; the Progressive
  Payout on the player's five cards whatever the dealer holds (a meter line at the meter's
  amount at that moment), and the Envy Bonus for each Envy Bonus Qualifying Hand at another
  seat (639a.1); the Five Card Hand Bonus on the player's hand, then on the dealer's hand for
  every seat that wagered on it (a meter line shared equally, 653a.12(e)(2)), each with its
  Magic Card or Lucky Bonus (653a.12(e)(3)) as the Ultimate Texas Hold 'Em table pays it.

Entry points: :class:`CaribbeanRound`, :func:`replay`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from game_server.games.caribbean.rules.events import (
    ANTE,
    BET,
    BETTING_WAGERS,
    DEALER,
    ENVY,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    LOST,
    PROGRESSIVE,
    PUSHED,
    WON,
    CaribbeanCardDealt,
    CaribbeanDealerRevealed,
    CaribbeanDecision,
    CaribbeanDecisionOpened,
    CaribbeanRoundCompleted,
    CaribbeanSettlementStarted,
    CaribbeanWagerPlaced,
    CaribbeanWagerSettled,
)
from game_server.games.caribbean.rules.rules import (
    BET_SECTION,
    PROCEDURE,
    CaribbeanRules,
    bet_line,
    hand_name,
)
from game_server.games.uth.rules.paytables import (
    FIVE_CARD_PAYTABLE,
    line_for,
)
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    SeatError,
    WagerError,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.meters import Meter, MeterAwarded, MeterReseeded, MeterStep
from game_server.rules.one_deck import CardSource, DeckError, draw_once
from game_server.rules.poker import Category5, HandRank, rank_hand
from game_server.rules.replaying import LoggedCards, logged_meters, replay_steps, seat_wagers
from game_server.rules.wagers.base import PaytableLine
from game_server.rules.wagers.five_card_bonus import settle_five_card
from shared.cards import ACE, KING, Card
from shared.money import MeterShare, format_money

__all__ = ["Action", "CardSource", "CaribbeanRound", "DeckError", "Phase", "replay"]

WAGER_TITLES: Final = {
    ANTE: "Ante",
    BET: "Bet",
    PROGRESSIVE: "Progressive Payout",
    FIVE_CARD_PLAYER: "Five Card Hand Bonus (player's hand)",
    FIVE_CARD_DEALER: "Five Card Hand Bonus (dealer's hand)",
}
LINE_NOT_QUALIFIED_ANTE = f"Dealer does not qualify: Ante 1 to 1 ({PROCEDURE})"
LINE_NOT_QUALIFIED_BET = f"Dealer does not qualify: Bet pushes ({PROCEDURE})"
LINE_ANTE_WIN = f"Win: Ante 1 to 1 ({BET_SECTION})"
LINE_TIE = f"Tie: push ({PROCEDURE})"
LINE_DEALER_WINS = f"Dealer's hand wins ({PROCEDURE})"
LINE_FOLD = "Fold (639a.1)"


class Phase(StrEnum):
    BETTING = "betting"
    DECIDING = "deciding"
    SHOWDOWN = "showdown"
    """Every seat decided and the dealer's hand is shown; :meth:`CaribbeanRound.settle` next."""
    COMPLETE = "complete"


class Action(StrEnum):
    """A player's decision (639a.1)."""

    BET = "bet"
    FOLD = "fold"


class Seat:
    """One seat's wagers and cards this round (mutable engine state)."""

    __slots__ = ("cards", "decided", "folded", "number", "wagers")

    def __init__(self, number: int) -> None:
        self.number = number
        self.wagers: dict[str, int] = {}
        self.cards: list[Card] = []
        self.folded = False
        self.decided = False


def qualifies(value: HandRank) -> bool:
    """The dealer qualifies with ace-king or better (639a.11, the completion of each round;
    its text is not held: secondary source, the published rules)."""
    if value.category > Category5.HIGH_CARD:
        return True
    return value.ranks[:2] == (ACE, KING)


def _fixed(title: str, amount: int, offered: Sequence[int], cite: str) -> None:
    if amount not in offered:
        allowed = " or ".join(format_money(a) for a in offered)
        raise BetOutOfLimits(
            f"the {title} Wager is a fixed {allowed} wager, not {format_money(amount)} ({cite})"
        )


class CaribbeanRound:
    """The state of one Caribbean Stud Poker round; every public action returns records.

    Args:
        rules: The table's rules.
        table: The table's name, the prefix of each betting position a meter records
            (``"CSP-01/3"`` is seat 3).
    """

    def __init__(self, rules: CaribbeanRules, table: str = "caribbean") -> None:
        self.rules = rules
        self.table = table
        self.phase = Phase.BETTING
        self.seats: dict[int, Seat] = {}
        self.dealer: list[Card] = []
        self._source: CardSource | None = None
        self._dealt: set[Card] = set()
        self._out: list[Any] = []
        self._meters: dict[str, Meter] = {}
        self._meter_events: dict[str, list[Any]] = {}

    # ------------------------------------------------------------------ reading

    @property
    def pending(self) -> tuple[int, ...]:
        """The seats still to decide."""
        if self.phase is not Phase.DECIDING:
            return ()
        return tuple(n for n, s in self.seats.items() if not s.decided)

    def place(self, seat: int) -> str:
        """The betting position's name for the meters (``"table/seat"``)."""
        return f"{self.table}/{seat}"

    def hand(self, seat: int) -> HandRank:
        """The value of a seat's five cards (639a.6)."""
        return rank_hand(self._seat(seat).cards)

    def contributions(self) -> tuple[tuple[str, int, str], ...]:
        """``(meter id, wager, place)`` of every wager that feeds a meter (639a.12; 653a.12
        (e)(4)): the table feeds them through its MeterBank in the step of the deal."""
        rules = self.rules
        out = []
        for number, seat in sorted(self.seats.items()):
            if PROGRESSIVE in seat.wagers and rules.progressive is not None:
                meter = rules.progressive.meter_id
                out.append((meter, seat.wagers[PROGRESSIVE], self.place(number)))
            for name in (FIVE_CARD_PLAYER, FIVE_CARD_DEALER):
                if name in seat.wagers and rules.five_card is not None:
                    out.append((rules.five_card.meter_id, seat.wagers[name], self.place(number)))
        return tuple(out)

    # ------------------------------------------------------------------ wagers

    def verify_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> None:
        """Raise unless ``wagers`` ({name: cents}) can be placed for ``seat`` now."""
        rules = self.rules
        if self.phase is not Phase.BETTING:
            raise WrongPhase(f"no more bets: wagers are placed before the deal ({PROCEDURE})")
        if type(seat) is not int or not 1 <= seat <= rules.seats:
            raise SeatError(f"seat {seat!r} is not a seat of this table (1..{rules.seats})")
        if not wagers:
            raise WagerError("no wager was given")
        placed = self.seats[seat].wagers if seat in self.seats else {}
        for name, amount in wagers.items():
            if name == BET:
                raise WagerNotOffered(
                    "the Bet Wager is made after the player reviews his hand, as the decision "
                    "to stay in against the dealer (639a.1 'Bet Wager')"
                )
            if name not in BETTING_WAGERS:
                raise WagerNotOffered(f"a Caribbean Stud Poker table has no {name!r} wager")
            if name in placed:
                raise WagerError(
                    f"the {WAGER_TITLES[name]} Wager of seat {seat} is already placed; a placed "
                    f"wager cannot be changed ({PROCEDURE})"
                )
            if type(amount) is not int:
                raise BetOutOfLimits(f"{WAGER_TITLES[name]} wager {amount!r} is not whole cents")
        if ANTE not in wagers and ANTE not in placed:
            others = " and ".join(WAGER_TITLES[n] for n in wagers)
            raise WagerNotOffered(
                f"the {others} Wager is placed only with a Caribbean Stud Wager (the Ante) "
                "(639b.1(a), (c)(1); 639a.7(d))"
            )
        if ANTE in wagers:
            rules.ante_limits.verify("Ante", wagers[ANTE])
        if PROGRESSIVE in wagers:
            if rules.progressive is None:
                raise WagerNotOffered("this table does not offer the Progressive Payout Wager")
            _fixed(
                "Progressive Payout", wagers[PROGRESSIVE], rules.progressive.amounts, "639a.7(d)(2)"
            )
        for name in (FIVE_CARD_PLAYER, FIVE_CARD_DEALER):
            if name in wagers:
                if rules.five_card is None:
                    raise WagerNotOffered("this table does not offer the Five Card Hand Bonus")
                _fixed(WAGER_TITLES[name], wagers[name], rules.five_card.amounts, "639a.1")

    def place_wagers(self, seat: int, wagers: Mapping[str, int]) -> list[Any]:
        """Place one seat's wagers before the deal; a ``caribbean_wager_placed`` per wager."""
        self.verify_place_wagers(seat, wagers)
        state = self.seats.setdefault(seat, Seat(seat))
        ordered = [name for name in BETTING_WAGERS if name in wagers]
        for name in ordered:
            state.wagers[name] = wagers[name]
        return [CaribbeanWagerPlaced(seat, name, wagers[name]) for name in ordered]

    # -------------------------------------------------------------------- deal

    def verify_deal(self) -> None:
        if self.phase is not Phase.BETTING:
            raise WrongPhase("the cards of this round are already dealt")
        if not self.seats:
            raise WagerError("no seat has an Ante: there is nothing to deal")

    def deal(self, source: CardSource) -> list[Any]:
        """Five cards to each seat and the dealer, one at a time in seat order, the dealer's
        first card face up; the decision opens."""
        self.verify_deal()
        self._source = source
        self.seats = dict(sorted(self.seats.items()))
        out = self._out = []
        for i in range(5):
            for seat in self.seats.values():
                seat.cards.append(self._draw(seat.number, face_up=False))
            self.dealer.append(self._draw(DEALER, face_up=i == 0))
        self.phase = Phase.DECIDING
        out.append(CaribbeanDecisionOpened(tuple(self.seats)))
        return out

    def _draw(self, to: int, *, face_up: bool) -> Card:
        source = self._source
        assert source is not None
        card, position = draw_once(source, self._dealt)
        self._out.append(CaribbeanCardDealt(to, card, position, face_up))
        return card

    # ---------------------------------------------------------------- decision

    def _seat(self, seat: int) -> Seat:
        state = self.seats.get(seat)
        if state is None:
            raise SeatError(f"seat {seat!r} has no hand in this round")
        return state

    def bet_amount(self, seat: int) -> int:
        """The Bet Wager of ``seat``: exactly twice its Ante."""
        return 2 * self._seat(seat).wagers[ANTE]

    def verify_decide(self, seat: int, action: Action, amount: int | None = None) -> None:
        """Raise unless ``seat`` may ``action`` now; a Bet of ``amount`` cents must be twice
        the Ante (None: the Bet Wager it must be)."""
        if self.phase is not Phase.DECIDING:
            raise WrongPhase(f"no decision is open: the round is in the {self.phase} phase")
        state = self._seat(seat)
        if state.decided:
            raise ActionNotAllowed(f"seat {seat} has already decided this round")
        if action is Action.BET and amount is not None and amount != self.bet_amount(seat):
            raise BetOutOfLimits(
                f"the Bet Wager is exactly twice the Ante: {format_money(self.bet_amount(seat))}"
                f", not {format_money(amount)} (639a.1 'Bet Wager', {PROCEDURE})"
            )

    def decide(
        self, seat: int, action: Action, amount: int | None = None, *, auto: bool = False
    ) -> list[Any]:
        """Fold, or make the Bet Wager of twice the Ante. The last decision turns up the
        dealer's hand (phase SHOWDOWN: :meth:`settle` next)."""
        self.verify_decide(seat, action, amount)
        state = self.seats[seat]
        out = self._out = [CaribbeanDecision(seat, action.value, auto)]
        if action is Action.BET:
            state.wagers[BET] = self.bet_amount(seat)
            out.append(CaribbeanWagerPlaced(seat, BET, state.wagers[BET]))
        else:
            state.folded = True
        state.decided = True
        if not self.pending:
            value = rank_hand(self.dealer)
            self.phase = Phase.SHOWDOWN
            name = hand_name(Category5(value.category))
            out.append(CaribbeanDealerRevealed(tuple(self.dealer), name, qualifies(value)))
        return out

    def act_default(self, seat: int) -> list[Any]:
        """The countdown ran out for ``seat``: it folds (as the countdown says)."""
        return self.decide(seat, Action.FOLD, auto=True)

    # -------------------------------------------------------------- settlement

    def settle(
        self, meters: Mapping[str, Meter], magic_card: Card | None, lucky_position: int | None
    ) -> list[Any]:
        """Settle every wager (module docstring), paying meter lines from ``meters`` (each as
        the bank holds it now); :meth:`meter_steps` gives what to commit to the bank."""
        if self.phase is not Phase.SHOWDOWN:
            raise WrongPhase(f"the round settles after every decision, not in {self.phase}")
        used = {m: meters[m] for m in self.rules.meters() if m in meters}
        self._meters = dict(used)
        self._meter_events = {m: [] for m in used}
        out = self._out = [
            CaribbeanSettlementStarted(
                () if magic_card is None else (magic_card,),
                lucky_position,
                tuple((m, used[m].amount, used[m].reserve) for m in sorted(used)),
            )
        ]
        dealer = rank_hand(self.dealer)
        hands = {n: rank_hand(s.cards) for n, s in self.seats.items()}
        for seat in self.seats.values():
            self._settle_main(seat, hands[seat.number], dealer)
            self._settle_progressive(seat, hands)
            if FIVE_CARD_PLAYER in seat.wagers:
                lucky = lucky_position == seat.number
                self._settle_five_card([seat], FIVE_CARD_PLAYER, seat.cards, magic_card, lucky)
        bettors = [s for s in self.seats.values() if FIVE_CARD_DEALER in s.wagers]
        if bettors:
            lucky = lucky_position == DEALER
            self._settle_five_card(bettors, FIVE_CARD_DEALER, self.dealer, magic_card, lucky)
        self.phase = Phase.COMPLETE
        name = hand_name(Category5(dealer.category))
        out.append(CaribbeanRoundCompleted(tuple(self.dealer), name))
        return out

    def meter_steps(self) -> tuple[MeterStep, ...]:
        """Per meter read at settlement, its step to the value after the awards."""
        return tuple(
            MeterStep(self._meters[m], tuple(self._meter_events[m])) for m in sorted(self._meters)
        )

    def _settled(
        self, seat: int, wager: str, stake: int, paid: int, outcome: str, line: str, meter: int = 0
    ) -> None:
        self._out.append(CaribbeanWagerSettled(seat, wager, stake, paid, meter, outcome, line))

    def _settle_main(self, seat: Seat, mine: HandRank, dealer: HandRank) -> None:
        """The Ante and the Bet against the dealer (639a.11, 639a.12; secondary source)."""
        n, ante = seat.number, seat.wagers[ANTE]
        if seat.folded:
            self._settled(n, ANTE, ante, 0, LOST, LINE_FOLD)
            return
        bet = seat.wagers[BET]
        if not qualifies(dealer):
            self._settled(n, ANTE, ante, 2 * ante, WON, LINE_NOT_QUALIFIED_ANTE)
            self._settled(n, BET, bet, bet, PUSHED, LINE_NOT_QUALIFIED_BET)
        elif mine > dealer:
            line = bet_line(Category5(mine.category))
            pay = line.pay
            assert not isinstance(pay, MeterShare)
            self._settled(n, ANTE, ante, 2 * ante, WON, LINE_ANTE_WIN)
            text = f"Bet Wager paytable: {line.name} {pay} ({BET_SECTION})"
            self._settled(n, BET, bet, pay.total_return(bet), WON, text)
        elif mine == dealer:
            self._settled(n, ANTE, ante, ante, PUSHED, LINE_TIE)
            self._settled(n, BET, bet, bet, PUSHED, LINE_TIE)
        else:
            self._settled(n, ANTE, ante, 0, LOST, LINE_DEALER_WINS)
            self._settled(n, BET, bet, 0, LOST, LINE_DEALER_WINS)

    def _award(self, meter_id: str, percent: int, places: Sequence[str]) -> int:
        """Pay ``percent`` of a meter equally to ``places`` now; each one's cents."""
        step = self._meters[meter_id].award_shared(percent, places)
        self._meters[meter_id] = step.meter
        self._meter_events[meter_id].extend(step.events)
        self._out.extend(step.events)
        return step.paid[0]

    def _pay_line(
        self, seat: Seat, wager: str, stake: int, line: PaytableLine, meter_id: str, text: str
    ) -> None:
        pay = line.pay
        if isinstance(pay, MeterShare):
            share = self._award(meter_id, pay.percent, (self.place(seat.number),))
            self._settled(seat.number, wager, stake, stake + share, WON, text, share)
        else:
            self._settled(seat.number, wager, stake, pay.total_return(stake), WON, text)

    def _settle_progressive(self, seat: Seat, hands: Mapping[int, HandRank]) -> None:
        """The Progressive Payout on the player's five cards whatever the dealer holds, and
        the Envy Bonus per Envy Bonus Qualifying Hand at another seat (639a.1, 639a.12)."""
        terms = self.rules.progressive
        stake = seat.wagers.get(PROGRESSIVE)
        if stake is None or terms is None:
            return
        if seat.folded and not self.rules.side_wagers_settle_on_fold:
            self._settled(seat.number, PROGRESSIVE, stake, 0, LOST, LINE_FOLD)
            return
        table = terms.paytable
        line = line_for(table, Category5(hands[seat.number].category))
        if line is None:
            text = f"Progressive Payout {table.name}: no Progressive Payout Hand (639a.1)"
            self._settled(seat.number, PROGRESSIVE, stake, 0, LOST, text)
        else:
            text = f"Progressive Payout {table.name}: {line.name} {line.pay} (639a.12)"
            self._pay_line(seat, PROGRESSIVE, stake, line, terms.meter_id, text)
        if terms.envy is None:
            return
        for other, value in hands.items():
            envy = line_for(terms.envy, Category5(value.category)) if other != seat.number else None
            if envy is not None:
                pay = envy.pay
                assert not isinstance(pay, MeterShare)
                text = f"Envy Bonus: {envy.name} at seat {other} {pay} (639a.1)"
                self._settled(seat.number, ENVY, 0, pay.win(stake), WON, text)

    def _settle_five_card(
        self,
        bettors: Sequence[Seat],
        wager: str,
        cards: Sequence[Card],
        magic_card: Card | None,
        lucky: bool,
    ) -> None:
        """The Five Card Hand Bonus on one hand's five cards (639a.1; 653a.12(e)(1)-(3)),
        settled as the Ultimate Texas Hold 'Em table settles it, by the shared
        :func:`~game_server.rules.wagers.five_card_bonus.settle_five_card`."""
        terms = self.rules.five_card
        assert terms is not None
        settle_five_card(
            self.rules,
            bettors,
            wager,
            line=line_for(FIVE_CARD_PAYTABLE, Category5(rank_hand(cards).category)),
            cards=cards,
            magic_card=magic_card,
            lucky=lucky,
            meter_id=terms.meter_id,
            place=self.place,
            award=self._award,
            settled=self._settled,
            fold_line=LINE_FOLD,
            cite="639a.1; ",
        )


#: The kinds of record replay is fed. The meter records the settlement produces
#: (``meter_awarded``, ``meter_reseeded``) are left out: a Must-Hit-By award in the deal's step
#: logs them too, outside the engine; the platform's meter walk checks them all.
METER_KINDS: Final = (MeterAwarded, MeterReseeded)
CARIBBEAN_KINDS: Final[frozenset[type]] = frozenset(
    {
        CaribbeanWagerPlaced,
        CaribbeanCardDealt,
        CaribbeanDecisionOpened,
        CaribbeanDecision,
        CaribbeanDealerRevealed,
        CaribbeanSettlementStarted,
        CaribbeanWagerSettled,
        CaribbeanRoundCompleted,
    }
)


def replay(
    rules: CaribbeanRules, events: Sequence[Any], table: str = "caribbean"
) -> CaribbeanRound:
    """Rebuild a round from its logged records by driving a fresh engine with the same inputs
    (wagers, the logged cards, each decision, the settlement's draws and meter readings);
    every step must give exactly the logged records."""
    source = LoggedCards((e.card, e.position) for e in events if type(e) is CaribbeanCardDealt)
    game = CaribbeanRound(rules, table)
    specs = rules.meters()

    def step(i: int, ev: Any) -> list[Any] | None:
        kind = type(ev)
        if game.phase is Phase.BETTING and kind is CaribbeanWagerPlaced:
            return game.place_wagers(ev.seat, seat_wagers(events, i, CaribbeanWagerPlaced))
        if game.phase is Phase.BETTING and kind is CaribbeanCardDealt:
            return game.deal(source)
        if kind is CaribbeanDecision:
            return game.decide(ev.seat, Action(ev.action), auto=ev.auto)
        if kind is CaribbeanSettlementStarted:
            meters = logged_meters(specs, ev.meters)
            magic = ev.magic_card[0] if ev.magic_card else None
            settled = game.settle(meters, magic, ev.lucky_position)
            return [e for e in settled if not isinstance(e, METER_KINDS)]
        return None

    replay_steps(events, step, lambda: game.phase)
    return game
