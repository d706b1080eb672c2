"""docs/shoe-spec.md is true: its worked example's numbers are what the certified shoe code
and the one-file verifier (tools/verify_receipt.py) compute, and the two implementations
agree on 1,000 seeded shoes of every deck count."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from game_server.rng.drbg import HmacDrbg as CertifiedDrbg
from game_server.rng.drbg import RandomStream
from game_server.rng.shoe import Shoe, ShoeSeed
from shared.cards import parse_cards
from tools import verify_receipt as one_file

SPEC = Path(__file__).resolve().parents[2] / "docs" / "shoe-spec.md"


def _example() -> dict[str, str]:
    """The ``name = value`` lines of the spec's worked example (section 8)."""
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("## 8. Worked example") :]
    found = {}
    for match in re.finditer(r"^([a-z_]+|Key|V)\s+=\s+(.+?)\s*(?:\(.*\))?$", section, re.M):
        found[match.group(1)] = match.group(2).strip()
    return found


EXAMPLE = _example()


def _seed() -> ShoeSeed:
    return ShoeSeed(
        bytes.fromhex(EXAMPLE["entropy_input"]),
        bytes.fromhex(EXAMPLE["nonce"]),
        bytes.fromhex(EXAMPLE["personalization"]),
    )


def test_the_example_is_read_from_the_spec() -> None:
    assert {
        "entropy_input",
        "nonce",
        "personalization",
        "salt",
        "Key",
        "V",
        "order",
        "order_bytes",
        "commitment",
    } <= set(EXAMPLE)
    assert bytes.fromhex(EXAMPLE["personalization"]) == b"DEMO-01/1"


def test_instantiate_gives_the_specs_key_and_v_in_both_implementations() -> None:
    seed = _seed()
    certified = CertifiedDrbg(seed.entropy_input, seed.nonce, seed.personalization)
    mine = one_file.HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization)
    assert certified._key.hex() == mine.key.hex() == EXAMPLE["Key"]
    assert certified._v.hex() == mine.v.hex() == EXAMPLE["V"]
    text = SPEC.read_text(encoding="utf-8")
    first = re.search(r"first 1,024-byte request: `([0-9a-f]+)`", text)
    assert first is not None
    assert certified.generate(1024)[:8].hex() == first.group(1)


def test_the_first_draws_and_the_rejection_are_as_the_spec_says() -> None:
    seed = _seed()
    stream = RandomStream(CertifiedDrbg(seed.entropy_input, seed.nonce, seed.personalization))
    draws = [stream.randbelow(i + 1) for i in range(51, 44, -1)]
    assert draws == [9, 41, 46, 15, 1, 26, 32]
    block = one_file.HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization).generate(3)
    assert block[0] >> 2 == 9 and block[1] >> 2 == 51 and block[2] >> 2 == 41  # 51 rejected


def test_the_order_and_commitment_of_the_example() -> None:
    seed = _seed()
    salt = bytes.fromhex(EXAMPLE["salt"])
    shoe = Shoe(1, seed)
    assert shoe.order == parse_cards(EXAMPLE["order"])
    assert shoe.order_bytes().hex() == EXAMPLE["order_bytes"]
    assert shoe.commitment(salt) == EXAMPLE["commitment"]
    mine = one_file.shuffled_shoe(1, seed.entropy_input, seed.nonce, seed.personalization)
    assert " ".join(one_file.card_text(c) for c in mine) == EXAMPLE["order"]
    assert one_file.commitment(mine, salt) == EXAMPLE["commitment"]
    text = SPEC.read_text(encoding="utf-8")
    six = Shoe(6, seed)
    assert " ".join(str(c) for c in six.order[:10]) in " ".join(text.split())
    assert f"`{six.commitment(salt)}`" in text


def test_the_one_file_verifier_and_the_certified_shoe_agree_on_1000_seeded_shoes() -> None:
    """Each shoe: its order and its commitment, computed by both (every deck count)."""
    decks = (1, 2, 4, 6, 8)
    for n in range(1000):
        seed = ShoeSeed.from_test_seed(n, f"T-{n % 7}", n)
        salt = hashlib.sha256(b"salt" + n.to_bytes(4, "big")).digest()
        count = decks[n % len(decks)]
        certified = Shoe(count, seed)
        mine = one_file.shuffled_shoe(count, seed.entropy_input, seed.nonce, seed.personalization)
        assert mine == [int(card) for card in certified.order], f"shoe {n} ({count} decks)"
        assert one_file.commitment(mine, salt) == certified.commitment(salt), f"shoe {n}"


@pytest.mark.parametrize("text", ["AS", "TD", "10D", "2c", "kh"])
def test_card_text_round_trips_with_the_projects_cards(text: str) -> None:
    (card,) = parse_cards(text)
    assert one_file.card_code(text) == int(card)
    assert one_file.card_text(int(card)) == str(card)


@pytest.mark.parametrize("text", ["1S", "AX", "", "ASD", "11H"])
def test_a_card_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a card"):
        one_file.card_code(text)
