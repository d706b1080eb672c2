"""The betting window ends as soon as every player at the table has wagered, where the Rules
Submission allows it (``[timers] deal_when_all_bet``): a player alone who presses DEAL no
longer waits out the whole betting countdown ("Bet accepted", DEAL greyed, nothing
happened). A terminal without credits is not waited for, one with credits is; without the
key every window runs its countdown, as it always did.

Every shipped table is played by the terminal's own bots against its real round machine;
one table writes a real signed log, which ``etg verify`` proves.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from every_table import CONFIGS, Table, seats  # noqa: E402

from game_server.config import (  # noqa: E402
    ConfigError,
    TableConfig,
    example_path,
    load_config,
    parse_config,
)
from game_server.eventlog import EventLog, EventLogReader, system_clock  # noqa: E402
from game_server.games import game_for  # noqa: E402
from game_server.keys import init_keys, load_public_key, load_sealing_key  # noqa: E402
from game_server.recall.verify import verify_log  # noqa: E402
from game_server.rules.meters import MeterBank  # noqa: E402
from game_server.table.recovery import RecoveryReport, open_tables  # noqa: E402
from game_server.table.session import (  # noqa: E402
    MemorySink,
    SealedShoes,
    TableBook,
    simulation_seeds,
)

pytestmark = pytest.mark.usefixtures("headless")

#: How every example Rules Submission states the key.
STATED = "deal_when_all_bet = false"


def allowing(name: str, allowed: bool = True) -> object:
    """The shipped table ``name``'s session with ``deal_when_all_bet`` as asked."""
    config = load_config(example_path(name))
    config = replace(config, timers=replace(config.timers, deal_when_all_bet=allowed))
    shoes = SealedShoes(config, simulation_seeds(5, config.table_id), bytes(32), "k")
    session = game_for(config).open_session(config, MemorySink(), shoes, seats(), MeterBank())
    session.open()
    return session


def open_table(
    config: TableConfig, db: Path, certs: Path
) -> tuple[EventLog, list[tuple[TableBook, RecoveryReport]]]:
    """The table of ``config`` opened on ``db`` as ``etg serve`` opens it (seeded shoes)."""
    return open_tables(
        [config],
        db,
        certs,
        lambda _: seats(),
        clock=system_clock,
        seeds=lambda table: simulation_seeds(9, table.table_id),
    )


def dealt(table: Table) -> bool:
    """The open round's cards are out (its phase is past the betting)."""
    return table.view("T1")["phase"] not in (None, "betting")


@pytest.mark.parametrize("config", CONFIGS)
def test_the_round_is_dealt_as_soon_as_every_player_has_wagered(config: str) -> None:
    """T1 and T2 hold credits, T3 none: T1's bet leaves the window open (T2 may still
    bet); T2's deals the round at once, no second of the countdown gone."""
    table = Table(config, session=allowing(config), credits={"T1": 100_000, "T2": 100_000})
    table.step(("T1",))
    assert table.models["T1"].in_round and not dealt(table)
    before = table.clock.seconds()
    table.bots["T2"](table.models["T2"])
    assert dealt(table) and table.clock.seconds() == before


@pytest.mark.parametrize("config", ["fully-automated-blackjack.toml", "uth.toml"])
def test_a_lone_player_is_dealt_at_once_and_without_the_key_waits_the_countdown(
    config: str,
) -> None:
    """A player alone at the table is dealt as he presses DEAL; the same table without the
    key waits the whole betting countdown."""
    table = Table(config, session=allowing(config), credits={"T1": 100_000})
    table.bots["T1"](table.models["T1"])
    assert dealt(table)
    table = Table(config, session=allowing(config, False), credits={"T1": 100_000})
    table.bots["T1"](table.models["T1"])
    assert not dealt(table)
    table.clock.advance(table.config.timers.betting_seconds)
    assert dealt(table)


def test_the_key_is_read_logged_only_when_stated_and_checked() -> None:
    """Absent, the key is false and the config hash is what it was; stated, it is logged
    and read back from the log's form; a value that is not a boolean is refused, naming
    the field."""
    path = example_path("caribbean.toml")
    text = path.read_text(encoding="utf-8")
    plain = load_config(path)
    assert plain.timers.deal_when_all_bet is False
    absent = parse_config(re.sub(r"^deal_when_all_bet = false.*$", "", text, flags=re.M))
    assert absent == replace(plain, source=absent.source)
    assert absent.config_hash() == plain.config_hash()
    allowed = parse_config(text.replace(STATED, "deal_when_all_bet = true"))
    assert allowed.timers.deal_when_all_bet is True
    assert allowed.config_hash() != plain.config_hash()
    assert allowed.to_dict()["timers"]["deal_when_all_bet"] is True
    assert "deal_when_all_bet" not in plain.to_dict()["timers"]
    with pytest.raises(ConfigError) as refused:
        parse_config(text.replace(STATED, 'deal_when_all_bet = "yes"'))
    assert "timers.deal_when_all_bet: expected" in str(refused.value)


def test_a_log_of_rounds_dealt_early_verifies(tmp_path: Path) -> None:
    """A real signed log of a Four Card Poker table dealt as soon as both players wagered,
    its Rules Submission stating the key: etg verify proves it."""
    path = example_path("fourcard.toml")
    config = parse_config(
        path.read_text(encoding="utf-8").replace(STATED, "deal_when_all_bet = true")
    )
    certs = tmp_path / "certs"
    init_keys(certs)
    db = tmp_path / "table.db"
    log, tables = open_table(config, db, certs)
    session = tables[0][0]
    table = Table("fourcard.toml", session=session, credits={"T1": 100_000, "T2": 100_000})
    rounds = set()
    for _ in range(300):
        view = table.view("T1")
        if view["phase"] == "complete":
            rounds.add(view["round"])
        if len(rounds) >= 3:
            break
        table.step(("T1", "T2"))
    assert len(rounds) >= 3
    log.close()
    with EventLogReader.open(db) as reader:
        report = verify_log(reader, load_public_key(certs), sealing_key=load_sealing_key(certs))
    assert report.ok, report.problems


def test_a_demo_stopped_mid_round_finishes_it_under_its_own_rules(tmp_path: Path) -> None:
    """The demo's table now deals when all have bet, which changes its Rules Submission;
    the server refuses a change in the middle of a round, so a demo stopped mid-round
    before the upgrade could not start again. The demo keeps the last run's file while
    its log ends in an unfinished round, and takes the new one once it is finished."""
    from tools.live_demo import prepare, unfinished_round

    data = tmp_path / "demo"
    certs, config = prepare(data, 1, example_path("fully-automated-blackjack.toml"))
    old = config.read_text(encoding="utf-8").replace(
        "deal_when_all_bet = true", "deal_when_all_bet = false"
    )
    config.write_text(old, encoding="utf-8")
    db = config.parent / "demo.db"
    assert not unfinished_round(db)
    log, tables = open_table(load_config(config), db, certs)
    table = Table("fully-automated-blackjack.toml", session=tables[0][0], credits={"T1": 10_000})
    table.bots["T1"](table.models["T1"])
    assert table.models["T1"].in_round and not dealt(table)
    log.close()
    assert unfinished_round(db)
    said: list[str] = []
    prepare(data, 1, example_path("fully-automated-blackjack.toml"), echo=said.append)
    assert config.read_text(encoding="utf-8") == old and "mid-round" in said[0]
    log, tables = open_table(load_config(config), db, certs)
    table = Table("fully-automated-blackjack.toml", session=tables[0][0], credits={})
    for _ in range(200):
        if table.view("T1")["phase"] == "complete":
            break
        table.step(("T1",))
    assert table.view("T1")["phase"] == "complete"
    log.close()
    assert not unfinished_round(db)
    prepare(data, 1, example_path("fully-automated-blackjack.toml"))
    assert load_config(config).timers.deal_when_all_bet is True
