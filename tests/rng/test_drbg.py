"""HMAC_DRBG (NIST SP 800-90A 10.1.2) against every [SHA-256] vector of the NIST CAVP file.

The vectors live in ``tests/rng/vectors/HMAC_DRBG_SHA256.rsp`` (a copy of the CAVP file
``HMAC_DRBG.rsp``, reseed variant, SHA-256 sections only). Each vector runs the CAVS
procedure: instantiate, reseed, generate twice, compare the second output.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from game_server.rng.drbg import (
    KNOWN_ANSWERS,
    MAX_REQUEST_BYTES,
    HmacDrbg,
    KnownAnswer,
    run_known_answer,
    self_test,
)
from game_server.rng.errors import (
    BadRange,
    BadSeedMaterial,
    DrbgSelfTestFailed,
    RequestTooLarge,
    ReseedRequired,
)

VECTORS = Path(__file__).parent / "vectors" / "HMAC_DRBG_SHA256.rsp"

_FIELDS = {
    "EntropyInput": "entropy_input",
    "Nonce": "nonce",
    "PersonalizationString": "personalization_string",
    "EntropyInputReseed": "entropy_input_reseed",
    "AdditionalInputReseed": "additional_input_reseed",
    "ReturnedBits": "returned_bits",
}


def parse_vectors(path: Path) -> list[KnownAnswer]:
    """Every vector of the ``[SHA-256]`` sections of a CAVP HMAC_DRBG ``.rsp`` file.

    Fails loudly on anything it does not understand (another hash, prediction resistance,
    an unknown field, a length that disagrees with its section header) so that no vector is
    skipped in silence.
    """
    vectors: list[KnownAnswer] = []
    section: dict[str, str] = {}
    section_number = 0
    record: dict[str, str] = {}
    additional: list[str] = []

    def finish() -> None:
        if not record:
            return
        assert len(additional) == 2, f"vector {record} has {len(additional)} AdditionalInput"
        values = {_FIELDS[k]: bytes.fromhex(v) for k, v in record.items() if k != "COUNT"}
        for field, header in (
            ("entropy_input", "EntropyInputLen"),
            ("nonce", "NonceLen"),
            ("personalization_string", "PersonalizationStringLen"),
            ("returned_bits", "ReturnedBitsLen"),
        ):
            assert len(values[field]) * 8 == int(section[header]), (field, record)
        for extra in [values["additional_input_reseed"], *map(bytes.fromhex, additional)]:
            assert len(extra) * 8 == int(section["AdditionalInputLen"]), record
        name = (
            f"s{section_number:02d}-pers{section['PersonalizationStringLen']}"
            f"-add{section['AdditionalInputLen']}-count{record['COUNT']}"
        )
        vectors.append(
            KnownAnswer(
                name=name,
                additional_input=(bytes.fromhex(additional[0]), bytes.fromhex(additional[1])),
                **values,
            )
        )
        record.clear()
        additional.clear()

    for raw in path.read_text(encoding="ascii").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            finish()
            continue
        if line.startswith("["):
            finish()
            header = line.strip("[]")
            if header == "SHA-256":
                section = {}
                section_number += 1
            elif " = " in header:
                key, value = header.split(" = ")
                section[key] = value
            else:
                raise AssertionError(f"section for another hash: {line!r}")
            continue
        key, _, value = line.partition(" =")
        value = value.strip()
        assert section.get("PredictionResistance") == "False", line
        if key == "AdditionalInput":
            additional.append(value)
        elif key == "COUNT" or key in _FIELDS:
            assert key not in record, f"{key} twice in one vector"
            record[key] = value
        else:
            raise AssertionError(f"unknown field {key!r}")
    finish()
    return vectors


ALL_VECTORS = parse_vectors(VECTORS)


def test_vector_file_has_all_240_sha256_vectors() -> None:
    """The parser reads 16 sections of 15 vectors, so no vector is silently dropped."""
    assert len(ALL_VECTORS) == 240
    assert len({v.name for v in ALL_VECTORS}) == 240


@pytest.mark.parametrize("vector", ALL_VECTORS, ids=lambda v: v.name)
def test_cavp_vector(vector: KnownAnswer) -> None:
    """The second generate of the CAVS procedure returns the vector's ReturnedBits."""
    assert run_known_answer(vector).hex() == vector.returned_bits.hex()


def test_embedded_known_answers_are_in_the_nist_file() -> None:
    """The self-test's vectors are copied from the CAVP file, not made up."""
    by_inputs = {(v.entropy_input, v.nonce): v for v in ALL_VECTORS}
    for embedded in KNOWN_ANSWERS:
        from_file = by_inputs[embedded.entropy_input, embedded.nonce]
        assert dataclasses.replace(from_file, name=embedded.name) == embedded
    assert any(v.personalization_string and v.additional_input[0] for v in KNOWN_ANSWERS)


def test_self_test_passes() -> None:
    """The embedded known-answer tests pass on a correct DRBG."""
    self_test()


def test_self_test_raises_on_a_corrupted_vector() -> None:
    """One flipped bit in an expected output makes the self-test raise, naming the vector."""
    good = KNOWN_ANSWERS[2]
    flipped = bytes([good.returned_bits[0] ^ 1]) + good.returned_bits[1:]
    corrupted = dataclasses.replace(good, returned_bits=flipped)
    with pytest.raises(DrbgSelfTestFailed, match="out of service") as raised:
        self_test([KNOWN_ANSWERS[0], corrupted])
    assert good.name in str(raised.value)


def _drbg(**kwargs: int) -> HmacDrbg:
    return HmacDrbg(bytes(32), bytes(16), b"table/1", **kwargs)


def test_reseed_required_after_the_interval() -> None:
    """Generate refuses once reseed_counter exceeds the interval; a reseed lets it go on."""
    drbg = _drbg(reseed_interval=2)
    drbg.generate(32)
    drbg.generate(32)
    with pytest.raises(ReseedRequired, match="reseed"):
        drbg.generate(32)
    drbg.reseed(bytes(range(32)))
    assert drbg.reseed_counter == 1
    assert len(drbg.generate(32)) == 32


def test_default_reseed_interval_is_2_to_48() -> None:
    """The interval is SP 800-90A's 2**48 and larger values are refused."""
    with pytest.raises(BadRange):
        _drbg(reseed_interval=2**48 + 1)
    with pytest.raises(BadRange):
        _drbg(reseed_interval=0)


def test_request_size_limit() -> None:
    """2**16 bytes (2**19 bits) is the largest request; one byte more is refused."""
    drbg = _drbg()
    assert len(drbg.generate(MAX_REQUEST_BYTES)) == MAX_REQUEST_BYTES
    with pytest.raises(RequestTooLarge, match="65536"):
        drbg.generate(MAX_REQUEST_BYTES + 1)
    with pytest.raises(BadRange):
        drbg.generate(0)


def test_odd_sized_requests_are_prefixes_of_whole_blocks() -> None:
    """A request for 33 bytes returns the leftmost 33 bytes of two HMAC blocks."""
    assert _drbg().generate(33) == _drbg().generate(64)[:33]


@pytest.mark.parametrize(
    ("entropy", "nonce", "message"),
    [(31, 16, "entropy input is 31 bytes"), (32, 15, "nonce is 15 bytes")],
)
def test_short_seed_material_is_refused(entropy: int, nonce: int, message: str) -> None:
    """Entropy under 256 bits or a nonce under 128 bits cannot instantiate the DRBG."""
    with pytest.raises(BadSeedMaterial, match=message):
        HmacDrbg(bytes(entropy), bytes(nonce))


def test_short_reseed_entropy_is_refused() -> None:
    """A reseed needs 256 bits of entropy too."""
    with pytest.raises(BadSeedMaterial, match="31 bytes"):
        _drbg().reseed(bytes(31))


def test_instantiate_is_the_constructor() -> None:
    """HmacDrbg.instantiate gives the same generator as HmacDrbg(...)."""
    a = HmacDrbg.instantiate(bytes(32), bytes(16), b"p")
    b = HmacDrbg(bytes(32), bytes(16), b"p")
    assert a.generate(64) == b.generate(64)


def test_inputs_change_the_output() -> None:
    """Personalization and additional input each give a different output."""
    base = HmacDrbg(bytes(32), bytes(16), b"T1/1").generate(32)
    assert HmacDrbg(bytes(32), bytes(16), b"T1/2").generate(32) != base
    assert HmacDrbg(bytes(32), bytes(16), b"T1/1").generate(32, b"x") != base
