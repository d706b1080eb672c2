"""The terminal app (terminal_client.app): the reactor's frame tick routes posted touch
events to the top screen, sends one intent per completed tap, and redraws only on change."""

from __future__ import annotations

from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from click.testing import CliRunner  # noqa: E402
from client_helpers import MemoryTable, playing_view  # noqa: E402

from terminal_client.app import TerminalApp  # noqa: E402
from terminal_client.cli import terminal  # noqa: E402
from terminal_client.input import TOUCH_MOUSEID  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.net import TerminalClient  # noqa: E402
from terminal_client.screens import BettingScreen, ConnectionLostScreen, PlayScreen  # noqa: E402

SIZE = (1280, 720)


pytestmark = pytest.mark.usefixtures("headless")


@pytest.fixture
def app(table: MemoryTable) -> TerminalApp:
    """An app on a 1280x720 surface, its client connected in memory to the real server."""
    model = TerminalModel()
    client = TerminalClient(table, model, table.clock)
    client.start()
    table.flush()
    surface = pygame.Surface(SIZE)
    return TerminalApp(model, client, table.clock, lambda: surface)


def _finger(kind: int, pos: tuple[int, int]) -> pygame.event.Event:
    x, y = (pos[0] + 0.5) / SIZE[0], (pos[1] + 0.5) / SIZE[1]
    return pygame.event.Event(kind, x=x, y=y, dx=0.0, dy=0.0, touch_id=3, finger_id=1)


def _synthesised(kind: int, pos: tuple[int, int]) -> pygame.event.Event:
    return pygame.event.Event(kind, pos=pos, button=1, touch=True, which=TOUCH_MOUSEID)


def tap(pos: tuple[int, int]) -> None:
    """Post a touch as SDL delivers it: the finger events and the mouse events it makes up."""
    for event in (
        _finger(pygame.FINGERDOWN, pos),
        _synthesised(pygame.MOUSEBUTTONDOWN, pos),
        _finger(pygame.FINGERUP, pos),
        _synthesised(pygame.MOUSEBUTTONUP, pos),
    ):
        pygame.event.post(event)


def _targets(app: TerminalApp) -> tuple[BettingScreen, dict[str, tuple[int, int]]]:
    app.run_headless(1)
    screen = app.stack.top
    assert isinstance(screen, BettingScreen)
    layout = app.layout()
    places = {slot.target_id: slot.center for slot in screen.tray(layout).slots()}
    places["spot:main"] = layout.bet_spot_circles["main"][0]
    places |= {b.target_id: pygame.Rect(b.rect).center for b in screen.buttons(layout)}
    return screen, places


def test_chip_spot_deal_sends_one_place_wagers(app: TerminalApp, table: MemoryTable) -> None:
    """Tapping the 25 chip, the main circle twice and DEAL (each tap with its synthesised
    mouse events) sends exactly one PlaceWagers of the summed 50.00."""
    screen, at = _targets(app)
    tap(at["chip:2500"])
    app.run_headless(1)
    tap(at["spot:main"])
    app.run_headless(1)
    tap(at["spot:main"])
    app.run_headless(1)
    assert screen.pending == {"blackjack": 5_000}
    assert table.place_wagers_calls() == []
    tap(at["button:deal"])
    app.run_headless(3)
    table.flush()
    app.run_headless(3)
    assert table.place_wagers_calls() == [("place_wagers", "T1", {"blackjack": 5_000})]
    assert app.model.credits == 95_000
    assert screen.pending == {} and screen.last_bet == {"blackjack": 5_000}


def test_a_held_touch_adds_one_chip_only_when_lifted(app: TerminalApp) -> None:
    """A finger held on the betting circle for many frames adds nothing until it lifts, then
    adds the selected chip once."""
    screen, at = _targets(app)
    pygame.event.post(_finger(pygame.FINGERDOWN, at["spot:main"]))
    app.run_headless(60)
    assert screen.pending == {}
    pygame.event.post(_finger(pygame.FINGERUP, at["spot:main"]))
    app.run_headless(60)
    assert screen.pending == {"blackjack": 100}


def test_an_idle_app_does_not_redraw(app: TerminalApp, table: MemoryTable) -> None:
    """With no model change, no intent and no countdown second passing, frames draw nothing;
    a new view from the server draws once."""
    app.run_headless(1)
    draws = app.draws
    assert draws == 1
    app.run_headless(100)
    assert app.draws == draws
    app.model.apply_view(playing_view(countdown=None))
    app.run_headless(10)
    assert app.draws == draws + 1
    assert isinstance(app.stack.top, PlayScreen)


def test_the_countdown_redraws_each_second(app: TerminalApp, table: MemoryTable) -> None:
    """The decision countdown ticks down locally and redraws once per whole second."""
    app.model.apply_view(playing_view())
    app.run_headless(1)
    draws = app.draws
    for _ in range(31):  # a little over one second of frames
        table.clock.advance(1 / 30)
        app.run_headless(1)
    assert app.draws == draws + 1
    screen = app.stack.top
    assert isinstance(screen, PlayScreen) and screen.countdown.seconds == 11


def test_the_looping_call_drives_the_frames(app: TerminalApp, table: MemoryTable) -> None:
    """Started on the clock, the app ticks at its frame rate and picks the screen from the
    model: a lost connection replaces the table with the connection screen."""
    app.start()
    assert app.draws == 1 and isinstance(app.stack.top, BettingScreen)
    app.model.apply_connection(ConnectionState.LOST, "lost")
    table.clock.advance(1 / 30)
    assert isinstance(app.stack.top, ConnectionLostScreen)
    assert app.draws == 2
    app.stop()
    assert not app.running


def test_closing_the_window_stops_the_app(app: TerminalApp) -> None:
    """A QUIT event stops the tick and calls on_quit."""
    quits: list[bool] = []
    app._on_quit = lambda: quits.append(True)
    app.start()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    app.clock.advance(1 / 30)
    assert quits == [True] and not app.running


def test_the_command_refuses_a_server_without_a_port(tmp_path: Path) -> None:
    """`etg terminal --server HOST` (no port) is a usage error naming the expected form."""
    pem = tmp_path / "x.pem"
    pem.write_text("not a certificate")
    args = ["--server", "table1", "--cert", str(pem), "--key", str(pem), "--ca", str(pem)]
    result = CliRunner().invoke(terminal, args)
    assert result.exit_code == 2
    assert "is not HOST:PORT" in result.output


def test_the_command_reports_unreadable_tls_files(tmp_path: Path) -> None:
    """A malformed certificate file ends the command with the TLS error's sentence."""
    pem = tmp_path / "x.pem"
    pem.write_text("not a certificate")
    args = ["--server", "table1:8750", "--cert", str(pem), "--key", str(pem), "--ca", str(pem)]
    result = CliRunner().invoke(terminal, args)
    assert result.exit_code == 1
    assert "malformed" in result.output


def test_an_overlay_stays_open_as_the_round_moves_on_until_a_decision_is_due(
    app: TerminalApp,
) -> None:
    """The recall overlay opened while betting stays when the round is dealt to another
    seat's turn (the table screen under it changes); when this terminal must decide, the
    overlay closes so the buttons and the countdown show."""
    from terminal_client.screens import RecallScreen

    app.run_headless(1)
    assert isinstance(app.stack.base, BettingScreen)
    app.stack.push(RecallScreen(app.model, app.client))
    others_turn = playing_view(to_act={"seat": 3, "hand": 0}, actions=[])
    app.model.apply_view(others_turn)
    app.run_headless(1)
    assert isinstance(app.stack.base, PlayScreen)
    assert isinstance(app.stack.top, RecallScreen)
    app.model.apply_view(playing_view())  # this terminal's turn
    app.run_headless(1)
    assert app.stack.top is app.stack.base
    assert isinstance(app.stack.base, PlayScreen)
    app.stack.push(RecallScreen(app.model, app.client))  # opened again during its turn
    app.run_headless(2)
    assert isinstance(app.stack.top, RecallScreen)  # the player chose to look: it stays


def test_the_rules_overlay_fills_in_when_the_paytables_arrive(
    app: TerminalApp, table: MemoryTable
) -> None:
    """The RULES overlay shows "Loading ..." until the server's answer arrives, then the
    next frame draws the paytables without any tap (no NEXT and PREVIOUS needed)."""
    from terminal_client.model import Document
    from terminal_client.screens import RulesScreen

    app.run_headless(1)
    app.stack.push(RulesScreen(app.model, app.client))  # asks the server: not delivered yet
    app.run_headless(1)
    assert app.model.document(Document.RULES).waiting
    surface = app._surface_provider()
    loading = surface.copy()
    draws = app.draws
    app.run_headless(5)
    assert app.draws == draws  # nothing changed: nothing drawn
    table.flush()  # the server's GetRules answer reaches the model
    assert app.model.document(Document.RULES).value is not None
    app.run_headless(1)
    assert app.draws == draws + 1
    screen = app.stack.top
    assert isinstance(screen, RulesScreen)
    box = screen.content(app.layout())
    changed = sum(
        loading.get_at((x, y)) != surface.get_at((x, y))
        for x in range(box.left, box.right, 7)
        for y in range(box.top, box.bottom, 7)
    )
    assert changed > 100, "the overlay still shows the loading page"
