"""``etg terminal`` for a newcomer: no display is one clear line and an exit, never a silent
hang; stderr says where the connection is each time it changes; the screen says
"connecting" until the table has answered once; the window is titled with the terminal and
its table."""

from __future__ import annotations

from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from click.testing import CliRunner  # noqa: E402
from client_helpers import MemoryTable, sample_view  # noqa: E402
from test_uth_model import EXAMPLE  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402

from game_server.net.pki import init_pki  # noqa: E402
from terminal_client.cli import (  # noqa: E402
    NO_DISPLAY,
    ConnectionReport,
    display_problem,
    terminal,
    window_title,
)
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.net import TerminalClient  # noqa: E402
from terminal_client.screens import ConnectionLostScreen  # noqa: E402


def test_no_display_on_linux_is_a_problem_unless_a_driver_was_chosen() -> None:
    """Without DISPLAY or WAYLAND_DISPLAY a window cannot open on Linux; SDL_VIDEODRIVER
    (dummy, for the headless demo bots) is a choice, not a problem; other systems have
    their own display."""
    assert display_problem({}, "linux") == NO_DISPLAY
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({"SDL_VIDEODRIVER": "dummy"}, "linux") is None
    assert display_problem({}, "darwin") is None


def test_the_command_without_a_display_says_so_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With valid certificates and no display the command exits 1 at once with the one line
    that says what is wrong and what to do (it used to hang without a word)."""
    certs = tmp_path / "certs"
    init_pki(certs, terminals=1)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    args = [
        "--server",
        "127.0.0.1:1",
        "--cert",
        str(certs / "terminals" / "T1.pem"),
        "--key",
        str(certs / "terminals" / "T1.key"),
        "--ca",
        str(certs / "ca.pem"),
    ]
    result = CliRunner().invoke(terminal, args)
    assert result.exit_code == 1
    assert "no display" in result.output and "SDL_VIDEODRIVER=dummy" in result.output


def test_stderr_says_connecting_then_unreachable_once_then_connected() -> None:
    """One line per change: connecting, cannot reach HOST:PORT with the reason and the
    retry, nothing more while retries fail the same way, then connected with the table."""
    clock = Clock()
    model = TerminalModel()
    said: list[str] = []
    report = ConnectionReport(model, "table1:8750", said.append, clock.seconds)
    model.apply_connection(ConnectionState.CONNECTING, "connecting to the table")
    report()
    message = "cannot reach the table server: Connection refused."
    model.apply_connection(ConnectionState.LOST, message)
    model.apply_retry_at(2.0)
    report()
    report()
    model.apply_retry_at(5.0)
    model.apply_connection(ConnectionState.LOST, message)
    report()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(sample_view())
    report()
    assert said == [
        "etg terminal: connecting to the table at table1:8750",
        "etg terminal: cannot reach the table at table1:8750 (Connection refused); "
        "retrying, next try in 2 s",
        "etg terminal: connected to the table at table1:8750 (table BJ-1, terminal T1)",
    ]
    model.apply_connection(ConnectionState.LOST, "the connection to the table server was lost")
    report()
    assert said[-1] == (
        "etg terminal: the connection to the table server was lost (table1:8750); retrying"
    )


@pytest.mark.usefixtures("headless")
def test_a_terminal_that_never_reached_the_table_is_connecting_not_lost(
    table: MemoryTable,
) -> None:
    """Before the first answer the screen says CONNECTING even after failed attempts (it
    said CONNECTION LOST when nothing was ever connected); once connected, a drop is LOST."""
    model = TerminalModel()
    client = TerminalClient(table, model, table.clock)
    table.refuse_next = ConnectionRefusedError("refused")
    client.start()
    table.flush()
    assert model.connection.state is ConnectionState.LOST
    screen = ConnectionLostScreen(model, client)
    screen.update(table.clock.seconds())
    title, lines = screen.text()
    assert title == "CONNECTING TO THE TABLE"
    assert "Your credits and bets are safe with the table." not in lines
    table.clock.advance(30)
    table.flush()
    assert model.connection.state is ConnectionState.CONNECTED
    table.drop()
    table.flush()
    title, lines = ConnectionLostScreen(model, client).text()
    assert title == "CONNECTION TO THE TABLE LOST"
    assert "Your credits and bets are safe with the table." in lines


def test_the_window_title_names_the_terminal_its_game_and_table() -> None:
    """Before the table answers the title says what it connects to; then which terminal
    this is, its game and its table (two demo windows are told apart at a glance)."""
    model = TerminalModel()
    assert (
        window_title(model, "127.0.0.1:8750") == "ETG terminal \u2022 connecting to 127.0.0.1:8750"
    )
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(sample_view(terminal="T2", table="BJ-01"))
    assert window_title(model, "127.0.0.1:8750") == "T2 \u2022 Blackjack \u2022 table BJ-01"
    model.apply_view(EXAMPLE)
    assert window_title(model, "h:1") == "T2 \u2022 Ultimate Texas Hold 'Em \u2022 table uth-1"


def test_the_glass_is_a_screen_size_in_inches_and_sets_the_least_text(
    tmp_path: Path,
) -> None:
    """--glass is the screen's diagonal: 5 inches is refused with the range; the app's
    layout takes its least text size from it (12 pt: 16 px on 24 inches at 1920x1080,
    12 px on 32 inches)."""
    from terminal_client.app import TerminalApp
    from terminal_client.typescale import Glass

    certs = tmp_path / "certs"
    init_pki(certs, terminals=1)
    args = ["--server", "127.0.0.1:1", "--cert", str(certs / "terminals" / "T1.pem")]
    args += ["--key", str(certs / "terminals" / "T1.key"), "--ca", str(certs / "ca.pem")]
    result = CliRunner().invoke(terminal, [*args, "--glass", "5"])
    assert result.exit_code == 2
    assert "--glass" in result.output and "7.0<=x<=100.0" in result.output
    for inches, least in ((24.0, 16), (32.0, 12)):
        app = TerminalApp(
            TerminalModel(),
            None,
            Clock(),
            lambda: pygame.Surface((1920, 1080)),
            glass=Glass(inches),
        )
        assert app.layout().min_text == least
