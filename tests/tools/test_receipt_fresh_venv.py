"""Done when of [provable]: a game played in the live demo (``make demo``'s table server and
terminals) is checked from its receipt by the one-file verifier in a fresh virtual
environment that has only ``cryptography`` installed (no project, nothing else)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("pygame")

ROOT = Path(__file__).resolve().parents[2]
UTH = ROOT / "game_server" / "games" / "uth" / "configs" / "uth.toml"


@pytest.mark.slow
def test_a_demo_game_verifies_from_its_receipt_in_a_fresh_venv(tmp_path: Path) -> None:
    from tools.recall_cli import recall

    data = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    # Ultimate Texas Hold 'Em deals a new shoe every round: round 1's is retired by round 2.
    demo = [sys.executable, "-m", "tools.live_demo", "--data", str(data), "--terminals", "1"]
    played = subprocess.run(
        [*demo, "--rounds", "2", "--config", str(UTH)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert played.returncode == 0, played.stdout + played.stderr
    (log,) = data.glob("*/demo.db")
    receipt = tmp_path / "alone" / "receipt.json"
    receipt.parent.mkdir()
    made = CliRunner().invoke(recall, ["receipt", str(log), "1", "--out", str(receipt)])
    assert made.exit_code == 0, made.output
    assert json.loads(receipt.read_text())["reveal"] is not None

    # A fresh environment: its own Python, only cryptography installed, run away from the
    # project (a copy of the one file beside the receipt).
    fresh = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=True).create(fresh)
    python = fresh / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "cryptography"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    shutil.copy(ROOT / "tools" / "verify_receipt.py", receipt.parent / "verify_receipt.py")
    clean = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    alone = subprocess.run(
        [str(python), "-c", "import game_server"],
        cwd=receipt.parent,
        env=clean,
        capture_output=True,
    )
    assert alone.returncode != 0, "the fresh environment can import the project"

    def check(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), "verify_receipt.py", path.name],
            cwd=receipt.parent,
            env=clean,
            capture_output=True,
            text=True,
            timeout=60,
        )

    verified = check(receipt)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("verified: the ")

    tampered = json.loads(receipt.read_text())
    tampered["reveal"]["salt"] = "00" * 32
    forged = receipt.parent / "forged.json"
    forged.write_text(json.dumps(tampered))
    refused = check(forged)
    assert refused.returncode == 1
    assert "REFUSED: " in refused.stdout and "not the shoe that was committed to" in refused.stdout
