"""The console's second factor against the RFC 6238 and RFC 4226 test vectors (copied into
this folder), and the verifier's window and replay refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from game_server.console.totp import (
    TotpVerifier,
    hotp,
    otpauth_uri,
    secret_from_text,
    secret_text,
    totp,
)

HERE = Path(__file__).parent
SEED = b"12345678901234567890"
SEEDS = {"SHA1": SEED, "SHA256": (SEED * 2)[:32], "SHA512": (SEED * 4)[:64]}


def _rows(name: str) -> list[list[str]]:
    lines = (HERE / name).read_text(encoding="utf-8").splitlines()
    return [line.split() for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize(("time", "mode", "code"), _rows("rfc6238_vectors.txt"))
def test_totp_matches_rfc_6238_appendix_b(time: str, mode: str, code: str) -> None:
    """Every row of RFC 6238's test table, 8 digits, for SHA-1, SHA-256 and SHA-512."""
    assert totp(SEEDS[mode], int(time), digits=8, algorithm=mode.lower()) == code


@pytest.mark.parametrize(("count", "code"), _rows("rfc4226_vectors.txt"))
def test_hotp_matches_rfc_4226_appendix_d(count: str, code: str) -> None:
    """Every row of RFC 4226's HOTP table (6 digits)."""
    assert hotp(SEED, int(count)) == code


def test_the_vector_files_are_complete() -> None:
    """18 TOTP rows (6 times x 3 modes) and 10 HOTP rows: none lost from the copies."""
    assert len(_rows("rfc6238_vectors.txt")) == 18
    assert len(_rows("rfc4226_vectors.txt")) == 10


def test_a_code_is_accepted_one_step_either_side_and_only_once() -> None:
    """The code of now, of the step before and of the step after pass; two steps away fails;
    a step already used fails (a replayed code)."""
    now = 1_700_000_000
    verifier = TotpVerifier()
    assert not verifier.check("bob", SEED, totp(SEED, now - 60), now)
    assert verifier.check("bob", SEED, totp(SEED, now - 30), now)
    assert verifier.check("bob", SEED, totp(SEED, now), now)
    assert not verifier.check("bob", SEED, totp(SEED, now), now), "a replayed code"
    assert not verifier.check("bob", SEED, totp(SEED, now - 30), now), "an older step"
    assert verifier.check("bob", SEED, totp(SEED, now + 30), now)
    assert verifier.check("eve", SEED, totp(SEED, now), now), "steps are per account"


@pytest.mark.parametrize("code", ["", "12345", "1234567", "12a456", "------"])
def test_a_malformed_code_is_refused(code: str) -> None:
    assert not TotpVerifier().check("bob", SEED, code, 0)


def test_the_secret_round_trips_through_base32_and_the_uri() -> None:
    """The typed-in form decodes to the same bytes, and the URI names it and the issuer."""
    text = secret_text(SEED)
    assert text == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert secret_from_text(text.lower()[:8] + " " + text[8:]) == SEED
    uri = otpauth_uri(SEED, "bob")
    assert uri.startswith("otpauth://totp/ETG%20console%3Abob?secret=" + text)
    with pytest.raises(ValueError, match="base32"):
        secret_from_text("not base32!")
