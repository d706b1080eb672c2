"""The overlays the menu opens (terminal_client.screens.overlay): game recall of this terminal's
current game and the 9 before it, credits and the cash-out request, and the out-of-service
screen. Each asks the real server factory (in memory) and is drawn to a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from client_helpers import MemoryTable, playing_view, sample_game, sample_view  # noqa: E402
from test_screens import render_stack  # noqa: E402

from game_server.table.api import TableState  # noqa: E402
from terminal_client.input import Key, Tap  # noqa: E402
from terminal_client.model import (  # noqa: E402
    ConnectionState,
    Document,
    ProgressiveMeter,
    TerminalModel,
)
from terminal_client.net import TerminalClient  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.screens import (  # noqa: E402
    BettingScreen,
    CashOutScreen,
    OutOfServiceScreen,
    PlayScreen,
    RecallScreen,
    ScreenStack,
    menu_buttons,
    screen_for,
)
from terminal_client.screens.overlay import cash_out_allowed  # noqa: E402

SIZE = (1280, 720)
pytestmark = pytest.mark.usefixtures("headless")


@pytest.fixture
def client(table: MemoryTable) -> TerminalClient:
    client = TerminalClient(table, TerminalModel(), table.clock)
    client.start()
    table.flush()
    assert client.model.connection.state is ConnectionState.CONNECTED
    return client


def _stack(client: TerminalClient, base: Any = BettingScreen) -> ScreenStack:
    stack = ScreenStack()
    stack.push(base(client.model, client))
    return stack


# -- the menu --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (1080, 1920)])
def test_menu_buttons_are_finger_sized_inside_the_window_and_clear_of_the_table(
    client: TerminalClient, size: tuple[int, int]
) -> None:
    layout = Layout.for_window(size)
    buttons = menu_buttons(layout, client.model)
    assert [b.id for b in buttons] == ["rules", "recall", "cashout"]
    window = layout.window
    for button in buttons:
        rect = pygame.Rect(button.rect)
        assert window.contains(rect)
        assert min(rect.size) >= round(96 * layout.scale) - 1  # MIN_TOUCH_DESIGN
        for name, other in layout.named_rects().items():
            if name in ("credits",):
                continue
            assert not rect.colliderect(other), f"{button.id} overlaps {name} at {size}"
    rects = [pygame.Rect(b.rect) for b in buttons]
    assert not any(a.colliderect(b) for i, a in enumerate(rects) for b in rects[i + 1 :])


def test_cash_out_is_offered_only_with_credits_and_no_wager_in_play(
    client: TerminalClient,
) -> None:
    model = client.model
    assert cash_out_allowed(model)  # betting, 1,000.00 credits, no wager
    model.apply_view(playing_view())  # a wager in play
    assert not cash_out_allowed(model)
    stack = _stack(client, PlayScreen)
    assert not stack.handle(Tap("button:cashout"))
    model.apply_view(sample_view(credits=0))
    assert not cash_out_allowed(model)


# -- recall ----------------------------------------------------------------------------------


def test_recall_shows_the_servers_games_newest_first_page_by_page(
    client: TerminalClient, table: MemoryTable, tmp_path: Path
) -> None:
    stack = _stack(client)
    assert stack.handle(Tap("button:recall"))
    recall = stack.top
    assert isinstance(recall, RecallScreen)
    assert client.model.document(Document.RECALL).waiting
    render_stack(stack, tmp_path, "recall-loading")
    table.flush()
    state = client.model.document(Document.RECALL)
    assert not state.waiting and state.error is None
    assert recall.page_count() == 3
    game = recall.games()[0]
    assert game.round == 8
    summary = dict(recall.summary(game))
    assert summary["Credits at start"] == "$1,000.00"
    assert summary["Credits at end"] == "$1,005.00"
    assert summary["Wagered on Lucky Aces"] == "$1.00"
    results = recall.results(game)
    assert results[-1] == ("Blackjack hand 2: WON (Win)", "paid $10.00")
    render_stack(stack, tmp_path, "recall")
    assert stack.handle(Tap("button:next"))
    assert recall.title() == "GAME RECALL: 2 GAMES AGO"
    assert recall.games()[recall.page].round == 7
    assert stack.handle(Tap("button:next"))
    assert not stack.handle(Tap("button:next"))  # 3 games: no fourth page
    assert stack.handle(Tap("button:previous"))
    assert stack.handle(Key("back"))
    assert isinstance(stack.top, BettingScreen)


def test_recall_of_a_game_in_progress_hides_the_hole_card(
    client: TerminalClient, table: MemoryTable, tmp_path: Path
) -> None:
    current = sample_game(
        9,
        status="interrupted",
        credits_end=None,
        dealer={"cards": ["AS", None], "total": None},
        hands=[{"hand": 0, "cards": ["9S", "7D"]}],
        decisions=[],
        results=[],
    )
    table.recall = {"v": 1, "terminal": "T1", "games": [current, sample_game(8)]}
    stack = _stack(client)
    stack.handle(Tap("button:recall"))
    table.flush()
    recall = stack.top
    assert isinstance(recall, RecallScreen)
    assert recall.title() == "GAME RECALL: CURRENT GAME"
    game = recall.games()[0]
    assert game.dealer_cards == ("AS", None)
    assert dict(recall.summary(game))["Credits at end"] == "--"
    render_stack(stack, tmp_path, "recall-current")


def test_recall_says_why_when_the_server_cannot_answer(
    client: TerminalClient, table: MemoryTable, tmp_path: Path
) -> None:
    from shared.protocol import TableUnavailable

    table.recall = TableUnavailable("game recall could not read the event log: disk I/O error")
    stack = _stack(client)
    stack.handle(Tap("button:recall"))
    table.flush()
    state = client.model.document(Document.RECALL)
    assert state.error is not None and "disk I/O error" in state.error
    assert client.model.recall is None
    render_stack(stack, tmp_path, "recall-error")


def test_a_recall_of_another_version_means_the_terminal_needs_an_update(
    client: TerminalClient, table: MemoryTable
) -> None:
    table.recall = {"v": 2, "terminal": "T1", "games": []}
    client.request_recall()
    table.flush()
    assert client.model.needs_update


def test_a_malformed_recall_keeps_the_last_good_one(
    client: TerminalClient, table: MemoryTable
) -> None:
    client.request_recall()
    table.flush()
    good = client.model.recall
    assert good is not None
    table.recall = {"v": 1, "terminal": "T1", "games": [{"round": "eight"}]}
    client.request_recall()
    table.flush()
    assert client.model.recall is good
    error = client.model.document(Document.RECALL).error
    assert error is not None and "cannot read" in error


def test_one_recall_request_at_a_time_and_none_offline(
    client: TerminalClient, table: MemoryTable
) -> None:
    assert client.request_recall()
    assert not client.request_recall()  # one is out
    table.flush()
    client.model.apply_connection(ConnectionState.LOST, "lost")
    assert not client.model.apply_document_requested(Document.RECALL)


# -- cash out --------------------------------------------------------------------------------


def test_cash_out_asks_first_then_sends_one_request_and_shows_the_servers_balance(
    client: TerminalClient, table: MemoryTable, tmp_path: Path
) -> None:
    table.machine.wallets["T1"] = 100_000
    stack = _stack(client)
    assert stack.handle(Tap("button:cashout"))
    screen = stack.top
    assert isinstance(screen, CashOutScreen)
    assert screen.lines() == ["Credits $1,000.00", "Cash out all $1,000.00?"]
    render_stack(stack, tmp_path, "cashout-confirm")
    assert not [c for c in table.machine.calls if c[0] == "cash_out"]  # nothing sent yet
    assert stack.handle(Tap("button:confirm"))
    assert not stack.handle(Tap("button:confirm"))  # a second tap sends nothing
    assert screen.lines() == ["Cashing out $1,000.00 ..."]
    table.machine.credits = 0  # the server's next view holds no credits
    table.flush()
    cash_outs = [c for c in table.machine.calls if c[0] == "cash_out"]
    assert len(cash_outs) == 1 and cash_outs[0][1:3] == ("T1", None)
    assert screen.lines()[0] == "Cashed out $1,000.00."
    assert screen.lines()[-1] == "Credits now $0.00"
    render_stack(stack, tmp_path, "cashout-done")
    assert stack.handle(Tap("button:close"))
    assert isinstance(stack.top, BettingScreen)


def test_a_refused_cash_out_shows_the_servers_reason(
    client: TerminalClient, table: MemoryTable
) -> None:
    from game_server.table.session import TableError

    stack = _stack(client)
    table.flush()  # the betting screen asked for the paytables: answered first
    table.machine.error = TableError("T1 has wagers in play; cash out after the round")
    stack.handle(Tap("button:cashout"))
    stack.handle(Tap("button:confirm"))
    table.flush()
    screen = stack.top
    assert isinstance(screen, CashOutScreen)
    lines = screen.lines()
    assert lines[0] == "The cash out was not made:"
    assert "wagers in play" in lines[1]
    assert lines[2] == "Credits $1,000.00"  # the server's balance, unchanged


# -- out of service --------------------------------------------------------------------------


def test_out_of_service_shows_the_credits_safe(
    client: TerminalClient, table: MemoryTable, tmp_path: Path
) -> None:
    client.model.apply_view(sample_view(state=str(TableState.OUT_OF_SERVICE)))
    assert screen_for(client.model) is OutOfServiceScreen
    stack = ScreenStack()
    stack.push(OutOfServiceScreen(client.model, client))
    render_stack(stack, tmp_path, "out-of-service")


# -- progressive meters ----------------------------------------------------------------------

METERS = [
    {
        "wager": "blazing_7s",
        "name": "Blazing 7's Progressive",
        "amount": 215_317,
        "must_hit_by": None,
    },
    {"wager": "super_4", "name": "Star Progressive", "amount": 5_012_345, "must_hit_by": None},
]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (1080, 1920)])
def test_the_tables_progressive_meters_show_on_the_table(
    client: TerminalClient, tmp_path: Path, size: tuple[int, int]
) -> None:
    """The meters the server sends are drawn, largest first, clear of every other area; a
    view without meters (an older server) draws none."""
    from terminal_client.screens.scene import meters_rect

    client.model.apply_view(sample_view(meters=METERS))
    view = client.model.view
    assert view is not None
    assert [m.amount for m in view.meters] == [215_317, 5_012_345]
    layout = Layout.for_window(size)
    area = meters_rect(layout)
    assert layout.window.contains(area)
    others = dict(layout.named_rects())
    others |= {b.target_id: pygame.Rect(b.rect) for b in menu_buttons(layout, client.model)}
    for name, rect in others.items():
        if name.startswith("seat") and layout.portrait:
            continue
        assert not area.colliderect(rect), f"meters overlap {name} at {size}"
    stack = _stack(client)
    with_meters = render_stack(stack, tmp_path, f"meters-{size[0]}x{size[1]}", size)
    client.model.apply_view(sample_view())
    assert client.model.view is not None and client.model.view.meters == ()
    without = render_stack(stack, tmp_path, f"no-meters-{size[0]}x{size[1]}", size)
    crop = (area.x, area.y, area.w, area.h)

    def pixels(surface: Any) -> bytes:
        return bytes(pygame.image.tobytes(surface.subsurface(crop).copy(), "RGB"))

    assert pixels(with_meters) != pixels(without)


@pytest.mark.parametrize("size", [(1280, 720), (1080, 1920)])
def test_a_linked_meter_the_floor_store_cannot_give_shows_unavailable(
    client: TerminalClient, tmp_path: Path, size: tuple[int, int]
) -> None:
    """605a.8: a meter linked across the floor whose store cannot be reached comes with no
    amount and the server's sentence; the terminal shows UNAVAILABLE, not a stale amount."""
    from terminal_client.screens.scene import meters_rect

    down = {
        "wager": "blazing_7s",
        "name": "Blazing 7's Progressive",
        "amount": None,
        "must_hit_by": None,
        "unavailable": "the linked meter floor:blazing7s is unavailable: ...",
    }
    client.model.apply_view(sample_view(meters=[down, METERS[1]]))
    view = client.model.view
    assert view is not None
    assert view.meters[0].unavailable is not None and view.meters[0].amount == 0
    stack = _stack(client)
    shown = render_stack(stack, tmp_path, f"unavailable-{size[0]}x{size[1]}", size)
    client.model.apply_view(sample_view(meters=[{**down, "amount": 215_317, "unavailable": None}]))
    up = render_stack(stack, tmp_path, f"available-{size[0]}x{size[1]}", size)
    area = meters_rect(Layout.for_window(size))
    crop = (area.x, area.y, area.w, area.h)

    def pixels(surface: Any) -> bytes:
        return bytes(pygame.image.tobytes(surface.subsurface(crop).copy(), "RGB"))

    assert pixels(shown) != pixels(up)


#: A Four Card Poker table's three meters (641b.1): the two progressives and the Must-Hit-By.
THREE_METERS = [
    ProgressiveMeter("five_card_progressive", "Five-Card Progressive Payout meter", 500_080, None),
    ProgressiveMeter("four_card_progressive", "Four-Card Progressive Payout meter", 100_080, None),
    ProgressiveMeter("must_hit_by", "Must-Hit-By Mystery Bonus", 10_032, 20_000),
]


@pytest.mark.parametrize("count", [3, 2])
@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (800, 600)])
def test_three_meters_one_of_them_must_hit_by_are_legible_and_clear_of_each_other(
    monkeypatch: pytest.MonkeyPatch, size: tuple[int, int], count: int
) -> None:
    """Three meters under the menu buttons: every name, amount and the Must-Hit-By's "must
    hit by" are inside the panel, none touching another, none shrunk below 60% of the
    panel's body text (the Must-Hit-By row was squeezed to a sliver, the amounts touching).
    Two meters leave room for the panel's title, which touches none of them."""
    from terminal_client.screens import scene

    drawn: list[tuple[str, pygame.Rect]] = []
    real = scene.draw_text

    def recording(surface: Any, text: str, *args: Any, **kwargs: Any) -> pygame.Rect:
        rect = real(surface, text, *args, **kwargs)
        drawn.append((text, rect))
        return rect

    monkeypatch.setattr(scene, "draw_text", recording)
    layout = Layout.for_window(size)
    scene.draw_meters(pygame.Surface(size), layout, THREE_METERS[:count])
    area = scene.meters_rect(layout)
    texts = {text for text, _ in drawn}
    if count == 3:
        assert {"$5,000.80", "$1,000.80", "$100.32"} <= texts
        assert any("$200.00" in text for text in texts)
        assert any(text.startswith("MUST-HIT-BY MYSTERY BONUS") for text in texts)
    else:
        assert {"PROGRESSIVE", "$5,000.80", "$1,000.80"} <= texts
    body = 18 * layout.scale
    for i, (text, rect) in enumerate(drawn):
        assert area.contains(rect), (text, rect, area)
        assert rect.height >= 0.6 * body * 1.2, (text, rect.height)
        for other, other_rect in drawn[i + 1 :]:
            assert not rect.colliderect(other_rect), (text, other)
