"""Hand arithmetic of the twenty-one games (Blackjack and its variants): point totals, soft
hands, Blackjack.

Card values follow 58 Pa. Code 633a.3(e) / 633b.5(h): 2-10 at face value, J, Q, K at 10, and
an ace at 11 unless that would put the hand over 21, then 1. A "soft" total counts an ace as 11.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from shared.cards import BJ_VALUE


def hand_total(cards: Iterable[int]) -> tuple[int, bool]:
    """The best total of ``cards`` and whether it is soft (an ace counted as 11)."""
    hard = 0
    ace = False
    for c in cards:
        v = BJ_VALUE[c]
        hard += v
        if v == 1:
            ace = True
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def is_blackjack(cards: Sequence[int]) -> bool:
    """An ace and a ten-value card as the first two cards (633a.1 "Blackjack").

    Callers decide whether the hand is an initial hand: 21 after a split is not Blackjack.
    """
    return (
        len(cards) == 2
        and BJ_VALUE[cards[0]] + BJ_VALUE[cards[1]] == 11
        and (BJ_VALUE[cards[0]] == 1 or BJ_VALUE[cards[1]] == 1)
    )


def format_total(cards: Iterable[int]) -> str:
    """Totals as players read them: ``"7/17"`` when soft, ``"17"`` when hard."""
    total, soft = hand_total(cards)
    return f"{total - 10}/{total}" if soft and total != 21 else str(total)
