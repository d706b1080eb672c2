"""Blackjack hand totals as a terminal shows them, from the cards' text in a view.

The server sends each hand's cards as text (``"AS"``, ``"TD"``, ``"7C"``). An ace counts 11
while that keeps the hand at 21 or under (a *soft* total) and 1 otherwise; a soft total reads
``"7/17"`` (both counts), a hard one or a soft 21 reads ``"17"`` / ``"21"``, and a hand
over 21 reads ``"BUST"``.

Entry points: :func:`hand_total`, :func:`format_total`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from shared.cards import blackjack_value, parse_card


@dataclass(frozen=True)
class Total:
    """A hand's best total and whether an ace still counts 11 in it."""

    best: int
    soft: bool

    @property
    def text(self) -> str:
        """``"7/17"`` when soft and under 21, ``"BUST"`` over 21, else the best total."""
        return format_total(self.best, self.soft)


def hand_total(cards: Iterable[object]) -> Total:
    """The total of cards given as text; ``{"hidden": true}`` entries (and other non-text)
    are skipped, so a dealer showing one card gets the total of that card.

    Raises:
        shared.errors.CardError: a text that is not a card.
    """
    hard = 0
    aces = 0
    for text in cards:
        if not isinstance(text, str):
            continue
        value = blackjack_value(parse_card(text))
        hard += value
        aces += value == 1
    if aces and hard + 10 <= 21:
        return Total(hard + 10, True)
    return Total(hard, False)


#: What a hand over 21 shows instead of its total.
BUST = "BUST"


def format_total(best: int, soft: bool) -> str:
    """``format_total(17, True) == "7/17"``; a hard total or a soft 21 is one number; a hand
    over 21 is :data:`BUST` (the dealer's 26 too)."""
    if best > 21:
        return BUST
    if soft and best < 21:
        return f"{best - 10}/{best}"
    return str(best)
