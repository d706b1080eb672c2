"""One round of Four Card Poker (58 Pa. Code 641a; 641b.1 for the mystery bonus): the pure
engine and its replay.

The procedure is not in the text we hold (641a.7-641a.11 are not found); it follows the
published rules of the game, said here as a SECONDARY SOURCE:

1. *Betting*: each seat places an Ante, an Aces Up Wager, or both (641a.1 "Aces Up Wager":
   made before any card is dealt), and, with an Ante only, a Four-Card and/or Five-Card
   Progressive Payout Wager of a fixed amount (641b.1(a) speaks of a player "who has placed
   a Four Card Poker wager ... and an optional Four-Card Progressive Payout wager").
2. *Deal*: five cards face down to each seat with a wager, in seat order, then six to the
   dealer, the first face up (641a.1 "Hand": each makes its best four-card hand).
3. *Decision* (seats with an Ante): fold (the Ante is lost) or a Play Wager of 1, 2 or 3
   times the Ante. A seat the countdown catches undecided folds.
4. *Showdown and settlement*, in seat order: the dealer always qualifies. A hand that beats
   or ties the dealer's wins the Ante and Play 1 to 1; a lower hand loses both. The Ante
   Bonus (three of a kind, straight flush, four of a kind) is paid on the Ante whatever the
   dealer holds, to a hand that played (a folded Ante is lost, bonus included). The Aces Up
   Wager is paid on the player's best four cards whatever the dealer holds, folded or not
   (641a.1 "regardless of whether the player's hand outranks the dealer's hand"); the
   Four-Card Progressive on the best four of the five cards (641a.6(b)), the Five-Card
   Progressive on the five (641a.6(d)), folded or not; a progressive line that pays a share
   of the meter pays it from the meter as the earlier seats' awards left it (reset
   included). After each progressive, its Envy Bonus (641a.1 "Four-Card Envy Bonus",
   "Five-Card Envy Bonus"), where offered: its fixed sum for every Envy Bonus Qualifying
   Hand another seat holds (:meth:`FourCardRound._settle_envy`).

Entry points: :class:`FourCardRound`, :func:`replay`, :data:`FOURCARD_KINDS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from game_server.games.fourcard.rules.events import (
    ACES_UP,
    ANTE,
    ANTE_BONUS,
    BETTING_WAGERS,
    DEALER,
    ENVY_OF,
    FIVE_CARD_ENVY,
    FIVE_CARD_PROGRESSIVE,
    FOUR_CARD_ENVY,
    FOUR_CARD_PROGRESSIVE,
    PLAY,
    PROGRESSIVES,
    FourCardCardDealt,
    FourCardDealerRevealed,
    FourCardDecision,
    FourCardRoundCompleted,
    FourCardWagerPlaced,
    FourCardWagerSettled,
)
from game_server.games.fourcard.rules.hands import (
    FIVE_CARD_NAMES,
    aces_up_line,
    best_four,
    five_card,
    four_card_name,
)
from game_server.games.fourcard.rules.rules import PLAY_MULTIPLES, FourCardRules
from game_server.rules.errors import ActionNotAllowed, BetOutOfLimits, RulesError, WagerNotOffered
from game_server.rules.meters import Meter, MeterAwarded, MeterReseeded
from game_server.rules.one_deck import CardSource
from game_server.rules.poker import Category5, HandRank
from game_server.rules.replaying import LoggedCards, logged_meters, replay_steps, seat_wagers
from game_server.rules.wagers.base import LOST, PUSHED, WON, Paytable
from shared.cards import Card
from shared.money import Fixed, MeterShare, format_money

__all__ = ["FOURCARD_KINDS", "Action", "FourCardRound", "Phase", "replay"]

#: Where the procedure comes from (module docstring).
PROCEDURE: Final = "58 Pa. Code 641a (procedure: secondary source)"
#: The cards each player and the dealer receive.
PLAYER_CARDS: Final = 5
DEALER_CARDS: Final = 6


class Phase(StrEnum):
    BETTING = "betting"
    DECIDING = "deciding"
    SHOWDOWN = "showdown"  # everyone decided: the settlement is due (it needs the meters)
    COMPLETE = "complete"


class Action(StrEnum):
    FOLD = "fold"
    PLAY = "play"


@dataclass(slots=True)
class Seat:
    """One seat's wagers, cards and decision."""

    number: int
    wagers: dict[str, int] = field(default_factory=dict)
    cards: list[Card] = field(default_factory=list)
    decided: bool = False
    folded: bool = False

    @property
    def playing(self) -> bool:
        """Whether the seat plays against the dealer (it has an Ante)."""
        return ANTE in self.wagers


class FourCardRound:
    """One round at one table: wagers, the deal, each seat's decision, the settlement."""

    def __init__(self, rules: FourCardRules, table: str) -> None:
        self.rules = rules
        self.table = table
        self.phase = Phase.BETTING
        self.seats: dict[int, Seat] = {}
        self.dealer: list[Card] = []
        self._meters_after: dict[str, Meter] = {}
        self._meter_events: dict[str, list[Any]] = {}
        self._out: list[Any] = []

    # ------------------------------------------------------------------ reading

    @property
    def pending(self) -> tuple[int, ...]:
        """The seats that still have to decide."""
        if self.phase is not Phase.DECIDING:
            return ()
        return tuple(n for n, s in sorted(self.seats.items()) if s.playing and not s.decided)

    def place(self, seat: int) -> str:
        """The betting position's name for the meters (``"table/seat"``)."""
        return f"{self.table}/{seat}"

    def hand(self, seat: int) -> HandRank:
        """A seat's best four-card hand (its five cards dealt)."""
        return best_four(self.seats[seat].cards)

    def contributions(self) -> tuple[tuple[str, int, int, str], ...]:
        """``(meter id, wager cents, seat, wager)`` for every progressive wager placed: the
        table feeds their meters when the cards are dealt."""
        out = []
        for number, seat in sorted(self.seats.items()):
            for name in PROGRESSIVES:
                offer = self.rules.progressive(name)
                if name in seat.wagers and offer is not None and offer.meter is not None:
                    out.append((offer.meter_id, seat.wagers[name], number, name))
        return tuple(out)

    # ------------------------------------------------------------------ betting

    def verify_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> None:
        """Raise a :class:`RulesError` saying what is wrong with these wagers, or nothing."""
        rules = self.rules
        if self.phase is not Phase.BETTING:
            raise ActionNotAllowed("no more bets: this round's cards are dealt")
        if not 1 <= seat <= rules.seats:
            raise ActionNotAllowed(f"seat {seat} is not on this layout (1 to {rules.seats})")
        if seat in self.seats:
            raise ActionNotAllowed(f"seat {seat} has placed its wagers for this round")
        unknown = [w for w in wagers if w not in BETTING_WAGERS]
        if unknown:
            raise WagerNotOffered(
                f"{', '.join(sorted(unknown))} is not a Four Card Poker wager before the deal; "
                f"the wagers are {', '.join(BETTING_WAGERS)} (the Play Wager is the decision "
                "after the deal)"
            )
        if ANTE not in wagers and ACES_UP not in wagers:
            raise ActionNotAllowed(
                "place an Ante, an Aces Up Wager or both (58 Pa. Code 641a.1; "
                "secondary source: either or both)"
            )
        if ANTE in wagers:
            rules.ante_limits.verify("Ante", wagers[ANTE])
        if ACES_UP in wagers:
            if rules.aces_up is None or rules.aces_up_limits is None:
                raise WagerNotOffered("this table does not offer the Aces Up Wager (641a.1)")
            rules.aces_up_limits.verify("Aces Up", wagers[ACES_UP])
        for name in PROGRESSIVES:
            if name not in wagers:
                continue
            title = _TITLES[name]
            offer = rules.progressive(name)
            if offer is None:
                raise WagerNotOffered(f"this table does not offer the {title} (641a.1)")
            if ANTE not in wagers:
                raise ActionNotAllowed(
                    f"the {title} is placed with an Ante (the Four Card Poker wager), not "
                    "alone (58 Pa. Code 641b.1(a), (c)(1))"
                )
            if wagers[name] not in offer.amounts:
                raise BetOutOfLimits(
                    f"the {title} is a fixed amount: "
                    f"{' or '.join(format_money(a) for a in offer.amounts)}, not "
                    f"{format_money(wagers[name]) if type(wagers[name]) is int else wagers[name]!r}"
                )

    def place_wagers(self, seat: int, wagers: Mapping[str, int]) -> list[Any]:
        """Place a seat's wagers before the deal (:meth:`verify_place_wagers` first)."""
        self.verify_place_wagers(seat, wagers)
        state = self.seats[seat] = Seat(seat)
        out = []
        for name in BETTING_WAGERS:
            if name in wagers:
                state.wagers[name] = wagers[name]
                out.append(FourCardWagerPlaced(seat, name, wagers[name]))
        return out

    # --------------------------------------------------------------------- deal

    def verify_deal(self) -> None:
        if self.phase is not Phase.BETTING or not self.seats:
            raise ActionNotAllowed("a round is dealt once, after at least one seat wagered")

    def deal(self, source: CardSource) -> list[Any]:
        """Five cards to each seat with wagers in seat order, then six to the dealer, the
        first face up. The round then waits for the decisions (or, with no Ante placed,
        for its settlement)."""
        self.verify_deal()
        out: list[Any] = []
        for number, seat in sorted(self.seats.items()):
            for _ in range(PLAYER_CARDS):
                position = source.position
                card = source.draw()
                seat.cards.append(card)
                out.append(FourCardCardDealt(number, card, position, False))
        for i in range(DEALER_CARDS):
            position = source.position
            card = source.draw()
            self.dealer.append(card)
            out.append(FourCardCardDealt(DEALER, card, position, i == 0))
        self.phase = Phase.DECIDING if self.pending_after_deal() else Phase.SHOWDOWN
        return out

    def pending_after_deal(self) -> bool:
        return any(s.playing for s in self.seats.values())

    # ---------------------------------------------------------------- decisions

    def verify_decide(self, seat: int, action: Action, multiple: int) -> None:
        if self.phase is not Phase.DECIDING:
            raise ActionNotAllowed("there is no decision to make now")
        state = self.seats.get(seat)
        if state is None or not state.playing:
            raise ActionNotAllowed(f"seat {seat} has no Ante in this round: nothing to decide")
        if state.decided:
            raise ActionNotAllowed(f"seat {seat} has decided")
        if action is Action.PLAY and multiple not in PLAY_MULTIPLES:
            raise BetOutOfLimits(
                f"the Play Wager is 1, 2 or 3 times the Ante, not {multiple} times ({PROCEDURE})"
            )
        if action is Action.FOLD and multiple:
            raise ActionNotAllowed("fold takes no Play multiple")

    def decide(
        self, seat: int, action: Action, multiple: int = 0, *, auto: bool = False
    ) -> list[Any]:
        """Fold, or play ``multiple`` (1 to 3) times the Ante."""
        self.verify_decide(seat, action, multiple)
        state = self.seats[seat]
        state.decided = True
        out: list[Any] = [FourCardDecision(seat, action.value, multiple, auto)]
        if action is Action.FOLD:
            state.folded = True
        else:
            play = state.wagers[ANTE] * multiple
            state.wagers[PLAY] = play
            out.append(FourCardWagerPlaced(seat, PLAY, play))
        if not self.pending:
            self.phase = Phase.SHOWDOWN
        return out

    def countdown_action(self, seat: int) -> list[Any]:
        """The decision countdown ran out: the seat folds (logged ``auto``)."""
        return self.decide(seat, Action.FOLD, 0, auto=True)

    # ---------------------------------------------------------------- settlement

    def meter_ids_needed(self) -> tuple[str, ...]:
        return tuple(sorted({m for m, *_ in self.contributions()}))

    def settle(self, meters: Mapping[str, Meter] | None = None) -> list[Any]:
        """Turn the dealer's cards up and settle every wager in seat order.

        Args:
            meters: The progressive meters by id (those :meth:`meter_ids_needed` names);
                their new values are :meth:`meter_steps`.
        """
        if self.phase is not Phase.SHOWDOWN:
            raise ActionNotAllowed("the round settles once every seat has decided")
        meters = {} if meters is None else dict(meters)
        missing = [m for m in self.meter_ids_needed() if m not in meters]
        if missing:
            raise RulesError(f"the settlement needs the meters {', '.join(missing)}")
        used = {m: meters[m] for m in self.meter_ids_needed()}
        self._meters_after = dict(used)
        self._meter_events = {m: [] for m in used}
        out = self._out = []
        dealer = best_four(self.dealer)
        dealer_name = four_card_name(dealer)
        out.append(
            FourCardDealerRevealed(
                tuple(self.dealer),
                dealer_name,
                tuple((m, used[m].amount, used[m].reserve) for m in sorted(used)),
            )
        )
        for number, seat in sorted(self.seats.items()):
            self._settle_seat(number, seat, dealer)
        self.phase = Phase.COMPLETE
        out.append(FourCardRoundCompleted(tuple(self.dealer), dealer_name))
        return out

    def meter_steps(self) -> tuple[tuple[Meter, tuple[Any, ...]], ...]:
        """Per meter used at settlement: its value after the awards and their records."""
        return tuple(
            (self._meters_after[m], tuple(self._meter_events[m]))
            for m in sorted(self._meters_after)
        )

    def _settled(
        self, seat: int, wager: str, stake: int, paid: int, outcome: str, line: str, meter: int = 0
    ) -> None:
        self._out.append(FourCardWagerSettled(seat, wager, stake, paid, meter, outcome, line))

    def _settle_seat(self, number: int, seat: Seat, dealer: HandRank) -> None:
        rules = self.rules
        hand = best_four(seat.cards)
        name = four_card_name(hand)
        if seat.playing:
            ante = seat.wagers[ANTE]
            if seat.folded:
                self._settled(number, ANTE, ante, 0, LOST, f"Fold: the Ante is lost ({PROCEDURE})")
            else:
                play = seat.wagers[PLAY]
                if hand >= dealer:
                    word = "beats" if hand > dealer else "ties"
                    text = f"{name} {word} the dealer's {four_card_name(dealer)}: 1 to 1"
                    self._settled(number, ANTE, ante, 2 * ante, WON, f"{text} ({PROCEDURE})")
                    self._settled(number, PLAY, play, 2 * play, WON, f"{text} ({PROCEDURE})")
                else:
                    text = f"{name} loses to the dealer's {four_card_name(dealer)}"
                    self._settled(number, ANTE, ante, 0, LOST, f"{text} ({PROCEDURE})")
                    self._settled(number, PLAY, play, 0, LOST, f"{text} ({PROCEDURE})")
                line = _line(rules.ante_bonus, name)
                if line is not None:
                    pay = line.pay
                    assert not isinstance(pay, MeterShare)
                    self._settled(
                        number,
                        ANTE_BONUS,
                        0,
                        pay.win(ante),
                        WON,
                        f"Ante Bonus {rules.ante_bonus.name}: {name} {pay} on the Ante "
                        f"({PROCEDURE})",
                    )
        if ACES_UP in seat.wagers and rules.aces_up is not None:
            stake = seat.wagers[ACES_UP]
            won = aces_up_line(hand)
            line = None if won is None else _line(rules.aces_up, won)
            if line is None:
                self._settled(number, ACES_UP, stake, 0, LOST, _below_aces(name))
            else:
                pay = line.pay
                assert not isinstance(pay, MeterShare)
                self._settled(
                    number,
                    ACES_UP,
                    stake,
                    pay.total_return(stake),
                    WON,
                    f"Aces Up {rules.aces_up.name}: {line.name} {pay} (641a.1)",
                )
        for wager in PROGRESSIVES:
            if wager not in seat.wagers:
                continue
            if wager == FOUR_CARD_PROGRESSIVE:
                hand_name, cite = name, "641a.1, 641a.6(b)"
            else:
                hand_name = FIVE_CARD_NAMES[Category5(five_card(seat.cards).category)]
                cite = "641a.1, 641a.6(d)"
            self._settle_progressive(number, wager, seat.wagers[wager], hand_name, cite)
            self._settle_envy(number, wager)

    def _settle_progressive(
        self, number: int, wager: str, stake: int, hand_name: str, cite: str
    ) -> None:
        offer = self.rules.progressive(wager)
        assert offer is not None
        title = _TITLES[wager]
        line = _line(offer.paytable, hand_name)
        if line is None:
            self._settled(
                number, wager, stake, 0, LOST, f"{title}: {hand_name} pays nothing ({cite})"
            )
            return
        pay = line.pay
        text = f"{title}: {line.name} {pay} ({cite})"
        if isinstance(pay, MeterShare):
            meter = self._meters_after[offer.meter_id]
            step = meter.award_shared(pay.percent, (self.place(number),))
            self._meters_after[offer.meter_id] = step.meter
            self._meter_events[offer.meter_id].extend(step.events)
            self._out.extend(step.events)
            share = step.paid[0]
            self._settled(number, wager, stake, stake + share, WON, text, share)
        else:
            self._settled(number, wager, stake, pay.total_return(stake), WON, text)

    def _settle_envy(self, number: int, wager: str) -> None:
        """The wager's Envy Bonus (641a.1 "Four-Card Envy Bonus", "Five-Card Envy Bonus"): its
        fixed sum for each Envy Bonus Qualifying Hand that *another* player at the table holds,
        in seat order: every other seat dealt a hand, folded or not (the definition asks only
        that another player hold it), the Four-Card hand its best four cards (641a.6(b)), the
        Five-Card hand its five (641a.6(d)). The bettor's own hand never pays it its own Envy
        Bonus (its progressive pays that hand). The sums are Rules Submission data (641a.12 is
        not held)."""
        offer = self.rules.progressive(wager)
        assert offer is not None
        if offer.envy is None:
            return
        envy = ENVY_OF[wager]
        title = _ENVY_TITLES[envy]
        for other, seat in sorted(self.seats.items()):
            if other == number:
                continue
            held = _envy_hand(wager, seat.cards)
            line = _line(offer.envy, held)
            if line is None:
                continue
            pay = line.pay
            assert isinstance(pay, Fixed)
            text = f"{title}: {line.name} at seat {other} {pay} (641a.1)"
            self._settled(number, envy, 0, pay.win(0), WON, text)


def _envy_hand(wager: str, cards: Sequence[Card]) -> str:
    """A hand's name as the wager's Envy Bonus table names it (its progressive's ranking)."""
    if wager == FOUR_CARD_PROGRESSIVE:
        return four_card_name(best_four(cards))
    return FIVE_CARD_NAMES[Category5(five_card(cards).category)]


_ENVY_TITLES: Final = {
    FOUR_CARD_ENVY: "Four-Card Envy Bonus",
    FIVE_CARD_ENVY: "Five-Card Envy Bonus",
}

_TITLES: Final = {
    FOUR_CARD_PROGRESSIVE: "Four-Card Progressive Payout Wager",
    FIVE_CARD_PROGRESSIVE: "Five-Card Progressive Payout Wager",
}


def _below_aces(name: str) -> str:
    return f"Aces Up: {name}, below a pair of aces (641a.1)"


def _line(paytable: Paytable, name: str) -> Any:
    for line in paytable.lines:
        if line.name == name:
            return line
    return None


def replay(rules: FourCardRules, events: Sequence[Any], table: str) -> FourCardRound:
    """Drive a fresh round with a logged round's engine records: every step must give
    exactly the logged records (:func:`~game_server.rules.replaying.replay_steps`)."""
    source = LoggedCards((e.card, e.position) for e in events if type(e) is FourCardCardDealt)
    game = FourCardRound(rules, table)
    specs = rules.meters()

    def step(i: int, ev: Any) -> list[Any] | None:
        kind = type(ev)
        if game.phase is Phase.BETTING and kind is FourCardWagerPlaced:
            return game.place_wagers(ev.seat, seat_wagers(events, i, FourCardWagerPlaced))
        if game.phase is Phase.BETTING and kind is FourCardCardDealt:
            return game.deal(source)
        if kind is FourCardDecision:
            return game.decide(ev.seat, Action(ev.action), ev.multiple, auto=ev.auto)
        if kind is FourCardDealerRevealed:
            meters = logged_meters(specs, ev.meters)
            # The meters' own records are the platform's to verify (as Caribbean Stud's), and
            # the Must-Hit-By award the table writes at the deal is one too: not replayed here.
            return [e for e in game.settle(meters) if not isinstance(e, METER_KINDS)]
        return None

    replay_steps(events, step, lambda: game.phase)
    return game


#: The meters' records a settlement writes among the engine's (verified by the platform).
METER_KINDS: Final = (MeterAwarded, MeterReseeded)
#: The kinds of record the engine produces that ``etg verify`` replays (the meters' own
#: records, the engine's and the Must-Hit-By award's alike, are the platform's to check).
FOURCARD_KINDS: Final[frozenset[type]] = frozenset(
    {
        FourCardWagerPlaced,
        FourCardCardDealt,
        FourCardDecision,
        FourCardDealerRevealed,
        FourCardWagerSettled,
        FourCardRoundCompleted,
    }
)

_ = PUSHED  # the game has no push: a tie wins (module docstring)
