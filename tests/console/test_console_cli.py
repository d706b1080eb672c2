"""``etg console user add|list|remove``, ``etg console audit`` and the console's refusals
before it serves (no account, ``--store`` not in this build, a bad servers file), and its
HTTPS options (TLS 1.3 only, its own certificate)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from twisted.internet.ssl import CertificateOptions

from game_server.console.audit import AuditLog
from game_server.console.service import ConsoleError, audit_signing_key, https_tls_options
from game_server.console.totp import secret_from_text
from game_server.keys import init_audit_key, key_id, load_audit_key
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


def _signed_log(folder: Path, count: int) -> tuple[Path, Path]:
    """A certificates folder with the console's audit key, and a log of ``count`` lines."""
    certs = folder / "certs"
    init_audit_key(certs)
    path = folder / "console" / "console-audit.jsonl"
    log = AuditLog(path, lambda: 1_800_000_000.0, load_audit_key(certs))
    for k in range(count):
        log.write("cash-in", person="ann", detail=f"slip {k}")
    log.close()
    return certs, path


def test_the_audit_command_proves_the_chain_and_names_a_broken_line(tmp_path: Path) -> None:
    certs, path = _signed_log(tmp_path, 3)
    runner = CliRunner()
    good = runner.invoke(main, ["console", "audit", str(path), "--key", str(certs)])
    fingerprint = key_id(load_audit_key(certs))
    assert good.exit_code == 0, good.output
    assert good.output.startswith(
        f"{path}: 3 line(s), the chain holds, every line signed by key {fingerprint}, and the "
        "signed head names line 3 (proven with "
    )
    assert re.search(r"^last line 3: [0-9a-f]{64}$", good.output, re.M)
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace("slip 2", "slip 7")
    path.write_text("\n".join(lines) + "\n")
    broken = runner.invoke(main, ["console", "audit", str(path), "--key", str(certs)])
    assert broken.exit_code == 1
    assert "2 line(s) prove; then line 3 was changed after it was written" in broken.output


def test_the_audit_command_takes_the_key_from_the_servers_files_certs(tmp_path: Path) -> None:
    """Without --key: console-audit.pub of the folder the servers file beside the log names
    ([console] certs); with neither, a signed log asks for the key (exit 1)."""
    _certs, path = _signed_log(tmp_path, 2)
    runner = CliRunner()
    asked = runner.invoke(main, ["console", "audit", str(path)])
    assert asked.exit_code == 1
    assert "give the console's audit public key (console-audit.pub, --key)" in asked.output
    (path.parent / "servers.toml").write_text(
        '[console]\ncerts = "../certs"\n[[server]]\nname = "pit-1"\naddress = "127.0.0.1:7400"\n'
    )
    found = runner.invoke(main, ["console", "audit", str(path)])
    assert found.exit_code == 0, found.output
    assert "the chain holds, every line signed" in found.output


def test_an_older_unsigned_audit_log_is_read_and_reported_unsigned(tmp_path: Path) -> None:
    """A log of the console before it signed (hashes chained, no key, no head): every line
    is read, and the command says they are not signed (exit 1), never that the chain holds."""
    path = tmp_path / "console-audit.jsonl"
    prev, texts = "0" * 64, []
    for number in range(1, 4):
        line = {"n": number, "what": "sign-in", "person": "ann", "prev": prev}
        body = json.dumps(line, sort_keys=True, separators=(",", ":")).encode()
        prev = hashlib.sha256(prev.encode() + body).hexdigest()
        texts.append(json.dumps({**line, "hash": prev}, sort_keys=True) + "\n")
    path.write_text("".join(texts))
    old = CliRunner().invoke(main, ["console", "audit", str(path), "--last", "1"])
    assert old.exit_code == 1
    assert '"n": 3' in old.output
    assert f"{path}: 3 line(s), chained but NOT signed (written before the console signed" in (
        old.output
    )
    assert "the chain holds" not in old.output


def test_add_console_makes_the_audit_key_and_never_replaces_it(tmp_path: Path) -> None:
    """``etg certs add-console`` writes console-audit.key (0600) and .pub with the
    certificate; again on a folder that has the certificate but no audit key (made before
    the console signed), it makes only the key; --force replaces the certificate, never the
    audit key."""
    certs = tmp_path / "certs"
    init_pki(certs, terminals=0)
    runner = CliRunner()
    first = runner.invoke(main, ["certs", "add-console", str(certs)])
    assert first.exit_code == 0, first.output
    assert f"wrote {certs / 'console-audit.key'}" in first.output
    assert (certs / "console-audit.key").stat().st_mode & 0o777 == 0o600
    key = (certs / "console-audit.key").read_bytes()
    again = runner.invoke(main, ["certs", "add-console", str(certs)])
    assert again.exit_code == 2 and "already exists" in again.output
    forced = runner.invoke(main, ["certs", "add-console", str(certs), "--force"])
    assert forced.exit_code == 0 and "console-audit" not in forced.output
    assert (certs / "console-audit.key").read_bytes() == key
    for name in ("console-audit.key", "console-audit.pub"):
        (certs / name).unlink()
    older = runner.invoke(main, ["certs", "add-console", str(certs)])
    assert older.exit_code == 0, older.output
    assert "kept" in older.output and f"wrote {certs / 'console-audit.pub'}" in older.output


def test_the_console_makes_its_audit_key_at_first_start_unless_the_log_is_signed(
    tmp_path: Path,
) -> None:
    """A certificates folder without the audit key: the console makes it (and says so),
    for a new log or one of the older unsigned format; once the log is signed, a missing
    key is refused (a new key could not continue the log)."""
    certs = tmp_path / "certs"
    certs.mkdir()
    log = tmp_path / "console-audit.jsonl"
    key, made = audit_signing_key(certs, log)
    assert made and (certs / "console-audit.pub").exists()
    assert audit_signing_key(certs, log)[1] is False
    AuditLog(log, lambda: 1_800_000_000.0, key).write("console started")
    (certs / "console-audit.key").unlink()
    with pytest.raises(ConsoleError, match=r"is missing but the audit log .* is signed"):
        audit_signing_key(certs, log)


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
    no_certs = runner.invoke(main, ["console", "--servers", str(servers)])
    assert no_certs.exit_code == 2 and "certs = DIR in the servers file" in no_certs.output
    servers.write_text(
        servers.read_text().replace("[[server]]", '[console]\ncerts = "certs"\n[[server]]')
    )
    named = runner.invoke(main, ["console", "--servers", str(servers)])
    assert named.exit_code == 2 and "holds no account" in named.output, "certs from the file"
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
