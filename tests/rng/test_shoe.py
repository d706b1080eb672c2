"""The shoe: sizes, determinism, the shuffle's definition, commitment and reveal, stacked shoes."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game_server.rng.drbg import BLOCK_BYTES
from game_server.rng.errors import BadDeckCount, BadRange, BadSeedMaterial, ShoeExhausted
from game_server.rng.shoe import (
    ALLOWED_DECKS,
    Shoe,
    ShoeSeed,
    StackedShoe,
    verify_reveal,
)
from shared.cards import CARDS, Card, format_cards, parse_cards
from shared.errors import CardError

SEED = ShoeSeed.from_test_seed(2024, "T1", 1)
SALT = b"\x01" * 16


@runtime_checkable
class CardSource(Protocol):
    """The rules engine's view of a shoe."""

    position: int

    def draw(self) -> Card: ...


class RecordingEntropy:
    """A fake entropy source: serves counting bytes and records each request."""

    def __init__(self) -> None:
        self.requests: list[int] = []

    def get_entropy(self, n: int) -> bytes:
        self.requests.append(n)
        return bytes(range(len(self.requests), len(self.requests) + n))


# --- The shuffle, re-derived from its documentation --------------------------------------


def reference_order(decks: int, seed: ShoeSeed) -> list[Card]:
    """The shoe order computed from the documented algorithm, straight and slow.

    HMAC_DRBG (SP 800-90A 10.1.2) with ``hmac.new``; DRBG output in requests of BLOCK_BYTES;
    ``randbelow(n)`` takes the top ``(n-1).bit_length()`` bits of the next whole bytes and
    rejects values ``>= n``; Durstenfeld's Fisher-Yates from the last card down.
    """
    key, v = bytes(32), b"\x01" * 32

    def mac(k: bytes, data: bytes) -> bytes:
        return hmac.new(k, data, hashlib.sha256).digest()

    def update(data: bytes) -> None:
        nonlocal key, v
        key = mac(key, v + b"\x00" + data)
        v = mac(key, v)
        if data:
            key = mac(key, v + b"\x01" + data)
            v = mac(key, v)

    def output() -> Iterator[int]:
        nonlocal v
        update(seed.entropy_input + seed.nonce + seed.personalization)
        while True:
            block = b""
            while len(block) < BLOCK_BYTES:
                v = mac(key, v)
                block += v
            update(b"")
            yield from block[:BLOCK_BYTES]

    stream = output()

    def randbelow(n: int) -> int:
        k = (n - 1).bit_length()
        size = (k + 7) // 8
        while True:
            value = int.from_bytes(bytes(next(stream) for _ in range(size)), "big")
            value >>= 8 * size - k
            if value < n:
                return value

    cards = list(CARDS) * decks
    for i in range(len(cards) - 1, 0, -1):
        j = randbelow(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("decks", ALLOWED_DECKS)
@pytest.mark.parametrize("seed", [1, 2, 99])
def test_shoe_matches_the_documented_shuffle(decks: int, seed: int) -> None:
    """The fast shoe deals exactly the order the documented algorithm gives."""
    seed_material = ShoeSeed.from_test_seed(seed, "T9", decks)
    assert list(Shoe(decks, seed_material).order) == reference_order(decks, seed_material)


def test_shuffle_is_pinned() -> None:
    """The order for a fixed seed never changes: a change would void every logged reveal."""
    assert format_cards(Shoe(1, SEED).order) == (
        "JH 3S QH QC 5H 3D 4S 4D JS QS 2H TC 8H 6C 5C 7S JC TS 8D TD 9D 6H 2D 4H 9S KS "
        "KD QD 7D 5D KC AD 6D 3H 6S 8C KH 8S JD 5S AH 9C 9H 7H 2C 7C 2S AC AS 4C TH 3C"
    )
    assert hashlib.sha256(Shoe(8, SEED).order_bytes()).hexdigest() == (
        "ca913fd64a1f3a4c0ac8a9b03e35e024b755773f9b585e9cc89a95d767336360"
    )


# --- Sizes and deck counts ---------------------------------------------------------------


@pytest.mark.parametrize("decks", ALLOWED_DECKS)
def test_every_card_appears_once_per_deck(decks: int) -> None:
    """A shoe of d decks holds 52*d cards, each of the 52 exactly d times."""
    shoe = Shoe(decks, SEED)
    assert len(shoe.order) == shoe.remaining == 52 * decks
    assert Counter(shoe.order) == dict.fromkeys(CARDS, decks)


@pytest.mark.parametrize("decks", [0, 3, 5, 7, 9, -1, True])
def test_other_deck_counts_are_refused(decks: int) -> None:
    """Only 1, 2, 4, 6 or 8 decks make a shoe; the message says which counts are allowed."""
    with pytest.raises(BadDeckCount, match="1, 2, 4, 6 or 8 decks"):
        Shoe(decks, SEED)


def test_same_seed_same_order_different_seed_different_order() -> None:
    """A shoe is a function of its seed; the shoe number alone changes the order."""
    assert Shoe(6, SEED).order == Shoe(6, ShoeSeed.from_test_seed(2024, "T1", 1)).order
    assert Shoe(6, SEED).order != Shoe(6, ShoeSeed.from_test_seed(2024, "T1", 2)).order


# --- Dealing -----------------------------------------------------------------------------


def test_draw_deals_in_order_and_counts() -> None:
    """draw returns the order front to back; position is the index of the next card."""
    shoe = Shoe(2, SEED)
    dealt = [shoe.draw() for _ in range(10)]
    assert dealt == list(shoe.order[:10])
    assert shoe.position == 10
    assert shoe.remaining == 94


def test_empty_shoe_raises() -> None:
    """Drawing past the last card raises ShoeExhausted and leaves the position alone."""
    shoe = Shoe(1, SEED, cut_card=52)
    for _ in range(52):
        shoe.draw()
    with pytest.raises(ShoeExhausted, match="all 52 cards were dealt"):
        shoe.draw()
    assert shoe.position == 52


def test_cut_card() -> None:
    """needs_shuffle turns True when the position reaches the cut card."""
    shoe = Shoe(6, SEED, cut_card=234)
    for _ in range(233):
        shoe.draw()
    assert not shoe.needs_shuffle
    shoe.draw()
    assert shoe.needs_shuffle


def test_no_cut_card_means_a_shuffle_every_round() -> None:
    """Without a cut card the shoe needs a shuffle as soon as one card was dealt."""
    shoe = Shoe(1, SEED)
    assert shoe.cut_card is None
    assert not shoe.needs_shuffle
    shoe.draw()
    assert shoe.needs_shuffle


@pytest.mark.parametrize("cut_card", [0, -5, 53])
def test_cut_card_outside_the_shoe_is_refused(cut_card: int) -> None:
    """A cut card must lie inside the shoe."""
    with pytest.raises(BadRange, match="outside the 52-card shoe"):
        Shoe(1, SEED, cut_card=cut_card)


def test_both_shoes_are_card_sources() -> None:
    """Shoe and StackedShoe satisfy the rules engine's CardSource protocol."""
    assert isinstance(Shoe(1, SEED), CardSource)
    assert isinstance(StackedShoe("AS"), CardSource)


# --- Commitment and reveal ---------------------------------------------------------------


def test_order_bytes_are_card_codes() -> None:
    """The canonical encoding is one byte per card: its code, in dealing order."""
    assert StackedShoe("2C 2D AS").order_bytes() == bytes([0, 1, 51])


def test_commitment_is_sha256_of_order_then_salt() -> None:
    """The commitment is hex SHA-256 over the order bytes followed by the salt."""
    shoe = Shoe(1, SEED)
    expected = hashlib.sha256(shoe.order_bytes() + SALT).hexdigest()
    assert shoe.commitment(SALT) == expected


def test_reveal_verifies() -> None:
    """The revealed seed, deck count and salt regenerate the committed shoe."""
    commitment = Shoe(6, SEED).commitment(SALT)
    assert verify_reveal(SEED, 6, commitment, SALT)
    assert verify_reveal(ShoeSeed.from_dict(SEED.to_dict()), 6, commitment.upper(), SALT)


def test_reveal_fails_on_any_change() -> None:
    """Another salt, seed, deck count or a swapped pair of cards fails verification."""
    shoe = Shoe(6, SEED)
    commitment = shoe.commitment(SALT)
    assert not verify_reveal(SEED, 6, commitment, b"\x02" * 16)
    assert not verify_reveal(ShoeSeed.from_test_seed(2025, "T1", 1), 6, commitment, SALT)
    assert not verify_reveal(SEED, 8, commitment, SALT)
    swapped = list(shoe.order)
    first_other = next(i for i, c in enumerate(swapped) if c != swapped[0])
    swapped[0], swapped[first_other] = swapped[first_other], swapped[0]
    assert StackedShoe(swapped).commitment(SALT) != commitment


# --- Seeds -------------------------------------------------------------------------------


def test_fresh_seed_takes_256_bits_and_a_128_bit_nonce() -> None:
    """A fresh seed asks the entropy source for 32 then 16 bytes; personalization is table/shoe."""
    source = RecordingEntropy()
    seed = ShoeSeed.fresh(source, "BJ-07", 12)
    assert source.requests == [32, 16]
    assert seed.personalization == b"BJ-07/12"
    assert (len(seed.entropy_input), len(seed.nonce)) == (32, 16)


def test_test_seed_is_deterministic_and_distinct() -> None:
    """from_test_seed gives the same material for the same integer, other material otherwise."""
    assert ShoeSeed.from_test_seed(5, "T", 1) == ShoeSeed.from_test_seed(5, "T", 1)
    assert ShoeSeed.from_test_seed(5).entropy_input != ShoeSeed.from_test_seed(6).entropy_input


@given(
    entropy=st.binary(min_size=32, max_size=64),
    nonce=st.binary(min_size=16, max_size=32),
    personalization=st.binary(max_size=40),
)
def test_seed_dict_round_trip(entropy: bytes, nonce: bytes, personalization: bytes) -> None:
    """to_dict and from_dict are inverses, and the dict holds only hex strings."""
    seed = ShoeSeed(entropy, nonce, personalization)
    data = seed.to_dict()
    assert all(isinstance(v, str) for v in data.values())
    assert ShoeSeed.from_dict(data) == seed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"nonce": "zz"}, "hex digits"),
        ({"nonce": 5}, "hex digits"),
        ({"extra": "00"}, "exactly the keys"),
        ({"nonce": "00" * 15}, "nonce is 15 bytes"),
        ({"entropy_input": "00" * 31}, "entropy input is 31 bytes"),
    ],
)
def test_bad_seed_dicts_are_refused(change: dict[str, object], message: str) -> None:
    """A logged seed that is not valid hex of the right length is refused, saying why."""
    with pytest.raises(BadSeedMaterial, match=message):
        ShoeSeed.from_dict({**SEED.to_dict(), **change})


def test_seed_repr_hides_the_secret() -> None:
    """repr of a seed (and of a shoe) never shows the entropy input or nonce."""
    text = repr(SEED) + repr(Shoe(1, SEED))
    assert SEED.entropy_input.hex() not in text
    assert SEED.nonce.hex() not in text
    assert "T1/1" in text


def test_fresh_seed_needs_a_table_and_a_shoe_number() -> None:
    """An empty table id or a negative shoe number is refused."""
    with pytest.raises(BadSeedMaterial):
        ShoeSeed.fresh(RecordingEntropy(), "", 1)
    with pytest.raises(BadSeedMaterial):
        ShoeSeed.fresh(RecordingEntropy(), "T1", -1)


# --- Stacked shoe ------------------------------------------------------------------------


def test_stacked_shoe_deals_the_given_order() -> None:
    """'AS 10D 7c' deals the ace of spades, the ten of diamonds, the seven of clubs."""
    shoe = StackedShoe("AS 10D 7c")
    assert shoe.order == parse_cards("AS TD 7C")
    assert [str(shoe.draw()) for _ in range(3)] == ["AS", "TD", "7C"]
    assert shoe.position == 3
    with pytest.raises(ShoeExhausted):
        shoe.draw()


def test_stacked_shoe_from_cards_and_start_position() -> None:
    """A sequence of cards works too, and dealing can start mid-shoe for replay."""
    shoe = StackedShoe(parse_cards("2C 3C 4C 5C"), start_position=2)
    assert shoe.remaining == 2
    assert str(shoe.draw()) == "4C"


def test_stacked_shoe_needs_shuffle_only_when_empty() -> None:
    """needs_shuffle is False until the last card is dealt."""
    shoe = StackedShoe("AS KS")
    shoe.draw()
    assert not shoe.needs_shuffle
    shoe.draw()
    assert shoe.needs_shuffle


def test_stacked_shoe_refuses_bad_input() -> None:
    """Text that is not cards, non-card items, and positions outside the shoe are refused."""
    with pytest.raises(CardError):
        StackedShoe("AS 1X")
    with pytest.raises(CardError, match="is not a Card"):
        StackedShoe([CARDS[0], 5])  # type: ignore[list-item]
    with pytest.raises(BadRange):
        StackedShoe("AS", start_position=2)


@pytest.mark.parametrize("decks", [1, 2, 4, 6, 8])
@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_inlined_shuffle_is_the_reference_fisher_yates(decks: int, seed: int) -> None:
    """RandomStream.shuffle (what Shoe uses) draws exactly as fisher_yates over randbelow:
    the same seed gives the same order, for every deck count."""
    from game_server.rng.drbg import HmacDrbg, RandomStream
    from game_server.rng.shoe import fisher_yates
    from shared.cards import standard_deck

    shoe_seed = ShoeSeed.from_test_seed(seed, "T", 3)
    reference = list(standard_deck()) * decks
    drbg = HmacDrbg(shoe_seed.entropy_input, shoe_seed.nonce, shoe_seed.personalization)
    fisher_yates(reference, RandomStream(drbg))
    assert Shoe(decks, shoe_seed).order == tuple(reference)
    # A list longer than 65,536 items takes the wide-draw path of randbelow.
    long_a = list(range(70_000))
    long_b = list(range(70_000))
    RandomStream(HmacDrbg(b"e" * 32, b"n" * 16)).shuffle(long_a)
    fisher_yates(long_b, RandomStream(HmacDrbg(b"e" * 32, b"n" * 16)))
    assert long_a == long_b


@pytest.mark.parametrize("size", [2, 3, 52, 300, 312, 700, 5000])
def test_inlined_shuffle_draws_across_block_ends_as_randbelow(size: int) -> None:
    """Wherever the DRBG's 1,024-byte blocks end (the stream read on by 0 to 1,100 bytes
    first), RandomStream.shuffle gives fisher_yates' order and leaves the stream where
    fisher_yates leaves it, in the two-byte and the one-byte draws alike."""
    import random

    from game_server.rng.drbg import HmacDrbg, RandomStream
    from game_server.rng.shoe import fisher_yates

    offsets = random.Random(size).sample(range(1100), 25)
    for offset in offsets:
        inlined = RandomStream(HmacDrbg(b"e" * 32, b"n" * 16, b"%d" % offset))
        reference = RandomStream(HmacDrbg(b"e" * 32, b"n" * 16, b"%d" % offset))
        for stream in (inlined, reference):
            for _ in range(offset):
                stream.randbits(8)
        a, b = list(range(size)), list(range(size))
        inlined.shuffle(a)
        fisher_yates(b, reference)
        assert a == b, offset
        assert inlined.randbits(64) == reference.randbits(64)
