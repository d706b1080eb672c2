"""A Caribbean Stud Poker view as the terminal reads it: the common view and the table's own
keys (the meters, the qualifying line, this terminal's hand and the Bet it would make).
Free of pygame.

Entry points: :class:`CaribbeanView`, :func:`parse_caribbean_view`, :func:`demo_decision`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from shared.cards import JACK, KING, QUEEN, parse_card
from terminal_client.model.view import View, parse_common_view

__all__ = ["CaribbeanView", "demo_decision", "parse_caribbean_view"]

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
ACE: Final = 14


@dataclass(frozen=True)
class CaribbeanView:
    """The common :attr:`view` and what the Caribbean Stud screen draws besides."""

    view: View
    meters: Mapping[str, int] = field(default_factory=dict)
    qualifying: str = ""
    hand: str | None = None
    dealer_hand: str | None = None
    bet_amount: int | None = None
    must_hit_by: Mapping[str, Any] | None = None

    @property
    def joined(self) -> bool:
        return self.view.my_seat is not None


def parse_caribbean_view(data: Any) -> CaribbeanView:
    """The common keys (:func:`parse_common_view`) and the table's own."""
    view = parse_common_view(data)
    meters = data.get("progressive_meters")
    return CaribbeanView(
        view,
        {str(k): int(v) for k, v in meters.items()} if isinstance(meters, dict) else {},
        str(data.get("qualifying") or ""),
        data.get("hand"),
        data.get("dealer_hand"),
        data.get("bet_amount"),
        data.get("must_hit_by") if isinstance(data.get("must_hit_by"), dict) else None,
    )


def demo_decision(hand: str | None, cards: Sequence[str], up_card: str) -> str:
    """The published simple strategy (Wizard of Odds, "Caribbean Stud Poker"; the server's
    ``rules.strategy`` plays the same in ``etg sim``): bet with a pair or better; fold below
    ace-king; with ace-king bet if the dealer's up card (2 to queen) matches one of the
    player's ranks, or is an ace or king and the player holds a queen or jack, or matches
    none and is below the player's fourth highest card; else fold."""
    if hand in PAIR_OR_BETTER:
        return "bet"
    ranks = sorted((parse_card(c).rank for c in cards), reverse=True)
    if ranks[:2] != [ACE, KING]:
        return "fold"
    up = parse_card(up_card).rank
    if up <= QUEEN and up in ranks:
        return "bet"
    if up >= KING and (QUEEN in ranks or JACK in ranks):
        return "bet"
    if up not in ranks and up < ranks[3]:
        return "bet"
    return "fold"
