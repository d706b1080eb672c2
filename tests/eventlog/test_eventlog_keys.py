"""The server's keys (game_server.keys): created with the right modes, never overwritten by
accident, loaded with clear refusals, and AES-256-GCM sealing that fails loudly."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from game_server.keys import (
    NONCE_BYTES,
    PUBLIC_KEY_FILE,
    SEALING_KEY_FILE,
    SIGNING_KEY_FILE,
    KeyFileExists,
    KeyFileExposed,
    KeyFileMalformed,
    KeyFileMissing,
    KeyFiles,
    SealError,
    UnsealFailed,
    init_keys,
    key_id,
    load_public_key,
    load_sealing_key,
    load_signing_key,
    seal,
    unseal,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_init_keys_writes_three_files_with_their_modes(keys_dir: Path) -> None:
    """The private signing and sealing keys are 0600, the public key 0644, whatever the
    umask; the directory is created 0700."""
    old = os.umask(0o000)
    try:
        files = init_keys(keys_dir)
    finally:
        os.umask(old)
    assert files == KeyFiles(
        keys_dir / SIGNING_KEY_FILE, keys_dir / PUBLIC_KEY_FILE, keys_dir / SEALING_KEY_FILE
    )
    assert _mode(files.signing_key) == 0o600
    assert _mode(files.sealing_key) == 0o600
    assert _mode(files.public_key) == 0o644
    assert _mode(keys_dir) == 0o700
    assert files.signing_key.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert files.public_key.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    assert len(files.sealing_key.read_text().strip()) == 64
    assert sorted(p.name for p in keys_dir.iterdir()) == sorted(
        [SIGNING_KEY_FILE, PUBLIC_KEY_FILE, SEALING_KEY_FILE]
    )  # no temporary file left behind


def test_the_keys_load_back_and_match(key_files: KeyFiles) -> None:
    """The public key is the signing key's; the sealing key is 32 bytes; key_id is a
    16-hex-digit fingerprint, the same from either half."""
    private = load_signing_key(key_files.signing_key.parent)
    public = load_public_key(key_files.public_key)
    assert key_id(private) == key_id(public)
    assert len(key_id(public)) == 16 and int(key_id(public), 16) >= 0
    public.verify(private.sign(b"x"), b"x")
    assert len(load_sealing_key(key_files.sealing_key.parent)) == 32


def test_init_keys_refuses_to_overwrite_naming_the_file(key_files: KeyFiles) -> None:
    """A second init_keys is refused, naming the existing file; nothing changes. force=True
    replaces all three keys."""
    before = {p: p.read_bytes() for p in key_files.signing_key.parent.iterdir()}
    with pytest.raises(KeyFileExists, match=r"log-signing\.key already exists.*force=True"):
        init_keys(key_files.signing_key.parent)
    assert {p: p.read_bytes() for p in key_files.signing_key.parent.iterdir()} == before
    key_files.signing_key.unlink()
    with pytest.raises(KeyFileExists, match=r"log-signing\.pub already exists"):
        init_keys(key_files.signing_key.parent)
    assert not key_files.signing_key.exists()
    init_keys(key_files.signing_key.parent, force=True)
    for path in (key_files.public_key, key_files.sealing_key):
        assert path.read_bytes() != before[path]
    assert _mode(key_files.signing_key) == 0o600


@pytest.mark.parametrize("loader", [load_signing_key, load_sealing_key])
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_private_key_others_can_access_is_refused(
    key_files: KeyFiles, loader: object, mode: int
) -> None:
    """Group or world access to a private key file is refused, with the chmod that fixes it."""
    path = key_files.signing_key if loader is load_signing_key else key_files.sealing_key
    os.chmod(path, mode)
    with pytest.raises(KeyFileExposed, match=rf"mode {mode:04o}.*chmod 600 {path}"):
        loader(path)  # type: ignore[operator]


def test_missing_keys_are_named(tmp_path: Path) -> None:
    """Each loader names the file it looked for; the sentence first says to give the key of
    the server that wrote the log (--key, --certs), and only for a new table to make keys
    with the real command (never an internal function's name)."""
    for loader, name in (
        (load_signing_key, SIGNING_KEY_FILE),
        (load_public_key, PUBLIC_KEY_FILE),
        (load_sealing_key, SEALING_KEY_FILE),
    ):
        with pytest.raises(
            KeyFileMissing, match=rf"{name}.*--key.*--certs.*etg certs init"
        ) as missing:
            loader(tmp_path)
        assert missing.value.path == tmp_path / name
        assert "init_keys" not in str(missing.value)


def test_malformed_keys_are_refused(key_files: KeyFiles) -> None:
    """Garbage, a key of another type, or a short sealing key are each refused."""
    key_files.signing_key.write_text("not a key")
    with pytest.raises(KeyFileMalformed, match="not an unencrypted PEM private key"):
        load_signing_key(key_files.signing_key)
    key_files.public_key.write_bytes(b"\x00\x01")
    with pytest.raises(KeyFileMalformed, match="not a PEM public key"):
        load_public_key(key_files.public_key)
    key_files.sealing_key.write_text("abcd\n")
    with pytest.raises(KeyFileMalformed, match="64 hex digits"):
        load_sealing_key(key_files.sealing_key)


def test_a_non_ed25519_key_is_refused(key_files: KeyFiles) -> None:
    """An RSA/EC key in the signing key's place is refused by type."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    other = ec.generate_private_key(ec.SECP256R1())
    key_files.signing_key.write_bytes(
        other.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    )
    with pytest.raises(KeyFileMalformed, match="must be an Ed25519 key"):
        load_signing_key(key_files.signing_key)


def test_seal_unseal_round_trip(key_files: KeyFiles) -> None:
    """What is sealed under a key and associated data opens with the same; each seal uses a
    fresh nonce, so sealing twice gives two different blobs."""
    key = load_sealing_key(key_files.sealing_key)
    secret = b"shoe seed " + bytes(range(64))
    blob = seal(key, secret, b"T1/shoe-7")
    assert len(blob) == NONCE_BYTES + len(secret) + 16
    assert unseal(key, blob, b"T1/shoe-7") == secret
    assert seal(key, secret, b"T1/shoe-7") != blob
    assert unseal(key, seal(key, b"", b""), b"") == b""


def test_unseal_fails_loudly_on_a_wrong_key_context_or_tampering(key_files: KeyFiles) -> None:
    """A wrong key, wrong associated data, any flipped bit, or a truncated blob is refused."""
    key = load_sealing_key(key_files.sealing_key)
    blob = seal(key, b"seed", b"T1/shoe-7")
    with pytest.raises(UnsealFailed, match="wrong sealing key"):
        unseal(bytes(32), blob, b"T1/shoe-7")
    with pytest.raises(UnsealFailed):
        unseal(key, blob, b"T1/shoe-8")
    for index in (0, NONCE_BYTES, len(blob) - 1):
        tampered = bytearray(blob)
        tampered[index] ^= 0x01
        with pytest.raises(UnsealFailed):
            unseal(key, bytes(tampered), b"T1/shoe-7")
    with pytest.raises(UnsealFailed, match="at least 28 bytes"):
        unseal(key, blob[:20], b"T1/shoe-7")


def test_a_sealing_key_of_the_wrong_size_is_refused() -> None:
    """Only a 32-byte key seals (AES-256)."""
    with pytest.raises(SealError, match="32 bytes"):
        seal(b"short", b"x", b"")
    with pytest.raises(SealError, match="32 bytes"):
        unseal(bytes(16), bytes(40), b"")


def test_key_id_differs_between_keys() -> None:
    """Two keys have two fingerprints."""
    assert key_id(Ed25519PrivateKey.generate()) != key_id(Ed25519PrivateKey.generate())
