"""The docs' ``etg verify`` of a demo log: each shows ``--sealing-key`` (the demo's
certificates folder holds the shoe-sealing key), and the README's example, run as written on
a demo's folder, checks the cards of the shoe still in use instead of telling a newcomer
they were not checked."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from game_server.eventlog import AnchorFile, EventLogReader

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FIXTURES = ROOT / "tests" / "fixtures" / "pre_move"


def _verify_commands(path: Path) -> Iterator[str]:
    """Every ``etg verify`` command in the code blocks of a Markdown file, its continuation
    lines joined."""
    text = path.read_text(encoding="utf-8")
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if re.search(r"\betg verify\b", line):
                yield " ".join(line.split())


def _demo_commands() -> list[tuple[str, str]]:
    return [
        (path.name, command)
        for path in DOCS
        for command in _verify_commands(path)
        if "data/demo" in command
    ]


def test_every_etg_verify_of_a_demo_log_in_the_docs_gives_the_sealing_key() -> None:
    """README.md and docs/*.md: each etg verify of a demo log passes --sealing-key."""
    found = _demo_commands()
    assert any(name == "README.md" for name, _ in found)
    for name, command in found:
        assert "--sealing-key data/demo/certs" in command, (name, command)


def _demo_folder(root: Path) -> None:
    """What ``make demo`` leaves of a table whose shoe is still in use: its log, its anchor
    stream and the certificates folder with the keys (here a table's own log with a round
    in play, and the test keys it was written with)."""
    table = root / "data" / "demo" / "fully-automated-blackjack"
    table.mkdir(parents=True)
    shutil.copyfile(FIXTURES / "interrupted-fully-automated.db", table / "demo.db")
    certs = root / "data" / "demo" / "certs"
    shutil.copytree(FIXTURES / "keys", certs)
    for key in certs.iterdir():
        key.chmod(0o600)
    with EventLogReader.open(table / "demo.db") as reader:
        checkpoints = reader.checkpoints()
    stream = AnchorFile(table / "anchors.jsonl")
    stream.publish_all(checkpoints)
    stream.close()


def test_the_readmes_verify_example_checks_the_cards_of_the_shoe_in_use(tmp_path: Path) -> None:
    """Run as the README writes it (the real etg, a process of its own, in a folder laid
    out as a demo's), etg verify checks the shoe in use and every card dealt from it: no
    "not checked (no sealing key)" warning."""
    ((_, command),) = [(n, c) for n, c in _demo_commands() if n == "README.md"]
    _demo_folder(tmp_path)
    argv = shlex.split(command)
    assert argv[:2] == ["etg", "verify"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-m", "tools", *argv[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 of 1 shoes" in done.stdout, done.stdout
    assert "no sealing key" not in done.stdout, done.stdout
