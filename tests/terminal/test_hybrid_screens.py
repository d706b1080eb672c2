"""The screens of a hybrid table (58 Pa. Code 633b.5): which screen the view calls for, what
each draws (checked on its pixels) at 1920x1080, 1280x720 and portrait 1080x1920, the
position buttons and DEAL, the action buttons against the view's actions, a malformed view,
and the demo bot playing whole rounds through the terminal app.

Views are built by the real server code (test_hybrid_model's builders over a
HybridMachine); intents go to a recording client, or to the machine itself.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from test_hybrid_model import (  # noqa: E402
    NO_HOLE,
    THREE,
    Table,
    find_round,
    make_table,
    model_of,
    no_hole_card_designated,
    three_position_after_hits,
)

from game_server.games.blackjack.rules.actions import Action  # noqa: E402
from terminal_client.app import Autoplay, TerminalApp  # noqa: E402
from terminal_client.games.hybrid.model import hybrid_of  # noqa: E402
from terminal_client.games.hybrid.render import (  # noqa: E402
    DEALER_RING,
    community_rects,
    hybrid_areas,
)
from terminal_client.games.hybrid.screens import (  # noqa: E402
    HybridBettingScreen,
    HybridPlayScreen,
    HybridResultsScreen,
)
from terminal_client.input import Key, Tap  # noqa: E402
from terminal_client.model import TerminalModel  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.draw import BACK_RED, CARD_FACE, GOLD  # noqa: E402
from terminal_client.screens import AttractScreen, BettingScreen, PlayScreen, Screen, screen_for  # noqa: E402
from terminal_client.screens.overlay import menu_buttons  # noqa: E402

SIZES = [(1920, 1080), (1280, 720), (1080, 1920)]
SIZE_IDS = ["1920x1080", "1280x720", "1080x1920"]
BY_SIZE = pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)

pytestmark = pytest.mark.usefixtures("headless")


class RecordingClient:
    """A client that records each intent it is asked to send (and sends nothing)."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def place_wagers(self, wagers: Any, position: int | None = None) -> Any:
        self.sent.append(("place_wagers", dict(wagers), position))
        return True

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        self.sent.append(("act", action, hand))
        return True

    def answer_insurance(self, choice: str, amount: int = 0) -> Any:
        self.sent.append(("insurance", choice, amount))
        return True

    def cash_out(self) -> Any:
        self.sent.append(("cash_out",))
        return True

    def request_rules(self) -> bool:
        return True

    def request_recall(self) -> bool:
        return True


def screen_of(view: dict[str, Any], client: Any = None) -> Screen:
    model = model_of(view)
    return screen_for(model)(model, client or RecordingClient())


def _state(screen: Screen) -> dict[str, Any]:
    return {
        k: copy.copy(v) if not hasattr(v, "__dict__") else dict(vars(v))
        for k, v in vars(screen).items()
        if k not in ("model", "client")
    }


def draw(screen: Screen, size: tuple[int, int], tmp_path: Path, name: str) -> pygame.Surface:
    """Draw ``screen`` to ``name``.png; drawing changes neither the screen nor the model."""
    screen.update(0.0)
    surface = pygame.Surface(size)
    view, before = screen.model.view, _state(screen)
    screen.draw(surface, Layout.for_window(size))
    assert screen.model.view is view and _state(screen) == before
    path = tmp_path / f"{name}-{size[0]}x{size[1]}.png"
    pygame.image.save(surface, str(path))
    assert path.stat().st_size > 10_000
    return surface


def colours_in(surface: pygame.Surface, rect: pygame.Rect) -> set[tuple[int, int, int]]:
    rect = rect.clip(surface.get_rect())
    return {
        tuple(surface.get_at((x, y))[:3])
        for x in range(rect.left, rect.right, 2)
        for y in range(rect.top, rect.bottom, 2)
    }


def centre(button: Any) -> tuple[int, int]:
    return pygame.Rect(button.rect).center


# Which screen ----------------------------------------------------------------------------------


def test_the_hybrid_screens_follow_the_round() -> None:
    """Betting (joined or not), play, a round without this terminal (no more bets) and the
    results each have their hybrid screen; the fully automated table keeps its own."""
    from client_helpers import playing_view, sample_view

    table = make_table(THREE)
    assert screen_for(model_of(table.view())) is HybridBettingScreen
    table.join("T1", 2)
    assert screen_for(model_of(table.view())) is HybridBettingScreen
    table, view = three_position_after_hits()
    assert screen_for(model_of(view)) is HybridPlayScreen
    assert screen_for(model_of(table.view("T4"))) is HybridBettingScreen
    table.settle()
    assert screen_for(model_of(table.view())) is HybridResultsScreen
    assert screen_for(model_of(table.view("T4"))) is HybridBettingScreen
    table.next_round()
    assert screen_for(model_of(table.view())) is HybridBettingScreen
    poor = table.view("T4")
    poor["credits"] = 0
    assert screen_for(model_of(poor)) is AttractScreen
    # The fully automated table is unchanged.
    assert screen_for(model_of(sample_view())) is BettingScreen
    assert screen_for(model_of(playing_view())) is PlayScreen


# Layout ----------------------------------------------------------------------------------------


@BY_SIZE
def test_the_hybrid_areas_overlap_nothing(size: tuple[int, int]) -> None:
    """The community box, the positions panel, the hands and the legend keep clear of each
    other and of the dealer, credits, message bar, menu, countdown and action buttons; the
    position buttons keep clear of the betting circles, chip tray, BET panel and buttons."""
    layout = Layout.for_window(size)
    areas = hybrid_areas(layout)
    r = layout.countdown_radius
    cx, cy = layout.countdown_center
    countdown = pygame.Rect(cx - r, cy - r, 2 * r, 2 * r + round(40 * layout.scale))
    buttons = layout.action_buttons["hit"].unionall(list(layout.action_buttons.values()))
    table = make_table(NO_HOLE)
    menu = [pygame.Rect(b.rect) for b in menu_buttons(layout, model_of(table.view()))]
    play = {
        "positions": areas.positions,
        "community": areas.community,
        "hands": areas.hands,
        "legend": areas.legend,
        "dealer": layout.dealer,
        "credits": layout.credits,
        "message": layout.message_bar,
        "countdown": countdown,
        "buttons": buttons,
        **{f"menu{i}": rect for i, rect in enumerate(menu)},
    }
    for a, rect_a in play.items():
        assert layout.window.contains(rect_a), a
        for b, rect_b in play.items():
            if a < b:
                assert not rect_a.colliderect(rect_b), (a, b)
    bet = layout.my_hand
    bet_panel = pygame.Rect(0, 0, round(440 * layout.scale), round(100 * layout.scale))
    bet_panel.center = bet.center
    circles = layout.bet_spots(wagers=("blackjack", "buzzer_beater"))
    betting = [layout.chip_tray_rect, bet_panel, buttons, layout.dealer, *menu]
    betting += [pygame.Rect(spot.rect).inflate(0, round(80 * layout.scale)) for spot in circles]
    for rect in areas.position_buttons:
        assert layout.window.contains(rect)
        assert min(rect.size) >= round(96 * layout.scale)  # a finger's width
        assert rect.collidelist(betting) == -1


# Drawing ---------------------------------------------------------------------------------------


@BY_SIZE
def test_three_position_play_draws_the_community_box_positions_and_hole_card(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """633b.5(n), (q): the community card T1 used is drawn in the box with the gold ring;
    T1's position is highlighted; the dealer's hole card is drawn face down."""
    _, view = three_position_after_hits()
    screen = screen_of(view)
    assert isinstance(screen, HybridPlayScreen)
    surface = draw(screen, size, tmp_path, "hybrid-3p-play")
    layout = Layout.for_window(size)
    areas = hybrid_areas(layout)
    count = len(view["hybrid"]["community"])
    rects = community_rects(areas.community, count, layout.scale)
    first = rects[0]
    assert CARD_FACE in colours_in(surface, first)
    ring = first.inflate(round(8 * layout.scale), round(8 * layout.scale))
    assert surface.get_at((ring.centerx, ring.top + 1))[:3] == GOLD
    # The hole card's back is in the dealer's area, and no card face beside it shows it.
    assert BACK_RED in colours_in(surface, layout.dealer)
    # Position 2 (T1's) has the thick gold rim; positions with no player are empty.
    from terminal_client.games.hybrid.render import tile_rects

    cells = tile_rects(areas.positions, 3, layout.scale)
    assert surface.get_at((cells[1].centerx, cells[1].top + 2))[:3] == GOLD
    assert CARD_FACE not in colours_in(surface, cells[0].inflate(-20, -40))
    assert CARD_FACE in colours_in(surface, cells[1])


@BY_SIZE
def test_no_hole_card_play_rings_each_card_by_where_it_went(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """633b.5(y)(4), (aa): the first community card has a gold ring on T1's screen (his
    hand) and a blue one on T2's (his dealer hand, shown with its total)."""
    table, view = no_hole_card_designated()
    layout = Layout.for_window(size)
    areas = hybrid_areas(layout)
    for terminal, data, ring_colour in (
        ("T1", view, GOLD),
        ("T2", table.view("T2"), DEALER_RING),
    ):
        surface = draw(screen_of(data), size, tmp_path, f"hybrid-nhc-play-{terminal}")
        rects = community_rects(areas.community, len(data["hybrid"]["community"]), layout.scale)
        ring = rects[0].inflate(round(8 * layout.scale), round(8 * layout.scale))
        assert surface.get_at((ring.centerx, ring.top + 1))[:3] == ring_colour, terminal
        assert CARD_FACE in colours_in(surface, areas.hands)


@BY_SIZE
def test_every_hybrid_screen_state_renders(size: tuple[int, int], tmp_path: Path) -> None:
    """Betting (position chosen, bet built), betting after joining, insurance, a split, no
    more bets, the results of both tables: each draws its own screen."""
    states: list[tuple[str, Screen, type[Screen]]] = []
    table = make_table(THREE)
    betting = screen_of(table.view())
    assert isinstance(betting, HybridBettingScreen)
    betting.position = 3
    betting.pending = {"blackjack": 2_500, "buzzer_beater": 500}
    states.append(("betting", betting, HybridBettingScreen))
    table.join("T1", 1)
    states.append(("joined", screen_of(table.view()), HybridBettingScreen))
    nhc = make_table(NO_HOLE)
    states.append(("nhc-betting", screen_of(nhc.view()), HybridBettingScreen))
    insured = find_round(
        THREE, {"T1": 1}, lambda t: t.view()["insurance"] is not None, insurance=True
    )
    states.append(("insurance", screen_of(insured.view()), HybridPlayScreen))
    split = find_round(THREE, {"T1": 1, "T2": 3}, lambda t: "split" in t.view()["actions"])
    split.machine.act("T1", Action.SPLIT, 0)
    states.append(("split", screen_of(split.view()), HybridPlayScreen))
    states.append(("no-more-bets", screen_of(split.view("T4")), HybridBettingScreen))
    split.settle()
    states.append(("results", screen_of(split.view()), HybridResultsScreen))
    nhc_table, _ = no_hole_card_designated()
    nhc_table.settle()
    states.append(("nhc-results", screen_of(nhc_table.view()), HybridResultsScreen))
    for name, screen, kind in states:
        assert type(screen) is kind, name
        draw(screen, size, tmp_path, f"hybrid-{name}")


def test_the_results_show_the_settlements(tmp_path: Path) -> None:
    """The results panel lists each settlement in a player's words: the wager, the outcome,
    what it won or lost net of its stake and the reason without the paragraph it cites (the
    citation is for recall); the round's result is the message."""
    from terminal_client.screens.results import net_text, plain_detail

    table = find_round(THREE, {"T1": 2}, lambda t: True, seed=11)
    table.settle()
    view = table.view()
    screen = screen_of(view)
    assert isinstance(screen, HybridResultsScreen)
    lines: list[str] = []
    import terminal_client.render.results as panel

    original = panel.draw_text

    def recording(surface: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        lines.append(text)
        return original(surface, text, *args, **kwargs)

    panel.draw_text = recording  # type: ignore[assignment]
    try:
        draw(screen, (1280, 720), tmp_path, "hybrid-results-lines")
    finally:
        panel.draw_text = original  # type: ignore[assignment]
    assert view["settlements"]
    for settlement in view["settlements"]:
        net = settlement["paid"] - settlement["stake"]
        assert net_text(net) in lines
        detail = plain_detail(settlement["line"])
        if detail:
            assert detail in lines
    assert not [line for line in lines if "633" in line or "paid" in line]


# Betting ---------------------------------------------------------------------------------------


@BY_SIZE
def test_position_buttons_then_deal_send_one_place_wagers(size: tuple[int, int]) -> None:
    """633b.5(l): DEAL is not lit until a position is chosen; then it sends ONE PlaceWagers
    with the bet and the position, and the position buttons go dark."""
    client = RecordingClient()
    table = make_table(THREE)
    screen = screen_of(table.view(), client)
    assert isinstance(screen, HybridBettingScreen)
    layout = Layout.for_window(size)

    def tap_at(button_id: str) -> None:
        button = next(b for b in screen.buttons(layout) if b.id == button_id)
        target = screen.hit_test(layout, centre(button))
        assert target == f"button:{button_id}", (button_id, target)
        assert screen.handle(Tap(target)) is not None

    spot = next(s for s in screen.spots(layout) if s.id == "main")
    side = next(s for s in screen.spots(layout) if s.id == "buzzer_beater")
    chip = next(s for s in screen.tray(layout).slots() if s.cents == 500)
    for target in (chip.target_id, spot.target_id, spot.target_id, side.target_id):
        assert screen.handle(Tap(target)) is not None
    assert screen.pending == {"blackjack": 1_000, "buzzer_beater": 500}
    deal = next(b for b in screen.buttons(layout) if b.id == "deal")
    assert not deal.enabled and screen.hit_test(layout, centre(deal)) is None
    assert screen.handle(Key("confirm")) is not None  # the keyboard's DEAL asks for a position
    assert client.sent == [] and "position" in screen.message().lower()
    ids = [b.id for b in screen.buttons(layout) if b.id.startswith("position-")]
    assert ids == ["position-1", "position-2", "position-3"]
    tap_at("position-3")
    tap_at("position-1")
    assert screen.position == 1 and screen.message().startswith("POSITION 1")
    tap_at("deal")
    assert client.sent == [("place_wagers", {"blackjack": 1_000, "buzzer_beater": 500}, 1)]
    # The server took the bet: the screen shows it at position 1 and nothing is lit.
    table.machine.join("T1", {"blackjack": 1_000, "buzzer_beater": 500}, 1)
    screen.model.apply_view(table.view())
    assert screen.chosen_position() == 1
    assert not any(b.enabled for b in screen.buttons(layout) if b.id.startswith("position"))
    assert screen.placed() == {"blackjack": 1_000, "buzzer_beater": 500}
    assert "position 1" in screen.message()


def test_no_hole_card_betting_has_no_position_and_deal_sends_none() -> None:
    """633b.5(w)-(ee) has no player positions: no position button, DEAL sends no position;
    the offered side wagers (Royal Match 21, Bet the Set, King's Bounty) have circles."""
    client = RecordingClient()
    screen = screen_of(make_table(NO_HOLE).view(), client)
    assert isinstance(screen, HybridBettingScreen)
    layout = Layout.for_window((1920, 1080))
    assert not any(b.id.startswith("position") for b in screen.buttons(layout))
    spots = {s.id: s.label for s in screen.spots(layout)}
    assert spots == {
        "main": "BET",
        "royal_match_21": "ROYAL MATCH 21",
        "bet_the_set": "BET THE SET",
        "kings_bounty": "KING'S BOUNTY",
    }
    chip = next(s for s in screen.tray(layout).slots() if s.cents == 500)
    for target in (chip.target_id, "spot:main", "spot:kings_bounty"):
        assert screen.handle(Tap(target)) is not None
    deal = next(b for b in screen.buttons(layout) if b.id == "deal")
    assert deal.enabled
    assert screen.handle(Tap(deal.target_id)) is not None
    assert client.sent == [("place_wagers", {"blackjack": 500, "kings_bounty": 500}, None)]


# Play ------------------------------------------------------------------------------------------


def _hybrid_states() -> list[tuple[str, dict[str, Any]]]:
    three, view = three_position_after_hits()
    split = find_round(THREE, {"T1": 1}, lambda t: "split" in t.view()["actions"])
    nhc, nhc_view = no_hole_card_designated()
    return [
        ("three-position", view),
        ("three-position-split-offered", split.view()),
        ("no-hole-card", nhc_view),
        ("no-hole-card-not-my-turn", nhc.view("T2")),
        ("three-position-outsider", three.view("T4")),
    ]


def test_action_buttons_are_exactly_the_views_actions() -> None:
    """The lit action buttons are exactly view["actions"] (none when it is not this
    terminal's turn), and each sends its action for the hand to act."""
    layout = Layout.for_window((1280, 720))
    for name, view in _hybrid_states():
        client = RecordingClient()
        screen = screen_of(view, client)
        if not isinstance(screen, HybridPlayScreen):
            assert view["actions"] == [], name
            continue
        lit = {b.id for b in screen.buttons(layout) if b.enabled}
        assert lit == set(view["actions"]), name
        assert {b.id for b in screen.buttons(layout)} >= {"hit", "stand", "double", "split"}
        for button in screen.buttons(layout):
            target = screen.hit_test(layout, centre(button))
            assert (target == button.target_id) is button.enabled, (name, button.id)
        for action in sorted(lit):
            screen.handle(Tap(f"button:{action}"))
        expected = [("act", a, view["to_act"]["hand"]) for a in sorted(lit)]
        assert client.sent == expected, name


def test_insurance_and_even_money_come_from_the_view() -> None:
    """633a.8: INSURE (for the view's maximum), NO THANKS and, where offered, EVEN MONEY."""
    table = find_round(
        THREE, {"T1": 1}, lambda t: t.view()["insurance"] is not None, insurance=True
    )
    view = table.view()
    client = RecordingClient()
    screen = screen_of(view, client)
    layout = Layout.for_window((1920, 1080))
    ids = {b.id for b in screen.buttons(layout)}
    assert {"insurance", "decline"} <= ids
    assert ("even-money" in ids) is view["insurance"]["can_take_even_money"]
    assert not ids & {"hit", "stand"}
    screen.handle(Tap("button:insurance"))
    assert client.sent == [("insurance", "insurance", view["insurance"]["max"])]


def test_a_malformed_hybrid_view_shows_a_notice_and_keeps_the_last_good_one(
    tmp_path: Path,
) -> None:
    """A malformed view from the server is a notice in the message bar; the table shown
    (and its buttons) stay those of the last good view."""
    _, view = three_position_after_hits()
    model = model_of(view)
    screen = screen_for(model)(model, RecordingClient())
    layout = Layout.for_window((1920, 1080))
    lit = {b.id for b in screen.buttons(layout) if b.enabled}
    bad = copy.deepcopy(view)
    bad["hybrid"]["hands"][0]["cards"] = ["8S", "not a card"]
    model.apply_view(bad)
    assert screen_for(model) is HybridPlayScreen
    assert hybrid_of(model) is not None and hybrid_of(model).hands[0].cards == tuple(
        view["hybrid"]["hands"][0]["cards"]
    )
    assert "cannot read" in screen.message()
    assert {b.id for b in screen.buttons(layout) if b.enabled} == lit
    draw(screen, (1920, 1080), tmp_path, "hybrid-malformed")


# The demo bot through the app ------------------------------------------------------------------


class MachineClient:
    """A client whose intents go straight to the hybrid machine (the table server has no
    hybrid wiring yet): each answer, or each refusal, goes to the model."""

    def __init__(self, table: Table, terminal: str, model: TerminalModel) -> None:
        self.table = table
        self.terminal = terminal
        self.model = model
        self.sent: list[tuple[Any, ...]] = []
        self.refused: list[str] = []

    def _run(self, call: Any, *args: Any) -> Any:
        try:
            call(self.terminal, *args)
        except Exception as exc:  # a refusal: recorded, shown as the server's notice
            self.refused.append(f"{type(exc).__name__}: {exc}")
            self.model.apply_error("REFUSED", str(exc))
            return None
        self.refresh()
        return True

    def refresh(self) -> None:
        self.model.apply_view(self.table.view(self.terminal))

    def place_wagers(self, wagers: Any, position: int | None = None) -> Any:
        self.sent.append(("place_wagers", dict(wagers), position))
        return self._run(self.table.machine.join, dict(wagers), position)

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        self.sent.append(("act", action, hand))
        return self._run(self.table.machine.act, Action(action), hand, amount or None)

    def answer_insurance(self, choice: str, amount: int = 0) -> Any:
        self.sent.append(("insurance", choice))
        return self._run(self.table.machine.answer_insurance, choice, amount)

    def cash_out(self) -> Any:
        return None

    def request_rules(self) -> bool:
        return False

    def request_recall(self) -> bool:
        return False


@pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_autoplay_plays_whole_hybrid_rounds_through_the_app(config: Any) -> None:
    """The demo bot joins every round (at the three-position table at a position of its
    own) with the Blackjack minimum and every side wager the table offers at its minimum
    (a newcomer sees them played), answers insurance and decides with the view's actions
    until rounds settle; the app draws each screen on the way and nothing it sends is
    refused."""
    table = make_table(config, seed=7)
    model = TerminalModel()
    from terminal_client.model import ConnectionState

    model.apply_connection(ConnectionState.CONNECTED)
    client = MachineClient(table, "T1", model)
    client.refresh()
    bot = Autoplay(client)
    surface = pygame.Surface((1280, 720))
    app = TerminalApp(model, client, table.clock, lambda: surface, poll=lambda *a: [], autoplay=bot)
    seen: set[type[Screen]] = set()
    settled_rounds: set[Any] = set()
    for _ in range(400):
        app.tick()
        seen.add(type(app.stack.base))
        hybrid = hybrid_of(model)
        if hybrid is not None and hybrid.results_current:
            settled_rounds.add(model.view.round if model.view else None)
        if len(settled_rounds) >= 4:
            break
        seconds = table.machine.seconds_left()
        table.clock.advance(min(1.0, seconds) if seconds else 1.0)
        client.refresh()
    assert client.refused == []
    assert len(settled_rounds) >= 4
    joins = [s for s in client.sent if s[0] == "place_wagers"]
    assert len(joins) >= 4
    expected = bot.position_for("T1") if config is THREE else None
    assert {s[2] for s in joins} == {expected}
    sides = {o.wager.name: o.limits.minimum for o in config.rules.side_wagers}
    assert sides, "the example hybrid tables offer side wagers"
    wanted = {"blackjack": config.rules.main_limits.minimum, **sides}
    assert all(s[1] == wanted for s in joins)
    assert any(s[0] == "act" for s in client.sent)
    assert {HybridBettingScreen, HybridResultsScreen} <= seen


def test_the_next_rounds_betting_keeps_the_position_and_offers_rebet() -> None:
    """After a round, the betting screen of the next one has the position of the last bet the
    server took already chosen (633b.5(l)) and REBET offers that bet; a bet the server
    refused is not remembered."""
    from terminal_client.model import Intent, IntentKind

    table = make_table(THREE)
    model = model_of(table.view())
    refused = Intent.make(IntentKind.PLACE_WAGERS, "r-0", wagers={"blackjack": 9_999}, position=3)
    assert model.apply_sent(refused)
    model.apply_error("BET_OUT_OF_LIMITS", "too much", "r-0")
    assert model.accepted(IntentKind.PLACE_WAGERS) is None
    took = Intent.make(IntentKind.PLACE_WAGERS, "r-1", wagers={"blackjack": 1_000}, position=2)
    assert model.apply_sent(took)
    table.machine.join("T1", {"blackjack": 1_000}, 2)
    model.apply_answer("r-1", table.view())
    assert model.accepted(IntentKind.PLACE_WAGERS) is took
    model.apply_view(make_table(THREE).view())  # the next round's betting window
    later = screen_for(model)(model, RecordingClient())
    assert isinstance(later, HybridBettingScreen) and later._open()
    assert later.position == 2 and later.last_bet == {"blackjack": 1_000}
    layout = Layout.for_window((1920, 1080))
    assert next(b for b in later.buttons(layout) if b.id == "rebet").enabled
    assert later.handle(Tap("button:rebet")) is not None
    assert later.pending == {"blackjack": 1_000}
    assert next(b for b in later.buttons(layout) if b.id == "deal").enabled
