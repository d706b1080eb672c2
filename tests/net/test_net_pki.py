"""The table's PKI: files, modes, names, extensions, refusals (game_server.net.pki)."""

from __future__ import annotations

import datetime as dt
import ipaddress
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from hypothesis import given
from hypothesis import strategies as st

from game_server.net.identity import Identity, RevocationList, parse_serial, peer_identity
from game_server.net.pki import (
    CA_NAME,
    CertificateWithoutRole,
    InvalidHostname,
    InvalidRequest,
    InvalidRevocation,
    InvalidTerminalId,
    PkiError,
    PkiFileExists,
    PkiFileMissing,
    PkiFiles,
    PkiKeyExposed,
    Role,
    TerminalExists,
    add_terminal,
    init_pki,
    load_certificate,
    load_private_key,
)
from shared.errors import ETGError

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> PkiFiles:
    directory = tmp_path_factory.mktemp("pki") / "certs"
    return init_pki(directory, terminals=3, hostnames=["table-7.casino.lan", "10.0.0.7"], now=NOW)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _ext(
    cert: x509.Certificate, kind: type[x509.ExtensionType]
) -> x509.Extension[x509.ExtensionType]:
    return cert.extensions.get_extension_for_class(kind)


def test_init_writes_the_documented_layout(made: PkiFiles) -> None:
    """ca, server, operator and terminals/T1..T3, each a .pem and a .key."""
    root = made.ca.certificate.parent
    names = sorted(str(p.relative_to(root)) for p in made.paths())
    expected = ["ca", "operator", "server", "terminals/T1", "terminals/T2", "terminals/T3"]
    assert names == sorted(f"{n}{suffix}" for n in expected for suffix in (".pem", ".key"))
    assert all(path.is_file() for path in made.paths())
    assert list(made.terminals) == ["T1", "T2", "T3"]


def test_private_keys_are_0600_certificates_0644_directories_0700(made: PkiFiles) -> None:
    """Only the owner can read a private key; certificates are public."""
    for pair in (made.ca, made.server, made.operator, *made.terminals.values()):
        assert _mode(pair.key) == 0o600
        assert _mode(pair.certificate) == 0o644
    root = made.ca.certificate.parent
    assert _mode(root) == 0o700
    assert _mode(root / "terminals") == 0o700


def test_the_ca_is_a_p256_ca_valid_ten_years(made: PkiFiles) -> None:
    """The CA is self-signed, CA:TRUE with pathlen 0, signs certificates, ECDSA P-256."""
    ca = load_certificate(made.ca.certificate)
    assert ca.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == CA_NAME
    assert ca.issuer == ca.subject
    ca.verify_directly_issued_by(ca)
    constraints = _ext(ca, x509.BasicConstraints)
    assert constraints.critical
    assert constraints.value == x509.BasicConstraints(ca=True, path_length=0)
    usage = _ext(ca, x509.KeyUsage).value
    assert isinstance(usage, x509.KeyUsage)
    assert usage.key_cert_sign and usage.crl_sign
    public = ca.public_key()
    assert isinstance(public, ec.EllipticCurvePublicKey)
    assert public.curve.name == "secp256r1"
    years = (ca.not_valid_after_utc - NOW).days / 365.25
    assert 9.9 < years < 10.1


def test_every_leaf_is_issued_by_the_ca_for_two_years_with_key_ids(made: PkiFiles) -> None:
    """Leaves: CA:FALSE, digitalSignature only, SKI and AKI (= the CA's SKI), 2 years."""
    ca = load_certificate(made.ca.certificate)
    ca_ski = _ext(ca, x509.SubjectKeyIdentifier).value
    assert isinstance(ca_ski, x509.SubjectKeyIdentifier)
    for pair in (made.server, made.operator, *made.terminals.values()):
        cert = load_certificate(pair.certificate)
        cert.verify_directly_issued_by(ca)
        assert _ext(cert, x509.BasicConstraints).value == x509.BasicConstraints(
            ca=False, path_length=None
        )
        usage = _ext(cert, x509.KeyUsage).value
        assert isinstance(usage, x509.KeyUsage)
        assert usage.digital_signature and not usage.key_cert_sign
        aki = _ext(cert, x509.AuthorityKeyIdentifier).value
        assert isinstance(aki, x509.AuthorityKeyIdentifier)
        assert aki.key_identifier == ca_ski.digest
        ski = _ext(cert, x509.SubjectKeyIdentifier).value
        assert ski == x509.SubjectKeyIdentifier.from_public_key(cert.public_key())
        days = (cert.not_valid_after_utc - NOW).days
        assert 729 <= days <= 731
        assert cert.not_valid_before_utc < NOW
        key = load_private_key(pair.key)
        assert key.public_key() == cert.public_key()


def test_serial_numbers_are_random_and_distinct(made: PkiFiles) -> None:
    """Every certificate has its own large positive serial (random, at most 159 bits)."""
    serials = [load_certificate(p).serial_number for p in made.paths() if p.suffix == ".pem"]
    assert len(set(serials)) == len(serials)
    assert all(0 < s < 2**159 for s in serials)
    assert max(serials).bit_length() > 100


def test_the_server_certificate_names_loopback_and_the_given_hosts(made: PkiFiles) -> None:
    """SAN: localhost, 127.0.0.1, ::1 and each --hostname; EKU serverAuth only."""
    cert = load_certificate(made.server.certificate)
    san = _ext(cert, x509.SubjectAlternativeName).value
    assert isinstance(san, x509.SubjectAlternativeName)
    assert san.get_values_for_type(x509.DNSName) == ["localhost", "table-7.casino.lan"]
    assert san.get_values_for_type(x509.IPAddress) == [
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("::1"),
        ipaddress.ip_address("10.0.0.7"),
    ]
    eku = _ext(cert, x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.SERVER_AUTH]  # type: ignore[call-overload]


@pytest.mark.parametrize("terminal", ["T1", "T2", "T3"])
def test_a_terminal_certificate_names_its_terminal(made: PkiFiles, terminal: str) -> None:
    """CN = the terminal id, OU = terminal, EKU clientAuth only."""
    cert = load_certificate(made.terminals[terminal].certificate)
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == terminal
    unit = cert.subject.get_attributes_for_oid(NameOID.ORGANIZATIONAL_UNIT_NAME)[0].value
    assert unit == "terminal"
    eku = _ext(cert, x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.CLIENT_AUTH]  # type: ignore[call-overload]
    identity = peer_identity(cert)
    assert identity == Identity(Role.TERMINAL, terminal, cert.serial_number)
    assert identity.role == "terminal"


def test_the_operator_certificate_names_the_operator(made: PkiFiles) -> None:
    """CN = operator, OU = operator: peer_identity says role operator."""
    cert = load_certificate(made.operator.certificate)
    identity = peer_identity(cert)
    assert (identity.role, identity.id) == ("operator", "operator")
    assert identity.serial_hex == format(cert.serial_number, "x")


def test_the_server_certificate_has_no_peer_role(made: PkiFiles) -> None:
    """peer_identity refuses a certificate that is not a terminal's or the operator's."""
    with pytest.raises(CertificateWithoutRole, match="names no role"):
        peer_identity(load_certificate(made.server.certificate))
    with pytest.raises(CertificateWithoutRole):
        peer_identity(load_certificate(made.ca.certificate))


def test_init_refuses_to_overwrite_and_names_the_file(tmp_path: Path) -> None:
    """A second init refuses, naming the first existing file, and changes nothing."""
    first = init_pki(tmp_path, terminals=1)
    before = {p: p.read_bytes() for p in first.paths()}
    with pytest.raises(PkiFileExists, match=r"ca\.pem already exists") as caught:
        init_pki(tmp_path, terminals=1)
    assert caught.value.path == first.ca.certificate
    assert "--force" in str(caught.value)
    assert {p: p.read_bytes() for p in first.paths()} == before


def test_init_refuses_when_only_one_terminal_file_exists(tmp_path: Path) -> None:
    """Any one existing file of the layout stops init before anything is written."""
    (tmp_path / "terminals").mkdir()
    (tmp_path / "terminals" / "T2.key").write_text("old")
    with pytest.raises(PkiFileExists, match=r"T2\.key"):
        init_pki(tmp_path, terminals=2)
    assert not (tmp_path / "ca.pem").exists()


def test_init_with_force_replaces_the_ca(tmp_path: Path) -> None:
    """force writes a new CA; the old terminal certificates no longer chain to it."""
    first = init_pki(tmp_path, terminals=1)
    old_ca = load_certificate(first.ca.certificate)
    again = init_pki(tmp_path, terminals=1, force=True)
    new_ca = load_certificate(again.ca.certificate)
    assert new_ca.serial_number != old_ca.serial_number
    assert _mode(again.ca.key) == 0o600
    load_certificate(again.terminals["T1"].certificate).verify_directly_issued_by(new_ca)


def test_init_checks_its_arguments_before_writing(tmp_path: Path) -> None:
    """A bad host name or terminal count is refused and nothing is written."""
    with pytest.raises(InvalidHostname, match="bad_name!"):
        init_pki(tmp_path / "a", terminals=1, hostnames=["bad_name!"])
    with pytest.raises(InvalidHostname):
        init_pki(tmp_path / "a", terminals=1, hostnames="table.lan")
    with pytest.raises(InvalidRequest, match="0 to 9999"):
        init_pki(tmp_path / "a", terminals=-1)
    with pytest.raises(InvalidRequest, match="aware"):
        init_pki(tmp_path / "a", terminals=1, now=dt.datetime(2026, 1, 1))
    assert not (tmp_path / "a").exists()


def test_add_terminal_issues_from_the_existing_ca(tmp_path: Path) -> None:
    """add_terminal T7 writes terminals/T7.pem and .key, signed by the table's CA."""
    made = init_pki(tmp_path, terminals=1)
    cert_path, key_path = add_terminal(tmp_path, "T7")
    assert (cert_path, key_path) == (
        tmp_path / "terminals" / "T7.pem",
        tmp_path / "terminals" / "T7.key",
    )
    assert (_mode(cert_path), _mode(key_path)) == (0o644, 0o600)
    cert = load_certificate(cert_path)
    cert.verify_directly_issued_by(load_certificate(made.ca.certificate))
    assert peer_identity(cert).id == "T7"


@pytest.mark.parametrize("existing", ["T1", "t1"])
def test_add_terminal_refuses_a_duplicate(tmp_path: Path, existing: str) -> None:
    """An id that already has a certificate, in any letter case, is refused."""
    init_pki(tmp_path, terminals=1)
    before = (tmp_path / "terminals" / "T1.pem").read_bytes()
    with pytest.raises(TerminalExists, match="T1 already has a certificate"):
        add_terminal(tmp_path, existing)
    assert (tmp_path / "terminals" / "T1.pem").read_bytes() == before
    assert not (tmp_path / "terminals" / "t1.pem").exists()


@pytest.mark.parametrize(
    "bad", ["", "T 1", "x" * 33, "../T1", "T1.pem", "T/1", "Tü", "operator", "CA", 7]
)
def test_add_terminal_refuses_an_invalid_id(tmp_path: Path, bad: object) -> None:
    """Ids are 1-32 of letters, digits, _ and -, and not reserved; nothing is written."""
    init_pki(tmp_path, terminals=0)
    with pytest.raises(InvalidTerminalId):
        add_terminal(tmp_path, bad)  # type: ignore[arg-type]
    assert list((tmp_path / "terminals").iterdir()) == []


def test_add_terminal_needs_the_ca(tmp_path: Path) -> None:
    """Without init there is no CA: the error says to run etg certs init."""
    with pytest.raises(PkiFileMissing, match="etg certs init"):
        add_terminal(tmp_path, "T1")


def test_add_terminal_refuses_a_ca_key_others_can_read(tmp_path: Path) -> None:
    """A CA key with group/other access is refused with the chmod to run."""
    made = init_pki(tmp_path, terminals=0)
    made.ca.key.chmod(0o644)
    with pytest.raises(PkiKeyExposed, match="chmod 600"):
        add_terminal(tmp_path, "T1")


def test_errors_are_product_errors() -> None:
    """Every PKI error is an ETGError, so the etg command prints it as one line."""
    assert issubclass(PkiError, ETGError)
    for error in (PkiFileExists, TerminalExists, InvalidTerminalId, CertificateWithoutRole):
        assert issubclass(error, PkiError)


def test_a_revocation_list_revokes_by_serial_or_by_id(made: PkiFiles) -> None:
    """Serial numbers in any hex form and terminal ids both revoke."""
    t1 = load_certificate(made.terminals["T1"].certificate)
    t2 = load_certificate(made.terminals["T2"].certificate)
    t3 = load_certificate(made.terminals["T3"].certificate)
    colon = ":".join(f"{b:02X}" for b in t1.serial_number.to_bytes(20, "big"))
    revoked = RevocationList.from_config(serials=[colon], ids=["T3"])
    assert revoked.is_revoked(t1)
    assert revoked.reason(t1) == f"serial {t1.serial_number:x}"
    assert not revoked.is_revoked(t2)
    assert revoked.is_revoked(t3)
    assert revoked.reason(t3) == "id T3"
    assert not RevocationList().is_revoked(t1)
    assert RevocationList(serials=frozenset({t2.serial_number})).is_revoked(t2)


@pytest.mark.parametrize("bad", ["", "0x", "xyz", "12 34", "-5"])
def test_a_revocation_entry_that_is_not_hex_is_refused(bad: str) -> None:
    """The config's serial numbers must be hex; the message shows the expected form."""
    with pytest.raises(InvalidRevocation, match="hex"):
        RevocationList.from_config(serials=[bad])


def test_a_revoked_id_must_be_a_terminal_id() -> None:
    """An id with characters no terminal id has is a config error, not silently ignored."""
    with pytest.raises(InvalidRevocation):
        RevocationList.from_config(ids=["T 3"])


@given(st.integers(min_value=0, max_value=2**160))
def test_serial_numbers_round_trip_through_every_hex_form(serial: int) -> None:
    """parse_serial reads what format(x), 0x-prefix and openssl's colon form write."""
    plain = format(serial, "x")
    padded = plain.zfill(len(plain) + len(plain) % 2)
    colon = ":".join(padded[i : i + 2] for i in range(0, len(padded), 2)).upper()
    assert parse_serial(plain) == parse_serial(f"0x{plain}") == parse_serial(colon) == serial
