"""A Caribbean Stud Poker view as the terminal reads it: the common view and the table's own
keys (the meters, the qualifying line, this terminal's hand and the Bet it would make).
Free of pygame.

The view sends its meters as ``"progressive_meters"`` (name -> cents) with the Must-Hit-By
Mystery Bonus's ``"must_hit_by"`` amount beside them; they are read into the common view's
:attr:`~terminal_client.model.view.View.meters`, which the platform's meters panel draws.

Entry points: :class:`CaribbeanView`, :func:`parse_caribbean_view`, :func:`demo_decision`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from shared.cards import parse_card
from shared.games.caribbean.strategy import simple_bet
from terminal_client.model.view import ProgressiveMeter, SeatedView, parse_common_view

if TYPE_CHECKING:
    from terminal_client.model.state import TerminalModel

__all__ = ["CaribbeanView", "caribbean_of", "demo_decision", "parse_caribbean_view"]

#: The view's meter names -> (the wager it pays, its title on the meters panel).
METERS: Final[Mapping[str, tuple[str, str]]] = MappingProxyType(
    {
        "progressive": ("progressive", "Progressive Payout"),
        "five_card": ("five_card_player", "Five Card Bonus"),
        "must_hit_by": ("must_hit_by", "Must-Hit-By Mystery Bonus"),
    }
)

#: The hand names (639a.6(b), as the server's view gives them) of a pair or better.
PAIR_OR_BETTER: Final = frozenset(
    {
        "Royal flush",
        "Straight flush",
        "Four-of-a-kind",
        "Full house",
        "Flush",
        "Straight",
        "Three-of-a-kind",
        "Two pair",
        "Pair",
    }
)


@dataclass(frozen=True)
class CaribbeanView(SeatedView):
    """The common :attr:`view` and what the Caribbean Stud screen draws besides."""

    meters: Mapping[str, int] = field(default_factory=dict)
    qualifying: str = ""
    hand: str | None = None
    dealer_hand: str | None = None
    bet_amount: int | None = None
    must_hit_by: Mapping[str, Any] | None = None
    #: Whether this terminal's seat folded its hand (the view's seat's ``"folded"``).
    folded: bool = False


def parse_caribbean_view(data: Any) -> CaribbeanView:
    """The common keys (:func:`parse_common_view`) and the table's own."""
    view = parse_common_view(data)
    raw = data.get("progressive_meters")
    meters = {str(k): int(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
    mystery = data.get("must_hit_by") if isinstance(data.get("must_hit_by"), dict) else None
    if not view.meters and meters:
        view = replace(view, meters=_common_meters(meters, mystery))
    return CaribbeanView(
        view,
        meters,
        str(data.get("qualifying") or ""),
        data.get("hand"),
        data.get("dealer_hand"),
        data.get("bet_amount"),
        mystery,
        any(
            isinstance(seat, dict) and seat.get("mine") and seat.get("folded") is True
            for seat in data.get("seats") or ()
        ),
    )


def _common_meters(
    meters: Mapping[str, int], mystery: Mapping[str, Any] | None
) -> tuple[ProgressiveMeter, ...]:
    """The view's meters as the common view's (633b.6(d), 605a.7: displayed), the
    Must-Hit-By meter with what it must hit by (never its secret trigger, 639b.1(c)(3))."""
    out = []
    for name, cents in meters.items():
        wager, title = METERS.get(name, (name, name.replace("_", " ").title()))
        must = None
        if name == "must_hit_by" and mystery is not None and mystery.get("must_hit_by"):
            must = int(mystery["must_hit_by"])
        out.append(ProgressiveMeter(wager, title, cents, must))
    return tuple(out)


def caribbean_of(model: TerminalModel) -> CaribbeanView | None:
    """The model's last view when it is of a Caribbean Stud Poker table; else None."""
    read = model.game_view
    return read if isinstance(read, CaribbeanView) else None


def demo_decision(hand: str | None, cards: Sequence[str], up_card: str) -> str:
    """The published simple strategy (:mod:`shared.games.caribbean.strategy`; the server's
    ``rules.strategy`` plays it with 109 ace-king exceptions found by exact enumeration, worth
    0.0002% of the Ante): ``"bet"`` or ``"fold"``."""
    ranks = sorted((parse_card(c).rank for c in cards), reverse=True)
    bets = simple_bet(hand in PAIR_OR_BETTER, ranks, parse_card(up_card).rank)
    return "bet" if bets else "fold"
