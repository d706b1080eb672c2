"""etg certs init and etg sim --log: a simulated table writes the same log as the live one."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from click.testing import CliRunner

from game_server.eventlog import EventLogReader, verify_chain
from game_server.keys import load_public_key
from tools.cli import main


def test_certs_init_makes_private_keys_and_refuses_to_overwrite(tmp_path: Path) -> None:
    """etg certs init writes the log-signing and shoe-sealing keys mode 0600 and will not
    overwrite them without --force."""
    runner = CliRunner()
    result = runner.invoke(main, ["certs", "init", str(tmp_path / "k")])
    assert result.exit_code == 0, result.output
    for name in ("log-signing.key", "shoe-sealing.key"):
        assert stat.S_IMODE((tmp_path / "k" / name).stat().st_mode) == 0o600
    again = runner.invoke(main, ["certs", "init", str(tmp_path / "k")])
    assert again.exit_code == 2
    assert "log-signing.key" in again.output or "log-signing.key" in (again.stderr or "")
    forced = runner.invoke(main, ["certs", "init", "--force", str(tmp_path / "k")])
    assert forced.exit_code == 0


def test_sim_log_writes_a_verifiable_log_with_every_round(tmp_path: Path) -> None:
    """etg sim --log writes every round through the table session: the chain and every
    checkpoint verify, each round has its start, completion and close, and the JSON report
    counts the same wagers as the log."""
    runner = CliRunner()
    assert runner.invoke(main, ["certs", "init", str(tmp_path / "k")]).exit_code == 0
    db = tmp_path / "sim.db"
    args = ["sim", "--rounds", "12", "--seats", "2", "--seed", "3", "--json"]
    result = runner.invoke(main, [*args, "--log", str(db), "--certs", str(tmp_path / "k")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["rounds"] == 12
    with EventLogReader.open(db) as reader:
        chain = verify_chain(reader, load_public_key(tmp_path / "k"))
        assert chain.ok, chain.reason
        kinds = [e.kind for e in reader.iter_events()]
    assert kinds.count("round_started") == kinds.count("round_completed") == 12
    assert kinds.count("round_closed") == 12
    assert kinds.count("shoe_committed") == kinds.count("shoe_revealed") >= 1
    placed = kinds.count("wager_placed")
    assert placed == kinds.count("wager_settled")
    assert report["wagers"]["blackjack"]["wagered"] > 0


def test_sim_log_without_keys_says_how_to_make_them(tmp_path: Path) -> None:
    """Without keys the logged simulation stops before writing anything and names the
    missing key file."""
    result = CliRunner().invoke(
        main,
        ["sim", "--rounds", "2", "--log", str(tmp_path / "x.db"), "--certs", str(tmp_path / "no")],
    )
    assert result.exit_code == 2
    assert "log-signing.key" in result.output
    assert not (tmp_path / "x.db").exists()
