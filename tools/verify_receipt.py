"""Check a game receipt on your own: one file, Python 3.11+ standard library only.

A game receipt (``etg recall receipt``) is a small JSON document about one game: the cards
dealt with their positions in the shoe, the shoe's commitment (shown at the table before
its first card) and, once the shoe is retired, its reveal (the seed and the salt). This
file regenerates the shoe from the revealed seed with the certified algorithm (HMAC_DRBG
of NIST SP 800-90A with SHA-256, rejection sampling, Fisher-Yates), checks that the shoe
hashes to the commitment, and that every card of the game sits at its position. Every
other field it reads is bound by the digest (the ``game`` part) or checked against the
receipt's other values (the QR code's text, the reveal's ``revealed_seq``).

It imports nothing from the table game system that dealt the game: it follows
``docs/shoe-spec.md``, written so that anyone can write the same check in another language.
(The ``cryptography`` package is not needed: SHA-256 and HMAC come with Python.)

Usage::

    python verify_receipt.py RECEIPT.json      # exit 0: verified; 1: refused; 2: unreadable

Unreadable is anything that is not a receipt of this format, said in one sentence: not
UTF-8 JSON, nested too deep to parse, NaN, Infinity or a fraction, not one JSON object, a
field missing, unknown or of the wrong type, another ``format``.

Entry points: :func:`load_receipt` and :func:`parse_receipt` (raise
:class:`UnreadableReceipt`), :func:`verify_receipt` (a list of sentences, empty when the
receipt checks out), :func:`shuffled_shoe`, :func:`commitment`, :func:`receipt_digest`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import unicodedata
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


#: Every field of a receipt of this format and what it holds (docs/shoe-spec.md section 7):
#: ``str``, ``int`` (never ``true``/``false``), ``bool``, an object (a dict of its fields, no
#: other), a list of one kind (``[kind]``), or a choice (a tuple; ``None`` is JSON's null).
FIELDS: dict[str, Any] = {
    "format": str,
    "game": {
        "table": str,
        "round": int,
        "game": str,
        "title": str,
        "terminal": (str, None),
        "software": str,
        "rules_hash": str,
        "started": str,
        "complete": bool,
        "shoe": {
            "number": int,
            "decks": int,
            "cut_card": (int, None),
            "commitment": str,
            "committed_seq": int,
        },
        "cards": [{"position": int, "card": str, "holder": str, "kind": str, "seq": int}],
    },
    "digest": str,
    "qr": str,
    "reveal": (
        {
            "entropy_input": str,
            "nonce": str,
            "personalization": str,
            "salt": str,
            "revealed_seq": int,
        },
        None,
    ),
    "log": {"log_id": str},
    "verify": str,
}
#: What the QR code's text starts with: ``etg-receipt/1:<table>:<round>:<digest>``.
QR_PREFIX = "etg-receipt/1"
#: Unicode categories no text of a receipt holds: control, format and surrogate characters,
#: line and paragraph separators (so that what the verifier prints reads as it is).
UNPRINTED = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: What to do with a file that is not a readable receipt.
AGAIN = "check that it is the receipt's JSON file, or ask for the receipt again"
#: The largest file read as a receipt (one is a few kilobytes: the operator's receipt of a
#: round that dealt a whole 8-deck shoe is under 100 kB).
MAX_BYTES = 1 << 20


class UnreadableReceipt(ValueError):
    """The input is not a receipt this verifier can read (exit status 2): not JSON, not one
    JSON object, a value no receipt holds (NaN, Infinity, a fraction, a duplicated key,
    nesting deeper than Python parses), a field missing, unknown or of the wrong type, or
    another format. The message is one sentence, without the file's name."""


def canonical_json(value: Any) -> bytes:
    """Keys sorted, no spaces, UTF-8: the bytes the receipt's digest is taken of."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def receipt_digest(game: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the receipt's ``game`` part: what the terminal's QR code shows."""
    return hashlib.sha256(canonical_json(game)).hexdigest()


def qr_text(receipt: Mapping[str, Any]) -> str:
    """The QR code's text that the receipt's own table, round and digest make."""
    game = receipt["game"]
    return f"{QR_PREFIX}:{game['table']}:{game['round']}:{receipt['digest']}"


def _no_float(text: str) -> Any:
    raise UnreadableReceipt(
        f"it holds the number {text}, but a receipt holds whole numbers only (no fraction, "
        "exponent, NaN or Infinity)"
    )


def _no_duplicate(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise UnreadableReceipt(f"it gives the field {key!r} twice in one object")
        found[key] = value
    return found


def parse_receipt(data: bytes | str) -> dict[str, Any]:
    """The receipt in ``data`` (UTF-8 JSON), its fields and their types checked.

    Raises:
        UnreadableReceipt: ``data`` is not a receipt this file can read (the class says what).
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        receipt = json.loads(
            text,
            parse_float=_no_float,
            parse_constant=_no_float,
            object_pairs_hook=_no_duplicate,
        )
    except UnreadableReceipt:
        raise
    except RecursionError:
        raise UnreadableReceipt(
            "it is nested deeper than Python's JSON parser goes (a receipt is a few levels deep)"
        ) from None
    except UnicodeDecodeError as exc:
        raise UnreadableReceipt(f"it is not UTF-8 text (byte {exc.start})") from None
    except ValueError as exc:
        raise UnreadableReceipt(f"it is not JSON ({exc})") from None
    check_fields(receipt)
    return receipt


def load_receipt(path: str) -> dict[str, Any]:
    """The receipt in the file ``path`` (:func:`parse_receipt`).

    Raises:
        UnreadableReceipt: the file cannot be read, or is not a receipt this file can read.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UnreadableReceipt(f"it cannot be opened ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise UnreadableReceipt(f"it is larger than {MAX_BYTES:,} bytes, which no receipt is")
    return parse_receipt(data)


def _kind(value: Any) -> str:
    """What a parsed JSON value is, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    names = {str: "a string", int: "an integer", dict: "an object", list: "a list"}
    return names.get(type(value), f"a {type(value).__name__}")


def _wanted(kind: Any) -> str:
    """What a kind of :data:`FIELDS` asks for, in words."""
    if isinstance(kind, tuple):
        return " or ".join(_wanted(choice) for choice in kind)
    if isinstance(kind, dict):
        return "an object"
    if isinstance(kind, list):
        return "a list"
    return {str: "a string", int: "an integer", bool: "true or false", None: "null"}[kind]


def _check(value: Any, kind: Any, where: str) -> None:
    """Raise :class:`UnreadableReceipt` unless ``value`` holds what ``kind`` says."""
    if isinstance(kind, tuple):
        for choice in kind:
            if choice is None and value is None:
                return
            if choice is not None and _matches(value, choice):
                _check(value, choice, where)
                return
        raise UnreadableReceipt(f"its field {where} is {_kind(value)}, not {_wanted(kind)}")
    if not _matches(value, kind):
        subject = f"its field {where}" if where else "it"
        raise UnreadableReceipt(f"{subject} is {_kind(value)}, not {_wanted(kind)}")
    if isinstance(kind, dict):
        for name in kind:
            if name not in value:
                raise UnreadableReceipt(
                    f"it has no field {where + '.' if where else ''}{name}, which every "
                    f"receipt of format {RECEIPT_FORMAT!r} has"
                )
        for name in value:
            if name not in kind:
                raise UnreadableReceipt(
                    f"it has a field {where + '.' if where else ''}{name} that format "
                    f"{RECEIPT_FORMAT!r} does not have"
                )
            _check(value[name], kind[name], f"{where}.{name}" if where else name)
    elif isinstance(kind, list):
        for number, item in enumerate(value):
            _check(item, kind[0], f"{where}[{number}]")
    elif kind is str:
        for char in value:
            if unicodedata.category(char) in UNPRINTED:
                raise UnreadableReceipt(
                    f"its field {where} holds the character U+{ord(char):04X}, a control, "
                    "format or separator character (or half of a surrogate pair) that no "
                    "receipt holds"
                )


def _matches(value: Any, kind: Any) -> bool:
    if isinstance(kind, dict):
        return isinstance(value, dict)
    if isinstance(kind, list):
        return isinstance(value, list)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def check_fields(receipt: Any) -> None:
    """Check that ``receipt`` is a receipt of this format: one object with exactly the
    fields of :data:`FIELDS`, each of its type (what each field says is
    :func:`verify_receipt`'s).

    Raises:
        UnreadableReceipt: it is not (the message names the first field that is wrong).
    """
    if not isinstance(receipt, dict):
        raise UnreadableReceipt(f"it is {_kind(receipt)}, not a JSON object")
    if "format" not in receipt:
        raise UnreadableReceipt("it has no field format: it is not a game receipt")
    stated = receipt["format"]
    if stated != RECEIPT_FORMAT:
        raise UnreadableReceipt(
            f"it is not a game receipt of format {RECEIPT_FORMAT!r} (its format is "
            f"{stated!r}); check it with the verifier of its own format"
        )
    _check(receipt, FIELDS, "")


def _hex(value: str, what: str, problems: list[str]) -> bytes | None:
    try:
        return bytes.fromhex(value)
    except ValueError:
        problems.append(f"the reveal's {what} is not a string of hex digits: {value!r}")
        return None


def verify_receipt(receipt: Any) -> list[str]:
    """Every reason the receipt does not check out, one sentence each; empty when it does.

    Checks (docs/shoe-spec.md section 7): the format and every field's type; the digest of
    the game part; the QR code's text made of the game's table and round and the digest;
    the reveal present, logged after the commitment and after every card; the seed
    personalized with the game's table and shoe number; the shoe regenerated from the seed
    hashing to the commitment; every card of the game at its position in that shoe.
    """
    try:
        check_fields(receipt)
    except UnreadableReceipt as exc:
        return [f"the receipt cannot be read: {exc}"]
    problems: list[str] = []
    game, digest = receipt["game"], receipt["digest"]
    if digest != receipt_digest(game):
        problems.append(
            "the game part was changed: its SHA-256 is not the receipt's digest (the one the "
            "terminal's QR code showed)"
        )
    qr = qr_text(receipt)
    if receipt["qr"] != qr:
        problems.append(
            f"the receipt's QR text {receipt['qr']!r} is not the one its own table, round and "
            f"digest make ({qr!r}): it names another game, or was changed"
        )
    table, round_id, shoe = game["table"], game["round"], game["shoe"]
    decks, number, committed = shoe["decks"], shoe["number"], shoe["commitment"]
    cards = [(c["position"], c["card"]) for c in game["cards"]]
    where = f"game {round_id} of table {table} (shoe {number})"
    if decks not in DECK_COUNTS:
        return [*problems, f"{where}: a shoe holds 1, 2, 4, 6 or 8 decks, not {decks!r}"]
    reveal = receipt["reveal"]
    if reveal is None:
        return [
            *problems,
            f"{where}: the shoe is not revealed yet; its cards can be checked once the shoe "
            "is retired (ask for the receipt again then)",
        ]
    revealed_seq = reveal["revealed_seq"]
    last = max([shoe["committed_seq"]] + [card["seq"] for card in game["cards"]])
    if revealed_seq <= last:
        problems.append(
            f"{where}: the reveal is said to be logged at seq {revealed_seq}, not after the "
            f"shoe's commitment and this game's cards (seq {last}): a shoe is revealed only "
            "once it is retired, after its last card, so its revealed_seq was changed"
        )
    entropy = _hex(reveal["entropy_input"], "entropy input", problems)
    nonce = _hex(reveal["nonce"], "nonce", problems)
    personalization = _hex(reveal["personalization"], "personalization", problems)
    salt = _hex(reveal["salt"], "salt", problems)
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
    if not hmac.compare_digest(regenerated.encode(), committed.lower().encode()):
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


def qr_sentence(receipt: Mapping[str, Any]) -> str:
    """What the player compares with the terminal's QR code, in one sentence."""
    return (
        f"its QR code reads {receipt['qr']}: the QR code the terminal showed when the game "
        "ended must read the same"
    )


def main(argv: Sequence[str]) -> int:
    """Check the receipt file named in ``argv``; print the verdict; return the exit status."""
    if len(argv) != 1:
        print("usage: python verify_receipt.py RECEIPT.json", file=sys.stderr)
        return 2
    try:
        receipt = load_receipt(argv[0])
    except UnreadableReceipt as exc:
        print(f"cannot read the receipt {argv[0]}: {exc}; {AGAIN}", file=sys.stderr)
        return 2
    problems = verify_receipt(receipt)
    if problems:
        for problem in problems:
            print(f"REFUSED: {problem}")
        return 1
    print(verified_sentence(receipt))
    print(qr_sentence(receipt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
