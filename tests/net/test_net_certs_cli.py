"""The ``etg certs`` TLS commands and helpers of tools.certs_cli."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from game_server.keys import init_keys
from game_server.net.pki import (
    InvalidTerminalId,
    PkiFileExists,
    TerminalExists,
    load_certificate,
)
from tools.certs_cli import (
    HOSTNAME_OPTION,
    TERMINALS_OPTION,
    add_terminal,
    check_init_free,
    init_tls,
    list_certs,
)


def test_init_tls_writes_the_pki_and_returns_every_path(tmp_path: Path) -> None:
    """init_tls makes the CA, server, operator and N terminals and lists what it wrote."""
    paths = init_tls(tmp_path, 2, ["table.lan"], force=False)
    names = {str(p.relative_to(tmp_path)) for p in paths}
    assert {"ca.pem", "server.key", "operator.pem", "terminals/T2.key"} <= names
    assert len(paths) == 10
    assert all(p.exists() for p in paths)


def test_check_init_free_refuses_before_anything_is_written(tmp_path: Path) -> None:
    """Existing log keys or certificates stop init before either kind is written."""
    check_init_free(tmp_path, 2)
    init_keys(tmp_path)
    with pytest.raises(PkiFileExists, match=r"log-signing\.key already exists"):
        check_init_free(tmp_path, 2)
    other = tmp_path / "other"
    init_tls(other, 1, [], force=False)
    with pytest.raises(PkiFileExists, match=r"ca\.pem"):
        check_init_free(other, 1)


def test_the_init_options_parse_terminals_and_hostnames() -> None:
    """--terminals defaults to 2; --hostname repeats."""
    seen: dict[str, object] = {}

    @click.command()
    @TERMINALS_OPTION
    @HOSTNAME_OPTION
    def probe(terminals: int, hostnames: tuple[str, ...]) -> None:
        seen.update(terminals=terminals, hostnames=hostnames)

    runner = CliRunner()
    assert runner.invoke(probe, []).exit_code == 0
    assert seen == {"terminals": 2, "hostnames": ()}
    result = runner.invoke(probe, ["--terminals", "5", "--hostname", "a.lan", "--hostname", "b"])
    assert result.exit_code == 0
    assert seen == {"terminals": 5, "hostnames": ("a.lan", "b")}
    assert runner.invoke(probe, ["--terminals", "-1"]).exit_code == 2


def test_add_terminal_command_prints_the_files_and_serial(tmp_path: Path) -> None:
    """etg certs add-terminal DIR T7 writes T7's pair and prints its serial number."""
    init_tls(tmp_path, 1, [], force=False)
    result = CliRunner().invoke(add_terminal, [str(tmp_path), "T7"])
    assert result.exit_code == 0, result.output
    serial = load_certificate(tmp_path / "terminals" / "T7.pem").serial_number
    assert f"T7.pem (serial {serial:x})" in result.output
    assert "T7.key" in result.output


def test_add_terminal_command_lets_product_errors_reach_the_etg_group(tmp_path: Path) -> None:
    """A duplicate or invalid id raises the PKI error (the etg group prints it, status 2)."""
    init_tls(tmp_path, 1, [], force=False)
    runner = CliRunner()
    duplicate = runner.invoke(add_terminal, [str(tmp_path), "T1"])
    assert isinstance(duplicate.exception, TerminalExists)
    invalid = runner.invoke(add_terminal, [str(tmp_path), "T 1"])
    assert isinstance(invalid.exception, InvalidTerminalId)


def test_list_shows_each_certificate_with_its_serial(tmp_path: Path) -> None:
    """etg certs list shows role, id and serial of each certificate."""
    init_tls(tmp_path, 2, [], force=False)
    result = CliRunner().invoke(list_certs, [str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 5
    t2 = load_certificate(tmp_path / "terminals" / "T2.pem").serial_number
    assert any(re.match(rf"terminal T2\s+serial {t2:x}\s+expires ", line) for line in lines)
    assert [line.split()[0] for line in lines] == [
        "ca",
        "server",
        "operator",
        "terminal",
        "terminal",
    ]
