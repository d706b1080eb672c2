"""``etg console user add|list|remove``, ``etg console audit`` and the console's refusals
before it serves (no account, ``--store`` not in this build, a bad servers file), and its
HTTPS options (TLS 1.3 only, its own certificate)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from twisted.internet.ssl import CertificateOptions

from game_server.console.audit import AuditLog
from game_server.console.service import https_tls_options
from game_server.console.totp import secret_from_text
from game_server.net.pki import PkiFileMissing, add_console, init_pki, load_certificate
from tools.cli import main

PASSWORD = "correct horse battery"


def test_user_add_list_remove(tmp_path: Path) -> None:
    """A supervisor is shown its one-time code secret once; list says who signs in how;
    remove removes; a short password is refused with status 2."""
    runner = CliRunner()
    accounts = str(tmp_path / "accounts.json")
    added = runner.invoke(
        main,
        [
            "console",
            "user",
            "add",
            "sam",
            "--role",
            "supervisor",
            "--accounts",
            accounts,
            "--password-stdin",
        ],
        input=PASSWORD + "\n",
    )
    assert added.exit_code == 0, added.output
    secret = re.search(r"one-time code secret: ([A-Z2-7]+)", added.output)
    assert secret is not None and len(secret_from_text(secret[1])) == 20
    assert "otpauth://totp/ETG%20console%3Asam?secret=" + secret[1] in added.output
    runner.invoke(
        main,
        [
            "console",
            "user",
            "add",
            "ann",
            "--role",
            "attendant",
            "--accounts",
            accounts,
            "--password-stdin",
        ],
        input=PASSWORD + "\n",
    )
    listed = runner.invoke(main, ["console", "user", "list", "--accounts", accounts]).output
    assert re.search(r"^ann +attendant +password ", listed, re.M)
    assert re.search(r"^sam +supervisor +password and code ", listed, re.M)
    assert secret[1] not in listed
    removed = runner.invoke(main, ["console", "user", "remove", "ann", "--accounts", accounts])
    assert removed.output == "removed ann (attendant)\n"
    short = runner.invoke(
        main,
        [
            "console",
            "user",
            "add",
            "bob",
            "--role",
            "attendant",
            "--accounts",
            accounts,
            "--password-stdin",
        ],
        input="short\n",
    )
    assert short.exit_code == 2 and "a password is 12 to 256 characters" in short.output


def test_the_audit_command_proves_the_chain_and_names_a_broken_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, lambda: 1_800_000_000.0)
    for k in range(3):
        log.write("cash-in", person="ann", detail=f"slip {k}")
    log.close()
    runner = CliRunner()
    good = runner.invoke(main, ["console", "audit", str(path)])
    assert (good.exit_code, good.output) == (0, f"{path}: 3 line(s), the chain holds\n")
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace("slip 2", "slip 7")
    path.write_text("\n".join(lines) + "\n")
    broken = runner.invoke(main, ["console", "audit", str(path)])
    assert broken.exit_code == 1
    assert "2 line(s) prove; then line 3 was changed after it was written" in broken.output


def test_the_console_refuses_to_start_without_what_it_needs(tmp_path: Path) -> None:
    runner = CliRunner()
    certs = tmp_path / "certs"
    certs.mkdir()
    servers = tmp_path / "servers.toml"
    servers.write_text('[[server]]\nname = "pit-1"\naddress = "127.0.0.1:7400"\nlog = "t.db"\n')
    missing = runner.invoke(main, ["console", "--certs", str(certs)])
    assert missing.exit_code == 2 and "--servers FILE" in missing.output
    store = runner.invoke(
        main,
        ["console", "--certs", str(certs), "--servers", str(servers), "--store", "postgresql://x"],
    )
    assert store.exit_code == 2 and "does not read the floor store yet" in store.output
    nobody = runner.invoke(main, ["console", "--certs", str(certs), "--servers", str(servers)])
    assert nobody.exit_code == 2 and "holds no account" in nobody.output
    servers.write_text("[[server]]\nname = 1\n")
    bad = runner.invoke(main, ["console", "--certs", str(certs), "--servers", str(servers)])
    assert bad.exit_code == 2 and "is not a name" in bad.output


def test_the_console_has_its_own_https_certificate(tmp_path: Path) -> None:
    """https_tls_options reads console.pem (serverAuth, OU console, the names given), not the
    table server's; without ``etg certs add-console`` it names the missing file. (That it
    speaks TLS 1.3 only is tested against the running console: test_console_browser.py.)"""
    certs = tmp_path / "certs"
    init_pki(certs, terminals=0)
    with pytest.raises(PkiFileMissing, match="console"):
        https_tls_options(certs)
    pair = add_console(certs, hostnames=["console.floor"])
    cert = load_certificate(pair.certificate)
    assert "OU=console" in cert.subject.rfc4514_string()
    assert cert.serial_number != load_certificate(certs / "server.pem").serial_number
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "console.floor" in names.get_values_for_type(x509.DNSName)
    assert isinstance(https_tls_options(certs), CertificateOptions)
