"""``etg install server`` and ``etg install terminal`` (:mod:`tools.install_cli`): the units
pass ``systemd-analyze verify`` (and the server's ``systemd-analyze security``), carry the
hardening the floor needs, and their command lines run: the server unit's starts a table, the
backup unit's proves a copy of its log."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from install_helpers import analyze_verify, exec_start, fake_venv, require, settings

from game_server.config import example_config_path
from game_server.keys import init_keys
from game_server.net.pki import init_pki
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient
from tools.cli import main


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture()
def floor_machine(tmp_path: Path) -> dict[str, Path]:
    """A server machine's layout under tmp_path: the venv, /etc/etg, /var/lib/etg,
    /var/backups/etg (names as docs/install.md uses them)."""
    root = tmp_path / "root"
    etc = root / "etc" / "etg"
    etc.mkdir(parents=True)
    text = example_config_path().read_text()
    for timer in ("betting_seconds", "insurance_seconds", "decision_seconds"):
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    (etc / "table.toml").write_text(text)
    init_pki(etc / "certs", terminals=2)
    init_keys(etc / "certs")
    return {
        "etg": fake_venv(root / "opt" / "etg"),
        "units": root / "etc" / "systemd" / "system",
        "config": etc / "table.toml",
        "certs": etc / "certs",
        "db": root / "var" / "lib" / "etg" / "log" / "table.db",
        "anchors": root / "var" / "lib" / "etg" / "anchors" / "anchors.jsonl",
        "backups": root / "var" / "backups" / "etg",
    }


def _install_server(machine: dict[str, Path], *extra: str) -> list[Path]:
    args = ["install", "server", str(machine["units"]), "--etg", str(machine["etg"])]
    for name in ("config", "certs", "db", "anchors", "backups"):
        args += [f"--{name}", str(machine[name])]
    done = CliRunner().invoke(main, [*args, *extra])
    assert done.exit_code == 0, done.output
    return [machine["units"] / name for name in ("etg-server.service", "etg-backup.service")] + [
        machine["units"] / "etg-backup.timer"
    ]


def _install_terminal(folder: Path, tmp_path: Path) -> Path:
    cage = tmp_path / "usr" / "bin" / "cage"
    cage.parent.mkdir(parents=True)
    cage.write_text("#!/bin/sh\n")
    cage.chmod(0o755)
    etg = fake_venv(tmp_path / "opt" / "etg")
    done = CliRunner().invoke(
        main,
        [
            *("install", "terminal", str(folder), "--id", "T9", "--server", "table-7.floor:7400"),
            *("--etg", str(etg), "--cage", str(cage), "--certs", "/etc/etg/terminal"),
        ],
    )
    assert done.exit_code == 0, done.output
    return folder / "etg-kiosk.service"


def test_every_unit_passes_systemd_analyze_verify(
    floor_machine: dict[str, Path], tmp_path: Path
) -> None:
    """The server's three units and the kiosk's unit: ``systemd-analyze verify`` exits 0
    and says nothing (a warning is a failure too); the server and backup services are
    rated OK or better by ``systemd-analyze security`` (exposure at most 2.0 of 10)."""
    units = _install_server(floor_machine)
    kiosk = _install_terminal(tmp_path / "kiosk-units", tmp_path)
    for unit in [*units, kiosk]:
        done = analyze_verify(unit)
        assert (done.returncode, done.stdout + done.stderr) == (0, ""), unit.name
    for unit in units[:2]:
        rated = subprocess.run(
            [require("systemd-analyze"), "security", "--offline=true", "--threshold=20", str(unit)],
            capture_output=True,
            text=True,
        )
        assert rated.returncode == 0, rated.stdout[-2000:]


def test_the_verify_check_fails_a_broken_unit(floor_machine: dict[str, Path]) -> None:
    """What the test above relies on: a unit with an unknown setting, or whose program does
    not exist, is reported."""
    [server, *_] = _install_server(floor_machine)
    text = server.read_text()
    server.write_text(text.replace("PrivateTmp=yes", "PrivateTmp=yes\nProtectEverything=yes"))
    unknown = analyze_verify(server)
    assert "Unknown key" in unknown.stderr and "ProtectEverything" in unknown.stderr
    server.write_text(text.replace(str(floor_machine["etg"]), "/nonexistent/etg"))
    missing = analyze_verify(server)
    assert missing.returncode != 0 and "/nonexistent/etg" in missing.stderr


def test_the_server_units_carry_the_hardening(floor_machine: dict[str, Path]) -> None:
    """A dedicated user; ProtectSystem=strict with the log folder and the anchor stream's
    folder the only writable paths (the backup: its folder and the log's); PrivateTmp,
    NoNewPrivileges, no capabilities; restarted on failure with a start limit, not after a
    refusal (exit 2); the timer runs the backup hourly and makes up a missed run."""
    server, backup, timer = _install_server(floor_machine, "--store", "postgresql://s@db/etg")
    unit = settings(server)
    log_dir = str(floor_machine["db"].parent)
    anchors_dir = str(floor_machine["anchors"].parent)
    for key, value in {
        "User": "etg",
        "Group": "etg",
        "ProtectSystem": "strict",
        "ReadWritePaths": f"{log_dir} {anchors_dir}",
        "PrivateTmp": "yes",
        "NoNewPrivileges": "yes",
        "ProtectHome": "yes",
        "CapabilityBoundingSet": "",
        "Restart": "on-failure",
        "RestartPreventExitStatus": "2",
        "StartLimitBurst": "5",
        "StartLimitIntervalSec": "600",
        "UMask": "0077",
    }.items():
        assert unit[key] == [value], key
    argv = exec_start(server)
    assert argv[:2] == [str(floor_machine["etg"]), "serve"]
    assert argv[argv.index("--anchors") + 1] == str(floor_machine["anchors"])
    assert argv[argv.index("--store") + 1] == "postgresql://s@db/etg"
    copy = settings(backup)
    assert copy["Type"] == ["oneshot"] and copy["PrivateNetwork"] == ["yes"]
    assert copy["ReadWritePaths"] == [f"{floor_machine['backups']} {log_dir}"]
    assert exec_start(backup)[1:4] == [
        "backup",
        str(floor_machine["db"]),
        str(floor_machine["backups"]),
    ]
    when = settings(timer)
    assert when["OnCalendar"] == ["hourly"] and when["Persistent"] == ["true"]
    assert when["Unit"] == ["etg-backup.service"]


def test_the_units_command_lines_run_a_table_and_prove_its_backup(
    floor_machine: dict[str, Path],
) -> None:
    """The server unit's ExecStart, run as systemd would (without its sandbox: no systemd
    here), makes the log folder's log and anchors and serves the table over mutual TLS;
    the backup unit's ExecStart proves a copy while it runs; SIGTERM (systemctl stop) ends
    the server with status 0 (not a failure to restart)."""
    port = _free_port()
    server, backup, _ = _install_server(
        floor_machine, "--interface", "127.0.0.1", "--port", str(port)
    )
    for folder in ("db", "anchors"):
        floor_machine[folder].parent.mkdir(parents=True)
    process = subprocess.Popen(
        exec_start(server), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if f"listening on 127.0.0.1:{port}" in line:
                break
        else:
            raise AssertionError("the unit's server did not start")
        operator = AmpClient(port, floor_machine["certs"], "operator")
        operator.call("Hello", version=PROTOCOL_VERSION, software="unit test")
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert meters["state"] == "open"
        operator.close()
        copied = subprocess.run(exec_start(backup), capture_output=True, text=True, timeout=120)
        assert copied.returncode == 0, copied.stdout + copied.stderr
        assert "VERIFIED" in copied.stdout
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert process.returncode == 0
    assert floor_machine["anchors"].exists()
    # The backup folder, not the backup's lock file beside it (iterdir's order is the file
    # system's: the lock came last on some runs).
    [made] = [p for p in floor_machine["backups"].iterdir() if not p.name.startswith(".")]
    assert (made / "backup.json").exists()


def test_the_kiosk_unit_runs_only_the_terminal_on_tty1(tmp_path: Path) -> None:
    """cage runs ``etg terminal --kiosk`` with the terminal's own files, as the kiosk user
    in a logind session on tty1 (instead of its getty), started again whenever it exits,
    not before the certificate is there; the PAM file registers the session."""
    kiosk = _install_terminal(tmp_path / "units", tmp_path)
    unit = settings(kiosk)
    for key, value in {
        "User": "etg-kiosk",
        "PAMName": "etg-kiosk",
        "TTYPath": "/dev/tty1",
        "Conflicts": "getty@tty1.service",
        "Restart": "always",
        "NoNewPrivileges": "yes",
        "PrivateTmp": "yes",
        "WantedBy": "graphical.target",
    }.items():
        assert unit[key] == [value], key
    assert "/etc/etg/terminal/T9.pem" in unit["ConditionPathExists"]
    assert "SDL_VIDEO_ALLOW_SCREENSAVER=0" in unit["Environment"][0]
    argv = exec_start(kiosk)
    assert argv[0].endswith("/usr/bin/cage") and argv[1] == "--"
    assert argv[3:5] == ["terminal", "--kiosk"]
    assert argv[argv.index("--key") + 1] == "/etc/etg/terminal/T9.key"
    assert argv[argv.index("--ca") + 1] == "/etc/etg/terminal/ca.pem"
    pam = (tmp_path / "units" / "etg-kiosk.pam").read_text()
    assert "session  required pam_systemd.so" in pam


def test_bad_options_are_refused_and_nothing_is_overwritten(
    floor_machine: dict[str, Path], tmp_path: Path
) -> None:
    """A relative path, a path with a space, a password in the store URL, a calendar
    expression with a newline, a bad user name, root or nobody (not a dedicated user), a
    privileged port, a bad terminal id or server: exit 2 with a sentence; existing units are
    not replaced without --force."""
    runner = CliRunner()
    folder = tmp_path / "units"
    base = ["install", "server", str(folder), "--etg", str(floor_machine["etg"])]
    cases = [
        (["--db", "var/table.db"], "a unit needs an absolute path"),
        (["--config", "/etc/etg/my table.toml"], "a unit needs an absolute path"),
        (["--backups", "/var/backups/../etc"], "a unit needs an absolute path"),
        (["--store", "postgresql://s:secret@db/etg"], "leave the password out"),
        (["--backup-every", "hourly\nExecStartPre=/bin/sh"], "not a calendar expression"),
        (["--user", "Root Admin"], "not a system user name"),
        (["--user", "root"], "not a dedicated user"),
        (["--user", "nobody"], "not a dedicated user"),
        (["--port", "443"], "1024<=x<=65535"),
        (["--interface", "floor"], "not an IP address"),
    ]
    for extra, words in cases:
        done = runner.invoke(main, [*base, *extra])
        assert done.exit_code == 2, (extra, done.output)
        assert words in done.output, (extra, done.output)
    assert not folder.exists()
    for args in (
        ["--id", "operator", "--server", "h:1"],
        ["--id", "T9", "--server", "h"],
        ["--id", "T9", "--server", "h:1", "--user", "root"],
    ):
        done = runner.invoke(main, ["install", "terminal", str(folder), *args])
        assert done.exit_code == 2, done.output
    assert runner.invoke(main, base).exit_code == 0
    before = (folder / "etg-server.service").read_text()
    again = runner.invoke(main, [*base, "--port", "7500"])
    assert again.exit_code == 2 and "exists; not overwritten" in again.output
    assert (folder / "etg-server.service").read_text() == before
    forced = runner.invoke(main, [*base, "--port", "7500", "--force"])
    assert forced.exit_code == 0 and "--port 7500" in (folder / "etg-server.service").read_text()
