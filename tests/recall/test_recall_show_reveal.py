"""``etg recall show`` (text and ``--json``) prints the reveal of the round's shoe (its seed
material and salt, docs/shoe-spec.md section 6) once the shoe is retired, and "still in use"
before: no secret of a shoe in use, checked against the seed and salt unsealed from its
commitment with the fixture's sealing key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from game_server.eventlog import EventLogReader
from game_server.keys import load_sealing_key, unseal
from game_server.table.session import seal_context
from tests.recall.verify_helpers import make_keys, make_log
from tools.recall_cli import recall

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pre_move"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four rounds of three seats, every shoe revealed at the end."""
    directory = tmp_path_factory.mktemp("reveal")
    return make_log(directory, make_keys(directory / "certs"), rounds=4)


def _bodies(db: Path, kind: str) -> list[dict[str, Any]]:
    with EventLogReader.open(db, immutable=True) as reader:
        return [dict(e.body) for e in reader.iter_events() if e.kind == kind]


def _show(db: Path, *args: str) -> str:
    result = CliRunner().invoke(recall, ["show", str(db), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_retired_shoe_shows_its_reveal(log: Path) -> None:
    data = json.loads(_show(log, "2", "--json"))
    shoe = data["shoe"]
    (revealed,) = [b for b in _bodies(log, "shoe_revealed") if b["shoe"] == shoe["number"]]
    fields = ("entropy_input", "nonce", "personalization", "salt")
    assert shoe["reveal"] == {name: revealed[name] for name in fields}
    text = _show(log, "2")
    (line,) = [line for line in text.splitlines() if line.startswith("  reveal: ")]
    assert line == "  reveal: " + "  ".join(f"{name} {revealed[name]}" for name in fields)
    assert "still in use" not in text


@pytest.mark.parametrize(
    ("name", "table"),
    [("interrupted-fully-automated", "BJ-01"), ("interrupted-uth", "UTH-01")],
)
def test_a_shoe_in_use_shows_no_secret(name: str, table: str, tmp_path: Path) -> None:
    db = FIXTURES / f"{name}.db"
    retired = {b["shoe"] for b in _bodies(db, "shoe_revealed")}
    in_use = [b for b in _bodies(db, "shoe_committed") if b["shoe"] not in retired]
    assert in_use
    # The secrets as the operator could unseal them: none may be printed.
    shutil.copy(FIXTURES / "keys" / "shoe-sealing.key", tmp_path)  # git keeps only 0644
    (tmp_path / "shoe-sealing.key").chmod(0o600)
    key = load_sealing_key(tmp_path)
    secrets = []
    for committed in in_use:
        sealed = bytes.fromhex(committed["sealed_seed"])
        secret = json.loads(unseal(key, sealed, seal_context(table, committed["shoe"])))
        secrets += [secret["salt"], secret["seed"]["entropy_input"], secret["seed"]["nonce"]]
    assert all(len(s) >= 32 for s in secrets)
    rounds = json.loads(_show_list(db))
    shown_in_use = 0
    for item in rounds:
        round_id = str(item["round"])
        data = _show(db, round_id, "--table", table, "--json")
        shoe = json.loads(data)["shoe"]
        text = _show(db, round_id, "--table", table)
        if shoe["number"] in retired:
            assert shoe["reveal"] is not None
            continue
        shown_in_use += 1
        assert shoe["reveal"] is None
        assert (
            "  reveal: shoe still in use: its seed and salt are revealed when it is retired"
            in text.splitlines()
        )
        for shown in (text, data):
            assert not any(s in shown for s in secrets)
    assert shown_in_use >= 1


def _show_list(db: Path) -> str:
    result = CliRunner().invoke(recall, ["list", str(db), "--json"])
    assert result.exit_code == 0, result.output
    return result.output
