"""The shoe: a certified DRBG shuffle of 1-8 decks, its commitment, and a stacked shoe.

Entry points:

- :class:`ShoeSeed`: the seed material of one shoe (entropy input, nonce, personalization),
  logged sealed at commitment and in the clear at reveal.
- :class:`Shoe`: builds ``decks`` standard decks in code order and shuffles them with
  :func:`fisher_yates` driven by an :class:`~game_server.rng.drbg.HmacDrbg` instantiated from
  the seed (NIST SP 800-90A 10.1.2), through a
  :class:`~game_server.rng.drbg.RandomStream` (rejection sampling, no modulo bias).
- :func:`verify_reveal`: what an investigator runs to regenerate a revealed shoe and check
  it against the commitment logged before the first card was dealt.
- :class:`StackedShoe`: the same dealing interface over cards given in order, for scenario
  tests and replay.

Both shoes satisfy the rules engine's ``CardSource`` (a ``position`` and ``draw()``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

from game_server.rng.drbg import HmacDrbg, RandomStream, check_seed_material
from game_server.rng.errors import BadDeckCount, BadRange, BadSeedMaterial, ShoeExhausted
from shared.cards import Card, parse_cards, standard_deck
from shared.errors import CardError

#: Deck counts a shoe may hold.
ALLOWED_DECKS: Final = (1, 2, 4, 6, 8)
#: Bytes of entropy input and nonce in a fresh seed: 256 and 128 bits (SP 800-90A 8.6.3, 8.6.7).
SEED_ENTROPY_BYTES: Final = 32
SEED_NONCE_BYTES: Final = 16

T = TypeVar("T")


class EntropyInput(Protocol):
    """Where a fresh seed's bytes come from: an :class:`~game_server.rng.entropy.EntropySource`."""

    def get_entropy(self, n: int) -> bytes: ...


class IntegerSource(Protocol):
    """What :func:`fisher_yates` draws from: a :class:`~game_server.rng.drbg.RandomStream`."""

    def randbelow(self, n: int) -> int: ...


@dataclass(frozen=True, slots=True)
class ShoeSeed:
    """The seed material of one shoe: HMAC_DRBG's entropy input, nonce and personalization.

    Secret until the shoe is revealed, so ``repr`` shows only the personalization.

    Raises:
        BadSeedMaterial: the entropy input is shorter than 32 bytes or the nonce shorter than
            16 bytes (SP 800-90A 8.6.3, 8.6.7).
    """

    entropy_input: bytes
    nonce: bytes
    personalization: bytes

    def __post_init__(self) -> None:
        for name in ("entropy_input", "nonce", "personalization"):
            if not isinstance(getattr(self, name), bytes):
                raise BadSeedMaterial(f"shoe seed {name} must be bytes")
        check_seed_material(self.entropy_input, self.nonce, self.personalization)

    def __repr__(self) -> str:
        return f"ShoeSeed(personalization={self.personalization!r}, <secret until revealed>)"

    @classmethod
    def fresh(cls, entropy_source: EntropyInput, table_id: str, shoe_number: int) -> ShoeSeed:
        """A new seed: 32 bytes of entropy input and a 16-byte nonce from the entropy source,
        personalized with ``"{table_id}/{shoe_number}"`` (SP 800-90A 8.7.1).

        Raises:
            EntropyHealthError: the entropy source failed a health test.
        """
        return cls(
            entropy_source.get_entropy(SEED_ENTROPY_BYTES),
            entropy_source.get_entropy(SEED_NONCE_BYTES),
            _personalization(table_id, shoe_number),
        )

    @classmethod
    def from_test_seed(cls, seed: int, table_id: str = "test", shoe_number: int = 0) -> ShoeSeed:
        """A deterministic seed derived from an integer, FOR SIMULATIONS AND TESTS ONLY.

        The entropy input is ``SHA-256(b"etg test seed entropy:" + str(seed))`` and the nonce
        the first 16 bytes of ``SHA-256(b"etg test seed nonce:" + str(seed))``: anyone who
        knows the integer knows the shoe. A live table always uses :meth:`fresh`.
        """
        text = str(seed).encode()
        return cls(
            hashlib.sha256(b"etg test seed entropy:" + text).digest(),
            hashlib.sha256(b"etg test seed nonce:" + text).digest()[:SEED_NONCE_BYTES],
            _personalization(table_id, shoe_number),
        )

    def to_dict(self) -> dict[str, str]:
        """The seed as lowercase hex strings, for the event log."""
        return {
            "entropy_input": self.entropy_input.hex(),
            "nonce": self.nonce.hex(),
            "personalization": self.personalization.hex(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> ShoeSeed:
        """The inverse of :meth:`to_dict`.

        Raises:
            BadSeedMaterial: a key is missing or extra, or a value is not a hex string.
        """
        keys = {"entropy_input", "nonce", "personalization"}
        if set(data) != keys:
            raise BadSeedMaterial(
                f"a shoe seed has exactly the keys {sorted(keys)}, got {sorted(map(str, data))}"
            )
        values: dict[str, bytes] = {}
        for key in sorted(keys):
            text = data[key]
            try:
                if not isinstance(text, str):
                    raise ValueError
                values[key] = bytes.fromhex(text)
            except ValueError:
                raise BadSeedMaterial(
                    f"shoe seed {key} must be a string of hex digits, got {text!r}"
                ) from None
        return cls(values["entropy_input"], values["nonce"], values["personalization"])


def _personalization(table_id: str, shoe_number: int) -> bytes:
    if not table_id:
        raise BadSeedMaterial("a shoe seed needs a table id for its personalization string")
    if shoe_number < 0:
        raise BadSeedMaterial(f"shoe number must be 0 or more, got {shoe_number}")
    return f"{table_id}/{shoe_number}".encode()


def fisher_yates(items: MutableSequence[T], stream: IntegerSource) -> None:
    """Shuffle ``items`` in place: Fisher-Yates as Durstenfeld wrote it.

    For ``i`` from ``len - 1`` down to 1, swap ``items[i]`` with ``items[j]`` where
    ``j = stream.randbelow(i + 1)``. With an unbiased ``randbelow`` every order is equally
    likely. This is the certified shuffle: :class:`Shoe` uses it and nothing else.
    """
    randbelow = stream.randbelow
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(i + 1)
        items[i], items[j] = items[j], items[i]


class _Dealing:
    """Dealing cards from a fixed order: the part :class:`Shoe` and :class:`StackedShoe` share.

    ``position`` is a plain attribute so that both shoes satisfy ``CardSource`` however it
    declares it; read it, never assign it.
    """

    __slots__ = ("_order", "_shuffle_at", "position")

    _order: tuple[Card, ...]
    _shuffle_at: int
    #: 0-based index in :attr:`order` of the next card :meth:`draw` returns.
    position: int

    def draw(self) -> Card:
        """The next card of the shoe.

        Raises:
            ShoeExhausted: every card was dealt.
        """
        position = self.position
        try:
            found = self._order[position]
        except IndexError:
            raise ShoeExhausted(
                f"the shoe is empty: all {len(self._order)} cards were dealt; shuffle a new "
                "shoe before dealing (check the cut card)"
            ) from None
        self.position = position + 1
        return found

    @property
    def order(self) -> tuple[Card, ...]:
        """Every card of the shoe in dealing order."""
        return self._order

    @property
    def remaining(self) -> int:
        """Cards not dealt yet."""
        return len(self._order) - self.position

    @property
    def needs_shuffle(self) -> bool:
        """True when the shoe should be replaced before the next round."""
        return self.position >= self._shuffle_at

    def order_bytes(self) -> bytes:
        """The canonical encoding of the order: one byte per card, its code 0..51
        (``(rank - 2) * 4 + suit``, suits C=0 D=1 H=2 S=3), in dealing order."""
        return bytes(self._order)

    def commitment(self, salt: bytes) -> str:
        """Hex ``SHA-256(order_bytes() || salt)``, logged before the first card is dealt."""
        return hashlib.sha256(self.order_bytes() + salt).hexdigest()


class Shoe(_Dealing):
    """``decks`` standard decks shuffled by HMAC_DRBG from ``seed``.

    The DRBG is instantiated with the seed (SP 800-90A 10.1.2.3), the cards are
    ``decks`` copies of :func:`~shared.cards.standard_deck` in code order, and
    :func:`fisher_yates` shuffles them with a :class:`~game_server.rng.drbg.RandomStream`
    over that DRBG. The same seed and deck count always give the same order.

    Args:
        decks: 1, 2, 4, 6 or 8.
        seed: the seed material.
        cut_card: index in the order where the cut card lies: once :attr:`position` reaches
            it, :attr:`needs_shuffle` is True. ``None`` (the default) means a new shoe every
            round: :attr:`needs_shuffle` is True as soon as one card was dealt.

    Raises:
        BadDeckCount: ``decks`` is not one of 1, 2, 4, 6, 8.
        BadRange: the cut card is not inside the shoe.
    """

    __slots__ = ("cut_card", "decks", "seed")

    def __init__(self, decks: int, seed: ShoeSeed, *, cut_card: int | None = None) -> None:
        if isinstance(decks, bool) or not isinstance(decks, int) or decks not in ALLOWED_DECKS:
            raise BadDeckCount(
                f"a shoe holds 1, 2, 4, 6 or 8 decks, not {decks!r}: fix the table's deck count"
            )
        size = 52 * decks
        if cut_card is not None and not 1 <= cut_card <= size:
            raise BadRange(
                f"cut card at {cut_card} is outside the {size}-card shoe: place it at 1..{size}"
            )
        cards = list(standard_deck()) * decks
        drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization)
        RandomStream(drbg).shuffle(cards)  # fisher_yates(), inlined
        self._order = tuple(cards)
        self._shuffle_at = 1 if cut_card is None else cut_card
        self.position = 0
        self.decks = decks
        self.seed = seed
        self.cut_card = cut_card

    def __repr__(self) -> str:
        return (
            f"Shoe(decks={self.decks}, {self.seed!r}, position={self.position}, "
            f"cut_card={self.cut_card})"
        )


def verify_reveal(seed: ShoeSeed, decks: int, commitment: str, salt: bytes) -> bool:
    """Whether a revealed seed regenerates the shoe that was committed to.

    Rebuilds :class:`Shoe` from ``seed`` and ``decks`` and compares its
    :meth:`~Shoe.commitment` with ``commitment`` (hex, any case).

    Raises:
        BadDeckCount: ``decks`` is not a deck count a shoe can hold.
    """
    regenerated = Shoe(decks, seed).commitment(salt)
    return hmac.compare_digest(regenerated, commitment.lower())


class StackedShoe(_Dealing):
    """Cards dealt in the order given: for scenario tests and for replay.

    Args:
        cards: the cards in dealing order, as text (``"AS 10D 7C"``) or a sequence of
            :class:`~shared.cards.Card`.
        start_position: index of the first card to deal (replay can resume mid-shoe).

    :attr:`needs_shuffle` stays False until every card was dealt.

    Raises:
        CardError: the text is not cards, or an item is not a ``Card``.
        BadRange: ``start_position`` is outside ``0..len(cards)``.
    """

    __slots__ = ()

    def __init__(self, cards: str | Sequence[Card], start_position: int = 0) -> None:
        order = parse_cards(cards) if isinstance(cards, str) else tuple(cards)
        for item in order:
            if not isinstance(item, Card):
                raise CardError(f"{item!r} is not a Card: pass Card objects or card text")
        if not 0 <= start_position <= len(order):
            raise BadRange(
                f"start position {start_position} is outside this {len(order)}-card shoe"
            )
        self._order = order
        self._shuffle_at = len(order)
        self.position = start_position

    def __repr__(self) -> str:
        return f"StackedShoe({len(self._order)} cards, position={self.position})"
