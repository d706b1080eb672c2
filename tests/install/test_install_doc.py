"""docs/install.md stays true: every ``etg`` command in its code blocks is one the CLI
parses (the command exists, every option it gives exists and its value is accepted), and
the commands the install kit adds are all shown there."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click

from tools.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "install.md"


def _commands() -> list[list[str]]:
    """Each ``etg ...`` of the doc's code blocks as argv (continuations joined, the
    ``runuser -u USER --`` and ``/opt/etg/bin/`` in front dropped, comments cut)."""
    blocks = re.findall(r"^```\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)
    found = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            match = re.match(r"(?:runuser -u [a-z-]+ -- )?(?:/opt/etg/bin/)?etg (.*)$", line)
            if match:
                found.append(shlex.split(match.group(1)))
    return found


def _parse(args: list[str]) -> click.Command:
    """Parse ``etg ARGS`` down to the command that runs (raising on anything click refuses):
    the subcommand names first, then the command's own options and arguments."""
    command: click.Command = main
    rest = list(args)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(click.Context(command), rest[0])
        assert sub is not None, f"no command {rest[0]!r} in etg {' '.join(args)}"
        command, rest = sub, rest[1:]
    command.make_context(command.name, rest)
    return command


def test_every_etg_command_in_the_install_doc_parses() -> None:
    """Each command line of docs/install.md is accepted by the CLI's parser (a renamed or
    removed option fails here)."""
    commands = _commands()
    assert len(commands) >= 10, commands
    for args in commands:
        try:
            _parse(args)
        except click.exceptions.Exit as done:  # --version answers while it is parsed
            assert done.exit_code == 0, args


def test_the_install_doc_shows_every_command_of_the_kit() -> None:
    """install server and terminal, certs init, request and sign, backup, restore, status,
    verify and --version all appear in the doc's code blocks."""
    shown = {tuple(a for a in args[:2] if not a.startswith("-")) for args in _commands()}
    shown |= {(args[0],) for args in _commands()}
    for wanted in [
        ("install", "server"),
        ("install", "terminal"),
        ("certs", "init"),
        ("certs", "request"),
        ("certs", "sign"),
        ("backup",),
        ("restore",),
        ("status",),
        ("verify",),
        ("--version",),
    ]:
        assert wanted in shown, wanted


def test_the_guide_the_units_point_to_is_etg_help_install() -> None:
    """The units and `etg install` pointed to docs/install.md, which is not in the wheel:
    they now name `etg help install`, which prints the guide (the wheel carries a copy the
    build makes, tests/install/test_wheel.py)."""
    from click.testing import CliRunner

    done = CliRunner().invoke(main, ["help", "install"])
    assert done.exit_code == 0 and done.output == DOC.read_text(encoding="utf-8")
    templates = DOC.parents[1] / "tools" / "install_templates"
    pointers = [p for p in templates.iterdir() if "install.md" in p.read_text(encoding="utf-8")]
    named = [p for p in templates.iterdir() if "etg help install" in p.read_text(encoding="utf-8")]
    assert all(p in named for p in pointers) and len(named) >= 3, (pointers, named)
    usage = CliRunner().invoke(main, ["install", "--help"]).output
    assert "etg help install" in " ".join(usage.split())
