"""The view of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a), read into frozen dataclasses.

The server's view (``game_server.games.uth.views.uth_view_for``; its module docstring is the
contract) says ``"game": "uth"``. It has the top-level keys of every view (table, state,
machine, round, phase, terminal, seat, credits, limits, chips, countdown, to_act, actions,
settlements, meters) with three differences: ``limits`` gives the Ante and Trips a
``{"min", "max"}``, the Blind ``{"equals": "ante"}`` and the fixed-amount wagers (Progressive
Payout 653a.12(d), Five Card Hand Bonus 653a.12(e) on the player's and on the dealer's hand)
``{"amounts": [...]}``; ``to_act`` is the list of seats still to decide on the street; and
each settlement names its ``round``. The ``"uth"`` block holds the table's cards: every seat
with a hand (the others' cards ``{"hidden": true}`` until the showdown), this terminal's
``hole`` cards, the ``board`` (0, 3 or 5 community cards), the ``dealer`` (two hidden cards
until revealed, then its best five, category and whether it qualifies), this terminal's
``legal`` decisions with their Play multiples, and the Magic Card and Lucky Bonus position
once drawn (653a.12(e)(3)).

:func:`parse_uth_view` reads one into a :class:`UthView`; its :attr:`UthView.view` is the
common :class:`~terminal_client.model.view.View` (this terminal's seat with its hole cards
as the one hand, the dealer's cards with ``None`` for a face-down card, ``to_act`` as
``(seat, 0)`` while this terminal must decide), so that what every table shares (credits,
turn, countdown, settlements, the cards' animation) reads the same. A view that is not the
documented shape raises :class:`~terminal_client.model.view.MalformedView`; nothing missing
is guessed.

Entry points: :func:`parse_uth_view`, :func:`uth_of`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from shared.errors import ETGError
from terminal_client.model import fields
from terminal_client.model.view import (
    VIEW_VERSION,
    Countdown,
    Dealer,
    Hand,
    MalformedView,
    ProgressiveMeter,
    Seat,
    Settlement,
    View,
    ViewVersionError,
    WagerLimits,
)

if TYPE_CHECKING:
    from terminal_client.model.state import TerminalModel

#: The view's ``"game"`` of an Ultimate Texas Hold 'Em table.
UTH_GAME: Final = "uth"
# The wagers (58 Pa. Code 653a.7, 653a.12) as the view names them.
ANTE: Final = "ante"
BLIND: Final = "blind"
PLAY: Final = "play"
TRIPS: Final = "trips"
PROGRESSIVE: Final = "progressive"
FIVE_CARD_PLAYER: Final = "five_card_player"
FIVE_CARD_DEALER: Final = "five_card_dealer"
#: The fixed-amount wagers (653a.12(d), (e)): ``{"amounts": [...]}`` in the limits.
FIXED_WAGERS: Final = (PROGRESSIVE, FIVE_CARD_PLAYER, FIVE_CARD_DEALER)
#: The decisions (the Play Wager is ``"bet"``; its multiple goes in Act's ``amount``).
CHECK: Final = "check"
BET: Final = "bet"
FOLD: Final = "fold"
DECISIONS: Final = (CHECK, BET, FOLD)
#: The Play multiples of the Ante each street allows (653a.7 as regs-653a.md gives it).
STREET_MULTIPLES: Final[Mapping[str, tuple[int, ...]]] = MappingProxyType(
    {"preflop": (4, 3), "flop": (2,), "river": (1,)}
)
#: The engine phases in which cards are dealt and decided (before the showdown).
DECISION_PHASES: Final = ("preflop", "flop", "river")
#: The phases in which every hand is shown.
SHOWDOWN_PHASES: Final = ("showdown", "complete")
SEAT_STATUSES: Final = ("betting", "waiting", "decided", "played", "folded")


#: Each wager's short title (the recall page's and the results panel's).
WAGER_TITLES: Final[Mapping[str, str]] = {
    ANTE: "Ante",
    BLIND: "Blind",
    PLAY: "Play",
    TRIPS: "Trips",
    PROGRESSIVE: "Progressive",
    "progressive_envy": "Envy Bonus",
    FIVE_CARD_PLAYER: "Five Card (you)",
    FIVE_CARD_DEALER: "Five Card (dealer)",
}
#: Awards with no stake, named after the Five Card Hand Bonus wager that earned them
#: (653a.12(e)(3)).
AWARD_SUFFIXES: Final = (("_magic_card", "Magic Card"), ("_lucky_bonus", "Lucky Bonus"))


def uth_wager_title(wager: str) -> str:
    """``"blind" -> "Blind"``, ``"five_card_dealer_lucky_bonus" -> "Lucky Bonus
    (dealer)"`` (the Five Card Hand Bonus on the dealer's hand earned it); a name this
    terminal does not know is shown capitalised."""
    for suffix, title in AWARD_SUFFIXES:
        if wager.endswith(suffix):
            base = wager.removesuffix(suffix)
            whose = "dealer" if base == FIVE_CARD_DEALER else "you"
            return f"{title} ({whose})"
    return WAGER_TITLES.get(wager) or wager.replace("_", " ").capitalize()


def uth_of(model: TerminalModel) -> UthView | None:
    """The model's last view when it is of an Ultimate Texas Hold 'Em table; else None."""
    read = model.game_view
    return read if isinstance(read, UthView) else None


@dataclass(frozen=True)
class PokerHand:
    """A hand as the server names it: ``name`` ("Three-of-a-kind", 653a.6(b)), its best five
    cards and its ``category`` ("three_of_a_kind")."""

    name: str
    five: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class UthSeat:
    """One seat with a hand this round; ``cards`` has ``None`` for a card face down."""

    seat: int
    mine: bool
    wagers: Mapping[str, int]
    status: str
    play_multiple: int
    cards: tuple[str | None, ...]
    hand: PokerHand | None


@dataclass(frozen=True)
class UthDealer:
    """The dealer's two cards (``None`` face down), and once revealed its hand and whether
    it qualifies (a pair or better)."""

    cards: tuple[str | None, ...]
    revealed: bool
    hand: PokerHand | None
    qualifies: bool | None


@dataclass(frozen=True)
class Decision:
    """One decision this terminal may take now: ``action`` with a Play ``multiple`` of the
    Ante (0 for check and fold) and what that Play Wager stakes (``amount``, cents)."""

    action: str
    multiple: int = 0
    amount: int = 0


@dataclass(frozen=True)
class UthView:
    """One Ultimate Texas Hold 'Em view: the common :class:`View` and the table's cards."""

    view: View
    seats: tuple[UthSeat, ...]
    hole: tuple[str, ...]
    board: tuple[str, ...]
    dealer: UthDealer
    legal: tuple[Decision, ...]
    #: The fixed amounts of the Progressive and Five Card Hand Bonus wagers offered.
    amounts: Mapping[str, tuple[int, ...]]
    to_act: tuple[int, ...]
    magic_card: str | None
    lucky_position: int | None
    #: The round of the settlements in :attr:`View.settlements` (``None`` without any).
    settled_round: Any = None

    @property
    def me(self) -> UthSeat | None:
        """This terminal's seat in the round, if it has a hand."""
        return next((s for s in self.seats if s.mine), None)

    @property
    def joined(self) -> bool:
        return self.me is not None

    @property
    def wagers(self) -> Mapping[str, int]:
        """This terminal's wagers in the round (empty without a hand)."""
        me = self.me
        return MappingProxyType({}) if me is None else me.wagers

    @property
    def play_multiple(self) -> int:
        me = self.me
        return 0 if me is None else me.play_multiple

    @property
    def folded(self) -> bool:
        me = self.me
        return me is not None and me.status == "folded"

    @property
    def my_hand(self) -> PokerHand | None:
        me = self.me
        return None if me is None else me.hand

    @property
    def street(self) -> str | None:
        """The decision street ("preflop", "flop", "river") while one is open, else None."""
        phase = self.view.phase
        return phase if phase in DECISION_PHASES else None

    @property
    def showdown(self) -> bool:
        return self.view.phase in SHOWDOWN_PHASES or self.dealer.revealed

    @property
    def results_current(self) -> bool:
        """True when the settlements are of the round the view shows (or of the last one
        between rounds, when the view shows no round)."""
        if not self.view.settlements:
            return False
        return self.view.round is None or self.settled_round == self.view.round

    def decision(self, action: str, multiple: int = 0) -> Decision | None:
        """The legal decision ``action`` (with ``multiple`` for a bet), or None."""
        for d in self.legal:
            if d.action == action and d.multiple == multiple:
                return d
        return None


def parse_uth_view(data: Any) -> UthView:
    """Read an Ultimate Texas Hold 'Em view dict into a :class:`UthView`.

    Raises:
        ViewVersionError: ``data["v"]`` is not :data:`VIEW_VERSION`.
        MalformedView: not a UTH view, or a field is missing or of the wrong type.
    """
    if not isinstance(data, dict):
        raise MalformedView(f"a view is a JSON object, got {type(data).__name__}")
    version = data.get("v")
    if version != VIEW_VERSION:
        raise ViewVersionError(
            f"the server sent a view of version {version!r}, this terminal reads version "
            f"{VIEW_VERSION}: this terminal needs an update"
        )
    if data.get("game") != UTH_GAME:
        raise MalformedView(
            f'an Ultimate Texas Hold \'Em view has "game": "uth", got {data.get("game")!r}'
        )
    try:
        return _uth(data)
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(
            f"the server sent an Ultimate Texas Hold 'Em view this terminal cannot read: {exc!r}"
        ) from None


# Reading ------------------------------------------------------------------------------------


def _maybe_hidden(value: Any) -> str | None:
    """A card's text, or None for a ``{"hidden": true}`` placeholder."""
    if isinstance(value, dict) and value.get("hidden") is True:
        return None
    return fields.as_card(value)


def _hand(value: Any) -> PokerHand | None:
    if value is None:
        return None
    data = fields.as_dict(value)
    five = tuple(fields.as_card(c) for c in fields.as_list(data["five"]))
    if len(five) != 5:
        raise ValueError(f"a hand's best five has five cards, got {five!r}")
    return PokerHand(fields.as_str(data["name"]), five, fields.as_str(data["category"]))


def _limits(data: Any) -> tuple[dict[str, WagerLimits], dict[str, tuple[int, ...]]]:
    """The wagers offered as the common view's limits, and the fixed amounts of those that
    have them (their limits are the smallest and largest amount)."""
    limits: dict[str, WagerLimits] = {}
    amounts: dict[str, tuple[int, ...]] = {}
    equals: dict[str, str] = {}
    for name, raw in fields.as_dict(data).items():
        entry = fields.as_dict(raw)
        if "amounts" in entry:
            offered = tuple(sorted({fields.as_int(a) for a in fields.as_list(entry["amounts"])}))
            if not offered or offered[0] <= 0:
                raise ValueError(f"wager {name!r} offers no positive fixed amount: {offered!r}")
            amounts[name] = offered
            limits[name] = WagerLimits(offered[0], offered[-1])
        elif "equals" in entry:
            equals[name] = fields.as_str(entry["equals"])
        else:
            limits[name] = WagerLimits(fields.as_int(entry["min"]), fields.as_int(entry["max"]))
    for name, other in equals.items():
        if other not in limits:
            raise ValueError(f"wager {name!r} equals {other!r}, which has no limits")
        limits[name] = limits[other]
    if ANTE not in limits:
        raise ValueError("the limits give no Ante wager (653a.7)")
    return limits, amounts


def _seat(data: Any) -> UthSeat:
    data = fields.as_dict(data)
    status = fields.as_str(data["status"])
    if status not in SEAT_STATUSES:
        raise ValueError(f"seat status {status!r} is not one of {SEAT_STATUSES}")
    multiple = fields.as_int(data["play_multiple"])
    if multiple not in (0, 1, 2, 3, 4):
        raise ValueError(f"a Play multiple is 0 to 4, got {multiple}")
    cards = tuple(_maybe_hidden(c) for c in fields.as_list(data["cards"]))
    if len(cards) not in (0, 2):
        raise ValueError(f"a seat holds two cards, got {len(cards)}")
    return UthSeat(
        seat=fields.as_int(data["seat"]),
        mine=fields.as_bool(data["mine"]),
        wagers=fields.cents(data["wagers"]),
        status=status,
        play_multiple=multiple,
        cards=cards,
        hand=_hand(data["hand"]),
    )


def _legal(data: Any) -> tuple[Decision, ...]:
    out: list[Decision] = []
    for raw in map(fields.as_dict, fields.as_list(data)):
        action = fields.as_str(raw["action"])
        if action not in DECISIONS:
            raise ValueError(f"decision {action!r} is not one of {DECISIONS}")
        if action != BET:
            out.append(Decision(action))
            continue
        multiples = [fields.as_int(m) for m in fields.as_list(raw["multiples"])]
        stakes = [fields.as_int(a) for a in fields.as_list(raw["amounts"])]
        if len(multiples) != len(stakes):
            raise ValueError(f"a bet's multiples {multiples} and amounts {stakes} differ in length")
        out.extend(Decision(BET, m, a) for m, a in zip(multiples, stakes, strict=True))
    return tuple(out)


def _settlement(data: Any) -> tuple[Any, Settlement]:
    data = fields.as_dict(data)
    return data["round"], Settlement(
        wager=fields.as_str(data["wager"]),
        hand=0,
        stake=fields.as_int(data["stake"]),
        paid=fields.as_int(data["paid"]),
        outcome=fields.as_str(data["outcome"]),
        line=fields.as_str(data["line"]),
    )


def _meter(data: Any) -> ProgressiveMeter:
    data = fields.as_dict(data)
    return ProgressiveMeter(
        wager=fields.as_str(data["wager"]),
        name=fields.as_str(data["name"]),
        amount=fields.as_int(data["amount"]),
        must_hit_by=fields.opt_int(data.get("must_hit_by")),
    )


def _uth(data: dict[str, Any]) -> UthView:
    block = fields.as_dict(data["uth"])
    limits, amounts = _limits(data["limits"])
    seats = tuple(_seat(s) for s in fields.as_list(block["seats"]))
    if len({s.seat for s in seats}) != len(seats):
        raise ValueError(f"a seat is listed twice: {[s.seat for s in seats]}")
    mine = [s for s in seats if s.mine]
    if len(mine) > 1:
        raise ValueError("more than one seat is marked as this terminal's")
    seat_number = fields.opt_int(data["seat"])
    if mine and mine[0].seat != seat_number:
        raise ValueError(
            f"this terminal's hand is at seat {mine[0].seat}, its seat is {seat_number}"
        )
    hole = tuple(fields.as_card(c) for c in fields.as_list(block["hole"]))
    if len(hole) not in (0, 2):
        raise ValueError(f"the hole holds two cards, got {hole!r}")
    board = tuple(fields.as_card(c) for c in fields.as_list(block["board"]))
    if len(board) not in (0, 3, 5):
        raise ValueError(f"the board holds 0, 3 or 5 cards, got {len(board)}")
    raw_dealer = fields.as_dict(block["dealer"])
    dealer_cards = tuple(_maybe_hidden(c) for c in fields.as_list(raw_dealer["cards"]))
    revealed = fields.as_bool(raw_dealer["revealed"])
    if revealed and None in dealer_cards:
        raise ValueError("the dealer's cards are revealed but still hidden in the view")
    qualifies = raw_dealer["qualifies"]
    dealer = UthDealer(
        cards=dealer_cards,
        revealed=revealed,
        hand=_hand(raw_dealer["hand"]),
        qualifies=None if qualifies is None else fields.as_bool(qualifies),
    )
    actions = frozenset(fields.as_str(a) for a in fields.as_list(data["actions"]))
    if not actions <= set(DECISIONS):
        raise ValueError(f"actions {sorted(actions)} are not among {DECISIONS}")
    # The decisions offered are the actions the view gives, bets with the multiples of
    # "legal" (a Play the credits cannot pay for is left out of the actions).
    legal = tuple(d for d in _legal(block["legal"]) if d.action in actions)
    missing = {a for a in actions if a != BET} - {d.action for d in legal}
    legal += tuple(Decision(a) for a in DECISIONS if a in missing)
    to_act = tuple(fields.as_int(s) for s in fields.as_list(data["to_act"]))
    settled = [_settlement(s) for s in fields.as_list(data["settlements"])]
    rounds = {r for r, _ in settled}
    if len(rounds) > 1:
        raise ValueError(f"settlements of several rounds: {sorted(map(str, rounds))}")
    countdown = data["countdown"]
    common_seats: list[Seat] = []
    for s in seats:
        hands: tuple[Hand, ...] = ()
        if s.mine and hole:
            # The one hand of the common view: this terminal's hole cards (animated).
            hands = (Hand(0, hole, 0, False, "", s.wagers, s.status != "waiting", False),)
        common_seats.append(Seat(s.seat, s.mine, s.wagers, True, hands))
    mine_to_act = seat_number is not None and seat_number in to_act
    lucky = fields.opt_int(block["lucky_position"])
    magic = block["magic_card"]
    view = View(
        table=fields.opt_str(data["table"]),
        state=fields.opt_str(data["state"]),
        machine=fields.opt_str(data["machine"]),
        round=data["round"],
        phase=fields.opt_str(data["phase"]),
        terminal=fields.opt_str(data["terminal"]),
        seat=seat_number,
        credits=fields.as_int(data["credits"]),
        limits=MappingProxyType(limits),
        chips=tuple(fields.as_int(c) for c in fields.as_list(data["chips"])),
        countdown=None
        if countdown is None
        else Countdown(
            fields.as_str(countdown["for"]),
            fields.as_int(countdown["seconds_left"]),
            fields.opt_str(countdown["then"]),
        ),
        dealer=Dealer(dealer_cards, None, revealed),
        seats=tuple(common_seats),
        to_act=(seat_number, 0) if mine_to_act and seat_number is not None else None,
        actions=actions,
        insurance=None,
        settlements=tuple(s for _, s in settled),
        recent=(),
        meters=tuple(_meter(m) for m in fields.as_list(data.get("meters", []))),
    )
    return UthView(
        view=view,
        seats=seats,
        hole=hole,
        board=board,
        dealer=dealer,
        legal=legal,
        amounts=MappingProxyType(amounts),
        to_act=to_act,
        magic_card=None if magic is None else fields.as_card(magic),
        lucky_position=lucky,
        settled_round=next(iter(rounds)) if rounds else None,
    )
