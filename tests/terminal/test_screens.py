"""The terminal's screens (terminal_client.screens): the screen the model calls for, what each
screen shows and allows, and that drawing changes nothing. Each screen is drawn to a PNG."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from client_helpers import MemoryTable, playing_view, sample_view  # noqa: E402

from terminal_client.input import Key, Tap  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.net import TerminalClient  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.screens import (  # noqa: E402
    AttractScreen,
    BettingScreen,
    ConnectionLostScreen,
    Handled,
    NeedsUpdateScreen,
    OutOfServiceScreen,
    PlayScreen,
    RefusedScreen,
    ResultsScreen,
    RulesScreen,
    Screen,
    ScreenStack,
    enabled_actions,
    screen_for,
)

SIZE = (1280, 720)
#: Where the PNGs are also copied for a person to look at (set ETG_SCREEN_PNGS to a folder).
PNG_DIR = os.environ.get("ETG_SCREEN_PNGS")


pytestmark = pytest.mark.usefixtures("headless")


@pytest.fixture
def client(table: MemoryTable) -> TerminalClient:
    """A client connected (in memory) to the real server; its model shows the betting view."""
    client = TerminalClient(table, TerminalModel(), table.clock)
    client.start()
    table.flush()
    assert client.model.connection.state is ConnectionState.CONNECTED
    return client


def results_view() -> dict[str, Any]:
    """Round 7 settled: blackjack won 25.00 (paid 50.00), Lucky Aces lost."""
    view = playing_view(
        phase="complete",
        machine="next-round",
        credits=102_500,
        to_act=None,
        actions=[],
        countdown={"for": "next-round", "seconds_left": 5, "then": "next round"},
        dealer={"cards": ["TD", "8C"], "total": 18, "hole_revealed": True},
        settlements=[
            {
                "wager": "blackjack",
                "hand": 0,
                "stake": 2_500,
                "paid": 5_000,
                "outcome": "win",
                "line": "",
            },
            {
                "wager": "lucky_aces",
                "hand": 0,
                "stake": 500,
                "paid": 0,
                "outcome": "lose",
                "line": "",
            },
        ],
    )
    view["seats"][0]["hands"][0]["cards"] = ["AS", "6H", "2C"]
    return view


def insurance_view() -> dict[str, Any]:
    return playing_view(
        phase="insurance",
        machine="insurance",
        dealer={"cards": ["AD", {"hidden": True}], "total": None, "hole_revealed": False},
        to_act=None,
        actions=[],
        countdown={"for": "insurance", "seconds_left": 8, "then": "decline"},
        insurance={"max": 1_250, "can_insure": True, "can_take_even_money": False},
    )


def with_lucky_aces(view: dict[str, Any]) -> dict[str, Any]:
    view["limits"]["lucky_aces"] = {"min": 100, "max": 2_500}
    return view


def _state(screen: Screen) -> dict[str, Any]:
    """The screen's own state, one level into its helpers (e.g. its local countdown)."""
    state: dict[str, Any] = {}
    for key, value in vars(screen).items():
        if key not in ("model", "client"):
            state[key] = dict(vars(value)) if hasattr(value, "__dict__") else copy.copy(value)
    return state


def render(screen: Screen, tmp_path: Path, name: str, size: tuple[int, int] = SIZE) -> Any:
    """Draw ``screen`` (after an update) to ``name``.png and check drawing changed nothing."""
    screen.update(0.0)
    layout = Layout.for_window(size)
    surface = pygame.Surface(size)
    view, pending, before = screen.model.view, screen.model.pending, _state(screen)
    screen.draw(surface, layout)
    assert screen.model.view is view and screen.model.pending == pending
    assert _state(screen) == before
    path = tmp_path / f"{name}.png"
    pygame.image.save(surface, str(path))
    if PNG_DIR:
        pygame.image.save(surface, str(Path(PNG_DIR) / f"{name}.png"))
    colours = {surface.get_at((x, y))[:3] for x in range(0, size[0], 40) for y in (60, 360, 660)}
    assert len(colours) > 8, f"{name} looks blank"
    return surface


def render_stack(
    stack: ScreenStack, tmp_path: Path, name: str, size: tuple[int, int] = SIZE
) -> Any:
    """Draw the whole stack (an overlay over its table screen) to ``name``.png."""
    stack.update(0.0)
    surface = pygame.Surface(size)
    stack.draw(surface, Layout.for_window(size))
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))
    if PNG_DIR:
        pygame.image.save(surface, str(Path(PNG_DIR) / f"{name}.png"))
    colours = {surface.get_at((x, y))[:3] for x in range(0, size[0], 40) for y in (60, 360, 660)}
    assert len(colours) > 8, f"{name} looks blank"
    return surface


# --------------------------------------------------------------------------------------------
# Which screen


def test_screen_for_follows_the_model(client: TerminalClient) -> None:
    """Betting, play, insurance, results, no credits, lost, needs-update and refused each
    have their screen, chosen from the model alone."""
    model = client.model
    assert screen_for(model) is BettingScreen
    model.apply_view(playing_view())
    assert screen_for(model) is PlayScreen
    model.apply_view(insurance_view())
    assert screen_for(model) is PlayScreen
    model.apply_view(results_view())
    assert screen_for(model) is ResultsScreen
    model.apply_view(sample_view(credits=0))
    assert screen_for(model) is AttractScreen
    model.apply_view(sample_view(state="out-of-service"))
    assert screen_for(model) is OutOfServiceScreen
    model.apply_connection(ConnectionState.LOST, "connection lost")
    assert screen_for(model) is ConnectionLostScreen
    model.apply_connection(ConnectionState.CERTIFICATE_REFUSED, "refused")
    assert screen_for(model) is RefusedScreen
    model.apply_connection(ConnectionState.NEEDS_UPDATE, "v2")
    assert screen_for(model) is NeedsUpdateScreen


def test_a_fresh_terminal_shows_connecting() -> None:
    """Before the first view the terminal is on the connection screen."""
    assert screen_for(TerminalModel()) is ConnectionLostScreen


# --------------------------------------------------------------------------------------------
# Each screen, drawn


def test_betting_screen_renders(client: TerminalClient, tmp_path: Path) -> None:
    """The betting screen shows the server's chips, the limits and the bet being built."""
    client.model.apply_view(
        with_lucky_aces(
            sample_view(countdown={"for": "betting", "seconds_left": 9, "then": "deal"})
        )
    )
    screen = BettingScreen(client.model, client)
    assert [s.cents for s in screen.tray(Layout.for_window(SIZE)).slots()] == [
        100,
        500,
        2_500,
        10_000,
    ]
    screen.handle(Tap("chip:2500"))
    screen.handle(Tap("spot:main"))
    screen.handle(Tap("chip:500"))
    screen.handle(Tap("spot:lucky_aces"))
    assert screen.pending == {"blackjack": 2_500, "lucky_aces": 500}
    render(screen, tmp_path, "betting")
    render(screen, tmp_path, "betting-portrait", (1080, 1920))


def test_play_screen_renders(client: TerminalClient, tmp_path: Path) -> None:
    """Play: the dealer's hole card is a back, the soft total reads 7/17, then: stand."""
    client.model.apply_view(playing_view())
    screen = PlayScreen(client.model, client)
    assert client.model.view is not None and client.model.view.dealer.cards[1] is None
    assert client.model.my_hands[0].total_text == "7/17"
    render(screen, tmp_path, "play")


def test_insurance_offer_renders(client: TerminalClient, tmp_path: Path) -> None:
    """An insurance offer replaces the action buttons with INSURE and NO THANKS."""
    client.model.apply_view(insurance_view())
    screen = PlayScreen(client.model, client)
    buttons = {b.id: b.enabled for b in screen.buttons(Layout.for_window(SIZE))}
    assert buttons == {"insurance": True, "decline": True}
    render(screen, tmp_path, "insurance")


def test_results_screen_renders(client: TerminalClient, tmp_path: Path) -> None:
    """Results list each wager, whether it won, lost or pushed, and what it paid."""
    client.model.apply_view(results_view())
    render(ResultsScreen(client.model, client), tmp_path, "results")


@pytest.mark.parametrize(
    ("name", "screen_type", "state"),
    [
        ("lost", ConnectionLostScreen, ConnectionState.LOST),
        ("refused", RefusedScreen, ConnectionState.CERTIFICATE_REFUSED),
        ("needs-update", NeedsUpdateScreen, ConnectionState.NEEDS_UPDATE),
        ("attract", AttractScreen, None),
    ],
)
def test_status_screens_render(
    client: TerminalClient,
    tmp_path: Path,
    name: str,
    screen_type: type[Screen],
    state: ConnectionState | None,
) -> None:
    """The screens of a terminal that cannot play draw without changing anything."""
    if state is None:
        client.model.apply_view(sample_view(credits=0))
    else:
        client.model.apply_connection(state, name)
    render(screen_type(client.model, client), tmp_path, name)


def test_rules_overlay_renders(client: TerminalClient, table: MemoryTable, tmp_path: Path) -> None:
    """The rules overlay asks the server for the rules: the 633b.5(c)(2) statements, what
    each countdown does, then a page per wager with its paytable as the server sent it."""
    client.model.apply_view(with_lucky_aces(playing_view()))
    stack = ScreenStack()
    stack.push(PlayScreen(client.model, client))
    assert stack.handle(Tap("button:rules"))
    rules = stack.top
    assert isinstance(rules, RulesScreen)
    loading = render_stack(stack, tmp_path, "rules-loading")
    assert rules.page_count() == 1  # nothing from the server yet
    table.flush()
    assert ("rules", "T1") in table.machine.calls
    lines = [text for text, _ in rules.lines()]
    assert "Blackjack pays 3 to 2" in lines and "Insurance pays 2 to 1" in lines
    assert "Dealer stands on all soft 17s" in lines
    assert any(line.startswith("Each decision:") and "stands" in line for line in lines)
    # The game, Blackjack's own pays, Lucky Aces, then the shoe (docs/shoe-spec.md).
    assert rules.page_count() == 4
    surface = render_stack(stack, tmp_path, "rules")
    assert surface.get_view("2").raw != loading.get_view("2").raw
    assert stack.handle(Tap("button:next")) and stack.handle(Tap("button:next"))
    assert rules.title() == "LUCKY ACES"
    rows = rules.lines()
    assert ("4 Aces", "500 to 1") in rows  # 633b.8 Paytable A, as the example config selects
    render_stack(stack, tmp_path, "rules-paytable")
    assert stack.handle(Tap("button:next"))
    assert rules.title() == "THE SHOE"
    assert any("committed to before its first card" in text for text, _ in rules.lines())
    render_stack(stack, tmp_path, "rules-shoe")
    assert not stack.handle(Tap("button:next"))  # the last page
    assert stack.handle(Key("back"))
    assert isinstance(stack.top, PlayScreen)


# --------------------------------------------------------------------------------------------
# What the screens allow


def test_action_buttons_are_the_servers_legal_actions(client: TerminalClient) -> None:
    """On this terminal's turn exactly the server's legal actions are enabled."""
    client.model.apply_view(playing_view(actions=["hit", "stand", "split"]))
    screen = PlayScreen(client.model, client)
    enabled = {b.id for b in screen.buttons(Layout.for_window(SIZE)) if b.enabled}
    assert enabled == {"hit", "stand", "split"} == set(client.model.legal_actions)


def test_no_action_button_is_enabled_when_it_is_not_my_turn(client: TerminalClient) -> None:
    """While another seat acts every action button is disabled and a tap sends nothing."""
    client.model.apply_view(playing_view(to_act={"seat": 2, "hand": 0}))
    screen = PlayScreen(client.model, client)
    layout = Layout.for_window(SIZE)
    assert not any(b.enabled for b in screen.buttons(layout))
    assert enabled_actions(client.model) == frozenset()
    assert screen.hit_test(layout, layout.action_buttons["hit"].center) is None
    assert screen.handle(Tap("button:hit")) is None
    assert client.model.pending == ()


def test_a_legal_action_is_sent_for_the_hand_to_act(
    client: TerminalClient, table: MemoryTable
) -> None:
    """Tapping STAND sends Act(stand) for the hand the server says is to act."""
    client.model.apply_view(playing_view())
    screen = PlayScreen(client.model, client)
    assert screen.handle(Tap("button:stand")) == Handled()
    table.flush()
    acts = [call for call in table.machine.calls if call[0] == "act"]
    assert [call[:4] for call in acts] == [("act", "T1", "stand", 0)]


def test_a_bet_over_the_limit_is_not_added(client: TerminalClient) -> None:
    """A chip that would take a wager over its maximum is refused with the limit named."""
    screen = BettingScreen(client.model, client)
    screen.handle(Tap("chip:10000"))
    for _ in range(6):
        screen.handle(Tap("spot:main"))
    assert screen.pending == {"blackjack": 50_000}
    assert screen.note == "Blackjack maximum is $500.00"


def test_no_more_bets_once_the_round_is_dealt(client: TerminalClient) -> None:
    """Without a seat in the dealt round the betting screen says no more bets, taking none."""
    client.model.apply_view(playing_view(seats=[], to_act=None, actions=[]))
    assert screen_for(client.model) is BettingScreen
    screen = BettingScreen(client.model, client)
    assert screen.message() == "NO MORE BETS"
    assert screen.handle(Tap("spot:main")) is None
    assert not any(b.enabled for b in screen.buttons(Layout.for_window(SIZE)))


def test_connection_lost_counts_down_to_the_retry(client: TerminalClient) -> None:
    """The lost screen shows whole seconds to the next attempt, changing as time passes."""
    client.model.apply_connection(ConnectionState.LOST, "lost")
    client.model.apply_retry_at(10.0)
    screen = ConnectionLostScreen(client.model, client)
    assert screen.update(3.0) and screen.retry_in == 7
    assert not screen.update(3.5)
    assert screen.update(4.2) and screen.retry_in == 6


class Recording(Screen):
    def __init__(self, name: str, log: list[str], opaque: bool = True) -> None:
        super().__init__(TerminalModel(), None)  # type: ignore[arg-type]
        self.name, self.log, self.opaque = name, log, opaque

    def handle(self, intent: Any) -> Handled | None:
        self.log.append(f"handle {self.name}")
        return Handled()

    def draw(self, surface: Any, layout: Any) -> None:
        self.log.append(f"draw {self.name}")


def test_only_the_top_screen_handles_and_screens_draw_bottom_up() -> None:
    """Intents go to the top screen only; the screens from the top opaque one draw upward."""
    log: list[str] = []
    stack = ScreenStack()
    stack.push(Recording("hidden", log))
    stack.push(Recording("table", log))
    stack.push(Recording("overlay", log, opaque=False))
    stack.handle(Tap("button:x"))
    stack.draw(pygame.Surface((10, 10)), Layout.for_window(SIZE))
    assert log == ["handle overlay", "draw table", "draw overlay"]
    stack.replace(Recording("other", log, opaque=False))
    assert [s.name for s in stack.screens] == ["hidden", "table", "other"]  # type: ignore[attr-defined]
