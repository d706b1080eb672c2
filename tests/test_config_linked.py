"""``[linked_meters]`` in the Rules Submission (605a.8): the meters a table links across the
floor's servers through the floor store, and every way the section is refused with a
sentence; ``etg serve`` refuses a linked Rules Submission without ``--store``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from game_server.config import (
    SHARE_WINDOW_MAX_MS,
    ConfigError,
    LinkedMeters,
    example_config_path,
    example_path,
    parse_config,
)

METER = "floor:blazing7s"
BLAZING = f"""
[wagers.blazing_7s]
paytable = "Paytable A"
min = "1.00"
max = "1.00"
meter_seed = "2000.00"
meter_reseed = "2000.00"
meter_increment = "5%"
third_seven = "dealer-up-card"
meter = "{METER}"
"""
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
