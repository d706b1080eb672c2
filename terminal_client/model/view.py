"""The server's view of one terminal (``"v": 1``), read into frozen dataclasses.

The view is the only source of what a terminal shows: credits, cards, totals, legal actions,
countdowns and results all come from it (docs/design.md "Terminal"). :func:`parse_view` refuses a
view of another version (:class:`ViewVersionError`) or one that is not the documented shape
(:class:`MalformedView`); it never guesses a missing value.

Entry points: :func:`parse_view` (the seated table's view, every key there),
:func:`parse_common_view` (the keys every view has, the others where present),
:data:`VIEW_VERSION`, :func:`phase_name`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Protocol

from shared.errors import ETGError
from terminal_client.model import fields
from terminal_client.model.totals import hand_total

#: The view version this terminal reads.
VIEW_VERSION: Final = 1

#: What the screens call the round's phases and the table's states.
PHASE_NAMES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "betting": "Place your bets",
        "insurance": "Insurance",
        "playing": "Play",
        "complete": "Results",
        "open": "Open",
        "closed": "Table closed",
        "out-of-service": "Out of service",
    }
)


class ViewError(ETGError):
    """A view this terminal cannot read."""


class ViewVersionError(ViewError):
    """The server sent a view of another version: the terminal software needs an update."""


class MalformedView(ViewError):
    """A view that does not have the documented shape."""


def phase_name(phase: str | None) -> str:
    """The screen's name of a phase or table state (``"betting"`` -> ``"Place your bets"``)."""
    if phase is None:
        return "Waiting for the next round"
    return PHASE_NAMES.get(phase, phase.replace("-", " ").capitalize())


@dataclass(frozen=True)
class WagerLimits:
    """The smallest and largest stake of one wager, in cents."""

    minimum: int
    maximum: int


@dataclass(frozen=True)
class Countdown:
    """A running countdown: what it is for, whole seconds left, what happens at zero."""

    kind: str
    seconds_left: int
    then: str | None


@dataclass(frozen=True)
class Hand:
    """One hand of a seat; ``total_text`` is ``"7/17"`` when soft (from the cards' text)."""

    index: int
    cards: tuple[str | None, ...]  # None: face down (``None`` or ``{"hidden": true}`` sent)
    total: int
    soft: bool
    total_text: str
    wagers: Mapping[str, int]
    done: bool
    settled: bool


@dataclass(frozen=True)
class Seat:
    """One seat in the round; ``mine`` marks this terminal's seat."""

    seat: int
    mine: bool
    wagers: Mapping[str, int]
    insurance_decided: bool
    hands: tuple[Hand, ...]


@dataclass(frozen=True)
class Dealer:
    """The dealer's cards (``None`` for the face-down hole card) and the shown total."""

    cards: tuple[str | None, ...]
    total_text: str | None
    hole_revealed: bool


@dataclass(frozen=True)
class InsuranceOffer:
    """The insurance offer to this terminal (at most ``maximum`` cents)."""

    can_insure: bool
    maximum: int
    can_take_even_money: bool


@dataclass(frozen=True)
class Settlement:
    """How one wager of this terminal was settled: ``paid`` includes the returned stake."""

    wager: str
    hand: int
    stake: int
    paid: int
    outcome: str
    line: str

    @property
    def net(self) -> int:
        """What the player won (positive) or lost (negative), in cents."""
        return self.paid - self.stake


@dataclass(frozen=True)
class ProgressiveMeter:
    """A progressive meter of the table as the server shows it, in whole cents.

    ``unavailable`` is the server's sentence when the meter is linked across the floor and
    the floor store cannot be reached (605a.8): no amount is shown then (``amount`` is 0)
    and the meter's wager is refused."""

    wager: str
    name: str
    amount: int
    must_hit_by: int | None
    unavailable: str | None = None


@dataclass(frozen=True)
class RoundResult:
    """A completed round of this terminal, for the results and recall screens."""

    round: Any
    dealer: tuple[str, ...]
    dealer_total: int | None
    settlements: tuple[Settlement, ...]
    net: int


@dataclass(frozen=True)
class ShoeShown:
    """What the table shows of its shoes (``docs/shoe-spec.md``): the shoe in use, committed
    before its first card, and the last one retired, with its reveal.

    Attributes:
        number: The shoe in use (None between a retirement and the next shoe).
        decks: Its decks.
        commitment: Its commitment (64 hex digits): SHA-256 of its order and a salt.
        dealt: Cards dealt from it so far.
        retired: The last retired shoe's number, commitment and reveal (``entropy_input``,
            ``nonce``, ``personalization``, ``salt``, hex), or None.
    """

    number: int | None
    decks: int | None
    commitment: str | None
    dealt: int
    retired: Mapping[str, Any] | None

    @property
    def corner_line(self) -> str:
        """The table corner's line: ``"Shoe 12 - committed 3fa9 c1e0 ..."``."""
        if self.number is None or self.commitment is None:
            if self.retired is None:
                return ""
            return f"Shoe {self.retired['number']} retired - revealed"
        return f"Shoe {self.number} - committed {short_digest(self.commitment)}"


def short_digest(digest: str, groups: int = 2) -> str:
    """The first ``groups`` groups of four hex digits, then an ellipsis: ``"3fa9 c1e0 ..."``."""
    return " ".join(digest[4 * i : 4 * i + 4] for i in range(groups)) + " ..."


@dataclass(frozen=True)
class View:
    """One view of the table as the server sent it to this terminal."""

    table: str | None
    state: str | None
    machine: str | None
    round: Any
    phase: str | None
    terminal: str | None
    seat: int | None
    credits: int
    limits: Mapping[str, WagerLimits]
    chips: tuple[int, ...]
    countdown: Countdown | None
    dealer: Dealer
    seats: tuple[Seat, ...]
    to_act: tuple[int, int] | None
    actions: frozenset[str]
    insurance: InsuranceOffer | None
    settlements: tuple[Settlement, ...]
    recent: tuple[RoundResult, ...]
    meters: tuple[ProgressiveMeter, ...] = ()
    #: Every decision the table offers under its Rules Submission (a button is drawn for
    #: each, lit when it is in ``actions``); None from a server that does not say.
    table_actions: frozenset[str] | None = None
    #: The table's shoes as every view shows them; None from a server that sends none.
    shoe: ShoeShown | None = None

    @property
    def my_seat(self) -> Seat | None:
        """This terminal's seat in the round (``None`` when it has no wager in it)."""
        for seat in self.seats:
            if seat.mine:
                return seat
        return None

    @property
    def my_turn(self) -> bool:
        """True when one of this terminal's hands is to act (the server sent its actions)."""
        return self.to_act is not None and self.to_act[0] == self.seat and bool(self.actions)


class GameView(Protocol):
    """A view as a game reads it: :attr:`view`, the part every table shares (credits,
    countdown, turn, settlements, the cards as seats and hands for the animation), and
    whatever else the game's screens draw (its own attributes)."""

    @property
    def view(self) -> View:
        """The common part of the view."""
        ...

    @property
    def joined(self) -> bool:
        """Whether this terminal has wagers in the round."""
        ...


@dataclass(frozen=True)
class SeatedView:
    """A view read as a :class:`GameView` by a game whose views
    are the seated table's shape: the common part is all there is, and the terminal joined
    the round when it has a seat in it. A table that adds keys of its own (Caribbean Stud,
    Four Card Poker) extends it with them."""

    view: View

    @property
    def me(self) -> Seat | None:
        """This terminal's seat in the round (None without wagers)."""
        return self.view.my_seat

    @property
    def joined(self) -> bool:
        """Whether this terminal has a seat (wagers) in the round."""
        return self.view.my_seat is not None

    @property
    def cards(self) -> tuple[str | None, ...]:
        """This terminal's first hand's cards (none before the deal)."""
        me = self.me
        return () if me is None or not me.hands else me.hands[0].cards

    @property
    def wagers(self) -> Mapping[str, int]:
        """This terminal's wagers in the round (the decision's wager once made)."""
        me = self.me
        return MappingProxyType({}) if me is None else me.wagers

    @property
    def deciding(self) -> bool:
        """Whether the round waits for the players' decisions."""
        return self.view.phase == "deciding"


def checked(data: Any) -> dict[str, Any]:
    """``data`` as a view dict of this terminal's version.

    Raises:
        ViewVersionError: ``data["v"]`` is not :data:`VIEW_VERSION`.
        MalformedView: ``data`` is not a JSON object.
    """
    if not isinstance(data, dict):
        raise MalformedView(f"a view is a JSON object, got {type(data).__name__}")
    version = data.get("v")
    if version != VIEW_VERSION:
        raise ViewVersionError(
            f"the server sent a view of version {version!r}, this terminal reads version "
            f"{VIEW_VERSION}: this terminal needs an update"
        )
    return data


def parse_view(data: Any) -> View:
    """Read a view dict of the seated table's shape (as the server sends it; every key
    there) into a :class:`View`.

    Raises:
        ViewVersionError: ``data["v"]`` is not :data:`VIEW_VERSION`.
        MalformedView: a field is missing or of the wrong type.
    """
    data = checked(data)
    try:
        return _view(data)
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(f"the server sent a view this terminal cannot read: {exc!r}") from None


def parse_common_view(data: Any) -> View:
    """Read the keys every view has (``docs/adding-a-game.md``: table, state, machine,
    round, phase, terminal, seat, credits, limits, chips, countdown, to_act, actions,
    settlements) into a :class:`View`; the seated table's keys (``dealer``, ``seats``,
    ``insurance``, ``recent``, ``meters``, ``table_actions``) are read where the view has
    them, each in its documented shape. ``to_act`` may also be ``{"hand": n}`` (this
    terminal's hand) or a list of seats. What the generic game reads of a game this
    terminal does not have.

    Raises:
        ViewVersionError: ``data["v"]`` is not :data:`VIEW_VERSION`.
        MalformedView: a common key is missing, or a key is of the wrong shape.
    """
    data = checked(data)
    try:
        to_act = data["to_act"]
        if isinstance(to_act, list):
            seat = fields.opt_int(data["seat"])
            to_act = {"seat": seat, "hand": 0} if seat in to_act else None
        elif isinstance(to_act, dict) and "seat" not in to_act:
            to_act = {"seat": data["seat"], "hand": to_act["hand"]}
        dealer = data.get("dealer") or {}
        return _view(
            {
                "insurance": None,
                "recent": [],
                **data,
                "dealer": {"hole_revealed": True, **dealer, "cards": dealer.get("cards", [])},
                "seats": [_common_seat(seat) for seat in data.get("seats", ())],
                "to_act": to_act,
            }
        )
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(f"the server sent a view this terminal cannot read: {exc!r}") from None


def _common_seat(data: Any) -> dict[str, Any]:
    """A seat of a generic view in the seated table's shape: a hand's ``wagers``, ``done``
    and ``settled`` and the seat's ``insurance_decided`` may be left out."""
    hands = [
        {"wagers": {}, "done": False, "settled": False, **hand, "index": hand.get("index", i)}
        for i, hand in enumerate(data.get("hands", ()))
    ]
    return {"insurance_decided": False, **data, "hands": hands}


def _view(data: dict[str, Any]) -> View:
    countdown = data["countdown"]
    insurance = data["insurance"]
    to_act = data["to_act"]
    return View(
        table=fields.opt_str(data["table"]),
        state=fields.opt_str(data["state"]),
        machine=fields.opt_str(data["machine"]),
        round=data["round"],
        phase=fields.opt_str(data["phase"]),
        terminal=fields.opt_str(data["terminal"]),
        seat=fields.opt_int(data["seat"]),
        credits=fields.as_int(data["credits"]),
        limits=MappingProxyType(
            {
                str(name): WagerLimits(fields.as_int(lim["min"]), fields.as_int(lim["max"]))
                for name, lim in dict(data["limits"]).items()
            }
        ),
        chips=tuple(fields.as_int(c) for c in data["chips"]),
        countdown=None
        if countdown is None
        else Countdown(
            str(countdown["for"]),
            fields.as_int(countdown["seconds_left"]),
            fields.opt_str(countdown["then"]),
        ),
        dealer=_dealer(data["dealer"]),
        seats=tuple(_seat(s) for s in data["seats"]),
        to_act=None
        if to_act is None
        else (fields.as_int(to_act["seat"]), fields.as_int(to_act["hand"])),
        actions=frozenset(str(a) for a in data["actions"]),
        insurance=None
        if insurance is None
        else InsuranceOffer(
            bool(insurance["can_insure"]),
            fields.as_int(insurance["max"]),
            bool(insurance["can_take_even_money"]),
        ),
        settlements=tuple(_settlement(s) for s in data["settlements"]),
        recent=tuple(_result(r) for r in data["recent"]),
        # A server without progressives (or from before them) sends no "meters".
        meters=tuple(_meter(m) for m in data.get("meters", ())),
        table_actions=table_actions(data),
    )


def parse_shoe(data: Any) -> ShoeShown | None:
    """The view's ``shoe`` (``{"current": ..., "retired": ...}``; None: no shoe yet), which
    the server adds to every game's view.

    Raises:
        MalformedView: it is not that shape.
    """
    try:
        return _shoe(data)
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(f"the server sent a shoe this terminal cannot read: {exc!r}") from None


def _shoe(data: Any) -> ShoeShown | None:
    if data is None:
        return None
    current = data["current"]
    retired = data["retired"]
    if retired is not None:
        retired = MappingProxyType(
            {
                "number": fields.as_int(retired["number"]),
                **{
                    key: fields.as_str(retired[key])
                    for key in ("commitment", "entropy_input", "nonce", "personalization", "salt")
                },
            }
        )
    if current is None:
        return ShoeShown(None, None, None, 0, retired)
    return ShoeShown(
        fields.as_int(current["number"]),
        fields.as_int(current["decks"]),
        fields.as_str(current["commitment"]),
        fields.as_int(current["dealt"]),
        retired,
    )


def table_actions(data: dict[str, Any]) -> frozenset[str] | None:
    """The view's ``table_actions`` (a server from before them sends none: None)."""
    offered = data.get("table_actions")
    if offered is None:
        return None
    return frozenset(fields.as_str(a) for a in fields.as_list(offered))


def _dealer(data: Any) -> Dealer:
    cards = tuple(c if isinstance(c, str) else None for c in data["cards"])
    total = hand_total(c for c in cards if c is not None)
    return Dealer(
        cards=cards,
        total_text=total.text if any(c is not None for c in cards) else None,
        hole_revealed=bool(data["hole_revealed"]),
    )


def _seat(data: Any) -> Seat:
    return Seat(
        seat=fields.as_int(data["seat"]),
        mine=bool(data["mine"]),
        wagers=fields.cents(data["wagers"]),
        insurance_decided=bool(data["insurance_decided"]),
        hands=tuple(_hand(h) for h in data["hands"]),
    )


def _hand(data: Any) -> Hand:
    cards = tuple(c if isinstance(c, str) else None for c in data["cards"])
    total = hand_total(c for c in cards if c is not None)
    return Hand(
        index=fields.as_int(data["index"]),
        cards=cards,
        total=total.best,
        soft=total.soft,
        total_text=total.text,
        wagers=fields.cents(data["wagers"]),
        done=bool(data["done"]),
        settled=bool(data["settled"]),
    )


def _settlement(data: Any) -> Settlement:
    return Settlement(
        wager=str(data["wager"]),
        hand=fields.as_int(data["hand"]),
        stake=fields.as_int(data["stake"]),
        paid=fields.as_int(data["paid"]),
        outcome=str(data["outcome"]),
        line=str(data["line"]),
    )


def _meter(data: Any) -> ProgressiveMeter:
    down = data.get("unavailable")
    return ProgressiveMeter(
        wager=str(data["wager"]),
        name=str(data["name"]),
        amount=0 if down is not None else fields.as_int(data["amount"]),
        must_hit_by=fields.opt_int(data.get("must_hit_by")),
        unavailable=None if down is None else str(down),
    )


def _result(data: Any) -> RoundResult:
    return RoundResult(
        round=data["round"],
        dealer=tuple(str(c) for c in data["dealer"]),
        dealer_total=fields.opt_int(data["dealer_total"]),
        settlements=tuple(_settlement(s) for s in data["settlements"]),
        net=fields.as_int(data["net"]),
    )
