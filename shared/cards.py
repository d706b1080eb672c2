"""Playing cards, shared by the server, the terminals and the tools.

A :class:`Card` is an ``int`` subclass: its value is a compact code (``rank * 4 + suit``) that
the rules engine uses on its hot path, while the object still reads as a card (``card.rank``,
``card.suit``, ``str(card) == "AS"``). There are exactly 52 card objects; :func:`card`,
:func:`parse_card` and ``Card(rank, suit)`` all return those singletons, so cards compare and
hash as fast as small integers.

Entry points: :func:`parse_cards` (``"AS 10D 7c"``), :func:`standard_deck`, :data:`CARDS`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from shared.errors import CardError

#: Rank numbers: 2..10 are face value, J=11, Q=12, K=13, A=14.
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN = range(2, 11)
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
ACE: Final = 14
RANKS: Final = tuple(range(2, 15))

#: Suit letters in code order.
SUITS: Final = ("C", "D", "H", "S")
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

_RANK_TEXT: Final = {
    2: "2",
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "T",
    JACK: "J",
    QUEEN: "Q",
    KING: "K",
    ACE: "A",
}
_TEXT_RANK: Final = {text: rank for rank, text in _RANK_TEXT.items()} | {"10": 10}
_SUIT_SYMBOL: Final = ("\u2663", "\u2666", "\u2665", "\u2660")
_SUIT_NAME: Final = ("clubs", "diamonds", "hearts", "spades")
_RANK_NAME: Final = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    JACK: "jack",
    QUEEN: "queen",
    KING: "king",
    ACE: "ace",
}


class Card(int):
    """One playing card; immutable, and equal to its compact code.

    ``Card(rank, suit)`` takes a rank number (2..14, ace high) and a suit letter ("S", "H",
    "D", "C") or suit number (0..3, clubs first) and returns the shared singleton.
    """

    __slots__ = ()

    def __new__(cls, rank: int, suit: int | str) -> Card:
        if isinstance(suit, str):
            try:
                suit = SUITS.index(suit.upper())
            except ValueError:
                raise CardError(f"unknown suit {suit!r}: use S, H, D or C") from None
        if rank not in _RANK_TEXT:
            raise CardError(f"unknown rank {rank!r}: use 2..10, 11=J, 12=Q, 13=K, 14=A")
        if not 0 <= suit < 4:
            raise CardError(f"unknown suit number {suit!r}: use 0..3 (C, D, H, S)")
        return CARDS[(rank - 2) * 4 + suit]

    @classmethod
    def _make(cls, code: int) -> Card:
        return int.__new__(cls, code)

    @property
    def code(self) -> int:
        """The compact code 0..51 (``(rank - 2) * 4 + suit``)."""
        return int(self)

    @property
    def rank(self) -> int:
        """Rank number 2..14 (J=11, Q=12, K=13, A=14)."""
        return (int(self) >> 2) + 2

    @property
    def suit(self) -> str:
        """Suit letter: "C", "D", "H" or "S"."""
        return SUITS[int(self) & 3]

    @property
    def suit_index(self) -> int:
        """Suit number 0..3 in the order C, D, H, S."""
        return int(self) & 3

    @property
    def is_ace(self) -> bool:
        return int(self) >= 48

    @property
    def symbol(self) -> str:
        """Display form with a suit symbol, e.g. ``"10♦"``."""
        rank = "10" if self.rank == 10 else _RANK_TEXT[self.rank]
        return rank + _SUIT_SYMBOL[int(self) & 3]

    @property
    def name(self) -> str:
        """Words for screen readers and reports, e.g. ``"ace of spades"``."""
        return f"{_RANK_NAME[self.rank]} of {_SUIT_NAME[int(self) & 3]}"

    def __str__(self) -> str:
        return _RANK_TEXT[(int(self) >> 2) + 2] + SUITS[int(self) & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        return (Card, (self.rank, int(self) & 3))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


CARDS: Final[tuple[Card, ...]] = tuple(Card._make(code) for code in range(52))
_BY_TEXT: Final = {str(c): c for c in CARDS}


def card(code: int) -> Card:
    """The card with compact code ``code`` (0..51)."""
    if not 0 <= code < 52:
        raise CardError(f"card code {code!r} is outside 0..51")
    return CARDS[code]


def parse_card(text: str) -> Card:
    """Parse one card: rank (2-9, T or 10, J, Q, K, A) then suit (S, H, D, C), any case.

    >>> parse_card("10d")
    Card('TD')
    """
    cleaned = text.strip().upper()
    found = _BY_TEXT.get(cleaned)
    if found is not None:
        return found
    if len(cleaned) == 3 and cleaned.startswith("10"):
        found = _BY_TEXT.get("T" + cleaned[2])
        if found is not None:
            return found
    if not cleaned:
        raise CardError("empty card text: write a rank and a suit such as 'AS' or '10D'")
    rank_text, suit_text = cleaned[:-1], cleaned[-1]
    if suit_text not in SUITS:
        raise CardError(f"{text!r} is not a card: suit {suit_text!r} is not one of S, H, D, C")
    if rank_text not in _TEXT_RANK:
        raise CardError(
            f"{text!r} is not a card: rank {rank_text!r} is not one of 2-10, T, J, Q, K, A"
        )
    raise CardError(f"{text!r} is not a card")  # pragma: no cover - every case handled above


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse cards separated by spaces or commas, e.g. ``"AS 10D 7c"``."""
    return tuple(parse_card(part) for part in text.replace(",", " ").split())


def format_cards(cards: Iterable[Card]) -> str:
    """The inverse of :func:`parse_cards`: ``"AS TD 7C"``."""
    return " ".join(str(c) for c in cards)


def standard_deck() -> tuple[Card, ...]:
    """One 52-card deck in code order (2C 2D 2H 2S 3C ... AS)."""
    return CARDS


def blackjack_value(c: Card) -> int:
    """Point value for Blackjack: 2-10 face value, J/Q/K 10, ace 1 (11 is decided by the hand).

    58 Pa. Code 633a.3(e) and 633b.5(h).
    """
    rank = (int(c) >> 2) + 2
    if rank == ACE:
        return 1
    return 10 if rank >= 10 else rank


#: Blackjack point value per card code (ace counted 1), for the engine's hot path.
BJ_VALUE: Final[tuple[int, ...]] = tuple(blackjack_value(c) for c in CARDS)
