"""The card source of an engine, and the check of a round dealt from ONE freshly shuffled
52-card deck (the poker-style stadium games: a card dealt twice in a round means the source
is wrong, and the table goes out of service).

Entry points: :class:`CardSource`, :class:`DeckError`, :func:`draw_once`.
"""

from __future__ import annotations

from typing import Protocol

from game_server.rules.errors import RulesError
from shared.cards import Card

__all__ = ["CardSource", "DeckError", "draw_once"]


class CardSource(Protocol):
    """Where the engine takes cards from: the shoe, a stacked deck, or logged cards."""

    @property
    def position(self) -> int:
        """0-based place in the deck's order of the next card :meth:`draw` returns."""
        ...

    def draw(self) -> Card:
        """Take the next card."""
        ...


class DeckError(RulesError):
    """The card source dealt a card this round already holds: one 52-card deck per round."""


def draw_once(source: CardSource, dealt: set[Card]) -> tuple[Card, int]:
    """The next card of ``source`` and its deck position, added to ``dealt`` (the round's
    cards so far).

    Raises:
        DeckError: the card is already in ``dealt``.
    """
    position = source.position
    card = source.draw()
    if card in dealt:
        raise DeckError(
            f"the card source dealt {card} twice in one round (position {position}); a round "
            "is dealt from one 52-card deck: take the table out of service"
        )
    dealt.add(card)
    return card, position
