"""Check a game receipt on your own: one file, Python 3.11+ standard library only.

A game receipt (``etg recall receipt``) is a small JSON document about one game: the cards
dealt with their positions in the shoe, the shoe's commitment (shown at the table before
its first card) and, once the shoe is retired, its reveal (the seed and the salt). This
file regenerates the shoe from the revealed seed with the certified algorithm (HMAC_DRBG
of NIST SP 800-90A with SHA-256, rejection sampling, Fisher-Yates), checks that the shoe
hashes to the commitment, and that every card of the game sits at its position.

It imports nothing from the table game system that dealt the game: it follows
``docs/shoe-spec.md``, written so that anyone can write the same check in another language.
(The ``cryptography`` package is not needed: SHA-256 and HMAC come with Python.)

Usage::

    python verify_receipt.py RECEIPT.json      # exit 0: verified; 1: refused; 2: unreadable

Entry points: :func:`verify_receipt` (a list of sentences, empty when the receipt checks
out), :func:`shuffled_shoe`, :func:`commitment`, :func:`receipt_digest`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

#: The ``format`` of the receipts this file reads.
RECEIPT_FORMAT = "etg-game-receipt/1"
#: Bytes the shuffle asks of HMAC_DRBG per Generate request (docs/shoe-spec.md, section 3).
BLOCK_BYTES = 1024
#: Decks a shoe may hold.
DECK_COUNTS = (1, 2, 4, 6, 8)
RANK_LETTERS = "23456789TJQKA"
SUIT_LETTERS = "CDHS"


# ---------------------------------------------------------------------------- HMAC_DRBG


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


class HmacDrbg:
    """HMAC_DRBG with SHA-256, NIST SP 800-90A Rev. 1 section 10.1.2, as the shoe uses it:
    Instantiate with entropy input, nonce and personalization string; Generate with no
    additional input; no reseed (a shoe needs far fewer than 2**48 requests)."""

    def __init__(self, entropy_input: bytes, nonce: bytes, personalization: bytes) -> None:
        self.key = b"\x00" * 32
        self.v = b"\x01" * 32
        self._update(entropy_input + nonce + personalization)

    def _update(self, provided: bytes) -> None:
        self.key = _hmac(self.key, self.v + b"\x00" + provided)
        self.v = _hmac(self.key, self.v)
        if provided:
            self.key = _hmac(self.key, self.v + b"\x01" + provided)
            self.v = _hmac(self.key, self.v)

    def generate(self, n_bytes: int) -> bytes:
        out = b""
        while len(out) < n_bytes:
            self.v = _hmac(self.key, self.v)
            out += self.v
        self._update(b"")
        return out[:n_bytes]


class ByteStream:
    """DRBG output read front to back, fetched in requests of exactly 1,024 bytes."""

    def __init__(self, drbg: HmacDrbg) -> None:
        self.drbg = drbg
        self.buffer = b""

    def take(self, n_bytes: int) -> bytes:
        while len(self.buffer) < n_bytes:
            self.buffer += self.drbg.generate(BLOCK_BYTES)
        taken, self.buffer = self.buffer[:n_bytes], self.buffer[n_bytes:]
        return taken

    def below(self, n: int) -> int:
        """A uniform integer in 0..n-1 by rejection sampling (n >= 2)."""
        k = (n - 1).bit_length()
        n_bytes = (k + 7) // 8
        while True:
            value = int.from_bytes(self.take(n_bytes), "big") >> (8 * n_bytes - k)
            if value < n:
                return value


def shuffled_shoe(
    decks: int, entropy_input: bytes, nonce: bytes, personalization: bytes
) -> list[int]:
    """The shoe's cards in dealing order, as codes 0..51 (``4 * (rank - 2) + suit``)."""
    cards = [code for _ in range(decks) for code in range(52)]
    stream = ByteStream(HmacDrbg(entropy_input, nonce, personalization))
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def commitment(order: Sequence[int], salt: bytes) -> str:
    """Hex SHA-256 of the order (one byte per card) followed by the salt."""
    return hashlib.sha256(bytes(order) + salt).hexdigest()


def card_text(code: int) -> str:
    """``"AS"``, ``"TD"``, ``"2C"`` for a code 0..51."""
    return RANK_LETTERS[code // 4] + SUIT_LETTERS[code % 4]


def card_code(text: str) -> int:
    """The code of a card's text (``"10D"`` is read as ``"TD"``).

    Raises:
        ValueError: not a card.
    """
    text = text.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANK_LETTERS or text[1] not in SUIT_LETTERS:
        raise ValueError(f"{text!r} is not a card (rank 2-9, T, J, Q, K, A and suit C, D, H, S)")
    return 4 * RANK_LETTERS.index(text[0]) + SUIT_LETTERS.index(text[1])


# ---------------------------------------------------------------------------- the receipt


def canonical_json(value: Any) -> bytes:
    """Keys sorted, no spaces, UTF-8: the bytes the receipt's digest is taken of."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def receipt_digest(game: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the receipt's ``game`` part: what the terminal's QR code shows."""
    return hashlib.sha256(canonical_json(game)).hexdigest()


def _hex(value: Any, what: str, problems: list[str]) -> bytes | None:
    if not isinstance(value, str):
        problems.append(f"the reveal's {what} is not a string of hex digits")
        return None
    try:
        return bytes.fromhex(value)
    except ValueError:
        problems.append(f"the reveal's {what} is not a string of hex digits: {value!r}")
        return None


def verify_receipt(receipt: Any) -> list[str]:
    """Every reason the receipt does not check out, one sentence each; empty when it does.

    Checks: the format; the digest of the game part; the reveal present; the seed
    personalized with the game's table and shoe number; the shoe regenerated from the seed
    hashing to the commitment; every card of the game at its position in that shoe.
    """
    if not isinstance(receipt, dict) or receipt.get("format") != RECEIPT_FORMAT:
        return [f"this is not a game receipt of format {RECEIPT_FORMAT!r}"]
    problems: list[str] = []
    game = receipt.get("game")
    if not isinstance(game, dict):
        return ["the receipt has no game part"]
    if receipt.get("digest") != receipt_digest(game):
        problems.append(
            "the game part was changed: its SHA-256 is not the receipt's digest (the one the "
            "terminal's QR code showed)"
        )
    try:
        table, round_id, shoe = str(game["table"]), game["round"], game["shoe"]
        decks, number, committed = shoe["decks"], shoe["number"], str(shoe["commitment"])
        cards = [(int(c["position"]), str(c["card"])) for c in game["cards"]]
    except (KeyError, TypeError, ValueError) as exc:
        return [*problems, f"the receipt's game part is incomplete or malformed ({exc!r})"]
    where = f"game {round_id} of table {table} (shoe {number})"
    if decks not in DECK_COUNTS:
        return [*problems, f"{where}: a shoe holds 1, 2, 4, 6 or 8 decks, not {decks!r}"]
    reveal = receipt.get("reveal")
    if not isinstance(reveal, dict):
        return [
            *problems,
            f"{where}: the shoe is not revealed yet; its cards can be checked once the shoe "
            "is retired (ask for the receipt again then)",
        ]
    entropy = _hex(reveal.get("entropy_input"), "entropy input", problems)
    nonce = _hex(reveal.get("nonce"), "nonce", problems)
    personalization = _hex(reveal.get("personalization"), "personalization", problems)
    salt = _hex(reveal.get("salt"), "salt", problems)
    if entropy is None or nonce is None or personalization is None or salt is None:
        return problems
    if len(entropy) < 32 or len(nonce) < 16:
        return [
            *problems,
            f"{where}: the revealed seed is too short for HMAC_DRBG at 256-bit strength "
            "(entropy input at least 32 bytes, nonce at least 16)",
        ]
    expected = f"{table}/{number}".encode()
    if personalization != expected:
        problems.append(
            f"{where}: the seed was personalized with {personalization!r}, not with its "
            f"table and shoe number {expected!r}"
        )
    order = shuffled_shoe(decks, entropy, nonce, personalization)
    regenerated = commitment(order, salt)
    if not hmac.compare_digest(regenerated, committed.lower()):
        problems.append(
            f"{where}: the revealed seed and salt make a shoe whose commitment is "
            f"{regenerated[:16]}..., not the committed {committed[:16]}...: the reveal is "
            "not the shoe that was committed to"
        )
        return problems
    for position, text in cards:
        try:
            code = card_code(text)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        if not 0 <= position < len(order):
            problems.append(
                f"{where}: position {position} is outside the {len(order)}-card shoe ({text})"
            )
        elif order[position] != code:
            problems.append(
                f"{where}: the receipt says {card_text(code)} at position {position}, but the "
                f"committed shoe holds {card_text(order[position])} there"
            )
    return problems


def verified_sentence(receipt: Mapping[str, Any]) -> str:
    """What a verified receipt proves, in one sentence."""
    game = receipt["game"]
    shoe = game["shoe"]
    return (
        f"verified: the {len(game['cards'])} cards of game {game['round']} of table "
        f"{game['table']} sit at their positions in shoe {shoe['number']} ({shoe['decks']} "
        f"deck{'' if shoe['decks'] == 1 else 's'}), which the revealed seed regenerates "
        "and which hashes to the commitment "
        f"{shoe['commitment'][:4]} {shoe['commitment'][4:8]}... shown before its first card"
    )


def main(argv: Sequence[str]) -> int:
    """Check the receipt file named in ``argv``; print the verdict; return the exit status."""
    if len(argv) != 1:
        print("usage: python verify_receipt.py RECEIPT.json", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as handle:
            receipt = json.load(handle)
    except (OSError, ValueError) as exc:
        print(f"cannot read the receipt {argv[0]}: {exc}", file=sys.stderr)
        return 2
    problems = verify_receipt(receipt)
    if problems:
        for problem in problems:
            print(f"REFUSED: {problem}")
        return 1
    print(verified_sentence(receipt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
