"""``etg sim`` of an Ultimate Texas Hold 'Em table: rounds played through the engine with the
strategy, each wager's return reported, the same for a seed whatever the worker count."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from game_server.config import example_path, load_config
from game_server.games.uth.sim import UTH_BASE
from game_server.sim import SimSpec, run_sim
from tools.cli import main

CONFIG = load_config(example_path("uth.toml"))
UTH = example_path("uth.toml")


def spec(rounds: int, seats: int = 3, seed: int = 4) -> SimSpec:
    return SimSpec(
        rules=CONFIG.rules,
        every_round=True,
        cut_card=None,
        seats=seats,
        seed=seed,
        rounds=rounds,
        chunk_rounds=100,
        table_id="sim-uth",
        game="uth",
    )


def test_every_wager_is_reported_and_the_base_game_adds_up() -> None:
    result = run_sim(spec(300))
    assert result.rounds == 300
    names = [name for name, _ in result.ordered()]
    assert names == [
        UTH_BASE,
        "ante",
        "blind",
        "play",
        "five_card_dealer",
        "five_card_player",
        "progressive",
        "trips",
    ]
    stats = result.wagers
    assert stats["ante"].placed == stats["blind"].placed == 900
    assert stats["ante"].wagered == 900 * 500
    base = stats[UTH_BASE]
    parts = [stats[n] for n in ("ante", "blind", "play")]
    assert base.wagered == sum(p.wagered for p in parts)
    assert base.paid == sum(p.paid for p in parts)
    assert stats["progressive"].wagered == 900 * 100  # the smaller fixed amount
    # The Play Wager is 1 to 4 times the Ante whenever made.
    assert stats["play"].wagered <= 4 * stats["ante"].wagered


def test_the_result_depends_on_the_seed_not_on_the_workers() -> None:
    one = run_sim(spec(200), workers=1)
    two = run_sim(spec(200), workers=2)
    assert one.to_json() == two.to_json()
    assert run_sim(spec(200, seed=5)).to_json() != one.to_json()


def test_etg_sim_runs_uth_from_its_config() -> None:
    result = CliRunner().invoke(
        main, ["sim", "--config", str(UTH), "--rounds", "50", "--seed", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    text = CliRunner().invoke(main, ["sim", "--config", str(UTH), "--rounds", "20"]).output
    assert "Ultimate Texas Hold 'Em at 6 seats" in text
    assert "Blind Paytable A" in text and "Trips Paytable A" in text


def test_etg_sim_log_writes_a_uth_log_that_verifies(tmp_path: Path) -> None:
    """``etg sim --log``: the rounds go through the live table's session into a signed log
    whose every round replays, every card and draw is its deck's, every credit conserved."""
    from contextlib import closing

    from game_server.eventlog import EventLogReader
    from game_server.keys import init_keys, load_public_key, load_sealing_key
    from game_server.recall.verify import verify_log

    certs = tmp_path / "certs"
    init_keys(certs)
    db = tmp_path / "sim.db"
    args = ["sim", "--config", str(UTH), "--rounds", "15", "--seats", "2", "--seed", "3"]
    result = CliRunner().invoke(main, [*args, "--log", str(db), "--certs", str(certs)])
    assert result.exit_code == 0, result.output
    assert "15 logged rounds at 2 seats" in result.output
    with closing(EventLogReader.open(db)) as reader:
        report = verify_log(reader, load_public_key(certs), sealing_key=load_sealing_key(certs))
    assert report.ok, [f.reason for f in report.failures]
    assert report.counts.rounds_replayed == 15 and report.counts.shoes_checked == 15
