"""The wager framework (docs/design.md "Wagers").

A :class:`SideWager` is a declaration: its regulation section, when it settles
(:class:`Moment`), what it requires, its limits (fixed amounts, a cap relative to the main
wager, allowed deck counts, table types) and its paytables as data, named exactly as the
regulation names them. Its ``evaluate`` is a pure function of the cards in a
:class:`SideWagerContext` that returns the winning :class:`PaytableLine`, or ``None`` for a
losing wager. A table offers a wager through a :class:`SideWagerOffer`: the wager, the paytable
selected in the Rules Submission, and the limits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import NamedTuple

from game_server.rules.errors import RulesError
from game_server.rules.limits import WagerLimits
from shared.cards import Card
from shared.errors import MoneyError
from shared.money import MeterShare, Pay, parse_pay

#: A wager's options from the Rules Submission (633b.6 chosen suit, 633b.9(h) procedure, ...).
Options = Mapping[str, str | int | bool]
NO_OPTIONS: Options = MappingProxyType({})


# Outcomes of a settled wager, whatever the game.
WON = "won"
LOST = "lost"
PUSHED = "pushed"


class Moment(StrEnum):
    """When during the round a side wager is settled."""

    AFTER_DEAL = "after-deal"
    """The initial cards are dealt (the dealer's up card is known, the hole card is not)."""
    AFTER_PEEK = "after-peek"
    """The dealer has determined whether he has a Blackjack, before any further card
    (633b.6(g), 633b.10(g)): the context holds the dealer's two cards; the hole card is
    shown to players only if it is a Blackjack."""
    AFTER_HOLE_CARD = "after-hole-card"
    """The dealer's hole card has been turned face up (e.g. 633b.8(d))."""
    AFTER_ROUND = "after-round"
    """The dealer's hand is final."""


class TableType(StrEnum):
    """The kinds of Blackjack table of 58 Pa. Code 605a and 633b.5."""

    FULLY_AUTOMATED = "fully-automated"
    HYBRID = "hybrid"
    HYBRID_NO_HOLE_CARD = "hybrid-no-hole-card"


class ReserveUse(StrEnum):
    """What a meter's reserve (its secondary contributions, 633b.10(i) "Secondary Seed",
    635b.1(j) "secondary incrementation rate") is for, as the Rules Submission states it
    (the regulation does not say; docs/decisions.md).

    The guard counts the long-run return by it
    (:mod:`game_server.rules.meter_returns`)."""

    RESEED = "reseed"
    """It funds the reseeds before the house does; what it holds beyond is not paid out
    (the default: how the meters have always run)."""
    PLAYERS = "players"
    """It is the players' money: it holds at most one reset amount, and the secondary
    contributions beyond that go to the meter; the house adds only what it lacks."""


@dataclass(frozen=True, slots=True)
class PaytableLine:
    """One line of a paytable: the hand as the regulation names it, and what it pays
    (``MeterShare`` for a progressive line, resolved by the table's meters)."""

    name: str
    pay: Pay


@dataclass(frozen=True, slots=True)
class MeterSpec:
    """A progressive meter a paytable feeds, as the regulation or Rules Submission sets it.

    Money in integer cents; rates in basis points of each wager (600 = 6%, 325 = 3.25%).

    Attributes:
        name: The meter as the regulation names it ("Star Progressive").
        seed: The initial amount.
        reseed: The amount after a jackpot is paid.
        increment_bp: The share of each wager added to the meter.
        secondary_bp: The share of each wager put aside to fund the next reseed
            (633b.10(i) "Secondary Seed"); 0 when none.
        must_hit_by: A mystery meter's "Random Must Hit By" amount (633b.6(j)); None
            otherwise.
        reserve: What the reserve is for (:class:`ReserveUse`); it matters only with a
            secondary rate.
    """

    name: str
    seed: int
    reseed: int
    increment_bp: int
    secondary_bp: int = 0
    must_hit_by: int | None = None
    reserve: ReserveUse = ReserveUse.RESEED


@dataclass(frozen=True, slots=True)
class Paytable:
    """A named paytable, lines from the highest-paying hand down."""

    name: str
    lines: tuple[PaytableLine, ...]
    meters: tuple[MeterSpec, ...] = ()
    _by_name: Mapping[str, PaytableLine] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {line.name: line for line in self.lines})

    def line(self, name: str) -> PaytableLine:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.name} has no line {name!r}") from None


class SideWagerContext(NamedTuple):
    """What a side wager is evaluated on, at its settlement moment. The engine always passes
    every field (it builds the tuple directly, without defaults).

    Attributes:
        player_cards: the player's first two cards (the initial hand of the seat).
        dealer_cards: the dealer's cards at this moment: the up card only after the deal
            (:attr:`Moment.AFTER_DEAL`), two after the peek or the hole card, the final hand
            (bust card included) after the round.
        decks: the number of decks in the shoe.
        dealer_blackjack: the dealer's first two cards are a Blackjack (False after the
            deal, when nobody knows yet).
        player_hands: the seat's hands, each hand's cards in the order dealt (one hand
            before any split; the final hands after the round).
        stake: the amount of this side wager, in cents.
        main: the seat's Blackjack wager, in cents.
        options: the wager's options from the Rules Submission.
    """

    player_cards: tuple[Card, ...]
    dealer_cards: tuple[Card, ...]
    decks: int
    dealer_blackjack: bool
    player_hands: tuple[tuple[Card, ...], ...]
    stake: int
    main: int
    options: Options


Evaluate = Callable[[SideWagerContext, Paytable], PaytableLine | None]

#: An award besides a paytable line: (what it is for, cents).
Bonus = tuple[str, int]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of a wager that the Rules Submission chooses (633b.6 the chosen suit,
    633b.9(h) the alternate procedure, 633b.13(i) the cash bonus, ...).

    Attributes:
        choices: The values allowed (text, whole numbers or booleans).
        default: The value when the Rules Submission does not say.
        cite: The paragraph that offers the option, e.g. ``"(h)"``.
        text: One line for the Rules Submission's reader.
    """

    choices: tuple[str | int | bool, ...]
    default: str | int | bool
    cite: str
    text: str


@dataclass(frozen=True)
class SideWager:
    """The declaration of one side wager.

    ``cites`` names the paragraph of :attr:`section` behind each limit, so an error can cite
    it: keys ``"paytables"``, ``"table_types"``, ``"allowed_decks"``, ``"fixed_amounts"``,
    ``"max_multiple_of_main"``, ``"requires"``, ``"meters"``. ``options`` are what the
    Rules Submission chooses for this wager; ``deck_paytables`` (633b.11(j)) fixes the
    paytable by the number of decks, so the Rules Submission cannot choose another.
    """

    name: str
    title: str
    section: str
    settles_at: Moment
    paytables: Mapping[str, Paytable]
    evaluate: Evaluate
    requires: tuple[str, ...] = ("blackjack",)
    table_types: frozenset[TableType] | None = None
    allowed_decks: frozenset[int] | None = None
    fixed_amounts: tuple[int, ...] = ()
    max_multiple_of_main: int | None = None
    cites: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, OptionSpec] = field(default_factory=dict)
    deck_paytables: Mapping[int, str] | None = None
    paytable_from_lines: Callable[[str, Mapping[str, str]], Paytable] | None = None
    """Builds a paytable the Rules Submission states line by line, for a wager whose
    paytable is not in the regulation (raises a RulesError naming what is wrong)."""
    bonuses: Callable[[SideWagerContext, Mapping[int, SideWagerContext]], list[Bonus]] | None = None
    """Awards besides the paytable, settled with the wager: given this seat's context and
    every dealt seat's context (by seat number), each ``(line, cents)`` due to this seat
    (633b.10(h)(5) Envy Bonus, 633b.13(i) cash bonus)."""
    draws_on_dealer_blackjack: Callable[[tuple[Card, ...], Options], bool] | None = None
    """Given the seat's first two cards and the options: whether the seat's hand is dealt one
    more card when the dealer has Blackjack, to settle this wager (633b.9(d)(4))."""
    check_meter: Callable[[int, int, int], str | None] | None = None
    """For a progressive wager whose meter the Rules Submission sets: ``(wager, initial,
    reset)`` cents -> the problem citing the regulation, or None (633b.9(g))."""
    shared_percents: frozenset[int] | None = None
    """The meter shares (percent) that the round's winners of one meter share equally; any
    other share is paid in full to each winner in seat order from the meter as it stands.
    None: every share is shared (633b.10(j): "the same progressive jackpot amount");
    ``{100}``: only the whole meter (633b.9(e)(3))."""


@dataclass(frozen=True, slots=True)
class SideWagerOffer:
    """A side wager as one table offers it: the paytable selected, the limits, and the
    wager's options from the Rules Submission."""

    wager: SideWager
    paytable: Paytable
    limits: WagerLimits
    options: tuple[tuple[str, str | int | bool], ...] = ()
    option_map: Options = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "option_map", dict(self.options))


def context(
    player_cards: tuple[Card, ...],
    dealer_cards: tuple[Card, ...],
    decks: int,
    *,
    dealer_blackjack: bool = False,
    player_hands: tuple[tuple[Card, ...], ...] | None = None,
    stake: int = 100,
    main: int = 100,
    options: Options = NO_OPTIONS,
) -> SideWagerContext:
    """A context with defaults (tests, exact enumeration): one hand of ``player_cards``."""
    hands = (tuple(player_cards),) if player_hands is None else player_hands
    return SideWagerContext(
        tuple(player_cards),
        tuple(dealer_cards),
        decks,
        dealer_blackjack,
        hands,
        stake,
        main,
        options,
    )


class PaytableLinesError(RulesError):
    """A paytable from the Rules Submission that the wager cannot pay."""


def stated_paytable(
    name: str,
    lines: Mapping[str, str],
    *,
    title: str,
    cite: str,
    line_names: tuple[str, ...],
) -> Paytable:
    """A paytable stated in the Rules Submission (601a.10(a)), line name to pay ("25 to 1",
    "26 for 1"), for a wager whose paytable is not in our regulation text (``line_names`` are its
    hands, highest first; ``title`` and ``cite`` name it in the errors).

    A hand left out loses; the lines are ordered from the highest hand down.

    Raises:
        PaytableLinesError: no line, a name that is not a hand of the wager, a name given
            twice, a pay that is not "a to b" or "a for 1" (these wagers have no meter).
    """
    canonical = {line.casefold(): line for line in line_names}
    pays: dict[str, str] = {}
    for given, text in lines.items():
        line = canonical.get(given.strip().casefold())
        if line is None:
            raise PaytableLinesError(
                f"{name}: {given!r} is not a {title} hand; the lines are "
                f"{', '.join(repr(n) for n in line_names)} ({cite})"
            )
        if line in pays:
            raise PaytableLinesError(f"{name}: the line {line!r} is given twice")
        pays[line] = text
    if not pays:
        raise PaytableLinesError(f"{name}: a paytable needs at least one line")
    built = []
    for line in line_names:
        if line not in pays:
            continue
        try:
            pay = parse_pay(pays[line])
        except MoneyError as error:
            raise PaytableLinesError(f"{name}, line {line!r}: {error}") from None
        if isinstance(pay, MeterShare):
            raise PaytableLinesError(
                f"{name}, line {line!r}: {pays[line]!r} is a meter share, and the {title} "
                "wager has no progressive meter; write 'a to b' or 'a for 1'"
            )
        built.append(PaytableLine(line, pay))
    return Paytable(name, tuple(built))
