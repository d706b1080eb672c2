"""The view of a hybrid Blackjack table (58 Pa. Code 633b.5), read into frozen dataclasses.

At a hybrid table the server's view (``game_server.games.hybrid.views.hybrid_view_for``)
has a ``"table_type"`` of ``"hybrid"`` (the three-position table, 633b.5(a)-(v)) or
``"hybrid-no-hole-card"`` (633b.5(w)-(ee)), the top-level keys every view has (credits,
limits, chips, countdown, ``to_act {hand}``, actions, insurance, settlements, phase, round,
machine state), ``"joined"``, and a ``"hybrid"`` block with the table's cards:

- three-position (:class:`ThreePositionCards`): the position this terminal chose, every
  chosen position's two first cards, the community cards dealt (numbered 1, 2, ... in the
  order drawn), which of them are in this terminal's hands, its hands and the dealer's cards
  with the hole card hidden (``None``) until it is turned up (633b.5(n), (q), (s));
- no hole card (:class:`NoHoleCardCards`): the shared first cards and up card, the
  community cards and, for THIS player only, whether each went to his hand or to HIS dealer
  hand (633b.5(y)(4), (aa), (bb)), his hands and his dealer hand.

:func:`parse_hybrid_view` reads one into a :class:`HybridView`; its :attr:`HybridView.view`
is the same :class:`~terminal_client.model.view.View` a fully automated table gives, with
this terminal as the one stadium seat :data:`STADIUM_SEAT` (the server's ``NO_SEAT``: a
hybrid terminal holds no seat, 633b.5(l)) once it joined the round, so that what the screens
share (credits, turn, legal actions, insurance, countdown, results) reads the same at every
table. A view that is not the documented shape raises
:class:`~terminal_client.model.view.MalformedView`; nothing missing is guessed.

Entry points: :func:`parse_hybrid_view`, :func:`is_hybrid`, :func:`hybrid_of`,
:data:`HYBRID_TABLE_TYPES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from shared.errors import ETGError
from terminal_client.model import fields
from terminal_client.model.totals import format_total, hand_total
from terminal_client.model.view import (
    VIEW_VERSION,
    Countdown,
    Dealer,
    Hand,
    InsuranceOffer,
    MalformedView,
    Seat,
    Settlement,
    View,
    ViewVersionError,
    WagerLimits,
    table_actions,
)

#: The three-position table (633b.5(a)-(v)).
THREE_POSITION: Final = "hybrid"
#: The table without a dealer hole card (633b.5(w)-(ee)).
NO_HOLE_CARD: Final = "hybrid-no-hole-card"
HYBRID_TABLE_TYPES: Final = (THREE_POSITION, NO_HOLE_CARD)
#: 633b.5(l): the player positions of the three-position table.
POSITIONS: Final = (1, 2, 3)
if TYPE_CHECKING:
    from terminal_client.model.state import TerminalModel

#: The seat number a hybrid terminal's round has in :attr:`HybridView.view` (it holds no
#: seat: the server's ``NO_SEAT``).
STADIUM_SEAT: Final = 0
#: Where a community card went for this player (no-hole-card table; at the three-position
#: table a used card always goes to a hand).
TO_HAND: Final = "hand"
TO_DEALER: Final = "dealer"


def hybrid_of(model: TerminalModel) -> HybridView | None:
    """The model's last view when it is of a hybrid table (633b.5), with its cards; else
    None."""
    read = model.game_view
    return read if isinstance(read, HybridView) else None


def is_hybrid(data: Any) -> bool:
    """True for a view dict of a hybrid table (its ``"table_type"`` says so)."""
    return isinstance(data, dict) and data.get("table_type") in HYBRID_TABLE_TYPES


@dataclass(frozen=True)
class CommunityCard:
    """One community card, as this terminal shows it.

    Attributes:
        number: 1, 2, ... in the order the dealer drew them.
        card: The card's text.
        use: Where it went for this player: :data:`TO_HAND`, :data:`TO_DEALER` (his dealer
            hand, no-hole-card table only) or ``None`` (he did not use it).
        hand: The index of his hand it went to (``use`` is :data:`TO_HAND`).
        position: The card's place in the shoe (no-hole-card table; ``None`` otherwise).
    """

    number: int
    card: str
    use: str | None = None
    hand: int | None = None
    position: int | None = None


@dataclass(frozen=True)
class HybridHand:
    """One of this terminal's hands; ``community`` gives, per card, 0 for a first card or
    the number of the community card it is."""

    index: int
    cards: tuple[str, ...]
    community: tuple[int, ...]
    total: int
    soft: bool
    wagers: Mapping[str, int]
    done: bool
    settled: bool

    @property
    def total_text(self) -> str:
        """``"7/17"`` when soft, else the total."""
        return format_total(self.total, self.soft)


@dataclass(frozen=True)
class HybridDealer:
    """A dealer hand: cards (``None`` for the hole card face down), the shown total and,
    per card, 0 for a dealt card or the community card's number (no-hole-card table)."""

    cards: tuple[str | None, ...]
    total_text: str | None
    hole_revealed: bool
    community: tuple[int, ...] = ()


@dataclass(frozen=True)
class PositionCards:
    """A chosen player position's two first cards (three-position table)."""

    position: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class ThreePositionCards:
    """The three-position table's cards as this terminal sees them (633b.5(n), (q))."""

    position: int | None
    positions: tuple[PositionCards, ...]
    community: tuple[CommunityCard, ...]
    used: tuple[int, ...]
    hands: tuple[HybridHand, ...]
    dealer: HybridDealer
    #: How many players chose each position so far this round (from the betting window on).
    counts: Mapping[int, int] = field(default_factory=dict)

    @property
    def chosen(self) -> frozenset[int]:
        """The positions some player chose this round (while bets are open, and those dealt
        cards)."""
        return frozenset(p.position for p in self.positions) | {
            n for n, count in self.counts.items() if count > 0
        }


@dataclass(frozen=True)
class NoHoleCardCards:
    """The no-hole-card table's cards as this player sees them (633b.5(y)): ``dealer`` is
    HIS dealer hand (``None`` when he did not join)."""

    first_cards: tuple[str, ...]
    up_card: str | None
    community: tuple[CommunityCard, ...]
    hands: tuple[HybridHand, ...]
    dealer: HybridDealer | None
    status: str | None


@dataclass(frozen=True)
class HybridView:
    """One hybrid view: the common :class:`View`, whether this terminal joined the round,
    the table type and the cards."""

    table_type: str
    joined: bool
    view: View
    cards: ThreePositionCards | NoHoleCardCards
    #: The round of the settlements in :attr:`View.settlements` (``None`` without any).
    settled_round: Any = None

    @property
    def three_position(self) -> bool:
        return self.table_type == THREE_POSITION

    @property
    def hands(self) -> tuple[HybridHand, ...]:
        return self.cards.hands

    @property
    def position(self) -> int | None:
        """The position this terminal chose (three-position table), if it joined."""
        return self.cards.position if isinstance(self.cards, ThreePositionCards) else None

    @property
    def dealer(self) -> HybridDealer | None:
        """The dealer hand this terminal faces (at the no-hole-card table, his own)."""
        return self.cards.dealer

    @property
    def up_card(self) -> str | None:
        """The dealer's up card, once dealt."""
        if isinstance(self.cards, NoHoleCardCards):
            return self.cards.up_card
        first = self.cards.dealer.cards[:1]
        return first[0] if first else None

    @property
    def results_current(self) -> bool:
        """True when the settlements are of the round the view shows."""
        return bool(self.view.settlements) and self.settled_round == self.view.round


def parse_hybrid_view(data: Any) -> HybridView:
    """Read a hybrid view dict into a :class:`HybridView`.

    Raises:
        ViewVersionError: ``data["v"]`` is not :data:`VIEW_VERSION`.
        MalformedView: not a hybrid view, or a field is missing or of the wrong type.
    """
    if not isinstance(data, dict):
        raise MalformedView(f"a view is a JSON object, got {type(data).__name__}")
    version = data.get("v")
    if version != VIEW_VERSION:
        raise ViewVersionError(
            f"the server sent a view of version {version!r}, this terminal reads version "
            f"{VIEW_VERSION}: this terminal needs an update"
        )
    if data.get("table_type") not in HYBRID_TABLE_TYPES:
        raise MalformedView(
            f"a hybrid view has a table_type of {' or '.join(HYBRID_TABLE_TYPES)}, "
            f"got {data.get('table_type')!r}"
        )
    try:
        return _hybrid(data)
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(
            f"the server sent a hybrid view this terminal cannot read: {exc!r}"
        ) from None


# Reading ------------------------------------------------------------------------------------


def _hand(data: Any, community: tuple[int, ...] | None = None) -> HybridHand:
    data = fields.as_dict(data)
    cards = tuple(fields.as_card(c) for c in fields.as_list(data["cards"]))
    if community is None:
        community = tuple(fields.as_int(k) for k in fields.as_list(data["community"]))
        if len(community) != len(cards):
            raise ValueError(f"hand {data['index']} has {len(cards)} cards but {community!r}")
    return HybridHand(
        index=fields.as_int(data["index"]),
        cards=cards,
        community=community,
        total=fields.as_int(data["total"]),
        soft=fields.as_bool(data["soft"]),
        wagers=fields.cents(data["wagers"]),
        done=fields.as_bool(data["done"]),
        settled=fields.as_bool(data["settled"]),
    )


def _three_position(data: dict[str, Any]) -> ThreePositionCards:
    dealer = fields.as_dict(data["dealer"])
    dealer_cards = tuple(
        None if isinstance(c, dict) and c.get("hidden") is True else fields.as_card(c)
        for c in fields.as_list(dealer["cards"])
    )
    revealed = fields.as_bool(dealer["hole_revealed"])
    if revealed and None in dealer_cards:
        raise ValueError("the hole card is revealed but still hidden in the view")
    fields.opt_int(dealer["total"])
    shown = [c for c in dealer_cards if c is not None]
    hands = tuple(_hand(h) for h in fields.as_list(data["hands"]))
    used = tuple(fields.as_int(k) for k in fields.as_list(data["used"]))
    in_hand = {k: h.index for h in hands for k in h.community if k}
    community = []
    for i, entry in enumerate(fields.as_list(data["community"]), start=1):
        entry = fields.as_dict(entry)
        number = fields.as_int(entry["number"])
        if number != i:
            raise ValueError(f"community card {i} is numbered {number}")
        mine = number in used
        community.append(
            CommunityCard(
                number,
                fields.as_card(entry["card"]),
                TO_HAND if mine else None,
                in_hand.get(number) if mine else None,
            )
        )
    position = fields.opt_int(data["position"])
    positions = tuple(
        PositionCards(
            fields.as_int(p["position"]),
            tuple(fields.as_card(c) for c in fields.as_list(p["cards"])),
        )
        for p in map(fields.as_dict, fields.as_list(data["positions"]))
    )
    for chosen in (position, *(p.position for p in positions)):
        if chosen is not None and chosen not in POSITIONS:
            raise ValueError(f"position {chosen} does not exist: positions are 1 to 3")
    counts = {int(k): fields.as_int(v) for k, v in fields.as_dict(data.get("chosen", {})).items()}
    for chosen in counts:
        if chosen not in POSITIONS:
            raise ValueError(f"position {chosen} does not exist: positions are 1 to 3")
    return ThreePositionCards(
        counts=counts,
        position=position,
        positions=positions,
        community=tuple(community),
        used=used,
        hands=hands,
        dealer=HybridDealer(
            cards=dealer_cards,
            total_text=hand_total(shown).text if shown else None,
            hole_revealed=revealed,
        ),
    )


def _no_hole_card(data: dict[str, Any]) -> NoHoleCardCards:
    community_raw = [fields.as_dict(e) for e in fields.as_list(data["community"])]
    numbers = {fields.as_int(e["position"]): i for i, e in enumerate(community_raw, start=1)}
    designations = []
    for entry in map(fields.as_dict, fields.as_list(data["designations"])):
        position, to, index = (
            fields.as_int(entry["position"]),
            str(entry["to"]),
            fields.as_int(entry["index"]),
        )
        if position not in numbers or to not in (TO_HAND, TO_DEALER):
            raise ValueError(f"a designation of no community card dealt: {entry!r}")
        designations.append((numbers[position], to, index))
    uses = {number: (to, index) for number, to, index in designations}
    community = []
    for i, entry in enumerate(community_raw, start=1):
        use = uses.get(i)
        community.append(
            CommunityCard(
                number=i,
                card=fields.as_card(entry["card"]),
                use=None if use is None else use[0],
                hand=use[1] if use is not None and use[0] == TO_HAND else None,
                position=fields.as_int(entry["position"]),
            )
        )
    hands = []
    for raw in fields.as_list(data["hands"]):
        index = fields.as_int(fields.as_dict(raw)["index"])
        drawn = tuple(n for n, to, i in designations if to == TO_HAND and i == index)
        count = len(fields.as_list(raw["cards"]))
        if len(drawn) > count:
            raise ValueError(f"hand {index} holds {count} cards but {len(drawn)} designated")
        hands.append(_hand(raw, (0,) * (count - len(drawn)) + drawn))
    up_card = None if data["up_card"] is None else fields.as_card(data["up_card"])
    dealer: HybridDealer | None = None
    if data["dealer"] is not None:
        raw_dealer = fields.as_dict(data["dealer"])
        cards = tuple(fields.as_card(c) for c in fields.as_list(raw_dealer["cards"]))
        fields.opt_int(raw_dealer["total"])
        to_dealer = sorted((i, n) for n, to, i in designations if to == TO_DEALER)
        marks = [0] * len(cards)
        for place, number in to_dealer:
            if not 0 < place < len(cards):
                raise ValueError(f"dealer card {place} designated but not in the dealer hand")
            marks[place] = number
        dealer = HybridDealer(
            cards=cards,
            total_text=hand_total(cards).text if cards else None,
            hole_revealed=len(cards) > 1,
            community=tuple(marks),
        )
    return NoHoleCardCards(
        first_cards=tuple(fields.as_card(c) for c in fields.as_list(data["first_cards"])),
        up_card=up_card,
        community=tuple(community),
        hands=tuple(hands),
        dealer=dealer,
        status=fields.opt_str(data["status"]),
    )


def _settlement(data: Any) -> tuple[Any, Settlement]:
    data = fields.as_dict(data)
    return data["round"], Settlement(
        wager=str(data["wager"]),
        hand=fields.as_int(data["hand"]),
        stake=fields.as_int(data["stake"]),
        paid=fields.as_int(data["paid"]),
        outcome=str(data["outcome"]),
        line=str(data["line"]),
    )


def _common_hand(hand: HybridHand) -> Hand:
    return Hand(
        index=hand.index,
        cards=hand.cards,
        total=hand.total,
        soft=hand.soft,
        total_text=hand.total_text,
        wagers=hand.wagers,
        done=hand.done,
        settled=hand.settled,
    )


def _hybrid(data: dict[str, Any]) -> HybridView:
    table_type = str(data["table_type"])
    block = fields.as_dict(data["hybrid"])
    cards: ThreePositionCards | NoHoleCardCards = (
        _three_position(block) if table_type == THREE_POSITION else _no_hole_card(block)
    )
    joined = fields.as_bool(data["joined"])
    countdown = data["countdown"]
    insurance = data["insurance"]
    to_act = data["to_act"]
    settled = [_settlement(s) for s in fields.as_list(data["settlements"])]
    rounds = {r for r, _ in settled}
    if len(rounds) > 1:
        raise ValueError(f"settlements of several rounds: {sorted(map(str, rounds))}")
    seats: tuple[Seat, ...] = ()
    if joined:
        wagers: dict[str, int] = {}
        for hand in cards.hands:
            for name, cents in hand.wagers.items():
                wagers[name] = wagers.get(name, 0) + cents
        seats = (
            Seat(
                seat=STADIUM_SEAT,
                mine=True,
                wagers=MappingProxyType(wagers),
                insurance_decided=insurance is None,
                hands=tuple(_common_hand(h) for h in cards.hands),
            ),
        )
    dealer = cards.dealer
    if dealer is None:  # a no-hole-card terminal that did not join sees the up card
        up = cards.up_card if isinstance(cards, NoHoleCardCards) else None
        shown = () if up is None else (up,)
        common_dealer = Dealer(shown, hand_total(shown).text if shown else None, False)
    else:
        common_dealer = Dealer(dealer.cards, dealer.total_text, dealer.hole_revealed)
    hand_to_act = None if to_act is None else fields.as_int(fields.as_dict(to_act)["hand"])
    if hand_to_act is not None and not joined:
        raise ValueError("a hand to act for a terminal that did not join the round")
    view = View(
        table=fields.opt_str(data["table"]),
        state=fields.opt_str(data["state"]),
        machine=fields.opt_str(data["machine"]),
        round=data["round"],
        phase=fields.opt_str(data["phase"]),
        terminal=fields.opt_str(data["terminal"]),
        seat=STADIUM_SEAT if joined else None,
        credits=fields.as_int(data["credits"]),
        limits=MappingProxyType(
            {
                str(name): WagerLimits(fields.as_int(lim["min"]), fields.as_int(lim["max"]))
                for name, lim in fields.as_dict(data["limits"]).items()
            }
        ),
        chips=tuple(fields.as_int(c) for c in fields.as_list(data["chips"])),
        countdown=None
        if countdown is None
        else Countdown(
            str(countdown["for"]),
            fields.as_int(countdown["seconds_left"]),
            fields.opt_str(countdown["then"]),
        ),
        dealer=common_dealer,
        seats=seats,
        to_act=None if hand_to_act is None else (STADIUM_SEAT, hand_to_act),
        actions=frozenset(str(a) for a in fields.as_list(data["actions"])),
        insurance=None
        if insurance is None
        else InsuranceOffer(
            fields.as_bool(insurance["can_insure"]),
            fields.as_int(insurance["max"]),
            fields.as_bool(insurance["can_take_even_money"]),
        ),
        settlements=tuple(s for _, s in settled),
        recent=(),
        table_actions=table_actions(data),
    )
    return HybridView(
        table_type=table_type,
        joined=joined,
        view=view,
        cards=cards,
        settled_round=next(iter(rounds)) if rounds else None,
    )
