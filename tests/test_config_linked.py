"""``[linked_meters]`` in the Rules Submission (605a.8): the meters a table links across the
floor's servers through the floor store, and every way the section is refused with a
sentence; ``etg serve`` refuses a linked Rules Submission without ``--store``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from linked_tables import BLAZING, METER

from game_server.config import (
    SHARE_WINDOW_MAX_MS,
    ConfigError,
    LinkedMeters,
    example_config_path,
    example_path,
    parse_config,
)
from game_server.net.service import LinkedMeterMix, refuse_linked_and_shared, table_configs

MYSTERY = (
    '[must_hit_by]\nconfiguration = "A"\nminimum_wager = "1.00"\nqualifying = ["blazing_7s"]\n'
)


def linked(section: str, extra: str = "") -> str:
    """The example Blackjack table with a linkable Blazing 7's meter and ``section`` as
    its ``[linked_meters]`` body."""
    text = example_config_path().read_text(encoding="utf-8")
    return f"{text}\n{BLAZING}\n{extra}\n[linked_meters]\n{section}\n"


def problems(text: str) -> tuple[str, ...]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "table.toml")
    return caught.value.problems


def test_a_linked_meter_is_read_and_logged_with_the_rules_submission() -> None:
    config = parse_config(linked(f'meters = ["{METER}"]\nshare_window_ms = 750'))
    assert config.linked_meters == LinkedMeters((METER,), 750)
    assert config.to_dict()["linked_meters"] == {
        "meters": [METER],
        "share_window_ms": 750,
    }
    plain = parse_config(example_config_path().read_text(encoding="utf-8") + BLAZING)
    assert plain.linked_meters is None and "linked_meters" not in plain.to_dict()


def test_a_meter_the_table_does_not_open_is_refused() -> None:
    (problem,) = problems(linked('meters = ["floor:blazing8s"]\nshare_window_ms = 200'))
    assert problem.startswith("linked_meters.meters: 'floor:blazing8s' is no progressive meter")
    assert METER in problem  # names the meters it has


def test_a_must_hit_by_meter_is_refused() -> None:
    section = f'meters = ["{METER}", "BJ-01:must_hit_by"]\nshare_window_ms = 200'
    (problem,) = problems(linked(section, MYSTERY))
    assert "'BJ-01:must_hit_by' is a Must-Hit-By mystery meter" in problem
    assert "633b.14(c)(3)" in problem


@pytest.mark.parametrize("window", [-1, SHARE_WINDOW_MAX_MS + 1])
def test_a_share_window_out_of_range_is_refused(window: int) -> None:
    (problem,) = problems(linked(f'meters = ["{METER}"]\nshare_window_ms = {window}'))
    assert problem.startswith(
        f"linked_meters.share_window_ms: {window} is not within 0 and {SHARE_WINDOW_MAX_MS} ms"
    )


def test_a_share_window_that_is_not_a_whole_number_is_refused() -> None:
    (problem,) = problems(linked(f'meters = ["{METER}"]\nshare_window_ms = "200"'))
    assert problem.startswith("linked_meters.share_window_ms:")


def test_a_game_this_build_does_not_link_is_refused() -> None:
    text = example_path("uth.toml").read_text(encoding="utf-8")
    text = text.replace('# meter = "floor:uth-progressive"', 'meter = "floor:uth-progressive"')
    text += '\n[linked_meters]\nmeters = ["floor:uth-progressive"]\nshare_window_ms = 200\n'
    (problem,) = problems(text)
    assert "progressive meters are not linked across servers in this build" in problem
    assert "only Blackjack tables' progressive wagers are" in problem  # asked of the games
    assert "Remove [linked_meters]" in problem


def test_an_unknown_key_is_refused() -> None:
    (problem,) = problems(linked(f'meters = ["{METER}"]\nshare_window_ms = 200\nwindow = 5'))
    assert problem == (
        "linked_meters.window: unknown key; the keys of [linked_meters] are meters, share_window_ms"
    )


def test_a_meter_named_twice_is_refused() -> None:
    (problem,) = problems(linked(f'meters = ["{METER}", "{METER}"]\nshare_window_ms = 200'))
    assert problem == "linked_meters.meters: names a meter twice"


@pytest.mark.parametrize("meters", ["[]", '"floor:blazing7s"', "[7]"])
def test_meters_that_are_not_a_list_of_ids_are_refused(meters: str) -> None:
    (problem,) = problems(linked(f"meters = {meters}\nshare_window_ms = 200"))
    assert problem.startswith("linked_meters.meters: expected a non-empty array of meter ids")


def test_etg_serve_refuses_a_linked_rules_submission_without_a_store(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(linked(f'meters = ["{METER}"]\nshare_window_ms = 200'))
    db = tmp_path / "logs" / "table.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.cli",
            "serve",
            "--config",
            str(config),
            "--db",
            str(db),
            "--certs",
            str(tmp_path / "certs"),
            "--port",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert (
        "etg serve: error: the Rules Submission links meter(s) floor:blazing7s across the "
        "floor (605a.8, [linked_meters])" in done.stderr
    )
    assert "give --store URL" in done.stderr
    assert not db.parent.exists()  # refused before the log (or its folder) is made


#: A Must-Hit-By meter every table of the server shares (its own ``meter`` id): local.
SHARED_MYSTERY = MYSTERY + 'meter = "bank:mystery"\n'


def test_a_table_linking_a_meter_and_sharing_a_local_one_on_its_server_is_refused() -> None:
    """The server's local meters change before the step's log write; a linked table's step
    then waits on the floor store: a local meter such a table shares with another table of
    its server is refused at start, with a sentence naming the table, the meter, the tables
    sharing it and the ways out."""
    config = parse_config(
        linked(f'meters = ["{METER}"]\nshare_window_ms = 200', SHARED_MYSTERY), "table.toml"
    )
    with pytest.raises(LinkedMeterMix) as caught:
        refuse_linked_and_shared(table_configs(config, 2))
    assert str(caught.value) == (
        "table BJ-01-1 links meter(s) floor:blazing7s across the floor (605a.8, "
        "[linked_meters]) and shares its local meter bank:mystery with table(s) BJ-01-2 of "
        "this server: a step that waits on the floor store must not change a meter another "
        "table of the server reads. Link bank:mystery too (add it to [linked_meters] meters), "
        "remove its `meter` id so that each table keeps its own, or serve the tables from "
        "separate servers"
    )
    # One table: nothing shared. Each table's own mystery meter, or a linked meter shared
    # by the copies: nothing local shared.
    refuse_linked_and_shared(table_configs(config, 1))
    own = parse_config(
        linked(f'meters = ["{METER}"]\nshare_window_ms = 200', MYSTERY), "table.toml"
    )
    refuse_linked_and_shared(table_configs(own, 3))
    # The same shared local meter at tables that link nothing is the server's own (605a.8).
    plain = parse_config(example_config_path().read_text() + BLAZING + SHARED_MYSTERY)
    refuse_linked_and_shared(table_configs(plain, 2))


def test_etg_serve_refuses_the_mix_before_it_listens_or_makes_the_log(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(linked(f'meters = ["{METER}"]\nshare_window_ms = 200', SHARED_MYSTERY))
    db = tmp_path / "logs" / "table.db"
    args = ["serve", "--config", str(config), "--db", str(db), "--certs", str(tmp_path / "c")]
    args += ["--port", "0", "--tables", "2", "--store", "postgresql://etg@127.0.0.1:9/none"]
    done = subprocess.run(
        [sys.executable, "-m", "tools.cli", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert "etg serve: error: table BJ-01-1 links meter(s) floor:blazing7s" in done.stderr
    assert "shares its local meter bank:mystery with table(s) BJ-01-2" in done.stderr
    assert not db.parent.exists()
