"""Enrollment (:mod:`game_server.net.enroll`, ``etg certs request`` and ``etg certs sign``):
the terminal makes its key and a request, the table's CA signs it; an id already issued is
refused unless its certificate is revoked; a request that is not a terminal's is refused
with a sentence."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from game_server.net.enroll import (
    AlreadyIssued,
    RequestMalformed,
    RevokedById,
    key_fingerprint,
    load_request,
    request_certificate,
    sign_request,
)
from game_server.net.identity import RevocationList, peer_identity
from game_server.net.pki import (
    InvalidTerminalId,
    PkiFileExists,
    PkiLayout,
    Role,
    init_pki,
    load_certificate,
    load_private_key,
)
from tools.cli import main


@pytest.fixture()
def ca(tmp_path: Path) -> Path:
    """A table's certificates folder with T1 and T2 made by ``etg certs init``."""
    folder = tmp_path / "server-certs"
    init_pki(folder, terminals=2)
    return folder


def _csr(key: object, subject: x509.Name) -> bytes:
    csr = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())  # type: ignore[arg-type]
    return csr.public_bytes(serialization.Encoding.PEM)


def _subject(*pairs: tuple[x509.ObjectIdentifier, str]) -> x509.Name:
    return x509.Name([x509.NameAttribute(oid, value) for oid, value in pairs])


def test_a_request_keeps_the_key_on_the_terminal_and_the_signed_certificate_is_for_it(
    ca: Path, tmp_path: Path
) -> None:
    """The key is mode 0600 beside a public request; the CA issues T9 a client certificate
    for that very key (OU terminal, clientAuth, issued by the CA); the server's folder gets
    the certificate and never a key; both ends show the same fingerprint."""
    terminal = tmp_path / "terminal"
    made = request_certificate(terminal, "T9")
    assert stat.S_IMODE(made.key.stat().st_mode) == 0o600
    assert stat.S_IMODE(made.request.stat().st_mode) == 0o644
    assert stat.S_IMODE(terminal.stat().st_mode) == 0o700
    key = load_private_key(made.key)
    signed = sign_request(ca, made.request, RevocationList())
    assert signed.certificate == PkiLayout(ca).terminal("T9").certificate
    assert not PkiLayout(ca).terminal("T9").key.exists()
    assert signed.fingerprint == made.fingerprint == key_fingerprint(key.public_key())
    cert = load_certificate(signed.certificate)
    assert cert.public_key() == key.public_key()
    assert cert.serial_number == signed.serial
    identity = peer_identity(cert)
    assert (identity.role, identity.id) == (Role.TERMINAL, "T9")
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.CLIENT_AUTH]
    ca_cert = load_certificate(ca / "ca.pem")
    cert.verify_directly_issued_by(ca_cert)
    key_bytes = made.key.read_bytes()
    for path in ca.rglob("*"):
        assert not path.is_file() or key_bytes not in path.read_bytes()


def test_a_key_is_never_replaced_and_a_bad_id_is_refused(tmp_path: Path) -> None:
    """A second request for the same id in the same folder is refused before anything is
    written (the key stays); reserved or malformed ids are refused."""
    made = request_certificate(tmp_path, "T9")
    key = made.key.read_bytes()
    with pytest.raises(PkiFileExists, match="refusing to overwrite"):
        request_certificate(tmp_path, "T9")
    assert made.key.read_bytes() == key
    for bad in ("operator", "T 9", "", "x" * 33, "../T9"):
        with pytest.raises(InvalidTerminalId):
            request_certificate(tmp_path / "other", bad)
    assert not (tmp_path / "other").exists()


def test_an_id_already_issued_is_refused_until_its_certificate_is_revoked(
    ca: Path, tmp_path: Path
) -> None:
    """T1 (made by certs init) and t1 (any letter case) are refused while the certificate is
    valid, with its serial and the floor file's line to add; revoked by serial, the new
    request is signed and the old certificate and key move to terminals/replaced/; a
    request reusing the revoked key is refused; an id revoked by id is refused (its new
    certificate would be refused too)."""
    layout = PkiLayout(ca)
    old = load_certificate(layout.terminal("T1").certificate)
    serial = format(old.serial_number, "x")
    first = request_certificate(tmp_path / "a", "T1")
    with pytest.raises(AlreadyIssued, match=f'add "{serial}" to \\[floor.revoked\\] serials'):
        sign_request(ca, first.request, RevocationList())
    lower = request_certificate(tmp_path / "b", "t1")
    with pytest.raises(AlreadyIssued):
        sign_request(ca, lower.request, RevocationList())
    with pytest.raises(RevokedById, match="Revoke the old certificate by its serial"):
        sign_request(ca, first.request, RevocationList.from_config(ids=["T1"]))
    assert layout.terminal("T1").certificate.exists()

    revoked = RevocationList.from_config(serials=[serial])
    signed = sign_request(ca, first.request, revoked)
    assert signed.replaced == layout.terminals_dir / "replaced" / f"T1-{serial}.pem"
    assert signed.replaced.exists() and signed.replaced.with_suffix(".key").exists()
    assert not layout.terminal("T1").key.exists()
    assert load_certificate(layout.terminal("T1").certificate).serial_number == signed.serial
    assert layout.terminal_ids() == ["T1", "T2"]

    new_serial = format(signed.serial, "x")
    both = RevocationList.from_config(serials=[serial, new_serial])
    with pytest.raises(AlreadyIssued, match="carries the key of its revoked certificate"):
        sign_request(ca, first.request, both)


def test_requests_that_are_not_a_terminals_are_refused(ca: Path, tmp_path: Path) -> None:
    """Altered (the signature fails), an RSA key, an operator's subject, a reserved id, two
    common names, not PEM, too big: each refused with a sentence; nothing is issued."""
    key = ec.generate_private_key(ec.SECP256R1())
    good = _csr(
        key, _subject((NameOID.ORGANIZATIONAL_UNIT_NAME, "terminal"), (NameOID.COMMON_NAME, "T5"))
    )
    der = bytearray(x509.load_pem_x509_csr(good).public_bytes(serialization.Encoding.DER))
    der[-3] ^= 0x01  # inside the signature's integers
    altered = x509.load_der_x509_csr(bytes(der)).public_bytes(serialization.Encoding.PEM)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cases = {
        "altered.csr": (altered, RequestMalformed, "does not verify"),
        "rsa.csr": (
            _csr(rsa_key, _subject((NameOID.COMMON_NAME, "T5"))),
            RequestMalformed,
            "not an ECDSA P-256 key",
        ),
        "operator.csr": (
            _csr(
                key,
                _subject(
                    (NameOID.ORGANIZATIONAL_UNIT_NAME, "operator"), (NameOID.COMMON_NAME, "T5")
                ),
            ),
            RequestMalformed,
            "not one terminal",
        ),
        "reserved.csr": (
            _csr(key, _subject((NameOID.COMMON_NAME, "server"))),
            InvalidTerminalId,
            "reserved",
        ),
        "two.csr": (
            _csr(key, _subject((NameOID.COMMON_NAME, "T5"), (NameOID.COMMON_NAME, "T6"))),
            RequestMalformed,
            "not one terminal",
        ),
        "text.csr": (b"hello", RequestMalformed, "not a PEM certificate request"),
        "big.csr": (b"x" * 20_000, RequestMalformed, "not a terminal's certificate request"),
    }
    for name, (data, error, words) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(error, match=words):
            sign_request(ca, path, RevocationList())
    assert PkiLayout(ca).terminal_ids() == ["T1", "T2"]
    (tmp_path / "good.csr").write_bytes(good)
    assert load_request(tmp_path / "good.csr")[0] == "T5"


def test_the_commands_request_and_sign(ca: Path, tmp_path: Path) -> None:
    """``etg certs request`` writes the key and request and prints the fingerprint;
    ``etg certs sign`` prints the same fingerprint, writes the certificate (and --out),
    says what to copy; a second sign exits 2 with the sentence; --out never overwrites."""
    runner = CliRunner()
    terminal = tmp_path / "terminal"
    made = runner.invoke(main, ["certs", "request", "T9", "--dir", str(terminal)])
    assert made.exit_code == 0, made.output
    [fingerprint] = [line for line in made.output.splitlines() if "fingerprint" in line]
    out = terminal / "T9.pem"
    signed = runner.invoke(
        main, ["certs", "sign", str(terminal / "T9.csr"), "--certs", str(ca), "--out", str(out)]
    )
    assert signed.exit_code == 0, signed.output
    assert fingerprint in signed.output
    assert out.read_bytes() == (ca / "terminals" / "T9.pem").read_bytes()
    assert f"copy {out} and {ca / 'ca.pem'}" in signed.output
    again = runner.invoke(main, ["certs", "sign", str(terminal / "T9.csr"), "--certs", str(ca)])
    assert again.exit_code == 2
    assert "T9 already has a certificate" in again.output
    floor = tmp_path / "floor.toml"
    serial = format(load_certificate(out).serial_number, "x")
    floor.write_text(
        f'[floor]\n[floor.terminals]\nT9 = 1\n[floor.revoked]\nserials = ["{serial}"]\n'
    )
    os.rename(terminal / "T9.key", tmp_path / "lost.key")
    (terminal / "T9.csr").unlink()
    out.unlink()
    runner.invoke(main, ["certs", "request", "T9", "--dir", str(terminal)])
    existing = tmp_path / "exists.pem"
    existing.write_text("x")
    refused = runner.invoke(
        main,
        [
            "certs",
            "sign",
            str(terminal / "T9.csr"),
            "--certs",
            str(ca),
            "--floor",
            str(floor),
            "--out",
            str(existing),
        ],
    )
    assert refused.exit_code == 2 and "not overwritten" in refused.output
    before = (ca / "terminals" / "T9.pem").read_bytes()
    unwritable = runner.invoke(
        main,
        [
            *("certs", "sign", str(terminal / "T9.csr"), "--certs", str(ca)),
            *("--floor", str(floor), "--out", str(tmp_path / "no-such-folder" / "T9.pem")),
        ],
    )
    assert unwritable.exit_code == 2, unwritable.output
    assert "nothing was signed" in unwritable.output
    assert (ca / "terminals" / "T9.pem").read_bytes() == before
    replaced = runner.invoke(
        main,
        ["certs", "sign", str(terminal / "T9.csr"), "--certs", str(ca), "--floor", str(floor)],
    )
    assert replaced.exit_code == 0, replaced.output
    assert "moved the revoked certificate of T9" in replaced.output
