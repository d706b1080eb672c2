"""The live demo (tools.live_demo) without a display: the real server, two headless
bot-played terminals, two settled rounds printed, a screenshot per terminal, nothing left
running. Every table's demo here writes into ONE data folder, as `make demo` followed by
`etg demo --live --config ...` does: each Rules Submission keeps its own log there, and each
log verifies against its anchor stream."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from game_server.games.uth.config import rules_of  # noqa: E402
from terminal_client.games.blackjack.bot import basic_strategy  # noqa: E402

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
    # The bots stake the side wager the table offers; the console names wagers by title.
    for terminal in ("T1", "T2"):
        assert f"  {terminal} hand 1 Lucky Aces:" in done.stdout, done.stdout
        assert f"  {terminal} hand 1 Blackjack:" in done.stdout, done.stdout
    assert "lucky_aces" not in done.stdout
    last = settled[-1].split(":")[0].removeprefix("round ")
    for terminal in ("T1", "T2"):
        shot = data / TABLE / "screenshots" / f"{terminal}-round{last}.png"
        assert shot.exists(), f"no screenshot of {terminal}'s last round: {done.stdout}"
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
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
        ("hybrid-three-position", "hand 1 Blackjack:"),
        ("hybrid-no-hole-card", "hand 1 Blackjack:"),
        ("uth", "Ante:"),
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
    from game_server.config import example_path, load_config

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    rules = example_path(f"{table}.toml")
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
    offered = load_config(rules)
    if rules_of(offered) is not None:
        titles = ["Blind", "Trips", "Progressive Payout", "Five Card Hand Bonus"]
    else:
        titles = [offer.wager.title for offer in offered.rules.side_wagers]
    for terminal in ("T1", "T2", "T3"):
        assert f"  {terminal} {wager}" in done.stdout, done.stdout
        for title in titles:  # every wager the table offers, placed by each bot
            assert re.search(rf"  {terminal} (hand 1 )?{re.escape(title)}", done.stdout), title
        shots = list((data / table / "screenshots").glob(f"{terminal}-round*.png"))
        assert shots, f"no screenshot of {terminal}: {done.stdout}"
    verified(data, table)
    assert _running(data) == []


def test_demo_windows_sit_side_by_side_on_the_screen() -> None:
    """Two windows on a 1920x1080 screen: one row, left and right, 16:9, inside the screen
    and clear of each other (they used to open at the same place). Any number of windows
    never overlap and are at least 640x360 (seven on 1920x1080 may run past the bottom)."""
    from tools.live_demo import window_places

    left, right = window_places(2, (1920, 1080))
    assert left[1] == right[1] and left[0] + left[2] <= right[0]
    for count, screen in ((2, (1920, 1080)), (2, (2560, 1440)), (1, (800, 600)), (7, (1920, 1080))):
        rects = [pygame.Rect(place) for place in window_places(count, screen)]
        assert len(rects) == count
        for i, rect in enumerate(rects):
            assert abs(rect.width * 9 - rect.height * 16) < 16
            assert rect.width >= 640 and rect.height >= 360
            assert not any(rect.colliderect(other) for other in rects[i + 1 :])
            if count <= 2:
                assert rect.right <= screen[0] and rect.bottom <= screen[1]
    assert max(place[2] for place in window_places(1, (3840, 2160))) == 1280


class _Event:
    def __init__(self, kind: str, terminal: str | None, body: dict, round_id: int = 4) -> None:
        self.kind, self.terminal, self.body, self.round_id = kind, terminal, body, round_id


def test_the_no_hole_card_round_line_gives_each_player_his_dealer_hand() -> None:
    """633b.5(y)(4): at the table without a hole card each player has his own dealer hand;
    the console gives the shared up card, then each player's dealer hand before his wagers,
    each wager by its title (not one dealer card followed by every player's loss)."""
    from tools.live_demo import round_lines

    def settled(terminal: str, wager: str, paid: int) -> _Event:
        body = {"wager": wager, "hand": 0, "stake": 500, "paid": paid, "outcome": "x", "line": "l"}
        return _Event("wager_settled", terminal, body)

    events = [
        settled("T1", "royal_match_21", 0),
        settled("T1", "blackjack", 1000),
        _Event(
            "nhc_dealer_hand_completed",
            "T1",
            {"dealer_cards": ["9H", "6S", "8D"], "dealer_total": 23},
        ),
        settled("T2", "blackjack", 0),
        _Event(
            "nhc_dealer_hand_completed", "T2", {"dealer_cards": ["9H", "QS"], "dealer_total": 19}
        ),
        _Event("round_completed", None, {"dealer_cards": ["9H"], "dealer_total": 9}),
    ]
    lines = round_lines(events)
    assert lines[0] == "round 4: dealer's up card 9H; each player's own dealer hand"
    assert lines[1] == "  T1 dealer hand 9H 6S 8D (23)"
    assert lines[2].startswith("  T1 hand 1 Royal Match 21: x stake 5.00 paid 0.00")
    assert lines[3].startswith("  T1 hand 1 Blackjack: x stake 5.00 paid 10.00 (net +5.00)")
    assert lines[4] == "  T2 dealer hand 9H QS (19)"
    assert lines[5].startswith("  T2 hand 1 Blackjack:") and len(lines) == 6


def test_a_windowed_demo_leaves_t1_to_the_visitor_and_gives_the_others_to_bots() -> None:
    """With a display T1 is the visitor's to play and the other windows are bots' (they
    stake every side wager); headless, or with --bots, every terminal is a bot's."""
    from tools.live_demo import bot_terminals

    assert bot_terminals(2, headless=False, bots=False) == [2]
    assert bot_terminals(1, headless=False, bots=False) == []
    assert bot_terminals(3, headless=True, bots=False) == [1, 2, 3]
    assert bot_terminals(2, headless=False, bots=True) == [1, 2]


@pytest.mark.parametrize("mistake", ["path", "wager"])
def test_a_bad_rules_submission_is_one_sentence_of_the_users_file_and_makes_nothing(
    tmp_path: Path, mistake: str
) -> None:
    """``etg demo --live --config`` answers a wrong path as ``etg serve`` does (one
    sentence, exit 2; it printed a FileNotFoundError traceback and left a lock file), and a
    misspelt wager by the user's own file (it named the demo's copy); no folder is made."""
    from click.testing import CliRunner

    from game_server.config import example_path
    from tools.cli import main

    if mistake == "path":
        rules = tmp_path / "nope.toml"
    else:
        rules = tmp_path / "typo.toml"
        text = example_path("fully-automated-all-side-wagers.toml").read_text(encoding="utf-8")
        rules.write_text(text.replace("[wagers.", "[wagerz."), encoding="utf-8")
    data = tmp_path / "demo"
    done = CliRunner().invoke(main, ["demo", "--live", "--config", str(rules), "--data", str(data)])
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output and isinstance(done.exception, SystemExit)
    lines = [line for line in done.output.splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith(f"etg: error: {rules}: "), done.output
    assert ("No such file" if mistake == "path" else "did you mean 'wagers'") in lines[0]
    assert not data.exists()


class _Operator:
    """An operator's connection to a demo table whose wallets hold ``wallets``; T2's cash
    out is refused when ``busy`` (its last round still to settle)."""

    def __init__(self, wallets: dict[str, int], busy: bool = False) -> None:
        self.wallets, self.busy, self.calls = dict(wallets), busy, []

    def call(self, command: str, **arguments: object) -> dict[str, object]:
        import json

        from tools.amp_client import AmpError

        self.calls.append((command, arguments.get("terminal"), arguments.get("amount")))
        terminal = str(arguments.get("terminal"))
        if command == "ReadMeters":
            table = {"wallets": self.wallets, "meters": {}}
            return {"meters": json.dumps({"tables": {"BJ-01": table}, "floor": {}})}
        if command == "CashOut":
            if self.busy and terminal == "T2":
                raise AmpError("TableError", "wagers are in play")
            self.wallets[terminal] = 0
        elif command == "CashIn":
            self.wallets[terminal] = self.wallets.get(terminal, 0) + int(str(arguments["amount"]))
        return {}


def test_every_demo_run_starts_each_terminal_at_the_demo_money_unless_kept() -> None:
    """Demo credits piled up run after run ($3,979.50 after four): what the last run left
    is cashed out and the demo money cashed in, each logged; --keep-credits keeps what a
    terminal had and credits only one without any; a terminal whose cash out is refused
    keeps its credits, said so."""
    from tools.live_demo import DEMO_CREDITS, credit_terminals

    operator = _Operator({"T1": 397_950, "T2": 0})
    said = credit_terminals(operator, 3, keep=False)
    assert operator.wallets == dict.fromkeys(("T1", "T2", "T3"), DEMO_CREDITS)
    assert ("CashOut", "T1", 0) in operator.calls and ("CashOut", "T2", 0) not in operator.calls
    assert said == "credited 1,000.00 to each of T1, T2, T3"

    operator = _Operator({"T1": 397_950, "T2": 0})
    said = credit_terminals(operator, 2, keep=True)
    assert operator.wallets == {"T1": 397_950, "T2": DEMO_CREDITS}
    assert not any(command == "CashOut" for command, _, _ in operator.calls)
    assert said == "credited 1,000.00 to T2; T1 kept the credits of the last run"

    operator = _Operator({"T1": 5_00, "T2": 12_00}, busy=True)
    said = credit_terminals(operator, 2, keep=False)
    assert operator.wallets == {"T1": DEMO_CREDITS, "T2": 12_00}
    assert said == "credited 1,000.00 to T1; T2 kept the credits of the last run"


def test_the_demo_table_deals_as_soon_as_every_player_has_wagered(tmp_path: Path) -> None:
    """The demo's copy of a Rules Submission that states deal_when_all_bet = false, or
    does not state it, deals once every player has wagered: a visitor alone at the demo
    is dealt as he presses DEAL; the rest of the file is the user's."""
    from game_server.config import example_path, load_config
    from tools.live_demo import prepare

    stated = example_path("uth.toml")
    unstated = tmp_path / "unstated.toml"
    unstated.write_text(
        re.sub(r"^deal_when_all_bet.*$", "", stated.read_text(encoding="utf-8"), flags=re.M),
        encoding="utf-8",
    )
    for rules in (stated, unstated):
        assert load_config(rules).timers.deal_when_all_bet is False
        _, config = prepare(tmp_path / "demo", 1, rules)
        demo = load_config(config)
        assert demo.timers.deal_when_all_bet is True
        assert demo.rules == load_config(rules).rules
        # The pictures of docs/screens keep the file's own pace (a bot's bet is pictured in
        # the betting window's countdown).
        _, config = prepare(tmp_path / "demo", 1, rules, deal_when_all_bet=False)
        assert load_config(config).timers.deal_when_all_bet is False
