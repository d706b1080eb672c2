"""The Magic Card and the Lucky Bonus position a table game system draws for the Five Card
Hand Bonus Wager (58 Pa. Code 653a.1, 653a.12(e)(3); Caribbean Stud Poker's 639a.1), shared by
the tables that offer it.

Drawn each round from the certified HMAC_DRBG instantiated with the seed material of the
round's own deck and that personalization plus the game's suffix: the draw is sealed in the
deck's commitment before the first card, revealed with it, repeatable by ``etg verify`` and
identical after a crash and restart.

Entry point: :func:`bonus_draws`.
"""

from __future__ import annotations

from typing import Protocol

from game_server.rng.drbg import HmacDrbg, RandomStream
from game_server.rng.shoe import ShoeSeed
from shared.cards import CARDS, Card

__all__ = ["BonusDrawTerms", "bonus_draws"]


class BonusDrawTerms(Protocol):
    """What the draw reads of a table's rules."""

    @property
    def seats(self) -> int: ...

    @property
    def magic_card_bonus(self) -> bool: ...

    @property
    def lucky_bonus(self) -> bool: ...


def bonus_draws(
    seed: ShoeSeed, terms: BonusDrawTerms, personalization: bytes
) -> tuple[Card | None, int | None]:
    """The Magic Card and the Lucky Bonus position of the round dealt from the deck of
    ``seed``: uniform over the 52 cards and over the positions 0 (dealer) .. seats, from
    HMAC_DRBG with the deck's seed material and its personalization + ``personalization``;
    None for a bonus the table does not pay."""
    if not (terms.magic_card_bonus or terms.lucky_bonus):
        return None, None
    drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization + personalization)
    stream = RandomStream(drbg)
    magic = CARDS[stream.randbelow(len(CARDS))]
    lucky = stream.randbelow(terms.seats + 1)
    return (
        magic if terms.magic_card_bonus else None,
        lucky if terms.lucky_bonus else None,
    )
