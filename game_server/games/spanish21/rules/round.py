"""One round of Spanish 21 at a fully automated table: Blackjack's engine with 635a's rules.

:class:`Spanish21Round` is a
:class:`~game_server.games.blackjack.rules.round.BlackjackRound` (the deal, insurance, the
peek, hit, stand, split, late surrender, the dealer's draw, the side wagers' settlement and
every record are Blackjack's) that changes what Spanish 21 changes (:mod:`.rules` cites each):

- the cards come from Spanish decks: :class:`SpanishCards` passes over the tens of the
  certified 52-card shoe (see its docstring: the cards dealt are a uniform shuffle of the
  48-card decks);
- a player's 21 always wins and is settled as soon as it is made, with its 635a.12(b) bonus
  unless doubled and the 635a.12(c) super bonus; a player's Blackjack beats the dealer's;
- a double down on any number of cards, once a hand (635a.10), after which the player may
  stand or rescue: take back the double down wager and forfeit the original (:meth:`rescue`);
- the Match the Dealer wager (635b.1) is a side wager settled right after the deal.

Entry points: :class:`Spanish21Round`, :class:`SpanishCards`, :class:`Spanish21Action`,
:func:`replay`, :data:`ENGINE_KINDS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DOUBLE,
    SURRENDERED,
    WON,
    CardDealt,
    Decision,
    WagerPlaced,
    WagerSettled,
    seat_wagers,
)
from game_server.games.blackjack.rules.round import (
    ENGINE_KINDS as BLACKJACK_KINDS,
)
from game_server.games.blackjack.rules.round import (
    EVEN_MONEY,
    INSURANCE_DECISION,
    NO_INSURANCE,
    BlackjackRound,
    CardSource,
    Hand,
    Phase,
)
from game_server.games.blackjack.rules.round import LINE_SURRENDER as BLACKJACK_SURRENDER
from game_server.games.spanish21.rules.rules import (
    SUPER_BONUS_LINE,
    THREE_TO_TWO,
    Spanish21Rules,
    bonus_line,
    super_bonus,
)
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    RulesError,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.replaying import LoggedCards, rename_line, replay_steps
from game_server.rules.wagers.base import SideWagerOffer
from shared.cards import Card
from shared.money import format_money

__all__ = [
    "ENGINE_KINDS",
    "SUPER_BONUS",
    "Spanish21Action",
    "Spanish21Round",
    "SpanishCards",
    "replay",
]

#: The settlement of the 635a.12(c) super bonus: an award with no stake of its own, named as
#: the platform names awards beside a wager ("<wager>_bonus"), so it counts with the wager.
SUPER_BONUS: Final = "blackjack_bonus"
RESCUE_FORFEIT = "Rescue: original wager forfeited (635a.10)"
RESCUE_RETURN = "Rescue: double down wager returned (635a.10)"
LINE_SURRENDER = "Late surrender: half returned (635a)"
#: 635a.12(a) sets the 3 to 2 odds of a winning Blackjack; that it wins against the dealer's
#: Blackjack is in no paragraph of 635a we hold (a secondary source, the module docstring).
LINE_BLACKJACK_BEATS = "Blackjack beats dealer Blackjack 3 to 2 (secondary source; odds 635a.12(a))"
# Logged by earlier builds, with the citation that (a) does not bear out.
rename_line("Blackjack beats dealer Blackjack 3 to 2 (635a.12(a))", LINE_BLACKJACK_BEATS)
TEN: Final = 10
_NONE: Mapping[str, int] = {}


class Spanish21Action(StrEnum):
    """A player's decision on a Spanish 21 hand: Blackjack's, and the rescue (635a.10)."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    RESCUE = "rescue"


class SpanishCards:
    """A card source of Spanish decks over a certified 52-card shoe: it passes over every ten
    (their positions are simply never dealt) and deals the next other card at its own position.

    A uniform shuffle of ``52d`` cards, read without its tens, is a uniform shuffle of the
    ``48d`` cards left: every order of them is equally likely. So the cards dealt are those of
    six or eight 48-card decks shuffled by the certified RNG, and each carries its position in
    the committed shoe, which ``etg verify`` checks (a later position than the last dealt).
    """

    __slots__ = ("_card", "_position", "_shoe")

    def __init__(self, shoe: CardSource) -> None:
        self._shoe = shoe
        self._card: Card | None = None
        self._position = -1

    def _next(self) -> None:
        shoe = self._shoe
        while True:
            position = shoe.position
            card = shoe.draw()
            if card.rank != TEN:
                self._card, self._position = card, position
                return

    @property
    def position(self) -> int:
        if self._card is None:
            self._next()
        return self._position

    def draw(self) -> Card:
        if self._card is None:
            self._next()
        card = self._card
        assert card is not None
        self._card = None
        return card


class Spanish21Round(BlackjackRound):
    """The state of one Spanish 21 round; every public action returns its events."""

    rules: Spanish21Rules

    # ---------------------------------------------------------------- betting

    def verify_place_wagers(self, seat: int, wagers: Mapping[str, int]) -> None:
        """Blackjack's checks, with Spanish 21's paragraphs: no wager after the deal
        (635b.1(d)(2), (f)); Match the Dealer only with a Spanish 21 wager and only of the
        amount the table takes (635b.1(e))."""
        if self.phase is not Phase.BETTING:
            raise WrongPhase(
                "no more bets: wagers are accepted only before the first card is dealt "
                "(635b.1(d)(2), (f))"
            )
        super().verify_place_wagers(seat, wagers)

    def _verify_side_wager(
        self,
        offer: SideWagerOffer,
        amount: int,
        main: int | None,
        placed: Mapping[str, int] = _NONE,
        placing: Mapping[str, int] = _NONE,
    ) -> None:
        title = offer.wager.title
        if main is None:
            raise WagerNotOffered(
                f"a {title} wager needs a Spanish 21 wager on the same seat (635b.1(e))"
            )
        limits = offer.limits
        if amount != limits.minimum or limits.minimum != limits.maximum:
            shown = format_money(amount) if type(amount) is int else repr(amount)
            raise BetOutOfLimits(
                f"the {title} wager at this table is {format_money(limits.minimum)}, not "
                f"{shown}: it is a $1 or a $5 wager as the Rules Submission states (635b.1(e))"
            )
        super()._verify_side_wager(offer, amount, main, placed, placing)

    # ------------------------------------------------------------------ cards

    def deal(self, source: CardSource) -> list[Any]:
        """Deal the initial cards from Spanish decks (:class:`SpanishCards` over ``source``),
        settle Match the Dealer (635b.1(g)) and run what needs no decision."""
        return super().deal(source if isinstance(source, LoggedCards) else SpanishCards(source))

    def resume_from(self, shoe: CardSource) -> None:
        """Deal the rest of a resumed round from ``shoe`` (crash recovery)."""
        self._source = SpanishCards(shoe)

    def _deal_to(self, hand: Hand) -> Card:
        """A card to a player's hand; a 21 made in play is settled at once: it always wins
        (635a.12(a), secondary source), with its bonus."""
        card = super()._deal_to(hand)
        if self.phase is Phase.PLAYING and hand.total == 21 and not hand.settled:
            self._pay_21(hand)
        return card

    # ------------------------------------------------------------- settlement

    def _pay_21(self, hand: Hand) -> None:
        """635a.12(a)-(c): a player's 21 wins, at its (b) bonus unless doubled; three suited
        7s against a dealer 7 add the (c) super bonus."""
        doubled = DOUBLE in hand.wagers
        pay, line = bonus_line(hand.cards, doubled)
        for wager, stake in hand.wagers.items():
            self._settle(hand, wager, stake, pay.total_return(stake), WON, line)
        up = self.dealer[0]
        extra = super_bonus(self.rules, hand.cards, up, hand.wagers[BLACKJACK], doubled)
        if extra:
            self._settle(hand, SUPER_BONUS, 0, extra, WON, SUPER_BONUS_LINE)
        hand.settled = hand.done = True

    def _settle_hand(self, hand: Hand, dealer_total: int) -> None:
        if not hand.blackjack and hand.total == 21:
            self._pay_21(hand)
            return
        super()._settle_hand(hand, dealer_total)

    def _settle_against_dealer_blackjack(self) -> None:
        """A player's Blackjack beats the dealer's (secondary source: no paragraph of 635a we
        hold says so) and is paid at 635a.12(a)'s 3 to 2; every other hand is settled as at
        Blackjack."""
        self._settle_insurance()
        for seat in self.seats.values():
            for hand in seat.hands:
                if not hand.settled and hand.blackjack:
                    stake = hand.wagers[BLACKJACK]
                    paid = THREE_TO_TWO.total_return(stake)
                    self._settle(hand, BLACKJACK, stake, paid, WON, LINE_BLACKJACK_BEATS)
                    hand.settled = hand.done = True
        super()._settle_against_dealer_blackjack()

    # ------------------------------------------------------------------- play

    def legal_actions(self) -> frozenset[Any]:
        """Blackjack's decisions open to the hand to act, and the rescue: each a
        :class:`Spanish21Action`."""
        legal: frozenset[Any] = super().legal_actions()
        hand = self.to_act
        if hand is not None and self.can_rescue(hand.seat, hand.index):
            return frozenset(Spanish21Action(a) for a in legal) | {Spanish21Action.RESCUE}
        return frozenset(Spanish21Action(a) for a in legal)

    def _refuse_hit(self, seat: int, hand: int) -> RulesError | None:
        refusal = super()._refuse_hit(seat, hand)
        if refusal is None and DOUBLE in self._play[self._cursor].wagers:
            return ActionNotAllowed(
                "a doubled hand receives one card; stand or rescue it (635a.10, secondary source)"
            )
        return refusal

    def hit(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        self.verify_hit(seat, hand)
        return super().hit(seat, hand, auto=auto)

    def _refuse_double(self, seat: int, hand: int, amount: int | None) -> RulesError | None:
        """635a.10 (secondary source): a double down on any number of cards, once a hand, for
        at most the hand's original wager; after a split where the Rules Submission allows it;
        split aces only where it lets them be hit."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        current = self._play[self._cursor]
        if DOUBLE in current.wagers:
            return ActionNotAllowed(
                "a hand is doubled once: a second double down is not allowed (635a.10, "
                "secondary source)"
            )
        if current.from_split and not self.rules.double_after_split:
            return ActionNotAllowed(
                "this table does not allow a double down after a split (635a.10, Rules Submission)"
            )
        if current.split_aces and not self.rules.hit_split_aces:
            return ActionNotAllowed("split aces receive one card each (635a.11, Rules Submission)")
        if amount is not None:
            original = current.wagers[BLACKJACK]
            unit = self.rules.main_limits.unit
            if type(amount) is not int or not 0 < amount <= original:
                return BetOutOfLimits(
                    "a double down wager must be more than $0 and at most the original wager "
                    f"{format_money(original)} (635a.10)"
                )
            if amount != original and amount % unit:
                return BetOutOfLimits(
                    f"a double down wager of {format_money(amount)} is not a multiple of the "
                    f"wager unit {format_money(unit)}"
                )
        return None

    def double(
        self, seat: int, hand: int, amount: int | None = None, *, auto: bool = False
    ) -> list[Any]:
        """Double down (635a.10): an additional wager (the full original by default) and one
        card; the hand then stands or is rescued (:meth:`rescue`), unless it busted or made
        21 (settled at once)."""
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
        self._advance()
        return out

    def surrender(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Blackjack's late surrender, half the wager back (offered where the Rules
        Submission says so), its settlement naming Chapter 635a (secondary source)."""
        out = super().surrender(seat, hand, auto=auto)
        out[:] = [
            ev._replace(line=LINE_SURRENDER)
            if type(ev) is WagerSettled and ev.line == BLACKJACK_SURRENDER
            else ev
            for ev in out
        ]
        return out

    def _refuse_rescue(self, seat: int, hand: int) -> RulesError | None:
        """635a.10 (secondary source): the rescue, right after a double down's card, of a
        hand that did not bust."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        if DOUBLE not in self._play[self._cursor].wagers:
            return ActionNotAllowed(
                f"seat {seat} hand {hand + 1} has not doubled down: the rescue takes back a "
                "double down wager, right after the double's card (635a.10, secondary source)"
            )
        return None

    def verify_rescue(self, seat: int, hand: int) -> None:
        refusal = self._refuse_rescue(seat, hand)
        if refusal is not None:
            raise refusal

    def can_rescue(self, seat: int, hand: int) -> bool:
        return self._refuse_rescue(seat, hand) is None

    def rescue(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Take back the double down wager and forfeit the original wager (635a.10)."""
        self.verify_rescue(seat, hand)
        current = self._play[self._cursor]
        out = self._out = [Decision(seat, hand, Spanish21Action.RESCUE.value, 0, auto)]
        original, doubled = current.wagers[BLACKJACK], current.wagers[DOUBLE]
        self._settle(current, BLACKJACK, original, 0, SURRENDERED, RESCUE_FORFEIT)
        self._settle(current, DOUBLE, doubled, doubled, SURRENDERED, RESCUE_RETURN)
        current.settled = current.done = True
        self._advance()
        return out

    def act(
        self,
        action: Spanish21Action | Action,
        seat: int,
        hand: int,
        *,
        amount: int | None = None,
        auto: bool = False,
    ) -> list[Any]:
        """Dispatch a decision by name; ``amount`` is read by a double down only."""
        if action == Spanish21Action.RESCUE:
            return self.rescue(seat, hand, auto=auto)
        try:
            blackjack = Action(str(action))
        except ValueError:
            raise ActionNotAllowed(f"{action!r} is not a Spanish 21 decision") from None
        if blackjack is Action.PRESS:
            raise ActionNotAllowed("a Spanish 21 table offers no TriLux Deluxe Press")
        if blackjack is Action.DOUBLE:
            return self.double(seat, hand, amount, auto=auto)
        return super().act(blackjack, seat, hand, auto=auto)


def replay(rules: Spanish21Rules, events: Sequence[Any]) -> Spanish21Round:
    """Rebuild a round from its logged events through a fresh engine (each step must give
    exactly the logged records, or :class:`~game_server.rules.replaying.ReplayMismatch`)."""
    source = LoggedCards([(e.card, e.position) for e in events if type(e) is CardDealt])
    game = Spanish21Round(rules)

    def step(i: int, ev: Any) -> list[Any] | None:
        kind = type(ev)
        if game.phase is Phase.BETTING and kind is WagerPlaced:
            return game.place_wagers(ev.seat, seat_wagers(events, i))
        if game.phase is Phase.BETTING and kind is CardDealt:
            return game.deal(source)
        if kind is Decision:
            if ev.action == INSURANCE_DECISION:
                return game.insure(ev.seat, ev.amount, auto=ev.auto)
            if ev.action == NO_INSURANCE:
                return game.decline_insurance(ev.seat, auto=ev.auto)
            if ev.action == EVEN_MONEY:
                return game.take_even_money(ev.seat, auto=ev.auto)
            amount = ev.amount if ev.action == Spanish21Action.DOUBLE else None
            return game.act(
                Spanish21Action(ev.action), ev.seat, ev.hand, amount=amount, auto=ev.auto
            )
        return None

    replay_steps(events, step, lambda: game.phase)
    return game


#: The records the engine produces: Blackjack's (Spanish 21 adds none).
ENGINE_KINDS: Final[frozenset[type]] = BLACKJACK_KINDS
