"""Blackjack on a hybrid gaming table without a dealer hole card: the pure engine,
58 Pa. Code 633b.5(w)-(ee).

One set of cards serves every player (633b.5(y)): the round's first card is every player's
first card, the second the dealer's first (up) card, the third every player's second card;
every later card is a *community card* that each player's own choices designate to his hand
or to the dealer's hand (633b.5(y)(4), (aa), (bb)). Two players at the same table can
therefore face different dealer hands.

The card-designation model, exactly:

- Cards come from the shoe one at a time, in one order for everybody. Card 0 is every
  player's first card, card 1 the dealer's up card, card 2 every player's second card
  (:class:`CardDealt` with ``seat`` :data:`ALL_PLAYERS`, :data:`DEALER`, :data:`ALL_PLAYERS`).
- Every later card is a community card (``seat`` :data:`COMMUNITY`). One is dealt only when
  no player has a decision (or an insurance answer) outstanding: "After the decisions of each
  player position have been implemented, the dealer shall deal a community card"
  (633b.5(aa)). Players decide in any order (stadium); the card waits for the last of them.
  So nobody sees a card before deciding whether it is his.
- Each community card is used by every player who still needs a card, each by his own state
  (a :class:`CardDesignated` event per player):

  - to the hand he is playing, when his last decision on it was hit, double down or split,
    or when it is a split hand still holding one card (633b.5(aa)(3));
  - otherwise to *his* dealer hand: the first such card is the dealer's second ("hole")
    card (633b.5(aa)(1)-(2), (bb)); later ones follow while his dealer hand is under 17
    (633b.5(bb)(2), the dealer stands on all 17s).

  A player who has a Blackjack, stands, surrenders, busts or finishes a double down or split
  aces is done with his hands, and the next community card goes to his dealer hand. His game
  is a pure function of the card order and his own decisions: his hands take the community
  cards in order while he draws, then his dealer hand takes the following ones.
- A player's dealer hand is complete at a dealer Blackjack (two cards), at 17 to 21 or over
  21, or right after the hole card when none of his hands is left to compare (all busted,
  surrendered or already paid): the hole card is always designated, because insurance and
  the Royal Match 21 / King's Bounty wagers are settled on it. His wagers are settled as his
  dealer hand completes; he is then finished (:class:`DealerHandCompleted`). The round deals
  as many community cards as the player needing most requires, and ends when every player
  is finished (:class:`RoundCompleted`, whose ``dealer_cards`` is the up card only: the rest
  of the dealer's hand differs by player).

Rules applied (each cited where it is implemented): insurance on a dealer ace, up to half the
Blackjack wager, paid 2 to 1 (633b.5(z), (ee)(1), 633a.8); surrender of the first two cards
for half the wager where the Rules Submission offers it (633a.9, ``late_surrender``); double
down (633a.10, ``double_on``, ``double_after_split``); split into two hands at most (633b.5(z));
split aces and a double down take one card (633b.5(aa)(3)(i)); no hit on a Blackjack or 21
(633b.5(z)); a bust is collected at once (633b.5(aa)(3)); dealer Blackjack: a player
Blackjack pushes, other hands lose the original wager while a split hand's wager (and a double
down wager) comes back if that hand did not bust (633b.5(aa)(1)(i), (aa)(2)(i), (bb)(1));
otherwise win, push or lose as 633b.5(t) (633b.5(cc)), a Blackjack paid 3 to 2 and everything
else 1 to 1 (633b.5(ee)(2)). The countdown stands, or hits a hard 11 or less where the Rules
Submission says so (633b.5(z), ``countdown_default``).

:class:`~game_server.games.blackjack.rules.rules.BlackjackRules` fields read: ``seats``,
``decks``, ``main_limits``, ``side_wagers``, ``late_surrender``, ``double_on``,
``double_after_split``, ``max_split_hands`` (capped at 2 by (z)), ``countdown_default``.
Fields this table's paragraphs fix instead, and so not read: ``dealer_hits_soft_17`` ((bb)(2)),
``dealer_peeks`` (no hole card), ``insurance`` ((z) "shall offer"), ``even_money`` (not in
(z)), ``resplit_aces`` and ``hit_split_aces`` ((z), (aa)(3)(i)).

``seat`` in every event is the player's id (1..``rules.seats``, the number of electronic
wagering terminals). Entry points: :class:`NoHoleCardRound`, :func:`replay`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, NamedTuple, Protocol

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    DOUBLE,
    INSURANCE,
    LOST,
    PUSHED,
    SURRENDERED,
    WON,
    CardDealt,
    Decision,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
    seat_wagers,
)
from game_server.games.blackjack.rules.rules import (
    BLACKJACK_PAYS,
    INSURANCE_PAYS,
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
from game_server.rules.events import event
from game_server.rules.replaying import LoggedCards, replay_steps
from game_server.rules.twenty_one import hand_total, is_blackjack
from game_server.rules.wagers.base import Moment, SideWagerContext, SideWagerOffer
from game_server.rules.wagers.hybrid_side_wagers import HYBRID_SIDE_WAGERS
from shared.cards import BJ_VALUE, Card
from shared.money import MeterShare, format_money

#: ``seat`` of a :class:`CardDealt` that is every player's card (633b.5(y)(1), (3)).
ALL_PLAYERS = -1
#: ``seat`` of a :class:`CardDealt` that is a community card (633b.5(y)(4)).
COMMUNITY = -2

INSURANCE_DECISION = "insurance"
NO_INSURANCE = "no-insurance"

TO_HAND = "hand"
TO_DEALER = "dealer"

LINE_BLACKJACK = "Blackjack 3 to 2 (633b.5(ee)(2))"
LINE_WIN = "Win 1 to 1 (633b.5(ee)(2))"
LINE_PUSH = "Push (633b.5(t)(2))"
LINE_LOSS = "Loss (633b.5(t)(3))"
LINE_BUST = "Bust (633b.5(aa)(3))"
LINE_BLACKJACK_PUSH = "Blackjack against dealer Blackjack: push (633b.5(aa)(1)(i))"
LINE_DEALER_BLACKJACK = "Dealer Blackjack (633b.5(bb)(1))"
LINE_RETURNED = "Dealer Blackjack: additional wager returned (633b.5(bb)(1))"
LINE_SURRENDER = "Surrender: half returned (633a.9)"
LINE_INSURANCE = "Insurance 2 to 1 (633b.5(ee)(1))"
LINE_NO_WIN = "No win"


# ------------------------------------------------------------------------------ events


@event("nhc_card_designated")
class CardDesignated(NamedTuple):
    """Community card ``position`` went, for player ``seat``, to his hand ``hand``
    (``target`` "hand") or to his dealer hand (``target`` "dealer", ``hand`` its 0-based
    place there: 1 is the hole card), 633b.5(y)(4), (aa), (bb)."""

    seat: int
    target: str
    hand: int
    card: Card
    position: int


@event("nhc_dealer_hand_completed")
class DealerHandCompleted(NamedTuple):
    """Player ``seat``'s dealer hand is final and all his wagers are settled."""

    seat: int
    dealer_cards: tuple[Card, ...]
    dealer_total: int
    blackjack: bool


# ------------------------------------------------------------------------------- state


class Phase(StrEnum):
    """Where the round is."""

    BETTING = "betting"
    PLAYING = "playing"
    COMPLETE = "complete"


class Status(StrEnum):
    """Where one player is (his own game over the shared cards)."""

    DECIDE = "decide"
    """The round waits for his decision on :attr:`NoHoleCardRound.to_act`'s hand."""
    TO_HAND = "to-hand"
    """The next community card goes to his hand being played."""
    TO_DEALER = "to-dealer"
    """His hands are done; the next community card goes to his dealer hand."""
    FINISHED = "finished"
    """His dealer hand is complete and his wagers are settled."""


class CardSource(Protocol):
    """Where the engine takes cards from: the shoe, a stacked shoe, or logged cards."""

    @property
    def position(self) -> int: ...

    def draw(self) -> Card: ...


class _Hand:
    __slots__ = ("cards", "done", "from_split", "index", "settled", "split_aces", "wagers")

    def __init__(self, index: int, amount: int) -> None:
        self.index = index
        self.cards: list[Card] = []
        self.wagers: dict[str, int] = {BLACKJACK: amount}
        self.from_split = False
        self.split_aces = False
        self.done = False
        self.settled = False

    @property
    def total(self) -> int:
        return hand_total(self.cards)[0]

    @property
    def blackjack(self) -> bool:
        """An ace and a ten-value card as the initial two cards; never after a split."""
        return not self.from_split and is_blackjack(self.cards)

    @property
    def busted(self) -> bool:
        return self.total > 21


class _Player:
    __slots__ = (
        "current",
        "dealer",
        "designations",
        "hands",
        "insurance",
        "insurance_pending",
        "number",
        "status",
        "wagers",
    )

    def __init__(self, number: int) -> None:
        self.number = number
        self.wagers: dict[str, int] = {}
        self.hands: list[_Hand] = []
        self.current = 0
        self.dealer: list[Card] = []
        self.insurance = 0
        self.insurance_pending = False
        self.status = Status.DECIDE
        self.designations: list[tuple[int, str, int]] = []


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What one player's terminal shows (633b.5(y)): the shared cards and, of the community
    cards, which are in his hands and which in the dealer's hand FOR HIM.

    Attributes:
        seat: the player.
        first_cards: every player's two first cards (633b.5(y)(1), (3)).
        up_card: the dealer's first card (633b.5(y)(2)).
        community: every community card dealt so far, ``(position, card)``.
        designations: for each community card this player used, ``(position, target,
            hand)``: ``target`` "hand" with his hand's index, or "dealer" with the card's
            place in his dealer hand.
        hands: his hands' cards.
        dealer: his dealer hand (the up card first).
        status: where his game is.
        to_act: the hand whose decision the round waits for, or None.
    """

    seat: int
    first_cards: tuple[Card, ...]
    up_card: Card | None
    community: tuple[tuple[int, Card], ...]
    designations: tuple[tuple[int, str, int], ...]
    hands: tuple[tuple[Card, ...], ...]
    dealer: tuple[Card, ...]
    status: Status
    to_act: int | None


# ------------------------------------------------------------------------------ engine


class NoHoleCardRound:
    """One round at a no-hole-card hybrid table (633b.5(w)-(ee)); every action returns its
    events. See the module docstring for the card-designation model."""

    def __init__(self, rules: BlackjackRules) -> None:
        self.rules = rules
        self.phase = Phase.BETTING
        self.players: dict[int, _Player] = {}
        self.first_cards: tuple[Card, ...] = ()
        self.up_card: Card | None = None
        self.community: list[tuple[int, Card]] = []
        self._source: CardSource | None = None
        self._out: list[Any] = []

    # ----------------------------------------------------------------------- views

    def to_act(self, seat: int) -> int | None:
        """The index of the player's hand whose decision the round waits for, or None."""
        player = self.players.get(seat)
        if player is None or self.phase is not Phase.PLAYING:
            return None
        if player.status is not Status.DECIDE or player.insurance_pending:
            return None
        return player.current

    def pending(self) -> tuple[int, ...]:
        """Players whose insurance answer or decision the next community card waits for."""
        if self.phase is not Phase.PLAYING:
            return ()
        return tuple(
            n for n, p in self.players.items() if p.insurance_pending or p.status is Status.DECIDE
        )

    def pending_insurance(self, seat: int) -> bool:
        player = self.players.get(seat)
        return player is not None and player.insurance_pending

    def dealer_cards(self, seat: int) -> tuple[Card, ...]:
        """The dealer's hand FOR this player (the up card, then his designated cards)."""
        return tuple(self._player(seat).dealer)

    def hands(self, seat: int) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(h.cards) for h in self._player(seat).hands)

    def status(self, seat: int) -> Status:
        return self._player(seat).status

    def view(self, seat: int) -> PlayerView:
        """The player's view: shared cards, community cards and where each went for him."""
        player = self._player(seat)
        return PlayerView(
            seat,
            self.first_cards,
            self.up_card,
            tuple(self.community),
            tuple(player.designations),
            tuple(tuple(h.cards) for h in player.hands),
            tuple(player.dealer),
            player.status,
            self.to_act(seat),
        )

    def _player(self, seat: int) -> _Player:
        player = self.players.get(seat)
        if player is None:
            raise SeatError(f"player {seat!r} has not joined this round")
        return player

    # --------------------------------------------------------------------- joining

    def verify_join(self, seat: int, wagers: Mapping[str, int]) -> None:
        """Raise unless player ``seat`` may place ``wagers`` ({name: cents}) now."""
        if self.phase is not Phase.BETTING:
            raise WrongPhase(
                "no more bets: wagers are placed before the first card is dealt (633b.5(k))"
            )
        if type(seat) is not int or not 1 <= seat <= self.rules.seats:
            raise SeatError(
                f"player {seat!r} is not a terminal of this table (1..{self.rules.seats})"
            )
        if not wagers:
            raise WagerError("no wager was given")
        placed = self.players[seat].wagers if seat in self.players else {}
        if BLACKJACK not in wagers and BLACKJACK not in placed:
            raise WagerNotOffered(
                "to participate in a round a player places a Blackjack wager (633b.5(x))"
            )
        for name, amount in wagers.items():
            if name in placed:
                raise WagerError(
                    f"the {name} wager of player {seat} is already placed; a placed wager "
                    "cannot be changed until it is settled (633b.5(k))"
                )
            if name == BLACKJACK:
                self.rules.main_limits.verify("Blackjack", amount)
                continue
            if name not in HYBRID_SIDE_WAGERS:
                raise WagerNotOffered(
                    f"{name!r} is not a wager of this table: 633b.5(x) allows only Royal "
                    "Match 21, Bet the Set and King's Bounty besides the Blackjack wager"
                )
            offer = self.rules.offers.get(name)
            if offer is None:
                raise WagerNotOffered(
                    f"this table's Rules Submission does not offer the "
                    f"{HYBRID_SIDE_WAGERS[name].title} wager (633b.5(x), 601a.10(a))"
                )
            offer.limits.verify(offer.wager.title, amount)

    def can_join(self, seat: int, wagers: Mapping[str, int]) -> bool:
        try:
            self.verify_join(seat, wagers)
        except RulesError:
            return False
        return True

    def join(self, seat: int, wagers: Mapping[str, int]) -> list[Any]:
        """Place a player's wagers before the deal; a :class:`WagerPlaced` per wager."""
        self.verify_join(seat, wagers)
        player = self.players.get(seat)
        if player is None:
            player = self.players[seat] = _Player(seat)
        player.wagers.update(wagers)
        return [WagerPlaced(seat, 0, name, amount) for name, amount in wagers.items()]

    # ------------------------------------------------------------------------ deal

    def verify_deal(self) -> None:
        if self.phase is not Phase.BETTING:
            raise WrongPhase("the cards of this round are already dealt")
        if not self.players:
            raise WagerError("no player has a Blackjack wager: there is nothing to deal")

    def can_deal(self) -> bool:
        try:
            self.verify_deal()
        except RulesError:
            return False
        return True

    def deal(self, source: CardSource) -> list[Any]:
        """Deal the three shared cards (633b.5(y)(1)-(3)), settle Bet the Set, offer
        insurance on an ace (633b.5(z)), and deal on while no decision is due."""
        self.verify_deal()
        self._source = source
        out = self._out = []
        self.players = dict(sorted(self.players.items()))
        c1 = self._draw(ALL_PLAYERS)
        up = self.up_card = self._draw(DEALER)
        c3 = self._draw(ALL_PLAYERS)
        self.first_cards = (c1, c3)
        self.phase = Phase.PLAYING
        insurance = BJ_VALUE[up] == 1  # 633b.5(z): offered whenever the up card is an ace
        for player in self.players.values():
            hand = _Hand(0, player.wagers[BLACKJACK])
            hand.cards = [c1, c3]
            player.hands.append(hand)
            player.dealer = [up]
            player.insurance_pending = insurance
            if hand.blackjack:
                # 633b.5(aa)(1), (z): a Blackjack takes no card; the next card is the hole.
                hand.done = True
                player.status = Status.TO_DEALER
        self._settle_side_wagers(Moment.AFTER_DEAL, None)
        self._run()
        return out

    def _draw(self, seat: int) -> Card:
        return self._draw_at(seat)[0]

    def _draw_at(self, seat: int) -> tuple[Card, int]:
        """The next card of the shoe and its position, logged as a :class:`CardDealt`."""
        source = self._source
        assert source is not None
        position = source.position
        card = source.draw()
        self._out.append(CardDealt(seat, 0, card, position, True))
        if seat == COMMUNITY:
            self.community.append((position, card))
        return card, position

    # ------------------------------------------------------------------- insurance

    def _refuse_insurance(self, seat: int, amount: int | None) -> RulesError | None:
        player = self.players.get(seat)
        if self.phase is not Phase.PLAYING or player is None or not player.insurance_pending:
            return WrongPhase(
                f"player {seat} has no insurance offer to answer: it is offered once, when "
                "the dealer's first card is an ace (633b.5(z), 633a.8)"
            )
        if amount is None:
            return None
        half = player.wagers[BLACKJACK] // 2
        if type(amount) is not int or not 0 < amount <= half:
            return BetOutOfLimits(
                f"insurance for player {seat} must be more than $0 and at most half the "
                f"Blackjack wager ({format_money(half)}) (633a.8)"
            )
        return None

    def verify_insurance(self, seat: int, amount: int) -> None:
        refusal = self._refuse_insurance(seat, amount)
        if refusal is not None:
            raise refusal

    def can_insure(self, seat: int) -> bool:
        return (
            self._refuse_insurance(seat, None) is None and self.players[seat].wagers[BLACKJACK] >= 2
        )

    def insure(self, seat: int, amount: int | None = None, *, auto: bool = False) -> list[Any]:
        """Place an insurance wager (None: half the Blackjack wager), 633b.5(z), 633a.8."""
        self._raise(self._refuse_insurance(seat, None))
        if amount is None:
            amount = self.players[seat].wagers[BLACKJACK] // 2
        self.verify_insurance(seat, amount)
        player = self.players[seat]
        out = self._out = [
            Decision(seat, 0, INSURANCE_DECISION, amount, auto),
            WagerPlaced(seat, 0, INSURANCE, amount),
        ]
        player.insurance = amount
        player.insurance_pending = False
        self._run()
        return out

    def decline_insurance(self, seat: int, *, auto: bool = False) -> list[Any]:
        """Decline the insurance offer (the countdown's default)."""
        refusal = self._refuse_insurance(seat, None)
        if refusal is not None:
            raise refusal
        out = self._out = [Decision(seat, 0, NO_INSURANCE, 0, auto)]
        self.players[seat].insurance_pending = False
        self._run()
        return out

    # ----------------------------------------------------------------------- play

    def _refuse_turn(self, seat: int, hand: int) -> RulesError | None:
        if self.phase is not Phase.PLAYING:
            return WrongPhase(f"no hand is to act: the round is in the {self.phase} phase")
        player = self.players.get(seat)
        if player is None:
            return SeatError(f"player {seat!r} is not in this round")
        if player.insurance_pending:
            return WrongPhase(f"player {seat} answers the insurance offer first (633b.5(z))")
        if 0 <= hand < len(player.hands) and player.hands[hand].done:
            done = player.hands[hand]
            if done.split_aces or DOUBLE in done.wagers:
                return ActionNotAllowed(
                    f"hand {hand + 1} of player {seat} is complete: split aces and a double "
                    "down take one community card only (633b.5(aa)(3)(i))"
                )
        if not 0 <= hand < len(player.hands) or player.hands[hand].done:
            return ActionNotAllowed(
                f"hand {hand + 1} of player {seat} is finished (or does not exist): no "
                "further decision can be made on it"
            )
        if player.status is not Status.DECIDE or player.current != hand:
            return NotYourTurn(
                f"player {seat}'s hand {hand + 1} is waiting for its next card; the "
                f"decision due is on hand {player.current + 1} once it has its card"
                if player.current != hand
                else f"player {seat}'s hand {hand + 1} is waiting for the next community "
                "card (633b.5(aa))"
            )
        return None

    def _refuse_hit(self, seat: int, hand: int) -> RulesError | None:
        player = self.players.get(seat)
        if (
            player is not None
            and type(hand) is int
            and 0 <= hand < len(player.hands)
            and player.hands[hand].total == 21
        ):
            current = player.hands[hand]
            return ActionNotAllowed(
                f"a hand of {'Blackjack' if current.blackjack else '21'} may not draw: a "
                "player having Blackjack or a hard or soft total of 21 may not draw "
                "additional cards (633b.5(z))"
            )
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        current = self.players[seat].hands[hand]
        if current.total >= 21:
            return ActionNotAllowed(
                f"a hand of {current.total} may not draw: a player having Blackjack or a hard "
                "or soft total of 21 may not draw additional cards (633b.5(z))"
            )
        return None

    def _refuse_double(self, seat: int, hand: int, amount: int | None) -> RulesError | None:
        """633a.10: an additional wager of at most the original, on the first two cards."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        current = self.players[seat].hands[hand]
        # Split aces need no check here: they are done at their one card (633b.5(aa)(3)(i)).
        return double_down_refusal(
            self.rules,
            current.cards,
            from_split=current.from_split,
            split_aces=False,
            original=current.wagers[BLACKJACK],
            amount=amount,
        )

    def _refuse_split(self, seat: int, hand: int) -> RulesError | None:
        """633b.5(z), 633a.11: two cards identical in value, for a total of two hands."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        player = self.players[seat]
        cards = player.hands[hand].cards
        if len(cards) != 2 or BJ_VALUE[cards[0]] != BJ_VALUE[cards[1]]:
            return ActionNotAllowed("only two cards identical in value may be split (633a.11)")
        if len(player.hands) >= min(2, self.rules.max_split_hands):
            return ActionNotAllowed(
                "a player may split pairs for a total of two hands only (633b.5(z))"
            )
        return None

    def _refuse_surrender(self, seat: int, hand: int) -> RulesError | None:
        """633b.5(z), 633a.9: the first two cards of an unsplit hand, if offered."""
        refusal = self._refuse_turn(seat, hand)
        if refusal is not None:
            return refusal
        if not self.rules.late_surrender:
            return ActionNotAllowed(
                "this table does not offer surrender (633a.9, Rules Submission)"
            )
        player = self.players[seat]
        if len(player.hands) > 1 or len(player.hands[hand].cards) != 2:
            return ActionNotAllowed(
                "surrender is allowed only on the first two cards of an unsplit hand (633a.9)"
            )
        return None

    @staticmethod
    def _raise(refusal: RulesError | None) -> None:
        if refusal is not None:
            raise refusal

    def verify_hit(self, seat: int, hand: int) -> None:
        self._raise(self._refuse_hit(seat, hand))

    def verify_stand(self, seat: int, hand: int) -> None:
        self._raise(self._refuse_turn(seat, hand))

    def verify_double(self, seat: int, hand: int, amount: int | None = None) -> None:
        self._raise(self._refuse_double(seat, hand, amount))

    def verify_split(self, seat: int, hand: int) -> None:
        self._raise(self._refuse_split(seat, hand))

    def verify_surrender(self, seat: int, hand: int) -> None:
        self._raise(self._refuse_surrender(seat, hand))

    def can_hit(self, seat: int, hand: int) -> bool:
        return self._refuse_hit(seat, hand) is None

    def can_stand(self, seat: int, hand: int) -> bool:
        return self._refuse_turn(seat, hand) is None

    def can_double(self, seat: int, hand: int) -> bool:
        return self._refuse_double(seat, hand, None) is None

    def can_split(self, seat: int, hand: int) -> bool:
        return self._refuse_split(seat, hand) is None

    def can_surrender(self, seat: int, hand: int) -> bool:
        return self._refuse_surrender(seat, hand) is None

    def legal_actions(self, seat: int) -> frozenset[Action]:
        """The decisions open to the player's hand to act (empty when none is due)."""
        hand = self.to_act(seat)
        if hand is None:
            return frozenset()
        checks = (
            (Action.HIT, self.can_hit),
            (Action.STAND, self.can_stand),
            (Action.DOUBLE, self.can_double),
            (Action.SPLIT, self.can_split),
            (Action.SURRENDER, self.can_surrender),
        )
        return frozenset(action for action, can in checks if can(seat, hand))

    def hit(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Take the next community card to this hand (633b.5(aa)(3)(ii))."""
        self.verify_hit(seat, hand)
        out = self._out = [Decision(seat, hand, Action.HIT.value, 0, auto)]
        self.players[seat].status = Status.TO_HAND
        self._run()
        return out

    def stand(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Take no more cards on this hand (633b.5(aa)(2), (aa)(3)(ii))."""
        self.verify_stand(seat, hand)
        out = self._out = [Decision(seat, hand, Action.STAND.value, 0, auto)]
        player = self.players[seat]
        player.hands[hand].done = True
        self._next_hand(player)
        self._run()
        return out

    def double(
        self, seat: int, hand: int, amount: int | None = None, *, auto: bool = False
    ) -> list[Any]:
        """Double down: an additional wager (the original by default) and one community
        card, after which the hand is complete (633b.5(aa)(3)(i), 633a.10)."""
        self.verify_double(seat, hand, amount)
        player = self.players[seat]
        current = player.hands[hand]
        amount = current.wagers[BLACKJACK] if amount is None else amount
        out = self._out = [
            Decision(seat, hand, Action.DOUBLE.value, amount, auto),
            WagerPlaced(seat, hand, DOUBLE, amount),
        ]
        current.wagers[DOUBLE] = amount
        player.status = Status.TO_HAND
        self._run()
        return out

    def split(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Split into two hands, the second with a wager equal to the original; the next
        community card goes to the first hand, which is played out before the second gets
        its card (633b.5(z), (aa)(3), 633a.11)."""
        self.verify_split(seat, hand)
        player = self.players[seat]
        current = player.hands[hand]
        amount = current.wagers[BLACKJACK]
        new = _Hand(len(player.hands), amount)
        out = self._out = [
            Decision(seat, hand, Action.SPLIT.value, 0, auto),
            WagerPlaced(seat, new.index, BLACKJACK, amount),
        ]
        new.cards = [current.cards.pop()]
        aces = BJ_VALUE[new.cards[0]] == 1
        for h in (current, new):
            h.from_split = True
            h.split_aces = aces
        player.hands.append(new)
        player.status = Status.TO_HAND
        self._run()
        return out

    def surrender(self, seat: int, hand: int, *, auto: bool = False) -> list[Any]:
        """Give up the hand for half the Blackjack wager back, settled at once (633a.9); the
        next community card is still his dealer's hole card (insurance, side wagers)."""
        self.verify_surrender(seat, hand)
        player = self.players[seat]
        current = player.hands[hand]
        out = self._out = [Decision(seat, hand, Action.SURRENDER.value, 0, auto)]
        for wager, stake in current.wagers.items():
            self._settle(seat, hand, wager, stake, stake // 2, SURRENDERED, LINE_SURRENDER)
        current.settled = current.done = True
        self._next_hand(player)
        self._run()
        return out

    def act(
        self,
        seat: int,
        action: Action,
        hand: int,
        *,
        amount: int | None = None,
        auto: bool = False,
    ) -> list[Any]:
        """Dispatch a player decision by name (``amount``: a double down's, None = full)."""
        if action is Action.HIT:
            return self.hit(seat, hand, auto=auto)
        if action is Action.STAND:
            return self.stand(seat, hand, auto=auto)
        if action is Action.DOUBLE:
            return self.double(seat, hand, amount, auto=auto)
        if action is Action.SPLIT:
            return self.split(seat, hand, auto=auto)
        if action is Action.SURRENDER:
            return self.surrender(seat, hand, auto=auto)
        raise ActionNotAllowed(f"{action.value!r} is not a decision of this table (633b.5(z))")

    def countdown_action(self, seat: int) -> Action:
        """What the countdown does for the player's hand to act: stand (633b.5(z)), or hit a
        hard 11 or less where the Rules Submission selects that option."""
        hand = self.to_act(seat)
        if hand is None:
            raise WrongPhase(f"player {seat} has no decision due")
        cards = self.players[seat].hands[hand].cards
        total, soft = hand_total(cards)
        if (
            self.rules.countdown_default is CountdownDefault.HIT_HARD_11_OR_LESS
            and not soft
            and total <= 11
            and self.can_hit(seat, hand)
        ):
            return Action.HIT
        return Action.STAND

    def countdown(self, seat: int) -> list[Any]:
        """Apply the countdown's default to whatever the player has due: decline insurance,
        or :meth:`countdown_action` on the hand to act (events marked ``auto``)."""
        if self.pending_insurance(seat):
            return self.decline_insurance(seat, auto=True)
        hand = self.to_act(seat)
        if hand is None:
            raise WrongPhase(f"player {seat} has no decision due")
        return self.act(seat, self.countdown_action(seat), hand, auto=True)

    # ----------------------------------------------------------------- card flow

    def _next_hand(self, player: _Player) -> None:
        """After a hand is done: the split hand's card, or the dealer's hand for him."""
        for h in player.hands:
            if not h.done:
                player.current = h.index
                player.status = Status.TO_HAND if len(h.cards) < 2 else Status.DECIDE
                return
        player.status = Status.TO_DEALER

    def _run(self) -> None:
        """Deal community cards while no decision is due (633b.5(aa)); end the round when
        every player is finished."""
        players = self.players.values()
        while True:
            if any(p.insurance_pending or p.status is Status.DECIDE for p in players):
                return
            needing = [p for p in players if p.status in (Status.TO_HAND, Status.TO_DEALER)]
            if not needing:
                break
            card, position = self._draw_at(COMMUNITY)
            for player in needing:
                if player.status is Status.TO_HAND:
                    self._to_hand(player, card, position)
                else:
                    self._to_dealer(player, card, position)
        self.phase = Phase.COMPLETE
        up = self.up_card
        assert up is not None
        self._out.append(RoundCompleted((up,), hand_total((up,))[0]))

    def _to_hand(self, player: _Player, card: Card, position: int) -> None:
        hand = player.hands[player.current]
        hand.cards.append(card)
        player.designations.append((position, TO_HAND, hand.index))
        self._out.append(CardDesignated(player.number, TO_HAND, hand.index, card, position))
        if hand.busted:
            # 633b.5(aa)(3)(i)-(ii): over 21 before the hole card: collected at once.
            for wager, stake in hand.wagers.items():
                self._settle(player.number, hand.index, wager, stake, 0, LOST, LINE_BUST)
            hand.settled = hand.done = True
        elif DOUBLE in hand.wagers or hand.split_aces or hand.total == 21:
            hand.done = True  # (aa)(3)(i) one card; (z) no draw on 21
        else:
            player.status = Status.DECIDE
            return
        self._next_hand(player)

    def _to_dealer(self, player: _Player, card: Card, position: int) -> None:
        dealer = player.dealer
        dealer.append(card)
        player.designations.append((position, TO_DEALER, len(dealer) - 1))
        self._out.append(CardDesignated(player.number, TO_DEALER, len(dealer) - 1, card, position))
        if len(dealer) == 2:
            self._hole_card(player)
            return
        total = hand_total(dealer)[0]
        if total >= 17:  # 633b.5(bb)(2): the dealer stands on 17 to 21
            self._settle_hands(player, total)
            self._finish(player)

    def _hole_card(self, player: _Player) -> None:
        """633b.5(aa)(1)-(2), (bb): the dealer's second card for this player."""
        blackjack = is_blackjack(player.dealer)
        self._settle_insurance(player, blackjack)
        self._settle_side_wagers(Moment.AFTER_HOLE_CARD, player)
        if blackjack:
            self._settle_against_dealer_blackjack(player)
            self._finish(player)
            return
        for hand in player.hands:
            if not hand.settled and hand.blackjack:
                self._settle(  # (aa)(1)(ii)
                    player.number,
                    hand.index,
                    BLACKJACK,
                    hand.wagers[BLACKJACK],
                    BLACKJACK_PAYS.total_return(hand.wagers[BLACKJACK]),
                    WON,
                    LINE_BLACKJACK,
                )
                hand.settled = True
        total = hand_total(player.dealer)[0]
        if all(h.settled for h in player.hands):
            self._finish(player)
        elif total >= 17:
            self._settle_hands(player, total)
            self._finish(player)

    def _finish(self, player: _Player) -> None:
        player.status = Status.FINISHED
        total = hand_total(player.dealer)[0]
        self._out.append(
            DealerHandCompleted(
                player.number, tuple(player.dealer), total, is_blackjack(player.dealer)
            )
        )

    # ---------------------------------------------------------------- settlement

    def _settle(
        self, seat: int, hand: int, wager: str, stake: int, paid: int, outcome: str, line: str
    ) -> None:
        self._out.append(WagerSettled(seat, hand, wager, stake, paid, outcome, line))

    def _settle_insurance(self, player: _Player, dealer_blackjack: bool) -> None:
        """633b.5(aa)(1)-(2), (bb)(1)-(2), (ee)(1): insurance wins 2 to 1 on a dealer
        Blackjack, else it is collected."""
        stake = player.insurance
        if not stake:
            return
        if dealer_blackjack:
            paid = INSURANCE_PAYS.total_return(stake)
            self._settle(player.number, 0, INSURANCE, stake, paid, WON, LINE_INSURANCE)
        else:
            self._settle(player.number, 0, INSURANCE, stake, 0, LOST, LINE_NO_WIN)

    def _settle_against_dealer_blackjack(self, player: _Player) -> None:
        """633b.5(aa)(1)(i): a player Blackjack pushes; (aa)(2)(i), (bb)(1): other hands
        lose the original wager, while the split hand's wager and any double down wager of
        a hand that did not exceed 21 come back."""
        for hand in player.hands:
            if hand.settled:
                continue
            if hand.blackjack:
                stake = hand.wagers[BLACKJACK]
                self._settle(player.number, 0, BLACKJACK, stake, stake, PUSHED, LINE_BLACKJACK_PUSH)
            else:
                for wager, stake in hand.wagers.items():
                    if wager == BLACKJACK and hand.index == 0:
                        self._settle(player.number, 0, wager, stake, 0, LOST, LINE_DEALER_BLACKJACK)
                    else:
                        self._settle(
                            player.number, hand.index, wager, stake, stake, PUSHED, LINE_RETURNED
                        )
            hand.settled = True

    def _settle_hands(self, player: _Player, dealer_total: int) -> None:
        """633b.5(cc), (t), (ee)(2): win 1 to 1, push on equal totals, or lose."""
        for hand in player.hands:
            if hand.settled:
                continue
            total = hand.total
            for wager, stake in hand.wagers.items():
                if dealer_total > 21 or total > dealer_total:
                    self._settle(player.number, hand.index, wager, stake, 2 * stake, WON, LINE_WIN)
                elif total == dealer_total:
                    self._settle(player.number, hand.index, wager, stake, stake, PUSHED, LINE_PUSH)
                else:
                    self._settle(player.number, hand.index, wager, stake, 0, LOST, LINE_LOSS)
            hand.settled = True

    def _settle_side_wagers(self, moment: Moment, only: _Player | None) -> None:
        """633b.5(dd): Royal Match 21, Bet the Set and King's Bounty on the shared first two
        cards and the dealer's cards FOR the player (:mod:`.hybrid_side_wagers`)."""
        players = self.players.values() if only is None else (only,)
        for player in players:
            for name, stake in player.wagers.items():
                offer: SideWagerOffer | None = self.rules.offers.get(name)
                if offer is None or offer.wager.settles_at is not moment:
                    continue
                dealer = tuple(player.dealer)
                ctx = SideWagerContext(
                    self.first_cards,
                    dealer,
                    self.rules.decks,
                    len(dealer) == 2 and is_blackjack(dealer),
                    tuple(tuple(h.cards) for h in player.hands),
                    stake,
                    player.wagers[BLACKJACK],
                    offer.option_map,
                )
                line = offer.wager.evaluate(ctx, offer.paytable)
                if line is None:
                    self._settle(player.number, 0, name, stake, 0, LOST, LINE_NO_WIN)
                    continue
                pay = line.pay
                assert not isinstance(pay, MeterShare)  # these wagers have no meter
                self._settle(player.number, 0, name, stake, pay.total_return(stake), WON, line.name)


# ------------------------------------------------------------------------------ replay


def replay(rules: BlackjackRules, events: Sequence[Any]) -> NoHoleCardRound:
    """Rebuild a round from its logged events by driving a fresh engine with the same inputs.

    Wagers, the logged cards and every decision go back into the engine; each step's events
    must equal the logged ones exactly, or :class:`ReplayMismatch` names the first event that
    differs. Returns the replayed round.
    """
    source = LoggedCards((e.card, e.position) for e in events if type(e) is CardDealt)
    game = NoHoleCardRound(rules)

    def step(i: int, ev: Any) -> list[Any] | None:
        kind = type(ev)
        if game.phase is Phase.BETTING and kind is WagerPlaced:
            return game.join(ev.seat, seat_wagers(events, i))
        if game.phase is Phase.BETTING and kind is CardDealt:
            return game.deal(source)
        if kind is Decision:
            return _replay_decision(game, ev)
        return None

    replay_steps(events, step, lambda: game.phase)
    return game


def _replay_decision(game: NoHoleCardRound, ev: Decision) -> list[Any]:
    if ev.action == INSURANCE_DECISION:
        return game.insure(ev.seat, ev.amount, auto=ev.auto)
    if ev.action == NO_INSURANCE:
        return game.decline_insurance(ev.seat, auto=ev.auto)
    action = Action(ev.action)
    amount = ev.amount if action is Action.DOUBLE else None
    return game.act(ev.seat, action, ev.hand, amount=amount, auto=ev.auto)


#: The kinds of record the hybrid engine without a hole card produces (633b.5(w)-(ee)).
NO_HOLE_CARD_KINDS: Final[frozenset[type]] = frozenset(
    {
        WagerPlaced,
        CardDealt,
        Decision,
        CardDesignated,
        DealerHandCompleted,
        WagerSettled,
        RoundCompleted,
    }
)
