"""The live demo (tools.live_demo) without a display: the real server, two headless
bot-played terminals, two settled rounds printed, a screenshot per terminal, nothing left
running. Every table's demo here writes into ONE data folder, as `make demo` followed by
`etg demo --live --config ...` does: each Rules Submission keeps its own log there, and each
log verifies against its anchor stream."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygame")

from terminal_client.app import basic_strategy

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one data folder every demo of this module uses (as the README's commands do)."""
    return tmp_path_factory.mktemp("live") / "demo"


def verified(data: Path, table: str) -> None:
    """The table's demo log verifies, against its own anchor stream, with nothing else in it."""
    from contextlib import closing

    from game_server.eventlog import AnchorFile, EventLogReader
    from game_server.keys import load_public_key, load_sealing_key
    from game_server.recall.verify import verify_log

    folder = data / table
    with closing(EventLogReader.open(folder / "demo.db")) as reader:
        report = verify_log(
            reader,
            load_public_key(data / "certs"),
            sealing_key=load_sealing_key(data / "certs"),
            anchors=AnchorFile(folder / "anchors.jsonl"),
        )
        opened = {e.table_id for e in reader.events_of_kind("table_opened")}
    assert report.ok, report.first_failure
    assert report.anchors and report.anchors == report.counts.checkpoints
    assert len(opened) == 1


def _running(data_dir: Path) -> list[str]:
    """Command lines of live processes that mention the data folder."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(data_dir) in cmdline:
            found.append(cmdline)
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to look for processes")
def test_headless_demo_plays_rounds_saves_screenshots_and_stops(data: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.live_demo",
            "--data",
            str(data),
            "--terminals",
            "2",
            "--rounds",
            "2",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    settled = [line for line in done.stdout.splitlines() if line.startswith("round ")]
    assert len(settled) >= 2, done.stdout
    assert "  T" in done.stdout  # the wagers settled in each round
    for terminal in ("T1", "T2"):
        shots = list((data / TABLE / "screenshots").glob(f"{terminal}-round*.png"))
        assert shots, f"no screenshot of {terminal}: {done.stdout}"
        assert shots[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _running(data) == []
    verified(data, TABLE)


#: The folder of the default table's demo data.
TABLE = "fully-automated-blackjack"


def test_a_second_demo_on_the_same_table_folder_is_refused(tmp_path: Path) -> None:
    """While one demo holds a table's folder, another demo of that table is refused with a
    sentence naming the holder, before it starts a server or writes anything."""
    from tools.live_demo import DemoBusy, hold

    folder = tmp_path / "demo" / TABLE
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from tools.live_demo import hold; "
            "lock = hold(Path(sys.argv[1])); print('held', flush=True); time.sleep(60)",
            str(folder),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(DemoBusy, match=rf"another demo is running on .*{TABLE} \(pid"):
            hold(folder)
        assert sorted(p.name for p in folder.iterdir()) == ["demo.lock"]
    finally:
        holder.kill()
        holder.wait()
    hold(folder).close()  # free again once the holder is gone


def test_basic_strategy_stays_within_the_legal_actions() -> None:
    both = frozenset({"hit", "stand", "double", "split"})
    assert basic_strategy(("TS", "6H"), "TD", both) == "hit"
    assert basic_strategy(("TS", "6H"), "6D", both) == "stand"
    assert basic_strategy(("6S", "5H"), "6D", both) == "double"
    assert basic_strategy(("6S", "5H"), "6D", frozenset({"hit", "stand"})) == "hit"
    assert basic_strategy(("8S", "8H"), "TD", both) == "split"
    assert basic_strategy(("AS", "7H"), "9D", both) == "hit"
    assert basic_strategy(("AS", "7H"), "8D", both) == "stand"
    assert basic_strategy(("TS", "7H"), "AD", frozenset({"hit"})) == "hit"
    assert basic_strategy(("TS", "7H"), "AD", frozenset()) is None


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to look for processes")
@pytest.mark.parametrize(
    ("table", "wager"),
    [
        ("hybrid-three-position", "hand 1 blackjack:"),
        ("hybrid-no-hole-card", "hand 1 blackjack:"),
        ("uth", "ante:"),
    ],
)
def test_headless_demo_at_a_hybrid_or_uth_table_with_three_terminals(
    data: Path, table: str, wager: str
) -> None:
    """End to end at a hybrid table (58 Pa. Code 633b.5) and an Ultimate Texas Hold 'Em
    table (653a): the real server, three real terminals (headless, bot-played through their
    own screens) over mutual TLS; rounds settle for all three, each saves a screenshot, and
    the log verifies. Run in the same data folder as the other tables' demos: each keeps its
    own log."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    rules = ROOT / "game_server" / "configs" / f"{table}.toml"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.live_demo",
            "--data",
            str(data),
            "--terminals",
            "3",
            "--rounds",
            "2",
            "--config",
            str(rules),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    settled = [line for line in done.stdout.splitlines() if line.startswith("round ")]
    assert len(settled) >= 2, done.stdout
    for terminal in ("T1", "T2", "T3"):
        assert f"  {terminal} {wager}" in done.stdout, done.stdout
        shots = list((data / table / "screenshots").glob(f"{terminal}-round*.png"))
        assert shots, f"no screenshot of {terminal}: {done.stdout}"
    verified(data, table)
    assert _running(data) == []
