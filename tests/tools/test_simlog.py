"""etg certs init and etg sim --log: a simulated table writes the same log as the live one."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from click.testing import CliRunner

from game_server.eventlog import EventLogReader, system_clock, verify_chain
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


def test_sim_log_refuses_a_tables_log_and_its_own_leaving_both_as_they_were(
    tmp_path: Path,
) -> None:
    """Case 7 of the hardening issue: etg sim --log given a table server's log refuses it
    (it used to append signed play-money cash-ins and test-seed shoes, after which the log
    failed verification and the server refused it); given a log that already holds a
    simulation it refuses too (its rounds would restart at 1). Neither file changes; a new
    file is marked as a simulation's and verifies with its anchor stream."""
    from game_server.config import example_config_path, load_config
    from game_server.eventlog import AnchorFile
    from game_server.recall.verify import verify_log
    from game_server.table.recovery import open_table
    from game_server.table.session import simulation_seeds

    runner = CliRunner()
    certs = tmp_path / "k"
    assert runner.invoke(main, ["certs", "init", str(certs)]).exit_code == 0
    table_db = tmp_path / "table.db"
    session = open_table(
        load_config(example_config_path()),
        table_db,
        certs,
        {"T1": 1},
        clock=system_clock,
        seeds=simulation_seeds(1, "BJ-01"),
    )
    session.cash_in("T1", 10_000, "cashier")
    session.sink.close()  # type: ignore[attr-defined]

    def contents(db: Path) -> list[tuple[int, str]]:
        with EventLogReader.open(db) as reader:
            return [(e.seq, e.kind) for e in reader.iter_events()]

    before = contents(table_db)
    args = ["sim", "--rounds", "3", "--seats", "1", "--certs", str(certs)]
    refused = runner.invoke(main, [*args, "--log", str(table_db)])
    assert refused.exit_code == 2
    assert "is a table server's log" in refused.output
    assert contents(table_db) == before
    sim_db = tmp_path / "sim.db"
    anchors = tmp_path / "sim.anchors"
    made = runner.invoke(main, [*args, "--log", str(sim_db), "--anchors", str(anchors)])
    assert made.exit_code == 0, made.output
    again = runner.invoke(main, [*args, "--log", str(sim_db)])
    assert again.exit_code == 2 and "already holds a simulation" in again.output
    with EventLogReader.open(sim_db) as reader:
        assert reader.meta()["log_kind"] == "simulation"
        report = verify_log(reader, load_public_key(certs), anchors=AnchorFile(anchors))
        money = len(reader.events_of_kind("credits_in"))
    # A round close each, the shutdown, and each cash in's own (money-moved).
    assert report.ok and report.anchors == report.counts.checkpoints == 4 + money
