"""The wager framework (DESIGN.md "Wagers").

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
from typing import NamedTuple

from game_server.rules.limits import WagerLimits
from shared.cards import Card
from shared.money import StakePay


class Moment(StrEnum):
    """When during the round a side wager is settled."""

    AFTER_DEAL = "after-deal"
    """The initial cards are dealt (the dealer's up card is known, the hole card is not)."""
    AFTER_HOLE_CARD = "after-hole-card"
    """The dealer's hole card has been turned face up (e.g. 633b.8(d))."""
    AFTER_ROUND = "after-round"
    """The dealer's hand is final."""


class TableType(StrEnum):
    """The kinds of Blackjack table of 58 Pa. Code 605a and 633b.5."""

    FULLY_AUTOMATED = "fully-automated"
    HYBRID = "hybrid"
    HYBRID_NO_HOLE_CARD = "hybrid-no-hole-card"


@dataclass(frozen=True, slots=True)
class PaytableLine:
    """One line of a paytable: the hand as the regulation names it, and what it pays."""

    name: str
    pay: StakePay


@dataclass(frozen=True, slots=True)
class Paytable:
    """A named paytable, lines from the highest-paying hand down."""

    name: str
    lines: tuple[PaytableLine, ...]
    _by_name: Mapping[str, PaytableLine] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {line.name: line for line in self.lines})

    def line(self, name: str) -> PaytableLine:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.name} has no line {name!r}") from None


class SideWagerContext(NamedTuple):
    """The cards a side wager is evaluated on, at its settlement moment.

    Attributes:
        player_cards: the player's first two cards (the initial hand of the seat).
        dealer_cards: the dealer's cards known at this moment (two after the hole card is
            turned up; the final hand after the round).
        decks: the number of decks in the shoe.
    """

    player_cards: tuple[Card, ...]
    dealer_cards: tuple[Card, ...]
    decks: int


Evaluate = Callable[[SideWagerContext, Paytable], PaytableLine | None]


@dataclass(frozen=True)
class SideWager:
    """The declaration of one side wager."""

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


@dataclass(frozen=True, slots=True)
class SideWagerOffer:
    """A side wager as one table offers it: the paytable selected and the limits."""

    wager: SideWager
    paytable: Paytable
    limits: WagerLimits
