"""Blackjack on the three-position hybrid gaming table, with the Buzzer Beater: the pure engine.

58 Pa. Code 633b.5(a)-(v). A live dealer deals real cards read by the shoe to three player
positions; any number of electronic wagering terminals ("players") take part, each choosing
one of the positions (stadium play, 633b.5(l)). Every player on a position starts from that
position's two cards but decides for himself (633b.5(p)(2)), and all cards drawn after the
deal are community cards (633b.5(q)). Entry points: :class:`ThreePositionRound`,
:func:`replay`, :class:`ThreePositionRules`.

The round, step by step:

- betting, :meth:`ThreePositionRound.join`: a player (a terminal id) chooses position 1, 2 or
  3 and places a Blackjack wager, and optionally a Buzzer Beater wager (633b.5(k)-(m)). A
  terminal plays one position per round.
- :meth:`~ThreePositionRound.deal` (633b.5(n)): one card face up to each position that any
  player chose, in position order (position 1 is the one farthest to the dealer's left), the
  dealer's up card, a second card to each of those positions, the dealer's hole card.
- ace up: insurance (up to half the Blackjack wager) or even money, answered per player
  (633a.8, 633b.5(o)); then on an ace or ten-value up card the reader checks the hole card
  (:class:`~game_server.games.blackjack.rules.events.DealerPeeked`). A dealer Blackjack ends the
  round: no more cards, every Blackjack and Buzzer Beater wager is settled on the two-card
  hands.
- 633b.5(p)(1): a position's Blackjack is paid 3 to 2 at once and the Buzzer Beater wagers of
  every player on it lose. (The text names an up card of 2-9; after the (o) check has shown no
  dealer Blackjack under an ace or ten the result is just as certain, so those Blackjacks are
  paid at the same moment. This changes no amount, only the moment.)
- 633b.5(p)(2): every player decides, in any order, with no turn passing between players:
  hit, stand, double down (633a.10), split (633a.11). The countdown's default is stand
  (:meth:`~ThreePositionRound.countdown`, :meth:`~ThreePositionRound.finish`).
- 633b.5(s): once every player is done the hole card is turned up and the dealer draws from
  the shoe (after every community card) until a hard or soft 17-21: he stands on all 17s
  (633b.5(c)(2)).
- 633b.5(t), (u), (v): every player hand and Buzzer Beater wager is settled.

The community-card model (633b.5(q), (r)(2)), exactly:

1. Community cards are numbered 1, 2, 3, ... in the order the dealer draws them from the
   shoe; card *k* is dealt only when some player needs his *k*-th card, so they are dealt
   one at a time, as needed, and never taken back.
2. Every player has his own sequence: the first card he draws in the round (a hit, the card
   of a double down, or the second card of a split hand) is community card 1, his second
   draw community card 2, and so on. A different player, on the same position or another,
   who draws also starts at community card 1. So community card *k* is the same card for
   everyone who uses it, and what one player does never changes another player's cards.
3. Splits: a player's split hands continue the player's one sequence, in the order the hands
   are played (633a.11(b): the first hand is completed before the second gets its second
   card). After 8-8 the first hand takes the player's next community card and any hits after
   it, and the second hand the cards after those. The reason: the cards are one physical
   sequence and a player's hands are one player's draws; restarting each split hand at card 1
   would give both hands the same second card (8-8 would always become two identical hands),
   which is not the two independently drawn hands of 633a.11, and the player's second hand
   could use a card his own first hand already holds.
4. A double down takes exactly one card, the player's next community card (633b.5(r)(2):
   "will utilize only the first community card"). On an unsplit hand, where a double is the
   player's first draw, that is community card 1 exactly as written; after a split (where the
   Rules Submission allows it) community card 1 has gone to the first split hand, and the
   double takes the next card in the player's sequence. "Only" is read as "only one card".
5. The number of community cards dealt in a round is the largest number any one player used.
   The dealer's own draws come from the shoe after them (633b.5(s)). As a consequence the
   order in which players act never changes any card anyone receives.

Readings of text that is not explicit (also listed in the report of this engine):

- "The player's hand" of the Buzzer Beater ((m), (u)) is read as the Rules Submission states
  it (:attr:`ThreePositionRules.buzzer_beater_basis`,
  :class:`~game_server.rules.wagers.buzzer_beater.Basis`): by default the position's first
  two cards, which every player on the position shares ((p)(1) clears the Buzzer Beater
  wagers "placed on that player position"; (v)(3)'s player column is the two-card totals of
  19 or more), compared with the dealer's final hand: what a player draws never changes it,
  and the dealer completes his hand while one is unsettled. The ``final-hand`` reading
  settles it on the player's own final hand (the first after a split); it returns about 120%
  and the Rules Submission refuses it, but the engine keeps it so that the reading can be
  measured (``etg par``) and tested.
- With ``final-hand``, (u)(1) says a Buzzer Beater wins on a player "19, 20, 21 or a
  Blackjack" with the dealer equal or greater, but (v)(3)'s table has no line for a player 21
  that is not Blackjack. The only reachable case is a player 21 against a dealer 21 of three
  or more cards (a dealer Blackjack ends the round before anyone draws). It wins by (u)(1),
  and neither losing case of (u)(2) applies; the engine pays
  :attr:`ThreePositionRules.buzzer_beater_21_pays`, by default 5 to 1, the odds of every line
  of the table where the two hands are equal (Blackjack/Blackjack, 20/20, 19/19). Set it to
  None to return the stake instead (a push). Two cards of 21 are a Blackjack, so the
  ``first-two-cards`` reading never meets this case.
- A Buzzer Beater case that (u)(1) does not win and (u)(2) does not name (a push below 19, or
  both hands over 21) loses: the wager is that the hand "will have a point count of 19 or
  greater and will lose against the dealer's hand" (633b.5(m)).
- With ``final-hand``, after a split the Buzzer Beater is settled on the player's first hand
  (hand 0, the one that keeps the position's first card): the wager is on "the player's
  hand", singular, and has one stake.
- A hand that goes over 21 loses at once (633a.7); (t)(3)(i) names the dealer's 21 or less,
  but a busted hand cannot win or push whatever the dealer later draws.
- The dealer turns the hole card up at the end of every round that has no dealer Blackjack,
  but draws only while some wager is still unsettled ((s): "any additional cards required").
- Surrender is not in 633b.5(a)-(v) and is not offered.
- (r) lets a player hit "whenever the point count for his chosen player position is less
  than 21": read as the point count of the player's own hand on that position (players on
  one position hold different hands once any of them draws).
- (l) "each player shall select a player position": one position per terminal per round, so
  that a decision names the terminal alone; a terminal that wants two positions would need a
  second player id.
- (n) "starting with the player position farthest to the dealer's left": position 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    DOUBLE,
    INSURANCE,
    LOST,
    PUSHED,
    WON,
    CardDealt,
    DealerPeeked,
    HoleCardRevealed,
    RoundCompleted,
)
from game_server.games.blackjack.rules.round import Phase
from game_server.games.blackjack.rules.rules import (
    BLACKJACK_PAYS,
    EVEN,
    INSURANCE_PAYS,
    DoubleOn,
    double_down_refusal,
)
from game_server.games.hybrid.rules.events import (
    BUZZER_BEATER,
    Hybrid3CardUsed,
    Hybrid3CommunityCard,
    Hybrid3Decision,
    Hybrid3WagerPlaced,
    Hybrid3WagerSettled,
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
from game_server.rules.limits import WagerLimits
from game_server.rules.replaying import LoggedCards, replay_steps
from game_server.rules.twenty_one import hand_total, is_blackjack
from game_server.rules.wagers.buzzer_beater import (
    BUZZER_BEATER_21_PAYS,
    BUZZER_BEATER_PAYS,
    LINE_BB_UNDER_19,
    Basis,
    buzzer_beater_result,
)
from shared.cards import BJ_VALUE, Card
from shared.money import ToOne, format_money

__all__ = [
    "BUZZER_BEATER",
    "BUZZER_BEATER_PAYS",
    "POSITIONS",
    "HandView",
    "Phase",
    "PlayerView",
    "ThreePositionRound",
    "ThreePositionRules",
    "buzzer_beater_result",
    "main_result",
    "replay",
]

#: 633b.5(l): the player positions of the table.
POSITIONS = (1, 2, 3)
#: 633b.5(f): six or eight decks.
HYBRID_DECK_COUNTS = (6, 8)

INSURANCE_DECISION = "insurance"
NO_INSURANCE = "no-insurance"
EVEN_MONEY = "even-money"

# BUZZER_BEATER_PAYS (633b.5(v)(3)) and BUZZER_BEATER_21_PAYS are the wager declaration's
# data (rules/wagers/buzzer_beater.py): the Rules Submission, the rules screen and this
# engine read one table.

LINE_BLACKJACK = "Blackjack 3 to 2 (633b.5(v)(1))"
LINE_BLACKJACK_NOW = "Blackjack 3 to 2, paid at once (633b.5(p)(1), (v)(1))"
LINE_BLACKJACK_OVER_21 = "Blackjack beats a dealer 21 of more than two cards (633b.5(t)(1)(iii))"
LINE_DEALER_BUST = "Win 1 to 1: dealer over 21 (633b.5(t)(1)(i))"
LINE_WIN = "Win 1 to 1: higher total (633b.5(t)(1)(ii))"
LINE_PUSH = "Push: equal totals (633b.5(t)(2))"
LINE_BUST = "Bust: over 21 (633b.5(t)(3)(i))"
LINE_LOSS = "Loss: dealer's total is higher (633b.5(t)(3)(ii))"
LINE_DEALER_BLACKJACK_OVER_21 = (
    "Loss: dealer Blackjack beats 21 of more than two cards (633b.5(t)(3)(iii))"
)
LINE_DEALER_BLACKJACK = "Loss: dealer Blackjack (633b.5(o))"
LINE_EVEN_MONEY = "Even money 1 to 1 (633a.8)"
LINE_INSURANCE = "Insurance 2 to 1 (633b.5(v)(2))"
LINE_NO_WIN = "Insurance loses: no dealer Blackjack (633a.8)"
LINE_BB_CLEARED = "Buzzer Beater loses: the position has Blackjack (633b.5(p)(1))"


class CardSource(Protocol):
    """Where the engine takes cards from: the shoe, a stacked shoe, or logged cards."""

    @property
    def position(self) -> int:
        """0-based place in the shoe's order of the next card :meth:`draw` returns."""
        ...

    def draw(self) -> Card:
        """Take the next card."""
        ...


@dataclass(frozen=True, slots=True)
class ThreePositionRules:
    """Every rule the three-position engine needs; fields mirror
    :class:`~game_server.games.blackjack.rules.rules.BlackjackRules` where they apply.

    The dealer stands on all 17s (633b.5(c)(2), (s)), the dealer always checks the hole card
    under an ace or ten (633b.5(o)), Blackjack pays 3 to 2 and insurance 2 to 1 (633b.5(v)),
    and the countdown stands (633b.5(p)(2)): none of these is configurable here.

    Attributes:
        decks: 6 or 8 (633b.5(f)).
        double_on: which first two cards may be doubled (633a.10).
        double_after_split: whether a split hand may be doubled (633a.10, Rules Submission).
        max_split_hands: the most hands a player may make by splitting (633a.11).
        resplit_aces: whether split aces may be split again.
        hit_split_aces: whether split aces may draw more than one card each.
        insurance: whether insurance is offered on an ace up card (633a.8, 633b.5(o)).
        even_money: whether a player Blackjack may take even money on an ace up card.
        main_limits: the Blackjack wager's limits.
        buzzer_beater: the Buzzer Beater wager's limits, or None when it is not offered
            (633b.5(m): offered only if the Rules Submission says so).
        buzzer_beater_21_pays: what a Buzzer Beater on a player 21 that is not Blackjack pays
            when the dealer's hand is 21 (not in (v)(3)'s table; see the module docstring);
            None returns the stake.
        buzzer_beater_basis: the hand a Buzzer Beater is settled on: the position's first
            two cards (the default) or the player's final hand (module docstring).
    """

    decks: int = 6
    double_on: DoubleOn = DoubleOn.ANY
    double_after_split: bool = False
    max_split_hands: int = 4
    resplit_aces: bool = False
    hit_split_aces: bool = False
    insurance: bool = True
    even_money: bool = True
    main_limits: WagerLimits = field(default_factory=lambda: WagerLimits(100, 100_000, 100))
    buzzer_beater: WagerLimits | None = None
    buzzer_beater_21_pays: ToOne | None = BUZZER_BEATER_21_PAYS
    buzzer_beater_basis: Basis = Basis.FIRST_TWO_CARDS

    def __post_init__(self) -> None:
        object.__setattr__(self, "buzzer_beater_basis", Basis(self.buzzer_beater_basis))
        if self.decks not in HYBRID_DECK_COUNTS:
            raise ValueError(
                f"Blackjack on a hybrid table is played with six or eight decks, not "
                f"{self.decks} (58 Pa. Code 633b.5(f))"
            )
        if not 1 <= self.max_split_hands <= 4:
            raise ValueError(
                f"max_split_hands must be 1 (no splits) to 4, not {self.max_split_hands} (633a.11)"
            )


# ------------------------------------------------------------------ settlement (pure)


def main_result(
    cards: Sequence[Card], from_split: bool, dealer: Sequence[Card]
) -> tuple[str, str, ToOne | None]:
    """Settle a Blackjack wager by 633b.5(t): the outcome, the line, and the odds of a win.

    ``cards`` are the player's hand, ``from_split`` whether it came from a split (its 21 is
    then never Blackjack, 633a.11), ``dealer`` the dealer's whole hand.
    """
    total = hand_total(cards)[0]
    dealer_total = hand_total(dealer)[0]
    blackjack = not from_split and is_blackjack(cards)
    dealer_blackjack = is_blackjack(dealer)
    if total > 21:
        return LOST, LINE_BUST, None
    if blackjack:
        if dealer_blackjack:
            return PUSHED, LINE_PUSH, None
        if dealer_total == 21:
            return WON, LINE_BLACKJACK_OVER_21, BLACKJACK_PAYS
        return WON, LINE_BLACKJACK, BLACKJACK_PAYS
    if dealer_blackjack:
        if total == 21 and len(cards) > 2:
            return LOST, LINE_DEALER_BLACKJACK_OVER_21, None
        return LOST, LINE_DEALER_BLACKJACK, None
    if dealer_total > 21:
        return WON, LINE_DEALER_BUST, EVEN
    if total > dealer_total:
        return WON, LINE_WIN, EVEN
    if total == dealer_total:
        return PUSHED, LINE_PUSH, None
    return LOST, LINE_LOSS, None


# ------------------------------------------------------------------ engine state


class _Hand:
    """One hand of one player (mutable engine state; the outside sees events and views)."""

    __slots__ = ("cards", "done", "from_split", "index", "settled", "split_aces", "used", "wagers")

    def __init__(self, index: int, amount: int) -> None:
        self.index = index
        self.cards: list[Card] = []
        #: Per card: 0 for the position's initial cards, else its community card number.
        self.used: list[int] = []
        self.wagers: dict[str, int] = {BLACKJACK: amount}
        self.from_split = False
        self.split_aces = False
        self.done = False
        self.settled = False

    def add(self, card: Card, community: int) -> None:
        self.cards.append(card)
        self.used.append(community)

    @property
    def total(self) -> int:
        return hand_total(self.cards)[0]

    @property
    def soft(self) -> bool:
        return hand_total(self.cards)[1]

    @property
    def blackjack(self) -> bool:
        return not self.from_split and is_blackjack(self.cards)


class _Player:
    """One terminal's position, wagers, hands and place in the community cards."""

    __slots__ = (
        "bb_settled",
        "cursor",
        "drawn",
        "hands",
        "insurance",
        "insurance_decided",
        "player_id",
        "position",
        "wagers",
    )

    def __init__(self, player_id: str, position: int) -> None:
        self.player_id = player_id
        self.position = position
        self.wagers: dict[str, int] = {}
        self.hands: list[_Hand] = []
        self.insurance = 0
        self.insurance_decided = False
        #: How many community cards this player has used: his next draw is card drawn + 1.
        self.drawn = 0
        #: Index in ``hands`` of the hand to act; len(hands) when the player is done.
        self.cursor = 0
        self.bb_settled = False

    @property
    def done(self) -> bool:
        return self.cursor >= len(self.hands)


@dataclass(frozen=True, slots=True)
class HandView:
    """One of a player's hands as his terminal shows it.

    ``community`` gives, per card, 0 for the position's initial cards or the number of the
    community card it is.
    """

    index: int
    cards: tuple[Card, ...]
    community: tuple[int, ...]
    total: int
    soft: bool
    wagers: tuple[tuple[str, int], ...]
    done: bool
    settled: bool


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What one player's terminal shows: every chosen position's cards, the community cards
    dealt so far and which of them are in his hands, and the dealer's cards with the hole
    card (None) hidden until it is turned up."""

    player: str
    position: int
    phase: Phase
    positions: tuple[tuple[int, tuple[Card, ...]], ...]
    community: tuple[Card, ...]
    used: tuple[int, ...]
    hands: tuple[HandView, ...]
    to_act: int | None
    legal: frozenset[Action]
    insurance_pending: bool
    dealer_cards: tuple[Card | None, ...]
    dealer_total: int | None


class ThreePositionRound:
    """The state of one round at the three-position hybrid table (633b.5(a)-(v)).

    Every public action returns the frozen event records it produced. Players are identified
    by their terminal id; each plays one position and has his own hands.
    """

    def __init__(self, rules: ThreePositionRules) -> None:
        self.rules = rules
        self.phase = Phase.BETTING
        #: Players in the order they joined; from the deal on, by position then join order.
        self.players: dict[str, _Player] = {}
        #: The initial two cards of each position in the round, in position order.
        self.positions: dict[int, tuple[Card, ...]] = {}
        self.community: list[Card] = []
        self.dealer: list[Card] = []
        self.dealer_blackjack: bool | None = None
        self.hole_revealed = False
        self._source: CardSource | None = None
        self._out: list[Any] = []
        self._hole_position = -1

    # ------------------------------------------------------------------ views

    @property
    def complete(self) -> bool:
        """Whether every wager of the round is settled."""
        return self.phase is Phase.COMPLETE

    @property
    def up_card(self) -> Card | None:
        return self.dealer[0] if self.dealer else None

    @property
    def pending_insurance(self) -> tuple[str, ...]:
        """Players who have not yet answered the insurance offer."""
        if self.phase is not Phase.INSURANCE:
            return ()
        return tuple(p for p, s in self.players.items() if not s.insurance_decided)

    @property
    def pending_players(self) -> tuple[str, ...]:
        """Players the round still waits for (an insurance answer or a decision)."""
        if self.phase is Phase.INSURANCE:
            return self.pending_insurance
        if self.phase is not Phase.PLAYING:
            return ()
        return tuple(p for p, s in self.players.items() if not s.done)

    def to_act(self, player_id: str) -> int | None:
        """The number of the player's hand that waits for his decision, or None."""
        state = self.players.get(player_id)
        if self.phase is not Phase.PLAYING or state is None or state.done:
            return None
        return state.hands[state.cursor].index

    def dealer_total(self) -> int:
        """The dealer's best total over every card dealt to the dealer so far."""
        return hand_total(self.dealer)[0]

    def legal_actions(self, player_id: str) -> frozenset[Action]:
        """The decisions open to the player's hand to act (empty when none is to act)."""
        hand = self.to_act(player_id)
        if hand is None:
            return frozenset()
        checks = (
            (Action.HIT, self.can_hit),
            (Action.STAND, self.can_stand),
            (Action.DOUBLE, self.can_double),
            (Action.SPLIT, self.can_split),
        )
        return frozenset(action for action, can in checks if can(player_id, hand))

    def view(self, player_id: str) -> PlayerView:
        """What ``player_id``'s terminal shows now (never the unrevealed hole card)."""
        state = self._player(player_id)
        hands = tuple(
            HandView(
                h.index,
                tuple(h.cards),
                tuple(h.used),
                h.total,
                h.soft,
                tuple(h.wagers.items()),
                h.done or h.settled,
                h.settled,
            )
            for h in state.hands
        )
        used = tuple(sorted({k for h in state.hands for k in h.used if k}))
        if self.hole_revealed:
            dealer: tuple[Card | None, ...] = tuple(self.dealer)
            dealer_total: int | None = self.dealer_total()
        else:
            dealer = tuple(c if i != 1 else None for i, c in enumerate(self.dealer))
            dealer_total = hand_total(self.dealer[:1])[0] if self.dealer else None
        return PlayerView(
            player_id,
            state.position,
            self.phase,
            tuple(self.positions.items()),
            tuple(self.community),
            used,
            hands,
            self.to_act(player_id),
            self.legal_actions(player_id),
            player_id in self.pending_insurance,
            dealer,
            dealer_total,
        )

    def _player(self, player_id: str) -> _Player:
        state = self.players.get(player_id)
        if state is None:
            raise SeatError(f"player {player_id!r} has not joined this round")
        return state

    # ---------------------------------------------------------------- betting

    def _refuse_join(
        self, player_id: str, position: int, wagers: Mapping[str, int]
    ) -> RulesError | None:
        if self.phase is not Phase.BETTING:
            return WrongPhase(
                "no more bets: wagers are placed before the first card is dealt "
                "(58 Pa. Code 633b.5(k))"
            )
        if type(player_id) is not str or not player_id:
            return SeatError(f"{player_id!r} is not a terminal id")
        if type(position) is not int or position not in POSITIONS:
            return SeatError(
                f"position {position!r} is not a player position: choose 1, 2 or 3 "
                "(58 Pa. Code 633b.5(l))"
            )
        state = self.players.get(player_id)
        if state is not None and state.position != position:
            return SeatError(
                f"player {player_id!r} already plays position {state.position} this round; a "
                "terminal plays one position per round (633b.5(l))"
            )
        if not wagers:
            return WagerError("no wager was given")
        placed = state.wagers if state is not None else {}
        main = wagers.get(BLACKJACK, placed.get(BLACKJACK))
        for name, amount in wagers.items():
            if name in placed:
                return WagerError(
                    f"the {name} wager of player {player_id!r} is already placed; a placed "
                    "wager cannot be changed until it is settled"
                )
            if name == BLACKJACK:
                limits = self.rules.main_limits
                title = "Blackjack"
            elif name == BUZZER_BEATER:
                if self.rules.buzzer_beater is None:
                    return WagerNotOffered(
                        "this table does not offer the Buzzer Beater wager (58 Pa. Code "
                        "633b.5(m), Rules Submission)"
                    )
                if main is None:
                    return WagerNotOffered(
                        "a Buzzer Beater wager is offered only to a player who placed a "
                        "Blackjack wager (58 Pa. Code 633b.5(m))"
                    )
                limits = self.rules.buzzer_beater
                title = "Buzzer Beater"
            else:
                return WagerNotOffered(f"this table does not offer a {name!r} wager")
            try:
                limits.verify(title, amount)
            except BetOutOfLimits as exc:
                return exc
        return None

    def verify_join(self, player_id: str, position: int, wagers: Mapping[str, int]) -> None:
        """Raise unless ``player_id`` may choose ``position`` and place ``wagers`` now."""
        refusal = self._refuse_join(player_id, position, wagers)
        if refusal is not None:
            raise refusal

    def can_join(self, player_id: str, position: int, wagers: Mapping[str, int]) -> bool:
        return self._refuse_join(player_id, position, wagers) is None

    def join(self, player_id: str, position: int, wagers: Mapping[str, int]) -> list[Any]:
        """Choose a position and place wagers ({name: cents}) before the deal (633b.5(k)-(m)).

        A player may call it again for the same position to add a wager he has not placed.
        """
        self.verify_join(player_id, position, wagers)
        state = self.players.get(player_id)
        if state is None:
            state = self.players[player_id] = _Player(player_id, position)
        state.wagers.update(wagers)
        return [
            Hybrid3WagerPlaced(player_id, position, 0, name, amount)
            for name, amount in wagers.items()
        ]

    # ------------------------------------------------------------------- deal

    def _refuse_deal(self) -> RulesError | None:
        if self.phase is not Phase.BETTING:
            return WrongPhase("the cards of this round are already dealt")
        if not self.players:
            return WagerError("no player has chosen a position: there is nothing to deal")
        return None

    def verify_deal(self) -> None:
        refusal = self._refuse_deal()
        if refusal is not None:
            raise refusal

    def can_deal(self) -> bool:
        return self._refuse_deal() is None

    def deal(self, source: CardSource) -> list[Any]:
        """Deal the initial cards (633b.5(n)) and run every step that needs no decision:
        the insurance offer, the hole-card check (o), the payment of Blackjacks (p)(1)."""
        self.verify_deal()
        self._source = source
        out = self._out = []
        # A stable sort: by position, then in the order the players joined.
        self.players = dict(sorted(self.players.items(), key=lambda item: item[1].position))
        chosen = sorted({p.position for p in self.players.values()})
        first = {n: self._draw_to(n) for n in chosen}
        self._draw_dealer(face_up=True)
        second = {n: self._draw_to(n) for n in chosen}
        self._draw_dealer(face_up=False)
        self.positions = {n: (first[n], second[n]) for n in chosen}
        for state in self.players.values():
            hand = _Hand(0, state.wagers[BLACKJACK])
            for card in self.positions[state.position]:
                hand.add(card, 0)
            state.hands.append(hand)
        if self.rules.insurance and BJ_VALUE[self.dealer[0]] == 1:
            self.phase = Phase.INSURANCE
        else:
            self._after_insurance()
        return out

    def _draw(self) -> tuple[Card, int]:
        source = self._source
        assert source is not None
        position = source.position
        return source.draw(), position

    def _draw_to(self, position: int) -> Card:
        card, at = self._draw()
        self._out.append(CardDealt(position, 0, card, at, True))
        return card

    def _draw_dealer(self, face_up: bool) -> None:
        card, at = self._draw()
        if not face_up:
            self._hole_position = at
        self.dealer.append(card)
        self._out.append(CardDealt(DEALER, 0, card, at, face_up))

    # -------------------------------------------------------------- insurance

    def _refuse_insurance_answer(self, player_id: str) -> RulesError | None:
        if self.phase is not Phase.INSURANCE:
            return WrongPhase(
                "insurance and even money are offered only while the dealer's first card is "
                "an ace, before play (633a.8, 633b.5(o))"
            )
        state = self.players.get(player_id)
        if state is None:
            return SeatError(f"player {player_id!r} has not joined this round")
        if state.insurance_decided:
            return WrongPhase(f"player {player_id!r} has already answered the insurance offer")
        return None

    def _refuse_insurance(self, player_id: str, amount: int | None) -> RulesError | None:
        refusal = self._refuse_insurance_answer(player_id)
        if refusal is not None:
            return refusal
        half = self.players[player_id].wagers[BLACKJACK] // 2
        if half < 1:
            return BetOutOfLimits("a Blackjack wager this small cannot be insured (633a.8)")
        if amount is not None and (type(amount) is not int or not 0 < amount <= half):
            return BetOutOfLimits(
                f"insurance must be more than $0 and at most half the Blackjack wager "
                f"({format_money(half)}) (633a.8)"
            )
        return None

    def verify_insurance(self, player_id: str, amount: int) -> None:
        """633a.8: an insurance wager of at most half the Blackjack wager, on an ace up card."""
        refusal = self._refuse_insurance(player_id, amount)
        if refusal is not None:
            raise refusal

    def can_insure(self, player_id: str) -> bool:
        return self._refuse_insurance(player_id, None) is None

    def insure(self, player_id: str, amount: int, *, auto: bool = False) -> list[Any]:
        """Place an insurance wager: it pays 2 to 1 if the dealer has Blackjack (633b.5(v)(2))."""
        self.verify_insurance(player_id, amount)
        state = self.players[player_id]
        out = self._out = [
            Hybrid3Decision(player_id, state.position, 0, INSURANCE_DECISION, amount, auto),
            Hybrid3WagerPlaced(player_id, state.position, 0, INSURANCE, amount),
        ]
        state.insurance = amount
        self._insurance_answered(state)
        return out

    def verify_decline_insurance(self, player_id: str) -> None:
        refusal = self._refuse_insurance_answer(player_id)
        if refusal is not None:
            raise refusal

    def can_decline_insurance(self, player_id: str) -> bool:
        return self._refuse_insurance_answer(player_id) is None

    def decline_insurance(self, player_id: str, *, auto: bool = False) -> list[Any]:
        """Decline insurance or even money (also the countdown's answer)."""
        self.verify_decline_insurance(player_id)
        state = self.players[player_id]
        out = self._out = [Hybrid3Decision(player_id, state.position, 0, NO_INSURANCE, 0, auto)]
        self._insurance_answered(state)
        return out

    def _refuse_even_money(self, player_id: str) -> RulesError | None:
        refusal = self._refuse_insurance_answer(player_id)
        if refusal is not None:
            return refusal
        if not self.rules.even_money:
            return ActionNotAllowed("this table does not offer even money (Rules Submission)")
        if not self.players[player_id].hands[0].blackjack:
            return ActionNotAllowed(
                f"even money is offered only to a Blackjack, and position "
                f"{self.players[player_id].position} has none (633a.8, 633b.5(o))"
            )
        return None

    def verify_even_money(self, player_id: str) -> None:
        refusal = self._refuse_even_money(player_id)
        if refusal is not None:
            raise refusal

    def can_take_even_money(self, player_id: str) -> bool:
        return self._refuse_even_money(player_id) is None

    def take_even_money(self, player_id: str, *, auto: bool = False) -> list[Any]:
        """Settle a Blackjack at 1 to 1 against a dealer ace, before the check (633a.8).

        A Buzzer Beater wager of the player stays on until the dealer's hand is known."""
        self.verify_even_money(player_id)
        state = self.players[player_id]
        out = self._out = [Hybrid3Decision(player_id, state.position, 0, EVEN_MONEY, 0, auto)]
        hand = state.hands[0]
        stake = hand.wagers[BLACKJACK]
        self._settle(state, hand, BLACKJACK, stake, EVEN.total_return(stake), WON, LINE_EVEN_MONEY)
        hand.settled = hand.done = True
        state.cursor = len(state.hands)
        self._insurance_answered(state)
        return out

    def _insurance_answered(self, state: _Player) -> None:
        state.insurance_decided = True
        if all(s.insurance_decided for s in self.players.values()):
            self._after_insurance()

    def _after_insurance(self) -> None:
        """633b.5(o): check the hole card under an ace or ten; settle on a dealer Blackjack;
        otherwise settle insurance, pay Blackjacks (p)(1) and open play (p)(2)."""
        if BJ_VALUE[self.dealer[0]] in (1, 10):
            blackjack = is_blackjack(self.dealer)
            self._out.append(DealerPeeked(blackjack))
            self.dealer_blackjack = blackjack
            if blackjack:
                self._reveal_hole()
                self._settle_insurance()
                for state in self.players.values():
                    for hand in state.hands:
                        if not hand.settled:
                            self._settle_hand(state, hand)
                    self._settle_buzzer_beater(state)
                    state.cursor = len(state.hands)
                self._finish_round()
                return
            self._settle_insurance()
        self.dealer_blackjack = False
        self.phase = Phase.PLAYING
        for state in self.players.values():
            hand = state.hands[0]
            if hand.blackjack:
                if not hand.settled:
                    stake = hand.wagers[BLACKJACK]
                    paid = BLACKJACK_PAYS.total_return(stake)
                    self._settle(state, hand, BLACKJACK, stake, paid, WON, LINE_BLACKJACK_NOW)
                    hand.settled = True
                hand.done = True
                if BUZZER_BEATER in state.wagers and not state.bb_settled:
                    self._settle_bb(state, 0, LOST, LINE_BB_CLEARED)
            self._advance(state)

    def _settle_insurance(self) -> None:
        for state in self.players.values():
            if state.insurance:
                stake = state.insurance
                hand = state.hands[0]
                if self.dealer_blackjack:
                    paid = INSURANCE_PAYS.total_return(stake)
                    self._settle(state, hand, INSURANCE, stake, paid, WON, LINE_INSURANCE)
                else:
                    self._settle(state, hand, INSURANCE, stake, 0, LOST, LINE_NO_WIN)

    # ------------------------------------------------------------------- play

    # Each decision has a ``_refuse_*`` that returns the error it would raise, or None: the
    # verify_* methods raise it, the can_* methods answer the terminal's buttons.

    def _refuse_turn(self, player_id: str, hand: int | None) -> RulesError | None:
        if self.phase is not Phase.PLAYING:
            return WrongPhase(f"no hand is to act: the round is in the {self.phase} phase")
        state = self.players.get(player_id)
        if state is None:
            return SeatError(f"player {player_id!r} has not joined this round")
        if state.done:
            return NotYourTurn(f"player {player_id!r} has no hand left to play")
        current = state.hands[state.cursor]
        if hand is not None and hand != current.index:
            return NotYourTurn(
                f"player {player_id!r} plays hand {current.index + 1} now, not hand {hand + 1} "
                "(633a.11(b): each split hand is completed before the next)"
            )
        return None

    def _current(self, player_id: str) -> tuple[_Player, _Hand]:
        state = self.players[player_id]
        return state, state.hands[state.cursor]

    def _refuse_hit(self, player_id: str, hand: int | None) -> RulesError | None:
        refusal = self._refuse_turn(player_id, hand)
        if refusal is not None:
            return refusal
        _, current = self._current(player_id)
        if current.total >= 21:
            return ActionNotAllowed(
                f"a hand of {current.total} may not draw another card (633b.5(r)(1))"
            )
        if current.split_aces and not self.rules.hit_split_aces:
            return ActionNotAllowed("split aces receive one card each (633a.11)")
        return None

    def verify_hit(self, player_id: str, hand: int | None = None) -> None:
        refusal = self._refuse_hit(player_id, hand)
        if refusal is not None:
            raise refusal

    def can_hit(self, player_id: str, hand: int | None = None) -> bool:
        return self._refuse_hit(player_id, hand) is None

    def hit(self, player_id: str, hand: int | None = None, *, auto: bool = False) -> list[Any]:
        """Take the player's next community card (633b.5(q), (r)); a bust loses at once."""
        self.verify_hit(player_id, hand)
        state, current = self._current(player_id)
        out = self._out = [
            Hybrid3Decision(player_id, state.position, current.index, "hit", 0, auto)
        ]
        self._take(state, current)
        if current.total > 21:
            self._settle_bust(state, current)
        elif current.total == 21:
            current.done = True  # 633b.5(r)(1)
        self._advance(state)
        return out

    def verify_stand(self, player_id: str, hand: int | None = None) -> None:
        refusal = self._refuse_turn(player_id, hand)
        if refusal is not None:
            raise refusal

    def can_stand(self, player_id: str, hand: int | None = None) -> bool:
        return self._refuse_turn(player_id, hand) is None

    def stand(self, player_id: str, hand: int | None = None, *, auto: bool = False) -> list[Any]:
        """Take no more cards on the hand (the countdown's default, 633b.5(p)(2))."""
        self.verify_stand(player_id, hand)
        state, current = self._current(player_id)
        out = self._out = [
            Hybrid3Decision(player_id, state.position, current.index, "stand", 0, auto)
        ]
        current.done = True
        self._advance(state)
        return out

    def _refuse_double(
        self, player_id: str, hand: int | None, amount: int | None
    ) -> RulesError | None:
        """633a.10: an additional wager of at most the original, on the first two cards."""
        refusal = self._refuse_turn(player_id, hand)
        if refusal is not None:
            return refusal
        _, current = self._current(player_id)
        return double_down_refusal(
            self.rules,
            current.cards,
            from_split=current.from_split,
            split_aces=current.split_aces,
            original=current.wagers[BLACKJACK],
            amount=amount,
        )

    def verify_double(
        self, player_id: str, hand: int | None = None, amount: int | None = None
    ) -> None:
        refusal = self._refuse_double(player_id, hand, amount)
        if refusal is not None:
            raise refusal

    def can_double(self, player_id: str, hand: int | None = None) -> bool:
        return self._refuse_double(player_id, hand, None) is None

    def double(
        self,
        player_id: str,
        hand: int | None = None,
        amount: int | None = None,
        *,
        auto: bool = False,
    ) -> list[Any]:
        """Double down (the full original wager by default) and take exactly one card, the
        player's next community card: community card 1 on an unsplit hand (633b.5(r)(2))."""
        self.verify_double(player_id, hand, amount)
        state, current = self._current(player_id)
        amount = current.wagers[BLACKJACK] if amount is None else amount
        out = self._out = [
            Hybrid3Decision(player_id, state.position, current.index, "double", amount, auto),
            Hybrid3WagerPlaced(player_id, state.position, current.index, DOUBLE, amount),
        ]
        current.wagers[DOUBLE] = amount
        self._take(state, current)
        if current.total > 21:
            self._settle_bust(state, current)
        current.done = True
        self._advance(state)
        return out

    def _refuse_split(self, player_id: str, hand: int | None) -> RulesError | None:
        """633a.11: two cards identical in value; resplits up to the Rules Submission's limit."""
        refusal = self._refuse_turn(player_id, hand)
        if refusal is not None:
            return refusal
        state, current = self._current(player_id)
        cards = current.cards
        if len(cards) != 2 or BJ_VALUE[cards[0]] != BJ_VALUE[cards[1]]:
            return ActionNotAllowed("only two cards identical in value may be split (633a.11)")
        if len(state.hands) >= self.rules.max_split_hands:
            return ActionNotAllowed(
                f"this table allows at most {self.rules.max_split_hands} hands from splitting "
                "(633a.11, Rules Submission)"
            )
        if current.split_aces and not self.rules.resplit_aces:
            return ActionNotAllowed(
                "split aces may not be split again at this table (633a.11, Rules Submission)"
            )
        return None

    def verify_split(self, player_id: str, hand: int | None = None) -> None:
        refusal = self._refuse_split(player_id, hand)
        if refusal is not None:
            raise refusal

    def can_split(self, player_id: str, hand: int | None = None) -> bool:
        return self._refuse_split(player_id, hand) is None

    def split(self, player_id: str, hand: int | None = None, *, auto: bool = False) -> list[Any]:
        """Split a pair into two hands, each with a wager equal to the original (633a.11).

        The first hand is completed before the second gets its second card; both take their
        second cards from the player's own sequence of community cards (module docstring).
        """
        self.verify_split(player_id, hand)
        state, current = self._current(player_id)
        amount = current.wagers[BLACKJACK]
        new = _Hand(len(state.hands), amount)
        out = self._out = [
            Hybrid3Decision(player_id, state.position, current.index, "split", 0, auto),
            Hybrid3WagerPlaced(player_id, state.position, new.index, BLACKJACK, amount),
        ]
        second = current.cards.pop()
        new.add(second, current.used.pop())
        aces = BJ_VALUE[second] == 1
        for h in (current, new):
            h.from_split = True
            h.split_aces = aces
        state.hands.insert(state.cursor + 1, new)
        self._advance(state)
        return out

    def countdown_action(self, player_id: str) -> str:
        """What the countdown does for ``player_id`` when he has not acted: decline insurance
        and even money, then stand (633b.5(p)(2))."""
        if self.phase is Phase.INSURANCE and player_id in self.pending_insurance:
            return NO_INSURANCE
        if self.to_act(player_id) is None:
            raise WrongPhase(f"player {player_id!r} has no decision to make now")
        return Action.STAND.value

    def countdown(self, player_id: str) -> list[Any]:
        """Apply :meth:`countdown_action` to the player's pending decision (``auto``)."""
        if self.countdown_action(player_id) == NO_INSURANCE:
            return self.decline_insurance(player_id, auto=True)
        return self.stand(player_id, auto=True)

    def finish(self) -> list[Any]:
        """The countdown ran out for everyone: every pending answer is declined, every hand
        still to act stands (633b.5(p)(2)); then the dealer plays and everything settles."""
        if self.phase is Phase.BETTING or self.phase is Phase.COMPLETE:
            raise WrongPhase(f"there is nothing to finish in the {self.phase} phase")
        out: list[Any] = []
        while not self.complete:
            player_id = self.pending_players[0]
            out += self.countdown(player_id)
        return out

    def act(
        self,
        player_id: str,
        action: Action | str,
        hand: int | None = None,
        *,
        amount: int | None = None,
        auto: bool = False,
    ) -> list[Any]:
        """Dispatch a player decision by name (the server's entry point). ``hand`` (None: the
        hand to act) guards against a stale button; ``amount`` is a double down's."""
        try:
            action = Action(action)
        except ValueError:
            raise ActionNotAllowed(f"{action!r} is not a Blackjack decision") from None
        if action is Action.HIT:
            return self.hit(player_id, hand, auto=auto)
        if action is Action.STAND:
            return self.stand(player_id, hand, auto=auto)
        if action is Action.DOUBLE:
            return self.double(player_id, hand, amount, auto=auto)
        if action is Action.SPLIT:
            return self.split(player_id, hand, auto=auto)
        raise ActionNotAllowed(
            f"{action.value} is not offered at the three-position hybrid table "
            "(58 Pa. Code 633b.5(p)(2))"
        )

    def _take(self, state: _Player, hand: _Hand) -> None:
        """Give the player's hand his next community card, drawing it if nobody has yet."""
        index = state.drawn + 1
        if index > len(self.community):
            card, at = self._draw()
            self.community.append(card)
            self._out.append(Hybrid3CommunityCard(index, card, at))
        card = self.community[index - 1]
        state.drawn = index
        hand.add(card, index)
        self._out.append(Hybrid3CardUsed(state.player_id, state.position, hand.index, index, card))

    def _advance(self, state: _Player) -> None:
        """Move the player to his next hand that needs a decision: give a split hand its
        second card, finish 21s (633b.5(r)(1)) and split aces; play the dealer when every
        player is done."""
        rules = self.rules
        while state.cursor < len(state.hands):
            hand = state.hands[state.cursor]
            if hand.done or hand.settled:
                hand.done = True
                state.cursor += 1
                continue
            if len(hand.cards) == 1:
                self._take(state, hand)
                if (
                    hand.split_aces
                    and not rules.hit_split_aces
                    and not (
                        rules.resplit_aces
                        and BJ_VALUE[hand.cards[-1]] == 1
                        and len(state.hands) < rules.max_split_hands
                    )
                ):
                    hand.done = True
                    continue
            if hand.total >= 21:
                hand.done = True
                continue
            return
        if self.phase is Phase.PLAYING and all(s.done for s in self.players.values()):
            self._dealer_turn()

    # ----------------------------------------------------------------- dealer

    def _reveal_hole(self) -> None:
        if not self.hole_revealed:
            self.hole_revealed = True
            self._out.append(HoleCardRevealed(self.dealer[1], self._hole_position))

    def _dealer_turn(self) -> None:
        """633b.5(s): turn the hole card up and draw until a hard or soft 17-21."""
        self._reveal_hole()
        live = any(
            not h.settled or (BUZZER_BEATER in s.wagers and not s.bb_settled)
            for s in self.players.values()
            for h in s.hands
        )
        while live and self.dealer_total() < 17:
            self._draw_dealer(face_up=True)
        for state in self.players.values():
            for hand in state.hands:
                if not hand.settled:
                    self._settle_hand(state, hand)
            self._settle_buzzer_beater(state)
        self._finish_round()

    def _finish_round(self) -> None:
        self.phase = Phase.COMPLETE
        self._out.append(RoundCompleted(tuple(self.dealer), self.dealer_total()))

    # ------------------------------------------------------------- settlement

    def _settle(
        self,
        state: _Player,
        hand: _Hand,
        wager: str,
        stake: int,
        paid: int,
        outcome: str,
        line: str,
    ) -> None:
        self._out.append(
            Hybrid3WagerSettled(
                state.player_id, state.position, hand.index, wager, stake, paid, outcome, line
            )
        )

    def _settle_bb(self, state: _Player, paid: int, outcome: str, line: str) -> None:
        stake = state.wagers[BUZZER_BEATER]
        self._settle(state, state.hands[0], BUZZER_BEATER, stake, paid, outcome, line)
        state.bb_settled = True

    def _settle_bust(self, state: _Player, hand: _Hand) -> None:
        for wager, stake in hand.wagers.items():
            self._settle(state, hand, wager, stake, 0, LOST, LINE_BUST)
        hand.settled = hand.done = True
        if (
            hand.index == 0
            and BUZZER_BEATER in state.wagers
            and not state.bb_settled
            and self.rules.buzzer_beater_basis is Basis.FINAL_HAND
        ):
            self._settle_bb(state, 0, LOST, LINE_BB_UNDER_19)

    def _settle_hand(self, state: _Player, hand: _Hand) -> None:
        """633b.5(t), (v)(1): every wager of the hand by the dealer's final cards."""
        outcome, line, odds = main_result(hand.cards, hand.from_split, self.dealer)
        for wager, stake in hand.wagers.items():
            if outcome == WON:
                assert odds is not None
                pays = odds if wager == BLACKJACK else EVEN
                self._settle(state, hand, wager, stake, pays.total_return(stake), WON, line)
            elif outcome == PUSHED:
                self._settle(state, hand, wager, stake, stake, PUSHED, line)
            else:
                self._settle(state, hand, wager, stake, 0, LOST, line)
        hand.settled = hand.done = True

    def _settle_buzzer_beater(self, state: _Player) -> None:
        """633b.5(u), (v)(3), on the position's first two cards or the player's first hand,
        as the Rules Submission reads it (module docstring)."""
        if BUZZER_BEATER not in state.wagers or state.bb_settled:
            return
        if self.rules.buzzer_beater_basis is Basis.FIRST_TWO_CARDS:
            cards, from_split = self.positions[state.position], False
        else:
            hand = state.hands[0]
            cards, from_split = tuple(hand.cards), hand.from_split
        outcome, line, odds = buzzer_beater_result(
            cards, from_split, self.dealer, self.rules.buzzer_beater_21_pays
        )
        stake = state.wagers[BUZZER_BEATER]
        if outcome == WON:
            assert odds is not None
            self._settle_bb(state, odds.total_return(stake), WON, line)
        elif outcome == PUSHED:
            self._settle_bb(state, stake, PUSHED, line)
        else:
            self._settle_bb(state, 0, LOST, line)


# ----------------------------------------------------------------------- replay


def replay(rules: ThreePositionRules, events: Sequence[Any]) -> ThreePositionRound:
    """Rebuild a round from its logged events by driving a fresh engine with the same inputs.

    Joins (consecutive ``hybrid3_wager_placed`` of one player at betting), the logged cards
    (initial deal, community cards, dealer draws, at their logged shoe positions) and every
    decision go back into the engine; each step's events must equal the logged ones exactly,
    or :class:`~game_server.rules.errors.ReplayMismatch` names the first event that differs.
    """
    cards = [(e.card, e.position) for e in events if type(e) in (CardDealt, Hybrid3CommunityCard)]
    source = LoggedCards(cards)
    game = ThreePositionRound(rules)

    def step(i: int, ev: Any) -> list[Any] | None:
        kind = type(ev)
        if game.phase is Phase.BETTING and kind is Hybrid3WagerPlaced:
            wagers: dict[str, int] = {}
            j = i
            while (
                j < len(events)
                and type(events[j]) is Hybrid3WagerPlaced
                and events[j].player == ev.player
                and events[j].wager not in wagers
            ):
                wagers[events[j].wager] = events[j].amount
                j += 1
            return game.join(ev.player, ev.position, wagers)
        if game.phase is Phase.BETTING and kind is CardDealt:
            return game.deal(source)
        if kind is Hybrid3Decision:
            return _replay_decision(game, ev)
        return None

    replay_steps(events, step, lambda: game.phase)
    return game


def _replay_decision(game: ThreePositionRound, ev: Hybrid3Decision) -> list[Any]:
    if ev.action == INSURANCE_DECISION:
        return game.insure(ev.player, ev.amount, auto=ev.auto)
    if ev.action == NO_INSURANCE:
        return game.decline_insurance(ev.player, auto=ev.auto)
    if ev.action == EVEN_MONEY:
        return game.take_even_money(ev.player, auto=ev.auto)
    amount = ev.amount if ev.action == Action.DOUBLE.value else None
    return game.act(ev.player, ev.action, ev.hand, amount=amount, auto=ev.auto)


#: The kinds of record the three-position hybrid engine produces (633b.5(a)-(v)).
HYBRID3_KINDS: Final[frozenset[type]] = frozenset(
    {
        Hybrid3WagerPlaced,
        Hybrid3Decision,
        Hybrid3CommunityCard,
        Hybrid3CardUsed,
        Hybrid3WagerSettled,
        CardDealt,
        DealerPeeked,
        HoleCardRevealed,
        RoundCompleted,
    }
)
