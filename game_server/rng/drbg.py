"""HMAC_DRBG with SHA-256 (NIST SP 800-90A Rev. 1, section 10.1.2) and a random stream over it.

This is the certified deterministic random bit generator every shoe is shuffled with. The
entry points are :class:`HmacDrbg` (Instantiate, Reseed and Generate exactly as in 10.1.2,
without prediction resistance), :func:`self_test` (the known-answer tests of 11.3, run at
start by the table before any shoe is built) and :class:`RandomStream`, which turns DRBG
output into uniform integers by rejection sampling (``randbelow``, ``randbits``).

HMAC-SHA-256 is Python's C one-shot :func:`hmac.digest` in the state updates, and in
Generate's output loop, where ``Key`` is fixed, two SHA-256 states with the padded key
already absorbed (FIPS 198-1), about twice as fast; the CAVP vectors prove both are HMAC.
The DRBG's state (``Key`` and ``V``) never leaves the object.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from game_server.rng.errors import (
    BadRange,
    BadSeedMaterial,
    DrbgSelfTestFailed,
    RequestTooLarge,
    ReseedRequired,
)

#: Security strength in bits (SP 800-90A Table 2: SHA-256 supports up to 256).
SECURITY_STRENGTH: Final = 256
#: Shortest entropy input in bytes: security_strength bits (SP 800-90A 8.6.3, 10.1).
MIN_ENTROPY_BYTES: Final = SECURITY_STRENGTH // 8
#: Shortest nonce in bytes: half the security strength (SP 800-90A 8.6.7).
MIN_NONCE_BYTES: Final = SECURITY_STRENGTH // 16
#: Longest entropy input, personalization string or additional input: 2**35 bits (Table 2).
MAX_INPUT_BYTES: Final = 2**32
#: Largest request of one Generate call: 2**19 bits (SP 800-90A Table 2).
MAX_REQUEST_BYTES: Final = 2**16
#: Requests allowed between reseeds: 2**48 (SP 800-90A Table 2, reseed_interval).
RESEED_INTERVAL: Final = 2**48

_OUTLEN: Final = 32  # bytes of SHA-256 output (outlen = 256 bits)
_ZERO: Final = b"\x00"
_ONE: Final = b"\x01"
_KEY_PAD: Final = _ZERO * (64 - _OUTLEN)  # SHA-256 block is 64 bytes; Key is 32
_IPAD: Final = bytes(b ^ 0x36 for b in range(256))  # translation tables for K ^ ipad
_OPAD: Final = bytes(b ^ 0x5C for b in range(256))  # and K ^ opad (FIPS 198-1)


def check_seed_material(entropy_input: bytes, nonce: bytes, personalization: bytes) -> None:
    """Refuse instantiation inputs that do not meet SP 800-90A for a 256-bit strength.

    The same rule guards :class:`HmacDrbg` and :class:`~game_server.rng.shoe.ShoeSeed`.

    Raises:
        BadSeedMaterial: the entropy input is shorter than 32 bytes (8.6.3), the nonce shorter
            than 16 bytes (8.6.7), or an input is longer than 2**35 bits (Table 2).
    """
    if len(entropy_input) < MIN_ENTROPY_BYTES:
        raise BadSeedMaterial(
            f"entropy input is {len(entropy_input)} bytes; HMAC_DRBG at security strength "
            f"{SECURITY_STRENGTH} needs at least {MIN_ENTROPY_BYTES} bytes (SP 800-90A 8.6.3)"
        )
    if len(nonce) < MIN_NONCE_BYTES:
        raise BadSeedMaterial(
            f"nonce is {len(nonce)} bytes; HMAC_DRBG at security strength {SECURITY_STRENGTH} "
            f"needs at least {MIN_NONCE_BYTES} bytes (SP 800-90A 8.6.7)"
        )
    _check_max_length("entropy input", entropy_input)
    _check_max_length("personalization string", personalization)


def _check_max_length(what: str, data: bytes) -> None:
    if len(data) > MAX_INPUT_BYTES:
        raise BadSeedMaterial(
            f"{what} is {len(data)} bytes; SP 800-90A Table 2 allows at most 2**35 bits"
        )


class HmacDrbg:
    """HMAC_DRBG (SHA-256) of NIST SP 800-90A Rev. 1, section 10.1.2, no prediction resistance.

    Constructing the object is the Instantiate function (10.1.2.3). The working state is
    ``Key``, ``V`` and ``reseed_counter``; only the counter can be read.

    Args:
        entropy_input: at least 32 bytes of full entropy.
        nonce: at least 16 bytes, never repeated for the same entropy input.
        personalization_string: optional bytes that make this instance distinct (the table id
            and shoe number for a shoe).
        reseed_interval: requests allowed before a reseed is required; at most 2**48. A
            smaller value is for tests.

    Raises:
        BadSeedMaterial: the inputs are too short or too long.
        BadRange: the reseed interval is not in 1..2**48.
    """

    __slots__ = ("_key", "_reseed_interval", "_v", "reseed_counter")

    def __init__(
        self,
        entropy_input: bytes,
        nonce: bytes,
        personalization_string: bytes = b"",
        *,
        reseed_interval: int = RESEED_INTERVAL,
    ) -> None:
        if not 1 <= reseed_interval <= RESEED_INTERVAL:
            raise BadRange(
                f"reseed interval {reseed_interval} is outside 1..2**48 (SP 800-90A Table 2)"
            )
        check_seed_material(entropy_input, nonce, personalization_string)
        self._reseed_interval = reseed_interval
        # 10.1.2.3 steps 1-4: seed_material = entropy_input || nonce || personalization_string;
        # Key = 0x00 00...00; V = 0x01 01...01; (Key, V) = HMAC_DRBG_Update(seed_material).
        self._key = _ZERO * _OUTLEN
        self._v = _ONE * _OUTLEN
        self._update(entropy_input + nonce + personalization_string)
        #: Number of Generate requests since instantiation or the last reseed, plus one.
        self.reseed_counter = 1  # 10.1.2.3 step 5

    @classmethod
    def instantiate(
        cls,
        entropy_input: bytes,
        nonce: bytes,
        personalization_string: bytes = b"",
        *,
        reseed_interval: int = RESEED_INTERVAL,
    ) -> HmacDrbg:
        """The Instantiate function (10.1.2.3) under its NIST name; same as the constructor."""
        return cls(entropy_input, nonce, personalization_string, reseed_interval=reseed_interval)

    def _update(self, provided_data: bytes) -> None:
        """HMAC_DRBG_Update (SP 800-90A 10.1.2.2)."""
        digest = hmac.digest
        v = self._v
        key = digest(self._key, v + _ZERO + provided_data, "sha256")  # step 1
        v = digest(key, v, "sha256")  # step 2
        if provided_data:  # step 3: stop here when provided_data is empty
            key = digest(key, v + _ONE + provided_data, "sha256")  # step 4
            v = digest(key, v, "sha256")  # step 5
        self._key = key
        self._v = v

    def reseed(self, entropy_input: bytes, additional_input: bytes = b"") -> None:
        """The Reseed function (SP 800-90A 10.1.2.4).

        Raises:
            BadSeedMaterial: the entropy input is shorter than 32 bytes, or an input is longer
                than 2**35 bits.
        """
        if len(entropy_input) < MIN_ENTROPY_BYTES:
            raise BadSeedMaterial(
                f"reseed entropy input is {len(entropy_input)} bytes; HMAC_DRBG at security "
                f"strength {SECURITY_STRENGTH} needs at least {MIN_ENTROPY_BYTES} bytes "
                "(SP 800-90A 9.2)"
            )
        _check_max_length("entropy input", entropy_input)
        _check_max_length("additional input", additional_input)
        self._update(entropy_input + additional_input)  # steps 1-2
        self.reseed_counter = 1  # step 3

    def generate(self, n_bytes: int, additional_input: bytes = b"") -> bytes:
        """The Generate function (SP 800-90A 10.1.2.5): ``n_bytes`` pseudorandom bytes.

        Args:
            n_bytes: bytes to return, 1..65536 (at most 2**19 bits per request, Table 2).
            additional_input: optional bytes mixed into the state before and after output.

        Raises:
            ReseedRequired: ``reseed_counter`` exceeds the reseed interval (step 1); reseed
                with fresh entropy, then ask again.
            RequestTooLarge: ``n_bytes`` is above 65536.
            BadRange: ``n_bytes`` is below 1.
        """
        if n_bytes > MAX_REQUEST_BYTES:
            raise RequestTooLarge(
                f"asked for {n_bytes} bytes in one request; HMAC_DRBG allows at most "
                f"{MAX_REQUEST_BYTES} bytes (2**19 bits, SP 800-90A Table 2): split the request"
            )
        if n_bytes < 1:
            raise BadRange(f"asked for {n_bytes} bytes; a request must be for at least 1 byte")
        if self.reseed_counter > self._reseed_interval:  # step 1
            raise ReseedRequired(
                f"HMAC_DRBG served {self.reseed_counter - 1} requests, its reseed interval "
                f"is {self._reseed_interval}: reseed it with fresh entropy (SP 800-90A 10.1.2.5)"
            )
        if additional_input:  # step 2
            _check_max_length("additional input", additional_input)
            self._update(additional_input)
        # Steps 3-5: V = HMAC(Key, V) until enough bits; returned_bits = leftmost bits.
        # Key is fixed in this loop, so HMAC (FIPS 198-1) runs from SHA-256 states with the
        # padded key already absorbed: H((K ^ opad) || H((K ^ ipad) || V)).
        padded_key = self._key + _KEY_PAD
        inner_copy = hashlib.sha256(padded_key.translate(_IPAD)).copy
        outer_copy = hashlib.sha256(padded_key.translate(_OPAD)).copy
        v = self._v
        blocks = []
        for _ in range(-(-n_bytes // _OUTLEN)):
            inner = inner_copy()
            inner.update(v)
            outer = outer_copy()
            outer.update(inner.digest())
            v = outer.digest()
            blocks.append(v)
        self._v = v
        self._update(additional_input)  # step 6
        self.reseed_counter += 1  # step 7
        return b"".join(blocks)[:n_bytes]


# --- Known-answer tests (SP 800-90A 11.3) -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class KnownAnswer:
    """One CAVP HMAC_DRBG vector (no prediction resistance, with reseed).

    The CAVS procedure: instantiate, reseed with ``entropy_input_reseed`` and
    ``additional_input_reseed``, generate ``len(returned_bits)`` bytes twice with the two
    additional inputs, and compare the second output with ``returned_bits``.
    """

    name: str
    entropy_input: bytes
    nonce: bytes
    personalization_string: bytes
    entropy_input_reseed: bytes
    additional_input_reseed: bytes
    additional_input: tuple[bytes, bytes]
    returned_bits: bytes


def run_known_answer(vector: KnownAnswer) -> bytes:
    """Run one vector through the CAVS procedure and return the second generated output."""
    drbg = HmacDrbg(vector.entropy_input, vector.nonce, vector.personalization_string)
    drbg.reseed(vector.entropy_input_reseed, vector.additional_input_reseed)
    drbg.generate(len(vector.returned_bits), vector.additional_input[0])
    return drbg.generate(len(vector.returned_bits), vector.additional_input[1])


def _known_answer(
    name: str,
    entropy: str,
    nonce: str,
    pers: str,
    entropy_reseed: str,
    add_reseed: str,
    add_1: str,
    add_2: str,
    returned: str,
) -> KnownAnswer:
    h = bytes.fromhex
    return KnownAnswer(
        name,
        h(entropy),
        h(nonce),
        h(pers),
        h(entropy_reseed),
        h(add_reseed),
        (h(add_1), h(add_2)),
        h(returned),
    )


#: Vectors from the NIST CAVP file HMAC_DRBG.rsp ([SHA-256], PredictionResistance = False,
#: reseed variant), copied in tests/rng/vectors/.
KNOWN_ANSWERS: Final[tuple[KnownAnswer, ...]] = (
    _known_answer(
        "PersonalizationStringLen=0 AdditionalInputLen=0 COUNT=0",
        "06032cd5eed33f39265f49ecb142c511da9aff2af71203bffaf34a9ca5bd9c0d",
        "0e66f71edc43e42a45ad3c6fc6cdc4df",
        "",
        "01920a4e669ed3a85ae8a33b35a74ad7fb2a6bb4cf395ce00334a9c9a5a5d552",
        "",
        "",
        "",
        "76fc79fe9b50beccc991a11b5635783a83536add03c157fb30645e611c2898bb"
        "2b1bc215000209208cd506cb28da2a51bdb03826aaf2bd2335d576d519160842"
        "e7158ad0949d1a9ec3e66ea1b1a064b005de914eac2e9d4f2d72a8616a802254"
        "22918250ff66a41bd2f864a6a38cc5b6499dc43f7f2bd09e1e0f8f5885935124",
    ),
    _known_answer(
        "PersonalizationStringLen=0 AdditionalInputLen=256 COUNT=0",
        "05ac9fc4c62a02e3f90840da5616218c6de5743d66b8e0fbf833759c5928b53d",
        "2b89a17904922ed8f017a63044848545",
        "",
        "2791126b8b52ee1fd9392a0a13e0083bed4186dc649b739607ac70ec8dcecf9b",
        "43bac13bae715092cf7eb280a2e10a962faf7233c41412f69bc74a35a584e54c",
        "3f2fed4b68d506ecefa21f3f5bb907beb0f17dbc30f6ffbba5e5861408c53a1e",
        "529030df50f410985fde068df82b935ec23d839cb4b269414c0ede6cffea5b68",
        "02ddff5173da2fcffa10215b030d660d61179e61ecc22609b1151a75f1cbcbb4"
        "363c3a89299b4b63aca5e581e73c860491010aa35de3337cc6c09ebec8c91a62"
        "87586f3a74d9694b462d2720ea2e11bbd02af33adefb4a16e6b370fa0effd57d"
        "607547bdcfbb7831f54de7073ad2a7da987a0016a82fa958779a168674b56524",
    ),
    _known_answer(
        "PersonalizationStringLen=256 AdditionalInputLen=256 COUNT=0",
        "cdb0d9117cc6dbc9ef9dcb06a97579841d72dc18b2d46a1cb61e314012bdf416",
        "d0c0d01d156016d0eb6b7e9c7c3c8da8",
        "6f0fb9eab3f9ea7ab0a719bfa879bf0aaed683307fda0c6d73ce018b6e34faaa",
        "8ec6f7d5a8e2e88f43986f70b86e050d07c84b931bcf18e601c5a3eee3064c82",
        "1ab4ca9014fa98a55938316de8ba5a68c629b0741bdd058c4d70c91cda5099b3",
        "16e2d0721b58d839a122852abd3bf2c942a31c84d82fca74211871880d7162ff",
        "53686f042a7b087d5d2eca0d2a96de131f275ed7151189f7ca52deaa78b79fb2",
        "dda04a2ca7b8147af1548f5d086591ca4fd951a345ce52b3cd49d47e84aa31a1"
        "83e31fbc42a1ff1d95afec7143c8008c97bc2a9c091df0a763848391f68cb4a3"
        "66ad89857ac725a53b303ddea767be8dc5f605b1b95f6d24c9f06be65a973a08"
        "9320b3cc42569dcfd4b92b62a993785b0301b3fc452445656fce22664827b88f",
    ),
)


def self_test(known_answers: Sequence[KnownAnswer] = KNOWN_ANSWERS) -> None:
    """Run the known-answer tests of SP 800-90A 11.3 (instantiate, reseed, generate).

    The table calls this once at start, before it builds a shoe. The vectors exercise the
    personalization string, additional input and reseed paths.

    Args:
        known_answers: the vectors to run; the embedded CAVP vectors unless a test passes
            others.

    Raises:
        DrbgSelfTestFailed: a vector gave the wrong output. The DRBG must not be used; take
            the table out of service.
    """
    for vector in known_answers:
        got = run_known_answer(vector)
        if not hmac.compare_digest(got, vector.returned_bits):
            raise DrbgSelfTestFailed(
                f"HMAC_DRBG known-answer test {vector.name!r} failed: expected "
                f"{vector.returned_bits[:8].hex()}..., got {got[:8].hex()}...; do not deal "
                "from this RNG, take the table out of service (SP 800-90A 11.3)"
            )


# --- Uniform integers from DRBG output -------------------------------------------------------


class ByteGenerator(Protocol):
    """Anything with HMAC_DRBG's ``generate``; :class:`HmacDrbg` in production."""

    def generate(self, n_bytes: int, additional_input: bytes = b"") -> bytes: ...


#: Bytes a :class:`RandomStream` asks of its DRBG per Generate request. This is part of the
#: certified shuffle: a different block size gives a different card order for the same seed
#: (each request ends with a state update, SP 800-90A 10.1.2.5 step 6), so changing it makes
#: every logged shoe unverifiable. 1024 bytes covers even an 8-deck shuffle (about 750
#: bytes) in one request.
BLOCK_BYTES: Final = 1024


class RandomStream:
    """Uniform integers drawn from a DRBG, deterministic for a given DRBG state.

    Output is taken from the DRBG in requests of exactly :data:`BLOCK_BYTES` bytes, consumed
    front to back. A request for ``m`` bytes takes the next ``m`` unread bytes, continuing in
    a new block when the current one runs out. An integer of ``k`` bits is the top ``k`` bits
    of the next ``ceil(k / 8)`` bytes read big-endian (the low bits of the last byte are
    discarded).

    Args:
        drbg: the generator; an :class:`HmacDrbg` in production, a fake in tests.
    """

    __slots__ = ("_buf", "_drbg", "_pos")

    def __init__(self, drbg: ByteGenerator) -> None:
        self._drbg = drbg
        self._buf = b""
        self._pos = 0

    def _take(self, n_bytes: int) -> bytes:
        """The next ``n_bytes`` unread bytes of DRBG output."""
        pos = self._pos
        end = pos + n_bytes
        if end > len(self._buf):
            parts = [self._buf[pos:]]
            have = len(parts[0])
            while have < n_bytes:
                parts.append(self._drbg.generate(BLOCK_BYTES))
                have += BLOCK_BYTES
            self._buf = b"".join(parts)
            pos, end = 0, n_bytes
        self._pos = end
        return self._buf[pos:end]

    def randbits(self, k: int) -> int:
        """A uniform integer in ``0 .. 2**k - 1``; ``randbits(0)`` is 0 and reads nothing.

        Raises:
            BadRange: ``k`` is negative.
        """
        if k <= 0:
            if k == 0:
                return 0
            raise BadRange(f"randbits needs a bit count of 0 or more, got {k}")
        n_bytes = (k + 7) >> 3
        return int.from_bytes(self._take(n_bytes), "big") >> ((n_bytes << 3) - k)

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``0 .. n - 1`` by rejection sampling, with no modulo bias.

        Draws ``k = (n - 1).bit_length()`` bits, the fewest that can express ``n - 1``, and
        draws again while the value is ``n`` or more; each try succeeds with probability
        above 1/2. ``randbelow(1)`` is 0 and reads nothing.

        Raises:
            BadRange: ``n`` is 0 or negative.
        """
        if n <= 1:
            if n == 1:
                return 0
            raise BadRange(f"randbelow needs n of 1 or more, got {n}")
        k = (n - 1).bit_length()
        n_bytes = (k + 7) >> 3
        shift = (n_bytes << 3) - k
        if n_bytes > 2:
            while True:
                value = int.from_bytes(self._take(n_bytes), "big") >> shift
                if value < n:
                    return value
        # The shuffle's hot path (n <= 65536): read the bytes straight from the block.
        buf = self._buf
        pos = self._pos
        while True:
            end = pos + n_bytes
            if end <= len(buf):
                value = (buf[pos] if n_bytes == 1 else buf[pos] << 8 | buf[pos + 1]) >> shift
                pos = end
            else:  # the bytes straddle a block boundary
                self._pos = pos
                value = int.from_bytes(self._take(n_bytes), "big") >> shift
                buf = self._buf
                pos = self._pos
            if value < n:
                self._pos = pos
                return value

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates (Durstenfeld) in place, drawing exactly as :meth:`randbelow` would.

        For ``i`` from ``len - 1`` down to 1, swap ``items[i]`` with ``items[j]`` where
        ``j = randbelow(i + 1)``. This is :func:`game_server.rng.shoe.fisher_yates` with the
        rejection sampling of :meth:`randbelow` inlined: the same bytes, the same draws, the
        same order (a test checks both give the same shoe), without a call per card.
        """
        buf = self._buf
        pos = self._pos
        last = len(items) - 1
        # Indices of 17 bits or more (lists over 65,536 items): the general path.
        for i in range(last, 65535, -1):
            self._pos = pos
            j = self.randbelow(i + 1)
            buf, pos = self._buf, self._pos
            items[i], items[j] = items[j], items[i]
        # Two-byte draws: i from 65535 down to 256 (k = 9..16 bits), then one-byte draws: i
        # from 255 down to 1 (k = 1..8), each a band of indices of one bit length k at a time
        # so that the shift is worked out once a band. A draw is rejected while it exceeds
        # i. When the bytes run past the block, randbelow goes on from the same place: the
        # draws of rejection sampling do not depend on those rejected before them.
        for k in range(16, 8, -1):
            shift = 16 - k
            for i in range(min(last, (1 << k) - 1), (1 << (k - 1)) - 1, -1):
                try:
                    j = (buf[pos] << 8 | buf[pos + 1]) >> shift
                    pos += 2
                    while j > i:
                        j = (buf[pos] << 8 | buf[pos + 1]) >> shift
                        pos += 2
                except IndexError:
                    self._pos = pos
                    j = self.randbelow(i + 1)
                    buf, pos = self._buf, self._pos
                items[i], items[j] = items[j], items[i]
        for k in range(8, 0, -1):
            shift = 8 - k
            for i in range(min(last, (1 << k) - 1), (1 << (k - 1)) - 1, -1):
                try:
                    j = buf[pos] >> shift
                    pos += 1
                    while j > i:
                        j = buf[pos] >> shift
                        pos += 1
                except IndexError:
                    self._pos = pos
                    j = self.randbelow(i + 1)
                    buf, pos = self._buf, self._pos
                items[i], items[j] = items[j], items[i]
        self._pos = pos
