"""How recall writes cards, balances and times: the words below the timeline
(:mod:`game_server.recall.timeline` re-exports them), shared by every game's recall.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from shared.cards import Card
from shared.money import format_money

__all__ = ["FACE_DOWN", "balances_text", "card_field", "card_text", "cards_text", "short_time"]

#: How recall writes a card still sealed (dealt face down in a round in play:
#: :mod:`game_server.table.secrecy`).
FACE_DOWN: Final = "a card face down"


def card_text(card: Card | None) -> str:
    """A card as recall writes it (``"Q♦"``; :data:`FACE_DOWN` while it is sealed)."""
    return FACE_DOWN if card is None else card.symbol


def card_field(card: Card | None) -> str | None:
    """A card as recall's data gives it (``"QD"``; None while it is sealed)."""
    return None if card is None else str(card)


def cards_text(cards: Iterable[Card]) -> str:
    """Cards as recall writes them, one space between."""
    return " ".join(card.symbol for card in cards)


def balances_text(terminals: Iterable[str], balances: Iterable[int]) -> str:
    """``"T1 $100.00, T2 $0.00"``."""
    return ", ".join(f"{t} {format_money(b)}" for t, b in zip(terminals, balances, strict=False))


def short_time(text: str) -> str:
    """A stored time to milliseconds: ``"2026-11-29T15:59:33.795589Z"`` ->
    ``"2026-11-29 15:59:33.795Z"`` (unchanged if it is not in the stored form)."""
    if len(text) == 27 and text[10] == "T" and text.endswith("Z"):
        return f"{text[:10]} {text[11:23]}Z"
    return text
